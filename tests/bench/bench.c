/*
 * bench.c — `make bench`: single-thread speed of noisegraph through the real
 * path (a graph built by a Lua script, rendered tile by tile into a sink
 * that encodes nothing), side by side with FastNoise2 figures of the issue's
 * machine kind (fixed numbers, not measured here), FastNoise2 measured in
 * the same run when `make bench PEERS=DIR` built it (fastnoise2_peer, from
 * the user's FastNoise2 source folder) and libnoise measured in the same
 * run (libnoise_peer); then the fixed cost of a render and of
 * frames in a row, the speed-up of 2 threads over 1 and the peak memory of
 * a huge PNG render.
 *
 *   bench [--quick] [--classic] [--scripts DIR] [ROW|overhead|frames|threads|memory|volume|turn|kernels|gradients|encode|erosion|python]...
 *
 * Grids: 2D rows render a 2048x2048 image; 3D rows one 128^3 volume render
 * (16^3 bricks). Every script uses a frequency of 0.02 per pixel
 * (element_size 50), as the peers do. A row is one warm-up and then timed
 * runs (at least 5, more while the row has used under a second, at most
 * 31); the median and the minimum are printed. Every figure is the whole
 * cost of the render: nothing is subtracted, and neighbourhood patches
 * (grid shading, blur) are computed anew in every run, not kept from the
 * last. Their memory is reused (core/slab.c keeps freed patch memory for
 * the next render in the process), so a row's figure is the cost of a
 * render in a process that has rendered before (serve, farm tiles,
 * Python). The shading ratios printed after the rows give the ratios of
 * the rows' thread CPU time too (what a loaded machine disturbs less);
 * then each pair again in alternating renders, the median of the pairs'
 * ratios (a load that changes from row to row skews the rows' ratio, not
 * these), beside those of the shaded row rendered as a process's first
 * render is (the pool emptied: fresh memory, page faults and the kernel's
 * zeroing).
 *
 * `overhead` is the fixed cost of one render: a 64x64 image of a constant
 * graph (its evaluation is a fill), median of many, on 1 and 2 threads.
 * `frames` renders many small images back to back, as a sequence or a live
 * preview does, on 1 and 2 threads.
 *
 * `volume` compares the two ways to render a 3D grid: GRID3 renders of
 * a GRID3 x GRID3 image at successive --z, and one GRID3^3 volume in
 * 16^3 bricks, both whole (nothing subtracted), single thread; and
 * renders a VOL_BIG^3 .vdb of a cloud density through the CLI for its peak
 * memory.
 *
 * `turn` times rotated octaves against unturned ones with the same
 * (classic) gradients: tests/bench/turn.lua of each fractal row's type,
 * rotate = true and false rendered in turns in the same run.
 *
 * `encode` renders graphs/terrain.lua at 4096^2, 16-bit, on 2 threads to
 * .r16 and to .png through the CLI and prints the ratio of their wall
 * times (issue 15's goal: at most 1.3), and the other levels and an .exr.
 *
 * `erosion` times ng.hydraulic: droplet steps per second of one simulation
 * tile on one thread (the droplet loop alone, over sines of the bench
 * terrain's scale), the speed-up of 2 threads over 1 on a
 * 2048^2 render of hydraulic.lua (a fresh graph per run: no cached tile;
 * the median and the best of the pairs, and the load average beside them:
 * on a shared machine other processes take from the 2-thread runs first;
 * and the same renders less the time their threads were runnable but kept
 * from a CPU, from Linux's schedstat: the speed-up the code itself gives),
 * and the wall time of a 4096^2 render of it on 2 threads.
 * `python` renders 4096^2 through the C API and through `import noisegraph`
 * (make python) in the same run: the module's overhead.
 *
 * `kernels` times the noise kernels alone (no graph, no tiles) on the SIMD
 * path in use: NG_SIMD=scalar|sse2|avx2|avx512 compares paths. Its last
 * table, `gradients` alone, times the gradient bases' classic and
 * isotropic sets in 2D to 4D in the same run.
 *
 * --classic: after each row, the same row with every default of the
 * version before (ng_graph_set_classic: the classic gradients, unturned
 * octaves), the two graphs' runs alternating (one of each, c->min_runs
 * times, after a warm-up of each), and the median of the pairs' ratios:
 * what a change of default costs, robust to a load that changes between
 * runs.
 *
 * Performance is never asserted: this program only reports. Exit 0 unless
 * the command line is wrong; a row whose script or render fails prints its
 * error in place of figures and the others still run.
 */
#include "host.h"
#include "kernels.h"
#include "ng_internal.h"
#include "octaves.h"
#include "weathering.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GRID2 2048   /* 2D rows: GRID2 x GRID2 */
#define GRID3 128    /* 3D rows: GRID3^3 */
#define THREADS_GRID 4096
#define MEM_SIZE 32768
#define MEM_LIMIT_MIB 256.0
#define VOL_BIG 512
#define MAX_RUNS 31
#define ROW_BUDGET 1.0 /* seconds of timed runs after which a row stops adding runs */

typedef struct row {
    const char *name;
    const char *script; /* file in the scripts directory */
    int dims;
    const char *peer;   /* libnoise_peer row, or NULL */
    double fn2_ns;      /* FastNoise2 AVX-512 ns/sample, the fixed figure; 0: none */
    const char *fn2;    /* fastnoise2_peer row, or NULL */
} row;

/* FastNoise2's figures are issue 14's, measured on its machine kind (FN2_MACHINE),
 * not here: the low end where the issue gives a range. */
#define FN2_MACHINE "2-vCPU Intel Xeon, AVX-512, KVM; FastNoise2 1.1.1, clang, fast-math + FMA, 1 thread"
static const row rows[] = {
    {"value2", "value.lua", 2, NULL, 1.01, "value_2d"},
    {"perlin2", "perlin.lua", 2, "perlin1_2d", 0, "perlin_2d"},
    {"perlin3", "perlin.lua", 3, "perlin1_3d", 2.27, "perlin_3d"},
    {"simplex2", "simplex.lua", 2, NULL, 0, "simplex_2d"},
    {"simplex3", "simplex.lua", 3, NULL, 2.23, "simplex_3d"},
    {"worley_f1_2", "worley_f1.lua", 2, NULL, 0, "cellular_f1_2d"},
    {"worley_f1_3", "worley_f1.lua", 3, "voronoi_3d", 15.8, "cellular_f1_3d"},
    {"fbm6_perlin2", "fbm6.lua", 2, "perlin6_2d", 0, "fbm6_2d"},
    {"fbm6_perlin3", "fbm6.lua", 3, "perlin6_3d", 12.8, "fbm6_3d"},
    {"terrain6_3", "terrain6.lua", 3, NULL, 0, NULL},
    {"hybrid6_3", "hybrid6.lua", 3, NULL, 0, NULL},
    {"ridged6_3", "ridged6.lua", 3, "ridged6_3d", 12.9, "ridged6_3d"},
    {"billow6_3", "billow6.lua", 3, "billow6_3d", 0, NULL},
    {"warp2", "warp.lua", 2, "turbulence_2d", 3.12, "warp_2d"},
    {"warp_chain3", "warp_chain3.lua", 2, NULL, 0, NULL},
    {"perlin_cloud3", "perlin_cloud.lua", 3, NULL, 0, NULL},
    {"simplex_cloud3", "simplex_cloud.lua", 3, NULL, 0, NULL},
    {"fast_simplex_cloud3", "fast_simplex_cloud.lua", 3, NULL, 0, NULL},
    {"terrain2", "terrain_height.lua", 2, NULL, 0, NULL},
    {"terrain_light2", "terrain_light.lua", 2, NULL, 0, NULL},
    {"terrain_shade2", "terrain_shade.lua", 2, NULL, 0, NULL},
    {"sparse2", "sparse_height.lua", 2, NULL, 0, NULL},
    {"sparse_light2", "sparse_light.lua", 2, NULL, 0, NULL},
    {"alligator2", "alligator_height.lua", 2, NULL, 0, NULL},
    {"alligator_light2", "alligator_light.lua", 2, NULL, 0, NULL},
    {"fbm_driven2", "fbm_driven_height.lua", 2, NULL, 0, NULL},
    {"fbm_driven_light2", "fbm_driven_light.lua", 2, NULL, 0, NULL},
    {"terrain_eroded2", "terrain_eroded.lua", 2, NULL, 0, NULL},
};
#define NROWS ((int)(sizeof rows / sizeof rows[0]))

typedef struct config {
    int quick;
    int classic; /* --classic: each row against its classic defaults */
    int min_runs;
    char scripts[PATH_MAX];
    char bindir[PATH_MAX]; /* where bench, noisegraph and the peers live */
    int has_ln;            /* libnoise_peer built */
    int has_fn2[2];        /* fastnoise2_progs (clang, g++) built */
} config;

typedef struct peer_result {
    char name[64];
    double ns, min; /* median and minimum ns/sample */
} peer_result;

/* ---- timing ------------------------------------------------------------------- */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v in place. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- rendering into nothing ---------------------------------------------------- */

static int null_begin(void *u, int w, int h, int ch, ng_error *err)
{
    (void)u, (void)w, (void)h, (void)ch, (void)err;
    return 0;
}

static int null_rows(void *u, int y, int n, const float *r, ng_error *err)
{
    (void)u, (void)y, (void)n, (void)r, (void)err;
    return 0;
}

static int null_begin_volume(void *u, const ng_volume_info *v, ng_error *err)
{
    (void)u, (void)v, (void)err;
    return 0;
}

static int null_slab(void *u, int z, int ns, int y, int n, const float *d, ng_error *err)
{
    (void)u, (void)z, (void)ns, (void)y, (void)n, (void)d, (void)err;
    return 0;
}

static int null_end(void *u, int ok, ng_error *err)
{
    (void)u, (void)ok, (void)err;
    return 0;
}

typedef struct job {
    const ng_graph *g;
    int root;
    int dims;
    int size;    /* image edge; 3D: also the number of planes */
    int threads;
    int volume;  /* 3D: one volume render instead of size planes */
} job;

/* Drops the neighbourhood patches the graph keeps from render to render,
 * so a row's every run computes its own (in the memory of the last run's,
 * which the process keeps for reuse). */
static void forget_patches(const ng_graph *g)
{
    ng__hood_cache *h = ng__graph_hood(g);
    if (h && ng__hood_attach(h, 0, NULL) == 0) ng__hood_detach(h);
}

/* CPU seconds of the calling thread: a rate that a loaded machine
 * disturbs less than the wall clock. */
static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One full grid: its wall time in seconds, or -1 with err set; the
 * calling thread's CPU seconds in *cpu (may be NULL). fresh: the pool of
 * patch memory emptied first (once the graph's patches went to it), so
 * the render's patches take fresh memory, as a process's first does. */
static double run_job_cpu(const job *j, int fresh, double *cpu, ng_error *err)
{
    const double c0 = thread_cpu();
    double t0, wall = 0;
    ng_sink sink = {null_begin, null_rows, null_end, NULL, null_begin_volume, null_slab};
    ng_render_opts o;
    int k, planes = j->dims == 3 && !j->volume ? j->size : 1;
    forget_patches(j->g);
    if (fresh) ng__slab_trim(0);
    ng_render_defaults(&o, j->size, j->size);
    o.dims = j->dims;
    o.threads = j->threads;
    o.tile = 64;
    if (j->volume) {
        o.depth = j->size;
        t0 = now();
        wall = ng_render(j->g, &j->root, 1, &o, &sink, err) ? -1 : now() - t0;
    } else {
        t0 = now();
        for (k = 0; k < planes && wall >= 0; k++) {
            o.z = k + 0.5;
            if (ng_render(j->g, &j->root, 1, &o, &sink, err)) wall = -1;
        }
        if (wall >= 0) wall = now() - t0;
    }
    if (cpu) *cpu = thread_cpu() - c0;
    return wall;
}

static double run_job(const job *j, ng_error *err) { return run_job_cpu(j, 0, NULL, err); }

typedef struct timing {
    double median, min; /* seconds per grid */
    double cpu;         /* the median of the runs' thread CPU seconds */
    int runs;
} timing;

/* One warm-up, then at least min_runs timed runs, more while under the
 * budget. 0, or -1 with err set. */
static int time_job(const job *j, int min_runs, double budget, timing *t, ng_error *err)
{
    double v[MAX_RUNS], cpu[MAX_RUNS], total = 0;
    int n = 0;
    if (run_job(j, err) < 0) return -1;
    while (n < min_runs || (total < budget && n < MAX_RUNS)) {
        double s = run_job_cpu(j, 0, &cpu[n], err);
        if (s < 0) return -1;
        v[n++] = s;
        total += s;
    }
    t->runs = n;
    t->median = median(v, n);
    t->min = v[0];
    t->cpu = median(cpu, n);
    return 0;
}

/* The script's first output, built from dir/file with nsets --set pairs
 * (name[k]=value[k]), with the classic defaults if classic. 0, or -1 with
 * err set. */
static int load_set(const config *c, const char *file, int classic, int nsets, const char *const *name,
                    const char *const *value, ng_script *s, ng_error *err)
{
    char path[PATH_MAX + 256];
    ng_host_opts h;
    int k;
    ng_host_defaults(&h);
    h.classic = classic;
    for (k = 0; k < nsets && k < NG_MAX_SETS; k++) h.set_name[k] = name[k], h.set_value[k] = value[k];
    h.nsets = k;
    snprintf(path, sizeof path, "%s/%s", c->scripts, file);
    if (ng_script_run(path, &h, s, err)) return -1;
    if (s->noutputs < 1) {
        ng_script_free(s);
        return ng_errorf(err, "%s: the script returned no node", path);
    }
    return 0;
}

/* The script's first output, built from dir/file (classic: as load_set). */
static int load(const config *c, const char *file, int classic, ng_script *s, ng_error *err)
{
    return load_set(c, file, classic, 0, NULL, NULL, s, err);
}

/* ---- the peers ------------------------------------------------------------------- */

/* A peer is a program beside bench, run on each of its rows just before
 * noisegraph's render of the row, which prints "peer NAME MEDIAN MIN"
 * (ns/sample) and, asked with --info, "peer-info TEXT" about itself. */
typedef struct peer_prog {
    const char *label;   /* as printed */
    const char *exe;     /* file in bindir */
    const char *missing; /* how it gets built */
    const char *about;   /* what its rows are, printed before it runs */
    size_t field;        /* offsetof(row, ...): the row's peer name */
} peer_prog;

static const peer_prog libnoise_prog = {
    "libnoise peer", "libnoise_peer", "libnoise-dev missing?",
    "g++ -O2, QUALITY_BEST, 1 warm-up + median of the runs;\n"
    "  perlin2/3 ~ Perlin 1 octave, fbm6_perlin2/3 ~ Perlin 6 octaves, worley_f1_3 ~ Voronoi (distance,\n"
    "  displacement 0), ridged6_3 ~ RidgedMulti, billow6_3 ~ Billow, warp2 ~ Turbulence of a Perlin\n"
    "  (roughness 1); libnoise is 3D only, 2D rows use z = 0",
    offsetof(row, peer)};

/* FastNoise2 built twice from the user's source (make bench PEERS=DIR):
 * by clang, which FastSIMD is tuned for, and by g++, CMake's default c++
 * on Debian; the two builds differ by up to 1.4x on some rows. */
#define FN2_ABOUT                                                                                               \
    "built here from the user's source by its own CMake files (Release: fast-math),\n"                          \
    "  1 thread, the widest SIMD level the CPU has, 1 warm-up, then the runs; each run is one\n"                \
    "  GenUniformGrid call writing the whole grid into a float buffer (noisegraph's rows render through\n"      \
    "  the whole graph path: script graph, tiles or bricks, sink); feature scale 50 at pixel centres;\n"        \
    "  worley_f1 ~ CellularDistance (euclidean, F1), fbm6/ridged6 ~ FractalFBm/FractalRidged of Perlin\n"      \
    "  (6 octaves, gain 0.5, lacunarity 2), warp2 ~ DomainWarpSimplex (amplitude 20) of a Simplex"
enum { NFN2 = 2 };
static const peer_prog fastnoise2_progs[NFN2] = {
    {"FastNoise2 peer, clang build", "fastnoise2_peer", "make bench PEERS=DIR builds it from DIR/FastNoise2 with clang++-14",
     FN2_ABOUT, offsetof(row, fn2)},
    {"FastNoise2 peer, g++ build", "fastnoise2_gcc_peer", "make bench PEERS=DIR builds it from DIR/FastNoise2 with g++",
     FN2_ABOUT, offsetof(row, fn2)},
};

static const char *row_peer(const row *r, const peer_prog *p)
{
    return *(const char *const *)((const char *)r + p->field);
}

/* Whether p was built beside bench: says what it measures (its own
 * "peer-info" line included) or why there is no column. */
static int peer_ready(const config *c, const peer_prog *p)
{
    char exe[PATH_MAX + 32], cmd[PATH_MAX + 64], line[512];
    FILE *f;
    snprintf(exe, sizeof exe, "%s/%s", c->bindir, p->exe);
    if (access(exe, X_OK)) {
        printf("%s: %s not built (%s): no column\n", p->label, exe, p->missing);
        return 0;
    }
    printf("%s: %s (%d runs per row, beside noisegraph's)\n  %s\n", p->label, exe,
           c->min_runs, p->about);
    snprintf(cmd, sizeof cmd, "'%s' --runs 1 --info", exe);
    if ((f = popen(cmd, "r"))) {
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "peer-info ", 10)) printf("  %s", line + 10);
        pclose(f);
    }
    return 1;
}

/* Runs p on row r, when p has such a row: its "peer NAME MEDIAN [MIN]"
 * line into *res. 1, or 0 when there is no figure (the reason printed
 * when the peer failed). */
static int run_peer(const config *c, const peer_prog *p, const row *r, int runs, peer_result *res)
{
    char cmd[PATH_MAX + 256], line[512];
    FILE *f;
    int got = 0, status;
    if (!row_peer(r, p)) return 0;
    snprintf(cmd, sizeof cmd, "'%s/%s' --runs %d %s", c->bindir, p->exe, runs, row_peer(r, p));
    if (!(f = popen(cmd, "r"))) return 0;
    while (fgets(line, sizeof line, f)) {
        int k = sscanf(line, "peer %63s %lf %lf", res->name, &res->ns, &res->min);
        if (k >= 2) {
            if (k == 2) res->min = res->ns;
            got = 1;
        }
    }
    status = pclose(f);
    if (status != 0 || !got) printf("  (%s exited with status %d on %s)\n", p->label, status, row_peer(r, p));
    return got && status == 0;
}

/* The " ns ratio" pair of one column: ours over the peer's ns, or dashes. */
static void print_ratio(double ours, double peer, int w1, int w2)
{
    if (peer > 0) printf(" %*.3f %*.2f", w1, peer, w2, ours / peer);
    else printf(" %*s %*s", w1, "-", w2, "-");
}

/* ---- rows ------------------------------------------------------------------------ */

static void print_header(void)
{
    printf("%-20s %9s %9s %9s %8s %9s %8s %9s %8s %9s %8s %11s %8s\n", "row", "samples", "ns/samp", "min ns",
           "Msamp/s", "FN2 fixed", "ours/fix", "FN2 clang", "ours/cl", "FN2 g++", "ours/g++", "libnoise ns", "ours/ln");
}

/* On a shared machine the load can change tenfold between two runs, so a
 * ratio of two medians taken one after the other says little. Pairs do:
 * the peer's one timed run (after its warm-up) and then one noisegraph
 * run (after its own warm-up: the peer's process has just filled the
 * caches), c->min_runs times; the median of the pairs' ratios, and the
 * peer's median. 0, or -1 (no figure). */
static int paired_ratio(const config *c, const peer_prog *p, const row *r, const job *j, double samples,
                        double *ratio, double *peer_median)
{
    double q[MAX_RUNS], pv[MAX_RUNS];
    int k;
    ng_error err;
    for (k = 0; k < c->min_runs && k < MAX_RUNS; k++) {
        peer_result one;
        double ours;
        if (!run_peer(c, p, r, 1, &one) || run_job(j, &err) < 0 || (ours = run_job(j, &err)) < 0) return -1;
        pv[k] = one.ns;
        q[k] = ours * 1e9 / samples / one.ns;
    }
    *ratio = median(q, k);
    *peer_median = median(pv, k);
    return 0;
}

/* The row of j (its script r) against the same script with the classic
 * defaults, runs alternating: prints both medians and the median of the
 * pairs' ratios. */
static void versus_classic(const config *c, const row *r, const job *j, double samples, int runs)
{
    double q[MAX_RUNS], td[MAX_RUNS], tc[MAX_RUNS], md, mc;
    ng_script s;
    ng_error err;
    job jc = *j;
    int k;
    if (load(c, r->script, 1, &s, &err)) {
        printf("  classic: error: %s\n", err.msg);
        return;
    }
    jc.g = s.graph;
    jc.root = s.output[0];
    if (run_job(j, &err) < 0 || run_job(&jc, &err) < 0) {
        printf("  classic: error: %s\n", err.msg);
        ng_script_free(&s);
        return;
    }
    for (k = 0; k < runs && k < MAX_RUNS; k++) {
        if ((td[k] = run_job(j, &err)) < 0 || (tc[k] = run_job(&jc, &err)) < 0) {
            printf("  classic: error: %s\n", err.msg);
            ng_script_free(&s);
            return;
        }
        q[k] = td[k] / tc[k];
    }
    ng_script_free(&s);
    md = median(td, k), mc = median(tc, k); /* sorted: td[0], tc[0] the minima */
    printf("%-20s default %.3f ns, classic %.3f ns (medians): default / classic %.3f (median of %d alternating\n"
           "%-20s pairs), %.3f (minimum over minimum)\n",
           "", md * 1e9 / samples, mc * 1e9 / samples, median(q, k), k, "", td[0] / tc[0]);
}
/* A row's figures in ns a sample (0: none): the runs' median wall time
 * and their median thread CPU time. */
typedef struct figures {
    double ns, cpu;
} figures;

/* One row, whole cost: 2D one image, 3D one volume render, just after
 * the peers built beside bench ran the same row. Its median ns/sample, or
 * -1 where it failed; its figures into *fig. */
static double bench_row(const config *c, const row *r, figures *fig)
{
    ng_script s;
    ng_error err;
    timing t;
    job j;
    peer_result ln = {"", 0, 0};
    double paired[NFN2] = {0}, fn2_ns[NFN2] = {0};
    int f;
    double samples = r->dims == 3 ? (double)GRID3 * GRID3 * GRID3 : (double)GRID2 * GRID2;
    double ns, ns_min;
    if (c->has_ln) run_peer(c, &libnoise_prog, r, c->min_runs, &ln);
    printf("%-20s %9.0f", r->name, samples);
    fflush(stdout);
    if (load(c, r->script, 0, &s, &err)) {
        printf("  error: %s\n", err.msg);
        return -1;
    }
    j.g = s.graph;
    j.root = s.output[0];
    j.dims = r->dims;
    j.size = r->dims == 3 ? GRID3 : GRID2;
    j.threads = 1;
    j.volume = r->dims == 3;
    if (time_job(&j, c->min_runs, ROW_BUDGET, &t, &err)) {
        printf("  error: %s\n", err.msg);
        ng_script_free(&s);
        return -1;
    }
    for (f = 0; f < NFN2; f++)
        if (c->has_fn2[f] && r->fn2 && paired_ratio(c, &fastnoise2_progs[f], r, &j, samples, &paired[f], &fn2_ns[f]))
            printf(" (no figure from the %s)", fastnoise2_progs[f].label);
    ns = t.median * 1e9 / samples;
    ns_min = t.min * 1e9 / samples;
    fig->ns = ns;
    fig->cpu = t.cpu * 1e9 / samples;
    printf(" %9.3f %9.3f %8.1f", ns, ns_min, 1e3 / ns);
    print_ratio(ns, r->fn2_ns, 9, 8);
    for (f = 0; f < NFN2; f++) {
        if (fn2_ns[f] > 0) printf(" %9.3f %8.2f", fn2_ns[f], paired[f]);
        else printf(" %9s %8s", "-", "-");
    }
    print_ratio(ns, ln.ns, 11, 8);
    printf("   (%d runs)\n", t.runs);
    if (c->classic) versus_classic(c, r, &j, samples, t.runs);
    ng_script_free(&s);
    return ns;
}

static void print_hillshade_ratio(const double *ns);
static void print_erosion_ratio(const config *c, const double *ns);

/* ---- fixed cost and frames ---------------------------------------------------------- */

/* Median and minimum seconds of n renders of root under o, each timed
 * alone after 20 warm-ups. 0, or -1 with err set. */
static int time_renders(const ng_graph *g, int root, const ng_render_opts *o, int n, double *med, double *min,
                        ng_error *err)
{
    ng_sink sink = {null_begin, null_rows, null_end, NULL, null_begin_volume, null_slab};
    double *v = malloc((size_t)n * sizeof *v);
    int k;
    if (!v) return ng_errorf(err, "out of memory");
    for (k = -20; k < n; k++) {
        double t0 = now();
        if (ng_render(g, &root, 1, o, &sink, err)) {
            free(v);
            return -1;
        }
        if (k >= 0) v[k] = now() - t0;
    }
    *med = median(v, n);
    *min = v[0];
    free(v);
    return 0;
}

/* The fixed cost of a render: a 64x64 image of a constant graph, whose
 * evaluation is a fill of 4096 floats. With 64-pixel tiles the image is
 * one tile and a render on 2 threads runs on the caller alone; smaller
 * tiles make the same render wake a pool helper. */
static void bench_overhead(const config *c)
{
    static const struct {
        int threads, tile;
        const char *what;
    } cases[] = {
        {1, 64, "1 thread, tile 64 (1 tile)"},
        {2, 64, "2 threads, tile 64 (1 tile: the caller alone)"},
        {2, 32, "2 threads, tile 32 (4 tiles: a pool helper woken)"},
        {2, 16, "2 threads, tile 16 (16 tiles: a pool helper woken)"},
    };
    const int n = c->quick ? 501 : 2001;
    ng_graph *g = ng_graph_new();
    ng_error err;
    size_t k;
    int root;
    printf("overhead: the fixed cost of one render, a 64x64 image of a constant graph, median of %d renders\n"
           "          each timed alone (min in brackets), microseconds:\n",
           n);
    if (!g || (root = ng_constant(g, 0.5, &err)) < 0) {
        printf("  error: %s\n", g ? err.msg : "out of memory");
        ng_graph_free(g);
        return;
    }
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ng_render_opts o;
        double med = 0, min = 0;
        ng_render_defaults(&o, 64, 64);
        o.threads = cases[k].threads;
        o.tile = cases[k].tile;
        if (time_renders(g, root, &o, n, &med, &min, &err)) printf("  %-52s error: %s\n", cases[k].what, err.msg);
        else printf("  %-52s %7.2f us (%.2f)\n", cases[k].what, med * 1e6, min * 1e6);
    }
    ng_graph_free(g);
}

/* Seconds of `count` renders of o back to back, the origin moving each
 * frame; -1 with err set on failure. */
static double run_frames(const ng_graph *g, int root, ng_render_opts o, int count, ng_error *err)
{
    ng_sink sink = {null_begin, null_rows, null_end, NULL, null_begin_volume, null_slab};
    double t0 = now();
    int f;
    for (f = 0; f < count; f++) {
        o.origin[0] = f * 3.0;
        if (ng_render(g, &root, 1, &o, &sink, err)) return -1;
    }
    return now() - t0;
}

/* Many small renders in a row, as a sequence of frames or a live preview
 * asks for them: FRAMES_EDGE^2 images of fbm6.lua in 32-pixel tiles, on
 * 1 and 2 threads in alternating batches. */
static void bench_frames(const config *c)
{
    enum { FRAMES_EDGE = 128, BATCH = 100, PAIRS = 7 };
    ng_script s;
    ng_error err;
    ng_render_opts o1, o2;
    double t1[PAIRS], t2[PAIRS], ratio[PAIRS];
    int k, pairs = c->quick ? 3 : PAIRS;
    printf("frames: %d renders of %dx%d fbm6.lua (2D, tile 32: 16 tiles) back to back, %d alternating batches\n"
           "        on 1 and 2 threads: ",
           BATCH, FRAMES_EDGE, FRAMES_EDGE, pairs);
    fflush(stdout);
    if (load(c, "fbm6.lua", 0, &s, &err)) {
        printf("error: %s\n", err.msg);
        return;
    }
    ng_render_defaults(&o1, FRAMES_EDGE, FRAMES_EDGE);
    o1.tile = 32;
    o1.threads = 1;
    o2 = o1;
    o2.threads = 2;
    if (run_frames(s.graph, s.output[0], o2, BATCH, &err) < 0) { /* warm-up */
        printf("error: %s\n", err.msg);
        ng_script_free(&s);
        return;
    }
    for (k = 0; k < pairs; k++) {
        if ((t1[k] = run_frames(s.graph, s.output[0], o1, BATCH, &err)) < 0 ||
            (t2[k] = run_frames(s.graph, s.output[0], o2, BATCH, &err)) < 0) {
            printf("error: %s\n", err.msg);
            ng_script_free(&s);
            return;
        }
        ratio[k] = t1[k] / t2[k];
    }
    printf("1 thread %.3f ms/frame, 2 threads %.3f ms/frame (medians), speed-up %.2fx (median of pair ratios)\n",
           median(t1, pairs) * 1e3 / BATCH, median(t2, pairs) * 1e3 / BATCH, median(ratio, pairs));
    ng_script_free(&s);
}

/* ---- threads ---------------------------------------------------------------------- */

/* Kernel offsets: a 64-wide grid at frequency 0.02, z fixed. */
static void kernel_grid(float *const f[3], int n)
{
    int i;
    for (i = 0; i < n; i++) {
        f[0][i] = (float)(i % 64) * 0.02f;
        f[1][i] = (float)(i / 64) * 0.02f;
        f[2][i] = 0.37f;
    }
}

/* The machine's own ceiling: the same kernel loop (Perlin 3D, no engine,
 * nothing shared) on 1 thread, then on 2 threads at once with twice the
 * work; 2 t1 / t2 is what two cores give here (vCPUs may share a core or
 * be throttled by the host). */
static void *ceiling_work(void *arg)
{
    enum { N = 4096 };
    float *buf = arg, *f[3] = {buf, buf + N, buf + 2 * N}, *out = buf + 3 * N;
    ng_noise_pts p;
    int it;
    kernel_grid(f, N);
    memset(&p, 0, sizeof p);
    p.n = N;
    p.dims = 3;
    p.f[0] = f[0], p.f[1] = f[1], p.f[2] = f[2];
    for (it = 0; it < 6000; it++) {
        p.anchor[0] = it;
        ng__kernel(ng__path(), NG_BASIS_PERLIN)(&p, out);
    }
    return NULL;
}

static double ceiling_run(int nthreads)
{
    static float bufs[2][4 * 4096];
    pthread_t th[2];
    double t = now();
    int k;
    for (k = 0; k < nthreads; k++) pthread_create(&th[k], NULL, ceiling_work, bufs[k]);
    for (k = 0; k < nthreads; k++) pthread_join(th[k], NULL);
    return now() - t;
}

/* Script `script` (row `name`) on 1 and 2 threads in alternation, so
 * drifting load on a shared machine hits both alike: the speed-up is the
 * median of the pairs' ratios. 0, or -1 (printed). */
static int thread_pairs(const config *c, const char *name, const char *script)
{
    enum { PAIRS = 9 };
    ng_script s;
    ng_error err;
    double t1[PAIRS], t2[PAIRS], ratio[PAIRS];
    job j, j2;
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int k, pairs = c->quick ? 3 : PAIRS;
    printf("threads: %s (%s, 2D) on %dx%d, tile 64, %d alternating pairs: ", name, script, THREADS_GRID, THREADS_GRID,
           pairs);
    fflush(stdout);
    if (load(c, script, 0, &s, &err)) {
        printf("error: %s\n", err.msg);
        return -1;
    }
    j = (job){.g = s.graph, .root = s.output[0], .dims = 2, .size = THREADS_GRID, .threads = 1, .volume = 0};
    j2 = j;
    j2.threads = 2;
    if (run_job(&j2, &err) < 0) /* warm-up */
        goto fail;
    for (k = 0; k < pairs; k++) {
        if ((t1[k] = run_job(&j, &err)) < 0 || (t2[k] = run_job(&j2, &err)) < 0) goto fail;
        ratio[k] = t1[k] / t2[k];
    }
    printf("1 thread %.1f ms, 2 threads %.1f ms (medians), speed-up %.2fx (median of pair ratios; goal >= 1.9x "
           "on 2 cores; %ld CPUs online)\n",
           median(t1, pairs) * 1e3, median(t2, pairs) * 1e3, median(ratio, pairs), cpus);
    ng_script_free(&s);
    return 0;
fail:
    printf("error: %s\n", err.msg);
    ng_script_free(&s);
    return -1;
}

/* The speed-up of 2 threads over 1: of a fractal, and of the grid
 * shading (its strips computed by one thread each, core/hood.c); then
 * the machine's own ceiling. */
static void bench_threads(const config *c)
{
    enum { PAIRS = 9 };
    double ratio[PAIRS];
    int k, pairs = c->quick ? 3 : PAIRS;
    if (thread_pairs(c, "fbm6_perlin2", "fbm6.lua") || thread_pairs(c, "alligator_light2", "alligator_light.lua"))
        return;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) printf("threads: only one CPU online, so the speed-up says nothing about scaling\n");
    for (k = 0; k < pairs; k++) {
        double one = ceiling_run(1);
        ratio[k] = 2.0 * one / ceiling_run(2);
    }
    printf("threads: the machine's ceiling, the same kernel loop on 1 thread and twice on 2 (nothing shared): "
           "%.2fx (median of %d pairs)\n",
           median(ratio, pairs), pairs);
}

/* ---- erosion ----------------------------------------------------------------------- */

/* What the scheduler gave this process's threads so far (Linux
 * /proc/self/task/TID/schedstat): seconds on a CPU and seconds runnable
 * but waiting for one, per thread (at most MAX_TASKS). */
enum { MAX_TASKS = 64 };
typedef struct sched_snap {
    int n;
    long tid[MAX_TASKS];
    double run[MAX_TASKS], wait[MAX_TASKS];
} sched_snap;

static void sched_read(sched_snap *s)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    s->n = 0;
    while (d && (e = readdir(d)) && s->n < MAX_TASKS) {
        char path[300];
        unsigned long long run, wait;
        FILE *f;
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
        if (!(f = fopen(path, "r"))) continue;
        if (fscanf(f, "%llu %llu", &run, &wait) == 2) {
            s->tid[s->n] = atol(e->d_name);
            s->run[s->n] = (double)run * 1e-9, s->wait[s->n] = (double)wait * 1e-9;
            s->n++;
        }
        fclose(f);
    }
    if (d) closedir(d);
}

/* Of a render that took wall seconds between snapshots a and b: the
 * longest time a thread that worked in it was not kept waiting for a CPU
 * (wall less its runnable-but-not-running time): the render's wall time
 * had every thread had a CPU of its own, its waits for other threads
 * included. -1 where schedstat is not available. */
static double own_cpu_wall(const sched_snap *a, const sched_snap *b, double wall)
{
    double longest = -1;
    int i, k;
    for (i = 0; i < b->n; i++) {
        double run = b->run[i], wait = b->wait[i];
        for (k = 0; k < a->n; k++)
            if (a->tid[k] == b->tid[i]) run -= a->run[k], wait -= a->wait[k];
        if (run > 0.01 * wall && wall - wait > longest) longest = wall - wait;
    }
    return longest;
}

/* hydraulic.lua loaded afresh (its graph's tile cache empty), rendered
 * size^2 on `threads`: wall seconds, or -1 with err set; *own (if not
 * NULL) own_cpu_wall's figure. */
static double erosion_render(const config *c, int size, int threads, double *own, ng_error *err)
{
    ng_script s;
    sched_snap a, b;
    job j;
    double t;
    if (load(c, "hydraulic.lua", 0, &s, err)) return -1;
    j = (job){.g = s.graph, .root = s.output[0], .dims = 2, .size = size, .threads = threads, .volume = 0};
    sched_read(&a);
    t = run_job(&j, err);
    sched_read(&b);
    if (own) *own = t < 0 ? -1 : own_cpu_wall(&a, &b, t);
    ng_script_free(&s);
    return t;
}

/* Droplet steps per second of one tile (131^2 cells of the terrain at
 * spacing 4, the defaults), on this thread: the median of runs. */
static void erosion_steps(void)
{
    enum { N = 131, RUNS = 7 };
    const size_t n = (size_t)N * N;
    ng_hydro_params p = {1, 48, 0.05f, 1, 0.01f, 0.15f, 0.1f, 0.02f, 4, 0, 0, NULL, NULL, NULL}; /* the defaults */
    int8_t bx[NG_HYDRO_BRUSH_MAX], by[NG_HYDRO_BRUSH_MAX];
    float bw[NG_HYDRO_BRUSH_MAX];
    float *src = malloc(n * sizeof *src), *f = malloc(4 * n * sizeof *f);
    double rate[RUNS], cpu_rate[RUNS];
    int64_t steps = 0;
    int i, k;
    ng_hydro_brush(&p, 1, bx, by, bw);
    for (k = 0; src && k < (int)n; k++) { /* the bench terrain's scale: 400 px features on 4 px cells */
        const double x = (k % N) * 4.0 / 400, y = (k / N) * 4.0 / 400;
        src[k] = (float)25 * (float)(0.5 * sin(x * 3.1 + 0.3) * cos(y * 2.7) + 0.25 * sin(x * 6.9 + y * 5.3) +
                         0.12 * cos(x * 13.7 - y * 11.9) + 0.06 * sin(x * 29.3 + y * 23.1));
    }
    for (i = 0; src && f && i < RUNS; i++) {
        double t0, c0;
        memcpy(f, src, n * sizeof *f);
        memset(f + n, 0, 3 * n * sizeof *f);
        t0 = now(), c0 = thread_cpu();
        steps = ng_hydro_run(&p, f, f + n, f + 2 * n, f + 3 * n, N, 128, 1000 + (uint64_t)i);
        rate[i] = (double)steps / (now() - t0);
        cpu_rate[i] = (double)steps / (thread_cpu() - c0);
    }
    if (src && f)
        printf("erosion: droplet steps, 1 thread: %.1f M steps/s wall, %.1f M per CPU second (medians of %d tiles of "
               "16384 droplets, %lld steps each)\n",
               median(rate, RUNS) / 1e6, median(cpu_rate, RUNS) / 1e6, RUNS, (long long)steps);
    free(src), free(f);
}

static void bench_erosion(const config *c)
{
    enum { PAIRS = 3, SIZE = 2048, BIG = 4096 };
    double t1[PAIRS], t2[PAIRS], ratio[PAIRS], big, best, load[1], o1[PAIRS], o2[PAIRS], own[PAIRS];
    ng_error err;
    int k;
    erosion_steps();
    printf("erosion: hydraulic.lua %dx%d, fresh graph each run, %d alternating pairs: ", SIZE, SIZE, PAIRS);
    fflush(stdout);
    for (k = 0; k < PAIRS; k++) {
        if ((t1[k] = erosion_render(c, SIZE, 1, &o1[k], &err)) < 0 ||
            (t2[k] = erosion_render(c, SIZE, 2, &o2[k], &err)) < 0) {
            printf("error: %s\n", err.msg);
            return;
        }
        ratio[k] = t1[k] / t2[k];
        own[k] = o1[k] > 0 && o2[k] > 0 ? o1[k] / o2[k] : -1;
    }
    for (k = 1, best = ratio[0]; k < PAIRS; k++) best = ratio[k] > best ? ratio[k] : best;
    if (getloadavg(load, 1) != 1) load[0] = -1;
    printf("1 thread %.2f s, 2 threads %.2f s (medians), speed-up %.2fx (median of pair ratios), best pair %.2fx "
           "(goal >= 1.8x), load average %.2f (other load takes from the 2-thread runs first)\n",
           median(t1, PAIRS), median(t2, PAIRS), median(ratio, PAIRS), best, load[0]);
    if (median(own, PAIRS) > 0)
        printf("erosion: the same renders less the time their threads waited for a CPU the machine's other load held "
               "(schedstat): 1 thread %.2f s, 2 threads %.2f s, speed-up %.2fx (median of pair ratios): what 2 "
               "threads give with a CPU each\n",
               median(o1, PAIRS), median(o2, PAIRS), median(own, PAIRS));
    if ((big = erosion_render(c, BIG, 2, NULL, &err)) < 0) {
        printf("erosion: %dx%d: error: %s\n", BIG, BIG, err.msg);
        return;
    }
    printf("erosion: hydraulic.lua %dx%d eroded terrain, 2 threads, fresh graph: %.2f s wall\n", BIG, BIG, big);
}

/* ---- memory ------------------------------------------------------------------------ */

/* Runs argv with stdout discarded and stderr collected into buf.
 * Returns the exit status (as waitpid), or -1. */
static int run_capture(char *const argv[], char *buf, size_t cap)
{
    int fd[2], status = -1;
    size_t len = 0;
    ssize_t got;
    pid_t pid;
    if (pipe(fd)) return -1;
    if ((pid = fork()) < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        FILE *null = freopen("/dev/null", "w", stdout);
        (void)null;
        dup2(fd[1], 2);
        close(fd[0]);
        close(fd[1]);
        execv(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    while ((got = read(fd[0], buf + len, cap - 1 - len)) > 0 || (got < 0 && errno == EINTR))
        if (got > 0) len += (size_t)got;
    buf[len] = 0;
    close(fd[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) continue;
    return status;
}

/* What one CLI render cost, measured by /usr/bin/time -v. */
typedef struct measured {
    long kib;      /* peak RSS */
    double secs;   /* wall time */
    double bytes;  /* size of the file written (deleted after), or -1 */
} measured;

/* Runs `noisegraph render SCRIPT -o TMPDIR/out ARGS... --quiet` (args:
 * NULL-terminated, at most 8) under /usr/bin/time -v. 0 with m filled, or
 * -1 after printing why (skipped or failed) to finish the caller's line. */
static int measure_render(const config *c, const char *script, const char *out_name, char *const *args,
                          measured *m)
{
    char dir[] = "/tmp/ngbench.XXXXXX", out[64], ngbin[PATH_MAX + 32], log[65536];
    char *argv[24], *p;
    struct stat st;
    double t0;
    int status, i = 0;
    snprintf(ngbin, sizeof ngbin, "%s/noisegraph", c->bindir);
    if (access("/usr/bin/time", X_OK)) {
        printf("skipped, /usr/bin/time is missing (Debian package time)\n");
        return -1;
    }
    if (access(ngbin, X_OK)) {
        printf("skipped, %s is missing\n", ngbin);
        return -1;
    }
    if (!mkdtemp(dir)) {
        printf("skipped, cannot create a temporary directory: %s\n", strerror(errno));
        return -1;
    }
    snprintf(out, sizeof out, "%s/%s", dir, out_name);
    argv[i++] = "/usr/bin/time";
    argv[i++] = "-v";
    argv[i++] = ngbin;
    argv[i++] = "render";
    argv[i++] = (char *)script;
    argv[i++] = "-o";
    argv[i++] = out;
    while (*args && i < 22) argv[i++] = *args++;
    argv[i++] = "--quiet";
    argv[i] = NULL;
    t0 = now();
    status = run_capture(argv, log, sizeof log);
    m->secs = now() - t0;
    m->kib = -1;
    m->bytes = stat(out, &st) == 0 ? (double)st.st_size : -1;
    unlink(out);
    rmdir(dir);
    if ((p = strstr(log, "Maximum resident set size (kbytes):"))) m->kib = strtol(strchr(p, ':') + 1, NULL, 10);
    if (status != 0 || m->kib < 0) {
        char *nl;
        p = strstr(log, "noisegraph:");
        if (!p) p = log;
        if ((nl = strchr(p, '\n'))) *nl = 0;
        printf("failed (status %d): %s\n", status, p);
        return -1;
    }
    return 0;
}

static void bench_memory(const config *c)
{
    char script[PATH_MAX + 32], size[16];
    char *args[] = {"--size", size, "--bits", "16", NULL};
    measured m;
    snprintf(script, sizeof script, "%s/perlin.lua", c->scripts);
    snprintf(size, sizeof size, "%d", MEM_SIZE);
    printf("memory: %dx%d 16-bit PNG of perlin.lua (one Perlin 2D: a cheap graph, so the ~1e9 samples take\n"
           "        a minute or two), threads = one per CPU, peak RSS by /usr/bin/time -v: ",
           MEM_SIZE, MEM_SIZE);
    fflush(stdout);
    if (measure_render(c, script, "big.png", args, &m)) return;
    printf("%.1f MiB, %s %.0f MiB", m.kib / 1024.0, m.kib / 1024.0 < MEM_LIMIT_MIB ? "under" : "NOT under",
           MEM_LIMIT_MIB);
    if (m.bytes >= 0) printf(" (%.0f s, PNG %.0f MiB, deleted)\n", m.secs, m.bytes / 1048576.0);
    else printf(" (%.0f s)\n", m.secs);
}

/* ---- encoding ------------------------------------------------------------------------ */

#define ENC_SIZE "4096"
#define ENC_RUNS 3

/* The fastest of ENC_RUNS CLI renders of graphs/terrain.lua to out_name
 * with args; -1 after printing why not. */
static int encode_best(const config *c, const char *out_name, char **args, measured *best)
{
    char script[PATH_MAX + 32];
    measured m;
    int k;
    snprintf(script, sizeof script, "%s/../../graphs/terrain.lua", c->scripts);
    for (k = 0; k < ENC_RUNS; k++) {
        if (measure_render(c, script, out_name, args, &m)) return -1;
        if (k == 0 || m.secs < best->secs) *best = m;
    }
    return 0;
}

/* CPU seconds (user + system) of the children waited for so far: the
 * renders and everything they ran. */
static double children_cpu(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_CHILDREN, &u)) return 0;
    return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6 + (double)u.ru_stime.tv_sec +
           u.ru_stime.tv_usec * 1e-6;
}

/* encode_best, and the mean CPU seconds of its runs in *cpu: on a loaded
 * machine wall times wander with the other processes, CPU time much less,
 * and with 2 free cores the wall-time ratio tends to the CPU-time one. */
static int encode_cpu(const config *c, const char *out_name, char **args, measured *best, double *cpu)
{
    const double t0 = children_cpu();
    const int rc = encode_best(c, out_name, args, best);
    *cpu = (children_cpu() - t0) / ENC_RUNS;
    return rc;
}

/* ---- the program's start ------------------------------------------------------------ */

#define START_RUNS 41

/* What every CLI call pays before it reads its script: `noisegraph
 * --version`, START_RUNS times (after one warm-up), its median wall time
 * and its mean CPU time (user + system, which the machine's other load
 * changes less). The dynamic loader's relocations were most of it (GDAL,
 * loaded when a GeoTIFF is written since 0.2.0, was 36 ms of 91). */
static void bench_startup(const config *c)
{
    char ngbin[PATH_MAX + 32], log[4096];
    char *argv[] = {ngbin, "--version", NULL};
    double wall[START_RUNS], cpu0 = 0;
    int k;
    snprintf(ngbin, sizeof ngbin, "%s/noisegraph", c->bindir);
    printf("startup: noisegraph --version, %d runs: ", START_RUNS);
    fflush(stdout);
    if (access(ngbin, X_OK)) {
        printf("skipped, %s is missing\n", ngbin);
        return;
    }
    for (k = -1; k < START_RUNS; k++) {
        const double t0 = now();
        if (k == 0) cpu0 = children_cpu();
        if (run_capture(argv, log, sizeof log) != 0) {
            printf("failed: %s\n", log);
            return;
        }
        if (k >= 0) wall[k] = now() - t0;
    }
    printf("%.1f ms wall (median), %.1f ms CPU (mean)\n\n", median(wall, START_RUNS) * 1e3,
           (children_cpu() - cpu0) / START_RUNS * 1e3);
}

/* ---- the Python module ------------------------------------------------------------- */

#define PY_GRID 4096
#define PY_RUNS 9

/* Median seconds of PY_RUNS renders of script (1 thread, PY_GRID^2) through
 * the C API into a new buffer each (malloc, ng_render_buffer, free), after
 * one warm-up; -1 with err set. */
static double c_api_render(const config *c, const char *script, ng_error *err)
{
    ng_script s;
    ng_render_opts o;
    double v[PY_RUNS];
    int k;
    if (load(c, script, 0, &s, err)) return -1;
    ng_render_defaults(&o, PY_GRID, PY_GRID);
    o.threads = 1;
    for (k = -1; k < PY_RUNS; k++) {
        double t0 = now();
        float *out = malloc((size_t)PY_GRID * PY_GRID * sizeof *out);
        if (!out || ng_render_buffer(s.graph, s.output[0], &o, out, err)) {
            free(out);
            ng_script_free(&s);
            return out ? -1 : ng_errorf(err, "out of memory");
        }
        free(out);
        if (k >= 0) v[k] = now() - t0;
    }
    ng_script_free(&s);
    return median(v, PY_RUNS);
}

/* The same renders through `import noisegraph` (build/.../python) under
 * Debian's python3: Graph(script).render(size=PY_GRID, threads=1), which
 * returns a NumPy array over the buffer the render wrote. Seconds, or -1
 * (why printed). */
static double python_render(const config *c, const char *script)
{
    char cmd[3 * PATH_MAX + 1024], line[256];
    double t = -1;
    FILE *f;
    snprintf(cmd, sizeof cmd,
             "PYTHONPATH='%s/python' /usr/bin/python3 -c '"
             "import sys, time, statistics, noisegraph\n"
             "g = noisegraph.Graph(sys.argv[1]); g.render(size=%d, threads=1); v = []\n"
             "for k in range(%d):\n"
             "    t0 = time.perf_counter(); a = g.render(size=%d, threads=1); v.append(time.perf_counter() - t0); del a\n"
             "print(\"python\", statistics.median(v))' '%s/%s' 2>&1",
             c->bindir, PY_GRID, PY_RUNS, PY_GRID, c->scripts, script);
    if (!(f = popen(cmd, "r"))) return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "python %lf", &t) != 1) printf("  %s", line);
    pclose(f);
    return t;
}

/* Issue 27: a 4096^2 render through the Python module costs what the C API
 * costs (no copy overhead: the array wraps the render's buffer), within 5%.
 * A cheap graph (perlin 2D, a copy would be the largest share there) and
 * fBm; 1 thread, the C and Python runs alternating by graph. */
static void bench_python(const config *c)
{
    static const char *const scripts[] = {"perlin.lua", "fbm6.lua"};
    size_t k;
    printf("python: %d^2 image, 1 thread, median of %d renders each into a new buffer: C API (malloc +\n"
           "        ng_render_buffer) vs noisegraph.Graph.render (a NumPy array over the render's buffer)\n",
           PY_GRID, PY_RUNS);
    for (k = 0; k < sizeof scripts / sizeof scripts[0]; k++) {
        ng_error err;
        double tc = c_api_render(c, scripts[k], &err), tp;
        if (tc < 0) {
            printf("  %-12s error: %s\n", scripts[k], err.msg);
            continue;
        }
        if ((tp = python_render(c, scripts[k])) < 0) {
            printf("  %-12s C %.1f ms; python: not measured (make python builds the module)\n", scripts[k], tc * 1e3);
            continue;
        }
        printf("  %-12s C %7.1f ms  python %7.1f ms  python/C %.3f (the goal: <= 1.05)\n", scripts[k], tc * 1e3,
               tp * 1e3, tp / tc);
    }
}

/* Issue 15: a 16-bit PNG costs at most 1.3x the same render to .r16 on
 * 2 threads (compression off the critical path, png.c); and what the
 * other levels and an .exr cost beside them. */
static void bench_encode(const config *c)
{
    static const char *const levels[] = {"0", "1", "3"};
    char *r16[] = {"--size", ENC_SIZE, "--bits", "16", "--threads", "2", NULL};
    char *exr[] = {"--size", ENC_SIZE, "--threads", "2", NULL};
    char *png_args[] = {"--size", ENC_SIZE, "--bits", "16", "--threads", "2", "--compression", NULL, NULL};
    measured raw, png, m;
    double raw_cpu, cpu;
    size_t k;
    printf("encoding: graphs/terrain.lua at %sx%s, 16-bit, 2 threads, the CLI's wall time (best of %d)\n"
           "and its CPU time (user + system, mean of the runs):\n",
           ENC_SIZE, ENC_SIZE, ENC_RUNS);
    printf("  .r16 (no compression): ");
    fflush(stdout);
    if (encode_cpu(c, "t.r16", r16, &raw, &raw_cpu)) return;
    printf("%.2f s, cpu %.2f s\n  .png (default level):  ", raw.secs, raw_cpu);
    fflush(stdout);
    if (encode_cpu(c, "t.png", r16, &png, &cpu)) return;
    printf("%.2f s, %.1f MiB: png/r16 = %.2f (the goal: <= 1.30); cpu png/r16 = %.2f\n", png.secs,
           png.bytes / 1048576.0, png.secs / raw.secs, cpu / raw_cpu);
    for (k = 0; k < sizeof levels / sizeof levels[0]; k++) {
        png_args[7] = (char *)levels[k];
        printf("  .png --compression %s:  ", levels[k]);
        fflush(stdout);
        if (encode_cpu(c, "t.png", png_args, &m, &cpu)) continue;
        printf("%.2f s, %.1f MiB: png/r16 = %.2f; cpu png/r16 = %.2f\n", m.secs, m.bytes / 1048576.0,
               m.secs / raw.secs, cpu / raw_cpu);
    }
    printf("  .exr (float, ZIP):     ");
    fflush(stdout);
    if (!encode_cpu(c, "t.exr", exr, &m, &cpu))
        printf("%.2f s, %.1f MiB: exr/r16 = %.2f; cpu exr/r16 = %.2f\n", m.secs, m.bytes / 1048576.0,
               m.secs / raw.secs, cpu / raw_cpu);
    printf("\n");
}

/* ---- volumes ------------------------------------------------------------------------ */

/* ns per voxel of one GRID3^3 grid rendered as planes and as a volume. */
static void volume_row(const config *c, const char *file)
{
    ng_script s;
    ng_error err;
    timing planes, vol;
    job j;
    const double voxels = (double)GRID3 * GRID3 * GRID3;
    printf("  %-22s", file);
    fflush(stdout);
    if (load(c, file, 0, &s, &err)) {
        printf("error: %s\n", err.msg);
        return;
    }
    j.g = s.graph;
    j.root = s.output[0];
    j.dims = 3;
    j.size = GRID3;
    j.threads = 1;
    j.volume = 0;
    if (time_job(&j, c->min_runs, ROW_BUDGET, &planes, &err) == 0 &&
        (j.volume = 1, time_job(&j, c->min_runs, ROW_BUDGET, &vol, &err) == 0))
        printf(" %10.3f %10.3f %10.2f\n", planes.median * 1e9 / voxels, vol.median * 1e9 / voxels,
               planes.median / vol.median);
    else
        printf("error: %s\n", err.msg);
    ng_script_free(&s);
}

/* Peak RSS and wall time of the CLI rendering a VOL_BIG^3 .vdb of file
 * (relative to the bench scripts) with the extra option pair opt, val. */
static void volume_memory(const config *c, const char *file, const char *opt, const char *val)
{
    char script[PATH_MAX + 32], size[32];
    char *args[] = {"--size", size, (char *)opt, (char *)val, NULL};
    measured m;
    snprintf(script, sizeof script, "%s/%s", c->scripts, file);
    snprintf(size, sizeof size, "%dx%dx%d", VOL_BIG, VOL_BIG, VOL_BIG);
    printf("  %s of %s %s %s to .vdb: ", size, file, opt ? opt : "", opt ? val : "");
    fflush(stdout);
    if (measure_render(c, script, "cloud.vdb", args, &m)) return;
    printf("peak RSS %.1f MiB (the dense grid would be %.0f MiB; %.0f s", m.kib / 1024.0,
           (double)VOL_BIG * VOL_BIG * VOL_BIG * 4 / 1048576.0, m.secs);
    if (m.bytes >= 0) printf(", .vdb %.0f MiB, deleted", m.bytes / 1048576.0);
    printf(")\n");
}

static void bench_volume(const config *c)
{
    static const char *const files[] = {"perlin.lua", "fbm6.lua", "perlin_cloud.lua"};
    size_t k;
    printf("volumes, single thread, %d^3 voxels, whole cost: %d renders of %dx%d at --z, against one\n"
           "volume render (16^3 bricks); ns/voxel\n"
           "  %-22s %10s %10s %10s\n",
           GRID3, GRID3, GRID3, GRID3, "script", "planes", "volume", "planes/vol");
    for (k = 0; k < sizeof files / sizeof files[0]; k++) volume_row(c, files[k]);
    if (!c->quick) {
        printf("volume memory, threads = one per CPU, peak RSS by /usr/bin/time -v (the .vdb holds the\n"
               "active voxels only: half of them in the first, the cumulus field's clouds in the second):\n");
        volume_memory(c, "cloud_volume.lua", NULL, NULL);
        volume_memory(c, "../../graphs/cloud_volume.lua", "--voxel-size", "2");
    }
    printf("\n");
}

/* ---- main ----------------------------------------------------------------------------- */

static void print_machine(void)
{
    char line[512], model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!strncmp(line, "model name", 10) && colon) {
            snprintf(model, sizeof model, "%s", colon + 2);
            model[strcspn(model, "\n")] = 0;
            break;
        }
    }
    if (f) fclose(f);
    printf("noisegraph %s bench: %s, %ld CPUs online\n", NG_VERSION, model, sysconf(_SC_NPROCESSORS_ONLN));
}

/* ---- kernels alone ------------------------------------------------------------ */

/* The points both kernel timings use: n points of the grid fp at an
 * anchor off the lattice, seed 1, full jitter. */
static void kernel_pts(ng_noise_pts *p, int n, int dims, float *const fp[3])
{
    memset(p, 0, sizeof *p);
    p->n = n;
    p->dims = dims;
    p->anchor[0] = 10.5;
    p->anchor[1] = 3.25;
    p->anchor[2] = 7.1;
    p->f[0] = fp[0], p->f[1] = fp[1], p->f[2] = fp[2];
    p->seed = 1;
    p->jitter = 1;
}

/* output = "vector": ns per sample for a basis's dims channels in one walk
 * against one call per channel (dims calls of the scalar kernel), with
 * each gradient set (the vector kernels take the one named, as the scalar
 * kernels do). */
static void bench_vector_kernels(float *fp[3], const char *const *names)
{
    enum { N = 4096, CALLS = 50 };
    static float out[3 * N];
    const ng_path *path = ng__path();
    int b, dims, set;
    printf("vector kernels, %s path, ns/sample for dims channels: one walk vs dims scalar calls:\n", path->name);
    for (set = NG_GRADIENTS_CLASSIC; set <= NG_GRADIENTS_ISOTROPIC; set++)
    for (b = 0; b < NG_NBASES; b++)
        for (dims = 2; dims <= 3; dims++) {
            ng_vector_fn vec = ng__kernel_vector(path, b, dims);
            ng_noise_pts p;
            double best = HUGE_VAL, best1 = HUGE_VAL;
            int r, c, k;
            if (!vec) continue;
            kernel_pts(&p, N, dims, fp);
            p.gradients = set;
            for (r = 0; r < 7; r++) {
                double t = now();
                for (c = 0; c < CALLS; c++) vec(&p, dims, out);
                t = now() - t;
                if (t < best) best = t;
                t = now();
                for (c = 0; c < CALLS; c++)
                    for (k = 0; k < dims; k++) ng__kernel(path, b)(&p, out + (size_t)k * N);
                t = now() - t;
                if (t < best1) best1 = t;
            }
            printf("  %-9s %dD %-9s %7.3f vs %7.3f (%.2fx)\n", names[b], dims,
                   set == NG_GRADIENTS_ISOTROPIC ? "isotropic" : "classic", best / ((double)CALLS * N) * 1e9,
                   best1 / ((double)CALLS * N) * 1e9, best1 / best);
        }
}

/* One kernel of any of the four signatures, to time. */
typedef struct any_kernel {
    ng_basis_fn value;
    ng_basis_d_fn grad;
    ng_vector_fn vector;
    ng_vector_d_fn vector_d;
} any_kernel;

static void call_kernel(const any_kernel *k, const ng_noise_pts *p, float *out, float *grad)
{
    if (k->value) k->value(p, out);
    else if (k->grad) k->grad(p, out, grad);
    else if (k->vector) k->vector(p, p->dims, out);
    else k->vector_d(p, p->dims, out, grad);
}

/* Best of 7 batches of calls calls of k on p, in ns per sample. */
static double time_kernel(any_kernel k, const ng_noise_pts *p, int calls, float *out, float *grad)
{
    double best = HUGE_VAL;
    int r, c;
    for (r = 0; r < 7; r++) {
        double t = now();
        for (c = 0; c < calls; c++) call_kernel(&k, p, out, grad);
        t = now() - t;
        if (t < best) best = t;
    }
    return best / ((double)calls * p->n) * 1e9;
}

/* The value-and-gradient (_d) kernels beside their value kernels: a
 * hillshade or slope pulls the _d form, so its ratio to the value kernel
 * is what lighting a terrain costs per octave. */
static void bench_grad_kernels(float *fp[3], const char *const *names)
{
    enum { N = 4096, CALLS = 50 };
    static float out[3 * N], grad[9 * N];
    const ng_path *path = ng__path();
    int b, dims;
    printf("gradient kernels, %s path, ns/sample: value, value+gradient (_d), ratio:\n", path->name);
    for (b = 0; b < NG_NBASES; b++)
        for (dims = 2; dims <= 3; dims++) {
            ng_basis_d_fn gfn = ng__kernel_grad(path, b);
            ng_noise_pts p;
            double tv, td;
            if (!gfn) continue;
            kernel_pts(&p, N, dims, fp);
            tv = time_kernel((any_kernel){.value = ng__kernel(path, b)}, &p, CALLS, out, grad);
            td = time_kernel((any_kernel){.grad = gfn}, &p, CALLS, out, grad);
            printf("  %-9s %dD %7.3f %7.3f (%.2fx)\n", names[b], dims, tv, td, td / tv);
        }
    for (b = 0; b < NG_NBASES; b++)
        for (dims = 2; dims <= 3; dims++) {
            ng_vector_fn vec = ng__kernel_vector(path, b, dims);
            ng_vector_d_fn vec_d = ng__kernel_vector_d(path, b, dims);
            ng_noise_pts p;
            double tv, td;
            if (!vec || !vec_d) continue;
            kernel_pts(&p, N, dims, fp);
            tv = time_kernel((any_kernel){.vector = vec}, &p, CALLS, out, grad);
            td = time_kernel((any_kernel){.vector_d = vec_d}, &p, CALLS, out, grad);
            printf("  %-9s vec%d %7.3f %7.3f (%.2fx)\n", names[b], dims, tv, td, td / tv);
        }
}

/* Issue 14's goal for analytic gradients: the terrain with its hillshade
 * at most 1.3x the terrain alone, both rows of this run; beside it, the
 * floor the gradient kernels alone put under that ratio. terrain_light.lua
 * lights 7 octaves, each a 2-channel simplex walk (the warp's flow) and a
 * perlin 2D (the warped base): in their _d forms, which the light needs,
 * they cost this run's _d-minus-value kernel time per octave more, before
 * any chain-rule pass. */
static void print_hillshade_ratio(const double *ns)
{
    enum { N = 4096, CALLS = 50, OCTAVES = 7 };
    static float f[3][N], out[3 * N], grad[9 * N];
    float *fp[3] = {f[0], f[1], f[2]};
    const ng_path *path = ng__path();
    ng_noise_pts p;
    double extra;
    int k, lit = -1, plain = -1;
    for (k = 0; k < NROWS; k++) {
        if (!strcmp(rows[k].name, "terrain_light2")) lit = k;
        if (!strcmp(rows[k].name, "terrain2")) plain = k;
    }
    if (lit < 0 || plain < 0 || ns[lit] <= 0 || ns[plain] <= 0) return;
    kernel_grid(fp, N);
    kernel_pts(&p, N, 2, fp);
    extra = time_kernel((any_kernel){.vector_d = ng__kernel_vector_d(path, NG_BASIS_SIMPLEX, 2)}, &p, CALLS, out, grad) -
            time_kernel((any_kernel){.vector = ng__kernel_vector(path, NG_BASIS_SIMPLEX, 2)}, &p, CALLS, out, grad) +
            time_kernel((any_kernel){.grad = ng__kernel_grad(path, NG_BASIS_PERLIN)}, &p, CALLS, out, grad) -
            time_kernel((any_kernel){.value = ng__kernel(path, NG_BASIS_PERLIN)}, &p, CALLS, out, grad);
    printf("hillshade: terrain_light2 / terrain2 = %.2f (the goal: <= 1.30); its floor from the _d kernels alone\n"
           "  (7 octaves x (simplex vec2 + perlin 2D), %.3f ns/sample more than their value forms) = %.2f\n",
           ns[lit] / ns[plain], OCTAVES * extra, 1.0 + OCTAVES * extra / ns[plain]);
}

/* The gradient bases' two gradient sets (ng_noise_pts.gradients) in 2D to
 * 4D, timed in the same run: classic (the sets and bits of 0.1.0) and
 * isotropic (the default since 0.2.0), and their ratio (issue 24: within
 * 5%). */
static void bench_gradient_sets(float *fp[3])
{
    enum { N = 4096, CALLS = 50 };
    static const struct {
        const char *name;
        int basis, maxdims;
    } bases[] = {{"perlin", NG_BASIS_PERLIN, 4}, {"fast", NG_BASIS_FAST, 4}, {"simplex", NG_BASIS_SIMPLEX, 4},
                 {"flow", NG_BASIS_FLOW, 3}};
    static float out[N];
    const ng_path *path = ng__path();
    size_t b;
    int dims;
    printf("gradient sets, %s path, ns/sample: classic, isotropic, ratio:\n", path->name);
    for (b = 0; b < sizeof bases / sizeof bases[0]; b++)
        for (dims = 2; dims <= bases[b].maxdims; dims++) {
            ng_noise_pts p;
            double tc, ti;
            kernel_pts(&p, N, dims, fp);
            p.f[3] = fp[2];
            p.anchor[3] = 5.3;
            p.gradients = NG_GRADIENTS_CLASSIC;
            tc = time_kernel((any_kernel){.value = ng__kernel(path, bases[b].basis)}, &p, CALLS, out, NULL);
            p.gradients = NG_GRADIENTS_ISOTROPIC;
            ti = time_kernel((any_kernel){.value = ng__kernel(path, bases[b].basis)}, &p, CALLS, out, NULL);
            printf("  %-9s %dD %7.3f %7.3f (%.3fx)\n", bases[b].name, dims, tc, ti, ti / tc);
        }
}

/* The shaded row over the plain one in alternating renders (plain, shaded,
 * and shaded as a first render is, in fresh patch memory; after a
 * warm-up of each, c->min_runs times, more while under ROW_BUDGET, as a
 * row's runs): the medians of the ratios, by wall
 * time and by thread CPU time, shaded / plain into r[0], r[1] and first
 * render / plain into r[2], r[3]; a load that changes from row to row
 * does not skew them. 0, or -1. */
static int paired_shading(const config *c, const row *lit, const row *plain, double r[4])
{
    ng_script s[2];
    ng_error err;
    job j[2];
    double q[4][MAX_RUNS], t[3], u[3], total = 0;
    int k, n, rc = -1;
    if (load(c, plain->script, 0, &s[0], &err)) return -1;
    if (load(c, lit->script, 0, &s[1], &err)) {
        ng_script_free(&s[0]);
        return -1;
    }
    for (k = 0; k < 2; k++) {
        memset(&j[k], 0, sizeof j[k]);
        j[k].g = s[k].graph, j[k].root = s[k].output[0], j[k].dims = 2, j[k].size = GRID2, j[k].threads = 1;
    }
    if (run_job(&j[0], &err) < 0 || run_job(&j[1], &err) < 0) goto done;
    for (n = 0; n < c->min_runs || (total < ROW_BUDGET && n < MAX_RUNS); n++) {
        for (k = 0; k < 3; k++)
            if ((t[k] = run_job_cpu(&j[k > 0], k == 2, &u[k], &err)) < 0) goto done;
        total += t[0] + t[1] + t[2];
        for (k = 0; k < 2; k++) {
            q[2 * k][n] = t[k + 1] / t[0];
            q[2 * k + 1][n] = u[k + 1] / u[0];
        }
    }
    for (k = 0; k < 4; k++) r[k] = median(q[k], n);
    rc = 0;
done:
    ng_script_free(&s[0]);
    ng_script_free(&s[1]);
    return rc;
}

/* Issue 25's goal: the default shading of a 2D render (ng.light, the grid
 * method) at most 1.15x its height alone, for graphs whose analytic
 * gradients were dear (sparse, alligator, a fractal with node-driven
 * options) and the terrain; both rows of each pair from this run, by
 * wall time (the goal's figure) and by thread CPU time; then the paired
 * figures (paired_shading). */
static void print_shading_ratios(const config *c, const figures *fig)
{
    static const char *const pairs[][2] = {{"terrain_shade2", "terrain2"},
                                           {"sparse_light2", "sparse2"},
                                           {"alligator_light2", "alligator2"},
                                           {"fbm_driven_light2", "fbm_driven2"}};
    size_t p;
    for (p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        int k, lit = -1, plain = -1;
        for (k = 0; k < NROWS; k++) {
            if (!strcmp(rows[k].name, pairs[p][0])) lit = k;
            if (!strcmp(rows[k].name, pairs[p][1])) plain = k;
        }
        double r[4];
        if (lit < 0 || plain < 0 || fig[lit].ns <= 0 || fig[plain].ns <= 0) continue;
        printf("shading: %s / %s = %.2f (the goal: <= 1.15); thread CPU time %.2f\n", pairs[p][0], pairs[p][1],
               fig[lit].ns / fig[plain].ns, fig[lit].cpu / fig[plain].cpu);
        if (paired_shading(c, &rows[lit], &rows[plain], r) == 0)
            printf("  paired (alternating renders): %.2f, thread CPU time %.2f; a first render (fresh patch "
                   "memory) %.2f, %.2f\n", r[0], r[1], r[2], r[3]);
    }
}

/* Issue 25's goal for the erosion filter: 4 octaves of gullies over
 * terrain2 (its value and analytic gradient, then the filter) at most 2x
 * the terrain alone, both rows of this run; then in alternating renders
 * (paired_shading), which a load that changes from row to row does not
 * skew. */
static void print_erosion_ratio(const config *c, const double *ns)
{
    int k, eroded = -1, plain = -1;
    double r[4];
    for (k = 0; k < NROWS; k++) {
        if (!strcmp(rows[k].name, "terrain_eroded2")) eroded = k;
        if (!strcmp(rows[k].name, "terrain2")) plain = k;
    }
    if (eroded < 0 || plain < 0 || ns[eroded] <= 0 || ns[plain] <= 0) return;
    printf("erosion filter: terrain_eroded2 / terrain2 = %.2f (the goal: <= 2.00)\n", ns[eroded] / ns[plain]);
    if (paired_shading(c, &rows[eroded], &rows[plain], r) == 0)
        printf("  paired (alternating renders): %.2f, thread CPU time %.2f\n", r[0], r[1]);
}

/* ns per sample of the selected path's kernels on 4096 points of a 64x64
 * grid (frequency 0.02), best of 7 batches of 50 calls. */
static void bench_kernels(void)
{
    enum { N = 4096, CALLS = 50 };
#define BASIS_NAME(F, ID, id, name, ...) [NG_BASIS_##ID] = name,
    static const char *const names[NG_NBASES] = {NG_BASES(BASIS_NAME)};
    static float f[3][N], out[N];
    float *fp[3] = {f[0], f[1], f[2]};
    const ng_path *path = ng__path();
    int b, dims;
    kernel_grid(fp, N);
    printf("kernels alone, %s path, ns/sample (best of 7 x %d calls of %d points):\n", path->name, CALLS, N);
    for (b = 0; b < NG_NBASES; b++)
        for (dims = 2; dims <= 3; dims++) {
            ng_noise_pts p;
            double best = HUGE_VAL;
            int r, c;
            kernel_pts(&p, N, dims, fp);
            for (r = 0; r < 7; r++) {
                double t = now();
                for (c = 0; c < CALLS; c++) ng__kernel(path, b)(&p, out);
                t = now() - t;
                if (t < best) best = t;
            }
            printf("  %-9s %dD %7.3f\n", names[b], dims, best / ((double)CALLS * N) * 1e9);
        }
    bench_vector_kernels(fp, names);
    bench_grad_kernels(fp, names);
    bench_gradient_sets(fp);
}

/* ---- rotated octaves ------------------------------------------------------------ */

/* `turn`: what rotated octaves cost. turn.lua (6 octaves of classic
 * Perlin, the rows' grids) of each fractal row's type and dimensions,
 * rotate = true and rotate = false loaded side by side and rendered in
 * turns (which goes first alternates): per pair the ratio of the turned
 * render's time to the unturned one's, wall and process CPU; the medians
 * of those ratios and of each side's ns/sample, and the load average
 * before and after (other processes slow both sides of a pair alike). */
typedef struct turn_row {
    const char *name, *type;
    int dims;
} turn_row;

static const turn_row turn_rows[] = {
    {"fbm6_perlin2", "standard", 2}, {"fbm6_perlin3", "standard", 3}, {"terrain6_3", "terrain", 3},
    {"hybrid6_3", "hybrid", 3},      {"ridged6_3", "ridged", 3},      {"billow6_3", "billow", 3},
};

static void turn_pairs(const config *c, const turn_row *r)
{
    const char *names[2] = {"type", "rotate"}, *on[2] = {r->type, "true"}, *off[2] = {r->type, "false"};
    const double samples = r->dims == 3 ? (double)GRID3 * GRID3 * GRID3 : (double)GRID2 * GRID2;
    double wall[MAX_RUNS], cpu[MAX_RUNS], ns_on[MAX_RUNS], ns_off[MAX_RUNS];
    ng_script s[2];
    ng_error err;
    job j[2];
    int k, side, pairs = c->quick ? 5 : 15;
    printf("  %-14s", r->name);
    fflush(stdout);
    if (load_set(c, "turn.lua", 0, 2, names, on, &s[0], &err)) {
        printf("error: %s\n", err.msg);
        return;
    }
    if (load_set(c, "turn.lua", 0, 2, names, off, &s[1], &err)) {
        printf("error: %s\n", err.msg);
        ng_script_free(&s[0]);
        return;
    }
    for (side = 0; side < 2; side++) {
        j[side].g = s[side].graph, j[side].root = s[side].output[0], j[side].dims = r->dims;
        j[side].size = r->dims == 3 ? GRID3 : GRID2, j[side].threads = 1, j[side].volume = r->dims == 3;
    }
    if (run_job(&j[0], &err) < 0 || run_job(&j[1], &err) < 0) goto fail; /* warm-ups */
    for (k = 0; k < pairs; k++) {
        double t[2], u[2];
        for (side = 0; side < 2; side++) { /* even pairs turned first, odd ones unturned first */
            const int which = k % 2 ? 1 - side : side;
            if ((t[which] = run_job_cpu(&j[which], 0, &u[which], &err)) < 0) goto fail;
        }
        wall[k] = t[0] / t[1], cpu[k] = u[0] / u[1];
        ns_on[k] = t[0] * 1e9 / samples, ns_off[k] = t[1] * 1e9 / samples;
    }
    printf(" %9.3f %9.3f %8.3f %8.3f\n", median(ns_on, pairs), median(ns_off, pairs), median(wall, pairs),
           median(cpu, pairs));
    ng_script_free(&s[0]);
    ng_script_free(&s[1]);
    return;
fail:
    printf("error: %s\n", err.msg);
    ng_script_free(&s[0]);
    ng_script_free(&s[1]);
}

static void print_load(const char *when)
{
    double load[3];
    if (getloadavg(load, 3) == 3) printf("  load average %s: %.2f %.2f %.2f\n", when, load[0], load[1], load[2]);
}

/* The lattice kernels alone (classic gradients), unturned and reading a
 * turn (ng_noise_pts.turn: octave 1's rotation), best of 7 runs each. */
static void turn_kernels(void)
{
    enum { N = 4096, CALLS = 50 };
    static const struct {
        const char *name;
        int basis;
    } bases[] = {{"perlin", NG_BASIS_PERLIN}, {"fast", NG_BASIS_FAST}, {"value", NG_BASIS_VALUE}};
    static float f[3][N], out[N];
    float *fp[3] = {f[0], f[1], f[2]};
    const ng_path *path = ng__path();
    size_t b;
    int dims, d, e;
    kernel_grid(fp, N);
    printf("  kernels alone, %s path, ns/sample: unturned, turned, ratio\n", path->name);
    for (b = 0; b < sizeof bases / sizeof bases[0]; b++)
        for (dims = 2; dims <= 3; dims++) {
            const any_kernel k = {.value = ng__kernel(path, bases[b].basis)};
            double R[3][3], t0, t1;
            ng_noise_pts p;
            kernel_pts(&p, N, dims, fp);
            t0 = time_kernel(k, &p, CALLS, out, NULL);
            ng__octave_rotation(1, dims, R);
            for (d = 0; d < 3; d++)
                for (e = 0; e < 3; e++) p.turn[d][e] = (float)R[d][e];
            p.turn_axes = dims;
            t1 = time_kernel(k, &p, CALLS, out, NULL);
            printf("    %-7s %dD %7.3f %7.3f (%.3fx)\n", bases[b].name, dims, t0, t1, t1 / t0);
        }
}

static void bench_turn(const config *c)
{
    size_t k;
    printf("rotated octaves, single thread: turn.lua (6 octaves of classic Perlin), rotate = true against false\n"
           "rendered in turns, %d pairs; medians of ns/sample and of the pairs' ratios (goal: <= 1.03)\n"
           "  %-14s %9s %9s %8s %8s\n",
           c->quick ? 5 : 15, "row", "turned", "unturned", "wall", "cpu");
    print_load("before");
    for (k = 0; k < sizeof turn_rows / sizeof turn_rows[0]; k++) turn_pairs(c, &turn_rows[k]);
    print_load("after");
    turn_kernels();
    printf("\n");
}

static int usage(void)
{
    int i;
    fprintf(stderr, "usage: bench [--quick] [--classic] [--scripts DIR] [ROW|overhead|frames|threads|memory|volume|turn|kernels|gradients|encode|erosion|python]...\nrows:");
    for (i = 0; i < NROWS; i++) fprintf(stderr, " %s", rows[i].name);
    fprintf(stderr, "\n");
    return 2;
}

/* bindir: the directory of this executable; scripts: tests/bench from the
 * current directory, else from the repository this binary was built in. */
static void locate(config *c)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash;
    struct stat st;
    if (n <= 0) n = (ssize_t)snprintf(exe, sizeof exe, "./bench");
    exe[n] = 0;
    if ((slash = strrchr(exe, '/'))) *slash = 0;
    snprintf(c->bindir, sizeof c->bindir, "%s", exe);
    if (c->scripts[0]) return;
    if (!stat("tests/bench/perlin.lua", &st)) snprintf(c->scripts, sizeof c->scripts, "tests/bench");
    else snprintf(c->scripts, sizeof c->scripts, "%.*s/../../tests/bench", PATH_MAX - 32, c->bindir);
}

int main(int argc, char **argv)
{
    static config c;
    int selected[NROWS] = {0}, any = 0, threads = 0, memory = 0, kernels = 0, volume = 0, overhead = 0, frames = 0;
    int encode = 0, gradsets = 0, erosion = 0, python = 0, turn = 0;
    int i, k;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) c.quick = 1;
        else if (!strcmp(argv[i], "--classic")) c.classic = 1;
        else if (!strcmp(argv[i], "--scripts") && i + 1 < argc) snprintf(c.scripts, sizeof c.scripts, "%s", argv[++i]);
        else if (!strcmp(argv[i], "threads")) threads = any = 1;
        else if (!strcmp(argv[i], "memory")) memory = any = 1;
        else if (!strcmp(argv[i], "kernels")) kernels = any = 1;
        else if (!strcmp(argv[i], "volume")) volume = any = 1;
        else if (!strcmp(argv[i], "turn")) turn = any = 1;
        else if (!strcmp(argv[i], "overhead")) overhead = any = 1;
        else if (!strcmp(argv[i], "frames")) frames = any = 1;
        else if (!strcmp(argv[i], "encode")) encode = any = 1;
        else if (!strcmp(argv[i], "gradients")) gradsets = any = 1;
        else if (!strcmp(argv[i], "erosion")) erosion = any = 1;
        else if (!strcmp(argv[i], "python")) python = any = 1;
        else {
            for (k = 0; k < NROWS && strcmp(argv[i], rows[k].name); k++) continue;
            if (k == NROWS) {
                fprintf(stderr, "bench: unknown row or option '%s'\n", argv[i]);
                return usage();
            }
            selected[k] = any = 1;
        }
    }
    if (!any) {
        for (k = 0; k < NROWS; k++) selected[k] = 1;
        threads = kernels = volume = turn = overhead = frames = encode = erosion = python = 1;
        memory = !c.quick;
    }
    c.min_runs = c.quick ? 3 : 5;
    locate(&c);
    setvbuf(stdout, NULL, _IOLBF, 0);

    print_machine();
    printf("single thread, tile 64, frequency 0.02/pixel; 2D: one %dx%d image, 3D: one %d^3 volume (16^3 bricks);\n"
           "whole cost of each render, nothing subtracted; 1 warm-up, then >= %d timed runs (more while a row\n"
           "has used < %.0f s, up to %d): median and min\n",
           GRID2, GRID2, GRID3, c.min_runs, ROW_BUDGET, MAX_RUNS);
    c.has_ln = peer_ready(&c, &libnoise_prog);
    for (k = 0; k < NFN2; k++) c.has_fn2[k] = peer_ready(&c, &fastnoise2_progs[k]);
    for (k = 0; k < NROWS && !selected[k]; k++) continue;
    if (k < NROWS) {
        printf("FN2 fixed = FastNoise2 AVX-512: FIXED figures from issue 14, taken on another machine kind (%s),\n"
               "            NOT measured here; this run is on the CPU named above.\n"
               "FN2 clang, FN2 g++ = FastNoise2 MEASURED in this run on this CPU, built by clang and by g++\n"
               "            (fastnoise2_peer, fastnoise2_gcc_peer; - : not built or no such row).\n"
               "            ours/cl, ours/g++: the median of %d paired ratios, each one FastNoise2 run and the noisegraph\n"
               "            run right after it (robust to a load that changes between runs); FN2 clang/g++: its runs' median\n"
               "ours/fix, ours/cl, ours/g++, ours/ln < 1: noisegraph faster\n\n",
               FN2_MACHINE, c.min_runs);
        double ns[NROWS];
        figures fig[NROWS];
        print_header();
        for (k = 0; k < NROWS; k++) {
            memset(&fig[k], 0, sizeof fig[k]);
            ns[k] = selected[k] ? bench_row(&c, &rows[k], &fig[k]) : -1;
        }
        print_hillshade_ratio(ns);
        print_shading_ratios(&c, fig);
        print_erosion_ratio(&c, ns);
        printf("\n");
    }
    if (overhead) {
        bench_overhead(&c);
        bench_startup(&c);
    }
    if (frames) bench_frames(&c);
    if (threads) bench_threads(&c);
    if (volume) bench_volume(&c);
    if (turn) bench_turn(&c);
    if (kernels) bench_kernels();
    else if (gradsets) {
        static float f[3][4096];
        float *fp[3] = {f[0], f[1], f[2]};
        kernel_grid(fp, 4096);
        bench_gradient_sets(fp);
    }
    if (encode) bench_encode(&c);
    if (erosion) bench_erosion(&c);
    if (python) bench_python(&c);
    if (memory) bench_memory(&c);
    else if (c.quick && !any) printf("memory: skipped (--quick)\n");
    return 0;
}
