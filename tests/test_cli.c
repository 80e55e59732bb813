/*
 * test_cli.c — the `noisegraph` program as a user meets it: every failure is
 * exactly one line "noisegraph: ..." on stderr with the informative parts
 * (script file:line, node, key, suggestion), exit 1 for script and render
 * errors and 2 for usage errors; the sandbox and the script limits hold;
 * --set, named outputs (and --only one of them), 16-bit and RGB PNGs,
 * atomic output files; `nodes` (did-you-mean for a type) and `info` (only
 * the options that apply); the progress line's times; and the image does
 * not depend on threads, tile size or region split.
 *
 * The binary (NG_BIN) runs through fork/execv with stdout and stderr
 * captured through pipes; each run has an alarm so a hang fails the test
 * instead of stalling the suite. Scripts are written at run time into a
 * mkdtemp directory removed at the end.
 */
#include "cli_support.h"
#include "ng_io.h"

#include <errno.h>
#include <pty.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- 1, 2: constructor validation ----------------------------------------------- */

static void test_unknown_key_suggests(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    mkscript(s, "unknown_key.lua", "-- a comment\nlocal size = 3\nreturn ng.perlin{elment_size = size}\n");
    tpath(o, "unknown_key.png");
    cli(&r, "render", s, "-o", o, "--size", "16", NULL);
    EXPECT_ERR(&r, 1, at(s, 3), "perlin", "'elment_size'", "did you mean 'element_size'");
    CHECK(!exists(o));
    res_free(&r);

    /* nothing close: points at the node's documentation instead */
    mkscript(s, "unknown_key2.lua", "return ng.perlin{zzqqxxyy = 1}\n");
    cli(&r, "render", s, "-o", o, "--size", "16", NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "perlin", "'zzqqxxyy'", "noisegraph nodes");
    res_free(&r);
}

static void test_wrong_type(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    tpath(o, "wrong_type.png");
    mkscript(s, "wrong_type.lua", "local a = 1\nreturn ng.perlin{seed = \"x\"}\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, at(s, 2), "perlin", "'seed'", "must be", "integer", "string");
    res_free(&r);

    mkscript(s, "wrong_type2.lua", "return ng.value{element_size = {}}\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "value", "'element_size'", "must be a number", "table");
    res_free(&r);

    /* a whole number is required for an integer option */
    mkscript(s, "wrong_type3.lua", "return ng.perlin{seed = 1.5}\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "'seed'", "integer", "1.5");
    res_free(&r);
    CHECK(!exists(o));
}

static void test_out_of_range(void)
{
    /* the script, the line its error names, and what that line says; Musgrave's
     * offset and gain shape ridged and hybrid only (on another type they would
     * change nothing, so they are refused); values and bounds exactly */
    static const struct {
        const char *script;
        int line;
        const char *says[6];
    } cases[] = {
        {"return ng.perlin{element_size = -1}\n", 1, {"perlin", "'element_size'", "-1", "out of range", "1e-06 to 1e+12"}},
        {"local n = ng.perlin{}\nreturn ng.fbm{source = n, octaves = 40}\n", 2,
         {"fbm", "'octaves'", "40", "out of range", "0 to 32"}},
        {"return ng.fbm{ng.perlin{}, offset = 0.3}\n", 1, {"fbm", "'offset'", "ridged and hybrid", "not standard"}},
        {"return ng.perlin{fractal = \"billow\", gain = 3}\n", 1, {"perlin", "'gain'", "ridged and hybrid", "not billow"}},
        {"return ng.ridged{ng.perlin{}, offset = 0/0}\n", 1, {"ridged", "'offset' is NaN", "0 to 2"}},
        {"return ng.perlin{seed = 2147483648}\n", 1, {"'seed' = 2147483648", "-2147483648 to 2147483647"}},
    };
    char s[PATHLEN], o[PATHLEN];
    size_t c;
    tpath(o, "range.png");
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *needles[8] = {0};
        res r;
        int k;
        mkscript(s, "range.lua", cases[c].script);
        needles[0] = at(s, cases[c].line);
        for (k = 0; k < 6 && cases[c].says[k]; k++) needles[k + 1] = cases[c].says[k];
        cli(&r, "render", s, "-o", o, NULL);
        expect_err(__FILE__, __LINE__, &r, 1, needles);
        res_free(&r);
    }
    CHECK(!exists(o));
}

static void test_bad_enum(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    tpath(o, "enum.png");
    mkscript(s, "enum.lua", "return ng.perlin{output = \"vec\"}\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "perlin", "'output'", "\"vec\"", "\"float\"", "\"vector\"");
    res_free(&r);

    mkscript(s, "enum2.lua", "return ng.perlin{range = \"wide\"}\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "'range'", "\"wide\"", "\"unit\"", "\"signed\"");
    res_free(&r);
}

static void test_missing_input(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    tpath(o, "missing_input.png");
    mkscript(s, "missing_input.lua",
             "local flow = ng.simplex{output = \"vector\"}\n"
             "return ng.warp{by = flow, amount = 8}\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, at(s, 2), "warp", "missing input 'source'");
    res_free(&r);

    mkscript(s, "missing_input2.lua", "return ng.fbm{source = 3}\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "fbm", "'source'", "must be a node", "number");
    res_free(&r);
    CHECK(!exists(o));
}

static void test_channel_count(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    tpath(o, "channels.png");
    /* one channel where a vector is needed */
    mkscript(s, "channels.lua",
             "local src = ng.perlin{}\n"
             "return ng.warp{source = src, by = ng.perlin{}}\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, at(s, 2), "warp", "'by'", "channels", "gives 1");
    res_free(&r);
    CHECK(!exists(o));

    /* a vector through a one-channel operation broadcasts: fine */
    mkscript(s, "channels_ok.lua", "return ng.perlin{output = \"vector\"}:fit(-1, 1, 0, 1)\n");
    cli(&r, "render", s, "-o", o, "--size", "16", NULL);
    EXPECT_OK(&r);
    CHECK(exists(o));
    res_free(&r);
}

/* ---- 3: operators and coercion ------------------------------------------------------ */

static unsigned char *render_grey(const char *name, const char *text, int size, int *w, int *h)
{
    char s[PATHLEN], o[PATHLEN], sz[16];
    res r;
    unsigned char *px;
    snprintf(sz, sizeof sz, "%d", size);
    pathf(o, "%s/%s.png", tmpdir, name);
    pathf(s, "%s/%s.lua", tmpdir, name);
    put_file(s, text);
    cli(&r, "render", s, "-o", o, "--size", sz, NULL);
    EXPECT_OK(&r);
    res_free(&r);
    px = decode(o, PNG_FORMAT_GRAY, w, h);
    if (!px) ng_t_fail(__FILE__, __LINE__, "%s: no decodable PNG from \"%s\"", o, text);
    else if (*w != size || *h != size) ng_t_fail(__FILE__, __LINE__, "%s is %dx%d, not %d", o, *w, *h, size);
    return px;
}

static void test_operators(void)
{
    int w, h, i, lo = 255, hi = 0, bad = 0;
    unsigned char *a = render_grey("op_a", "return (ng.perlin{element_size = 16} + 1) * 0.5\n", 48, &w, &h);
    unsigned char *b = render_grey("op_b", "return 1 - (ng.perlin{element_size = 16} + 1) * 0.5\n", 48, &w, &h);
    unsigned char *c = render_grey("op_c", "return 0.5 - ng.perlin{element_size = 16} / 2\n", 48, &w, &h);
    unsigned char *d = render_grey("op_d", "return ng.perlin{element_size = 16} ^ 2\n", 48, &w, &h);
    unsigned char *e = render_grey("op_e", "return -ng.perlin{element_size = 16}\n", 48, &w, &h);
    unsigned char *f = render_grey("op_f", "return 2 - ng.value{element_size = 16}\n", 48, &w, &h);
    if (a && b && c && d) {
        for (i = 0; i < 48 * 48; i++) {
            int x = a[i];
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
            /* 1 - a and 0.5 - n/2 are the same image (within rounding) */
            if (abs(x + b[i] - 255) > 1 || abs((int)b[i] - (int)c[i]) > 1) bad++;
            /* n^2 = (2a - 1)^2 */
            if (fabs(d[i] / 255.0 - (2 * x / 255.0 - 1) * (2 * x / 255.0 - 1)) > 0.02) bad++;
        }
        CHECK_INT(bad, 0);
        CHECK(hi - lo > 60); /* it is noise, not a constant */
    }
    CHECK(e != NULL);
    CHECK(f != NULL);
    free(a), free(b), free(c), free(d), free(e), free(f);
}

/* A vector option takes {x, y} in a 2D script: z keeps its default. */
static void test_vector_two_items(void)
{
    char s2[PATHLEN], s3[PATHLEN], o2[PATHLEN], o3[PATHLEN];
    res r;
    mkscript(s2, "vec2.lua", "return ng.perlin{offset = {3.5, 7}, element_scale = {2, 0.5}}\n");
    mkscript(s3, "vec3.lua", "return ng.perlin{offset = {3.5, 7, 0}, element_scale = {2, 0.5, 1}}\n");
    tpath(o2, "vec2.pfm");
    tpath(o3, "vec3.pfm");
    cli(&r, "render", s2, "-o", o2, "--size", "16", "--z", "2.5", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s3, "-o", o3, "--size", "16", "--z", "2.5", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(o2, o3));
    mkscript(s2, "vec1.lua", "return ng.perlin{offset = {3.5}}\n");
    cli(&r, "render", s2, "-o", o2, "--size", "16", NULL);
    EXPECT_ERR(&r, 1, at(s2, 1), "'offset'", "{x, y}", "item 2");
    res_free(&r);
}

static void test_unknown_method(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    tpath(o, "method.png");
    mkscript(s, "method.lua", "local n = ng.perlin{}\nreturn n:nosuch()\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, at(s, 2), "'nosuch'");
    res_free(&r);
    CHECK(!exists(o));
}

/* ---- script errors in general -------------------------------------------------------- */

static void test_script_errors(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    tpath(o, "script_err.png");

    tpath(s, "does_not_exist.lua");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, s, "cannot read");
    res_free(&r);

    mkscript(s, "syntax.lua", "local a = 1\nreturn ng.perlin{ seed = }\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, at(s, 2));
    res_free(&r);

    mkscript(s, "raise.lua", "local a = 1\nerror(\"boom here\")\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, at(s, 2), "boom here");
    res_free(&r);

    mkscript(s, "raise_table.lua", "error({})\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, s);
    res_free(&r);

    /* a message with a newline in it still makes one line */
    mkscript(s, "raise_nl.lua", "error(\"first\\nsecond\")\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, s, "first");
    res_free(&r);
    CHECK(!exists(o));

    /* nor can a script's message drive the terminal: control characters
     * (an escape sequence, a backspace) come out as spaces */
    mkscript(s, "raise_esc.lua", "error(\"x\\27[31mRED\\8\\127 end\")\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, s, "x [31mRED   end");
    CHECK(r.err && !strchr(r.err, 27) && !strchr(r.err, 8) && !strchr(r.err, 127));
    res_free(&r);
}

static void test_return_not_node(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    tpath(o, "ret.png");
    mkscript(s, "ret_number.lua", "return 42\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, s, "must return a node", "number");
    res_free(&r);

    mkscript(s, "ret_nothing.lua", "local n = ng.perlin{}\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, s, "must return a node");
    res_free(&r);

    mkscript(s, "ret_field.lua", "return {height = ng.perlin{}, mask = 3}\n");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, s, "'mask'", "not a node");
    res_free(&r);
    CHECK(!exists(o));
}

/* ---- 4: sandbox -------------------------------------------------------------------------- */

static void test_sandbox_denies(void)
{
    static const struct {
        const char *code, *needle;
    } cases[] = {
        {"local f = io.open(\"/etc/hostname\")\n", "'io'"},
        {"os.execute(\"true\")\n", "'os'"},
        {"local t = debug.traceback()\n", "'debug'"},
        {"dofile(\"/etc/hostname\")\n", "'dofile'"},
        {"local f = loadfile(\"/etc/hostname\")\n", "'loadfile'"},
        {"local f = assert(load(string.dump(function() end)))\n", "binary"},
        {"local f = load(string.dump(function() end), \"=chunk\", \"b\")\n", "text chunks"},
        {"local f = load(string.dump(function() end), \"=chunk\", \"bt\")\n", "text chunks"},
    };
    char s[PATHLEN], o[PATHLEN], text[512];
    size_t i;
    res r;
    tpath(o, "sandbox.png");
    tpath(s, "sandbox.lua");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, "local x = 1\n%sreturn ng.perlin{}\n", cases[i].code);
        put_file(s, text);
        cli(&r, "render", s, "-o", o, "--size", "8", NULL);
        EXPECT_ERR(&r, 1, at(s, 2), cases[i].needle);
        res_free(&r);
        CHECK(!exists(o));
    }

    /* the safe libraries are there */
    put_file(s, "local v = math.floor(2.5) + #string.rep(\"a\", 2) + #table.concat({\"a\", \"b\"})\n"
                "v = v + utf8.len(\"\\u{e9}\") + select(\"#\", 1, 2) + (tonumber(\"1\") or 0)\n"
                "assert(v == 10 and type(pcall) == \"function\" and coroutine ~= nil)\n"
                "local f = assert(load(\"return 1\"))\n"
                "return ng.constant{value = v / 20 + f() - 1}\n");
    cli(&r, "render", s, "-o", o, "--size", "8", NULL);
    EXPECT_OK(&r);
    CHECK(exists(o));
    res_free(&r);
}

static void test_require_beside_script(void)
{
    char dir[PATHLEN], lib[PATHLEN], p[PATHLEN], s[PATHLEN], s2[PATHLEN], o1[PATHLEN], o2[PATHLEN];
    res r;
    mksub(dir, "req");
    pathf(p, "%s/helper.lua", dir);
    put_file(p, "-- helper: builds a node\nreturn function(seed)\n"
                "  return ng.perlin{seed = seed, element_size = 16}\nend\n");
    pathf(lib, "%s/lib", dir);
    mkdir(lib, 0755);
    pathf(p, "%s/lib/shapes.lua", dir);
    put_file(p, "return {scale = function(n) return n * 0.5 + 0.5 end}\n");
    pathf(s, "%s/main.lua", dir);
    put_file(s, "local h = require(\"helper\")\nlocal shapes = require(\"lib.shapes\")\n"
                "assert(require(\"helper\") == h)\nreturn shapes.scale(h(4))\n");
    pathf(s2, "%s/direct.lua", dir);
    put_file(s2, "return ng.perlin{seed = 4, element_size = 16} * 0.5 + 0.5\n");
    pathf(o1, "%s/main.png", dir);
    pathf(o2, "%s/direct.png", dir);
    /* the same pixels from two scripts: the same bytes without the
     * provenance, which names each script */
    cli(&r, "render", s, "-o", o1, "--size", "32", "--no-provenance", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s2, "-o", o2, "--size", "32", "--no-provenance", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(o1, o2));

    /* an error inside a module names the module's file and line */
    pathf(p, "%s/broken.lua", dir);
    put_file(p, "local x = 1\nreturn ng.perlin{elment_size = 2}\n");
    pathf(s, "%s/uses_broken.lua", dir);
    put_file(s, "return require(\"broken\")\n");
    cli(&r, "render", s, "-o", o1, "--size", "32", NULL);
    EXPECT_ERR(&r, 1, at(p, 2), "'elment_size'");
    res_free(&r);

    /* a module that is not there */
    put_file(s, "return require(\"not_here\")\n");
    cli(&r, "render", s, "-o", o1, "--size", "32", NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "'not_here'");
    res_free(&r);
}

static void test_require_refused(void)
{
    static const char *const names[] = {"../outside", "/etc/passwd", "..outside", "lib..x", "a/b"};
    char dir[PATHLEN], p[PATHLEN], s[PATHLEN], o[PATHLEN], text[256], quoted[64];
    size_t i;
    res r;
    mksub(dir, "req_refused");
    /* a module that would load if `..` were followed */
    tpath(p, "outside.lua");
    put_file(p, "return ng.perlin{}\n");
    pathf(s, "%s/main.lua", dir);
    pathf(o, "%s/out.png", dir);
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(text, sizeof text, "local m = require(\"%s\")\nreturn ng.perlin{}\n", names[i]);
        put_file(s, text);
        cli(&r, "render", s, "-o", o, "--size", "8", NULL);
        snprintf(quoted, sizeof quoted, "'%s'", names[i]);
        EXPECT_ERR(&r, 1, at(s, 1), quoted);
        res_free(&r);
        CHECK(!exists(o));
    }
}

static void test_unsafe_full_library(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    tpath(o, "unsafe.png");
    mkscript(s, "unsafe.lua", "local home = assert(os.getenv(\"HOME\"))\n"
                              "return ng.constant{value = #home > 0 and 1 or 0}\n");
    cli(&r, "render", s, "-o", o, "--size", "8", "--unsafe", NULL);
    EXPECT_OK(&r);
    CHECK(exists(o));
    res_free(&r);
    unlink(o);
    cli(&r, "render", s, "-o", o, "--size", "8", NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "'os'");
    res_free(&r);
    CHECK(!exists(o));
}

/* ---- 5: limits --------------------------------------------------------------------------- */

static void test_time_limit(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    tpath(o, "time.png");
    mkscript(s, "time.lua", "local n = 0\nwhile true do n = n + 1 end\n");
    cli_t(&r, 60, "render", s, "-o", o, "--time-limit", "0.5", NULL);
    EXPECT_ERR(&r, 1, s, "time limit", "--time-limit");
    res_free(&r);
    CHECK(!exists(o));
}

static void test_time_limit_pcall(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    tpath(o, "time_pcall.png");
    mkscript(s, "time_pcall.lua", "while true do pcall(function() while true do end end) end\n");
    cli_t(&r, 20, "render", s, "-o", o, "--time-limit", "0.5", NULL);
    EXPECT_ERR(&r, 1, s, "time limit");
    res_free(&r);

    /* error handlers that swallow errors do not help either */
    put_file(s, "local function f() while true do end end\n"
                "while true do xpcall(f, function(e) return e end) end\n");
    cli_t(&r, 20, "render", s, "-o", o, "--time-limit", "0.5", NULL);
    EXPECT_ERR(&r, 1, s, "time limit");
    res_free(&r);
    CHECK(!exists(o));
}

static void test_memory_limit(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    tpath(o, "memory.png");
    mkscript(s, "memory.lua", "local t = {}\nfor i = 1, 1e9 do t[i] = string.rep(\"x\", 100) .. i end\n");
    cli_t(&r, 60, "render", s, "-o", o, "--memory-limit", "64", NULL);
    EXPECT_ERR(&r, 1, s, "memory limit", "64 MiB", "--memory-limit");
    res_free(&r);

    /* caught by pcall, the bomb still ends the script */
    put_file(s, "while true do pcall(function()\n"
                "  local t = {} for i = 1, 1e9 do t[i] = string.rep(\"x\", 100) .. i end\n"
                "end) end\n");
    cli_t(&r, 20, "render", s, "-o", o, "--memory-limit", "64", "--time-limit", "2", NULL);
    CHECK_INT(r.code, 1);
    CHECK_INT(count_lines(r.err), 1);
    CHECK(strstr(r.err, "memory limit") || strstr(r.err, "time limit"));
    res_free(&r);
    CHECK(!exists(o));
}

/* ---- 6: --set ---------------------------------------------------------------------------- */

static const char param_script[] =
    "local seed = ng.param(\"seed\", 3, {min = 0, max = 100, doc = \"pattern seed\"})\n"
    "local size = ng.param(\"size\", 16, {min = 1})\n"
    "return ng.perlin{seed = seed, element_size = size}\n";

static void test_set_changes_image(void)
{
    char s[PATHLEN], o0[PATHLEN], o5[PATHLEN], o3[PATHLEN];
    res r;
    mkscript(s, "param.lua", param_script);
    tpath(o0, "param_default.png");
    tpath(o5, "param_5.png");
    tpath(o3, "param_3.png");
    /* --no-provenance: the files differ by their pixels alone, not by
     * the --set values the provenance records */
    cli(&r, "render", s, "-o", o0, "--size", "32", "--no-provenance", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", o5, "--size", "32", "--set", "seed=5", "--no-provenance", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", o3, "--size", "32", "--set", "seed=3", "--no-provenance", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(exists(o0) && exists(o5) && exists(o3));
    CHECK(!same_bytes(o0, o5));
    CHECK(same_bytes(o0, o3)); /* the default is the script's */
}

static void test_set_errors(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    mkscript(s, "param_err.lua", param_script);
    tpath(o, "param_err.png");

    cli(&r, "render", s, "-o", o, "--set", "seed=500", NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "'seed'", "500", "0 to 100");
    res_free(&r);

    cli(&r, "render", s, "-o", o, "--set", "seed=abc", NULL);
    EXPECT_ERR(&r, 1, "'seed'", "abc", "number parameter");
    res_free(&r);

    cli(&r, "render", s, "-o", o, "--set", "nosuch=1", NULL);
    EXPECT_ERR(&r, 1, "'nosuch'", "seed", "size");
    res_free(&r);

    cli(&r, "render", s, "-o", o, "--set", "seed", NULL);
    EXPECT_ERR(&r, 2, "--set", "NAME=VALUE");
    res_free(&r);
    CHECK(!exists(o));
}

/* A parameter is an integer only when declared so: a default written 1
 * takes 1.5 from --set (as the page does), integer = true refuses it. */
static void test_set_integer_only_when_declared(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    mkscript(s, "param_int.lua",
             "local t = ng.param(\"t\", 1, {min = 0, max = 4})\n"
             "local n = ng.param(\"n\", 2, {min = 1, max = 8, integer = true})\n"
             "return ng.perlin{element_size = 8 * (t + 1), seed = n}\n");
    tpath(o, "param_int.png");
    cli(&r, "render", s, "-o", o, "--size", "16", "--set", "t=1.5", "--set", "n=3", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(exists(o));
    cli(&r, "render", s, "-o", o, "--size", "16", "--set", "n=2.5", NULL);
    EXPECT_ERR(&r, 1, "'n'", "2.5", "integer parameter");
    res_free(&r);
    mkscript(s, "param_int_bad.lua", "return ng.perlin{seed = ng.param(\"n\", 1.5, {integer = true})}\n");
    cli(&r, "render", s, "-o", o, "--size", "16", NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "'n'", "whole number default");
    res_free(&r);
    mkscript(s, "param_int_kind.lua", "return ng.perlin{seed = ng.param(\"n\", 1, {integer = \"yes\"})}\n");
    cli(&r, "render", s, "-o", o, "--size", "16", NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "'integer' must be a boolean");
    res_free(&r);
}

/* A vector or a range given more numbers than it takes is an error, not
 * silently cut (issue 26, bug 5). */
static void test_vector_extra_items(void)
{
    static const char *const cases[][2] = {
        {"return ng.perlin{element_scale = {1, 1, 1, 40}}\n", "'element_scale'"},
        {"return ng.perlin{offset = {0, 0, 0, 500}}\n", "'offset'"},
        {"return ng.perlin{}:transform{translate = {0, 0, 0, 9, 9}}\n", "'translate'"},
        {"return ng.perlin{range = {0, 1, 2}}\n", "'range'"},
    };
    char s[PATHLEN], o[PATHLEN];
    size_t i;
    res r;
    tpath(o, "extra_items.png");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mkscript(s, "extra_items.lua", cases[i][0]);
        cli(&r, "render", s, "-o", o, "--size", "16", NULL);
        EXPECT_ERR(&r, 1, at(s, 1), cases[i][1], "more than");
        res_free(&r);
        CHECK(!exists(o));
    }
}

/* ---- 7: outputs -------------------------------------------------------------------------- */

static const char two_outputs[] = "local n = ng.perlin{element_size = 8}\n"
                                  "return {height = n, mask = ng.value{element_size = 8, seed = 2}}\n";

static void test_outputs_suffixed(void)
{
    char dir[PATHLEN], s[PATHLEN], o[PATHLEN], p[PATHLEN];
    res r;
    unsigned w, h;
    int depth, ct;
    mksub(dir, "outs");
    mkscript(s, "outs.lua", two_outputs);
    pathf(o, "%s/out.png", dir);
    cli(&r, "render", s, "-o", o, "--size", "24", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    pathf(p, "%s/out-height.png", dir);
    CHECK(ihdr(p, &w, &h, &depth, &ct) && w == 24 && h == 24);
    pathf(p, "%s/out-mask.png", dir);
    CHECK(ihdr(p, &w, &h, &depth, &ct) && w == 24 && h == 24);
    CHECK(!exists(o));
    CHECK_INT(count_entries(dir, ""), 2);
}

static void test_outputs_name_pattern(void)
{
    char dir[PATHLEN], s[PATHLEN], s1[PATHLEN], o[PATHLEN], ph[PATHLEN], pm[PATHLEN], q[PATHLEN];
    res r;
    mksub(dir, "outs_pattern");
    mkscript(s, "outs_pattern.lua", two_outputs);
    pathf(o, "%s/{name}.png", dir);
    cli(&r, "render", s, "-o", o, "--size", "24", "--no-provenance", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    pathf(ph, "%s/height.png", dir);
    pathf(pm, "%s/mask.png", dir);
    CHECK(exists(ph));
    CHECK(exists(pm));
    CHECK_INT(count_entries(dir, ""), 2);
    CHECK(!same_bytes(ph, pm));
    /* same graph, same image as a single-output script of that node */
    mkscript(s1, "outs_single.lua", "return ng.perlin{element_size = 8}\n");
    pathf(q, "%s/single.png", dir);
    cli(&r, "render", s1, "-o", q, "--size", "24", "--no-provenance", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(ph, q));
    /* every {name} is the name: a folder per output */
    pathf(o, "%s/{name}/{name}.png", dir);
    cli(&r, "render", s, "-o", o, "--size", "24", "--no-provenance", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    pathf(q, "%s/height/height.png", dir);
    CHECK(same_bytes(ph, q));
    pathf(q, "%s/mask/mask.png", dir);
    CHECK(same_bytes(pm, q));
}

/* A sandboxed script chooses output names, not where files go. */
static void test_output_names_stay_in_directory(void)
{
    char dir[PATHLEN], sub[PATHLEN], s[PATHLEN], o[PATHLEN], esc[PATHLEN];
    res r;
    mksub(dir, "outs_escape");
    pathf(sub, "%s/inner", dir);
    mkdir(sub, 0755);
    mkscript(s, "outs_escape.lua", "return {[\"../escaped\"] = ng.perlin{}}\n");
    pathf(o, "%s/{name}.png", sub);
    cli(&r, "render", s, "-o", o, "--size", "8", NULL);
    EXPECT_ERR(&r, 1, "../escaped");
    res_free(&r);
    pathf(esc, "%s/escaped.png", dir);
    CHECK(!exists(esc));
}

static void test_vector_output_rgb(void)
{
    char s[PATHLEN], o[PATHLEN], g[PATHLEN];
    res r;
    unsigned w, h;
    int depth = 0, ct = -1;
    mkscript(s, "vector.lua", "return ng.perlin{output = \"vector\"}:fit(-1, 1, 0, 1)\n");
    tpath(o, "vector.png");
    cli(&r, "render", s, "-o", o, "--size", "20x12", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(ihdr(o, &w, &h, &depth, &ct));
    CHECK_INT(w, 20);
    CHECK_INT(h, 12);
    CHECK_INT(ct, 2);
    CHECK_INT(depth, 8);

    mkscript(s, "grey.lua", "return ng.perlin{}\n");
    tpath(g, "grey.png");
    cli(&r, "render", s, "-o", g, "--size", "20x12", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(ihdr(g, &w, &h, &depth, &ct));
    CHECK_INT(ct, 0);
}

/* ---- 8: atomic output -------------------------------------------------------------------- */

static const char precious[] = "precious contents, not a PNG\n";

static void check_precious(const char *file, int line, const char *path)
{
    size_t n;
    unsigned char *d = slurp(path, &n);
    if (!d || n != sizeof precious - 1 || memcmp(d, precious, n) != 0)
        ng_t_fail(file, line, "%s was changed or removed", path);
    free(d);
}

static void test_atomic_failed_validation(void)
{
    char dir[PATHLEN], s[PATHLEN], o[PATHLEN];
    res r;
    mksub(dir, "atomic1");
    mkscript(s, "atomic1.lua", "return ng.perlin{}\n");
    pathf(o, "%s/out.png", dir);
    put_file(o, precious);
    cli(&r, "render", s, "-o", o, "--size", "32", "--region", "40,0,8,8", NULL);
    CHECK(r.code == 1 || r.code == 2); /* the exit code has its own test */
    CHECK_INT(count_lines(r.err), 1);
    CHECK_CONTAINS(r.err, "--region");
    res_free(&r);
    check_precious(__FILE__, __LINE__, o);
    CHECK_INT(count_entries(dir, ".tmp-"), 0);
    CHECK_INT(count_entries(dir, ""), 1);
}

/* A failure at the very end (the rename) after the images were written. */
static void test_atomic_failed_render(void)
{
    char dir[PATHLEN], s[PATHLEN], o[PATHLEN], a[PATHLEN], b[PATHLEN];
    res r;
    struct stat st;
    mksub(dir, "atomic2");
    /* outputs are written in name order: "a" fails, "b" must stay as it was */
    mkscript(s, "atomic2.lua", "return {a = ng.perlin{}, b = ng.value{}}\n");
    pathf(a, "%s/a.png", dir);
    pathf(b, "%s/b.png", dir);
    mkdir(a, 0755); /* a.png is a directory: the rename over it fails */
    put_file(b, precious);
    pathf(o, "%s/{name}.png", dir);
    cli(&r, "render", s, "-o", o, "--size", "40", "--tile", "8", NULL);
    EXPECT_ERR(&r, 1, a);
    res_free(&r);
    check_precious(__FILE__, __LINE__, b);
    CHECK(stat(a, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK_INT(count_entries(dir, ".tmp-"), 0);
    CHECK_INT(count_entries(dir, ""), 2);

    /* a single output onto a directory */
    mkscript(s, "atomic2b.lua", "return ng.perlin{}\n");
    cli(&r, "render", s, "-o", a, "--size", "40", NULL);
    EXPECT_ERR(&r, 1, a);
    res_free(&r);
    CHECK(stat(a, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK_INT(count_entries(dir, ".tmp-"), 0);
}

static void test_missing_directory(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    mkscript(s, "nodir.lua", "return ng.perlin{}\n");
    tpath(o, "no/such/dir/out.png");
    cli(&r, "render", s, "-o", o, "--size", "8", NULL);
    EXPECT_ERR(&r, 1, o);
    res_free(&r);
    CHECK(!exists(o));
}

static void test_success_replaces_target(void)
{
    char dir[PATHLEN], s[PATHLEN], o[PATHLEN];
    res r;
    unsigned w, h;
    int depth, ct;
    mksub(dir, "replace");
    mkscript(s, "replace.lua", "return ng.perlin{}\n");
    pathf(o, "%s/out.png", dir);
    put_file(o, precious);
    cli(&r, "render", s, "-o", o, "--size", "8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(ihdr(o, &w, &h, &depth, &ct) && w == 8 && h == 8);
    CHECK_INT(count_entries(dir, ""), 1);
}

/* ---- 9: usage errors --------------------------------------------------------------------- */

static void test_usage_errors(void)
{
    char s[PATHLEN], o[PATHLEN], jpg[PATHLEN];
    res r;
    mkscript(s, "usage.lua", "return ng.perlin{}\n");
    tpath(o, "usage.png");
    tpath(jpg, "usage.jpg");

    cli(&r, NULL);
    EXPECT_ERR(&r, 2, "--help", "render, preview, nodes, info, dot");
    res_free(&r);

    cli(&r, "frobnicate", NULL);
    EXPECT_ERR(&r, 2, "frobnicate", "unknown command", "render, preview, nodes, info, dot");
    res_free(&r);

    cli(&r, "render", s, NULL);
    EXPECT_ERR(&r, 2, "-o");
    res_free(&r);

    cli(&r, "render", "-o", o, NULL);
    EXPECT_ERR(&r, 2, "SCRIPT");
    res_free(&r);

    cli(&r, "render", s, "-o", o, "--bits", "12", NULL);
    EXPECT_ERR(&r, 2, "--bits", "12");
    res_free(&r);

    cli(&r, "render", s, "-o", o, "--size", "0", NULL);
    EXPECT_ERR(&r, 2, "--size", "'0'");
    res_free(&r);

    cli(&r, "render", s, "-o", o, "--size", "10x", NULL);
    EXPECT_ERR(&r, 2, "--size", "10x");
    res_free(&r);

    cli(&r, "render", s, "-o", o, "--tile", "3", NULL);
    EXPECT_ERR(&r, 2, "--tile", "'3'", "8 to 1024");
    res_free(&r);

    cli(&r, "render", s, "-o", o, "--threads", "0", NULL);
    EXPECT_ERR(&r, 2, "--threads", "'0'");
    res_free(&r);

    cli(&r, "render", s, "-o", o, "--region", "1,2,3", NULL);
    EXPECT_ERR(&r, 2, "--region", "1,2,3", "X,Y,W,H");
    res_free(&r);

    cli(&r, "render", s, "-o", o, "--region", "0,0,0,4", NULL);
    EXPECT_ERR(&r, 2, "--region");
    res_free(&r);

    cli(&r, "render", s, "-o", jpg, NULL);
    EXPECT_ERR(&r, 2, jpg, ".png");
    res_free(&r);
    CHECK(!exists(jpg));

    cli(&r, "render", s, "--frobnicate", "-o", o, NULL);
    EXPECT_ERR(&r, 2, "--frobnicate", "unknown option");
    res_free(&r);

    /* the same unknown option last on the line is still an unknown option */
    cli(&r, "render", s, "-o", o, "--frobnicate", NULL);
    EXPECT_ERR(&r, 2, "--frobnicate", "unknown option");
    res_free(&r);

    cli(&r, "render", s, "-o", o, "--size", NULL);
    EXPECT_ERR(&r, 2, "--size", "needs a value");
    res_free(&r);

    cli(&r, "render", s, "extra.lua", "-o", o, NULL);
    EXPECT_ERR(&r, 2, "extra.lua");
    res_free(&r);

    cli(&r, "render", s, "-o", o, "--time-limit", "0", NULL);
    EXPECT_ERR(&r, 2, "--time-limit");
    res_free(&r);

    cli(&r, "render", s, "-o", o, "--memory-limit", "lots", NULL);
    EXPECT_ERR(&r, 2, "--memory-limit", "lots");
    res_free(&r);

    cli(&r, "info", NULL);
    EXPECT_ERR(&r, 2, "SCRIPT");
    res_free(&r);

    CHECK(!exists(o));
}

/* A region outside the image is wrong on the command line alone. */
static void test_region_outside_is_usage_error(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    mkscript(s, "region_out.lua", "return ng.perlin{}\n");
    tpath(o, "region_out.png");
    cli(&r, "render", s, "-o", o, "--size", "32", "--region", "40,0,8,8", NULL);
    EXPECT_ERR(&r, 2, "--region", "40,0,8,8", "32x32");
    res_free(&r);
    cli(&r, "render", s, "-o", o, "--size", "32", "--region", "16,16,17,8", NULL);
    EXPECT_ERR(&r, 2, "--region", "32x32");
    res_free(&r);
    CHECK(!exists(o));
}

/* ---- 10: help, version, nodes, info ------------------------------------------------------ */

static void test_help_version(void)
{
    res r;
    cli(&r, "--help", NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "render");
    CHECK_CONTAINS(r.out, "--region");
    CHECK_CONTAINS(r.out, "--set");
    res_free(&r);

    cli(&r, "-h", NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "render");
    res_free(&r);

    cli(&r, "--version", NULL);
    EXPECT_OK(&r);
    CHECK(strncmp(r.out, "noisegraph 0.", 13) == 0);
    CHECK_INT(count_lines(r.out), 1);
    res_free(&r);
}

/* ---- the folded help: one table, two sections ------------------------------------------- */

#define MAX_ROWS 64

typedef struct help_rows {
    char name[MAX_ROWS][32]; /* the long name of each option row, in order */
    int n;
    int view_from;           /* the first row of the view section; -1 without one */
} help_rows;

/* The option rows of --help: lines "  --name ..." or "  -o, --name ...";
 * the continuation lines of a row's help are indented further. */
static void read_help_rows(const char *out, help_rows *h)
{
    const char *line = out;
    h->n = 0;
    h->view_from = -1;
    while (line && *line) {
        const char *nl = strchr(line, '\n'), *name;
        if (!strncmp(line, "view options", 12)) h->view_from = h->n;
        if (!strncmp(line, "  -", 3) && h->n < MAX_ROWS) {
            size_t len;
            name = strstr(line, "--");
            len = name ? strcspn(name, " \n") : 0;
            if (len && len < sizeof h->name[0]) snprintf(h->name[h->n++], sizeof h->name[0], "%.*s", (int)len, name);
        }
        line = nl ? nl + 1 : NULL;
    }
}

static int row_of(const help_rows *h, const char *name)
{
    int i;
    for (i = 0; i < h->n; i++)
        if (!strcmp(h->name[i], name)) return i;
    return -1;
}

/* Every option is one row of one table: it appears once in --help, the
 * render options first and the view options in their own section after
 * them; preview --help and render --help print the same text; and every
 * row is an option the parser knows. */
static void test_help_rows_once(void)
{
    static const char *const render_rows[] = {"--output", "--size", "--region", "--origin", "--voxel-size",
                                              "--pixel-size", "--z", "--set", "--tileable", "--quiet"};
    static const char *const view_rows[] = {"--view", "--volume", "--camera", "--look-at", "--fov",
                                            "--view-preset", "--sun", "--density-scale", "--step", "--height-scale"};
    help_rows h;
    size_t k;
    int i, j;
    res r, again;
    cli(&r, "--help", NULL);
    EXPECT_OK(&r);
    read_help_rows(r.out, &h);
    CHECKF(h.n >= 28, "only %d option rows in --help", h.n);
    CHECKF(h.view_from > 0, "no view section after the render options (view_from %d)", h.view_from);
    for (i = 0; i < h.n; i++)
        for (j = i + 1; j < h.n; j++)
            CHECKF(strcmp(h.name[i], h.name[j]), "%s is in --help twice (rows %d and %d)", h.name[i], i, j);
    for (k = 0; k < sizeof render_rows / sizeof render_rows[0]; k++) {
        const int at_row = row_of(&h, render_rows[k]);
        CHECKF(at_row >= 0 && at_row < h.view_from, "%s: row %d, not in the render section", render_rows[k], at_row);
    }
    for (k = 0; k < sizeof view_rows / sizeof view_rows[0]; k++)
        CHECKF(row_of(&h, view_rows[k]) >= h.view_from, "%s: row %d, not in the view section", view_rows[k],
               row_of(&h, view_rows[k]));
    /* each row is parsed: without its value it is never an unknown option */
    for (i = 0; i < h.n; i++) {
        cli(&again, "render", h.name[i], NULL);
        CHECKF(again.code == 2 && !strstr(again.err, "unknown option"), "render %s: exit %d, %s", h.name[i],
               again.code, again.err);
        res_free(&again);
    }
    res_free(&r);
}

/* The --output row names every extension of the format table
 * (io/formats.c, ng_file_formats): a format added there and not to the
 * help fails here. */
static void test_help_names_every_format(void)
{
    char list[256], *ext, *save = NULL;
    res r;
    cli(&r, "render", "--help", NULL);
    EXPECT_OK(&r);
    snprintf(list, sizeof list, "%s", ng_file_formats());
    for (ext = strtok_r(list, ", ", &save); ext; ext = strtok_r(NULL, ", ", &save))
        CHECKF(r.out && strstr(r.out, ext), "render --help does not name %s", ext);
    res_free(&r);
}

/* Each command's --help (or -h, anywhere an option may stand) is its
 * usage and the rows of the options it reads, from the one table: tiles
 * lists its --tile-size, --plan and --index, and nothing it refuses. */
static void test_help_per_command(void)
{
    static const struct {
        const char *cmd, *has[6], *lacks[4];
    } cases[] = {
        {"tiles", {"usage: noisegraph tiles SCRIPT", "--tile-size T", "--plan", "--index I", "--output", "--size"},
         {"--port", "--view ", "--script", "--region"}},
        {"render", {"usage: noisegraph render SCRIPT", "--region", "--frames", "view options", "--camera", "--only NAME"},
         {"--port", "--tile-size", "--plan", "--script"}},
        {"preview", {"usage: noisegraph preview SCRIPT", "--camera", "--height-scale", "--view ", "--output", "--size"},
         {"--frames", "--tile-size", "--port", "--region X,Y,Z"}},
        {"stitch", {"usage: noisegraph stitch", "--script SCRIPT", "--output", "--bits", "--compression", "--quiet"},
         {"--size", "--set", "--tile-size", "--threads N"}},
        {"serve", {"usage: noisegraph serve SCRIPT", "--port", "--listen", "--sun", "--set", "--size"},
         {"--output", "--tile-size", "--frames", "--script"}},
        {"info", {"usage: noisegraph info SCRIPT", "--set", "--unsafe", "--time-limit", "--memory-limit", NULL},
         {"--output", "--size", "--port", NULL}},
        {"dot", {"usage: noisegraph dot SCRIPT", "--set", NULL}, {"--output", NULL}},
        {"nodes", {"usage: noisegraph nodes [TYPE]", NULL}, {"--output", "options:", NULL}},
    };
    size_t i, k;
    res r, h;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli(&r, cases[i].cmd, "--help", NULL);
        EXPECT_OK(&r);
        for (k = 0; k < 6 && cases[i].has[k]; k++)
            CHECKF(r.out && strstr(r.out, cases[i].has[k]), "%s --help lacks %s", cases[i].cmd, cases[i].has[k]);
        for (k = 0; k < 4 && cases[i].lacks[k]; k++)
            CHECKF(r.out && !strstr(r.out, cases[i].lacks[k]), "%s --help lists %s", cases[i].cmd, cases[i].lacks[k]);
        cli(&h, cases[i].cmd, "-h", NULL);
        CHECK_STR(h.out, r.out);
        res_free(&h);
        res_free(&r);
    }
    /* after other words too, and without reading them: the help, exit 0 */
    cli(&r, "tiles", "nothere.lua", "--tile-size", "64", "--help", NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "--tile-size T");
    res_free(&r);
    /* a flag the help lists is read by the command: never "unknown" or "is for" */
    {
        static const char *const flags[][2] = {{"tiles", "--plan"}, {"render", "--tileable"}, {"stitch", "--quiet"},
                                               {"info", "--unsafe"}};
        for (i = 0; i < sizeof flags / sizeof flags[0]; i++) {
            cli(&r, flags[i][0], flags[i][1], NULL);
            CHECKF(r.code == 2 && !strstr(r.err, "unknown option") && !strstr(r.err, "is for"), "%s %s: %d %s",
                   flags[i][0], flags[i][1], r.code, r.err);
            res_free(&r);
        }
    }
    /* an unknown option points to the command's own help */
    cli(&r, "tiles", "--tile-sise", "64", NULL);
    EXPECT_ERR(&r, 2, "--tile-sise: unknown option", "noisegraph tiles --help");
    res_free(&r);
}

static void test_nodes(void)
{
    static const char *const words[] = {"noise", "perlin", "simplex", "value", "fractal", "fbm",
                                        "warp",  "fit",    "element_size", "octaves", "amount"};
    size_t i;
    res r;
    cli(&r, "nodes", NULL);
    EXPECT_OK(&r);
    for (i = 0; i < sizeof words / sizeof words[0]; i++) CHECK_CONTAINS(r.out, words[i]);
    res_free(&r);

    cli(&r, "nodes", "noise", NULL);
    EXPECT_OK(&r);
    CHECK(strncmp(r.out, "noise", 5) == 0);
    CHECK_CONTAINS(r.out, "element_size");
    CHECK_CONTAINS(r.out, "seed");
    CHECK(!strstr(r.out, "distortion")); /* only that type (cloud has it) */
    res_free(&r);

    cli(&r, "nodes", "perlin", NULL); /* a shorthand finds its type */
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "element_size");
    res_free(&r);

    cli(&r, "nodes", "fbm", NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "octaves");
    CHECK_CONTAINS(r.out, "lacunarity");
    res_free(&r);

    cli(&r, "nodes", "warp", NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "source");
    CHECK_CONTAINS(r.out, "by");
    CHECK_CONTAINS(r.out, "amount");
    res_free(&r);

    cli(&r, "nodes", "nosuch", NULL);
    EXPECT_ERR(&r, 2, "'nosuch'");
    res_free(&r);

    cli(&r, "nodes", "noise", "warp", NULL);
    EXPECT_ERR(&r, 2, "nodes");
    res_free(&r);
}

static void test_info(void)
{
    char s[PATHLEN], bad[PATHLEN], where[PATHLEN];
    res r;
    mkscript(s, "info.lua",
             "local seed = ng.param(\"seed\", 3, {min = 0, max = 100, doc = \"pattern seed\"})\n"
             "local n = ng.perlin{seed = seed}\n"
             "local f = ng.fbm{source = n, octaves = 4}\n"
             "return {height = f, mask = f:fit(-1, 1, 0, 1)}\n");
    cli(&r, "info", s, NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "param seed = 3");
    CHECK_CONTAINS(r.out, "pattern seed");
    CHECK_CONTAINS(r.out, "#0 n (noise)"); /* labelled by the script's variables */
    CHECK_CONTAINS(r.out, "#1 f (fractal)");
    CHECK_CONTAINS(r.out, "#2 fit");
    CHECK_CONTAINS(r.out, "height");
    CHECK_CONTAINS(r.out, "mask");
    pathf(where, "at %s:2", s); /* where each node was made */
    CHECK_CONTAINS(r.out, where);
    res_free(&r);

    cli(&r, "info", s, "--set", "seed=9", NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "param seed = 9");
    res_free(&r);

    mkscript(bad, "info_bad.lua", "return ng.perlin{elment_size = 3}\n");
    cli(&r, "info", bad, NULL);
    EXPECT_ERR(&r, 1, at(bad, 1), "'elment_size'", "did you mean 'element_size'");
    res_free(&r);
}

/* ---- 11: 16-bit ---------------------------------------------------------------------------- */

static void test_bits(void)
{
    char s[PATHLEN], v[PATHLEN], o8[PATHLEN], o16[PATHLEN], ov[PATHLEN];
    res r;
    unsigned w, h;
    int depth = 0, ct = -1, dw, dh, i, differ = 0, finer = 0;
    unsigned char *p8;
    uint16_t *p16;
    mkscript(s, "bits.lua", "return ng.perlin{element_size = 8}:fit(-1, 1, 0, 1)\n");
    tpath(o8, "bits8.png");
    tpath(o16, "bits16.png");
    cli(&r, "render", s, "-o", o8, "--size", "16", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", o16, "--size", "16", "--bits", "16", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(ihdr(o8, &w, &h, &depth, &ct));
    CHECK_INT(depth, 8);
    CHECK_INT(ct, 0);
    CHECK(ihdr(o16, &w, &h, &depth, &ct));
    CHECK_INT(depth, 16);
    CHECK_INT(ct, 0);

    /* the 16-bit samples are the same image, finer: each rounds the same
     * value, so they agree within half an 8-bit step plus half a 16-bit one */
    p8 = decode(o8, PNG_FORMAT_GRAY, &dw, &dh);
    p16 = decode(o16, PNG_FORMAT_LINEAR_Y, &dw, &dh);
    CHECK(p8 && p16);
    if (p8 && p16) {
        for (i = 0; i < 16 * 16; i++) {
            if (fabs(p16[i] / 65535.0 - p8[i] / 255.0) > 0.5 / 255.0 + 0.5 / 65535.0) differ++;
            if (p16[i] % 257) finer++;
        }
        CHECK_INT(differ, 0);
        CHECK(finer > 16 * 16 / 2); /* not 8-bit values widened */
    }
    free(p8);
    free(p16);

    mkscript(v, "bits_vec.lua", "return ng.perlin{output = \"vector\"}:fit(-1, 1, 0, 1)\n");
    tpath(ov, "bits_vec.png");
    cli(&r, "render", v, "-o", ov, "--size", "16", "--bits", "16", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(ihdr(ov, &w, &h, &depth, &ct));
    CHECK_INT(depth, 16);
    CHECK_INT(ct, 2);
}

/* ---- 12: determinism ------------------------------------------------------------------------ */

static void test_threads_tiles_identical(void)
{
    static const char *const runs[][2] = {{"1", "16"}, {"2", "64"}, {"7", "256"}, {"3", "8"}};
    char s[PATHLEN], o[4][PATHLEN], name[64];
    size_t i;
    res r;
    unsigned w = 0, h = 0;
    int depth, ct;
    pathf(s, "%s/graphs/terrain.lua", ng_root);
    for (i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        snprintf(name, sizeof name, "terrain_t%s_tile%s.png", runs[i][0], runs[i][1]);
        tpath(o[i], name);
        cli(&r, "render", s, "-o", o[i], "--size", "96x80", "--threads", runs[i][0], "--tile", runs[i][1], NULL);
        EXPECT_OK(&r);
        res_free(&r);
    }
    CHECK(ihdr(o[0], &w, &h, &depth, &ct));
    CHECK_INT(w, 96);
    CHECK_INT(h, 80);
    for (i = 1; i < sizeof runs / sizeof runs[0]; i++)
        if (!same_bytes(o[0], o[i])) ng_t_fail(__FILE__, __LINE__, "%s differs from %s", o[i], o[0]);
}

/* Four region renders, split off the tile grid, give exactly the full image. */
static void check_stitch(const char *bits, png_uint_32 format, size_t bpp)
{
    static const int split_x = 40, split_y = 24, size = 64;
    const int rx[4] = {0, split_x, 0, split_x}, ry[4] = {0, 0, split_y, split_y};
    const int rw[4] = {split_x, size - split_x, split_x, size - split_x};
    const int rh[4] = {split_y, split_y, size - split_y, size - split_y};
    char s[PATHLEN], full[PATHLEN], part[PATHLEN], region[64], name[64];
    unsigned char *fp, *pp;
    int fw, fh, pw, ph, q, y, mismatched = 0;
    res r;
    pathf(s, "%s/graphs/terrain.lua", ng_root);
    snprintf(name, sizeof name, "stitch%s_full.png", bits);
    tpath(full, name);
    cli(&r, "render", s, "-o", full, "--size", "64", "--bits", bits, "--tile", "16", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    fp = decode(full, format, &fw, &fh);
    if (!fp || fw != size || fh != size) {
        ng_t_fail(__FILE__, __LINE__, "%s: not a %dx%d PNG", full, size, size);
        free(fp);
        return;
    }
    for (q = 0; q < 4; q++) {
        snprintf(region, sizeof region, "%d,%d,%d,%d", rx[q], ry[q], rw[q], rh[q]);
        snprintf(name, sizeof name, "stitch%s_q%d.png", bits, q);
        tpath(part, name);
        cli(&r, "render", s, "-o", part, "--size", "64", "--bits", bits, "--region", region, "--tile", "16",
            "--threads", q & 1 ? "3" : "1", NULL);
        EXPECT_OK(&r);
        res_free(&r);
        pp = decode(part, format, &pw, &ph);
        if (!pp || pw != rw[q] || ph != rh[q]) {
            ng_t_fail(__FILE__, __LINE__, "%s (region %s): not a %dx%d PNG", part, region, rw[q], rh[q]);
            free(pp);
            continue;
        }
        for (y = 0; y < ph; y++)
            if (memcmp(pp + (size_t)y * (size_t)pw * bpp,
                       fp + ((size_t)(ry[q] + y) * (size_t)size + (size_t)rx[q]) * bpp, (size_t)pw * bpp))
                mismatched++;
        if (mismatched) ng_t_fail(__FILE__, __LINE__, "region %s (%s bits): %d rows differ", region, bits, mismatched);
        mismatched = 0;
        free(pp);
    }
    free(fp);
}

static void test_regions_stitch(void)
{
    check_stitch("8", PNG_FORMAT_GRAY, 1);
    check_stitch("16", PNG_FORMAT_LINEAR_Y, 2);
}

static void test_cli_environment(void)
{
    ng_t_fail(__FILE__, __LINE__, "NG_BIN (an executable noisegraph) and NG_ROOT must be set: NG_BIN=%s NG_ROOT=%s",
              ng_bin ? ng_bin : "(unset)", ng_root ? ng_root : "(unset)");
}

/* ---- suite ------------------------------------------------------------------------------------ */

static void test_nodes_suggests_a_type(void)
{
    res r;
    cli(&r, "nodes", "perlni", NULL);
    EXPECT_ERR(&r, 2, "no node type 'perlni'", "did you mean 'perlin'?");
    res_free(&r);
    cli(&r, "nodes", "fractl", NULL);
    EXPECT_ERR(&r, 2, "did you mean 'fractal'?");
    res_free(&r);
    cli(&r, "nodes", "zzzzzzzzzzzz", NULL);
    EXPECT_ERR(&r, 2, "no node type 'zzzzzzzzzzzz'");
    res_free(&r);
}

/* Options of another basis are not shown; a basis's own are. */
static void test_info_shows_options_that_apply(void)
{
    char s[PATHLEN];
    res r;
    mkscript(s, "bases.lua", "return {p = ng.perlin{}, w = ng.worley{jitter = 0.5}, f = ng.flow{flow = 0.25}}\n");
    cli(&r, "info", s, NULL);
    CHECK_INT(r.code, 0);
    if (r.out) {
        const char *p = strstr(r.out, " p = #"), *perlin = strstr(r.out, "perlin (noise)"),
                   *worley = strstr(r.out, "worley (noise)"), *flow = strstr(r.out, "flow (noise)");
        CHECK(p && perlin && worley && flow);
        if (perlin && worley && flow) {
            /* the nodes are listed in the order they were made: perlin, worley, flow */
            CHECK(perlin < worley && worley < flow);
            CHECK(!memmem(perlin, (size_t)(worley - perlin), "jitter", 6));
            CHECK(!memmem(perlin, (size_t)(worley - perlin), "feature", 7));
            CHECK(!memmem(perlin, (size_t)(worley - perlin), "flow =", 6));
            CHECK(memmem(worley, (size_t)(flow - worley), "* jitter = 0.5", 14));
            CHECK(memmem(worley, (size_t)(flow - worley), "  metric = ", 11));
            CHECK(!memmem(worley, (size_t)(flow - worley), "flow =", 6));
            CHECK_CONTAINS(flow, "* flow = 0.25");
            CHECK(!strstr(flow, "jitter"));
        }
    }
    res_free(&r);
}

/* --only a writes a's file alone, the same bytes as the full render's; b,
 * a vector that a grey-only .r16 refuses, is never rendered. */
static void test_only_one_output(void)
{
    char s[PATHLEN], out[PATHLEN], a[PATHLEN], b[PATHLEN], full[PATHLEN], alone[PATHLEN];
    res r;
    mkscript(s, "two.lua", "return {a = ng.perlin{range = 'unit'}, b = ng.perlin{output = 'vector'}}\n");
    mkscript(alone, "alone.lua", "return {a = ng.perlin{range = 'unit'}}\n");
    tpath(out, "only.r16");
    tpath(a, "only-a.r16");
    tpath(b, "only-b.r16");
    tpath(full, "alone-a.r16");
    cli(&r, "render", s, "-o", out, "--size", "32", NULL);
    CHECK_INT(r.code, 1); /* b cannot go to a grey format */
    res_free(&r);
    CHECK(!exists(a));
    /* --only: -o names the file itself (issue 26, bug 7), or {name} places it */
    cli(&r, "render", s, "-o", out, "--size", "32", "--only", "a", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(exists(out));
    CHECK(!exists(a));
    CHECK(!exists(b));
    pathf(a, "%s", out);
    tpath(out, "only-{name}.r16");
    tpath(b, "only-a.r16");
    cli(&r, "render", s, "-o", out, "--size", "32", "--only", "a", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(a, b));
    tpath(out, "alone.r16");
    cli(&r, "render", alone, "-o", out, "--size", "32", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(a, full));
    cli(&r, "render", s, "-o", out, "--only", "c", NULL);
    EXPECT_ERR(&r, 2, "--only c", "no output 'c'", "a, b");
    res_free(&r);
    mkscript(alone, "single.lua", "return ng.perlin{}\n");
    cli(&r, "render", alone, "-o", out, "--only", "a", NULL);
    EXPECT_ERR(&r, 2, "--only a", "one unnamed output");
    res_free(&r);
}

/* On a terminal the progress line gives the time so far and an estimate
 * of the time left ("rendering 42% 3.1 s, about 4.3 s left"). */
static void test_progress_times(void)
{
    char s[PATHLEN], out[PATHLEN], text[65536];
    size_t got = 0;
    int master, status = 0;
    pid_t pid;
    mkscript(s, "slow.lua", "return ng.fbm{ng.perlin{element_size = 8}, octaves = 8}\n");
    tpath(out, "slow.pfm");
    pid = forkpty(&master, NULL, NULL, NULL);
    if (pid == 0) {
        alarm(DEFAULT_TIMEOUT); /* a hang guard that outlives exec */
        execl(ng_bin, ng_bin, "render", s, "-o", out, "--size", "256", "--tile", "16", (char *)NULL);
        _exit(127);
    }
    CHECK(pid > 0);
    if (pid <= 0) return;
    for (;;) { /* until the child's side closes (EIO on Linux) */
        ssize_t n = read(master, text + got, sizeof text - 1 - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
        if (got == sizeof text - 1) got = 0; /* keep the tail */
    }
    text[got] = '\0';
    close(master);
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_CONTAINS(text, "noisegraph: rendering ");
    CHECK_CONTAINS(text, " s, about ");
    CHECK_CONTAINS(text, " s left");
    CHECK_CONTAINS(text, "rendering 100% ");
}

NG_SUITE(cli, full)
{
    if (cli_setup("ngcli")) {
        RUN(test_cli_environment);
        return;
    }
    setenv("HOME", tmpdir, 0); /* the --unsafe test reads it */

    RUN(test_unknown_key_suggests);
    RUN(test_wrong_type);
    RUN(test_out_of_range);
    RUN(test_bad_enum);
    RUN(test_missing_input);
    RUN(test_channel_count);
    RUN(test_operators);
    RUN(test_vector_two_items);
    RUN(test_unknown_method);
    RUN(test_script_errors);
    RUN(test_return_not_node);
    RUN(test_sandbox_denies);
    RUN(test_require_beside_script);
    RUN(test_require_refused);
    RUN(test_unsafe_full_library);
    RUN(test_time_limit);
    RUN(test_time_limit_pcall);
    RUN(test_memory_limit);
    RUN(test_set_changes_image);
    RUN(test_set_errors);
    RUN(test_set_integer_only_when_declared);
    RUN(test_vector_extra_items);
    RUN(test_outputs_suffixed);
    RUN(test_outputs_name_pattern);
    RUN(test_output_names_stay_in_directory);
    RUN(test_vector_output_rgb);
    RUN(test_atomic_failed_validation);
    RUN(test_atomic_failed_render);
    RUN(test_missing_directory);
    RUN(test_success_replaces_target);
    RUN(test_usage_errors);
    RUN(test_region_outside_is_usage_error);
    RUN(test_help_version);
    RUN(test_help_rows_once);
    RUN(test_help_per_command);
    RUN(test_help_names_every_format);
    RUN(test_nodes);
    RUN(test_info);
    RUN(test_bits);
    RUN(test_threads_tiles_identical);
    RUN(test_regions_stitch);
    RUN(test_nodes_suggests_a_type);
    RUN(test_info_shows_options_that_apply);
    RUN(test_only_one_output);
    RUN(test_progress_times);

    cli_teardown();
}
