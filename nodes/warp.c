/*
 * warp.c — domain warp: the source is evaluated at positions displaced by
 * a vector field times `amount` (world units). With octaves > 1 the field
 * is applied again at lacunarity times the frequency and roughness times
 * the strength, either at the already-warped positions (progressive: folds
 * on folds) or at the original ones (independent: a fractal displacement).
 * The displaced positions live in one scratch buffer per call; warps chain
 * by pulling through each other.
 */
#include "ng_node.h"
#include "loops.h"
#include "octaves.h"
#include "types.h"

#include <math.h>
#include <string.h>

enum { I_SOURCE, I_BY, I_AMOUNT, NINPUTS };

static const ng_input_desc warp_inputs[NINPUTS] = {
    [I_SOURCE] = {"source", NG_INPUT_PULL, 1, NG_MAX_CHANNELS, 0, "the node evaluated at the displaced positions"},
    [I_BY] = {"by", NG_INPUT_PULL, 2, 3, 0, "vector field (2 or 3 channels) giving the displacement direction"},
    [I_AMOUNT] = {"amount", NG_INPUT_HYBRID, 1, 1, 1,
                  "displacement in world units per unit of `by`: a number or a mask node"},
};

static const char *const mode_choices[] = {"progressive", "independent", NULL};

enum { P_OCTAVES, P_LACUNARITY, P_ROUGHNESS, P_MODE, NPARAMS };

static const ng_param_desc warp_params[NPARAMS] = {
    {"octaves", NG_PARAM_NUMBER, {1}, 1, 16, NULL, "how many times the field is applied; a fraction fades the last in"},
    {"lacunarity", NG_PARAM_NUMBER, {2}, 1, 16, NULL, "frequency ratio of the field between octaves"},
    {"roughness", NG_PARAM_NUMBER, {0.5}, 0, 2, NULL, "strength ratio between octaves"},
    {"mode", NG_PARAM_ENUM, {0}, 0, 0, mode_choices,
     "progressive: each octave samples the field at the already-warped positions; independent: at the original ones"},
};

static int warp_setup(ng_node *n, const int *ch, ng_error *err)
{
    (void)err;
    n->channels = ch[I_SOURCE];
    return 0;
}

static int warp_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const int progressive = ng_int(n, P_MODE) == 0;
    const int vec = ng_input_channels(ctx, n, I_BY);
    const int moved = b->dims < vec ? b->dims : vec;
    const float *amount = in[I_AMOUNT];
    float *pos = ng_scratch(ctx, b->dims), *field = ng_scratch(ctx, vec), *query = NULL;
    double scale = 1;
    ng_block wb = *b;
    ng_octaves o;
    int d, k, rc = -1;
    ng__octaves_init(&o, ng_num(n, P_OCTAVES), ng_num(n, P_LACUNARITY), ng_num(n, P_ROUGHNESS));
    if (!pos || !field) goto done;
    if (o.count > 1 && !(query = ng_scratch(ctx, b->dims))) goto done;
    for (d = 0; d < b->dims; d++) memcpy(pos + (size_t)d * b->n, b->p[d], (size_t)b->n * sizeof(float));
    for (k = 0; k < o.count; k++, scale *= o.lacunarity) {
        const float w = (float)ng__octave_weight(&o, k);
        ng_block fb;
        /* the field at lacunarity^k, sampled where this mode says */
        if (k == 0) fb = *b;
        else ng__octave_block(ctx, b, k, scale, progressive ? pos : NULL, query, &fb);
        if (ng_pull_channels(ctx, n, I_BY, &fb, field, moved)) goto done;
        for (d = 0; d < moved; d++)
            ng__loops()->axpy_masked(pos + (size_t)d * b->n, amount, w, field + (size_t)d * b->n, b->n);
    }
    for (d = 0; d < b->dims; d++) wb.p[d] = pos + (size_t)d * b->n;
    wb.pos_id = ng_new_pos_id(ctx);
    rc = ng_pull_channels(ctx, n, I_SOURCE, &wb, out, b->channels);
done:
    ng_scratch_free(ctx, pos, b->dims);
    ng_scratch_free(ctx, query, b->dims);
    ng_scratch_free(ctx, field, vec);
    return rc;
}

const ng_node_type ng_type_warp = {
    .name = "warp",
    .family = "warp",
    .doc = "Domain warp: source sampled at position + amount * by. `by` is a vector node "
           "(a noise with output = \"vector\", ng.vector, ng.curl); warps chain. With octaves > 1 the field "
           "is applied again at finer scales (progressive or independent).",
    .params = warp_params,
    .nparams = NPARAMS,
    .inputs = warp_inputs,
    .ninputs = NINPUTS,
    .dims = 0x1Eu,
    .positional = "source,by,amount",
    .setup = warp_setup,
    .eval = warp_eval,
};
