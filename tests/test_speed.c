/*
 * test_speed.c — what the kernel speed work (issue 14, item 1) must keep:
 * every SIMD path computes the same fused multiply-adds (hardware FMA on
 * avx2/avx512, libm's correctly rounded fmaf elsewhere), so a field is the
 * same bits on every path. Checked against a reference written out here
 * with fmaf, one rounding per fused step, on every path this CPU runs.
 */
#include "harness.h"
#include "kernels.h"
#include "sample.h"
#include "suites.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define N 4096

static float off[N], out[N];

/* Offsets in [-40, 40) around a far anchor, so fractions of every size and
 * cells on both sides of 0 are met. */
static ng_noise_pts points_1d(double anchor, uint32_t seed)
{
    ng_noise_pts p;
    int i;
    t_rng_seed(14);
    for (i = 0; i < N; i++) off[i] = (float)t_rng_range(-40.0, 40.0);
    memset(&p, 0, sizeof p);
    p.n = N;
    p.dims = 1;
    p.seed = seed;
    p.anchor[0] = anchor;
    p.f[0] = off;
    return p;
}

/* The lattice hash of cell c along x (noise_kernels.h). */
static uint32_t corner_hash(uint32_t seed, uint32_t c)
{
    return ng_lattice_hash(ng_hash_seed(seed) ^ (c * NG_LATTICE_PRIME_X));
}

/* Point i's cell and fraction, as the anchor split makes them. */
static float fraction(const ng_noise_pts *p, int i, uint32_t *cell)
{
    const double a = p->anchor[0], c = floor(a);
    const float x = (float)(a - c) + off[i], fl = floorf(x);
    *cell = (uint32_t)(int64_t)fmod(c, 4294967296.0) + (uint32_t)(int32_t)fl;
    return x - fl;
}

/* The quintic fade with its two inner steps fused. */
static float fade_ref(float t)
{
    return t * t * t * fmaf(t, fmaf(t, 6.0f, -15.0f), 10.0f);
}

/* Value noise 1D: the fused blend a + t (b - a) of the two lattice values. */
static void test_value_blend_is_fused_on_every_path(void)
{
    const float k = 0.99999904632568359375f / 8388608.0f; /* the shrink times 2^-23 */
    ng_noise_pts p = points_1d(1e6 + 0.375, 9u);
    int i, bad = 0, first = -1;
    ng__kernel(t_path, NG_BASIS_VALUE)(&p, out);
    for (i = 0; i < N; i++) {
        uint32_t c;
        const float t = fraction(&p, i, &c);
        const float v0 = ((float)(corner_hash(9u, c) >> 8) - 8388607.5f) * k;
        const float v1 = ((float)(corner_hash(9u, c + 1u) >> 8) - 8388607.5f) * k;
        const float want = fmaf(fade_ref(t), v1 - v0, v0);
        if (memcmp(&want, &out[i], sizeof want)) bad++, first = first < 0 ? i : first;
    }
    CHECKF(bad == 0, "%d of %d samples differ from the fused reference (first at %d)", bad, N, first);
}

/* Perlin 1D: the same blend of the two gradient terms, then the range scale. */
static void test_perlin_blend_is_fused_on_every_path(void)
{
    const float scale = 1.99980002f; /* lattice_kernels.c: perlin_scale[0] */
    ng_noise_pts p = points_1d(-7.0e5 + 0.8125, 3u);
    int i, bad = 0, first = -1;
    ng__kernel(t_path, NG_BASIS_PERLIN)(&p, out);
    for (i = 0; i < N; i++) {
        uint32_t c;
        const float t = fraction(&p, i, &c);
        const float g0 = ng_hash_signed(corner_hash(3u, c)) * t;
        const float g1 = ng_hash_signed(corner_hash(3u, c + 1u)) * (t - 1.0f);
        const float want = fmaf(fade_ref(t), g1 - g0, g0) * scale;
        if (memcmp(&want, &out[i], sizeof want)) bad++, first = first < 0 ? i : first;
    }
    CHECKF(bad == 0, "%d of %d samples differ from the fused reference (first at %d)", bad, N, first);
}

static void speed_tests(void)
{
    T_RUN(test_value_blend_is_fused_on_every_path);
    T_RUN(test_perlin_blend_is_fused_on_every_path);
}

void suite_speed(void) { t_on_every_path("speed", speed_tests); }
