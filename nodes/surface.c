/*
 * surface.c — reading a scalar node as a height field z = height * h(x, y)
 * and shading it in the same pass: its normal, its slope (a mask for cliffs
 * or snow), or a Lambert-lit relief. Gradients are analytic where the
 * source's graph provides them (noises, fractals, arithmetic, curves,
 * warps: ng_pull_grad), central differences otherwise; an explicit `step`
 * asks for central differences of that step everywhere (the user's
 * choice of scale, say to soften a relief).
 */
#include "ng_node.h"
#include "loops.h"
#include "types.h"

#include <math.h>

static const char *const mode_choices[] = {"normal", "slope", "light", NULL};
enum { M_NORMAL, M_SLOPE, M_LIGHT };
enum { P_MODE, P_HEIGHT, P_LIGHT, P_STEP, NPARAMS };

static const ng_param_desc surface_params[NPARAMS] = {
    [P_MODE] = {"mode", NG_PARAM_ENUM, {0}, 0, 0, mode_choices,
     "normal: the unit normal (3 channels, [-1, 1]); slope: the angle from horizontal / 90 degrees ([0, 1]); "
     "light: Lambert shading max(0, normal . light) ([0, 1])"},
    [P_HEIGHT] = {"height", NG_PARAM_NUMBER, {100}, -1e12, 1e12, NULL, "world units of height per unit of the source's value"},
    [P_LIGHT] = {"light", NG_PARAM_VEC3, {-1, -1, 1}, -1e6, 1e6, NULL, "direction towards the light (normalised), for mode light"},
    [P_STEP] = {"step", NG_PARAM_NUMBER, {0}, 0, 1e12, NULL,
     "0: exact (analytic) gradients where the source has them, central differences of a thousandth of its "
     "detail size elsewhere; > 0: central differences of this step in world units everywhere (a larger step "
     "softens the relief)"},
};

enum { I_SOURCE, NINPUTS };

static const ng_input_desc surface_inputs[NINPUTS] = {
    [I_SOURCE] = {"source", NG_INPUT_PULL, 1, 1, 0, "the height field"},
};

static const ng_shorthand surface_shorthands[] = {
    {"normal", "mode", "normal"}, {"slope", "mode", "slope"}, {"light", "mode", "light"},
};

typedef struct surface_state {
    float light[3]; /* unit vector towards the light (zero if `light` is) */
} surface_state;

static int surface_setup(ng_node *n, const int *ch, ng_error *err)
{
    const double *l = n->param[P_LIGHT].v;
    double len = sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
    surface_state *s;
    int d;
    (void)ch;
    if (ng_int(n, P_MODE) == M_LIGHT && !(len > 0)) return ng_errorf(err, "%s: the light direction is zero", n->label);
    if (!(s = ng_node_state_alloc(n, sizeof *s, err))) return -1;
    for (d = 0; d < 3 && len > 0; d++) s->light[d] = (float)(l[d] / len);
    n->channels = ng_int(n, P_MODE) == M_NORMAL ? 3 : 1;
    n->dims &= 0x1Cu; /* a height field needs x and y */
    return 0;
}

static int surface_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const int mode = ng_int(n, P_MODE), len = b->n;
    const surface_state *s = n->state;
    const float hs = (float)ng_num(n, P_HEIGHT), lx = s->light[0], ly = s->light[1], lz = s->light[2];
    float *val = ng_scratch(ctx, 1), *grad = ng_scratch(ctx, b->dims);
    int i, rc = -1;
    (void)in;
    if (!val || !grad || ng_pull_grad(ctx, n, I_SOURCE, b, val, grad, ng_num(n, P_STEP))) goto done;
    if (mode == M_LIGHT) { /* the hillshade: the path's loop, the same arithmetic as below */
        ng__loops()->light(out, grad, grad + len, hs, lx, ly, lz, len);
        rc = 0;
        goto done;
    }
    for (i = 0; i < len; i++) {
        /* z = hs * h: the normal is (-hs h_x, -hs h_y, 1) / length */
        float gx = hs * grad[i], gy = hs * grad[len + i], slope2 = gx * gx + gy * gy;
        float inv = 1.0f / sqrtf(1.0f + slope2), nx = -gx * inv, ny = -gy * inv, nz = inv;
        if (mode == M_NORMAL) {
            out[i] = nx, out[len + i] = ny, out[2 * len + i] = nz;
        } else if (mode == M_SLOPE) {
            out[i] = (float)(atan(sqrt((double)slope2)) * (2.0 / 3.14159265358979323846));
        } else {
            float d = nx * lx + ny * ly + nz * lz;
            out[i] = d > 0.0f ? d : 0.0f;
        }
    }
    rc = 0;
done:
    ng_scratch_free(ctx, val, 1);
    ng_scratch_free(ctx, grad, b->dims);
    return rc;
}

const ng_node_type ng_type_surface = {
    .name = "surface",
    .family = "shading",
    .doc = "reads a scalar as a height field (z = height * source) and gives its normal, slope or Lambert light; "
           "analytic gradients through noises, fractals, arithmetic, curves and warps (central differences "
           "for nodes without them, or everywhere with an explicit step)",
    .params = surface_params,
    .nparams = NPARAMS,
    .inputs = surface_inputs,
    .ninputs = NINPUTS,
    .dims = 0x1Cu,
    .positional = "source",
    .shorthands = surface_shorthands,
    .nshorthands = (int)(sizeof surface_shorthands / sizeof surface_shorthands[0]),
    .setup = surface_setup,
    .eval = surface_eval,
};
