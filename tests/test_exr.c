/*
 * test_exr.c — .exr output read back through OpenEXR's own C library
 * (OpenEXRCore), the way a DCC reads it: values against the same render
 * as a PFM (float: bit for bit; half: the nearest half), scanlines and
 * tiles, every compression, RGB, the data window of a region and the
 * world placement attributes, the same bytes for any thread count, and
 * the usage errors of its options; several named outputs as layers or
 * parts of one file and mip levels, read by OpenEXRCore, exrheader,
 * exrinfo and OpenImageIO's oiiotool (issue 26).
 */
#include "cli_support.h"

#include <openexr.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

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
    EXPECT_ERR(&r, 2, "--exr-compression", "'b44'", "zip, zips, piz, rle, none, dwaa or dwab");
    res_free(&r);
    cli(&r, "render", s, "-o", out, "--exr-tiles", "0", NULL);
    EXPECT_ERR(&r, 2, "--exr-tiles");
    res_free(&r);
    /* --exr-dwa-level is for dwaa and dwab, 0 to 10000 */
    cli(&r, "render", s, "-o", out, "--exr-dwa-level", "60", NULL);
    EXPECT_ERR(&r, 2, "--exr-dwa-level", "is for --exr-compression dwaa or dwab");
    res_free(&r);
    cli(&r, "render", s, "-o", out, "--exr-compression", "piz", "--exr-dwa-level", "60", NULL);
    EXPECT_ERR(&r, 2, "--exr-dwa-level", "is for --exr-compression dwaa or dwab");
    res_free(&r);
    cli(&r, "render", s, "-o", out, "--exr-compression", "dwaa", "--exr-dwa-level", "-1", NULL);
    EXPECT_ERR(&r, 2, "--exr-dwa-level", "0 to 10000");
    res_free(&r);
    cli(&r, "render", s, "-o", png, "--exr-compression", "dwab", NULL);
    EXPECT_ERR(&r, 2, "--exr-compression", "not PNG");
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

/* ---- layers, parts and mip levels (issue 26) ------------------------------------------- */

/* Decodes chunk ci of part `part` into f (rows of w pixels of n floats)
 * at px, py (from the level's corner): the channels names[0..n-1], each
 * of which the chunk must have. */
static int decode_named(exr_context_t ctx, int part, const exr_chunk_info_t *ci, int px, int py, float *f, int w,
                        const char *const *names, int n)
{
    exr_decode_pipeline_t dec = EXR_DECODE_PIPELINE_INITIALIZER;
    int i, k, found = 0, ok;
    if (exr_decoding_initialize(ctx, part, ci, &dec)) return 0;
    for (i = 0; i < dec.channel_count; i++) {
        exr_coding_channel_info_t *c = &dec.channels[i];
        for (k = 0; k < n && strcmp(c->channel_name, names[k]); k++) {
        }
        c->decode_to_ptr = k < n ? (uint8_t *)(f + ((size_t)py * w + px) * n + k) : NULL;
        found += k < n;
        c->user_bytes_per_element = 4;
        c->user_data_type = EXR_PIXEL_FLOAT;
        c->user_pixel_stride = 4 * n;
        c->user_line_stride = 4 * n * w;
    }
    ok = found == n && !exr_decoding_choose_default_routines(ctx, part, &dec) && !exr_decoding_run(ctx, part, &dec);
    exr_decoding_destroy(ctx, &dec);
    return ok;
}

/* The channels names[0..n-1] of part `part`, mip level `level` (0: the
 * image), of an EXR file, as interleaved floats (malloc'd), its size in
 * *w, *h; NULL when it does not read or lacks one. */
static float *read_level(const char *path, int part, int level, const char *const *names, int n, int *w, int *h)
{
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    exr_context_t ctx;
    exr_storage_t st;
    exr_attr_box2i_t dw;
    exr_chunk_info_t ci;
    float *f = NULL;
    int ok = 1, x, y;
    if (exr_start_read(&ctx, path, &init)) return NULL;
    if (exr_get_storage(ctx, part, &st) || exr_get_data_window(ctx, part, &dw)) ok = 0;
    if (ok && st == EXR_STORAGE_TILED) {
        uint32_t tw, th;
        exr_tile_level_mode_t lm;
        exr_tile_round_mode_t rm;
        ok = !exr_get_tile_descriptor(ctx, part, &tw, &th, &lm, &rm) &&
             !exr_get_level_sizes(ctx, part, level, level, w, h) &&
             (f = calloc((size_t)*w * *h * n, sizeof *f)) != NULL;
        for (y = 0; ok && y * (int)th < *h; y++)
            for (x = 0; ok && x * (int)tw < *w; x++)
                ok = !exr_read_tile_chunk_info(ctx, part, x, y, level, level, &ci) &&
                     decode_named(ctx, part, &ci, x * (int)tw, y * (int)th, f, *w, names, n);
    } else if (ok) {
        int lines = 0;
        *w = dw.max.x - dw.min.x + 1, *h = dw.max.y - dw.min.y + 1;
        ok = level == 0 && !exr_get_scanlines_per_chunk(ctx, part, &lines) &&
             (f = calloc((size_t)*w * *h * n, sizeof *f)) != NULL;
        for (y = dw.min.y; ok && y <= dw.max.y; y += lines)
            ok = !exr_read_scanline_chunk_info(ctx, part, y, &ci) &&
                 decode_named(ctx, part, &ci, 0, ci.start_y - dw.min.y, f, *w, names, n);
    }
    exr_finish(&ctx);
    if (!ok) {
        free(f);
        return NULL;
    }
    return f;
}

/* Level l of an image of n floats a pixel by the rule exr.c documents:
 * each level's sums from the one above's, rows top down and pixels left
 * to right, in double; the mean of the image's pixels under each (the
 * block cut at the right and bottom edges) rounded to float once. */
static float *mip_reference(const float *f0, int w0, int h0, int n, int l, int *w, int *h)
{
    double *sum = malloc((size_t)w0 * h0 * n * sizeof *sum), *next;
    float *out;
    long long side = 1;
    int cw = w0, ch = h0, k, x, y, c;
    for (k = 0; k < w0 * h0 * n; k++) sum[k] = f0[k];
    for (k = 1; k <= l; k++) {
        const int nw = (cw + 1) / 2, nh = (ch + 1) / 2;
        next = calloc((size_t)nw * nh * n, sizeof *next);
        for (y = 0; y < ch; y++)
            for (x = 0; x < cw; x++)
                for (c = 0; c < n; c++)
                    next[((size_t)(y / 2) * nw + x / 2) * n + c] += sum[((size_t)y * cw + x) * n + c];
        free(sum);
        sum = next, cw = nw, ch = nh, side *= 2;
    }
    out = malloc((size_t)cw * ch * n * sizeof *out);
    for (y = 0; y < ch; y++)
        for (x = 0; x < cw; x++) {
            const long long bw = w0 - x * side < side ? w0 - x * side : side;
            const long long bh = h0 - y * side < side ? h0 - y * side : side;
            for (c = 0; c < n; c++)
                out[((size_t)y * cw + x) * n + c] = (float)(sum[((size_t)y * cw + x) * n + c] / (double)(bw * bh));
        }
    free(sum);
    *w = cw, *h = ch;
    return out;
}

/* A script of four named outputs of 1 to 4 channels: a height (grey), a
 * 2D flow (R, G), a normal-like vector (R, G, B) and the hydraulic
 * erosion's four masks (R, G, B, A). */
#define LAYERS_SCRIPT                                                                                     \
    "local h = ng.perlin{element_size = 9}:fit(-1, 1, 0, 1)\n"                                          \
    "return {height = h * 30 - 2, flow = ng.vector{x = h, y = ng.x() * 0.01},\n"                         \
    "        N = ng.perlin{output = \"vector\", element_size = 7},\n"                                    \
    "        masks = ng.hydraulic{source = h, droplets = 0.02, iterations = 4}}\n"

typedef struct layer_want {
    const char *output;
    int n;
    const char *layered[4]; /* its channels in the shared file */
    const char *alone[4];   /* in a file of its own */
} layer_want;

static const layer_want layers[] = {
    {"height", 1, {"height.Y"}, {"Y"}},
    {"flow", 2, {"flow.R", "flow.G"}, {"R", "G"}},
    {"N", 3, {"N.R", "N.G", "N.B"}, {"R", "G", "B"}},
    {"masks", 4, {"masks.R", "masks.G", "masks.B", "masks.A"}, {"R", "G", "B", "A"}},
};
#define NLAYERS (int)(sizeof layers / sizeof layers[0])

static char *tool_output(const char *cmd, int *status)
{
    char *out = NULL;
    *status = shell(cmd, &out);
    return out ? out : strdup("");
}

/* The part of a multi-part file named name, by exrinfo's listing; -1. */
static int part_named(const char *info, const char *name)
{
    char want[96];
    const char *at;
    int k;
    for (k = 0; k < 16; k++) {
        snprintf(want, sizeof want, " part %d: %s\n", k + 1, name);
        if ((at = strstr(info, want))) return k;
    }
    return -1;
}

/* Several named outputs to one .exr: one file (no FILE-name.exr), each
 * output a layer of standard names (NAME.Y; NAME.R, NAME.G (NAME.B,
 * NAME.A)) as exrheader lists them, every layer's samples those of the
 * output written alone (--exr-layout files: the old files, channels Y or
 * R, G, B, A), bit for bit, through OpenEXRCore and through OpenImageIO
 * (oiiotool --ch pulls a layer out). Fails on b152898, whose file per
 * output named its one channel after the output. */
static void exr_layers_standard_names(void)
{
    char s[PATHLEN], lay[PATHLEN], files[PATHLEN], one[PATHLEN], pulled[PATHLEN], cmd[4 * PATHLEN];
    char *text;
    int i, k, st;
    res r;
    mkscript(s, "exr_lay.lua", LAYERS_SCRIPT);
    tpath(lay, "exr_lay.exr");
    tpath(files, "exr_files.exr");
    cli(&r, "render", s, "-o", lay, "--size", "100x70", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    CHECK_INT(count_entries(tmpdir, "exr_lay"), 2); /* the script and the one file */
    cli(&r, "render", s, "-o", files, "--size", "100x70", "--exr-layout", "files", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    CHECK(!exists(files));
    snprintf(cmd, sizeof cmd, "/usr/bin/exrheader '%s' 2>&1", lay);
    text = tool_output(cmd, &st);
    CHECK_INT(st, 0);
    for (i = 0; i < NLAYERS; i++)
        for (k = 0; k < layers[i].n; k++) {
            char line[64];
            snprintf(line, sizeof line, "    %s, 32-bit floating-point", layers[i].layered[k]);
            CHECKF(strstr(text, line), "exrheader lists no channel %s: %s", layers[i].layered[k], text);
        }
    CHECKF(!strstr(text, "    height, ") && !strstr(text, "    Y, "), "exrheader: %s", text);
    free(text);
    for (i = 0; i < NLAYERS; i++) {
        const layer_want *L = &layers[i];
        int w, h, w2, h2, w3, h3;
        float *alone, *layer, *via_oiio;
        pathf(one, "%s/exr_files-%s.exr", tmpdir, L->output);
        pathf(pulled, "%s/exr_pulled_%s.exr", tmpdir, L->output);
        alone = read_level(one, 0, 0, L->alone, L->n, &w, &h);
        layer = read_level(lay, 0, 0, L->layered, L->n, &w2, &h2);
        snprintf(cmd, sizeof cmd, "/usr/bin/oiiotool '%s' --ch %s%s%s%s%s%s%s -d float -o '%s' 2>&1", lay,
                 L->layered[0], L->n > 1 ? "," : "", L->n > 1 ? L->layered[1] : "", L->n > 2 ? "," : "",
                 L->n > 2 ? L->layered[2] : "", L->n > 3 ? "," : "", L->n > 3 ? L->layered[3] : "", pulled);
        text = tool_output(cmd, &st);
        CHECKF(st == 0, "oiiotool: %s", text);
        free(text);
        via_oiio = read_level(pulled, 0, 0, L->layered, L->n, &w3, &h3);
        CHECKF(alone && layer && via_oiio, "%s: a layer does not read back", L->output);
        if (alone && layer && via_oiio) {
            CHECK(w == 100 && h == 70 && w2 == w && h2 == h && w3 == w && h3 == h);
            CHECKF(samples_equal(layer, alone, (size_t)w * h * L->n), "layer %s differs from its output alone",
                   L->output);
            CHECKF(samples_equal(via_oiio, alone, (size_t)w * h * L->n), "oiiotool's layer %s differs", L->output);
        }
        free(alone);
        free(layer);
        free(via_oiio);
    }
}

/* --exr-layout files writes what earlier versions wrote: each output's
 * file is the bytes of that output rendered alone. */
static void exr_files_layout_keeps_old_bits(void)
{
    char s[PATHLEN], files[PATHLEN], each[PATHLEN], alone[PATHLEN];
    int i;
    res r;
    mkscript(s, "exr_old.lua", LAYERS_SCRIPT);
    tpath(files, "exr_old.exr");
    cli(&r, "render", s, "-o", files, "--size", "60x40", "--exr-layout", "files", "--no-provenance", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    for (i = 0; i < NLAYERS; i++) {
        pathf(each, "%s/exr_old-%s.exr", tmpdir, layers[i].output);
        pathf(alone, "%s/exr_alone_%s.exr", tmpdir, layers[i].output);
        cli(&r, "render", s, "--only", layers[i].output, "-o", alone, "--size", "60x40", "--no-provenance", NULL);
        EXPECT_SILENT(&r);
        res_free(&r);
        CHECKF(same_bytes(each, alone), "%s differs from the output rendered alone", each);
    }
}

/* --exr-layout parts: one part per output, named after it (exrinfo, and
 * OpenImageIO's subimages), each part's samples the output's alone, read
 * through OpenEXRCore and pulled out by oiiotool --subimage; scanlines and
 * tiles, the same bytes for any thread count. */
static void exr_parts_named_after_outputs(void)
{
    char s[PATHLEN], parts[PATHLEN], tiled[PATHLEN], again[PATHLEN], one[PATHLEN], pulled[PATHLEN];
    char cmd[4 * PATHLEN], *info, *text;
    int i, st;
    res r;
    mkscript(s, "exr_parts.lua", LAYERS_SCRIPT);
    tpath(parts, "exr_parts.exr");
    tpath(tiled, "exr_parts_tiled.exr");
    tpath(again, "exr_parts_again.exr");
    cli(&r, "render", s, "-o", parts, "--size", "100x70", "--exr-layout", "parts", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", tiled, "--size", "100x70", "--exr-layout", "parts", "--exr-tiles", "32", "--threads",
        "1", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", again, "--size", "100x70", "--exr-layout", "parts", "--exr-tiles", "32", "--threads",
        "3", "--tile", "16", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    CHECK(same_bytes(tiled, again));
    snprintf(cmd, sizeof cmd, "/usr/bin/exrinfo -v '%s' 2>&1", parts);
    info = tool_output(cmd, &st);
    CHECK_INT(st, 0);
    CHECKF(strstr(info, "multipart") && strstr(info, " parts: 4\n"), "exrinfo: %s", info);
    snprintf(cmd, sizeof cmd, "/usr/bin/oiiotool -a --info -v '%s' 2>&1", parts);
    text = tool_output(cmd, &st);
    CHECK_INT(st, 0);
    CHECKF(strstr(text, "4 subimages"), "oiiotool --info: %s", text);
    for (i = 0; i < NLAYERS; i++) {
        const layer_want *L = &layers[i];
        const int part = part_named(info, L->output);
        char name[64];
        int w, h, w2, h2, w3, h3;
        float *alone = NULL, *got, *gott, *via_oiio;
        snprintf(name, sizeof name, "oiio:subimagename: \"%s\"", L->output);
        CHECKF(strstr(text, name), "oiiotool names no subimage %s: %s", L->output, text);
        CHECKF(part >= 0, "exrinfo lists no part %s: %s", L->output, info);
        if (part < 0) continue;
        pathf(one, "%s/exr_one_%s.exr", tmpdir, L->output);
        cli(&r, "render", s, "--only", L->output, "-o", one, "--size", "100x70", NULL);
        EXPECT_SILENT(&r);
        res_free(&r);
        pathf(pulled, "%s/exr_sub_%s.exr", tmpdir, L->output);
        snprintf(cmd, sizeof cmd, "/usr/bin/oiiotool '%s' --subimage %s -d float -o '%s' >/dev/null 2>&1", tiled,
                 L->output, pulled);
        CHECK_INT(shell(cmd, NULL), 0);
        alone = read_level(one, 0, 0, L->alone, L->n, &w, &h);
        got = read_level(parts, part, 0, L->layered, L->n, &w2, &h2);
        gott = read_level(tiled, part, 0, L->layered, L->n, &w2, &h2);
        via_oiio = read_level(pulled, 0, 0, L->layered, L->n, &w3, &h3);
        CHECKF(alone && got && gott && via_oiio, "part %s does not read back", L->output);
        if (alone && got && gott && via_oiio) {
            CHECK(w2 == w && h2 == h && w3 == w && h3 == h);
            CHECKF(samples_equal(got, alone, (size_t)w * h * L->n), "part %s differs", L->output);
            CHECKF(samples_equal(gott, alone, (size_t)w * h * L->n), "tiled part %s differs", L->output);
            CHECKF(samples_equal(via_oiio, alone, (size_t)w * h * L->n), "oiiotool's part %s differs", L->output);
        }
        free(alone);
        free(got);
        free(gott);
        free(via_oiio);
    }
    free(info);
    free(text);
}

/* --exr-mipmap: tiled mip levels down to 1x1, sizes rounded up (150x70:
 * 75x35, 38x18, ...), as exrheader and oiiotool --info -v list them; every
 * level is the box filter exr.c documents (recomputed here from level 0,
 * bit for bit), in layers and in parts, and oiiotool --selectmip reads a
 * level's pixels. */
static void exr_mipmap_levels(void)
{
    static const char *const want_levels = "MIP-map levels: 150x70 75x35 38x18 19x9 10x5 5x3 3x2 2x1 1x1";
    static const char *const want_part_levels = "MIP-map levels: 100x70 50x35 25x18 13x9 7x5 4x3 2x2 1x1";
    char s[PATHLEN], mip[PATHLEN], mparts[PATHLEN], pulled[PATHLEN], one_height[PATHLEN], cmd[4 * PATHLEN], *text;
    int i, l, st;
    res r;
    mkscript(s, "exr_mip.lua", LAYERS_SCRIPT);
    tpath(one_height, "exr_mip_height.exr");
    tpath(mip, "exr_mip.exr");
    tpath(mparts, "exr_mip_parts.exr");
    tpath(pulled, "exr_mip_level2.exr");
    cli(&r, "render", s, "-o", mip, "--size", "150x70", "--exr-mipmap", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", mparts, "--size", "100x70", "--exr-mipmap", "--exr-tiles", "16", "--exr-layout",
        "parts", "--bits", "16", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    cli(&r, "render", s, "--only", "height", "-o", one_height, "--size", "100x70", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    snprintf(cmd, sizeof cmd, "/usr/bin/exrheader '%s' 2>&1", mip);
    text = tool_output(cmd, &st);
    CHECK_INT(st, 0);
    CHECKF(strstr(text, "mip-map") && strstr(text, "tile size 64 by 64 pixels") &&
               strstr(text, "level sizes rounded up"),
           "exrheader: %s", text);
    free(text);
    snprintf(cmd, sizeof cmd, "/usr/bin/oiiotool --info -v '%s' '%s' 2>&1", mip, mparts);
    text = tool_output(cmd, &st);
    CHECK_INT(st, 0);
    CHECKF(strstr(text, want_levels) && strstr(text, want_part_levels), "oiiotool --info -v: %s", text);
    free(text);
    for (i = 0; i < NLAYERS; i++) {
        const layer_want *L = &layers[i];
        int w0, h0;
        float *f0 = read_level(mip, 0, 0, L->layered, L->n, &w0, &h0);
        CHECKF(f0 != NULL, "%s: level 0 does not read", L->output);
        for (l = 1; f0 && l < 9; l++) {
            int w, h, rw, rh;
            float *got = read_level(mip, 0, l, L->layered, L->n, &w, &h);
            float *ref = mip_reference(f0, w0, h0, L->n, l, &rw, &rh);
            CHECKF(got && w == rw && h == rh, "%s: level %d is %dx%d, not %dx%d", L->output, l, w, h, rw, rh);
            if (got && w == rw && h == rh)
                CHECKF(samples_equal(got, ref, (size_t)w * h * L->n), "%s: level %d is not the box filter",
                       L->output, l);
            free(got);
            free(ref);
        }
        free(f0);
    }
    /* a part's levels in a half file of 16-pixel tiles (levels of several
     * tiles, cut at their edges): the nearest halves of the float means */
    {
        const char *const y[1] = {"height.Y"};
        int w0, h0, w = 0, h = 0, rw = 0, rh = 0, w3 = 0, h3 = 0, part;
        float *f0 = NULL, *ref = NULL, *got = NULL, *via_oiio = NULL;
        snprintf(cmd, sizeof cmd, "/usr/bin/oiiotool -a '%s' --subimage height --selectmip 2 -d float -o '%s' "
                                  ">/dev/null 2>&1", mparts, pulled);
        CHECK_INT(shell(cmd, NULL), 0);
        snprintf(cmd, sizeof cmd, "/usr/bin/exrinfo '%s' 2>&1", mparts);
        text = tool_output(cmd, &st);
        if ((part = part_named(text, "height")) >= 0) {
            got = read_level(mparts, part, 2, y, 1, &w, &h);
            f0 = read_level(one_height, 0, 0, (const char *const[]){"Y"}, 1, &w0, &h0);
        }
        ref = f0 ? mip_reference(f0, w0, h0, 1, 2, &rw, &rh) : NULL;
        free(text);
        via_oiio = read_level(pulled, 0, 0, y, 1, &w3, &h3);
        CHECK(ref && got && via_oiio);
        if (ref && got && via_oiio && w == rw && h == rh && w3 == rw && h3 == rh) {
            size_t k, bad = 0;
            for (k = 0; k < (size_t)w * h; k++) bad += half_of(ref[k]) != half_of(got[k]) || got[k] != via_oiio[k];
            CHECKF(bad == 0, "%zu samples of the half level 2 are not the nearest halves, or not oiiotool's", bad);
        }
        free(f0);
        free(ref);
        free(got);
        free(via_oiio);
    }
}

/* A 4-channel output (R, G, B, A) rendered as .exr tiles and stitched
 * with --exr-mipmap is the single render's mip-mapped file, every level
 * (the tile reader takes 2 and 4 channels, as the writer names them). */
static void exr_stitch_rgba_mipmap(void)
{
    static const char *const rgba[4] = {"R", "G", "B", "A"};
    char s[PATHLEN], dir[PATHLEN], pattern[PATHLEN], manifest[PATHLEN], stitched[PATHLEN], single[PATHLEN];
    int l;
    res r;
    mkscript(s, "exr_st.lua",
             "return ng.hydraulic{source = ng.perlin{element_size = 9}:fit(-1, 1, 0, 1), droplets = 0.02, "
             "iterations = 4}\n");
    mksub(dir, "exr_st_tiles");
    pathf(pattern, "%s/t_{x}_{y}.exr", dir);
    pathf(manifest, "%s/manifest.json", dir);
    tpath(stitched, "exr_st.exr");
    tpath(single, "exr_st_single.exr");
    cli(&r, "tiles", s, "--size", "72x40", "--tile-size", "32", "-o", pattern, NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "stitch", manifest, "-o", stitched, "--exr-mipmap", "--exr-tiles", "16", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", single, "--size", "72x40", "--exr-mipmap", "--exr-tiles", "16", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    for (l = 0; l < 7; l++) { /* 72x40 .. 1x1 */
        int w, h, w2, h2;
        float *a = read_level(stitched, 0, l, rgba, 4, &w, &h), *b = read_level(single, 0, l, rgba, 4, &w2, &h2);
        CHECKF(a && b && w == w2 && h == h2 && samples_equal(a, b, (size_t)w * h * 4),
               "level %d of the stitched file differs from the single render's", l);
        free(a);
        free(b);
    }
}

/* The new options are for .exr outputs (and --exr-layout for render):
 * anything else is one line, exit 2, nothing written; --help lists them. */
static void exr_layout_usage_errors(void)
{
    char s[PATHLEN], png[PATHLEN], out[PATHLEN], pattern[PATHLEN];
    res r;
    mkscript(s, "exr_lbad.lua", "return {a = ng.perlin{}, b = ng.simplex{}}\n");
    tpath(pattern, "exr_lbad_{x}_{y}.exr");
    tpath(png, "exr_lbad.png");
    tpath(out, "exr_lbad.exr");
    cli(&r, "render", s, "-o", png, "--exr-layout", "parts", NULL);
    EXPECT_ERR(&r, 2, "--exr-layout", "not PNG");
    res_free(&r);
    cli(&r, "render", s, "-o", png, "--exr-mipmap", NULL);
    EXPECT_ERR(&r, 2, "--exr-mipmap", "not PNG");
    res_free(&r);
    cli(&r, "render", s, "-o", out, "--exr-layout", "multipart", NULL);
    EXPECT_ERR(&r, 2, "--exr-layout", "'multipart'", "layers|parts|files");
    res_free(&r);
    cli(&r, "tiles", s, "-o", pattern, "--size", "64", "--tile-size", "32", "--exr-layout", "parts", NULL);
    EXPECT_ERR(&r, 2, "--exr-layout", "not tiles");
    res_free(&r);
    cli(&r, "render", "--help", NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "--exr-layout layers|parts|files");
    CHECK_CONTAINS(r.out, "--exr-mipmap");
    res_free(&r);
    cli(&r, "stitch", "--help", NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "--exr-mipmap");
    res_free(&r);
    /* what the mip levels and a multi-part file's held parts need counts
     * against the memory limit: refused in one line, nothing left behind */
    cli(&r, "render", s, "-o", out, "--size", "1024", "--exr-mipmap", "--memory-limit", "2", "--threads", "1", NULL);
    EXPECT_ERR(&r, 1, "exr_lbad.exr", "the mip levels of a 1024x1024 image need 3 MiB", "--memory-limit");
    res_free(&r);
    mkscript(s, "exr_lbad.lua", "return {a = ng.perlin{}, b = ng.perlin{output = \"vector\"}}\n");
    cli(&r, "render", s, "-o", out, "--size", "512", "--exr-layout", "parts", "--memory-limit", "2", "--threads", "1",
        NULL);
    EXPECT_ERR(&r, 1, "exr_lbad.exr", "a multi-part file holds its later parts", "--exr-layout layers");
    res_free(&r);
    CHECK(!exists(png));
    CHECK(!exists(out));
    CHECK_INT(count_entries(tmpdir, "exr_lbad-"), 0);
    CHECK_INT(count_entries(tmpdir, "exr_lbad.exr.tmp"), 0);
}

/* ---- DWAA and DWAB: lossy, through OpenEXR's C++ library (issue 26) ------------------ */

/* Smooth noise in [0, 1], and the most a DWA file at OpenEXR's default
 * level (45) may differ from its float render: measured 0.0021 (mean
 * 0.00038) at 256x256, DWAA and DWAB alike, float or half (level 200:
 * 0.0049; level 0: 0.0007); the tolerance is twice the measure. */
#define DWA_SCRIPT "return ng.perlin{element_size = 40}:fit(-1, 1, 0, 1)\n"
#define DWA_TOL 0.004

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static double max_diff(const float *a, const float *b, size_t n)
{
    double m = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        const double d = fabs((double)a[i] - b[i]);
        if (!(d <= m)) m = d; /* NaN too */
    }
    return m;
}

/* Channels names[0..n-1] of a DWA file as oiiotool decodes them
 * (OpenEXRCore 3.1 does not), through a float ZIP copy. */
static float *oiio_read(const char *exr, const char *const *names, int n, int *w, int *h)
{
    char copy[PATHLEN], cmd[3 * PATHLEN], list[128] = "";
    char *text;
    int k, st;
    float *f;
    for (k = 0; k < n; k++) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? "," : "", names[k]);
    pathf(copy, "%s.zip.exr", exr);
    snprintf(cmd, sizeof cmd, "/usr/bin/oiiotool '%s' --ch %s -d float --compression zip -o '%s' 2>&1", exr, list,
             copy);
    text = tool_output(cmd, &st);
    CHECKF(st == 0, "oiiotool: %s", text);
    free(text);
    f = st == 0 ? read_level(copy, 0, 0, names, n, w, h) : NULL;
    remove(copy);
    return f;
}

/* The stats oiiotool --stats prints of a one-channel file: min, max, average. */
static int oiio_stats(const char *path, double *min, double *max, double *avg)
{
    char cmd[2 * PATHLEN], *text, *at;
    int st, ok;
    snprintf(cmd, sizeof cmd, "/usr/bin/oiiotool --stats '%s' 2>&1", path);
    text = tool_output(cmd, &st);
    ok = st == 0 && (at = strstr(text, "Stats Min: ")) && sscanf(at, "Stats Min: %lf", min) == 1 &&
         (at = strstr(text, "Stats Max: ")) && sscanf(at, "Stats Max: %lf", max) == 1 &&
         (at = strstr(text, "Stats Avg: ")) && sscanf(at, "Stats Avg: %lf", avg) == 1;
    CHECKF(ok, "oiiotool --stats: %s", text);
    free(text);
    return ok;
}

/* --exr-compression dwaa and dwab: scanlines and tiles, float and half,
 * named as such (with their level) by exrheader, exrinfo -v and oiiotool
 * --info -v;
 * oiiotool decodes every sample within DWA_TOL of the float render, and
 * its --stats (min, max, average) within DWA_TOL of the render's; a
 * higher --exr-dwa-level makes a smaller file and a larger error; the
 * bytes are the same for 1 and 4 threads; the provenance reads back
 * through noisegraph info. */
static void exr_dwa_lossy_within_tolerance(void)
{
    static const struct {
        const char *comp, *bits, *tiles, *level, *header;
    } cases[] = {
        {"dwaa", "32", NULL, NULL, "dwa, small scanline blocks"},
        {"dwab", "32", "32", NULL, "dwa, medium scanline blocks"},
        {"dwaa", "16", "40", NULL, "dwa, small scanline blocks"},
        {"dwab", "16", NULL, NULL, "dwa, medium scanline blocks"},
        {"dwaa", "32", NULL, "200", "dwa, small scanline blocks"},
    };
    static const char *const y[1] = {"Y"};
    char s[PATHLEN], pfm[PATHLEN], out[PATHLEN], cmd[2 * PATHLEN], want[96];
    double err45 = 0, size45 = 0, rmin, rmax, ravg;
    int w, h, nch, i, st;
    float *ref;
    res r;
    mkscript(s, "exr_dwa.lua", DWA_SCRIPT);
    tpath(pfm, "exr_dwa.pfm");
    cli(&r, "render", s, "-o", pfm, "--size", "150x100", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    ref = read_pfm(pfm, &w, &h, &nch);
    if (!ref || !oiio_stats(pfm, &rmin, &rmax, &ravg)) {
        free(ref);
        CHECK(0);
        return;
    }
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        const char *argv[16];
        double min, max, avg, err;
        int n = 0, w2, h2;
        float *got;
        char *text;
        pathf(out, "%s/exr_dwa_%d.exr", tmpdir, i);
        argv[n++] = "render", argv[n++] = s, argv[n++] = "-o", argv[n++] = out, argv[n++] = "--size";
        argv[n++] = "150x100", argv[n++] = "--exr-compression", argv[n++] = cases[i].comp;
        argv[n++] = "--bits", argv[n++] = cases[i].bits;
        if (cases[i].tiles) argv[n++] = "--exr-tiles", argv[n++] = cases[i].tiles;
        if (cases[i].level) argv[n++] = "--exr-dwa-level", argv[n++] = cases[i].level;
        argv[n] = NULL;
        run_argv(&r, DEFAULT_TIMEOUT, argv);
        EXPECT_SILENT(&r);
        res_free(&r);
        snprintf(cmd, sizeof cmd, "/usr/bin/exrheader '%s' 2>&1", out);
        text = tool_output(cmd, &st);
        CHECK_INT(st, 0);
        CHECKF(strstr(text, cases[i].header), "exrheader: %s", text);
        snprintf(want, sizeof want, "dwaCompressionLevel (type float): %s", cases[i].level ? cases[i].level : "45");
        CHECKF(strstr(text, want), "exrheader: %s", text);
        snprintf(want, sizeof want, "Y, %s", cases[i].bits[0] == '1' ? "16-bit floating-point" : "32-bit floating-point");
        CHECKF(strstr(text, want), "exrheader: %s", text);
        CHECKF(strstr(text, "noisegraph_script_sha256 (type string)"), "exrheader: %s", text);
        free(text);
        snprintf(cmd, sizeof cmd, "/usr/bin/exrinfo -v '%s' 2>&1", out);
        text = tool_output(cmd, &st);
        CHECK_INT(st, 0);
        snprintf(want, sizeof want, "compression: compression '%s'", cases[i].comp);
        CHECKF(strstr(text, want), "exrinfo -v: %s", text);
        snprintf(want, sizeof want, "dwaCompressionLevel: float %s", cases[i].level ? cases[i].level : "45");
        CHECKF(strstr(text, want), "exrinfo -v: %s", text);
        free(text);
        snprintf(cmd, sizeof cmd, "/usr/bin/oiiotool --info -v '%s' 2>&1", out);
        text = tool_output(cmd, &st);
        CHECK_INT(st, 0);
        snprintf(want, sizeof want, "compression: \"%s\"", cases[i].comp);
        CHECKF(strstr(text, want), "oiiotool --info -v: %s", text);
        snprintf(want, sizeof want, "openexr:dwaCompressionLevel: %s", cases[i].level ? cases[i].level : "45");
        CHECKF(strstr(text, want), "oiiotool --info -v: %s", text);
        free(text);
        got = oiio_read(out, y, 1, &w2, &h2);
        CHECKF(got && w2 == w && h2 == h, "%s: oiiotool does not read it back", out);
        err = got && w2 == w && h2 == h ? max_diff(got, ref, (size_t)w * h) : 1e9;
        if (!cases[i].level) CHECKF(err <= DWA_TOL, "%s: a sample %g from the float render", out, err);
        if (!cases[i].level) CHECKF(err > 0, "%s: lossless? (DWA is lossy)", out);
        if (i == 0) err45 = err, size45 = (double)file_size(out);
        if (cases[i].level) {
            CHECKF(err > err45 && err < 4 * DWA_TOL, "%s: level 200's error %g against level 45's %g", out, err, err45);
            CHECKF((double)file_size(out) < size45, "%s: level 200 is no smaller than 45", out);
        }
        free(got);
        if (oiio_stats(out, &min, &max, &avg))
            CHECKF(fabs(min - rmin) <= DWA_TOL && fabs(max - rmax) <= DWA_TOL && fabs(avg - ravg) <= DWA_TOL,
                   "%s: oiiotool --stats %g %g %g, the render's %g %g %g", out, min, max, avg, rmin, rmax, ravg);
    }
    /* the bytes do not depend on the threads (Imf's pool) */
    pathf(out, "%s/exr_dwa_t1.exr", tmpdir);
    cli(&r, "render", s, "-o", out, "--size", "150x100", "--exr-compression", "dwaa", "--threads", "1", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    pathf(cmd, "%s/exr_dwa_t4.exr", tmpdir);
    cli(&r, "render", s, "-o", cmd, "--size", "150x100", "--exr-compression", "dwaa", "--threads", "4", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    CHECK(same_bytes(out, cmd));
    pathf(out, "%s/exr_dwa_4.exr", tmpdir); /* level 200's */
    cli(&r, "info", out, NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "noisegraph_script_sha256: ");
    CHECK_CONTAINS(r.out, "--exr-dwa-level 200");
    res_free(&r);
    free(ref);
}

/* The multi-layer default, parts and mip levels with DWA: one file of
 * every output's layers (10 channels), a lossy layer within its tolerance
 * of the lossless file and the masks' A (DWA keeps alpha lossless) equal
 * to it; parts and mip levels as oiiotool --info -v lists them. */
static void exr_dwa_layers_parts_mipmap(void)
{
    static const char *const height[1] = {"height.Y"}, *const alpha[1] = {"masks.A"};
    char s[PATHLEN], lay[PATHLEN], zip[PATHLEN], parts[PATHLEN], mip[PATHLEN], cmd[4 * PATHLEN];
    char *text;
    int st, w, h, w2, h2;
    float *a, *b;
    res r;
    mkscript(s, "exr_dwl.lua", LAYERS_SCRIPT);
    tpath(lay, "exr_dwl.exr");
    tpath(zip, "exr_dwl_zip.exr");
    tpath(parts, "exr_dwl_parts.exr");
    tpath(mip, "exr_dwl_mip.exr");
    cli(&r, "render", s, "-o", lay, "--size", "100x70", "--exr-compression", "dwab", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", zip, "--size", "100x70", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", parts, "--size", "100x70", "--exr-compression", "dwaa", "--exr-layout", "parts",
        "--bits", "16", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", mip, "--size", "100x70", "--exr-compression", "dwaa", "--exr-mipmap", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    CHECK_INT(count_entries(tmpdir, "exr_dwl"), 5); /* the script and four files */
    snprintf(cmd, sizeof cmd, "/usr/bin/oiiotool --info -v '%s' 2>&1", lay);
    text = tool_output(cmd, &st);
    CHECK_INT(st, 0);
    CHECKF(strstr(text, "100 x   70, 10 channel, float openexr") && strstr(text, "compression: \"dwab\""),
           "oiiotool --info -v: %s", text);
    free(text);
    /* height in -2 .. 28: 30 times the noise's range, and its tolerance */
    a = oiio_read(lay, height, 1, &w, &h);
    b = read_level(zip, 0, 0, height, 1, &w2, &h2);
    CHECKF(a && b && w == w2 && h == h2 && max_diff(a, b, (size_t)w * h) <= 30 * DWA_TOL,
           "height.Y of the DWAB layers differs from the lossless file by %g",
           a && b ? max_diff(a, b, (size_t)w * h) : -1.0);
    free(a);
    free(b);
    a = oiio_read(lay, alpha, 1, &w, &h);
    b = read_level(zip, 0, 0, alpha, 1, &w2, &h2);
    CHECKF(a && b && w == w2 && h == h2 && samples_equal(a, b, (size_t)w * h), "masks.A is not kept lossless");
    free(a);
    free(b);
    snprintf(cmd, sizeof cmd, "/usr/bin/oiiotool -a --info -v '%s' '%s' 2>&1", parts, mip);
    text = tool_output(cmd, &st);
    CHECK_INT(st, 0);
    CHECKF(strstr(text, "4 subimages: 100x70 [h,h,h], 100x70 [h,h], 100x70 [h], 100x70 [h,h,h,h]"), "oiiotool: %s", text);
    CHECKF(strstr(text, "MIP-map levels: 100x70 50x35 25x18 13x9 7x5 4x3 2x2 1x1"), "oiiotool: %s", text);
    CHECKF(strstr(text, "compression: \"dwaa\""), "oiiotool: %s", text);
    free(text);
}

/* stitch reads DWA tiles (OpenEXRCore cannot decode them: exr_dwa.cc
 * does), and writes a DWA file itself: within DWA_TOL of the render. */
static void exr_dwa_stitch(void)
{
    static const char *const y[1] = {"Y"};
    char s[PATHLEN], dir[PATHLEN], pattern[PATHLEN], manifest[PATHLEN], stitched[PATHLEN], again[PATHLEN];
    char pfm[PATHLEN];
    int w, h, nch, w2, h2;
    float *ref, *got;
    res r;
    mkscript(s, "exr_dst.lua", DWA_SCRIPT);
    mksub(dir, "exr_dst_tiles");
    pathf(pattern, "%s/t_{x}_{y}.exr", dir);
    pathf(manifest, "%s/manifest.json", dir);
    tpath(stitched, "exr_dst.pfm");
    tpath(again, "exr_dst.exr");
    tpath(pfm, "exr_dst_ref.pfm");
    cli(&r, "tiles", s, "--size", "100x72", "--tile-size", "48", "-o", pattern, "--exr-compression", "dwab", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "stitch", manifest, "-o", stitched, NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "stitch", manifest, "-o", again, "--exr-compression", "dwaa", "--exr-tiles", "16", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", pfm, "--size", "100x72", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    ref = read_pfm(pfm, &w, &h, &nch);
    got = read_pfm(stitched, &w2, &h2, &nch);
    CHECKF(ref && got && w == w2 && h == h2 && max_diff(got, ref, (size_t)w * h) <= DWA_TOL,
           "the stitched DWA tiles differ from the render by %g", ref && got ? max_diff(got, ref, (size_t)w * h) : -1.0);
    free(got);
    got = oiio_read(again, y, 1, &w2, &h2); /* decoded twice: twice the tolerance */
    CHECKF(ref && got && w == w2 && h == h2 && max_diff(got, ref, (size_t)w * h) <= 2 * DWA_TOL,
           "the stitched DWA file differs from the render");
    free(got);
    free(ref);
}

/* A full disk (a file size limit far below the file) while Imf writes a
 * DWA file: one line naming the file and why, exit 1, the file that was
 * there kept and no temporary file left. */
static void exr_dwa_write_failure(void)
{
    char s[PATHLEN], out[PATHLEN];
    struct rlimit old, lim;
    void (*old_handler)(int);
    size_t len = 0;
    unsigned char *kept;
    res r;
    mkscript(s, "exr_dfull.lua", DWA_SCRIPT);
    tpath(out, "exr_dfull.exr");
    put_file(out, "precious");
    if (getrlimit(RLIMIT_FSIZE, &old) != 0) {
        CHECK(!"getrlimit");
        return;
    }
    lim = old;
    lim.rlim_cur = 16 * 1024; /* the file is about 120 KB */
    old_handler = signal(SIGXFSZ, SIG_IGN); /* the child inherits both */
    CHECK_INT(setrlimit(RLIMIT_FSIZE, &lim), 0);
    cli(&r, "render", s, "-o", out, "--size", "512", "--exr-compression", "dwab", "--exr-tiles", "64", NULL);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_handler);
    EXPECT_ERR(&r, 1, "exr_dfull.exr", strerror(EFBIG));
    res_free(&r);
    kept = slurp(out, &len);
    CHECKF(kept && len == 8 && !memcmp(kept, "precious", 8), "the file that was there is not kept");
    free(kept);
    CHECK_INT(count_entries(tmpdir, "exr_dfull.exr.tmp"), 0);
}

/* DWA: a band that does not fit the memory limit is refused (exit 1),
 * nothing written; --help lists the compressions. (Its option errors are
 * exr_usage_errors'.) */
static void exr_dwa_usage_errors(void)
{
    char s[PATHLEN], out[PATHLEN];
    res r;
    mkscript(s, "exr_dbad.lua", "return ng.perlin{}\n");
    tpath(out, "exr_dbad.exr");
    /* a band and Imf's chunk buffers count against the memory limit */
    cli(&r, "render", s, "-o", out, "--size", "4096", "--exr-compression", "dwab", "--memory-limit", "8", "--threads",
        "1", NULL);
    EXPECT_ERR(&r, 1, "exr_dbad.exr", "a band of 256 rows of 4096 pixels needs", "--memory-limit");
    res_free(&r);
    cli(&r, "render", "--help", NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "--exr-compression zip|zips|piz|rle|none|dwaa|dwab");
    CHECK_CONTAINS(r.out, "--exr-dwa-level Q");
    res_free(&r);
    CHECK(!exists(out));
    CHECK_INT(count_entries(tmpdir, "exr_dbad.exr.tmp"), 0);
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
    RUN(exr_layers_standard_names);
    RUN(exr_files_layout_keeps_old_bits);
    RUN(exr_parts_named_after_outputs);
    RUN(exr_mipmap_levels);
    RUN(exr_stitch_rgba_mipmap);
    RUN(exr_layout_usage_errors);
    RUN(exr_dwa_lossy_within_tolerance);
    RUN(exr_dwa_layers_parts_mipmap);
    RUN(exr_dwa_stitch);
    RUN(exr_dwa_usage_errors);
    RUN(exr_dwa_write_failure);
    cli_teardown();
}
