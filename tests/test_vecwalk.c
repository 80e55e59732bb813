/*
 * test_vecwalk.c — the one-walk vector kernels (output = "vector") against
 * their definition written the slow way, and the warp's one-pass move. The kernels shortcut two things a reference does in
 * full: each channel's bump is taken at the nearest corner only (the
 * definition sums one bump per corner; they never overlap), and the walk
 * is shared by the channels. The reference here sums every corner's bump
 * in double, with the channel gradients, bump values and constants of
 * lattice_parts.h; the kernels must agree within float rounding on every
 * SIMD path. The kernels of before (a rehash and a bump per corner and
 * channel, grad8 in 2D) are off by the whole field.
 */
#include "build.h"
#include "harness.h"
#include "lattice_parts.h"
#include "sample.h"
#include "suites.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { N = 3000 };
static float fx[3][N], out[3 * N];

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
        sum += weight * channel_grad(v->dims, channel_word(v->dims, hv, c), dk);
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
    p.n = N;
    p.dims = dims;
    p.seed = 5;
    for (d = 0; d < dims; d++) {
        p.anchor[d] = 3.0 + d;
        for (i = 0; i < N; i++)
            fx[d][i] = (float)(i % 5 == 0 ? floor(t_rng_range(0, 40)) + t_rng_range(-0.3, 0.3) : t_rng_range(0, 40));
        p.f[d] = fx[d];
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
        vec(&p, 3, out);
        for (i = 0; i < N; i++)
            for (c = 0; c < 3; c++) {
                double x[3];
                for (d = 0; d < v->dims; d++) x[d] = p.anchor[d] + fx[d][i];
                worst = fmax(worst, fabs(lattice_ref(v, p.seed, x, c) - out[(size_t)c * N + i]));
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
        sum += fo * channel_grad(2, channel_word(2, hv, c), d);
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
    for (i = 0; i < N; i += 5) {
        double a = floor(t_rng_range(0, 40)), b = floor(t_rng_range(0, 40)), u = (a + b) * 0.21132486540518712;
        fx[0][i] = (float)(a - u - p.anchor[0] + t_rng_range(-0.25, 0.25));
        fx[1][i] = (float)(b - u - p.anchor[1] + t_rng_range(-0.25, 0.25));
    }
    vec(&p, 3, out);
    for (i = 0; i < N; i++)
        for (c = 0; c < 3; c++) {
            double x[2] = {p.anchor[0] + fx[0][i], p.anchor[1] + fx[1][i]};
            worst = fmax(worst, fabs(simplex2_ref(p.seed, x, c) - out[(size_t)c * N + i]));
        }
    CHECKF(worst < 2e-4, "simplex 2D vector: off its definition by %g", worst);
}

/* ---- the warp --------------------------------------------------------------------------- */

/* A one-octave warp (its value path moves the field's planes in place and
 * leaves unmoved axes uncopied) samples its source at x + amount * field(x)
 * on the axes the field has: 2D, and 3D by 3 channels. (Its bits against
 * the gradient path, which ng.light and ng.slope take: tests/test_deriv.c.) */
static void test_warp_moves_by_the_field(void)
{
    enum { M = 400 };
    static double xs[3][M], moved[3][M];
    int dims;
    for (dims = 2; dims <= 3; dims++) {
        ng_graph *g = ng_graph_new();
        int field = t_vnoise(g, "simplex", 35, 3), source = t_noise(g, "perlin", 25, 8);
        int warp = t_warp(g, source, field, 11);
        const double *px[3] = {xs[0], xs[1], xs[2]}, *pm[3] = {moved[0], moved[1], moved[2]};
        float *f, *w, *s;
        double worst = 0, shift = 0;
        int i, d;
        for (d = 0; d < dims; d++)
            for (i = 0; i < M; i++) xs[d][i] = t_rng_range(-300, 300);
        f = t_points(g, field, dims, M, px[0], px[1], px[2]);
        w = t_points(g, warp, dims, M, px[0], px[1], px[2]);
        for (i = 0; f && i < M; i++)
            for (d = 0; d < dims; d++) {
                moved[d][i] = xs[d][i] + 11.0 * f[(size_t)i * 3 + (size_t)d]; /* 3 channels, interleaved */
                shift = fmax(shift, fabs(moved[d][i] - xs[d][i]));
            }
        s = f ? t_points(g, source, dims, M, pm[0], pm[1], pm[2]) : NULL;
        for (i = 0; w && s && i < M; i++) worst = fmax(worst, fabs((double)w[i] - s[i]));
        CHECK(f && w && s);
        CHECKF(shift > 5, "%dD warp: largest shift %g", dims, shift);
        CHECKF(worst < 1e-3, "%dD warp: off the source at the moved points by %g", dims, worst);
        free(f), free(w), free(s);
        ng_graph_free(g);
    }
}

static void vecwalk_kernel_tests(void)
{
    t_rng_seed(41);
    T_RUN(test_lattice_vector_is_its_definition);
    T_RUN(test_simplex2_vector_is_its_definition);
}

void suite_vecwalk(void)
{
    t_on_every_path("vecwalk", vecwalk_kernel_tests);
    t_rng_seed(42);
    RUN(test_warp_moves_by_the_field);
}
