/*
 * terrain_masks.c — the masks a terrain artist builds splat maps from,
 * read from a height field around each point on the engine's
 * neighbourhood lattice (core/hood.c), so every region, tile and thread
 * count of a render gives the same bits:
 *
 * - curvature: mean, plan (across the slope, along the contour) or
 *   profile (down the slope) curvature of z = height * source from the
 *   3 x 3 cells around each cell of the render's pixel lattice (or of
 *   `spacing`), convex positive; as tanh(curvature * scale) in [-1, 1], or
 *   its convex or concave half in [0, 1].
 * - drainage: D-infinity (Tarboton 1997) flow over the lattice of the patch and
 *   its halo of `radius`: each cell sends what reaches it to the one or two
 *   downhill neighbours of its steepest facet, cells taken from the highest
 *   down. Accumulation counts the cells upstream within the halo (drainage
 *   longer than `radius` is not seen), as log(cells) / log(cells of the
 *   reach) in [0, 1]; direction is the unit downhill vector (0 in pits).
 * - mask_distance: the world distance to the nearest cell whose source exceeds
 *   `threshold`, up to `radius`, over radius in [0, 1] (1: none within it),
 *   an exact Euclidean distance transform (Felzenszwalb and Huttenlocher's
 *   lower envelope of parabolas) over the patch and its halo.
 * - splat: four such masks packed into one RGBA weight map, the layer
 *   weights a Unity terrain's splat map or an Unreal weight-blended
 *   material reads: each clamped to [0, 1] and, by default, made to sum
 *   to 1 at every point: scaled down where they sum past 1, and where
 *   they sum below it layer 1, the base, takes the rest (so a mask that
 *   fades out hands its weight to the base, without a jump where the
 *   others reach 0). Pointwise, so it cuts like its masks do.
 */
#include "ng_node.h"
#include "types.h"
#include "ngmath.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { I_SOURCE, NINPUTS };

static const ng_input_desc height_inputs[NINPUTS] = {
    [I_SOURCE] = {"source", NG_INPUT_PULL, 1, 1, 0, "the height field"},
};

/* Patches of 256^2 cells: a one-cell halo costs 4 % more source samples. */
#define PATCH 256

/* A lattice of `spacing` world units, or (0) the render's pixel size for
 * the 1-cell curvature; the reaching masks take radius / cells_per_radius. */
static int declare(ng_node *n, double spacing, double radius, ng_error *err)
{
    const double cells = ceil(radius / spacing - 1e-9);
    return ng_hood_declare(n, spacing, radius, cells > NG_HOOD_MAX_RADIUS ? NG_HOOD_MAX_RADIUS + 1 : (int)cells, err);
}

/* ---- curvature ------------------------------------------------------------------------ */

static const char *const kind_choices[] = {"mean", "plan", "profile", NULL};
enum { K_MEAN, K_PLAN, K_PROFILE };
static const char *const side_choices[] = {"signed", "convex", "concave", NULL};
enum { S_SIGNED, S_CONVEX, S_CONCAVE };
enum { C_KIND, C_OUTPUT, C_HEIGHT, C_SCALE, C_SPACING, C_NPARAMS };

static const ng_param_desc curvature_params[C_NPARAMS] = {
    [C_KIND] = {"kind", NG_PARAM_ENUM, {0}, 0, 0, kind_choices,
                "mean: the average bend; plan: across the slope, along the contour (ridges and gullies); profile: "
                "down the slope (breaks of slope)"},
    [C_OUTPUT] = {"output", NG_PARAM_ENUM, {0}, 0, 0, side_choices,
                  "signed: tanh(curvature * scale) in [-1, 1], convex (ridges, crests) positive; convex: its "
                  "positive half [0, 1]; concave (gullies, valleys): its negative half, as [0, 1]"},
    [C_HEIGHT] = {"height", NG_PARAM_NUMBER, {100}, -1e12, 1e12, NULL,
                  "world units of height per unit of the source's value"},
    [C_SCALE] = {"scale", NG_PARAM_NUMBER, {8}, 1e-9, 1e12, NULL,
                 "world units: a bend of this radius gives tanh(1) = 0.76"},
    [C_SPACING] = {"spacing", NG_PARAM_NUMBER, {0}, 0, 1e12, NULL,
                   "lattice spacing in world units of the 3 x 3 differences; 0: the render's pixel size (a "
                   "larger spacing sees broader forms, the same at every --size)"},
};

static int curvature_setup(ng_node *n, const int *ch, ng_error *err)
{
    (void)ch;
    n->channels = 1;
    return ng_num(n, C_SPACING) > 0 ? ng_hood_declare(n, ng_num(n, C_SPACING), ng_num(n, C_SPACING), 1, err)
                                    : ng_hood_declare_pixel(n, 1, NG_HOOD_ANCHOR_WORLD, err);
}

/* Curvature, convex positive, of z with gradient (p, q) and second
 * derivatives r = z_xx, t = z_yy, s = z_xy (Zevenbergen and Thorne's
 * terms; plan is the tangential curvature, normal to the contour). Where
 * the slope vanishes, plan and profile take the mean. */
static double curvature_of(int kind, double p, double q, double r, double t, double s)
{
    const double g2 = p * p + q * q, w = 1 + g2;
    if (kind == K_MEAN || g2 < 1e-12) return -((1 + q * q) * r - 2 * p * q * s + (1 + p * p) * t) / (2 * w * sqrt(w));
    if (kind == K_PLAN) return -(q * q * r - 2 * p * q * s + p * p * t) / (g2 * sqrt(w));
    return -(p * p * r + 2 * p * q * s + q * q * t) / (g2 * w * sqrt(w));
}

static void curvature_filter(const ng_node *n, const float *in, float *out, float *tmp, int side, int radius,
                             int channels, double spacing)
{
    const int w = side + 2 * radius, kind = ng_int(n, C_KIND), side_of = ng_int(n, C_OUTPUT);
    const double hs = ng_num(n, C_HEIGHT), scale = ng_num(n, C_SCALE), e = spacing;
    int i, j;
    (void)tmp, (void)channels;
    for (j = 0; j < side; j++)
        for (i = 0; i < side; i++) {
            const float *c = in + (size_t)(j + 1) * (size_t)w + (size_t)(i + 1);
            const double z = c[0], zl = c[-1], zr = c[1], zu = c[-w], zd = c[w];
            const double p = hs * (zr - zl) / (2 * e), q = hs * (zd - zu) / (2 * e);
            const double r = hs * (zr - 2 * z + zl) / (e * e), t = hs * (zd - 2 * z + zu) / (e * e);
            const double s = hs * (c[w + 1] - c[w - 1] - c[-w + 1] + c[-w - 1]) / (4 * e * e);
            const double v = ng_tanh(curvature_of(kind, p, q, r, t, s) * scale);
            out[(size_t)j * (size_t)side + (size_t)i] =
                (float)(side_of == S_SIGNED ? v : side_of == S_CONVEX ? (v > 0 ? v : 0) : (v < 0 ? -v : 0));
        }
}

static const ng_hood_type curvature_hood = {
    .input = I_SOURCE, .smooth = 1, .filter_spaced = curvature_filter, .patch = PATCH};

const ng_node_type ng_type_curvature = {
    .name = "curvature", .family = "neighbourhood",
    .doc = "curvature of the height field z = height * source (mean, plan or profile), convex positive, from the "
           "3 x 3 cells around each cell of the render's pixel lattice (or of `spacing`): signed tanh(curvature "
           "* scale) in [-1, 1], or its convex or concave half as a [0, 1] mask. Blur the source first for "
           "broader forms. 2D renders only; the same bits in every cut",
    .params = curvature_params, .nparams = C_NPARAMS, .inputs = height_inputs, .ninputs = NINPUTS,
    .dims = 1u << 2, .positional = "source", .setup = curvature_setup, .eval = ng_hood_eval,
    .tile_check = ng_hood_grid_tile_check, .hood = &curvature_hood,
};

/* ---- drainage (flow) ------------------------------------------------------------------------------- */

static const char *const flow_choices[] = {"accumulation", "direction", NULL};
enum { F_ACCUMULATION, F_DIRECTION };
enum { F_OUTPUT, F_RADIUS, F_SPACING, F_NPARAMS };

static const ng_param_desc flow_params[F_NPARAMS] = {
    [F_OUTPUT] = {"output", NG_PARAM_ENUM, {0}, 0, 0, flow_choices,
                  "accumulation: log(cells draining through here) / log(cells of the reach), [0, 1], 0 on ridges "
                  "and peaks, bright along gullies and rivers; direction: the unit downhill vector (2 channels, "
                  "[-1, 1], 0 in pits and flats)"},
    [F_RADIUS] = {"radius", NG_PARAM_NUMBER, {128}, 1e-9, 1e12, NULL,
                  "world units upstream that are counted: drainage from farther is not seen"},
    [F_SPACING] = {"spacing", NG_PARAM_NUMBER, {0}, 0, 1e12, NULL,
                   "lattice spacing in world units; 0: radius / 64. At most 1024 cells per radius"},
};

static double flow_spacing(const ng_node *n)
{
    return ng_num(n, F_SPACING) > 0 ? ng_num(n, F_SPACING) : ng_num(n, F_RADIUS) / 64;
}

static int flow_setup(ng_node *n, const int *ch, ng_error *err)
{
    (void)ch;
    n->channels = ng_int(n, F_OUTPUT) == F_DIRECTION ? 2 : 1;
    return declare(n, flow_spacing(n), ng_num(n, F_RADIUS), err);
}

/* Cells as sort keys, highest first: the height's bits made to order as
 * unsigned integers, inverted, above the cell's index (ties by index: the
 * same order on every thread); not-a-number heights last. */
static uint64_t height_key(float h, uint32_t index)
{
    uint32_t u;
    memcpy(&u, &h, sizeof u);
    u = h != h ? 0 : (u & 0x80000000u) ? ~u : u | 0x80000000u;
    return (uint64_t)(0xFFFFFFFFu - u) << 32 | index;
}

static int ascending(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The D-infinity receivers of cell (i, j) of a w^2 grid (Tarboton 1997):
 * its steepest of 8 triangular facets, flow split between the facet's
 * cardinal neighbour (*a, share 1 - *f) and diagonal one (*b, share *f);
 * the unit downhill direction in dir. 0 when nothing is downhill. */
static int dinf(const float *h, int w, int i, int j, int32_t *a, int32_t *b, float *f, float dir[2])
{
    static const int cx[8] = {1, 0, 0, -1, -1, 0, 0, 1}, cy[8] = {0, -1, -1, 0, 0, 1, 1, 0};
    static const int dx[8] = {1, 1, -1, -1, -1, -1, 1, 1}, dy[8] = {-1, -1, -1, -1, 1, 1, 1, 1};
    const double e0 = h[j * w + i], quarter = 0.78539816339744830962;
    double best = 0, br = 0;
    int k, found = -1;
    for (k = 0; k < 8; k++) {
        const int i1 = i + cx[k], j1 = j + cy[k], i2 = i + dx[k], j2 = j + dy[k];
        double e1, e2, s1, s2, r, s;
        if (i2 < 0 || j2 < 0 || i2 >= w || j2 >= w) continue;
        e1 = h[j1 * w + i1], e2 = h[j2 * w + i2];
        if (e1 != e1 || e2 != e2) continue;
        s1 = e0 - e1, s2 = e1 - e2, r = ng_atan2(s2, s1), s = sqrt(s1 * s1 + s2 * s2);
        if (r < 0) r = 0, s = s1;
        else if (r > quarter) r = quarter, s = (e0 - e2) / 1.4142135623730951;
        if (s > best) best = s, br = r, found = k, *a = j1 * w + i1, *b = j2 * w + i2;
    }
    if (found < 0) return dir[0] = dir[1] = 0, 0;
    *f = (float)(br / quarter);
    /* the cardinal direction turned by br towards the diagonal, whose step
     * from the cardinal one is the unit perpendicular */
    dir[0] = (float)(ng_cos(br) * cx[found] + ng_sin(br) * (dx[found] - cx[found]));
    dir[1] = (float)(ng_cos(br) * cy[found] + ng_sin(br) * (dy[found] - cy[found]));
    return 1;
}

static void flow_direction(const float *in, float *out, int side, int radius)
{
    const int w = side + 2 * radius;
    const size_t plane = (size_t)side * (size_t)side;
    int i, j;
    for (j = 0; j < side; j++)
        for (i = 0; i < side; i++) {
            int32_t a, b;
            float f, dir[2];
            dinf(in, w, i + radius, j + radius, &a, &b, &f, dir);
            out[(size_t)j * side + i] = dir[0], out[plane + (size_t)j * side + i] = dir[1];
        }
}

/* Accumulation over the patch and its halo: each cell starts with itself
 * and passes what it holds to its receivers, from the highest cell down. */
static void flow_filter(const ng_node *n, const float *in, float *out, float *tmp, int side, int radius, int channels)
{
    const int w = side + 2 * radius;
    const size_t cells = (size_t)w * (size_t)w, plane = (size_t)side * (size_t)side;
    uint64_t *order;
    float *acc;
    double reach = ng_log((2.0 * radius + 1) * (2.0 * radius + 1));
    size_t k;
    int i, j;
    (void)tmp, (void)channels;
    if (ng_int(n, F_OUTPUT) == F_DIRECTION) {
        flow_direction(in, out, side, radius);
        return;
    }
    order = malloc(cells * sizeof *order), acc = malloc(cells * sizeof *acc);
    if (!order || !acc) { /* out of memory: an empty mask, never garbage */
        memset(out, 0, plane * sizeof(float));
        free(order), free(acc);
        return;
    }
    for (k = 0; k < cells; k++) order[k] = height_key(in[k], (uint32_t)k), acc[k] = 1;
    qsort(order, cells, sizeof *order, ascending);
    for (k = 0; k < cells; k++) {
        const int32_t c = (int32_t)(order[k] & 0xFFFFFFFFu);
        int32_t a, b;
        float f, dir[2];
        if (dinf(in, w, c % w, c / w, &a, &b, &f, dir)) {
            acc[a] += acc[c] * (1 - f);
            acc[b] += acc[c] * f;
        }
    }
    if (reach < 1e-9) reach = 1;
    for (j = 0; j < side; j++)
        for (i = 0; i < side; i++) {
            const double v = ng_log(acc[(size_t)(j + radius) * w + (size_t)(i + radius)]) / reach;
            out[(size_t)j * side + i] = (float)(v < 0 ? 0 : v > 1 ? 1 : v);
        }
    free(order), free(acc);
}

/* its keys and accumulations: 12 bytes a cell */
static const ng_hood_type flow_hood = {.input = I_SOURCE, .filter = flow_filter, .patch = PATCH, .scratch = 12};

const ng_node_type ng_type_drainage = {
    .name = "drainage", .family = "neighbourhood",
    .doc = "D-infinity flow over the height field on a lattice of `spacing` (radius / 64): accumulation, "
           "log(cells draining through a point from within `radius`) / log(cells of the reach) in [0, 1] (0 on "
           "ridges, bright along gullies: drainage longer than radius is not seen), or the unit downhill "
           "direction (2 channels). A mask for texturing and scattering. 2D renders only; the same bits in "
           "every cut",
    .params = flow_params, .nparams = F_NPARAMS, .inputs = height_inputs, .ninputs = NINPUTS,
    .dims = 1u << 2, .positional = "source", .setup = flow_setup, .tile_check = ng_hood_tile_check,
    .eval = ng_hood_eval,
    .hood = &flow_hood,
};

/* ---- distance ---------------------------------------------------------------------------- */

enum { D_THRESHOLD, D_RADIUS, D_SPACING, D_NPARAMS };

static const ng_param_desc distance_params[D_NPARAMS] = {
    [D_THRESHOLD] = {"threshold", NG_PARAM_NUMBER, {0.5}, -1e30, 1e30, NULL,
                     "the mask: where the source exceeds this"},
    [D_RADIUS] = {"radius", NG_PARAM_NUMBER, {32}, 1e-9, 1e12, NULL,
                  "world units the distance reaches: the output is distance / radius, 1 beyond"},
    [D_SPACING] = {"spacing", NG_PARAM_NUMBER, {0}, 0, 1e12, NULL,
                   "lattice spacing in world units; 0: radius / 32. At most 1024 cells per radius"},
};

static int distance_setup(ng_node *n, const int *ch, ng_error *err)
{
    const double radius = ng_num(n, D_RADIUS);
    (void)ch;
    n->channels = 1;
    return declare(n, ng_num(n, D_SPACING) > 0 ? ng_num(n, D_SPACING) : radius / 32, radius, err);
}

/* Where the parabolas of cells p and q (p < q) of f meet. */
static float parabolas_meet(const float *f, size_t stride, int p, int q)
{
    return ((f[(size_t)q * stride] + (float)q * (float)q) - (f[(size_t)p * stride] + (float)p * (float)p)) /
           (2.0f * (float)(q - p));
}

/* The squared distance transform of f (len samples `stride` apart) in
 * place: f[q] = min over p of (q - p)^2 + f[p] (Felzenszwalb and
 * Huttenlocher's lower envelope of parabolas). v, z, d: scratch of len,
 * len + 1 and len. */
static void edt_1d(float *f, size_t stride, int len, int *v, float *z, float *d)
{
    int k = 0, q;
    v[0] = 0, z[0] = -HUGE_VALF, z[1] = HUGE_VALF;
    for (q = 1; q < len; q++) {
        float s = parabolas_meet(f, stride, v[k], q);
        while (s <= z[k]) s = parabolas_meet(f, stride, v[--k], q);
        k++;
        v[k] = q, z[k] = s, z[k + 1] = HUGE_VALF;
    }
    for (k = 0, q = 0; q < len; q++) {
        while (z[k + 1] < (float)q) k++;
        d[q] = (float)(q - v[k]) * (float)(q - v[k]) + f[(size_t)v[k] * stride];
    }
    for (q = 0; q < len; q++) f[(size_t)q * stride] = d[q];
}

/* Beyond any radius, in squared cells: finite, so differences stay numbers. */
#define FAR 1e20f

static void distance_filter(const ng_node *n, const float *in, float *out, float *tmp, int side, int radius,
                            int channels, double spacing)
{
    const int w = side + 2 * radius;
    const float threshold = (float)ng_num(n, D_THRESHOLD);
    const double reach = ng_num(n, D_RADIUS);
    float *f = malloc((size_t)w * (size_t)w * sizeof *f), *z = malloc(((size_t)w + 1) * sizeof *z);
    float *d = malloc((size_t)w * sizeof *d);
    int *v = malloc((size_t)w * sizeof *v), i, j;
    (void)tmp, (void)channels;
    if (!f || !z || !d || !v) { /* out of memory: nothing near, never garbage */
        for (i = 0; i < side * side; i++) out[i] = 1;
        free(f), free(z), free(d), free(v);
        return;
    }
    for (i = 0; i < w * w; i++) f[i] = in[i] > threshold ? 0.0f : FAR;
    for (i = 0; i < w; i++) edt_1d(f + i, (size_t)w, w, v, z, d);       /* columns */
    for (j = 0; j < w; j++) edt_1d(f + (size_t)j * w, 1, w, v, z, d);   /* rows */
    for (j = 0; j < side; j++)
        for (i = 0; i < side; i++) {
            const double r = sqrt((double)f[(size_t)(j + radius) * w + (size_t)(i + radius)]) * spacing / reach;
            out[(size_t)j * side + i] = (float)(r < 1 ? r : 1);
        }
    free(f), free(z), free(d), free(v);
}

/* its squared distances, 4 bytes a cell (and rows of its width) */
static const ng_hood_type distance_hood = {
    .input = I_SOURCE, .filter_spaced = distance_filter, .patch = PATCH, .scratch = 5};

const ng_node_type ng_type_mask_distance = {
    .name = "mask_distance", .family = "neighbourhood",
    .doc = "world distance to the nearest point where the source exceeds `threshold`, over `radius`: [0, 1], 0 "
           "inside the mask, 1 where none is within radius (an exact Euclidean distance transform on a lattice "
           "of `spacing`, radius / 32). 2D renders only; the same bits in every cut",
    .params = distance_params, .nparams = D_NPARAMS, .inputs = height_inputs, .ninputs = NINPUTS,
    .dims = 1u << 2, .positional = "source", .setup = distance_setup, .tile_check = ng_hood_tile_check,
    .eval = ng_hood_eval,
    .hood = &distance_hood,
};

/* ---- splat --------------------------------------------------------------------- */

enum { I_SPLAT_R, I_SPLAT_G, I_SPLAT_B, I_SPLAT_A, SPLAT_NINPUTS };

static const ng_input_desc splat_inputs[SPLAT_NINPUTS] = {
    [I_SPLAT_R] = {"r", NG_INPUT_HYBRID, 1, 1, 0, "layer 1's mask, the red channel: the base layer"},
    [I_SPLAT_G] = {"g", NG_INPUT_HYBRID, 1, 1, 0, "layer 2's mask, the green channel"},
    [I_SPLAT_B] = {"b", NG_INPUT_HYBRID, 1, 1, 0, "layer 3's mask, the blue channel"},
    [I_SPLAT_A] = {"a", NG_INPUT_HYBRID, 1, 1, 0, "layer 4's mask, the alpha channel"},
};

enum { P_SPLAT_NORMALIZE, SPLAT_NPARAMS };

static const ng_param_desc splat_params[SPLAT_NPARAMS] = {
    [P_SPLAT_NORMALIZE] = {"normalize", NG_PARAM_BOOL, {1}, 0, 1, NULL,
                           "make the weights sum to 1: scaled down where they sum past 1, layer 1 (the base) taking "
                           "the rest where they sum below"},
};

static int splat_setup(ng_node *n, const int *ch, ng_error *err)
{
    (void)ch, (void)err;
    n->channels = 4;
    return 0;
}

/* A mask as a weight: [0, 1], NaN none. */
static float weight(float v) { return v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f; }

static int splat_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const size_t len = (size_t)b->n;
    const int normalize = ng_int(n, P_SPLAT_NORMALIZE);
    size_t i;
    int c;
    (void)ctx;
    for (i = 0; i < len; i++) {
        float w[SPLAT_NINPUTS], sum = 0.0f;
        for (c = 0; c < SPLAT_NINPUTS; c++) sum += w[c] = weight(in[c][i]);
        if (normalize && sum > 1.0f)
            for (c = 0; c < SPLAT_NINPUTS; c++) w[c] /= sum;
        else if (normalize)
            w[I_SPLAT_R] += 1.0f - sum;
        for (c = 0; c < SPLAT_NINPUTS; c++) out[(size_t)c * len + i] = w[c];
    }
    return 0;
}

const ng_node_type ng_type_splat = {
    .name = "splat", .family = "terrain",
    .doc = "a splat (layer weight) map: 4 channels, RGBA, one a mask each, clamped to [0, 1] and with `normalize` "
           "summing to 1 (layer 1, the base, takes what the masks leave), as Unity terrain splat maps and Unreal "
           "weight-blended layers read them; write it as an RGBA PNG (8 or 16 bits)",
    .params = splat_params, .nparams = SPLAT_NPARAMS, .inputs = splat_inputs, .ninputs = SPLAT_NINPUTS,
    .dims = NG_DIMS_ALL, .positional = "r,g,b,a", .setup = splat_setup, .eval = splat_eval,
};
