/*
 * test_core.c — the engine's contracts seen from the C API: graphs are
 * acyclic and validated at construction, shared nodes are evaluated once
 * per tile, graphs of any depth render without touching the C stack, and
 * the math nodes compute what their docs say. A result freed before its
 * last reader is computed again, and a node failing mid-render on several
 * threads is one error and no file.
 */
#include "ng_io.h"
#include "build.h"
#include "harness.h"
#include "ng_internal.h"
#include "ng_node.h"

#include <dirent.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- an embedder's own node type that counts its evaluations ------------ */

static atomic_int evals, points;

static int counter_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    int i;
    (void)ctx;
    (void)n;
    (void)in;
    atomic_fetch_add(&evals, 1);
    atomic_fetch_add(&points, b->n);
    for (i = 0; i < b->n; i++) out[i] = b->p[0][i] * 0.001f;
    return 0;
}

static const ng_node_type counter_type = {
    .name = "counter", .family = "test", .doc = "counts its evaluations", .dims = NG_DIMS_ALL, .eval = counter_eval,
};

static int counter(ng_graph *g)
{
    ng_error err;
    ng_node *n = ng_node_begin(g, &counter_type, NULL, NULL, &err);
    return ng_node_finish(g, n, &err);
}

static int render_ok(const ng_graph *g, int root, int w, int h, int tile)
{
    ng_render_opts o;
    float *buf;
    t_opts(&o, w, h);
    o.tile = tile;
    buf = t_render(g, root, &o);
    free(buf);
    return buf != NULL;
}

/* A node read by three consumers at the same positions runs once per tile. */
static void test_shared_node_evaluated_once_per_tile(void)
{
    ng_graph *g = ng_graph_new();
    int c = counter(g);
    int a = t_bin(g, "add", c, c);              /* two reads */
    int m = t_bin(g, "mul", c, t_const(g, 2));  /* a third */
    int root = t_bin(g, "sub", a, m);
    atomic_store(&evals, 0);
    CHECK(render_ok(g, root, 64, 64, 64));
    CHECK_INT(atomic_load(&evals), 1);
    atomic_store(&evals, 0);
    CHECK(render_ok(g, root, 128, 64, 32)); /* 4 x 2 tiles */
    CHECK_INT(atomic_load(&evals), 8);
    ng_graph_free(g);
}

/* The same node at other positions (a warp) or seeds (octaves) is another
 * evaluation, and each one happens exactly once. */
static void test_memo_distinguishes_positions_and_seeds(void)
{
    ng_graph *g = ng_graph_new();
    int c = counter(g);
    int w = t_warp(g, c, t_vnoise(g, "perlin", 16, 1), 5);
    int f = t_fbm(g, c, 3, 2, 0.5);
    int root = t_bin(g, "add", t_bin(g, "add", c, w), f);
    atomic_store(&evals, 0);
    CHECK(render_ok(g, root, 32, 32, 32));
    /* base positions once (shared by add and fbm's first octave), warped once, octaves 2 and 3 */
    CHECK_INT(atomic_load(&evals), 4);
    ng_graph_free(g);
}

/* ---- a 3-channel field that records how many channels it was asked for -- */

static atomic_int needed_min, needed_max;

static int vfield_setup(ng_node *n, const int *ch, ng_error *err)
{
    (void)ch;
    (void)err;
    n->channels = 3;
    return 0;
}

static int vfield_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    int need = b->channels, c, i;
    (void)ctx;
    (void)n;
    (void)in;
    if (need < atomic_load(&needed_min)) atomic_store(&needed_min, need);
    if (need > atomic_load(&needed_max)) atomic_store(&needed_max, need);
    for (c = 0; c < 3; c++) /* channels nobody asked for: NaN, which would show */
        for (i = 0; i < b->n; i++) out[(size_t)c * b->n + i] = c < need ? 0.5f - 0.25f * c : NAN;
    return 0;
}

static const ng_node_type vfield_type = {
    .name = "vfield", .family = "test", .doc = "a constant vector that records channels needed",
    .dims = NG_DIMS_ALL, .setup = vfield_setup, .eval = vfield_eval,
};

static int all_finite(const float *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* A 2D warp reads 2 channels of its field, so a field only it reads
 * computes 2 of 3; in 3D all 3; a field read by two consumers is memoised
 * whole. The output never sees an unwritten channel. */
static void test_warp_asks_for_the_channels_it_reads(void)
{
    static const struct {
        int dims, shared, expect;
    } cases[] = {{2, 0, 2}, {3, 0, 3}, {2, 1, 3}};
    size_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ng_graph *g = ng_graph_new();
        ng_error err;
        ng_node *vn = ng_node_begin(g, &vfield_type, NULL, NULL, &err);
        int v = ng_node_finish(g, vn, &err), src = t_noise(g, "perlin", 8, 3);
        int root = t_warp(g, src, v, 2);
        ng_render_opts o;
        float *out;
        if (cases[k].shared) root = t_warp(g, root, v, 1);
        t_opts(&o, 32, 32);
        o.dims = cases[k].dims;
        atomic_store(&needed_min, 99);
        atomic_store(&needed_max, 0);
        out = t_render(g, root, &o);
        CHECK(out != NULL);
        if (out) CHECK(all_finite(out, 32 * 32));
        CHECKF(atomic_load(&needed_min) == cases[k].expect && atomic_load(&needed_max) == cases[k].expect,
               "dims %d, shared %d: field asked for %d to %d channels, expected %d", cases[k].dims,
               cases[k].shared, atomic_load(&needed_min), atomic_load(&needed_max), cases[k].expect);
        free(out);
        ng_graph_free(g);
    }
}

/* A chain far deeper than any C stack could recurse renders, and adding
 * zero 100 000 times leaves the noise bit-identical. */
static void test_deep_chain_renders(void)
{
    ng_graph *g = ng_graph_new();
    int base = t_noise(g, "perlin", 8, 3), x = base, i, root;
    int zero = t_const(g, 0);
    ng_render_opts o;
    float *a, *b;
    for (i = 0; i < 100000; i++) x = t_bin(g, "add", x, zero);
    root = x;
    t_opts(&o, 24, 24);
    o.tile = 16;
    a = t_render(g, root, &o);
    b = t_render(g, base, &o);
    CHECK(a && b);
    if (a && b) CHECK(memcmp(a, b, 24 * 24 * sizeof(float)) == 0);
    free(a);
    free(b);
    ng_graph_free(g);
}

/* Nesting of warps is bounded, and refused at construction with the limit. */
static void test_pull_nesting_refused_with_clear_error(void)
{
    ng_graph *g = ng_graph_new();
    int by = t_vnoise(g, "simplex", 32, 1), x = t_noise(g, "perlin", 8, 0), i, id = 0;
    ng_error err = {{0}};
    for (i = 0; i < NG_MAX_PULL_DEPTH; i++) x = t_warp(g, x, by, 0.5);
    CHECK(render_ok(g, x, 16, 16, 16)); /* at the limit: renders */
    {
        const ng_node_type *t = ng_type_find("warp");
        ng_node *n = ng_node_begin(g, t, NULL, NULL, &err);
        ng_set_input(g, n, 0, x, &err);
        ng_set_input(g, n, 1, by, &err);
        id = ng_node_finish(g, n, &err);
    }
    CHECK_INT(id, -1);
    CHECK_CONTAINS(err.msg, "nest");
    CHECK_CONTAINS(err.msg, "limit is 256");
    ng_graph_free(g);
}

/* Inputs can only name nodes that exist: no cycle can be built. */
static void test_inputs_must_exist(void)
{
    ng_graph *g = ng_graph_new();
    ng_error err = {{0}};
    int a = t_const(g, 1);
    ng_node *n = ng_node_begin(g, ng_type_find("add"), NULL, NULL, &err);
    CHECK_INT(ng_set_input(g, n, 0, a + 1, &err), -1); /* its own future id */
    CHECK_CONTAINS(err.msg, "does not exist");
    CHECK_INT(ng_set_input(g, n, 0, -1, &err), -1);
    ng_node_discard(n);
    CHECK_INT(ng_graph_count(g), 1);
    ng_graph_free(g);
}

static void test_validation_messages(void)
{
    ng_graph *g = ng_graph_new();
    ng_error err = {{0}};
    const ng_node_type *noise = ng_type_find("noise");
    ng_node *n = ng_node_begin(g, noise, "perlin", NULL, &err);
    double v[3] = {1, 0, 1};
    CHECK_INT(ng_set_number(n, ng_param_index(noise, "element_size"), -2, &err), -1);
    CHECK_CONTAINS(err.msg, "perlin: option 'element_size' = -2 is out of range");
    CHECK_INT(ng_set_number(n, ng_param_index(noise, "seed"), 1.5, &err), -1);
    CHECK_CONTAINS(err.msg, "must be an integer");
    /* an integer option far past any integer type: out of range, without
     * an undefined cast on the way (the SAN build checks; the fuzzer found
     * seed = 4e30) */
    CHECK_INT(ng_set_number(n, ng_param_index(noise, "seed"), 4e30, &err), -1);
    CHECK_CONTAINS(err.msg, "option 'seed' = 4e+30 is out of range");
    CHECK_INT(ng_set_number(n, ng_param_index(noise, "seed"), -1.0 / 0.0, &err), -1);
    CHECK_CONTAINS(err.msg, "option 'seed' = -inf is out of range");
    CHECK_INT(ng_set_number(n, ng_param_index(noise, "seed"), 0.0 / 0.0, &err), -1);
    CHECK_CONTAINS(err.msg, "option 'seed' is NaN, not a number"); /* not printf's "-nan" */
    CHECK(strstr(err.msg, "nan") == NULL);
    CHECK_INT(ng_set_choice(n, ng_param_index(noise, "type"), "perlinn", &err), -1);
    CHECK_CONTAINS(err.msg, "\"perlin\"");
    CHECK_CONTAINS(err.msg, "\"simplex\"");
    CHECK_INT(ng_set_vec3(n, ng_param_index(noise, "element_scale"), v, &err), -1);
    CHECK_CONTAINS(err.msg, "element_scale");
    CHECK_INT(ng_set_number(n, ng_param_index(noise, "amplitude"), 0.0 / 0.0, &err), -1);
    CHECK_STR(ng_closest_key(noise, "elment_size"), "element_size");
    CHECK_STR(ng_closest_key(noise, "sed"), "seed");
    CHECK(ng_closest_key(noise, "zzzzzzzzzzzz") == NULL);
    ng_node_discard(n);

    n = ng_node_begin(g, ng_type_find("warp"), NULL, NULL, &err);
    ng_set_input(g, n, 1, t_noise(g, "perlin", 8, 0), &err); /* by: one channel */
    CHECK_INT(ng_node_finish(g, n, &err), -1);
    CHECK_CONTAINS(err.msg, "missing input 'source'");

    n = ng_node_begin(g, ng_type_find("warp"), NULL, NULL, &err);
    ng_set_input(g, n, 0, t_noise(g, "perlin", 8, 0), &err);
    ng_set_input(g, n, 1, t_noise(g, "perlin", 8, 0), &err);
    CHECK_INT(ng_node_finish(g, n, &err), -1);
    CHECK_CONTAINS(err.msg, "input 'by' needs 2 to 3 channels");
    ng_graph_free(g);
}

/* Rendering in a dimension a node lacks names the node, before any work. */
static void test_dimension_mismatch_named(void)
{
    ng_graph *g = ng_graph_new();
    ng_error err = {{0}};
    int root = t_bin(g, "add", t_finish(g, t_begin(g, "time")), t_const(g, 1));
    ng_render_opts o;
    float buf[16 * 16];
    t_opts(&o, 16, 16);
    o.dims = 3;
    CHECK_INT(ng_render_buffer(g, root, &o, buf, &err), -1);
    CHECK_CONTAINS(err.msg, "time: evaluates in 4D, but the render is 3D");
    ng_graph_free(g);
}

static float eval1(const ng_graph *g, int root, double x, double y)
{
    const double *xs[2] = {&x, &y};
    float out[NG_MAX_CHANNELS] = {0};
    ng_error err;
    if (ng_eval_points(g, root, 2, xs, 1, out, &err)) return -12345.0f;
    return out[0];
}

static void test_math_nodes_compute_their_docs(void)
{
    ng_graph *g = ng_graph_new();
    int a = t_const(g, 3), b = t_const(g, -2), half = t_const(g, 0.25);
    ng_node *n;
    int fit, clamp, mix;
    CHECK_NEAR(eval1(g, t_bin(g, "add", a, b), 5, 5), 1, 0);
    CHECK_NEAR(eval1(g, t_bin(g, "sub", a, b), 5, 5), 5, 0);
    CHECK_NEAR(eval1(g, t_bin(g, "mul", a, b), 5, 5), -6, 0);
    CHECK_NEAR(eval1(g, t_bin(g, "div", a, b), 5, 5), -1.5, 0);
    CHECK_NEAR(eval1(g, t_bin(g, "pow", a, b), 5, 5), 1.0 / 9.0, 1e-7);
    CHECK_NEAR(eval1(g, t_bin(g, "min", a, b), 5, 5), -2, 0);
    CHECK_NEAR(eval1(g, t_bin(g, "max", a, b), 5, 5), 3, 0);

    n = t_begin(g, "fit");
    ng_set_input(g, n, 0, b, NULL);
    t_set(n, "from_lo", -4), t_set(n, "from_hi", 0), t_set(n, "to_lo", 10), t_set(n, "to_hi", 20);
    fit = t_finish(g, n);
    CHECK_NEAR(eval1(g, fit, 0, 0), 15, 1e-6);

    n = t_begin(g, "clamp");
    ng_set_input(g, n, 0, a, NULL);
    t_set(n, "lo", -1), t_set(n, "hi", 1);
    clamp = t_finish(g, n);
    CHECK_NEAR(eval1(g, clamp, 0, 0), 1, 0);

    n = t_begin(g, "mix");
    ng_set_input(g, n, 0, a, NULL);
    ng_set_input(g, n, 1, b, NULL);
    ng_set_input(g, n, 2, half, NULL);
    mix = t_finish(g, n);
    CHECK_NEAR(eval1(g, mix, 0, 0), 3 + (-2 - 3) * 0.25, 1e-6);

    n = t_begin(g, "abs");
    ng_set_input(g, n, 0, b, NULL);
    CHECK_NEAR(eval1(g, t_finish(g, n), 0, 0), 2, 0);
    n = t_begin(g, "neg");
    ng_set_input(g, n, 0, b, NULL);
    CHECK_NEAR(eval1(g, t_finish(g, n), 0, 0), 2, 0);
    ng_graph_free(g);
}

/* A scalar times a vector scales every channel. */
static void test_broadcast_over_vectors(void)
{
    ng_graph *g = ng_graph_new();
    int v = t_vnoise(g, "simplex", 16, 4), root = t_bin(g, "mul", v, t_const(g, 2));
    double x = 3.7, y = 9.1;
    const double *xs[2] = {&x, &y};
    float a[3], b[3];
    ng_error err;
    int c;
    CHECK_INT(ng_node_channels(ng_graph_node(g, root)), 3);
    CHECK_INT(ng_eval_points(g, v, 2, xs, 1, a, &err), 0);
    CHECK_INT(ng_eval_points(g, root, 2, xs, 1, b, &err), 0);
    for (c = 0; c < 3; c++) CHECK_NEAR(b[c], 2 * a[c], 0);
    ng_graph_free(g);
}

/* ---- a node that reads its source twice at the same positions ----------- */

static int twice_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    float *again = ng_scratch(ctx, 1);
    int i, rc = -1;
    (void)in;
    if (again && !ng_pull(ctx, n, 0, b, out) && !ng_pull(ctx, n, 0, b, again)) {
        for (i = 0; i < b->n; i++) out[i] += again[i];
        rc = 0;
    }
    ng_scratch_free(ctx, again, 1);
    return rc;
}

static const ng_input_desc twice_inputs[] = {
    {"source", NG_INPUT_PULL, 1, 1, 0, "read twice"},
};

static const ng_node_type twice_type = {
    .name = "twice", .family = "test", .doc = "source + source, pulled twice at the same positions",
    .inputs = twice_inputs, .ninputs = 1, .dims = NG_DIMS_ALL, .eval = twice_eval,
};

/* The memo frees a shared result after as many reads as it has consumers.
 * A consumer evaluated twice at the same positions (under a node that
 * pulls twice) reads it once too often: the second time the result is
 * still there when its consumer starts, but a sibling takes the last read
 * before the consumer runs, so the evaluator computes it again (the
 * recompute fallback in ng__eval). The output is the same as without. */
static void test_memo_recomputes_a_result_read_once_too_often(void)
{
    ng_graph *g = ng_graph_new(), *ref = ng_graph_new();
    ng_error err;
    ng_render_opts o;
    float *got, *want;
    int s = counter(g), u, root, rs, ru, rroot;
    ng_node *t;
    /* u = s + 2s; an unrendered consumer of s keeps one read of it pending */
    u = t_bin(g, "add", s, t_bin(g, "mul", s, t_const(g, 2)));
    t_bin(g, "sub", s, t_const(g, 1));
    t = ng_node_begin(g, &twice_type, NULL, NULL, &err);
    CHECK(t && ng_set_input(g, t, 0, u, &err) == 0);
    root = ng_node_finish(g, t, &err);
    CHECK(root >= 0);
    /* the same sum without the double read: 2 * (s + 2s) */
    rs = counter(ref);
    ru = t_bin(ref, "add", rs, t_bin(ref, "mul", rs, t_const(ref, 2)));
    rroot = t_bin(ref, "mul", ru, t_const(ref, 2));
    t_opts(&o, 64, 64);
    o.tile = 64;
    atomic_store(&evals, 0);
    got = t_render(g, root, &o);
    /* once for the first read of u, once more when the second read finds
     * it consumed */
    CHECK_INT(atomic_load(&evals), 2);
    want = t_render(ref, rroot, &o);
    CHECK(got && want);
    if (got && want) CHECK(memcmp(got, want, 64 * 64 * sizeof(float)) == 0);
    free(got);
    free(want);
    ng_graph_free(g);
    ng_graph_free(ref);
}

/* ---- a node that fails in the last rows of the image -------------------- */

#define FAIL_FROM_ROW 240
static atomic_int failures;

static int failing_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    int i;
    (void)n;
    (void)in;
    for (i = 0; i < b->n; i++) {
        if (b->anchor[1] + b->p[1][i] >= FAIL_FROM_ROW) {
            atomic_fetch_add(&failures, 1);
            return ng_fail(ctx, "failing: gave up in the last rows");
        }
        out[i] = 0.5f;
    }
    return 0;
}

static const ng_node_type failing_type = {
    .name = "failing", .family = "test", .doc = "fails below a row", .dims = NG_DIMS_ALL, .eval = failing_eval,
};

/* A sink that counts what reaches the file sink it wraps. */
typedef struct counting_sink {
    ng_sink inner;
    int rows, ends, end_ok;
} counting_sink;

static int cs_begin(void *u, int w, int h, int ch, ng_error *err)
{
    counting_sink *c = u;
    return c->inner.begin(c->inner.user, w, h, ch, err);
}

static int cs_rows(void *u, int y, int nrows, const float *rows, ng_error *err)
{
    counting_sink *c = u;
    c->rows += nrows;
    return c->inner.rows(c->inner.user, y, nrows, rows, err);
}

static int cs_end(void *u, int ok, ng_error *err)
{
    counting_sink *c = u;
    c->ends++;
    c->end_ok = ok;
    return c->inner.end(c->inner.user, ok, err);
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int count = 0;
    if (!d) return -1;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) count++;
    closedir(d);
    return count;
}

/* Four workers; every tile of the last band fails. The workers run at most
 * a ring of threads + 1 bands ahead of the writer, so the bands before it
 * are in the temporary file when the failure comes. The render returns the
 * node's one error (not a mixture, not "evaluation failed"), the sink is
 * ended once as failed, and the directory holds neither the image nor a
 * temporary file. */
static void test_failure_mid_render_on_several_threads(void)
{
    char dir[] = "/tmp/ng-core-XXXXXX", path[64];
    ng_graph *g = ng_graph_new();
    ng_error err = {{0}};
    ng_node *n = ng_node_begin(g, &failing_type, NULL, NULL, &err);
    int root = ng_node_finish(g, n, &err), rc;
    ng_file_sink *fs;
    counting_sink cs;
    ng_sink sink;
    ng_render_opts o;
    CHECK(root >= 0);
    if (!mkdtemp(dir)) {
        CHECKF(0, "mkdtemp: cannot make a scratch directory");
        ng_graph_free(g);
        return;
    }
    snprintf(path, sizeof path, "%s/out.png", dir);
    fs = ng_file_sink_new(path, 8, &err);
    CHECK(fs != NULL);
    memset(&cs, 0, sizeof cs);
    cs.inner = ng_file_sink_as_sink(fs);
    sink.begin = cs_begin, sink.rows = cs_rows, sink.end = cs_end, sink.user = &cs;
    t_opts(&o, 64, 256);
    o.tile = 16;
    o.threads = 4;
    atomic_store(&failures, 0);
    rc = ng_render(g, &root, 1, &o, &sink, &err);
    CHECK_INT(rc, -1);
    CHECK_STR(err.msg, "failing: gave up in the last rows");
    CHECK(atomic_load(&failures) >= 1);
    CHECK(cs.rows >= FAIL_FROM_ROW - 4 * 16); /* the bands the workers could not outrun */
    CHECK(cs.rows <= FAIL_FROM_ROW);
    CHECK_INT(cs.ends, 1);
    CHECK_INT(cs.end_ok, 0);
    ng_file_sink_free(fs);
    CHECK_INT(entries(dir), 0);
    CHECK_INT(rmdir(dir), 0);
    ng_graph_free(g);
}

/* Constant inputs are read from one filled block per value and context
 * (eval.c konst_block), past NG_KONSTS values evaluated per block as any
 * node: a sum of 24 constants (18 distinct, one node read twice) onto a
 * noise is the noise plus each constant in turn, in float, at tile 16 and
 * 64 on 1 and 2 threads; and a constant's gradient is flat, so the slope
 * of noise + constant is the slope of the noise, bit for bit. */
static void test_constant_inputs_read_as_filled_blocks(void)
{
    enum { W = 96, H = 80, NC = 24 };
    ng_graph *g = ng_graph_new();
    const int noise = t_noise(g, "perlin", 20.0, 3);
    int sum = noise, twice = t_const(g, 0.375), i, k;
    float v[NC];
    ng_node *sn;
    int slope_sum, slope_noise;
    float *ref, *img, *s1, *s2;
    ng_render_opts o;
    for (i = 0; i < NC; i++) {
        v[i] = i == 5 || i == 11 ? 0.375f : (float)(0.1 + 0.013 * (i % 18));
        sum = t_bin(g, "add", sum, i == 5 || i == 11 ? twice : t_const(g, (double)v[i]));
    }
    sn = t_on(g, "surface", sum);
    t_choose(sn, "mode", "slope");
    t_choose(sn, "method", "analytic"); /* the gradient of a constant: exactly 0 */
    slope_sum = t_finish_ok(g, sn);
    sn = t_on(g, "surface", noise);
    t_choose(sn, "mode", "slope");
    t_choose(sn, "method", "analytic");
    slope_noise = t_finish_ok(g, sn);
    t_opts(&o, W, H);
    ref = t_render(g, noise, &o);
    CHECK(ref != NULL);
    for (k = 0; ref && k < 4; k++) {
        o.tile = k & 1 ? 64 : 16;
        o.threads = k & 2 ? 2 : 1;
        img = t_render(g, sum, &o);
        CHECK(img != NULL);
        for (i = 0; img && i < W * H; i++) {
            float want = ref[i];
            int j;
            for (j = 0; j < NC; j++) want += v[j];
            if (memcmp(&img[i], &want, sizeof want) != 0) {
                CHECKF(0, "tile %d, %d threads: sample %d is %.9g, not %.9g", o.tile, o.threads, i, img[i], want);
                break;
            }
        }
        free(img);
        s1 = t_render(g, slope_sum, &o), s2 = t_render(g, slope_noise, &o);
        CHECK(s1 && s2 && !memcmp(s1, s2, (size_t)W * H * sizeof *s1));
        free(s1), free(s2);
    }
    free(ref);
    ng_graph_free(g);
}

/* One evaluation of a noise plus 16 constants (distinct: 0.1, 0.2, ... or
 * all 0.25) on a context of cap points with a memory limit of `limit`
 * bytes: the samples in out, the bytes charged in *used; 0, or -1 with the
 * context's error in msg. */
static int constants_under_limit(int cap, int distinct, size_t limit, float *out, double *used, char *msg,
                                 size_t msglen)
{
    ng_graph *g = ng_graph_new();
    int root = t_noise(g, "value", 30.0, 5), i, *uses, rc = -1;
    atomic_size_t charged;
    ng__stop stop;
    ng_error err = {{0}};
    ng_ctx *c;
    ng_block b;
    for (i = 0; i < 16; i++) root = t_bin(g, "add", root, t_const(g, distinct ? 0.1 * (i + 1) : 0.25));
    uses = ng__uses(g, &root, 1);
    c = uses ? ng__ctx_new(g, uses, cap, &err) : NULL;
    memset(&stop, 0, sizeof stop);
    atomic_init(&charged, 0);
    stop.memory_limit = limit;
    stop.memory_used = &charged;
    memset(&b, 0, sizeof b);
    snprintf(msg, msglen, "%s", err.msg);
    if (c) {
        float *x = malloc((size_t)cap * sizeof *x);
        ng__ctx_set_stop(c, &stop);
        for (i = 0; x && i < cap; i++) x[i] = (float)i * 0.37f;
        b.n = cap, b.dims = 2, b.channels = 1, b.pos_id = 1;
        b.p[0] = b.p[1] = x, b.p[2] = b.p[3] = ng__ctx_zeros(c);
        if (x) rc = ng__eval(c, root, &b, out, 0);
        snprintf(msg, msglen, "%s", ng__ctx_error(c)->msg);
        free(x);
    }
    *used = (double)atomic_load(&charged);
    ng__ctx_free(c);
    free(uses);
    ng_graph_free(g);
    return rc;
}

/* The constant blocks a context keeps (at most 1 MiB of them) count against
 * the memory limit like scratch: 16 distinct constants charge 15 blocks
 * more than 16 equal ones (one kept block), whether kept (16 KiB blocks at
 * 4096 points), partly kept (4 of 256 KiB) or evaluated per block (1 MiB).
 * Under a limit with room for that and no more the evaluation runs, the
 * same samples; under tighter ones it never charges past the limit and
 * either still gives the same samples (kept blocks step aside) or fails
 * with the limit's message. */
static void test_kept_constant_blocks_count_against_the_memory_limit(void)
{
    static const int caps[] = {4096, 65536, 262144};
    const size_t lots = (size_t)1 << 34;
    char msg[sizeof(ng_error)];
    int k, j;
    for (k = 0; k < 3; k++) {
        const int cap = caps[k];
        const size_t block = (size_t)cap * sizeof(float);
        float *a = malloc(block), *b = malloc(block);
        double distinct, equal, used;
        if (!a || !b) {
            CHECKF(0, "out of memory");
            free(a), free(b);
            return;
        }
        CHECK_INT(constants_under_limit(cap, 1, lots, a, &distinct, msg, sizeof msg), 0);
        CHECK_INT(constants_under_limit(cap, 0, lots, b, &equal, msg, sizeof msg), 0);
        CHECKF(distinct - equal == 15.0 * (double)block,
               "cap %d: 16 distinct constants charged %.0f bytes more than 16 equal ones, not 15 blocks of %zu", cap,
               distinct - equal, block);
        for (j = 0; j <= 16; j++) { /* from the whole need down to 16 blocks less */
            const size_t limit = (size_t)distinct - (size_t)j * block;
            const int rc = constants_under_limit(cap, 1, limit, b, &used, msg, sizeof msg);
            CHECKF(used <= (double)limit, "cap %d, limit %zu: %.0f bytes charged", cap, limit, used);
            if (j == 0) CHECKF(rc == 0, "cap %d: the evaluation failed with room for its need: %s", cap, msg);
            if (rc == 0)
                CHECKF(!memcmp(a, b, block), "cap %d, limit %zu: the samples differ", cap, limit);
            else
                CHECKF(strstr(msg, "memory limit") != NULL, "cap %d, limit %zu: failed with '%s'", cap, limit, msg);
        }
        free(a), free(b);
    }
}

NG_SUITE(core, fast)
{
    RUN(test_shared_node_evaluated_once_per_tile);
    RUN(test_memo_distinguishes_positions_and_seeds);
    RUN(test_warp_asks_for_the_channels_it_reads);
    RUN(test_deep_chain_renders);
    RUN(test_pull_nesting_refused_with_clear_error);
    RUN(test_inputs_must_exist);
    RUN(test_validation_messages);
    RUN(test_dimension_mismatch_named);
    RUN(test_math_nodes_compute_their_docs);
    RUN(test_broadcast_over_vectors);
    RUN(test_memo_recomputes_a_result_read_once_too_often);
    RUN(test_failure_mid_render_on_several_threads);
    RUN(test_constant_inputs_read_as_filled_blocks);
    RUN(test_kept_constant_blocks_count_against_the_memory_limit);
}
