/*
 * noise_kernels.h — the lattice noise bases (value, improved Perlin,
 * simplex) evaluated over a batch of points, and the integer hash every
 * procedural node shares (white noise, cellular, ...).
 *
 * Precision: a batch is a double anchor plus small float offsets. Kernels
 * split the anchor once into a 32-bit lattice cell (added inside the hash)
 * and a float fraction, so a render at 1e9 is as fine-grained as one at 0.
 * The lattice wraps modulo 2^32 cells per axis.
 */
#ifndef NG_NOISE_KERNELS_H
#define NG_NOISE_KERNELS_H

#include <stdint.h>

enum { NG_WORLEY_F1, NG_WORLEY_F2, NG_WORLEY_F2_F1, NG_WORLEY_CELL };
enum { NG_METRIC_EUCLIDEAN, NG_METRIC_MANHATTAN, NG_METRIC_CHEBYSHEV };

typedef struct ng_noise_pts {
    int n, dims;       /* 1 to 4 */
    double anchor[4];  /* noise-space anchor, may be huge: point i is at anchor[d] + f[d][i] */
    const float *f[4]; /* noise-space offsets, modest magnitude (|f| < ~1e5); f[d] read for d < dims */
    uint32_t seed;
    /* Tileable output: the lattice repeats every period[d] cells along axis
     * d (0: no period). Only whole cells, so a basis's look is unchanged. */
    uint32_t period[4];
    float flow;        /* perlin flow: gradient rotation in turns (0 and 1 identical) */
    float jitter;      /* worley: feature point spread within its cell, 0 to 1 */
    int feature;       /* worley: NG_WORLEY_* */
    int metric;        /* worley: NG_METRIC_* */
} ng_noise_pts;

/*
 * Each writes out[0..n-1]. Natural range of all three: symmetric, inside
 * [-1, 1] for every input, with the extremes reachable to within 1e-4.
 * Perlin is exactly 0 at integer lattice points. Unsupported dims write
 * zeros. Non-finite or enormous positions give finite, defined output.
 */
void ng_value_noise(const ng_noise_pts *p, float *out);
void ng_perlin_noise(const ng_noise_pts *p, float *out);
void ng_simplex_noise(const ng_noise_pts *p, float *out);

/* ---- hashing ------------------------------------------------------------
 * Coordinates are chained through a bijective 32-bit finaliser, one step per
 * axis, like Perlin's permutation chain P[P[P[x]+y]+z] but without a table
 * and without a period of 256. Because ng_hashN is a chain of ng_hash_step,
 * a kernel can hash a shared prefix (seed, x) once for several corners.
 * Seeds differing in any bit give unrelated fields (the seed is mixed before
 * the first coordinate and coordinates are multiplied before being folded in,
 * so a new seed is not a translate of the old field).
 */

/* Chris Wellons' "lowbias32" finaliser: a bijection with near-ideal
 * avalanche; unsigned arithmetic only. */
static inline uint32_t ng_hash_mix(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x7feb352dU;
    h ^= h >> 15;
    h *= 0x846ca68bU;
    h ^= h >> 16;
    return h;
}

static inline uint32_t ng_hash_seed(uint32_t seed)
{
    return ng_hash_mix(seed ^ 0x5bd1e995U);
}

static inline uint32_t ng_hash_step(uint32_t h, uint32_t coord)
{
    return ng_hash_mix(h ^ (coord * 0x9e3779b1U));
}

static inline uint32_t ng_hash1(uint32_t x, uint32_t seed)
{
    return ng_hash_step(ng_hash_seed(seed), x);
}

static inline uint32_t ng_hash2(uint32_t x, uint32_t y, uint32_t seed)
{
    return ng_hash_step(ng_hash1(x, seed), y);
}

static inline uint32_t ng_hash3(uint32_t x, uint32_t y, uint32_t z, uint32_t seed)
{
    return ng_hash_step(ng_hash2(x, y, seed), z);
}

static inline uint32_t ng_hash4(uint32_t x, uint32_t y, uint32_t z, uint32_t w,
                                uint32_t seed)
{
    return ng_hash_step(ng_hash3(x, y, z, seed), w);
}

/* Top 24 bits as a float in [0, 1): exact, every value equally likely. */
static inline float ng_hash_unit(uint32_t h)
{
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

/* Top 24 bits as a float in [-(1 - 2^-24), 1 - 2^-24], symmetric about 0
 * and never exactly 0. Exact: (h >> 8) < 2^24, 8388607.5 = 2^23 - 1/2 is a
 * float, and the scale is a power of two. */
static inline float ng_hash_signed(uint32_t h)
{
    return ((float)(h >> 8) - 8388607.5f) * (1.0f / 8388608.0f);
}

#endif
