/*
 * test_vector_noise.c — output = "vector" from one lattice walk (the vector
 * kernels of kernels.h: simplex 2D-4D, value, perlin and fast 2D and 3D):
 * every channel within the basis's range (over many seeds and
 * frequencies too) and using it, channels that do not depend on how many
 * are asked, decorrelated channels, no common zeros on the lattice (a
 * warp moves every point), statistics like the scalar basis's of the same
 * gradients (the kernel cases run with both sets), continuity, gradients of the _d form against central
 * differences, tiled channels that repeat exactly, the one-walk kernels
 * equal to their definition written the slow way; and through the engine:
 * the same bits for every thread count and tile size, and tileable vector
 * fields that wrap. Kernel cases run on every SIMD path (sample.h).
 */
#include "build.h"
#include "harness.h"
#include "kernels.h"
#include "lattice_parts.h"
#include "sample.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1 << 15 };
static float fx[4][N], out[3 * N], out2[3 * N], grad[3 * 4 * N], one[N];
/* The gradients the kernel cases ask for (NG_GRADIENTS_*): each runs with both. */
static int gradients;

#define VEC_BASIS(F, ID, id, name, ...) {NG_BASIS_##ID, name},
static const struct {
    int id;
    const char *name;
} all[] = {NG_BASES(VEC_BASIS)};
#define NALL ((int)(sizeof all / sizeof all[0]))

/* Basis b's name and the gradients asked for, for messages. */
static const char *bname(int b)
{
    static char name[48];
    snprintf(name, sizeof name, "%s (%s)", all[b].name, gradients ? "isotropic" : "classic");
    return name;
}

/* Points spread over ~100 cells per axis from an anchor. */
static ng_noise_pts points(int dims, int n, double spread)
{
    ng_noise_pts p;
    int d, i;
    memset(&p, 0, sizeof p);
    p.n = n;
    p.dims = dims;
    p.seed = 11;
    p.gradients = gradients;
    for (d = 0; d < dims; d++) {
        p.anchor[d] = 1000.25 + 17.0 * d;
        for (i = 0; i < n; i++) fx[d][i] = (float)t_rng_range(0, spread);
        p.f[d] = fx[d];
    }
    return p;
}

/* Each basis with a vector kernel in dims: fn(basis, dims, kernel). */
static void each_vector(void (*fn)(int b, int dims, ng_vector_fn vec))
{
    int b, dims, any = 0;
    for (b = 0; b < NALL; b++)
        for (dims = 2; dims <= 4; dims++) {
            ng_vector_fn vec = ng__kernel_vector(t_path, all[b].id, dims);
            if (vec) fn(b, dims, vec), any++;
        }
    CHECK(any >= 7); /* simplex 2D-4D, perlin 2D and 3D at least */
}

static void range_case(int b, int dims, ng_vector_fn vec)
{
    int c, i;
    float lo = 0, hi = 0;
    ng_noise_pts p = points(dims, N, 100);
    vec(&p, 3, out);
    for (c = 0; c < 3 * N; c++) lo = fminf(lo, out[c]), hi = fmaxf(hi, out[c]);
    CHECKF(lo >= -1.0f && hi <= 1.0f, "%s %dD vector: range [%g, %g]", bname(b), dims, lo, hi);
    CHECKF(hi - lo > (dims == 4 ? 1.2f : 1.5f), "%s %dD vector: range [%g, %g] barely used", bname(b), dims, lo, hi);
    /* near lattice points, where the bumps are */
    for (i = 0; i < dims; i++) {
        int k;
        for (k = 0; k < N; k++) fx[i][k] = (float)(floor(t_rng_range(0, 50)) + t_rng_range(-0.35, 0.35) + 0.75);
    }
    vec(&p, 3, out);
    for (c = 0; c < 3 * N; c++)
        if (!(out[c] >= -1.0f && out[c] <= 1.0f)) {
            ng_t_fail(__FILE__, __LINE__, "%s %dD vector near the lattice: %g", bname(b), dims, out[c]);
            break;
        }
}

static void test_vec_range(void) { each_vector(range_case); }

/* Every channel within [-1, 1] over many seeds, frequencies and anchors
 * (0 to +-1e9), one batch in four near lattice points (the bumps); the
 * isotropic channels' scales are statistical and plateau_limit keeps the
 * bound (lattice_parts.h, vector channels). */
static void seeds_range_case(int b, int dims, ng_vector_fn vec)
{
    static const float scales[] = {1.0f, 0.37f, 2.9f, 0.013f};
    double lo = 0, hi = 0;
    int k, d, i;
    for (k = 0; k < 64; k++) {
        ng_noise_pts p = points(dims, 4096, 64);
        p.seed = (uint32_t)k * 2654435761u;
        for (d = 0; d < dims; d++) {
            p.anchor[d] = k & 1 ? t_rng_range(-1e9, 1e9) : t_rng_range(-100, 100);
            p.scale[d] = scales[k % 4];
            if (k % 4 == 3) { /* scale 0.013 would not reach a corner: near lattice points */
                p.scale[d] = 1.0f;
                p.anchor[d] = floor(p.anchor[d]);
                for (i = 0; i < 4096; i++) fx[d][i] = (float)(floor(t_rng_range(0, 64)) + t_rng_range(-0.3, 0.3));
            }
        }
        vec(&p, 3, out);
        for (i = 0; i < 3 * 4096; i++) lo = fmin(lo, out[i]), hi = fmax(hi, out[i]);
    }
    if (t_path == t_widest_path()) /* the same bits on every path */
        printf("    vector %s %dD: 3 x 2^18 samples in [%.4f, %.4f]\n", bname(b), dims, lo, hi);
    CHECKF(lo >= -1.0 && hi <= 1.0, "%s %dD vector: range [%g, %g] over seeds", bname(b), dims, lo, hi);
}

static void test_vec_range_over_seeds(void) { each_vector(seeds_range_case); }

/* Channel c is the same bits whether 1, 2 or 3 are asked, and the _d form's
 * values are the plain ones. */
static void count_case(int b, int dims, ng_vector_fn vec)
{
    ng_vector_d_fn vd = ng__kernel_vector_d(t_path, all[b].id, dims);
    ng_noise_pts p = points(dims, 1000, 30);
    int k;
    vec(&p, 3, out);
    for (k = 1; k <= 2; k++) {
        vec(&p, k, out2);
        CHECKF(memcmp(out, out2, (size_t)k * 1000 * sizeof *out) == 0, "%s %dD: %d channels differ from 3", bname(b),
               dims, k);
    }
    CHECK(vd != NULL);
    if (!vd) return;
    for (k = 1; k <= 3; k++) {
        vd(&p, k, out2, grad);
        CHECKF(memcmp(out, out2, (size_t)k * 1000 * sizeof *out) == 0, "%s %dD: the _d values (%d channels) differ",
               bname(b), dims, k);
    }
}

static void test_vec_channel_count(void) { each_vector(count_case); }

/* The standard deviation of n samples. */
static double sdev(const float *v, int n)
{
    double m1 = 0, m2 = 0;
    int i;
    for (i = 0; i < n; i++) m1 += v[i], m2 += (double)v[i] * v[i];
    return sqrt(m2 / n - (m1 / n) * (m1 / n));
}

/* Channels are uncorrelated with each other, centred, and spread like the
 * scalar basis of the same gradients (each channel takes that basis's set,
 * scale and limiter; the bump adds a little: sd 1.00 to 1.04 times the
 * scalar's with the classic sets, 1.00 to 1.06 with the isotropic ones,
 * whose scalar rms is lower, test_kernels.c's check_iso_contrast). */
static void stats_case(int b, int dims, ng_vector_fn vec)
{
    ng_noise_pts p = points(dims, N, 150);
    double sd_scalar;
    int c, e, i;
    vec(&p, 3, out);
    ng__kernel(t_path, all[b].id)(&p, one); /* the scalar of the same gradients */
    sd_scalar = sdev(one, N);
    for (c = 0; c < 3; c++) {
        const float *v = out + (size_t)c * N;
        double s1 = 0, s2 = 0, sd;
        for (i = 0; i < N; i++) s1 += v[i], s2 += (double)v[i] * v[i];
        sd = sqrt(s2 / N - (s1 / N) * (s1 / N));
        CHECKF(fabs(s1 / N) < 0.25 * sd_scalar, "%s %dD channel %d: mean %g (scalar sd %g)", bname(b), dims, c,
               s1 / N, sd_scalar);
        CHECKF(fabs(sd / sd_scalar - 1) < 0.15, "%s %dD channel %d: sd %g, scalar %g", bname(b), dims, c, sd,
               sd_scalar);
        for (e = c + 1; e < 3; e++) {
            double r = t_correlation(v, out + (size_t)e * N, N);
            CHECKF(fabs(r) < 0.05, "%s %dD channels %d and %d: r = %g", bname(b), dims, c, e, r);
        }
        /* and with the scalar basis at the same seed */
        CHECKF(fabs(t_correlation(v, one, N)) < 0.05, "%s %dD channel %d follows the scalar field", bname(b), dims,
               c);
    }
}

static void test_vec_decorrelated_like_scalar(void) { each_vector(stats_case); }

/* Lattice point `cell` (integers) of basis b's lattice in noise space:
 * the simplex grid's skewed cell unskewed; the isotropic sets' lattices
 * turned (lattice_kernels.c, 3D ORIENTATION: perlin's and fast's 3D by
 * O; simplex_kernels.c, 2D and 3D ORIENTATION: 2D by 45 degrees, 3D by
 * NG_SIMPLEX3_TURN): x = the turn's transpose of the lattice point. */
static void lattice_point(int b, int dims, const double *cell, double *x)
{
    static const double unskew[5] = {0, 0, 0.21132486540518712, 1.0 / 6.0, 0.13819660112501051};
    static const double turn3[3][3] = NG_SIMPLEX3_TURN;
    const double r6 = 1 / sqrt(6.0), orient[3][3] = {{2 * r6, 0, sqrt(2.0) * r6},
                                                      {-r6, sqrt(3.0) * r6, sqrt(2.0) * r6},
                                                      {-r6, -sqrt(3.0) * r6, sqrt(2.0) * r6}};
    const int simplex = all[b].id == NG_BASIS_SIMPLEX, iso = gradients == NG_GRADIENTS_ISOTROPIC;
    double u[4], s = 0;
    int d, e;
    for (d = 0; d < dims; d++) s += cell[d];
    for (d = 0; d < dims; d++) u[d] = cell[d] - (simplex ? s * unskew[dims] : 0);
    if (simplex && iso && dims == 2) { /* (K x - H y, K x + H y) = cell, K = sqrt 1.5, H = 1 / sqrt 2 */
        x[0] = (cell[0] + cell[1]) / (2 * sqrt(1.5));
        x[1] = (cell[1] - cell[0]) * sqrt(0.5);
        return;
    }
    for (d = 0; d < dims; d++) x[d] = u[d];
    if (!iso || dims != 3) return;
    for (d = 0; d < 3; d++)
        for (x[d] = 0, e = 0; e < 3; e++) x[d] += (simplex ? turn3[e][d] : orient[e][d]) * u[e];
}

/* At the lattice points (gradient noise's zeros) the channels are not all
 * small: the vector's length there is spread like anywhere else. */
static void zeros_case(int b, int dims, ng_vector_fn vec)
{
    const int n = 4000;
    ng_noise_pts p = points(dims, n, 1);
    double len[4000], lmin = HUGE_VAL;
    int i, d, c, small = 0;
    for (i = 0; i < n; i++) {
        double cell[4], x[4];
        for (d = 0; d < dims; d++) cell[d] = floor(t_rng_range(0, 60));
        lattice_point(b, dims, cell, x);
        for (d = 0; d < dims; d++) fx[d][i] = (float)x[d];
    }
    for (d = 0; d < dims; d++) p.anchor[d] = 0;
    vec(&p, dims < 3 ? 2 : 3, out);
    for (i = 0; i < n; i++) {
        double l2 = 0;
        for (c = 0; c < (dims < 3 ? 2 : 3); c++) l2 += (double)out[(size_t)c * n + i] * out[(size_t)c * n + i];
        len[i] = sqrt(l2);
        lmin = fmin(lmin, len[i]);
        small += len[i] < 0.2;
    }
    CHECKF(lmin > 1e-4, "%s %dD: a vector of length %g at a lattice point", bname(b), dims, lmin);
    CHECKF(small < n / 10, "%s %dD: %d of %d lattice points with |v| < 0.2", bname(b), dims, small, n);
}

static void gradient_zeros_case(int b, int dims, ng_vector_fn vec)
{
    if (all[b].id != NG_BASIS_VALUE) zeros_case(b, dims, vec);
}

static void test_vec_no_common_zeros(void) { each_vector(gradient_zeros_case); }

/* Small steps, small changes; the _d gradient is the slope of the values. */
static void continuity_case(int b, int dims, ng_vector_fn vec)
{
    ng_vector_d_fn vd = ng__kernel_vector_d(t_path, all[b].id, dims);
    const int n = 4000;
    const double h = 1.0 / 2048;
    ng_noise_pts p = points(dims, n, 4); /* small offsets: little float rounding in the differences */
    double worst = 0, worst_fd = 0;
    int i, c, e;
    if (!vd) return;
    vd(&p, 3, out, grad);
    for (e = 0; e < dims; e++) {
        static float back[3 * 4000];
        ng_noise_pts q = p, r = p;
        q.anchor[e] += h;
        r.anchor[e] -= h;
        vec(&q, 3, out2);
        vec(&r, 3, back);
        for (c = 0; c < 3; c++)
            for (i = 0; i < n; i++) {
                double a = out2[(size_t)c * n + i], z = back[(size_t)c * n + i];
                double fd = (a - z) / (2 * h), g = grad[((size_t)c * dims + e) * n + i];
                worst = fmax(worst, fabs(a - out[(size_t)c * n + i]) / h);
                worst_fd = fmax(worst_fd, fabs(fd - g));
            }
    }
    CHECKF(worst < 12.5, "%s %dD vector: |dv|/h up to %g", bname(b), dims, worst);
    CHECKF(worst_fd < 0.05, "%s %dD vector: gradient off central differences by %g", bname(b), dims, worst_fd);
}

static void test_vec_continuity_and_gradient(void) { each_vector(continuity_case); }

/* Tiled lattice channels repeat exactly: f(x + period) == f(x). */
static void tiled_case(int b, int dims, ng_vector_fn vec)
{
    ng_noise_pts p;
    int d;
    if (all[b].id == NG_BASIS_SIMPLEX) return; /* tiles on a torus through another kernel */
    p = points(dims, 2000, 7);
    for (d = 0; d < dims; d++) p.period[d] = 7;
    vec(&p, 3, out);
    for (d = 0; d < dims; d++) {
        ng_noise_pts q = p;
        q.anchor[d] += 7.0 * (1 + d);
        vec(&q, 3, out2);
        CHECKF(memcmp(out, out2, 3 * 2000 * sizeof *out) == 0, "%s %dD vector: no period along %d", bname(b), dims,
               d);
    }
}

static void test_vec_tiled_repeats(void) { each_vector(tiled_case); }

/* Every path gives the widest path's bits (one C source compiled per
 * path): plain and _d forms, 2 and 3 channels, near and far anchors, with
 * and without a period, at sizes that leave each path's tail. */
static void paths_case(int b, int dims, ng_vector_fn vec)
{
    static const double anchors[] = {0.0, 1e9 + 0.5, -123456789.25};
    static const uint32_t period[4] = {3, 5, 7, 2};
    const ng_path *ref = t_widest_path();
    const ng_vector_fn rvec = ng__kernel_vector(ref, all[b].id, dims);
    const ng_vector_d_fn vd = ng__kernel_vector_d(t_path, all[b].id, dims),
                         rvd = ng__kernel_vector_d(ref, all[b].id, dims);
    static const int sizes[] = {1021, 7}; /* odd: every path has a tail */
    int a, per, z, ch;
    for (a = 0; a < 3; a++)
        for (per = 0; per < 2; per++)
            for (z = 0; z < 2; z++)
                for (ch = 2; ch <= 3; ch++) {
                    const int n = sizes[z];
                    ng_noise_pts p = points(dims, n, 64);
                    int d, differ, gdiffer;
                    for (d = 0; d < dims; d++) p.anchor[d] = (d & 1 ? -anchors[a] + 0.75 : anchors[a]) + 0.125 * d;
                    if (per) memcpy(p.period, period, sizeof p.period);
                    vec(&p, ch, out);
                    rvec(&p, ch, out2);
                    differ = memcmp(out, out2, (size_t)ch * (size_t)n * sizeof *out) != 0;
                    vd(&p, ch, out, grad);
                    rvd(&p, ch, out2, grad + (size_t)ch * (size_t)dims * (size_t)n);
                    gdiffer = memcmp(out, out2, (size_t)ch * (size_t)n * sizeof *out) != 0 ||
                              memcmp(grad, grad + (size_t)ch * (size_t)dims * (size_t)n,
                                     (size_t)ch * (size_t)dims * (size_t)n * sizeof *grad) != 0;
                    CHECKF(!differ && !gdiffer,
                           "%s %dD anchor %g period %d, %d points, %d channels: %s differ from the %s path's", bname(b),
                           dims, anchors[a], per, n, ch, differ ? "values" : "the _d form's", ref->name);
                }
}

static void test_vec_paths_agree(void)
{
    if (t_path != t_widest_path()) each_vector(paths_case);
}

/* ---- the one-walk kernels against their definition --------------------------------
 * The kernels shortcut two things a reference does in full: each channel's
 * bump is taken at the nearest corner only (the definition sums one bump per
 * corner; they never overlap), and the walk is shared by the channels. The
 * reference here sums every corner's bump in double, with the channel
 * gradients, bump values and constants of lattice_parts.h; the kernels must
 * agree within float rounding on every SIMD path. The kernels of before (a
 * rehash and a bump per corner and channel, grad8 in 2D) are off by the
 * whole field. */

enum { WALK_N = 3000 };
static float wfx[3][WALK_N], wout[3 * WALK_N];

/* scale of the channel_grad sums and bump height per unit of bump_value,
 * as documented in lattice_kernels.c and simplex_kernels.c */
typedef struct vec_def {
    int basis, dims, fast;
    double scale, height, rho;
} vec_def;

static const vec_def defs[] = {
    {NG_BASIS_PERLIN, 2, 0, 1.4140722 * 0.70710678, 1.4, 0.3},
    {NG_BASIS_PERLIN, 3, 0, 0.96482495, 1.4 * 1.0363538, 0.3},
    {NG_BASIS_FAST, 2, 1, 1.4140722 * 0.70710678, 1.4, 0.3},
    {NG_BASIS_FAST, 3, 1, 0.95692893, 1.4 * 1.0449052, 0.3},
};

static double ref_fade(int fast, double t)
{
    return fast ? t * t * (3 - 2 * t) : t * t * t * (t * (6 * t - 15) + 10);
}

static double ref_bump(double r2, double rho)
{
    double u = 1 - r2 / (rho * rho);
    return u > 0 ? u * u * u : 0;
}

/* Channel c of a lattice vector field at x: the corners' gradient terms
 * blended, plus every corner's bump. */
static double lattice_ref(const vec_def *v, uint32_t seed, const double *x, int c)
{
    const uint32_t s = vec_seed(seed);
    double sum = 0, bumps = 0, t[3];
    uint32_t cell[3];
    int d, k;
    for (d = 0; d < v->dims; d++) {
        double f = floor(x[d]);
        t[d] = x[d] - f;
        cell[d] = (uint32_t)(int64_t)f;
    }
    for (k = 0; k < 1 << v->dims; k++) {
        uint32_t hv = s;
        float dk[4] = {0, 0, 0, 0};
        double weight = 1, r2 = 0;
        for (d = 0; d < v->dims; d++) {
            int up = (k >> d) & 1;
            hv ^= (cell[d] + (uint32_t)up) * lattice_prime[d];
            dk[d] = (float)(t[d] - up);
            r2 += (t[d] - up) * (t[d] - up);
            weight *= up ? ref_fade(v->fast, t[d]) : 1 - ref_fade(v->fast, t[d]);
        }
        hv = ng_lattice_hash(hv);
        sum += weight * channel_grad(v->dims, 0, channel_word(v->dims, 0, hv, c), dk);
        bumps += bump_value(bump_hash(hv), c) * v->height * ref_bump(r2, v->rho);
    }
    return (sum + bumps) * v->scale;
}

/* Points spread over 40 cells, a fifth of them near corners (the bumps). */
static ng_noise_pts spread_points(int dims)
{
    ng_noise_pts p;
    int d, i;
    memset(&p, 0, sizeof p);
    p.n = WALK_N;
    p.dims = dims;
    p.seed = 5;
    for (d = 0; d < dims; d++) {
        p.anchor[d] = 3.0 + d;
        for (i = 0; i < WALK_N; i++)
            wfx[d][i] = (float)(i % 5 == 0 ? floor(t_rng_range(0, 40)) + t_rng_range(-0.3, 0.3) : t_rng_range(0, 40));
        p.f[d] = wfx[d];
    }
    return p;
}

static void test_lattice_vector_is_its_definition(void)
{
    size_t j;
    for (j = 0; j < sizeof defs / sizeof defs[0]; j++) {
        const vec_def *v = &defs[j];
        ng_vector_fn vec = ng__kernel_vector(t_path, v->basis, v->dims);
        ng_noise_pts p = spread_points(v->dims);
        double worst = 0;
        int i, c, d;
        CHECK(vec != NULL);
        if (!vec) continue;
        vec(&p, 3, wout);
        for (i = 0; i < WALK_N; i++)
            for (c = 0; c < 3; c++) {
                double x[3];
                for (d = 0; d < v->dims; d++) x[d] = p.anchor[d] + wfx[d][i];
                worst = fmax(worst, fabs(lattice_ref(v, p.seed, x, c) - wout[(size_t)c * WALK_N + i]));
            }
        CHECKF(worst < 2e-5, "basis %d %dD vector: off its definition by %g", v->basis, v->dims, worst);
    }
}

/* Simplex 2D: the three corners of the skewed cell's triangle, each with its
 * falloff term and its bump (radius 0.25). */
static double simplex2_ref(uint32_t seed, const double *x, int c)
{
    const double F2 = 0.36602540378443865, G2 = 0.21132486540518712;
    const double scale = (double)99.194415f * 0.70710678, height = 1.4 * 0.0100802047 / 0.70710678;
    const uint32_t s = vec_seed(seed);
    double sk = (x[0] + x[1]) * F2, fx0 = floor(x[0] + sk), fy0 = floor(x[1] + sk);
    double un = (fx0 + fy0) * G2, x0 = x[0] - (fx0 - un), y0 = x[1] - (fy0 - un), sum = 0, bumps = 0;
    const int lower = x0 >= y0;
    int k;
    for (k = 0; k < 3; k++) {
        int sx = k == 0 ? 0 : k == 2 ? 1 : lower, sy = k == 0 ? 0 : k == 2 ? 1 : !lower;
        double dx = x0 - sx + (sx + sy) * G2, dy = y0 - sy + (sx + sy) * G2, r2 = dx * dx + dy * dy;
        uint32_t hv = ng_lattice_hash(s ^ ((uint32_t)(int64_t)fx0 + (uint32_t)sx) * lattice_prime[0] ^
                                      ((uint32_t)(int64_t)fy0 + (uint32_t)sy) * lattice_prime[1]);
        float d[2] = {(float)dx, (float)dy};
        double fo = r2 < 0.5 ? (0.5 - r2) * (0.5 - r2) * (0.5 - r2) * (0.5 - r2) : 0;
        sum += fo * channel_grad(2, 0, channel_word(2, 0, hv, c), d);
        bumps += bump_value(bump_hash(hv), c) * height * ref_bump(r2, 0.25);
    }
    return (sum + bumps) * scale;
}

static void test_simplex2_vector_is_its_definition(void)
{
    ng_vector_fn vec = ng__kernel_vector(t_path, NG_BASIS_SIMPLEX, 2);
    ng_noise_pts p = spread_points(2);
    double worst = 0;
    int i, c;
    CHECK(vec != NULL);
    if (!vec) return;
    /* near lattice vertices on the skewed grid: unskew integer points */
    for (i = 0; i < WALK_N; i += 5) {
        double a = floor(t_rng_range(0, 40)), b = floor(t_rng_range(0, 40)), u = (a + b) * 0.21132486540518712;
        wfx[0][i] = (float)(a - u - p.anchor[0] + t_rng_range(-0.25, 0.25));
        wfx[1][i] = (float)(b - u - p.anchor[1] + t_rng_range(-0.25, 0.25));
    }
    vec(&p, 3, wout);
    for (i = 0; i < WALK_N; i++)
        for (c = 0; c < 3; c++) {
            double x[2] = {p.anchor[0] + wfx[0][i], p.anchor[1] + wfx[1][i]};
            worst = fmax(worst, fabs(simplex2_ref(p.seed, x, c) - wout[(size_t)c * WALK_N + i]));
        }
    CHECKF(worst < 2e-4, "simplex 2D vector: off its definition by %g", worst);
}

/* ---- through the engine ---------------------------------------------------------------- */

/* A warp by vector simplex and perlin fields: the same bits for every
 * thread count and tile size (and the field itself, all 3 channels). */
static void test_vec_render_deterministic(void)
{
    static const int threads[] = {1, 2, 3}, tiles[] = {16, 64, 100};
    static const char *const types[] = {"simplex", "perlin", "value"};
    int t, i;
    for (t = 0; t < 3; t++) {
        ng_graph *g = ng_graph_new();
        int field = t_vnoise(g, types[t], 23, 5);
        int roots[2] = {field, t_warp(g, t_noise(g, "simplex", 31, 2), field, 9)};
        int r;
        for (r = 0; r < 2; r++) {
            ng_render_opts o;
            float *ref;
            const size_t bytes = (size_t)97 * 61 * (r == 0 ? 3 : 1) * sizeof(float);
            t_opts(&o, 97, 61);
            ref = t_render(g, roots[r], &o);
            CHECK(ref != NULL);
            for (i = 0; ref && i < 3; i++) {
                float *img;
                o.threads = threads[i];
                o.tile = tiles[i];
                img = t_render(g, roots[r], &o);
                CHECK(img != NULL);
                CHECKF(img && memcmp(ref, img, bytes) == 0, "%s vector (%s): threads %d tile %d differ", types[t],
                       r ? "warp" : "field", threads[i], tiles[i]);
                free(img);
            }
            free(ref);
        }
        ng_graph_free(g);
    }
}

/* A tileable render of a vector field wraps: every channel's step across
 * the wrap is no larger than its largest inner step. */
static void test_vec_tileable_wraps(void)
{
    static const char *const types[] = {"perlin", "fast", "value", "simplex"};
    const int W = 90, H = 70;
    int t, c, x, y;
    for (t = 0; t < 4; t++) {
        ng_graph *g = ng_graph_new();
        int field = t_vnoise(g, types[t], 13, 3);
        ng_render_opts o;
        float *img;
        t_opts(&o, W, H);
        o.tileable = 1;
        img = t_render(g, field, &o);
        CHECK(img != NULL);
        for (c = 0; img && c < 3; c++) {
            const float *v = img + (size_t)c * W * H;
            double inner = 0, wrap = 0;
            for (y = 0; y < H; y++)
                for (x = 0; x < W; x++) {
                    double dx = fabs((double)v[y * W + (x + 1) % W] - v[y * W + x]);
                    double dy = fabs((double)v[((y + 1) % H) * W + x] - v[y * W + x]);
                    if (x + 1 < W) inner = fmax(inner, dx);
                    else wrap = fmax(wrap, dx);
                    if (y + 1 < H) inner = fmax(inner, dy);
                    else wrap = fmax(wrap, dy);
                }
            CHECKF(wrap <= inner, "%s vector channel %d: wrap step %g, largest inner %g", types[t], c, wrap, inner);
        }
        free(img);
        ng_graph_free(g);
    }
}

static void vec_kernel_tests(void)
{
    for (gradients = NG_GRADIENTS_CLASSIC; gradients <= NG_GRADIENTS_ISOTROPIC; gradients++) {
        t_rng_seed(14);
        T_RUN(test_vec_range);
        T_RUN(test_vec_range_over_seeds);
        T_RUN(test_vec_channel_count);
        T_RUN(test_vec_decorrelated_like_scalar);
        T_RUN(test_vec_no_common_zeros);
        T_RUN(test_vec_continuity_and_gradient);
        T_RUN(test_vec_tiled_repeats);
        T_RUN(test_vec_paths_agree);
    }
    gradients = NG_GRADIENTS_CLASSIC; /* the definitions below are the classic sets' */
    t_rng_seed(41);
    T_RUN(test_lattice_vector_is_its_definition);
    T_RUN(test_simplex2_vector_is_its_definition);
}

NG_SUITE(vector_noise, fast)
{
    t_on_every_path("vector_noise", vec_kernel_tests);
    RUN(test_vec_render_deterministic);
    RUN(test_vec_tileable_wraps);
}
