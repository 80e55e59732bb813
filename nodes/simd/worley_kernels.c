/*
 * worley_kernels.c — the worley family (bases.h): Worley cellular noise
 * (Worley 1996) over a batch of points, 1D to 4D, written from the
 * published algorithm. Compiled once per SIMD path (Makefile); its kernels
 * are static, its one export the family table. The normalisers are
 * worley_norm.c's (compiled once: a table lookup per call).
 */
#include "cell_parts.h"

/* ---- Worley ------------------------------------------------------------
 * F1 and F2 are exact. The vector loop searches the 3^d block; a cell two
 * or more away holds its feature at least 1.5 - j/2 + min_k min(t_k,
 * 1 - t_k) away along some axis, which bounds the distance in all three
 * metrics. Points whose needed distance (F1; F2 for F2 and F2-F1) exceeds
 * that bound get a scalar pruned walk over the cells outside the block
 * (worley_exact). Share of points walked, 2^20 samples, jitter 1 (0.5):
 * euclidean <= 0.03% (0) for F1, <= 0.54% (0) for F2; chebyshev never;
 * manhattan F1 1.3%, 10%, 34% in 2D-4D (0, 0.7%, 10%), F2 13%, 38%, 74%
 * (0.03%, 5%, 31%). The walk changes the answer for up to 0.6% of points
 * (4D manhattan F2) and ~1e-4 for 2D euclidean F2: a plain 3^d search
 * would be wrong there.
 *
 * Normalisers (worley_norm.c): the distance (or F2-F1) is divided by N
 * and clamped at 1.
 */

/* Float rounding of feature positions (~1e-7) must not let a feature slip
 * under the exactness bound: the bound is lowered by far more. */
#define BOUND_SLACK 1e-4f

/* Keeps the two smallest distances (bit patterns) and the nearest's hash. */
LOOP_INLINE void keep_two(uint32_t d, uint32_t h, uint32_t *d1, uint32_t *d2, uint32_t *hb)
{
    uint32_t a = *d1, nearer = (int32_t)d < (int32_t)a;
    *d2 = min_bits(*d2, nearer ? a : d);
    *d1 = nearer ? d : a;
    *hb = nearer ? h : *hb;
}

/* What the vector loop keeps per point: F1 needs the nearest distance
 * only, F2 and F2-F1 the two nearest, CELL the nearest and its hash. */
enum { KEEP_F1, KEEP_F2, KEEP_CELL };

/* One cell's feature against one point's running state: d1 the nearest
 * distance, d2 the second (KEEP_F2), hb the nearest's hash (KEEP_CELL). */
LOOP_INLINE void worley_cell(int dims, int metric, int keep, uint32_t h, const float oc[4], float j,
                             const float t[4], uint32_t *d1, uint32_t *d2, uint32_t *hb)
{
    float r[4];
    uint32_t d, a = *d1, nearer;
    feature_vec(dims, h, oc, j, t, r);
    d = f2u(metric_dist(dims, metric, r));
    /* all-ones where nearer; blends, not branches, or GCC turns the
     * select into a conditional store and will not vectorise */
    nearer = 0u - (uint32_t)((int32_t)d < (int32_t)a);
    if (keep == KEEP_F2) *d2 = min_bits(*d2, (a & nearer) | (d & ~nearer));
    if (keep == KEEP_CELL) *hb = (h & nearer) | (*hb & ~nearer);
    *d1 = (d & nearer) | (a & ~nearer);
}

/* The current cell (ch->o) against every point of the chunk. */
LOOP_INLINE void worley_leaf(const cell_chunk *ch, int dims, int metric, int keep, float c0,
                             float j, uint32_t *restrict d1, uint32_t *restrict d2,
                             uint32_t *restrict hb)
{
    const uint32_t *restrict hh = ch->h[dims - 1];
    float oc[4];
    int k, i;
    for (k = 0; k < 4; k++) oc[k] = (float)ch->o[k] + c0;
    for (i = 0; i < ch->m; i++) {
        float t[4];
        point_t(ch, dims, i, t);
        worley_cell(dims, metric, keep, hh[i], oc, j, t, &d1[i], &d2[i], &hb[i]);
    }
}

/*
 * The whole 3^d block, point-major, for dims 1 to 3: a point's 3, 9 or 27
 * cells are unrolled and kept in registers, where the neighbour-major
 * passes read and write every point's state once per cell. Cells in the
 * same odometer order (last axis fastest) and the same hash input
 * (seed ^ the axes' words), so the same bits.
 */
LOOP_INLINE void worley_block(const cell_chunk *ch, int dims, int metric, int keep, float c0, float j,
                              uint32_t *restrict d1, uint32_t *restrict d2, uint32_t *restrict hb)
{
    const int cells = dims == 1 ? 3 : dims == 2 ? 9 : 27;
    const uint32_t s = ch->seed;
    int i, o;
    for (i = 0; i < ch->m; i++) {
        float t[4];
        uint32_t a1 = INF_BITS, a2 = INF_BITS, hn = 0u;
        point_t(ch, dims, i, t);
        UNROLL
        for (o = 0; o < 27; o++)
            if (o < cells) {
                /* offsets per axis, 0 to 2 for -1 to 1 */
                const int q0 = dims == 3 ? o / 9 : dims == 2 ? o / 3 : o;
                const int q1 = dims == 3 ? (o / 3) % 3 : o % 3, q2 = o % 3;
                float oc[4] = {(float)(q0 - 1) + c0, (float)(q1 - 1) + c0, (float)(q2 - 1) + c0, 0.0f};
                uint32_t v = s ^ ch->c[0][q0][i];
                if (dims > 1) v ^= ch->c[1][q1][i];
                if (dims > 2) v ^= ch->c[2][q2][i];
                worley_cell(dims, metric, keep, ng_lattice_hash(v), oc, j, t, &a1, &a2, &hn);
            }
        d1[i] = a1;
        d2[i] = a2;
        hb[i] = hn;
    }
}

/*
 * The search, specialised per metric and keep so that every loop has them
 * as constants: block 1 runs the whole 3^d block point-major (dims 1 to
 * 3), block 0 one neighbour-major pass over the current cell (4D).
 */
LOOP_INLINE void worley_visit(const cell_chunk *ch, int dims, int metric, int keep, int block, float c0,
                              float j, uint32_t *d1, uint32_t *d2, uint32_t *hb)
{
#define WORLEY_RUN(M, K)                                                                  \
    if (block) worley_block(ch, dims, M, K, c0, j, d1, d2, hb);                           \
    else worley_leaf(ch, dims, M, K, c0, j, d1, d2, hb)
#define WORLEY_KEEP(M)                                                                    \
    switch (keep) {                                                                       \
    case KEEP_F2: WORLEY_RUN(M, KEEP_F2); break;                                          \
    case KEEP_CELL: WORLEY_RUN(M, KEEP_CELL); break;                                      \
    default: WORLEY_RUN(M, KEEP_F1); break;                                               \
    }
    switch (metric) {
    case NG_METRIC_MANHATTAN: WORLEY_KEEP(NG_METRIC_MANHATTAN) break;
    case NG_METRIC_CHEBYSHEV: WORLEY_KEEP(NG_METRIC_CHEBYSHEV) break;
    default: WORLEY_KEEP(NG_METRIC_EUCLIDEAN) break;
    }
#undef WORLEY_KEEP
#undef WORLEY_RUN
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
    const float budget = u2f(w->second ? w->d2 : w->d1);
    int dir, last_inside;
    /* a subtree inside the 3^d block has nothing left to find */
    if (!outside && k < dims && add_gap(w->metric, partial, w->far[k]) > budget) return;
    if (k == dims) {
        uint32_t h = w->ch->seed;
        float oc[4] = {0, 0, 0, 0}, r[4];
        int a;
        if (!outside) return; /* the vector loop saw it */
        for (a = 0; a < dims; a++) {
            h ^= wrap_cell(w->ch->cell[a][w->i], o[a], w->ax[a].period) * cell_prime[a];
            oc[a] = (float)o[a] + w->c0;
        }
        h = ng_lattice_hash(h);
        feature_vec(dims, h, oc, w->j, w->t, r);
        keep_two(f2u(metric_dist(dims, w->metric, r)), h, &w->d1, &w->d2, &w->hb);
        return;
    }
    /* on the last axis of a path inside the block only offsets 2 and up
     * lead outside */
    last_inside = !outside && k == dims - 1;
    for (dir = 1; dir >= -1; dir -= 2)
        for (o[k] = dir > 0 ? (last_inside ? 2 : 0) : (last_inside ? -2 : -1);; o[k] += dir) {
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
    const int keep = second ? KEEP_F2 : feature == NG_WORLEY_CELL ? KEEP_CELL : KEEP_F1;
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
        if (dims < 4) {
            worley_visit(&ch, dims, metric, keep, 1, c0, j, d1, d2, hb);
        } else {
            for (i = 0; i < m; i++) {
                d1[i] = d2[i] = INF_BITS;
                hb[i] = 0;
            }
            nb_first(&ch);
            do worley_visit(&ch, dims, metric, keep, 0, c0, j, d1, d2, hb);
            while (nb_next(&ch));
        }
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

static void worley_noise(const ng_noise_pts *p, float *out)
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

NG_FAMILY_TABLE(worley, NG_BASES_WORLEY);
