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

/* What the vector loop keeps per point: F1 needs the nearest distance
 * only, F2 and F2-F1 the two nearest, F3 the three nearest, CELL the
 * nearest and its hash, NEAR (EDGE, POSITION) the nearest and the vector
 * to it. */
enum { KEEP_F1, KEEP_F2, KEEP_CELL, KEEP_F3, KEEP_NEAR };

/* One point's running state: distances in the metric's comparison form
 * (bit patterns), the nearest's hash and the vector from the point to the
 * nearest feature. */
typedef struct wkeep {
    uint32_t d1, d2, d3, hb;
    float r[4];
} wkeep;

/* The chunk's states, by field, so the loops over points vectorise. */
typedef struct wstate {
    uint32_t d1[CHUNK], d2[CHUNK], d3[CHUNK], hb[CHUNK];
    float r[4][CHUNK];
    float q[CHUNK]; /* EDGE: the least (|r_g|^2 - |r_1|^2)^2 / |r_g - r_1|^2 over other features g */
} wstate;

static const wkeep wkeep_empty = {INF_BITS, INF_BITS, INF_BITS, 0u, {0.0f, 0.0f, 0.0f, 0.0f}};

/* One feature, at vector r and comparison distance d, against a point's
 * state. Blends, not branches, or GCC turns the selects into conditional
 * stores and will not vectorise. */
LOOP_INLINE void keep_feature(int dims, int keep, uint32_t d, uint32_t h, const float r[4], wkeep *s)
{
    const uint32_t a = s->d1, nearer = 0u - (uint32_t)((int32_t)d < (int32_t)a); /* all-ones where nearer */
    int k;
    if (keep == KEEP_F3) s->d3 = min_bits(s->d3, max_bits(d, s->d2));
    if (keep == KEEP_F2 || keep == KEEP_F3) s->d2 = min_bits(s->d2, (a & nearer) | (d & ~nearer));
    if (keep == KEEP_CELL || keep == KEEP_NEAR) s->hb = (h & nearer) | (s->hb & ~nearer);
    if (keep == KEEP_NEAR)
        for (k = 0; k < dims; k++) s->r[k] = u2f((f2u(r[k]) & nearer) | (f2u(s->r[k]) & ~nearer));
    s->d1 = (d & nearer) | (a & ~nearer);
}

/* One cell's feature against one point's running state. */
LOOP_INLINE void worley_cell(int dims, int metric, float e, int keep, uint32_t h, const float oc[4], float j,
                             const float t[4], wkeep *s)
{
    float r[4];
    feature_vec(dims, h, oc, j, t, r);
    keep_feature(dims, keep, f2u(metric_dist(dims, metric, e, r)), h, r, s);
}

LOOP_INLINE void state_load(const wstate *restrict w, int dims, int keep, int i, wkeep *s)
{
    int k;
    *s = wkeep_empty;
    s->d1 = w->d1[i];
    if (keep == KEEP_F2 || keep == KEEP_F3) s->d2 = w->d2[i];
    if (keep == KEEP_F3) s->d3 = w->d3[i];
    if (keep == KEEP_CELL || keep == KEEP_NEAR) s->hb = w->hb[i];
    if (keep == KEEP_NEAR)
        for (k = 0; k < dims; k++) s->r[k] = w->r[k][i];
}

LOOP_INLINE void state_store(wstate *restrict w, int dims, int keep, int i, const wkeep *s)
{
    int k;
    w->d1[i] = s->d1;
    if (keep == KEEP_F2 || keep == KEEP_F3) w->d2[i] = s->d2;
    if (keep == KEEP_F3) w->d3[i] = s->d3;
    if (keep == KEEP_CELL || keep == KEEP_NEAR) w->hb[i] = s->hb;
    if (keep == KEEP_NEAR)
        for (k = 0; k < dims; k++) w->r[k][i] = s->r[k];
}

/* The current cell (ch->o) against every point of the chunk. */
LOOP_INLINE void worley_leaf(const cell_chunk *ch, int dims, int metric, float e, int keep, float c0, float j,
                             wstate *restrict w)
{
    const uint32_t *restrict hh = ch->h[dims - 1];
    float oc[4];
    int k, i;
    for (k = 0; k < 4; k++) oc[k] = (float)ch->o[k] + c0;
    for (i = 0; i < ch->m; i++) {
        float t[4];
        wkeep s;
        point_t(ch, dims, i, t);
        state_load(w, dims, keep, i, &s);
        worley_cell(dims, metric, e, keep, hh[i], oc, j, t, &s);
        state_store(w, dims, keep, i, &s);
    }
}

/* The hash of block cell o (0 to 3^dims - 1, last axis fastest) of point i
 * and its offset from the point's cell plus c0. */
LOOP_INLINE uint32_t block_cell(const cell_chunk *ch, int dims, int o, int i, float c0, float oc[4])
{
    /* offsets per axis, 0 to 2 for -1 to 1 */
    const int q0 = dims == 3 ? o / 9 : dims == 2 ? o / 3 : o;
    const int q1 = dims == 3 ? (o / 3) % 3 : o % 3, q2 = o % 3;
    uint32_t v = ch->seed ^ ch->c[0][q0][i];
    oc[0] = (float)(q0 - 1) + c0;
    oc[1] = (float)(q1 - 1) + c0;
    oc[2] = (float)(q2 - 1) + c0;
    oc[3] = 0.0f;
    if (dims > 1) v ^= ch->c[1][q1][i];
    if (dims > 2) v ^= ch->c[2][q2][i];
    return ng_lattice_hash(v);
}

/*
 * The whole 3^d block, point-major, for dims 1 to 3: a point's 3, 9 or 27
 * cells are unrolled and kept in registers, where the neighbour-major
 * passes read and write every point's state once per cell. Cells in the
 * same odometer order (last axis fastest) and the same hash input
 * (seed ^ the axes' words), so the same bits.
 */
LOOP_INLINE void worley_block(const cell_chunk *ch, int dims, int metric, float e, int keep, float c0, float j,
                              wstate *restrict w)
{
    const int cells = dims == 1 ? 3 : dims == 2 ? 9 : 27;
    int i, o;
    for (i = 0; i < ch->m; i++) {
        float t[4];
        wkeep s = wkeep_empty;
        point_t(ch, dims, i, t);
        UNROLL
        for (o = 0; o < 27; o++)
            if (o < cells) {
                float oc[4];
                const uint32_t h = block_cell(ch, dims, o, i, c0, oc);
                worley_cell(dims, metric, e, keep, h, oc, j, t, &s);
            }
        state_store(w, dims, keep, i, &s);
    }
}

/*
 * The search, specialised per metric and keep so that every loop has them
 * as constants: block 1 runs the whole 3^d block point-major (dims 1 to
 * 3), block 0 one neighbour-major pass over the current cell (4D).
 */
LOOP_INLINE void worley_visit(const cell_chunk *ch, int dims, int metric, float e, int keep, int block,
                              float c0, float j, wstate *w)
{
#define WORLEY_RUN(M, K)                                                                  \
    if (block) worley_block(ch, dims, M, e, K, c0, j, w);                                 \
    else worley_leaf(ch, dims, M, e, K, c0, j, w)
#define WORLEY_KEEP(M)                                                                    \
    switch (keep) {                                                                       \
    case KEEP_F2: WORLEY_RUN(M, KEEP_F2); break;                                          \
    case KEEP_F3: WORLEY_RUN(M, KEEP_F3); break;                                          \
    case KEEP_CELL: WORLEY_RUN(M, KEEP_CELL); break;                                      \
    case KEEP_NEAR: WORLEY_RUN(M, KEEP_NEAR); break;                                      \
    default: WORLEY_RUN(M, KEEP_F1); break;                                               \
    }
    switch (metric) {
    case NG_METRIC_MANHATTAN: WORLEY_KEEP(NG_METRIC_MANHATTAN) break;
    case NG_METRIC_CHEBYSHEV: WORLEY_KEEP(NG_METRIC_CHEBYSHEV) break;
    case NG_METRIC_MINKOWSKI: WORLEY_KEEP(NG_METRIC_MINKOWSKI) break;
    default: WORLEY_KEEP(NG_METRIC_EUCLIDEAN) break;
    }
#undef WORLEY_KEEP
#undef WORLEY_RUN
}

/* ---- the distance to the cell's edge (EDGE, euclidean) ---------------------
 * The point's distance to the bisector between its nearest feature f1 and
 * another g is (|g - p|^2 - |f1 - p|^2) / (2 |g - f1|); the edge is the
 * least over every g. It is at least (|g - p| - F1) / 2 (triangle
 * inequality), so only features nearer than F1 + 2 edge can lower it: the
 * 3^d block holds all of them unless that exceeds the block's bound, and
 * the scalar walk below finds the rest. The search keeps q = 4 edge^2 =
 * num^2 / |g - f1|^2, num = |g - p|^2 - |f1 - p|^2 >= 0. The nearest
 * feature itself is skipped by its vector (two distinct features never
 * share one: their cells differ by whole units, their positions by at
 * least 2^-16). */
LOOP_INLINE float edge_term(int dims, const float r[4], const float rn[4], float dn, float q)
{
    float dr[4], num = dist2(dims, r) - dn, c;
    uint32_t same = 1u;
    int k;
    for (k = 0; k < 4; k++) dr[k] = r[k] - rn[k];
    for (k = 0; k < dims; k++) same &= (uint32_t)(f2u(r[k]) == f2u(rn[k]));
    c = num * num / dist2(dims, dr);
    c = u2f(min_bits(f2u(q), f2u(c) & 0x7fffffffu));
    return select_f(same, q, c);
}

LOOP_INLINE void edge_block(const cell_chunk *ch, int dims, float c0, float j, wstate *restrict w)
{
    const int cells = dims == 1 ? 3 : dims == 2 ? 9 : 27;
    int i, o, k;
    for (i = 0; i < ch->m; i++) {
        float t[4], rn[4] = {0, 0, 0, 0}, q = u2f(INF_BITS);
        const float dn = u2f(w->d1[i]);
        point_t(ch, dims, i, t);
        for (k = 0; k < dims; k++) rn[k] = w->r[k][i];
        UNROLL
        for (o = 0; o < 27; o++)
            if (o < cells) {
                float oc[4], r[4];
                feature_vec(dims, block_cell(ch, dims, o, i, c0, oc), oc, j, t, r);
                q = edge_term(dims, r, rn, dn, q);
            }
        w->q[i] = q;
    }
}

LOOP_INLINE void edge_leaf(const cell_chunk *ch, int dims, float c0, float j, wstate *restrict w)
{
    const uint32_t *restrict hh = ch->h[dims - 1];
    float oc[4];
    int k, i;
    for (k = 0; k < 4; k++) oc[k] = (float)ch->o[k] + c0;
    for (i = 0; i < ch->m; i++) {
        float t[4], r[4], rn[4] = {0, 0, 0, 0};
        point_t(ch, dims, i, t);
        for (k = 0; k < dims; k++) rn[k] = w->r[k][i];
        feature_vec(dims, hh[i], oc, j, t, r);
        w->q[i] = edge_term(dims, r, rn, u2f(w->d1[i]), w->q[i]);
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
 * The budget: F1, F2 or F3 (need 1 to 3), or for EDGE (need 4) F1 + 2 edge.
 */
enum { NEED_EDGE = 4 };

typedef struct worley_fix {
    const cell_chunk *ch;
    const cell_axis *ax;
    int i, metric, need, keep;
    float c0, j, e, t[4];
    float far[4]; /* least gap to a cell two or more away, over axes k and up */
    wkeep s;
    float q; /* EDGE */
} worley_fix;

/* The walk's budget in the metric's comparison form. */
static float fix_budget(const worley_fix *w)
{
    float b;
    switch (w->need) {
    case 1: return u2f(w->s.d1);
    case 2: return u2f(w->s.d2);
    case 3: return u2f(w->s.d3);
    default: b = sqrtf(u2f(w->s.d1)) + sqrtf(w->q); return b * b;
    }
}

/* Lower bound on the distance along axis k to a feature of the cell o away,
 * lowered by the slack so float rounding cannot prune a real candidate. */
static float axis_gap(const worley_fix *w, int k, int o)
{
    float lo = (float)o + w->c0, below = lo - w->t[k], above = w->t[k] - (lo + w->j);
    return pos_part((below > above ? below : above) - BOUND_SLACK);
}

static float add_gap(int metric, float e, float partial, float g)
{
    switch (metric) {
    case NG_METRIC_MANHATTAN: return partial + g;
    case NG_METRIC_CHEBYSHEV: return partial > g ? partial : g;
    case NG_METRIC_MINKOWSKI: return partial + ng_cell_pow(g, e);
    default: return partial + g * g;
    }
}

static void fix_visit(worley_fix *w, int k, float partial, int o[4], int outside)
{
    const int dims = w->ch->dims;
    int dir, last_inside;
    /* a subtree inside the 3^d block has nothing left to find */
    if (!outside && k < dims && add_gap(w->metric, w->e, partial, w->far[k]) > fix_budget(w)) return;
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
        if (w->need == NEED_EDGE) w->q = edge_term(dims, r, w->s.r, u2f(w->s.d1), w->q);
        else keep_feature(dims, w->keep, f2u(metric_dist(dims, w->metric, w->e, r)), h, r, &w->s);
        return;
    }
    /* on the last axis of a path inside the block only offsets 2 and up
     * lead outside */
    last_inside = !outside && k == dims - 1;
    for (dir = 1; dir >= -1; dir -= 2)
        for (o[k] = dir > 0 ? (last_inside ? 2 : 0) : (last_inside ? -2 : -1);; o[k] += dir) {
            float lb = add_gap(w->metric, w->e, partial, axis_gap(w, k, o[k]));
            if (lb > fix_budget(w)) break;
            fix_visit(w, k + 1, lb, o, outside || o[k] > 1 || o[k] < -1);
        }
}

static void worley_exact(const cell_chunk *ch, const cell_axis *ax, int i, int metric, float e, int keep,
                         int need, float c0, float j, wstate *st)
{
    worley_fix w;
    int o[4] = {0, 0, 0, 0}, k;
    w.ch = ch;
    w.ax = ax;
    w.i = i;
    w.metric = metric;
    w.e = e;
    w.keep = keep;
    w.need = need;
    w.c0 = c0;
    w.j = j;
    point_t(ch, ch->dims, i, w.t);
    for (k = ch->dims - 1; k >= 0; k--) {
        float up = axis_gap(&w, k, 2), down = axis_gap(&w, k, -2), g = up < down ? up : down;
        w.far[k] = k == ch->dims - 1 || g < w.far[k + 1] ? g : w.far[k + 1];
    }
    state_load(st, ch->dims, keep, i, &w.s);
    w.q = st->q[i];
    fix_visit(&w, 0, 0.0f, o, 0);
    if (need == NEED_EDGE) st->q[i] = w.q;
    else state_store(st, ch->dims, keep, i, &w.s);
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

/* Points of the chunk whose 3^d search may have missed a feature it
 * needs (need: comparison-form distances): flagged in a vector loop,
 * then listed. */
LOOP_INLINE int worley_misses(const cell_chunk *ch, int dims, int metric, float e, float j,
                              const uint32_t *restrict need, uint32_t *restrict miss, int fix[CHUNK])
{
    const float b0 = 1.5f - 0.5f * j - BOUND_SLACK;
    int i, n = 0;
    if (metric == NG_METRIC_MINKOWSKI) /* a loop of its own: the power is not free */
        for (i = 0; i < ch->m; i++) miss[i] = (int32_t)need[i] > (int32_t)f2u(ng_cell_pow(b0 + face_dist(ch, dims, i), e));
    else
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

/* Comparison form to distance, in place. */
LOOP_INLINE void to_distance(uint32_t *restrict d, int m, int metric, float inv_e)
{
    int i;
    if (metric == NG_METRIC_EUCLIDEAN)
        for (i = 0; i < m; i++) d[i] = f2u(sqrtf(u2f(d[i])));
    if (metric == NG_METRIC_MINKOWSKI)
        for (i = 0; i < m; i++) d[i] = f2u(ng_cell_pow(u2f(d[i]), inv_e));
}

LOOP_INLINE void worley_run(const ng_noise_pts *p, float *out, const int dims)
{
    const int metric = p->metric, feature = p->feature;
    const float j = clamp_jitter(p->jitter), c0 = 0.5f - 0.5f * j;
    const float e = ng_minkowski_exponent(p->exponent), inv_e = 1.0f / e;
    const int keep = feature == NG_WORLEY_F2 || feature == NG_WORLEY_F2_F1 ? KEEP_F2
                     : feature == NG_WORLEY_F3                            ? KEEP_F3
                     : feature == NG_WORLEY_CELL                          ? KEEP_CELL
                     : feature == NG_WORLEY_EDGE || feature == NG_WORLEY_POSITION ? KEEP_NEAR
                                                                                   : KEEP_F1;
    const int need = keep == KEEP_F2 ? 2 : keep == KEEP_F3 ? 3 : 1;
    const int plane = p->plane > 0 ? p->plane : p->n;
    float inv = 1.0f;
    cell_axis ax[4];
    cell_chunk ch;
    wstate w;
    uint32_t miss[CHUNK], *needed = need == 2 ? w.d2 : need == 3 ? w.d3 : w.d1;
    int fix[CHUNK], start, i, k;
    if (feature != NG_WORLEY_CELL && feature != NG_WORLEY_POSITION)
        inv = 1.0f / ng_worley_normaliser(feature, metric, dims, j, e);
    split_anchor(p, ax);
    chunk_init(&ch, p);
    for (start = 0; start < p->n; start += CHUNK) {
        const int m = p->n - start < CHUNK ? p->n - start : CHUNK;
        float *restrict o = out + start;
        int nfix, q;
        chunk_load(&ch, p, ax, start, m);
        if (dims < 4) {
            worley_visit(&ch, dims, metric, e, keep, 1, c0, j, &w);
        } else {
            for (i = 0; i < m; i++) {
                w.d1[i] = w.d2[i] = w.d3[i] = INF_BITS;
                w.hb[i] = 0;
                for (k = 0; k < 4; k++) w.r[k][i] = 0.0f;
            }
            nb_first(&ch);
            do worley_visit(&ch, dims, metric, e, keep, 0, c0, j, &w);
            while (nb_next(&ch));
        }
        nfix = worley_misses(&ch, dims, metric, e, j, needed, miss, fix);
        for (q = 0; q < nfix; q++) worley_exact(&ch, ax, fix[q], metric, e, keep, need, c0, j, &w);
        if (feature == NG_WORLEY_EDGE) { /* a second pass, from the nearest (euclidean) */
            if (dims < 4) {
                edge_block(&ch, dims, c0, j, &w);
            } else {
                for (i = 0; i < m; i++) w.q[i] = u2f(INF_BITS);
                nb_first(&ch);
                do edge_leaf(&ch, dims, c0, j, &w);
                while (nb_next(&ch));
            }
            for (i = 0; i < m; i++) { /* the walk's budget: F1 + 2 edge, squared */
                const float b = sqrtf(u2f(w.d1[i])) + sqrtf(w.q[i]);
                w.d2[i] = f2u(b * b);
            }
            nfix = worley_misses(&ch, dims, metric, e, j, w.d2, miss, fix);
            for (q = 0; q < nfix; q++) worley_exact(&ch, ax, fix[q], metric, e, keep, NEED_EDGE, c0, j, &w);
        }
        to_distance(w.d1, m, metric, inv_e);
        if (keep == KEEP_F2 || keep == KEEP_F3) to_distance(w.d2, m, metric, inv_e);
        if (keep == KEEP_F3) to_distance(w.d3, m, metric, inv_e);
        switch (feature) {
        case NG_WORLEY_F1:
            for (i = 0; i < m; i++) o[i] = scale_unit(u2f(w.d1[i]), inv);
            break;
        case NG_WORLEY_F2:
            for (i = 0; i < m; i++) o[i] = scale_unit(u2f(w.d2[i]), inv);
            break;
        case NG_WORLEY_F2_F1:
            for (i = 0; i < m; i++) o[i] = scale_unit(u2f(w.d2[i]) - u2f(w.d1[i]), inv);
            break;
        case NG_WORLEY_F3:
            for (i = 0; i < m; i++) o[i] = scale_unit(u2f(w.d3[i]), inv);
            break;
        case NG_WORLEY_EDGE:
            for (i = 0; i < m; i++) o[i] = scale_unit(0.5f * sqrtf(w.q[i]), inv);
            break;
        case NG_WORLEY_POSITION:
            for (k = 0; k < dims; k++) {
                float *restrict ok = out + (size_t)k * (size_t)plane + start;
                for (i = 0; i < m; i++) ok[i] = w.r[k][i];
            }
            for (k = 0; k < dims && p->cells; k++) { /* feature_vec's coordinates, in the feature's own cell */
                float *restrict ok = out + (size_t)(dims + k) * (size_t)plane + start;
                const float js = j * (1.0f / 65536.0f);
                for (i = 0; i < m; i++) ok[i] = c0 + (float)(int32_t)(ng_cell_word(w.hb[i], k) >> 16) * js;
            }
            break;
        default:
            for (i = 0; i < m; i++) o[i] = ng_hash_unit(ng_hash_step(w.hb[i], 1u));
            break;
        }
    }
}

/* One function per dims so only one chunk's scratch is on the stack. */
static void worley1(const ng_noise_pts *p, float *out) { worley_run(p, out, 1); }
static void worley2(const ng_noise_pts *p, float *out) { worley_run(p, out, 2); }
static void worley3(const ng_noise_pts *p, float *out) { worley_run(p, out, 3); }
static void worley4(const ng_noise_pts *p, float *out) { worley_run(p, out, 4); }

/* Zeros for an invalid call: every plane a POSITION call of 1 to 4 dims
 * writes (dims, or 2 dims with p->cells), else one. */
static void position_zeros(const ng_noise_pts *p, float *out)
{
    int k;
    if (p->feature != NG_WORLEY_POSITION || p->dims < 1 || p->dims > 4) {
        zeros(p, out);
        return;
    }
    for (k = 0; k < (p->cells ? 2 : 1) * p->dims && p->n > 0; k++)
        memset(out + (size_t)k * (size_t)(p->plane > 0 ? p->plane : p->n), 0, (size_t)p->n * sizeof *out);
}

static void worley_noise(const ng_noise_pts *p, float *out)
{
    if (p->feature < NG_WORLEY_F1 || p->feature >= NG_WORLEY_NFEATURES || p->metric < NG_METRIC_EUCLIDEAN ||
        p->metric >= NG_NMETRICS || (p->feature == NG_WORLEY_EDGE && p->metric != NG_METRIC_EUCLIDEAN)) {
        position_zeros(p, out);
        return;
    }
    switch (p->dims) {
    case 1: worley1(p, out); break;
    case 2: worley2(p, out); break;
    case 3: worley3(p, out); break;
    case 4: worley4(p, out); break;
    default: position_zeros(p, out); break;
    }
}

NG_FAMILY_TABLE(worley, NG_BASES_WORLEY);
