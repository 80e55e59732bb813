/*
 * test_graphs.c — every example script in graphs/ renders, and renders the
 * same pixels as when its golden hash was recorded (tests/golden.txt):
 * a change to any kernel, node or the evaluation order shows up here.
 *
 * golden.txt lines: "SCRIPT[:OUTPUT] WxH HASH [ARG...]", where HASH is
 * FNV-1a 64 of the decoded 16-bit samples (little-endian pairs) and the
 * ARGs are extra render options (such as --set cell=64). Lines starting with #
 * are comments. To re-record after an intended change:
 *     NG_UPDATE_GOLDEN=1 make test   (then review and commit golden.txt)
 */
#include "cli_support.h"
#include "kernels.h"
#include "noisegraph.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GOLDEN 64

typedef struct golden {
    char script[200], output[200];
    int w, h;
    unsigned long long hash;
    char args[200];  /* extra render options, space-separated */
    char before[1024]; /* the comment and blank lines above it, kept when the file is rewritten */
} golden;

static golden entries[MAX_GOLDEN];
static int nentries;
static char trailer[1024]; /* the comment lines after the last entry */
static char golden_path[PATHLEN];

static int load_golden(void)
{
    FILE *f;
    char line[512];
    pathf(golden_path, "%s/tests/golden.txt", ng_root);
    if (!(f = fopen(golden_path, "r"))) return -1;
    while (fgets(line, sizeof line, f) && nentries < MAX_GOLDEN) {
        golden *e = &entries[nentries];
        char name[200], *colon;
        int used = 0;
        if (line[0] == '#' || line[0] == '\n') {
            if (strlen(trailer) + strlen(line) < sizeof trailer) strcat(trailer, line);
            continue;
        }
        if (sscanf(line, "%199s %dx%d %llx%n", name, &e->w, &e->h, &e->hash, &used) != 4) continue;
        memcpy(e->before, trailer, sizeof e->before);
        trailer[0] = 0;
        snprintf(e->args, sizeof e->args, "%s", line + used + (line[used] == ' '));
        e->args[strcspn(e->args, "\n")] = 0;
        colon = strchr(name, ':');
        if (colon) {
            *colon = 0;
            snprintf(e->output, sizeof e->output, "%s", colon + 1);
        }
        snprintf(e->script, sizeof e->script, "%s", name);
        nentries++;
    }
    fclose(f);
    return 0;
}

static unsigned long long fnv1a(const uint16_t *v, size_t n)
{
    unsigned long long h = 0xcbf29ce484222325ULL;
    size_t i;
    for (i = 0; i < n; i++) {
        h = (h ^ (v[i] & 0xFF)) * 0x100000001b3ULL;
        h = (h ^ (v[i] >> 8)) * 0x100000001b3ULL;
    }
    return h;
}

/* The last render that wrote every output ({name}.png) of a script: its
 * script, size, options and SIMD path. A script's outputs are golden
 * lines in a row, and a render that erodes takes seconds, so it runs once
 * for all of them. */
static char last_render[700];

static void render_key(const golden *e, char *key, size_t size)
{
    const char *simd = getenv("NG_SIMD");
    snprintf(key, size, "%s|%dx%d|%s|%s", e->script, e->w, e->h, e->args, simd ? simd : "");
}

/* Renders entry e at 16 bits and returns the hash of its pixels, 0 on failure. */
static unsigned long long render_hash(const golden *e)
{
    char script[PATHLEN], out[PATHLEN], file[PATHLEN], size[32], key[700];
    unsigned w, h;
    int depth, ctype, dw, dh, nch = 1;
    unsigned long long hash = 0;
    uint16_t *px;
    res r;
    pathf(script, "%s/graphs/%s", ng_root, e->script);
    if (e->output[0]) {
        tpath(out, "{name}.png");
        pathf(file, "%s/%s.png", tmpdir, e->output);
    } else {
        tpath(out, "golden.png");
        pathf(file, "%s", out);
    }
    snprintf(size, sizeof size, "%dx%d", e->w, e->h);
    render_key(e, key, sizeof key);
    if (!e->output[0] || strcmp(key, last_render) != 0) {
        const char *argv[32] = {"render", script, "-o", out, "--size", size, "--bits", "16", "--threads", "2"};
        char args[200], *save = NULL, *tok;
        int n = 10;
        snprintf(args, sizeof args, "%s", e->args);
        for (tok = strtok_r(args, " ", &save); tok && n < 31; tok = strtok_r(NULL, " ", &save)) argv[n++] = tok;
        argv[n] = NULL;
        run_argv(&r, EMULATED ? 5 * DEFAULT_TIMEOUT : DEFAULT_TIMEOUT, argv); /* qemu: an eroded graph's render */
        EXPECT_OK(&r);
        snprintf(last_render, sizeof last_render, "%s", e->output[0] && r.code == 0 ? key : "");
        res_free(&r);
    }
    if (!ihdr(file, &w, &h, &depth, &ctype)) {
        ng_t_fail(__FILE__, __LINE__, "%s: no PNG at %s", e->script, file);
        return 0;
    }
    /* RGBA (a splat map) as stored: the simplified API would premultiply */
    if (ctype == PNG_COLOR_TYPE_RGBA) px = read_png16(file, &dw, &dh, &nch);
    else px = decode(file, ctype == 2 ? PNG_FORMAT_LINEAR_RGB : PNG_FORMAT_LINEAR_Y, &dw, &dh), nch = ctype == 2 ? 3 : 1;
    CHECK(px != NULL);
    CHECK_INT(depth, 16);
    CHECK_INT(dw, e->w);
    CHECK_INT(dh, e->h);
    if (px) hash = fnv1a(px, (size_t)dw * (size_t)dh * (size_t)nch);
    free(px);
    return hash;
}

/* Whether entry e is left out of a scaled run (the sanitizers, qemu):
 * terrain_eroded's variants (--classic, the analytic slopes) cost seconds
 * a render optimised and minutes under qemu, and what they add to its
 * default entry is checked there by other graphs' variants (every graph's
 * --classic line, eroded_hills' analytic slopes). The optimised run
 * checks every line. */
static int left_out_scaled(const golden *e)
{
    return SCALED && e->args[0] && !strcmp(e->script, "terrain_eroded.lua");
}

static void test_graphs_match_golden_hashes(void)
{
    int i, update = getenv("NG_UPDATE_GOLDEN") != NULL;
    FILE *f = NULL;
    CHECK(nentries > 0);
    if (update && !(f = fopen(golden_path, "w"))) {
        ng_t_fail(__FILE__, __LINE__, "cannot rewrite %s", golden_path);
        return;
    }
    for (i = 0; i < nentries; i++) {
        const golden *e = &entries[i];
        unsigned long long got;
        if (!f && left_out_scaled(e)) continue;
        got = render_hash(e);
        if (f) {
            fputs(e->before, f);
            fprintf(f, "%s%s%s %dx%d %016llx%s%s\n", e->script, e->output[0] ? ":" : "", e->output, e->w, e->h, got,
                    e->args[0] ? " " : "", e->args);
            continue;
        }
        if (got != e->hash)
            ng_t_fail(__FILE__, __LINE__, "%s%s%s at %dx%d: pixels hash to %016llx, golden is %016llx", e->script,
                      e->output[0] ? ":" : "", e->output, e->w, e->h, got, e->hash);
    }
    if (f) {
        fputs(trailer, f);
        fclose(f);
    }
}

/* Every SIMD path this CPU runs renders the same pixels: the golden hashes
 * hold under NG_SIMD=scalar, sse2, avx2 and avx512 (aarch64: scalar, neon). */
static void test_every_simd_path_matches_golden(void)
{
    const ng_path *path;
    int p, i, runs, ran = 0;
    for (p = 0; (path = ng__path_at(p, &runs)); p++) {
        if (!runs) {
            printf("  (SIMD path %s: not supported by this CPU, skipped)\n", path->name);
            continue;
        }
        setenv("NG_SIMD", path->name, 1);
        for (i = 0; i < nentries; i++) {
            unsigned long long got = render_hash(&entries[i]);
            if (got != entries[i].hash)
                ng_t_fail(__FILE__, __LINE__, "NG_SIMD=%s: %s%s%s at %dx%d hashes to %016llx, golden %016llx",
                          path->name, entries[i].script, entries[i].output[0] ? ":" : "", entries[i].output,
                          entries[i].w, entries[i].h, got, entries[i].hash);
        }
        unsetenv("NG_SIMD");
        ran++;
    }
    CHECK(ran >= 2); /* scalar and sse2 (neon) run everywhere */
}

/* A SIMD path that does not exist is a usage error, before any work,
 * naming the paths there are. */
static void test_bad_simd_path_refused(void)
{
    const ng_path *path;
    int p;
    res r;
    setenv("NG_SIMD", "avx9000", 1);
    cli(&r, "--version", NULL);
    unsetenv("NG_SIMD");
    EXPECT_ERR(&r, 2, "NG_SIMD=avx9000", "not a SIMD path (");
    for (p = 0; (path = ng__path_at(p, NULL)); p++) CHECK_CONTAINS(r.err, path->name);
    res_free(&r);
    cli(&r, "--version", NULL);
    CHECK_INT(r.code, 0);
    CHECK_CONTAINS(r.out, "SIMD path: ");
    res_free(&r);
}

/* Every example script has a golden line whose options contain `with`
 * ("" for any line), or the test fails naming it and `what`. */
static void every_graph_has_a_line(const char *with, const char *what)
{
    char dir[PATHLEN];
    DIR *d;
    struct dirent *de;
    pathf(dir, "%s/graphs", ng_root);
    CHECK((d = opendir(dir)) != NULL);
    while (d && (de = readdir(d))) {
        size_t n = strlen(de->d_name);
        int i, found = 0;
        if (n < 5 || strcmp(de->d_name + n - 4, ".lua") != 0) continue;
        for (i = 0; i < nentries; i++)
            found |= strcmp(entries[i].script, de->d_name) == 0 && strstr(entries[i].args, with) != NULL;
        if (!found) ng_t_fail(__FILE__, __LINE__, "graphs/%s has no %sline in tests/golden.txt", de->d_name, what);
    }
    if (d) closedir(d);
}

/* Every example script has a golden entry, so none goes untested. */
static void test_every_graph_has_a_golden_entry(void)
{
    every_graph_has_a_line("", "");
}

/* Every example script renders its 0.1.0 bits with --classic (the
 * defaults before 0.2.0): a line with --classic for each, whose hash is
 * the one recorded before the defaults changed. */
static void test_every_graph_has_a_classic_entry(void)
{
    every_graph_has_a_line("--classic", "--classic ");
}

/* info and dot describe what the script built: nodes (labelled by the
 * script's local variables), options that differ from their defaults,
 * edges (pull edges dashed), outputs. */
static void test_info_and_dot_on_terrain(void)
{
    char script[PATHLEN];
    res r;
    pathf(script, "%s/graphs/terrain.lua", ng_root);
    cli(&r, "info", script, NULL);
    CHECK_INT(r.code, 0);
    CHECK_CONTAINS(r.out, "param warp = 60");
    CHECK_CONTAINS(r.out, "#0 base (noise) at ");
    CHECK_CONTAINS(r.out, "* element_size = 384");
    CHECK_CONTAINS(r.out, "    element_scale = {1, 1, 1}");
    CHECK_CONTAINS(r.out, "source <- #0 base");
    CHECK_CONTAINS(r.out, "amount = 60");
    res_free(&r);
    cli(&r, "info", script, "--set", "warp=12", NULL);
    CHECK_CONTAINS(r.out, "amount = 12");
    res_free(&r);
    cli(&r, "dot", script, NULL);
    CHECK_INT(r.code, 0);
    CHECK(strncmp(r.out, "digraph noisegraph {", 20) == 0);
    CHECK_CONTAINS(r.out, "n0 -> n3 [label=\"source\", style=dashed];");
    CHECK_CONTAINS(r.out, "n1 -> n3 [label=\"by\", style=dashed];");
    CHECK_CONTAINS(r.out, "shaped (warp)\\namount = 60");
    CHECK_CONTAINS(r.out, "out0 [shape=doubleoctagon");
    CHECK(r.nout > 0 && strcmp(r.out + r.nout - 2, "}\n") == 0);
    res_free(&r);
    { /* --classic's defaults where they apply only, as info lists them: not a value noise's gradients */
        char value[PATHLEN];
        mkscript(value, "classic_value.lua", "return ng.value{element_size = 32, fractal = \"fbm\"}\n");
        cli(&r, "dot", value, "--classic", NULL);
        CHECK_INT(r.code, 0);
        CHECK_CONTAINS(r.out, "rotate = false");
        CHECK(r.out && !strstr(r.out, "gradients"));
        res_free(&r);
    }
}

/* Every example graph can be inspected. */
static void test_info_and_dot_on_every_graph(void)
{
    int i;
    for (i = 0; i < nentries; i++) {
        char script[PATHLEN];
        res r;
        if (i > 0 && !strcmp(entries[i].script, entries[i - 1].script)) continue;
        pathf(script, "%s/graphs/%s", ng_root, entries[i].script);
        cli(&r, "info", script, NULL);
        EXPECT_OK(&r);
        res_free(&r);
        cli(&r, "dot", script, NULL);
        EXPECT_OK(&r);
        CHECK_CONTAINS(r.out, "digraph");
        res_free(&r);
    }
}

static void test_graphs_environment(void)
{
    ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must name the program and the repository (run `make test`)");
}

NG_SUITE(graphs, fast)
{
    if (cli_setup("nggraphs")) {
        RUN(test_graphs_environment);
        return;
    }
    if (load_golden()) ng_t_fail(__FILE__, __LINE__, "cannot read tests/golden.txt");
    /* The golden hashes on every SIMD path (the full tier's, optimised:
     * under SAN each path's kernels run in the kernel suites, and this took
     * 141 s there) include the default path's; where they run, the default
     * path's pass alone is not run again (under qemu it is a third of
     * make test-arm's graphs). */
    if (!getenv("NG_UPDATE_GOLDEN") && !SANITIZED && !ng_t_fast_only)
        RUN(test_every_simd_path_matches_golden);
    else
        RUN(test_graphs_match_golden_hashes);
    RUN(test_every_graph_has_a_golden_entry);
    RUN(test_every_graph_has_a_classic_entry);
    RUN(test_bad_simd_path_refused);
    RUN(test_info_and_dot_on_terrain);
    RUN(test_info_and_dot_on_every_graph);
    cli_teardown();
}
