/*
 * test_files.c — the file formats besides PNG and what every format shares:
 * PFM read back with a parser of our own (header, scale sign, bottom-to-top
 * rows, exact float bits including NaN and values outside [0,1]); raw
 * 16-bit heightmaps byte for byte; a failed render leaving the target as it
 * was and no temporary file, for every format; the format and --bits
 * errors; the program writing .pfm and .r16 as a user runs it, and the
 * one-line note when a format clamped much of an output.
 */
#include "ng_io.h"
#include "cli_support.h"
#include "noisegraph.h"
#include "tilefile.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

enum { W = 29, H = 23 };

static const int bands[] = {1, 0, 5, 10, 7}; /* unequal, one empty, sum H */
enum { NBANDS = sizeof bands / sizeof bands[0] };

static const char precious[] = "precious\n";

/* A hash, so neighbouring samples differ and a misplaced row shows. */
static uint32_t hash(uint32_t k)
{
    k *= 0x9E3779B1u;
    k ^= k >> 15;
    k *= 0x85EBCA77u;
    k ^= k >> 13;
    return k;
}

static float from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static uint32_t to_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

/* Begins, sends img (w*h*ch floats) in the given bands, ends with ok = 1.
 * -1 at the first failing call, with err filled. */
static int write_image(const char *path, int bits, int w, int h, int ch, const float *img, const int *b,
                       int nb, ng_error *err)
{
    ng_file_sink *f = ng_file_sink_new(path, bits, err);
    ng_sink s;
    int y = 0, k, rc = 0;
    if (!f) return -1;
    s = ng_file_sink_as_sink(f);
    if (s.begin(s.user, w, h, ch, err) != 0) rc = -1;
    for (k = 0; rc == 0 && k < nb; k++) {
        rc = s.rows(s.user, y, b[k], img + (size_t)y * w * ch, err);
        y += b[k];
    }
    if (rc == 0) rc = s.end(s.user, 1, err);
    else s.end(s.user, 0, err);
    ng_file_sink_free(f);
    return rc;
}

/* ---- PFM ------------------------------------------------------------------------ */

typedef struct pfm {
    int channels, w, h;
    double scale;
    float *px; /* top row first, interleaved, as rendered */
} pfm;

/* Reads "P[fF]\nW H\nSCALE\n" then W*H*channels little-endian floats, rows
 * bottom to top. The file must be exactly that long. 0, or -1. */
static int read_pfm(const char *path, pfm *p)
{
    size_t n, head, k, count;
    unsigned char *d = slurp(path, &n);
    char text[64], *s, *end;
    int rc = -1;
    memset(p, 0, sizeof *p);
    if (!d || n < 3 || d[0] != 'P' || (d[1] != 'f' && d[1] != 'F') || d[2] != '\n') goto out;
    p->channels = d[1] == 'F' ? 3 : 1;
    memcpy(text, d, n < sizeof text - 1 ? n : sizeof text - 1);
    text[n < sizeof text - 1 ? n : sizeof text - 1] = '\0';
    s = text + 3;
    p->w = (int)strtol(s, &end, 10);
    if (end == s || *end != ' ') goto out;
    s = end + 1;
    p->h = (int)strtol(s, &end, 10);
    if (end == s || *end != '\n') goto out;
    s = end + 1;
    p->scale = strtod(s, &end);
    if (end == s || *end != '\n' || p->w < 1 || p->h < 1) goto out;
    head = (size_t)(end + 1 - text);
    count = (size_t)p->w * p->h * p->channels;
    if (n != head + 4 * count || !(p->px = malloc(count * sizeof *p->px))) goto out;
    for (k = 0; k < count; k++) {
        size_t row = k / ((size_t)p->w * p->channels), in_row = k % ((size_t)p->w * p->channels);
        const unsigned char *b = d + head + 4 * (((size_t)p->h - 1 - row) * p->w * p->channels + in_row);
        p->px[k] = from_bits((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
    }
    rc = 0;
out:
    free(d);
    return rc;
}

/* Sample k of the float test image: the start of every row holds values
 * PFM must keep as they are; the rest is hash noise from -2 to 3, different
 * in every row so the row order is checked too. */
static float float_sample(size_t k, int ch)
{
    static const uint32_t special[] = {
        0x7fc00123u, /* NaN with a payload */
        0xffc00000u, /* negative NaN */
        0x7f800000u, /* +inf */
        0xff800000u, /* -inf */
        0x80000000u, /* -0 */
        0x00000001u, /* the smallest denormal */
        0x3f800000u, /* 1 */
        0xc0600000u, /* -3.5 */
        0x40e80000u, /* 7.25 */
    };
    size_t x = (k / ch) % W, nspecial = sizeof special / sizeof special[0];
    if (x < nspecial) return from_bits(special[x]);
    return (float)(hash((uint32_t)k) % 50001u) / 10000.0f - 2.0f;
}

static void check_pfm_round_trip(int ch)
{
    size_t n = (size_t)W * H * ch, k, bad = 0;
    float *img = malloc(n * sizeof *img);
    char path[PATHLEN];
    ng_error err = {{0}};
    pfm p;
    tpath(path, ch == 3 ? "trip_rgb.pfm" : "trip.pfm");
    for (k = 0; k < n; k++) img[k] = float_sample(k, ch);
    CHECK_INT(write_image(path, 0, W, H, ch, img, bands, NBANDS, &err), 0);
    CHECK_STR(err.msg, "");
    CHECK_INT(read_pfm(path, &p), 0);
    CHECK_INT(p.channels, ch);
    CHECK_INT(p.w, W);
    CHECK_INT(p.h, H);
    CHECK(p.scale == -1.0); /* negative: little-endian; magnitude 1 */
    for (k = 0; p.px && k < n; k++)
        if (to_bits(p.px[k]) != to_bits(img[k]) && bad++ < 5)
            ng_t_fail(__FILE__, __LINE__, "sample %zu (row %zu): bits %08x, want %08x", k, k / ((size_t)W * ch),
                      (unsigned)to_bits(p.px[k]), (unsigned)to_bits(img[k]));
    CHECK_INT(bad, 0);
    CHECK_INT(count_entries(tmpdir, ".tmp-"), 0);
    free(p.px);
    free(img);
    unlink(path);
}

static void test_pfm_grey_exact(void) { check_pfm_round_trip(1); }
static void test_pfm_rgb_exact(void) { check_pfm_round_trip(3); }

/* The header as the format spells it, byte for byte. */
static void test_pfm_header_text(void)
{
    float img[3 * 2] = {0};
    const int one[] = {2};
    char path[PATHLEN];
    ng_error err = {{0}};
    size_t n;
    unsigned char *d;
    tpath(path, "head.pfm");
    CHECK_INT(write_image(path, 32, 3, 2, 1, img, one, 1, &err), 0);
    d = slurp(path, &n);
    CHECK(d && n == 12 + 3 * 2 * 4 && memcmp(d, "Pf\n3 2\n-1.0\n", 12) == 0);
    free(d);
    unlink(path);
}

/* ---- raw 16-bit ------------------------------------------------------------------ */

/* The first samples of each row are the values whose encoding matters:
 * clamping, NaN, rounding half up, and 258 = 0x0102, whose bytes a
 * big-endian writer would swap. */
static const float raw_special[] = {0.0f, 1.0f, 0.5f, -3.0f, 7.0f, 0.0f /* NaN, set below */, 258.0f / 65535.0f};
static const unsigned raw_expected[] = {0, 65535, 32768, 0, 65535, 0, 258};
enum { RAW_NSPECIAL = sizeof raw_expected / sizeof raw_expected[0] };

static void check_raw_round_trip(const char *name)
{
    size_t n = (size_t)W * H, k, len, bad = 0;
    float *img = malloc(n * sizeof *img);
    char path[PATHLEN];
    ng_error err = {{0}};
    unsigned char *d;
    tpath(path, name);
    for (k = 0; k < n; k++) {
        size_t x = k % W;
        img[k] = x < RAW_NSPECIAL ? raw_special[x] : (float)(hash((uint32_t)k) % 65536u) / 65535.0f;
        if (x == 5) img[k] = NAN;
    }
    CHECK_INT(write_image(path, 0, W, H, 1, img, bands, NBANDS, &err), 0);
    CHECK_STR(err.msg, "");
    d = slurp(path, &len);
    CHECK_INT(len, 2 * n); /* no header, no padding */
    for (k = 0; d && len == 2 * n && k < n; k++) {
        size_t x = k % W;
        unsigned want = x < RAW_NSPECIAL ? raw_expected[x] : hash((uint32_t)k) % 65536u;
        unsigned got = d[2 * k] | (unsigned)d[2 * k + 1] << 8;
        if (got != want && bad++ < 5)
            ng_t_fail(__FILE__, __LINE__, "%s sample %zu (row %zu): %u, want %u", name, k, k / W, got, want);
    }
    CHECK_INT(bad, 0);
    CHECK_INT(count_entries(tmpdir, ".tmp-"), 0);
    free(d);
    free(img);
    unlink(path);
}

static void test_raw16_bytes(void)
{
    check_raw_round_trip("trip.r16");
    check_raw_round_trip("trip.RAW"); /* the other extension, any case */
}

static void test_raw16_grey_only(void)
{
    char path[PATHLEN];
    ng_error err = {{0}};
    ng_file_sink *f;
    ng_sink s;
    tpath(path, "rgb.r16");
    f = ng_file_sink_new(path, 16, &err);
    CHECK(f != NULL);
    s = ng_file_sink_as_sink(f);
    CHECK_INT(s.begin(s.user, W, H, 3, &err), -1);
    CHECK_CONTAINS(err.msg, path);
    CHECK_CONTAINS(err.msg, "raw heightmaps are grey only");
    CHECK_INT(s.end(s.user, 0, &err), 0);
    ng_file_sink_free(f);
    CHECK(!exists(path));
    CHECK_INT(count_entries(tmpdir, ".tmp-"), 0);
}

/* ---- what every format shares ---------------------------------------------------- */

static const char *const every_format[] = {"keep.png", "keep.pfm", "keep.r16", "keep.raw"};
enum { NFORMATS = sizeof every_format / sizeof every_format[0] };

/* The target still holds `precious` and nothing lies beside it. */
static void check_kept(const char *path)
{
    size_t n;
    unsigned char *d = slurp(path, &n);
    CHECKF(d && n == sizeof precious - 1 && memcmp(d, precious, n) == 0, "%s was changed", path);
    CHECK_INT(count_entries(tmpdir, ".tmp-"), 0);
    free(d);
}

static float zeros[W * H];

/* A grey W x H image begun at path, its first 10 rows written. */
static ng_file_sink *start(const char *path, ng_sink *s, ng_error *err)
{
    ng_file_sink *f = ng_file_sink_new(path, 0, err);
    *s = ng_file_sink_as_sink(f);
    CHECK(f != NULL);
    CHECK_INT(s->begin(s->user, W, H, 1, err), 0);
    CHECK_INT(s->rows(s->user, 0, 10, zeros, err), 0);
    return f;
}

/* Cancelled, short, or fed rows out of order: each format keeps the target
 * as it was and removes its temporary file at once. */
static void test_failed_render_keeps_target(void)
{
    for (int i = 0; i < NFORMATS; i++) {
        char path[PATHLEN];
        ng_error err = {{0}};
        ng_file_sink *f;
        ng_sink s;
        tpath(path, every_format[i]);
        put_file(path, precious);

        /* cancelled: end(0), twice */
        f = start(path, &s, &err);
        CHECK_INT(count_entries(tmpdir, ".tmp-"), 1);
        CHECK_INT(s.end(s.user, 0, &err), 0);
        CHECK_INT(s.end(s.user, 0, &err), 0);
        ng_file_sink_free(f);
        check_kept(path);

        /* rows missing at end(1) */
        f = start(path, &s, &err);
        CHECK_INT(s.end(s.user, 1, &err), -1);
        CHECK_CONTAINS(err.msg, path);
        CHECK_CONTAINS(err.msg, "only 10 of 23 rows written");
        CHECK_INT(s.end(s.user, 0, &err), 0);
        ng_file_sink_free(f);
        check_kept(path);

        /* rows out of order */
        f = start(path, &s, &err);
        CHECK_INT(s.rows(s.user, 13, 2, zeros, &err), -1);
        CHECK_CONTAINS(err.msg, "row 10 of 23 was expected");
        CHECK_INT(count_entries(tmpdir, ".tmp-"), 0); /* gone before end() */
        CHECK_INT(s.end(s.user, 1, &err), -1);
        ng_file_sink_free(f);
        check_kept(path);
        unlink(path);
    }
}

/* A full disk, simulated with a file size limit far below the image. */
static void test_write_failure_keeps_target(void)
{
    enum { BW = 512, BH = 256 };
    static const int halves[] = {BH / 2, BH / 2};
    float *img = malloc((size_t)BW * BH * sizeof *img);
    struct rlimit old, lim;
    size_t k;
    if (!img || getrlimit(RLIMIT_FSIZE, &old) != 0) {
        CHECK(!"setup");
        free(img);
        return;
    }
    for (k = 0; k < (size_t)BW * BH; k++) img[k] = (float)(hash((uint32_t)k) % 1000u) / 999.0f;
    for (int i = 0; i < NFORMATS; i++) {
        char path[PATHLEN];
        ng_error err = {{0}};
        void (*old_handler)(int);
        int rc;
        tpath(path, every_format[i]);
        put_file(path, precious);
        lim = old;
        lim.rlim_cur = 16 * 1024; /* every format needs well over 200 KB */
        old_handler = signal(SIGXFSZ, SIG_IGN);
        CHECK_INT(setrlimit(RLIMIT_FSIZE, &lim), 0);
        rc = write_image(path, 0, BW, BH, 1, img, halves, 2, &err);
        setrlimit(RLIMIT_FSIZE, &old);
        signal(SIGXFSZ, old_handler);
        CHECK_INT(rc, -1);
        CHECK_CONTAINS(err.msg, path);
        /* an uncompressed format knows its size: refused before writing */
        if (strstr(path, ".png")) CHECK_CONTAINS(err.msg, strerror(EFBIG));
        else CHECK_CONTAINS(err.msg, "is more than the file size limit (ulimit -f) of 16 KiB");
        check_kept(path);
        unlink(path);
    }
    free(img);
}

static void test_unknown_extension(void)
{
    static const char *const names[] = {"x.jpg", "x.png.bak", "x.bmp", "png", ".pfm", "x", "x.png/"};
    char want[128];
    ng_error err = {{0}};
    snprintf(want, sizeof want, "unknown image format (noisegraph writes %s)", ng_file_formats());
    CHECK_STR(ng_file_formats(), ".png, .pfm, .r16, .raw, .vdb, .nrrd, .exr, .tif, .tiff, .r32");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[PATHLEN];
        tpath(path, names[i]);
        err.msg[0] = '\0';
        CHECK(ng_file_sink_new(path, 0, &err) == NULL);
        CHECK_CONTAINS(err.msg, path);
        CHECK_CONTAINS(err.msg, want);
        err.msg[0] = '\0';
        CHECK_INT(ng_file_check(path, 0, &err), -1);
        CHECK_CONTAINS(err.msg, want);
    }
    CHECK(ng_file_sink_new("", 0, &err) == NULL);
    CHECK_CONTAINS(err.msg, "empty file name");
    CHECK_INT(count_entries(tmpdir, ""), 0);
}

/* Every extension ng_file_formats() names is one the sink takes. */
static void test_formats_listed_are_written(void)
{
    char list[64], *ext, *save = NULL;
    int n = 0;
    snprintf(list, sizeof list, "%s", ng_file_formats());
    for (ext = strtok_r(list, ", ", &save); ext; ext = strtok_r(NULL, ", ", &save), n++) {
        char path[PATHLEN];
        ng_error err = {{0}};
        pathf(path, "%s/x%s", tmpdir, ext);
        CHECKF(ng_file_check(path, 0, &err) == 0, "%s: %s", ext, err.msg);
    }
    CHECK_INT(n, 10);
}

/* Every format of the table: one stitch reads back (ng_tile_readable)
 * gives its tile back so that stitching it into the same format writes
 * the same bytes; a tile of one it does not read is refused, and the
 * message names exactly the readable ones. A format added with a reader
 * is checked here before anyone writes its own test. */
static void test_formats_read_back(void)
{
    char list[64], *ext, *save = NULL, other[PATHLEN];
    const char *readable;
    float img[W * H];
    ng_stitch_tile t = {other, 0, 0, W, H};
    ng_error none = {{0}};
    size_t k;
    int ch, bits, nreaders = 0;
    for (k = 0; k < W * H; k++) img[k] = (float)(hash((uint32_t)k) >> 8) / 16777216.0f;
    tpath(other, "tile.bmp");
    CHECK_INT(ng_tile_probe(&t, W, H, &ch, &bits, &none), -1);
    readable = strstr(none.msg, "(tiles are ");
    CHECKF(readable != NULL, "no list of readable formats: %s", none.msg);
    snprintf(list, sizeof list, "%s", ng_file_formats());
    for (ext = strtok_r(list, ", ", &save); ext && readable; ext = strtok_r(NULL, ", ", &save)) {
        char tile[PATHLEN], back[PATHLEN];
        ng_error err = {{0}};
        ng_file_sink *f;
        ng_sink s;
        pathf(tile, "%s/tile%s", tmpdir, ext);
        pathf(back, "%s/back%s", tmpdir, ext);
        t.path = tile;
        CHECKF((strstr(readable, ext) != NULL) == ng_tile_readable(tile), "%s: listed as readable: %s", ext, readable);
        if (!ng_tile_readable(tile)) {
            CHECK_INT(ng_tile_probe(&t, W, H, &ch, &bits, &err), -1);
            CHECK_CONTAINS(err.msg, "no reader");
            continue;
        }
        nreaders++;
        CHECKF(write_image(tile, 0, W, H, 1, img, bands, NBANDS, &err) == 0, "%s: %s", ext, err.msg);
        CHECKF(ng_tile_probe(&t, W, H, &ch, &bits, &err) == 0 && ch == 1, "%s: %s", ext, err.msg);
        if ((f = ng_file_sink_new(back, 0, &err))) {
            s = ng_file_sink_as_sink(f);
            CHECKF(ng_stitch(&t, 1, W, H, &s, &err) == 0, "%s: %s", ext, err.msg);
            ng_file_sink_free(f);
        }
        CHECKF(same_bytes(tile, back), "%s: read back and written again, other bytes", ext);
        unlink(tile);
        unlink(back);
    }
    CHECK_INT(nreaders, 5); /* .png, .pfm, .r16, .raw, .exr */
}

/* 0 is each format's default; any other depth must be one it has. */
static void test_bits_per_format(void)
{
    static const struct {
        const char *name;
        int bits, ok;
        const char *msg;
    } cases[] = {
        {"b.png", 0, 1, NULL},  {"b.png", 8, 1, NULL},  {"b.png", 16, 1, NULL},
        {"b.png", 32, 0, "PNG bits must be 8 or 16, not 32"},
        {"b.pfm", 0, 1, NULL},  {"b.pfm", 32, 1, NULL},
        {"b.pfm", 8, 0, "PFM bits must be 32, not 8"},
        {"b.pfm", 16, 0, "PFM bits must be 32, not 16"},
        {"b.r16", 0, 1, NULL},  {"b.r16", 16, 1, NULL}, {"b.raw", 16, 1, NULL},
        {"b.r16", 8, 0, "raw heightmap bits must be 16, not 8"},
        {"b.raw", 32, 0, "raw heightmap bits must be 16, not 32"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[PATHLEN];
        ng_error err = {{0}};
        ng_file_sink *f;
        tpath(path, cases[i].name);
        f = ng_file_sink_new(path, cases[i].bits, &err);
        CHECKF((f != NULL) == cases[i].ok, "%s --bits %d: %s", cases[i].name, cases[i].bits, err.msg);
        CHECK_INT(ng_file_check(path, cases[i].bits, &err), cases[i].ok ? 0 : -1);
        if (cases[i].msg) {
            CHECK_CONTAINS(err.msg, path);
            CHECK_CONTAINS(err.msg, cases[i].msg);
        }
        ng_file_sink_free(f);
    }
    CHECK_INT(count_entries(tmpdir, ""), 0); /* checking creates nothing */
}

/* ---- the program -------------------------------------------------------------------- */

/* The same script to .r16, 16-bit .png and .pfm: one image three ways.
 * r16 and PNG hold the same integers; the PFM, clamped and rounded the
 * same way, gives them too, so its rows are in the right order. */
static void test_cli_pfm_r16(void)
{
    char s[PATHLEN], pf[PATHLEN], r16[PATHLEN], png16[PATHLEN];
    res r;
    pfm p;
    size_t n;
    unsigned char *raw;
    uint16_t *px;
    int w = 0, h = 0, k, bad = 0;
    mkscript(s, "files.lua", "return ng.perlin{element_size = 8}:fit(-1, 1, -1, 2)\n");
    tpath(pf, "files.pfm");
    tpath(r16, "files.r16");
    tpath(png16, "files.png");
    cli(&r, "render", s, "-o", pf, "--size", "24x16", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", r16, "--size", "24x16", "--tile", "8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", png16, "--size", "24x16", "--bits", "16", NULL);
    EXPECT_OK(&r);
    res_free(&r);

    CHECK_INT(read_pfm(pf, &p), 0);
    CHECK_INT(p.channels, 1);
    CHECK_INT(p.w, 24);
    CHECK_INT(p.h, 16);
    CHECK(p.scale < 0);
    raw = slurp(r16, &n);
    CHECK_INT(n, 24 * 16 * 2);
    px = decode(png16, PNG_FORMAT_LINEAR_Y, &w, &h);
    CHECK(px && w == 24 && h == 16);
    if (p.px && raw && n == 24 * 16 * 2 && px) {
        int outside = 0;
        for (k = 0; k < 24 * 16; k++) {
            float v = p.px[k];
            unsigned q = (unsigned)((double)(v > 1 ? 1 : v > 0 ? v : 0) * 65535.0 + 0.5);
            unsigned got = raw[2 * k] | (unsigned)raw[2 * k + 1] << 8;
            if ((got != q || px[k] != q) && bad++ < 5)
                ng_t_fail(__FILE__, __LINE__, "pixel %d: r16 %u, png %u, pfm %.9g", k, got, px[k], v);
            outside += v < 0 || v > 1;
        }
        CHECK(outside > 0); /* the PFM kept what the others clamped */
    }
    CHECK_INT(bad, 0);
    free(p.px);
    free(raw);
    free(px);
}

static void test_cli_rgb_and_errors(void)
{
    char s[PATHLEN], v[PATHLEN], o[PATHLEN], r16[PATHLEN];
    res r;
    pfm p;
    mkscript(s, "files_err.lua", "return ng.perlin{}\n");
    mkscript(v, "files_vec.lua", "return ng.perlin{output = \"vector\"}\n");

    /* a vector output is an RGB PFM */
    tpath(o, "vec.pfm");
    cli(&r, "render", v, "-o", o, "--size", "8x4", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK_INT(read_pfm(o, &p), 0);
    CHECK_INT(p.channels, 3);
    free(p.px);

    /* and no heightmap: the old file stays */
    tpath(r16, "vec.r16");
    put_file(r16, precious);
    cli(&r, "render", v, "-o", r16, "--size", "8", NULL);
    EXPECT_ERR(&r, 1, r16, "raw heightmaps are grey only");
    res_free(&r);
    check_kept(r16);

    /* depths the format does not have are usage errors, before the script runs */
    tpath(o, "x.pfm");
    cli(&r, "render", s, "-o", o, "--bits", "16", NULL);
    EXPECT_ERR(&r, 2, o, "PFM bits must be 32, not 16");
    res_free(&r);
    CHECK(!exists(o));
    tpath(o, "x.r16");
    cli(&r, "render", s, "-o", o, "--bits", "8", NULL);
    EXPECT_ERR(&r, 2, o, "raw heightmap bits must be 16, not 8");
    res_free(&r);
    tpath(o, "x.png");
    cli(&r, "render", s, "-o", o, "--bits", "32", NULL);
    EXPECT_ERR(&r, 2, o, "PNG bits must be 8 or 16, not 32");
    res_free(&r);
    cli(&r, "render", s, "-o", o, "--bits", "24", NULL);
    EXPECT_ERR(&r, 2, "--bits", "'24'", "8, 16 or 32");
    res_free(&r);
    tpath(o, "x.bmp");
    cli(&r, "render", s, "-o", o, NULL);
    EXPECT_ERR(&r, 2, o, "unknown image format", ".png, .pfm, .r16, .raw, .vdb, .nrrd, .exr, .tif, .tiff, .r32");
    res_free(&r);
    CHECK_INT(count_entries(tmpdir, "x."), 0);
}

/* ---- the note when a format clamped an output ------------------------------------ */

/* A signed noise to PNG loses its lower half: one line says so, naming the
 * file and the share. Not for a unit range, a float format, or --quiet. */
static void test_clamped_note(void)
{
    char s[PATHLEN], u[PATHLEN], out[PATHLEN], pf[PATHLEN], r16[PATHLEN];
    res r;
    mkscript(s, "signed.lua", "return ng.perlin{}\n");
    mkscript(u, "unit.lua", "return ng.perlin{range = \"unit\"}\n");
    tpath(out, "signed.png");
    tpath(pf, "signed.pfm");
    tpath(r16, "signed.r16");
    cli(&r, "render", s, "-o", out, "--size", "64", NULL);
    CHECK_INT(r.code, 0);
    CHECK_INT(count_lines(r.err), 1);
    CHECK_CONTAINS(r.err, "noisegraph: ");
    CHECK_CONTAINS(r.err, "signed.png: ");
    CHECK_CONTAINS(r.err, " % of the samples were outside [0, 1] and were clamped (use fit/range = \"unit\", "
                          "or a float format: .pfm, .nrrd, .vdb)");
    CHECK(exists(out));
    res_free(&r);
    cli(&r, "render", s, "-o", r16, "--size", "64", NULL);
    CHECK_INT(r.code, 0);
    CHECK_CONTAINS(r.err, "signed.r16: ");
    CHECK_CONTAINS(r.err, "were clamped");
    res_free(&r);
    cli(&r, "render", s, "-o", out, "--size", "64", "--quiet", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", pf, "--size", "64", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    cli(&r, "render", u, "-o", out, "--size", "64", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
}

/* More than 1 %: 1 sample in 100 is quiet, 2 are a note saying 2 %; each
 * output of several is counted on its own. */
static void test_clamped_note_threshold(void)
{
    char s[PATHLEN], out[PATHLEN];
    res r;
    tpath(out, "ramp.png");
    mkscript(s, "one.lua", "return (ng.x() - 1) / 100\n");
    cli(&r, "render", s, "-o", out, "--size", "100x3", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    mkscript(s, "two.lua", "return {a = (ng.x() - 1) / 100, b = (ng.x() - 2) / 100}\n");
    cli(&r, "render", s, "-o", out, "--size", "100x3", NULL);
    CHECK_INT(r.code, 0);
    CHECK_INT(count_lines(r.err), 1);
    CHECK_CONTAINS(r.err, "ramp-b.png: 2 % of the samples");
    res_free(&r);
}

NG_SUITE(files, fast)
{
    int have_cli = cli_setup("ng-files") == 0;
    if (!have_cli) { /* suite_cli reports the missing program; the sink tests still run */
        pathf(tmpdir, "/tmp/ng-files-XXXXXX");
        if (!mkdtemp(tmpdir)) {
            perror("suite_files: mkdtemp");
            return;
        }
    }
    RUN(test_pfm_grey_exact);
    RUN(test_pfm_rgb_exact);
    RUN(test_pfm_header_text);
    RUN(test_raw16_bytes);
    RUN(test_raw16_grey_only);
    RUN(test_failed_render_keeps_target);
    RUN(test_write_failure_keeps_target);
    RUN(test_unknown_extension);
    RUN(test_formats_listed_are_written);
    RUN(test_bits_per_format);
    RUN(test_formats_read_back);
    if (have_cli) {
        RUN(test_cli_pfm_r16);
        RUN(test_cli_rgb_and_errors);
        RUN(test_clamped_note);
        RUN(test_clamped_note_threshold);
    }
    cli_teardown();
}
