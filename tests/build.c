/* build.c — the graph-building helpers of build.h. */
#include "build.h"
#include "harness.h"
#include "ng_io.h"

#include <stdio.h>
#include <stdlib.h>

static void die(const char *what, const ng_error *err)
{
    fprintf(stderr, "test fixture failed: %s: %s\n", what, err->msg);
    exit(3);
}

ng_node *t_begin(ng_graph *g, const char *type)
{
    const ng_shorthand *sh;
    const ng_node_type *t = ng_type_lookup(type, &sh);
    ng_error err = {{0}};
    ng_node *n;
    if (!t) die(type, &err);
    /* as an embedder linking both archives: ng.image reads through io (set
     * for that node alone: setting it visits every node of the graph) */
    if (t == &ng_type_image) ng_graph_set_image_loader(g, ng_image_load);
    if (!(n = ng_node_begin(g, t, type, NULL, &err))) die(type, &err);
    if (sh && sh->param && ng_set_choice(n, ng_param_index(t, sh->param), sh->value, &err)) die(type, &err);
    return n;
}

int t_finish(ng_graph *g, ng_node *n)
{
    ng_error err;
    int id = ng_node_finish(g, n, &err);
    if (id < 0) die("finish", &err);
    return id;
}

int t_set(ng_node *n, const char *param, double v)
{
    ng_error err;
    int k = ng_param_index(ng_node_type_of(n), param);
    if (k < 0 || ng_set_number(n, k, v, &err)) die(param, &err);
    return 0;
}

static void t_input(ng_graph *g, ng_node *n, const char *input, int src)
{
    ng_error err;
    if (ng_set_input(g, n, ng_input_index(ng_node_type_of(n), input), src, &err)) die(input, &err);
}

int t_noise(ng_graph *g, const char *type, double size, int seed)
{
    ng_node *n = t_begin(g, type);
    t_set(n, "element_size", size);
    t_set(n, "seed", seed);
    return t_finish(g, n);
}

int t_vnoise(ng_graph *g, const char *type, double size, int seed)
{
    ng_error err;
    ng_node *n = t_begin(g, type);
    t_set(n, "element_size", size);
    t_set(n, "seed", seed);
    if (ng_set_choice(n, ng_param_index(ng_node_type_of(n), "output"), "vector", &err)) die("output", &err);
    return t_finish(g, n);
}

int t_bin(ng_graph *g, const char *type, int a, int b)
{
    ng_node *n = t_begin(g, type);
    t_input(g, n, "a", a);
    t_input(g, n, "b", b);
    return t_finish(g, n);
}

int t_const(ng_graph *g, double v)
{
    ng_error err;
    int id = ng_constant(g, v, &err);
    if (id < 0) die("constant", &err);
    return id;
}

int t_warp(ng_graph *g, int source, int by, double amount)
{
    ng_node *n = t_begin(g, "warp");
    t_input(g, n, "source", source);
    t_input(g, n, "by", by);
    t_input(g, n, "amount", t_const(g, amount));
    return t_finish(g, n);
}

int t_warp_node(ng_graph *g, int source, int by, int amount, double octaves, double lac, double rough,
                const char *mode)
{
    ng_node *n = t_begin(g, "warp");
    t_in(g, n, "source", source);
    t_in(g, n, "by", by);
    t_in(g, n, "amount", amount);
    t_set(n, "octaves", octaves);
    t_set(n, "lacunarity", lac);
    t_set(n, "roughness", rough);
    if (mode) t_choose(n, "mode", mode);
    return t_finish(g, n);
}

int t_fbm(ng_graph *g, int source, double octaves, double lacunarity, double roughness)
{
    ng_node *n = t_begin(g, "fbm");
    t_input(g, n, "source", source);
    t_set(n, "octaves", octaves);
    t_set(n, "lacunarity", lacunarity);
    t_set(n, "roughness", roughness);
    return t_finish(g, n);
}

void t_opts(ng_render_opts *o, int w, int h)
{
    ng_render_defaults(o, w, h);
    o->threads = 1;
}

float *t_render(const ng_graph *g, int root, const ng_render_opts *o)
{
    ng_error err;
    int w = o->region[2] ? o->region[2] : o->width, h = o->region[2] ? o->region[3] : o->height;
    float *buf = malloc((size_t)w * (size_t)h * NG_MAX_CHANNELS * sizeof(float));
    if (!buf) return NULL;
    if (ng_render_buffer(g, root, o, buf, &err)) {
        fprintf(stderr, "render failed: %s\n", err.msg);
        free(buf);
        return NULL;
    }
    return buf;
}

/* ---- helpers that record a test failure and let the test go on ---------------------------- */

void t_in(ng_graph *g, ng_node *n, const char *name, int src)
{
    ng_error err;
    int k = ng_input_index(ng_node_type_of(n), name);
    if (k < 0 || ng_set_input(g, n, k, src, &err))
        ng_t_fail(__FILE__, __LINE__, "input '%s' refused: %s", name, k < 0 ? "no such input" : err.msg);
}

void t_choose(ng_node *n, const char *param, const char *v)
{
    ng_error err;
    int k = ng_param_index(ng_node_type_of(n), param);
    if (k < 0 || ng_set_choice(n, k, v, &err))
        ng_t_fail(__FILE__, __LINE__, "%s = \"%s\" refused: %s", param, v, k < 0 ? "no such option" : err.msg);
}

void t_vec(ng_node *n, const char *param, double a, double b, double c)
{
    ng_error err;
    const double v[3] = {a, b, c};
    if (ng_set_vec3(n, ng_param_index(ng_node_type_of(n), param), v, &err))
        ng_t_fail(__FILE__, __LINE__, "%s refused: %s", param, err.msg);
}

ng_node *t_on(ng_graph *g, const char *type, int src)
{
    ng_node *n = t_begin(g, type);
    t_in(g, n, "source", src);
    return n;
}

float *t_points(const ng_graph *g, int root, int dims, int n, const double *x, const double *y,
                    const double *z)
{
    const double *xs[3] = {x, y, z};
    ng_error err;
    float *out = malloc((size_t)n * NG_MAX_CHANNELS * sizeof(float) + 1);
    if (!out) return NULL;
    if (ng_eval_points(g, root, dims, xs, n, out, &err)) {
        ng_t_fail(__FILE__, __LINE__, "evaluation failed: %s", err.msg);
        free(out);
        return NULL;
    }
    return out;
}

int t_finish_ok(ng_graph *g, ng_node *n)
{
    ng_error err;
    int id = ng_node_finish(g, n, &err);
    if (id < 0) ng_t_fail(__FILE__, __LINE__, "node refused: %s", err.msg);
    return id;
}

int t_vector(ng_graph *g, int x, int y, int z)
{
    ng_node *n = t_begin(g, "vector");
    t_in(g, n, "x", x);
    t_in(g, n, "y", y);
    if (z >= 0) t_in(g, n, "z", z);
    return t_finish(g, n);
}
