/*
 * cloud.c — Houdini-style cloud noise: a fractal of perlin or simplex noise
 * where each octave's sample position is displaced along the gradient of
 * what the octaves before it have accumulated. Detail then flows around the
 * large shapes instead of sitting on them: billowy, rounded cloud forms.
 *
 * distortion > 0 moves samples toward decreasing values (downhill), < 0
 * uphill; 0 is exactly the plain fractal of the same noise (same seeds,
 * scales, weights and cut-off, so the same bits). stretch scales the
 * displacement per axis; droop adds a displacement along a direction in
 * proportion to the value so far (dense parts sag). An optional Worley
 * layer (1 - 2 F1) adds cauliflower-like puffs.
 *
 * Nodes may give offset, amplitude and distortion per sample (a mask of
 * where clouds billow); a sample whose values equal the numbers gets the
 * numbers' bits.
 *
 * Units: octave k is displaced by distortion * e_k^2 * (gradient of the
 * normalised sum so far, per world unit), e_k its own element size: a
 * distortion of 1 moves a sample about one of its elements where the sum
 * climbs by 1 over one such element.
 */
#include "loops.h"
#include "noise.h"
#include "octaves.h"
#include "types.h"
#include "ngmath.h"

#include <math.h>
#include <string.h>

static const char *const cloud_choices[] = {"perlin", "simplex", "fast_simplex", NULL};
static const int cloud_basis[] = {NG_BASIS_PERLIN, NG_BASIS_SIMPLEX, NG_BASIS_SIMPLEX};
enum { C_FAST_SIMPLEX = 2 };

enum {
    P_TYPE = NG_U_TYPE, P_SIZE = NG_U_SIZE, P_SCALE = NG_U_SCALE, P_OFFSET = NG_U_OFFSET, P_AMP = NG_U_AMP,
    P_SEED = NG_U_SEED, P_RANGE = NG_U_RANGE,
    P_OCTAVES = NG_U_COUNT, P_LACUNARITY, P_ROUGHNESS, P_DISTORTION, P_STRETCH, P_DROOP, P_WORLEY, P_WORLEY_SIZE, P_ANTIALIAS,
    NPARAMS
};

static const ng_param_desc cloud_params[NPARAMS] = {
    NG_UNIFIED_PARAMS(cloud_choices, 0,
                      "perlin, simplex, or fast_simplex (simplex whose displacement follows the first octave's "
                      "gradient only: cheaper, smoother flow)"),
    {"octaves", NG_PARAM_NUMBER, {6}, 1, 32, NULL, "how many octaves; a fraction fades the last one in"},
    {"lacunarity", NG_PARAM_NUMBER, {2}, 1, 16, NULL, "frequency ratio between octaves"},
    {"roughness", NG_PARAM_NUMBER, {0.5}, 0, 2, NULL, "amplitude ratio between octaves"},
    {"distortion", NG_PARAM_NUMBER, {-0.2}, -100, 100, NULL,
     "how far each octave is pushed along the gradient so far, in elements per unit of slope: > 0 downhill "
     "(veined, wispy), < 0 uphill (puffy, billowy), 0 the plain fractal; useful values are within +-0.3; "
     "a node varies it per sample"},
    {"stretch", NG_PARAM_VEC3, {1, 1, 1}, -1e6, 1e6, NULL, "per-axis multiplier of the distortion"},
    {"droop", NG_PARAM_VEC3, {0, 0, 0}, -1e6, 1e6, NULL,
     "sag: displacement in elements per unit of value so far, along this direction (e.g. {0, 0.3, 0} sags down)"},
    {"worley", NG_PARAM_NUMBER, {0}, 0, 1, NULL, "blend of a Worley detail layer (1 - 2 F1): puffy cauliflower edges"},
    {"worley_size", NG_PARAM_NUMBER, {0.25}, 1e-4, 1e4, NULL, "Worley cell size relative to element_size"},
    {"antialias", NG_PARAM_BOOL, {1}, 0, 1, NULL, "skip octaves whose features are under two pixels (they would alias)"},
};

static const ng_shorthand cloud_shorthands[] = {
    {"perlin_cloud", "type", "perlin"},
    {"simplex_cloud", "type", "simplex"},
    {"fast_simplex_cloud", "type", "fast_simplex"},
};

typedef struct cloud_state {
    ng_unified u;
    double first_detail; /* the first octave's feature size */
} cloud_state;

static int cloud_setup(ng_node *n, const int *ch, ng_error *err)
{
    const double oct = ng_num(n, P_OCTAVES);
    cloud_state *st;
    (void)ch;
    if (!(st = ng_node_state_alloc(n, sizeof *st, err))) return -1;
    ng__noise_prepare(n, cloud_basis[ng_int(n, P_TYPE)], &st->u);
    st->first_detail = n->detail;
    n->detail /= ng_pow(ng_num(n, P_LACUNARITY), ceil(oct) - 1);
    return 0;
}

/* The next octave's positions with a distortion per sample: as the loop's
 * displace, dg computed per sample exactly as the number's is. */
static void displace_at(const ng_node *node, float *restrict out, const float *restrict p, const float *restrict g,
                        const float *dist, double stretch, double next, double partial, const float *restrict v,
                        float dv, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        const float dg = (float)(-ng_driven(node, P_DISTORTION, 0, dist[i]) * stretch * next * next / partial);
        out[i] = p[i] + g[i] * dg + v[i] * dv;
    }
}

/* The output mapping with an amplitude per sample, as the number's. */
static void map_at(const ng_node *node, const ng_unified *u, const float *amp, float *out, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        const double a = ng_driven(node, P_AMP, 0, amp[i]);
        out[i] = out[i] * (float)(a * u->span / u->natural) + (float)(a * u->base);
    }
}

static int cloud_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const cloud_state *st = n->state;
    const int type = ng_int(n, P_TYPE), basis = cloud_basis[type], dims = b->dims, len = b->n;
    const double distortion = ng_num(n, P_DISTORTION), cell = ng_num(n, P_SIZE), wmix = ng_num(n, P_WORLEY);
    const double *stretch = n->param[P_STRETCH].v, *droop = n->param[P_DROOP].v;
    const float *dist_at = ng_driver(n, in, P_DISTORTION);
    const int drooping = droop[0] != 0 || droop[1] != 0 || droop[2] != 0;
    const int distorting = distortion != 0 || dist_at;
    const int moving = distorting || drooping;
    const ng_loops *L = ng__loops();
    float *pos = ng_scratch(ctx, dims), *oct = ng_scratch(ctx, 1);
    float *moved = moving ? ng_scratch(ctx, dims) : NULL, *grad = moving ? ng_scratch(ctx, dims) : NULL;
    float *acc = moving ? ng_scratch(ctx, dims) : NULL; /* gradient of the weighted sum, per world unit */
    double scale = 1, partial = 0;
    ng_unified_in drv;
    ng_octaves o;
    int k, d, i, rc = -1;
    ng__unified_in(ctx, n, in, -1, -1, &drv);
    if (!pos || !oct || (moving && (!moved || !grad || !acc))) goto done;
    ng__octaves_init(&o, ng_num(n, P_OCTAVES), ng_num(n, P_LACUNARITY), ng_num(n, P_ROUGHNESS));
    for (i = 0; i < len; i++) out[i] = 0;
    if (moving) {
        for (i = 0; i < len * dims; i++) acc[i] = 0;
        for (d = 0; d < dims; d++) memcpy(moved + (size_t)d * len, b->p[d], (size_t)len * sizeof(float));
    }
    for (k = 0; k < o.count; k++, scale *= o.lacunarity) {
        const double w = ng__octave_weight(&o, k), a = ng__octave_antialias(st->first_detail, b, scale, k, ng_int(n, P_ANTIALIAS));
        const float fw = (float)(w * a);
        const int want_grad = distorting && k + 1 < o.count && (type != C_FAST_SIMPLEX || k == 0);
        ng_block ob;
        if (a <= 0) break;
        ng__octave_block(ctx, b, k, scale, moving && k > 0 ? moved : NULL, pos, &ob);
        if (ng__noise_basis(ctx, n, &st->u, &drv, basis, 0, 1.0, &ob, oct, want_grad ? grad : NULL)) goto done;
        L->axpy(out, oct, fw, len);
        partial += w;
        if (!moving || k + 1 == o.count) continue;
        if (want_grad) /* d/dp n(p * scale) = scale * grad n */
            L->axpy(acc, grad, (float)(fw * scale), len * dims);
        for (d = 0; d < dims; d++) {
            /* the next octave samples at p + displacement(sum so far), in
             * units of that octave's own element, so fine octaves move by
             * fine amounts and the result looks alike at every scale */
            const double next = cell / (scale * o.lacunarity);
            const float dg = (float)(-distortion * (d < 3 ? stretch[d] : 1) * next * next / partial);
            const float dv = (float)((d < 3 ? droop[d] : 0) * next / partial);
            if (dist_at)
                displace_at(n, moved + (size_t)d * len, b->p[d], acc + (size_t)d * len, dist_at, d < 3 ? stretch[d] : 1,
                            next, partial, out, dv, len);
            else
                L->displace(moved + (size_t)d * len, b->p[d], acc + (size_t)d * len, dg, out, dv, len);
        }
    }
    if (o.total > 0) L->scale(out, out, (float)(1.0 / o.total), len);
    if (wmix > 0) { /* puffs: 1 - 2 F1 in [-1, 1], blended so the sum stays in [-1, 1] */
        ng_block wb = *b;
        const float wm = (float)wmix, norm = (float)(1.0 / (1.0 + wmix));
        if (moving)
            for (d = 0; d < dims; d++) wb.p[d] = moved + (size_t)d * len;
        wb.pos_id = ng_new_pos_id(ctx);
        if (ng__noise_basis(ctx, n, &st->u, &drv, NG_BASIS_WORLEY, 7, 1.0 / ng_num(n, P_WORLEY_SIZE), &wb, oct, NULL))
            goto done;
        L->puff(out, oct, wm, norm, len);
    }
    if (drv.amp) map_at(n, &st->u, drv.amp, out, len);
    else L->scale_bias(out, out, (float)st->u.scale, (float)st->u.bias, len);
    rc = 0;
done:
    ng_scratch_free(ctx, pos, dims);
    ng_scratch_free(ctx, oct, 1);
    ng_scratch_free(ctx, moved, dims);
    ng_scratch_free(ctx, grad, dims);
    ng_scratch_free(ctx, acc, dims);
    return rc;
}

const ng_node_type ng_type_cloud = {
    .name = "cloud",
    .family = "cloud",
    .doc = "Cloud noise: a fractal of perlin or simplex whose octaves are displaced along the gradient of the "
           "sum so far (distortion), for billowy cloud densities; distortion 0 is the plain fBm. Range [-1, 1] "
           "before the range/amplitude mapping.",
    .params = cloud_params,
    .nparams = NPARAMS,
    .dims = NG_DIMS_ALL,
    .shorthands = cloud_shorthands,
    .nshorthands = 3,
    .setup = cloud_setup,
    .node_params = NG_U_NODE_PLACE | 1ull << P_DISTORTION,
    .eval = cloud_eval,
};
