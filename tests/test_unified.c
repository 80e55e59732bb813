/*
 * test_unified.c — the noise node's fractal tab and options driven by
 * nodes (issue 13, items 1, 2 and 5a):
 * - ng.noise{fractal = ...} is ng.fractal{source = ng.noise{...}}, bit for
 *   bit, over every basis, fractal type, octave count, antialias setting,
 *   normalisation, dimension and region;
 * - an option a node drives equals the number where the node's value
 *   equals it (bit for bit, per region of a step mask, every block holding
 *   both sides), a constant node is folded into the number, and a mask
 *   really varies the option (rough peaks, smooth valleys);
 * - the octave cut-off follows a varying element size per sample;
 * - normalize = "rms": how often it leaves [-1, 1], measured.
 */
#include "build.h"
#include "cli_support.h"
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- building ------------------------------------------------------------------------------------- */

static void die_on(int rc, const char *what, const ng_error *err)
{
    if (rc) {
        fprintf(stderr, "test fixture failed: %s: %s\n", what, err->msg);
        exit(3);
    }
}

static void set_choice(ng_node *n, const char *param, const char *v)
{
    ng_error err = {{0}};
    die_on(ng_set_choice(n, ng_param_index(ng_node_type_of(n), param), v, &err), param, &err);
}

static void set_bool(ng_node *n, const char *param, int v)
{
    ng_error err = {{0}};
    die_on(ng_set_bool(n, ng_param_index(ng_node_type_of(n), param), v, &err), param, &err);
}

static void set_vec(ng_node *n, const char *param, double x, double y, double z)
{
    const double v[3] = {x, y, z};
    ng_error err = {{0}};
    die_on(ng_set_vec3(n, ng_param_index(ng_node_type_of(n), param), v, &err), param, &err);
}

static void drive(ng_graph *g, ng_node *n, const char *param, int src)
{
    ng_error err = {{0}};
    die_on(ng_set_param_node(g, n, ng_param_index(ng_node_type_of(n), param), src, &err), param, &err);
}

static void input(ng_graph *g, ng_node *n, const char *name, int src)
{
    ng_error err = {{0}};
    die_on(ng_set_input(g, n, ng_input_index(ng_node_type_of(n), name), src, &err), name, &err);
}

/* The fractal options both forms take. */
typedef struct fopts {
    const char *type; /* ng.fractal's type; "fbm" is "standard" there */
    double octaves, lacunarity, roughness;
    int antialias, rms;
} fopts;

static void fractal_options(ng_node *n, const fopts *f)
{
    t_set(n, "octaves", f->octaves);
    t_set(n, "lacunarity", f->lacunarity);
    t_set(n, "roughness", f->roughness);
    set_bool(n, "antialias", f->antialias);
    set_choice(n, "normalize", f->rms ? "rms" : "bound");
}

/* A noise of basis `basis` with the options every case shares. */
static ng_node *basis_node(ng_graph *g, const char *basis, int vector)
{
    ng_node *n = t_begin(g, basis);
    t_set(n, "element_size", 13);
    t_set(n, "seed", 5);
    if (vector) set_choice(n, "output", "vector");
    return n;
}

static int unified(ng_graph *g, const char *basis, int vector, const fopts *f)
{
    ng_node *n = basis_node(g, basis, vector);
    set_choice(n, "fractal", f->type);
    fractal_options(n, f);
    return t_finish(g, n);
}

static int two_nodes(ng_graph *g, const char *basis, int vector, const fopts *f)
{
    int src = t_finish(g, basis_node(g, basis, vector));
    ng_node *n = t_begin(g, "fractal");
    input(g, n, "source", src);
    set_choice(n, "type", strcmp(f->type, "fbm") ? f->type : "standard");
    fractal_options(n, f);
    return t_finish(g, n);
}

/* A node that is v everywhere without being a constant node (which would
 * be folded): the per-sample path with the number's value. */
static int uniform(ng_graph *g, double v)
{
    ng_node *n = t_begin(g, "select");
    input(g, n, "a", t_const(g, v));
    input(g, n, "b", t_const(g, v));
    input(g, n, "control", t_finish(g, t_begin(g, "x")));
    return t_finish(g, n);
}

/* lo left of world x = edge, hi from it on: a hard step. */
static int step_mask(ng_graph *g, double lo, double hi, double edge)
{
    ng_node *n = t_begin(g, "select");
    input(g, n, "a", t_const(g, lo));
    input(g, n, "b", t_const(g, hi));
    input(g, n, "control", t_finish(g, t_begin(g, "x")));
    t_set(n, "threshold", edge);
    return t_finish(g, n);
}

static int same_floats(const float *a, const float *b, size_t n)
{
    return a && b && memcmp(a, b, n * sizeof(float)) == 0;
}

/* ---- item 1: one node ------------------------------------------------------------------------------ */

/* Every basis (the noise node's own list) x every fractal choice x three
 * octave counts (one fractional) x antialias on/off, alternating bound and
 * rms, 2D, 3D and 4D (flow: 2D and 3D), whole images and regions. The
 * element size puts the finest octaves under a pixel, so the cut-off
 * decides. */
static void test_one_node_is_the_fractal_bit_for_bit(void)
{
    static const char *const types[] = {"fbm", "standard", "terrain", "hybrid", "ridged", "billow"};
    static const double octaves[] = {1, 3.5, 7};
    const ng_node_type *noise = ng_type_find("noise");
    const ng_param_desc *type = &noise->params[ng_param_index(noise, "type")];
    int b, t, o, aa, combo = 0, cases = 0;
    for (b = 0; type->choices[b]; b++)
        for (t = 0; t < 6; t++)
            for (o = 0; o < 3; o++)
                for (aa = 0; aa < 2; aa++, combo++) {
                    const char *basis = type->choices[b];
                    const fopts f = {types[t], octaves[o], 1.9, 0.6, aa, combo % 2};
                    const int vector = combo % 11 == 0;
                    int dims = 2 + combo % 3, n;
                    ng_graph *g = ng_graph_new();
                    int one = unified(g, basis, vector, &f), two = two_nodes(g, basis, vector, &f);
                    ng_render_opts r;
                    float *x, *y;
                    if (!strcmp(basis, "flow") && dims == 4) dims = 3;
                    t_opts(&r, 48, 40);
                    r.dims = dims;
                    r.z = 3.25;
                    r.time = 1.5;
                    r.origin[0] = -17.5;
                    if (combo % 4 == 1) { /* a window of a larger image */
                        r.width = r.height = 200;
                        r.region[0] = 70, r.region[1] = 90, r.region[2] = 48, r.region[3] = 40;
                    }
                    x = t_render(g, one, &r);
                    y = t_render(g, two, &r);
                    n = 48 * 40 * (vector ? 3 : 1);
                    if (!same_floats(x, y, (size_t)n))
                        ng_t_fail(__FILE__, __LINE__, "%s fractal %s octaves %g antialias %d %s %dD%s: not the same bits",
                                  basis, f.type, f.octaves, aa, f.rms ? "rms" : "bound", dims,
                                  vector ? " vector" : "");
                    cases++;
                    free(x), free(y);
                    ng_graph_free(g);
                }
    CHECK(cases >= 9 * 6 * 3 * 2);
}

/* The fractal options need a fractal; "none" is the plain noise. */
static void test_fractal_options_need_a_fractal(void)
{
    ng_graph *g = ng_graph_new();
    ng_node *n = t_begin(g, "perlin");
    ng_error err = {{0}};
    t_set(n, "roughness", 0.7);
    CHECK(ng_node_finish(g, n, &err) < 0);
    CHECK_CONTAINS(err.msg, "option 'roughness' needs a fractal");
    ng_graph_free(g);
}

/* ---- item 2: options driven by nodes --------------------------------------------------------------- */

/* One driven option: the node (`how`: a number, a uniform node or a
 * constant node) for option `param` of a noise (basis, fractal or none),
 * a fractal over a perlin, or a cloud. */
typedef struct driven {
    const char *node;  /* "noise", "fractal" or "cloud" */
    const char *basis; /* noise: the basis; cloud: its type */
    const char *fractal;
    const char *param;
    double value, other; /* the number, and a second one for the step mask */
} driven;

static const driven cases[] = {
    {"noise", "perlin", "none", "amplitude", 0.75, -1.5},
    {"noise", "perlin", "terrain", "amplitude", 0.75, 2},
    {"noise", "value", "none", "element_size", 12, 20},
    {"noise", "perlin", "fbm", "element_size", 10, 24},
    {"noise", "simplex", "ridged", "element_scale", 0.5, 2},
    {"noise", "worley", "none", "jitter", 0.75, 0.25},
    {"noise", "worley", "billow", "jitter", 0.5, 1},
    {"noise", "flow", "none", "flow", 0.25, 0.625},
    {"noise", "flow", "hybrid", "flow", 0.375, 2.5},
    {"noise", "perlin", "fbm", "roughness", 0.5, 0.875},
    {"noise", "fast", "terrain", "roughness", 0.25, 0.75},
    {"noise", "sparse", "hybrid", "roughness", 0.75, 0.375},
    {"noise", "perlin", "ridged", "lacunarity", 2, 2.5},
    {"noise", "value", "billow", "lacunarity", 1.75, 3},
    {"fractal", "perlin", "terrain", "roughness", 0.5, 0.25},
    {"fractal", "perlin", "standard", "lacunarity", 2.25, 1.5},
    {"cloud", "perlin", "", "distortion", -0.25, 0.125},
    {"cloud", "simplex", "", "amplitude", 0.5, 1.25},
};

enum { AS_NUMBER, AS_UNIFORM, AS_CONSTANT, AS_STEP };

static void set_value(ng_graph *g, ng_node *n, const driven *c, int how, double v)
{
    const int vec = !strcmp(c->param, "element_scale");
    if (how == AS_NUMBER && vec) set_vec(n, c->param, v, v, v);
    else if (how == AS_NUMBER) t_set(n, c->param, v);
    else if (how == AS_UNIFORM) drive(g, n, c->param, uniform(g, v));
    else if (how == AS_CONSTANT) drive(g, n, c->param, t_const(g, v));
    else drive(g, n, c->param, step_mask(g, c->value, c->other, 40));
}

static int build_case(ng_graph *g, const driven *c, int how, double v)
{
    ng_node *n;
    if (!strcmp(c->node, "fractal")) {
        n = t_begin(g, "fractal");
        input(g, n, "source", t_noise(g, c->basis, 9, 2));
        set_choice(n, "type", c->fractal);
        t_set(n, "octaves", 5.5);
    } else if (!strcmp(c->node, "cloud")) {
        n = t_begin(g, "cloud");
        set_choice(n, "type", c->basis);
        t_set(n, "element_size", 21);
        t_set(n, "octaves", 4.5);
    } else {
        n = t_begin(g, c->basis);
        t_set(n, "element_size", 11);
        t_set(n, "seed", 3);
        set_choice(n, "fractal", c->fractal);
        if (strcmp(c->fractal, "none")) t_set(n, "octaves", 6.5);
    }
    set_value(g, n, c, how, v);
    return t_finish(g, n);
}

static float *render_case(const driven *c, int how, double v, int dims)
{
    ng_graph *g = ng_graph_new();
    int root = build_case(g, c, how, v);
    ng_render_opts r;
    float *out;
    t_opts(&r, 96, 40);
    r.dims = dims;
    r.z = 2.5;
    out = t_render(g, root, &r);
    ng_graph_free(g);
    return out;
}

/* A node that is the number everywhere gives the number's bits; a
 * constant node is folded into the number (no driver is left). */
static void test_driven_option_equal_to_the_number_is_the_number(void)
{
    size_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const driven *c = &cases[k];
        const int dims = !strcmp(c->basis, "flow") || !strcmp(c->node, "cloud") ? 3 : 2;
        float *num = render_case(c, AS_NUMBER, c->value, dims), *uni = render_case(c, AS_UNIFORM, c->value, dims);
        float *con = render_case(c, AS_CONSTANT, c->value, dims);
        if (!same_floats(num, uni, 96 * 40))
            ng_t_fail(__FILE__, __LINE__, "%s %s %s: %s driven by a uniform node is not the number's bits", c->node,
                      c->basis, c->fractal, c->param);
        if (!same_floats(num, con, 96 * 40))
            ng_t_fail(__FILE__, __LINE__, "%s %s: %s from a constant node is not the number's bits", c->node, c->basis,
                      c->param);
        free(num), free(uni), free(con);
    }
    {
        ng_graph *g = ng_graph_new();
        ng_node *n = t_begin(g, "perlin");
        int k2 = ng_param_index(ng_node_type_of(n), "amplitude"), id;
        drive(g, n, "amplitude", t_const(g, 0.25));
        CHECK_INT(ng_node_param_source(n, k2), -1);
        CHECK(ng_node_param(n, k2)->v[0] == 0.25);
        id = t_finish(g, n);
        CHECK_INT(ng_node_param_source(ng_graph_node(g, id), k2), -1);
        ng_graph_free(g);
    }
}

/* A node's NaN samples read as the option's number; values beyond the
 * option's range as its end. */
static void test_driven_nan_is_the_number_and_range_clamps(void)
{
    ng_graph *g = ng_graph_new();
    int root[4], k;
    ng_render_opts r;
    float *img[4];
    for (k = 0; k < 4; k++) {
        ng_node *n = t_begin(g, "perlin");
        t_set(n, "element_size", 9);
        set_choice(n, "fractal", "terrain");
        t_set(n, "roughness", k < 2 ? 0.625 : 2);
        if (k == 1) drive(g, n, "roughness", t_bin(g, "div", t_const(g, 0), t_const(g, 0)));
        if (k == 3) drive(g, n, "roughness", uniform(g, 7.5));
        root[k] = t_finish(g, n);
    }
    t_opts(&r, 64, 32);
    for (k = 0; k < 4; k++) img[k] = t_render(g, root[k], &r);
    CHECK(same_floats(img[0], img[1], 64 * 32));
    CHECK(same_floats(img[2], img[3], 64 * 32));
    for (k = 0; k < 4; k++) free(img[k]);
    ng_graph_free(g);
}

/* A step mask (the number left of x = 40, the other from it on; every
 * 64-pixel tile holds both): each side is the render of its number, bit
 * for bit, cut-off, weights and normalisation per sample included. The
 * offset's per-sample path rounds differently from the number's (which
 * goes into the double anchor), so it is compared within float error. */
static void test_step_mask_sides_are_the_numbers(void)
{
    size_t k;
    int i, j;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const driven *c = &cases[k];
        const int dims = !strcmp(c->basis, "flow") || !strcmp(c->node, "cloud") ? 3 : 2;
        float *step = render_case(c, AS_STEP, 0, dims), *lo = render_case(c, AS_NUMBER, c->value, dims);
        float *hi = render_case(c, AS_NUMBER, c->other, dims);
        long bad = 0, differs = 0;
        for (j = 0; step && lo && hi && j < 40; j++)
            for (i = 0; i < 96; i++) {
                const float want = i + 0.5 < 40 ? lo[j * 96 + i] : hi[j * 96 + i];
                bad += memcmp(&step[j * 96 + i], &want, sizeof want) != 0;
                differs += lo[j * 96 + i] != hi[j * 96 + i];
            }
        CHECK(step && lo && hi);
        if (bad)
            ng_t_fail(__FILE__, __LINE__, "%s %s %s: %s from a step mask: %ld of %d samples are not their side's number",
                      c->node, c->basis, c->fractal, c->param, bad, 96 * 40);
        CHECKF(differs > 96 * 40 / 2, "%s %s: the two numbers hardly differ (%ld samples)", c->node, c->param, differs);
        free(step), free(lo), free(hi);
    }
    { /* offset, a vector node of 2 channels (z keeps the number): within float error of the numbers */
        ng_graph *g = ng_graph_new();
        ng_node *n = t_begin(g, "perlin"), *v;
        ng_render_opts r;
        float *a, *b;
        double worst = 0;
        int driven_root, plain_root;
        t_set(n, "element_size", 9);
        set_choice(n, "fractal", "fbm");
        set_vec(n, "offset", 0, 0, 7);
        v = t_begin(g, "vector");
        input(g, v, "x", uniform(g, 12.5));
        input(g, v, "y", uniform(g, -3.25));
        drive(g, n, "offset", t_finish(g, v));
        driven_root = t_finish(g, n);
        n = t_begin(g, "perlin");
        t_set(n, "element_size", 9);
        set_choice(n, "fractal", "fbm");
        set_vec(n, "offset", 12.5, -3.25, 7);
        plain_root = t_finish(g, n);
        t_opts(&r, 96, 40);
        r.dims = 3;
        r.origin[0] = 1000.25;
        a = t_render(g, driven_root, &r);
        b = t_render(g, plain_root, &r);
        CHECK(a && b);
        for (i = 0; a && b && i < 96 * 40; i++)
            if (fabs((double)a[i] - b[i]) > worst) worst = fabs((double)a[i] - b[i]);
        CHECK_LE(worst, 2e-4);
        free(a), free(b);
        ng_graph_free(g);
    }
}

/* Sum of |discrete Laplacian| over columns x0 .. x1 - 1 (interior rows):
 * the energy of the finest detail. */
static double detail_energy(const float *img, int w, int h, int x0, int x1)
{
    double e = 0;
    int i, j;
    for (j = 1; j < h - 1; j++)
        for (i = x0 < 1 ? 1 : x0; i < x1 && i < w - 1; i++) {
            const float *p = img + j * w + i;
            e += fabs(4.0 * p[0] - p[-1] - p[1] - p[-w] - p[w]);
        }
    return e;
}

/* Rough peaks, smooth valleys: terrain with roughness = a mask rising
 * from 0.2 on the left to 0.9 on the right has far more fine detail on the
 * right, and as much as the constant 0.9 there. */
static void test_mask_roughness_rough_where_high(void)
{
    ng_graph *g = ng_graph_new();
    ng_node *n = t_begin(g, "perlin"), *m = t_begin(g, "fit"), *c;
    ng_render_opts r;
    float *img, *rough;
    int root, plain;
    input(g, m, "source", t_finish(g, t_begin(g, "x")));
    t_set(m, "from_lo", 0);
    t_set(m, "from_hi", 256);
    t_set(m, "to_lo", 0.2);
    t_set(m, "to_hi", 0.9);
    t_set(n, "element_size", 64);
    set_choice(n, "fractal", "terrain");
    t_set(n, "octaves", 8);
    drive(g, n, "roughness", t_finish(g, m));
    root = t_finish(g, n);
    c = t_begin(g, "perlin");
    t_set(c, "element_size", 64);
    set_choice(c, "fractal", "terrain");
    t_set(c, "octaves", 8);
    t_set(c, "roughness", 0.9);
    plain = t_finish(g, c);
    t_opts(&r, 256, 128);
    img = t_render(g, root, &r);
    rough = t_render(g, plain, &r);
    CHECK(img && rough);
    if (img && rough) {
        const double left = detail_energy(img, 256, 128, 0, 48), right = detail_energy(img, 256, 128, 208, 256);
        const double ref = detail_energy(rough, 256, 128, 208, 256);
        CHECKF(right > 4 * left, "fine detail right %g, left %g: the mask does not roughen", right, left);
        CHECKF(right > 0.6 * ref && right < 1.4 * ref, "fine detail right %g against roughness 0.9's %g", right, ref);
    }
    free(img), free(rough);
    ng_graph_free(g);
}

/* Box-filtered f x f supersampling of the same graph: the reference a
 * pixel should approach. */
static float *supersampled(const ng_graph *g, int root, int w, int h, int f)
{
    ng_render_opts r;
    float *big, *out = calloc((size_t)w * (size_t)h, sizeof *out);
    int i, j;
    t_opts(&r, w * f, h * f);
    r.pixel_size = 1.0 / f;
    r.threads = 2;
    big = t_render(g, root, &r);
    if (!big || !out) {
        free(big), free(out);
        return NULL;
    }
    for (j = 0; j < h * f; j++)
        for (i = 0; i < w * f; i++) out[(j / f) * w + i / f] += big[(size_t)j * (size_t)(w * f) + i] / (float)(f * f);
    free(big);
    return out;
}

static double rms_rows(const float *a, const float *b, int w, int y0, int y1)
{
    double s = 0;
    int i, j;
    for (j = y0; j < y1; j++)
        for (i = 0; i < w; i++) s += ((double)a[j * w + i] - b[j * w + i]) * ((double)a[j * w + i] - b[j * w + i]);
    return sqrt(s / ((double)w * (y1 - y0)));
}

/* Element size 3 (rows above 24) blending into 40 (rows from 40): each
 * sample cuts its octaves off at its own size, so the flat parts are the
 * constant-size renders bit for bit, cut-off included (the number given,
 * 40, would keep octaves of 3 / 16 pixels in the fine part), and the fine
 * part is near the 6 x 6 supersampled picture where, without the cut-off,
 * it aliases. */
static void test_varying_element_size_is_antialiased(void)
{
    ng_graph *g = ng_graph_new();
    int root[2], fine, coarse, k;
    ng_node *n;
    ng_render_opts r;
    float *img[2], *f, *c, *ref;
    for (k = 0; k < 2; k++) {
        ng_node *m = t_begin(g, "select");
        input(g, m, "a", t_const(g, 3));
        input(g, m, "b", t_const(g, 40));
        input(g, m, "control", t_finish(g, t_begin(g, "y")));
        t_set(m, "threshold", 32);
        t_set(m, "falloff", 8);
        n = t_begin(g, "perlin");
        t_set(n, "element_size", 40);
        set_choice(n, "fractal", "fbm");
        t_set(n, "octaves", 8);
        t_set(n, "roughness", 0.7);
        set_bool(n, "antialias", k == 0);
        drive(g, n, "element_size", t_finish(g, m));
        root[k] = t_finish(g, n);
    }
    n = t_begin(g, "perlin");
    t_set(n, "element_size", 3);
    set_choice(n, "fractal", "fbm");
    t_set(n, "octaves", 8);
    t_set(n, "roughness", 0.7);
    fine = t_finish(g, n);
    n = t_begin(g, "perlin");
    t_set(n, "element_size", 40);
    set_choice(n, "fractal", "fbm");
    t_set(n, "octaves", 8);
    t_set(n, "roughness", 0.7);
    coarse = t_finish(g, n);
    t_opts(&r, 64, 64);
    img[0] = t_render(g, root[0], &r);
    img[1] = t_render(g, root[1], &r);
    f = t_render(g, fine, &r);
    c = t_render(g, coarse, &r);
    ref = supersampled(g, root[0], 64, 64, 6);
    CHECK(img[0] && img[1] && f && c && ref);
    if (img[0] && img[1] && f && c && ref) {
        const double err_aa = rms_rows(img[0], ref, 64, 0, 22), err_alias = rms_rows(img[1], ref, 64, 0, 22);
        CHECK(same_floats(img[0], f, 64 * 22));                         /* rows 0 .. 21: size 3 */
        CHECK(same_floats(img[0] + 64 * 42, c + 64 * 42, 64 * 22));     /* rows 42 .. 63: size 40 */
        CHECKF(err_aa < 0.6 * err_alias, "fine part against the supersampled picture: rms %g with the cut-off, "
                                         "%g without", err_aa, err_alias);
    }
    free(img[0]), free(img[1]), free(f), free(c), free(ref);
    ng_graph_free(g);
}

/* What the Lua user writes: a node for an option, a shorthand with a
 * fractal, the errors, `noisegraph nodes` and `info` naming it. */
static void test_lua_forms(void)
{
    char one[PATHLEN], two[PATHLEN], mask[PATHLEN], bad[PATHLEN], o1[PATHLEN], o2[PATHLEN], o3[PATHLEN];
    res r;
    mkscript(one, "one.lua", "return ng.perlin{fractal = 'terrain', octaves = 5.5, roughness = 0.6, element_size = 24}\n");
    mkscript(two, "two.lua",
             "return ng.fractal{source = ng.perlin{element_size = 24}, type = 'terrain', octaves = 5.5, roughness = 0.6}\n");
    mkscript(mask, "mask.lua",
             "local m = ng.perlin{element_size = 90, seed = 4}:fit(-1, 1, 0.2, 0.9)\n"
             "return ng.noise{type = 'perlin', fractal = 'fbm', roughness = m, offset = ng.vector{ng.time(), 0},\n"
             "                amplitude = m, lacunarity = 2}\n");
    tpath(o1, "one.pfm");
    tpath(o2, "two.pfm");
    tpath(o3, "mask.pfm");
    cli(&r, "render", one, "-o", o1, "--size", "64x48", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", two, "-o", o2, "--size", "64x48", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(o1, o2));
    cli(&r, "render", mask, "-o", o3, "--size", "64x48", "--time", "2", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "info", mask, NULL);
    CHECK_CONTAINS(r.out, "roughness = node #");
    res_free(&r);
    cli(&r, "nodes", "noise", NULL);
    CHECK_CONTAINS(r.out, "roughness");
    CHECK_CONTAINS(r.out, "a node (a mask) varies it");
    res_free(&r);

    mkscript(bad, "bad1.lua", "return ng.perlin{roughness = 'high', fractal = 'fbm'}\n");
    cli(&r, "render", bad, "-o", o1, NULL);
    EXPECT_ERR(&r, 1, at(bad, 1), "option 'roughness' must be a number or a node, got string");
    res_free(&r);
    mkscript(bad, "bad2.lua", "return ng.perlin{fractal = 'fbm', roughness = ng.perlin{output = 'vector'}}\n");
    cli(&r, "render", bad, "-o", o1, NULL);
    EXPECT_ERR(&r, 1, at(bad, 1), "option 'roughness' takes a 1-channel node");
    res_free(&r);
    mkscript(bad, "bad3.lua", "return ng.perlin{seed = ng.x()}\n");
    cli(&r, "render", bad, "-o", o1, NULL);
    EXPECT_ERR(&r, 1, at(bad, 1), "option 'seed' must be an integer, got node");
    res_free(&r);
    mkscript(bad, "bad4.lua", "return ng.perlin{octaves = 4}\n");
    cli(&r, "render", bad, "-o", o1, NULL);
    EXPECT_ERR(&r, 1, at(bad, 1), "option 'octaves' needs a fractal");
    res_free(&r);
    mkscript(bad, "bad5.lua", "return ng.perlin{element_size = ng.x() + 8}\n");
    cli(&r, "render", bad, "-o", o1, "--tileable", NULL);
    EXPECT_ERR(&r, 1, "element size a node drives has no period");
    res_free(&r);
}

/* Every option that takes a node says so in its doc (`noisegraph nodes`
 * prints it), and only numbers and vectors take nodes. */
static void test_descriptors_say_which_options_take_nodes(void)
{
    int nt, t, k;
    const ng_node_type *const *types = ng_types(&nt);
    for (t = 0; t < nt; t++)
        for (k = 0; k < types[t]->nparams; k++) {
            const ng_param_desc *p = &types[t]->params[k];
            if (!((types[t]->node_params >> k) & 1)) continue;
            CHECKF(p->kind == NG_PARAM_NUMBER || p->kind == NG_PARAM_VEC3, "%s.%s takes nodes but is no number",
                   types[t]->name, p->name);
            CHECKF(strstr(p->doc, "node") != NULL, "%s.%s takes nodes, its doc does not say so", types[t]->name,
                   p->name);
            CHECKF(ng_param_takes_node(types[t], k), "%s.%s", types[t]->name, p->name);
        }
    CHECK_STR(ng_param_word(ng_type_find("fractal"), 3), "number or node");
    CHECK_STR(ng_param_word(ng_type_find("fractal"), 1), "number");
}

/* ---- item 5a: rms normalisation ------------------------------------------------------------------- */

/* 6 octaves of perlin, roughness 0.5, over 4 x 512 x 512 samples (2D and
 * 3D, four seeds), no cut-off: how often rms leaves [-1, 1] (at most
 * 0.05 %; measured 0.016 % until 2D's isotropic set became dimmer, rms
 * 0.78 of the classic set's where it was 0.98: now none of these
 * samples), and that it fills more of the range than the bound (by sum /
 * sqrt(sum of squares) = 1.705 here), near its ends (largest |v| 0.875,
 * the bound's 0.51). */
static void test_rms_share_outside_the_range(void)
{
    long out = 0, total = 0;
    double sd_rms = 0, sd_bound = 0, top = 0;
    int s, i;
    for (s = 0; s < 4; s++) {
        ng_graph *g = ng_graph_new();
        const fopts rms = {"fbm", 6, 2, 0.5, 0, 1}, bound = {"fbm", 6, 2, 0.5, 0, 0};
        ng_node *n;
        int a, b;
        ng_render_opts r;
        float *x, *y;
        n = t_begin(g, "perlin");
        t_set(n, "element_size", 61);
        t_set(n, "seed", s);
        set_choice(n, "fractal", "fbm");
        fractal_options(n, &rms);
        a = t_finish(g, n);
        n = t_begin(g, "perlin");
        t_set(n, "element_size", 61);
        t_set(n, "seed", s);
        set_choice(n, "fractal", "fbm");
        fractal_options(n, &bound);
        b = t_finish(g, n);
        t_opts(&r, 512, 512);
        r.threads = 2;
        r.dims = 2 + s % 2;
        r.z = 11.5;
        x = t_render(g, a, &r);
        y = t_render(g, b, &r);
        CHECK(x && y);
        for (i = 0; x && y && i < 512 * 512; i++) {
            out += x[i] < -1 || x[i] > 1;
            top = fmax(top, fabs(x[i]));
            sd_rms += (double)x[i] * x[i];
            sd_bound += (double)y[i] * y[i];
            CHECK(y[i] >= -1 && y[i] <= 1);
        }
        total += 512 * 512;
        free(x), free(y);
        ng_graph_free(g);
    }
    CHECKF((double)out / total < 0.0005, "rms leaves [-1, 1] for %.4f %% of samples", 100.0 * out / total);
    CHECKF(top >= 0.8, "rms reaches only %.3f: is it the bound?", top);
    CHECK_NEAR(sqrt(sd_rms / sd_bound), 1.96875 / sqrt(1.3330078125), 1e-4);
    printf("    rms: %.4f %% of %ld samples outside [-1, 1], largest |v| %.3f\n", 100.0 * out / total, total, top);
}

NG_SUITE(unified, fast)
{
    int have_cli = cli_setup("ngunified") == 0;
    RUN(test_one_node_is_the_fractal_bit_for_bit);
    RUN(test_fractal_options_need_a_fractal);
    RUN(test_driven_option_equal_to_the_number_is_the_number);
    RUN(test_driven_nan_is_the_number_and_range_clamps);
    RUN(test_step_mask_sides_are_the_numbers);
    RUN(test_mask_roughness_rough_where_high);
    RUN(test_varying_element_size_is_antialiased);
    RUN(test_descriptors_say_which_options_take_nodes);
    RUN(test_rms_share_outside_the_range);
    if (have_cli) {
        RUN(test_lua_forms);
        cli_teardown();
    } else {
        ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must name the program and the repository");
    }
}
