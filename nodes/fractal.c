/*
 * fractal.c — octaves of any source node (Houdini's fractal tab). Octave k
 * pulls the source at positions scaled by lacunarity^k with its own seed
 * (the seed travels in the block), weighted by roughness^k; a fractional
 * octave count fades the last octave in, so animating `octaves` is smooth.
 *
 * Normalisation: every type divides by the sum of the octave weights, the
 * bound that holds for any octaves, lacunarity and roughness: for a source
 * in [-1, 1], standard, terrain, hybrid and billow stay in [-1, 1] and
 * ridged in [0, 1], provably (see each formula).
 *
 * Octaves finer than a pixel are not evaluated: the block's footprint
 * (world units per pixel) against the source's finest detail tells where
 * an octave's features drop under two pixels, where they would alias; the
 * weight fades out between two pixels and one per feature. The normalisation keeps the full sum, so
 * a skipped octave contributes its filtered value, 0, rather than
 * brightening the rest: a small render looks like a filtered large one.
 */
#include "ng_node.h"
#include "loops.h"
#include "octaves.h"
#include "types.h"

#include <math.h>

enum { T_STANDARD, T_TERRAIN, T_HYBRID, T_RIDGED, T_BILLOW };
static const char *const fractal_choices[] = {"standard", "terrain", "hybrid", "ridged", "billow", NULL};

enum { P_TYPE, P_OCTAVES, P_LACUNARITY, P_ROUGHNESS, P_ANTIALIAS, NPARAMS };

static const ng_param_desc fractal_params[NPARAMS] = {
    {"type", NG_PARAM_ENUM, {0}, 0, 0, fractal_choices,
     "standard (fBm: the plain weighted sum), terrain (each octave scaled by the height so far: smooth valleys, "
     "rough peaks), hybrid (octaves weighted by the running product of (value + 1), clamped to 1, as in "
     "Musgrave's hybrid multifractal), ridged (Musgrave's ridged multifractal, (1 - |n|)^2, range [0, 1]), "
     "billow (2|n| - 1: puffy, rounded)"},
    {"octaves", NG_PARAM_NUMBER, {6}, 0, 32, NULL, "how many octaves; a fraction fades the last one in"},
    {"lacunarity", NG_PARAM_NUMBER, {2}, 1, 16, NULL, "frequency ratio between octaves"},
    {"roughness", NG_PARAM_NUMBER, {0.5}, 0, 2, NULL, "amplitude ratio between octaves"},
    {"antialias", NG_PARAM_BOOL, {1}, 0, 1, NULL, "skip octaves whose features are under two pixels (they would alias)"},
};

enum { I_SOURCE, NINPUTS };

static const ng_input_desc fractal_inputs[NINPUTS] = {
    [I_SOURCE] = {"source", NG_INPUT_PULL, 1, NG_MAX_CHANNELS, 0, "the node summed at every octave"},
};

static const ng_shorthand fractal_shorthands[] = {
    {"fbm", "type", "standard"}, {"terrain", "type", "terrain"}, {"hybrid", "type", "hybrid"},
    {"ridged", "type", "ridged"}, {"billow", "type", "billow"},
};

typedef struct fractal_state {
    double source_detail; /* the source's finest features, for the cut-off */
} fractal_state;

static int fractal_setup(ng_node *n, const int *ch, ng_error *err)
{
    const double oct = ng_num(n, P_OCTAVES), lac = ng_num(n, P_LACUNARITY);
    fractal_state *s;
    if (!(s = ng_node_state_alloc(n, sizeof *s, err))) return -1;
    n->channels = ch[I_SOURCE];
    s->source_detail = n->detail;
    /* the finest octave's features, for a fractal of fractals */
    n->detail /= pow(lac, oct > 1 ? ceil(oct) - 1 : 0);
    return 0;
}

static int fractal_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const fractal_state *s = n->state;
    const int type = ng_int(n, P_TYPE), len = b->n * n->channels, aa = ng_int(n, P_ANTIALIAS);
    const ng_loops *L = ng__loops();
    float *pos = ng_scratch(ctx, b->dims), *oct = ng_scratch(ctx, n->channels);
    float *state = type == T_RIDGED || type == T_HYBRID ? ng_scratch(ctx, n->channels) : NULL;
    double scale = 1, partial = 0;
    ng_octaves o;
    int k, i, rc = -1;
    (void)in;
    if (!pos || !oct || ((type == T_RIDGED || type == T_HYBRID) && !state)) goto done;
    ng__octaves_init(&o, ng_num(n, P_OCTAVES), ng_num(n, P_LACUNARITY), ng_num(n, P_ROUGHNESS));
    for (i = 0; i < len; i++) out[i] = 0;
    for (k = 0; k < o.count; k++, scale *= o.lacunarity) {
        const double w = ng__octave_weight(&o, k), a = ng__octave_antialias(s->source_detail, b, scale, k, aa);
        const float fw = (float)(w * a);
        ng_block ob;
        if (a <= 0) break; /* finer octaves are finer still */
        ng__octave_block(ctx, b, k, scale, NULL, pos, &ob);
        if (ng_pull(ctx, n, I_SOURCE, &ob, oct)) goto done;
        switch (type) {
        case T_STANDARD: L->axpy(out, oct, fw, len); break;
        case T_BILLOW: L->acc_billow(out, oct, fw, len); break;
        case T_TERRAIN: L->acc_terrain(out, oct, fw, partial > 0 ? (float)(0.5 / partial) : 0.0f, k == 0, len); break;
        case T_HYBRID: L->acc_hybrid(out, state, oct, fw, k == 0, len); break;
        case T_RIDGED: L->acc_ridged(out, state, oct, fw, k == 0, len); break;
        }
        partial += w;
    }
    if (o.total > 0) L->scale(out, out, (float)(1.0 / o.total), len);
    rc = 0;
done:
    ng_scratch_free(ctx, pos, b->dims);
    ng_scratch_free(ctx, oct, n->channels);
    ng_scratch_free(ctx, state, n->channels);
    return rc;
}

const ng_node_type ng_type_fractal = {
    .name = "fractal",
    .family = "fractal",
    .doc = "Octaves of a source: each at lacunarity times the previous frequency and roughness times its "
           "weight, with its own seed; divided by the sum of the weights, so for a source in [-1, 1] every "
           "type stays in [-1, 1] (ridged: [0, 1]). Octaves finer than two pixels are skipped.",
    .params = fractal_params,
    .nparams = NPARAMS,
    .inputs = fractal_inputs,
    .ninputs = NINPUTS,
    .dims = 0x1Eu,
    .positional = "source",
    .shorthands = fractal_shorthands,
    .nshorthands = (int)(sizeof fractal_shorthands / sizeof fractal_shorthands[0]),
    .setup = fractal_setup,
    .eval = fractal_eval,
};
