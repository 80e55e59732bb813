/*
 * test_platform.c — the same bits on every platform: each basis (every
 * dimension it has), each fractal type, warp, curl and cloud, and the libm
 * functions the engine and the Lua host call, hashed and compared with
 * tests/platform.txt, which was recorded on x86-64. `make test` checks it
 * on every x86 SIMD path; `make test-arm` on aarch64's scalar and neon
 * paths under qemu-user, so a kernel or a libm function whose bits differ
 * on ARM fails here by name.
 *
 * platform.txt lines: "NAME HASH", HASH the FNV-1a 64 of the float (or
 * double) results' bits. To re-record on x86-64 after an intended change:
 *     NG_UPDATE_GOLDEN=1 NG_ROOT=$PWD build/opt/run_tests platform
 */
#include "build.h"
#include "harness.h"
#include "kernels.h"
#include "ngmath.h"
#include "sample.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 48
#define H 32
#define MAX_CASES 256

typedef struct record {
    char name[64];
    unsigned long long hash;
} record;

static record want[MAX_CASES], got[MAX_CASES];
static int nwant, ngot;

static unsigned long long fnv_bytes(unsigned long long h, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

static void path_of(char *buf, size_t size)
{
    const char *root = getenv("NG_ROOT");
    snprintf(buf, size, "%s/tests/platform.txt", root && *root ? root : ".");
}

static void load(void)
{
    char path[4096], line[160];
    FILE *f;
    path_of(path, sizeof path);
    nwant = 0;
    if (!(f = fopen(path, "r"))) {
        CHECKF(getenv("NG_UPDATE_GOLDEN"), "cannot read %s (set NG_ROOT to the repository)", path);
        return;
    }
    while (fgets(line, sizeof line, f) && nwant < MAX_CASES)
        if (line[0] != '#' && sscanf(line, "%63s %llx", want[nwant].name, &want[nwant].hash) == 2) nwant++;
    fclose(f);
}

/* Records name's hash; compares it with platform.txt unless re-recording. */
static void check(const char *name, unsigned long long hash)
{
    int i;
    if (ngot < MAX_CASES) {
        snprintf(got[ngot].name, sizeof got[ngot].name, "%s", name);
        got[ngot++].hash = hash;
    }
    if (getenv("NG_UPDATE_GOLDEN")) return;
    for (i = 0; i < nwant; i++)
        if (!strcmp(want[i].name, name)) {
            CHECKF(want[i].hash == hash, "%s [%s]: hash %016llx, recorded on x86-64 %016llx", name,
                   t_path ? t_path->name : "libm", hash, want[i].hash);
            return;
        }
    CHECKF(0, "%s: not in tests/platform.txt (re-record it on x86-64)", name);
}

/* ---- renders ------------------------------------------------------------ */

/* root of g rendered W x H at dims (2, 3: at z, 4: at z and time), hashed */
static void check_render(const char *name, ng_graph *g, int root, int dims)
{
    ng_render_opts o;
    float *px;
    t_opts(&o, W, H);
    o.origin[0] = -1000.25, o.origin[1] = 333.5, o.pixel_size = 1.75;
    o.dims = dims, o.z = dims >= 3 ? 17.3 : 0, o.time = dims == 4 ? 0.37 : 0;
    if (!(px = t_render(g, root, &o))) {
        CHECKF(0, "%s: render failed", name);
        return;
    }
    check(name, fnv_bytes(0xcbf29ce484222325ULL, px,
                          (size_t)W * H * (size_t)ng_node_channels(ng_graph_node(g, root)) * sizeof(float)));
    free(px);
}

/* the 1D kernels, through ng_eval_points */
static void check_1d(const char *name, ng_graph *g, int root)
{
    double x[256];
    float *v;
    int i;
    for (i = 0; i < 256; i++) x[i] = -700.0 + 5.37 * i;
    if (!(v = t_points(g, root, 1, 256, x, NULL, NULL))) return;
    check(name, fnv_bytes(0xcbf29ce484222325ULL, v, 256 * sizeof(float)));
    free(v);
}

#define BASIS_ROW(F, ID, id, name, freq, lo, hi, dims, ...) {name, dims},
static const struct {
    const char *name;
    unsigned dims;
} bases[] = {NG_BASES(BASIS_ROW)};

static void test_every_basis(void)
{
    size_t b;
    int d;
    char name[64];
    for (b = 0; b < sizeof bases / sizeof bases[0]; b++)
        for (d = 1; d <= 4; d++) {
            ng_graph *g;
            int root;
            if (!((bases[b].dims >> d) & 1u)) continue;
            g = ng_graph_new();
            root = t_noise(g, bases[b].name, 23.0, 7);
            snprintf(name, sizeof name, "%s:%dD", bases[b].name, d);
            if (d == 1) check_1d(name, g, root);
            else check_render(name, g, root, d);
            ng_graph_free(g);
        }
}

static void test_every_fractal(void)
{
    static const char *const types[] = {"fbm", "terrain", "hybrid", "ridged", "billow"};
    static const char *const sources[] = {"perlin", "simplex", "worley"};
    char name[64];
    size_t t, s;
    for (t = 0; t < sizeof types / sizeof types[0]; t++)
        for (s = 0; s < sizeof sources / sizeof sources[0]; s++) {
            ng_graph *g = ng_graph_new();
            ng_node *n = t_begin(g, types[t]);
            t_in(g, n, "source", t_noise(g, sources[s], 40.0, 3));
            t_set(n, "octaves", 5.5);
            t_set(n, "roughness", 0.55);
            t_set(n, "lacunarity", 2.1);
            if (s == 1) t_choose(n, "normalize", "rms");
            snprintf(name, sizeof name, "fractal:%s:%s", types[t], sources[s]);
            check_render(name, g, t_finish(g, n), 3);
            ng_graph_free(g);
        }
}

static void test_every_warp(void)
{
    static const char *const modes[] = {"progressive", "independent"};
    static const char *const clouds[] = {"perlin_cloud", "simplex_cloud", "fast_simplex_cloud"};
    char name[64];
    size_t m;
    int d;
    for (m = 0; m < sizeof modes / sizeof modes[0]; m++)
        for (d = 2; d <= 3; d++) {
            ng_graph *g = ng_graph_new();
            int src = t_noise(g, "simplex", 30.0, 1), by = t_vnoise(g, "perlin", 50.0, 2);
            int w = t_warp_node(g, src, by, t_const(g, 12.0), 3.0, 2.0, 0.5, modes[m]);
            snprintf(name, sizeof name, "warp:%s:%dD", modes[m], d);
            check_render(name, g, t_warp(g, w, t_vnoise(g, "value", 70.0, 4), 5.0), d); /* a chain */
            ng_graph_free(g);
        }
    for (d = 2; d <= 3; d++) {
        ng_graph *g = ng_graph_new();
        int src = t_noise(g, "perlin", 30.0, 1);
        ng_node *c = t_begin(g, "curl");
        t_in(g, c, "source", t_noise(g, "simplex", 45.0, 9));
        snprintf(name, sizeof name, "warp:curl:%dD", d);
        check_render(name, g, t_warp(g, src, t_finish(g, c), 8.0), d);
        ng_graph_free(g);
    }
    for (m = 0; m < sizeof clouds / sizeof clouds[0]; m++) {
        ng_graph *g = ng_graph_new();
        ng_node *c = t_begin(g, clouds[m]);
        t_set(c, "element_size", 40.0);
        snprintf(name, sizeof name, "cloud:%s", clouds[m]);
        check_render(name, g, t_finish(g, c), 3);
        ng_graph_free(g);
    }
}

/* the math nodes that call libm per sample (sinf, cosf, powf, logf) */
static void test_libm_nodes(void)
{
    static const char *const unary[] = {"sin", "cos"};
    char name[64];
    size_t u;
    for (u = 0; u < sizeof unary / sizeof unary[0]; u++) {
        ng_graph *g = ng_graph_new();
        ng_node *n = t_begin(g, unary[u]);
        t_in(g, n, "source", t_bin(g, "mul", t_noise(g, "perlin", 20.0, 5), t_const(g, 40.0)));
        snprintf(name, sizeof name, "math:%s", unary[u]);
        check_render(name, g, t_finish(g, n), 2);
        ng_graph_free(g);
    }
    {
        ng_graph *g = ng_graph_new();
        int a = t_bin(g, "add", t_noise(g, "worley", 20.0, 5), t_const(g, 0.01));
        check_render("math:pow", g, t_bin(g, "pow", a, t_bin(g, "mul", t_noise(g, "value", 35.0, 6), t_const(g, 3.0))), 2);
        ng_graph_free(g);
    }
}

static void path_cases(void)
{
    ng__path_force(t_path);
    t_run_on_path("test_every_basis", test_every_basis);
    t_run_on_path("test_every_fractal", test_every_fractal);
    t_run_on_path("test_every_warp", test_every_warp);
    t_run_on_path("test_libm_nodes", test_libm_nodes);
    ng__path_force(NULL);
}

/* ---- libm ----------------------------------------------------------------- */

/* The transcendental functions of the bit path are core/ngmath.c's (the
 * "ng:" cases, inputs of their whole domains: sin and cos up to 1e300 take
 * the 2/pi reduction), the same bits everywhere by construction; glibc's
 * double sin, cos, exp, log, pow, atan2, ... differ even between x86-64 CPUs
 * (tests/test_ngmath.c). Lua's math library calls libm, and scripts use it
 * for parameters: the "libm:" cases are the functions it calls, each on
 * inputs of its own domain, the same bits on aarch64 as recorded on x86-64
 * (an FMA CPU) for these inputs. Functions whose bits differ between x86-64
 * and aarch64 in glibc 2.36 (exp2, cbrt, hypot, tanf, atanf, tanhf, found
 * comparing 200,000 results each) must not be called by the engine:
 * `make test-arm` fails if it comes to (LIBM_INEXACT in the Makefile). */
#define NLIBM 4096
typedef struct libm_case {
    const char *name;
    double (*d1)(double);
    double (*d2)(double, double);
    float (*f1)(float);
    float (*f2)(float, float);
    double lo, hi, lo2, hi2;
} libm_case;

/* sincos, which GCC calls for a sin and a cos of the same angle (nodes/transform.c) */
static double sincos_both(double x)
{
    double sn, cs;
    sincos(x, &sn, &cs);
    return sn + 3.0 * cs;
}

static double ng_sincos_both(double x)
{
    double sn, cs;
    ng_sincos(x, &sn, &cs);
    return sn + 3.0 * cs;
}

static const libm_case libm_cases[] = {
    {"libm:sincos", sincos_both, NULL, NULL, NULL, -1000, 1000, 0, 0},
    {"libm:sin", sin, NULL, NULL, NULL, -1000, 1000, 0, 0},
    {"libm:cos", cos, NULL, NULL, NULL, -1000, 1000, 0, 0},
    {"libm:tan", tan, NULL, NULL, NULL, -10, 10, 0, 0},
    {"libm:asin", asin, NULL, NULL, NULL, -1, 1, 0, 0},
    {"libm:acos", acos, NULL, NULL, NULL, -1, 1, 0, 0},
    {"libm:atan", atan, NULL, NULL, NULL, -100, 100, 0, 0},
    {"libm:exp", exp, NULL, NULL, NULL, -700, 700, 0, 0},
    {"libm:log", log, NULL, NULL, NULL, 0, 1e6, 0, 0},
    {"libm:log2", log2, NULL, NULL, NULL, 0, 1e6, 0, 0},
    {"libm:log10", log10, NULL, NULL, NULL, 0, 1e6, 0, 0},
    {"libm:pow", NULL, pow, NULL, NULL, 0, 10, -10, 10},
    {"libm:atan2", NULL, atan2, NULL, NULL, -10, 10, -10, 10},
    {"libm:fmod", NULL, fmod, NULL, NULL, -1000, 1000, 0.5, 10},
    {"libm:sinf", NULL, NULL, sinf, NULL, -1000, 1000, 0, 0},
    {"libm:cosf", NULL, NULL, cosf, NULL, -1000, 1000, 0, 0},
    {"libm:expf", NULL, NULL, expf, NULL, -80, 80, 0, 0},
    {"libm:logf", NULL, NULL, logf, NULL, 0, 1e6, 0, 0},
    {"libm:powf", NULL, NULL, NULL, powf, 0, 10, -10, 10},
    {"ng:sin", ng_sin, NULL, NULL, NULL, -1000, 1000, 0, 0},
    {"ng:sin:huge", ng_sin, NULL, NULL, NULL, -1e300, 1e300, 0, 0},
    {"ng:cos", ng_cos, NULL, NULL, NULL, -1000, 1000, 0, 0},
    {"ng:cos:huge", ng_cos, NULL, NULL, NULL, -1e22, 1e22, 0, 0},
    {"ng:sincos", ng_sincos_both, NULL, NULL, NULL, -1e6, 1e6, 0, 0},
    {"ng:tan", ng_tan, NULL, NULL, NULL, -10, 10, 0, 0},
    {"ng:atan", ng_atan, NULL, NULL, NULL, -100, 100, 0, 0},
    {"ng:atan2", NULL, ng_atan2, NULL, NULL, -10, 10, -10, 10},
    {"ng:exp", ng_exp, NULL, NULL, NULL, -745, 710, 0, 0},
    {"ng:log", ng_log, NULL, NULL, NULL, 0, 1e6, 0, 0},
    {"ng:log2", ng_log2, NULL, NULL, NULL, 0, 1e6, 0, 0},
    {"ng:pow", NULL, ng_pow, NULL, NULL, 0, 10, -30, 30},
    {"ng:tanh", ng_tanh, NULL, NULL, NULL, -20, 20, 0, 0},
    {"ng:sinf", NULL, NULL, ng_sinf, NULL, -1e30, 1e30, 0, 0},
    {"ng:cosf", NULL, NULL, ng_cosf, NULL, -1000, 1000, 0, 0},
    {"ng:expf", NULL, NULL, ng_expf, NULL, -104, 89, 0, 0},
    {"ng:logf", NULL, NULL, ng_logf, NULL, 0, 1e6, 0, 0},
    {"ng:powf", NULL, NULL, NULL, ng_powf, 0, 10, -10, 10},
};

static void test_libm(void)
{
    size_t c;
    int i;
    for (c = 0; c < sizeof libm_cases / sizeof libm_cases[0]; c++) {
        const libm_case *k = &libm_cases[c];
        unsigned long long h = 0xcbf29ce484222325ULL;
        t_rng_seed(c + 1);
        for (i = 0; i < NLIBM; i++) {
            double x = t_rng_range(k->lo, k->hi), y = t_rng_range(k->lo2, k->hi2);
            if (k->d1 || k->d2) {
                double r = k->d1 ? k->d1(x) : k->d2(x, y);
                h = fnv_bytes(h, &r, sizeof r);
            } else {
                float r = k->f1 ? k->f1((float)x) : k->f2((float)x, (float)y);
                h = fnv_bytes(h, &r, sizeof r);
            }
        }
        check(k->name, h);
    }
}

/* NG_UPDATE_GOLDEN: writes what this run computed (one path's renders). */
static void save(void)
{
    char path[4096];
    FILE *f;
    int i;
    path_of(path, sizeof path);
    if (!(f = fopen(path, "w"))) {
        CHECKF(0, "cannot write %s", path);
        return;
    }
    fprintf(f, "# NAME FNV-1a-64 of the results' bits, recorded on x86-64 (tests/test_platform.c)\n");
    for (i = 0; i < ngot; i++)
        if (i == 0 || strcmp(got[i].name, got[i - 1].name)) fprintf(f, "%s %016llx\n", got[i].name, got[i].hash);
    fclose(f);
    printf("  platform: recorded %s\n", path);
}

/* platform.txt is there and holds the cases (a case missing fails in check) */
static void test_recorded(void)
{
    load();
    CHECK(nwant > 0 || getenv("NG_UPDATE_GOLDEN"));
}

NG_SUITE(platform, fast)
{
    RUN(test_recorded);
    RUN(test_libm);
    if (getenv("NG_UPDATE_GOLDEN")) {
        t_path = ng__path_at(0, NULL);
        path_cases();
        t_path = NULL;
        save();
        return;
    }
    t_on_every_path("platform", path_cases);
}
