/*
 * bits.h — float selects on bit patterns, for the sources compiled once per
 * SIMD path (nodes/<family>_kernels.c, loops.c). Under the default
 * -ftrapping-math GCC will not if-convert a float select (it sinks
 * arithmetic into the arm that uses it, then may not speculate it), so a
 * loop would not vectorise, and scalar code would branch on random hash
 * bits and mispredict. Mask blends and sign-bit flips are exact, so the
 * results are the same bits as the plain expressions.
 */
#ifndef NG_BITS_H
#define NG_BITS_H

#include <stdint.h>
#include <string.h>

static inline __attribute__((always_inline)) uint32_t f2u(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline __attribute__((always_inline)) float u2f(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The reciprocal square root's estimate from a positive float's bits,
 * RSQRT_MAGIC - (bits >> 1): within 3.5% (rsqrt_estimate, below). */
#define RSQRT_MAGIC 0x5f3759dfu

/* c ? a : b for c in {0, 1} */
static inline __attribute__((always_inline)) float select_f(uint32_t c, float a, float b)
{
    uint32_t m = 0u - c;
    return u2f((f2u(a) & m) | (f2u(b) & ~m));
}

/* a * b + c rounded once, the same bits on every path: -ffp-contract=off
 * keeps the compiler from fusing on its own, so a fusion is written here
 * and only here. Paths built with -mfma (avx2, avx512) get the
 * instruction; the others call libm's fmaf, which is exact (correctly
 * rounded) too, and slower: its loop no longer vectorises. */
static inline __attribute__((always_inline)) float fma_f(float a, float b, float c)
{
    return __builtin_fmaf(a, b, c);
}

/* 1 / sqrt(s) for a positive normal float s, by multiplies and fused
 * multiply-adds alone (no square root, no division: the slowest vector
 * instructions), the same bits on every path: the estimate y =
 * rsqrt_estimate(s), e = rsqrt_residue(s, y) = 1 - s y^2 (in [-0.0692,
 * 0.0677] over every mantissa), then 1 / sqrt(s) = y (1 - e)^(-1/2) = y +
 * y e q(e) (rsqrt_f), q = rsqrt_series: the cubic nearest ((1 - e)^(-1/2)
 * - 1) / e over that range in the maximum norm (Remez; within 6.8e-7 of it, so 4.7e-8 of
 * the result, below a float's rounding; the series to e^4 took a fused
 * multiply-add more for 2.4e-8). A caller that scales the result (the
 * light: num / sqrt(s)) multiplies y and y e first. */
static inline __attribute__((always_inline)) float rsqrt_estimate(float s)
{
    return u2f(RSQRT_MAGIC - (f2u(s) >> 1));
}

/* e = 1 - s y^2, the estimate y's residue */
static inline __attribute__((always_inline)) float rsqrt_residue(float s, float y)
{
    return fma_f(-(s * y), y, 1.0f);
}

static inline __attribute__((always_inline)) float rsqrt_series(float e)
{
    return fma_f(fma_f(fma_f(0.274287123f, e, 0.313656145f), e, 0.374999250f), e, 0.499999322f);
}

/* 1 / sqrt(s) itself, y + y e q(e) */
static inline __attribute__((always_inline)) float rsqrt_f(float s)
{
    const float y = rsqrt_estimate(s), e = rsqrt_residue(s, y);
    return fma_f(y * e, rsqrt_series(e), y);
}

/* 1 / x for a positive normal float x within 6.6e-6 of it, by multiplies
 * and fused multiply-adds alone: the estimate from the bits,
 * 0x7ef311c3 - bits (within 5.1 %), then two Newton steps r + r (1 - x r),
 * each squaring the error. */
static inline __attribute__((always_inline)) float recip_f(float x)
{
    float r = u2f(0x7ef311c3u - f2u(x));
    r = fma_f(r, fma_f(-x, r, 1.0f), r);
    return fma_f(r, fma_f(-x, r, 1.0f), r);
}

/* A turned offset: row t of a turn (ng_block.turn) applied to point i of
 * planes f, fma(t2, f2, fma(t1, f1, t0 f0)) (axes 2: the last term left
 * out); the same bits on every path, in loops.c's loop_turn (the pass that
 * multiplies a turn out) and in the lattice kernels that read a turn
 * (ng_noise_pts.turn), so either gives the other's bits (the isotropic
 * 3D and 4D kernels apply a folded matrix instead: lattice_kernels.c,
 * turn_fold). */
static inline __attribute__((always_inline)) float turned_off(const float t[3], const float *const *f, int axes,
                                                              int i)
{
    float x = fma_f(t[1], f[1][i], t[0] * f[0][i]);
    return axes == 3 ? fma_f(t[2], f[2][i], x) : x;
}

/* floor for |x| <= 2^30, as a float (exact, so the same bits on every
 * path). Paths with SSE4.1 round in one instruction (vroundps/vrndscaleps;
 * aarch64 (frintm) likewise; the Makefile builds them with -fno-trapping-math, without which GCC will
 * not vectorise floorf); the others truncate and step down, without libm,
 * so the loop stays vectorisable. */
static inline __attribute__((always_inline)) float floor_f(float x)
{
#if defined(__SSE4_1__) || defined(__aarch64__)
    return __builtin_floorf(x);
#else
    float i = (float)(int32_t)x;
    return x < i ? i - 1.0f : i;
#endif
}

#endif
