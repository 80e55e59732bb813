/*
 * math.c — constants and arithmetic on node outputs. Binary operations work
 * per channel; a one-channel operand is broadcast over a vector, so
 * `v * 0.5` scales a vector field.
 */
#include "ng_node.h"
#include "loops.h"
#include "types.h"
#include "ngmath.h"

#include <math.h>

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

/* Gradients (the chain hook, noisegraph.h): plane d of channel c of input
 * k's gradient (a scalar's repeats), and of the output. */
static const float *dplane(const ng_ctx *ctx, const ng_node *n, const float *const *din, int k, int c, int d,
                           int dims, int len)
{
    const int ch = ng_input_channels(ctx, n, k) == 1 ? 0 : c;
    return din[k] + ((size_t)ch * (size_t)dims + (size_t)d) * (size_t)len;
}

static float *gplane(float *grad, int c, int d, int dims, int len)
{
    return grad + ((size_t)c * (size_t)dims + (size_t)d) * (size_t)len;
}

static float sign1(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f; }

/* ---- binary operators ------------------------------------------------------ */

enum { I_A, I_B, AB_NINPUTS };

static const ng_input_desc ab_inputs[AB_NINPUTS] = {
    [I_A] = {"a", NG_INPUT_HYBRID, ANY_CH, 0, "first operand"},
    [I_B] = {"b", NG_INPUT_HYBRID, ANY_CH, 0, "second operand"},
};

/* One loop per operator so each vectorises; the switch stays outside. */
#define BINARY_EVAL(fname, expr)                                                                 \
    static int fname(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,  \
                     float *out)                                                                 \
    {                                                                                            \
        int c, i, len = b->n;                                                                    \
        for (c = 0; c < n->channels; c++) {                                                      \
            const float *x = plane(ctx, n, in, I_A, c, len), *y = plane(ctx, n, in, I_B, c, len); \
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
            loop(out + (size_t)c * (size_t)len, plane(ctx, n, in, I_A, c, len), plane(ctx, n, in, I_B, c, len), len); \
        return 0;                                                                                \
    }

BINARY_LOOP(add_eval, add)
BINARY_LOOP(sub_eval, sub)
BINARY_LOOP(mul_eval, mul)
BINARY_LOOP(div_eval, div)
BINARY_EVAL(pow_eval, ng_powf(x[i], y[i]))
BINARY_LOOP(min_eval, min)
BINARY_LOOP(max_eval, max)

/* The gradient of a binary operator per channel and axis: x, y the
 * operands, o the value, gx, gy the operands' derivatives. */
#define BINARY_CHAIN(fname, expr)                                                                            \
    static int fname(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,              \
                     const float *const *din, const float *out, float *grad)                                 \
    {                                                                                                        \
        const float k = n->type->nparams ? (float)ng_num(n, 0) : 0.0f;                                       \
        int c, d, i, len = b->n;                                                                             \
        (void)k;                                                                                             \
        for (c = 0; c < n->channels; c++)                                                                    \
            for (d = 0; d < b->dims; d++) {                                                                  \
                const float *x = plane(ctx, n, in, I_A, c, len), *y = plane(ctx, n, in, I_B, c, len);        \
                const float *gx = dplane(ctx, n, din, I_A, c, d, b->dims, len);                              \
                const float *gy = dplane(ctx, n, din, I_B, c, d, b->dims, len);                              \
                const float *o = out + (size_t)c * (size_t)len;                                              \
                float *g = gplane(grad, c, d, b->dims, len);                                                 \
                for (i = 0; i < len; i++) g[i] = (expr);                                                     \
                (void)x, (void)y, (void)o;                                                                   \
            }                                                                                                \
        return 0;                                                                                            \
    }

BINARY_CHAIN(add_chain, gx[i] + gy[i])
BINARY_CHAIN(sub_chain, gx[i] - gy[i])
BINARY_CHAIN(mul_chain, gx[i] * y[i] + x[i] * gy[i])
BINARY_CHAIN(div_chain, (gx[i] - o[i] * gy[i]) / y[i])
/* d(x^y) = y x^(y-1) dx + x^y ln(x) dy, the second only where x > 0 (a
 * non-positive base has a value only for whole exponents, which do not vary) */
BINARY_CHAIN(pow_chain, y[i] * ng_powf(x[i], y[i] - 1.0f) * gx[i] + (x[i] > 0.0f ? o[i] * ng_logf(x[i]) * gy[i] : 0.0f))
BINARY_CHAIN(min_chain, x[i] < y[i] ? gx[i] : gy[i])
BINARY_CHAIN(max_chain, x[i] > y[i] ? gx[i] : gy[i])

#define BINARY_TYPE(var, nm, opname, meth, docs, fn, ch)                                   \
    const ng_node_type var = {                                                             \
        .name = nm, .family = "math", .doc = docs, .inputs = ab_inputs, .ninputs = AB_NINPUTS, \
        .dims = NG_DIMS_ALL, .op = opname, .method = meth, .positional = "a,b",               \
        .setup = broadcast_setup, .eval = fn, .chain = ch,                                 \
    };

BINARY_TYPE(ng_type_add, "add", "__add", NULL, "a + b", add_eval, add_chain)
BINARY_TYPE(ng_type_sub, "sub", "__sub", NULL, "a - b", sub_eval, sub_chain)
BINARY_TYPE(ng_type_mul, "mul", "__mul", NULL, "a * b", mul_eval, mul_chain)
BINARY_TYPE(ng_type_div, "div", "__div", NULL, "a / b (IEEE: division by zero gives infinity, written as 1)", div_eval,
            div_chain)
BINARY_TYPE(ng_type_pow, "pow", "__pow", "pow", "a ^ b (powf; a negative base with a fractional exponent gives NaN, written as 0)", pow_eval,
            pow_chain)
BINARY_TYPE(ng_type_min, "min", NULL, "min", "the smaller of a and b", min_eval, min_chain)
BINARY_TYPE(ng_type_max, "max", NULL, "max", "the larger of a and b", max_eval, max_chain)

/* ---- unary operators ---------------------------------------------------------- */

enum { I_SOURCE, SOURCE_NINPUTS };

static const ng_input_desc source_input[SOURCE_NINPUTS] = {
    [I_SOURCE] = {"source", 0, ANY_CH, 0, "the node to transform"},
};

static int same_channels_setup(ng_node *n, const int *ch, ng_error *err)
{
    (void)err;
    n->channels = ch[I_SOURCE];
    return 0;
}

/* Through the SIMD path's loops (loops.h), over every channel at once. */
#define UNARY_LOOP(fname, op)                                                                    \
    static int fname(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,  \
                     float *out)                                                                 \
    {                                                                                            \
        (void)ctx;                                                                               \
        ng__loops()->op(out, in[I_SOURCE], b->n * n->channels);                                  \
        return 0;                                                                                \
    }

UNARY_LOOP(neg_eval, neg)
UNARY_LOOP(abs_eval, abs)

/* The gradient of an element-wise function: `pre` sets per-node constants,
 * then per sample of channel c x is the source, o the value, g the
 * source's derivative along the axis. */
#define UNARY_CHAIN(fname, pre, expr)                                                                        \
    static int fname(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,              \
                     const float *const *din, const float *out, float *grad)                                 \
    {                                                                                                        \
        int c, d, i, len = b->n;                                                                             \
        pre;                                                                                                 \
        (void)ctx;                                                                                           \
        for (c = 0; c < n->channels; c++)                                                                    \
            for (d = 0; d < b->dims; d++) {                                                                  \
                const float *x = in[I_SOURCE] + (size_t)c * (size_t)len, *o = out + (size_t)c * (size_t)len; \
                const float *g = din[I_SOURCE] + ((size_t)c * (size_t)b->dims + (size_t)d) * (size_t)len;     \
                float *r = gplane(grad, c, d, b->dims, len);                                                 \
                for (i = 0; i < len; i++) r[i] = (expr);                                                     \
                (void)x, (void)o;                                                                            \
            }                                                                                                \
        return 0;                                                                                            \
    }

UNARY_CHAIN(neg_chain, (void)n, -g[i])
UNARY_CHAIN(abs_chain, (void)n, sign1(x[i]) * g[i])

const ng_node_type ng_type_neg = {
    .name = "neg", .family = "math", .doc = "-source", .inputs = source_input, .ninputs = SOURCE_NINPUTS,
    .dims = NG_DIMS_ALL, .op = "__unm", .positional = "source", .setup = same_channels_setup, .eval = neg_eval,
    .chain = neg_chain,
};

const ng_node_type ng_type_abs = {
    .name = "abs", .family = "math", .doc = "|source|: folds a signed noise into creases (billow-like)",
    .inputs = source_input, .ninputs = SOURCE_NINPUTS, .dims = NG_DIMS_ALL, .method = "abs", .positional = "source",
    .setup = same_channels_setup, .eval = abs_eval, .chain = abs_chain,
};

/* ---- clamp ------------------------------------------------------------------------ */

enum { P_CLAMP_LO, P_CLAMP_HI, CLAMP_NPARAMS };

static const ng_param_desc clamp_params[CLAMP_NPARAMS] = {
    [P_CLAMP_LO] = {"lo", NG_PARAM_NUMBER, {0}, -1e30, 1e30, NULL, "lower bound"},
    [P_CLAMP_HI] = {"hi", NG_PARAM_NUMBER, {1}, -1e30, 1e30, NULL, "upper bound"},
};

static int clamp_setup(ng_node *n, const int *ch, ng_error *err)
{
    const double lo = ng_num(n, P_CLAMP_LO), hi = ng_num(n, P_CLAMP_HI);
    if (lo > hi) return ng_errorf(err, "%s: lo = %g is above hi = %g", n->label, lo, hi);
    return same_channels_setup(n, ch, err);
}

static int clamp_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    (void)ctx;
    ng__loops()->clamp(out, in[I_SOURCE], (float)ng_num(n, P_CLAMP_LO), (float)ng_num(n, P_CLAMP_HI),
                       b->n * n->channels);
    return 0;
}

/* inside [lo, hi] the slope passes; clamped samples are flat */
UNARY_CHAIN(clamp_chain, const float lo = (float)ng_num(n, P_CLAMP_LO); const float hi = (float)ng_num(n, P_CLAMP_HI),
            x[i] < lo || x[i] > hi ? 0.0f : g[i])

const ng_node_type ng_type_clamp = {
    .name = "clamp", .family = "math", .doc = "source limited to [lo, hi]", .params = clamp_params,
    .nparams = CLAMP_NPARAMS, .inputs = source_input, .ninputs = SOURCE_NINPUTS, .dims = NG_DIMS_ALL,
    .method = "clamp", .positional = "source,lo,hi", .setup = clamp_setup, .eval = clamp_eval, .chain = clamp_chain,
};

/* ---- fit ------------------------------------------------------------------------------ */

enum { P_FIT_FROM_LO, P_FIT_FROM_HI, P_FIT_TO_LO, P_FIT_TO_HI, P_FIT_CLAMP, FIT_NPARAMS };

static const ng_param_desc fit_params[FIT_NPARAMS] = {
    [P_FIT_FROM_LO] = {"from_lo", NG_PARAM_NUMBER, {-1}, -1e30, 1e30, NULL, "source value mapped to to_lo"},
    [P_FIT_FROM_HI] = {"from_hi", NG_PARAM_NUMBER, {1}, -1e30, 1e30, NULL, "source value mapped to to_hi"},
    [P_FIT_TO_LO] = {"to_lo", NG_PARAM_NUMBER, {0}, -1e30, 1e30, NULL, "output at from_lo"},
    [P_FIT_TO_HI] = {"to_hi", NG_PARAM_NUMBER, {1}, -1e30, 1e30, NULL, "output at from_hi"},
    [P_FIT_CLAMP] = {"clamp", NG_PARAM_BOOL, {0}, 0, 1, NULL, "limit the output to [to_lo, to_hi]"},
};

/* out = x * scale + bias, computed in float the same way everywhere, then
 * (with clamp) limited to [lo, hi], the output bounds in increasing order */
typedef struct fit_state {
    float scale, bias, lo, hi;
} fit_state;

static int fit_setup(ng_node *n, const int *ch, ng_error *err)
{
    const double from_lo = ng_num(n, P_FIT_FROM_LO), span = ng_num(n, P_FIT_FROM_HI) - from_lo;
    const double lo = ng_num(n, P_FIT_TO_LO), hi = ng_num(n, P_FIT_TO_HI);
    fit_state *s;
    if (span == 0)
        return ng_errorf(err, "%s: from_lo and from_hi are both %g; the mapping needs a span", n->label, from_lo);
    if (!(s = ng_node_state_alloc(n, sizeof *s, err))) return -1;
    s->scale = (float)((hi - lo) / span);
    s->bias = (float)(lo - from_lo * (hi - lo) / span);
    s->lo = (float)(lo < hi ? lo : hi);
    s->hi = (float)(lo < hi ? hi : lo);
    return same_channels_setup(n, ch, err);
}

static int fit_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const fit_state *s = n->state;
    const int len = b->n * n->channels;
    (void)ctx;
    ng__loops()->scale_bias(out, in[I_SOURCE], s->scale, s->bias, len);
    if (ng_int(n, P_FIT_CLAMP)) ng__loops()->clamp(out, out, s->lo, s->hi, len);
    return 0;
}

/* the slope times scale, 0 where clamp limited the line x * scale + bias */
static int fit_chain(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,
                     const float *const *din, const float *out, float *grad)
{
    const fit_state *s = n->state;
    const ng_loops *L = ng__loops();
    const size_t len = (size_t)b->n;
    int c, d;
    (void)ctx, (void)out;
    for (c = 0; c < n->channels; c++)
        for (d = 0; d < b->dims; d++) {
            const float *g = din[I_SOURCE] + ((size_t)c * (size_t)b->dims + (size_t)d) * len;
            float *r = gplane(grad, c, d, b->dims, b->n);
            if (ng_int(n, P_FIT_CLAMP))
                L->fit_slope(r, in[I_SOURCE] + (size_t)c * len, g, s->scale, s->bias, s->lo, s->hi, b->n);
            else
                L->scale(r, g, s->scale, b->n);
        }
    return 0;
}

/* the names other tools give it (VEX and Nuke: remap; Photoshop: levels) */
static const ng_shorthand fit_aliases[] = {{"remap", NULL, NULL}, {"levels", NULL, NULL}};

const ng_node_type ng_type_fit = {
    .name = "fit", .family = "math",
    .doc = "maps [from_lo, from_hi] linearly onto [to_lo, to_hi] (Houdini's fit; libnoise's ScaleBias)",
    .params = fit_params, .nparams = FIT_NPARAMS, .inputs = source_input, .ninputs = SOURCE_NINPUTS,
    .dims = NG_DIMS_ALL, .method = "fit", .positional = "source,from_lo,from_hi,to_lo,to_hi,clamp",
    .shorthands = fit_aliases, .nshorthands = (int)(sizeof fit_aliases / sizeof fit_aliases[0]),
    .setup = fit_setup, .eval = fit_eval, .chain = fit_chain,
};

/* ---- mix ----------------------------------------------------------------------------------- */

enum { I_MIX_A, I_MIX_B, I_MIX_T, MIX_NINPUTS };

static const ng_input_desc mix_inputs[MIX_NINPUTS] = {
    [I_MIX_A] = {"a", NG_INPUT_HYBRID, ANY_CH, 0, "value where t = 0"},
    [I_MIX_B] = {"b", NG_INPUT_HYBRID, ANY_CH, 1, "value where t = 1"},
    [I_MIX_T] = {"t", NG_INPUT_HYBRID, ANY_CH, 0.5, "blend factor (not clamped)"},
};

static int mix_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const ng_loops *L = ng__loops();
    int c, len = b->n;
    for (c = 0; c < n->channels; c++)
        L->mix(out + (size_t)c * (size_t)len, plane(ctx, n, in, I_MIX_A, c, len), plane(ctx, n, in, I_MIX_B, c, len),
               plane(ctx, n, in, I_MIX_T, c, len), len);
    return 0;
}

static int mix_chain(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, const float *const *din,
                     const float *out, float *grad)
{
    int c, d, i, len = b->n;
    (void)out;
    for (c = 0; c < n->channels; c++)
        for (d = 0; d < b->dims; d++) {
            const float *x = plane(ctx, n, in, I_MIX_A, c, len), *y = plane(ctx, n, in, I_MIX_B, c, len);
            const float *t = plane(ctx, n, in, I_MIX_T, c, len);
            const float *gx = dplane(ctx, n, din, I_MIX_A, c, d, b->dims, len);
            const float *gy = dplane(ctx, n, din, I_MIX_B, c, d, b->dims, len);
            const float *gt = dplane(ctx, n, din, I_MIX_T, c, d, b->dims, len);
            float *g = gplane(grad, c, d, b->dims, len);
            for (i = 0; i < len; i++) g[i] = gx[i] + (gy[i] - gx[i]) * t[i] + (y[i] - x[i]) * gt[i];
        }
    return 0;
}

/* the names other tools give it (HLSL and Unity: lerp; Houdini: blend) */
static const ng_shorthand mix_aliases[] = {{"lerp", NULL, NULL}, {"blend", NULL, NULL}};

const ng_node_type ng_type_mix = {
    .name = "mix", .family = "math", .doc = "a + (b - a) * t: linear blend, t is a number or a mask node",
    .inputs = mix_inputs, .ninputs = MIX_NINPUTS, .dims = NG_DIMS_ALL, .method = "mix", .positional = "a,b,t",
    .shorthands = mix_aliases, .nshorthands = (int)(sizeof mix_aliases / sizeof mix_aliases[0]),
    .setup = broadcast_setup, .eval = mix_eval, .chain = mix_chain,
};

/* ---- shaping ------------------------------------------------------------------------------------ */

UNARY_LOOP(sqrt_eval, sqrt0)
UNARY_LOOP(invert_eval, invert)
UNARY_CHAIN(sqrt_chain, (void)n, o[i] > 0.0f ? g[i] * 0.5f / o[i] : 0.0f)
UNARY_CHAIN(invert_chain, (void)n, -g[i])
UNARY_CHAIN(flat_chain, (void)n, ((void)g[i], 0.0f))

const ng_node_type ng_type_sqrt = {
    .name = "sqrt", .family = "math", .doc = "square root; negative values give 0", .inputs = source_input,
    .ninputs = SOURCE_NINPUTS, .dims = NG_DIMS_ALL, .method = "sqrt", .positional = "source", .setup = same_channels_setup,
    .eval = sqrt_eval, .chain = sqrt_chain,
};

const ng_node_type ng_type_invert = {
    .name = "invert", .family = "math", .doc = "1 - source: flips a [0, 1] mask or height", .inputs = source_input,
    .ninputs = SOURCE_NINPUTS, .dims = NG_DIMS_ALL, .method = "invert", .positional = "source", .setup = same_channels_setup,
    .eval = invert_eval, .chain = invert_chain,
};

enum { P_STEP_EDGE, STEP_NPARAMS };

static const ng_param_desc step_params[STEP_NPARAMS] = {
    [P_STEP_EDGE] = {"edge", NG_PARAM_NUMBER, {0}, -1e30, 1e30, NULL, "below it 0, from it on 1"},
};

static int step_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    (void)ctx;
    ng__loops()->step(out, in[I_SOURCE], (float)ng_num(n, P_STEP_EDGE), b->n * n->channels);
    return 0;
}

const ng_node_type ng_type_step = {
    .name = "step", .family = "math", .doc = "0 below edge, 1 from edge on (a hard mask)", .params = step_params,
    .nparams = STEP_NPARAMS, .inputs = source_input, .ninputs = SOURCE_NINPUTS, .dims = NG_DIMS_ALL,
    .method = "step", .positional = "source,edge", .setup = same_channels_setup, .eval = step_eval,
    .chain = flat_chain,
};

enum { P_SMOOTH_LO, P_SMOOTH_HI, SMOOTH_NPARAMS };

static const ng_param_desc smoothstep_params[SMOOTH_NPARAMS] = {
    [P_SMOOTH_LO] = {"lo", NG_PARAM_NUMBER, {0}, -1e30, 1e30, NULL, "where the ramp starts (output 0)"},
    [P_SMOOTH_HI] = {"hi", NG_PARAM_NUMBER, {1}, -1e30, 1e30, NULL, "where the ramp ends (output 1)"},
};

/* the ramp's start and the inverse of its width, as the loop takes them */
typedef struct ramp_state {
    float lo, inv;
} ramp_state;

static int smoothstep_setup(ng_node *n, const int *ch, ng_error *err)
{
    const double lo = ng_num(n, P_SMOOTH_LO), hi = ng_num(n, P_SMOOTH_HI);
    ramp_state *s;
    /* lo above hi is the ramp reversed (1 down to 0), as GLSL and VEX take it */
    if (lo == hi) return ng_errorf(err, "%s: lo = %g and hi = %g are equal: no ramp", n->label, lo, hi);
    if (!(s = ng_node_state_alloc(n, sizeof *s, err))) return -1;
    s->lo = (float)lo;
    s->inv = (float)(1.0 / (hi - lo));
    return same_channels_setup(n, ch, err);
}

static int smoothstep_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const ramp_state *s = n->state;
    (void)ctx;
    ng__loops()->smoothstep(out, in[I_SOURCE], s->lo, s->inv, b->n * n->channels);
    return 0;
}

/* d/dx t^2 (3 - 2t) = 6 t (1 - t) inv inside the ramp, 0 where t is clamped */
static float ramp_slope(float x, float lo, float inv)
{
    const float t = (x - lo) * inv;
    return t < 0.0f || t > 1.0f ? 0.0f : 6.0f * t * (1.0f - t) * inv;
}

UNARY_CHAIN(smoothstep_chain, const ramp_state *s = n->state, ramp_slope(x[i], s->lo, s->inv) * g[i])

const ng_node_type ng_type_smoothstep = {
    .name = "smoothstep", .family = "math",
    .doc = "0 at lo, 1 at hi, a smooth cubic ramp between, flat beyond; lo above hi ramps down (as in GLSL)",
    .params = smoothstep_params, .nparams = SMOOTH_NPARAMS, .inputs = source_input, .ninputs = SOURCE_NINPUTS,
    .dims = NG_DIMS_ALL, .method = "smoothstep", .positional = "source,lo,hi", .setup = smoothstep_setup,
    .eval = smoothstep_eval, .chain = smoothstep_chain,
};

/* ---- select ------------------------------------------------------------------------------------- */

enum { I_SEL_A, I_SEL_B, I_SEL_CONTROL, SEL_NINPUTS };

static const ng_input_desc select_inputs[SEL_NINPUTS] = {
    [I_SEL_A] = {"a", NG_INPUT_HYBRID, ANY_CH, 0, "output where control is below the threshold"},
    [I_SEL_B] = {"b", NG_INPUT_HYBRID, ANY_CH, 1, "output where control is above the threshold"},
    [I_SEL_CONTROL] = {"control", NG_INPUT_HYBRID, 1, 1, 0, "the value compared with the threshold (a mask)"},
};

enum { P_SEL_THRESHOLD, P_SEL_FALLOFF, SEL_NPARAMS };

static const ng_param_desc select_params[SEL_NPARAMS] = {
    [P_SEL_THRESHOLD] = {"threshold", NG_PARAM_NUMBER, {0}, -1e30, 1e30, NULL,
                         "control value where the output switches from a to b"},
    [P_SEL_FALLOFF] = {"falloff", NG_PARAM_NUMBER, {0}, 0, 1e30, NULL,
                       "half-width of the soft edge: a blends into b over threshold +- falloff (smoothstep)"},
};

/* The soft edge as a smoothstep ramp from threshold - falloff over twice
 * the falloff; inv = 0: a hard edge. */
static int select_setup(ng_node *n, const int *ch, ng_error *err)
{
    const double threshold = ng_num(n, P_SEL_THRESHOLD), falloff = ng_num(n, P_SEL_FALLOFF);
    ramp_state *s;
    if (!(s = ng_node_state_alloc(n, sizeof *s, err))) return -1;
    s->lo = (float)(threshold - falloff);
    s->inv = falloff > 0 ? (float)(1.0 / (2.0 * falloff)) : 0;
    return broadcast_setup(n, ch, err);
}

/* Soft edge: the smoothstep of the control (one channel) once, then a mix
 * per channel. */
static int select_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const ramp_state *r = n->state;
    const float edge = (float)ng_num(n, P_SEL_THRESHOLD);
    const ng_loops *L = ng__loops();
    float *s = NULL;
    int c, len = b->n;
    if (r->inv != 0.0f) {
        if (!(s = ng_scratch(ctx, 1))) return -1;
        L->smoothstep(s, in[I_SEL_CONTROL], r->lo, r->inv, len);
    }
    for (c = 0; c < n->channels; c++) {
        const float *x = plane(ctx, n, in, I_SEL_A, c, len), *y = plane(ctx, n, in, I_SEL_B, c, len);
        float *o = out + (size_t)c * (size_t)len;
        if (s) L->mix(o, x, y, s, len);
        else L->select(o, x, y, in[I_SEL_CONTROL], edge, len); /* hard edge */
    }
    ng_scratch_free(ctx, s, 1);
    return 0;
}

/* Soft edge: the mix's gradient with t = the ramp of the control; hard
 * edge: the side taken. */
static int select_chain(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,
                        const float *const *din, const float *out, float *grad)
{
    const ramp_state *r = n->state;
    const float edge = (float)ng_num(n, P_SEL_THRESHOLD), *t = in[I_SEL_CONTROL];
    int c, d, i, len = b->n;
    (void)out;
    for (c = 0; c < n->channels; c++)
        for (d = 0; d < b->dims; d++) {
            const float *x = plane(ctx, n, in, I_SEL_A, c, len), *y = plane(ctx, n, in, I_SEL_B, c, len);
            const float *gx = dplane(ctx, n, din, I_SEL_A, c, d, b->dims, len);
            const float *gy = dplane(ctx, n, din, I_SEL_B, c, d, b->dims, len);
            const float *gt = dplane(ctx, n, din, I_SEL_CONTROL, 0, d, b->dims, len);
            float *g = gplane(grad, c, d, b->dims, len);
            for (i = 0; i < len; i++) {
                if (r->inv == 0.0f) {
                    g[i] = t[i] < edge ? gx[i] : gy[i];
                } else {
                    float s = (t[i] - r->lo) * r->inv;
                    s = s < 0.0f ? 0.0f : s > 1.0f ? 1.0f : s;
                    s = s * s * (3.0f - 2.0f * s);
                    g[i] = gx[i] + (gy[i] - gx[i]) * s + (y[i] - x[i]) * ramp_slope(t[i], r->lo, r->inv) * gt[i];
                }
            }
        }
    return 0;
}

const ng_node_type ng_type_select = {
    .name = "select", .family = "math",
    .doc = "a where control < threshold, b above it, blended smoothly over threshold +- falloff (libnoise's Select)",
    .params = select_params, .nparams = SEL_NPARAMS, .inputs = select_inputs, .ninputs = SEL_NINPUTS,
    .dims = NG_DIMS_ALL, .positional = "a,b,control,threshold,falloff", .setup = select_setup, .eval = select_eval,
    .chain = select_chain,
};

/* ---- periodic and rounding ------------------------------------------------------------------------ */

/* Plain loops over every channel: no SIMD path has these, and libm's
 * scalar functions give the same bits on every path. */
#define UNARY_EVAL(fname, fn)                                                                    \
    static int fname(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,  \
                     float *out)                                                                 \
    {                                                                                            \
        const float *x = in[I_SOURCE];                                                           \
        int i, len = b->n * n->channels;                                                         \
        (void)ctx;                                                                               \
        for (i = 0; i < len; i++) out[i] = fn(x[i]);                                             \
        return 0;                                                                                \
    }

/* x - floor(x) in [0, 1): just below a whole number it would round up to
 * 1, so it stops at the float just below 1. */
static float fract1(float x)
{
    const float r = x - floorf(x);
    return r < 1.0f ? r : 0x1.fffffep-1f;
}

/* a - b * floor(a / b), the sign of b (Lua's %, Houdini's mod): from the
 * exact fmodf, moved into b's sign; when that rounds onto b it stops at
 * the float just inside. b = 0 gives NaN. */
static float floored_mod(float a, float b)
{
    float r = fmodf(a, b);
    if (r != 0.0f && (r < 0.0f) != (b < 0.0f)) {
        r += b;
        if (r == b) r = nextafterf(b, 0.0f);
    }
    return r;
}

UNARY_EVAL(sin_eval, ng_sinf)
UNARY_EVAL(cos_eval, ng_cosf)
UNARY_EVAL(floor_eval, floorf)
UNARY_EVAL(fract_eval, fract1)
BINARY_EVAL(mod_eval, floored_mod(x[i], y[i]))

UNARY_CHAIN(sin_chain, (void)n, ng_cosf(x[i]) * g[i])
UNARY_CHAIN(cos_chain, (void)n, -ng_sinf(x[i]) * g[i])
UNARY_CHAIN(fract_chain, (void)n, g[i])
/* a - b q with q = floor(a / b), recovered from the value: da - q db */
BINARY_CHAIN(mod_chain, gx[i] - roundf((x[i] - o[i]) / y[i]) * gy[i])

#define UNARY_TYPE(var, nm, docs, fn, ch)                                                                    \
    const ng_node_type var = {                                                                               \
        .name = nm, .family = "math", .doc = docs, .inputs = source_input, .ninputs = SOURCE_NINPUTS,      \
        .dims = NG_DIMS_ALL, .method = nm, .positional = "source", .setup = same_channels_setup, .eval = fn, \
        .chain = ch,                                                                                         \
    };

UNARY_TYPE(ng_type_sin, "sin", "sine of source in radians (multiply first for a period: sin(x * 2 * pi / P))", sin_eval,
           sin_chain)
UNARY_TYPE(ng_type_cos, "cos", "cosine of source in radians", cos_eval, cos_chain)
UNARY_TYPE(ng_type_floor, "floor", "the largest whole number not above source (-0.5 gives -1)", floor_eval, flat_chain)
UNARY_TYPE(ng_type_fract, "fract",
           "source - floor(source), in [0, 1) (-0.25 gives 0.75): repeats bands, a sawtooth from a gradient",
           fract_eval, fract_chain)
BINARY_TYPE(ng_type_mod, "mod", "__mod", "mod",
            "a % b, floored as Lua's and Houdini's: a - b * floor(a / b), between 0 and b (-1 % 3 = 2); b = 0 "
            "gives NaN, written as 0",
            mod_eval, mod_chain)

/* ---- bias and gain ------------------------------------------------------------------------------------ */

enum { P_SHAPE, SHAPE_NPARAMS };

static const ng_param_desc bias_params[SHAPE_NPARAMS] = {
    [P_SHAPE] = {"bias", NG_PARAM_NUMBER, {0.5}, 0, 1, NULL,
                 "0.5 leaves source as it is; above pushes values up, below pulls them down"},
};
static const ng_param_desc gain_params[SHAPE_NPARAMS] = {
    [P_SHAPE] = {"gain", NG_PARAM_NUMBER, {0.5}, 0, 1, NULL,
                 "0.5 leaves source as it is; below adds contrast (an S-curve into 0 and 1), above takes it away "
                 "(values drawn towards 0.5)"},
};

/* Schlick's bias, as Houdini's Bias VOP: b / ((1/x - 2)(1 - b) + 1) for x
 * in (0, 1), 0 below and 1 above. Written as b x / ((1 - b) + (2b - 1) x),
 * the same value without 1/x; the denominator is positive there, and b =
 * 0.5 gives x exactly. */
typedef struct shape_k {
    float b, c, k; /* b, 1 - b, 2b - 1 */
} shape_k;

static shape_k shape_of(const ng_node *n)
{
    const double b = ng_num(n, P_SHAPE);
    shape_k s = {(float)b, (float)(1.0 - b), (float)(2.0 * b - 1.0)};
    return s;
}

static float bias1(float x, shape_k s)
{
    if (!(x > 0.0f)) return 0.0f; /* NaN too */
    if (x >= 1.0f) return 1.0f;
    return s.b * x / (s.c + s.k * x);
}

/* Houdini's Gain VOP: bias of each half, mirrored, so 0.5 stays 0.5. */
static float gain1(float x, shape_k s)
{
    return x < 0.5f ? 0.5f * bias1(2.0f * x, s) : 1.0f - 0.5f * bias1(2.0f * (1.0f - x), s);
}

#define SHAPE_EVAL(fname, fn)                                                                    \
    static int fname(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,  \
                     float *out)                                                                 \
    {                                                                                            \
        const shape_k s = shape_of(n);                                                           \
        const float *x = in[I_SOURCE];                                                           \
        int i, len = b->n * n->channels;                                                         \
        (void)ctx;                                                                               \
        for (i = 0; i < len; i++) out[i] = fn(x[i], s);                                          \
        return 0;                                                                                \
    }

SHAPE_EVAL(bias_eval, bias1)
SHAPE_EVAL(gain_eval, gain1)

/* d/dx b x / (c + k x) = b c / (c + k x)^2 inside (0, 1), flat outside */
static float bias_slope(float x, shape_k s)
{
    float q;
    if (!(x > 0.0f) || x >= 1.0f) return 0.0f;
    q = s.c + s.k * x;
    return s.b * s.c / (q * q);
}

/* each half is bias at twice the rate, halved: the slope is bias's */
static float gain_slope(float x, shape_k s)
{
    return x < 0.5f ? bias_slope(2.0f * x, s) : bias_slope(2.0f * (1.0f - x), s);
}

UNARY_CHAIN(bias_chain, const shape_k s = shape_of(n), bias_slope(x[i], s) * g[i])
UNARY_CHAIN(gain_chain, const shape_k s = shape_of(n), gain_slope(x[i], s) * g[i])

const ng_node_type ng_type_bias = {
    .name = "bias", .family = "math",
    .doc = "Houdini's bias (Schlick's): bends [0, 1] towards 0 or 1 keeping the ends; source is clamped to [0, 1]",
    .params = bias_params, .nparams = SHAPE_NPARAMS, .inputs = source_input, .ninputs = SOURCE_NINPUTS,
    .dims = NG_DIMS_ALL, .method = "bias", .positional = "source,bias", .setup = same_channels_setup, .eval = bias_eval,
    .chain = bias_chain,
};

const ng_node_type ng_type_gain = {
    .name = "gain", .family = "math",
    .doc = "Houdini's gain (Schlick's): an S-curve (or its inverse) through 0.5 keeping 0 and 1; source is "
           "clamped to [0, 1]",
    .params = gain_params, .nparams = SHAPE_NPARAMS, .inputs = source_input, .ninputs = SOURCE_NINPUTS,
    .dims = NG_DIMS_ALL, .method = "gain", .positional = "source,gain", .setup = same_channels_setup, .eval = gain_eval,
    .chain = gain_chain,
};

/* ---- smooth min and max --------------------------------------------------------------------------------- */

enum { P_SMOOTHNESS, SMIN_NPARAMS };

static const ng_param_desc smin_params[SMIN_NPARAMS] = {
    [P_SMOOTHNESS] = {"k", NG_PARAM_NUMBER, {0.1}, 0, 1e30, NULL,
                      "smoothness: where a and b are closer than k the corner is rounded, by at most k / 4; 0 "
                      "is the plain min or max"},
};

/* The polynomial smooth min: min(a, b) - max(k - |a - b|, 0)^2 / (4k), a
 * C1 blend that is min itself once |a - b| >= k and never above it.
 * sign = -1 gives the smooth max (the mirror image). The loops (value and
 * slope) are the SIMD path's (loops.c). */
#define SMOOTH_EVAL(fname, sign)                                                                  \
    static int fname(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,   \
                     float *out)                                                                  \
    {                                                                                             \
        const float k = (float)ng_num(n, P_SMOOTHNESS);                                           \
        int c, len = b->n;                                                                        \
        for (c = 0; c < n->channels; c++)                                                         \
            ng__loops()->smooth_min(out + (size_t)c * (size_t)len, plane(ctx, n, in, I_A, c, len), \
                                    plane(ctx, n, in, I_B, c, len), k, sign, len);                \
        return 0;                                                                                 \
    }

SMOOTH_EVAL(smin_eval, 1.0f)
SMOOTH_EVAL(smax_eval, -1.0f)

#define SMOOTH_CHAIN(fname, sign)                                                                            \
    static int fname(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in,              \
                     const float *const *din, const float *out, float *grad)                                 \
    {                                                                                                        \
        const float k = (float)ng_num(n, P_SMOOTHNESS);                                                      \
        int c, d, len = b->n;                                                                                \
        (void)out;                                                                                           \
        for (c = 0; c < n->channels; c++)                                                                    \
            for (d = 0; d < b->dims; d++)                                                                    \
                ng__loops()->smooth_slope(gplane(grad, c, d, b->dims, len), plane(ctx, n, in, I_A, c, len), \
                                          plane(ctx, n, in, I_B, c, len),                                    \
                                          dplane(ctx, n, din, I_A, c, d, b->dims, len),                      \
                                          dplane(ctx, n, din, I_B, c, d, b->dims, len), k, sign, len);       \
        return 0;                                                                                            \
    }

SMOOTH_CHAIN(smin_chain, 1.0f)
SMOOTH_CHAIN(smax_chain, -1.0f)

const ng_node_type ng_type_smin = {
    .name = "smin", .family = "math",
    .doc = "smooth minimum of a and b: min with its corner rounded over |a - b| < k (polynomial), never above "
           "min; merges shapes and masks without a crease",
    .params = smin_params, .nparams = SMIN_NPARAMS, .inputs = ab_inputs, .ninputs = AB_NINPUTS, .dims = NG_DIMS_ALL,
    .method = "smin", .positional = "a,b,k", .setup = broadcast_setup, .eval = smin_eval, .chain = smin_chain,
};

const ng_node_type ng_type_smax = {
    .name = "smax", .family = "math",
    .doc = "smooth maximum of a and b: max with its corner rounded over |a - b| < k, never below max",
    .params = smin_params, .nparams = SMIN_NPARAMS, .inputs = ab_inputs, .ninputs = AB_NINPUTS, .dims = NG_DIMS_ALL,
    .method = "smax", .positional = "a,b,k", .setup = broadcast_setup, .eval = smax_eval, .chain = smax_chain,
};
