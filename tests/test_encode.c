/*
 * test_encode.c — PNG compression off the critical path (png.c, encq.c):
 * bands deflated apart on encoder threads give the same file bytes for any
 * thread count and tile size, a stream every decoder reads, the samples a
 * PFM of the same render quantizes to, at every --compression level; and
 * the usage errors of --compression.
 */
#include "cli_support.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 2000 pixels wide at 16 bits: 65 rows a band, so 300 rows are 5 bands,
 * the last one short. */
#define SIZE "2000x300"
#define SCRIPT "return ng.perlin{element_size = 40}:fit(-1, 1, -0.1, 1.1)\n"

static void png_same_bytes_any_threads_tiles(void)
{
    static const char *const runs[][2] = {{"1", "64"}, {"2", "64"}, {"3", "64"}, {"2", "16"}, {"3", "16"}};
    char s[PATHLEN], a[PATHLEN], b[PATHLEN];
    const char *bits[] = {"8", "16"};
    size_t i, k;
    res r;
    mkscript(s, "enc_thr.lua", SCRIPT);
    for (k = 0; k < 2; k++) {
        pathf(a, "%s/enc_ref_%s.png", tmpdir, bits[k]);
        cli(&r, "render", s, "-o", a, "--size", SIZE, "--bits", bits[k], "--threads", "1", "--tile", "64", NULL);
        EXPECT_OK(&r);
        res_free(&r);
        for (i = 1; i < sizeof runs / sizeof runs[0]; i++) {
            pathf(b, "%s/enc_%s_%s_%s.png", tmpdir, bits[k], runs[i][0], runs[i][1]);
            cli(&r, "render", s, "-o", b, "--size", SIZE, "--bits", bits[k], "--threads", runs[i][0], "--tile",
                runs[i][1], NULL);
            EXPECT_OK(&r);
            res_free(&r);
            CHECKF(same_bytes(a, b), "%s (threads %s, tile %s) differs from threads 1, tile 64", b, runs[i][0],
                   runs[i][1]);
        }
    }
}

/* A PFM's samples, top row first. */
static float *read_pfm(const char *path, int *w, int *h)
{
    size_t len;
    unsigned char *d = slurp(path, &len);
    int off = 0, y;
    float *v;
    if (!d || sscanf((char *)d, "Pf %d %d -1.0%n", w, h, &off) != 2 || !off) {
        free(d);
        return NULL;
    }
    off++;
    v = malloc((size_t)*w * *h * sizeof *v);
    for (y = 0; y < *h; y++) memcpy(v + (size_t)y * *w, d + off + 4 * (size_t)(*h - 1 - y) * *w, 4 * (size_t)*w);
    free(d);
    return v;
}

/* What the PNG must hold: the sample clamped to [0,1], rounded half up. */
static unsigned quantize(float v, unsigned max)
{
    if (!(v > 0.0f)) v = 0.0f;
    if (v > 1.0f) v = 1.0f;
    return (unsigned)((double)v * max + 0.5);
}

/* Every level decodes, through libpng, to the samples of the render. */
static void png_every_level_decodes(void)
{
    char s[PATHLEN], pfm[PATHLEN], out[PATHLEN], lv[16];
    int w, h, level, pw, ph;
    float *ref;
    res r;
    mkscript(s, "enc_lv.lua", SCRIPT);
    tpath(pfm, "enc_lv.pfm");
    cli(&r, "render", s, "-o", pfm, "--size", SIZE, NULL);
    EXPECT_OK(&r);
    res_free(&r);
    ref = read_pfm(pfm, &pw, &ph);
    CHECK(ref != NULL);
    if (!ref) return;
    for (level = 0; level <= 9; level++) {
        uint16_t *px;
        size_t i, bad = 0;
        snprintf(lv, sizeof lv, "%d", level);
        pathf(out, "%s/enc_lv%d.png", tmpdir, level);
        cli(&r, "render", s, "-o", out, "--size", SIZE, "--bits", "16", "--compression", lv, NULL);
        EXPECT_OK(&r);
        res_free(&r);
        px = decode(out, PNG_FORMAT_LINEAR_Y, &w, &h);
        CHECKF(px != NULL, "level %d does not decode", level);
        if (!px) continue;
        CHECK_INT(w, 2000);
        CHECK_INT(h, 300);
        /* libpng's simplified reader gives 16-bit linear samples as stored */
        for (i = 0; i < (size_t)w * h; i++) bad += px[i] != quantize(ref[i], 65535);
        CHECKF(bad == 0, "level %d: %zu samples differ from the render's", level, bad);
        free(px);
    }
    free(ref);
}

/* 8-bit RGB through the same bands: decodes to the render's samples. */
static void png_rgb8_decodes(void)
{
    char s[PATHLEN], out[PATHLEN], pfm[PATHLEN];
    unsigned char *px;
    int w, h;
    res r;
    mkscript(s, "enc_rgb.lua", "return ng.perlin{output = \"vector\", element_size = 20}:fit(-1, 1, 0, 1)\n");
    tpath(out, "enc_rgb.png");
    tpath(pfm, "enc_rgb.pfm");
    cli(&r, "render", s, "-o", out, "--size", "3001x200", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", pfm, "--size", "3001x200", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    px = decode(out, PNG_FORMAT_RGB, &w, &h);
    CHECK(px != NULL);
    if (px) {
        size_t len, i, bad = 0;
        unsigned char *d = slurp(pfm, &len);
        int off = 0, pw, ph;
        CHECK(d && sscanf((char *)d, "PF %d %d -1.0%n", &pw, &ph, &off) == 2 && off);
        if (d && off) {
            off++;
            for (i = 0; i < (size_t)w * h * 3; i++) {
                size_t y = i / ((size_t)w * 3), rest = i % ((size_t)w * 3);
                float v;
                memcpy(&v, d + off + 4 * ((size_t)(h - 1 - (int)y) * (size_t)w * 3 + rest), 4);
                bad += px[i] != quantize(v, 255);
            }
            CHECKF(bad == 0, "%zu RGB samples differ", bad);
        }
        free(d);
        free(px);
    }
}

static void png_compression_usage_errors(void)
{
    char s[PATHLEN], out[PATHLEN], raw[PATHLEN];
    res r;
    mkscript(s, "enc_bad.lua", "return ng.perlin{}\n");
    tpath(out, "enc_bad.png");
    tpath(raw, "enc_bad.r16");
    cli(&r, "render", s, "-o", out, "--compression", "10", NULL);
    EXPECT_ERR(&r, 2, "--compression", "'10'");
    res_free(&r);
    cli(&r, "render", s, "-o", out, "--compression", "-1", NULL);
    EXPECT_ERR(&r, 2, "--compression", "'-1'");
    res_free(&r);
    cli(&r, "render", s, "-o", raw, "--compression", "3", NULL);
    EXPECT_ERR(&r, 2, "--compression", "no compression level");
    res_free(&r);
    CHECK(!exists(out));
    CHECK(!exists(raw));
}

NG_SUITE(encode, full)
{
    if (cli_setup("encode")) return;
    RUN(png_same_bytes_any_threads_tiles);
    RUN(png_every_level_decodes);
    RUN(png_rgb8_decodes);
    RUN(png_compression_usage_errors);
    cli_teardown();
}
