/*
 * cell_kernels.c — Worley cellular noise (Worley 1996), sparse convolution
 * noise (Lewis 1989) and alligator noise over a batch of points, written
 * from the published algorithms.
 *
 * All three visit the 3^d cells around each point. Points are processed in
 * chunks, neighbour-major: for each of the 3^d cell offsets a straight loop
 * over the chunk's points hashes that cell and folds its contribution into
 * per-point state. Every inner loop is branch-free (selects on bit
 * patterns) with a fixed trip count, so it vectorises; the hash prefix
 * (seed, x) is shared by the 3^(d-1) cells that follow it. Per-point
 * arithmetic is float; the anchor is split once per call. Each point's
 * value depends on that point alone, in a fixed order of operations, so a
 * batch split never changes a bit.
 *
 * A cell's random numbers come from its hash h (the ng_hash_step chain of
 * seed and cell coordinates, = ng_hashN) and g = ng_hash_mix(h): feature
 * coordinates take 16 bits each (axes 0, 1 from h's high and low halves,
 * axes 2, 3 from g's), which halves the hashing of the 81-cell 4D search
 * against one hash per axis; 1/65536 of a cell is far below a pixel. The
 * per-cell value (Worley CELL, alligator height) is
 * ng_hash_unit(ng_hash_step(h, 1)).
 */
#include "cell_kernels.h"

#include <math.h>
#include <string.h>

/* Helpers called inside the loops must be inlined or the loop cannot
 * vectorise. */
#define LOOP_INLINE static inline __attribute__((always_inline))

/*
 * Float min/max and selects are done on bit patterns: non-negative floats
 * order like their bits as integers, mask blends are exact, and GCC will
 * not if-convert float selects under the default -ftrapping-math (so the
 * loop would not vectorise and would branch on random hash bits).
 */
LOOP_INLINE uint32_t f2u(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

LOOP_INLINE float u2f(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

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

/* Points per chunk: the chunk's scratch (~23 KB) stays in L1. */
#define CHUNK 256

/* One axis of the anchor, split once per call. */
typedef struct cell_axis {
    float frac;      /* anchor - floor(anchor), in [0, 1] */
    uint32_t base;   /* floor(anchor) mod period, or mod 2^32 without one */
    uint32_t period; /* 0: none */
} cell_axis;

static cell_axis split_axis(double a, uint32_t period)
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

static void split_anchor(const ng_noise_pts *p, cell_axis ax[4])
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
    int dims, m;
    uint32_t seed;           /* ng_hash_seed(p->seed) */
    int o[4];                /* current neighbour offset per axis, -1 to 1 (0 past dims) */
    float t[4][CHUNK];       /* position inside the point's own cell, [0, 1) */
    uint32_t c[4][3][CHUNK]; /* hash coordinate of the cell at offset o, index o + 1 */
    uint32_t h[4][CHUNK];    /* hash prefix of the current cell through axis k */
} cell_chunk;

static void chunk_init(cell_chunk *ch, const ng_noise_pts *p)
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
static void chunk_load(cell_chunk *ch, const ng_noise_pts *p, const cell_axis *ax, int start,
                       int m)
{
    int k, i;
    ch->m = m;
    for (k = 0; k < ch->dims; k++) {
        const float *restrict f = p->f[k] + start;
        const float frac = ax[k].frac;
        const uint32_t base = ax[k].base, per = ax[k].period;
        float *restrict t = ch->t[k];
        uint32_t *restrict c0 = ch->c[k][0], *restrict c1 = ch->c[k][1],
                           *restrict c2 = ch->c[k][2];
        if (!per) {
            for (i = 0; i < m; i++) {
                float x = clamp_pos(frac, f[i]);
                int32_t ic = floor_i32(x);
                uint32_t cell = base + (uint32_t)ic;
                t[i] = x - (float)ic;
                c0[i] = cell - 1u;
                c1[i] = cell;
                c2[i] = cell + 1u;
            }
        } else {
            for (i = 0; i < m; i++) {
                float x = clamp_pos(frac, f[i]);
                int32_t ic = floor_i32(x);
                int64_t q = ((int64_t)base + ic) % (int64_t)per;
                q += q < 0 ? (int64_t)per : 0;
                t[i] = x - (float)ic;
                c0[i] = q == 0 ? per - 1u : (uint32_t)q - 1u;
                c1[i] = (uint32_t)q;
                c2[i] = (uint32_t)q + 1u == per ? 0u : (uint32_t)q + 1u;
            }
        }
    }
}

/* Hash prefixes of the current cell from axis k0 on. */
static void levels_from(cell_chunk *ch, int k0)
{
    int k, i, m = ch->m;
    for (k = k0; k < ch->dims; k++) {
        const uint32_t *restrict c = ch->c[k][ch->o[k] + 1];
        uint32_t *restrict h = ch->h[k];
        if (k == 0) {
            const uint32_t s = ch->seed;
            for (i = 0; i < m; i++) h[i] = ng_hash_step(s, c[i]);
        } else {
            const uint32_t *restrict prev = ch->h[k - 1];
            for (i = 0; i < m; i++) h[i] = ng_hash_step(prev[i], c[i]);
        }
    }
}

static void nb_first(cell_chunk *ch)
{
    int k;
    for (k = 0; k < ch->dims; k++) ch->o[k] = -1;
    levels_from(ch, 0);
}

/* Next offset in odometer order (last axis fastest); 0 after the last. */
static int nb_next(cell_chunk *ch)
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
    uint32_t g = dims > 2 ? ng_hash_mix(h) : 0u;
    r[0] = (oc[0] + j * unit_hi(h)) - t[0];
    r[1] = dims > 1 ? (oc[1] + j * unit_lo(h)) - t[1] : 0.0f;
    r[2] = dims > 2 ? (oc[2] + j * unit_hi(g)) - t[2] : 0.0f;
    r[3] = dims > 3 ? (oc[3] + j * unit_lo(g)) - t[3] : 0.0f;
}

LOOP_INLINE float dist2(int dims, const float r[4])
{
    float s = r[0] * r[0];
    int k;
    for (k = 1; k < dims; k++) s += r[k] * r[k];
    return s;
}

/* Distance in the metric's comparison form: squared for euclidean. */
LOOP_INLINE float metric_dist(int dims, int metric, const float r[4])
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
    default: return dist2(dims, r);
    }
}

/* ---- Worley ------------------------------------------------------------
 * F1 and F2 are exact. The 3^d search is exact unless a cell two or more
 * away could hold a nearer feature: those hold features at least
 * 1.5 - j/2 + min_k min(t_k, 1 - t_k) away along some axis, which bounds
 * their distance in all three metrics. Points whose needed distance (F1,
 * or F2 for F2 and F2-F1) exceeds that are redone, outside the vector
 * loop, over growing cubes of cells until the same bound for the cube holds.
 * Measured share redone at jitter 1 (0.5), 2^20 samples: <<REDO>>
 *
 * Normalisers: the distance (or F2-F1) is divided by N and clamped at 1.
 * The provable maxima (e.g. F1 up to sqrt(d) euclidean at jitter 1, where
 * 2^d cells put their features in their far corners) are far above what
 * occurs, so N is the 1 - 1e-5 quantile of the raw value, measured over
 * 1.6e7 uniformly random points and seeds for jitter 0, 1/8, ..., 1, and
 * interpolated linearly in jitter in between (continuous). Measured clamp
 * rate over 2^20 samples: at most <<CLAMP>> at table points, <<CLAMPMID>>
 * between them (jitter 1/16 steps).
 */
static const float worley_norm[3][3][4][9] = {
    /* <<TABLE>> */
    {{{1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, 1, 1, 1, 1}},
     {{1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, 1, 1, 1, 1}},
     {{1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, 1, 1, 1, 1}}},
    {{{1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, 1, 1, 1, 1}},
     {{1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, 1, 1, 1, 1}},
     {{1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, 1, 1, 1, 1}}},
    {{{1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, 1, 1, 1, 1}},
     {{1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, 1, 1, 1, 1}},
     {{1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, 1, 1, 1, 1}}},
};

/* Float rounding of feature positions (~1e-7) must not let a feature slip
 * under the exactness bound: the bound is lowered by far more. */
#define BOUND_SLACK 1e-4f

static float clamp_jitter(float j)
{
    if (!(j >= 0.0f)) return j < 0.0f ? 0.0f : 1.0f; /* NaN: the usual full jitter */
    return j > 1.0f ? 1.0f : j;
}

float ng_worley_normaliser(int feature, int metric, int dims, float jitter)
{
    const float *tab;
    float x;
    if (feature < NG_WORLEY_F1 || feature > NG_WORLEY_F2_F1 || metric < NG_METRIC_EUCLIDEAN ||
        metric > NG_METRIC_CHEBYSHEV || dims < 1 || dims > 4)
        return 0.0f;
    tab = worley_norm[feature][metric][dims - 1];
    x = clamp_jitter(jitter) * 8.0f;
    int k = (int)x;
    if (k > 7) k = 7;
    return tab[k] + (x - (float)k) * (tab[k + 1] - tab[k]);
}

/* Keeps the two smallest distances (bit patterns) and the nearest's hash. */
LOOP_INLINE void keep_two(uint32_t d, uint32_t h, uint32_t *d1, uint32_t *d2, uint32_t *hb)
{
    uint32_t a = *d1, nearer = (int32_t)d < (int32_t)a;
    *d2 = min_bits(*d2, nearer ? a : d);
    *d1 = nearer ? d : a;
    *hb = nearer ? h : *hb;
}

LOOP_INLINE void worley_leaf(const cell_chunk *ch, int dims, int metric, float c0, float j,
                             uint32_t *restrict d1, uint32_t *restrict d2, uint32_t *restrict hb)
{
    const uint32_t *restrict hh = ch->h[dims - 1];
    float oc[4];
    int k, i;
    for (k = 0; k < 4; k++) oc[k] = (float)ch->o[k] + c0;
    for (i = 0; i < ch->m; i++) {
        float t[4], r[4];
        point_t(ch, dims, i, t);
        feature_vec(dims, hh[i], oc, j, t, r);
        keep_two(f2u(metric_dist(dims, metric, r)), hh[i], &d1[i], &d2[i], &hb[i]);
    }
}

/* Hash coordinate of the cell o away from one with coordinate c. */
static uint32_t wrap_cell(uint32_t c, int o, uint32_t period)
{
    int64_t q;
    if (!period) return c + (uint32_t)o;
    q = ((int64_t)c + o) % (int64_t)period;
    return (uint32_t)(q < 0 ? q + (int64_t)period : q);
}

/*
 * The widened search for point i, scalar: a depth-first walk over the
 * cells outside the 3^d block, axis by axis, outward from the point's cell
 * in both directions, pruned by a lower bound on the distance to any
 * feature the cell can hold (the gap between the point and the cell's
 * feature box, per axis, combined by the metric). Gaps grow outward, so
 * each direction stops at the first offset over budget: the needed
 * distance, which only shrinks. Starts from the 3^d result and hashes only
 * the cells that could beat it; same per-cell arithmetic as the vector loop.
 */
typedef struct worley_fix {
    const cell_chunk *ch;
    const cell_axis *ax;
    int i, metric, second;
    float c0, j, t[4];
    float far[4]; /* least gap to a cell two or more away, over axes k and up */
    uint32_t d1, d2, hb;
} worley_fix;

/* Lower bound on the distance along axis k to a feature of the cell o away,
 * lowered by the slack so float rounding cannot prune a real candidate. */
static float axis_gap(const worley_fix *w, int k, int o)
{
    float lo = (float)o + w->c0, below = lo - w->t[k], above = w->t[k] - (lo + w->j);
    return pos_part((below > above ? below : above) - BOUND_SLACK);
}

static float add_gap(int metric, float partial, float g)
{
    switch (metric) {
    case NG_METRIC_MANHATTAN: return partial + g;
    case NG_METRIC_CHEBYSHEV: return partial > g ? partial : g;
    default: return partial + g * g;
    }
}

static void fix_visit(worley_fix *w, int k, float partial, int o[4], int outside)
{
    const int dims = w->ch->dims;
    int dir;
    /* a subtree inside the 3^d block has nothing left to find */
    if (!outside && k < dims && add_gap(w->metric, partial, w->far[k]) > u2f(w->second ? w->d2 : w->d1))
        return;
    if (k == dims) {
        uint32_t h = w->ch->seed;
        float oc[4] = {0, 0, 0, 0}, r[4];
        int a;
        if (!outside) return; /* the vector loop saw it */
        for (a = 0; a < dims; a++) {
            h = ng_hash_step(h, wrap_cell(w->ch->c[a][1][w->i], o[a], w->ax[a].period));
            oc[a] = (float)o[a] + w->c0;
        }
        feature_vec(dims, h, oc, w->j, w->t, r);
        keep_two(f2u(metric_dist(dims, w->metric, r)), h, &w->d1, &w->d2, &w->hb);
        return;
    }
    for (dir = 1; dir >= -1; dir -= 2)
        for (o[k] = dir > 0 ? 0 : -1;; o[k] += dir) {
            float lb = add_gap(w->metric, partial, axis_gap(w, k, o[k]));
            if (lb > u2f(w->second ? w->d2 : w->d1)) break;
            fix_visit(w, k + 1, lb, o, outside || o[k] > 1 || o[k] < -1);
        }
}

static void worley_exact(const cell_chunk *ch, const cell_axis *ax, int i, int metric, float c0,
                         float j, int second, uint32_t *d1, uint32_t *d2, uint32_t *hb)
{
    worley_fix w;
    int o[4] = {0, 0, 0, 0}, k;
    w.ch = ch;
    w.ax = ax;
    w.i = i;
    w.metric = metric;
    w.second = second;
    w.c0 = c0;
    w.j = j;
    point_t(ch, ch->dims, i, w.t);
    for (k = ch->dims - 1; k >= 0; k--) {
        float up = axis_gap(&w, k, 2), down = axis_gap(&w, k, -2), g = up < down ? up : down;
        w.far[k] = k == ch->dims - 1 || g < w.far[k + 1] ? g : w.far[k + 1];
    }
    w.d1 = *d1;
    w.d2 = *d2;
    w.hb = *hb;
    fix_visit(&w, 0, 0.0f, o, 0);
    *d1 = w.d1;
    *d2 = w.d2;
    *hb = w.hb;
}

/* Distance from t to the nearer face of its cell: min_k min(t_k, 1 - t_k). */
LOOP_INLINE float face_dist(const cell_chunk *ch, int dims, int i)
{
    uint32_t near = ONE_BITS;
    int k;
    for (k = 0; k < dims; k++) {
        float t = ch->t[k][i];
        near = min_bits(near, min_bits(f2u(t), f2u(1.0f - t)));
    }
    return u2f(near);
}

/* Points of the chunk whose 3^d search may have missed a nearer feature:
 * flagged in a vector loop, then listed. */
LOOP_INLINE int worley_misses(const cell_chunk *ch, int dims, int metric, float j,
                              const uint32_t *restrict need, uint32_t *restrict miss,
                              int fix[CHUNK])
{
    const float b0 = 1.5f - 0.5f * j - BOUND_SLACK;
    int i, n = 0;
    for (i = 0; i < ch->m; i++) {
        float b = b0 + face_dist(ch, dims, i);
        if (metric == NG_METRIC_EUCLIDEAN) b *= b;
        miss[i] = (int32_t)need[i] > (int32_t)f2u(b);
    }
    for (i = 0; i < ch->m; i++) {
        fix[n] = i;
        n += (int)miss[i];
    }
    return n;
}

/* Clamped scaling of a non-negative value. */
LOOP_INLINE float scale_unit(float v, float inv)
{
    return u2f(min_bits(f2u(v * inv), ONE_BITS));
}

LOOP_INLINE void worley_run(const ng_noise_pts *p, float *out, const int dims)
{
    const int metric = p->metric, feature = p->feature;
    const float j = clamp_jitter(p->jitter), c0 = 0.5f - 0.5f * j;
    const int second = feature == NG_WORLEY_F2 || feature == NG_WORLEY_F2_F1;
    float inv = 1.0f;
    cell_axis ax[4];
    cell_chunk ch;
    uint32_t d1[CHUNK], d2[CHUNK], hb[CHUNK], miss[CHUNK];
    int fix[CHUNK], start, i;
    if (feature != NG_WORLEY_CELL) inv = 1.0f / ng_worley_normaliser(feature, metric, dims, j);
    split_anchor(p, ax);
    chunk_init(&ch, p);
    for (start = 0; start < p->n; start += CHUNK) {
        const int m = p->n - start < CHUNK ? p->n - start : CHUNK;
        float *restrict o = out + start;
        int nfix, q;
        chunk_load(&ch, p, ax, start, m);
        for (i = 0; i < m; i++) {
            d1[i] = d2[i] = INF_BITS;
            hb[i] = 0;
        }
        nb_first(&ch);
        do {
            switch (metric) {
            case NG_METRIC_MANHATTAN:
                worley_leaf(&ch, dims, NG_METRIC_MANHATTAN, c0, j, d1, d2, hb);
                break;
            case NG_METRIC_CHEBYSHEV:
                worley_leaf(&ch, dims, NG_METRIC_CHEBYSHEV, c0, j, d1, d2, hb);
                break;
            default: worley_leaf(&ch, dims, NG_METRIC_EUCLIDEAN, c0, j, d1, d2, hb); break;
            }
        } while (nb_next(&ch));
        nfix = worley_misses(&ch, dims, metric, j, second ? d2 : d1, miss, fix);
        for (q = 0; q < nfix; q++)
            worley_exact(&ch, ax, fix[q], metric, c0, j, second, &d1[fix[q]], &d2[fix[q]],
                         &hb[fix[q]]);
        if (metric == NG_METRIC_EUCLIDEAN)
            for (i = 0; i < m; i++) {
                d1[i] = f2u(sqrtf(u2f(d1[i])));
                d2[i] = f2u(sqrtf(u2f(d2[i])));
            }
        switch (feature) {
        case NG_WORLEY_F1:
            for (i = 0; i < m; i++) o[i] = scale_unit(u2f(d1[i]), inv);
            break;
        case NG_WORLEY_F2:
            for (i = 0; i < m; i++) o[i] = scale_unit(u2f(d2[i]), inv);
            break;
        case NG_WORLEY_F2_F1:
            for (i = 0; i < m; i++) o[i] = scale_unit(u2f(d2[i]) - u2f(d1[i]), inv);
            break;
        default:
            for (i = 0; i < m; i++) o[i] = ng_hash_unit(ng_hash_step(hb[i], 1u));
            break;
        }
    }
}

/* One function per dims so only one chunk's scratch is on the stack. */
static void worley1(const ng_noise_pts *p, float *out) { worley_run(p, out, 1); }
static void worley2(const ng_noise_pts *p, float *out) { worley_run(p, out, 2); }
static void worley3(const ng_noise_pts *p, float *out) { worley_run(p, out, 3); }
static void worley4(const ng_noise_pts *p, float *out) { worley_run(p, out, 4); }

static void zeros(const ng_noise_pts *p, float *out)
{
    if (p->n > 0) memset(out, 0, (size_t)p->n * sizeof *out);
}

void ng_worley_noise(const ng_noise_pts *p, float *out)
{
    if (p->feature < NG_WORLEY_F1 || p->feature > NG_WORLEY_CELL ||
        p->metric < NG_METRIC_EUCLIDEAN || p->metric > NG_METRIC_CHEBYSHEV) {
        zeros(p, out);
        return;
    }
    switch (p->dims) {
    case 1: worley1(p, out); break;
    case 2: worley2(p, out); break;
    case 3: worley3(p, out); break;
    case 4: worley4(p, out); break;
    default: zeros(p, out); break;
    }
}

/* ---- sparse convolution ------------------------------------------------
 * Per cell 2 to 4 impulses (2 + two hash bits: 1/4, 1/2, 1/4), uniform in
 * the cell, weights uniform in [-1, 1], kernel (1 - r^2)^3 for r < 1 cell:
 * C2 where it reaches 0, and no impulse outside the 3^d cells is within 1
 * of the point. Impulse m's words: w0 = ng_hash_step(h, m), w1 = mix(w0),
 * w2 = mix(w1); coordinates from their 16-bit halves in axis order, the
 * weight from the next half.
 *
 * The provable bound (4 * 3^d impulses at full weight) is never
 * approached: values are sums of ~3 * kernel volume independent terms,
 * nearly Gaussian. N is the 1 - 1e-5 quantile of |v| (1.6e7 samples);
 * values beyond clamp at +-1. <<SPARSE>>
 */
static const float sparse_norm[4] = {1, 1, 1, 1}; /* <<SPARSETABLE>> */

LOOP_INLINE void sparse_leaf(const cell_chunk *ch, int dims, float *restrict acc)
{
    const uint32_t *restrict hh = ch->h[dims - 1];
    float of[4];
    int k, i, m;
    for (k = 0; k < 4; k++) of[k] = (float)ch->o[k];
    for (i = 0; i < ch->m; i++) {
        const uint32_t h = hh[i];
        float t[4], sum = acc[i];
        point_t(ch, dims, i, t);
        for (m = 0; m < 4; m++) {
            uint32_t w0 = ng_hash_step(h, (uint32_t)m), w1 = dims > 1 ? ng_hash_mix(w0) : 0u;
            uint32_t w2 = dims > 3 ? ng_hash_mix(w1) : 0u;
            uint32_t keep = m < 2 ? ~0u : 0u - ((h >> (m - 2)) & 1u);
            float r[4], wt, s;
            r[0] = (of[0] + unit_hi(w0)) - t[0];
            r[1] = dims > 1 ? (of[1] + unit_lo(w0)) - t[1] : 0.0f;
            r[2] = dims > 2 ? (of[2] + unit_hi(w1)) - t[2] : 0.0f;
            r[3] = dims > 3 ? (of[3] + unit_lo(w1)) - t[3] : 0.0f;
            wt = dims == 1 ? signed_lo(w0) : dims == 2 ? signed_hi(w1)
                 : dims == 3 ? signed_lo(w1) : signed_hi(w2);
            wt = u2f(f2u(wt) & keep);
            s = pos_part(1.0f - dist2(dims, r));
            sum += wt * (s * s * s);
        }
        acc[i] = sum;
    }
}

LOOP_INLINE void sparse_run(const ng_noise_pts *p, float *out, const int dims)
{
    const float inv = 1.0f / sparse_norm[dims - 1];
    cell_axis ax[4];
    cell_chunk ch;
    float acc[CHUNK];
    int start, i;
    split_anchor(p, ax);
    chunk_init(&ch, p);
    for (start = 0; start < p->n; start += CHUNK) {
        const int m = p->n - start < CHUNK ? p->n - start : CHUNK;
        float *restrict o = out + start;
        chunk_load(&ch, p, ax, start, m);
        for (i = 0; i < m; i++) acc[i] = 0.0f;
        nb_first(&ch);
        do sparse_leaf(&ch, dims, acc);
        while (nb_next(&ch));
        for (i = 0; i < m; i++) {
            uint32_t u = f2u(acc[i] * inv);
            o[i] = u2f((u & 0x80000000u) | min_bits(u & 0x7fffffffu, ONE_BITS));
        }
    }
}

static void sparse1(const ng_noise_pts *p, float *out) { sparse_run(p, out, 1); }
static void sparse2(const ng_noise_pts *p, float *out) { sparse_run(p, out, 2); }
static void sparse3(const ng_noise_pts *p, float *out) { sparse_run(p, out, 3); }
static void sparse4(const ng_noise_pts *p, float *out) { sparse_run(p, out, 4); }

void ng_sparse_noise(const ng_noise_pts *p, float *out)
{
    switch (p->dims) {
    case 1: sparse1(p, out); break;
    case 2: sparse2(p, out); break;
    case 3: sparse3(p, out); break;
    case 4: sparse4(p, out); break;
    default: zeros(p, out); break;
    }
}

/* ---- alligator ---------------------------------------------------------
 * max over cells of h * K(r), K(r) = (1 - r^2)^2 for r < 1 cell: K(0) = 1,
 * K(1) = 0, K' = 0 at both ends. Features fully jittered (in their cell),
 * so none outside the 3^d cells reaches the point. h < 1 and K <= 1: the
 * range is [0, 1] without scaling or clamping. |grad| <= max|K'| =
 * 8 / (3 sqrt(3)) = 1.5396 at r = 1/sqrt(3).
 */
LOOP_INLINE void alligator_leaf(const cell_chunk *ch, int dims, uint32_t *restrict acc)
{
    const uint32_t *restrict hh = ch->h[dims - 1];
    float of[4];
    int k, i;
    for (k = 0; k < 4; k++) of[k] = (float)ch->o[k];
    for (i = 0; i < ch->m; i++) {
        float t[4], r[4], s, height = ng_hash_unit(ng_hash_step(hh[i], 1u));
        point_t(ch, dims, i, t);
        feature_vec(dims, hh[i], of, 1.0f, t, r);
        s = pos_part(1.0f - dist2(dims, r));
        acc[i] = max_bits(acc[i], f2u(height * (s * s)));
    }
}

LOOP_INLINE void alligator_run(const ng_noise_pts *p, float *out, const int dims)
{
    cell_axis ax[4];
    cell_chunk ch;
    uint32_t acc[CHUNK];
    int start, i;
    split_anchor(p, ax);
    chunk_init(&ch, p);
    for (start = 0; start < p->n; start += CHUNK) {
        const int m = p->n - start < CHUNK ? p->n - start : CHUNK;
        chunk_load(&ch, p, ax, start, m);
        for (i = 0; i < m; i++) acc[i] = 0u;
        nb_first(&ch);
        do alligator_leaf(&ch, dims, acc);
        while (nb_next(&ch));
        for (i = 0; i < m; i++) out[start + i] = u2f(acc[i]);
    }
}

static void alligator1(const ng_noise_pts *p, float *out) { alligator_run(p, out, 1); }
static void alligator2(const ng_noise_pts *p, float *out) { alligator_run(p, out, 2); }
static void alligator3(const ng_noise_pts *p, float *out) { alligator_run(p, out, 3); }
static void alligator4(const ng_noise_pts *p, float *out) { alligator_run(p, out, 4); }

void ng_alligator_noise(const ng_noise_pts *p, float *out)
{
    switch (p->dims) {
    case 1: alligator1(p, out); break;
    case 2: alligator2(p, out); break;
    case 3: alligator3(p, out); break;
    case 4: alligator4(p, out); break;
    default: zeros(p, out); break;
    }
}
