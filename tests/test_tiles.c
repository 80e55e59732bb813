/*
 * test_tiles.c — `noisegraph tiles` and `noisegraph stitch`: the plan's
 * lines run from anywhere, one tile equals its --region render, tiles
 * stitched equal the single render bit for bit (PNG 16, r16, PFM; edge
 * tiles), GDAL reads the VRT mosaic as the same samples, a re-run redoes
 * only what is missing or wrong, and stitch refuses every bad input in
 * one line, writing nothing.
 */
#include "cli_support.h"
#include "tilefile.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const SCRIPT_TEXT =
    "local seed = ng.param(\"seed\", 3, {doc = \"pattern seed\"})\n"
    "return ng.fbm{source = ng.perlin{element_size = 40, seed = seed}, octaves = 3}:fit(-0.7, 0.7, 0, 1, true)\n";

static char script[PATHLEN];

/* The 300x200 job cut in 128-pixel tiles: 3 columns, 2 rows, the last
 * column 44 wide and the last row 72 high. */
static void tiles_into(res *r, const char *dir, const char *ext, const char *seed)
{
    char pattern[PATHLEN], set[64];
    pathf(pattern, "%s/tile_{x}_{y}.%s", dir, ext);
    snprintf(set, sizeof set, "seed=%s", seed);
    cli(r, "tiles", script, "--size", "300x200", "--tile-size", "128", "-o", pattern, "--set", set,
        !strcmp(ext, "png") ? "--bits" : "--quiet", !strcmp(ext, "png") ? "16" : "--quiet", NULL);
}

static void single_into(const char *path, const char *seed)
{
    char set[64];
    res r;
    snprintf(set, sizeof set, "seed=%s", seed);
    cli(&r, "render", script, "--no-provenance", "--size", "300x200", "-o", path, "--set", set, "--bits",
        strstr(path, ".pfm") || strstr(path, ".r32") ? "32" : "16", NULL);
    EXPECT_OK(&r);
    res_free(&r);
}

static void test_sha256_vectors(void)
{
    static const struct {
        const char *text, *hex;
    } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    char hex[65];
    size_t i, k;
    ng_sha256 s;
    for (i = 0; i < sizeof v / sizeof v[0]; i++) {
        ng_sha256_init(&s);
        ng_sha256_update(&s, v[i].text, strlen(v[i].text));
        ng_sha256_hex(&s, hex);
        CHECK_STR(hex, v[i].hex);
    }
    /* a million 'a' fed in uneven pieces: block boundaries anywhere */
    ng_sha256_init(&s);
    for (k = 0; k < 1000000;) {
        static const char as[1000] = {[0 ... 999] = 'a'};
        size_t n = (k * 7 + 13) % 997 + 1;
        if (n > 1000000 - k) n = 1000000 - k;
        ng_sha256_update(&s, as, n);
        k += n;
    }
    ng_sha256_hex(&s, hex);
    CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* One line per tile, in index order, each self-contained: run from / it
 * renders its tile into a folder whose name needs quoting. */
static void test_plan_lines(void)
{
    char pattern[PATHLEN], tile[PATHLEN], cmd[PATHLEN * 2], *line, *save = NULL, want[32];
    res r;
    int n = 0;
    pathf(pattern, "%s/it's a farm/t_{x}_{y}.png", tmpdir);
    cli(&r, "tiles", script, "--size", "300x200", "--tile-size", "128", "-o", pattern, "--plan", NULL);
    EXPECT_SILENT(&r);
    for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
        snprintf(want, sizeof want, " --index %d", n);
        CHECKF(strlen(line) > strlen(want) && !strcmp(line + strlen(line) - strlen(want), want), "line %d: %s", n, line);
        CHECK_CONTAINS(line, ng_bin);
        CHECK_CONTAINS(line, script); /* absolute: tmpdir is */
        if (n == 5) {
            snprintf(cmd, sizeof cmd, "cd / && %s 2>&1", line);
            CHECK_INT(shell(cmd, NULL), 0);
        }
    }
    CHECK_INT(n, 6);
    pathf(tile, "%s/it's a farm/t_2_1.png", tmpdir);
    {
        unsigned w = 0, h = 0;
        int depth, ctype;
        CHECK(ihdr(tile, &w, &h, &depth, &ctype));
        CHECK_INT(w, 44); /* the edge tile: what is left of the width and height */
        CHECK_INT(h, 72);
    }
    pathf(tile, "%s/it's a farm/t_0_0.png", tmpdir);
    CHECK(!exists(tile)); /* one line, one tile */
    res_free(&r);
    /* a newline in a word would split a tile's line in two: refused */
    cli(&r, "tiles", script, "--size", "300x200", "--tile-size", "128", "-o", pattern, "--plan", "--set",
        "seed=3\n4", NULL);
    EXPECT_ERR(&r, 2, "--plan", "newline");
    res_free(&r);
}

/* --index I (and its alias --only) writes tile I alone: the bytes of the
 * --region render of its rectangle. */
static void test_index_is_region(void)
{
    char pattern[PATHLEN], tile[PATHLEN], region[PATHLEN], other[PATHLEN];
    res r;
    pathf(pattern, "%s/idx/tile_{i}.png", tmpdir);
    cli(&r, "tiles", script, "--size", "300x200", "--tile-size", "128", "-o", pattern, "--index", "4", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    pathf(tile, "%s/idx/tile_4.png", tmpdir);
    tpath(region, "region4.png");
    cli(&r, "render", script, "--no-provenance", "--size", "300x200", "--region", "128,128,128,72", "-o", region, NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(tile, region));
    pathf(other, "%s/idx/tile_3.png", tmpdir);
    CHECK(!exists(other));
    pathf(other, "%s/idx/manifest.json", tmpdir);
    CHECK(!exists(other)); /* not every tile is done */
    cli(&r, "tiles", script, "--size", "300x200", "--tile-size", "128", "-o", pattern, "--only", "2", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    pathf(other, "%s/idx/tile_2.png", tmpdir);
    CHECK(exists(other));
}

/* Tile 4 of the 300x200 run at --compression level into pattern, and the
 * same window rendered with --region into region. */
static void tile_and_region(const char *pattern, const char *region, const char *level)
{
    res r;
    cli(&r, "tiles", script, "--size", "300x200", "--tile-size", "128", "-o", pattern, "--index", "4",
        "--compression", level, NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", script, "--no-provenance", "--size", "300x200", "--region", "128,128,128,72", "-o", region, "--compression", level,
        NULL);
    EXPECT_OK(&r);
    res_free(&r);
}

/* The encoding options reach the tiles: a tile with --compression is the
 * --region render with it (they were ignored: every tile at the default
 * level), and a re-run with another level redoes the tiles. */
static void test_tiles_take_compression(void)
{
    char pattern[PATHLEN], tile[PATHLEN], region[PATHLEN];
    struct stat before, after;
    pathf(pattern, "%s/level/tile_{i}.png", tmpdir);
    pathf(tile, "%s/level/tile_4.png", tmpdir);
    tpath(region, "level_region4.png");
    tile_and_region(pattern, region, "9");
    CHECK(same_bytes(tile, region));
    CHECK(stat(tile, &before) == 0);
    tile_and_region(pattern, region, "1");
    CHECK(stat(tile, &after) == 0 && after.st_ino != before.st_ino); /* redone, not skipped as done */
    CHECK(same_bytes(tile, region));
}

/* The whole run, then stitch: the single render's bytes, per format. */
static void test_stitch_equals_single(void)
{
    static const char *const exts[] = {"png", "r16", "pfm"};
    size_t e;
    for (e = 0; e < sizeof exts / sizeof exts[0]; e++) {
        char dir[PATHLEN], manifest[PATHLEN], big[PATHLEN], single[PATHLEN];
        res r;
        pathf(dir, "%s/full_%s", tmpdir, exts[e]);
        tiles_into(&r, dir, exts[e], "3");
        EXPECT_OK(&r);
        res_free(&r);
        pathf(manifest, "%s/manifest.json", dir);
        pathf(big, "%s/big.%s", tmpdir, exts[e]);
        pathf(single, "%s/single.%s", tmpdir, exts[e]);
        cli(&r, "stitch", manifest, "-o", big, NULL);
        EXPECT_SILENT(&r);
        res_free(&r);
        single_into(single, "3");
        CHECKF(same_bytes(big, single), "%s: the stitched tiles differ from the single render", exts[e]);
    }
}

/* GDAL opens the VRT as one raster and reads the single render's samples
 * (16-bit PNG and r16 tiles as UInt16, PFM and r32 tiles as Float32, rows
 * top down): gdal_translate to raw ENVI and compare. (r32 tiles, which
 * stitch does not read, are made here; GDAL could not open them before
 * the VRT's reading came from the format table.) */
static void test_vrt_reads_in_gdal(void)
{
    static const char *const exts[] = {"png", "r16", "pfm", "r32"};
    char cmd[PATHLEN * 4], single16[PATHLEN], singlef[PATHLEN], single32[PATHLEN], dir32[PATHLEN], *out = NULL;
    size_t e;
    res r;
    tpath(single16, "single.r16");
    tpath(singlef, "single.pfm");
    tpath(single32, "single.r32");
    single_into(single16, "3");
    single_into(singlef, "3");
    single_into(single32, "3");
    pathf(dir32, "%s/full_r32", tmpdir);
    tiles_into(&r, dir32, "r32", "3");
    EXPECT_OK(&r);
    res_free(&r);
    for (e = 0; e < sizeof exts / sizeof exts[0]; e++) {
        char vrt[PATHLEN], raw[PATHLEN];
        unsigned char *got, *want;
        size_t ngot = 0, nwant = 0;
        pathf(vrt, "%s/full_%s/field.vrt", tmpdir, exts[e]);
        pathf(raw, "%s/gdal_%s.bin", tmpdir, exts[e]);
        CHECKF(exists(vrt), "%s: no VRT", vrt);
        snprintf(cmd, sizeof cmd, "gdal_translate -q -of ENVI '%s' '%s' 2>&1", vrt, raw);
        CHECKF(shell(cmd, &out) == 0, "%s: %s", cmd, out);
        free(out);
        got = slurp(raw, &ngot);
        want = slurp(e == 2 ? singlef : e == 3 ? single32 : single16, &nwant);
        if (got && want && e == 2) { /* PFM: header, then rows bottom up */
            const size_t row = 300 * 4, body = 300 * 200 * 4;
            unsigned char *top = want + nwant - body;
            int y;
            CHECK_INT(ngot, body);
            for (y = 0; y < 200 && ngot == body; y++)
                CHECKF(!memcmp(got + (size_t)y * row, top + (size_t)(199 - y) * row, row), "pfm row %d", y);
        } else {
            CHECKF(got && want && ngot == nwant && !memcmp(got, want, ngot), "%s: GDAL read other samples", exts[e]);
        }
        free(got);
        free(want);
    }
    snprintf(cmd, sizeof cmd, "gdalinfo '%s/full_png/field.vrt' 2>&1", tmpdir);
    CHECK_INT(shell(cmd, &out), 0);
    CHECK_CONTAINS(out, "Size is 300, 200");
    CHECK_CONTAINS(out, "Type=UInt16");
    free(out);
}

static int stat_of(const char *dir, const char *name, struct stat *st)
{
    char p[PATHLEN];
    pathf(p, "%s/%s", dir, name);
    return stat(p, st);
}

static void flip_byte(const char *path, long at)
{
    FILE *f = fopen(path, "r+b");
    int c;
    if (!f) {
        CHECKF(0, "cannot open %s", path);
        return;
    }
    fseek(f, at, at < 0 ? SEEK_END : SEEK_SET);
    c = fgetc(f);
    fseek(f, -1, SEEK_CUR);
    fputc(c ^ 0x55, f);
    fclose(f);
}

/* A re-run leaves good tiles alone (same inode, same mtime) and renders
 * again a corrupted one and a foreign one. */
static void test_resume(void)
{
    static const char *const names[6] = {"tile_0_0.png", "tile_1_0.png", "tile_2_0.png",
                                         "tile_0_1.png", "tile_1_1.png", "tile_2_1.png"};
    char dir[PATHLEN], p[PATHLEN], q[PATHLEN], cmd[PATHLEN * 3], manifest[PATHLEN], big[PATHLEN], single[PATHLEN];
    struct stat before[6], after[6];
    res r;
    int i;
    pathf(dir, "%s/resume", tmpdir);
    tiles_into(&r, dir, "png", "3");
    EXPECT_OK(&r);
    res_free(&r);
    sleep(1); /* mtimes of a redone tile differ even on a coarse clock */
    pathf(p, "%s/tile_2_0.png", dir);
    flip_byte(p, -20); /* inside the data: still opens as a PNG */
    pathf(p, "%s/tile_0_0.png", dir);
    pathf(q, "%s/tile_1_1.png", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", p, q); /* a foreign file in its place */
    CHECK_INT(shell(cmd, NULL), 0);
    for (i = 0; i < 6; i++) CHECK(stat_of(dir, names[i], &before[i]) == 0);
    tiles_into(&r, dir, "png", "3");
    EXPECT_OK(&r);
    res_free(&r);
    for (i = 0; i < 6; i++) {
        const int redo = i == 2 || i == 4;
        CHECK(stat_of(dir, names[i], &after[i]) == 0);
        CHECKF((after[i].st_ino != before[i].st_ino) == redo, "%s: inode %s", names[i], redo ? "kept" : "changed");
        CHECKF((after[i].st_mtim.tv_sec != before[i].st_mtim.tv_sec ||
                after[i].st_mtim.tv_nsec != before[i].st_mtim.tv_nsec) == redo,
               "%s: mtime %s", names[i], redo ? "kept" : "changed");
    }
    pathf(manifest, "%s/manifest.json", dir);
    tpath(big, "resumed.png");
    tpath(single, "resumed_single.png");
    cli(&r, "stitch", manifest, "-o", big, NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    single_into(single, "3");
    CHECK(same_bytes(big, single));
}

/* ---- stitch's bad inputs ---------------------------------------------------------- */

/* A fresh copy of a good tiled render (the folder of test_stitch_equals_single) as dir. */
static void good_copy(char *dir, const char *name)
{
    char cmd[PATHLEN * 4];
    pathf(dir, "%s/%s", tmpdir, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s/full_png' '%s'", dir, tmpdir, dir);
    CHECK_INT(shell(cmd, NULL), 0);
}

/* stitch dir/manifest.json fails in one line naming each of needles, and
 * writes nothing. */
static void expect_refused(const char *dir, const char *extra, const char *needle)
{
    char manifest[PATHLEN], out[PATHLEN];
    res r;
    pathf(manifest, "%s/manifest.json", dir);
    pathf(out, "%s/refused.png", tmpdir);
    if (extra) cli(&r, "stitch", manifest, "-o", out, "--script", extra, NULL);
    else cli(&r, "stitch", manifest, "-o", out, NULL);
    EXPECT_ERR(&r, 1, needle);
    CHECKF(!exists(out), "%s: written", out);
    CHECK_INT(count_entries(tmpdir, "refused"), 0); /* no temporary left either */
    res_free(&r);
}

/* The manifest's text with the first `from` replaced by `to`. */
static void edit_manifest(const char *dir, const char *from, const char *to)
{
    char path[PATHLEN], *hit, *text2;
    size_t n;
    unsigned char *text;
    pathf(path, "%s/manifest.json", dir);
    text = slurp(path, &n);
    if (!text || !(hit = strstr((char *)text, from))) {
        CHECKF(0, "%s: no '%s'", path, from);
        free(text);
        return;
    }
    text2 = malloc(n + strlen(to) + 1);
    sprintf(text2, "%.*s%s%s", (int)(hit - (char *)text), (char *)text, to, hit + strlen(from));
    put_file(path, text2);
    free(text);
    free(text2);
}

/* The manifest's text from `from` up to (not including) `to` removed. */
static void cut_manifest(const char *dir, const char *from, const char *to)
{
    char path[PATHLEN], *a, *b;
    size_t n;
    unsigned char *text;
    pathf(path, "%s/manifest.json", dir);
    text = slurp(path, &n);
    if (!text || !(a = strstr((char *)text, from)) || !(b = strstr(a, to))) {
        CHECKF(0, "%s: no '%s'", path, from);
        free(text);
        return;
    }
    memmove(a, b, strlen(b) + 1);
    put_file(path, (char *)text);
    free(text);
}

static void test_stitch_missing_tile(void)
{
    char dir[PATHLEN], p[PATHLEN];
    good_copy(dir, "bad_missing");
    pathf(p, "%s/tile_1_1.png", dir);
    unlink(p);
    expect_refused(dir, NULL, "tile_1_1.png: missing");
    good_copy(dir, "bad_missing_entry"); /* the manifest lists no tile 3 */
    edit_manifest(dir, "\"index\": 3,", "\"index\": 4,");
    expect_refused(dir, NULL, "tile_0_1.png"); /* tile 4's place taken by tile_0_1: overlap */
    good_copy(dir, "bad_short_list"); /* the last entry cut off */
    cut_manifest(dir, ",\n    {\"index\": 5,", "\n  ]");
    expect_refused(dir, NULL, "tile 5 (column 2, row 1) is missing");
}

static void test_stitch_overlap(void)
{
    char dir[PATHLEN];
    good_copy(dir, "bad_overlap");
    edit_manifest(dir, "\"x\": 128, \"y\": 0,", "\"x\": 100, \"y\": 0,");
    expect_refused(dir, NULL, "tile_1_0.png: tile 1 at 100,0");
    good_copy(dir, "bad_twice");
    edit_manifest(dir, "\"index\": 4, \"column\": 1, \"row\": 1, \"x\": 128, \"y\": 128, \"width\": 128, \"height\": 72, "
                       "\"file\": \"tile_1_1.png\"",
                  "\"index\": 1, \"column\": 1, \"row\": 0, \"x\": 128, \"y\": 0, \"width\": 128, \"height\": 128, "
                  "\"file\": \"tile_1_1.png\"");
    expect_refused(dir, NULL, "tile_1_0.png and tile_1_1.png are both tile 1");
}

/* A manifest of another job's parameters over these tiles: their records
 * say so; without the records, their checksums do; --script SCRIPT checks
 * the script itself. */
static void test_stitch_other_job(void)
{
    char dir[PATHLEN], other[PATHLEN], cmd[PATHLEN * 3], script2[PATHLEN];
    res r;
    good_copy(dir, "bad_job");
    pathf(other, "%s/other_seed", tmpdir);
    tiles_into(&r, other, "png", "4");
    EXPECT_OK(&r);
    res_free(&r);
    snprintf(cmd, sizeof cmd, "cp '%s/manifest.json' '%s/manifest.json'", dir, other);
    CHECK_INT(shell(cmd, NULL), 0);
    expect_refused(other, NULL, "tile_0_0.png: rendered by another job");
    snprintf(cmd, sizeof cmd, "rm -r '%s/.tiles'", other);
    CHECK_INT(shell(cmd, NULL), 0);
    expect_refused(other, NULL, "tile_0_0.png: its bytes are not those");
    mkscript(script2, "other.lua", "return ng.perlin{element_size = 9}\n");
    expect_refused(dir, script2, "was made from another script");
}

static void test_stitch_wrong_tile(void)
{
    char dir[PATHLEN], p[PATHLEN], q[PATHLEN], cmd[PATHLEN * 3];
    good_copy(dir, "bad_size");
    pathf(p, "%s/tile_0_0.png", dir);
    pathf(q, "%s/tile_2_1.png", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", q, p); /* a 44x72 tile where a 128x128 one belongs */
    CHECK_INT(shell(cmd, NULL), 0);
    expect_refused(dir, NULL, "tile_0_0.png: is 44x72; the tile is 128x128");
    good_copy(dir, "bad_format");
    pathf(p, "%s/tile_1_0.png", dir);
    put_file(p, "P5\n128 128\n255\n");
    expect_refused(dir, NULL, "tile_1_0.png: is not a PNG file");
    good_copy(dir, "bad_manifest"); /* cut short, and a broken escape at its end */
    cut_manifest(dir, "\"tiles\"", "\n}");
    expect_refused(dir, NULL, "not a tiles manifest");
    pathf(p, "%s/manifest.json", dir);
    put_file(p, "{\"width\": \"\\u0\"00");
    expect_refused(dir, NULL, "not a tiles manifest");
    good_copy(dir, "bad_corrupt");
    pathf(p, "%s/tile_2_0.png", dir);
    flip_byte(p, -20);
    expect_refused(dir, NULL, "tile_2_0.png: its bytes are not those");
}

/* The manifest is read strictly, as JSON says it: a number with a sign,
 * a leading zero or a bare point, NaN, a key twice, bytes of no UTF-8
 * character and nesting past 16 deep are each refused in one line. */
static void test_stitch_strict_manifest(void)
{
    static const struct {
        const char *from, *to, *why;
    } bad[] = {
        {"\"width\": 300,", "\"width\": +300,", "(invalid token near '+'"},
        {"\"rows\": 2,", "\"rows\": 02,", "(invalid token"},
        {"\"pixel_size\": 1,", "\"pixel_size\": 1.,", "(invalid token near '1.'"},
        {"\"z\": 0,", "\"z\": NaN,", "(invalid token near 'NaN'"},
        {"\"width\": 300,", "\"width\": 300,\n  \"width\": 300,", "(duplicate object key"},
        {"\"pattern\": \"tile_", "\"pattern\": \"\xfftile_", "(unable to decode byte 0xff"},
        {"\"sets\": [\"seed=3\"]", "\"sets\": [[[[[[[[[[[[[[[[[\"seed=3\"]]]]]]]]]]]]]]]]]", "(nested more than 16 deep)"},
    };
    char dir[PATHLEN];
    size_t k;
    for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        good_copy(dir, "strict");
        edit_manifest(dir, bad[k].from, bad[k].to);
        expect_refused(dir, NULL, "manifest.json: not a tiles manifest");
        expect_refused(dir, NULL, bad[k].why);
    }
}

/* JSON is UTF-8: a --set value and a tile name with bytes of no character
 * give a manifest that Python reads, U+FFFD in their place; the tiles are
 * named as the manifest says, so a re-run finds them done and stitch
 * finds them at all. */
static void test_manifest_is_utf8(void)
{
    char dir[PATHLEN], utf8_script[PATHLEN], pattern[PATHLEN], cmd[PATHLEN * 2], tile[PATHLEN], big[PATHLEN], *out = NULL;
    struct stat before, after;
    res r;
    int run;
    mkscript(utf8_script, "tagged.lua", "local tag = ng.param(\"tag\", \"a\")\nreturn ng.perlin{element_size = 20}\n");
    pathf(dir, "%s/utf8", tmpdir);
    pathf(pattern, "%s/tile\xff_{x}_{y}.png", dir);
    pathf(tile, "%s/tile" "\xef\xbf\xbd" "_0_0.png", dir);
    for (run = 0; run < 2; run++) {
        cli(&r, "tiles", utf8_script, "--size", "100x70", "--tile-size", "64", "-o", pattern, "--set", "tag=\xfe" "b", NULL);
        CHECK_INT(r.code, 0);
        CHECK_INT(count_lines(r.err), 1);
        CHECK_CONTAINS(r.err, "is U+FFFD in the tiles' names");
        res_free(&r);
        CHECK(stat(tile, run ? &after : &before) == 0);
    }
    CHECK(before.st_ino == after.st_ino); /* the second run found every tile done */
    snprintf(cmd, sizeof cmd, "python3 -c 'import json, sys; m = json.load(open(sys.argv[1], encoding=\"utf-8\")); "
             "print(ascii(m[\"pattern\"]), ascii(m[\"sets\"]), ascii(m[\"tiles\"][0][\"file\"]))' '%s/manifest.json'", dir);
    CHECK_INT(shell(cmd, &out), 0);
    CHECK_CONTAINS(out, "'tile\\ufffd_{x}_{y}.png' ['tag=\\ufffdb'] 'tile\\ufffd_0_0.png'");
    free(out);
    pathf(cmd, "%s/manifest.json", dir);
    tpath(big, "utf8.png");
    cli(&r, "stitch", cmd, "-o", big, NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    CHECK(exists(big));
}

/* In a good copy, rel (a tile, a record or the manifest) replaced by a
 * FIFO with no writer, or by a link to /dev/zero. */
static void make_special(char *dir, const char *name, const char *rel, int fifo)
{
    char p[PATHLEN];
    good_copy(dir, name);
    pathf(p, "%s/%s", dir, rel);
    CHECK_INT(unlink(p), 0);
    CHECK_INT(fifo ? mkfifo(p, 0600) : symlink("/dev/zero", p), 0);
}

/* A FIFO or a link to /dev/zero where stitch or a re-run of tiles reads a
 * tile, a tile record or the manifest is refused at once in one line
 * naming it; they used to block in open for ever, or hash /dev/zero for
 * ever. Each run has 30 s, so a regression fails instead of hanging. */
static void test_special_files_refused(void)
{
    static const char *const rels[] = {"tile_1_0.png", ".tiles/1.json", "manifest.json"};
    char dir[PATHLEN], manifest[PATHLEN], out[PATHLEN], pattern[PATHLEN], p[PATHLEN];
    size_t k;
    int fifo;
    res r;
    pathf(out, "%s/special.png", tmpdir);
    for (k = 0; k < sizeof rels / sizeof rels[0]; k++)
        for (fifo = 0; fifo < 2; fifo++) {
            make_special(dir, "special", rels[k], fifo);
            pathf(manifest, "%s/manifest.json", dir);
            cli_t(&r, 30, "stitch", manifest, "-o", out, NULL);
            EXPECT_ERR(&r, 1, rels[k], "is not a regular file");
            res_free(&r);
            CHECK(!exists(out));
            /* a re-run of the job: the manifest is read only when a tile
             * is to be rendered again (tile 0's record gone) */
            if (k == 2) {
                pathf(p, "%s/.tiles/0.json", dir);
                CHECK_INT(unlink(p), 0);
            }
            pathf(pattern, "%s/tile_{x}_{y}.png", dir);
            cli_t(&r, 30, "tiles", script, "--size", "300x200", "--tile-size", "128", "-o", pattern, "--set", "seed=3",
                  "--bits", "16", NULL);
            EXPECT_ERR(&r, 1, rels[k], "is not a regular file");
            res_free(&r);
        }
}

/* A tile's record too long to be one of ours (4 KiB or more) is not
 * read, and stitch still works (it freed a record it had never parsed:
 * uninitialised memory, which valgrind showed on the old code). */
static void test_stitch_long_record(void)
{
    char dir[PATHLEN], p[PATHLEN], big[PATHLEN], single[PATHLEN], *text;
    res r;
    good_copy(dir, "long_record");
    pathf(p, "%s/.tiles/0.json", dir);
    text = malloc(5001);
    memset(text, ' ', 5000);
    text[5000] = '\0';
    put_file(p, text);
    free(text);
    pathf(p, "%s/manifest.json", dir);
    pathf(big, "%s/long_record.png", tmpdir);
    pathf(single, "%s/long_record_single.png", tmpdir);
    cli(&r, "stitch", p, "-o", big, NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    single_into(single, "3");
    CHECK(same_bytes(big, single));
}

/* A grid of more columns than the soft limit of open files allows (as
 * 1024 columns under Debian's usual 1024): stitch raises the limit
 * toward the hard one instead of failing on "Too many open files". */
static void test_stitch_many_columns(void)
{
    char pattern[PATHLEN], cmd[PATHLEN * 3], big[PATHLEN], single[PATHLEN], *out = NULL;
    res r;
    pathf(pattern, "%s/columns/t_{i}.png", tmpdir);
    cli(&r, "tiles", script, "--size", "1600x40", "--tile-size", "16", "-o", pattern, "--quiet", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    pathf(big, "%s/columns.png", tmpdir);
    snprintf(cmd, sizeof cmd, "ulimit -Sn 48 && '%s' stitch '%s/columns/manifest.json' -o '%s' 2>&1", ng_bin, tmpdir, big);
    CHECK_INT(shell(cmd, &out), 0); /* 100 columns, 48 files */
    CHECKF(out && !*out, "stitch said: %s", out ? out : "");
    free(out);
    pathf(single, "%s/columns_single.png", tmpdir);
    cli(&r, "render", script, "--no-provenance", "--size", "1600x40", "-o", single, NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(big, single));
}

/* ---- EXR tiles ---------------------------------------------------------------------- */

/* The 300x200 job in 128-pixel tiles as .exr, with the render options
 * opts (NULL-terminated, at most 4), into dir. */
static void exr_tiles_into(res *r, const char *dir, const char *const *opts)
{
    char pattern[PATHLEN];
    pathf(pattern, "%s/tile_{x}_{y}.exr", dir);
    cli(r, "tiles", script, "--size", "300x200", "--tile-size", "128", "-o", pattern, "--quiet", opts[0], opts[1],
        opts[2], opts[3], NULL);
}

/* A tile is its --region render (the EXR options and the data window in
 * the whole image's display window), and stitched .exr tiles are the
 * single render's file, byte for byte (so its samples bit for bit): float
 * and half, scanline ZIP (a tie-sized chunk
 * included: the encoder stores it raw), none, and tiles of 48 (partial
 * EXR tiles inside every noisegraph tile) with PIZ; and float tiles
 * stitched into .pfm are the single .pfm render. */
static void test_stitch_exr_equals_single(void)
{
    static const char *const variants[][5] = {
        {NULL},
        {"--bits", "16", NULL},
        {"--exr-tiles", "48", "--exr-compression", "piz", NULL},
        {"--exr-compression", "none", NULL},
    };
    size_t v;
    for (v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        const char *const *o = variants[v];
        const int half = o[0] && !strcmp(o[0], "--bits");
        const char *const enc[4] = {half ? NULL : o[0], half ? NULL : o[1], half ? NULL : o[2], half ? NULL : o[3]};
        char dir[PATHLEN], manifest[PATHLEN], big[PATHLEN], single[PATHLEN], *text;
        size_t n;
        res r;
        pathf(dir, "%s/exr_%zu", tmpdir, v);
        exr_tiles_into(&r, dir, o);
        EXPECT_OK(&r);
        res_free(&r);
        pathf(manifest, "%s/manifest.json", dir);
        text = (char *)slurp(manifest, &n);
        CHECK(text && strstr(text, "\"format\": \"exr\""));
        CHECKF(text && strstr(text, half ? "\"bits\": 16," : "\"bits\": 32,"), "variant %zu: the manifest's bits", v);
        free(text);
        pathf(big, "%s/big_%zu.exr", tmpdir, v);
        pathf(single, "%s/single_%zu.exr", tmpdir, v);
        cli(&r, "stitch", manifest, "-o", big, enc[0], enc[1], enc[2], enc[3], NULL);
        EXPECT_SILENT(&r);
        res_free(&r);
        cli(&r, "render", script, "--no-provenance", "--size", "300x200", "-o", single, "--quiet", o[0], o[1], o[2], o[3], NULL);
        EXPECT_OK(&r);
        res_free(&r);
        CHECKF(same_bytes(big, single), "variant %zu: the stitched EXR tiles differ from the single render", v);
        /* a tile is its --region render, options and placement included */
        pathf(big, "%s/tile_1_0.exr", dir);
        pathf(single, "%s/region_%zu.exr", tmpdir, v);
        cli(&r, "render", script, "--no-provenance", "--size", "300x200", "--region", "128,0,128,128", "-o", single, "--quiet", o[0], o[1],
            o[2], o[3], NULL);
        EXPECT_OK(&r);
        res_free(&r);
        CHECKF(same_bytes(big, single), "variant %zu: tile 1 differs from its --region render", v);
        if (half) continue;
        pathf(big, "%s/big_%zu.pfm", tmpdir, v);
        pathf(single, "%s/single_%zu.pfm", tmpdir, v);
        cli(&r, "stitch", manifest, "-o", big, NULL);
        EXPECT_SILENT(&r);
        res_free(&r);
        single_into(single, "3");
        CHECKF(same_bytes(big, single), "variant %zu: EXR tiles stitched into .pfm differ from the .pfm render", v);
    }
}

/* The manifest's SHA-256 of file in dir set to the file's current one,
 * so that stitch reaches the file's contents. */
static void rehash_tile(const char *dir, const char *file, const char *old_sha)
{
    char p[PATHLEN], sha[65];
    ng_error err;
    pathf(p, "%s/%s", dir, file);
    CHECK(ng_sha256_file(p, "a tile", 0, sha, &err) == 0);
    edit_manifest(dir, old_sha, sha);
}

/* Damaged EXR tiles, each refused in one line naming it, nothing written:
 * a chunk that does not decompress (its checksum made to match, so the
 * decoder meets it), a tile cut short, the header alone, and a tile of
 * the right size from another place of the image. */
static void test_stitch_exr_damaged(void)
{
    static const char *const half[] = {"--bits", "16", NULL, NULL, NULL};
    char good[PATHLEN], dir[PATHLEN], p[PATHLEN], q[PATHLEN], sha[65], cmd[PATHLEN * 5];
    ng_error err;
    res r;
    pathf(good, "%s/exr_half", tmpdir); /* halves compress: the last chunk is zlib data */
    exr_tiles_into(&r, good, half);
    EXPECT_OK(&r);
    res_free(&r);
    pathf(dir, "%s/exr_bad_chunk", tmpdir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", dir, good, dir);
    CHECK_INT(shell(cmd, NULL), 0);
    pathf(p, "%s/tile_2_1.exr", dir);
    CHECK(ng_sha256_file(p, "a tile", 0, sha, &err) == 0);
    flip_byte(p, -100);
    rehash_tile(dir, "tile_2_1.exr", sha);
    expect_refused(dir, NULL, "tile_2_1.exr: is not a readable EXR (rows 64 to 71");

    pathf(dir, "%s/exr_cut", tmpdir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s' && truncate -s 1000 '%s/tile_1_1.exr'", dir, good, dir, dir);
    CHECK_INT(shell(cmd, NULL), 0);
    expect_refused(dir, NULL, "tile_1_1.exr: is not a readable EXR (chunk table");
    snprintf(cmd, sizeof cmd, "truncate -s 200 '%s/tile_1_1.exr'", dir);
    CHECK_INT(shell(cmd, NULL), 0);
    expect_refused(dir, NULL, "tile_1_1.exr: is not a readable EXR (header");

    pathf(dir, "%s/exr_moved", tmpdir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", dir, good, dir);
    CHECK_INT(shell(cmd, NULL), 0);
    pathf(p, "%s/tile_0_0.exr", dir);
    pathf(q, "%s/tile_1_0.exr", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", q, p); /* 128x128 as well, but at 128,0 */
    CHECK_INT(shell(cmd, NULL), 0);
    expect_refused(dir, NULL, "tile_0_0.exr: lies at 128,0 of a 300x200 image; the tile is at 0,0");
}

/* A newline in -o cannot be in a plan of one line per tile: the message
 * names the word (it printed the absolute pattern after freeing it:
 * garbage, a use after free under ASan). A script of several outputs is
 * refused with their count (it said 0, read after the script was freed). */
static void test_plan_newline_and_output_count(void)
{
    char pattern[PATHLEN], want[PATHLEN + 64], s3[PATHLEN], o[PATHLEN];
    res r;
    pathf(pattern, "%s/a\nb/t_{i}.png", tmpdir);
    pathf(want, "--plan: '%s/a b/t_{i}.png' holds a newline", tmpdir);
    cli(&r, "tiles", script, "--size", "64", "--tile-size", "32", "-o", pattern, "--plan", NULL);
    EXPECT_ERR(&r, 2, want);
    res_free(&r);
    mkscript(s3, "three.lua", "return {a = ng.perlin{}, b = ng.white{}, c = ng.value{}}\n");
    pathf(o, "%s/three/t_{i}.png", tmpdir);
    cli(&r, "tiles", s3, "--size", "64", "--tile-size", "32", "-o", o, NULL);
    EXPECT_ERR(&r, 1, "three.lua: returns 3 outputs; tiles renders a script of one output");
    res_free(&r);
}

/* A manifest says one format and one depth for all its tiles: a depth
 * no tile has (bits 7), a format its tiles are not, an entry of another
 * format, and a tile of another depth (its checksum made to match) are
 * each refused in one line, nothing written; they stitched without a word. */
static void test_stitch_one_format_and_depth(void)
{
    char dir[PATHLEN], p[PATHLEN], sha[65];
    ng_error err;
    res r;
    good_copy(dir, "bits7");
    edit_manifest(dir, "\"bits\": 16", "\"bits\": 7");
    expect_refused(dir, NULL, "bits 7");
    good_copy(dir, "format_pfm");
    edit_manifest(dir, "\"format\": \"png\"", "\"format\": \"pfm\"");
    edit_manifest(dir, "\"bits\": 16", "\"bits\": 32");
    expect_refused(dir, NULL, "tile_0_0.png: tile 0 is not a .pfm file");
    good_copy(dir, "format_png32");
    edit_manifest(dir, "\"bits\": 16", "\"bits\": 32");
    expect_refused(dir, NULL, "format \"png\" with 32 bits is not one of tiles stitch reads");
    good_copy(dir, "mixed_format");
    edit_manifest(dir, "\"file\": \"tile_1_0.png\"", "\"file\": \"tile_1_0.r16\"");
    expect_refused(dir, NULL, "tile_1_0.r16: tile 1 is not a .png file");
    good_copy(dir, "mixed_depth"); /* tile 1 (128x128 at 128,0) rendered again at 8 bits */
    pathf(p, "%s/tile_1_0.png", dir);
    CHECK(ng_sha256_file(p, "a tile", 0, sha, &err) == 0);
    cli(&r, "render", script, "--no-provenance", "--size", "300x200", "--region", "128,0,128,128", "--set", "seed=3", "--bits", "8", "-o",
        p, NULL);
    EXPECT_OK(&r);
    res_free(&r);
    rehash_tile(dir, "tile_1_0.png", sha);
    expect_refused(dir, NULL, "tile_1_0.png: holds 8-bit samples");
}

/* The tiles command's own usage errors. */
static void test_tiles_usage(void)
{
    char pattern[PATHLEN];
    res r;
    tpath(pattern, "u/flat.png");
    cli(&r, "tiles", script, "--size", "64", "-o", pattern, NULL);
    EXPECT_ERR(&r, 2, "needs {x} and {y}");
    res_free(&r);
    pathf(pattern, "%s/u_{x}/t_{y}.png", tmpdir);
    cli(&r, "tiles", script, "--size", "64", "-o", pattern, NULL);
    EXPECT_ERR(&r, 2, "not in a folder");
    res_free(&r);
    tpath(pattern, "u/t_{i}.png");
    cli(&r, "tiles", script, "--size", "64", "--tile-size", "32", "-o", pattern, "--index", "4", NULL);
    EXPECT_ERR(&r, 2, "--index: 4", "tiles 0 to 3");
    res_free(&r);
    cli(&r, "tiles", script, "--size", "64", "-o", pattern, "--region", "0,0,8,8", NULL);
    EXPECT_ERR(&r, 2, "--region");
    res_free(&r);
    cli(&r, "tiles", script, "--size", "64", "-o", pattern, "--plan", "--index", "0", NULL);
    EXPECT_ERR(&r, 2, "--plan");
    res_free(&r);
    cli(&r, "tiles", script, "--size", "8x8x8", "-o", pattern, NULL);
    EXPECT_ERR(&r, 2, "volume");
    res_free(&r);
    tpath(pattern, "u/t_{i}.vdb");
    cli(&r, "tiles", script, "--size", "64", "-o", pattern, NULL);
    EXPECT_ERR(&r, 2, "t_0.vdb");
    res_free(&r);
    /* numbers run together repeat names: column 1 of row 11 and column 11
     * of row 1 were both t111.png, the second tile over the first */
    {
        static const char *const together[] = {"u/t{x}{y}.png", "u/t{x}1{y}.png", "u/t_{i}{x}_{y}.png"};
        size_t k;
        for (k = 0; k < sizeof together / sizeof together[0]; k++) {
            tpath(pattern, together[k]);
            cli(&r, "tiles", script, "--size", "192", "--tile-size", "16", "-o", pattern, "--plan", NULL);
            EXPECT_ERR(&r, 2, "-o", "separator that is not a digit");
            res_free(&r);
        }
        tpath(pattern, "u/t{x}1a{y}.png"); /* a non-digit after the digits tells them apart */
        cli(&r, "tiles", script, "--size", "192", "--tile-size", "16", "-o", pattern, "--plan", NULL);
        CHECK_INT(r.code, 0);
        res_free(&r);
    }
    tpath(pattern, "u");
    CHECK(!exists(pattern)); /* a usage error makes no folder */
}

/* tiles and stitch read their options from the program's one table, by
 * render's rules: a value option given twice, a value with trailing junk,
 * empty or out of range, an option that is not theirs, or one the tiles'
 * format does not take is a usage error in one line, and nothing is
 * written. (stitch let a second -o, --bits or --script win silently, and
 * tiles wrote PNG tiles with --vdb-background, which they ignored.) */
static void test_tiles_stitch_option_rules(void)
{
    static const struct {
        const char *words[4]; /* after the command's usual words; NULL-padded */
        const char *opt, *why;
    } tiles_bad[] = {
        {{"--tile-size", "64", "--tile-size", "32"}, "--tile-size", "given twice"},
        {{"--index", "1", "--only", "2"}, "--index", "given twice"},
        {{"--tile-size", "64x"}, "--tile-size", "not a whole number from 16"},
        {{"--tile-size", "8"}, "--tile-size", "not a whole number from 16"},
        {{"--index", ""}, "--index", "not a whole number"},
        {{"--index", "1,"}, "--index", "not a whole number"},
        {{"--bits", "16x"}, "--bits", "not 8, 16 or 32"},
        {{"--vdb-background", "0.5"}, "--vdb-background", "not tiles"},
        {{"--region", "0,0,8,8"}, "--region", "not tiles"},
        {{"--script", "x.lua"}, "--script", "is for stitch"},
        {{"--compression", "3", "--exr-tiles", "16"}, "--exr-tiles", "are for .exr outputs"},
    }, stitch_bad[] = {
        {{"-o", "second.png"}, "--output", "given twice"},
        {{"--bits", "16", "--bits", "8"}, "--bits", "given twice"},
        {{"--script", "a.lua", "--script", "b.lua"}, "--script", "given twice"},
        {{"--bits", "16 "}, "--bits", "not 8, 16 or 32"},
        {{"--compression", ""}, "--compression", "not a whole number from 0 to 9"},
        {{"--compression", "10"}, "--compression", "not a whole number from 0 to 9"},
        {{"--exr-tiles", "0x10"}, "--exr-tiles", "not a whole number from 1"},
        {{"--size", "64"}, "--size", "stitch reads tiles"},
        {{"--tile-size", "64"}, "--tile-size", "is for tiles"},
    };
    char pattern[PATHLEN], folder[PATHLEN], manifest[PATHLEN], out[PATHLEN];
    size_t k;
    res r;
    tpath(pattern, "opt/t_{i}.png");
    tpath(folder, "opt");
    for (k = 0; k < sizeof tiles_bad / sizeof tiles_bad[0]; k++) {
        const char *const *w = tiles_bad[k].words;
        cli(&r, "tiles", script, "--size", "64", "-o", pattern, w[0], w[1], w[2], w[3], NULL);
        EXPECT_ERR(&r, 2, tiles_bad[k].opt, tiles_bad[k].why);
        res_free(&r);
    }
    CHECK(!exists(folder)); /* no folder, no tile */
    pathf(manifest, "%s/full_png/manifest.json", tmpdir); /* good tiles: only the options are wrong */
    tpath(out, "opt_stitched.png");
    for (k = 0; k < sizeof stitch_bad / sizeof stitch_bad[0]; k++) {
        const char *const *w = stitch_bad[k].words;
        cli(&r, "stitch", manifest, "-o", out, w[0], w[1], w[2], w[3], NULL);
        EXPECT_ERR(&r, 2, stitch_bad[k].opt, stitch_bad[k].why);
        res_free(&r);
        CHECKF(!exists(out), "stitch %s %s wrote %s", w[0], w[1], out);
    }
}

NG_SUITE(tiles, full)
{
    if (cli_setup("ng-tiles")) {
        ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must name the program and the repository");
        return;
    }
    mkscript(script, "field.lua", SCRIPT_TEXT);
    RUN(test_sha256_vectors);
    RUN(test_plan_lines);
    RUN(test_index_is_region);
    RUN(test_tiles_take_compression);
    RUN(test_stitch_equals_single);
    RUN(test_vrt_reads_in_gdal);
    RUN(test_resume);
    RUN(test_stitch_missing_tile);
    RUN(test_stitch_overlap);
    RUN(test_stitch_other_job);
    RUN(test_stitch_wrong_tile);
    RUN(test_stitch_strict_manifest);
    RUN(test_manifest_is_utf8);
    RUN(test_stitch_long_record);
    RUN(test_special_files_refused);
    RUN(test_stitch_one_format_and_depth);
    RUN(test_stitch_many_columns);
    RUN(test_tiles_usage);
    RUN(test_tiles_stitch_option_rules);
    RUN(test_plan_newline_and_output_count);
    RUN(test_stitch_exr_equals_single);
    RUN(test_stitch_exr_damaged);
    cli_teardown();
}
