/*
 * noise.c — the unified noise node: every basis behind one descriptor with
 * Houdini's Unified Noise controls, and its fractal tab (`fractal`,
 * octaves, lacunarity, roughness: ng.fractal over the same noise, in one
 * node and bit for bit, through the same sum in octaves.c). This file turns
 * world positions into noise space (frequency, per-axis scale, offset,
 * seed, tiling period) and maps each basis's natural range onto the
 * asked-for output range; the bases are declared in bases.h; their batch
 * kernels are reached through the SIMD path's table (kernels.h).
 *
 * Options that take nodes (element_size, element_scale, offset, amplitude,
 * jitter, flow, roughness, lacunarity) are read per sample at the node's
 * own positions, once, and hold for every octave. Positions: the block's
 * anchor is scaled by the numbers' frequency as always and each sample
 * adds its own difference, so a sample whose options equal the numbers
 * gets the numbers' bits. Jitter and flow are per batch in the kernels:
 * a driven one runs the kernel over runs of samples with equal values (a
 * value per block, as ng.time() gives, costs nothing; a mask varying
 * everywhere costs a kernel call per sample).
 */
#include "noise.h"

#include "kernels.h"
#include "loops.h"
#include "octaves.h"
#include "types.h"
#include "ngmath.h"

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
/* every basis by its name, and worley by the names other tools give it */
static const ng_shorthand noise_shorthands[] = {NG_BASES(SHORTHAND) {"voronoi", "type", "worley"},
                                                {"cellular", "type", "worley"}};

static const char *const output_choices[] = {"float", "vector", NULL};
/* in the order of NG_WORLEY_* and NG_METRIC_* (noise_kernels.h) */
static const char *const feature_choices[] = {"f1", "f2", "f2-f1", "cell", "f3", "edge", "position", NULL};
static const char *const metric_choices[] = {"euclidean", "manhattan", "chebyshev", "minkowski", NULL};
static const char *const gradients_choices[] = {"classic", "isotropic", NULL}; /* by NG_GRADIENTS_* */
/* "none", then ng.fractal's types in their order, then "fbm" (standard) */
static const char *const fractal_choices[] = {"none", NG_FRACTAL_CHOICES, "fbm", NULL};
enum { FRACTAL_NONE = 0, FRACTAL_FBM = NG_NFRACTALS + 1 };
static const char *const normalize_choices[] = {NG_NORMALIZE_CHOICES, NULL};

enum {
    P_TYPE = NG_U_TYPE, P_SIZE = NG_U_SIZE, P_SCALE = NG_U_SCALE, P_OFFSET = NG_U_OFFSET, P_AMP = NG_U_AMP,
    P_SEED = NG_U_SEED, P_RANGE = NG_U_RANGE, P_OUTPUT = NG_U_COUNT,
    P_FEATURE, P_METRIC, P_EXPONENT, P_JITTER, P_FLOW, P_GRADIENTS,
    P_FRACTAL, P_OCTAVES, P_LACUNARITY, P_ROUGHNESS, P_ANTIALIAS, P_NORMALIZE, P_FOFFSET, P_GAIN, P_ROTATE, NPARAMS
};

static const ng_param_desc noise_params[NPARAMS] = {
    NG_UNIFIED_PARAMS(type_choices, NG_BASIS_PERLIN, "the noise basis"),
    {"output", NG_PARAM_ENUM, {0}, 0, 0, output_choices,
     "\"float\", or \"vector\": three decorrelated channels (for warp)"},
    {"feature", NG_PARAM_ENUM, {0}, 0, 0, feature_choices,
     "worley: distance to the nearest point (f1), the second (f2), their difference (f2-f1, cell borders), "
     "a random value per cell (cell), the third distance (f3), the exact distance to the cell's edge (edge: "
     "cracks and bordered cells; euclidean only; 0 on the edge), or the nearest point's world position "
     "(position: a vector, x y z, 0 past the render's dims; range and amplitude do not apply). Each distance "
     "is normalised to [0, 1], clamped in under 1e-4 of samples"},
    {"metric", NG_PARAM_ENUM, {0}, 0, 0, metric_choices,
     "worley: how distance is measured; minkowski is (sum |d|^p)^(1/p) with p = exponent"},
    {"exponent", NG_PARAM_NUMBER, {0.5}, 0.5, 10, NULL,
     "worley, metric = \"minkowski\": its p; 1 is manhattan's shape, 2 euclidean's, 10 near chebyshev's, "
     "below 1 star-shaped cells (steep where a point lines up with a feature)"},
    {"jitter", NG_PARAM_NUMBER, {1}, 0, 1, NULL,
     "worley: how far feature points stray from a regular grid (0: a regular grid); a node varies it"},
    {"flow", NG_PARAM_NUMBER, {0}, -1e9, 1e9, NULL,
     "flow: rotates the gradients, one full turn per unit (animate it for swirling: a node, e.g. flow = "
     "ng.time(), turns them per sample; loops every 1)"},
    {"gradients", NG_PARAM_ENUM, {NG_GRADIENTS_ISOTROPIC}, 0, 0, gradients_choices,
     "perlin, fast, simplex, flow: \"isotropic\" (2D: 128 vectors for perlin and flow, 64 for fast, longer "
     "near the axes; 2^15 unit directions spread continuously for simplex; 3D and 4D: independent random "
     "components, each vector normalised for simplex: no lattice-aligned creases), or \"classic\": the "
     "lattice-aligned sets of versions before 0.2.0 (their bits)"},
    {"fractal", NG_PARAM_ENUM, {FRACTAL_NONE}, 0, 0, fractal_choices,
     "none, or octaves of this noise as ng.fractal sums them (the same bits): " NG_FRACTAL_TYPE_DOC
     "; fbm is standard"},
    {"octaves", NG_PARAM_NUMBER, {6}, 0, 32, NULL, "with a fractal: how many octaves; a fraction fades the last one in"},
    {"lacunarity", NG_PARAM_NUMBER, {2}, 1, 16, NULL, "with a fractal: frequency ratio between octaves; a node varies it"},
    {"roughness", NG_PARAM_NUMBER, {0.5}, 0, 2, NULL,
     "with a fractal: amplitude ratio between octaves; a node (a mask) varies it: rough peaks, smooth valleys"},
    {"antialias", NG_PARAM_BOOL, {1}, 0, 1, NULL,
     "with a fractal: skip octaves whose features are under two pixels, per sample (they would alias)"},
    {"normalize", NG_PARAM_ENUM, {0}, 0, 0, normalize_choices, "with a fractal: " NG_NORMALIZE_DOC},
    NG_FRACTAL_OFFSET_ROW("fractal_offset"),
    NG_FRACTAL_GAIN_ROW,
    NG_FRACTAL_ROTATE_ROW,
};

/* the defaults that changed in 0.2.0 (noisegraph render --classic) */
static const ng_changed_default noise_changed[] = {{P_GRADIENTS, NG_GRADIENTS_CLASSIC}, {P_ROTATE, 0}};

static const uint64_t fractal_options =
    1ull << P_OCTAVES | 1ull << P_LACUNARITY | 1ull << P_ROUGHNESS | 1ull << P_ANTIALIAS | 1ull << P_NORMALIZE |
    1ull << P_FOFFSET | 1ull << P_GAIN | 1ull << P_ROTATE;

typedef struct noise_state {
    ng_unified u;
    double basis_detail; /* one octave's finest features, for the fractal's cut-off */
} noise_state;

/* Which basis each basis-specific option belongs to (bit per basis). */
static const struct {
    int param;
    unsigned bases;
    const char *who;
} specific[] = {
    {P_FEATURE, 1u << NG_BASIS_WORLEY, "worley"},
    {P_METRIC, 1u << NG_BASIS_WORLEY, "worley"},
    {P_EXPONENT, 1u << NG_BASIS_WORLEY, "worley"},
    {P_JITTER, 1u << NG_BASIS_WORLEY, "worley"},
    {P_FLOW, 1u << NG_BASIS_FLOW, "flow"},
    {P_GRADIENTS, 1u << NG_BASIS_PERLIN | 1u << NG_BASIS_FAST | 1u << NG_BASIS_SIMPLEX | 1u << NG_BASIS_FLOW,
     "perlin, fast, simplex and flow"},
};

void ng__noise_prepare(ng_node *n, int type, ng_unified *u)
{
    const basis *bs = &bases[type];
    const double *scale = n->param[P_SCALE].v;
    double size = ng_num(n, P_SIZE), amp = ng_num(n, P_AMP);
    double lo = bs->lo, hi = bs->hi, tlo = lo, thi = hi;
    int d;
    for (d = 0; d < 3; d++) u->freq[d] = bs->freq_mult / (size * scale[d]);
    u->freq_w = bs->freq_mult / size * ng_num(n, NG_U_TIME_SCALE); /* x 1 by default: the same bits */
    switch (n->param[P_RANGE].i) {
    case NG_RANGE_UNIT: tlo = 0, thi = 1; break;
    case NG_RANGE_SIGNED: tlo = -1, thi = 1; break;
    case NG_RANGE_CUSTOM: tlo = n->param[P_RANGE].v[0], thi = n->param[P_RANGE].v[1]; break;
    default: break;
    }
    u->span = thi - tlo;
    u->natural = hi - lo;
    u->base = tlo - lo * (thi - tlo) / (hi - lo);
    u->freq_mult = bs->freq_mult;
    u->scale = amp * u->span / u->natural;
    u->bias = amp * u->base;
    u->seed = (uint32_t)(int32_t)n->param[P_SEED].v[0];
    n->dims &= bs->dims;
    n->detail = type == NG_BASIS_WHITE ? 0 : size * fmin(scale[0], fmin(scale[1], scale[2])) / bs->freq_mult;
}

/* The NG_FRACTAL_* type of the fractal option's choice (not FRACTAL_NONE). */
static int fractal_type(int fractal) { return fractal == FRACTAL_FBM ? NG_FRACTAL_STANDARD : fractal - 1; }

/* Worley's nearest feature position: a vector of world positions. */
static int is_position(const ng_node *n)
{
    return ng_int(n, P_TYPE) == NG_BASIS_WORLEY && ng_int(n, P_FEATURE) == NG_WORLEY_POSITION;
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

/* Options of other bases, and the fractal's options without a fractal,
 * mean nothing for this node. */
static int noise_applies(const ng_node *n, int k)
{
    unsigned which;
    if (((fractal_options >> k) & 1) && ng_int(n, P_FRACTAL) == FRACTAL_NONE) return 0;
    if ((k == P_FOFFSET || k == P_GAIN) && !ng__fractal_musgrave(fractal_type(ng_int(n, P_FRACTAL)))) return 0;
    if (k == P_EXPONENT && ng_int(n, P_METRIC) != NG_METRIC_MINKOWSKI) return 0;
    return !specific_to(k, &which) || (which & (1u << ng_int(n, P_TYPE)));
}

static int noise_setup(ng_node *n, const int *ch, ng_error *err)
{
    const int type = ng_int(n, P_TYPE), fractal = ng_int(n, P_FRACTAL);
    const double oct = ng_num(n, P_OCTAVES);
    noise_state *st;
    int k;
    (void)ch;
    for (k = 0; k < NPARAMS && fractal == FRACTAL_NONE; k++)
        if (((fractal_options >> k) & 1) && ng_node_param_set(n, k))
            return ng_errorf(err, "%s: option '%s' needs a fractal (fractal = \"fbm\", \"terrain\", ...)", n->label,
                             noise_params[k].name);
    if (fractal != FRACTAL_NONE &&
        ng__fractal_musgrave_check(n->label, "fractal_offset", ng_node_param_set(n, P_FOFFSET),
                                   ng_node_param_set(n, P_GAIN), fractal_type(fractal), err))
        return -1;
    if (type == NG_BASIS_WORLEY && ng_node_param_set(n, P_EXPONENT) && ng_int(n, P_METRIC) != NG_METRIC_MINKOWSKI)
        return ng_errorf(err, "%s: option 'exponent' applies to metric = \"minkowski\" only", n->label);
    if (type == NG_BASIS_WORLEY && ng_int(n, P_FEATURE) == NG_WORLEY_EDGE && ng_int(n, P_METRIC) != NG_METRIC_EUCLIDEAN)
        return ng_errorf(err, "%s: feature \"edge\" is measured in the euclidean metric only, not %s", n->label,
                         metric_choices[ng_int(n, P_METRIC)]);
    if (type == NG_BASIS_WORLEY && ng_int(n, P_FEATURE) == NG_WORLEY_POSITION) {
        if (fractal != FRACTAL_NONE)
            return ng_errorf(err, "%s: feature \"position\" is a world position and takes no fractal", n->label);
        if (ng_node_param_set(n, P_RANGE) || ng_node_param_set(n, P_AMP))
            return ng_errorf(err, "%s: feature \"position\" is a world position: option '%s' does not apply",
                             n->label, ng_node_param_set(n, P_RANGE) ? "range" : "amplitude");
    }
    for (k = 0; k < NPARAMS; k++) { /* what is left: options of other bases */
        unsigned which;
        if (ng_node_param_set(n, k) && !noise_applies(n, k))
            return ng_errorf(err, "%s: option '%s' applies to %s noise only, not %s", n->label,
                             noise_params[k].name, specific_to(k, &which), bases[type].name);
    }
    if (!(st = ng_node_state_alloc(n, sizeof *st, err))) return -1;
    ng__noise_prepare(n, type, &st->u);
    st->basis_detail = n->detail;
    if (fractal != FRACTAL_NONE) /* the finest octave's, as ng.fractal says it */
        n->detail /= ng_pow(ng_num(n, P_LACUNARITY), oct > 1 ? ceil(oct) - 1 : 0);
    n->channels = ng_int(n, P_OUTPUT) == 1 || is_position(n) ? 3 : 1;
    n->positions = is_position(n);
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
    if (ng_driver_slot(n, P_SIZE) >= 0 || ng_driver_slot(n, P_SCALE) >= 0) {
        snprintf(buf, len, "%s%s%s: an element size a node drives has no period; give element_size a number to tile",
                 at, sep, n->label);
        return -1;
    }
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

/* Value and gradient of a kernel: analytic where it has a _d form (fd),
 * else central differences (tmp: one plane of scratch). */
static void value_and_gradient(ng_basis_fn fn, ng_basis_d_fn fd, ng_noise_pts *pts, float *out, float *grad,
                               float *tmp)
{
    if (fd) {
        fd(pts, out, grad);
    } else {
        fn(pts, out);
        kernel_gradient(fn, pts, tmp, grad);
    }
}

/* ---- time: loops and flow in 4D ---------------------------------------------------------------
 * A render with a time period (--loop-frames) sets b->period[3]. The time
 * axis then takes whole lattice cells per period like a tiled axis, and its
 * anchor is the phase t / period wrapped to [0, 1) times those cells: t = 0
 * and t = period give the same anchor, hence the same bits, and the
 * lattice's wrap in w makes the seam as smooth as any other moment. White
 * noise has no lattice (the same anchor is enough: it has no continuity to
 * keep). Simplex's skewed lattice has no period along w (its skew is
 * irrational), so it loops by a cross-fade: see simplex_loop.
 */
static double loop_phase(double t, double period)
{
    double ph = t / period;
    return isfinite(ph) ? ph - floor(ph) : 0.0;
}

/* Simplex over a loop of C cells in w: the field at u and at u - C, mixed
 * linearly by u / C (u the wrapped noise-space time in [0, C)), so the
 * loop's end meets its start; a convex mix keeps the range, and its
 * contrast dips mid-loop (two unrelated fields averaged). Points whose
 * offset in w crosses the seam are wrapped themselves. grad (optional):
 * the mix's analytic gradient, in noise space. */
static int simplex_loop(ng_ctx *ctx, ng_basis_fn fn, ng_basis_d_fn fd, ng_noise_pts *pts, float *out, float *grad)
{
    const int n = pts->n, dims = pts->dims;
    const double c = pts->period[3], a = pts->anchor[3];
    const float ws = ng_pts_scale(pts, 3);
    float *wt = ng_scratch(ctx, 1), *g = ng_scratch(ctx, 1), *other = ng_scratch(ctx, 1);
    float *ograd = grad ? ng_scratch(ctx, dims) : NULL, *tmp = grad && !fd ? ng_scratch(ctx, 1) : NULL;
    const float *w0 = pts->f[3];
    int i, d, rc = -1;
    if (!wt || !g || !other || (grad && !ograd) || (grad && !fd && !tmp)) goto done;
    for (i = 0; i < n; i++) {
        const float off = w0[i] * ws;
        const double uu = a + (double)off, k = floor(uu / c);
        g[i] = k == 0.0 ? off : (float)(uu - k * c - a);
        wt[i] = (float)((uu - k * c) / c);
    }
    pts->f[3] = g;
    pts->scale[3] = 1.0f;
    if (grad) value_and_gradient(fn, fd, pts, out, grad, tmp);
    else fn(pts, out);
    pts->anchor[3] = a - c;
    if (grad) value_and_gradient(fn, fd, pts, other, ograd, tmp);
    else fn(pts, other);
    pts->anchor[3] = a;
    if (grad)
        for (d = 0; d < dims; d++) {
            float *ga = grad + (size_t)d * (size_t)n, *gb = ograd + (size_t)d * (size_t)n;
            for (i = 0; i < n; i++) /* the weight grows by 1 / c per cell along w */
                ga[i] = ga[i] + (gb[i] - ga[i]) * wt[i] + (d == 3 ? (other[i] - out[i]) / (float)c : 0.0f);
        }
    for (i = 0; i < n; i++) out[i] = out[i] + (other[i] - out[i]) * wt[i];
    rc = 0;
done:
    ng_scratch_free(ctx, tmp, 1);
    ng_scratch_free(ctx, ograd, dims);
    ng_scratch_free(ctx, other, 1);
    ng_scratch_free(ctx, g, 1);
    ng_scratch_free(ctx, wt, 1);
    return rc;
}

/* Flow noise in 4D: the 3D flow field whose gradients turn with time, the
 * phase flow + w turns (w in noise space: one turn per lattice cell of
 * time, so a loop of whole cells turns whole turns). Runs of points at one
 * time (a render's block is one) share a rotation. */
static void flow_in_time(const ng_noise_pts *p, float *out)
{
    const ng_basis_fn flow3 = ng__kernel(ng__path(), NG_BASIS_FLOW);
    const float ws = ng_pts_scale(p, 3);
    ng_noise_pts q = *p;
    int i = 0, j, d;
    q.dims = 3;
    q.period[3] = 0;
    while (i < p->n) {
        const float w = p->f[3][i];
        double ph;
        for (j = i + 1; j < p->n && p->f[3][j] == w; j++) continue;
        ph = (double)p->flow + p->anchor[3] + (double)(w * ws);
        q.flow = isfinite(ph) ? (float)(ph - floor(ph)) : 0.0f;
        q.n = j - i;
        for (d = 0; d < 3; d++) q.f[d] = p->f[d] + i;
        flow3(&q, out + i);
        i = j;
    }
}

/* Component d (< 3) of a driven vector option of `ch` channels at sample i;
 * a 1-channel node gives every axis, a 2-channel one x and y. */
static const float *component(const float *v, int ch, int d, int n)
{
    return d < ch ? v + (size_t)d * (size_t)n : ch == 1 ? v : NULL;
}

/* Sample i's frequency along axis d, world to lattice, as prepare computes
 * it from the numbers (the same expression, so equal options give equal
 * bits), times freq_scale. */
static double freq_at(const ng_node *n, const ng_unified *u, const ng_unified_in *drv, int d, int i, int len,
                      double freq_scale)
{
    const double size = drv->size ? ng_driven(n, P_SIZE, 0, drv->size[i]) : ng_num(n, P_SIZE);
    const float *sc = d < 3 && drv->scale ? component(drv->scale, drv->scale_ch, d, len) : NULL;
    const double scale = d == 3 ? 1 : sc ? ng_driven(n, P_SCALE, d, sc[i]) : n->param[P_SCALE].v[d];
    return (d < 3 ? u->freq_mult / (size * scale) : u->freq_mult / size) * freq_scale;
}

/* A per-sample difference as a float offset: far beyond any lattice the
 * kernels resolve, and within float's range. */
static float offset_float(double v)
{
    return (float)(v > 1e30 ? 1e30 : v < -1e30 ? -1e30 : v);
}

/* Axis d's offset when it is a number (a driving node of fewer channels
 * leaves the others to the number), else 0. */
static double offset_number(const ng_node *n, const ng_unified_in *drv, int d, int len)
{
    if (d >= 3 || (drv->offset && component(drv->offset, drv->offset_ch, d, len))) return 0;
    return n->param[P_OFFSET].v[d];
}

/* Noise-space offsets of axis d when a node drives the offset or the
 * element size: the kernel's anchor is a * fref (a: the block anchor, plus
 * the offset when it is a number) and point i adds p_i f_i plus
 * a (f_i - fref) + o_i f_i, the difference of its own options. */
static void positions_at(const ng_node *n, const ng_unified *u, const ng_unified_in *drv, const ng_block *b, int d,
                         double a, double fref, double freq_scale, float *out)
{
    const float *off = d < 3 && drv->offset ? component(drv->offset, drv->offset_ch, d, b->n) : NULL;
    const int varies = drv->size || (drv->scale && d < 3);
    int i;
    for (i = 0; i < b->n; i++) {
        const double f = varies ? freq_at(n, u, drv, d, i, b->n, freq_scale) : fref;
        const double extra = a * (f - fref) + (off ? ng_driven(n, P_OFFSET, d, off[i]) * f : 0);
        out[i] = b->p[d][i] * (float)f;
        if (extra != 0) out[i] += offset_float(extra);
    }
}

/* Whether the kernel's one multiply per axis, p * (p_scale * frequency),
 * gives the bits of p * p_scale then times the frequency: p * p_scale is
 * exact (ng_node.h), so both round the same real number once, provided
 * p_scale * frequency, a power of two times a float, is exact too (no
 * overflow). Driven options and a zero frequency prepare positions in a
 * pass of their own: b's scale is multiplied out first. */
static int folds_p_scale(const ng_block *b, const double *freq, int moved)
{
    int d;
    if (b->p_scale == 0.0f) return 1;
    if (moved) return 0;
    for (d = 0; d < b->dims; d++) {
        const float fr = (float)freq[d];
        if (fr == 0.0f || !isfinite(b->p_scale * fr)) return 0;
    }
    return 1;
}

/* The kernel over runs of points whose driven jitter and flow are equal:
 * both are one value per kernel call. */
static void kernel_runs(const ng_node *n, ng_basis_fn fn, const ng_noise_pts *pts, const ng_unified_in *drv,
                        float *out)
{
    int start = 0, end, d;
    while (start < pts->n) {
        ng_noise_pts run = *pts;
        if (drv->jitter) run.jitter = (float)ng_driven(n, P_JITTER, 0, drv->jitter[start]);
        if (drv->flow) {
            const double f = ng_driven(n, P_FLOW, 0, drv->flow[start]);
            run.flow = (float)(f - floor(f));
        }
        for (end = start + 1; end < pts->n; end++) {
            if (drv->jitter && (float)ng_driven(n, P_JITTER, 0, drv->jitter[end]) != run.jitter) break;
            if (drv->flow) {
                const double f = ng_driven(n, P_FLOW, 0, drv->flow[end]);
                if ((float)(f - floor(f)) != run.flow) break;
            }
        }
        run.n = end - start;
        for (d = 0; d < pts->dims; d++) run.f[d] = pts->f[d] + start;
        fn(&run, out + start);
        start = end;
    }
}

/* Gradient planes g[c * dims + d] (c < channels) times freq[d], then
 * times gall unless it is 1: the multiplies a gradient kernel does itself
 * with ng_noise_pts.gmul, as passes. */
static void scale_gradient(const ng_loops *loops, float *grad, int channels, int dims, int n, const double *freq,
                           float gall)
{
    int c, d;
    for (c = 0; c < channels; c++)
        for (d = 0; d < dims; d++) { /* per cell -> per world unit */
            float *g = grad + ((size_t)c * (size_t)dims + (size_t)d) * (size_t)n;
            loops->scale(g, g, (float)freq[d], n);
        }
    if (gall != 1.0f) loops->scale(grad, grad, gall, n * dims * channels);
}

/* Asks a gradient kernel to multiply by freq and gall itself (1), unless
 * one is 0, which gmul would read as 1 (0: scale_gradient does). */
static int kernel_scales(ng_noise_pts *pts, int dims, const double *freq, float gall)
{
    int d;
    if (gall == 0.0f) return 0;
    for (d = 0; d < dims; d++)
        if ((float)freq[d] == 0.0f) return 0;
    for (d = 0; d < dims; d++) pts->gmul[d] = (float)freq[d];
    pts->gmul_all = gall;
    return 1;
}

/* Worley's POSITION: the kernel's vectors from each sample to its nearest
 * feature (noise space, dims planes) become world positions, w + r / f
 * along each axis (f the sample's frequency: its noise coordinate is
 * (w + offset) f), summed in double so a position far from the origin
 * is as fine as a float holds. Channels past dims are 0. */
static int world_positions(ng_ctx *ctx, const ng_node *n, const ng_unified *u, const ng_unified_in *drv,
                           ng_basis_fn fn, ng_noise_pts *pts, const ng_block *b, const double *freq,
                           double freq_scale, int channels, float *out)
{
    const int dims = b->dims, varies = drv->size || drv->scale, moved = varies || drv->offset;
    const double ps = b->p_scale != 0.0f ? b->p_scale : 1.0;
    float *rel = ng_scratch(ctx, 2 * dims);
    int c, i;
    if (!rel) return -1;
    pts->plane = b->n;
    pts->cells = 1;
    if (drv->jitter) kernel_runs(n, fn, pts, drv, rel);
    else fn(pts, rel);
    for (c = 0; c < channels; c++) {
        float *o = out + (size_t)c * (size_t)b->n;
        const float *r = rel + (size_t)c * (size_t)b->n;
        const double fs = ng_pts_scale(pts, c), off = offset_number(n, drv, c, b->n);
        if (c >= dims) {
            memset(o, 0, (size_t)b->n * sizeof *o);
        } else if (!moved && !(c == 3 && pts->period[3]) && pts->f[c] == b->p[c]) {
            /* The feature's noise coordinate whole: its cell, the integer
             * nearest the point's coordinate plus the vector less the
             * coordinate inside it (their float rounding is ~1e-7 of a
             * cell), plus that coordinate, exact. The same for every point
             * that finds the feature, so its world position has the same
             * bits in every sample of its cell: a key for scattering. The
             * kernel's anchor is (a + offset) f (basis_at; channel 0, no
             * shift). */
            const float *in = rel + (size_t)(dims + c) * (size_t)b->n;
            for (i = 0; i < b->n; i++) {
                const double at = pts->anchor[c] + (double)b->p[c][i] * fs;
                const double whole = nearbyint(at + (double)r[i] - (double)in[i]) + (double)in[i];
                o[i] = (float)(whole / freq[c] - off);
            }
        } else { /* moved per sample: the point's own position plus the vector */
            for (i = 0; i < b->n; i++) {
                const double f = varies ? freq_at(n, u, drv, c, i, b->n, freq_scale) : freq[c];
                o[i] = (float)(b->anchor[c] + (double)b->p[c][i] * ps + (double)r[i] / f);
            }
        }
    }
    ng_scratch_free(ctx, rel, 2 * dims);
    return 0;
}

/* Whether basis_at hands a turned block's turn to the kernel: the lattice
 * family's plain kernels (not flow's 4D, which runs in time; not a tiled
 * one: a turned octave has no period), for positions the kernel scales
 * itself (not moved by a driven offset, size or scale, no frequency
 * below float's range), with an analytic gradient if any, no vector
 * channels. Runs of driven flow (kernel_runs) read the turn as the whole
 * call does: the isotropic 3D kernels fold turn, frequency and lattice
 * orientation into one matrix, whose bits the pass does not give, so a
 * driver equal to the number keeps the number's bits only this way. */
static int kernel_turns(int type, const ng_block *b, const ng_unified_in *drv, int moved, int vector,
                        const double *freq)
{
    int d;
    if (type != NG_BASIS_VALUE && type != NG_BASIS_PERLIN && type != NG_BASIS_FAST && type != NG_BASIS_FLOW) return 0;
    if (b->dims < 2 || (type == NG_BASIS_FLOW && b->dims == 4) || moved || vector || drv->jitter) return 0;
    if (b->turn_axes != (b->dims < 3 ? b->dims : 3)) return 0; /* the kernel turns min(dims, 3) axes */
    for (d = 0; d < b->dims; d++)
        if (b->period[d] > 0 || (float)freq[d] == 0.0f) return 0; /* a zero frequency: a pass (basis_at) */
    return 1;
}

/* One channel, or with vec every one of `vector` channels from vec's one
 * lattice walk (at channel 0's seed and lattice: out holds vector planes).
 * grad: per world unit, then times gall (the output's scale). */
static int basis_at(ng_ctx *ctx, const ng_node *n, const ng_unified *u, const ng_unified_in *drv, int type,
                    uint32_t channel, ng_vector_fn vec, ng_vector_d_fn vec_d, int vector, double freq_scale,
                    float gall, const ng_block *b, float *out, float *grad)
{
    static const ng_unified_in none;
    const basis *bs = &bases[type];
    const int own = n->type == &ng_type_noise; /* basis-specific options exist */
    float *f = NULL, *tmp = NULL; /* f: scaled positions, for a zero frequency or driven options */
    float *unscaled = NULL;
    const ng_path *path = ng__path();
    const ng_loops *loops = &path->loops;
    ng_basis_fn fn = ng__kernel(path, type);
    ng_basis_d_fn fd_grad = ng__kernel_grad(path, type);
    double freq[4];
    ng_noise_pts pts;
    ng_block plain;
    int d, moved, rc = 0;
    if (!drv) drv = &none;
    moved = drv->offset || drv->size || drv->scale;
    memset(&pts, 0, sizeof pts);
    pts.n = b->n;
    pts.dims = b->dims;
    pts.flow = own ? (float)(ng_num(n, P_FLOW) - floor(ng_num(n, P_FLOW))) : 0.0f;
    pts.jitter = own ? (float)ng_num(n, P_JITTER) : 1.0f;
    pts.feature = own ? ng_int(n, P_FEATURE) : NG_WORLEY_F1;
    pts.metric = own ? ng_int(n, P_METRIC) : NG_METRIC_EUCLIDEAN;
    pts.exponent = own ? (float)ng_num(n, P_EXPONENT) : 2.0f;
    pts.gradients = own ? ng_int(n, P_GRADIENTS) : NG_GRADIENTS_CLASSIC;
    for (d = 0; d < b->dims; d++) {
        freq[d] = (d < 3 ? u->freq[d] : u->freq_w) * freq_scale;
        if (b->period[d] > 0 && (bs->tiling != NG_TILE_NONE || d == 3)) { /* a whole number of cells per period */
            pts.period[d] = period_cells(b->period[d], freq[d]);
            if (d == 3 && pts.period[3] < 2) pts.period[3] = 2; /* one cell would repeat one lattice point: no motion */
            freq[d] = pts.period[d] / b->period[d];
        }
    }
    /* a torus-tiled basis tiles through another kernel, without an analytic gradient */
    if (bs->tiling == NG_TILE_TORUS && pts.period[0] && pts.period[1])
        fn = ng__kernel_tiled(path, type), fd_grad = NULL;
    if (type == NG_BASIS_FLOW && b->dims == 4) fn = flow_in_time, fd_grad = NULL; /* central differences */
    /* a turn is multiplied out in one pass (ng__block_plain), or read by
     * the lattice kernels as they read positions (kernel_turns), with the
     * same float operations: a driven option's positions need the pass,
     * and a driver equal to the number gives the number's bits */
    if (b->turn_axes && kernel_turns(type, b, drv, moved, vec != NULL, freq) && folds_p_scale(b, freq, moved) &&
        (!grad || fd_grad)) {
        pts.turn_axes = b->turn_axes;
        ng__block_turn(b, pts.turn); /* the pass's own matrix */
    } else if (b->turn_axes || !folds_p_scale(b, freq, moved)) { /* a pass, as the evaluator's */
        if (!(unscaled = ng_scratch(ctx, b->dims))) return -1;
        b = ng__block_plain(b, &plain, unscaled);
    }
    for (d = 0; d < b->dims; d++) { /* positions -> noise space: the kernel multiplies */
        float fr = (float)freq[d];
        if (fr != 0.0f && !moved) {
            pts.f[d] = b->p[d];
            /* exact (folds_p_scale); a turned axis has p_scale in its turn */
            pts.scale[d] = b->p_scale != 0.0f && d >= pts.turn_axes ? b->p_scale * fr : fr;
        } else { /* a frequency below float's range (0 would read as "no scale"), or per sample */
            if (!f && !(f = ng_scratch(ctx, b->dims))) return -1;
            if (moved)
                positions_at(n, u, drv, b, d, b->anchor[d] + offset_number(n, drv, d, b->n), freq[d], freq_scale,
                             f + (size_t)d * (size_t)b->n);
            else
                loops->scale(f + (size_t)d * (size_t)b->n, b->p[d], fr, b->n);
            pts.f[d] = f + (size_t)d * (size_t)b->n;
        }
    }
    /* Vector channels are shifted off each other's lattice as well as
     * reseeded, so they do not all vanish at the same points; with a period
     * there is no shift, so tiling is kept. */
    for (d = 0; d < b->dims; d++) {
        double shift = pts.period[d] ? 0 : channel * (0.3819660113 + 0.1 * d);
        pts.anchor[d] = (b->anchor[d] + offset_number(n, drv, d, b->n)) * freq[d] + shift;
    }
    if (b->dims == 4 && pts.period[3]) pts.anchor[3] = loop_phase(b->anchor[3], b->period[3]) * pts.period[3];
    pts.seed = mix_seed(mix_seed(u->seed, b->seed), channel);
    if (own && type == NG_BASIS_WORLEY && pts.feature == NG_WORLEY_POSITION) {
        rc = world_positions(ctx, n, u, drv, fn, &pts, b, freq, freq_scale, vector, out);
    } else if (vec && grad) {
        const int scaled = kernel_scales(&pts, b->dims, freq, gall);
        vec_d(&pts, vector, out, grad); /* the same bits as vec, gradient planes c * dims + e */
        if (scaled) grad = NULL;
    } else if (vec) {
        vec(&pts, vector, out);
    } else if (type == NG_BASIS_SIMPLEX && b->dims == 4 && pts.period[3]) {
        rc = simplex_loop(ctx, fn, fd_grad, &pts, out, grad);
    } else if (grad && fd_grad) {
        const int scaled = kernel_scales(&pts, b->dims, freq, gall);
        fd_grad(&pts, out, grad); /* value bit-identical to fn's, gradient analytic */
        if (scaled) grad = NULL;
    } else if (grad) {
        if (!(tmp = ng_scratch(ctx, 1))) rc = -1;
        else value_and_gradient(fn, NULL, &pts, out, grad, tmp);
        ng_scratch_free(ctx, tmp, 1);
    } else if (drv->jitter || drv->flow) {
        kernel_runs(n, fn, &pts, drv, out);
    } else {
        fn(&pts, out);
    }
    if (rc == 0 && grad) scale_gradient(loops, grad, vec ? vector : 1, b->dims, b->n, freq, gall);
    ng_scratch_free(ctx, f, b->dims);
    ng_scratch_free(ctx, unscaled, b->dims);
    return rc;
}

int ng__noise_basis(ng_ctx *ctx, const ng_node *n, const ng_unified *u, const ng_unified_in *drv, int type,
                    uint32_t channel, double freq_scale, const ng_block *b, float *out, float *grad)
{
    return basis_at(ctx, n, u, drv, type, channel, NULL, NULL, 0, freq_scale, 1.0f, b, out, grad);
}

void ng__unified_in(ng_ctx *ctx, const ng_node *n, const float *const *in, int jitter, int flow, ng_unified_in *drv)
{
    int s;
    memset(drv, 0, sizeof *drv);
    drv->size = ng_driver(n, in, NG_U_SIZE);
    drv->amp = ng_driver(n, in, NG_U_AMP);
    if ((s = ng_driver_slot(n, NG_U_SCALE)) >= 0) {
        drv->scale = in[s];
        drv->scale_ch = ng_input_channels(ctx, n, s);
    }
    if ((s = ng_driver_slot(n, NG_U_OFFSET)) >= 0) {
        drv->offset = in[s];
        drv->offset_ch = ng_input_channels(ctx, n, s);
    }
    if (jitter >= 0) drv->jitter = ng_driver(n, in, jitter);
    if (flow >= 0) drv->flow = ng_driver(n, in, flow);
}

void ng__unified_map(const ng_node *n, const ng_unified *u, const ng_unified_in *drv, float *out, int len)
{
    const float scale = (float)u->scale, bias = (float)u->bias;
    int i;
    if (!drv->amp) {
        if (scale != 1.0f || bias != 0.0f) /* the natural range needs no pass */
            ng__loops()->scale_bias(out, out, scale, bias, len);
        return;
    }
    for (i = 0; i < len; i++) { /* as prepare maps it, with this sample's amplitude */
        const double amp = ng_driven(n, P_AMP, 0, drv->amp[i]);
        const float s = (float)(amp * u->span / u->natural), o = (float)(amp * u->base);
        if (s != 1.0f || o != 0.0f) out[i] = out[i] * s + o;
    }
}

/* The basis with its output mapping, channels 0 .. channels - 1, at b. */
typedef struct noise_call {
    const ng_unified_in *drv;
    int channels;
} noise_call;

/* The kernel computing every channel of `vector` output in one lattice walk
 * (kernels.h), or NULL: one call per channel, each reseeded and shifted
 * off the others' lattice (bases without a vector kernel; a torus-tiled
 * simplex; a looping 4D simplex, which cross-fades two calls). The two
 * ways give different pictures; both keep every channel's range. */
static ng_vector_fn vector_kernel(int type, const ng_block *b)
{
    if (bases[type].tiling == NG_TILE_TORUS && b->period[0] > 0 && b->period[1] > 0) return NULL;
    if (b->dims == 4 && b->period[3] > 0) return NULL;
    return ng__kernel_vector(ng__path(), type, b->dims);
}

static int noise_channels(ng_ctx *ctx, const ng_node *n, const ng_block *b, float *out, void *user)
{
    const noise_call *call = user;
    const ng_unified *u = n->state;
    const int type = ng_int(n, P_TYPE);
    const ng_vector_fn vec = call->channels > 1 || n->channels > 1 ? vector_kernel(type, b) : NULL;
    int c;
    if (is_position(n)) /* world positions: no range to map */
        return basis_at(ctx, n, u, call->drv, type, 0, NULL, NULL, call->channels, 1.0, 1.0f, b, out, NULL);
    if (vec) {
        if (basis_at(ctx, n, u, call->drv, type, 0, vec, NULL, call->channels, 1.0, 1.0f, b, out, NULL)) return -1;
        for (c = 0; c < call->channels; c++) ng__unified_map(n, u, call->drv, out + (size_t)c * (size_t)b->n, b->n);
        return 0;
    }
    for (c = 0; c < call->channels; c++) {
        float *o = out + (size_t)c * (size_t)b->n;
        if (ng__noise_basis(ctx, n, u, call->drv, ng_int(n, P_TYPE), (uint32_t)c, 1.0, b, o, NULL)) return -1;
        ng__unified_map(n, u, call->drv, o, b->n);
    }
    return 0;
}

/* Each sample's finest feature size when a node drives the element size:
 * as prepare computes it from the numbers. Doubles, in det (2 floats each). */
static void details_at(const ng_node *n, const ng_unified_in *drv, double *det, int len)
{
    const noise_state *st = n->state;
    int i, d;
    for (i = 0; i < len; i++) {
        const double size = drv->size ? ng_driven(n, P_SIZE, 0, drv->size[i]) : ng_num(n, P_SIZE);
        double sc[3];
        for (d = 0; d < 3; d++) {
            const float *v = drv->scale ? component(drv->scale, drv->scale_ch, d, len) : NULL;
            sc[d] = v ? ng_driven(n, P_SCALE, d, v[i]) : n->param[P_SCALE].v[d];
        }
        det[i] = ng_int(n, P_TYPE) == NG_BASIS_WHITE ? 0 : size * fmin(sc[0], fmin(sc[1], sc[2])) / st->u.freq_mult;
    }
}

/* The built-in fractal's numbers, as ng.fractal reads its own. */
static void fractal_of(const ng_node *n, ng_fractal *f)
{
    const noise_state *st = n->state;
    const int fractal = ng_int(n, P_FRACTAL);
    memset(f, 0, sizeof *f);
    f->type = fractal_type(fractal);
    f->normalize = ng_int(n, P_NORMALIZE);
    f->antialias = ng_int(n, P_ANTIALIAS);
    f->octaves = ng_num(n, P_OCTAVES);
    f->lacunarity = ng_num(n, P_LACUNARITY);
    f->roughness = ng_num(n, P_ROUGHNESS);
    f->detail = st->basis_detail;
    f->offset = ng_num(n, P_FOFFSET);
    f->gain = ng_num(n, P_GAIN);
    f->rotate = ng_int(n, P_ROTATE);
    f->source_turns = 1; /* basis_at turns as its kernel reads, or in a pass */
}

static int noise_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const int fractal = ng_int(n, P_FRACTAL);
    ng_unified_in drv;
    noise_call call;
    ng_fractal f;
    float *det = NULL;
    int rc;
    ng__unified_in(ctx, n, in, P_JITTER, P_FLOW, &drv);
    call.drv = &drv;
    call.channels = b->channels;
    if (fractal == FRACTAL_NONE) return noise_channels(ctx, n, b, out, &call);
    fractal_of(n, &f);
    f.roughness_at = ng_driver(n, in, P_ROUGHNESS);
    f.lacunarity_at = ng_driver(n, in, P_LACUNARITY);
    if (drv.size || drv.scale) { /* each sample cuts its octaves off at its own feature size */
        if (!(det = ng_scratch(ctx, 2))) return -1;
        details_at(n, &drv, (double *)(void *)det, b->n);
        f.detail_at = (const double *)(const void *)det;
    }
    rc = ng__fractal_sum(ctx, n, &f, b, b->channels, noise_channels, &call, out);
    ng_scratch_free(ctx, det, 2);
    return rc;
}

/* noise_channels with gradients: channels c < b->channels (the ones the
 * consumer reads), each gradient in the dims planes from c * dims
 * (ng_pull_grad's layout); the output mapping scales both. Only without
 * driven options (the caller checks). */
static int noise_channels_grad(ng_ctx *ctx, const ng_node *n, const ng_block *b, float *out, float *grad, void *user)
{
    static const ng_unified_in none;
    const ng_unified *u = n->state;
    const size_t plane = (size_t)b->n;
    const int type = ng_int(n, P_TYPE), channels = b->channels;
    const ng_vector_fn vec = n->channels > 1 ? vector_kernel(type, b) : NULL;
    const ng_vector_d_fn vec_d = vec ? ng__kernel_vector_d(ng__path(), type, b->dims) : NULL;
    int c;
    (void)user;
    if (vec && vec_d) { /* the one-walk field noise_channels gives, with its gradients (scaled) */
        if (basis_at(ctx, n, u, &none, type, 0, vec, vec_d, channels, 1.0, (float)u->scale, b, out, grad)) return -1;
        for (c = 0; c < channels; c++) ng__unified_map(n, u, &none, out + (size_t)c * plane, b->n);
        return 0;
    }
    for (c = 0; c < channels; c++) {
        float *o = out + (size_t)c * plane, *g = grad + (size_t)c * (size_t)b->dims * plane;
        if (basis_at(ctx, n, u, &none, type, (uint32_t)c, NULL, NULL, 0, 1.0, (float)u->scale, b, o, g)) return -1;
        ng__unified_map(n, u, &none, o, b->n);
    }
    return 0;
}

/* Value and world-space gradient of the channels the consumer reads, the
 * built-in fractal summed as ng.fractal sums it (octaves.c); 1 (central
 * differences instead) for driven options. */
static int noise_eval_grad(ng_ctx *ctx, const ng_node *n, const ng_block *b, float *out, float *grad)
{
    const int fractal = ng_int(n, P_FRACTAL);
    ng_fractal f;
    if (n->ndrivers > 0 || is_position(n)) return 1;
    if (fractal == FRACTAL_NONE) return noise_channels_grad(ctx, n, b, out, grad, NULL);
    fractal_of(n, &f);
    return ng__fractal_sum_grad(ctx, n, &f, b, b->channels, noise_channels_grad, NULL, out, grad);
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
    .changed = noise_changed,
    .nchanged = (int)(sizeof noise_changed / sizeof noise_changed[0]),
    .setup = noise_setup,
    .tile_check = noise_tile_check,
    .node_params = NG_U_NODE_PLACE | NG_U_NODE_SIZE | 1ull << P_JITTER | 1ull << P_FLOW | 1ull << P_LACUNARITY |
                   1ull << P_ROUGHNESS,
    .eval_grad = noise_eval_grad,
    .eval = noise_eval,
    .takes_p_scale = 1,
    .takes_turn = 1, /* basis_at */
};
