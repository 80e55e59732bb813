/*
 * coords.c — sources that depend only on the position: the world
 * coordinates themselves and radial distance (island masks, vignettes).
 */
#include "ng_node.h"
#include "loops.h"
#include "types.h"

#include <math.h>

#define ALL_DIMS 0x1Eu

/* The world coordinate along the axis in k[0], computed in double so an
 * offset origin does not cost precision before the final rounding. */
static int coord_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const int d = (int)n->k[0];
    (void)ctx;
    (void)in;
    ng__loops()->offset(out, b->p[d], b->anchor[d], b->n);
    return 0;
}

#define COORD_SETUP(fname, axis)                                        \
    static int fname(ng_node *n, const int *ch, ng_error *err)          \
    {                                                                   \
        (void)ch;                                                       \
        (void)err;                                                      \
        n->k[0] = axis;                                                 \
        return 0;                                                       \
    }

COORD_SETUP(x_setup, 0)
COORD_SETUP(y_setup, 1)
COORD_SETUP(z_setup, 2)
COORD_SETUP(time_setup, 3)

const ng_node_type ng_type_x = {
    .name = "x", .family = "source", .doc = "the world x coordinate (pixels by default)", .dims = 0x1Eu,
    .setup = x_setup, .eval = coord_eval,
};
const ng_node_type ng_type_y = {
    .name = "y", .family = "source", .doc = "the world y coordinate (pixels, growing downwards)", .dims = 0x1Cu,
    .setup = y_setup, .eval = coord_eval,
};
const ng_node_type ng_type_z = {
    .name = "z", .family = "source", .doc = "the world z coordinate (the plane a 3D render samples)", .dims = 0x18u,
    .setup = z_setup, .eval = coord_eval,
};
const ng_node_type ng_type_time = {
    .name = "time", .family = "source", .doc = "the fourth coordinate, time (--time)", .dims = 0x10u,
    .setup = time_setup, .eval = coord_eval,
};

/* ---- distance ------------------------------------------------------------- */

static const char *const metric_choices[] = {"euclidean", "manhattan", "chebyshev", NULL};

static const ng_param_desc distance_params[] = {
    {"center", NG_PARAM_VEC3, {0, 0, 0}, -1e15, 1e15, NULL, "the point distances are measured from, world units"},
    {"radius", NG_PARAM_NUMBER, {1}, 1e-9, 1e15, NULL, "distance that gives 1 (output = distance / radius)"},
    {"metric", NG_PARAM_ENUM, {0}, 0, 0, metric_choices, "how distance is measured"},
};

static int distance_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const double *c = n->param[0].v;
    const float inv = (float)(1.0 / ng_num(n, 1));
    const int metric = ng_int(n, 2), dims = b->dims < 3 ? b->dims : 3;
    const ng_loops *L = ng__loops();
    int i, d;
    (void)ctx;
    (void)in;
    L->fill(out, 0.0f, b->n);
    for (d = 0; d < dims; d++) L->acc_distance(out, b->p[d], b->anchor[d] - c[d], metric, b->n);
    if (metric != 0) L->scale(out, out, inv, b->n);
    else /* sqrtf stays here: under -fmath-errno it does not vectorise (see math.c) */
        for (i = 0; i < b->n; i++) out[i] = sqrtf(out[i]) * inv;
    return 0;
}

const ng_node_type ng_type_distance = {
    .name = "distance", .family = "source",
    .doc = "distance from `center` divided by `radius`: 0 at the centre, 1 at the radius (island masks)",
    .params = distance_params, .nparams = 3, .dims = ALL_DIMS, .eval = distance_eval,
};
