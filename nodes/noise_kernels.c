/*
 * noise_kernels.c — value, improved Perlin (Perlin 2002, quintic fade) and
 * simplex (Perlin 2001, as explained by Gustavson) noise in 2D and 3D over a
 * batch of points. Written from the published algorithms.
 *
 * Every kernel is one straight loop over the arrays with no per-point calls
 * or branches beyond selects, so the compiler can if-convert and vectorise
 * it. All per-point arithmetic is float; the only double work is splitting
 * the anchor once per call. Build with -ffp-contract=off: the same bits on
 * every machine and SIMD width.
 *
 * Ranges: each basis's true maximum over all gradient configurations was
 * found numerically (dense grid over one cell, then pattern-search ascent
 * from the best 200 grid points and 200 random starts). For a fixed point
 * every corner's term depends only on that corner's gradient and is weighted
 * by a non-negative falloff, so the maximum over all configurations is the
 * sum of per-corner maxima; the search runs over position only. The same
 * holds for d/dx, which gives the gradient bounds quoted per basis (after
 * scaling; the gradient sets are symmetric under axis swaps, so every axis
 * has the same bound). Scales are 1 / (max * 1.0001): the 1e-4 margin
 * absorbs float rounding, far above its size (~1e-6), and keeps coverage.
 */
#include "noise_kernels.h"

#include <math.h>
#include <string.h>

/*
 * Float selects are done on bit patterns. Under the default -ftrapping-math
 * GCC will not if-convert a float select (it sinks arithmetic into the arm
 * that uses it, then may not speculate it), so the loop would not vectorise;
 * and scalar code would branch on random hash bits and mispredict. Mask
 * blends and sign-bit flips are exact, so results are the same bits.
 */
static inline uint32_t f2u(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline float u2f(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* c ? a : b for c in {0, 1} */
static inline float select_f(uint32_t c, float a, float b)
{
    uint32_t m = 0u - c;
    return u2f((f2u(a) & m) | (f2u(b) & ~m));
}

/* neg ? -x : x for neg in {0, 1} */
static inline float flip_f(float x, uint32_t neg)
{
    return u2f(f2u(x) ^ (neg << 31));
}

/* Per-point positions are clamped to |x| <= 2^30 so the float -> int32 cell
 * conversion is defined for any input; NaN and infinities map to +-2^30.
 * Nothing is lost: floats there are 128 lattice units apart. */
#define POS_LIMIT_BITS 0x4e800000u /* 2^30 as a float */

/* One axis of the anchor, split once per call. */
typedef struct anchor_axis {
    uint32_t cell; /* floor(anchor) mod 2^32, added to per-point cells in the hash */
    float frac;    /* anchor - floor(anchor), in [0, 1] */
} anchor_axis;

static anchor_axis split_anchor(double a)
{
    anchor_axis r;
    double c;
    if (!isfinite(a)) a = 0.0; /* defined garbage rather than undefined behaviour */
    c = floor(a);
    r.frac = (float)(a - c);
    /* fmod of an integral double is exact and lies in (-2^32, 2^32), so both
     * conversions are defined; the lattice wraps mod 2^32 anyway. */
    r.cell = (uint32_t)(int64_t)fmod(c, 4294967296.0);
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

/* 6t^5 - 15t^4 + 10t^3: C2 at cell borders; fade(0) = 0 and fade(1) = 1
 * exactly, which keeps Perlin exactly 0 on the lattice. */
static inline float fade(float t)
{
    return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f);
}

/* The per-point half of the anchor split: the fraction within the cell,
 * and the cell's lattice coordinate (anchor cell + point cell, mod 2^32). */
static inline float cell_of(anchor_axis a, float off, uint32_t *cell)
{
    float x = pos(a.frac, off);
    int32_t i = floor_i32(x);
    *cell = a.cell + (uint32_t)i;
    return x - (float)i;
}

/* Helpers called inside the loops must be inlined or the loop cannot
 * vectorise; these two are big enough that clang may decline otherwise. */
#define LOOP_INLINE static inline __attribute__((always_inline))

/* Hashes of the cell's corners, bit k of the index = +1 on axis k; the
 * shared prefixes (seed, x) and (seed, x, y) are hashed once. */
LOOP_INLINE void corners2(uint32_t s, uint32_t X, uint32_t Y, uint32_t h[4])
{
    uint32_t h0 = ng_hash_step(s, X), h1 = ng_hash_step(s, X + 1u);
    h[0] = ng_hash_step(h0, Y);
    h[1] = ng_hash_step(h1, Y);
    h[2] = ng_hash_step(h0, Y + 1u);
    h[3] = ng_hash_step(h1, Y + 1u);
}

LOOP_INLINE void corners3(uint32_t s, uint32_t X, uint32_t Y, uint32_t Z, uint32_t h[8])
{
    uint32_t h0 = ng_hash_step(s, X), h1 = ng_hash_step(s, X + 1u);
    uint32_t h00 = ng_hash_step(h0, Y), h10 = ng_hash_step(h1, Y);
    uint32_t h01 = ng_hash_step(h0, Y + 1u), h11 = ng_hash_step(h1, Y + 1u);
    h[0] = ng_hash_step(h00, Z);
    h[1] = ng_hash_step(h10, Z);
    h[2] = ng_hash_step(h01, Z);
    h[3] = ng_hash_step(h11, Z);
    h[4] = ng_hash_step(h00, Z + 1u);
    h[5] = ng_hash_step(h10, Z + 1u);
    h[6] = ng_hash_step(h01, Z + 1u);
    h[7] = ng_hash_step(h11, Z + 1u);
}

static inline float lerp(float a, float b, float t)
{
    return a + t * (b - a);
}

/* Corner values in the corners2/corners3 order, blended by faded weights. */
static inline float blend4(float c0, float c1, float c2, float c3, float u, float v)
{
    return lerp(lerp(c0, c1, u), lerp(c2, c3, u), v);
}

static inline float blend8(float c0, float c1, float c2, float c3, float c4, float c5,
                           float c6, float c7, float u, float v, float w)
{
    return lerp(blend4(c0, c1, c2, c3, u, v), blend4(c4, c5, c6, c7, u, v), w);
}

/* 8 unit gradients in 2D: the 4 axis and the 4 diagonal directions. The top
 * three hash bits pick one (blends rather than a table, which would need a
 * gather). */
static inline float grad8(uint32_t h, float x, float y)
{
    uint32_t b0 = (h >> 29) & 1u, b1 = (h >> 30) & 1u, b2 = h >> 31;
    float axis = flip_f(select_f(b0, y, x), b1);
    float diag = (flip_f(x, b0) + flip_f(y, b1)) * 0.70710678f;
    return select_f(b2, diag, axis);
}

/* Perlin's 12 cube-edge gradients (+-1, +-1, 0) and permutations, chosen
 * uniformly (index = high hash bits * 12 / 2^28, not Perlin's h & 15 with
 * four repeats, which over-weights four directions). */
static inline float grad12(uint32_t h, float x, float y, float z)
{
    uint32_t k = ((h >> 4) * 12u) >> 28;
    float u = select_f(k < 8u, x, y);
    float v = select_f(k < 4u, y, z);
    return flip_f(u, k & 1u) + flip_f(v, (k >> 1) & 1u);
}

static void unsupported(const ng_noise_pts *p, float *out)
{
    if (p->n > 0) memset(out, 0, (size_t)p->n * sizeof *out);
}

/* ---- value noise --------------------------------------------------------
 * Lattice values uniform in [-(1 - 2^-20), 1 - 2^-20], blended with the
 * quintic fade. A blend of values within a bound stays within it; the 2^-20
 * shrink covers the few ulps of rounding in the three nested lerps. Max |v|
 * = 1 - 2^-20, reached at lattice points. |d/dx| <= 2 * max fade' = 2 *
 * 15/8 = 3.75 (adjacent values -1 and 1, midway): exact, found numerically
 * as well.
 */
#define VALUE_SHRINK 0.99999904632568359375f /* 1 - 2^-20 */

static inline float lattice_value(uint32_t h)
{
    return ng_hash_signed(h) * VALUE_SHRINK;
}

static void value2(const ng_noise_pts *p, float *out)
{
    const anchor_axis ax = split_anchor(p->anchor[0]), ay = split_anchor(p->anchor[1]);
    const uint32_t s = ng_hash_seed(p->seed);
    const float *fx = p->f[0], *fy = p->f[1];
    int i;
    for (i = 0; i < p->n; i++) {
        uint32_t X, Y, h[4];
        float tx = cell_of(ax, fx[i], &X), ty = cell_of(ay, fy[i], &Y);
        corners2(s, X, Y, h);
        out[i] = blend4(lattice_value(h[0]), lattice_value(h[1]), lattice_value(h[2]),
                        lattice_value(h[3]), fade(tx), fade(ty));
    }
}

static void value3(const ng_noise_pts *p, float *out)
{
    const anchor_axis ax = split_anchor(p->anchor[0]), ay = split_anchor(p->anchor[1]),
                      az = split_anchor(p->anchor[2]);
    const uint32_t s = ng_hash_seed(p->seed);
    const float *fx = p->f[0], *fy = p->f[1], *fz = p->f[2];
    int i;
    for (i = 0; i < p->n; i++) {
        uint32_t X, Y, Z, h[8];
        float tx = cell_of(ax, fx[i], &X), ty = cell_of(ay, fy[i], &Y),
              tz = cell_of(az, fz[i], &Z);
        corners3(s, X, Y, Z, h);
        out[i] = blend8(lattice_value(h[0]), lattice_value(h[1]), lattice_value(h[2]),
                        lattice_value(h[3]), lattice_value(h[4]), lattice_value(h[5]),
                        lattice_value(h[6]), lattice_value(h[7]), fade(tx), fade(ty),
                        fade(tz));
    }
}

void ng_value_noise(const ng_noise_pts *p, float *out)
{
    switch (p->dims) {
    case 2: value2(p, out); break;
    case 3: value3(p, out); break;
    default: unsupported(p, out); break;
    }
}

/* ---- improved Perlin ----------------------------------------------------
 * 2D, 8 unit gradients: max 0.70710678 = sqrt(2)/2 at the cell centre with
 * every gradient pointing at it along the diagonal (exact);
 * max |d/dx| 2.0027450 unscaled, 2.8320 scaled.
 * 3D, 12 edge gradients: max 1.0363538 at (0.5, 0.6447, 0.4815) and its
 * mirror images, not at the centre (1.0); max |d/dx| 3.75 unscaled (at the
 * centre), 3.6181 scaled.
 */
#define PERLIN2_SCALE 1.4140722f /* 1 / (0.70710678 * 1.0001) */
#define PERLIN3_SCALE 0.96482495f /* 1 / (1.0363538 * 1.0001) */

static void perlin2(const ng_noise_pts *p, float *out)
{
    const anchor_axis ax = split_anchor(p->anchor[0]), ay = split_anchor(p->anchor[1]);
    const uint32_t s = ng_hash_seed(p->seed);
    const float *fx = p->f[0], *fy = p->f[1];
    int i;
    for (i = 0; i < p->n; i++) {
        uint32_t X, Y, h[4];
        float tx = cell_of(ax, fx[i], &X), ty = cell_of(ay, fy[i], &Y);
        float tx1 = tx - 1.0f, ty1 = ty - 1.0f;
        corners2(s, X, Y, h);
        out[i] = blend4(grad8(h[0], tx, ty), grad8(h[1], tx1, ty), grad8(h[2], tx, ty1),
                        grad8(h[3], tx1, ty1), fade(tx), fade(ty)) *
                 PERLIN2_SCALE;
    }
}

static void perlin3(const ng_noise_pts *p, float *out)
{
    const anchor_axis ax = split_anchor(p->anchor[0]), ay = split_anchor(p->anchor[1]),
                      az = split_anchor(p->anchor[2]);
    const uint32_t s = ng_hash_seed(p->seed);
    const float *fx = p->f[0], *fy = p->f[1], *fz = p->f[2];
    int i;
    for (i = 0; i < p->n; i++) {
        uint32_t X, Y, Z, h[8];
        float tx = cell_of(ax, fx[i], &X), ty = cell_of(ay, fy[i], &Y),
              tz = cell_of(az, fz[i], &Z);
        float tx1 = tx - 1.0f, ty1 = ty - 1.0f, tz1 = tz - 1.0f;
        corners3(s, X, Y, Z, h);
        out[i] = blend8(grad12(h[0], tx, ty, tz), grad12(h[1], tx1, ty, tz),
                        grad12(h[2], tx, ty1, tz), grad12(h[3], tx1, ty1, tz),
                        grad12(h[4], tx, ty, tz1), grad12(h[5], tx1, ty, tz1),
                        grad12(h[6], tx, ty1, tz1), grad12(h[7], tx1, ty1, tz1), fade(tx),
                        fade(ty), fade(tz)) *
                 PERLIN3_SCALE;
    }
}

void ng_perlin_noise(const ng_noise_pts *p, float *out)
{
    switch (p->dims) {
    case 2: perlin2(p, out); break;
    case 3: perlin3(p, out); break;
    default: unsupported(p, out); break;
    }
}

/* ---- simplex --------------------------------------------------------------
 * Corner falloff (0.5 - r^2)^4 in both 2D and 3D: every lattice vertex
 * outside the simplex holding a point is at least sqrt(0.5) away from it
 * (checked numerically), so contributions reach zero before their vertex
 * drops out and the field is continuous. The classic 0.6 in 3D is not.
 *
 * Precision: the anchor is skewed in double and split in skewed space; the
 * float offsets are skewed separately, and corner distance vectors come from
 * unskewing the small skewed fraction (X' - I') only.
 *
 * 2D, 8 unit gradients: max 0.0100802047 unscaled at the midpoint of the
 * cell diagonal; max |d/dx| 0.070996000 unscaled, 7.0424 scaled.
 * 3D, 12 edge gradients: max 0.0130071572 unscaled near skewed fraction
 * (0, 0.1669, 0.8331) and its images; max |d/dx| 0.088866778 unscaled,
 * 6.8315 scaled.
 */
#define SIMPLEX2_SCALE 99.194415f /* 1 / (0.0100802047 * 1.0001) */
#define SIMPLEX3_SCALE 76.873063f /* 1 / (0.0130071572 * 1.0001) */

#define F2 0.36602540378443865 /* (sqrt(3) - 1) / 2: skew */
#define G2 0.21132486540518712 /* (3 - sqrt(3)) / 6: unskew */
#define F3 (1.0 / 3.0)
#define G3 (1.0 / 6.0)

static inline float falloff(float d2)
{
    uint32_t u = f2u(0.5f - d2);
    float t = u2f(u & ((u >> 31) - 1u)); /* max(t, 0): negative -> +0 */
    t *= t;
    return t * t;
}

static void simplex2(const ng_noise_pts *p, float *out)
{
    const double sk = (p->anchor[0] + p->anchor[1]) * F2;
    const anchor_axis ax = split_anchor(p->anchor[0] + sk),
                      ay = split_anchor(p->anchor[1] + sk);
    const uint32_t s = ng_hash_seed(p->seed);
    const float *fx = p->f[0], *fy = p->f[1];
    const float f2 = (float)F2, g2 = (float)G2, g2x2m1 = (float)(2.0 * G2 - 1.0);
    int i;
    for (i = 0; i < p->n; i++) {
        uint32_t X, Y;
        float fs = (fx[i] + fy[i]) * f2;
        float rx = cell_of(ax, fx[i] + fs, &X), ry = cell_of(ay, fy[i] + fs, &Y); /* skewed */
        float t = (rx + ry) * g2;
        float x0 = rx - t, y0 = ry - t; /* unskewed, from corner 0 */
        /* lower triangle (rx >= ry) steps along x first */
        uint32_t lower = rx >= ry ? 1u : 0u;
        float ox = (float)(int32_t)lower, oy = 1.0f - ox;
        float x1 = x0 - ox + g2, y1 = y0 - oy + g2;
        float x2 = x0 + g2x2m1, y2 = y0 + g2x2m1;
        uint32_t hx0 = ng_hash_step(s, X), hx1 = ng_hash_step(s, X + 1u);
        uint32_t h0 = ng_hash_step(hx0, Y);
        uint32_t h1 = ng_hash_step(lower ? hx1 : hx0, Y + (1u - lower));
        uint32_t h2 = ng_hash_step(hx1, Y + 1u);
        float n0 = falloff(x0 * x0 + y0 * y0) * grad8(h0, x0, y0);
        float n1 = falloff(x1 * x1 + y1 * y1) * grad8(h1, x1, y1);
        float n2 = falloff(x2 * x2 + y2 * y2) * grad8(h2, x2, y2);
        out[i] = (n0 + n1 + n2) * SIMPLEX2_SCALE;
    }
}

static void simplex3(const ng_noise_pts *p, float *out)
{
    const double sk = (p->anchor[0] + p->anchor[1] + p->anchor[2]) * F3;
    const anchor_axis ax = split_anchor(p->anchor[0] + sk),
                      ay = split_anchor(p->anchor[1] + sk),
                      az = split_anchor(p->anchor[2] + sk);
    const uint32_t s = ng_hash_seed(p->seed);
    const float *fx = p->f[0], *fy = p->f[1], *fz = p->f[2];
    const float f3 = (float)F3, g3 = (float)G3, g3x2 = (float)(2.0 * G3),
                g3x3m1 = (float)(3.0 * G3 - 1.0);
    int i;
    for (i = 0; i < p->n; i++) {
        uint32_t X, Y, Z;
        float fs = (fx[i] + fy[i] + fz[i]) * f3;
        float rx = cell_of(ax, fx[i] + fs, &X), ry = cell_of(ay, fy[i] + fs, &Y),
              rz = cell_of(az, fz[i] + fs, &Z); /* skewed fraction */
        float t = (rx + ry + rz) * g3;
        float x0 = rx - t, y0 = ry - t, z0 = rz - t;
        /* The simplex walks the axes in decreasing order of the fraction:
         * corner 1 adds the largest axis, corner 2 the two largest. Ties
         * pick consistently, and either choice is continuous there. */
        uint32_t xy = rx >= ry ? 1u : 0u, yz = ry >= rz ? 1u : 0u, xz = rx >= rz ? 1u : 0u;
        uint32_t o1x = xy & xz, o1y = (xy ^ 1u) & yz, o1z = (xz | yz) ^ 1u;
        uint32_t o2x = xy | xz, o2y = (xy ^ 1u) | yz, o2z = (xz & yz) ^ 1u;
        float x1 = x0 - (float)(int32_t)o1x + g3, y1 = y0 - (float)(int32_t)o1y + g3,
              z1 = z0 - (float)(int32_t)o1z + g3;
        float x2 = x0 - (float)(int32_t)o2x + g3x2, y2 = y0 - (float)(int32_t)o2y + g3x2,
              z2 = z0 - (float)(int32_t)o2z + g3x2;
        float x3 = x0 + g3x3m1, y3 = y0 + g3x3m1, z3 = z0 + g3x3m1;
        uint32_t h0 = ng_hash_step(ng_hash_step(ng_hash_step(s, X), Y), Z);
        uint32_t h1 = ng_hash_step(ng_hash_step(ng_hash_step(s, X + o1x), Y + o1y), Z + o1z);
        uint32_t h2 = ng_hash_step(ng_hash_step(ng_hash_step(s, X + o2x), Y + o2y), Z + o2z);
        uint32_t h3 = ng_hash_step(ng_hash_step(ng_hash_step(s, X + 1u), Y + 1u), Z + 1u);
        float n0 = falloff(x0 * x0 + y0 * y0 + z0 * z0) * grad12(h0, x0, y0, z0);
        float n1 = falloff(x1 * x1 + y1 * y1 + z1 * z1) * grad12(h1, x1, y1, z1);
        float n2 = falloff(x2 * x2 + y2 * y2 + z2 * z2) * grad12(h2, x2, y2, z2);
        float n3 = falloff(x3 * x3 + y3 * y3 + z3 * z3) * grad12(h3, x3, y3, z3);
        out[i] = (n0 + n1 + n2 + n3) * SIMPLEX3_SCALE;
    }
}

void ng_simplex_noise(const ng_noise_pts *p, float *out)
{
    switch (p->dims) {
    case 2: simplex2(p, out); break;
    case 3: simplex3(p, out); break;
    default: unsupported(p, out); break;
    }
}
