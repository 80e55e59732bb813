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

/* One octave: pos = from + w amount field on the moved axes (from: the
 * block's positions at octave 0, pos itself after). A constant amount
 * (every sample's the same float, so amount[0] w rounds as each a[i] w
 * would) moves every axis in one pass without reading its plane. */
static void warp_move(float *pos, const ng_block *b, int k, const float *amount, int constant, float w,
                      const float *field, int moved)
{
    const size_t n = (size_t)b->n;
    const float *from[3];
    int d;
    for (d = 0; d < moved; d++) from[d] = k == 0 ? b->p[d] : pos + d * n;
    if (constant && n > 0) {
        ng__loops()->axpy_const_to(pos, from, amount[0] * w, field, moved, b->n);
        return;
    }
    for (d = 0; d < moved; d++) ng__loops()->axpy_masked_to(pos + d * n, from[d], amount, w, field + d * n, b->n);
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
    const int constant = ng_input_constant(ctx, n, I_AMOUNT, NULL);
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
        warp_move(pos ? pos : field, b, k, amount, constant, w, field, moved);
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
 * output's. A 2D warp by a field of 2 or more channels (terrain) takes the
 * path's fused loops (loops.h warp_step2, warp_apply2); other dimensions
 * these steps, the same rounding. */
typedef struct warp_grad {
    float *J, *dF, *fgrad, *agrad, *sgrad; /* agrad NULL: a number (flat); dF only for the generic steps */
} warp_grad;

/* J += w (amount dF/dx + F grad amount) for the moved axes; dF/dx from the
 * field's gradient fgrad at its positions, scale times J (progressive) or
 * the identity (independent, and octave 0); pos += amount w F. */
static void jacobian_step(const warp_grad *W, float *pos, const float *amount, const float *field, float w,
                          float scale, int through_J, int moved, int dims, int len)
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
            const float *restrict f = field + (size_t)c * L;
            float *restrict J = W->J + ((size_t)c * (size_t)dims + (size_t)j) * L;
            if (W->agrad) {
                const float *restrict ga = W->agrad + (size_t)j * L;
                for (i = 0; i < len; i++) J[i] += w * (amount[i] * df[i] + f[i] * ga[i]);
            } else { /* f * 0 is +-0: J (never -0) comes out the same without it */
                for (i = 0; i < len; i++) J[i] += w * (amount[i] * df[i]);
            }
        }
    for (c = 0; c < moved; c++) ng__loops()->axpy_masked(pos + (size_t)c * L, amount, w, field + (size_t)c * L, len);
}

static void identity(float *J, int dims, int len)
{
    int d, k;
    for (d = 0; d < dims; d++)
        for (k = 0; k < dims; k++)
            ng__loops()->fill(J + ((size_t)d * (size_t)dims + (size_t)k) * (size_t)len, d == k ? 1.0f : 0.0f, len);
}

/* grad[ch][j] = sum_m sgrad[ch][m] J[m][j]; one: the 2D warp's only
 * octave, whose J the fused loop makes as it goes (W->J unwritten) */
static void apply_jacobian(const warp_grad *W, const ng_warp_octave2 *one, float *grad, int channels, int dims,
                           int len)
{
    int ch, j, m, i;
    if (dims == 2) {
        ng__loops()->warp_apply2(grad, W->sgrad, one ? NULL : W->J, one, channels, len);
        return;
    }
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

/* The amount's value, and its gradient unless it is a number: a number's
 * is the context's filled block (the constant node's float, without a
 * pull), or, past the blocks it keeps, filled into buf. */
static const float *amount_grad(ng_ctx *ctx, const ng_node *n, const ng_block *b, float *buf, warp_grad *W)
{
    const float *block;
    double v;
    if (ng_input_constant(ctx, n, I_AMOUNT, &v)) {
        if ((block = ng_input_constant_block(ctx, n, I_AMOUNT))) return block;
        ng__loops()->fill(buf, (float)v, b->n);
        return buf;
    }
    if (!(W->agrad = ng_scratch(ctx, b->dims))) return NULL;
    return ng_pull_grad(ctx, n, I_AMOUNT, b, buf, W->agrad, 0) ? NULL : buf;
}

/* warp_eval's steps (the same values, bit for bit) with the Jacobian beside;
 * the field's and the source's channels only as far as they are read. */
static int warp_eval_grad(ng_ctx *ctx, const ng_node *n, const ng_block *b, float *out, float *grad)
{
    const int progressive = ng_int(n, P_MODE) == 0, dims = b->dims, len = b->n, ch = b->channels;
    const int vec = ng_input_channels(ctx, n, I_BY), moved = dims < vec ? dims : vec;
    const int fused = dims == 2 && moved == 2, constant = ng_input_constant(ctx, n, I_AMOUNT, NULL);
    float *pos = ng_scratch(ctx, dims), *field = ng_scratch(ctx, vec), *abuf = ng_scratch(ctx, 1), *query = NULL;
    const float *amount = NULL;
    warp_grad W = {NULL, NULL, NULL, NULL, NULL};
    ng_warp_octave2 oct; /* the last octave, for a single-octave 2D warp's Jacobian */
    double scale = 1;
    ng_block wb = *b;
    ng_octaves o;
    int d, k, rc = -1;
    W.J = ng_scratch(ctx, dims * dims), W.fgrad = ng_scratch(ctx, vec * dims);
    W.sgrad = ng_scratch(ctx, n->channels * dims);
    ng__octaves_init(&o, ng_num(n, P_OCTAVES), ng_num(n, P_LACUNARITY), ng_num(n, P_ROUGHNESS));
    if (!pos || !field || !abuf || !W.J || !W.fgrad || !W.sgrad) goto done;
    if (!fused && !(W.dF = ng_scratch(ctx, moved * dims))) goto done;
    if (o.count > 1 && !(query = ng_scratch(ctx, dims))) goto done;
    if (!(amount = amount_grad(ctx, n, b, abuf, &W))) goto done;
    /* a single-octave 2D warp moves the block's positions straight into pos */
    if (!fused || o.count > 1)
        for (d = 0; d < dims; d++) memcpy(pos + (size_t)d * len, b->p[d], (size_t)len * sizeof(float));
    if (!fused) identity(W.J, dims, len);
    for (k = 0; k < o.count; k++, scale *= o.lacunarity) {
        const float w = (float)ng__octave_weight(&o, k);
        const int through_J = progressive && k > 0;
        ng_block fb;
        if (k == 0) fb = *b;
        else ng__octave_block(ctx, b, k, scale, progressive ? pos : NULL, query, &fb);
        if (ng_pull_grad_channels(ctx, n, I_BY, &fb, field, W.fgrad, 0, moved)) goto done;
        if (fused) {
            const ng_warp_octave2 step = {amount, field, W.fgrad, W.agrad, w, (float)scale, through_J, k == 0};
            oct = step;
            if (o.count > 1) {
                ng__loops()->warp_step2(W.J, pos, &oct, len);
                continue;
            }
            warp_move(pos, b, 0, amount, constant, w, field, 2);
        } else {
            jacobian_step(&W, pos, amount, field, w, (float)scale, through_J, moved, dims, len);
        }
    }
    for (d = 0; d < dims; d++) wb.p[d] = pos + (size_t)d * len;
    wb.pos_id = ng_new_pos_id(ctx);
    if (ng_pull_grad_channels(ctx, n, I_SOURCE, &wb, out, W.sgrad, 0, ch)) goto done;
    apply_jacobian(&W, fused && o.count == 1 ? &oct : NULL, grad, ch, dims, len);
    rc = 0;
done:
    ng_scratch_free(ctx, pos, dims);
    ng_scratch_free(ctx, query, dims);
    ng_scratch_free(ctx, field, vec);
    ng_scratch_free(ctx, abuf, 1);
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
    .dims = NG_DIMS_ALL,
    .positional = "source,by,amount",
    .setup = warp_setup,
    .eval_grad = warp_eval_grad,
    .eval = warp_eval,
};
