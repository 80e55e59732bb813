/*
 * stream_power.c — ng.stream_power: range-scale drainage. Rivers that
 * cross a range, cut by the stream-power law over a whole simulation
 * tile, on the engine's world tiles (core/hood.c, ng_hood_type.tile), so
 * a world point gets the same bits in every region, tile, thread count
 * and farm tile of a render.
 *
 * Per tile of w x w lattice cells (w = 2 P + 3, P = 128 cells a patch),
 * `iterations` times:
 *   1. Depressions filled: Priority-Flood+epsilon (Barnes, Lehman and
 *      Mulla 2014), seeded from the tile's outer ring (its outlets: the
 *      base level), a pit queue for the cells it raises, so every cell of
 *      the filled surface has a lower neighbour and all water reaches
 *      the ring. `fill` of each pit's depth is laid in as sediment (1:
 *      lakes become flat floors that drain; below 1 the water crosses the
 *      part left).
 *   2. Flow routing: each cell to its steepest neighbour of the 8 on the
 *      filled surface (D8); the cells ordered from the outlets upstream
 *      (Braun and Willett 2013's stack, from donor lists, O(n)).
 *   3. Drainage area: each cell's area (spacing^2) passed downstream in
 *      reverse order.
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
 * spacing^2, distances in world units), so `strength` means about the
 * same at any spacing.
 *
 * Why a grid model here when ng.hydraulic runs droplets: a droplet's
 * reach is its lifetime, so droplets carve gullies but never a river
 * network; the stream-power law's reach is the drainage basin, which
 * the ordering makes O(n) a step. The price of tiling is the one every
 * tile type pays: drainage longer than a tile (2 P cells = 256 x
 * spacing world units) does not form, and where neighbouring tiles route
 * a river differently their blend shows both, faded. Tiles big against
 * the landforms keep that rare: at spacing 8 a tile is 2048 world units.
 *
 * Channels: 1 the eroded height, 2 drainage (log of the cells draining
 * through a cell over log of the tile's cells, in [0, 1]), 3 wear (the
 * height lowered), 4 deposit (the height filled in), all blended alike.
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

/* Cells per patch: a tile is 2 P + 3 cells a side. */
#define SP_PATCH 128

enum { S_SPACING, S_ITERATIONS, S_STRENGTH, S_AREA_EXPONENT, S_UPLIFT, S_DIFFUSION, S_FILL, S_HEIGHT, S_NPARAMS };

static const ng_param_desc sp_params[S_NPARAMS] = {
    [S_SPACING] = {"spacing", NG_PARAM_NUMBER, {8}, 1e-9, 1e12, NULL,
                   "world units between lattice cells; a simulation tile is 256 cells a side (256 x spacing world "
                   "units, 2048 at 8): no river is longer than that. Take it so a tile holds several landforms"},
    [S_ITERATIONS] = {"iterations", NG_PARAM_INT, {24}, 1, 256, NULL,
                      "steps of fill, routing and incision, 1 to 256: more grades the rivers further down"},
    [S_STRENGTH] = {"strength", NG_PARAM_NUMBER, {0.02}, 0, 10, NULL,
                    "K of the stream-power law, 0 to 10: the incision a step of a cell whose drainage area^m "
                    "over its distance downstream is 1 (world units); a trunk draining a tile's width reaches its "
                    "receiver's level in a few steps at 0.02, a hilltop barely moves"},
    [S_AREA_EXPONENT] = {"area_exponent", NG_PARAM_NUMBER, {0.5}, 0.1, 1, NULL,
                         "m of the stream-power law, 0.1 to 1 (n is 1): how much more a river cuts than a rill; "
                         "0.4 to 0.6 in nature"},
    [S_UPLIFT] = {"uplift", NG_PARAM_NUMBER, {0.1}, 0, 1, NULL,
                  "0 to 1: a step raises the ground this share of the way back to the source's height, as uplift "
                  "keeps a range standing: the rivers then settle to valleys whose depth grows with the area "
                  "they drain (a steady state), rather than wear the whole tile down to its edge; 0: pure erosion"},
    [S_DIFFUSION] = {"diffusion", NG_PARAM_NUMBER, {0.05}, 0, 0.25, NULL,
                     "hillslope diffusion a step, 0 to 0.25 (of the lattice's laplacian; stable to 0.25): widens "
                     "and rounds the channels the rivers cut into valleys"},
    [S_FILL] = {"fill", NG_PARAM_NUMBER, {1}, 0, 1, NULL,
                "0 to 1: the share of every depression filled with sediment each step (1: lakes become flat "
                "floors that drain; 0: the water crosses them and the ground is left)"},
    [S_HEIGHT] = {"height", NG_PARAM_NUMBER, {100}, 1e-9, 1e12, NULL,
                  "world units of height per unit of the source, as ng.surface's `height`: the slopes the rivers "
                  "cut by are the world's"},
};

typedef struct sp_state {
    ng_sp_params p;
    float height;
} sp_state;

static int sp_setup(ng_node *n, const int *ch, ng_error *err)
{
    const int radius = ng_hood_tile_radius(n);
    const double s = ng_num(n, S_SPACING);
    sp_state *st;
    (void)ch;
    n->channels = 4;
    if (ng_hood_declare(n, s, radius * s, radius, err)) return -1;
    if (!(st = ng_node_state_alloc(n, sizeof *st, err))) return -1;
    st->p.k = (float)ng_num(n, S_STRENGTH);
    st->p.m = (float)ng_num(n, S_AREA_EXPONENT);
    st->p.uplift = (float)ng_num(n, S_UPLIFT);
    st->p.diffusion = (float)ng_num(n, S_DIFFUSION);
    st->p.fill = (float)ng_num(n, S_FILL);
    st->p.spacing = (float)s;
    st->p.iterations = ng_int(n, S_ITERATIONS);
    st->height = (float)ng_num(n, S_HEIGHT);
    return 0;
}

/* The 8 neighbours: offsets in x and y, their distance in cells. */
static const int NX[8] = {1, -1, 0, 0, 1, -1, 1, -1}, NY[8] = {0, 0, 1, -1, 1, 1, -1, -1};
static const float ND[8] = {1, 1, 1, 1, 1.41421356f, 1.41421356f, 1.41421356f, 1.41421356f};

/* A binary min-heap of cell indices keyed by z[index], ties by index: the
 * order cells leave it is a function of the heights alone. */
typedef struct heap {
    int32_t *a;
    int n;
    const float *z;
} heap;

static inline int before(const heap *q, int32_t i, int32_t j)
{
    return q->z[i] < q->z[j] || (q->z[i] == q->z[j] && i < j);
}

static void heap_push(heap *q, int32_t c)
{
    int i = q->n++;
    while (i > 0) {
        const int up = (i - 1) / 2;
        if (!before(q, c, q->a[up])) break;
        q->a[i] = q->a[up];
        i = up;
    }
    q->a[i] = c;
}

static int32_t heap_pop(heap *q)
{
    const int32_t top = q->a[0], last = q->a[--q->n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= q->n) break;
        if (c + 1 < q->n && before(q, q->a[c + 1], q->a[c])) c++;
        if (!before(q, q->a[c], last)) break;
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
    int32_t *rcv, *order, *donors; /* receiver, stack order, donors by receiver */
    int32_t *first, *q, *pit;      /* donors' offsets (w^2 + 1), heap, pit queue */
    uint8_t *done;
} work;

static int on_ring(int w, int x, int y) { return x == 0 || y == 0 || x == w - 1 || y == w - 1; }

/* 1. Priority-Flood+epsilon: z the ground h with every depression
 * raised to drain to the ring, each cell at least eps above the cell it
 * was reached from. */
static void flood(const work *k, float eps)
{
    const int w = k->w, n = w * w;
    heap q = {k->q, 0, k->z};
    int pit_head = 0, pit_tail = 0, i, x, y;
    memcpy(k->z, k->h, (size_t)n * sizeof(float));
    memset(k->done, 0, (size_t)n);
    for (y = 0; y < w; y++)
        for (x = 0; x < w; x++)
            if (on_ring(w, x, y)) k->done[y * w + x] = 1, heap_push(&q, y * w + x);
    while (q.n || pit_head < pit_tail) {
        const int32_t c = pit_head < pit_tail ? k->pit[pit_head++] : heap_pop(&q);
        const int cx = c % w, cy = c / w;
        const float lift = fmaxf(k->z[c] + eps, nextafterf(k->z[c], INFINITY)); /* above, even where eps is
                                                                                    below an ulp */
        for (i = 0; i < 8; i++) {
            const int nx = cx + NX[i], ny = cy + NY[i];
            int32_t nb;
            if (nx < 0 || ny < 0 || nx >= w || ny >= w) continue;
            nb = ny * w + nx;
            if (k->done[nb]) continue;
            k->done[nb] = 1;
            if (k->z[nb] <= lift) {
                k->z[nb] = lift;
                k->pit[pit_tail++] = nb;
            } else {
                heap_push(&q, nb);
            }
        }
    }
}

/* 2. Receivers on z (steepest of the strictly lower neighbours; the ring
 * its own) and the stack order from the ring upstream. */
static void route(const work *k)
{
    const int w = k->w, n = w * w;
    int32_t *stack = k->q; /* the flood's heap is free now */
    int i, x, y, top = 0, at = 0;
    for (y = 0; y < w; y++)
        for (x = 0; x < w; x++) {
            const int c = y * w + x;
            float best = 0.0f;
            int32_t r = c;
            if (!on_ring(w, x, y))
                for (i = 0; i < 8; i++) {
                    const int32_t nb = c + NY[i] * w + NX[i];
                    const float drop = (k->z[c] - k->z[nb]) / ND[i];
                    if (drop > best) best = drop, r = nb;
                }
            k->rcv[c] = r;
        }
    /* donors grouped by receiver: first[r] .. first[r + 1] - 1 */
    memset(k->first, 0, (size_t)(n + 1) * sizeof(int32_t));
    for (i = 0; i < n; i++)
        if (k->rcv[i] != i) k->first[k->rcv[i] + 1]++;
    for (i = 0; i < n; i++) k->first[i + 1] += k->first[i];
    memcpy(k->pit, k->first, (size_t)n * sizeof(int32_t)); /* fill cursors */
    for (i = 0; i < n; i++)
        if (k->rcv[i] != i) k->donors[k->pit[k->rcv[i]]++] = i;
    /* depth first from each outlet: a cell comes after its receiver */
    for (i = 0; i < n; i++) {
        if (k->rcv[i] != i) continue;
        stack[top++] = i;
        while (top) {
            const int32_t c = stack[--top];
            int32_t d;
            k->order[at++] = c;
            for (d = k->first[c]; d < k->first[c + 1]; d++) stack[top++] = k->donors[d];
        }
    }
}

/* The working planes, w^2 each beside the caller's h and area. */
#define SP_SCRATCH (7 * 4 + 1 + 4) /* bytes a cell: 7 planes of 4 bytes, done[], first[]'s one more */

int ng_stream_power_run(const ng_sp_params *p, const float *source, float *h, float *area, int32_t *rcv,
                        float *filled, int w)
{
    const int n = w * w;
    const size_t N = (size_t)n;
    const float s = p->spacing, cell = s * s, eps = 1e-3f * s;
    work k;
    char *mem = malloc(N * SP_SCRATCH);
    int it, i, x, y;
    if (!mem) return -1;
    k.w = w;
    k.h = h, k.area = area, k.z = (float *)mem;
    k.rcv = (int32_t *)(k.z + N), k.order = k.rcv + N, k.donors = k.order + N;
    k.q = k.donors + N, k.pit = k.q + N, k.first = k.pit + N;
    k.done = (uint8_t *)(k.first + N + 1);
    for (it = 0; it < p->iterations; it++) {
        flood(&k, eps);
        for (i = 0; i < n; i++) k.h[i] += (k.z[i] - k.h[i]) * p->fill;
        route(&k);
        for (i = 0; i < n; i++) k.area[i] = cell;
        for (i = n - 1; i >= 0; i--) {
            const int32_t c = k.order[i];
            if (k.rcv[c] != c) k.area[k.rcv[c]] += k.area[c];
        }
        if (rcv) memcpy(rcv, k.rcv, N * sizeof *rcv);
        if (filled) memcpy(filled, k.z, N * sizeof *filled);
        for (i = 0; i < n; i++) {
            const int32_t c = k.order[i], r = k.rcv[c];
            float f;
            if (r == c) continue;
            /* dh = u (source - h) - f (h - h_r), implicit in h and h_r; no incision where h is not above h_r */
            f = k.h[c] > k.h[r] ? p->k * ng_powf(k.area[c], p->m) /
                                      (s * (c % w != r % w && c / w != r / w ? 1.41421356f : 1.0f))
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
    .input = I_SOURCE, .smooth = 1, .patch = SP_PATCH, .scratch = SP_SCRATCH, .tile = sp_tile};

const ng_node_type ng_type_stream_power = {
    .name = "stream_power", .family = "neighbourhood",
    .doc = "range-scale drainage: rivers cut by the stream-power law (dh/dt = -K A^m S, Braun and Willett's "
           "implicit solver) after depressions are filled (Priority-Flood+epsilon), with hillslope diffusion. 4 "
           "channels: 1 the eroded height, 2 drainage (log of the area draining through a point over log of a "
           "tile's, in [0, 1]), 3 wear, 4 deposit (filled pits). Simulated on world tiles of 256 x `spacing` "
           "world units, blended by a partition of unity: stitches exactly across regions, tiles, threads and "
           "farm tiles, but no river is longer than a tile. 2D renders only",
    .params = sp_params, .nparams = S_NPARAMS, .inputs = sp_inputs, .ninputs = NINPUTS,
    .dims = 1u << 2, .method = "stream_power", .positional = "source", .setup = sp_setup,
    .tile_check = ng_hood_tile_check, .eval = ng_hood_eval,
    .hood = &sp_hood,
};
