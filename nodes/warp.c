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

/* One octave: pos = from + w amount field on the moved axes, in one pass
 * (from: the block's positions at octave 0, pos itself after). */
static void warp_move(float *pos, const ng_block *b, int k, const float *amount, float w, const float *field,
                      int moved)
{
    const size_t n = (size_t)b->n;
    int d;
    for (d = 0; d < moved; d++)
        ng__loops()->axpy_masked_to(pos + d * n, k == 0 ? b->p[d] : pos + d * n, amount, w, field + d * n, b->n);
}

/* One octave (the common case) moves the field's own planes in place: no
 * position buffer, and the axes the field does not move keep the block's
 * positions, uncopied. More octaves keep every axis in pos for the next
 * octave's field positions. */
static int warp_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const int progressive = ng_int(n, P_MODE) == 0;
    const int vec = ng_input_channels(ctx, n, I_BY);
    const int moved = b->dims < vec ? b->dims : vec;
    const size_t len = (size_t)b->n;
    const float *amount = in[I_AMOUNT];
    float *field = ng_scratch(ctx, vec), *pos = NULL, *query = NULL;
    double scale = 1;
    ng_block wb = *b;
    ng_octaves o;
    int d, k, rc = -1;
    ng__octaves_init(&o, ng_num(n, P_OCTAVES), ng_num(n, P_LACUNARITY), ng_num(n, P_ROUGHNESS));
    if (!field) goto done;
    if (o.count > 1) {
        if (!(pos = ng_scratch(ctx, b->dims)) || !(query = ng_scratch(ctx, b->dims))) goto done;
        for (d = moved; d < b->dims; d++) memcpy(pos + d * len, b->p[d], len * sizeof(float));
    }
    for (k = 0; k < o.count; k++, scale *= o.lacunarity) {
        const float w = (float)ng__octave_weight(&o, k);
        ng_block fb;
        /* the field at lacunarity^k, sampled where this mode says */
        if (k == 0) fb = *b;
        else ng__octave_block(ctx, b, k, scale, progressive ? pos : NULL, query, &fb);
        if (ng_pull_channels(ctx, n, I_BY, &fb, field, moved)) goto done;
        warp_move(pos ? pos : field, b, k, amount, w, field, moved);
    }
    for (d = 0; d < moved; d++) wb.p[d] = (pos ? pos : field) + d * len;
    for (; d < b->dims; d++) wb.p[d] = pos ? pos + d * len : b->p[d];
    wb.pos_id = ng_new_pos_id(ctx);
    rc = ng_pull_channels(ctx, n, I_SOURCE, &wb, out, b->channels);
done:
    ng_scratch_free(ctx, pos, b->dims);
    ng_scratch_free(ctx, query, b->dims);
    ng_scratch_free(ctx, field, vec);
    return rc;
}

/* ---- gradient ------------------------------------------------------------------ */

/* The warped position is P(x) = x + sum_k w_k amount(x) F(Q_k(x)), Q_k the
 * octave's field positions (lacunarity^k times x, or times the positions
 * warped so far when progressive). Its Jacobian J (J[i][j] = dP_i/dx_j,
 * plane i * dims + j) grows by w_k (amount dF/dx + F grad(amount)) per
 * octave, dF/dx = JF(Q) dQ/dx; the source's gradient at P times J is the
 * output's. */
typedef struct warp_grad {
    float *J, *dF, *fgrad, *agrad, *sgrad;
} warp_grad;

/* J += w (amount dF/dx + F grad amount) for the moved axes; dF/dx from the
 * field's gradient fgrad at its positions, scale times J (progressive) or
 * the identity (independent, and octave 0). */
static void jacobian_step(const warp_grad *W, const float *amount, const float *field, float w, float scale,
                          int through_J, int moved, int dims, int len)
{
    const size_t L = (size_t)len;
    int c, j, m, i;
    for (c = 0; c < moved; c++)
        for (j = 0; j < dims; j++) {
            float *restrict df = W->dF + ((size_t)c * (size_t)dims + (size_t)j) * L;
            const float *restrict fg = W->fgrad + (size_t)c * (size_t)dims * L;
            if (!through_J) {
                for (i = 0; i < len; i++) df[i] = fg[(size_t)j * L + i] * scale;
                continue;
            }
            for (i = 0; i < len; i++) df[i] = 0.0f;
            for (m = 0; m < dims; m++) {
                const float *restrict q = W->J + ((size_t)m * (size_t)dims + (size_t)j) * L;
                const float *restrict f = fg + (size_t)m * L;
                for (i = 0; i < len; i++) df[i] += f[i] * scale * q[i];
            }
        }
    for (c = 0; c < moved; c++)
        for (j = 0; j < dims; j++) {
            const float *restrict df = W->dF + ((size_t)c * (size_t)dims + (size_t)j) * L;
            const float *restrict f = field + (size_t)c * L, *restrict ga = W->agrad + (size_t)j * L;
            float *restrict J = W->J + ((size_t)c * (size_t)dims + (size_t)j) * L;
            for (i = 0; i < len; i++) J[i] += w * (amount[i] * df[i] + f[i] * ga[i]);
        }
}

/* grad[ch][j] = sum_m sgrad[ch][m] J[m][j] */
static void apply_jacobian(const warp_grad *W, float *grad, int channels, int dims, int len)
{
    int ch, j, m, i;
    for (ch = 0; ch < channels; ch++)
        for (j = 0; j < dims; j++) {
            float *restrict g = grad + ((size_t)ch * (size_t)dims + (size_t)j) * (size_t)len;
            for (i = 0; i < len; i++) g[i] = 0.0f;
            for (m = 0; m < dims; m++) {
                const float *restrict sg = W->sgrad + ((size_t)ch * (size_t)dims + (size_t)m) * (size_t)len;
                const float *restrict q = W->J + ((size_t)m * (size_t)dims + (size_t)j) * (size_t)len;
                for (i = 0; i < len; i++) g[i] += sg[i] * q[i];
            }
        }
}

/* warp_eval's steps (the same values, bit for bit) with the Jacobian beside */
static int warp_eval_grad(ng_ctx *ctx, const ng_node *n, const ng_block *b, float *out, float *grad)
{
    const int progressive = ng_int(n, P_MODE) == 0, dims = b->dims, len = b->n;
    const int vec = ng_input_channels(ctx, n, I_BY), moved = dims < vec ? dims : vec;
    float *pos = ng_scratch(ctx, dims), *field = ng_scratch(ctx, vec), *amount = ng_scratch(ctx, 1), *query = NULL;
    warp_grad W;
    double scale = 1;
    ng_block wb = *b;
    ng_octaves o;
    int d, k, i, rc = -1;
    W.J = ng_scratch(ctx, dims * dims), W.dF = ng_scratch(ctx, moved * dims), W.fgrad = ng_scratch(ctx, vec * dims);
    W.agrad = ng_scratch(ctx, dims), W.sgrad = ng_scratch(ctx, n->channels * dims);
    ng__octaves_init(&o, ng_num(n, P_OCTAVES), ng_num(n, P_LACUNARITY), ng_num(n, P_ROUGHNESS));
    if (!pos || !field || !amount || !W.J || !W.dF || !W.fgrad || !W.agrad || !W.sgrad) goto done;
    if (o.count > 1 && !(query = ng_scratch(ctx, dims))) goto done;
    if (ng_pull_grad(ctx, n, I_AMOUNT, b, amount, W.agrad, 0)) goto done;
    for (d = 0; d < dims; d++) {
        memcpy(pos + (size_t)d * len, b->p[d], (size_t)len * sizeof(float));
        for (k = 0; k < dims; k++) { /* the identity */
            float *restrict J = W.J + ((size_t)d * (size_t)dims + (size_t)k) * (size_t)len;
            const float one = d == k ? 1.0f : 0.0f;
            for (i = 0; i < len; i++) J[i] = one;
        }
    }
    for (k = 0; k < o.count; k++, scale *= o.lacunarity) {
        const float w = (float)ng__octave_weight(&o, k);
        ng_block fb;
        if (k == 0) fb = *b;
        else ng__octave_block(ctx, b, k, scale, progressive ? pos : NULL, query, &fb);
        if (ng_pull_grad(ctx, n, I_BY, &fb, field, W.fgrad, 0)) goto done;
        jacobian_step(&W, amount, field, w, (float)scale, progressive && k > 0, moved, dims, len);
        for (d = 0; d < moved; d++)
            ng__loops()->axpy_masked(pos + (size_t)d * len, amount, w, field + (size_t)d * len, len);
    }
    for (d = 0; d < dims; d++) wb.p[d] = pos + (size_t)d * len;
    wb.pos_id = ng_new_pos_id(ctx);
    if (ng_pull_grad(ctx, n, I_SOURCE, &wb, out, W.sgrad, 0)) goto done;
    apply_jacobian(&W, grad, n->channels, dims, len);
    rc = 0;
done:
    ng_scratch_free(ctx, pos, dims);
    ng_scratch_free(ctx, query, dims);
    ng_scratch_free(ctx, field, vec);
    ng_scratch_free(ctx, amount, 1);
    ng_scratch_free(ctx, W.J, dims * dims);
    ng_scratch_free(ctx, W.dF, moved * dims);
    ng_scratch_free(ctx, W.fgrad, vec * dims);
    ng_scratch_free(ctx, W.agrad, dims);
    ng_scratch_free(ctx, W.sgrad, n->channels * dims);
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
    .eval_grad = warp_eval_grad,
    .eval = warp_eval,
};
