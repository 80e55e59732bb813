/*
 * math.c — constants and arithmetic on node outputs. Binary operations work
 * per channel; a one-channel operand is broadcast over a vector, so
 * `v * 0.5` scales a vector field.
 */
#include "ng_node.h"
#include "loops.h"
#include "types.h"

#include <math.h>

#define ALL_DIMS 0x1Eu /* 1D to 4D */
#define ANY_CH 1, NG_MAX_CHANNELS

/* Output channels: the widest input; others must match it or be scalar. */
static int broadcast_setup(ng_node *n, const int *ch, ng_error *err)
{
    int k, c = 1;
    for (k = 0; k < n->type->ninputs; k++)
        if (ch[k] > c) c = ch[k];
    for (k = 0; k < n->type->ninputs; k++)
        if (ch[k] != 1 && ch[k] != c && ch[k] != 0)
            return ng_errorf(err, "%s: input '%s' has %d channels but another has %d; they must match or be 1",
                             n->label, n->type->inputs[k].name, ch[k], c);
    n->channels = c;
    return 0;
}

/* The channel-c plane of input k (scalars repeat their only plane). */
static const float *plane(const ng_ctx *ctx, const ng_node *n, const float *const *in, int k, int c, int len)
{
    return ng_input_channels(ctx, n, k) == 1 ? in[k] : in[k] + (size_t)c * (size_t)len;
}

/* ---- binary operators ------------------------------------------------------ */

static const ng_input_desc ab_inputs[] = {
    {"a", NG_INPUT_HYBRID, ANY_CH, 0, "first operand"},
    {"b", NG_INPUT_HYBRID, ANY_CH, 0, "second operand"},
};

/* One loop per operator so each vectorises; the switch stays outside. */
#define BINARY_EVAL(fname, expr)                                                                 \
    static int fname(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,  \
                     float *out)                                                                 \
    {                                                                                            \
        int c, i, len = b->n;                                                                    \
        for (c = 0; c < n->channels; c++) {                                                      \
            const float *x = plane(ctx, n, in, 0, c, len), *y = plane(ctx, n, in, 1, c, len);    \
            float *o = out + (size_t)c * (size_t)len;                                            \
            for (i = 0; i < len; i++) o[i] = (expr);                                             \
        }                                                                                        \
        return 0;                                                                                \
    }

/* The common operators run through the SIMD path's loops (loops.h). */
#define BINARY_LOOP(fname, op)                                                                   \
    static int fname(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,  \
                     float *out)                                                                 \
    {                                                                                            \
        const ng_loop2 loop = ng__loops()->op;                                                   \
        int c, len = b->n;                                                                       \
        for (c = 0; c < n->channels; c++)                                                        \
            loop(out + (size_t)c * (size_t)len, plane(ctx, n, in, 0, c, len), plane(ctx, n, in, 1, c, len), len); \
        return 0;                                                                                \
    }

BINARY_LOOP(add_eval, add)
BINARY_LOOP(sub_eval, sub)
BINARY_LOOP(mul_eval, mul)
BINARY_LOOP(div_eval, div)
BINARY_EVAL(pow_eval, powf(x[i], y[i]))
BINARY_LOOP(min_eval, min)
BINARY_LOOP(max_eval, max)

#define BINARY_TYPE(var, nm, opname, meth, docs, fn)                                       \
    const ng_node_type var = {                                                             \
        .name = nm, .family = "math", .doc = docs, .inputs = ab_inputs, .ninputs = 2,      \
        .dims = ALL_DIMS, .op = opname, .method = meth, .positional = "a,b",               \
        .setup = broadcast_setup, .eval = fn,                                              \
    };

BINARY_TYPE(ng_type_add, "add", "__add", NULL, "a + b", add_eval)
BINARY_TYPE(ng_type_sub, "sub", "__sub", NULL, "a - b", sub_eval)
BINARY_TYPE(ng_type_mul, "mul", "__mul", NULL, "a * b", mul_eval)
BINARY_TYPE(ng_type_div, "div", "__div", NULL, "a / b (IEEE: division by zero gives infinity, written as 1)", div_eval)
BINARY_TYPE(ng_type_pow, "pow", "__pow", "pow", "a ^ b (powf; a negative base with a fractional exponent gives NaN, written as 0)", pow_eval)
BINARY_TYPE(ng_type_min, "min", NULL, "min", "the smaller of a and b", min_eval)
BINARY_TYPE(ng_type_max, "max", NULL, "max", "the larger of a and b", max_eval)

/* ---- unary operators ---------------------------------------------------------- */

static const ng_input_desc source_input[] = {
    {"source", 0, ANY_CH, 0, "the node to transform"},
};

static int same_channels_setup(ng_node *n, const int *ch, ng_error *err)
{
    (void)err;
    n->channels = ch[0];
    return 0;
}

/* Through the SIMD path's loops (loops.h), over every channel at once. */
#define UNARY_LOOP(fname, op)                                                                    \
    static int fname(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,  \
                     float *out)                                                                 \
    {                                                                                            \
        (void)ctx;                                                                               \
        ng__loops()->op(out, in[0], b->n * n->channels);                                         \
        return 0;                                                                                \
    }

UNARY_LOOP(neg_eval, neg)
UNARY_LOOP(abs_eval, abs)

const ng_node_type ng_type_neg = {
    .name = "neg", .family = "math", .doc = "-source", .inputs = source_input, .ninputs = 1,
    .dims = ALL_DIMS, .op = "__unm", .positional = "source", .setup = same_channels_setup, .eval = neg_eval,
};

const ng_node_type ng_type_abs = {
    .name = "abs", .family = "math", .doc = "|source|: folds a signed noise into creases (billow-like)",
    .inputs = source_input, .ninputs = 1, .dims = ALL_DIMS, .method = "abs", .positional = "source",
    .setup = same_channels_setup, .eval = abs_eval,
};

/* ---- clamp ------------------------------------------------------------------------ */

static const ng_param_desc clamp_params[] = {
    {"lo", NG_PARAM_NUMBER, {0}, -1e30, 1e30, NULL, "lower bound"},
    {"hi", NG_PARAM_NUMBER, {1}, -1e30, 1e30, NULL, "upper bound"},
};

static int clamp_setup(ng_node *n, const int *ch, ng_error *err)
{
    if (ng_num(n, 0) > ng_num(n, 1))
        return ng_errorf(err, "%s: lo = %g is above hi = %g", n->label, ng_num(n, 0), ng_num(n, 1));
    n->k[0] = (float)ng_num(n, 0);
    n->k[1] = (float)ng_num(n, 1);
    return same_channels_setup(n, ch, err);
}

static int clamp_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    (void)ctx;
    ng__loops()->clamp(out, in[0], (float)n->k[0], (float)n->k[1], b->n * n->channels);
    return 0;
}

const ng_node_type ng_type_clamp = {
    .name = "clamp", .family = "math", .doc = "source limited to [lo, hi]", .params = clamp_params,
    .nparams = 2, .inputs = source_input, .ninputs = 1, .dims = ALL_DIMS, .method = "clamp",
    .positional = "source,lo,hi", .setup = clamp_setup, .eval = clamp_eval,
};

/* ---- fit ------------------------------------------------------------------------------ */

static const ng_param_desc fit_params[] = {
    {"from_lo", NG_PARAM_NUMBER, {-1}, -1e30, 1e30, NULL, "source value mapped to to_lo"},
    {"from_hi", NG_PARAM_NUMBER, {1}, -1e30, 1e30, NULL, "source value mapped to to_hi"},
    {"to_lo", NG_PARAM_NUMBER, {0}, -1e30, 1e30, NULL, "output at from_lo"},
    {"to_hi", NG_PARAM_NUMBER, {1}, -1e30, 1e30, NULL, "output at from_hi"},
    {"clamp", NG_PARAM_BOOL, {0}, 0, 1, NULL, "limit the output to [to_lo, to_hi]"},
};

static int fit_setup(ng_node *n, const int *ch, ng_error *err)
{
    double span = ng_num(n, 1) - ng_num(n, 0), lo = ng_num(n, 2), hi = ng_num(n, 3);
    if (span == 0)
        return ng_errorf(err, "%s: from_lo and from_hi are both %g; the mapping needs a span", n->label, ng_num(n, 0));
    /* out = x * scale + bias, computed in float the same way everywhere */
    n->k[0] = (float)((hi - lo) / span);
    n->k[1] = (float)(lo - ng_num(n, 0) * (hi - lo) / span);
    n->k[2] = (float)(lo < hi ? lo : hi);
    n->k[3] = (float)(lo < hi ? hi : lo);
    return same_channels_setup(n, ch, err);
}

static int fit_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    (void)ctx;
    ng__loops()->scale_bias(out, in[0], (float)n->k[0], (float)n->k[1], b->n * n->channels);
    return 0;
}

static int fit_clamp_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    fit_eval(ctx, n, b, in, out);
    ng__loops()->clamp(out, out, (float)n->k[2], (float)n->k[3], b->n * n->channels);
    return 0;
}

static int fit_any_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    return ng_int(n, 4) ? fit_clamp_eval(ctx, n, b, in, out) : fit_eval(ctx, n, b, in, out);
}

const ng_node_type ng_type_fit = {
    .name = "fit", .family = "math",
    .doc = "maps [from_lo, from_hi] linearly onto [to_lo, to_hi] (Houdini's fit; libnoise's ScaleBias)",
    .params = fit_params, .nparams = 5, .inputs = source_input, .ninputs = 1, .dims = ALL_DIMS,
    .method = "fit", .positional = "source,from_lo,from_hi,to_lo,to_hi,clamp", .setup = fit_setup,
    .eval = fit_any_eval,
};

/* ---- mix ----------------------------------------------------------------------------------- */

static const ng_input_desc mix_inputs[] = {
    {"a", NG_INPUT_HYBRID, ANY_CH, 0, "value where t = 0"},
    {"b", NG_INPUT_HYBRID, ANY_CH, 1, "value where t = 1"},
    {"t", NG_INPUT_HYBRID, ANY_CH, 0.5, "blend factor (not clamped)"},
};

static int mix_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const ng_loops *L = ng__loops();
    int c, len = b->n;
    for (c = 0; c < n->channels; c++)
        L->mix(out + (size_t)c * (size_t)len, plane(ctx, n, in, 0, c, len), plane(ctx, n, in, 1, c, len),
               plane(ctx, n, in, 2, c, len), len);
    return 0;
}

const ng_node_type ng_type_mix = {
    .name = "mix", .family = "math", .doc = "a + (b - a) * t: linear blend, t is a number or a mask node",
    .inputs = mix_inputs, .ninputs = 3, .dims = ALL_DIMS, .method = "mix", .positional = "a,b,t",
    .setup = broadcast_setup, .eval = mix_eval,
};

/* ---- shaping ------------------------------------------------------------------------------------ */

UNARY_LOOP(sqrt_eval, sqrt0)
UNARY_LOOP(invert_eval, invert)

const ng_node_type ng_type_sqrt = {
    .name = "sqrt", .family = "math", .doc = "square root; negative values give 0", .inputs = source_input,
    .ninputs = 1, .dims = ALL_DIMS, .method = "sqrt", .positional = "source", .setup = same_channels_setup,
    .eval = sqrt_eval,
};

const ng_node_type ng_type_invert = {
    .name = "invert", .family = "math", .doc = "1 - source: flips a [0, 1] mask or height", .inputs = source_input,
    .ninputs = 1, .dims = ALL_DIMS, .method = "invert", .positional = "source", .setup = same_channels_setup,
    .eval = invert_eval,
};

static const ng_param_desc step_params[] = {
    {"edge", NG_PARAM_NUMBER, {0}, -1e30, 1e30, NULL, "below it 0, from it on 1"},
};

static int step_setup(ng_node *n, const int *ch, ng_error *err)
{
    n->k[0] = (float)ng_num(n, 0);
    return same_channels_setup(n, ch, err);
}

static int step_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    (void)ctx;
    ng__loops()->step(out, in[0], (float)n->k[0], b->n * n->channels);
    return 0;
}

const ng_node_type ng_type_step = {
    .name = "step", .family = "math", .doc = "0 below edge, 1 from edge on (a hard mask)", .params = step_params,
    .nparams = 1, .inputs = source_input, .ninputs = 1, .dims = ALL_DIMS, .method = "step",
    .positional = "source,edge", .setup = step_setup, .eval = step_eval,
};

static const ng_param_desc smoothstep_params[] = {
    {"lo", NG_PARAM_NUMBER, {0}, -1e30, 1e30, NULL, "where the ramp starts (output 0)"},
    {"hi", NG_PARAM_NUMBER, {1}, -1e30, 1e30, NULL, "where the ramp ends (output 1)"},
};

static int smoothstep_setup(ng_node *n, const int *ch, ng_error *err)
{
    if (!(ng_num(n, 0) < ng_num(n, 1)))
        return ng_errorf(err, "%s: lo = %g must be below hi = %g", n->label, ng_num(n, 0), ng_num(n, 1));
    n->k[0] = (float)ng_num(n, 0);
    n->k[1] = (float)(1.0 / (ng_num(n, 1) - ng_num(n, 0)));
    return same_channels_setup(n, ch, err);
}

static int smoothstep_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    (void)ctx;
    ng__loops()->smoothstep(out, in[0], (float)n->k[0], (float)n->k[1], b->n * n->channels);
    return 0;
}

const ng_node_type ng_type_smoothstep = {
    .name = "smoothstep", .family = "math", .doc = "0 below lo, 1 above hi, a smooth cubic ramp between",
    .params = smoothstep_params, .nparams = 2, .inputs = source_input, .ninputs = 1, .dims = ALL_DIMS,
    .method = "smoothstep", .positional = "source,lo,hi", .setup = smoothstep_setup, .eval = smoothstep_eval,
};

/* ---- select ------------------------------------------------------------------------------------- */

static const ng_input_desc select_inputs[] = {
    {"a", NG_INPUT_HYBRID, ANY_CH, 0, "output where control is below the threshold"},
    {"b", NG_INPUT_HYBRID, ANY_CH, 1, "output where control is above the threshold"},
    {"control", NG_INPUT_HYBRID, 1, 1, 0, "the value compared with the threshold (a mask)"},
};

static const ng_param_desc select_params[] = {
    {"threshold", NG_PARAM_NUMBER, {0}, -1e30, 1e30, NULL, "control value where the output switches from a to b"},
    {"falloff", NG_PARAM_NUMBER, {0}, 0, 1e30, NULL,
     "half-width of the soft edge: a blends into b over threshold +- falloff (smoothstep)"},
};

static int select_setup(ng_node *n, const int *ch, ng_error *err)
{
    n->k[0] = (float)(ng_num(n, 0) - ng_num(n, 1));
    n->k[1] = ng_num(n, 1) > 0 ? (float)(1.0 / (2.0 * ng_num(n, 1))) : 0;
    return broadcast_setup(n, ch, err);
}

/* Soft edge: the smoothstep of the control (one channel) once, then a mix
 * per channel. */
static int select_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const float lo = (float)n->k[0], inv = (float)n->k[1], edge = (float)ng_num(n, 0);
    const ng_loops *L = ng__loops();
    float *s = NULL;
    int c, len = b->n;
    if (inv != 0.0f) {
        if (!(s = ng_scratch(ctx, 1))) return -1;
        L->smoothstep(s, in[2], lo, inv, len);
    }
    for (c = 0; c < n->channels; c++) {
        const float *x = plane(ctx, n, in, 0, c, len), *y = plane(ctx, n, in, 1, c, len);
        float *o = out + (size_t)c * (size_t)len;
        if (s) L->mix(o, x, y, s, len);
        else L->select(o, x, y, in[2], edge, len); /* hard edge */
    }
    ng_scratch_free(ctx, s, 1);
    return 0;
}

const ng_node_type ng_type_select = {
    .name = "select", .family = "math",
    .doc = "a where control < threshold, b above it, blended smoothly over threshold +- falloff (libnoise's Select)",
    .params = select_params, .nparams = 2, .inputs = select_inputs, .ninputs = 3, .dims = ALL_DIMS,
    .positional = "a,b,control,threshold,falloff", .setup = select_setup, .eval = select_eval,
};
