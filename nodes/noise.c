/*
 * noise.c — the unified noise node: every basis behind one descriptor with
 * Houdini's Unified Noise controls. This file turns world positions into
 * noise space (frequency, per-axis scale, offset, seed, tiling period) and
 * maps each basis's natural range onto the asked-for output range; the
 * bases are declared in bases.h; their batch kernels are reached through
 * the SIMD path's table (kernels.h).
 */
#include "noise.h"

#include "kernels.h"
#include "loops.h"
#include "types.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct basis {
    const char *name;
    double freq_mult; /* Houdini's frequency multiplier for the basis */
    float lo, hi;     /* natural range, never exceeded */
    unsigned dims;
    int tiling;       /* NG_TILE_* */
} basis;

/* From the one list (bases.h), by NG_BASIS_*. */
#define BASIS_ROW(F, ID, id, name, freq, lo, hi, dims, tiling, ...) [NG_BASIS_##ID] = {name, freq, lo, hi, dims, tiling},
#define CHOICE(F, ID, id, name, ...) [NG_BASIS_##ID] = name,
#define SHORTHAND(F, ID, id, name, ...) [NG_BASIS_##ID] = {name, "type", name},
#define DOC(F, ID, id, name, freq, lo, hi, dims, tiling, kernel, tiled, grad, doc) " " name ": " doc " [" #lo "," #hi "]."
static const basis bases[NG_NBASES] = {NG_BASES(BASIS_ROW)};
static const char *const type_choices[NG_NBASES + 1] = {NG_BASES(CHOICE)}; /* NULL-terminated */
static const ng_shorthand noise_shorthands[NG_NBASES] = {NG_BASES(SHORTHAND)};

static const char *const output_choices[] = {"float", "vector", NULL};
static const char *const feature_choices[] = {"f1", "f2", "f2-f1", "cell", NULL};
static const char *const metric_choices[] = {"euclidean", "manhattan", "chebyshev", NULL};

enum {
    P_TYPE = NG_U_TYPE, P_SIZE = NG_U_SIZE, P_SCALE = NG_U_SCALE, P_OFFSET = NG_U_OFFSET, P_AMP = NG_U_AMP,
    P_SEED = NG_U_SEED, P_RANGE = NG_U_RANGE, P_OUTPUT = NG_U_COUNT,
    P_FEATURE, P_METRIC, P_JITTER, P_FLOW, NPARAMS
};

static const ng_param_desc noise_params[NPARAMS] = {
    NG_UNIFIED_PARAMS(type_choices, NG_BASIS_PERLIN, "the noise basis"),
    {"output", NG_PARAM_ENUM, {0}, 0, 0, output_choices,
     "\"float\", or \"vector\": three decorrelated channels (for warp)"},
    {"feature", NG_PARAM_ENUM, {0}, 0, 0, feature_choices,
     "worley: distance to the nearest point (f1), the second (f2), their difference (f2-f1, cell borders), "
     "or a random value per cell (cell)"},
    {"metric", NG_PARAM_ENUM, {0}, 0, 0, metric_choices, "worley: how distance is measured"},
    {"jitter", NG_PARAM_NUMBER, {1}, 0, 1, NULL, "worley: how far feature points stray from a regular grid (0: a regular grid)"},
    {"flow", NG_PARAM_NUMBER, {0}, -1e9, 1e9, NULL,
     "flow: rotates the gradients, one full turn per unit (animate it for swirling; loops every 1)"},
};

/* Which basis each basis-specific option belongs to (bit per basis). */
static const struct {
    int param;
    unsigned bases;
    const char *who;
} specific[] = {
    {P_FEATURE, 1u << NG_BASIS_WORLEY, "worley"},
    {P_METRIC, 1u << NG_BASIS_WORLEY, "worley"},
    {P_JITTER, 1u << NG_BASIS_WORLEY, "worley"},
    {P_FLOW, 1u << NG_BASIS_FLOW, "flow"},
};

void ng__noise_prepare(ng_node *n, int type, ng_unified *u)
{
    const basis *bs = &bases[type];
    const double *scale = n->param[P_SCALE].v;
    double size = ng_num(n, P_SIZE), amp = ng_num(n, P_AMP);
    double lo = bs->lo, hi = bs->hi, tlo = lo, thi = hi;
    int d;
    for (d = 0; d < 3; d++) u->freq[d] = bs->freq_mult / (size * scale[d]);
    u->freq_w = bs->freq_mult / size;
    switch (n->param[P_RANGE].i) {
    case NG_RANGE_UNIT: tlo = 0, thi = 1; break;
    case NG_RANGE_SIGNED: tlo = -1, thi = 1; break;
    case NG_RANGE_CUSTOM: tlo = n->param[P_RANGE].v[0], thi = n->param[P_RANGE].v[1]; break;
    default: break;
    }
    u->scale = amp * (thi - tlo) / (hi - lo);
    u->bias = amp * (tlo - lo * (thi - tlo) / (hi - lo));
    u->seed = (uint32_t)(int32_t)n->param[P_SEED].v[0];
    n->dims &= bs->dims;
    n->detail = type == NG_BASIS_WHITE ? 0 : size * fmin(scale[0], fmin(scale[1], scale[2])) / bs->freq_mult;
}

/* The row of `specific` for option k, or NULL: it applies to every basis. */
static const char *specific_to(int k, unsigned *which)
{
    size_t s;
    for (s = 0; s < sizeof specific / sizeof specific[0]; s++)
        if (specific[s].param == k) {
            *which = specific[s].bases;
            return specific[s].who;
        }
    return NULL;
}

static int noise_applies(const ng_node *n, int k)
{
    unsigned which;
    return !specific_to(k, &which) || (which & (1u << ng_int(n, P_TYPE)));
}

static int noise_setup(ng_node *n, const int *ch, ng_error *err)
{
    const int type = ng_int(n, P_TYPE);
    ng_unified *u;
    int k;
    (void)ch;
    for (k = 0; k < NPARAMS; k++) {
        unsigned which;
        if (ng_node_param_set(n, k) && !noise_applies(n, k))
            return ng_errorf(err, "%s: option '%s' applies to %s noise only, not %s", n->label,
                             noise_params[k].name, specific_to(k, &which), bases[type].name);
    }
    if (!(u = ng_node_state_alloc(n, sizeof *u, err))) return -1;
    ng__noise_prepare(n, type, u);
    n->channels = ng_int(n, P_OUTPUT) == 1 ? 3 : 1;
    return 0;
}

/* Whole lattice cells across a tile period of `world` units at frequency f. */
static uint32_t period_cells(double world, double f)
{
    double c = floor(world * f + 0.5);
    return c < 1 ? 1 : c > 1e9 ? 1000000000u : (uint32_t)c;
}

static int noise_tile_check(const ng_node *n, const double period[4], int dims, char *buf, size_t len)
{
    const basis *bs = &bases[ng_int(n, P_TYPE)];
    const ng_unified *u = n->state;
    const char *at = n->where ? n->where : "", *sep = n->where ? ": " : "";
    double adjusted[2];
    int d, changed = 0;
    if (bs->tiling == NG_TILE_NONE) {
        snprintf(buf, len, "note: %s%s%s: white noise has no lattice and does not tile", at, sep, n->label);
        return 1;
    }
    if (bs->tiling == NG_TILE_TORUS && dims != 2) {
        snprintf(buf, len, "%s%s%s: tileable simplex is 2D only (this render is %dD); use perlin or fast", at, sep,
                 n->label, dims);
        return -1;
    }
    for (d = 0; d < 2; d++) {
        uint32_t cells = period_cells(period[d], u->freq[d]);
        adjusted[d] = bs->freq_mult * period[d] / cells / n->param[P_SCALE].v[d];
        changed |= fabs(period[d] * u->freq[d] - cells) > 1e-9;
    }
    if (!changed) return 0;
    snprintf(buf, len, "note: %s%s%s: element_size %g becomes %g along x and %g along y, so whole cells tile the image",
             at, sep, n->label, ng_num(n, P_SIZE), adjusted[0], adjusted[1]);
    return 1;
}

static uint32_t mix_seed(uint32_t a, uint32_t b)
{
    return ng_hash_mix(a ^ (b * 0x9E3779B9u + 0x7F4A7C15u));
}

/* Central differences of the kernel in noise space, for bases without an
 * analytic gradient: the step moves the double anchor, so it is exact. */
static void kernel_gradient(ng_basis_fn fn, ng_noise_pts *pts, float *tmp, float *grad)
{
    const double h = 1.0 / 1024;
    const float inv = (float)(0.5 / h);
    int d, i;
    for (d = 0; d < pts->dims; d++) {
        float *g = grad + (size_t)d * (size_t)pts->n;
        double a = pts->anchor[d];
        pts->anchor[d] = a + h;
        fn(pts, g);
        pts->anchor[d] = a - h;
        fn(pts, tmp);
        pts->anchor[d] = a;
        for (i = 0; i < pts->n; i++) g[i] = (g[i] - tmp[i]) * inv;
    }
}

int ng__noise_basis(ng_ctx *ctx, const ng_node *n, const ng_unified *u, int type, uint32_t channel,
                    double freq_scale, const ng_block *b, float *out, float *grad)
{
    const basis *bs = &bases[type];
    const double *offset = n->param[P_OFFSET].v;
    const int own = n->type == &ng_type_noise; /* basis-specific options exist */
    float *f = NULL, *tmp = NULL; /* f: scaled positions, only for a zero frequency */
    const ng_path *path = ng__path();
    const ng_loops *loops = &path->loops;
    ng_basis_fn fn = ng__kernel(path, type);
    ng_basis_d_fn fd_grad = ng__kernel_grad(path, type);
    double freq[4];
    ng_noise_pts pts;
    int d;
    memset(&pts, 0, sizeof pts);
    pts.n = b->n;
    pts.dims = b->dims;
    pts.flow = own ? (float)(ng_num(n, P_FLOW) - floor(ng_num(n, P_FLOW))) : 0.0f;
    pts.jitter = own ? (float)ng_num(n, P_JITTER) : 1.0f;
    pts.feature = own ? ng_int(n, P_FEATURE) : NG_WORLEY_F1;
    pts.metric = own ? ng_int(n, P_METRIC) : NG_METRIC_EUCLIDEAN;
    for (d = 0; d < b->dims; d++) {
        freq[d] = (d < 3 ? u->freq[d] : u->freq_w) * freq_scale;
        if (b->period[d] > 0 && bs->tiling != NG_TILE_NONE) { /* a whole number of cells per period */
            pts.period[d] = period_cells(b->period[d], freq[d]);
            freq[d] = pts.period[d] / b->period[d];
        }
    }
    /* a torus-tiled basis tiles through another kernel, without an analytic gradient */
    if (bs->tiling == NG_TILE_TORUS && pts.period[0] && pts.period[1])
        fn = ng__kernel_tiled(path, type), fd_grad = NULL;
    for (d = 0; d < b->dims; d++) { /* positions -> noise space: the kernel multiplies */
        float fr = (float)freq[d];
        if (fr != 0.0f) {
            pts.f[d] = b->p[d];
            pts.scale[d] = fr;
        } else { /* a frequency below float's range: 0 would read as "no scale" */
            if (!f && !(f = ng_scratch(ctx, b->dims))) return -1;
            loops->scale(f + (size_t)d * (size_t)b->n, b->p[d], fr, b->n);
            pts.f[d] = f + (size_t)d * (size_t)b->n;
        }
    }
    /* Vector channels are shifted off each other's lattice as well as
     * reseeded, so they do not all vanish at the same points; with a period
     * there is no shift, so tiling is kept. */
    for (d = 0; d < b->dims; d++) {
        double shift = pts.period[d] ? 0 : channel * (0.3819660113 + 0.1 * d);
        pts.anchor[d] = (b->anchor[d] + (d < 3 ? offset[d] : 0)) * freq[d] + shift;
    }
    pts.seed = mix_seed(mix_seed(u->seed, b->seed), channel);
    if (grad && fd_grad) {
        fd_grad(&pts, out, grad); /* value bit-identical to fn's, gradient analytic */
        for (d = 0; d < b->dims; d++) { /* per cell -> per world unit */
            float *g = grad + (size_t)d * (size_t)b->n;
            loops->scale(g, g, (float)freq[d], b->n);
        }
    } else if (grad) {
        fn(&pts, out);
        if (!(tmp = ng_scratch(ctx, 1))) {
            ng_scratch_free(ctx, f, b->dims);
            return -1;
        }
        kernel_gradient(fn, &pts, tmp, grad);
        for (d = 0; d < b->dims; d++) { /* per cell -> per world unit */
            float *g = grad + (size_t)d * (size_t)b->n;
            loops->scale(g, g, (float)freq[d], b->n);
        }
        ng_scratch_free(ctx, tmp, 1);
    } else {
        fn(&pts, out);
    }
    ng_scratch_free(ctx, f, b->dims);
    return 0;
}

static int noise_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const ng_unified *u = n->state;
    const float scale = (float)u->scale, bias = (float)u->bias;
    const int channels = b->channels;
    int c;
    (void)in;
    for (c = 0; c < channels; c++) {
        float *o = out + (size_t)c * (size_t)b->n;
        if (ng__noise_basis(ctx, n, u, ng_int(n, P_TYPE), (uint32_t)c, 1.0, b, o, NULL)) return -1;
        if (scale != 1.0f || bias != 0.0f) /* the natural range needs no pass */
            ng__loops()->scale_bias(o, o, scale, bias, b->n);
    }
    return 0;
}

/* Value and world-space gradient, with the output mapping applied to both. */
static int noise_eval_grad(ng_ctx *ctx, const ng_node *n, const ng_block *b, float *out, float *grad)
{
    const ng_unified *u = n->state;
    const float scale = (float)u->scale, bias = (float)u->bias;
    int i;
    if (ng__noise_basis(ctx, n, u, ng_int(n, P_TYPE), 0, 1.0, b, out, grad)) return -1;
    for (i = 0; i < b->n; i++) out[i] = out[i] * scale + bias;
    for (i = 0; i < b->n * b->dims; i++) grad[i] *= scale;
    return 0;
}

const ng_node_type ng_type_noise = {
    .name = "noise",
    .family = "noise",
    .doc = "Unified noise: every basis with the same controls and a documented natural range." NG_BASES(DOC),
    .params = noise_params,
    .nparams = NPARAMS,
    .applies = noise_applies,
    .dims = NG_DIMS_1234,
    .shorthands = noise_shorthands,
    .nshorthands = (int)(sizeof noise_shorthands / sizeof noise_shorthands[0]),
    .setup = noise_setup,
    .tile_check = noise_tile_check,
    .eval_grad = noise_eval_grad,
    .eval = noise_eval,
};
