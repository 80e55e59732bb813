/*
 * cell_parts.h — what the cellular kernel units share (worley, sparse,
 * alligator: nodes/simd/worley_kernels.c and impulse_kernels.c, compiled once
 * per SIMD path).
 *
 * All three visit the 3^d cells around each point. Points are processed in
 * chunks. Worley in 1D-3D walks a point's whole block in registers
 * (point-major, cells unrolled); 4D Worley, sparse and alligator go
 * neighbour-major: for each of the 3^d cell offsets a straight loop over
 * the chunk's points hashes that cell and folds its contribution into
 * per-point state, with the hash prefix (seed ^ x, seed ^ x ^ y, ...)
 * computed once for the cells that share it. Every inner loop is
 * branch-free (selects on bit patterns) so it vectorises. Per-point
 * arithmetic is float; the anchor is split once per call. Each point's
 * value depends on that point alone, in a fixed order of operations, so a
 * batch split never changes a bit.
 *
 * A cell's random numbers come from its hash h (ng_cell_hash: the mixed
 * seed xor-ed with the premultiplied coordinates, so prefixes are xors and
 * the one multiply is per cell) and ng_cell_word(h, k): 16 bits per feature
 * coordinate. The per-cell value (Worley CELL, alligator height) is
 * ng_hash_unit(ng_hash_step(h, 1)). Everything here is static inline, so
 * each unit keeps what it uses.
 */
#ifndef NG_CELL_PARTS_H
#define NG_CELL_PARTS_H

#include "bits.h"
#include "cell_kernels.h"
#include "kernels.h"

#include <math.h>
#include <string.h>

/* Helpers called inside the loops must be inlined or the loop cannot
 * vectorise. */
#define LOOP_INLINE static inline __attribute__((always_inline))

/* Constant-count loops inside the point loop are unrolled first, so the
 * vectoriser works on the points. */
#if defined(__clang__)
#define UNROLL _Pragma("clang loop unroll(full)")
#else
#define UNROLL _Pragma("GCC unroll 27")
#endif

/* Float min/max and selects are done on bit patterns (bits.h):
 * non-negative floats order like their bits as integers. */
/* min and max of non-negative float bit patterns (< 2^31, so a signed
 * compare, which SSE2 has, orders them) */
LOOP_INLINE uint32_t min_bits(uint32_t a, uint32_t b)
{
    return (int32_t)a < (int32_t)b ? a : b;
}

LOOP_INLINE uint32_t max_bits(uint32_t a, uint32_t b)
{
    return (int32_t)a < (int32_t)b ? b : a;
}

LOOP_INLINE float abs_f(float x)
{
    return u2f(f2u(x) & 0x7fffffffu);
}

/* max(x, 0), negative -> +0 */
LOOP_INLINE float pos_part(float x)
{
    uint32_t u = f2u(x);
    return u2f(u & ((u >> 31) - 1u));
}

#define INF_BITS 0x7f800000u
#define ONE_BITS 0x3f800000u
/* Positions are clamped to |x| <= 2^30 so the float -> int32 cell
 * conversion is defined for any input (NaN and infinities too); floats there
 * are 128 cells apart, so nothing is lost. */
#define POS_LIMIT_BITS 0x4e800000u

/* Points per chunk: the chunk's scratch and per-point state (~30 KB) stay
 * in L1. */
#define CHUNK 256

/* The chunk's arrays start on a cache line: a vector of AVX-512 is a
 * line, and one that straddles two costs a split on every load and
 * store. The arrays came after 28 bytes of scalars, so every access of
 * the loops over them was a split (perf put a fifth of alligator's time
 * on one store of chunk_load). */
#define NG_CHUNK_ALIGN __attribute__((aligned(64)))

/* One axis of the anchor, split once per call. */
typedef struct cell_axis {
    float frac;      /* anchor - floor(anchor), in [0, 1] */
    uint32_t base;   /* floor(anchor) mod period, or mod 2^32 without one */
    uint32_t period; /* 0: none */
} cell_axis;

static inline cell_axis split_axis(double a, uint32_t period)
{
    cell_axis r;
    double c, m = period ? (double)period : 4294967296.0;
    if (!isfinite(a)) a = 0.0; /* defined garbage rather than undefined behaviour */
    c = floor(a);
    r.frac = (float)(a - c);
    /* The integral cell mod m, positive: fmod is exact for any double (no
     * int64 overflow past 2^63) and c + m is an exact integer in (0, m). */
    c = fmod(c, m);
    if (c < 0.0) c += m;
    r.base = (uint32_t)c;
    r.period = period;
    return r;
}

static inline void split_anchor(const ng_noise_pts *p, cell_axis ax[4])
{
    int d;
    for (d = 0; d < 4; d++) ax[d] = split_axis(d < p->dims ? p->anchor[d] : 0.0, p->period[d]);
}

LOOP_INLINE float clamp_pos(float frac, float off)
{
    uint32_t u = f2u(frac + off), mag = u & 0x7fffffffu;
    mag = mag < POS_LIMIT_BITS ? mag : POS_LIMIT_BITS; /* magnitudes order as integers */
    return u2f((u & 0x80000000u) | mag);
}

/* floor for |x| <= 2^30 without libm, so the loop stays vectorisable */
LOOP_INLINE int32_t floor_i32(float x)
{
    int32_t i = (int32_t)x;
    return i - (int32_t)(x < (float)i);
}

/* 16-bit halves of a hash word as units in [0, 1) */
LOOP_INLINE float unit_hi(uint32_t w)
{
    return (float)(int32_t)(w >> 16) * (1.0f / 65536.0f);
}

LOOP_INLINE float unit_lo(uint32_t w)
{
    return (float)(int32_t)(w & 0xffffu) * (1.0f / 65536.0f);
}

/* The same halves as signed values in [-1, 1], symmetric about 0 */
LOOP_INLINE float signed_hi(uint32_t w)
{
    return ((float)(int32_t)(w >> 16) - 32767.5f) * (1.0f / 32767.5f);
}

LOOP_INLINE float signed_lo(uint32_t w)
{
    return ((float)(int32_t)(w & 0xffffu) - 32767.5f) * (1.0f / 32767.5f);
}

/* ---- the 3^d neighbourhood of a chunk of points ------------------------ */

typedef struct cell_chunk {
    float t[4][CHUNK] NG_CHUNK_ALIGN; /* position inside the point's own cell, [0, 1) */
    uint32_t cell[4][CHUNK];          /* hash coordinate of the point's own cell */
    uint32_t c[4][3][CHUNK];          /* the same at offset o (index o + 1), premultiplied */
    uint32_t h[4][CHUNK];             /* hash prefix of the current cell through axis k */
    int dims, m;
    uint32_t seed; /* ng_hash_seed(p->seed) */
    int o[4];      /* current neighbour offset per axis, -1 to 1 (0 past dims) */
} cell_chunk;

/* The lattice primes by axis: the chunk stores each coordinate times its
 * axis's prime, so a cell's hash input is the xor of its axes' words. */
static const uint32_t cell_prime[4] = {NG_LATTICE_PRIME_X, NG_LATTICE_PRIME_Y, NG_LATTICE_PRIME_Z,
                                       NG_LATTICE_PRIME_W};

static inline void chunk_init(cell_chunk *ch, const ng_noise_pts *p)
{
    ch->dims = p->dims;
    ch->m = 0;
    ch->seed = ng_hash_seed(p->seed);
    memset(ch->o, 0, sizeof ch->o);
}

/*
 * Splits points [start, start + m) into cell and fraction and stores the
 * hash coordinates of their -1, 0, +1 neighbours per axis. The periodic
 * branch is per axis and chunk; only it pays for a division per point.
 */
static inline void chunk_load(cell_chunk *ch, const ng_noise_pts *p, const cell_axis *ax, int start,
                       int m)
{
    int k, i;
    ch->m = m;
    for (k = 0; k < ch->dims; k++) {
        const float *restrict f = p->f[k] + start;
        const float frac = ax[k].frac, fs = ng_pts_scale(p, k);
        const uint32_t base = ax[k].base, per = ax[k].period, prime = cell_prime[k];
        float *restrict t = ch->t[k];
        uint32_t *restrict own = ch->cell[k], *restrict c0 = ch->c[k][0],
                           *restrict c1 = ch->c[k][1], *restrict c2 = ch->c[k][2];
        if (!per) {
            for (i = 0; i < m; i++) {
                float x = clamp_pos(frac, f[i] * fs);
                int32_t ic = floor_i32(x);
                uint32_t cell = base + (uint32_t)ic;
                t[i] = x - (float)ic;
                own[i] = cell;
                c1[i] = cell * prime;
                c0[i] = c1[i] - prime;
                c2[i] = c1[i] + prime;
            }
        } else {
            for (i = 0; i < m; i++) {
                float x = clamp_pos(frac, f[i] * fs);
                int32_t ic = floor_i32(x);
                int64_t q = ((int64_t)base + ic) % (int64_t)per;
                q += q < 0 ? (int64_t)per : 0;
                t[i] = x - (float)ic;
                own[i] = (uint32_t)q;
                c0[i] = (q == 0 ? per - 1u : (uint32_t)q - 1u) * prime;
                c1[i] = (uint32_t)q * prime;
                c2[i] = ((uint32_t)q + 1u == per ? 0u : (uint32_t)q + 1u) * prime;
            }
        }
    }
}

/*
 * Asks for the lines of the next chunk's output (points start + CHUNK ..
 * start + 2 CHUNK - 1 of n; at the first chunk its own as well) with intent
 * to write, a chunk's work before they are written. Where the output is a
 * neighbourhood patch (core/hood.c: a grid shading's 259^2 cells, 17 MB
 * for a 2048^2 render, written once into memory no cache holds), the
 * kernel otherwise waited on every line it stored: alligator took 4.9 ns
 * a sample there against 4.5 at a render's pixels, whose block is in
 * cache. No value changes.
 */
LOOP_INLINE void prefetch_out(float *out, int start, int n)
{
    int i, end = start + 2 * CHUNK < n ? start + 2 * CHUNK : n;
    for (i = start ? start + CHUNK : 0; i < end; i += 16) __builtin_prefetch(out + i, 1, 3);
}

/* Hash inputs of the current cell from axis k0 on: the seed xor-ed with
 * the axes' words up to k; the last level is the cell's hash. */
static inline void levels_from(cell_chunk *ch, int k0)
{
    int k, i, m = ch->m, last = ch->dims - 1;
    for (k = k0; k <= last; k++) {
        const uint32_t *restrict c = ch->c[k][ch->o[k] + 1];
        const uint32_t *restrict prev = k ? ch->h[k - 1] : NULL;
        uint32_t *restrict h = ch->h[k];
        const uint32_t s = ch->seed;
        if (k == 0 && k == last)
            for (i = 0; i < m; i++) h[i] = ng_lattice_hash(s ^ c[i]);
        else if (k == 0)
            for (i = 0; i < m; i++) h[i] = s ^ c[i];
        else if (k == last)
            for (i = 0; i < m; i++) h[i] = ng_lattice_hash(prev[i] ^ c[i]);
        else
            for (i = 0; i < m; i++) h[i] = prev[i] ^ c[i];
    }
}

static inline void nb_first(cell_chunk *ch)
{
    int k;
    for (k = 0; k < ch->dims; k++) ch->o[k] = -1;
    levels_from(ch, 0);
}

/* Next offset in odometer order (last axis fastest); 0 after the last. */
static inline int nb_next(cell_chunk *ch)
{
    int k = ch->dims - 1;
    while (k >= 0 && ch->o[k] == 1) ch->o[k--] = -1;
    if (k < 0) return 0;
    ch->o[k]++;
    levels_from(ch, k);
    return 1;
}

/* The point's position inside its cell, as a vector. */
LOOP_INLINE void point_t(const cell_chunk *ch, int dims, int i, float t[4])
{
    int k;
    for (k = 0; k < 4; k++) t[k] = k < dims ? ch->t[k][i] : 0.0f;
}

/*
 * Vector from the point to the feature of the cell with hash h at offset
 * oc - c0 from the point's cell: feature = offset + c0 + j * u per axis,
 * c0 = 0.5 - j / 2. The grouping (oc + j * u) - t makes a feature at t
 * exactly 0 away and mirrored features exactly equally far.
 */
LOOP_INLINE void feature_vec(int dims, uint32_t h, const float oc[4], float j, const float t[4],
                             float r[4])
{
    /* j * unit_hi(w) in one multiply: the 16 bits times j / 65536, the
     * same product (scaling by 2^-16 is exact for any jitter above 2^-110) */
    const float js = j * (1.0f / 65536.0f);
    r[0] = (oc[0] + (float)(int32_t)(h >> 16) * js) - t[0];
    r[1] = dims > 1 ? (oc[1] + (float)(int32_t)(ng_cell_word(h, 1) >> 16) * js) - t[1] : 0.0f;
    r[2] = dims > 2 ? (oc[2] + (float)(int32_t)(ng_cell_word(h, 2) >> 16) * js) - t[2] : 0.0f;
    r[3] = dims > 3 ? (oc[3] + (float)(int32_t)(ng_cell_word(h, 3) >> 16) * js) - t[3] : 0.0f;
}

LOOP_INLINE float dist2(int dims, const float r[4])
{
    float s = r[0] * r[0];
    int k;
    for (k = 1; k < dims; k++) s += r[k] * r[k];
    return s;
}

/* Distance in the metric's comparison form: squared for euclidean, the
 * sum of |r_k|^e for minkowski (e its exponent, ignored by the others). */
LOOP_INLINE float metric_dist(int dims, int metric, float e, const float r[4])
{
    float s;
    uint32_t mx;
    int k;
    switch (metric) {
    case NG_METRIC_MANHATTAN:
        s = abs_f(r[0]);
        for (k = 1; k < dims; k++) s += abs_f(r[k]);
        return s;
    case NG_METRIC_CHEBYSHEV:
        mx = f2u(r[0]) & 0x7fffffffu;
        for (k = 1; k < dims; k++) mx = max_bits(mx, f2u(r[k]) & 0x7fffffffu);
        return u2f(mx);
    case NG_METRIC_MINKOWSKI:
        s = ng_cell_pow(abs_f(r[0]), e);
        for (k = 1; k < dims; k++) s += ng_cell_pow(abs_f(r[k]), e);
        return s;
    default: return dist2(dims, r);
    }
}

/* jitter clamped to [0, 1]; NaN: the usual full jitter */
static inline float clamp_jitter(float j)
{
    if (!(j >= 0.0f)) return j < 0.0f ? 0.0f : 1.0f;
    return j > 1.0f ? 1.0f : j;
}

static inline void zeros(const ng_noise_pts *p, float *out)
{
    if (p->n > 0) memset(out, 0, (size_t)p->n * sizeof *out);
}

#endif
