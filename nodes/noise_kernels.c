/*
 * noise_kernels.c — the lattice bases over a batch of points: value,
 * improved Perlin (Perlin 2002, quintic fade), fast (our cheaper gradient
 * noise), Perlin flow noise (Perlin & Neyret 2001), simplex (Perlin 2001,
 * as explained by Gustavson) and white noise, 1D to 4D where the basis
 * allows, with tileable lattices, and the smooth bases' analytic gradients
 * (the _d forms: one body per basis computes both, the value the same bits
 * either way). Written from the published algorithms.
 *
 * Every kernel is one straight loop over the arrays with no per-point calls
 * or branches beyond selects, so the compiler can if-convert and vectorise
 * it. All per-point arithmetic is float; double work is splitting the
 * anchor once per call (and the scalar torus mapping of tiled simplex).
 * Build with -ffp-contract=off: the same bits on every machine and SIMD
 * width.
 *
 * Ranges: each basis's true maximum over all gradient configurations was
 * found numerically (dense grid over one cell, then pattern-search ascent
 * from the best 200 grid points and 200 random starts; for flow noise also
 * over the rotation angle). For a fixed point every corner's term depends
 * only on that corner's gradient and is weighted by a non-negative falloff,
 * so the maximum over all configurations is the sum of per-corner maxima;
 * the search runs over position only. The same holds for d/dx, which gives
 * the gradient bounds quoted per basis (after scaling; the gradient sets
 * are symmetric under axis swaps, so every axis has the same bound). Scales
 * are 1 / (max * 1.0001): the 1e-4 margin absorbs float rounding, far above
 * its size (~1e-6), and keeps coverage. Where the true maximum needs a
 * gradient configuration too rare to be met (see SOFT LIMIT below) the
 * scale is statistical and a soft limiter keeps the bound.
 */
#include "noise_kernels.h"
#include "bits.h"

#include <math.h>
#include <string.h>

/* Helpers called inside the loops must be inlined or the loop cannot
 * vectorise; the bigger ones are marked so clang does not decline. The
 * kernel bodies are marked too: each is instantiated with constant dims,
 * kind and tiling, and inlining is what folds those away. */
#define LOOP_INLINE static inline __attribute__((always_inline))

/* Loops over axes and corners have constant trip counts in every
 * instantiation: unrolled first, so the vectoriser works on the loop over
 * points rather than on them. */
#if defined(__clang__)
#define UNROLL _Pragma("clang loop unroll(full)")
#else
#define UNROLL _Pragma("GCC unroll 16")
#endif

/* ---- positions ------------------------------------------------------------
 * Per-point positions are clamped to |x| <= 2^30 so the float -> int32 cell
 * conversion is defined for any input; NaN and infinities map to +-2^30.
 * Nothing is lost: floats there are 128 lattice units apart. */
#define POS_LIMIT_BITS 0x4e800000u /* 2^30 as a float */

/*
 * One axis of the anchor, split once per call. Untiled, the lattice wraps
 * mod 2^32 and a point's cell is cell + i. Tiled, cell is floor(anchor) mod
 * period and a point's cell is (cell + i) mod period, computed in double
 * with a reciprocal (no division, and vectorisable). An axis without a
 * period in a tiled call uses period 2^32, which is exactly the untiled
 * lattice.
 */
typedef struct axis {
    uint32_t cell; /* floor(anchor) mod 2^32, or mod period when tiled */
    float frac;    /* anchor - floor(anchor), in [0, 1] */
    /* tiled only */
    double bias;   /* cell + a multiple of period >= 2^30: cell + i + ... >= 0 */
    double period; /* period, or 2^32 */
    double inv;    /* 1 / period */
    uint32_t end;  /* period mod 2^32: the cell after period - 1 is 0 */
} axis;

static axis split_axis(double a, uint32_t period)
{
    axis r;
    double c, m, pd = period ? (double)period : 4294967296.0;
    if (!isfinite(a)) a = 0.0; /* defined garbage rather than undefined behaviour */
    c = floor(a);
    r.frac = (float)(a - c);
    /* fmod is exact; an integral double mod pd lies in (-pd, pd), so the
     * conversion below is defined. */
    m = fmod(c, pd);
    if (m < 0.0) m += pd;
    r.cell = (uint32_t)(int64_t)m;
    r.period = pd;
    r.inv = 1.0 / pd;
    r.bias = m + ceil(1073741824.0 / pd) * pd;
    r.end = (uint32_t)(int64_t)fmod(pd, 4294967296.0);
    return r;
}

static inline float pos(float frac, float off)
{
    uint32_t u = f2u(frac + off), mag = u & 0x7fffffffu;
    mag = mag < POS_LIMIT_BITS ? mag : POS_LIMIT_BITS; /* magnitudes order as integers */
    return u2f((u & 0x80000000u) | mag);
}

/* floor for |x| <= 2^30 without libm, so the loop stays vectorisable. */
static inline int32_t floor_i32(float x)
{
    int32_t i = (int32_t)x;
    return i - (int32_t)(x < (float)i);
}

/*
 * (cell + i) mod period for |i| <= 2^30. x = cell + i + k period is a
 * non-negative integer below 2^35, so every double here is an exact integer
 * except x / period, whose rounding (2^-17 at most) cannot move the nearest
 * integer q by more than one: r = x - q period is exact and within half a
 * period of 0, and one correction brings it into [0, period). Adding and
 * subtracting 2^52 rounds to an integer without libm (the rounding mode is
 * the default, nearest).
 */
static inline uint32_t wrap_cell(const axis *a, int32_t i)
{
    const double round = 4503599627370496.0; /* 2^52 */
    double x = (double)i + a->bias;
    double q = (x * a->inv + round) - round;
    double r = x - q * a->period;
    r += r < 0.0 ? a->period : 0.0;
    /* r < 2^32: shift into the int32 range for the conversion */
    return (uint32_t)(int32_t)(r - 2147483648.0) + 0x80000000u;
}

/* The per-point half of the anchor split: the fraction within the cell,
 * the cell's lattice coordinate and the next one along the axis. */
LOOP_INLINE float lattice_cell(const axis *a, float off, int tiled, uint32_t *c0, uint32_t *c1)
{
    float x = pos(a->frac, off);
    int32_t i = floor_i32(x);
    if (tiled) {
        uint32_t n;
        *c0 = wrap_cell(a, i);
        n = *c0 + 1u;
        *c1 = n & (0u - (uint32_t)(n != a->end));
    } else {
        *c0 = a->cell + (uint32_t)i;
        *c1 = *c0 + 1u;
    }
    return x - (float)i;
}

/* Untiled cell only (simplex, white). */
static inline float cell_of(const axis *a, float off, uint32_t *cell)
{
    uint32_t next;
    return lattice_cell(a, off, 0, cell, &next);
}

/* 6t^5 - 15t^4 + 10t^3: C2 at cell borders; fade(0) = 0 and fade(1) = 1
 * exactly, which keeps Perlin exactly 0 on the lattice. */
static inline float fade(float t)
{
    return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f);
}

/* 3t^2 - 2t^3: C1, two multiplies cheaper; 0 and 1 exactly at the ends. */
static inline float smooth(float t)
{
    return t * t * (3.0f - 2.0f * t);
}

/* Their derivatives, from t and t1 = t - 1: fade' = 30 t^2 (t - 1)^2 (0 at
 * both ends, hence C1 with zero slope across cell borders), smooth' =
 * 6 t (1 - t). */
static inline float fade_slope(float t, float t1)
{
    float u = t * t1;
    return 30.0f * u * u;
}

static inline float smooth_slope(float t, float t1)
{
    return -6.0f * t * t1;
}

static inline float lerp(float a, float b, float t)
{
    return a + t * (b - a);
}

/* ---- corner hashes ----------------------------------------------------------
 * h[k] for the 2^dims corners of a cell, bit d of k = the +1 corner on axis
 * d, by ng_lattice_hash; lo[d] and hi[d] are the two cells' coordinates
 * already multiplied by the axis prime. The choices made from its bits are
 * uniform and independent between neighbours (test_lattice_choices in
 * tests/test_kernels.c, which fails by a factor 200 if, say, grad12 took its
 * signs from bits 0 and 1).
 */
static const uint32_t lattice_prime[4] = {NG_LATTICE_PRIME_X, NG_LATTICE_PRIME_Y,
                                          NG_LATTICE_PRIME_Z, NG_LATTICE_PRIME_W};

LOOP_INLINE void lattice_corners(int dims, uint32_t s, const uint32_t *lo, const uint32_t *hi,
                                 uint32_t *h)
{
    int d, k;
    UNROLL
    for (k = 0; k < 16; k++) /* constant trip counts unroll in every compiler */
        if (k < 1 << dims) {
            uint32_t v = s;
            UNROLL
            for (d = 0; d < 4; d++)
                if (d < dims) v ^= (k >> d) & 1 ? hi[d] : lo[d];
            h[k] = ng_lattice_hash(v);
        }
}

/* ---- gradients ----------------------------------------------------------------
 * Blends rather than tables, which would need a gather. Hash bits from 16
 * up (see ng_lattice_hash). */

/* bit b of h set ? -x : x: the bit shifted to the sign and xor-ed in (a
 * shift and one ternary-logic instruction on AVX-512). */
static inline float flip_bit(float x, uint32_t h, int b)
{
    return u2f(f2u(x) ^ ((h << (31 - b)) & 0x80000000u));
}

/* 8 unit gradients in 2D: the 4 axis and the 4 diagonal directions. The top
 * three hash bits pick one. */
static inline float grad8(uint32_t h, float x, float y)
{
    uint32_t b0 = (h >> 29) & 1u, b2 = h >> 31;
    float along = flip_bit(select_f(b0, y, x), h, 30);
    float diag = (flip_bit(x, h, 29) + flip_bit(y, h, 30)) * 0.70710678f;
    return select_f(b2, diag, along);
}

/* Perlin's 12 cube-edge gradients, chosen uniformly (not Perlin's h & 15
 * with four repeats, which over-weights four directions): the hash's thirds
 * pick the pair of axes (xy, xz, yz; two compares, uniform within 2^-32),
 * bits 20 and 21 the two signs. EDGE_XY and EDGE_XZ end the first two
 * thirds. Used as u = x unless yz, v = y if xy else z. */
#define EDGE_XY 0x55555556u
#define EDGE_XZ 0xaaaaaaabu

static inline float grad12(uint32_t h, float x, float y, float z)
{
    float u = select_f(h < EDGE_XZ, x, y);
    float v = select_f(h < EDGE_XY, y, z);
    return flip_bit(u, h, 20) + flip_bit(v, h, 21);
}

/* The 32 edge midpoints of the 4D hypercube: three components +-1, one 0.
 * Top five hash bits: two choose the zero axis, three the signs. */
static inline float grad32(uint32_t h, float x, float y, float z, float w)
{
    uint32_t zero = h >> 30;
    float a = select_f(zero == 0u, y, x);
    float b = select_f(zero <= 1u, z, y);
    float c = select_f(zero == 3u, z, w);
    return flip_bit(a, h, 27) + flip_bit(b, h, 28) + flip_bit(c, h, 29);
}

/* ---- the lattice bases ------------------------------------------------------
 * Value, Perlin, fast and flow share one body per dims: hash the corners,
 * take each corner's value or gradient term, blend with the faded fraction.
 * kind and tiled are constants in every instantiation.
 */
enum { K_VALUE, K_PERLIN, K_FAST, K_FLOW };

/* Flow rotation, shared by every gradient of a call: cos and sin of
 * 2 pi frac(flow), computed once in double so flow and flow + 1 are the
 * same bits. s3 and c3 fold Rodrigues' constants for the 3D axes. */
typedef struct rotation {
    float c, s, s3, c3;
} rotation;

static rotation flow_rotation(float flow)
{
    rotation r;
    double t = (double)flow, a;
    if (!isfinite(t)) t = 0.0;
    t -= floor(t);
    a = 6.283185307179586 * t;
    r.c = (float)cos(a);
    r.s = (float)sin(a);
    r.s3 = (float)(sin(a) / sqrt(3.0));
    r.c3 = (float)((1.0 - cos(a)) / 3.0);
    return r;
}

/*
 * 3D flow gradient: edge gradient g rotated about axis a = sigma / sqrt(3),
 * sigma one of the 8 cube diagonals (+-1, +-1, +-1) picked by three hash
 * bits, by Rodrigues' formula
 *   R g . d = cos (g . d) + sin (a . (g x d)) + (1 - cos) (a . g) (a . d).
 * Opposite axes turn the gradient opposite ways, so neighbouring gradients
 * swirl in different directions as flow advances.
 */
LOOP_INLINE float flow_grad3(uint32_t h, float x, float y, float z, const rotation *r)
{
    /* g = grad12's edge: u picks x unless yz, v picks y if xy else z */
    uint32_t xy = h < EDGE_XY, notyz = h < EDGE_XZ;
    float one0 = flip_bit(1.0f, h, 20), one1 = flip_bit(1.0f, h, 21);
    float gx = select_f(notyz, one0, 0.0f);
    float gy = select_f(notyz, select_f(xy, one1, 0.0f), one0);
    float gz = select_f(xy, 0.0f, one1);
    /* the rotation axis's signs: bits 17 to 19 */
    float gd = gx * x + gy * y + gz * z;
    float ag = flip_bit(gx, h, 17) + flip_bit(gy, h, 18) + flip_bit(gz, h, 19);
    float ad = flip_bit(x, h, 17) + flip_bit(y, h, 18) + flip_bit(z, h, 19);
    float cx = gy * z - gz * y, cy = gz * x - gx * z, cz = gx * y - gy * x;
    float acx = flip_bit(cx, h, 17) + flip_bit(cy, h, 18) + flip_bit(cz, h, 19);
    return r->c * gd + r->s3 * acx + r->c3 * ag * ad;
}

/* Lattice values uniform in [-(1 - 2^-20), 1 - 2^-20]: the shrink covers the
 * few ulps of rounding in the nested lerps. */
#define VALUE_SHRINK 0.99999904632568359375f /* 1 - 2^-20 */

static inline float lattice_value(uint32_t h)
{
    return ng_hash_signed(h) * VALUE_SHRINK;
}

/* One corner's term: d[] is the point minus the corner. */
LOOP_INLINE float corner_term(int dims, int kind, uint32_t h, const float *d, const rotation *r)
{
    if (kind == K_VALUE) return lattice_value(h);
    switch (dims) {
    case 1: return ng_hash_signed(h) * d[0];
    case 2:
        if (kind == K_FLOW) return grad8(h, r->c * d[0] + r->s * d[1], r->c * d[1] - r->s * d[0]);
        return grad8(h, d[0], d[1]);
    case 3:
        if (kind == K_FLOW) return flow_grad3(h, d[0], d[1], d[2], r);
        return grad12(h, d[0], d[1], d[2]);
    default: return grad32(h, d[0], d[1], d[2], d[3]);
    }
}

/* d(corner term)/d(d[e]) for a gradient kind: the term is linear in d, so
 * this is the term at the unit vector along e (the float expressions give
 * the components exactly: +-1, 0, +-0.70710678f or the rotated ones). */
LOOP_INLINE float corner_slope(int dims, int kind, uint32_t h, int e, const rotation *r)
{
    float u[4];
    int d;
    UNROLL
    for (d = 0; d < 4; d++) u[d] = d == e ? 1.0f : 0.0f;
    return corner_term(dims, kind, h, u, r);
}

/*
 * SOFT LIMIT. In 4D (16 corners) and for 3D flow (96 rotated gradients per
 * corner) the true maximum needs nearly every corner's gradient to point at
 * the sample, which random samples never see: over 2^25 of them the largest
 * values reached 0.80 (perlin 4D), 0.77 (fast 4D) and 0.90 (flow 3D) of the
 * true maximum, so scaled by it these fields would use about 75% of
 * [-1, 1]. They are instead scaled by the value that 1 sample in 10^6
 * exceeds (1.10, 1.08, 0.965 unscaled) and pass through
 *   y = x                               for |x| <= 0.9,
 *   y = sign(x) (0.9 + 0.1 s / (1 + s)) for s = (|x| - 0.9) / 0.1 > 0,
 * which is odd, monotone, C1 with slope <= 1 (gradient bounds carry over)
 * and below 1 for every input, so the range holds for any configuration:
 * the true maxima land at 0.983, 0.984 and 0.975. 2e-5 to 4e-5 of
 * samples are above the knee.
 */
#define SOFT_KNEE 0.9f

/* The limiter and its slope dy/dx = 1 / (1 + s)^2: the cut 0.1 s^2 / (1 + s)
 * has d/d|x| = 10 * 0.1 (2 s + s^2) / (1 + s)^2 = 1 - 1 / (1 + s)^2. */
static inline float soft_limit(float x, float *slope)
{
    float ax = u2f(f2u(x) & 0x7fffffffu);
    uint32_t e = f2u(ax - SOFT_KNEE);
    float s = u2f(e & ((e >> 31) - 1u)) * 10.0f; /* max(|x| - knee, 0) / (1 - knee) */
    float cut = (1.0f - SOFT_KNEE) * s * s / (1.0f + s);
    float s1 = 1.0f + s;
    *slope = 1.0f / (s1 * s1);
    return x - u2f(f2u(cut) | (f2u(x) & 0x80000000u));
}

/*
 * Scales per dims (index dims - 1); 0 = no such kernel. Maxima unscaled,
 * gradient bounds |d/dx| after scaling (tabled in noise_kernels.h):
 * perlin 1D: gradients uniform in [-1, 1]: max 0.5 at t = 0.5 (g = 1, -1),
 *            d/dx 1.3471506 unscaled at t = 0.7887.
 * perlin 2D, 8 unit gradients: max 0.70710678 = sqrt(2)/2 at the cell
 *            centre (exact); d/dx 2.0027450 unscaled.
 * perlin 3D, 12 edge gradients: max 1.0363538 at (0.5, 0.6447, 0.4815) and
 *            its mirror images; d/dx 3.75 unscaled (at the centre).
 * perlin 4D, 32 edge gradients: max 1.5365823 near (0.48, 0.49, 0.5,
 *            0.36); d/dx 5.625 unscaled (centre). Soft-limited.
 * fast (smoothstep fade, same gradient sets):
 *   1D max 0.5, d/dx sqrt(2) unscaled; 2D max 0.70710678, d/dx 1.6793786;
 *   3D max 1.0449052, d/dx 3.0; 4D max 1.5451999, d/dx 4.5. 4D soft-limited.
 * flow 2D: max over all angles 0.70710678, at multiples of 45 degrees
 *            where the gradient set is Perlin's (0.6608 at 22.5 degrees);
 *            d/dx 2.0671221 unscaled at 22.5 degrees.
 * flow 3D: max over angles 1.1641266 near 2.6455 rad; d/dx 3.8898485 near
 *            1.3225 rad. Soft-limited.
 */
static const float perlin_scale[4] = {
    1.99980002f, /* 1 / (0.5 * 1.0001) */
    1.4140722f,  /* 1 / (0.70710678 * 1.0001) */
    0.96482495f, /* 1 / (1.0363538 * 1.0001) */
    0.90909091f, /* soft-limited: 1 / 1.10 */
};
static const float fast_scale[4] = {
    1.99980002f, /* 1 / (0.5 * 1.0001) */
    1.4140722f,  /* 1 / (0.70710678 * 1.0001) */
    0.95692893f, /* 1 / (1.0449052 * 1.0001) */
    0.92592593f, /* soft-limited: 1 / 1.08 */
};
static const float flow_scale[4] = {
    0.0f,
    1.4140722f, /* 1 / (0.70710678 * 1.0001) */
    1.0362694f, /* soft-limited: 1 / 0.965 */
    0.0f,
};

/* Which (kind, dims) pass through soft_limit. */
static inline int soft_limited(int kind, int dims)
{
    return (dims == 4 && kind != K_VALUE) || (dims == 3 && kind == K_FLOW);
}

/*
 * One body for the plain kernels and their _d forms: deriv is a constant in
 * every instantiation, so the plain ones compile to the value path alone.
 * The value expressions are the same in both, hence the same bits.
 *
 * Derivatives: the blend along axis d is lerp(a, b, w(t_d)), a and b the
 * blends of the two faces, so its partial along e is lerp(a_e, b_e, w) plus,
 * for e = d, w'(t_d) (b - a); the corners' partials (a_e at the start) are
 * the gradient components, zero for value noise (there a partial along e
 * only appears at blend level e). The point's fraction moves with the
 * noise-space position (dt/dx = 1); the range scale and the limiter's slope
 * multiply at the end.
 */
LOOP_INLINE void lattice(const ng_noise_pts *p, float *out, float *gx, float *gy, float *gz,
                         float *gw, int dims, int kind, int tiled, int deriv)
{
    const int nc = 1 << dims, n = p->n;
    const uint32_t s = ng_hash_seed(p->seed);
    const rotation rot =
        kind == K_FLOW ? flow_rotation(p->flow) : (rotation){1.0f, 0.0f, 0.0f, 0.0f};
    const float scale = kind == K_PERLIN ? perlin_scale[dims - 1]
                        : kind == K_FAST ? fast_scale[dims - 1]
                        : kind == K_FLOW ? flow_scale[dims - 1]
                                         : 1.0f;
    const float *f[4] = {p->f[0], p->f[1], p->f[2], p->f[3]};
    const float fsc[4] = {ng_pts_scale(p, 0), ng_pts_scale(p, 1), ng_pts_scale(p, 2), ng_pts_scale(p, 3)};
    axis a[4];
    int i, d, k, e;
    for (d = 0; d < dims; d++) a[d] = split_axis(p->anchor[d], tiled ? p->period[d] : 0u);
    for (i = 0; i < n; i++) {
        uint32_t lo[4], hi[4], h[16];
        float t[4] = {0, 0, 0, 0}, t1[4] = {0, 0, 0, 0}, w[4], dw[4], c[16], g[4][16];
        float gscale = scale;
        UNROLL
        for (d = 0; d < dims; d++) {
            t[d] = lattice_cell(&a[d], f[d][i] * fsc[d], tiled, &lo[d], &hi[d]);
            lo[d] *= lattice_prime[d];
            /* untiled, hi = lo + 1; tiled it may have wrapped to 0 */
            hi[d] = tiled ? hi[d] * lattice_prime[d] : lo[d] + lattice_prime[d];
            t1[d] = t[d] - 1.0f;
            w[d] = kind == K_FAST ? smooth(t[d]) : fade(t[d]);
            if (deriv) dw[d] = kind == K_FAST ? smooth_slope(t[d], t1[d]) : fade_slope(t[d], t1[d]);
        }
        lattice_corners(dims, s, lo, hi, h);
        UNROLL
        for (k = 0; k < 16; k++)
            if (k < nc) {
                float dk[4];
                UNROLL
                for (d = 0; d < 4; d++) dk[d] = (k >> d) & 1 ? t1[d] : t[d];
                c[k] = corner_term(dims, kind, h[k], dk, &rot);
                if (deriv && kind != K_VALUE)
                    UNROLL
                    for (e = 0; e < dims; e++) g[e][k] = corner_slope(dims, kind, h[k], e, &rot);
            }
        /* multilinear blend, axis 0 first: the pairs (c[2j], c[2j + 1]) */
        UNROLL
        for (d = 0; d < dims; d++)
            UNROLL
            for (k = 0; k < 8; k++)
                if (k < nc >> (d + 1)) {
                    if (deriv) {
                        float jump = dw[d] * (c[2 * k + 1] - c[2 * k]);
                        UNROLL
                        for (e = 0; e < dims; e++)
                            if (kind == K_VALUE && e == d)
                                g[e][k] = jump;
                            else if (e == d)
                                g[e][k] = lerp(g[e][2 * k], g[e][2 * k + 1], w[d]) + jump;
                            else if (kind != K_VALUE || e < d) /* value: x_e not yet in it */
                                g[e][k] = lerp(g[e][2 * k], g[e][2 * k + 1], w[d]);
                    }
                    c[k] = lerp(c[2 * k], c[2 * k + 1], w[d]);
                }
        if (kind == K_VALUE) {
            out[i] = c[0];
        } else if (soft_limited(kind, dims)) {
            float slope;
            out[i] = soft_limit(c[0] * scale, &slope);
            gscale = scale * slope;
        } else {
            out[i] = c[0] * scale;
        }
        if (deriv)
            UNROLL
            for (e = 0; e < dims; e++) {
                float *ge = e == 0 ? gx : e == 1 ? gy : e == 2 ? gz : gw;
                ge[i] = g[e][0] * gscale;
            }
    }
}

static void unsupported(const ng_noise_pts *p, float *out)
{
    if (p->n > 0) memset(out, 0, (size_t)p->n * sizeof *out);
}

/* Zeros in out and in grad's dims planes (none for dims below 1). */
static void unsupported_d(const ng_noise_pts *p, float *out, float *grad)
{
    unsupported(p, out);
    if (p->n > 0 && p->dims > 0) memset(grad, 0, (size_t)p->dims * (size_t)p->n * sizeof *grad);
}

typedef void (*kernel)(const ng_noise_pts *p, float *out);

/* With gradient: out and the gradient's planes (up to dims), restrict so
 * that the loop needs no run-time overlap check per pair of outputs and
 * inputs; with 3D's and 4D's count the compilers would not vectorise it. */
typedef void (*kernel_d)(const ng_noise_pts *p, float *restrict out, float *restrict gx,
                         float *restrict gy, float *restrict gz, float *restrict gw);

/* Four instantiations per (kind, dims): untiled and tiled, value alone and
 * with gradient. */
#define LATTICE_SET(name, dims, kind)                                                   \
    static void name(const ng_noise_pts *p, float *out)                                 \
    {                                                                                   \
        lattice(p, out, NULL, NULL, NULL, NULL, dims, kind, 0, 0);                      \
    }                                                                                   \
    static void name##_tiled(const ng_noise_pts *p, float *out)                          \
    {                                                                                   \
        lattice(p, out, NULL, NULL, NULL, NULL, dims, kind, 1, 0);                      \
    }                                                                                   \
    static void name##_d(const ng_noise_pts *p, float *restrict out, float *restrict gx,  \
                         float *restrict gy, float *restrict gz, float *restrict gw)    \
    {                                                                                   \
        lattice(p, out, gx, gy, gz, gw, dims, kind, 0, 1);                              \
    }                                                                                   \
    static void name##_d_tiled(const ng_noise_pts *p, float *restrict out,              \
                               float *restrict gx, float *restrict gy, float *restrict gz, \
                               float *restrict gw)                                      \
    {                                                                                   \
        lattice(p, out, gx, gy, gz, gw, dims, kind, 1, 1);                              \
    }

LATTICE_SET(value1, 1, K_VALUE)
LATTICE_SET(value2, 2, K_VALUE)
LATTICE_SET(value3, 3, K_VALUE)
LATTICE_SET(value4, 4, K_VALUE)
LATTICE_SET(perlin1, 1, K_PERLIN)
LATTICE_SET(perlin2, 2, K_PERLIN)
LATTICE_SET(perlin3, 3, K_PERLIN)
LATTICE_SET(perlin4, 4, K_PERLIN)
LATTICE_SET(fast1, 1, K_FAST)
LATTICE_SET(fast2, 2, K_FAST)
LATTICE_SET(fast3, 3, K_FAST)
LATTICE_SET(fast4, 4, K_FAST)
LATTICE_SET(flow2, 2, K_FLOW)
LATTICE_SET(flow3, 3, K_FLOW)

/* The one branch on tiling, per call: any axis with a period. */
static int tiled_call(const ng_noise_pts *p)
{
    int d, tiled = 0;
    for (d = 0; d < p->dims; d++) tiled |= p->period[d] != 0;
    return tiled;
}

static void dispatch(const ng_noise_pts *p, float *out, const kernel fn[4][2])
{
    if (p->dims < 1 || p->dims > 4 || !fn[p->dims - 1][0])
        unsupported(p, out);
    else
        fn[p->dims - 1][tiled_call(p)](p, out);
}

/* The same for bases without a tiled form (simplex, white). */
static void by_dims(const ng_noise_pts *p, float *out, const kernel fn[4])
{
    if (p->dims < 1 || p->dims > 4)
        unsupported(p, out);
    else
        fn[p->dims - 1](p, out);
}

/* Calls fn with grad's dims planes of n, none formed past the last. */
static void call_d(kernel_d fn, const ng_noise_pts *p, float *out, float *grad)
{
    size_t n = (size_t)p->n;
    int dims = p->dims;
    fn(p, out, grad, dims > 1 ? grad + n : NULL, dims > 2 ? grad + 2 * n : NULL,
       dims > 3 ? grad + 3 * n : NULL);
}

static void dispatch_d(const ng_noise_pts *p, float *out, float *grad, const kernel_d fn[4][2])
{
    if (p->n <= 0) return;
    if (p->dims < 1 || p->dims > 4 || !fn[p->dims - 1][0])
        unsupported_d(p, out, grad);
    else
        call_d(fn[p->dims - 1][tiled_call(p)], p, out, grad);
}

void ng_value_noise(const ng_noise_pts *p, float *out)
{
    static const kernel fn[4][2] = {{value1, value1_tiled}, {value2, value2_tiled},
                                    {value3, value3_tiled}, {value4, value4_tiled}};
    dispatch(p, out, fn);
}

void ng_perlin_noise(const ng_noise_pts *p, float *out)
{
    static const kernel fn[4][2] = {{perlin1, perlin1_tiled}, {perlin2, perlin2_tiled},
                                    {perlin3, perlin3_tiled}, {perlin4, perlin4_tiled}};
    dispatch(p, out, fn);
}

void ng_fast_noise(const ng_noise_pts *p, float *out)
{
    static const kernel fn[4][2] = {{fast1, fast1_tiled}, {fast2, fast2_tiled},
                                    {fast3, fast3_tiled}, {fast4, fast4_tiled}};
    dispatch(p, out, fn);
}

void ng_flow_noise(const ng_noise_pts *p, float *out)
{
    static const kernel fn[4][2] = {
        {NULL, NULL}, {flow2, flow2_tiled}, {flow3, flow3_tiled}, {NULL, NULL}};
    dispatch(p, out, fn);
}

void ng_value_noise_d(const ng_noise_pts *p, float *out, float *grad)
{
    static const kernel_d fn[4][2] = {{value1_d, value1_d_tiled}, {value2_d, value2_d_tiled},
                                      {value3_d, value3_d_tiled}, {value4_d, value4_d_tiled}};
    dispatch_d(p, out, grad, fn);
}

void ng_perlin_noise_d(const ng_noise_pts *p, float *out, float *grad)
{
    static const kernel_d fn[4][2] = {{perlin1_d, perlin1_d_tiled}, {perlin2_d, perlin2_d_tiled},
                                      {perlin3_d, perlin3_d_tiled}, {perlin4_d, perlin4_d_tiled}};
    dispatch_d(p, out, grad, fn);
}

void ng_fast_noise_d(const ng_noise_pts *p, float *out, float *grad)
{
    static const kernel_d fn[4][2] = {{fast1_d, fast1_d_tiled}, {fast2_d, fast2_d_tiled},
                                      {fast3_d, fast3_d_tiled}, {fast4_d, fast4_d_tiled}};
    dispatch_d(p, out, grad, fn);
}

void ng_flow_noise_d(const ng_noise_pts *p, float *out, float *grad)
{
    static const kernel_d fn[4][2] = {
        {NULL, NULL}, {flow2_d, flow2_d_tiled}, {flow3_d, flow3_d_tiled}, {NULL, NULL}};
    dispatch_d(p, out, grad, fn);
}

/* ---- simplex --------------------------------------------------------------
 * Corner falloff (0.5 - r^2)^4 in 2D to 4D: every lattice vertex outside
 * the simplex holding a point is at least sqrt(0.5) away from it (checked
 * numerically: min r^2 0.500005 in 2D, 0.50011 in 3D, 0.50039 in 4D over
 * 2e6 points each), so contributions reach zero before their vertex drops
 * out and the field is continuous. The classic 0.6 in 3D and 4D is not.
 * 1D has no skew: a segment's two ends with falloff (1 - x^2)^4, which
 * reaches zero exactly at the other end.
 *
 * Precision: the anchor is skewed in double and split in skewed space; the
 * float offsets are skewed separately, and corner distance vectors come from
 * unskewing the small skewed fraction (X' - I') only.
 *
 * Maxima unscaled, gradient bounds |d/dx| unscaled and scaled:
 * 1D, gradients in [-1, 1]: max 0.31640625 = (3/4)^4 at t = 0.5 (exact);
 *     d/dx 1.0546875 (t = 0.5), 3.3330 scaled.
 * 2D, 8 unit gradients: max 0.0100802047 at the midpoint of the cell
 *     diagonal; d/dx 0.070996000, 7.0424 scaled.
 * 3D, 12 edge gradients: max 0.0130071572 near skewed fraction (0, 0.1669,
 *     0.8331) and its images; d/dx 0.088866778, 6.8315 scaled.
 * 4D, 32 edge gradients: max 0.0159292215 near skewed fraction (0.7378,
 *     0.7378, 0.8738, 0.7378); d/dx 0.094434205, 5.9278 scaled.
 */
#define SIMPLEX1_SCALE 3.1601778f /* 1 / (0.31640625 * 1.0001) */
#define SIMPLEX2_SCALE 99.194415f /* 1 / (0.0100802047 * 1.0001) */
#define SIMPLEX3_SCALE 76.873063f /* 1 / (0.0130071572 * 1.0001) */
#define SIMPLEX4_SCALE 62.77143f /* 1 / (0.0159292215 * 1.0001) */

#define F2 0.36602540378443865 /* (sqrt(3) - 1) / 2: skew */
#define G2 0.21132486540518712 /* (3 - sqrt(3)) / 6: unskew */
#define F3 (1.0 / 3.0)
#define G3 (1.0 / 6.0)
#define F4 0.30901699437494742 /* (sqrt(5) - 1) / 4 */
#define G4 0.13819660112501051 /* (5 - sqrt(5)) / 20 */

/* (0.5 - d2)_+^4, and t3 = (0.5 - d2)_+^3 for its derivative: along the
 * corner offset d, d/dd_e falloff = -8 d_e t3 (C3 where it reaches 0). */
static inline float falloff(float d2, float *t3)
{
    uint32_t u = f2u(0.5f - d2);
    float t = u2f(u & ((u >> 31) - 1u)); /* max(t, 0): negative -> +0 */
    float tt = t * t;
    *t3 = tt * t;
    return tt * tt;
}

/*
 * Derivatives: corner offsets are unskewed (the skew's inverse), so each
 * moves one for one with the noise-space position and a corner's term
 * falloff(|d|^2) (g . d) has partials falloff g_e - 8 t3 (g . d) d_e. The
 * walk (which corners) is piecewise constant and the field continuous
 * across its switches, so it adds nothing. Sums and scales as the value.
 */
LOOP_INLINE void simplex1(const ng_noise_pts *p, float *out, float *gx, int deriv)
{
    const axis ax = split_axis(p->anchor[0], 0u);
    const uint32_t s = ng_hash_seed(p->seed);
    const float *fx = p->f[0], sx = ng_pts_scale(p, 0);
    int i;
    for (i = 0; i < p->n; i++) {
        uint32_t X;
        float t = cell_of(&ax, fx[i] * sx, &X), t1 = t - 1.0f;
        float a = 1.0f - t * t, b = 1.0f - t1 * t1; /* both in [0, 1] */
        float a2 = a * a, b2 = b * b;
        uint32_t xp = X * NG_LATTICE_PRIME_X;
        float g0 = ng_hash_signed(ng_lattice_hash(s ^ xp));
        float g1 = ng_hash_signed(ng_lattice_hash(s ^ (xp + NG_LATTICE_PRIME_X)));
        float n0 = a2 * a2 * g0 * t, n1 = b2 * b2 * g1 * t1;
        out[i] = (n0 + n1) * SIMPLEX1_SCALE;
        /* d/dt (1 - t^2)^4 g t = g (1 - t^2)^3 (1 - t^2 - 8 t^2) */
        if (deriv)
            gx[i] = (g0 * (a2 * a) * (a - 8.0f * t * t) + g1 * (b2 * b) * (b - 8.0f * t1 * t1)) *
                    SIMPLEX1_SCALE;
    }
}

/* The gradient set of dims: 8 unit vectors (2D), 12 or 32 edges (3D, 4D). */
LOOP_INLINE float simplex_grad(int dims, uint32_t h, const float *d)
{
    if (dims == 2) return grad8(h, d[0], d[1]);
    if (dims == 3) return grad12(h, d[0], d[1], d[2]);
    return grad32(h, d[0], d[1], d[2], d[3]);
}

/* One corner of 2D to 4D simplex, d the point minus the corner: the term,
 * and with deriv its partials added to acc[]. */
LOOP_INLINE float simplex_corner(int dims, int deriv, uint32_t h, const float *d, float *acc)
{
    float r2 = 0.0f, t3, fo, gd;
    int e, a;
    UNROLL
    for (e = 0; e < dims; e++) r2 += d[e] * d[e];
    fo = falloff(r2, &t3);
    gd = simplex_grad(dims, h, d);
    if (deriv) {
        float m = -8.0f * t3 * gd;
        UNROLL
        for (e = 0; e < dims; e++) {
            float u[4];
            UNROLL
            for (a = 0; a < 4; a++) u[a] = a == e ? 1.0f : 0.0f;
            acc[e] += fo * simplex_grad(dims, h, u) + m * d[e];
        }
    }
    return fo * gd;
}

LOOP_INLINE void simplex2(const ng_noise_pts *p, float *out, float *gx, float *gy, int deriv)
{
    const double sk = (p->anchor[0] + p->anchor[1]) * F2;
    const axis ax = split_axis(p->anchor[0] + sk, 0u), ay = split_axis(p->anchor[1] + sk, 0u);
    const uint32_t s = ng_hash_seed(p->seed);
    const float *fx = p->f[0], *fy = p->f[1], sx = ng_pts_scale(p, 0), sy = ng_pts_scale(p, 1);
    const float f2 = (float)F2, g2 = (float)G2, g2x2m1 = (float)(2.0 * G2 - 1.0);
    const int n = p->n;
    int i;
    for (i = 0; i < n; i++) {
        uint32_t X, Y;
        const float x = fx[i] * sx, y = fy[i] * sy;
        float fs = (x + y) * f2;
        float rx = cell_of(&ax, x + fs, &X), ry = cell_of(&ay, y + fs, &Y); /* skewed */
        float t = (rx + ry) * g2;
        float x0 = rx - t, y0 = ry - t; /* unskewed, from corner 0 */
        /* lower triangle (rx >= ry) steps along x first */
        uint32_t lower = rx >= ry ? 1u : 0u;
        float ox = (float)(int32_t)lower, oy = 1.0f - ox;
        float d0[2] = {x0, y0}, d1[2] = {x0 - ox + g2, y0 - oy + g2},
              d2[2] = {x0 + g2x2m1, y0 + g2x2m1}, acc[2] = {0.0f, 0.0f};
        uint32_t xp = s ^ (X * NG_LATTICE_PRIME_X), yp = Y * NG_LATTICE_PRIME_Y;
        uint32_t xp1 = s ^ (X * NG_LATTICE_PRIME_X + NG_LATTICE_PRIME_X), yp1 = yp + NG_LATTICE_PRIME_Y;
        uint32_t h0 = ng_lattice_hash(xp ^ yp);
        uint32_t h1 = ng_lattice_hash(lower ? xp1 ^ yp : xp ^ yp1);
        uint32_t h2 = ng_lattice_hash(xp1 ^ yp1);
        float n0 = simplex_corner(2, deriv, h0, d0, acc);
        float n1 = simplex_corner(2, deriv, h1, d1, acc);
        float n2 = simplex_corner(2, deriv, h2, d2, acc);
        out[i] = (n0 + n1 + n2) * SIMPLEX2_SCALE;
        if (deriv) {
            gx[i] = acc[0] * SIMPLEX2_SCALE;
            gy[i] = acc[1] * SIMPLEX2_SCALE;
        }
    }
}

LOOP_INLINE void simplex3(const ng_noise_pts *p, float *out, float *gx, float *gy, float *gz,
                          int deriv)
{
    const double sk = (p->anchor[0] + p->anchor[1] + p->anchor[2]) * F3;
    const axis ax = split_axis(p->anchor[0] + sk, 0u), ay = split_axis(p->anchor[1] + sk, 0u),
               az = split_axis(p->anchor[2] + sk, 0u);
    const uint32_t s = ng_hash_seed(p->seed);
    const float *fx = p->f[0], *fy = p->f[1], *fz = p->f[2];
    const float sx = ng_pts_scale(p, 0), sy = ng_pts_scale(p, 1), sz = ng_pts_scale(p, 2);
    const float f3 = (float)F3, g3 = (float)G3, g3x2 = (float)(2.0 * G3),
                g3x3m1 = (float)(3.0 * G3 - 1.0);
    const int n = p->n;
    int i;
    for (i = 0; i < n; i++) {
        uint32_t X, Y, Z;
        const float x = fx[i] * sx, y = fy[i] * sy, z = fz[i] * sz;
        float fs = (x + y + z) * f3;
        float rx = cell_of(&ax, x + fs, &X), ry = cell_of(&ay, y + fs, &Y),
              rz = cell_of(&az, z + fs, &Z); /* skewed fraction */
        float t = (rx + ry + rz) * g3;
        float x0 = rx - t, y0 = ry - t, z0 = rz - t;
        /* The simplex walks the axes in decreasing order of the fraction:
         * corner 1 adds the largest axis, corner 2 the two largest. Ties
         * pick consistently, and either choice is continuous there. */
        uint32_t xy = rx >= ry ? 1u : 0u, yz = ry >= rz ? 1u : 0u, xz = rx >= rz ? 1u : 0u;
        uint32_t o1x = xy & xz, o1y = (xy ^ 1u) & yz, o1z = (xz | yz) ^ 1u;
        uint32_t o2x = xy | xz, o2y = (xy ^ 1u) | yz, o2z = (xz & yz) ^ 1u;
        float d0[3] = {x0, y0, z0};
        float d1[3] = {x0 - (float)(int32_t)o1x + g3, y0 - (float)(int32_t)o1y + g3,
                       z0 - (float)(int32_t)o1z + g3};
        float d2[3] = {x0 - (float)(int32_t)o2x + g3x2, y0 - (float)(int32_t)o2y + g3x2,
                       z0 - (float)(int32_t)o2z + g3x2};
        float d3[3] = {x0 + g3x3m1, y0 + g3x3m1, z0 + g3x3m1}, acc[3] = {0.0f, 0.0f, 0.0f};
        const uint32_t px = NG_LATTICE_PRIME_X, py = NG_LATTICE_PRIME_Y, pz = NG_LATTICE_PRIME_Z;
        uint32_t xp = X * px, yp = Y * py, zp = Z * pz;
        uint32_t h0 = ng_lattice_hash(s ^ xp ^ yp ^ zp);
        uint32_t h1 = ng_lattice_hash(s ^ (xp + (px & (0u - o1x))) ^ (yp + (py & (0u - o1y))) ^
                                      (zp + (pz & (0u - o1z))));
        uint32_t h2 = ng_lattice_hash(s ^ (xp + (px & (0u - o2x))) ^ (yp + (py & (0u - o2y))) ^
                                      (zp + (pz & (0u - o2z))));
        uint32_t h3 = ng_lattice_hash(s ^ (xp + px) ^ (yp + py) ^ (zp + pz));
        float n0 = simplex_corner(3, deriv, h0, d0, acc);
        float n1 = simplex_corner(3, deriv, h1, d1, acc);
        float n2 = simplex_corner(3, deriv, h2, d2, acc);
        float n3 = simplex_corner(3, deriv, h3, d3, acc);
        out[i] = (n0 + n1 + n2 + n3) * SIMPLEX3_SCALE;
        if (deriv) {
            gx[i] = acc[0] * SIMPLEX3_SCALE;
            gy[i] = acc[1] * SIMPLEX3_SCALE;
            gz[i] = acc[2] * SIMPLEX3_SCALE;
        }
    }
}

/* One 4D simplex corner: offset o (0 or 1 per axis) from the cell, k
 * corners along the walk (distance correction k * G4). */
LOOP_INLINE float simplex4_corner(uint32_t s, const uint32_t *cp, const uint32_t *o,
                                  const float *x0, float kg4, int deriv, float *acc)
{
    float d[4];
    uint32_t v = s;
    int a;
    UNROLL
    for (a = 0; a < 4; a++) {
        d[a] = x0[a] - (float)(int32_t)o[a] + kg4;
        v ^= cp[a] + (lattice_prime[a] & (0u - o[a]));
    }
    return simplex_corner(4, deriv, ng_lattice_hash(v), d, acc);
}

/* 4D simplex from the skewed cell and the skewed fraction r, unscaled (and
 * with deriv its unscaled gradient in acc[4]). The walk adds axes in
 * decreasing order of r: an axis's rank (how many others it beats, ties to
 * the lower axis) says after which corner it is set. */
LOOP_INLINE float simplex4_at(uint32_t s, const uint32_t *cell, const float *r, int deriv,
                              float *acc)
{
    const float g4 = (float)G4;
    float t = (r[0] + r[1] + r[2] + r[3]) * g4, x0[4], sum;
    uint32_t rank[4] = {0, 0, 0, 0}, o[4], cp[4];
    int a, b, k;
    UNROLL
    for (a = 0; a < 4; a++) cp[a] = cell[a] * lattice_prime[a];
    UNROLL
    for (a = 0; a < 4; a++) {
        x0[a] = r[a] - t;
        UNROLL
        for (b = 0; b < 4; b++) {
            if (b <= a) continue;
            uint32_t ge = r[a] >= r[b] ? 1u : 0u;
            rank[a] += ge;
            rank[b] += ge ^ 1u;
        }
    }
    UNROLL
    for (a = 0; a < 4; a++) o[a] = 0u;
    sum = simplex4_corner(s, cp, o, x0, 0.0f, deriv, acc);
    UNROLL
    for (k = 1; k <= 4; k++) {
        UNROLL
        for (a = 0; a < 4; a++) o[a] = rank[a] >= (uint32_t)(4 - k) ? 1u : 0u;
        sum += simplex4_corner(s, cp, o, x0, (float)(k * G4), deriv, acc);
    }
    return sum;
}

LOOP_INLINE void simplex4(const ng_noise_pts *p, float *out, float *gx, float *gy,
                          float *gz, float *gw, int deriv)
{
    const double sk = (p->anchor[0] + p->anchor[1] + p->anchor[2] + p->anchor[3]) * F4;
    const uint32_t s = ng_hash_seed(p->seed);
    const float *f[4] = {p->f[0], p->f[1], p->f[2], p->f[3]};
    const float fsc[4] = {ng_pts_scale(p, 0), ng_pts_scale(p, 1), ng_pts_scale(p, 2), ng_pts_scale(p, 3)};
    const float f4 = (float)F4;
    const int n = p->n;
    axis a[4];
    int i, d;
    for (d = 0; d < 4; d++) a[d] = split_axis(p->anchor[d] + sk, 0u);
    for (i = 0; i < n; i++) {
        uint32_t cell[4];
        float r[4], x[4], acc[4] = {0.0f, 0.0f, 0.0f, 0.0f}, fs;
        UNROLL
        for (d = 0; d < 4; d++) x[d] = f[d][i] * fsc[d];
        fs = (x[0] + x[1] + x[2] + x[3]) * f4;
        UNROLL
        for (d = 0; d < 4; d++) r[d] = cell_of(&a[d], x[d] + fs, &cell[d]);
        out[i] = simplex4_at(s, cell, r, deriv, acc) * SIMPLEX4_SCALE;
        if (deriv) {
            gx[i] = acc[0] * SIMPLEX4_SCALE;
            gy[i] = acc[1] * SIMPLEX4_SCALE;
            gz[i] = acc[2] * SIMPLEX4_SCALE;
            gw[i] = acc[3] * SIMPLEX4_SCALE;
        }
    }
}

static void simplex1_v(const ng_noise_pts *p, float *out) { simplex1(p, out, NULL, 0); }
static void simplex2_v(const ng_noise_pts *p, float *out) { simplex2(p, out, NULL, NULL, 0); }
static void simplex3_v(const ng_noise_pts *p, float *out) { simplex3(p, out, NULL, NULL, NULL, 0); }
static void simplex4_v(const ng_noise_pts *p, float *out)
{
    simplex4(p, out, NULL, NULL, NULL, NULL, 0);
}

static void simplex1_d(const ng_noise_pts *p, float *restrict out, float *restrict gx,
                       float *restrict gy, float *restrict gz, float *restrict gw)
{
    (void)gy, (void)gz, (void)gw;
    simplex1(p, out, gx, 1);
}

static void simplex2_d(const ng_noise_pts *p, float *restrict out, float *restrict gx,
                       float *restrict gy, float *restrict gz, float *restrict gw)
{
    (void)gz, (void)gw;
    simplex2(p, out, gx, gy, 1);
}

static void simplex3_d(const ng_noise_pts *p, float *restrict out, float *restrict gx,
                       float *restrict gy, float *restrict gz, float *restrict gw)
{
    (void)gw;
    simplex3(p, out, gx, gy, gz, 1);
}

static void simplex4_d(const ng_noise_pts *p, float *restrict out, float *restrict gx,
                       float *restrict gy, float *restrict gz, float *restrict gw)
{
    simplex4(p, out, gx, gy, gz, gw, 1);
}

void ng_simplex_noise(const ng_noise_pts *p, float *out)
{
    static const kernel fn[4] = {simplex1_v, simplex2_v, simplex3_v, simplex4_v};
    by_dims(p, out, fn);
}

void ng_simplex_noise_d(const ng_noise_pts *p, float *out, float *grad)
{
    static const kernel_d fn[4] = {simplex1_d, simplex2_d, simplex3_d, simplex4_d};
    if (p->n <= 0) return;
    if (p->dims < 1 || p->dims > 4)
        unsupported_d(p, out, grad);
    else
        call_d(fn[p->dims - 1], p, out, grad);
}

/*
 * Tileable 2D simplex: (x, y) goes onto the flat torus in 4D,
 *   (Rx cos(2 pi x / Px), Rx sin(2 pi x / Px), Ry cos(2 pi y / Py), Ry sin(...)),
 * R = P / (2 pi), so a period is one turn and local distances are kept
 * (the torus is flat; chords match arcs to second order). The angle comes
 * from the wrapped cell plus the float fraction, in double, so x and x + P
 * give the same bits. Scalar: libm per point, tileable renders only.
 */
void ng_simplex_tiled2(const ng_noise_pts *p, float *out)
{
    const double two_pi = 6.283185307179586;
    const uint32_t s = ng_hash_seed(p->seed);
    axis a[2];
    double radius[2];
    int i, d;
    if (p->dims != 2 || p->period[0] == 0 || p->period[1] == 0) {
        ng_simplex_noise(p, out);
        return;
    }
    for (d = 0; d < 2; d++) {
        a[d] = split_axis(p->anchor[d], p->period[d]);
        radius[d] = (double)p->period[d] / two_pi;
    }
    for (i = 0; i < p->n; i++) {
        double q[4], sk;
        uint32_t cell[4];
        float r[4];
        for (d = 0; d < 2; d++) {
            uint32_t c0, c1;
            float t = lattice_cell(&a[d], p->f[d][i] * ng_pts_scale(p, d), 1, &c0, &c1);
            double ang = two_pi * (((double)c0 + t) / (double)p->period[d]);
            q[2 * d] = radius[d] * cos(ang);
            q[2 * d + 1] = radius[d] * sin(ang);
        }
        sk = (q[0] + q[1] + q[2] + q[3]) * F4;
        for (d = 0; d < 4; d++) {
            double v = q[d] + sk, c = floor(v);
            cell[d] = (uint32_t)(int64_t)c;
            r[d] = (float)(v - c);
        }
        out[i] = simplex4_at(s, cell, r, 0, NULL) * SIMPLEX4_SCALE;
    }
}

/* ---- white noise ------------------------------------------------------------
 * Each axis of the absolute position, cell + fraction from the anchor split,
 * is rounded to the nearest point of a grid of 1/65536 cell (halves up; a
 * fraction that rounds to 1 carries into the next cell) and the pair (cell,
 * sub-cell) is hashed. So a sample's value depends on its world position
 * alone, to 1/65536 cell, at any distance from the origin.
 */
LOOP_INLINE void white(const ng_noise_pts *p, float *out, int dims)
{
    const uint32_t s = ng_hash_seed(p->seed);
    const float *f[4] = {p->f[0], p->f[1], p->f[2], p->f[3]};
    const float fsc[4] = {ng_pts_scale(p, 0), ng_pts_scale(p, 1), ng_pts_scale(p, 2), ng_pts_scale(p, 3)};
    axis a[4];
    int i, d;
    for (d = 0; d < dims; d++) a[d] = split_axis(p->anchor[d], 0u);
    for (i = 0; i < p->n; i++) {
        uint32_t h = s;
        UNROLL
        for (d = 0; d < dims; d++) {
            uint32_t X;
            float t = cell_of(&a[d], f[d][i] * fsc[d], &X);
            uint32_t q = (uint32_t)(int32_t)(t * 65536.0f + 0.5f); /* 0 to 65536, exact */
            h = ng_hash_step(h, X + (q >> 16));
            h = ng_hash_step(h, q & 0xffffu);
        }
        out[i] = ng_hash_signed(h);
    }
}

static void white1(const ng_noise_pts *p, float *out) { white(p, out, 1); }
static void white2(const ng_noise_pts *p, float *out) { white(p, out, 2); }
static void white3(const ng_noise_pts *p, float *out) { white(p, out, 3); }
static void white4(const ng_noise_pts *p, float *out) { white(p, out, 4); }

void ng_white_noise(const ng_noise_pts *p, float *out)
{
    static const kernel fn[4] = {white1, white2, white3, white4};
    by_dims(p, out, fn);
}
