/*
 * fractal.c — octaves of any source node (Houdini's fractal tab). Octave k
 * pulls the source at positions scaled by lacunarity^k with its own seed
 * (the seed travels in the block), weighted by roughness^k; a fractional
 * octave count fades the last octave in, so animating `octaves` is smooth.
 *
 * Normalisation: every type divides by the sum of the octave weights, the
 * bound that holds for any octaves, lacunarity and roughness: for a source
 * in [-1, 1], standard, terrain, hybrid and billow stay in [-1, 1] and
 * ridged in [0, 1], provably (see each formula in loops.c). normalize =
 * "rms" divides by the root of the sum of the squared weights (Houdini's
 * fuller contrast; how often it leaves the range is in the README).
 *
 * The sum itself is ng__fractal_sum (octaves.c), shared with the noise
 * node's own `fractal`; roughness and lacunarity may be nodes (masks),
 * evaluated at this node's positions, each sample then with its own
 * weights, normalisation, frequencies and cut-off.
 *
 * Octaves finer than a pixel are not evaluated: the block's footprint
 * (world units per pixel) against the source's finest detail tells where
 * an octave's features drop under two pixels, where they would alias; the
 * weight fades out between two pixels and one per feature. The normalisation keeps the full sum, so
 * a skipped octave contributes its filtered value, 0, rather than
 * brightening the rest: a small render looks like a filtered large one.
 */
#include "ng_node.h"
#include "octaves.h"
#include "types.h"
#include "ngmath.h"

#include <math.h>
#include <string.h>

static const char *const fractal_choices[] = {NG_FRACTAL_CHOICES, NULL};
static const char *const normalize_choices[] = {NG_NORMALIZE_CHOICES, NULL};

enum { P_TYPE, P_OCTAVES, P_LACUNARITY, P_ROUGHNESS, P_ANTIALIAS, P_NORMALIZE, P_OFFSET, P_GAIN, P_ROTATE, NPARAMS };

static const ng_param_desc fractal_params[NPARAMS] = {
    {"type", NG_PARAM_ENUM, {0}, 0, 0, fractal_choices, NG_FRACTAL_TYPE_DOC},
    {"octaves", NG_PARAM_NUMBER, {6}, 0, 32, NULL, "how many octaves; a fraction fades the last one in"},
    {"lacunarity", NG_PARAM_NUMBER, {2}, 1, 16, NULL,
     "frequency ratio between octaves; a node varies it per sample (each sample cuts its own octaves off)"},
    {"roughness", NG_PARAM_NUMBER, {0.5}, 0, 2, NULL,
     "amplitude ratio between octaves; a node (a mask) varies it per sample: rough peaks, smooth valleys"},
    {"antialias", NG_PARAM_BOOL, {1}, 0, 1, NULL, "skip octaves whose features are under two pixels (they would alias)"},
    {"normalize", NG_PARAM_ENUM, {0}, 0, 0, normalize_choices, NG_NORMALIZE_DOC},
    NG_FRACTAL_OFFSET_ROW("offset"),
    NG_FRACTAL_GAIN_ROW,
    NG_FRACTAL_ROTATE_ROW,
};

enum { I_SOURCE, NINPUTS };

static const ng_input_desc fractal_inputs[NINPUTS] = {
    [I_SOURCE] = {"source", NG_INPUT_PULL | NG_INPUT_VALUES, 1, NG_MAX_CHANNELS, 0, "the node summed at every octave"},
};

static const ng_shorthand fractal_shorthands[] = {
    {"fbm", "type", "standard"}, {"terrain", "type", "terrain"}, {"hybrid", "type", "hybrid"},
    {"ridged", "type", "ridged"}, {"billow", "type", "billow"},
};

/* the default that changed in 0.2.0 (noisegraph render --classic) */
static const ng_changed_default fractal_changed[] = {{P_ROTATE, 0}};

typedef struct fractal_state {
    double source_detail; /* the source's finest features, for the cut-off */
} fractal_state;

static int fractal_setup(ng_node *n, const int *ch, ng_error *err)
{
    const double oct = ng_num(n, P_OCTAVES), lac = ng_num(n, P_LACUNARITY);
    fractal_state *s;
    if (ng__fractal_musgrave_check(n->label, "offset", ng_node_param_set(n, P_OFFSET), ng_node_param_set(n, P_GAIN),
                                   ng_int(n, P_TYPE), err))
        return -1;
    if (!(s = ng_node_state_alloc(n, sizeof *s, err))) return -1;
    n->channels = ch[I_SOURCE];
    s->source_detail = n->detail;
    /* the finest octave's features, for a fractal of fractals (with the
     * number's lacunarity when a node drives it) */
    n->detail /= ng_pow(lac, oct > 1 ? ceil(oct) - 1 : 0);
    return 0;
}

static int pull_source(ng_ctx *ctx, const ng_node *n, const ng_block *ob, float *out, void *user)
{
    (void)user;
    return ng_pull(ctx, n, I_SOURCE, ob, out);
}

static void fractal_options(const ng_ctx *ctx, const ng_node *n, const float *const *in, ng_fractal *f)
{
    const fractal_state *s = n->state;
    memset(f, 0, sizeof *f);
    f->type = ng_int(n, P_TYPE);
    f->normalize = ng_int(n, P_NORMALIZE);
    f->antialias = ng_int(n, P_ANTIALIAS);
    f->octaves = ng_num(n, P_OCTAVES);
    f->lacunarity = ng_num(n, P_LACUNARITY);
    f->roughness = ng_num(n, P_ROUGHNESS);
    f->detail = s->source_detail;
    f->offset = ng_num(n, P_OFFSET);
    f->gain = ng_num(n, P_GAIN);
    f->rotate = ng_int(n, P_ROTATE);
    f->source_turns = ng_input_takes_turn(ctx, n, I_SOURCE);
    f->roughness_at = in ? ng_driver(n, in, P_ROUGHNESS) : NULL;
    f->lacunarity_at = in ? ng_driver(n, in, P_LACUNARITY) : NULL;
}

static int fractal_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    ng_fractal f;
    fractal_options(ctx, n, in, &f);
    return ng__fractal_sum(ctx, n, &f, b, n->channels, pull_source, NULL, out);
}

static int pull_source_grad(ng_ctx *ctx, const ng_node *n, const ng_block *ob, float *out, float *grad, void *user)
{
    (void)user;
    return ng_pull_grad(ctx, n, I_SOURCE, ob, out, grad, 0);
}

/* The sum and its gradient from the source's (octaves.c); a driven
 * roughness or lacunarity has none here: central differences. */
static int fractal_eval_grad(ng_ctx *ctx, const ng_node *n, const ng_block *b, float *out, float *grad)
{
    ng_fractal f;
    if (n->ndrivers > 0) return 1;
    fractal_options(ctx, n, NULL, &f);
    return ng__fractal_sum_grad(ctx, n, &f, b, n->channels, pull_source_grad, NULL, out, grad);
}

/* offset and gain where the type takes them (inspect's option list) */
static int fractal_applies(const ng_node *n, int k)
{
    return (k != P_OFFSET && k != P_GAIN) || ng__fractal_musgrave(ng_int(n, P_TYPE));
}

const ng_node_type ng_type_fractal = {
    .name = "fractal",
    .family = "fractal",
    .doc = "Octaves of a source: each at lacunarity times the previous frequency and roughness times its "
           "weight, with its own seed; divided by the sum of the weights, so for a source in [-1, 1] every "
           "type stays in [-1, 1] (ridged: [0, 1]); normalize = \"rms\" for Houdini's fuller contrast. Octaves "
           "finer than two pixels are skipped. ng.noise{fractal = ...} is the same in one node.",
    .params = fractal_params,
    .nparams = NPARAMS,
    .inputs = fractal_inputs,
    .ninputs = NINPUTS,
    .dims = NG_DIMS_ALL,
    .positional = "source",
    .node_params = 1ull << P_LACUNARITY | 1ull << P_ROUGHNESS,
    .shorthands = fractal_shorthands,
    .nshorthands = (int)(sizeof fractal_shorthands / sizeof fractal_shorthands[0]),
    .changed = fractal_changed,
    .nchanged = 1,
    .setup = fractal_setup,
    .applies = fractal_applies,
    .eval_grad = fractal_eval_grad,
    .eval = fractal_eval,
    .takes_p_scale = 1, /* octave blocks compose it (octaves.c) */
};
