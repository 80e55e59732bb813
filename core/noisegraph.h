/*
 * noisegraph.h — the public C API: node descriptors, graph construction,
 * rendering to sinks. Usable from plain C without Lua.
 *
 * Ownership: a graph owns its nodes and every string parameter copied into
 * them; ng_graph_free releases all of it. Descriptors are static.
 */
#ifndef NOISEGRAPH_H
#define NOISEGRAPH_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define NG_VERSION "0.2.0"
#define NG_MAX_INPUTS 8
/* Parameters of one node that nodes may drive (NG_PARAM_NODE). */
#define NG_MAX_DRIVERS 8
#define NG_MAX_PARAMS 64 /* per type: the set-mask is 64 bits */
#define NG_MAX_CHANNELS 4
#define NG_MAX_NODES 1000000
/* How many position-changing nodes (warps, fractals) may nest on one path.
 * Each level holds a few tile buffers and a C stack frame while the levels
 * below it run, so the nesting is bounded; plain node chains are not. */
#define NG_MAX_PULL_DEPTH 256

typedef struct ng_error {
    char msg[512];
} ng_error;

/* Formats a message into err (may be NULL) and returns -1. */
int ng_errorf(ng_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* v for a message: the fewest significant digits (6 to 17) that read back
 * as v, where %g's six rounded 2147483648 and 1e12 + 1 onto the bounds
 * that refused them. */
typedef struct ng_number_text {
    char s[32];
} ng_number_text;
ng_number_text ng_number(double v);

/* ---- descriptors ------------------------------------------------------ */

/* ORDER: one row per parameter kind: its id (NG_PARAM_<id>), the word
 * `noisegraph nodes` shows, what a value given for it must be (error
 * messages), and its printer (format_<printer> in core/params.c). Which
 * ng_value fields hold the value is in the comment ending each row. */
#define NG_PARAM_KINDS(X)                                                                 \
    X(NUMBER, "number", "a number", number)                        /* v[0] */             \
    X(INT, "integer", "an integer", number)                        /* v[0], integral */   \
    X(BOOL, "boolean", "a boolean", bool)                          /* i */                \
    X(ENUM, "choice", "a string", choice)                          /* i: choices index */ \
    X(VEC3, "vector", "a number, {x, y} or {x, y, z}", vec3) /* v[0..2] */          \
    /* i: NG_RANGE_*, v[0] = lo, v[1] = hi */                                             \
    X(RANGE, "range", "\"natural\", \"unit\", \"signed\" or {lo, hi}", range)                 \
    X(STRING, "string", "a string", string)                        /* s */                \
    /* list[count]: numbers, in tuples of def[0] (1 or 2); def[1]..def[2] tuples */       \
    X(LIST, "list", "a table of numbers", list)                                           \
    /* s: a file path; the Lua host resolves it against the script's directory */        \
    X(PATH, "path", "a file name (string)", string)

typedef enum ng_param_kind {
#define NG_PARAM_KIND_ENUM(id, word, must_be, printer) NG_PARAM_##id,
    NG_PARAM_KINDS(NG_PARAM_KIND_ENUM)
#undef NG_PARAM_KIND_ENUM
} ng_param_kind;
#define NG_PARAM_KIND_ONE(id, word, must_be, printer) +1
enum { NG_PARAM_KIND_COUNT = 0 NG_PARAM_KINDS(NG_PARAM_KIND_ONE) };
#undef NG_PARAM_KIND_ONE

enum { NG_RANGE_NATURAL, NG_RANGE_UNIT, NG_RANGE_SIGNED, NG_RANGE_CUSTOM };
/* The named range modes ("natural", "unit", "signed"): a name's mode, or -1;
 * a mode's name, or NULL (NG_RANGE_CUSTOM has none: it is {lo, hi}). */
int ng_range_mode(const char *name);
const char *ng_range_mode_name(int mode);

typedef struct ng_value {
    double v[3];
    int i;
    char *s;      /* owned by the graph */
    double *list; /* owned by the graph */
    int count;    /* numbers in list */
} ng_value;

typedef struct ng_param_desc {
    const char *name;
    ng_param_kind kind;
    double def[3];               /* default: number, vec, or index/bool in def[0] */
    double min, max;             /* accepted range of numbers and vec components */
    const char *const *choices;  /* enum: NULL-terminated list */
    const char *doc;
} ng_param_desc;

/* A default that changed in 0.2.0 (CHANGELOG.md): parameter `param`
 * (index) had default `classic` (a number, an enum index or a bool), which
 * a graph made classic (ng_graph_set_classic) starts its nodes with, so an
 * old script renders its old bits. */
typedef struct ng_changed_default {
    int param;
    double classic;
} ng_changed_default;

enum {
    NG_INPUT_PULL = 1,     /* the node evaluates it itself, at positions it chooses */
    NG_INPUT_OPTIONAL = 2, /* may be left unconnected */
    NG_INPUT_HYBRID = 4,   /* a number is accepted and becomes a constant node */
    NG_INPUT_VALUES = 8    /* a value to sum or shape: a node of world positions (ng_node.positions) is refused */
};

typedef struct ng_input_desc {
    const char *name;
    int flags;
    int min_channels, max_channels; /* accepted channel counts of the source */
    double def;                     /* value of an unconnected hybrid input */
    const char *doc;
} ng_input_desc;

/* A second name for a descriptor with one parameter preset:
 * ng.perlin{} is ng.noise{type = "perlin"}; or, with param NULL, a plain
 * alias, the name other tools give the same node (ng.lerp is ng.mix). */
typedef struct ng_shorthand {
    const char *name;
    const char *param;
    const char *value;
} ng_shorthand;

typedef struct ng_node ng_node;
typedef struct ng_ctx ng_ctx;
typedef struct ng_block ng_block;

/* ng_node_type.dims of a type that evaluates in 1 to 4 dimensions. */
#define NG_DIMS_ALL 0x1Eu

/* Where a patch lies (ng_hood_type.filter_placed): out's cell (i, j) is
 * at world (origin[0] + i spacing, origin[1] + j spacing); seed is the
 * rendering block's (ng_block.seed: a fractal octave's). */
typedef struct ng_hood_place {
    double spacing, origin[2];
    uint32_t seed;
} ng_hood_place;

/* A neighbourhood node (blur, and what reads a height field around each
 * point): its value is computed on a world-aligned 2D lattice of its own
 * spacing, in fixed patches (NG_HOOD_PATCH cells, or the type's) that the engine
 * evaluates with a halo of the node's radius, caches for the render and
 * samples (bilinear or cubic) at whatever positions the node is asked for
 * (core/hood.c), so the value at a world point does not depend on how the
 * render is cut. The type's setup gives the lattice with ng_hood_declare
 * (ng_node.h); its eval is ng_hood_eval. */
typedef struct ng_hood_type {
    int input; /* the input read over the neighbourhood: a pull input */
    /* How the lattice is sampled between cells: 0 bilinear (a position
     * on a cell's centre reads the cell itself); 1 a cubic
     * B-spline, smooth (continuous slope and curvature: shading shows no
     * cell facets) and within its samples, itself a small blur (a spread
     * of 1/3 cell^2, which a blur takes off its own). */
    int smooth;
    /* The node's lattice values from its source's: in holds the source's
     * channels planes of (side + 2 radius)^2 samples, row-major, lattice
     * cell (i - radius, j - radius) of the patch at in[j * (side + 2
     * radius) + i]; out gets the node's channels planes of side^2. tmp has
     * room for channels * ((side + 2 radius)^2 + 2 (side + 2 radius))
     * floats (a working copy of the source and two rows). Must give the
     * same bits for the same in, on every thread. */
    void (*filter)(const ng_node *node, const float *in, float *out, float *tmp, int side, int radius,
                   int channels);
    /* Or, for a filter that needs the lattice's spacing in world units
     * (gradients, distances; a node of the render's pixel lattice learns
     * it only per render, ng_hood_declare_pixel): the same with it. One of
     * filter, filter_spaced, filter_placed, run and tile is set. */
    void (*filter_spaced)(const ng_node *node, const float *in, float *out, float *tmp, int side, int radius,
                          int channels, double spacing);
    /* Or, for a filter of a one-channel source whose value at a cell is a
     * cheap function of the source's cells within its radius (the grid
     * shading's central differences): the patch keeps the source itself,
     * with its halo, and the node's value is computed where it is sampled,
     * with no plane of its own to fill and copy out. src points at the
     * source's sample of the first of len cells along a row, in a plane of
     * row stride w (its neighbours at src[+-1], src[+-w], ...); out gets
     * the node's first nch channels, planes `plane` floats apart. The same
     * bits for the same cells, whatever len (a row, a run, a cell). */
    void (*run)(const ng_node *node, const float *src, ptrdiff_t w, int len, double spacing, float *out, size_t plane,
                int nch);
    /* Or, for a filter whose cells are a function of their world position
     * (the erosion filter's gullies, computed on the lattice): the same
     * with the patch's place, at. */
    void (*filter_placed)(const ng_node *node, const float *in, float *out, float *tmp, int side, int radius,
                          int channels, const ng_hood_place *at);
    /* Cells per patch edge; 0: NG_HOOD_PATCH. Larger patches spend less on
     * halos (a shading's 1-cell halo costs (P + 3)^2 / P^2 source
     * evaluations per cell) and more on the first render of a small area.
     * A tile type's tiles are 2 P cells a side (an even P): a simulation
     * whose reach is the range (drainage) takes larger ones. */
    int patch;
    /* Bytes per cell of the patch and its halo that the filter allocates
     * beyond its in, out and tmp (a sort's keys), counted against the
     * memory limit with them. */
    int scratch;
    /* Optional, instead of filter, for simulations whose result at a cell
     * depends on more than a halo can hold (hydraulic erosion, drainage):
     * the node's radius must be half its patch (ng_hood_tile_radius), and
     * the engine calls tile on
     * the patch's whole domain, w = side + 2 radius cells a side, a tile of
     * the world (tiles of neighbouring patches overlap by half). in: the
     * source's channels planes of w^2 as for filter; out: the node's
     * channels planes of w^2, channel 0 the change it makes to the source's
     * channel 0, the others its own. seed: of the tile's world index and the
     * render's seed. The node's lattice value at a cell is then the
     * partition-of-unity blend (cos^2 windows summing to 1) of the tiles
     * covering it, plus the source's channel 0 in channel 0, so where no
     * tile changes anything the source comes through bit for bit. The
     * scratch it allocates (`scratch` bytes a cell of its domain, counted)
     * is its own to free; 0, or -1 when the system had none to give. */
    int (*tile)(const ng_node *node, const float *in, float *out, int w, int channels, uint64_t seed);
} ng_hood_type;

typedef struct ng_node_type {
    const char *name;
    const char *family;
    const char *doc;
    const ng_param_desc *params;
    int nparams;
    const ng_input_desc *inputs;
    int ninputs;
    unsigned dims;               /* bit d set: evaluates in d dimensions (1..4); NG_DIMS_ALL */
    const ng_shorthand *shorthands;
    int nshorthands;
    const ng_changed_default *changed; /* defaults that changed, and their old values */
    int nchanged;
    const char *op;              /* Lua metamethod this type implements, or NULL */
    const char *method;          /* node:method(...) name, or NULL */
    const char *positional;      /* comma list of inputs/params for positional calls */
    /* Bit k: NUMBER or VEC3 parameter k also takes a node, evaluated per
     * sample at this node's own positions (like a same-position input; a
     * vector option takes 1 to 3 channels). A number stays a parameter and
     * a constant node is folded into one, so the constant case costs
     * nothing; eval reads a driven option's samples with ng_driver and
     * ng_driven (ng_node.h): clamped to the option's [min, max], NaN read
     * as the option's number. */
    uint64_t node_params;
    /* Optional: whether parameter k means anything for this node, for
     * options of some variants only (worley's jitter on a perlin noise has
     * none). Declared by the type, read by its setup (which refuses such an
     * option when given) and by `noisegraph info` (which hides it). NULL:
     * every parameter applies. */
    int (*applies)(const ng_node *node, int k);
    /* After parameters and inputs are set: check cross-field rules, set the
     * output channel count, precompute. 0, or -1 with err filled. */
    int (*setup)(ng_node *node, const int *input_channels, ng_error *err);
    /* Tileable renders (optional), before any tile: return 1 with a one-line
     * note in buf when the node adjusts itself so the image repeats every
     * period[d] world units, -1 with an error in buf when it cannot tile a
     * render of `dims` dimensions, 0 otherwise. */
    int (*tile_check)(const ng_node *node, const double period[4], int dims, char *buf, size_t len);
    /* Gradients (ng_pull_grad, for ng.light, ng.slope, warps of warps...).
     * A gradient of a node of C channels at a block of dims dimensions is
     * C * dims planes of b->n floats, plane c * dims + d holding
     * d(channel c)/d(world axis d); world axis d is anchor[d] + p[d][i].
     * A node gives it one of two ways, or neither:
     *
     * eval_grad (optional): value and gradient in one pass, for nodes that
     * evaluate inputs themselves (noises, fractals, warps pull them through
     * ng_pull_grad at the positions they choose). out gets the block's
     * leading `channels` channels (ng_block: the ones the consumer reads;
     * writing them all is always right), bit for bit what eval writes;
     * grad their channels * dims planes (the same layout as C * dims).
     *
     * chain (optional): for a node whose inputs are all same-position
     * (arithmetic, fit, curves): the evaluator pulls each input's value and
     * gradient, runs eval on the values (so the value is eval's own), then
     * chain: in[k] input k's values as eval read them, din[k] their
     * gradients (input k's channels * dims planes; NULL where in[k] is),
     * out this node's values; it writes the C * dims planes of grad. Where
     * a function has a kink (abs, min, clamp...) the one-sided derivative
     * of the branch the value took is used; steps (floor, step) have 0.
     *
     * Both return 0, -1 with the context's error set, or 1: no analytic
     * gradient for this node's options (a driven option, a per-sample
     * roughness): the evaluator then takes central differences of this node
     * (inputs included) instead. A node with neither hook gets central
     * differences too; its inputs' gradients are then never asked for. */
    int (*eval_grad)(ng_ctx *ctx, const ng_node *node, const ng_block *b, float *out, float *grad);
    int (*chain)(ng_ctx *ctx, const ng_node *node, const ng_block *b, const float *const *in,
                 const float *const *din, const float *out, float *grad);
    /* Evaluate at block b into out (channels * b->n floats, channel-major).
     * in[k]: output of same-position input k (NULL for pull inputs and
     * unconnected optional inputs). 0, or -1 with the context's error set. */
    int (*eval)(ng_ctx *ctx, const ng_node *node, const ng_block *b,
                const float *const *in, float *out);
    /* Optional: eval and eval_grad honour the block's p_scale (ng_node.h),
     * folding it into their own multiply of the positions (a noise: into
     * its frequency), so a fractal's octave costs no pass over them. Read
     * only for a node without same-position inputs. 0: the evaluator
     * multiplies it out first. */
    int takes_p_scale;
    /* Optional, with takes_p_scale: eval and eval_grad honour the block's
     * turn (ng_node.h; a fractal's rotated octave) as they read the
     * positions, so the turn costs no pass either. */
    int takes_turn;
    /* Optional: frees what the node's state owns besides itself (a buffer
     * it took over); the graph then frees the state with free(). */
    void (*free_state)(void *state);
    /* Optional: the node reads input hood->input over a neighbourhood
     * (ng_hood_type above); NULL for nodes that read their inputs at
     * points. */
    const ng_hood_type *hood;
} ng_node_type;

/* The list of node types (ng_types, ng_type_find) is the node library's:
 * nodes/types.h. These look inside one descriptor. */
/* What `noisegraph nodes` calls a kind ("number", "choice", ...), and what
 * a value of it must be, for messages ("a number", "{x, y, z} or a
 * number"). NULL for a kind that does not exist. */
const char *ng_param_kind_word(ng_param_kind kind);
const char *ng_param_kind_must_be(ng_param_kind kind);
/* The same for parameter k of t: "number or node" where it takes nodes. */
const char *ng_param_word(const ng_node_type *t, int k);
const char *ng_param_must_be(const ng_node_type *t, int k);
/* Whether parameter k of t also takes a node (t->node_params). */
int ng_param_takes_node(const ng_node_type *t, int k);
/* A descriptor's default as a script would write it ("0.5", "\"perlin\""). */
int ng_param_format_default(const ng_param_desc *p, char *buf, size_t len);
int ng_param_index(const ng_node_type *t, const char *name);
int ng_input_index(const ng_node_type *t, const char *name);
int ng_enum_index(const ng_param_desc *p, const char *choice);
/* The parameter or input name closest to key (edit distance), or NULL. */
const char *ng_closest_key(const ng_node_type *t, const char *key);
/* The same among names[0 .. count - 1] (node types, methods): the closest
 * to key, or NULL when none is close. */
const char *ng_closest_name(const char *key, const char *const *names, int count);

/* ---- graphs ----------------------------------------------------------- */

typedef struct ng_graph ng_graph;

/* A byte budget. What a graph allocates on its builder's behalf (nodes,
 * their strings and lists, decoded images) is counted in `used` and refused
 * once it would pass `limit`; a client counts its own allocations in the
 * same budget (the Lua host counts the script's), so one limit bounds
 * everything a script causes. Not thread-safe: graphs are built on one
 * thread. */
typedef struct ng_budget {
    size_t limit, used;
    int exceeded; /* a request was refused */
} ng_budget;
/* 0, or -1 (and exceeded set) when bytes do not fit. */
int ng_budget_take(ng_budget *b, size_t bytes);
void ng_budget_give(ng_budget *b, size_t bytes);

ng_graph *ng_graph_new(void);
void ng_graph_free(ng_graph *g);
/* Counts the graph's allocations from now on against b (NULL: none). b must
 * outlive the graph, or be detached (NULL) before it dies: detaching keeps
 * what was counted in b and stops all counting and refunds. */
void ng_graph_set_budget(ng_graph *g, ng_budget *b);
/* An image read into floats in [0, 1], interleaved channels (1 grey, 2 grey
 * + alpha, 3 RGB, 4 RGBA), rows top to bottom. */
typedef struct ng_image {
    int width, height, channels;
    float *px; /* width * height * channels floats, malloc'd */
} ng_image;
/* Reads the image file at path into img within max_bytes (ng_image_load in
 * the io library is one). 0, or -1 with a one-line reason "PATH: ..." in err
 * and img->px NULL. Must be thread-safe. */
typedef int (*ng_image_loader)(const char *path, ng_image *img, size_t max_bytes, ng_error *err);
/* The engine reads no files: an image node (ng.image) decodes its file
 * through the graph's loader, set here before the node is finished. Without
 * one, finishing an image node is an error. */
void ng_graph_set_image_loader(ng_graph *g, ng_image_loader load);
/* on: nodes begun from now on take the defaults of versions before 0.2.0
 * where a default changed (ng_param_desc.changed): `noisegraph render
 * --classic`, for a script's old bits. */
void ng_graph_set_classic(ng_graph *g, int on);
/* Frees img->px (from a loader's malloc) and clears it. */
void ng_image_free(ng_image *img);
/* The pixels an image node (ng.image) decoded, as a view into the node
 * (its graph owns them: not to be freed): 0, or -1 for a node of another
 * type. A copy of the graph made through the calls above hands them to
 * its loader instead of reading the file again. */
int ng_node_image(const ng_node *n, ng_image *view);

int ng_graph_count(const ng_graph *g);
const ng_node *ng_graph_node(const ng_graph *g, int id);

/* Building one node: begin (defaults set), set parameters and inputs,
 * finish. A node may only take inputs from nodes that already exist, so
 * every graph is acyclic. `label` names the node in errors (the shorthand
 * the user called, say); `where` is the script position (file:line) or
 * NULL. Both strings are copied. */
ng_node *ng_node_begin(ng_graph *g, const ng_node_type *t, const char *label,
                       const char *where, ng_error *err);
int ng_set_number(ng_node *n, int param, double v, ng_error *err);
int ng_set_vec3(ng_node *n, int param, const double v[3], ng_error *err);
int ng_set_choice(ng_node *n, int param, const char *choice, ng_error *err);
int ng_set_bool(ng_node *n, int param, int v, ng_error *err);
int ng_set_string(ng_node *n, int param, const char *s, ng_error *err); /* STRING and PATH */
int ng_set_list(ng_node *n, int param, const double *v, int count, ng_error *err);
int ng_set_range(ng_node *n, int param, int mode, double lo, double hi, ng_error *err);
int ng_set_input(ng_graph *g, ng_node *n, int input, int source_id, ng_error *err);
/* Drives parameter `param` (declared in node_params) by node source_id; a
 * constant node is folded into the number instead. */
int ng_set_param_node(ng_graph *g, ng_node *n, int param, int source_id, ng_error *err);
/* Returns the new node's id, or -1 (the node is discarded). */
int ng_node_finish(ng_graph *g, ng_node *n, ng_error *err);
/* Drops a begun node that will not be finished. */
void ng_node_discard(ng_node *n);
/* Shortcut: a constant node. */
int ng_constant(ng_graph *g, double v, ng_error *err);
/* Whether n is a constant node (what numbers in scripts become); its value. */
int ng_node_is_constant(const ng_node *n, double *value);

/* Introspection, for `noisegraph nodes`, `info`, and embedders. */
const ng_node_type *ng_node_type_of(const ng_node *n);
int ng_node_id(const ng_node *n);
int ng_node_channels(const ng_node *n);
int ng_node_input(const ng_node *n, int k); /* source id or -1 */
/* The node driving parameter k, or -1 (a number: the parameter's value). */
int ng_node_param_source(const ng_node *n, int k);
const ng_value *ng_node_param(const ng_node *n, int k);
const char *ng_node_label(const ng_node *n);
/* Names node id as the script calls it (node:named("mountains")): its
 * label from now on, in messages, `info`, `dot` and the preview page.
 * 1 to 64 bytes, no control characters. 0, or -1 with err filled. */
int ng_node_rename(ng_graph *g, int id, const char *name, ng_error *err);
/* Parameter k as a script would write it ("0.5", "\"perlin\"", "{1, 2, 3}"). */
int ng_param_format(const ng_node *n, int k, char *buf, size_t len);
/* Whether parameter k holds its descriptor's default value. */
int ng_param_is_default(const ng_node *n, int k);
/* Whether parameter k was given explicitly rather than left at its default. */
int ng_node_param_set(const ng_node *n, int k);
const char *ng_node_where(const ng_node *n);

/* ---- rendering -------------------------------------------------------- */

/* What a render accepts: extents up to NG_MAX_EXTENT pixels, world
 * coordinates (origin, z, time) within +-NG_MAX_COORD, pixel sizes from
 * NG_MIN_PIXEL_SIZE to NG_MAX_PIXEL_SIZE world units. */
#define NG_MAX_EXTENT 1048576
#define NG_MAX_COORD 1e15
#define NG_MIN_PIXEL_SIZE 1e-9
#define NG_MAX_PIXEL_SIZE 1e12

/* Where a volume window lies: what a volume sink needs to place its
 * voxels in the world (a .vdb transform, an NRRD space origin) so that
 * windows of one volume stitch. */
typedef struct ng_volume_info {
    int width, height, depth, channels; /* the window's voxels */
    int offset[3];       /* its first voxel's index in the full volume */
    int full[3];         /* the full volume's extents */
    double origin[3];    /* world position of the full volume's corner */
    double voxel_size;   /* voxel (i, j, k) of the full volume has its
                          * centre at origin + (ijk + 0.5) * voxel_size */
    /* Boxes rather than cubes: the voxel's size along x, y and z, which
     * replaces voxel_size on each axis; 0 (all three): cubes. */
    double voxel[3];
} ng_volume_info;

/* A volume's voxel size along axis a (0 x, 1 y, 2 z). */
static inline double ng_volume_voxel(const ng_volume_info *v, int a)
{
    return v->voxel[a] > 0 ? v->voxel[a] : v->voxel_size;
}

/* Receives finished rows, top to bottom, interleaved channels as floats. */
typedef struct ng_sink {
    int (*begin)(void *user, int width, int height, int channels, ng_error *err);
    int (*rows)(void *user, int y, int nrows, const float *rows, ng_error *err);
    /* ok = 0: the render failed; discard. Called once for every begun sink. */
    int (*end)(void *user, int ok, ng_error *err);
    void *user;
    /* Volumes (a render with depth > 0) call these instead of begin and
     * rows; a sink that leaves them NULL takes images only (the render then
     * fails before any voxel is evaluated). Slabs come z-major: for slices
     * z .. z + nslices - 1, rows 0 .. height - 1 in order (nrows at a time),
     * then the next slices. data holds nslices * nrows * width * channels
     * floats: data[((s * nrows + j) * width + i) * channels + c] is voxel
     * (i, y + j, z + s), channel c. */
    int (*begin_volume)(void *user, const struct ng_volume_info *v, ng_error *err);
    int (*slab)(void *user, int z, int nslices, int y, int nrows, const float *data, ng_error *err);
} ng_sink;

typedef struct ng_render_opts {
    int width, height;      /* the full image, pixels */
    int region[4];          /* x, y, w, h of the window rendered; w = 0: all */
    double origin[2];       /* world position of the image's top-left corner */
    double pixel_size;      /* world units per pixel */
    double z, time;         /* the plane sampled */
    int dims;               /* 2, 3 (z) or 4 (z, time) */
    /* Looping time (dims 4): every node with a lattice in time wraps it
     * every time_period units, so time t and t + time_period give the
     * same output, bit for bit where t / time_period is a whole number
     * (noisegraph render --loop-frames). 0: no loop. */
    double time_period;
    /* 0: one per CPU. The calling thread renders too; the others come
     * from one pool per process, started on the first render that wants
     * them and kept asleep between renders (no thread start per render). */
    int threads;
    int tile;               /* tile edge, pixels */
    int progress;           /* report progress on stderr */
    const char *progress_label; /* said before the percentage ("frame 3/48"), or NULL */
    int tileable;           /* the image wraps seamlessly in x and y */
    /* Called (on the calling thread, before any tile) with notes a user
     * should see, e.g. how a node adjusted itself to tile. May be NULL. */
    void (*note)(void *user, const char *msg);
    void *note_user;
    /* Cancellation, checked inside evaluation (between node evaluations of
     * a block, and so between the octaves of a fractal), on every thread:
     * the render stops with an error, once, and its sinks end with ok = 0.
     * time_limit: seconds of wall time from the start of ng_render, 0 for
     * none. cancel: a flag the caller owns (another thread, a signal
     * handler) and sets nonzero to stop the render; NULL for none. */
    double time_limit;
    const atomic_int *cancel;
    /* Bytes the render's intermediate results (the tile buffers of every
     * node, shared results kept for their readers) may take over all
     * threads; 0: no limit. Past it the render stops with an error. */
    double memory_limit;
    /* Volumes: depth 0 renders an image; depth >= 1 a volume of width x
     * height x depth voxels, cubes of edge pixel_size, evaluated in bricks
     * of brick^3 voxels (8 to 64; default 16) with dims 3 (4 with time).
     * Voxel (i, j, k) samples the world point at its centre: origin[0] +
     * (i + 0.5) * pixel_size, origin[1] + (j + 0.5) * pixel_size, z + (k +
     * 0.5) * pixel_size (so z is the volume's lower corner, where an image
     * samples the plane z). zregion: the slices of the window, first and
     * count (count 0: all); region gives its x and y as for images. */
    int depth;
    int zregion[2];
    int brick;
    /* A volume of boxes rather than cubes (--voxel-size 4,4,2): the voxel's
     * size along x, y and z, which replaces pixel_size in the sample
     * positions of that axis; pixel_size stays the footprint (the finest
     * detail a fractal resolves: the smallest of the three). 0 (all
     * three): cubes of pixel_size. Images take none. */
    double voxel_size[3];
} ng_render_opts;

void ng_render_defaults(ng_render_opts *o, int width, int height);

/* Evaluates roots[k] over the window and streams it into sinks[k]. Sinks
 * begin in order k = 0, 1, ..., each band (slab) goes to them in that
 * order, and they end in it (file sinks sharing one file rely on it).
 * Output is bit-identical for every thread count and tile size. Worker threads block
 * every signal, so handlers run on the calling thread (or another of the
 * caller's). Sinks are called on the calling thread only. Every tile is
 * computed in the calling thread's floating-point environment (rounding
 * mode, FTZ/DAZ), whichever thread takes it. Several threads
 * may render at once (each its own graph and sinks): they share the pool,
 * and a render never waits for a busy pool, it only gets fewer helpers. A
 * process forked from one that rendered can render (it starts helpers of
 * its own); a child forked from inside a sink must exec or _exit. The
 * calling thread evaluates tiles too, on its own stack: deep graphs (a
 * hundred nested warps) need a few hundred KiB of it, as pool threads
 * have (16 MiB). Pool threads live for the process (parked between
 * renders), so a plugin holding this library must not be unloaded. */
int ng_render(const ng_graph *g, const int *roots, int nroots,
              const ng_render_opts *o, ng_sink *sinks, ng_error *err);

/* Renders one root into out (window w * h * channels floats, interleaved). */
int ng_render_buffer(const ng_graph *g, int root, const ng_render_opts *o,
                     float *out, ng_error *err);

/* Evaluates a root at arbitrary world points (n of them, dims coordinates
 * each, dims-major arrays xs[d][i]), for tests and embedders. */
int ng_eval_points(const ng_graph *g, int root, int dims, const double *const *xs,
                   int n, float *out, ng_error *err);

/* ---- views -------------------------------------------------------------- */

/* A view is a picture of one 1-channel output, drawn by a renderer on top
 * of the engine (it asks the engine for samples; it is no node): RGB in
 * [0, 1], streamed through the tile engine like any render. */
typedef enum ng_view_kind { /* ORDER: the words of --view in cli/args.c */
    NG_VIEW_VOLUME,  /* the output is a density: ray-marched as a cloud */
    NG_VIEW_TERRAIN  /* the output is a height: hillshade and colour ramp */
} ng_view_kind;

/* Where a volume view's camera stands when none is given: outside the box,
 * looking at its centre, far enough for the box to fill the frame (z is
 * up). */
typedef enum ng_view_preset { /* ORDER: the words of --view-preset in cli/args.c */
    NG_VIEW_THREE_QUARTER, /* from above and aside */
    NG_VIEW_SIDE,          /* level with the box's middle */
    NG_VIEW_TOP            /* straight down z */
} ng_view_preset;

/* The terrain view's colours. */
typedef enum ng_view_ramp_kind { /* ORDER: the words of --terrain-ramp in cli/args.c */
    NG_RAMP_TERRAIN, /* water, sand, grass, forest, rock, snow; bare rock where the
                      * ground is steep, hollows shaded (0.2.0's default) */
    NG_RAMP_GREY,    /* the height as grey, lit: a GIS hillshade */
    NG_RAMP_HEIGHT   /* the terrain colours by height alone, lit: the terrain
                      * view before 0.2.0 (--classic's) */
} ng_view_ramp_kind;

typedef struct ng_view_opts {
    ng_view_kind kind;
    double sun[3];          /* direction toward the sun, world axes, any length */
    /* Volume: the density lives in the box of box[0] x box[1] x box[2]
     * voxels of edge voxel_size with its lowest corner at box_origin (it is
     * 0 outside). */
    int box[3];
    double voxel_size;
    double box_origin[3];
    ng_view_preset preset;
    int has_camera, has_look_at; /* 0: the preset's camera; the box's centre */
    double camera[3], look_at[3];
    double fov;             /* vertical field of view, degrees */
    double density_scale;   /* extinction per voxel length per unit of density */
    double step;            /* march step, voxels */
    /* Terrain: the output over the render's pixels (origin, pixel_size, z
     * as for an image) is a height, mostly within [0, 1] (the colour ramp's
     * range); height_scale is world units of height per unit of value (0:
     * a fifth of the image's width in world units). Below sea_level (0.01
     * to 0.99, default 0.3, the ramp's own shore) the ground is water,
     * drawn flat; the ramp's land colours spread over sea_level to 1. */
    double height_scale;
    double sea_level;
    ng_view_ramp_kind ramp;
} ng_view_opts;

/* A 128^3 box of unit voxels at the origin, the three-quarter camera, a
 * 40 degree field of view, the sun high in the top left; terrain: the
 * terrain ramp with its sea level 0.3. */
void ng_view_defaults(ng_view_opts *v, ng_view_kind kind);
/* Sets sun from an azimuth (degrees clockwise from -y, the top of an image,
 * toward +x) and an elevation (degrees above the horizon). */
void ng_view_sun(ng_view_opts *v, double azimuth, double elevation);
/* The checks ng_view_render makes of v and o before a sample is taken:
 * every option in its range, a sun direction that is not zero, a camera
 * given away from the point it looks at. The messages name the CLI's
 * options, so a program reading them can refuse them as a usage error.
 * 0, or -1 with err filled. */
int ng_view_check(const ng_view_opts *v, const ng_render_opts *o, ng_error *err);
/* Renders the view of root into sink, 3 channels. o gives the picture's
 * size and region, threads, tile, progress, limits and cancellation; a
 * terrain view also the world the pixels sample (origin, pixel_size, z,
 * time, dims); a volume view samples in 3D (4D at o->time when o->dims is
 * 4). Every pixel depends on its index alone: the same bits for any thread
 * count, tile size or region split. 0, or -1 with err filled. */
int ng_view_render(const ng_graph *g, int root, const ng_view_opts *v, const ng_render_opts *o, ng_sink *sink,
                   ng_error *err);

/* The terrain view's colour ramp (water below 0.3, sand, grass, forest,
 * rock, snow toward 1) without its shading: the colour of a height, for
 * pictures of a value by colour (serve's "ramp" view). NaN is the bottom. */
void ng_view_ramp(float h, float rgb[3]);

/* ---- SIMD paths ------------------------------------------------------- */

/* The kernels run on one SIMD path, chosen once: NG_SIMD=avx512|avx2|sse2|
 * scalar forces one, otherwise the widest this CPU runs. Every path gives
 * the same bits. */
const char *ng_simd_path(void);
/* 0 if NG_SIMD is unset or names a path this CPU runs; -1 and why otherwise. */
int ng_simd_check(ng_error *err);
int ng_simd_supported(const char *name);

#endif
