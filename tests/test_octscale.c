/*
 * test_octscale.c — fractal octaves scaled without a pass over the
 * positions (ng_block.p_scale): a block whose scale is carried gives every
 * node the bits of the same block with the positions multiplied out, value
 * and analytic gradient, for the nodes that fold it (noises of every
 * basis, their own fractals, ng.fractal, fractals of fractals) and for
 * those the evaluator multiplies it out for (warps, math, driven options);
 * renders through the whole program give the pictures of the code before
 * the change (hashes recorded with it), at any tile size and thread count,
 * far from the origin too.
 */
#include "build.h"
#include "cli_support.h"
#include "harness.h"
#include "ng_internal.h"
#include "octaves.h"
#include "suites.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { NPTS = 96 };

/* ---- a block with its scale carried, against the same block multiplied out ---- */

typedef struct bench {
    int *uses;
    ng_ctx *c;
    ng_node consumer; /* a stand-in whose input 0 is the root */
    float pos[4][NPTS], mul[4][NPTS];
} bench;

/* Positions in [-150, 150) (a fixed stream), scaled block a, multiplied-out block m. */
static void make_blocks(bench *B, ng_block *a, ng_block *m, int dims, double anchor, float s)
{
    unsigned seed = 12345u + (unsigned)dims;
    int d, i;
    memset(a, 0, sizeof *a);
    a->n = NPTS;
    a->dims = dims;
    a->channels = 1;
    a->footprint = 1;
    for (d = 0; d < 4; d++) a->p[d] = ng__ctx_zeros(B->c);
    for (d = 0; d < dims; d++) {
        a->anchor[d] = anchor * s; /* an octave block's anchor is scaled already */
        for (i = 0; i < NPTS; i++) {
            seed = seed * 1664525u + 1013904223u;
            B->pos[d][i] = (float)((seed >> 8) * (300.0 / 16777216.0) - 150.0);
            B->mul[d][i] = B->pos[d][i] * s;
        }
        a->p[d] = B->pos[d];
    }
    *m = *a;
    for (d = 0; d < dims; d++) m->p[d] = B->mul[d];
    a->p_scale = s;
}

static int same_floats(const float *x, const float *y, size_t n) { return memcmp(x, y, n * sizeof(float)) == 0; }

/* root at a (scale carried) and m (multiplied out): values through the
 * evaluator and value plus analytic gradient through ng_pull_grad, every
 * channel, bit for bit; in 2D, 3D and 4D, near and far from the origin. */
static void check_same_bits(const ng_graph *g, int root, const char *what)
{
    static const double anchors[] = {0.0, -3071.25, 1e9};
    static const float scales[] = {2.0f, 64.0f, 0x1p90f};
    static float va[NG_MAX_CHANNELS * NPTS], vm[NG_MAX_CHANNELS * NPTS];
    static float ga[NG_MAX_PLANES * NPTS], gm[NG_MAX_PLANES * NPTS];
    const int ch = ng_node_channels(ng_graph_node(g, root));
    bench B;
    ng_error err;
    int dims, a, s;
    memset(&B, 0, sizeof B);
    B.uses = ng__uses(g, &root, 1);
    B.c = B.uses ? ng__ctx_new(g, B.uses, NPTS, &err) : NULL;
    B.consumer.input[0] = root;
    if (!B.c) {
        CHECKF(0, "%s: no context", what);
        free(B.uses);
        return;
    }
    for (dims = 2; dims <= 4; dims++)
        for (a = 0; a < 3 && (ng_graph_node(g, root)->dims >> dims & 1u); a++)
            for (s = 0; s < 3; s++) {
                ng_block ba, bm;
                int bad = 0;
                make_blocks(&B, &ba, &bm, dims, anchors[a], scales[s]);
                ba.pos_id = ng__ctx_tile(B.c);
                bad |= ng__eval(B.c, root, &ba, va, 0);
                bm.pos_id = ng__ctx_tile(B.c);
                bad |= ng__eval(B.c, root, &bm, vm, 0);
                if (bad) {
                    CHECKF(0, "%s: evaluation failed: %s", what, ng__ctx_error(B.c)->msg);
                    goto done;
                }
                CHECKF(same_floats(va, vm, (size_t)ch * NPTS), "%s %dD anchor %g scale %g: values differ", what, dims,
                       anchors[a], (double)scales[s]);
                ba.pos_id = ng__ctx_tile(B.c);
                bad |= ng_pull_grad(B.c, &B.consumer, 0, &ba, va, ga, 0);
                bm.pos_id = ng__ctx_tile(B.c);
                bad |= ng_pull_grad(B.c, &B.consumer, 0, &bm, vm, gm, 0);
                if (bad) {
                    CHECKF(0, "%s: gradient failed: %s", what, ng__ctx_error(B.c)->msg);
                    goto done;
                }
                CHECKF(same_floats(va, vm, (size_t)ch * NPTS) && same_floats(ga, gm, (size_t)(ch * dims) * NPTS),
                       "%s %dD anchor %g scale %g: value or gradient differs", what, dims, anchors[a],
                       (double)scales[s]);
            }
done:
    ng__ctx_free(B.c);
    free(B.uses);
}

static const char *const fractal_types[] = {"fbm", "terrain", "hybrid", "ridged", "billow"};

static int fractal_of(ng_graph *g, const char *type, int src, double lacunarity)
{
    ng_node *n = t_on(g, type, src);
    t_set(n, "octaves", 4.5);
    t_set(n, "lacunarity", lacunarity);
    return t_finish_ok(g, n);
}

/* Every basis folds the scale into its frequency (or, off float's range,
 * multiplies it out itself): as multiplied out. */
static void test_noises_fold_the_scale(void)
{
    static const char *const bases[] = {"perlin", "value", "fast", "simplex", "flow", "worley", "white",
                                        "alligator", "sparse"};
    size_t i;
    for (i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        ng_graph *g = ng_graph_new();
        check_same_bits(g, t_noise(g, bases[i], 37, 5), bases[i]);
        ng_graph_free(g);
    }
    { /* a vector noise (one lattice walk), and a frequency of 1e12 whose product with 2^90 leaves float */
        ng_graph *g = ng_graph_new();
        ng_node *n = t_begin(g, "perlin");
        check_same_bits(g, t_vnoise(g, "perlin", 37, 5), "vector perlin");
        t_set(n, "element_size", 1e-6);
        t_vec(n, "element_scale", 1e-6, 1e-6, 1e-6);
        check_same_bits(g, t_finish_ok(g, n), "perlin at a frequency of 1e12");
        ng_graph_free(g);
    }
}

/* The unified noise's own fractal and ng.fractal compose the carried
 * scale with each octave's: powers of two fold, a lacunarity of 1.7
 * multiplies both out in the octave's pass; a fractal of a fractal too. */
static void test_fractals_compose_the_scale(void)
{
    size_t t;
    for (t = 0; t < 5; t++) {
        ng_graph *g = ng_graph_new();
        const int perlin = t_noise(g, "perlin", 37, 5);
        ng_node *own = t_begin(g, "perlin");
        char what[96];
        t_set(own, "element_size", 37);
        t_choose(own, "fractal", fractal_types[t]);
        t_set(own, "octaves", 3.5);
        snprintf(what, sizeof what, "perlin with fractal = %s", fractal_types[t]);
        check_same_bits(g, t_finish_ok(g, own), what);
        snprintf(what, sizeof what, "ng.%s of perlin, lacunarity 2", fractal_types[t]);
        check_same_bits(g, fractal_of(g, fractal_types[t], perlin, 2), what);
        snprintf(what, sizeof what, "ng.%s of perlin, lacunarity 1.7", fractal_types[t]);
        check_same_bits(g, fractal_of(g, fractal_types[t], perlin, 1.7), what);
        snprintf(what, sizeof what, "ng.fbm of ng.%s of simplex", fractal_types[t]);
        check_same_bits(g, fractal_of(g, "fbm", fractal_of(g, fractal_types[t], t_noise(g, "simplex", 29, 2), 2), 2),
                        what);
        ng_graph_free(g);
    }
}

/* Nodes that do not take the scale get it multiplied out by the evaluator:
 * a warp, math over a noise, a noise whose element size a node drives. */
static void test_other_sources_see_the_positions(void)
{
    ng_graph *g = ng_graph_new();
    const int perlin = t_noise(g, "perlin", 37, 5);
    ng_error err;
    ng_node *driven = t_begin(g, "simplex");
    check_same_bits(g, t_warp(g, perlin, t_vnoise(g, "simplex", 50, 9), 12), "warp");
    check_same_bits(g, t_bin(g, "mul", perlin, t_const(g, 0.5)), "perlin * 0.5");
    CHECK(ng_set_param_node(g, driven, ng_param_index(ng_node_type_of(driven), "element_size"),
                            t_bin(g, "add", t_const(g, 40), t_bin(g, "mul", perlin, t_const(g, 8))), &err) == 0);
    check_same_bits(g, t_finish_ok(g, driven), "simplex with a driven element size");
    check_same_bits(g, fractal_of(g, "ridged", t_warp(g, perlin, t_vnoise(g, "perlin", 50, 9), 12), 2),
                    "ridged of a warp");
    ng_graph_free(g);
}

/* ---- whole renders against the code before octave scales were carried ---------- */

/* FNV-1a 64 of a file's bytes (0 if unreadable). */
static uint64_t file_hash(const char *path)
{
    size_t len, i;
    unsigned char *b = slurp(path, &len);
    uint64_t h = 0xcbf29ce484222325ull;
    if (!b) return 0;
    for (i = 0; i < len; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    free(b);
    return h;
}

/* Each script renders to a float image whose bytes hash as they did before
 * (recorded with 63e810e's program), on 1 thread  with 64-pixel tiles and on
 * 2 with 24: fractals of every type over a noise (folded), at lacunarity
 * 1.7 (not), over a warp and over math; the noise's own fractal; a fractal
 * of a fractal; far from the origin; in 3D. */
static void test_renders_keep_their_pictures(void)
{
    static const struct {
        const char *name, *script, *origin, *z; /* z: a 3D render's plane, or NULL */
        uint64_t hash;
    } cases[] = {
        {"fbm", "return ng.fbm{source = ng.perlin{element_size = 20}, octaves = 6}", "0,0", NULL, 0x2b651db4a3a5a2daull},
        {"ridged", "return ng.ridged{source = ng.perlin{element_size = 20}, octaves = 6}", "0,0", NULL, 0xc9babc469b2c1867ull},
        {"billow", "return ng.billow{source = ng.simplex{element_size = 20}, octaves = 5}", "0,0", NULL, 0x810409369f2b7357ull},
        {"hybrid", "return ng.hybrid{source = ng.perlin{element_size = 20}, octaves = 6}", "0,0", NULL, 0xd4e8f6c885392b27ull},
        {"terrain", "return ng.terrain{source = ng.value{element_size = 20}, octaves = 6}", "0,0", NULL, 0x386779a15d0f47bcull},
        {"lac17", "return ng.ridged{source = ng.perlin{element_size = 20}, lacunarity = 1.7}", "0,0", NULL, 0x22b83e538d29efcbull},
        {"far", "return ng.fbm{source = ng.perlin{element_size = 20}, octaves = 6}", "1e9,-1e9", NULL, 0x3ae8439429fe6c0full},
        {"far3", "return ng.ridged{source = ng.perlin{element_size = 20}, octaves = 6}", "1e9,5", "-1e9", 0x5f373a575661db5cull},
        {"billow3", "return ng.billow{source = ng.simplex{element_size = 20}, octaves = 5, lacunarity = 2.5}", "0,0",
         "3.25", 0x7509f3f3628820f2ull},
        {"own", "return ng.noise{type = 'simplex', element_size = 30, fractal = 'hybrid', octaves = 4.5}", "1e9,0", NULL,
         0x82e5701c19bf8e9aull},
        {"warp",
         "local w = ng.warp{source = ng.perlin{element_size = 25}, by = ng.simplex{element_size = 40, output = "
         "'vector'}, amount = 10}\nreturn ng.ridged{source = w, octaves = 4}",
         "0,0", NULL, 0xbba881442d8b52e9ull}, /* the vector walk of wip-vecwalk (without the fold) */
        {"math", "return ng.fbm{source = ng.perlin{element_size = 25} * 0.5 + ng.worley{element_size = 30}, "
                 "octaves = 4}",
         "-5000,77", NULL, 0x5367c94f2696a310ull},
        {"nested", "return ng.billow{source = ng.ridged{source = ng.perlin{element_size = 60}, octaves = 3}, "
                   "octaves = 3}",
         "0,0", NULL, 0xcb6ba3554a3e6a3bull},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char script[PATHLEN], out1[PATHLEN], out2[PATHLEN], name[64];
        res r;
        snprintf(name, sizeof name, "%s.lua", cases[i].name);
        mkscript(script, name, cases[i].script);
        snprintf(name, sizeof name, "%s1.pfm", cases[i].name);
        tpath(out1, name);
        snprintf(name, sizeof name, "%s2.pfm", cases[i].name);
        tpath(out2, name);
        /* a NULL z ends the arguments before "--z" */
        cli(&r, "render", script, "-o", out1, "--size", "150x110", "--origin", cases[i].origin, "--threads", "1",
            "--tile", "64", cases[i].z ? "--z" : NULL, cases[i].z, NULL);
        EXPECT_OK(&r);
        res_free(&r);
        cli(&r, "render", script, "-o", out2, "--size", "150x110", "--origin", cases[i].origin, "--threads", "2",
            "--tile", "24", cases[i].z ? "--z" : NULL, cases[i].z, NULL);
        EXPECT_OK(&r);
        res_free(&r);
        CHECKF(file_hash(out1) == cases[i].hash && file_hash(out2) == cases[i].hash,
               "%s: hashes %016llx and %016llx, recorded %016llx", cases[i].name, (unsigned long long)file_hash(out1),
               (unsigned long long)file_hash(out2), (unsigned long long)cases[i].hash);
    }
}

/* The largest |p| that decides whether an octave may fold its scale: NaN
 * skipped (it stays NaN at any scale), infinity and -0 as they are, at any
 * length (the vector loop's tail), on the path in use. */
static void test_block_max_abs(void)
{
    static float x[37], y[37];
    ng_block b;
    int i;
    memset(&b, 0, sizeof b);
    for (i = 0; i < 37; i++) x[i] = (float)(i % 7) - 3.0f, y[i] = -0.0f;
    b.n = 37, b.dims = 2, b.p[0] = x, b.p[1] = y;
    CHECK(ng__block_max_abs(&b) == 3.0f);
    y[36] = -1e30f; /* the tail */
    CHECK(ng__block_max_abs(&b) == 1e30f);
    x[5] = __builtin_nanf(""), y[3] = -__builtin_nanf("");
    CHECK(ng__block_max_abs(&b) == 1e30f);
    x[20] = -__builtin_inff();
    CHECK(ng__block_max_abs(&b) == __builtin_inff());
    for (i = 0; i < 37; i++) x[i] = y[i] = __builtin_nanf("");
    CHECK(ng__block_max_abs(&b) == 0.0f);
}

void suite_octscale(void)
{
    RUN(test_block_max_abs);
    RUN(test_noises_fold_the_scale);
    RUN(test_fractals_compose_the_scale);
    RUN(test_other_sources_see_the_positions);
    if (cli_setup("octscale") == 0) {
        RUN(test_renders_keep_their_pictures);
        cli_teardown();
    }
}
