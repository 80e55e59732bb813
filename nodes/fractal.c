/*
 * fractal.c — octaves of any source node. Each octave pulls the source at
 * positions scaled by lacunarity^k with its own seed (the seed travels with
 * the block), weights it by roughness^k, and the sum is divided by the sum
 * of the weights, so the result keeps the source's range for any settings.
 * A fractional octave count fades the last octave in, so animating
 * `octaves` is smooth.
 */
#include "ng_node.h"
#include "types.h"

#include <math.h>

static const char *const fractal_choices[] = {"standard", NULL};

enum { P_TYPE, P_OCTAVES, P_LACUNARITY, P_ROUGHNESS, NPARAMS };

static const ng_param_desc fractal_params[NPARAMS] = {
    {"type", NG_PARAM_ENUM, {0}, 0, 0, fractal_choices, "\"standard\": fBm, the plain sum of octaves"},
    {"octaves", NG_PARAM_NUMBER, {6}, 0, 32, NULL, "how many octaves; a fraction fades the last one in"},
    {"lacunarity", NG_PARAM_NUMBER, {2}, 1, 16, NULL, "frequency ratio between octaves"},
    {"roughness", NG_PARAM_NUMBER, {0.5}, 0, 2, NULL, "amplitude ratio between octaves"},
};

static const ng_input_desc fractal_inputs[] = {
    {"source", NG_INPUT_PULL, 1, NG_MAX_CHANNELS, 0, "the node summed at every octave"},
};

static const ng_shorthand fractal_shorthands[] = {
    {"fbm", "type", "standard"},
};

static uint32_t octave_seed(uint32_t seed, int k)
{
    uint32_t h = seed + (uint32_t)k * 0x9E3779B9u;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h;
}

static int fractal_setup(ng_node *n, const int *ch, ng_error *err)
{
    (void)err;
    n->channels = ch[0];
    return 0;
}

static int fractal_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const double octaves = ng_num(n, P_OCTAVES), lac = ng_num(n, P_LACUNARITY), rough = ng_num(n, P_ROUGHNESS);
    const int full = (int)floor(octaves), count = full + (octaves > full ? 1 : 0), len = b->n * n->channels;
    float *pos = ng_scratch(ctx, b->dims), *oct = ng_scratch(ctx, n->channels);
    double scale = 1, weight = 1, total = 0;
    int k, d, i, rc = -1;
    (void)in;
    if (!pos || !oct) goto done;
    for (i = 0; i < len; i++) out[i] = 0;
    for (k = 0; k < count; k++, scale *= lac, weight *= rough) {
        double w = k < full ? weight : weight * (octaves - full);
        float fs = (float)scale, fw = (float)w;
        ng_block ob = *b;
        if (k > 0) {
            for (d = 0; d < b->dims; d++) {
                float *pd = pos + (size_t)d * (size_t)b->n;
                for (i = 0; i < b->n; i++) pd[i] = b->p[d][i] * fs;
                ob.p[d] = pd;
                ob.anchor[d] = b->anchor[d] * scale;
                ob.period[d] = b->period[d] * scale;
            }
            ob.seed = octave_seed(b->seed, k);
            ob.pos_id = ng_new_pos_id(ctx);
            ob.footprint = (float)(b->footprint * scale);
        }
        if (ng_pull(ctx, n, 0, &ob, oct)) goto done;
        for (i = 0; i < len; i++) out[i] += oct[i] * fw;
        total += w;
    }
    if (total > 0) {
        float inv = (float)(1.0 / total);
        for (i = 0; i < len; i++) out[i] *= inv;
    }
    rc = 0;
done:
    ng_scratch_free(ctx, pos, b->dims);
    ng_scratch_free(ctx, oct, n->channels);
    return rc;
}

const ng_node_type ng_type_fractal = {
    .name = "fractal",
    .family = "fractal",
    .doc = "Octaves of a source: each at lacunarity times the previous frequency and roughness times its "
           "weight, with its own seed; normalised by the sum of weights, so the source's range is kept.",
    .params = fractal_params,
    .nparams = NPARAMS,
    .inputs = fractal_inputs,
    .ninputs = 1,
    .dims = 0x1Eu,
    .shorthands = fractal_shorthands,
    .nshorthands = 1,
    .setup = fractal_setup,
    .eval = fractal_eval,
};
