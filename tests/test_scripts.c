/*
 * test_scripts.c — what a script writer calls, through the program where
 * they meet it: the render's size and normalised image coordinates
 * (ng.size, ng.u, ng.v; the same values in every region), 2D distance
 * centres, methods taking option tables (node:m{...} is ng.m{node, ...}
 * for every method), and did-you-mean for misspelt constructors and
 * methods.
 */
#include "cli_support.h"
#include "harness.h"
#include "types.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A float NRRD's samples (raw, little-endian, rows top to bottom) and its
 * sample count; NULL if it is not one. */
static float *read_nrrd(const char *path, size_t *count)
{
    size_t len, off, i;
    unsigned char *d = slurp(path, &len);
    const char *end = d ? strstr((const char *)d, "\n\n") : NULL;
    float *out = NULL;
    if (!end || !strstr((const char *)d, "type: float\n") || !strstr((const char *)d, "endian: little\n")) goto done;
    off = (size_t)(end - (const char *)d) + 2;
    if ((len - off) % 4 || !(out = malloc(len - off + 4))) goto done;
    *count = (len - off) / 4;
    for (i = 0; i < *count; i++) {
        const unsigned char *s = d + off + 4 * i;
        uint32_t b = (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24;
        memcpy(&out[i], &b, 4);
    }
done:
    free(d);
    return out;
}

/* Renders script to a scratch .nrrd with the extra arguments (up to 8,
 * NULL-terminated) and returns its samples (count checked), or NULL. */
static float *render_nrrd(const char *script, const char *name, size_t want, const char *const *extra)
{
    char out[PATHLEN];
    const char *args[16] = {"render", script, "-o", out};
    size_t n = 4, count = 0;
    float *v;
    res r;
    tpath(out, name);
    while (*extra && n < 14) args[n++] = *extra++;
    args[n] = NULL;
    run_argv(&r, DEFAULT_TIMEOUT, args);
    EXPECT_OK(&r);
    res_free(&r);
    v = read_nrrd(out, &count);
    CHECKF(v && count == want, "%s: %zu samples, %zu wanted", name, count, want);
    if (v && count != want) {
        free(v);
        v = NULL;
    }
    return v;
}

/* ---- the render context ---------------------------------------------------------------------- */

/* ng.size() is the render's full size (not a region's), depth 0 for an
 * image; info and dot run with the default 512 x 512. */
static void test_size_is_the_renders(void)
{
    char s[PATHLEN], out[PATHLEN];
    res r;
    mkscript(s, "size.lua", "local w, h, d = ng.size()\nprint('size', w, h, d)\nreturn ng.constant(w)\n");
    tpath(out, "size.pfm");
    cli(&r, "render", s, "-o", out, "--size", "100x50", "--region", "10,10,20,20", NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "size\t100\t50\t0\n");
    res_free(&r);
    tpath(out, "size.nrrd");
    cli(&r, "render", s, "-o", out, "--size", "8x6x4", NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "size\t8\t6\t4\n");
    res_free(&r);
    cli(&r, "info", s, NULL);
    CHECK_INT(r.code, 0);
    CHECK_CONTAINS(r.out, "size\t512\t512\t0\n");
    res_free(&r);
}

/* u and v are (i + 0.5) / W and (j + 0.5) / H at pixel centres, wherever
 * the image lies in the world. */
static void test_uv_pixel_centres(void)
{
    static const char *const plain[] = {"--size", "100x50", NULL};
    static const char *const moved[] = {"--size", "100x50", "--origin", "1000.25,-37", NULL};
    static const char *const scaled[] = {"--size", "100x50", "--pixel-size", "0.3", NULL};
    const char *const *opts[] = {plain, moved, scaled};
    char su[PATHLEN], sv[PATHLEN];
    int o, i, j, bad = 0;
    mkscript(su, "u.lua", "return ng.u()\n");
    mkscript(sv, "v.lua", "return ng.v()\n");
    for (o = 0; o < 3; o++) {
        float *u = render_nrrd(su, "u.nrrd", 5000, opts[o]), *v = render_nrrd(sv, "v.nrrd", 5000, opts[o]);
        /* exact where the pixel centres are (pixel size 1); one rounding of a
         * float position off otherwise */
        double tol = o == 2 ? 1e-6 : 0;
        for (j = 0; u && v && j < 50; j++)
            for (i = 0; i < 100; i++) {
                bad += !(fabs(u[j * 100 + i] - (float)((i + 0.5) / 100)) <= tol);
                bad += !(fabs(v[j * 100 + i] - (float)((j + 0.5) / 50)) <= tol);
            }
        CHECKF(bad == 0, "options %d: %d samples off", o, bad);
        free(u), free(v);
    }
}

/* Regions and tiles see the full image's u and v: four quadrants equal
 * the whole, bit for bit, and an island centred with u and v is centred
 * in any size. */
static void test_uv_regions_stitch(void)
{
    static const char *const whole[] = {"--size", "60x40", "--tile", "16", NULL};
    static const char *const quads[4][10] = {
        {"--size", "60x40", "--region", "0,0,30,20", "--tile", "8", "--threads", "1", NULL},
        {"--size", "60x40", "--region", "30,0,30,20", "--tile", "8", NULL},
        {"--size", "60x40", "--region", "0,20,30,20", NULL},
        {"--size", "60x40", "--region", "30,20,30,20", "--threads", "3", NULL},
    };
    char s[PATHLEN];
    float *all, *q;
    int k, i, j, bad = 0;
    mkscript(s, "island.lua",
             "local du, dv = ng.u() - 0.5, ng.v() - 0.5\n"
             "return (du * du + dv * dv) * 4 + ng.perlin{element_size = 16} * 0.01\n");
    all = render_nrrd(s, "island.nrrd", 2400, whole);
    for (k = 0; all && k < 4; k++) {
        int x0 = (k % 2) * 30, y0 = (k / 2) * 20;
        if (!(q = render_nrrd(s, "quad.nrrd", 600, quads[k]))) continue;
        for (j = 0; j < 20; j++)
            for (i = 0; i < 30; i++) bad += memcmp(&q[j * 30 + i], &all[(y0 + j) * 60 + x0 + i], sizeof(float)) != 0;
        free(q);
    }
    CHECKF(bad == 0, "%d samples differ between the quadrants and the whole", bad);
    free(all);
    /* centred in a size it was not written for: lowest at the middle */
    mkscript(s, "centred.lua", "local du, dv = ng.u() - 0.5, ng.v() - 0.5\nreturn du * du + dv * dv\n");
    {
        static const char *const odd[] = {"--size", "31x17", NULL};
        float *v = render_nrrd(s, "odd.nrrd", 31 * 17, odd);
        int best = 0;
        for (i = 1; v && i < 31 * 17; i++)
            if (v[i] < v[best]) best = i;
        CHECK_INT(best, 8 * 31 + 15);
        free(v);
    }
}

static void test_uv_take_no_arguments(void)
{
    char s[PATHLEN], out[PATHLEN];
    res r;
    tpath(out, "uvargs.png");
    mkscript(s, "uvargs.lua", "local a = 1\nlocal u = ng.u{origin = 3}\nreturn u\n");
    cli(&r, "render", s, "-o", out, NULL);
    EXPECT_ERR(&r, 1, at(s, 2), "ng.u() takes no arguments");
    res_free(&r);
    CHECK(!exists(out));
}

/* ---- distance centres ------------------------------------------------------------------------------ */

/* {x, y} is a 2D centre (z at 0); {x, y, z} still places it in 3D. */
static void test_distance_centres(void)
{
    static const char *const flat[] = {"--size", "20x10", NULL};
    static const char *const plane[] = {"--size", "20x10", "--z", "3", NULL};
    char s2[PATHLEN], s3[PATHLEN];
    float *a, *b;
    mkscript(s2, "dist2.lua", "return ng.distance{center = {12, 4}, radius = 5}\n");
    mkscript(s3, "dist3.lua", "return ng.distance{center = {12, 4, 3}, radius = 5}\n");
    a = render_nrrd(s2, "d2.nrrd", 200, flat);
    b = render_nrrd(s3, "d3.nrrd", 200, plane);
    if (a && b) {
        CHECK(memcmp(a, b, 200 * sizeof *a) == 0); /* the plane through the 3D centre */
        CHECK_NEAR(a[4 * 20 + 12], sqrt(0.5) / 5, 1e-6);
        CHECK_NEAR(a[0], sqrt(11.5 * 11.5 + 3.5 * 3.5) / 5, 1e-5);
    }
    free(a), free(b);
}

/* ---- methods take option tables -------------------------------------------------------------------- */

/* node:m{...} is ng.m{node, ...} for every method: the same file, or the
 * same error. */
static void test_every_method_takes_a_table(void)
{
    int n, i;
    const ng_node_type *const *types = ng_types(&n);
    for (i = 0; i < n; i++) {
        char sm[PATHLEN], sc[PATHLEN], om[PATHLEN], oc[PATHLEN], text[256];
        const char *m = types[i]->method, *em, *ec;
        res a, b;
        if (!m) continue;
        snprintf(text, sizeof text, "local n = ng.perlin{range = \"unit\"}\nreturn n:%s{}\n", m);
        mkscript(sm, "meth.lua", text);
        snprintf(text, sizeof text, "local n = ng.perlin{range = \"unit\"}\nreturn ng.%s{n}\n", types[i]->name);
        mkscript(sc, "ctor.lua", text);
        tpath(om, "meth.nrrd"); /* NRRD holds any channel count (hydraulic's 4) */
        tpath(oc, "ctor.nrrd");
        cli(&a, "render", sm, "-o", om, "--size", "8", NULL);
        cli(&b, "render", sc, "-o", oc, "--size", "8", NULL);
        CHECKF(a.code == b.code, "node:%s{}: exit %d, ng.%s{node}: exit %d (%s)", m, a.code, types[i]->name, b.code,
               a.err);
        if (a.code == 0 && b.code == 0) {
            CHECKF(same_bytes(om, oc), "node:%s{} and ng.%s{node} differ", m, types[i]->name);
        } else if (a.code == b.code) { /* the same message after the position */
            em = strstr(a.err, ".lua:2: ");
            ec = strstr(b.err, ".lua:2: ");
            CHECKF(em && ec && !strcmp(em, ec), "node:%s{}: %s vs %s", m, a.err, b.err);
        }
        res_free(&a);
        res_free(&b);
    }
}

/* Named options, positional items after the receiver, and a list that is
 * the second positional's value (curve points) all mean what they say. */
static void test_method_tables(void)
{
    static const struct {
        const char *method, *ctor;
    } same[] = {
        {"n:terrace{steps = 8, sharpness = 3}", "ng.terrace{n, steps = 8, sharpness = 3}"},
        {"n:fit{-1, 1, 0, 1}", "n:fit(-1, 1, 0, 1)"},
        {"n:fit{from_lo = -1, from_hi = 1, to_lo = 0.2}", "ng.fit{source = n, from_lo = -1, from_hi = 1, to_lo = 0.2}"},
        {"n:curve{{0, 0}, {0.5, 0.8}, {1, 1}}", "ng.curve{n, {{0, 0}, {0.5, 0.8}, {1, 1}}}"},
        {"n:clamp{hi = 0.25}", "n:clamp(0, 0.25)"},
        {"n:mix{ng.x() / 8, t = 0.25}", "ng.mix{n, ng.x() / 8, 0.25}"},
    };
    char sm[PATHLEN], sc[PATHLEN], om[PATHLEN], oc[PATHLEN], text[256];
    size_t i;
    res r;
    tpath(om, "mt.pfm");
    tpath(oc, "ct.pfm");
    for (i = 0; i < sizeof same / sizeof same[0]; i++) {
        snprintf(text, sizeof text, "local n = ng.perlin{element_size = 4}\nreturn %s\n", same[i].method);
        mkscript(sm, "mt.lua", text);
        snprintf(text, sizeof text, "local n = ng.perlin{element_size = 4}\nreturn %s\n", same[i].ctor);
        mkscript(sc, "ct.lua", text);
        cli(&r, "render", sm, "-o", om, "--size", "16", NULL);
        EXPECT_OK(&r);
        res_free(&r);
        cli(&r, "render", sc, "-o", oc, "--size", "16", NULL);
        EXPECT_OK(&r);
        res_free(&r);
        CHECKF(same_bytes(om, oc), "%s differs from %s", same[i].method, same[i].ctor);
    }
    mkscript(sm, "mtwho.lua", "local n = ng.perlin{}\nreturn n:fit{source = n}\n");
    cli(&r, "render", sm, "-o", om, NULL);
    EXPECT_ERR(&r, 1, at(sm, 2), "'source' is the node the method is called on");
    res_free(&r);
    mkscript(sm, "mtbad.lua", "local n = ng.perlin{}\nreturn n:terrace{stpes = 8}\n");
    cli(&r, "render", sm, "-o", om, NULL);
    EXPECT_ERR(&r, 1, at(sm, 2), "unknown option 'stpes'", "did you mean 'steps'?");
    res_free(&r);
}

/* ---- did you mean ------------------------------------------------------------------------------------ */

static void test_misspelt_names(void)
{
    char s[PATHLEN], out[PATHLEN];
    res r;
    tpath(out, "typo.png");
    mkscript(s, "typo.lua", "local a = 1\nlocal b = 2\nreturn ng.perlni{}\n");
    cli(&r, "render", s, "-o", out, NULL);
    EXPECT_ERR(&r, 1, at(s, 3), "ng.perlni is not a node type; did you mean ng.perlin?");
    res_free(&r);
    mkscript(s, "typo2.lua", "local n = ng.perlin{}\nreturn n:fitt(-1, 1, 0, 1)\n");
    cli(&r, "render", s, "-o", out, NULL);
    EXPECT_ERR(&r, 1, at(s, 2), "'fitt'", "did you mean node:fit?");
    res_free(&r);
    mkscript(s, "typo3.lua", "return ng.zzzzzzzzzzzz{}\n");
    cli(&r, "render", s, "-o", out, NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "ng.zzzzzzzzzzzz is not a node type");
    res_free(&r);
    CHECK(!exists(out));
    /* what ng does have is untouched, and scripts may still add to it */
    mkscript(s, "fine.lua", "ng.mine = 3\nreturn ng.constant(ng.mine / 4)\n");
    cli(&r, "render", s, "-o", out, NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
}

/* ---- the names other tools use ------------------------------------------------------------------ */

/* Each alias renders the bits of the name it stands for: node types
 * (voronoi, cellular, lerp, blend, remap, levels) and options (gain and
 * persistence for roughness, gain where a node has no gain of its own;
 * frequency, the inverse of element_size). */
static void test_vocabulary_aliases(void)
{
    static const struct {
        const char *alias, *canonical;
    } same[] = {
        {"ng.voronoi{element_size = 6, seed = 2}", "ng.worley{element_size = 6, seed = 2}"},
        {"ng.cellular{element_size = 6, feature = \"f2\"}", "ng.noise{type = \"worley\", element_size = 6, feature = \"f2\"}"},
        {"ng.lerp(n, ng.x() / 16, 0.3)", "ng.mix(n, ng.x() / 16, 0.3)"},
        {"ng.blend{a = n, b = 0.5, t = ng.y() / 16}", "ng.mix{a = n, b = 0.5, t = ng.y() / 16}"},
        {"ng.remap(n, -1, 1, 0, 1)", "ng.fit(n, -1, 1, 0, 1)"},
        {"ng.levels{source = n, from_lo = -0.5, from_hi = 0.5, clamp = true}",
         "n:fit{from_lo = -0.5, from_hi = 0.5, clamp = true}"},
        {"ng.fbm{source = n, persistence = 0.7}", "ng.fbm{source = n, roughness = 0.7}"},
        {"ng.perlin{fractal = \"fbm\", persistence = 0.3}", "ng.perlin{fractal = \"fbm\", roughness = 0.3}"},
        {"ng.cloud{element_size = 4, gain = 0.3}", "ng.cloud{element_size = 4, roughness = 0.3}"},
        {"ng.simplex{frequency = 0.125}", "ng.simplex{element_size = 8}"},
        {"ng.cloud{frequency = 0.25, persistence = 0.4}", "ng.cloud{element_size = 4, roughness = 0.4}"},
    };
    char sa[PATHLEN], sc[PATHLEN], oa[PATHLEN], oc[PATHLEN], text[512];
    size_t i;
    res r;
    tpath(oa, "alias.pfm");
    tpath(oc, "canon.pfm");
    for (i = 0; i < sizeof same / sizeof same[0]; i++) {
        snprintf(text, sizeof text, "local n = ng.perlin{element_size = 4}\nreturn %s\n", same[i].alias);
        mkscript(sa, "alias.lua", text);
        snprintf(text, sizeof text, "local n = ng.perlin{element_size = 4}\nreturn %s\n", same[i].canonical);
        mkscript(sc, "canon.lua", text);
        cli(&r, "render", sa, "-o", oa, "--size", "16", NULL);
        EXPECT_OK(&r);
        res_free(&r);
        cli(&r, "render", sc, "-o", oc, "--size", "16", NULL);
        EXPECT_OK(&r);
        res_free(&r);
        CHECKF(same_bytes(oa, oc), "%s differs from %s", same[i].alias, same[i].canonical);
    }
}

/* An alias beside the name it stands for is one option given twice; a
 * misspelt alias is offered with what it means; frequency is a number
 * above 0; `noisegraph nodes` lists the aliases. */
static void test_vocabulary_errors(void)
{
    static const struct {
        const char *script, *msg1, *msg2;
    } bad[] = {
        {"return ng.fbm{source = ng.perlin{}, roughness = 0.3, persistence = 0.4}", "both set roughness; give one",
         "'persistence'"},
        {"return ng.cloud{roughness = 0.3, gain = 0.4}", "both set roughness; give one", "'gain'"},
        {"return ng.cloud{persistence = 0.3, gain = 0.4}", "both set roughness; give one", "'persistence'"},
        {"return ng.perlin{frequency = 0.1, element_size = 8}", "both set element_size; give one", "'frequency'"},
        {"return ng.perlin{frequency = 0}", "option 'frequency' (1 / element_size) must be a number above 0", "got 0"},
        {"return ng.perlin{frequency = ng.x()}", "option 'frequency' (1 / element_size) must be a number above 0",
         "got"},
        {"return ng.fbm{source = ng.perlin{}, persistance = 0.3}", "unknown option 'persistance'",
         "did you mean 'persistence', another name for roughness?"},
        {"return ng.perlin{frequancy = 0.1}", "unknown option 'frequancy'", "did you mean 'frequency', 1 / element_size?"},
        {"return ng.voronio{}", "ng.voronio is not a node type", "did you mean ng.voronoi?"},
    };
    char s[PATHLEN], out[PATHLEN], text[256];
    size_t i;
    res r;
    tpath(out, "vocab.png");
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s\n", bad[i].script);
        mkscript(s, "vocab.lua", text);
        cli(&r, "render", s, "-o", out, "--size", "8", NULL);
        EXPECT_ERR(&r, 1, at(s, 1), bad[i].msg1, bad[i].msg2);
        res_free(&r);
    }
    CHECK(!exists(out));
    cli(&r, "nodes", "perlin", NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "(also persistence)"); /* its gain is Musgrave's, its own option */
    CHECK(!strstr(r.out, "(also persistence, gain)"));
    CHECK_CONTAINS(r.out, "(also frequency = 1 / it)");
    CHECK_CONTAINS(r.out, "voronoi, cellular");
    res_free(&r);
    cli(&r, "nodes", "lerp", NULL);
    EXPECT_OK(&r);
    CHECK(strncmp(r.out, "mix  (also lerp, blend)", 23) == 0);
    res_free(&r);
    cli(&r, "nodes", "cloud", NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "(also persistence, gain)");
    res_free(&r);
}

/* node:named(NAME) labels a node as the script calls it: info, dot and
 * messages say that name; the node is the same (the same bits); a name
 * is 1 to 64 characters. */
static void test_named_nodes(void)
{
    char s[PATHLEN], a[PATHLEN], b[PATHLEN];
    res r;
    mkscript(s, "named.lua",
             "local m = ng.perlin{element_size = 5}:named(\"mountains\")\n"
             "return ng.warp{m, ng.simplex{output = \"vector\"}:named(\"wind\"), amount = 2}\n");
    cli(&r, "info", s, NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "#0 mountains (noise)");
    CHECK_CONTAINS(r.out, "#1 wind (noise)");
    res_free(&r);
    cli(&r, "dot", s, NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "mountains");
    res_free(&r);
    tpath(a, "named.pfm");
    cli(&r, "render", s, "-o", a, "--size", "8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    mkscript(s, "unnamed.lua",
             "local m = ng.perlin{element_size = 5}\n"
             "return ng.warp{m, ng.simplex{output = \"vector\"}, amount = 2}\n");
    tpath(b, "unnamed.pfm");
    cli(&r, "render", s, "-o", b, "--size", "8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(a, b));
    mkscript(s, "badname.lua", "return ng.perlin{}:named(\"\")\n");
    cli(&r, "info", s, NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "named: a name is 1 to 64 characters");
    res_free(&r);
}

/* A node held by a script's variable is labelled by its name where :named()
 * did not name it: the main chunk's locals at its return (the first
 * declared of two), then globals (the first by name of two). Loop locals
 * gone by the end, temporaries and names over 64 bytes label nothing. */
static void test_variable_labels(void)
{
    char s[PATHLEN], a[PATHLEN], b[PATHLEN];
    res r;
    mkscript(s, "vars.lua",
             "local scale = 40\n"
             "local hills = ng.fbm{ng.perlin{element_size = scale}, octaves = 3}\n"
             "local again = hills\n"
             "zeta = ng.simplex{element_size = 30}\n"
             "alpha = zeta\n"
             "local rock = ng.worley{}:named(\"rocks\")\n"
             "local also_rock = rock\n"
             "for i = 1, 2 do local gone = ng.value{seed = i} end\n"
             "local " "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = ng.perlin{seed = 9}\n"
             "local base = ng.perlin{seed = 5}\n"
             "return hills * alpha + rock + ng.ridged{base}\n");
    cli(&r, "info", s, NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "#0 perlin (noise)");
    CHECK_CONTAINS(r.out, "#1 hills (fractal)");
    CHECK_CONTAINS(r.out, "#2 alpha (noise)");
    CHECK_CONTAINS(r.out, "#3 rocks (noise)");
    CHECK_CONTAINS(r.out, "#4 value (noise)");
    CHECK_CONTAINS(r.out, "#6 perlin (noise)");
    CHECK_CONTAINS(r.out, "#7 base (noise)");
    res_free(&r);
    cli(&r, "dot", s, NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "label=\"hills (fractal)");
    res_free(&r);
    /* the chunk ending in a call of a constructor: its locals are still there */
    mkscript(s, "tail.lua", "local base = ng.perlin{element_size = 6}\nreturn ng.fbm{base, octaves = 2}\n");
    cli(&r, "info", s, NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "#0 base (noise)");
    CHECK_CONTAINS(r.out, "#1 fbm (fractal)");
    res_free(&r);
    /* labels only: the same graph without variables renders the same bits */
    tpath(a, "vars.pfm");
    cli(&r, "render", s, "-o", a, "--size", "8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    mkscript(s, "novars.lua", "return ng.fbm{ng.perlin{element_size = 6}, octaves = 2}\n");
    tpath(b, "novars.pfm");
    cli(&r, "render", s, "-o", b, "--size", "8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(a, b));
}

/* Without NG_BIN and NG_ROOT the program's tests cannot run: a failure,
 * not a silent skip. */
static void test_program_is_there(void)
{
    ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must name the program and the repository");
}

NG_SUITE(scripts, full)
{
    if (cli_setup("ngscripts") != 0) {
        RUN(test_program_is_there);
        return;
    }
    RUN(test_size_is_the_renders);
    RUN(test_uv_pixel_centres);
    RUN(test_uv_regions_stitch);
    RUN(test_uv_take_no_arguments);
    RUN(test_distance_centres);
    RUN(test_every_method_takes_a_table);
    RUN(test_method_tables);
    RUN(test_misspelt_names);
    RUN(test_vocabulary_aliases);
    RUN(test_vocabulary_errors);
    RUN(test_named_nodes);
    RUN(test_variable_labels);
    cli_teardown();
}
