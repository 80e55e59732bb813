/*
 * warp.c — domain warp: the source is evaluated at positions displaced by
 * a vector field times `amount` (world units). The displaced positions live
 * in one scratch buffer for the call; warps chain by pulling through each
 * other.
 */
#include "ng_node.h"
#include "types.h"

static const ng_input_desc warp_inputs[] = {
    {"source", NG_INPUT_PULL, 1, NG_MAX_CHANNELS, 0, "the node evaluated at the displaced positions"},
    {"by", 0, 2, 3, 0, "vector field (2 or 3 channels) giving the displacement direction"},
    {"amount", NG_INPUT_HYBRID, 1, 1, 1, "displacement in world units per unit of `by`: a number or a mask node"},
};

static int warp_setup(ng_node *n, const int *ch, ng_error *err)
{
    (void)err;
    n->channels = ch[0];
    return 0;
}

static int warp_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const int vec = ng_input_channels(ctx, n, 1);
    const int moved = b->dims < vec ? b->dims : vec;
    float *pos = ng_scratch(ctx, moved);
    const float *amount = in[2];
    ng_block wb = *b;
    int d, i, rc;
    if (!pos) return -1;
    for (d = 0; d < moved; d++) {
        const float *v = in[1] + (size_t)d * (size_t)b->n;
        float *pd = pos + (size_t)d * (size_t)b->n;
        for (i = 0; i < b->n; i++) pd[i] = b->p[d][i] + amount[i] * v[i];
        wb.p[d] = pd;
    }
    wb.pos_id = ng_new_pos_id(ctx);
    rc = ng_pull(ctx, n, 0, &wb, out);
    ng_scratch_free(ctx, pos, moved);
    return rc;
}

const ng_node_type ng_type_warp = {
    .name = "warp",
    .family = "warp",
    .doc = "Domain warp: source sampled at position + amount * by. `by` is a vector node "
           "(a noise with output = \"vector\"); warps chain.",
    .inputs = warp_inputs,
    .ninputs = 3,
    .dims = 0x1Eu,
    .setup = warp_setup,
    .eval = warp_eval,
};
