/*
 * lattice_parts.h — what the lattice, simplex and white kernel units
 * share (nodes/<family>_kernels.c, compiled once per SIMD path): the
 * anchor split, cells and fractions, fades, corner hashes,
 * gradient sets and the dispatch by dims and tiling. Everything here is
 * static inline, so each unit keeps what it uses.
 *
 * Every kernel is one straight loop over the arrays with no per-point calls
 * or branches beyond selects, so the compiler can if-convert and vectorise
 * it. All per-point arithmetic is float; double work is splitting the
 * anchor once per call (and the scalar torus mapping of tiled simplex).
 * Build with -ffp-contract=off: the same bits on every machine and SIMD
 * width; the fused multiply-adds are written out (fma_f, bits.h).
 */
#ifndef NG_LATTICE_PARTS_H
#define NG_LATTICE_PARTS_H

#include "bits.h"
#include "kernels.h"

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

/* Put before each loop over points: its outputs overlap none of its
 * inputs (noise_kernels.h; point i's out in place of its own offset would
 * still be safe: each iteration reads its inputs before its stores), said
 * where restrict alone is not enough. With a vector kernel's planes of
 * outputs and gradients GCC needed more run-time overlap checks than it
 * emits (10) and left the _d loops of 3 channels, or of 3D and 4D, scalar:
 * 5 to 8 times slower. */
#if defined(__clang__)
#define NO_ALIAS_LOOP _Pragma("clang loop vectorize(assume_safety)")
#else
#define NO_ALIAS_LOOP _Pragma("GCC ivdep")
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

static inline axis split_axis(double a, uint32_t period)
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

/* x with its magnitude limited to POS_LIMIT */
static inline float pos_limited(float x)
{
    uint32_t u = f2u(x), mag = u & 0x7fffffffu;
    mag = mag < POS_LIMIT_BITS ? mag : POS_LIMIT_BITS; /* magnitudes order as integers */
    return u2f((u & 0x80000000u) | mag);
}

static inline float pos(float frac, float off) { return pos_limited(frac + off); }

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
    const float x = pos(a->frac, off), fl = floor_f(x);
    int32_t i = (int32_t)fl;
    if (tiled) {
        uint32_t n;
        *c0 = wrap_cell(a, i);
        n = *c0 + 1u;
        *c1 = n & (0u - (uint32_t)(n != a->end));
    } else {
        *c0 = a->cell + (uint32_t)i;
        *c1 = *c0 + 1u;
    }
    return x - fl;
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
    return t * t * t * fma_f(t, fma_f(t, 6.0f, -15.0f), 10.0f);
}

/* 3t^2 - 2t^3: C1, two multiplies cheaper; 0 and 1 exactly at the ends. */
static inline float smooth(float t)
{
    return t * t * fma_f(t, -2.0f, 3.0f);
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
    return fma_f(t, b - a, a);
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

/* ng_lattice_hash's fold v ^ (v >> 16) distributes over the xor of the
 * seed and the coordinates, so each of those is folded once (2 dims + 1
 * folds, not one per corner: 8 rather than 16 in 4D) and a corner is the
 * xor of folded words times the constant: the same bits. */
static inline uint32_t fold16(uint32_t v)
{
    return v ^ (v >> 16);
}

LOOP_INLINE void lattice_corners(int dims, uint32_t s, const uint32_t *lo, const uint32_t *hi,
                                 uint32_t *h)
{
    uint32_t flo[4] = {0, 0, 0, 0}, fhi[4] = {0, 0, 0, 0};
    const uint32_t fs = fold16(s);
    int d, k;
    UNROLL
    for (d = 0; d < 4; d++)
        if (d < dims) flo[d] = fold16(lo[d]), fhi[d] = fold16(hi[d]);
    UNROLL
    for (k = 0; k < 16; k++) /* constant trip counts unroll in every compiler */
        if (k < 1 << dims) {
            uint32_t v = fs;
            UNROLL
            for (d = 0; d < 4; d++)
                if (d < dims) v ^= (k >> d) & 1 ? fhi[d] : flo[d];
            h[k] = v * NG_LATTICE_MUL; /* ng_lattice_hash of the unfolded xor */
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

/* bit b of h set ? a : c. The bit shifted to the sign and spread by an
 * arithmetic shift (GCC and clang define >> of a negative int so) is the
 * blend's mask in two instructions, one for bit 31, where testing the
 * bit, negating and masking took four. */
static inline float select_bit(uint32_t h, int b, float a, float c)
{
    uint32_t m = (uint32_t)((int32_t)(h << (31 - b)) >> 31);
    return u2f((f2u(a) & m) | (f2u(c) & ~m));
}

/* 8 unit gradients in 2D: the 4 axis and the 4 diagonal directions. The top
 * three hash bits pick one. */
static inline float grad8(uint32_t h, float x, float y)
{
    float along = flip_bit(select_bit(h, 29, y, x), h, 30);
    float diag = (flip_bit(x, h, 29) + flip_bit(y, h, 30)) * 0.70710678f;
    return select_bit(h, 31, diag, along);
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

/* The gradient vectors themselves (the partials of grad8, grad12, grad32
 * of h along each axis): a few selects on the masks their values use, not
 * the set applied to each unit vector (its additions and multiplies do not
 * fold: +-1 + +-0 is not constant to the compiler). Components equal the
 * set's at unit vectors except the sign of a zero component; the callers
 * add them to sums that start at +0, where that sign cannot show. */
static inline void grad8_vec(uint32_t h, float *g)
{
    const float c = 0.70710678f;
    g[0] = select_bit(h, 31, flip_bit(c, h, 29), select_bit(h, 29, 0.0f, flip_bit(1.0f, h, 30)));
    g[1] = select_bit(h, 31, flip_bit(c, h, 30), select_bit(h, 29, flip_bit(1.0f, h, 30), 0.0f));
}

static inline void grad12_vec(uint32_t h, float *g)
{
    const float su = flip_bit(1.0f, h, 20), sv = flip_bit(1.0f, h, 21);
    const int xy = h < EDGE_XY, xz = h < EDGE_XZ; /* pair xy; pair xy or xz */
    g[0] = select_f(xz, su, 0.0f);
    g[1] = select_f(xy, sv, select_f(xz, 0.0f, su));
    g[2] = select_f(xy, 0.0f, sv);
}

/* the three non-zero axes in increasing order take the signs of bits 27,
 * 28 and 29 */
static inline void grad32_vec(uint32_t h, float *g)
{
    const uint32_t zero = h >> 30;
    const float sa = flip_bit(1.0f, h, 27), sb = flip_bit(1.0f, h, 28), sc = flip_bit(1.0f, h, 29);
    g[0] = select_f(zero == 0u, 0.0f, sa);
    g[1] = select_f(zero == 0u, sa, select_f(zero == 1u, 0.0f, sb));
    g[2] = select_f(zero <= 1u, sb, select_f(zero == 2u, 0.0f, sc));
    g[3] = select_f(zero == 3u, 0.0f, sc);
}

/* ---- isotropic gradients -------------------------------------------------------
 * The sets above are few and lattice-aligned: where neighbouring corners
 * share a direction, the zero set (the crease of a ridged or billow
 * octave) runs along lattice lines, and the field's gradient directions
 * peak at the set's angles (the orientation histogram of
 * tests/test_isotropy.c). The isotropic sets (ng_noise_pts.gradients =
 * NG_GRADIENTS_ISOTROPIC, the default since 0.2.0) are spread evenly and
 * avoid the axes and diagonals, still picked by blends of hash bits (no
 * table, no gather):
 *   2D: unit directions spread continuously for simplex (grad_arc,
 *       below); perlin, fast and flow take grad_pair (below), two
 *       component words sharing hash bits, long near the axes to undo
 *       their blends' pull to the diagonals;
 *   3D and 4D: perlin, fast and flow take independent components
 *       (grad_ind3 and grad_ind4: a component is one word of hash bits,
 *       sign and magnitude, a shift and an and-or; its multiply is the
 *       cost left over the classic sets); simplex too, each vector
 *       normalised (ind_unit, below).
 */
/* 2D for simplex: directions spread continuously on the circle. An
 * angle in the first half-quadrant from t in [1, 2), 12 hash bits (16 to
 * 27) written into a float's mantissa (below); the vector's two
 * components are quadratics in t, and the octagon's symmetries (swap, two
 * signs: bits 29, 30 and 31) give the other seven eighths: 2^15
 * directions (two integer operations and four multiply-adds, then
 * octant_term). The quadratics are fitted over [1, 2] to the direction
 * at angle (pi / 4) (u + 0.1 u (1 - u)), u = t - 1, times the length
 * 1 - 0.1 cos 4 theta (lengths 0.879 to 1.121, within 0.021 of that;
 * angles within 0.65 degrees, the octants' ends overlapping; the gaps
 * between directions at most 0.014 degrees): simplex2 reads its lattice
 * turned by 45 degrees (simplex_kernels.c), so the lattice's axes are
 * the world's diagonals, and vectors short there and fewer there
 * (directions 1.1 times their mean spacing apart, 0.9 times at the
 * lattice's diagonals) take down the diagonal bins a ridged octave's
 * creases add to (tests/test_isotropy.c; over seeds 1 to 6 in a model, with the cubic
 * falloff: the lengths, ridged 1.186 -> 1.147, plain 1.070 -> 1.107;
 * the spacing then, in a model of the kernel that matches the suite at
 * seed 7, ridged 1.163 -> 1.142, plain 1.092 -> 1.107, and with seed 7
 * ridged 1.158 -> 1.145, plain 1.062 -> 1.088; the field's rms the same,
 * where lengths 1 - a cos 4 theta deep enough for that fell below the
 * contrast floor; spacings 0.15 and 0.2: plain 1.123 and higher over
 * seeds 1 to 6). The octagon's symmetries keep any such length free: a length
 * with the triangles' 6-fold symmetry (1 + 0.45 sin 6 theta took the
 * model's plain histogram from 1.14 to 1.06 with the quartic falloff)
 * changes sign with the octant's flips and cost nine operations a corner
 * (1.3x the classic kernel, where the turn and the cubic falloff cost
 * nothing). The 16 directions before (11.25 + k 22.5 degrees) left a
 * peak per direction in the field's orientation histogram (1.30 over six
 * seeds). */
#define ARC_C0 0.27360143f
#define ARC_C1 0.95232133f
#define ARC_C2 -0.34681629f
#define ARC_S0 -0.91848103f
#define ARC_S1 0.96077604f
#define ARC_S2 -0.05222913f

static inline void grad_arc_base(uint32_t h, float *c, float *s)
{
    const float t = u2f(((h >> 5) & 0x007ff800u) | 0x3f800000u); /* 1 + bits 16 to 27 / 2^12 */
    *c = fma_f(fma_f(ARC_C2, t, ARC_C1), t, ARC_C0);
    *s = fma_f(fma_f(ARC_S2, t, ARC_S1), t, ARC_S0);
}

/* A base vector (c, s) of the first half-quadrant moved to its octant:
 * bit 29 swaps the axes, bits 30 and 31 flip their signs. Its term at
 * (x, y) and its components. */
static inline float octant_term(uint32_t h, float c, float s, float x, float y)
{
    const float u = flip_bit(select_bit(h, 29, y, x), h, 30);
    const float v = flip_bit(select_bit(h, 29, x, y), h, 31);
    return fma_f(c, u, s * v);
}

static inline void octant_vec(uint32_t h, float c, float s, float *g)
{
    const float cu = flip_bit(c, h, 30), sv = flip_bit(s, h, 31);
    g[0] = select_bit(h, 29, sv, cu);
    g[1] = select_bit(h, 29, cu, sv);
}

static inline float grad_arc(uint32_t h, float x, float y)
{
    float c, s;
    grad_arc_base(h, &c, &s);
    return octant_term(h, c, s, x, y);
}

static inline void grad_arc_vec(uint32_t h, float *g)
{
    float c, s;
    grad_arc_base(h, &c, &s);
    octant_vec(h, c, s, g);
}

/* 2D for perlin, fast and flow (the tensor-product kernels): two
 * component words sharing three hash bits, 128 vectors. With unit
 * gradients the quintic and smoothstep blends pull the field's gradient
 * towards the diagonals (their orientation histograms peak there at 1.25
 * even with every direction on the circle); a set whose long vectors lie
 * near the axes cancels that pull, in the plain field and near its zero
 * set (the crease of a ridged octave), which wants a little more of it.
 * Each component is a float made of hash bits alone, as comp_word: a
 * sign, exponent bit 1 (a factor 4, the component's own bit) and a 3-bit
 * field k in float bits 21 to 23 (exponent bit 0 and the mantissa's top
 * two bits: 1, 1.25, 1.5, 1.75, 2, ..., 3.5) that both components read, y
 * its complement:
 *   x = +-4^ex m(k) / 8, y = +-4^ey m(7 - k) / 8.
 * The shared field keeps the two magnitudes apart (a long x goes with a
 * short y; lengths 0.332 to 1.82, rms 1.143, where independent components
 * reach twice their rms and their maximum, every component at its
 * largest, set the scale); the factors 4 spread the directions out to
 * the axes; the complement makes the set symmetric under the axis swap,
 * so no swap and no sign flip of the input is needed: a corner costs a
 * shift, a few and-or operations and a multiply-add, less than grad8.
 * Bits: x's sign 31, ex 24, k 21 to 23; y's sign 27, ey 20. Chosen on a
 * model of the histograms of tests/test_isotropy.c over many seeds, and
 * measured there (perlin, the mean over seeds 1 to 6): plain 1.105 and
 * ridged 1.092, where grad32t (32 directions with lengths 1 + 0.3 cos 4
 * theta, the set before, at 1.1 times the classic kernels' cost) measured
 * 1.127 and 1.207 (over 36 seeds it still leans to the axes, 1 + 0.045
 * cos 4 theta: the variants tried, tests/test_isotropy.c). Its maximum needs every corner's
 * vector to be the one pointing at the sample, so the kernels scale it
 * at the 1e-6 quantile and plateau-limit it (lattice_kernels.c). */
#define PAIR_BASE 0x3e000000u /* 2^-3: exponent bits 0 and 1 clear */
#define PAIR_SE 0x81000000u   /* float bits 31 (sign) and 24 (ex) */
#define PAIR_K 0x00e00000u    /* float bits 21 to 23: k, y's complemented */
/* Fast's smoothstep pulls less towards the diagonals than the quintic,
 * and the full set overshot there (axis peaks: plain 1.108 over seeds 1
 * to 6, where grad32t measured 1.074): its k is bits 23 and 21 only, the
 * mantissa's 1.5 left out (64 vectors, lengths 0.35 to 1.61), which
 * leaves the axes less long. */
#define PAIR_K_SMOOTH 0x00a00000u

/* the vector of h with k in the float bits of kmask (PAIR_K or
 * PAIR_K_SMOOTH) */
static inline void grad_pair_vec(uint32_t h, uint32_t kmask, float *g)
{
    const uint32_t t = h << 4; /* y's sign and ey from bits 27 and 20 */
    g[0] = u2f((h & (PAIR_SE | kmask)) | PAIR_BASE);
    g[1] = u2f((t & PAIR_SE) | (~h & kmask) | PAIR_BASE);
}

static inline float grad_pair(uint32_t h, uint32_t kmask, float x, float y)
{
    float g[2];
    grad_pair_vec(h, kmask, g);
    return fma_f(g[0], x, g[1] * y);
}

/* 3D and 4D for every lattice kernel (perlin, fast, flow and simplex):
 * every component its own magnitude and sign from hash bits, independent
 * of the others. Independent components with the normal law's fourth moment
 * (kurtosis 3) make a set isotropic to fourth order (the normal law is
 * the only one with independent components that is fully isotropic),
 * and 2^12 (3D) or 2^16 (4D) vectors leave no direction a peak of its
 * own. A component is one word: 4 hash bits written into a float's sign,
 * its two lowest exponent bits and its highest mantissa bit,
 * +-2^e (1 + f / 2) / 8 for e in 0..3, f in 0..1 (0.125 to 1.5,
 * kurtosis 2.78): one shift and one and-or (a vpternlogd on AVX-512), no
 * multiply, no flip of the input, no table, so a corner costs about what
 * grad12 does. The shifts 0, 3 and 6 read bits {22-24, 31}, {19-21, 28}
 * and {16-18, 25}: disjoint, all from bit 16 up (the hash's good bits);
 * 4D's fourth component takes the rest, 26, 27, 29 and 30 (three shifts).
 * Simplex normalises each corner's vector (ind_unit): its range is
 * reached by one corner's term alone, so unnormalised its scale was set by
 * the longest vector and its field's rms was half the classic sets' (3D
 * 0.19 against 0.39, 4D 0.12 against 0.25); the directions of the
 * normalised set are as even (E u_x^4 / E u_x^2 u_y^2 is 3.02 in 3D, 3.16
 * in 4D; 3 on the sphere). 256 and 2048 unit directions built by cubics
 * (the sets before these) kept the contrast too, at 1.5x and 1.7x the
 * classic kernels' cost.
 * Orientation histograms: tests/test_isotropy.c. */
#define COMP_FIELD 0x81c00000u /* float bits 31 (sign) and 22 to 24 */
#define COMP_BASE 0x3e000000u  /* 2^-3 */

/* the component from h's bits 31 - s (sign) and 22 - s to 24 - s */
static inline float comp_word(uint32_t h, int s)
{
    return u2f(((h << s) & COMP_FIELD) | COMP_BASE);
}

/* 4D's fourth: exponent bits from 29 and 30, mantissa bit 27, sign bit 26 */
static inline float comp_word_w(uint32_t h)
{
    return u2f(((h >> 6) & 0x01800000u) | ((h >> 5) & 0x00400000u) | ((h << 5) & 0x80000000u) | COMP_BASE);
}

static inline float grad_ind3(uint32_t h, float x, float y, float z)
{
    return fma_f(comp_word(h, 0), x, fma_f(comp_word(h, 3), y, comp_word(h, 6) * z));
}

static inline void grad_ind3_vec(uint32_t h, float *g)
{
    g[0] = comp_word(h, 0);
    g[1] = comp_word(h, 3);
    g[2] = comp_word(h, 6);
}

static inline float grad_ind4(uint32_t h, float x, float y, float z, float w)
{
    return fma_f(comp_word(h, 0), x, fma_f(comp_word(h, 3), y, fma_f(comp_word(h, 6), z, comp_word_w(h) * w)));
}

static inline void grad_ind4_vec(uint32_t h, float *g)
{
    grad_ind3_vec(h, g);
    g[3] = comp_word_w(h);
}

/* 1 / |g| of grad_ind3 or grad_ind4's vector of h, within 3.4%, for
 * simplex: the reciprocal square root by halving the exponent on the bits
 * (a shift and a subtraction from the classic constant, no Newton step:
 * exact float operations, the same bits on every path). The normalised
 * lengths over every vector of the sets: 0.966 to 1.0339486 (3D),
 * 1.0339601 (4D). *c gets it too. */
static inline float ind_unit(int dims, uint32_t h, float *c)
{
    float g[4], g2;
    if (dims == 3) grad_ind3_vec(h, g);
    else grad_ind4_vec(h, g);
    g2 = dims == 3 ? fma_f(g[0], g[0], fma_f(g[1], g[1], g[2] * g[2]))
                   : fma_f(g[0], g[0], fma_f(g[1], g[1], fma_f(g[2], g[2], g[3] * g[3])));
    *c = rsqrt_estimate(g2);
    return *c;
}

/* A corner's gradient term and vector in the set of dims (2 to 4) and
 * gradients (a constant in every instantiation): iso 0 classic, ISO_SET
 * isotropic for simplex (grad_arc in 2D), ISO_TENSOR isotropic for the
 * quintic tensor-product kernels (perlin, flow: grad_pair in 2D),
 * ISO_SMOOTH for fast's smoothstep (grad_pair with PAIR_K_SMOOTH); all
 * take grad_ind3 and grad_ind4 in 3D and 4D. */
enum { ISO_SET = 1, ISO_TENSOR = 2, ISO_SMOOTH = 3 };

/* the 2D set of an isotropic iso */
#define PAIR_KMASK(iso) ((iso) == ISO_SMOOTH ? PAIR_K_SMOOTH : PAIR_K)

LOOP_INLINE float grad_set(int dims, int iso, uint32_t h, const float *d)
{
    if (dims == 2)
        return iso >= ISO_TENSOR ? grad_pair(h, PAIR_KMASK(iso), d[0], d[1])
               : iso             ? grad_arc(h, d[0], d[1])
                                 : grad8(h, d[0], d[1]);
    if (dims == 3)
        return iso ? grad_ind3(h, d[0], d[1], d[2]) : grad12(h, d[0], d[1], d[2]);
    return iso ? grad_ind4(h, d[0], d[1], d[2], d[3]) : grad32(h, d[0], d[1], d[2], d[3]);
}

LOOP_INLINE void grad_set_vec(int dims, int iso, uint32_t h, float *g)
{
    if (dims == 2) iso >= ISO_TENSOR ? grad_pair_vec(h, PAIR_KMASK(iso), g) : iso ? grad_arc_vec(h, g) : grad8_vec(h, g);
    else if (dims == 3) iso ? grad_ind3_vec(h, g) : grad12_vec(h, g);
    else iso ? grad_ind4_vec(h, g) : grad32_vec(h, g);
}

/* ---- limiter ------------------------------------------------------------------
 * The knee of the limiters (lattice_kernels.c's soft_limit, plateau_limit
 * below): values up to it pass unchanged. */
#define SOFT_KNEE 0.9f

/*
 * The isotropic sets' limiter (2D to 4D: perlin, fast, flow; and every
 * isotropic vector channel, simplex's too: vector channels, below),
 * cheaper than soft_limit: no division, and its clamps are integer minima
 * and maxima on the bits (non-negative floats order as integers): 9
 * AVX-512 instructions where soft_limit takes 17 and a division, in a
 * loop of about 210. With u = min(max(|x| - 0.9, 0), 0.2),
 *   y = sign(x) min(|x| - 2.5 u^2, 1):
 * y = x up to the knee, then 0.9 + u - 2.5 u^2, whose slope 1 - 5 u falls
 * to 0 at |x| = 1.1, and 1 from there. Odd, monotone, C1 with slope <= 1,
 * |y''| <= 5, never past 1; 1 is reached only past 1.1 times the
 * 1e-6 quantile the scales take (1 sample in 10^7 or fewer). The classic
 * sets keep soft_limit, and their bits.
 */
#define PLATEAU_U 0.2f

static inline float plateau_limit(float x, float *slope)
{
    const uint32_t sign = f2u(x) & 0x80000000u;
    const float ax = u2f(f2u(x) & 0x7fffffffu);
    /* on the bits of non-negative floats, which order as integers:
     * u = max(|x| - knee, 0), uc = min(u, 0.2), min(y, 1) */
    const int32_t e = (int32_t)f2u(ax - SOFT_KNEE);
    const uint32_t u = (uint32_t)(e > 0 ? e : 0), cap = f2u(PLATEAU_U);
    const float uc = u2f(u < cap ? u : cap);
    const uint32_t y = f2u(fma_f(-2.5f * uc, uc, ax)), one = 0x3f800000u;
    *slope = fma_f(-5.0f, uc, 1.0f);
    return u2f((y < one ? y : one) | sign);
}

/* ---- vector channels ----------------------------------------------------------
 * output = "vector" walks the lattice once for every channel: cells,
 * corner hashes, fades and falloffs are shared. The gradient kinds hash
 * their corners with their own seed (vec_seed: the channels are unrelated
 * to the scalar basis at the same seed) and take each channel's gradient
 * from its own word of the one corner hash (channel_word), with no rehash
 * per corner and channel, in the set p->gradients names:
 *   classic: in 2D a diagonal (+-1, +-1), two sign bits per channel
 *     (31-30, 29-28, 27-26: one flip each, where grad8 needs a dozen
 *     operations); in 3D and 4D grad12 and grad32 of the corner hash
 *     times an odd constant per channel. The diagonals have grad8's
 *     second moments (E[g g^T] = I / 2 once divided by sqrt 2), hence its
 *     statistics, and are a subset of it, hence no larger maximum: the
 *     scalar scales hold. The bits of 0.1.0.
 *   isotropic: the scalar kernel's own set for the basis and dims
 *     (grad_set: grad_pair, grad_arc, grad_ind3 and grad_ind4, simplex's
 *     normalised) of the corner hash folded once, times an odd constant
 *     per channel (channel 0 the hash itself: the sets read up to 15
 *     bits, three channels' worth is more than the top 16), on the
 *     lattice the scalar kernel reads (perlin's and fast's 3D
 *     orientation, simplex's turns), with its range scale. The classic
 *     channels peak at the diagonals in the orientation histogram of
 *     tests/test_isotropy.c (seed 7: perlin 2D 1.44 to 1.49, simplex 2D
 *     1.98 to 2.02), and every warp by them shows the lattice's grain;
 *     the isotropic ones measure 1.04 to 1.09, 3D's xy slice too.
 *
 * Gradient noise is 0 at every lattice point whatever its gradients, so on
 * a shared lattice every channel would vanish at the same regular grid of
 * points (a warp would leave them in place). The field therefore adds,
 * per channel, a small bump v * height * (1 - r^2 / rho^2)_+^3 centred on
 * the corner nearest the point: with rho at most 0.3 cells (0.25 or 0.2 on
 * the simplex grids) the bumps of different corners never overlap, so the
 * nearest corner's is the only one that can be non-zero (one bump and
 * one value per channel and point, not per corner). With the classic sets
 * they stay clear of where the gradient terms peak, so the basis's
 * maximum, hence its range scale, is unchanged (searched numerically, as
 * the ranges in lattice_kernels.c: the largest value within rho of a
 * corner for any gradients and v = +-1 stays below the maximum), and each
 * channel keeps the scalar basis's statistics (rms within 4%; with the
 * isotropic sets 6%, tests/test_vector_noise.c). The isotropic sets'
 * scales are statistical (the 1e-6 quantile: perlin, fast) or exact
 * with no margin for a bump (simplex 3D's and 4D's maxima are one
 * corner's term alone, 0.19 and 0.21 from it, inside or at the rim of
 * the bump), so every isotropic channel passes through plateau_limit
 * (above), which keeps [-1, 1] whatever the bump adds; the bump's height
 * is the classic one's in output units (its peak 0.7: height times scale
 * the same), under the knee. v comes from the nearest
 * corner's hash rehashed (bump_hash), so it is unrelated to the
 * gradients. At the lattice points the channels are independent values,
 * so the displacement there is spread as elsewhere (a dims-channel field
 * within 0.05 of a lattice point: median |v| 0.53 to 0.63;
 * tests/test_vector_noise.c checks the lattice points). A constant mixed into
 * each corner's term (a value-noise part, the obvious fix) raises the
 * maximum where the gradients peak: to keep the range the scale then
 * shrinks every channel's rms by 20 to 35%.
 * Not fixed: 3D simplex has spots reached by one corner only; two channels
 * with parallel gradients there vanish on one plane, so three channels can
 * share a short line of zeros outside the bump (rare; 2D has none).
 * The bump is C2 at its rim. Value noise needs none (it has no zeros); its
 * channels keep the corner hash of the scalar seed, each rehashed
 * (channel_hash of channel_fold) for a value of its own.
 */
#define VEC_CHANNELS 3
static const uint32_t channel_mul[VEC_CHANNELS] = {0x7feb352du, 0x846ca68bu, 0x297a2d39u};

/* the corner-hash seed of the gradient kinds' channels */
static inline uint32_t vec_seed(uint32_t seed)
{
    return ng_hash_mix(ng_hash_seed(seed) ^ 0x68e31da4u);
}

/* value noise: channel c's own hash of the folded corner hash */
static inline uint32_t channel_hash(uint32_t folded, int c)
{
    return folded * channel_mul[c];
}

/* the corner hash folded once for every channel */
static inline uint32_t channel_fold(uint32_t h)
{
    return h ^ (h >> 16);
}

/* The word channel c takes its gradient from, channel 0 the corner hash
 * itself: classic, in 2D the hash shifted to the diagonal's two sign
 * bits, in 3D and 4D the hash times an odd constant; isotropic, the hash
 * folded once for every channel (channel_fold, as value noise's) times
 * the constant. The isotropic sets read bits 16 to 27 of the word, which
 * a product takes from the hash's low bits, weak ones (ng_lattice_hash):
 * unfolded, simplex 2D's channel 2 measured 1.151 in the orientation
 * histogram (tests/test_isotropy.c), its other channels 1.05 to 1.07. */
LOOP_INLINE uint32_t channel_word(int dims, int iso, uint32_t h, int c)
{
    if (c == 0) return h;
    if (iso) return channel_fold(h) * channel_mul[c];
    return dims == 2 ? h << (2 * c) : h * channel_mul[c];
}

/* A channel's gradient term: classic 2D the diagonal of bits 31 and 30,
 * unscaled (length sqrt 2; CHANNEL_GRAD_NORM undoes it), 3D and 4D the
 * scalar sets; isotropic (iso as grad_set's) the scalar kernel's set. */
LOOP_INLINE float channel_grad(int dims, int iso, uint32_t w, const float *d)
{
    if (iso) return grad_set(dims, iso, w, d);
    if (dims == 2) return flip_bit(d[0], w, 31) + flip_bit(d[1], w, 30);
    if (dims == 3) return grad12(w, d[0], d[1], d[2]);
    return grad32(w, d[0], d[1], d[2], d[3]);
}

/* its partials */
LOOP_INLINE void channel_grad_vec(int dims, int iso, uint32_t w, float *g)
{
    if (iso) {
        grad_set_vec(dims, iso, w, g);
    } else if (dims == 2) {
        g[0] = flip_bit(1.0f, w, 31);
        g[1] = flip_bit(1.0f, w, 30);
    } else if (dims == 3) {
        grad12_vec(w, g);
    } else {
        grad32_vec(w, g);
    }
}

/* what multiplies the classic channel_grad's terms to give the set's unit
 * lengths */
#define CHANNEL_GRAD_NORM(dims) ((dims) == 2 ? 0.70710678f : 1.0f)

/* The hash the nearest corner's bump values come from. */
static inline uint32_t bump_hash(uint32_t h)
{
    return (h ^ (h >> 16)) * 0x9e3779b1u;
}

/* Channel c's bump value in (-1/2, 1/2), symmetric, never 0, exact: 22 bits
 * of its word as the mantissa of a float in [1, 2) with the last bit set,
 * less 3/2. */
static inline float bump_value(uint32_t hb, int c)
{
    return u2f(((c == 0 ? hb : hb * channel_mul[c]) >> 9) | 0x3f800001u) - 1.5f;
}

/* (1 - r2 / rho^2)_+^3 from inv = 1 / rho^2; t2 = (1 - r2 / rho^2)_+^2 for
 * its slope: d/dd_e = -6 inv t2 d_e. */
static inline float vec_bump(float r2, float inv, float *t2)
{
    int32_t u = (int32_t)f2u(1.0f - r2 * inv);
    float t = u2f((uint32_t)(u > 0 ? u : 0)); /* max(t, 0) on the bits: one integer max */
    *t2 = t * t;
    return *t2 * t;
}

/* bit-mask select of words: m all ones or zero */
static inline uint32_t select_u(uint32_t m, uint32_t a, uint32_t b)
{
    return (a & m) | (b & ~m);
}

/* A vector kernel of a fixed channel count, its _d form (grad as in
 * ng_vector_d_fn). */
typedef void (*vec_kernel)(const ng_noise_pts *p, float *out);
typedef void (*vec_kernel_d)(const ng_noise_pts *p, float *out, float *grad);

/* channels 2 and 3 by their kernels; 1 by the 2-channel one in slices
 * (channel 0 is the same bits either way). */
static inline void vec_dispatch(const ng_noise_pts *p, int channels, float *out, float *grad,
                                vec_kernel two, vec_kernel three, vec_kernel_d two_d,
                                vec_kernel_d three_d)
{
    enum { SLICE = 256 };
    float buf[2 * SLICE], gbuf[2 * 4 * SLICE];
    int i, d, e;
    if (p->n <= 0) return;
    if (channels >= 3) {
        if (grad) three_d(p, out, grad);
        else three(p, out);
        return;
    }
    if (channels == 2) {
        if (grad) two_d(p, out, grad);
        else two(p, out);
        return;
    }
    for (i = 0; i < p->n; i += SLICE) {
        ng_noise_pts q = *p;
        q.n = p->n - i < SLICE ? p->n - i : SLICE;
        for (d = 0; d < p->dims; d++) q.f[d] = p->f[d] + i;
        if (grad) {
            two_d(&q, buf, gbuf);
            for (e = 0; e < p->dims; e++)
                memcpy(grad + (size_t)e * (size_t)p->n + i, gbuf + (size_t)e * (size_t)q.n,
                       (size_t)q.n * sizeof *grad);
        } else {
            two(&q, buf);
        }
        memcpy(out + i, buf, (size_t)q.n * sizeof *out);
    }
}

/* ---- dispatch ---------------------------------------------------------------- */

static inline void unsupported(const ng_noise_pts *p, float *out)
{
    if (p->n > 0) memset(out, 0, (size_t)p->n * sizeof *out);
}

/* Zeros in out and in grad's dims planes (none for dims below 1), times
 * the gradient multipliers as a kernel's partials (a negative one: -0). */
static inline void unsupported_d(const ng_noise_pts *p, float *out, float *grad)
{
    int d, i;
    unsupported(p, out);
    for (d = 0; d < p->dims; d++) { /* dims past 4 too: every plane the caller gave */
        const float z = 0.0f * (d < 4 ? ng_pts_gmul(p, d) : 1.0f) * ng_pts_gmul_all(p);
        for (i = 0; i < p->n; i++) grad[(size_t)d * (size_t)p->n + (size_t)i] = z;
    }
}

typedef void (*kernel)(const ng_noise_pts *p, float *out);

/* With gradient: out and the gradient's planes (up to dims), restrict so
 * that the loop needs no run-time overlap check per pair of outputs and
 * inputs; with 3D's and 4D's count the compilers would not vectorise it. */
typedef void (*kernel_d)(const ng_noise_pts *p, float *restrict out, float *restrict gx,
                         float *restrict gy, float *restrict gz, float *restrict gw);

/* The one branch on tiling, per call: any axis with a period. */
static inline int tiled_call(const ng_noise_pts *p)
{
    int d, tiled = 0;
    for (d = 0; d < p->dims; d++) tiled |= p->period[d] != 0;
    return tiled;
}

static inline void dispatch(const ng_noise_pts *p, float *out, const kernel fn[4][2])
{
    if (p->dims < 1 || p->dims > 4 || !fn[p->dims - 1][0])
        unsupported(p, out);
    else
        fn[p->dims - 1][tiled_call(p)](p, out);
}

/* The same for bases without a tiled form (simplex, white). */
static inline void by_dims(const ng_noise_pts *p, float *out, const kernel fn[4])
{
    if (p->dims < 1 || p->dims > 4)
        unsupported(p, out);
    else
        fn[p->dims - 1](p, out);
}

/* Calls fn with grad's dims planes of n, none formed past the last. */
static inline void call_d(kernel_d fn, const ng_noise_pts *p, float *out, float *grad)
{
    size_t n = (size_t)p->n;
    int dims = p->dims;
    fn(p, out, grad, dims > 1 ? grad + n : NULL, dims > 2 ? grad + 2 * n : NULL,
       dims > 3 ? grad + 3 * n : NULL);
}

static inline void dispatch_d(const ng_noise_pts *p, float *out, float *grad, const kernel_d fn[4][2])
{
    if (p->n <= 0) return;
    if (p->dims < 1 || p->dims > 4 || !fn[p->dims - 1][0])
        unsupported_d(p, out, grad);
    else
        call_d(fn[p->dims - 1][tiled_call(p)], p, out, grad);
}

#endif
