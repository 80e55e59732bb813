/*
 * test_kernels.c — what users rely on from the noise bases (value, Perlin,
 * fast, flow, simplex, white) in 1D to 4D: the documented range (and that
 * it is used), Perlin's zero lattice, continuity with a stated gradient
 * bound, determinism and seeding, full precision far from the origin,
 * flow that loops and moves smoothly, white noise that is flat and
 * uncorrelated, tileable lattices that repeat exactly, and the _d forms'
 * gradients (the plain value bit for bit, the derivative of what the kernel
 * computes, within the bound, periodic), and the value and Perlin blends'
 * fused multiply-adds (one rounding each, as fmaf does). Points are built
 * by hand. Every case runs on every SIMD path this CPU runs (sample.h).
 */
#include "harness.h"
#include "sample.h"
#include "kernels.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef void (*kernel_fn)(const ng_noise_pts *p, float *out);
typedef void (*kernel_d_fn)(const ng_noise_pts *p, float *out, float *grad);

/* The kernels of the path under test (t_path), by the names of bases.h. */
#define PLAIN(ID, fn)                                                                                          \
    static void fn(const ng_noise_pts *p, float *out) { ng__kernel(t_path, NG_BASIS_##ID)(p, out); }
#define WITH_GRAD(ID, fn)                                                                                      \
    static void fn(const ng_noise_pts *p, float *out, float *grad) { ng__kernel_grad(t_path, NG_BASIS_##ID)(p, out, grad); }
PLAIN(VALUE, value_noise)
PLAIN(PERLIN, perlin_noise)
PLAIN(FAST, fast_noise)
PLAIN(FLOW, flow_noise)
PLAIN(SIMPLEX, simplex_noise)
PLAIN(WHITE, white_noise)
WITH_GRAD(VALUE, value_noise_d)
WITH_GRAD(PERLIN, perlin_noise_d)
WITH_GRAD(FAST, fast_noise_d)
WITH_GRAD(FLOW, flow_noise_d)
WITH_GRAD(SIMPLEX, simplex_noise_d)

/* The same kernels with the isotropic gradient sets (the default since 0.2.0). */
#define ISO(ID, fn)                                                                                            \
    static void fn##_iso(const ng_noise_pts *p, float *out)                                                    \
    {                                                                                                          \
        ng_noise_pts q = *p;                                                                                   \
        q.gradients = NG_GRADIENTS_ISOTROPIC;                                                                  \
        ng__kernel(t_path, NG_BASIS_##ID)(&q, out);                                                            \
    }                                                                                                          \
    static void fn##_iso_d(const ng_noise_pts *p, float *out, float *grad)                                     \
    {                                                                                                          \
        ng_noise_pts q = *p;                                                                                   \
        q.gradients = NG_GRADIENTS_ISOTROPIC;                                                                  \
        ng__kernel_grad(t_path, NG_BASIS_##ID)(&q, out, grad);                                                 \
    }
ISO(PERLIN, perlin_noise)
ISO(FAST, fast_noise)
ISO(FLOW, flow_noise)
ISO(SIMPLEX, simplex_noise)

static void simplex_tiled2(const ng_noise_pts *p, float *out)
{
    ng__kernel_tiled(t_path, NG_BASIS_SIMPLEX)(p, out);
}

/*
 * Gradient bounds |d/dx| per dims (1D to 4D), along any axis: the true
 * suprema from a search over all gradient configurations (see
 * lattice_kernels.c, simplex_kernels.c), after each basis's range scale:
 *   value    3.75 (2 x max fade' 15/8, exact, every dims)
 *   perlin   2.6940 (1D), 2.8320 (2D), 3.6181 (3D), 5.1137 (4D)
 *   fast     2.8281, 2.3748, 2.8708, 4.1667
 *   flow     -, 2.9231, 4.0310 (over every flow angle), -
 *   simplex  3.3330, 7.0424, 6.8315, 5.9278
 * and with the isotropic sets (1D is the classic set):
 *   perlin   -, 3.6105, 6.3917, 8.7361
 *   fast     -, 2.6495, 5.1290, 7.2886
 *   flow     -, 3.4275 (over every flow angle), 6.3861, -
 *   simplex  -, 5.6677, 8.2945, 7.5532
 * (3D and 4D: the bounds for any unit gradients times the set's longest,
 * not suprema of the sets themselves, so their floors are lower; lowest
 * for the independent components of perlin, fast, flow and simplex, whose
 * longest vector, every component at its largest, is 1 in 2^9 or 2^12
 * (simplex's random pairs reach 0.58 in 3D, 0.51 in 4D))
 * The checks allow 2% over these for the search's and float rounding's
 * error. floor[] is how much of the bound random pairs must reach, so the
 * bound is not vacuous: measured worst |dv|/h over the pairs of
 * continuity_case, less a margin (see there). eps[] bounds a value's float
 * rounding error at a given position (see test_grad_finite_differences).
 */
#define DIMS_ALL 0x1eu /* bit d: dims d supported */
static const struct basis {
    const char *name;
    kernel_fn fn;
    unsigned dims;    /* bit d set: dims d supported */
    double lip[4];    /* gradient bound per dims; 0: not continuous (white) */
    double floor[4];  /* fraction of lip that random pairs reach, per dims */
    unsigned rare;    /* bit d: extremes are rare in dims d, range test takes 2^21 samples */
    int tileable;     /* honours p->period */
    kernel_d_fn dfn;  /* value and gradient, or NULL */
    double eps[4];    /* bound on a value's rounding error, per dims */
    unsigned limited; /* bit d: soft-limited in dims d (C1 at the knee) */
    int kinked;       /* C1 only across cell borders (smoothstep fade) */
} bases[] = {
    {"value", value_noise, DIMS_ALL, {3.75, 3.75, 3.75, 3.75}, {0.8, 0.85, 0.85, 0.85}, 0,
     1, value_noise_d, {3e-6, 6e-6, 9e-6, 1.2e-5}, 0, 0},
    {"perlin", perlin_noise, DIMS_ALL, {2.6940, 2.8320, 3.6181, 5.1137},
     {0.8, 0.85, 0.6, 0.45}, 0x18u, 1, perlin_noise_d, {6e-6, 1.2e-5, 1.7e-5, 3.1e-5},
     0x10u, 0},
    {"fast", fast_noise, DIMS_ALL, {2.8281, 2.3748, 2.8708, 4.1667},
     {0.75, 0.85, 0.65, 0.45}, 0x18u, 1, fast_noise_d, {2e-6, 4e-6, 4e-6, 8e-6}, 0x10u, 1},
    {"flow", flow_noise, 0x0cu, {0, 2.9231, 4.0310, 0}, {0, 0.85, 0.6, 0}, 0x08u, 1,
     flow_noise_d, {0, 1.3e-5, 3e-5, 0}, 0x08u, 0},
    {"simplex", simplex_noise, DIMS_ALL, {3.3330, 7.0424, 6.8315, 5.9278},
     {0.8, 0.9, 0.85, 0.8}, 0, 0, simplex_noise_d, {2e-6, 5e-6, 1e-5, 1.5e-5}, 0, 0},
    {"perlin iso", perlin_noise_iso, DIMS_ALL, {2.6940, 3.6105, 6.3917, 8.7361},
     {0.8, 0.68, 0.38, 0.23}, 0x18u, 1, perlin_noise_iso_d, {6e-6, 1.2e-5, 1.7e-5, 3.1e-5},
     0x1cu, 0},
    {"fast iso", fast_noise_iso, DIMS_ALL, {2.8281, 2.6495, 5.1290, 7.2886},
     {0.75, 0.80, 0.39, 0.25}, 0x18u, 1, fast_noise_iso_d, {2e-6, 4e-6, 4e-6, 8e-6}, 0x1cu, 1},
    {"flow iso", flow_noise_iso, 0x0cu, {0, 3.4275, 6.3861, 0}, {0, 0.65, 0.39, 0}, 0x0cu, 1,
     flow_noise_iso_d, {0, 1.3e-5, 3e-5, 0}, 0x0cu, 0},
    {"simplex iso", simplex_noise_iso, DIMS_ALL, {3.3330, 5.6677, 8.2945, 7.5532},
     {0.8, 0.9, 0.5, 0.45}, 0, 0, simplex_noise_iso_d, {2e-6, 5e-6, 1e-5, 1.5e-5}, 0, 0},
    {"white", white_noise, DIMS_ALL, {0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0, NULL, {0, 0, 0, 0},
     0, 0},
};
#define NBASES ((int)(sizeof bases / sizeof bases[0]))
#define HAS_DIMS(b, d) (((b)->dims >> (d)) & 1u)

#define B 4096
static float fbuf[4][B], fbuf2[4][B], out1[B], out2[B], out3[B];
static float gbuf[4 * B], gbuf2[4 * B]; /* gradients: dims planes of n */

/* Flow noise is tested away from its unrotated angle unless a test says so;
 * the other bases ignore it. */
#define TEST_FLOW 0.3f

static ng_noise_pts pts(int n, int dims, const double anchor[4], float (*f)[B],
                        uint32_t seed)
{
    ng_noise_pts p;
    int d;
    memset(&p, 0, sizeof p);
    p.n = n;
    p.dims = dims;
    p.seed = seed;
    p.flow = TEST_FLOW;
    for (d = 0; d < 4; d++) {
        p.anchor[d] = anchor ? anchor[d] : 0.0;
        p.f[d] = f[d];
    }
    return p;
}

/* Axes 0 to dims - 1; the kernels read no others. */
static void fill_random(float (*f)[B], int dims, int n, double lo, double hi)
{
    int d, i;
    for (d = 0; d < dims; d++)
        for (i = 0; i < n; i++) f[d][i] = (float)t_rng_range(lo, hi);
}

/* Largest |a[i] - b[i]|. */
static double max_diff(const float *a, const float *b, int n)
{
    double worst = 0;
    int i;
    for (i = 0; i < n; i++)
        if (fabs((double)a[i] - b[i]) > worst) worst = fabs((double)a[i] - b[i]);
    return worst;
}

/* Samples whose bits differ. */
static int count_diff(const float *a, const float *b, int n)
{
    int i, k = 0;
    for (i = 0; i < n; i++) k += memcmp(&a[i], &b[i], sizeof a[i]) != 0;
    return k;
}

/* The classic row of an isotropic one ("perlin iso": "perlin"), or -1. */
static int classic_row(int b)
{
    const char *iso = strstr(bases[b].name, " iso");
    int c;
    for (c = 0; iso && c < NBASES; c++)
        if (strlen(bases[c].name) == (size_t)(iso - bases[b].name) &&
            !strncmp(bases[c].name, bases[b].name, strlen(bases[c].name)))
            return c;
    return -1;
}

/* The isotropic sets keep the classic sets' contrast: rms (off the lattice
 * points) within ISO_RMS of the classic row's in 2D to 4D. Measured:
 * perlin 2D 0.78, 3D 0.82, 4D 0.81; fast 0.79, 0.85, 0.84; flow 2D
 * 0.74, 3D 0.76 (2D to 4D scaled at the 1e-6 quantile: their maxima, which
 * need every corner's vector among the longest, would leave perlin 2D
 * 0.70, the same set's maximum over flow's angles less);
 * simplex 0.76, 0.73, 0.83 (2D: the cubic falloff's exact maximum,
 * two corners' wide bumps meeting at the middle of the cell's diagonal,
 * where the quartic's gave 1.00; its 3D and 4D vectors normalised:
 * unnormalised, 0.49 and 0.49; 3D's falloff t^4 (t - 1/4) and 4D's t^5,
 * where the quartic gave 0.97 and 0.98, t^3 (t - 1/4) 0.79 in 3D). */
#define ISO_RMS 0.72
static double range_rms[NBASES][5];

static void check_iso_contrast(void)
{
    int b, c, dims;
    for (b = 0; b < NBASES; b++)
        for (dims = 2; dims <= 4 && (c = classic_row(b)) >= 0; dims++)
            if (HAS_DIMS(&bases[b], dims)) {
                const double r = range_rms[b][dims] / range_rms[c][dims];
                printf("    %s %dD: rms %.3f, classic %.3f (%.2fx)\n", bases[b].name, dims, range_rms[b][dims],
                       range_rms[c][dims], r);
                CHECKF(r >= ISO_RMS, "%s %dD: rms %.3f is %.2f of the classic sets' %.3f", bases[b].name, dims,
                       range_rms[b][dims], r, range_rms[c][dims]);
            }
}

/* Random anchors (0 to +-1e9) and offsets, a new seed (and flow angle) per
 * batch; 2^21 samples where the extremes are rare (3D and 4D gradient
 * noise: about 1e-5 of samples reach 0.9), 2^18 elsewhere. One batch in
 * four is on lattice points, where value noise has its extremes; the
 * others give each row's rms (check_iso_contrast). */
static void test_range(void)
{
    int b, dims, k, i, d;
    for (b = 0; b < NBASES; b++)
        for (dims = 1; dims <= 4; dims++) {
            const struct basis *bs = &bases[b];
            int batches = (bs->rare >> dims) & 1u ? 512 : 64;
            double mn = 1e30, mx = -1e30, s2 = 0;
            if (!HAS_DIMS(bs, dims)) continue;
            t_rng_seed(1);
            for (k = 0; k < batches; k++) {
                double anchor[4];
                ng_noise_pts p;
                for (i = 0; i < 4; i++)
                    anchor[i] = (k & 1) ? t_rng_range(-1e9, 1e9) : 0.0;
                fill_random(fbuf, dims, B, -64, 64);
                for (d = 0; d < 4 && k % 4 == 3; d++) {
                    anchor[d] = floor(anchor[d]);
                    for (i = 0; i < B; i++) fbuf[d][i] = floorf(fbuf[d][i]);
                }
                p = pts(B, dims, anchor, fbuf, (uint32_t)k * 2654435761u);
                p.flow = (float)t_rng_unit();
                bs->fn(&p, out1);
                for (i = 0; i < B; i++) {
                    if (out1[i] < mn) mn = out1[i];
                    if (out1[i] > mx) mx = out1[i];
                    if (k % 4 != 3) s2 += (double)out1[i] * out1[i];
                }
            }
            range_rms[b][dims] = sqrt(s2 / ((double)B * (batches - batches / 4)));
            CHECKF(mn >= -1.0, "%s %dD: min %.9g < -1", bs->name, dims, mn);
            CHECKF(mx <= 1.0, "%s %dD: max %.9g > 1", bs->name, dims, mx);
            CHECKF(fmax(-mn, mx) >= 0.9, "%s %dD: max |v| %.6f uses < 90%% of [-1, 1]",
                   bs->name, dims, fmax(-mn, mx));
        }
    check_iso_contrast();
}

/* Perlin is 0 at integer points: users rely on it (and avoid it by sampling
 * pixel centres). So are fast and flow noise, built the same way. It must
 * stay exactly 0 far away, with the integer part in the anchor, the offset
 * or split between both, and past 2^32. */
static void test_perlin_zero_on_lattice(void)
{
    static const double anchors[][2] = {
        {0.0, 0.0}, {1e9, 0.0}, {-1e9 - 7.0, 0.0}, {123456789012.0, 0.0},
        {1e9 + 0.5, 0.5}, {-3.75, 0.75}, {4294967296.0 * 3 + 0.25, 0.75},
    };
    static const kernel_fn fns[] = {perlin_noise, fast_noise, flow_noise};
    static const char *const names[] = {"perlin", "fast", "flow"};
    int a, f, dims, i, d, bad;
    t_rng_seed(2);
    for (a = 0; a < (int)(sizeof anchors / sizeof anchors[0]); a++)
        for (f = 0; f < 3; f++)
            for (dims = f == 2 ? 2 : 1; dims <= (f == 2 ? 3 : 4); dims++) {
                double anchor[4];
                ng_noise_pts p;
                for (d = 0; d < 4; d++) {
                    anchor[d] = anchors[a][0];
                    for (i = 0; i < B; i++)
                        fbuf[d][i] = (float)floor(t_rng_range(-1000, 1000)) + (float)anchors[a][1];
                }
                p = pts(B, dims, anchor, fbuf, (uint32_t)(a * 7 + dims));
                fns[f](&p, out1);
                for (bad = 0, i = 0; i < B; i++) bad += out1[i] != 0.0f;
                CHECKF(bad == 0,
                       "%s %dD anchor %.17g: %d of %d lattice points not 0 (e.g. %g)", names[f],
                       dims, anchor[0], bad, B, out1[0]);
            }
}

/*
 * Pairs a step h apart along each axis: |delta| <= L * h, L the basis's
 * gradient bound. h = 1e-3 as a user's finite-difference normal would; h =
 * 1e-4 as well, because a jump smaller than L * 1e-3 (the classic 0.6
 * simplex falloff leaves jumps of ~4e-3) only shows at a finer step.
 * Offsets stay within +-8, so positions inside the kernel (skewed ones up to
 * ~16) are rounded by at most ~4e-6: that slack is added to the step.
 *
 * The bound is not vacuous: random pairs reach (worst |dv|/h over L, h =
 * 1e-3, lower of the two anchors, 1D to 4D) value 0.89 0.96 0.96 0.94,
 * perlin 0.89 0.98 0.77 0.54, fast 0.87 0.97 0.75 0.53, flow - 0.96 0.70 -,
 * simplex 0.93 0.99 0.97 0.92, the isotropic sets' 2D perlin 0.75, fast
 * 0.86, flow 0.72 (grad_pair's steepest configurations need all four
 * corners' vectors among its longest), 3D and 4D (bounds for
 * any unit gradients times the longest vector) perlin 0.43 0.28, fast
 * 0.44 0.30, flow 3D 0.44: in 3D and 4D the steepest configurations
 * need many corners to agree, which random samples rarely see; in 1D 4096
 * points cover only ~16 cells per batch. The floors in bases[] sit
 * 0.05-0.1 below.
 */
static void continuity_case(const struct basis *bs, int dims, double h, const double *anchor,
                            const uint32_t *period, double *ratio)
{
    double lip = bs->lip[dims - 1], worst = 0.0;
    int axis, k, i, d, bad = 0;
    for (axis = 0; axis < dims; axis++)
        for (k = 0; k < 8; k++) {
            ng_noise_pts p1, p2;
            fill_random(fbuf, dims, B, -8, 8);
            for (d = 0; d < 4; d++)
                for (i = 0; i < B; i++)
                    fbuf2[d][i] = d == axis ? (float)(fbuf[d][i] + h) : fbuf[d][i];
            p1 = pts(B, dims, anchor, fbuf, (uint32_t)k);
            p2 = pts(B, dims, anchor, fbuf2, (uint32_t)k);
            if (period) {
                memcpy(p1.period, period, sizeof p1.period);
                memcpy(p2.period, period, sizeof p2.period);
            }
            bs->fn(&p1, out1);
            bs->fn(&p2, out2);
            for (i = 0; i < B; i++) {
                double step = (double)fbuf2[axis][i] - (double)fbuf[axis][i];
                double r = fabs((double)out2[i] - out1[i]) / step;
                if (r > worst) worst = r;
                bad += fabs((double)out2[i] - out1[i]) > lip * 1.02 * (step + 4e-6) + 2e-6;
            }
        }
    CHECKF(bad == 0, "%s %dD h=%g anchor %.17g%s: %d pairs exceed L=%g (worst |dv|/h %.4f)",
           bs->name, dims, h, anchor[0], period ? " tiled" : "", bad, lip, worst);
    *ratio = worst / lip;
}

static void test_continuity(void)
{
    static const double anchors[][4] = {{0, 0, 0, 0},
                                        {1e9 + 0.37, -1e9 + 0.81, 1e9 + 0.05, -1e9 + 0.66}};
    /* Tiled: the wrap must join cells across the period boundary, which
     * +-8 offsets cross several times for these periods. */
    static const uint32_t period[4] = {3, 5, 2, 7};
    int b, dims, a;
    t_rng_seed(3);
    for (b = 0; b < NBASES; b++)
        for (dims = 1; dims <= 4; dims++) {
            const struct basis *bs = &bases[b];
            double r, fl = bs->floor[dims - 1];
            if (!HAS_DIMS(bs, dims) || bs->lip[dims - 1] == 0) continue;
            for (a = 0; a < 2; a++) {
                continuity_case(bs, dims, 1e-3, anchors[a], NULL, &r);
                CHECKF(r >= fl, "%s %dD: worst |dv|/h only %.2f of L=%g (expected >= %.2f)",
                       bs->name, dims, r, bs->lip[dims - 1], fl);
                continuity_case(bs, dims, 1e-4, anchors[a], NULL, &r);
            }
            if (bs->tileable) continuity_case(bs, dims, 1e-4, anchors[1], period, &r);
        }
}


/* Same bits however the points are split into batches (tile size must not
 * change a render, and a vectorised loop's scalar remainder must agree with
 * its body). */
static void check_batch_split(kernel_fn fn, const ng_noise_pts *p, const char *name, int dims)
{
    ng_noise_pts part;
    int i, d;
    fn(p, out1);
    for (i = 0; i < p->n; i += part.n) {
        part = *p;
        part.n = i % 7 + 1 + (i % 3) * 8; /* 1 to 23: vector bodies and remainders */
        if (part.n > p->n - i) part.n = p->n - i;
        for (d = 0; d < 4; d++) part.f[d] = p->f[d] + i;
        fn(&part, out2 + i);
    }
    CHECKF(count_diff(out1, out2, p->n) == 0, "%s %dD%s: batch split changes bits", name, dims,
           p->period[0] ? " tiled" : "");
}

/* Same input, same bits, in one batch or many. Another seed, another
 * field: almost every sample differs and the two are uncorrelated, for
 * neighbouring and distant seeds. Not every sample: gradients come from a
 * set of 8, 12 or 32, and near a simplex vertex only that vertex
 * contributes, so two seeds agree there 1 time in 8 or 12 (about 1.5% of
 * 2D simplex samples). */
static void test_determinism_and_seed(void)
{
    static const uint32_t seeds[][2] = {
        {0, 1}, {1, 2}, {12345, 12346}, {7, 7u ^ 0x80000000u}, {0xffffffffu, 0},
    };
    static const double anchor[4] = {1e6 + 0.3, -2e5 + 0.7, 42.0, -9e7 + 0.1};
    static const uint32_t period[4] = {6, 1, 1000003, 0};
    int b, dims, s, i;
    t_rng_seed(4);
    fill_random(fbuf, 4, B, -40, 40);
    for (i = 0; i < B; i++) fbuf2[0][i] = (float)(i * 0.7 - 1400 + t_rng_unit());
    for (b = 0; b < NBASES; b++)
        for (dims = 1; dims <= 4; dims++) {
            const struct basis *bs = &bases[b];
            /* 1D: 4096 points over 80 cells would correlate by chance (sd
             * ~0.1); spread them over 2800 */
            ng_noise_pts p = pts(B, dims, anchor, dims == 1 ? fbuf2 : fbuf, 99);
            if (!HAS_DIMS(bs, dims)) continue;
            bs->fn(&p, out1);
            bs->fn(&p, out2);
            CHECKF(count_diff(out1, out2, B) == 0, "%s %dD: two runs differ", bs->name, dims);
            check_batch_split(bs->fn, &p, bs->name, dims);
            if (bs->tileable) {
                memcpy(p.period, period, sizeof p.period);
                check_batch_split(bs->fn, &p, bs->name, dims);
                memset(p.period, 0, sizeof p.period);
            }
            for (s = 0; s < (int)(sizeof seeds / sizeof seeds[0]); s++) {
                int same = 0;
                double r;
                p.seed = seeds[s][0];
                bs->fn(&p, out1);
                p.seed = seeds[s][1];
                bs->fn(&p, out2);
                for (i = 0; i < B; i++) same += out1[i] == out2[i];
                r = t_correlation(out1, out2, B);
                CHECKF(same < B / 20, "%s %dD seeds %u/%u: %d of %d samples equal", bs->name,
                       dims, seeds[s][0], seeds[s][1], same, B);
                CHECKF(fabs(r) < 0.1, "%s %dD seeds %u/%u: correlation %.3f", bs->name, dims,
                       seeds[s][0], seeds[s][1], r);
            }
        }
    {
        ng_noise_pts p = pts(B, 2, anchor, fbuf, 5);
        p.period[0] = 7;
        p.period[1] = 3;
        check_batch_split(simplex_tiled2, &p, "simplex_tiled2", 2);
    }
}

/*
 * The field far away is as fine as near the origin. A kernel that adds the
 * anchor in float sees 1e9 rounded to a multiple of 64: every point of a
 * row falls on the same value, or on a staircase at coarser offsets. So we
 * walk rows in steps of 0.01 lattice units and measure (1) the fraction of
 * neighbouring samples that are bit-identical, which is ~0 for a smooth
 * field and near 1 for a quantised one, and (2) the standard deviation of
 * neighbour differences, a roughness that a staircase or plateau would
 * change by a large factor while a faithful field keeps it within
 * sampling noise of the origin's. Measured: sd ratio 0.95-1.05 and at most
 * 0.4% identical neighbours (cells whose gradients all have a zero x
 * component are constant along x), against ~1 and 0 for a kernel that adds
 * the anchor in float. White noise too: 0.01 apart is 655 of its grid
 * steps, so neighbours are independent draws at any distance.
 */
static void row_stats(const struct basis *bs, int dims, double a, double *same, double *sd)
{
    double anchor[4] = {a, a, a, a};
    t_steps st = {0, 0, 0, 0};
    int row, i;
    for (row = 0; row < 32; row++) {
        ng_noise_pts p;
        for (i = 0; i < B; i++) {
            fbuf[0][i] = (float)(i * 0.01);
            fbuf[1][i] = (float)(row * 1.37 + 0.29); /* off lattice lines */
            fbuf[2][i] = (float)(row * 0.71 + 0.13);
            fbuf[3][i] = (float)(row * 0.53 + 0.41);
        }
        p = pts(B, dims, anchor, fbuf, 5 + (uint32_t)row * (dims == 1)); /* 1D: rows differ by seed */
        bs->fn(&p, out1);
        t_steps_add(&st, out1, B);
    }
    *same = t_steps_same(&st);
    *sd = t_steps_sd(&st);
}

static void test_far_origin_not_blocky(void)
{
    static const double far[] = {1e9, 1e9 + 0.5, -1e9 - 0.25};
    int b, dims, a;
    for (b = 0; b < NBASES; b++)
        for (dims = 1; dims <= 4; dims++) {
            const struct basis *bs = &bases[b];
            double same0, sd0;
            if (!HAS_DIMS(bs, dims)) continue;
            row_stats(bs, dims, 0.0, &same0, &sd0);
            for (a = 0; a < (int)(sizeof far / sizeof far[0]); a++) {
                double same, sd;
                row_stats(bs, dims, far[a], &same, &sd);
                CHECKF(same <= same0 + 0.01,
                       "%s %dD anchor %.17g: %.4f of neighbours identical (origin %.4f)",
                       bs->name, dims, far[a], same, same0);
                CHECKF(sd >= sd0 / 1.5 && sd <= sd0 * 1.5,
                       "%s %dD anchor %.17g: neighbour-difference sd %.3g vs %.3g at origin",
                       bs->name, dims, far[a], sd, sd0);
            }
        }
}

/* Moving an integer k from the offsets into the anchor is the same world
 * point, so the same value: tiles with different anchors stitch. White
 * noise takes offsets on a 2^-10 grid, where both decompositions give the
 * same fraction bits: a per-sample hash has no tolerance, a sample that
 * rounds to another grid point is another draw. */
static void test_far_field_is_translate(void)
{
    static const double anchors[] = {0.0, 1e9, 1e9 + 0.5, -3.7e8 + 0.25, 5e9 + 0.125};
    static const double ks[][4] = {{3, -2, 5, 1}, {-7, 11, 1, -4}, {40, 0, -33, 9}};
    int b, dims, a, k, i, d;
    t_rng_seed(6);
    for (b = 0; b < NBASES; b++)
        for (dims = 1; dims <= 4; dims++) {
            const struct basis *bs = &bases[b];
            int exact = bs->lip[dims - 1] == 0;
            if (!HAS_DIMS(bs, dims)) continue;
            for (a = 0; a < (int)(sizeof anchors / sizeof anchors[0]); a++)
                for (k = 0; k < 3; k++) {
                    double an1[4], an2[4], worst;
                    ng_noise_pts p1, p2;
                    fill_random(fbuf, dims, B, -20, 20);
                    for (d = 0; d < 4; d++) {
                        an1[d] = anchors[a] + ks[k][d];
                        an2[d] = anchors[a];
                        for (i = 0; i < B; i++) {
                            if (exact) fbuf[d][i] = floorf(fbuf[d][i] * 1024.0f) / 1024.0f;
                            fbuf2[d][i] = fbuf[d][i] + (float)ks[k][d];
                        }
                    }
                    p1 = pts(B, dims, an1, fbuf, 11);
                    p2 = pts(B, dims, an2, fbuf2, 11);
                    bs->fn(&p1, out1);
                    bs->fn(&p2, out2);
                    worst = max_diff(out1, out2, B);
                    CHECKF(worst <= (exact ? 0.0 : 1e-4), "%s %dD anchor %.17g k #%d: differs by %g",
                           bs->name, dims, anchors[a], k, worst);
                }
        }
}

/* A warp fed NaN or infinity (say from a division by zero upstream) must not
 * crash or poison the range: output stays finite and within [-1, 1], also
 * tiled and with a non-finite flow. */
static void test_nonfinite_positions(void)
{
    static const float bad[] = {NAN, INFINITY, -INFINITY, 3e38f, -3e38f, 1e10f};
    static const double anchors[][4] = {{0, 0, 0, 0}, {NAN, INFINITY, 1e300, -1e300}};
    static const float flows[] = {0.3f, NAN, INFINITY};
    int b, dims, a, t, i, d, n = (int)(sizeof bad / sizeof bad[0]);
    for (d = 0; d < 4; d++)
        for (i = 0; i < n; i++) fbuf[d][i] = d == 0 ? bad[i] : 0.5f;
    for (b = 0; b < NBASES; b++)
        for (dims = 1; dims <= 4; dims++)
            for (a = 0; a < 2; a++)
                for (t = 0; t < 3; t++) {
                    const struct basis *bs = &bases[b];
                    ng_noise_pts p = pts(n, dims, anchors[a], fbuf, 1);
                    if (!HAS_DIMS(bs, dims)) continue;
                    p.flow = flows[t];
                    if (t == 2)
                        for (d = 0; d < 4; d++) p.period[d] = d == 1 ? 0xffffffffu : 3u;
                    bs->fn(&p, out1);
                    for (i = 0; i < n; i++)
                        CHECKF(out1[i] >= -1.0f && out1[i] <= 1.0f, "%s %dD input %g: %g",
                               bs->name, dims, (double)bad[i], (double)out1[i]);
                }
    for (a = 0; a < 2; a++) {
        ng_noise_pts p = pts(n, 2, anchors[a], fbuf, 1);
        p.period[0] = 4;
        p.period[1] = 0xffffffffu;
        simplex_tiled2(&p, out1);
        for (i = 0; i < n; i++)
            CHECKF(out1[i] >= -1.0f && out1[i] <= 1.0f, "simplex_tiled2 input %g: %g",
                   (double)bad[i], (double)out1[i]);
    }
}

/* Dims a basis does not support write zeros rather than garbage (flow is
 * 2D and 3D only; 0 and 5 are nobody's); the _d forms also to the dims
 * gradient planes, and not past them. */
static void test_unsupported_dims(void)
{
    static const int dims[] = {0, 1, 4, 5};
    int b, k, i, bad;
    for (b = 0; b < NBASES; b++)
        for (k = 0; k < 4; k++) {
            const struct basis *bs = &bases[b];
            ng_noise_pts p = pts(64, dims[k], NULL, fbuf, 1);
            if (dims[k] >= 1 && dims[k] <= 4 && HAS_DIMS(bs, dims[k])) continue;
            for (i = 0; i < 64; i++) out1[i] = 7.0f;
            bs->fn(&p, out1);
            for (bad = 0, i = 0; i < 64; i++) bad += out1[i] != 0.0f;
            CHECKF(bad == 0, "%s %dD: %d of 64 outputs not 0", bs->name, dims[k], bad);
            if (!bs->dfn) continue;
            for (i = 0; i < 64; i++) out1[i] = 7.0f;
            for (i = 0; i < 6 * 64; i++) gbuf[i] = 7.0f;
            bs->dfn(&p, out1, gbuf);
            for (bad = 0, i = 0; i < 64; i++) bad += out1[i] != 0.0f;
            for (i = 0; i < 6 * 64; i++) bad += gbuf[i] != (i < dims[k] * 64 ? 0.0f : 7.0f);
            CHECKF(bad == 0, "%s_d %dD: %d outputs or gradients wrong", bs->name, dims[k], bad);
        }
}

/* ---- flow ---------------------------------------------------------------- */

/* flow is in turns and loops: flow and flow + k give the same bits (the
 * angle comes from frac(flow), in double), and at flow 0 the 2D field is
 * exactly 2D Perlin. */
static void test_flow_loops(void)
{
    /* pairs whose fractions are the same float */
    static const float pairs[][2] = {{0.0f, 1.0f}, {0.25f, 1.25f}, {0.25f, -0.75f},
                                     {0.625f, 5.625f}, {0.0f, -3.0f}, {0.1015625f, -2.8984375f}};
    int dims, k;
    t_rng_seed(7);
    fill_random(fbuf, 3, B, -30, 30);
    for (dims = 2; dims <= 3; dims++)
        for (k = 0; k < (int)(sizeof pairs / sizeof pairs[0]); k++) {
            static const double anchor[4] = {1e9 + 0.5, -7.25, 3e5, 0};
            ng_noise_pts p = pts(B, dims, anchor, fbuf, 3);
            p.flow = pairs[k][0];
            flow_noise(&p, out1);
            p.flow = pairs[k][1];
            flow_noise(&p, out2);
            CHECKF(count_diff(out1, out2, B) == 0, "flow %dD: flow %g and %g differ", dims,
                   (double)pairs[k][0], (double)pairs[k][1]);
        }
    {
        ng_noise_pts p = pts(B, 2, NULL, fbuf, 3);
        p.flow = 0.0f;
        flow_noise(&p, out1);
        perlin_noise(&p, out2);
        CHECK_INT(count_diff(out1, out2, B), 0);
    }
}

/*
 * Animating flow moves the field smoothly: |df/dflow| is bounded by 2 pi
 * times the scaled maximum of the d/dangle field, which is a field of
 * rotated gradients again: 2D, the gradients turned by a quarter, so its
 * maximum is the value maximum, 2 pi * 0.70710678 * 1.4140722 = 6.2826 per
 * turn; 3D, found by the same search over angles, positions and
 * configurations (1.1641 unscaled), 2 pi * 1.1641 / 0.965 = 7.580 per turn.
 * Random pairs reach 93% (2D) and 76% (3D) of it. And it does move: a
 * quarter turn changes samples by 0.36 (2D) and 0.26 (3D) on average.
 */
static void test_flow_continuity(void)
{
    static const double lip[2] = {6.2826, 7.580};
    static const double dflow[] = {1e-3, 1e-4};
    int dims, k, s, i, bad;
    t_rng_seed(8);
    for (dims = 2; dims <= 3; dims++) {
        double worst = 0, moved = 0;
        for (k = 0; k < 8; k++)
            for (s = 0; s < 2; s++) {
                static const double anchor[4] = {-1e9 + 0.3, 2e8 + 0.6, 11.0, 0};
                ng_noise_pts p = pts(B, dims, anchor, fbuf, (uint32_t)k);
                double h;
                fill_random(fbuf, dims, B, -8, 8);
                p.flow = (float)t_rng_unit();
                h = (double)(p.flow + (float)dflow[s]) - p.flow;
                flow_noise(&p, out1);
                p.flow += (float)dflow[s];
                flow_noise(&p, out2);
                for (bad = 0, i = 0; i < B; i++) {
                    double dv = fabs((double)out2[i] - out1[i]);
                    if (dv / h > worst) worst = dv / h;
                    bad += dv > lip[dims - 2] * 1.02 * h + 2e-6;
                }
                CHECKF(bad == 0, "flow %dD dflow %g: %d samples exceed %g per turn", dims, h,
                       bad, lip[dims - 2]);
                p.flow += 0.25f;
                flow_noise(&p, out2);
                for (i = 0; i < B; i++) moved += fabs((double)out2[i] - out1[i]) / (16.0 * B);
            }
        CHECKF(worst >= 0.6 * lip[dims - 2], "flow %dD: worst |dv|/dflow %.3f far below %g",
               dims, worst, lip[dims - 2]);
        CHECKF(moved > 0.1, "flow %dD: a quarter turn changes samples by only %.3f on average",
               dims, moved);
    }
}

/* ---- white -------------------------------------------------------------- */

/* 2^20 samples: 16 equal bins each within 2% of flat (a bin holds 65536 +-
 * 256 by chance), and neighbouring samples along and across rows
 * uncorrelated (|r| < 0.01; chance gives ~0.001). */
static void test_white_flat_uncorrelated(void)
{
    long bins[16] = {0};
    double rx = 0, ry = 0;
    int k, i, j, dims;
    for (dims = 1; dims <= 4; dims++) {
        memset(bins, 0, sizeof bins);
        for (k = 0; k < 256; k++) {
            static const double anchor[4] = {1e9 + 0.3, -5e8, 77.5, 0};
            ng_noise_pts p;
            for (i = 0; i < B; i++) { /* 1D: a long row; else a 64 x 64 grid */
                fbuf[0][i] = (float)(dims == 1 ? i * 0.25 + k * 1024 : (i % 64) * 0.25);
                fbuf[1][i] = (float)((i / 64) * 0.25 + k * 16);
                fbuf[2][i] = fbuf[3][i] = 0.5f;
            }
            p = pts(B, dims, anchor, fbuf, 21);
            white_noise(&p, out1);
            for (i = 0; i < B; i++) {
                int bin = (int)((out1[i] + 1.0f) * 8.0f);
                bins[bin < 0 ? 0 : bin > 15 ? 15 : bin]++;
            }
            if (dims != 2) continue;
            /* every horizontal pair in one sample (per-row estimates would
             * be biased by -1/63) */
            for (j = 0; j < 64; j++)
                for (i = 0; i < 63; i++) {
                    out2[j * 63 + i] = out1[j * 64 + i];
                    fbuf2[0][j * 63 + i] = out1[j * 64 + i + 1];
                }
            rx += t_correlation(out2, fbuf2[0], 64 * 63) / 256.0;
            ry += t_correlation(out1, out1 + 64, B - 64) / 256.0;
        }
        for (k = 0; k < 16; k++)
            CHECKF(fabs(bins[k] / 65536.0 - 1.0) < 0.02, "white %dD: bin %d holds %ld of 65536",
                   dims, k, bins[k]);
    }
    CHECKF(fabs(rx) < 0.01, "white: lag-1 correlation along rows %.4f", rx);
    CHECKF(fabs(ry) < 0.01, "white: lag-1 correlation across rows %.4f", ry);
}

/* The documented rule: the absolute position is rounded to the nearest
 * 1/65536 cell, so positions that round alike share a value (also across
 * a cell boundary, and with the integer part in the anchor or the offset)
 * and the next grid point is another draw. */
static void test_white_grid(void)
{
    static const double anchors[] = {0.0, 1e9, -1e9 - 3.0, 4294967296.0 * 2};
    const float g = 1.0f / 65536.0f;
    int a;
    for (a = 0; a < (int)(sizeof anchors / sizeof anchors[0]); a++) {
        double anchor[4] = {anchors[a], anchors[a], 0, 0}, anchor1[4] = {anchors[a] + 3.0, anchors[a], 0, 0};
        ng_noise_pts p;
        float v[8];
        int i;
        /* x: 5.5 + 0.3g, 5.5 - 0.3g | 5.5 + 0.7g, 5.5 + g | 7 - 0.3g, 7 | 7 + 0.6g, 7 + 1.4g */
        static const float xs[8] = {5.5f, 5.5f, 5.5f, 5.5f, 7.0f, 7.0f, 7.0f, 7.0f};
        static const float dx[8] = {0.3f, -0.3f, 0.7f, 1.0f, -0.3f, 0.0f, 0.6f, 1.4f};
        for (i = 0; i < 8; i++) {
            fbuf[0][i] = xs[i] + dx[i] * g;
            fbuf[1][i] = 0.25f;
        }
        p = pts(8, 2, anchor, fbuf, 4);
        white_noise(&p, v);
        CHECKF(v[0] == v[1], "white anchor %.17g: +-0.3 grid step around a grid point differ",
               anchors[a]);
        CHECKF(v[2] == v[3], "white anchor %.17g: 0.7 and 1 grid steps differ", anchors[a]);
        CHECKF(v[0] != v[2], "white anchor %.17g: neighbouring grid points equal", anchors[a]);
        CHECKF(v[4] == v[5], "white anchor %.17g: rounding up into the next cell", anchors[a]);
        CHECKF(v[6] == v[7] && v[5] != v[6], "white anchor %.17g: 0.6/1.4 grid steps",
               anchors[a]);
        /* the same points with 3 cells moved into the anchor */
        for (i = 0; i < 8; i++) fbuf[0][i] -= 3.0f;
        p = pts(8, 2, anchor1, fbuf, 4);
        white_noise(&p, out1);
        CHECKF(memcmp(v, out1, sizeof v) == 0, "white anchor %.17g: moving 3 cells into the anchor",
               anchors[a]);
    }
}

/* ---- tiling ------------------------------------------------------------- */

/* f(x + k P) == f(x) per axis: bit-exact when the anchor moves by k P (the
 * fraction is the same bits) or when the offsets move and stay exact
 * (offsets on a 2^-10 grid); within 1e-5 when offsets move by P and round
 * (|offset| <= 4 and P <= 8 here, so positions round by < 1e-6 and the
 * field by < L * 1e-6). Periods include 1, primes, and ones beyond 2^31;
 * anchors are negative, far, and beyond 2^32 cells. */
#define TN 1024 /* points per case: periodicity is exact or broken */
static void test_tiling(void)
{
    static const uint32_t periods[][4] = {
        {5, 7, 3, 4}, {1, 8, 2, 6}, {2147483659u, 3, 0xffffffffu, 1000003}, {8, 0, 5, 0},
    };
    static const double anchors[] = {0.0, -7.75, 1e9 + 0.25, -1e15 + 0.5, 4294967296.0 * 9 + 0.125};
    static const double ks[] = {1, -1, 3, 1000000};
    int b, dims, pi, a, k, ax, i, d;
    t_rng_seed(9);
    for (b = 0; b < NBASES; b++)
        for (dims = 1; dims <= 4; dims++) {
            const struct basis *bs = &bases[b];
            if (!HAS_DIMS(bs, dims) || !bs->tileable) continue;
            for (pi = 0; pi < 4; pi++)
                for (a = 0; a < (int)(sizeof anchors / sizeof anchors[0]); a++)
                    for (ax = 0; ax < dims; ax++) {
                        double P = periods[pi][ax], an[4], an2[4];
                        ng_noise_pts p1, p2;
                        if (P == 0) continue;
                        for (d = 0; d < 4; d++) an[d] = an2[d] = anchors[a] + 0.375 * d;
                        fill_random(fbuf, dims, TN, -4, 4);
                        p1 = pts(TN, dims, an, fbuf, (uint32_t)(pi * 5 + a));
                        memcpy(p1.period, periods[pi], sizeof p1.period);
                        bs->fn(&p1, out1);
                        for (k = 0; k < 4; k++) {
                            an2[ax] = an[ax] + ks[k] * P;
                            p2 = p1;
                            p2.anchor[ax] = an2[ax];
                            if (an2[ax] - floor(an2[ax]) != an[ax] - floor(an[ax]))
                                continue; /* the fraction did not survive in double */
                            bs->fn(&p2, out2);
                            CHECKF(count_diff(out1, out2, TN) == 0,
                                   "%s %dD period %u axis %d anchor %.17g: anchor + %g P changes bits",
                                   bs->name, dims, periods[pi][ax], ax, anchors[a], ks[k]);
                        }
                        if (P > 8) continue;
                        /* offsets + P, rounding */
                        for (d = 0; d < 4; d++)
                            for (i = 0; i < TN; i++)
                                fbuf2[d][i] = fbuf[d][i] + (d == ax ? (float)P : 0.0f);
                        p2 = p1;
                        for (d = 0; d < 4; d++) p2.f[d] = fbuf2[d];
                        bs->fn(&p2, out2);
                        CHECKF(max_diff(out1, out2, TN) <= 1e-5,
                               "%s %dD period %u axis %d anchor %.17g: offsets + P differ by %g",
                               bs->name, dims, periods[pi][ax], ax, anchors[a],
                               max_diff(out1, out2, TN));
                        /* offsets on a 2^-10 grid: + P and - 2P are exact */
                        for (d = 0; d < 4; d++)
                            for (i = 0; i < TN; i++) {
                                fbuf[d][i] = floorf(fbuf[d][i] * 1024.0f) / 1024.0f;
                                fbuf2[d][i] = fbuf[d][i] + (d == ax ? (float)(i & 1 ? P : -2 * P) : 0.0f);
                            }
                        bs->fn(&p1, out1);
                        bs->fn(&p2, out2);
                        CHECKF(count_diff(out1, out2, TN) == 0,
                               "%s %dD period %u axis %d anchor %.17g: exact offsets + k P change bits",
                               bs->name, dims, periods[pi][ax], ax, anchors[a]);
                    }
        }
}

/* A period changes which cells repeat, not the look: the tiled field stays
 * within [-1, 1] and still reaches its extremes (2^18 samples, 2D and 3D,
 * a small and a large period; measured 0.79-1.0, the 0.79 flow's
 * isotropic 2D at period 4: 12 lattice points per seed at one flow angle,
 * scaled for the largest values over every angle). */
static void test_tiled_range(void)
{
    static const uint32_t periods[2][4] = {{4, 3, 5, 2}, {1000, 999, 65537, 7}};
    int b, dims, pp, k, i;
    for (b = 0; b < NBASES; b++)
        for (dims = 2; dims <= 3; dims++)
            for (pp = 0; pp < 2; pp++) {
                const struct basis *bs = &bases[b];
                double mx = 0;
                if (!HAS_DIMS(bs, dims) || !bs->tileable) continue;
                t_rng_seed(10);
                for (k = 0; k < 64; k++) {
                    double anchor[4] = {t_rng_range(-1e6, 1e6), t_rng_range(-1e6, 1e6), 0.5, 0.5};
                    ng_noise_pts p;
                    fill_random(fbuf, dims, B, -64, 64);
                    p = pts(B, dims, anchor, fbuf, (uint32_t)k);
                    memcpy(p.period, periods[pp], sizeof p.period);
                    bs->fn(&p, out1);
                    for (i = 0; i < B; i++) {
                        CHECKF(out1[i] >= -1.0f && out1[i] <= 1.0f, "%s %dD tiled: %g", bs->name,
                               dims, (double)out1[i]);
                        if (fabs(out1[i]) > mx) mx = fabs(out1[i]);
                    }
                }
                CHECKF(mx >= 0.75, "%s %dD tiled period %u: max |v| %.3f", bs->name,
                       dims, periods[pp][0], mx);
            }
}

/* Tileable simplex: periodic in x and y (exactly when the anchor moves by a
 * period or exact offsets do), within [-1, 1] with the coverage of 4D
 * simplex, continuous with 4D simplex's bound times sqrt(2) (the torus
 * map has unit speed in one coordinate plane, so |df/dx| <= |grad_4 f| in
 * that plane <= sqrt(2) * 5.9278 = 8.383), and other dims defer to plain
 * simplex. */
static void test_simplex_tiled2(void)
{
    static const uint32_t periods[][2] = {{4, 4}, {7, 3}, {1, 64}, {1000, 2147483659u}};
    static const double anchors[] = {0.0, -3.5, 1e9 + 0.25, -1e15 + 0.5};
    double mx = 0, worst = 0;
    int pi, a, i, d, k, bad = 0;
    t_rng_seed(11);
    for (pi = 0; pi < 4; pi++)
        for (a = 0; a < 4; a++) {
            double an[4] = {anchors[a], anchors[a] + 0.375, 0, 0};
            ng_noise_pts p1, p2;
            fill_random(fbuf, 2, B, -16, 16);
            for (d = 0; d < 2; d++)
                for (i = 0; i < B; i++) fbuf[d][i] = floorf(fbuf[d][i] * 1024.0f) / 1024.0f;
            p1 = pts(B, 2, an, fbuf, (uint32_t)(pi + 4 * a));
            p1.period[0] = periods[pi][0];
            p1.period[1] = periods[pi][1];
            simplex_tiled2(&p1, out1);
            for (i = 0; i < B; i++) {
                bad += !(out1[i] >= -1.0f && out1[i] <= 1.0f);
                if (fabs(out1[i]) > mx) mx = fabs(out1[i]);
            }
            for (d = 0; d < 2; d++) {
                double P = periods[pi][d];
                p2 = p1;
                p2.anchor[d] += 3 * P;
                simplex_tiled2(&p2, out2);
                CHECKF(count_diff(out1, out2, B) == 0,
                       "simplex_tiled2 periods %u x %u anchor %.17g: anchor + 3P on axis %d",
                       periods[pi][0], periods[pi][1], anchors[a], d);
                if (P > 1024) continue;
                for (k = 0; k < 4; k++)
                    for (i = 0; i < B; i++) fbuf2[k][i] = fbuf[k][i] + (k == d ? (float)P : 0.0f);
                for (k = 0; k < 4; k++) p2.f[k] = fbuf2[k];
                p2.anchor[d] = p1.anchor[d];
                simplex_tiled2(&p2, out2);
                CHECKF(count_diff(out1, out2, B) == 0,
                       "simplex_tiled2 periods %u x %u anchor %.17g: offsets + P on axis %d",
                       periods[pi][0], periods[pi][1], anchors[a], d);
            }
            /* continuity along each axis */
            for (d = 0; d < 2; d++) {
                for (k = 0; k < 4; k++)
                    for (i = 0; i < B; i++)
                        fbuf2[k][i] = k == d ? (float)(fbuf[k][i] + 1e-3) : fbuf[k][i];
                p2 = p1;
                for (k = 0; k < 4; k++) p2.f[k] = fbuf2[k];
                simplex_tiled2(&p2, out2);
                for (i = 0; i < B; i++) {
                    double step = (double)fbuf2[d][i] - fbuf[d][i];
                    double r = fabs((double)out2[i] - out1[i]) / step;
                    if (r > worst) worst = r;
                    bad += fabs((double)out2[i] - out1[i]) > 8.383 * 1.02 * (step + 4e-6) + 2e-6;
                }
            }
        }
    CHECK_INT(bad, 0);
    CHECKF(mx >= 0.9, "simplex_tiled2: max |v| %.3f", mx);
    CHECKF(worst >= 0.5 * 8.383, "simplex_tiled2: worst |dv|/h %.3f", worst); /* measured 0.66 */
    {
        ng_noise_pts p = pts(B, 2, NULL, fbuf, 1);
        p.period[0] = 5; /* y has no period: plain simplex */
        simplex_tiled2(&p, out1);
        simplex_noise(&p, out2);
        CHECK_INT(count_diff(out1, out2, B), 0);
    }
}

/* ---- gradients (the _d forms) ------------------------------------------- */

/* Same bits from the _d form in one batch or many: values and every plane. */
static void check_batch_split_d(const struct basis *bs, const ng_noise_pts *p)
{
    ng_noise_pts part;
    int i, d, bad = 0;
    bs->dfn(p, out1, gbuf);
    for (i = 0; i < p->n; i += part.n) {
        part = *p;
        part.n = i % 7 + 1 + (i % 3) * 8; /* 1 to 23: vector bodies and remainders */
        if (part.n > p->n - i) part.n = p->n - i;
        for (d = 0; d < 4; d++) part.f[d] = p->f[d] + i;
        bs->dfn(&part, out2 + i, gbuf2);
        for (d = 0; d < p->dims; d++)
            bad += count_diff(gbuf + d * p->n + i, gbuf2 + d * part.n, part.n);
    }
    bad += count_diff(out1, out2, p->n);
    CHECKF(bad == 0, "%s_d %dD%s: batch split changes %d bits", bs->name, p->dims,
           p->period[0] ? " tiled" : "", bad);
}

/*
 * The _d form's value is the plain kernel's, bit for bit, and a batch split
 * changes no bit of value or gradient: anchors near the origin, at 1e9,
 * anywhere to +-1e9 and beyond 2^32 cells, offsets to +-64 and on lattice
 * points, tiled for the tileable bases. Non-finite positions give the plain
 * value and a finite gradient within the bound.
 */
static void test_grad_value_identical(void)
{
    static const uint32_t periods[2][4] = {{5, 7, 3, 4}, {2147483659u, 1, 0xffffffffu, 1000003}};
    static const float bad_in[] = {NAN, INFINITY, -INFINITY, 3e38f, -3e38f, 1e10f};
    const int nbad = (int)(sizeof bad_in / sizeof bad_in[0]);
    int b, dims, k, i, d;
    t_rng_seed(12);
    for (b = 0; b < NBASES; b++)
        for (dims = 1; dims <= 4; dims++) {
            const struct basis *bs = &bases[b];
            double lip = bs->lip[dims - 1];
            ng_noise_pts p;
            int bad = 0;
            if (!HAS_DIMS(bs, dims) || !bs->dfn) continue;
            for (k = 0; k < 16; k++) {
                double anchor[4];
                for (d = 0; d < 4; d++)
                    anchor[d] = k % 4 == 0   ? t_rng_range(-2, 2)
                                : k % 4 == 1 ? 1e9 + t_rng_unit()
                                : k % 4 == 2 ? t_rng_range(-1e9, 1e9)
                                             : 4294967296.0 * 3 + t_rng_range(-100, 100);
                fill_random(fbuf, dims, B, -64, 64);
                for (d = 0; d < 4 && k % 8 == 7; d++) {
                    anchor[d] = floor(anchor[d]);
                    for (i = 0; i < B; i++) fbuf[d][i] = floorf(fbuf[d][i]);
                }
                p = pts(B, dims, anchor, fbuf, (uint32_t)k * 7919u);
                p.flow = (float)t_rng_unit();
                if (bs->tileable && k % 2) memcpy(p.period, periods[k / 2 % 2], sizeof p.period);
                bs->fn(&p, out1);
                bs->dfn(&p, out2, gbuf);
                CHECKF(count_diff(out1, out2, B) == 0,
                       "%s_d %dD batch %d: %d values differ from the plain kernel", bs->name,
                       dims, k, count_diff(out1, out2, B));
                if (k < 2) check_batch_split_d(bs, &p);
            }
            for (d = 0; d < 4; d++)
                for (i = 0; i < nbad; i++) fbuf[d][i] = d == 0 ? bad_in[i] : 0.5f;
            p = pts(nbad, dims, NULL, fbuf, 1);
            bs->fn(&p, out1);
            bs->dfn(&p, out2, gbuf);
            for (i = 0; i < nbad * dims; i++) bad += !(fabsf(gbuf[i]) <= lip * 1.001);
            CHECKF(count_diff(out1, out2, nbad) == 0 && bad == 0,
                   "%s_d %dD: non-finite input: values differ or %d gradients not finite",
                   bs->name, dims, bad);
        }
}

/*
 * Central differences against the gradient. The step H moves the anchor
 * (in double): the float offsets are the same bits in all three
 * evaluations, so the step the kernel sees is H up to the rounding of its
 * positions. With L the basis's gradient bound,
 *   |g - fd| <= 1e-3 L + eps/H + H^2/6 M3  [+ H/2 M2 on a kink] [+ limiter]
 * - 1e-3 L: positions. They are below 4 in magnitude (offsets within +-2
 *   of the anchor) and round by <= 2.1e-7 (lattice: anchor +- H in double,
 *   its fraction to float, plus the offset) or 5e-7 (simplex: the skew and
 *   unskew add a few roundings) per evaluation: <= 5e-4 L over 2H.
 * - eps/H: values (0.002, fast 1D, to 0.031, perlin 4D). A value at a given
 *   position is within eps of the exact field there, eps in bases[]:
 *   lattice bases scale (dims 2 Cmax (dw + 4u) + 2 Cmax u), u = 2^-24,
 *   Cmax bounding the corner terms (so 2 Cmax each blend's b - a), dw the
 *   fade's float error (1.15e-6 at most over every float in [0, 1];
 *   smoothstep 7.7e-8); simplex scale (dims + 1) |g| u ((2 dims + 6) sup
 *   t^4 r + 4 dims sup t^3 r), t = 1/2 - r^2 (the falloff's power
 *   amplifies the rounding of r^2).
 * - H^2/6 M3 (3.3e-4): Taylor's remainder where the field is C2 with
 *   bounded third derivative, |f'''| <= M3 = 2000 along an axis. Lattice
 *   bases: scale (|w'''| 2 Cmax + 3 |w''| 2 Gmax), gradient components <=
 *   Gmax, |fade'''| <= 60: 120 (value) to 360 (perlin 4D). Simplex: scale
 *   (dims + 1) |g| sup |d^3/dx^3 (1/2 - r^2)^4 (g.d)| <= 1877 (4D).
 * - Fast noise is only C1 across cell borders (smoothstep's f'' jumps):
 *   where the stencil crosses one, + H/2 M2, |f''| <= M2 = 45 (lattice
 *   bases: scale (|w''| 2 Cmax + 2 |w'| 2 Gmax), at most 40.3, flow 3D).
 * - Soft limiter y(u) (knee 0.9, y' = 1/(1+s)^2, |y''| <= 20, |y'''| <=
 *   600): a stencil that may cross the knee is C1 there, + H/2 (20 L^2 +
 *   M2); one wholly above it (|f| - L H > 0.9) is smooth with |f'''| <=
 *   600 L^3 + 60 L M2 + M3. The isotropic sets' plateau limiter (|y''|
 *   <= 5, y''' = 0 but at its two joins, 0.9 and 1.1, both C1) is within
 *   the same terms.
 * The worst sample uses 0.04-0.21 of this (the bounds assume every rounding
 * at its worst), while a slip in the derivative shows: a fade slope 3% off,
 * a falloff factor 7 for 8, the limiter's slope left out, or (most bases) a
 * gradient 1% off all fail. And every |g| <= L (0.1% for rounding): the
 * documented bound holds for the analytic gradient as for difference
 * quotients.
 */
#define FD_H 1e-3
#define FD_M3 2000.0
#define FD_M2 45.0
#define FD_N 1024

static double fd_tol(const struct basis *bs, int dims, double v, int on_kink)
{
    double L = bs->lip[dims - 1];
    double tol = 1e-3 * L + bs->eps[dims - 1] / FD_H + FD_H * FD_H / 6 * FD_M3;
    if (bs->kinked && on_kink) tol += FD_H / 2 * FD_M2;
    if ((bs->limited >> dims) & 1u) {
        if (fabs(v) - L * FD_H > 0.9)
            tol += FD_H * FD_H / 6 * (600 * L * L * L + 60 * L * FD_M2);
        else if (fabs(v) + L * FD_H >= 0.9)
            tol += FD_H / 2 * (20 * L * L + FD_M2);
    }
    return tol;
}

/* One batch: value as the plain kernel's, |g| <= L and |g - fd| within
 * fd_tol along every axis. Returns the failing samples; the worst |g - fd|
 * per tolerance and the largest |g| / L accumulate. */
static int grad_fd_batch(const struct basis *bs, const ng_noise_pts *p, double *worst,
                         double *reach)
{
    const int dims = p->dims, n = p->n;
    const double L = bs->lip[dims - 1];
    int ax, i, bad;
    bs->dfn(p, out3, gbuf);
    bs->fn(p, out1);
    bad = count_diff(out1, out3, n);
    for (ax = 0; ax < dims; ax++) {
        ng_noise_pts q = *p;
        double a = p->anchor[ax], ap = a + FD_H, am = a - FD_H, fa = a - floor(a);
        q.anchor[ax] = ap;
        bs->fn(&q, out1);
        q.anchor[ax] = am;
        bs->fn(&q, out2);
        for (i = 0; i < n; i++) {
            double g = gbuf[ax * n + i], fd = ((double)out1[i] - out2[i]) / (ap - am);
            double x = fa + p->f[ax][i]; /* relative to the anchor's cell */
            int kink = floor(x - FD_H - 1e-6) != floor(x + FD_H + 1e-6);
            double r = fabs(g - fd) / fd_tol(bs, dims, out3[i], kink);
            if (r > *worst) *worst = r;
            if (fabs(g) / L > *reach) *reach = fabs(g) / L;
            bad += !(r <= 1.0) || !(fabs(g) <= L * 1.001);
        }
    }
    return bad;
}

/*
 * Offsets within +-2 of the anchor, one axis in four right next to a
 * lattice line: at 0, 1e-7, 3e-4, H or 2H from it, either side (at H the
 * stencil ends on it). Skewed (simplex): offsets are built in skewed space
 * and unskewed; next to a skewed cell border, or to the border between two
 * simplices, where two skewed fractions are equal. Turned (isotropic
 * simplex in 2D and 3D, simplex_kernels.c's 2D and 3D ORIENTATION): the
 * lattice frame is the world's turned, in 2D by 45 degrees, q = (H (x -
 * y), H (x + y)), in 3D by NG_SIMPLEX3_TURN, q = M x, so the anchor is
 * turned before the skew and the offsets turned back (M's transpose)
 * after the unskew.
 */
static void near_lattice_points(int dims, const double *anchor, int skewed, int turned, int n)
{
    static const double deltas[] = {0, 1e-7, -1e-7, 3e-4, -3e-4, FD_H, -FD_H, 2 * FD_H, -2 * FD_H};
    static const double skew[5] = {0, 0, 0.36602540378443865, 1.0 / 3.0, 0.30901699437494742};
    static const double unskew[5] = {0, 0, 0.21132486540518712, 1.0 / 6.0, 0.13819660112501051};
    static const double turn3[3][3] = NG_SIMPLEX3_TURN;
    const double H = 0.70710678118654752;
    double F = skewed ? skew[dims] : 0, G = skewed ? unskew[dims] : 0, sum = 0, fr[4], an[4];
    int i, d;
    for (d = 0; d < dims; d++) an[d] = anchor[d];
    if (turned && dims == 2) an[0] = H * (anchor[0] - anchor[1]), an[1] = H * (anchor[0] + anchor[1]);
    if (turned && dims == 3)
        for (d = 0; d < 3; d++) an[d] = turn3[d][0] * anchor[0] + turn3[d][1] * anchor[1] + turn3[d][2] * anchor[2];
    for (d = 0; d < dims; d++) sum += an[d];
    for (d = 0; d < dims; d++) fr[d] = (an[d] + sum * F) - floor(an[d] + sum * F);
    for (i = 0; i < n; i++) {
        double v[4], vs = 0; /* skewed offsets */
        for (d = 0; d < dims; d++) {
            double u = t_rng_unit(), delta = deltas[(int)(t_rng_unit() * 9)];
            if (u < 0.25) { /* a cell border */
                v[d] = (fr[d] > 0.5 ? 1.0 : 0.0) - fr[d] + delta;
            } else if (u < 0.375 && skewed && d > 0) { /* fraction equal to axis 0's */
                double t0 = fr[0] + v[0] - floor(fr[0] + v[0]);
                v[d] = t0 - fr[d] + delta;
                v[d] += v[d] > 0.5 ? -1.0 : v[d] < -0.5 ? 1.0 : 0.0;
            } else {
                v[d] = t_rng_range(-0.75, 0.75);
            }
            vs += v[d];
        }
        for (d = 0; d < dims; d++) v[d] -= vs * G;
        if (turned && dims == 2) {
            const double q0 = v[0];
            v[0] = H * (q0 + v[1]), v[1] = H * (v[1] - q0);
        }
        if (turned && dims == 3) {
            const double q[3] = {v[0], v[1], v[2]};
            for (d = 0; d < 3; d++) v[d] = turn3[0][d] * q[0] + turn3[1][d] * q[1] + turn3[2][d] * q[2];
        }
        for (d = 0; d < dims; d++) fbuf[d][i] = (float)v[d];
    }
}

/* 100 batches of 1024 points per basis and dims: anchors near the origin,
 * at +-1e9 + u and anywhere to +-1e9, a new seed and flow angle per batch,
 * tiled (periods 3, 5, 2, 7: stencils cross the wrap) every fourth batch of
 * the tileable bases. */
static void test_grad_finite_differences(void)
{
    static const uint32_t period[4] = {3, 5, 2, 7};
    int b, dims, k, d;
    t_rng_seed(13);
    for (b = 0; b < NBASES; b++)
        for (dims = 1; dims <= 4; dims++) {
            const struct basis *bs = &bases[b];
            double worst = 0, reach = 0;
            int bad = 0;
            if (!HAS_DIMS(bs, dims) || !bs->dfn) continue;
            for (k = 0; k < 100; k++) {
                double anchor[4];
                ng_noise_pts p;
                for (d = 0; d < 4; d++)
                    anchor[d] = k % 3 == 0   ? t_rng_range(-1000, 1000)
                                : k % 3 == 1 ? (t_rng_unit() < 0.5 ? -1e9 : 1e9) + t_rng_unit()
                                             : t_rng_range(-1e9, 1e9);
                near_lattice_points(dims, anchor, bs->fn == simplex_noise || bs->fn == simplex_noise_iso,
                                    bs->fn == simplex_noise_iso && (dims == 2 || dims == 3), FD_N);
                p = pts(FD_N, dims, anchor, fbuf, (uint32_t)k * 2654435761u);
                p.flow = (float)t_rng_unit();
                if (bs->tileable && k % 4 == 3) memcpy(p.period, period, sizeof p.period);
                bad += grad_fd_batch(bs, &p, &worst, &reach);
            }
            CHECKF(bad == 0, "%s_d %dD: %d samples off (worst |g - fd| %.2f of the tolerance)",
                   bs->name, dims, bad, worst);
            /* half the bound, or where the bound is loose (floor below
             * 0.55: 4D, and the isotropic 3D and 4D sets' bounds for any unit
             * gradients times the longest) what random pairs reach less
             * 0.05: the gradients' samples are as many */
            CHECKF(reach >= fmin(0.5, bs->floor[dims - 1] - 0.05),
                   "%s_d %dD: largest |g| only %.2f of L = %g",
                   bs->name, dims, reach, bs->lip[dims - 1]);
        }
}

/*
 * The limiter's slope is in the gradient (perlin and fast 4D, flow 3D,
 * and the isotropic 2D to 4D sets, whose limiter is plateau_limit). Random samples are above the knee 2e-5
 * of the time, so points climb there: of random points (offsets +-32, 64
 * batches: flow's 2D isotropic set got 22 arrivals out of 32 batches),
 * those above 0.5 take steps of
 * 0.01 g towards larger |f| until |f| > 0.91, where the slope is (1 - 10
 * (0.91 - 0.9))^2 = 0.81: leaving it out would be off by 0.19 |g|, against
 * a tolerance of ~0.02 there. Each arrival is checked as above, in a batch
 * of its own with the integer part of its offsets moved into the anchor
 * (small offsets, as the tolerance assumes). At least 32 must arrive.
 * A sweep (T_RUN_SWEEP): 14 to 21 s a path scaled; test_grad_finite_differences
 * checks every path's gradients there.
 */
static void test_grad_soft_limit(void)
{
    int b, dims, k, it, i, d;
    t_rng_seed(14);
    for (b = 0; b < NBASES; b++)
        for (dims = 1; dims <= 4; dims++) {
            const struct basis *bs = &bases[b];
            double worst = 0, reach = 0;
            int bad = 0, above = 0;
            if (!HAS_DIMS(bs, dims) || !bs->dfn || !((bs->limited >> dims) & 1u)) continue;
            for (k = 0; k < 64; k++) {
                double anchor[4];
                ng_noise_pts p;
                int n = 0;
                for (d = 0; d < 4; d++) anchor[d] = t_rng_range(-1e4, 1e4);
                fill_random(fbuf, dims, B, -32, 32);
                p = pts(B, dims, anchor, fbuf, (uint32_t)k);
                p.flow = (float)t_rng_unit();
                bs->fn(&p, out1);
                for (i = 0; i < B; i++) /* the high ones to the front */
                    if (fabsf(out1[i]) > 0.5f) {
                        for (d = 0; d < dims; d++) fbuf[d][n] = fbuf[d][i];
                        n++;
                    }
                p.n = n;
                for (it = 0; it < 40 && n > 0; it++) {
                    bs->dfn(&p, out3, gbuf);
                    for (i = 0; i < n; i++) {
                        float step = fabsf(out3[i]) > 0.91f ? 0.0f : out3[i] > 0.0f ? 0.01f : -0.01f;
                        for (d = 0; d < dims; d++) fbuf[d][i] += step * gbuf[d * n + i];
                    }
                }
                if (n > 0) bs->fn(&p, out2);
                for (i = 0; i < n; i++) {
                    ng_noise_pts one = p;
                    if (!(fabsf(out2[i]) > 0.91f)) continue;
                    above++;
                    one.n = 1;
                    for (d = 0; d < dims; d++) {
                        float c = floorf(fbuf[d][i]);
                        one.anchor[d] = anchor[d] + c;
                        fbuf2[d][0] = fbuf[d][i] - c; /* exact */
                        one.f[d] = fbuf2[d];
                    }
                    bad += grad_fd_batch(bs, &one, &worst, &reach);
                }
            }
            CHECKF(bad == 0, "%s_d %dD above the knee: %d samples off (worst %.2f of the tolerance)",
                   bs->name, dims, bad, worst);
            CHECKF(above >= 32, "%s_d %dD: only %d points climbed above the knee", bs->name,
                   dims, above);
        }
}

/* With a period the gradient repeats with the value, bit for bit: the
 * anchor moved by 3 P on an axis, and exact offsets (2^-10 grid) moved by P. */
static void test_grad_periodic(void)
{
    static const uint32_t periods[][4] = {
        {5, 7, 3, 4}, {1, 8, 2, 6}, {2147483659u, 3, 0xffffffffu, 1000003}};
    static const double anchors[] = {0.0, -7.75, 1e9 + 0.25, 4294967296.0 * 9 + 0.125};
    int b, dims, pi, a, ax, i, d;
    t_rng_seed(15);
    for (b = 0; b < NBASES; b++)
        for (dims = 1; dims <= 4; dims++) {
            const struct basis *bs = &bases[b];
            if (!HAS_DIMS(bs, dims) || !bs->dfn || !bs->tileable) continue;
            for (pi = 0; pi < 3; pi++)
                for (a = 0; a < 4; a++)
                    for (ax = 0; ax < dims; ax++) {
                        double P = periods[pi][ax];
                        ng_noise_pts p1, p2;
                        int bad = 0;
                        fill_random(fbuf, dims, TN, -4, 4);
                        for (d = 0; d < 4; d++)
                            for (i = 0; i < TN; i++) {
                                fbuf[d][i] = floorf(fbuf[d][i] * 1024.0f) / 1024.0f;
                                fbuf2[d][i] = fbuf[d][i] + (d == ax && P <= 8 ? (float)P : 0.0f);
                            }
                        p1 = pts(TN, dims, NULL, fbuf, (uint32_t)(pi * 4 + a));
                        for (d = 0; d < 4; d++) p1.anchor[d] = anchors[a] + 0.375 * d;
                        memcpy(p1.period, periods[pi], sizeof p1.period);
                        bs->dfn(&p1, out1, gbuf);
                        p2 = p1;
                        p2.anchor[ax] += 3 * P;
                        if (p2.anchor[ax] - floor(p2.anchor[ax]) ==
                            p1.anchor[ax] - floor(p1.anchor[ax])) {
                            bs->dfn(&p2, out2, gbuf2);
                            bad += count_diff(out1, out2, TN) + count_diff(gbuf, gbuf2, dims * TN);
                        }
                        if (P <= 8) {
                            p2 = p1;
                            for (d = 0; d < 4; d++) p2.f[d] = fbuf2[d];
                            bs->dfn(&p2, out2, gbuf2);
                            bad += count_diff(out1, out2, TN) + count_diff(gbuf, gbuf2, dims * TN);
                        }
                        CHECKF(bad == 0, "%s_d %dD period %u axis %d anchor %.17g: %d bits differ",
                               bs->name, dims, periods[pi][ax], ax, anchors[a], bad);
                    }
        }
}

/*
 * The lattice hash's choices, seen through the kernels: at a lattice point
 * Perlin's (and flow's) gradient is the corner's own gradient times the
 * range scale, and value noise is the corner's value. Over a block of
 * lattice points each choice must be equally likely and a point's choice
 * independent of its neighbour's along every axis: chi-square against the
 * uniform table, within its mean + 5 standard deviations (k - 1 and
 * sqrt(2 (k - 1)) for k cells). A gradient choice from the hash's weak low
 * bits (signs from bits 0 and 1) fails by a factor of 20 to 600.
 */
#define CHOICE_MAX 128

/* Class of a gradient vector: an index into seen[] (added when new). */
static int gradient_class(const float *g, int dims, float seen[][4], int *nseen)
{
    int c, d;
    for (c = 0; c < *nseen; c++) {
        for (d = 0; d < dims; d++)
            if (fabsf(seen[c][d] - g[d]) > 1e-4f) break;
        if (d == dims) return c;
    }
    if (*nseen == CHOICE_MAX) return -1;
    for (d = 0; d < dims; d++) seen[*nseen][d] = g[d];
    return (*nseen)++;
}

static double chi_square(const long *count, int cells, long total)
{
    double e = (double)total / cells, x = 0.0;
    int c;
    for (c = 0; c < cells; c++) x += (count[c] - e) * (count[c] - e) / e;
    return x;
}

static void check_choices(const char *name, int dims, const int *cls, int side, int classes,
                          int expect_classes, uint32_t seed)
{
    long n = 1, i, *one = calloc(CHOICE_MAX, sizeof *one);
    long *two = calloc((size_t)CHOICE_MAX * CHOICE_MAX, sizeof *two);
    int d, k;
    double dof, x;
    for (d = 0; d < dims; d++) n *= side;
    CHECKF(classes == expect_classes, "%s %dD seed %u: %d distinct choices, expected %d", name,
           dims, seed, classes, expect_classes);
    for (i = 0; i < n; i++) one[cls[i]]++;
    dof = classes - 1;
    x = chi_square(one, classes, n);
    CHECKF(x < dof + 5.0 * sqrt(2.0 * dof), "%s %dD seed %u: choices not uniform, chi2 %.1f, dof %.0f",
           name, dims, seed, x, dof);
    for (d = 0; d < dims; d++) {
        long stride = 1, pairs = 0;
        for (k = 0; k < d; k++) stride *= side;
        memset(two, 0, (size_t)CHOICE_MAX * CHOICE_MAX * sizeof *two);
        for (i = 0; i < n; i++)
            if ((i / stride) % side != side - 1) {
                two[cls[i] * classes + cls[i + stride]]++;
                pairs++;
            }
        dof = (double)classes * classes - 1;
        x = chi_square(two, classes * classes, pairs);
        CHECKF(x < dof + 5.0 * sqrt(2.0 * dof),
               "%s %dD seed %u: neighbours along axis %d dependent, chi2 %.1f, dof %.0f", name, dims,
               seed, d, x, dof);
    }
    free(one);
    free(two);
}

static void test_lattice_choices(void)
{
    static const struct {
        const char *name;
        kernel_d_fn fn;
        int dims, side, classes; /* classes: gradients, or value bins */
        float flow;
    } cases[] = {
        {"perlin", perlin_noise_d, 2, 512, 8, 0.0f},   {"perlin", perlin_noise_d, 3, 64, 12, 0.0f},
        {"perlin", perlin_noise_d, 4, 24, 32, 0.0f},   {"fast", fast_noise_d, 3, 64, 12, 0.0f},
        {"flow", flow_noise_d, 3, 64, 96, 0.3f},       {"value", value_noise_d, 2, 512, 16, 0.0f},
        {"value", value_noise_d, 3, 64, 16, 0.0f},    {"perlin iso", perlin_noise_iso_d, 2, 512, 128, 0.0f},
    };
    static const uint32_t seeds[] = {1u, 0x9e3779b9u};
    size_t c, si;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (si = 0; si < 2; si++) {
            int dims = cases[c].dims, side = cases[c].side, d, nseen = 0;
            long n = 1, i;
            float *off[4], *out, *grad, seen[CHOICE_MAX][4];
            int *cls;
            ng_noise_pts p;
            for (d = 0; d < dims; d++) n *= side;
            out = malloc((size_t)n * sizeof *out);
            grad = malloc((size_t)n * dims * sizeof *grad);
            cls = malloc((size_t)n * sizeof *cls);
            memset(&p, 0, sizeof p);
            p.n = (int)n;
            p.dims = dims;
            p.seed = seeds[si];
            p.flow = cases[c].flow;
            for (d = 0; d < dims; d++) {
                long stride = 1, k;
                for (k = 0; k < d; k++) stride *= side;
                off[d] = malloc((size_t)n * sizeof *off[d]);
                for (i = 0; i < n; i++) off[d][i] = (float)((i / stride) % side);
                p.anchor[d] = -37.0 * (d + 1); /* negative cells too */
                p.f[d] = off[d];
            }
            cases[c].fn(&p, out, grad);
            for (i = 0; i < n; i++) {
                if (cases[c].fn == value_noise_d) {
                    cls[i] = (int)floorf((out[i] + 1.0f) * 8.0f); /* 16 bins of [-1, 1] */
                    if (cls[i] > 15) cls[i] = 15;
                    nseen = 16;
                } else {
                    float g[4];
                    for (d = 0; d < dims; d++) g[d] = grad[d * n + i];
                    cls[i] = gradient_class(g, dims, seen, &nseen);
                    if (cls[i] < 0) break;
                }
            }
            if (i == n)
                check_choices(cases[c].name, dims, cls, side, nseen, cases[c].classes, seeds[si]);
            else
                CHECKF(0, "%s %dD: more than %d distinct gradients", cases[c].name, dims, CHOICE_MAX);
            for (d = 0; d < dims; d++) free(off[d]);
            free(out);
            free(grad);
            free(cls);
        }
}

/* ng_noise_pts.scale multiplies the offsets inside the kernel exactly as
 * a caller multiplying the arrays would: the same bits for every basis and
 * dims, plain and _d, tiled or not (the noise node relies on it to skip a
 * pass over the positions). */
static void test_offset_scale_is_a_multiply(void)
{
    static const float scales[4] = {0.02f, 3.7f, -0.5f, 1.0f / 3.0f};
    static const double anchor[4] = {12.25, -3.5, 1e9 + 0.37, 7.0};
    int b, dims, d, i;
    t_rng_seed(77);
    fill_random(fbuf, 4, B, -300, 300);
    for (d = 0; d < 4; d++)
        for (i = 0; i < B; i++) fbuf2[d][i] = fbuf[d][i] * scales[d];
    for (b = 0; b < NBASES; b++)
        for (dims = 1; dims <= 4; dims++) {
            ng_noise_pts p1, p2;
            int tiled;
            if (!HAS_DIMS(&bases[b], dims)) continue;
            for (tiled = 0; tiled <= bases[b].tileable; tiled++) {
                p1 = pts(B, dims, anchor, fbuf2, 5u);
                p2 = pts(B, dims, anchor, fbuf, 5u);
                memcpy(p2.scale, scales, sizeof scales);
                for (d = 0; d < 4 && tiled; d++) p1.period[d] = p2.period[d] = 6u + (uint32_t)d;
                bases[b].fn(&p1, out1);
                bases[b].fn(&p2, out2);
                CHECKF(count_diff(out1, out2, B) == 0, "%s %dD%s: scaled offsets differ in %d samples",
                       bases[b].name, dims, tiled ? " tiled" : "", count_diff(out1, out2, B));
                if (bases[b].dfn) {
                    bases[b].dfn(&p1, out1, gbuf);
                    bases[b].dfn(&p2, out2, gbuf2);
                    CHECKF(count_diff(out1, out2, B) == 0 && count_diff(gbuf, gbuf2, dims * B) == 0,
                           "%s_d %dD%s: scaled offsets differ", bases[b].name, dims, tiled ? " tiled" : "");
                }
            }
        }
    {
        ng_noise_pts p1 = pts(B, 2, anchor, fbuf2, 5u), p2 = pts(B, 2, anchor, fbuf, 5u);
        memcpy(p2.scale, scales, sizeof scales);
        p1.period[0] = p2.period[0] = 8u;
        p1.period[1] = p2.period[1] = 5u;
        simplex_tiled2(&p1, out1);
        simplex_tiled2(&p2, out2);
        CHECKF(count_diff(out1, out2, B) == 0, "simplex_tiled2: scaled offsets differ");
    }
}

/* Every loop of the path's table (loops.h) gives the scalar path's bits,
 * on values with NaN, infinities, zeros of both signs and an odd count. */
static void test_loops_same_bits_as_scalar(void)
{
    enum { N = 1003 };
    static float x[N], y[N], t[N], init[N], o1[N], o2[N], s1[N], s2[N];
    const ng_loops *ref = &ng__path_at(0, NULL)->loops;
    int i;
    t_rng_seed(77);
    for (i = 0; i < N; i++) {
        x[i] = (float)t_rng_range(-2, 2), y[i] = (float)t_rng_range(-2, 2);
        t[i] = (float)t_rng_range(-0.5, 1.5), init[i] = (float)t_rng_range(0, 1);
    }
    x[0] = NAN, x[1] = INFINITY, x[2] = -INFINITY, x[3] = -0.0f, x[4] = 0.0f, y[5] = 0.0f, y[6] = NAN;
#define BOTH(call)                                                                                            \
    do {                                                                                                      \
        const ng_loops *P = &t_path->loops;                                                                  \
        float *o = o1, *st = s1;                                                                              \
        memcpy(o1, init, sizeof o1), memcpy(s1, init, sizeof s1);                                             \
        call;                                                                                                 \
        P = ref, o = o2, st = s2;                                                                             \
        memcpy(o2, init, sizeof o2), memcpy(s2, init, sizeof s2);                                             \
        call;                                                                                                 \
        (void)st;                                                                                             \
        CHECKF(!memcmp(o1, o2, sizeof o1) && !memcmp(s1, s2, sizeof s1), "%s", #call);                       \
    } while (0)
    BOTH(P->add(o, x, y, N));
    BOTH(P->sub(o, x, y, N));
    BOTH(P->mul(o, x, y, N));
    BOTH(P->div(o, x, y, N));
    BOTH(P->min(o, x, y, N));
    BOTH(P->max(o, x, y, N));
    BOTH(P->neg(o, x, N));
    BOTH(P->abs(o, x, N));
    BOTH(P->invert(o, x, N));
    BOTH(P->sqrt0(o, x, N));
    BOTH(P->fill(o, 0.3f, N));
    BOTH(P->clamp(o, x, -0.5f, 0.7f, N));
    BOTH(P->step(o, x, 0.1f, N));
    BOTH(P->smoothstep(o, x, -0.5f, 0.8f, N));
    BOTH(P->mix(o, x, y, t, N));
    BOTH(P->select(o, x, y, t, 0.4f, N));
    BOTH(P->sub_scale(o, x, y, 0.7f, N));
    BOTH(P->offset(o, x, 1e9 + 0.25, N));
    BOTH(P->axpy(o, x, 0.6f, N));
    BOTH(P->axpy_masked(o, t, 0.6f, x, N));
    BOTH(P->scale(o, x, 1.7f, N));
    BOTH(P->scale_bias(o, x, 1.7f, -0.2f, N));
    for (i = 0; i < 4; i++) { /* first octave or not, last (normalising) or not */
        BOTH(P->acc_billow(o, x, 0.5f, i & 1, i & 2 ? 0.3f : 0.0f, N));
        BOTH(P->acc_terrain(o, x, 0.5f, 0.25f, i & 1, i & 2 ? 0.3f : 0.0f, N));
        BOTH(P->acc_hybrid(o, st, x, 0.5f, 0.7f, 1.3f, i & 1, i & 2 ? 0.3f : 0.0f, N));
        BOTH(P->acc_ridged(o, st, x, 0.5f, 0.8f, 2.5f, i & 1, i & 2 ? 0.3f : 0.0f, N));
    }
    BOTH(P->displace(o, x, y, 0.3f, t, -0.2f, N));
    BOTH(P->puff(o, t, 0.4f, 0.9f, N));
    for (i = 0; i < 3; i++) BOTH(P->acc_distance(o, x, -3.5, i, N));
#undef BOTH
}

/* Every basis of the families tested here (bases.h) has its row of data
 * above, so a basis added to the list is tested or this fails. */
static void test_every_basis_has_data(void)
{
#define BASIS_NAME(F, ID, id, name, ...) name,
    static const char *const listed[] = {NG_BASES_LATTICE(BASIS_NAME, ~) NG_BASES_SIMPLEX(BASIS_NAME, ~)
                                             NG_BASES_WHITE(BASIS_NAME, ~)};
#undef BASIS_NAME
    size_t k;
    int b, found, plain = 0;
    for (k = 0; k < sizeof listed / sizeof listed[0]; k++) {
        for (found = 0, b = 0; b < NBASES; b++) found |= strcmp(bases[b].name, listed[k]) == 0;
        CHECKF(found, "basis %s has no test data in test_kernels.c", listed[k]);
    }
    for (b = 0; b < NBASES; b++) plain += !strstr(bases[b].name, " iso"); /* the isotropic rows are extra */
    CHECK_INT(plain, (int)(sizeof listed / sizeof listed[0]));
}

/* ---- fused multiply-adds on every path ---------------------------------------------------------
 * Every SIMD path computes the same fused multiply-adds (hardware FMA on
 * avx2/avx512, libm's correctly rounded fmaf elsewhere), so a field is the
 * same bits on every path: checked against a reference written out here
 * with fmaf, one rounding per fused step. */

#define FMA_N 4096

static float fma_off[FMA_N], fma_out[FMA_N];

/* Offsets in [-40, 40) around a far anchor, so fractions of every size and
 * cells on both sides of 0 are met. */
static ng_noise_pts points_1d(double anchor, uint32_t seed)
{
    ng_noise_pts p;
    int i;
    t_rng_seed(14);
    for (i = 0; i < FMA_N; i++) fma_off[i] = (float)t_rng_range(-40.0, 40.0);
    memset(&p, 0, sizeof p);
    p.n = FMA_N;
    p.dims = 1;
    p.seed = seed;
    p.anchor[0] = anchor;
    p.f[0] = fma_off;
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
    const float x = (float)(a - c) + fma_off[i], fl = floorf(x);
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
    ng__kernel(t_path, NG_BASIS_VALUE)(&p, fma_out);
    for (i = 0; i < FMA_N; i++) {
        uint32_t c;
        const float t = fraction(&p, i, &c);
        const float v0 = ((float)(corner_hash(9u, c) >> 8) - 8388607.5f) * k;
        const float v1 = ((float)(corner_hash(9u, c + 1u) >> 8) - 8388607.5f) * k;
        const float want = fmaf(fade_ref(t), v1 - v0, v0);
        if (memcmp(&want, &fma_out[i], sizeof want)) bad++, first = first < 0 ? i : first;
    }
    CHECKF(bad == 0, "%d of %d samples differ from the fused reference (first at %d)", bad, FMA_N, first);
}

/* Perlin 1D: the same blend of the two gradient terms, then the range scale. */
static void test_perlin_blend_is_fused_on_every_path(void)
{
    const float scale = 1.99980002f; /* lattice_kernels.c: perlin_scale[0] */
    ng_noise_pts p = points_1d(-7.0e5 + 0.8125, 3u);
    int i, bad = 0, first = -1;
    ng__kernel(t_path, NG_BASIS_PERLIN)(&p, fma_out);
    for (i = 0; i < FMA_N; i++) {
        uint32_t c;
        const float t = fraction(&p, i, &c);
        const float g0 = ng_hash_signed(corner_hash(3u, c)) * t;
        const float g1 = ng_hash_signed(corner_hash(3u, c + 1u)) * (t - 1.0f);
        const float want = fmaf(fade_ref(t), g1 - g0, g0) * scale;
        if (memcmp(&want, &fma_out[i], sizeof want)) bad++, first = first < 0 ? i : first;
    }
    CHECKF(bad == 0, "%d of %d samples differ from the fused reference (first at %d)", bad, FMA_N, first);
}

/* Every path gives the widest path's bits (the paths are one C source,
 * compiled per path: kernels.h): every basis and gradient set, value and
 * _d forms, 1D to 4D, near and far anchors, with and without a period,
 * scaled and turned offsets, at batch sizes that leave each path's tail.
 * Under the sanitizers and qemu the other paths run this alone, and the
 * widest path every test: a test's conclusions, drawn on the widest path,
 * hold on a path with its bits (the suite ran every test on every path
 * there: 190 s under SAN, 197 s under qemu, the scalar path's most of it).
 * The optimised run still runs every test on every path. */
static void test_paths_agree(void)
{
    static const double anchors[] = {0.0, 1e9 + 0.5, -123456789.25};
    static const uint32_t period[4] = {3, 5, 7, 2};
    const int sizes[] = {SANITIZED ? 253 : EMULATED ? 131 : 1021, 7}; /* odd: every path has a tail */
    const ng_path *ref = t_widest_path(), *mine = t_path;
    int b, dims, a, v, z, i, d;
    t_rng_seed(21);
    for (b = 0; b < NBASES; b++)
        for (dims = 1; dims <= 4; dims++)
            for (a = 0; a < 3; a++)
                for (v = 0; v < 4; v++) /* plain, period, scaled, turned */
                    for (z = 0; z < 2; z++) {
                        const struct basis *bs = &bases[b];
                        const int n = sizes[z], lattice = bs->tileable && bs->fn != white_noise;
                        const double an[4] = {anchors[a], -anchors[a] + 0.75, anchors[a] * 0.5, 7.0};
                        ng_noise_pts p;
                        int differ = 0, gdiffer = 0;
                        if (!HAS_DIMS(bs, dims) || (v == 1 && !bs->tileable) || (v == 3 && (!lattice || dims < 2)))
                            continue;
                        fill_random(fbuf, dims, n, -64, 64);
                        p = pts(n, dims, an, fbuf, 977u * (uint32_t)b + (uint32_t)(a * 4 + v));
                        p.flow = (float)t_rng_unit();
                        if (v == 1) memcpy(p.period, period, sizeof p.period);
                        for (d = 0; v == 2 && d < 4; d++) p.scale[d] = 0.375f * (float)(d + 1);
                        if (v == 3) { /* an octave's turn: a rotation about z, then x */
                            const float c = 0.6f, s = 0.8f;
                            p.turn_axes = dims >= 3 ? 3 : dims;
                            p.turn[0][0] = c, p.turn[0][1] = -s * c, p.turn[0][2] = s * s;
                            p.turn[1][0] = s, p.turn[1][1] = c * c, p.turn[1][2] = -c * s;
                            p.turn[2][0] = 0, p.turn[2][1] = s, p.turn[2][2] = c;
                        }
                        bs->fn(&p, out1);
                        if (bs->dfn) bs->dfn(&p, out3, gbuf);
                        t_path = ref;
                        bs->fn(&p, out2);
                        if (bs->dfn) bs->dfn(&p, out3 + n, gbuf2);
                        t_path = mine;
                        differ = count_diff(out1, out2, n);
                        if (bs->dfn) gdiffer = count_diff(out3, out3 + n, n) + count_diff(gbuf, gbuf2, dims * n);
                        CHECKF(differ == 0 && gdiffer == 0,
                               "%s %dD anchor %g case %d, %d points: %d values, %d of the _d form's differ from the %s path's",
                               bs->name, dims, anchors[a], v, n, differ, gdiffer, ref->name);
                    }
    for (i = 0; i < 2; i++) { /* simplex 2D tiled (through 4D on a torus) */
        const double an[4] = {anchors[i + 1], 0.25, 0, 0};
        ng_noise_pts p;
        fill_random(fbuf, 2, sizes[i], -64, 64);
        p = pts(sizes[i], 2, an, fbuf, 5u);
        memcpy(p.period, period, sizeof p.period);
        simplex_tiled2(&p, out1);
        t_path = ref;
        simplex_tiled2(&p, out2);
        t_path = mine;
        CHECKF(count_diff(out1, out2, sizes[i]) == 0, "simplex tiled 2D: values differ from the %s path's", ref->name);
    }
}

static void kernel_tests(void)
{
    if (t_path != t_widest_path()) T_RUN(test_paths_agree);
    if (SCALED && t_path != t_widest_path()) return;
    T_RUN(test_every_basis_has_data);
    T_RUN_SWEEP(test_range);
    T_RUN(test_perlin_zero_on_lattice);
    T_RUN_SWEEP(test_continuity);
    T_RUN(test_determinism_and_seed);
    T_RUN_SWEEP(test_far_origin_not_blocky);
    T_RUN(test_far_field_is_translate);
    T_RUN(test_nonfinite_positions);
    T_RUN(test_unsupported_dims);
    T_RUN(test_flow_loops);
    T_RUN(test_flow_continuity);
    T_RUN(test_white_flat_uncorrelated);
    T_RUN(test_white_grid);
    T_RUN(test_tiling);
    T_RUN(test_tiled_range);
    T_RUN(test_simplex_tiled2);
    T_RUN(test_grad_value_identical);
    T_RUN_SWEEP(test_grad_finite_differences);
    T_RUN_SWEEP(test_grad_soft_limit);
    T_RUN(test_grad_periodic);
    T_RUN_SWEEP(test_lattice_choices);
    T_RUN(test_offset_scale_is_a_multiply);
    T_RUN(test_loops_same_bits_as_scalar);
    T_RUN(test_value_blend_is_fused_on_every_path);
    T_RUN(test_perlin_blend_is_fused_on_every_path);
}

NG_SUITE(kernels, full) { t_on_every_path("kernels", kernel_tests); }
