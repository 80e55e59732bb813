/*
 * test_exr.c — .exr output read back through OpenEXR's own C library
 * (OpenEXRCore), the way a DCC reads it: values against the same render
 * as a PFM (float: bit for bit; half: the nearest half), scanlines and
 * tiles, every compression, RGB, the data window of a region and the
 * world placement attributes, the same bytes for any thread count, and
 * the usage errors of its options.
 */
#include "cli_support.h"

#include <openexr.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading back ---------------------------------------------------------------- */

/* A PFM's samples, top row first (the file stores them bottom up). */
static float *read_pfm(const char *path, int *w, int *h, int *nch)
{
    size_t len;
    unsigned char *d = slurp(path, &len);
    char kind[3] = "";
    int off = 0, x, y;
    float *v;
    if (!d || sscanf((char *)d, "%2s %d %d -1.0%n", kind, w, h, &off) != 3 || !off) {
        free(d);
        return NULL;
    }
    *nch = kind[1] == 'F' ? 3 : 1;
    off++; /* the newline after the scale */
    v = malloc((size_t)*w * *h * *nch * sizeof *v);
    for (y = 0; y < *h; y++)
        for (x = 0; x < *w * *nch; x++)
            memcpy(&v[(size_t)y * *w * *nch + x], d + off + 4 * ((size_t)(*h - 1 - y) * *w * *nch + x), 4);
    free(d);
    return v;
}

typedef struct exr_read {
    int x0, y0, w, h, nch;   /* data window */
    int dx1, dy1;            /* display window's max */
    int half;                /* stored as half */
    int tiled, tile;
    exr_compression_t comp;
    float *f;                /* w * h * nch floats, interleaved (R, G, B or the one channel) */
    uint16_t *hbits;         /* the halves as stored (half files) */
    char name[64];           /* the first channel's name */
    int has_origin;
    double origin[2], pixel;
} exr_read;

static int chan_index(const char *name, int nch)
{
    if (nch == 1) return 0;
    return name[0] == 'R' ? 0 : name[0] == 'G' ? 1 : 2;
}

/* Decodes one chunk into r->f (as float) and r->hbits (as stored, half files). */
static int read_chunk(exr_context_t ctx, const exr_chunk_info_t *ci, int px, int py, exr_read *r)
{
    exr_decode_pipeline_t dec = EXR_DECODE_PIPELINE_INITIALIZER;
    int pass, i, ok = 1;
    for (pass = 0; pass < (r->half ? 2 : 1) && ok; pass++) {
        if (exr_decoding_initialize(ctx, 0, ci, &dec)) return 0;
        for (i = 0; i < dec.channel_count; i++) {
            exr_coding_channel_info_t *c = &dec.channels[i];
            const int k = chan_index(c->channel_name, r->nch);
            const size_t at = ((size_t)(py - r->y0) * r->w + (size_t)(px - r->x0)) * r->nch + (size_t)k;
            if (pass == 0) {
                c->decode_to_ptr = (uint8_t *)(r->f + at);
                c->user_bytes_per_element = 4;
                c->user_data_type = EXR_PIXEL_FLOAT;
                c->user_pixel_stride = 4 * r->nch;
                c->user_line_stride = 4 * r->nch * r->w;
            } else {
                c->decode_to_ptr = (uint8_t *)(r->hbits + at);
                c->user_bytes_per_element = 2;
                c->user_data_type = EXR_PIXEL_HALF;
                c->user_pixel_stride = 2 * r->nch;
                c->user_line_stride = 2 * r->nch * r->w;
            }
        }
        ok = !exr_decoding_choose_default_routines(ctx, 0, &dec) && !exr_decoding_run(ctx, 0, &dec);
        exr_decoding_destroy(ctx, &dec);
    }
    return ok;
}

static int read_exr(const char *path, exr_read *r)
{
    exr_context_t ctx;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    exr_attr_box2i_t dw, disp;
    const exr_attr_chlist_t *ch;
    exr_storage_t st;
    exr_attr_v2d_t o;
    int ok = 1, y, x, lines;
    memset(r, 0, sizeof *r);
    if (exr_start_read(&ctx, path, &init)) return 0;
    exr_get_data_window(ctx, 0, &dw);
    exr_get_display_window(ctx, 0, &disp);
    exr_get_channels(ctx, 0, &ch);
    exr_get_storage(ctx, 0, &st);
    exr_get_compression(ctx, 0, &r->comp);
    r->x0 = dw.min.x, r->y0 = dw.min.y;
    r->w = dw.max.x - dw.min.x + 1, r->h = dw.max.y - dw.min.y + 1;
    r->dx1 = disp.max.x, r->dy1 = disp.max.y;
    r->nch = ch->num_channels;
    r->half = ch->entries[0].pixel_type == EXR_PIXEL_HALF;
    snprintf(r->name, sizeof r->name, "%s", ch->entries[0].name.str);
    r->has_origin = exr_attr_get_v2d(ctx, 0, "worldOrigin", &o) == EXR_ERR_SUCCESS &&
                    exr_attr_get_double(ctx, 0, "worldPixelSize", &r->pixel) == EXR_ERR_SUCCESS;
    r->origin[0] = o.x, r->origin[1] = o.y;
    r->f = calloc((size_t)r->w * r->h * r->nch, sizeof *r->f);
    r->hbits = calloc((size_t)r->w * r->h * r->nch, sizeof *r->hbits);
    r->tiled = st == EXR_STORAGE_TILED;
    if (r->tiled) {
        uint32_t tx, ty;
        exr_tile_level_mode_t lm;
        exr_tile_round_mode_t rm;
        exr_get_tile_descriptor(ctx, 0, &tx, &ty, &lm, &rm);
        r->tile = (int)tx;
        for (y = 0; y * r->tile < r->h && ok; y++)
            for (x = 0; x * r->tile < r->w && ok; x++) {
                exr_chunk_info_t ci;
                ok = !exr_read_tile_chunk_info(ctx, 0, x, y, 0, 0, &ci) &&
                     read_chunk(ctx, &ci, r->x0 + x * r->tile, r->y0 + y * r->tile, r);
            }
    } else {
        exr_get_scanlines_per_chunk(ctx, 0, &lines);
        for (y = r->y0; y < r->y0 + r->h && ok; y += lines) {
            exr_chunk_info_t ci;
            ok = !exr_read_scanline_chunk_info(ctx, 0, y, &ci) && read_chunk(ctx, &ci, r->x0, ci.start_y, r);
        }
    }
    exr_finish(&ctx);
    return ok;
}

static void exr_read_free(exr_read *r)
{
    free(r->f);
    free(r->hbits);
}

/* The nearest half (ties to even) of a finite float, as bits: the
 * reference a half file must hold. */
static uint16_t half_of(float f)
{
    uint32_t b, sign, mant;
    int e;
    memcpy(&b, &f, 4);
    sign = b >> 16 & 0x8000u;
    e = (int)(b >> 23 & 0xff) - 127 + 15;
    mant = b & 0x7fffffu;
    if ((b & 0x7fffffffu) == 0) return (uint16_t)sign;
    if (e >= 31) return (uint16_t)(sign | 0x7c00u); /* overflow: infinity */
    if (e <= 0) { /* a subnormal half (or zero) */
        uint32_t m = mant | 0x800000u, shift = (uint32_t)(14 - e), q, rest, halfway;
        if (shift > 24) return (uint16_t)sign;
        q = m >> shift, rest = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (q & 1))) q++;
        return (uint16_t)(sign | q);
    }
    {
        uint32_t q = (uint32_t)e << 10 | mant >> 13, rest = mant & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (q & 1))) q++; /* may carry into the exponent: right */
        return (uint16_t)(sign | q);
    }
}

/* ---- the tests ---------------------------------------------------------------------- */

/* Signed values, values above 1 and fine detail: nothing clamped, every bit kept. */
#define SCRIPT "return ng.perlin{element_size = 7}:fit(-1, 1, -3, 40) + ng.x() * 0.001\n"

static int samples_equal(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

static void exr_float_every_layout(void)
{
    static const char *const comp[] = {"zip", "piz", "none", "zips", "rle"};
    static const exr_compression_t want[] = {EXR_COMPRESSION_ZIP, EXR_COMPRESSION_PIZ, EXR_COMPRESSION_NONE,
                                             EXR_COMPRESSION_ZIPS, EXR_COMPRESSION_RLE};
    static const char *const tiles[] = {NULL, "16", "50"};
    char s[PATHLEN], pfm[PATHLEN], out[PATHLEN];
    int w, h, nch, c, t;
    float *ref;
    res r;
    mkscript(s, "exr_f.lua", SCRIPT);
    tpath(pfm, "exr_f.pfm");
    cli(&r, "render", s, "-o", pfm, "--size", "123x77", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    ref = read_pfm(pfm, &w, &h, &nch);
    CHECK(ref != NULL);
    if (!ref) return;
    for (c = 0; c < (int)(sizeof comp / sizeof comp[0]); c++)
        for (t = 0; t < 3; t++) {
            exr_read e;
            pathf(out, "%s/exr_f_%s_%s.exr", tmpdir, comp[c], tiles[t] ? tiles[t] : "scan");
            if (tiles[t]) cli(&r, "render", s, "-o", out, "--size", "123x77", "--exr-compression", comp[c], "--exr-tiles", tiles[t], NULL);
            else cli(&r, "render", s, "-o", out, "--size", "123x77", "--exr-compression", comp[c], NULL);
            EXPECT_SILENT(&r);
            res_free(&r);
            CHECKF(read_exr(out, &e), "%s does not read back", out);
            CHECK_INT(e.w, 123);
            CHECK_INT(e.h, 77);
            CHECK_INT(e.nch, 1);
            CHECK_INT(e.half, 0);
            CHECK_INT(e.comp, want[c]);
            CHECK_INT(e.tiled, tiles[t] != NULL);
            CHECK_STR(e.name, "Y");
            CHECKF(samples_equal(e.f, ref, (size_t)w * h), "%s: samples differ from the PFM", out);
            exr_read_free(&e);
        }
    free(ref);
}

static void exr_half_is_nearest(void)
{
    static const char *const comp[] = {"zip", "piz", "none", "zips", "rle"};
    char s[PATHLEN], pfm[PATHLEN], out[PATHLEN];
    int w, h, nch, c, tiled;
    float *ref;
    res r;
    mkscript(s, "exr_h.lua", SCRIPT);
    tpath(pfm, "exr_h.pfm");
    cli(&r, "render", s, "-o", pfm, "--size", "90x61", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    ref = read_pfm(pfm, &w, &h, &nch);
    if (!ref) return;
    for (c = 0; c < (int)(sizeof comp / sizeof comp[0]); c++)
        for (tiled = 0; tiled < 2; tiled++) {
            exr_read e;
            size_t i, bad = 0;
            pathf(out, "%s/exr_h_%s_%d.exr", tmpdir, comp[c], tiled);
            if (tiled) cli(&r, "render", s, "-o", out, "--size", "90x61", "--bits", "16", "--exr-compression", comp[c], "--exr-tiles", "32", NULL);
            else cli(&r, "render", s, "-o", out, "--size", "90x61", "--bits", "16", "--exr-compression", comp[c], NULL);
            EXPECT_SILENT(&r);
            res_free(&r);
            CHECKF(read_exr(out, &e), "%s does not read back", out);
            CHECK_INT(e.half, 1);
            for (i = 0; i < (size_t)w * h; i++) bad += e.hbits[i] != half_of(ref[i]);
            CHECKF(bad == 0, "%s: %zu of %d halves are not the nearest to the float", out, bad, w * h);
            exr_read_free(&e);
        }
    free(ref);
}

static void exr_rgb_channels(void)
{
    char s[PATHLEN], pfm[PATHLEN], out[PATHLEN];
    int w, h, nch;
    float *ref;
    exr_read e;
    res r;
    mkscript(s, "exr_rgb.lua", "return ng.perlin{output = \"vector\", element_size = 9} * 3\n");
    tpath(pfm, "exr_rgb.pfm");
    tpath(out, "exr_rgb.exr");
    cli(&r, "render", s, "-o", pfm, "--size", "40x30", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", out, "--size", "40x30", "--exr-tiles", "16", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    ref = read_pfm(pfm, &w, &h, &nch);
    CHECK_INT(nch, 3);
    CHECK(read_exr(out, &e));
    CHECK_INT(e.nch, 3);
    if (ref && e.f && e.nch == 3) CHECKF(samples_equal(e.f, ref, (size_t)w * h * 3), "RGB samples differ (channel order?)");
    exr_read_free(&e);
    free(ref);
}

/* A region is the full image's window: its data window is where it is in
 * the full image, and its samples are the full render's there. */
static void exr_region_data_window(void)
{
    char s[PATHLEN], full[PATHLEN], part[PATHLEN];
    exr_read a, b;
    int y;
    res r;
    mkscript(s, "exr_reg.lua", SCRIPT);
    tpath(full, "exr_full.exr");
    tpath(part, "exr_part.exr");
    cli(&r, "render", s, "-o", full, "--size", "200x150", "--origin", "1000,-50", "--pixel-size", "0.25", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", part, "--size", "200x150", "--region", "64,32,100,90", "--origin", "1000,-50",
        "--pixel-size", "0.25", "--exr-tiles", "32", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    CHECK(read_exr(full, &a));
    CHECK(read_exr(part, &b));
    CHECK_INT(b.x0, 64);
    CHECK_INT(b.y0, 32);
    CHECK_INT(b.w, 100);
    CHECK_INT(b.h, 90);
    CHECK_INT(b.dx1, 199);
    CHECK_INT(b.dy1, 149);
    CHECK(b.has_origin);
    CHECK_NEAR(b.origin[0], 1000, 0);
    CHECK_NEAR(b.origin[1], -50, 0);
    CHECK_NEAR(b.pixel, 0.25, 0);
    if (a.f && b.f && b.w == 100)
        for (y = 0; y < 90; y++)
            CHECKF(samples_equal(b.f + (size_t)y * 100, a.f + (size_t)(y + 32) * 200 + 64, 100),
                   "row %d of the region differs from the full image's", y);
    exr_read_free(&a);
    exr_read_free(&b);
}

/* The file's bytes do not depend on how many threads rendered or encoded it. */
static void exr_same_bytes_any_threads(void)
{
    char s[PATHLEN], a[PATHLEN], b[PATHLEN];
    const char *threads[] = {"2", "3"};
    int i, tiled;
    res r;
    mkscript(s, "exr_thr.lua", SCRIPT);
    for (tiled = 0; tiled < 2; tiled++) {
        pathf(a, "%s/exr_thr1_%d.exr", tmpdir, tiled);
        if (tiled) cli(&r, "render", s, "-o", a, "--size", "300x700", "--threads", "1", "--exr-tiles", "64", NULL);
        else cli(&r, "render", s, "-o", a, "--size", "300x700", "--threads", "1", NULL);
        EXPECT_SILENT(&r);
        res_free(&r);
        for (i = 0; i < 2; i++) {
            pathf(b, "%s/exr_thr%s_%d.exr", tmpdir, threads[i], tiled);
            if (tiled)
                cli(&r, "render", s, "-o", b, "--size", "300x700", "--threads", threads[i], "--tile", "16", "--exr-tiles", "64", NULL);
            else cli(&r, "render", s, "-o", b, "--size", "300x700", "--threads", threads[i], "--tile", "16", NULL);
            EXPECT_SILENT(&r);
            res_free(&r);
            CHECKF(same_bytes(a, b), "%s differs from %s", b, a);
        }
    }
}

/* OpenEXR's own tool reads the header: the file is what any reader sees. */
static void exr_exrheader_reads_it(void)
{
    char s[PATHLEN], out[PATHLEN], cmd[PATHLEN + 64], text[8192];
    size_t n = 0;
    FILE *p;
    res r;
    mkscript(s, "exr_hdr.lua", "return {height = ng.perlin{}, rock = ng.simplex{}}\n");
    pathf(out, "%s/exr_hdr_{name}.exr", tmpdir);
    cli(&r, "render", s, "-o", out, "--size", "64x48", "--region", "8,8,32,16", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    tpath(out, "exr_hdr_height.exr");
    snprintf(cmd, sizeof cmd, "/usr/bin/exrheader '%s' 2>&1", out);
    p = popen(cmd, "r");
    CHECK(p != NULL);
    if (!p) return;
    n = fread(text, 1, sizeof text - 1, p);
    text[n] = '\0';
    CHECK_INT(pclose(p), 0);
    /* a named grey output is channel Y, which Blender and Nuke read as
     * grey (issue 26, bug 1: a channel "height" loaded black) */
    CHECKF(strstr(text, "Y, 32-bit floating-point"), "exrheader: %s", text);
    CHECKF(!strstr(text, "height, 32-bit"), "exrheader: %s", text);
    CHECKF(strstr(text, "dataWindow (type box2i): (8 8) - (39 23)"), "exrheader: %s", text);
    CHECKF(strstr(text, "displayWindow (type box2i): (0 0) - (63 47)"), "exrheader: %s", text);
    CHECKF(strstr(text, "worldPixelSize (type double): 1"), "exrheader: %s", text);
}

static void exr_usage_errors(void)
{
    char s[PATHLEN], out[PATHLEN], png[PATHLEN];
    res r;
    mkscript(s, "exr_bad.lua", "return ng.perlin{}\n");
    tpath(out, "exr_bad.exr");
    tpath(png, "exr_bad.png");
    cli(&r, "render", s, "-o", out, "--bits", "8", NULL);
    EXPECT_ERR(&r, 2, "exr_bad.exr", "EXR bits must be 32 or 16, not 8");
    res_free(&r);
    cli(&r, "render", s, "-o", png, "--exr-tiles", "64", NULL);
    EXPECT_ERR(&r, 2, "--exr-tiles", "not PNG");
    res_free(&r);
    cli(&r, "render", s, "-o", out, "--exr-compression", "b44", NULL);
    EXPECT_ERR(&r, 2, "--exr-compression", "'b44'", "zip, zips, piz, rle or none");
    res_free(&r);
    cli(&r, "render", s, "-o", out, "--exr-tiles", "0", NULL);
    EXPECT_ERR(&r, 2, "--exr-tiles");
    res_free(&r);
    CHECK(!exists(out));
    CHECK(!exists(png));
}

/* A ZIP chunk that compresses to exactly its raw size must be stored raw:
 * a reader takes a chunk of its raw size for raw data. This region's rows
 * 64 to 79 are such a chunk (deflate of its 8192 bytes is 8192 bytes);
 * OpenEXRCore 3.1 kept the zlib bytes, which read back as garbage. */
static void exr_tie_sized_chunk_is_raw(void)
{
    static const char *const text =
        "return ng.fbm{source = ng.perlin{element_size = 40, seed = 3}, octaves = 3}:fit(-0.7, 0.7, 0, 1, true)\n";
    char s[PATHLEN], pfm[PATHLEN], out[PATHLEN];
    int w, h, nch;
    float *ref;
    exr_read e;
    res r;
    mkscript(s, "exr_tie.lua", text);
    tpath(pfm, "exr_tie.pfm");
    tpath(out, "exr_tie.exr");
    cli(&r, "render", s, "-o", pfm, "--size", "300x200", "--region", "128,0,128,128", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", out, "--size", "300x200", "--region", "128,0,128,128", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    ref = read_pfm(pfm, &w, &h, &nch);
    CHECK(ref != NULL);
    CHECKF(read_exr(out, &e), "%s does not read back", out);
    CHECK_INT(e.w * e.h, 128 * 128);
    CHECKF(ref && e.f && w * h == e.w * e.h && samples_equal(e.f, ref, (size_t)w * h), "%s: samples differ from the PFM", out);
    exr_read_free(&e);
    free(ref);
}

/* The encoder's bands count against the memory limit: a row of tiles
 * that does not fit it is refused in one line naming the limit, exit 1,
 * nothing written (a 1024-pixel tile row: 24 MiB of floats and buffers
 * against 8 MiB; an 8192 one took 1.35 GB under --memory-limit 64). Under
 * the limit the queue keeps fewer bands, and the file's bytes stay the
 * same. */
static void exr_tile_row_within_memory_limit(void)
{
    char s[PATHLEN], out[PATHLEN], roomy[PATHLEN];
    res r;
    mkscript(s, "exr_mem.lua", "return ng.perlin{element_size = 50}\n");
    tpath(out, "exr_mem.exr");
    tpath(roomy, "exr_mem_roomy.exr");
    cli(&r, "render", s, "-o", out, "--size", "1024", "--exr-tiles", "1024", "--memory-limit", "8", NULL);
    EXPECT_ERR(&r, 1, "exr_mem.exr", "a row of 1024-pixel tiles", "more than the 8 MiB the memory limit leaves it",
               "--exr-tiles");
    res_free(&r);
    CHECK(!exists(out));
    CHECK_INT(count_entries(tmpdir, "exr_mem.exr.tmp"), 0);
    cli(&r, "render", s, "-o", out, "--size", "1024", "--exr-tiles", "1024", "--memory-limit", "30", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", roomy, "--size", "1024", "--exr-tiles", "1024", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(out, roomy));
}

NG_SUITE(exr, full)
{
    if (cli_setup("exr")) return;
    RUN(exr_float_every_layout);
    RUN(exr_half_is_nearest);
    RUN(exr_rgb_channels);
    RUN(exr_region_data_window);
    RUN(exr_same_bytes_any_threads);
    RUN(exr_exrheader_reads_it);
    RUN(exr_usage_errors);
    RUN(exr_tie_sized_chunk_is_raw);
    RUN(exr_tile_row_within_memory_limit);
    cli_teardown();
}
