/*
 * ng_node.h — what a node implementation sees: the node record, the block
 * of sample points, and the evaluation context's services (pulling an input
 * at other positions, scratch buffers). Included by core/ and nodes/ only.
 */
#ifndef NG_NODE_H
#define NG_NODE_H

#include "noisegraph.h"

#include <pthread.h>

struct ng_node {
    const ng_node_type *type;
    int id;
    int channels;             /* output channels, set by setup (default 1) */
    int refcount;             /* edges (and roots) that read this node */
    int pull_depth;           /* nesting of pull edges below and including it */
    unsigned dims;            /* dimensions every node below supports */
    /* Source node ids, -1 when unconnected: the type's inputs, then the
     * drivers of its node-driven parameters (slot ninputs + j drives
     * parameter driven[j]), evaluated at the node's positions. */
    int input[NG_MAX_INPUTS + NG_MAX_DRIVERS];
    int ndrivers;
    signed char driven[NG_MAX_DRIVERS];
    ng_value *param;          /* type->nparams values */
    uint64_t set;             /* bit k: parameter k was given (not its default) */
    /* The finest feature size (world units) in this node's output: the
     * smallest over its inputs unless setup says otherwise (a noise: its
     * element size). Fractals stop adding octaves below a pixel with it. */
    double detail;
    char *label, *where;
    /* Precomputed state: a struct the type declares, made by setup with
     * ng_node_state_alloc and freed by the graph. NULL for types without. */
    void *state;
    ng_budget *budget;        /* the graph's, or NULL; see ng_node_charge */
    size_t charged;           /* bytes this node holds in budget */
    ng_image_loader load_image; /* the graph's, or NULL: reads ng.image's file */
    /* A neighbourhood node's lattice (ng_hood_declare): spacing in world
     * units and halo in cells; 0 for other nodes. */
    double hood_spacing;
    int hood_radius;
    int hood_anchor; /* NG_HOOD_ANCHOR_*: how its patches' points are anchored */
    int hood_patch;  /* cells per patch edge; 0: its type's (ng_hood_tile_patch) */
    /* Set by setup where the channels are world positions (Worley's
     * feature = "position"), not a value: inputs flagged NG_INPUT_VALUES
     * (a fractal's source) refuse the node. */
    int positions;
};

/*
 * A block of sample points. World position of point i is
 * anchor[d] + p[d][i]: the double anchor keeps far-from-origin renders exact
 * while kernels work on small float offsets. p[d] is never NULL for
 * d < 4 (unused axes point at zeros).
 */
struct ng_block {
    int n;
    int dims;
    double anchor[4];
    const float *p[4];
    float footprint;   /* world size of one pixel here, for detail cut-off */
    /* Tileable renders: the image repeats every period[d] world units along
     * axis d (0: not tiled). Scaled along with positions (fractal octaves). */
    double period[4];
    uint32_t seed;     /* seed offset travelling with the call (fractal octaves) */
    uint32_t pos_id;   /* identity of these positions within the tile, for the memo */
    /* The leading channels of out the consumer reads, 1 to the node's
     * channels: the node may leave the others unwritten (a vector noise
     * under a 2D warp computes 2 of its 3), and eval_grad their gradient
     * planes. The evaluator sets it for each node it calls; in a block a
     * node makes for a pull it means nothing (ng_pull and ng_pull_grad ask
     * for every channel, ng_pull_channels and ng_pull_grad_channels for
     * some). */
    int channels;
    /* Positions scaled without a pass over them (a fractal's octave): 0
     * for none, else a power of two s >= 1 with every |p[d][i]| * s below
     * float's maximum, so p[d][i] * s is exact: point i's offset along d is
     * then p[d][i] * s (anchor and period are scaled already). Only a node
     * whose type sets takes_p_scale and that has no same-position inputs
     * sees it; the evaluator multiplies it out for every other node, so
     * the positions are those of a pass, bit for bit. */
    float p_scale;
    /* Positions turned without a pass (a fractal's rotated octave,
     * nodes/octaves.c): 0 for none, else 2 or 3, and then point i's offset
     * along axis d < turn_axes is fma(T[d][2], P2, fma(T[d][1], P1,
     * T[d][0] * P0)) (2 axes: the last term left out) of T = turn and
     * Pe = p[e][i] * p_scale (p[e][i] where p_scale is 0); along the other
     * axes p_scale's as above. Only a node whose type sets takes_turn (and
     * takes_p_scale) and that has no same-position inputs sees it; the
     * evaluator multiplies it out for every other node, so the positions
     * are those of a pass, bit for bit. */
    int turn_axes;
    float turn[3][3];
    /* Optional (a render's pixel blocks; 0 and NULL elsewhere): while p[0]
     * and p[1] are the arrays grid_p, the points are rows of a grid:
     * point i lies in column (grid_first + i) % grid_w of a row of grid_w
     * points that share one y, and x along a row is a whole multiple of
     * grid_step from the row's first, exactly (every x (h + j) grid_step,
     * h + 1/2 a whole number, |h + j| < 2^31). A node that makes positions
     * of its own gives them in new arrays, so the claim never outlives the
     * ones it was made for. Read by core/hood.c to take a run of pixels on
     * its lattice's cells without testing each. */
    const float *grid_p[2];
    float grid_step;
    int grid_w, grid_first;
};

/* b itself when it has no p_scale and no turn, else tmp: b with its
 * positions as a pass makes them (p[d] * p_scale, turned) written into pos
 * (b->dims planes of b->n floats), p_scale and turn_axes 0. A plain loop:
 * nodes/ have it faster (octaves.h: ng__block_plain). */
const ng_block *ng_block_unscaled(const ng_block *b, ng_block *tmp, float *pos);
/* Whether input k's node is evaluated at a scaled and turned block as it
 * is (its type takes both, and none of its inputs is read at its
 * positions), or gets the positions multiplied out by the evaluator first. */
int ng_input_takes_turn(const ng_ctx *c, const ng_node *node, int k);

/* Whether input k's graph holds a neighbourhood node (ng_hood_type): each
 * place it is read at costs a patch or a tile of its own, so a node that
 * probes its input at scattered points probes it close together instead. */
int ng_input_reads_neighbourhood(ng_ctx *c, const ng_node *node, int k); /* -1: out of memory (c's error set) */

/* A scratch buffer of channels * tile-area floats from the thread's pool
 * (channels up to NG_MAX_PLANES, for gradients).
 * Returns NULL with the context error set when memory runs out. Buffers go
 * back with ng_scratch_free (any order). */
float *ng_scratch(ng_ctx *ctx, int channels);
void ng_scratch_free(ng_ctx *ctx, float *buf, int channels);
/* A fresh position identity for positions a node computed. */
uint32_t ng_new_pos_id(ng_ctx *ctx);
/* Evaluate input k of node at block b into out (source channels * b->n). */
int ng_pull(ng_ctx *ctx, const ng_node *node, int k, const ng_block *b, float *out);
/* The same when the consumer reads only the first `channels` channels: a
 * source that is read by this consumer alone sees them in its block's
 * `channels` and may leave the others unwritten; a memoised source, read
 * by several, computes them all. */
int ng_pull_channels(ng_ctx *ctx, const ng_node *node, int k, const ng_block *b, float *out, int channels);
/* Value and gradient of input k's source at block b: out gets its channels
 * * b->n values (every channel), grad channels * b->dims planes, plane
 * c * b->dims + d the partial derivative of channel c along world axis d
 * (noisegraph.h: eval_grad). Analytic when the source's graph provides it
 * (eval_grad or chain all the way down; a subtree without them, or deeper
 * than NG_GRAD_DEPTH nodes of analytic gradients, takes central
 * differences on its own), central differences of step `h` world units
 * otherwise. h > 0 asks for central differences of that step even where
 * analytic gradients exist; h = 0: analytic where possible, else a
 * thousandth of the source's detail size. A shared source's value is
 * memoised as ng_pull would, so its other readers do not recompute it. */
int ng_pull_grad(ng_ctx *ctx, const ng_node *node, int k, const ng_block *b, float *out, float *grad, double h);
/* The same when the consumer reads only the first `channels` channels and
 * their gradient planes (a 2D warp's field: 2 of 3): a source read by this
 * consumer alone sees them in its block's `channels` (eval_grad) and may
 * leave the other channels and planes unwritten; a memoised source, a
 * chain node, or an eval_grad that ignores the request computes them all,
 * so out and grad still hold room for every channel. */
int ng_pull_grad_channels(ng_ctx *ctx, const ng_node *node, int k, const ng_block *b, float *out, float *grad, double h,
                          int channels);
/* Nesting of analytic gradients through chain and eval_grad (each level
 * one C stack frame of the evaluator): deeper, central differences. */
#define NG_GRAD_DEPTH 48
/* The largest gradient a scratch buffer holds: ng_scratch takes up to this
 * many planes (channels * dims). */
#define NG_MAX_PLANES (NG_MAX_CHANNELS * 4)
/* Channel count of input k's source (0 when unconnected). */
int ng_input_channels(const ng_ctx *ctx, const ng_node *node, int k);
/* Whether input k's source is a constant (a number, so its gradient is
 * zero and a consumer may skip asking for it); its value in *value when
 * value is not NULL. */
int ng_input_constant(const ng_ctx *ctx, const ng_node *node, int k, double *value);
/* Input k's value when its source is a constant: a block of the context's
 * points filled once (read-only, as ng_eval_fn's inputs), else NULL. */
const float *ng_input_constant_block(ng_ctx *ctx, const ng_node *node, int k);
/* Record an error (printf-style) and return -1. */
int ng_fail(ng_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));


/* Counts bytes a setup is about to hold (or briefly need) against the
 * graph's budget, until the node is freed. 0, or -1 with err saying the
 * budget is exceeded. */
int ng_node_charge(ng_node *n, size_t bytes, ng_error *err);
/* Bytes the node may still charge (SIZE_MAX without a budget). */
size_t ng_node_budget_left(const ng_node *n);
/* For setup: `size` zeroed bytes for the type's state struct, kept in
 * n->state, charged to the budget and freed with the node (also when setup
 * then fails). NULL with err filled when memory or the budget runs out. */
void *ng_node_state_alloc(ng_node *n, size_t size, ng_error *err);

/* ---- locks kept across fork() (core/fork.c) ----
 * A lock that outlives one render (a node's shared state, a patch cache)
 * is guarded: the fork handlers take it before a fork, so a forked child
 * never inherits it held by a thread that does not exist there, and make
 * it (and its condition, if any) new in the child. Locks nest in level
 * order (a node's state around a patch cache around the pools): a thread
 * holding one takes only locks of later levels, never two of one level.
 * Add and remove guards outside every guarded lock (in setup, as cloud
 * coverage does, or at load): the fork handler holds the guards' list
 * while it waits for the guarded locks. */
enum { NG_FORK_NODE, NG_FORK_CACHE, NG_FORK_LEAF };
typedef struct ng_fork_guard {
    pthread_mutex_t *mu;
    pthread_cond_t *cv; /* NULL: none */
    int level;
    struct ng_fork_guard *prev, *next;
} ng_fork_guard;
/* g (owned by the caller, alive until removed) guards mu and cv */
void ng_fork_guard_add(ng_fork_guard *g, pthread_mutex_t *mu, pthread_cond_t *cv, int level);
/* before mu is destroyed */
void ng_fork_guard_remove(ng_fork_guard *g);

/* ---- neighbourhoods (core/hood.c) ---- */

/* Lattice cells per patch edge: patch ix of an axis holds cells
 * ix * NG_HOOD_PATCH .. + NG_HOOD_PATCH - 1, with a margin of one cell
 * before and two after, so a sample never reads two patches. */
#define NG_HOOD_PATCH 64
/* The largest halo, in cells (a patch then evaluates its source on 2113^2
 * lattice points). */
#define NG_HOOD_MAX_RADIUS 1024
/* The radius a tile type (ng_hood_type.tile) declares: its tiles are a
 * patch and half a patch around it, 2 P cells a side (plus the margin) for
 * its patches of P cells (ng_hood_type.patch, an even number; 0:
 * NG_HOOD_PATCH), at a stride of P: every cell lies in two per axis. P / 2;
 * ng_hood_declare refuses another radius or an odd patch. */
int ng_hood_tile_radius(const ng_node *n);
/* The finest spacing ng_hood_declare takes, as a share of the source's
 * finest detail (ng_node.detail): 2^-20, where a float position still
 * resolves a cell. */
#define NG_HOOD_MIN_SPACING 0x1p-20
/* The weight the engine blends a tile type's tile with, per cell along
 * an axis of the tile's domain (its w = 2 P + 3 cells, as the tile
 * function gets them; a cell's is win[x] win[y]): the tiles' weights
 * sum to 1 at every cell, so a tile whose weighted change sums to 0
 * adds nothing to the rendered total (weathering.c balances its
 * droplets so). */
void ng_hood_tile_window(const ng_node *n, float *win);
/* For a tile type's setup, before ng_hood_declare: patches of `cells`
 * cells (an even number, 16 to 1024) for this node, its tiles 2 x cells a
 * side, rather than its type's: a node whose reach is a knob (drainage).
 * 0, or -1 with err naming the node. */
int ng_hood_tile_patch(ng_node *n, int cells, ng_error *err);
/* For a neighbourhood type's setup: the node's lattice, spacing world
 * units between cells (lattice cell k lies at (k + 0.5) spacing on each
 * axis, so at spacing 1 the cells are the pixel centres of a render at
 * origin 0), and the halo its filter reads, `radius` cells (the node's
 * radius option, radius_world world units, is named in messages). The
 * node's detail becomes at least the spacing. 0, or -1 with err naming
 * the node and its radius. */
int ng_hood_declare(ng_node *n, double spacing, double radius_world, int radius, ng_error *err);
/* How a patch anchors the points it evaluates its source on (a float
 * offset from a double anchor, as every block's points are; a source's
 * bits depend on the split, by about an ulp in half the points):
 * - NG_HOOD_ANCHOR_WORLD: at the patch's own first cell, offsets from 0
 *   (every lattice of world units, and the pixel lattice's bits before
 *   NG_HOOD_ANCHOR_RENDER);
 * - NG_HOOD_ANCHOR_RENDER: as a render's tiles are, at the lattice cell
 *   nearest the sampling block's anchor (a render's origin), offsets
 *   ((cell - that cell) + 0.5) spacing as floats: a cell that is a pixel
 *   of the render is evaluated at the pixel's own anchor and offset, so
 *   it holds the pixel's bits, and the pixel's value can be read back
 *   from the lattice (core/hood.c: kept nodes). The anchor is the
 *   render's, the same in every cut of it. */
enum { NG_HOOD_ANCHOR_WORLD, NG_HOOD_ANCHOR_RENDER };
/* The same for a lattice of the render's pixel size: its spacing is the
 * footprint of the block that samples it (the render's pixel size at the
 * top of a graph; an octave's or outer lattice's below), the same in every
 * cut of a render, so its cells are the pixel centres of a render at an
 * origin on the pixel grid (sampled there, it reads them exactly). A
 * radius of `radius` cells (named in messages as such); anchor, one of
 * NG_HOOD_ANCHOR_*, how its patches anchor their points. */
int ng_hood_declare_pixel(ng_node *n, int radius, int anchor, ng_error *err);
/* Whether node n reads its source over a lattice (a neighbourhood type
 * whose setup declared one). */
int ng_hood_active(const ng_node *n);
/* The eval of every neighbourhood type: the node's lattice sampled
 * (bilinear or cubic, as its type says) at b's points, patches computed
 * (the type's filter over its source evaluated on the patch and its halo)
 * or found in the render's cache. 2D blocks only. */
int ng_hood_eval(ng_ctx *ctx, const ng_node *node, const ng_block *b, const float *const *in, float *out);
/* The tile_check of every neighbourhood type on a lattice of world units:
 * a --tileable render is refused, naming the node (the lattice is the
 * world's: it repeats with the image only by chance, so the image would
 * show its seam). */
int ng_hood_tile_check(const ng_node *n, const double period[4], int dims, char *buf, size_t len);
/* The tile_check of the grid shading and curvature: their pixel lattice
 * (and a spacing that divides the image's period) repeats with the image,
 * another spacing is refused as ng_hood_tile_check refuses. */
int ng_hood_grid_tile_check(const ng_node *n, const double period[4], int dims, char *buf, size_t len);

/* The constant node (core/constant.c): what numbers become, so core owns
 * it; the node library lists it with the others. */
extern const ng_node_type ng_type_constant;

/* Input slots the evaluator fills: the type's inputs and the drivers. */
static inline int ng_node_slots(const ng_node *n) { return n->type->ninputs + n->ndrivers; }
/* The input slot of the node driving parameter k, or -1. */
static inline int ng_driver_slot(const ng_node *n, int k)
{
    int j;
    for (j = 0; j < n->ndrivers; j++)
        if (n->driven[j] == k) return n->type->ninputs + j;
    return -1;
}
/* In eval: parameter k's samples (the driver's channels, b->n floats each),
 * or NULL when it is a number. */
static inline const float *ng_driver(const ng_node *n, const float *const *in, int k)
{
    int s = ng_driver_slot(n, k);
    return s < 0 ? NULL : in[s];
}

/* Component d of a driven sample v of parameter k, as the option means it:
 * clamped to its [min, max], and NaN read as the option's number. */
static inline double ng_driven(const ng_node *n, int k, int d, float v)
{
    const ng_param_desc *p = &n->type->params[k];
    if (v != v) return n->param[k].v[d];
    return v < p->min ? p->min : v > p->max ? p->max : (double)v;
}

/* Parameter access by index, for kernels. */
static inline double ng_num(const ng_node *n, int k) { return n->param[k].v[0]; }
static inline int ng_int(const ng_node *n, int k) { return n->param[k].i; }

#endif
