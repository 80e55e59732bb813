/*
 * coords.c — sources that depend only on the position: the world
 * coordinates themselves and radial distance (island masks, vignettes).
 */
#include "ng_node.h"
#include "loops.h"
#include "types.h"

#include <math.h>


/* The world coordinate along one axis, computed in double so an offset
 * origin does not cost precision before the final rounding. */
static void coord(const ng_block *b, int axis, float *out)
{
    ng__loops()->offset(out, b->p[axis], b->anchor[axis], b->n);
}

#define COORD_EVAL(fname, axis)                                                                           \
    static int fname(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out) \
    {                                                                                                     \
        (void)ctx;                                                                                        \
        (void)n;                                                                                          \
        (void)in;                                                                                         \
        coord(b, axis, out);                                                                              \
        return 0;                                                                                         \
    }

COORD_EVAL(x_eval, 0)
COORD_EVAL(y_eval, 1)
COORD_EVAL(z_eval, 2)
COORD_EVAL(time_eval, 3)

const ng_node_type ng_type_x = {
    .name = "x", .family = "source", .doc = "the world x coordinate (pixels by default)", .dims = NG_DIMS_ALL,
    .eval = x_eval,
};
const ng_node_type ng_type_y = {
    .name = "y", .family = "source", .doc = "the world y coordinate (pixels, growing downwards)", .dims = 0x1Cu,
    .eval = y_eval,
};
const ng_node_type ng_type_z = {
    .name = "z", .family = "source", .doc = "the world z coordinate (the plane a 3D render samples)", .dims = 0x18u,
    .eval = z_eval,
};
const ng_node_type ng_type_time = {
    .name = "time", .family = "source", .doc = "the fourth coordinate, time (--time)", .dims = 0x10u,
    .eval = time_eval,
};

/* ---- frame ------------------------------------------------------------------ */

enum { P_FPS, FRAME_NPARAMS };

static const ng_param_desc frame_params[FRAME_NPARAMS] = {
    [P_FPS] = {"fps", NG_PARAM_NUMBER, {24}, 0.001, 1e6, NULL,
               "frames per second (ng.frame() takes the render's --fps)"},
};

/* time x fps in double: at time f / fps (render --frames) that is f
 * within a few ulps of a double, so the float is the whole number f. */
static int frame_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const double fps = ng_num(n, P_FPS), t0 = b->anchor[3];
    const float *t = b->p[3];
    int i;
    (void)ctx;
    (void)in;
    for (i = 0; i < b->n; i++) out[i] = (float)((t0 + (double)t[i]) * fps);
    return 0;
}

const ng_node_type ng_type_frame = {
    .name = "frame", .family = "source",
    .doc = "the frame number, time x fps: f exactly in frame f of render --frames (4D, like time)",
    .params = frame_params, .nparams = FRAME_NPARAMS, .dims = 0x10u, .eval = frame_eval,
};

/* ---- distance ------------------------------------------------------------- */

static const char *const metric_choices[] = {"euclidean", "manhattan", "chebyshev", NULL};

enum { P_CENTER, P_RADIUS, P_METRIC, DISTANCE_NPARAMS };

static const ng_param_desc distance_params[DISTANCE_NPARAMS] = {
    [P_CENTER] = {"center", NG_PARAM_VEC3, {0, 0, 0}, -1e15, 1e15, NULL, "the point distances are measured from, world units"},
    [P_RADIUS] = {"radius", NG_PARAM_NUMBER, {1}, 1e-9, 1e15, NULL, "distance that gives 1 (output = distance / radius)"},
    [P_METRIC] = {"metric", NG_PARAM_ENUM, {0}, 0, 0, metric_choices, "how distance is measured"},
};

static int distance_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const double *c = n->param[P_CENTER].v;
    const float inv = (float)(1.0 / ng_num(n, P_RADIUS));
    const int metric = ng_int(n, P_METRIC), dims = b->dims < 3 ? b->dims : 3;
    const ng_loops *L = ng__loops();
    int i, d;
    (void)ctx;
    (void)in;
    L->fill(out, 0.0f, b->n);
    for (d = 0; d < dims; d++) L->acc_distance(out, b->p[d], b->anchor[d] - c[d], metric, b->n);
    if (metric != 0) L->scale(out, out, inv, b->n);
    else /* euclidean: the root of the summed squares */
        for (i = 0; i < b->n; i++) out[i] = sqrtf(out[i]) * inv;
    return 0;
}

const ng_node_type ng_type_distance = {
    .name = "distance", .family = "source",
    .doc = "distance from `center` divided by `radius`: 0 at the centre, 1 at the radius (island masks)",
    .params = distance_params, .nparams = DISTANCE_NPARAMS, .dims = NG_DIMS_ALL, .eval = distance_eval,
};

/* ---- normalised image coordinates ------------------------------------------- */

/* u and v: where a point lies across the full image, 0 at its left (top)
 * edge and 1 at its right (bottom) edge, so a pixel centre gives
 * (i + 0.5) / W whatever region or tile holds it. The Lua host fills the
 * options from the render (ng.u(), ng.v()); a C client gives its own. */
enum { P_EDGE, P_EXTENT, IMAGE_COORD_NPARAMS };

static const ng_param_desc u_params[IMAGE_COORD_NPARAMS] = {
    [P_EDGE] = {"origin", NG_PARAM_NUMBER, {0}, -1e15, 1e15, NULL, "world x of the image's left edge (ng.u() sets it)"},
    [P_EXTENT] = {"size", NG_PARAM_NUMBER, {512}, 1e-9, 1e18, NULL, "world width of the full image (ng.u() sets it)"},
};
static const ng_param_desc v_params[IMAGE_COORD_NPARAMS] = {
    [P_EDGE] = {"origin", NG_PARAM_NUMBER, {0}, -1e15, 1e15, NULL, "world y of the image's top edge (ng.v() sets it)"},
    [P_EXTENT] = {"size", NG_PARAM_NUMBER, {512}, 1e-9, 1e18, NULL, "world height of the full image (ng.v() sets it)"},
};

/* In double, from the anchor: the block's float offsets are exact pixel
 * centres at the render's anchor, so the quotient is the same bits for
 * every tiling. */
static void image_coord(const ng_node *n, const ng_block *b, int axis, float *out)
{
    const double a = b->anchor[axis] - ng_num(n, P_EDGE), size = ng_num(n, P_EXTENT);
    const float *p = b->p[axis];
    int i;
    for (i = 0; i < b->n; i++) out[i] = (float)((a + (double)p[i]) / size);
}

static int u_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    (void)ctx;
    (void)in;
    image_coord(n, b, 0, out);
    return 0;
}

static int v_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    (void)ctx;
    (void)in;
    image_coord(n, b, 1, out);
    return 0;
}

const ng_node_type ng_type_u = {
    .name = "u", .family = "source",
    .doc = "x across the full image: 0 at its left edge, 1 at its right (ng.u() takes both from the render)",
    .params = u_params, .nparams = IMAGE_COORD_NPARAMS, .dims = NG_DIMS_ALL, .eval = u_eval,
};
const ng_node_type ng_type_v = {
    .name = "v", .family = "source",
    .doc = "y across the full image: 0 at its top edge, 1 at its bottom (ng.v() takes both from the render)",
    .params = v_params, .nparams = IMAGE_COORD_NPARAMS, .dims = 0x1Cu, .eval = v_eval,
};
