/*
 * vector.c — vector fields: building one from scalars, taking a channel
 * back out, and the curl of a potential, a divergence-free field (warping
 * by it swirls without bunching up or thinning out).
 */
#include "ng_node.h"
#include "loops.h"
#include "types.h"

#include <math.h>
#include <string.h>


/* ---- vector: channel c is input c ---------------------------------------------------------------- */

enum { I_X, I_Y, I_Z, VECTOR_NINPUTS };

static const ng_input_desc vector_inputs[VECTOR_NINPUTS] = {
    [I_X] = {"x", NG_INPUT_HYBRID, 1, 1, 0, "first channel"},
    [I_Y] = {"y", NG_INPUT_HYBRID, 1, 1, 0, "second channel"},
    [I_Z] = {"z", NG_INPUT_HYBRID | NG_INPUT_OPTIONAL, 1, 1, 0, "third channel (leave out for a 2-channel vector)"},
};

static int vector_setup(ng_node *n, const int *ch, ng_error *err)
{
    (void)err;
    n->channels = ch[I_Z] ? 3 : 2;
    return 0;
}

static int vector_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    int c;
    (void)ctx;
    for (c = 0; c < n->channels; c++) memcpy(out + (size_t)c * (size_t)b->n, in[c], (size_t)b->n * sizeof(float));
    return 0;
}

const ng_node_type ng_type_vector = {
    .name = "vector", .family = "warp", .doc = "a 2- or 3-channel vector from scalar nodes or numbers (for warp)",
    .inputs = vector_inputs, .ninputs = VECTOR_NINPUTS, .dims = NG_DIMS_ALL, .positional = "x,y,z",
    .setup = vector_setup, .eval = vector_eval,
};

/* ---- channel ------------------------------------------------------------------ */

enum { I_CHANNEL_SOURCE, CHANNEL_NINPUTS };

static const ng_input_desc channel_inputs[CHANNEL_NINPUTS] = {
    [I_CHANNEL_SOURCE] = {"source", 0, 1, NG_MAX_CHANNELS, 0, "a vector node"},
};

enum { P_INDEX, CHANNEL_NPARAMS };

static const ng_param_desc channel_params[CHANNEL_NPARAMS] = {
    [P_INDEX] = {"index", NG_PARAM_INT, {1}, 1, NG_MAX_CHANNELS, NULL, "which channel, from 1 (x)"},
};

static int channel_setup(ng_node *n, const int *ch, ng_error *err)
{
    const int index = ng_int(n, P_INDEX), have = ch[I_CHANNEL_SOURCE];
    if (index > have)
        return ng_errorf(err, "%s: index %d, but the source has %d channel%s", n->label, index, have,
                         have == 1 ? "" : "s");
    return 0;
}

static int channel_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    (void)ctx;
    memcpy(out, in[I_CHANNEL_SOURCE] + (size_t)(ng_int(n, P_INDEX) - 1) * (size_t)b->n,
           (size_t)b->n * sizeof(float));
    return 0;
}

const ng_node_type ng_type_channel = {
    .name = "channel", .family = "warp", .doc = "one channel of a vector node, counting from 1",
    .params = channel_params, .nparams = CHANNEL_NPARAMS, .inputs = channel_inputs, .ninputs = CHANNEL_NINPUTS, .dims = NG_DIMS_ALL,
    .method = "channel", .positional = "source,index", .setup = channel_setup, .eval = channel_eval,
};

/* ---- curl ---------------------------------------------------------------------- */

enum { I_POTENTIAL, CURL_NINPUTS };

static const ng_input_desc curl_inputs[CURL_NINPUTS] = {
    [I_POTENTIAL] = {"source", NG_INPUT_PULL, 1, 3, 0,
                     "the potential: a scalar (2D: the stream function) or a 3-channel vector potential (3D)"},
};

enum { P_STEP, CURL_NPARAMS };

static const ng_param_desc curl_params[CURL_NPARAMS] = {
    [P_STEP] = {"step", NG_PARAM_NUMBER, {0}, 0, 1e12, NULL,
                "finite-difference step in world units (0: a thousandth of the source's finest detail)"},
};

typedef struct curl_state {
    double h; /* the finite-difference step in use, world units */
} curl_state;

static int curl_setup(ng_node *n, const int *ch, ng_error *err)
{
    double h = ng_num(n, P_STEP);
    curl_state *s;
    if (h == 0) h = n->detail < HUGE_VAL ? n->detail * 1e-3 : 1e-2;
    if (!(h > 0)) return ng_errorf(err, "%s: the source has no finite detail size; give a step", n->label);
    if (!(s = ng_node_state_alloc(n, sizeof *s, err))) return -1;
    s->h = h;
    n->channels = 3;
    n->dims &= 0x1Cu; /* 2D, 3D, and 4D: the curl in x, y, z at each time (animated renders) */
    (void)ch;
    return 0;
}

/* Central difference of the source along axis d: (f(p + h e_d) - f(p - h e_d)) / 2h,
 * written into out (channels planes). The offset goes into the anchor, in
 * double, so it is exact however far the block is from the origin. */
static int difference(ng_ctx *ctx, const ng_node *n, const ng_block *b, int d, float *lo, float *hi, float *out,
                      int ch)
{
    ng_block s = *b;
    const double h = ((const curl_state *)n->state)->h;
    const float inv = (float)(0.5 / h);
    s.anchor[d] = b->anchor[d] + h;
    s.pos_id = ng_new_pos_id(ctx);
    if (ng_pull(ctx, n, I_POTENTIAL, &s, hi)) return -1;
    s.anchor[d] = b->anchor[d] - h;
    s.pos_id = ng_new_pos_id(ctx);
    if (ng_pull(ctx, n, I_POTENTIAL, &s, lo)) return -1;
    ng__loops()->sub_scale(out, hi, lo, inv, b->n * ch);
    return 0;
}

static int curl_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const int ch = ng_input_channels(ctx, n, I_POTENTIAL), len = b->n;
    float *lo = ng_scratch(ctx, ch), *hi = ng_scratch(ctx, ch);
    const ng_loops *L = ng__loops();
    float *dx = NULL, *dy = NULL, *dz = NULL;
    int rc = -1;
    (void)in;
    if (!lo || !hi) goto done;
    dx = ng_scratch(ctx, ch), dy = ng_scratch(ctx, ch), dz = b->dims >= 3 ? ng_scratch(ctx, ch) : NULL;
    if (!dx || !dy || (b->dims >= 3 && !dz)) goto done;
    if (difference(ctx, n, b, 0, lo, hi, dx, ch) || difference(ctx, n, b, 1, lo, hi, dy, ch)) goto done;
    if (b->dims == 2 || ch == 1) {
        /* 2D: v = (dpsi/dy, -dpsi/dx), psi the scalar (or the z component of a vector potential) */
        const int c = ch == 1 ? 0 : 2;
        memcpy(out, dy + c * len, (size_t)len * sizeof(float));
        L->neg(out + len, dx + c * len, len);
        memset(out + 2 * len, 0, (size_t)len * sizeof(float));
    } else {
        /* 3D: v = curl A = (dAz/dy - dAy/dz, dAx/dz - dAz/dx, dAy/dx - dAx/dy); in
         * 4D the same at the sample's time (time is no axis of the field) */
        if (difference(ctx, n, b, 2, lo, hi, dz, ch)) goto done;
        L->sub(out, dy + 2 * len, dz + len, len);
        L->sub(out + len, dz, dx + 2 * len, len);
        L->sub(out + 2 * len, dx + len, dy, len);
    }
    rc = 0;
done:
    ng_scratch_free(ctx, lo, ch);
    ng_scratch_free(ctx, hi, ch);
    ng_scratch_free(ctx, dx, ch);
    ng_scratch_free(ctx, dy, ch);
    ng_scratch_free(ctx, dz, ch);
    return rc;
}

const ng_node_type ng_type_curl = {
    .name = "curl", .family = "warp",
    .doc = "the curl of a potential: a divergence-free 3-channel vector field (2D: (dpsi/dy, -dpsi/dx, 0)); "
           "warping by it swirls without clumping. Central differences of the source; in 4D the curl in x, y, z "
           "of the potential at each time, so an animated potential flows.",
    .params = curl_params, .nparams = CURL_NPARAMS, .inputs = curl_inputs, .ninputs = CURL_NINPUTS, .dims = 0x1Cu,
    .positional = "source", .setup = curl_setup, .eval = curl_eval,
};
