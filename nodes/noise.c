/*
 * noise.c — the unified noise node: every basis behind one descriptor with
 * Houdini's Unified Noise controls. This file turns world positions into
 * noise space (frequency, per-axis scale, offset, seed) and maps each
 * basis's natural range onto the asked-for output range; the bases
 * themselves are batch kernels in noise_kernels.c.
 */
#include "ng_node.h"
#include "noise_kernels.h"
#include "types.h"

#include <math.h>
#include <string.h>

typedef void (*basis_fn)(const ng_noise_pts *p, float *out);

typedef struct basis {
    const char *name;
    basis_fn fn;
    double freq_mult; /* Houdini's frequency multiplier for the basis */
    float lo, hi;     /* natural range, never exceeded */
    unsigned dims;
} basis;

/* Same order as type_choices. */
static const basis bases[] = {
    {"value", ng_value_noise, 1.0, -1.0f, 1.0f, 0x0Cu},
    {"perlin", ng_perlin_noise, 1.0, -1.0f, 1.0f, 0x0Cu},
    {"simplex", ng_simplex_noise, 1.0, -1.0f, 1.0f, 0x0Cu},
};

static const char *const type_choices[] = {"value", "perlin", "simplex", NULL};
static const char *const output_choices[] = {"float", "vector", NULL};

enum { P_TYPE, P_SIZE, P_SCALE, P_OFFSET, P_AMP, P_SEED, P_RANGE, P_OUTPUT, NPARAMS };

static const ng_param_desc noise_params[NPARAMS] = {
    {"type", NG_PARAM_ENUM, {1}, 0, 0, type_choices, "the noise basis"},
    {"element_size", NG_PARAM_NUMBER, {64}, 1e-6, 1e12, NULL,
     "feature size in world units (pixels by default): one lattice cell"},
    {"element_scale", NG_PARAM_VEC3, {1, 1, 1}, 1e-6, 1e6, NULL, "per-axis multiplier of element_size"},
    {"offset", NG_PARAM_VEC3, {0, 0, 0}, -1e15, 1e15, NULL, "added to the position, in world units"},
    {"amplitude", NG_PARAM_NUMBER, {1}, -1e30, 1e30, NULL, "multiplies the output after range mapping"},
    {"seed", NG_PARAM_INT, {0}, -2147483648.0, 2147483647.0, NULL, "selects an unrelated pattern"},
    {"range", NG_PARAM_RANGE, {NG_RANGE_NATURAL, 0, 1}, 0, 0, NULL,
     "\"natural\" (the basis's own range), \"unit\" [0,1], \"signed\" [-1,1], or {lo, hi}"},
    {"output", NG_PARAM_ENUM, {0}, 0, 0, output_choices,
     "\"float\", or \"vector\": three decorrelated channels (for warp)"},
};

static const ng_shorthand noise_shorthands[] = {
    {"value", "type", "value"},
    {"perlin", "type", "perlin"},
    {"simplex", "type", "simplex"},
};

/* k[0..3]: frequency per axis; k[4], k[5]: output scale and bias; k[6]: seed. */
static int noise_setup(ng_node *n, const int *ch, ng_error *err)
{
    const basis *bs = &bases[ng_int(n, P_TYPE)];
    const double *scale = n->param[P_SCALE].v;
    double size = ng_num(n, P_SIZE), amp = ng_num(n, P_AMP);
    double lo = bs->lo, hi = bs->hi, tlo = lo, thi = hi;
    int d;
    (void)ch;
    (void)err;
    for (d = 0; d < 3; d++) n->k[d] = bs->freq_mult / (size * scale[d]);
    n->k[3] = bs->freq_mult / size;
    switch (n->param[P_RANGE].i) {
    case NG_RANGE_UNIT: tlo = 0, thi = 1; break;
    case NG_RANGE_SIGNED: tlo = -1, thi = 1; break;
    case NG_RANGE_CUSTOM: tlo = n->param[P_RANGE].v[0], thi = n->param[P_RANGE].v[1]; break;
    default: break;
    }
    n->k[4] = amp * (thi - tlo) / (hi - lo);
    n->k[5] = amp * (tlo - lo * (thi - tlo) / (hi - lo));
    n->k[6] = (double)(uint32_t)(int32_t)n->param[P_SEED].v[0];
    n->dims &= bs->dims;
    n->channels = ng_int(n, P_OUTPUT) == 1 ? 3 : 1;
    n->detail = size * fmin(scale[0], fmin(scale[1], scale[2])) / bs->freq_mult;
    return 0;
}

static uint32_t mix_seed(uint32_t a, uint32_t b)
{
    uint32_t h = a ^ (b * 0x9E3779B9u + 0x7F4A7C15u);
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
}

static int noise_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const basis *bs = &bases[ng_int(n, P_TYPE)];
    const double *offset = n->param[P_OFFSET].v;
    const float scale = (float)n->k[4], bias = (float)n->k[5];
    float *f = ng_scratch(ctx, b->dims);
    ng_noise_pts pts;
    int d, c, i;
    (void)in;
    if (!f) return -1;
    memset(&pts, 0, sizeof pts);
    pts.n = b->n;
    pts.dims = b->dims;
    for (d = 0; d < b->dims; d++) {
        float fr = (float)n->k[d];
        float *fd = f + (size_t)d * (size_t)b->n;
        for (i = 0; i < b->n; i++) fd[i] = b->p[d][i] * fr;
        pts.f[d] = fd;
    }
    for (c = 0; c < n->channels; c++) {
        float *o = out + (size_t)c * (size_t)b->n;
        /* Vector channels are shifted off each other's lattice as well as
         * reseeded, so they do not all vanish at the same points. */
        for (d = 0; d < b->dims; d++)
            pts.anchor[d] = (b->anchor[d] + (d < 3 ? offset[d] : 0)) * n->k[d] + c * (0.3819660113 + 0.1 * d);
        pts.seed = mix_seed(mix_seed((uint32_t)n->k[6], b->seed), (uint32_t)c);
        bs->fn(&pts, o);
        for (i = 0; i < b->n; i++) o[i] = o[i] * scale + bias;
    }
    ng_scratch_free(ctx, f, b->dims);
    return 0;
}

const ng_node_type ng_type_noise = {
    .name = "noise",
    .family = "noise",
    .doc = "Unified noise: one node for every basis, with the same controls and a documented range. "
           "value: smooth lattice values; perlin: improved gradient noise (quintic fade), 0 on the lattice; "
           "simplex: gradient noise on a simplex grid, fewer directional artefacts. All three span [-1, 1].",
    .params = noise_params,
    .nparams = NPARAMS,
    .dims = 0x0Cu,
    .shorthands = noise_shorthands,
    .nshorthands = (int)(sizeof noise_shorthands / sizeof noise_shorthands[0]),
    .setup = noise_setup,
    .eval = noise_eval,
};
