/*
 * stream_power.c — ng.stream_power: range-scale drainage. Rivers that
 * cross a range, cut by the stream-power law over a whole simulation
 * tile, on the engine's world tiles (core/hood.c, ng_hood_type.tile), so
 * a world point gets the same bits in every region, tile, thread count
 * and farm tile of a render.
 *
 * Per tile of w x w lattice cells (w = 2 P + 3, P = tile / 2 cells a
 * patch), `iterations` times:
 *   1. Depressions filled: Priority-Flood+epsilon (Barnes, Lehman and
 *      Mulla 2014), seeded from the tile's outer ring (its outlets: the
 *      base level), a pit heap for the cells it raises, so every cell of
 *      the filled surface has a lower neighbour and all water reaches
 *      the ring. `fill` of each pit's depth is laid in as sediment (1:
 *      lakes become flat floors that drain; below 1 the water crosses the
 *      part left).
 *   2. Flow routing: each cell's receiver its steepest lower neighbour
 *      of the 8 on the filled surface (D8), the cells in the flood's own
 *      order, which runs from the outlets upstream (the order Braun and
 *      Willett 2013 build from donor lists).
 *   3. Drainage area: each cell's area passed to all its lower
 *      neighbours in proportion to slope times contour length (multiple
 *      flow directions, Quinn et al. 1991), in reverse order: on an open
 *      slope water spreads, where the ground converges it gathers, so
 *      the rivers follow the landforms; D8 drainage would cut a plane
 *      into parallel grooves.
 *   4. Incision, dh/dt = U (h0 - h) - K A^m S: Braun and Willett's
 *      implicit solve in stack order, h_i <- (h_i + U h0_i + F h_r) / (1 +
 *      U + F), F = K A^m / d_ir, its receiver r already updated: stable at
 *      any step. The uplift term is ours: rather than a rate, it pulls
 *      the ground back toward the source h0, so the node keeps the range
 *      it is given and its rivers settle to a steady state, valleys as
 *      deep as the area they drain, instead of wearing the tile down to
 *      its edge's level as iterations go on (U = 0 does that).
 *   5. Hillslope diffusion (optional): dh = D laplacian(h), explicit,
 *      which rounds the V of a one-cell channel into a valley.
 * All of it in world units (heights are the source times `height`, areas
 * spacing^2, distances in world units), so the slopes are the world's.
 *
 * Why a grid model here when ng.hydraulic runs droplets: a droplet's
 * reach is its lifetime, so droplets carve gullies but never a river
 * network; the stream-power law's reach is the drainage basin, and one
 * pass in the flood's order solves a step (the flood's heap O(n log n),
 * the rest O(n)). The price of tiling is the one every
 * tile type pays: drainage longer than a tile (`tile` x spacing world
 * units) does not form, and where neighbouring tiles route a river
 * differently their blend shows both, faded. Tiles big against the
 * landforms keep that rare: at the defaults a tile is 2048 world units.
 * And a river crossing a basin (a depression the ground keeps, fill < 1)
 * runs on the filled surface, along the basin's lowest ground but above
 * it: it cuts nothing there.
 *
 * Channels: 1 the eroded height, 2 drainage (log of the cells draining
 * through a cell over log of the tile's cells, in [0, 1]), 3 wear (the
 * height lowered), 4 deposit (the height raised: pits filled, diffusion),
 * all blended alike. The eroded height is sampled from the lattice by a
 * smooth cubic, so it has the lattice's detail; a graph that wants the
 * source's own adds the change to it (source - wear + deposit, the same
 * up to rounding), as graphs/terrain_eroded.lua does.
 */
#include "ng_node.h"
#include "types.h"
#include "ngmath.h"
#include "stream_power.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { I_SOURCE, NINPUTS };

static const ng_input_desc sp_inputs[NINPUTS] = {
    [I_SOURCE] = {"source", NG_INPUT_PULL, 1, 1, 0, "the height field eroded"},
};

enum { S_SPACING, S_TILE, S_ITERATIONS, S_STRENGTH, S_AREA_EXPONENT, S_UPLIFT, S_DIFFUSION, S_FILL, S_HEIGHT, S_NPARAMS };

static const ng_param_desc sp_params[S_NPARAMS] = {
    [S_SPACING] = {"spacing", NG_PARAM_NUMBER, {16}, 1e-9, 1e12, NULL,
                   "world units between lattice cells: the narrowest valley it cuts is a few cells wide (the erosion "
                   "filter and droplets carve what is finer)"},
    [S_TILE] = {"tile", NG_PARAM_INT, {128}, 32, 1024, NULL,
                "lattice cells a side of a simulation tile, an even number from 32 to 1024: tile x spacing world "
                "units (2048 at the defaults) is the longest river. Tiles overlap by half and every point blends "
                "two a side; a tile's cost grows a little faster than its area. Take it so a tile holds several "
                "landforms"},
    [S_ITERATIONS] = {"iterations", NG_PARAM_INT, {24}, 1, 256, NULL,
                      "steps of fill, routing and incision, 1 to 256: the rivers near their steady state by about "
                      "2 / uplift"},
    [S_STRENGTH] = {"strength", NG_PARAM_NUMBER, {0.004}, 0, 10, NULL,
                    "K of the stream-power law, 0 to 10: a step moves a cell toward the cell it drains to by F = "
                    "K A^m / d of their difference (A its drainage area in world units^2, d the distance in world "
                    "units), solved implicitly, so any value is stable. At the defaults F is 0.02 on a crest (one "
                    "cell's area) and 9 on a trunk draining 2000 cells"},
    [S_AREA_EXPONENT] = {"area_exponent", NG_PARAM_NUMBER, {0.8}, 0.1, 1, NULL,
                         "m of the stream-power law (n is 1), 0.1 to 1: how much more a river cuts than a rill. "
                         "Against the uplift, higher keeps the crests and cuts the trunks deep (0.4 to 0.6 is "
                         "nature's concavity at a steady uplift rate)"},
    [S_UPLIFT] = {"uplift", NG_PARAM_NUMBER, {0.1}, 0, 1, NULL,
                  "0 to 1: a step raises the ground this share of the way back to the source's height, as uplift "
                  "keeps a range standing: the rivers then settle to valleys whose depth grows with the area "
                  "they drain (a steady state) rather than wear the whole tile down to its edge; 0: pure erosion"},
    [S_DIFFUSION] = {"diffusion", NG_PARAM_NUMBER, {0.05}, 0, 0.25, NULL,
                     "hillslope diffusion a step, 0 to 0.25 (of the lattice's laplacian; stable to 0.25): widens "
                     "and rounds the channels the rivers cut into valleys"},
    [S_FILL] = {"fill", NG_PARAM_NUMBER, {0}, 0, 1, NULL,
                "0 to 1: the share of every depression filled with sediment each step (1: lakes become flat "
                "floors; 0: the ground is left and the water crosses the filled surface). Routing always runs "
                "on the filled surface, so water drains from every pit"},
    [S_HEIGHT] = {"height", NG_PARAM_NUMBER, {100}, 1e-9, 1e12, NULL,
                  "world units of height per unit of the source, as ng.surface's `height`. Incision is linear in "
                  "height, so it sets only the slope a filled flat drains by (1/1000 of a cell's width a cell, "
                  "less where the tile's relief is smaller: a flat climbs at most that relief across a tile)"},
};

typedef struct sp_state {
    ng_sp_params p;
    float height;
} sp_state;

static int sp_setup(ng_node *n, const int *ch, ng_error *err)
{
    const double s = ng_num(n, S_SPACING);
    const int tile = (int)ng_num(n, S_TILE);
    sp_state *st;
    (void)ch;
    n->channels = 4;
    if (tile % 2) return ng_errorf(err, "%s: tile must be an even number of cells, not %d", n->label, tile);
    if (ng_hood_tile_patch(n, tile / 2, err) ||
        ng_hood_declare(n, s, ng_hood_tile_radius(n) * s, ng_hood_tile_radius(n), err))
        return -1;
    if (!(st = ng_node_state_alloc(n, sizeof *st, err))) return -1;
    st->p.k = (float)ng_num(n, S_STRENGTH);
    st->p.m = (float)ng_num(n, S_AREA_EXPONENT);
    st->p.uplift = (float)ng_num(n, S_UPLIFT);
    st->p.diffusion = (float)ng_num(n, S_DIFFUSION);
    st->p.fill = (float)ng_num(n, S_FILL);
    st->p.spacing = (float)s;
    st->p.iterations = (int)ng_num(n, S_ITERATIONS);
    st->height = (float)ng_num(n, S_HEIGHT);
    return 0;
}

/* The 8 neighbours: offsets in x and y, their distance in cells. */
static const int NX[8] = {1, -1, 0, 0, 1, -1, 1, -1}, NY[8] = {0, 0, 1, -1, 1, 1, -1, -1};
static const float ND[8] = {1, 1, 1, 1, 1.41421356f, 1.41421356f, 1.41421356f, 1.41421356f};
/* The contour a neighbour's direction crosses, in cells (Quinn et al.). */
static const float CONTOUR[8] = {0.5f, 0.5f, 0.5f, 0.5f, 0.354f, 0.354f, 0.354f, 0.354f};

/* A binary min-heap of cells keyed by their height, ties by index: the
 * order cells leave it is a function of the heights alone. The key sits
 * beside the index, so a comparison reads no other plane (the flood's
 * cost is mostly these comparisons). */
typedef struct entry {
    float z;
    int32_t i;
} entry;

typedef struct heap {
    entry *a;
    int n;
} heap;

static inline int before(entry x, entry y) { return x.z < y.z || (x.z == y.z && x.i < y.i); }

static void heap_push(heap *q, entry e)
{
    int i = q->n++;
    while (i > 0) {
        const int up = (i - 1) / 2;
        if (!before(e, q->a[up])) break;
        q->a[i] = q->a[up];
        i = up;
    }
    q->a[i] = e;
}

static int32_t heap_pop(heap *q)
{
    const int32_t top = q->a[0].i;
    const entry last = q->a[--q->n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= q->n) break;
        if (c + 1 < q->n && before(q->a[c + 1], q->a[c])) c++;
        if (!before(q->a[c], last)) break;
        q->a[i] = q->a[c];
        i = c;
    }
    if (q->n > 0) q->a[i] = last;
    return top;
}

/* The planes a tile works in, w^2 each. */
typedef struct work {
    int w;
    float *h, *z, *area;           /* ground, filled surface, drainage area */
    int32_t *rcv, *order, *rank;   /* receiver, the flood's order, each cell's place in it */
    entry *q, *pq;                 /* the flood's heaps: open cells, raised cells */
    uint8_t *done;
} work;

static int on_ring(int w, int x, int y) { return x == 0 || y == 0 || x == w - 1 || y == w - 1; }

/* 1. Priority-Flood+epsilon: z the ground h with every depression
 * raised to drain to the ring, each cell at least eps above the cell it
 * was reached from; order[] the cells as the flood took them, rank[] each
 * cell's place in it. A cell's parent (the cell it was reached from) is
 * lower and taken before it, so that order runs from the outlets
 * upstream, the order routing and incision need. The cells a depression
 * raises wait in a heap of their own (Barnes et al.'s pit queue, taken
 * first) ordered by their ground, not first come first served: the
 * flood then spreads through a basin along its lowest ground, so water
 * crossing it follows the basin's floor to the spill point, where a
 * queue's order would send it in straight lines (the rings of a
 * breadth-first search). */
static void flood(const work *k, float eps)
{
    const int w = k->w, n = w * w;
    heap q = {k->q, 0}, pits = {k->pq, 0};
    int i, x, y, at = 0;
    memcpy(k->z, k->h, (size_t)n * sizeof(float));
    memset(k->done, 0, (size_t)n);
    for (y = 0; y < w; y++)
        for (x = 0; x < w; x++)
            if (on_ring(w, x, y)) {
                const entry e = {k->z[y * w + x], y * w + x};
                k->done[e.i] = 1;
                heap_push(&q, e);
            }
    while (q.n || pits.n) {
        const int32_t c = pits.n ? heap_pop(&pits) : heap_pop(&q);
        const int cx = c % w, cy = c / w;
        float lift = k->z[c] + eps;
        if (!(lift > k->z[c])) lift = nextafterf(k->z[c], INFINITY); /* above, even where eps is below an ulp */
        k->rank[c] = at;
        k->order[at++] = c;
        for (i = 0; i < 8; i++) {
            const int nx = cx + NX[i], ny = cy + NY[i];
            int32_t nb;
            if (nx < 0 || ny < 0 || nx >= w || ny >= w) continue;
            nb = ny * w + nx;
            if (k->done[nb]) continue;
            k->done[nb] = 1;
            if (k->z[nb] <= lift) {
                const entry e = {k->h[nb], nb};
                k->z[nb] = lift;
                heap_push(&pits, e);
            } else {
                const entry e = {k->z[nb], nb};
                heap_push(&q, e);
            }
        }
    }
}

/* Whether water at c may go to neighbour nb: lower on the filled
 * surface and taken before c by the flood (all but a few lower
 * neighbours are; the parent always is), so that every path follows the
 * order and ends at the ring. */
static inline int downhill(const work *k, int32_t c, int32_t nb)
{
    return k->z[nb] < k->z[c] && k->rank[nb] < k->rank[c];
}

/* 2. Receivers: each interior cell's steepest downhill neighbour (its
 * parent at least), the ring's their own. 3. Drainage, in cells: each
 * cell's own and what its uphill neighbours pass it, shared among its
 * downhill neighbours in proportion to slope times contour length
 * (multiple flow directions, Quinn et al. 1991), so water spreads over an
 * open slope and gathers where the ground converges: the single receiver
 * is for incision alone (one D8 path drains a plane in parallel grooves). */
static void route(const work *k)
{
    const int w = k->w, n = w * w;
    int i, j;
    for (i = 0; i < n; i++) {
        const int32_t c = k->order[i];
        float best = 0.0f;
        int32_t r = c;
        if (!on_ring(w, c % w, c / w))
            for (j = 0; j < 8; j++) {
                const int32_t nb = c + NY[j] * w + NX[j];
                const float drop = (k->z[c] - k->z[nb]) / ND[j];
                if (downhill(k, c, nb) && drop > best) best = drop, r = nb;
            }
        k->rcv[c] = r;
        k->area[c] = 1.0f;
    }
    for (i = n - 1; i >= 0; i--) {
        const int32_t c = k->order[i];
        float wt[8], sum = 0.0f;
        if (k->rcv[c] == c) continue;
        for (j = 0; j < 8; j++) {
            const int32_t nb = c + NY[j] * w + NX[j];
            wt[j] = downhill(k, c, nb) ? (k->z[c] - k->z[nb]) / ND[j] * CONTOUR[j] : 0.0f;
            sum += wt[j];
        }
        for (j = 0; j < 8; j++)
            if (wt[j] > 0.0f) k->area[c + NY[j] * w + NX[j]] += k->area[c] * (wt[j] / sum);
    }
}

/* The working planes, w^2 each beside the caller's h and area. */
#define SP_SCRATCH (4 * 4 + 2 * 8 + 1) /* bytes a cell: 4 planes of 4 bytes, the heaps' 8 each, done[] */

int ng_stream_power_run(const ng_sp_params *p, const float *source, float *h, float *area, int32_t *rcv,
                        float *filled, int w)
{
    const int n = w * w;
    const size_t N = (size_t)n;
    const float s = p->spacing, cell = s * s;
    const float am = ng_powf(cell, p->m), inv_s = 1.0f / s, inv_d = 1.0f / (s * 1.41421356f);
    work k;
    char *mem = malloc(N * SP_SCRATCH);
    float lo = source[0], hi = source[0], eps;
    int it, i, x, y;
    if (!mem) return -1;
    /* a filled flat drains by a thousandth of a cell's width a cell, but
     * never rises across the tile by more than the tile's relief: under a
     * tiny `height` the fixed slope raised basins a billion source units */
    for (i = 1; i < n; i++) lo = source[i] < lo ? source[i] : lo, hi = source[i] > hi ? source[i] : hi;
    eps = 1e-3f * s;
    if (hi - lo < eps * (float)w) eps = (hi - lo) / (float)w;
    k.w = w;
    k.h = h, k.area = area, k.q = (entry *)mem, k.pq = k.q + N, k.z = (float *)(k.pq + N);
    k.rcv = (int32_t *)(k.z + N), k.order = k.rcv + N, k.rank = k.order + N;
    k.done = (uint8_t *)(k.rank + N);
    for (it = 0; it < p->iterations; it++) {
        flood(&k, eps);
        for (i = 0; i < n; i++) k.h[i] += (k.z[i] - k.h[i]) * p->fill;
        route(&k); /* area in cells until the end */
        if (rcv) memcpy(rcv, k.rcv, N * sizeof *rcv);
        if (filled) memcpy(filled, k.z, N * sizeof *filled);
        for (i = 0; i < n; i++) {
            const int32_t c = k.order[i], r = k.rcv[c];
            float f;
            if (r == c) continue;
            /* dh = u (source - h) - f (h - h_r), implicit in h and h_r; no incision where h is not above h_r */
            f = k.h[c] > k.h[r] ? p->k * am * (p->m == 0.5f ? sqrtf(k.area[c]) : ng_powf(k.area[c], p->m)) *
                                      (c % w != r % w && c / w != r / w ? inv_d : inv_s)
                                : 0.0f;
            k.h[c] = (k.h[c] + p->uplift * source[c] + f * k.h[r]) / (1.0f + p->uplift + f);
        }
        if (p->diffusion > 0) { /* Jacobi, from a copy in z; the ring stays the base level */
            memcpy(k.z, k.h, N * sizeof(float));
            for (y = 1; y < w - 1; y++)
                for (x = 1; x < w - 1; x++) {
                    const float *c = k.z + (size_t)y * w + x;
                    k.h[y * w + x] = c[0] + p->diffusion * (c[-1] + c[1] + c[-w] + c[w] - 4.0f * c[0]);
                }
        }
    }
    for (i = 0; i < n; i++) k.area[i] *= cell;
    free(mem);
    return 0;
}

static int sp_tile(const ng_node *node, const float *in, float *out, int w, int channels, uint64_t seed)
{
    const sp_state *st = node->state;
    const size_t N = (size_t)w * (size_t)w;
    float *dh = out, *drain = out + N, *wear = out + 2 * N, *dep = out + 3 * N;
    const float cell = st->p.spacing * st->p.spacing, top = ng_logf((float)N);
    size_t i;
    (void)channels, (void)seed;
    /* world units, so the slopes are the world's; the source's heights in wear's plane until the end */
    for (i = 0; i < N; i++) wear[i] = dh[i] = in[i] * st->height;
    if (ng_stream_power_run(&st->p, wear, dh, drain, NULL, NULL, w)) return -1;
    for (i = 0; i < N; i++) {
        const float d = dh[i] / st->height - in[i]; /* the change, blended and added back by the engine */
        dh[i] = d;
        drain[i] = ng_logf(drain[i] / cell) / top;
        wear[i] = d < 0 ? -d : 0.0f;
        dep[i] = d > 0 ? d : 0.0f;
    }
    return 0;
}

static const ng_hood_type sp_hood = {
    .input = I_SOURCE, .smooth = 1, .scratch = SP_SCRATCH, .tile = sp_tile};

const ng_node_type ng_type_stream_power = {
    .name = "stream_power", .family = "neighbourhood",
    .doc = "range-scale drainage: rivers cut by the stream-power law (dh/dt = U (source - h) - K A^m S, Braun and "
           "Willett's implicit solver) over depressions filled by Priority-Flood+epsilon, drainage by multiple "
           "flow directions, with hillslope diffusion. 4 "
           "channels: 1 the eroded height, 2 drainage (log of the area draining through a point over log of a "
           "tile's, in [0, 1]), 3 wear, 4 deposit. Simulated on world tiles of `tile` x `spacing` world units, "
           "blended by a partition of unity: stitches exactly across regions, tiles, threads and farm tiles, but "
           "no river is longer than a tile. 2D renders only",
    .params = sp_params, .nparams = S_NPARAMS, .inputs = sp_inputs, .ninputs = NINPUTS,
    .dims = 1u << 2, .method = "stream_power", .positional = "source", .setup = sp_setup,
    .tile_check = ng_hood_tile_check, .eval = ng_hood_eval,
    .hood = &sp_hood,
};
