/*
 * tileread.c — reading tiles back for `noisegraph stitch`: one reader per
 * tile format, found by the file's extension in one table (a new format,
 * EXR, is one more row), and the stitcher that streams a grid of tiles
 * into a sink band by band.
 *
 * Samples come back as the floats that wrote them: an integer sample k of
 * depth max reads as k / (float)max, which the file sink quantizes back to
 * k (ng__quantize), so a stitch of integer tiles into the same format is
 * the single render's bytes; PFM floats come back bit for bit.
 */
#ifndef _GNU_SOURCE
#define _XOPEN_SOURCE 700 /* fseeko */
#endif

#include "tilefile.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

typedef struct reader reader;

/* A format's reader: open checks the header against the size the tile
 * must have; rows reads the next nrows rows (in order) as floats into
 * dst, a row every stride floats. Each returns 0, or -1 with r->what set. */
typedef struct tile_format {
    const char *ext[3]; /* NULL-terminated, matched ignoring case */
    const char *name;
    int (*open)(reader *r);
    int (*rows)(reader *r, int nrows, float *dst, size_t stride);
    void (*close)(reader *r);
} tile_format;

struct reader {
    const tile_format *format;
    const char *path;
    FILE *fp;
    int width, height, channels, next_row;
    /* PNG */
    png_structp png;
    png_infop info;
    int bits;
    /* PFM: where the image starts (rows bottom to top after it) */
    long header_bytes;
    unsigned char *row; /* one file row */
    char what[256];     /* why it failed */
};

static int fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->what, sizeof r->what, fmt, ap);
    va_end(ap);
    return -1;
}

static int wrong_size(reader *r, long w, long h)
{
    return fail(r, "is %ldx%ld; the tile is %dx%d", w, h, r->width, r->height);
}

/* ---- PNG ------------------------------------------------------------------------- */

static void png_error_fn(png_structp png, png_const_charp msg)
{
    reader *r = png_get_error_ptr(png);
    fail(r, "not a readable PNG (%s)", msg);
    png_longjmp(png, 1);
}

static void png_warning_fn(png_structp png, png_const_charp msg) { (void)png, (void)msg; }

static int png_open(reader *r)
{
    png_uint_32 w, h;
    int depth, ctype, interlace;
    unsigned char sig[8];
    if (fread(sig, 1, 8, r->fp) != 8 || png_sig_cmp(sig, 0, 8)) return fail(r, "is not a PNG file");
    r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, png_error_fn, png_warning_fn);
    if (!r->png || !(r->info = png_create_info_struct(r->png))) return fail(r, "out of memory");
    if (setjmp(png_jmpbuf(r->png))) return -1;
    png_set_user_limits(r->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_init_io(r->png, r->fp);
    png_set_sig_bytes(r->png, 8);
    png_read_info(r->png, r->info);
    png_get_IHDR(r->png, r->info, &w, &h, &depth, &ctype, &interlace, NULL, NULL);
    if ((ctype != PNG_COLOR_TYPE_GRAY && ctype != PNG_COLOR_TYPE_RGB) || (depth != 8 && depth != 16) ||
        interlace != PNG_INTERLACE_NONE)
        return fail(r, "is not a tile noisegraph writes (8- or 16-bit grey or RGB, not interlaced)");
    if ((long)w != r->width || (long)h != r->height) return wrong_size(r, (long)w, (long)h);
    r->bits = depth;
    r->channels = ctype == PNG_COLOR_TYPE_RGB ? 3 : 1;
    if (!(r->row = malloc((size_t)r->width * (size_t)r->channels * (size_t)(depth / 8))))
        return fail(r, "out of memory");
    return 0;
}

static int png_rows(reader *r, int nrows, float *dst, size_t stride)
{
    const size_t n = (size_t)r->width * (size_t)r->channels;
    const float max = r->bits == 16 ? 65535.0f : 255.0f;
    int k;
    size_t i;
    if (setjmp(png_jmpbuf(r->png))) return -1;
    for (k = 0; k < nrows; k++) {
        float *out = dst + (size_t)k * stride;
        png_read_row(r->png, r->row, NULL);
        if (r->bits == 16)
            for (i = 0; i < n; i++) out[i] = (float)((unsigned)r->row[2 * i] << 8 | r->row[2 * i + 1]) / max;
        else
            for (i = 0; i < n; i++) out[i] = (float)r->row[i] / max;
    }
    /* the end of the image, its CRCs and IEND: a tile cut short fails here */
    if (r->next_row + nrows == r->height) png_read_end(r->png, NULL);
    return 0;
}

static void png_close(reader *r)
{
    if (r->png) png_destroy_read_struct(&r->png, r->info ? &r->info : NULL, NULL);
}

/* ---- .r16 / .raw: headerless 16-bit little-endian grey ------------------------------ */

static int file_bytes(reader *r, long long *bytes)
{
    struct stat st;
    if (fstat(fileno(r->fp), &st) != 0) return fail(r, "%s", strerror(errno));
    *bytes = (long long)st.st_size;
    return 0;
}

static int r16_open(reader *r)
{
    long long bytes = 0, want = (long long)r->width * r->height * 2;
    if (file_bytes(r, &bytes)) return -1;
    if (bytes != want)
        return fail(r, "holds %lld bytes; a %dx%d 16-bit tile is %lld", bytes, r->width, r->height, want);
    r->channels = 1;
    if (!(r->row = malloc((size_t)r->width * 2))) return fail(r, "out of memory");
    return 0;
}

static int r16_rows(reader *r, int nrows, float *dst, size_t stride)
{
    int k, i;
    for (k = 0; k < nrows; k++) {
        if (fread(r->row, 2, (size_t)r->width, r->fp) != (size_t)r->width) return fail(r, "cannot read it");
        for (i = 0; i < r->width; i++)
            dst[(size_t)k * stride + (size_t)i] = (float)(r->row[2 * i] | (unsigned)r->row[2 * i + 1] << 8) / 65535.0f;
    }
    return 0;
}

/* ---- PFM: little-endian floats, rows bottom to top --------------------------------- */

static int pfm_open(reader *r)
{
    char kind[3] = {0};
    long w, h;
    double scale;
    long long bytes = 0, want;
    if (fscanf(r->fp, "%2s %ld %ld %lf", kind, &w, &h, &scale) != 4 || (strcmp(kind, "Pf") && strcmp(kind, "PF")) ||
        fgetc(r->fp) != '\n')
        return fail(r, "is not a PFM file");
    if (!(scale < 0)) return fail(r, "is a big-endian PFM; noisegraph writes little-endian ones");
    if (w != r->width || h != r->height) return wrong_size(r, w, h);
    r->channels = kind[1] == 'F' ? 3 : 1;
    r->header_bytes = ftell(r->fp);
    want = r->header_bytes + (long long)w * h * 4 * r->channels;
    if (file_bytes(r, &bytes)) return -1;
    if (bytes != want) return fail(r, "holds %lld bytes; a %ldx%ld PFM is %lld", bytes, w, h, want);
    if (!(r->row = malloc((size_t)r->width * (size_t)r->channels * 4))) return fail(r, "out of memory");
    return 0;
}

static int pfm_rows(reader *r, int nrows, float *dst, size_t stride)
{
    const size_t n = (size_t)r->width * (size_t)r->channels;
    int k;
    size_t i;
    for (k = 0; k < nrows; k++) {
        const off_t at = (off_t)r->header_bytes + (off_t)(r->height - 1 - (r->next_row + k)) * (off_t)(n * 4);
        if (fseeko(r->fp, at, SEEK_SET) != 0 || fread(r->row, 4, n, r->fp) != n) return fail(r, "cannot read it");
        for (i = 0; i < n; i++) {
            const uint32_t bits = (uint32_t)r->row[4 * i] | (uint32_t)r->row[4 * i + 1] << 8 |
                                  (uint32_t)r->row[4 * i + 2] << 16 | (uint32_t)r->row[4 * i + 3] << 24;
            memcpy(&dst[(size_t)k * stride + i], &bits, 4);
        }
    }
    return 0;
}

/* ---- the table ------------------------------------------------------------------- */

static const tile_format formats[] = {
    {{".png", NULL}, "PNG", png_open, png_rows, png_close},
    {{".r16", ".raw", NULL}, "16-bit raw", r16_open, r16_rows, NULL},
    {{".pfm", NULL}, "PFM", pfm_open, pfm_rows, NULL},
};

static const tile_format *format_of(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    size_t f, e;
    if (!dot || (slash && dot < slash)) return NULL;
    for (f = 0; f < sizeof formats / sizeof formats[0]; f++)
        for (e = 0; formats[f].ext[e]; e++)
            if (!strcasecmp(dot, formats[f].ext[e])) return &formats[f];
    return NULL;
}

int ng_tile_readable(const char *path) { return format_of(path) != NULL; }

static void reader_close(reader *r)
{
    if (!r) return;
    if (r->format && r->format->close) r->format->close(r);
    if (r->fp) fclose(r->fp);
    free(r->row);
    free(r);
}

/* Opens path as its format, checking it is width x height. NULL with err. */
static reader *reader_open(const char *path, int width, int height, ng_error *err)
{
    reader *r = calloc(1, sizeof *r);
    if (!r) {
        ng_errorf(err, "%s: out of memory", path);
        return NULL;
    }
    r->path = path, r->width = width, r->height = height;
    if (!(r->format = format_of(path))) {
        ng_errorf(err, "%s: no reader for this kind of file (tiles are .png, .r16, .raw or .pfm)", path);
    } else if (!(r->fp = fopen(path, "rb"))) {
        ng_errorf(err, "%s: %s", path, errno == ENOENT ? "missing" : strerror(errno));
    } else if (r->format->open(r) == 0) {
        return r;
    } else {
        ng_errorf(err, "%s: %s", path, r->what);
    }
    reader_close(r);
    return NULL;
}

int ng_tile_probe(const char *path, int width, int height, int *channels, ng_error *err)
{
    reader *r = reader_open(path, width, height, err);
    if (!r) return -1;
    *channels = r->channels;
    reader_close(r);
    return 0;
}

/* ---- stitching ---------------------------------------------------------------------- */

#define BAND_ROWS 32 /* rows read from every tile of a row before they go to the sink */

/* One row of tiles (tiles[0..n), same y and height) into the sink, a band
 * of rows at a time. *begun: the sink's begin ran (with the first tile's
 * channels, into *channels). */
static int stitch_row(const ng_stitch_tile *tiles, int n, int width, int height, ng_sink *sink, int *begun,
                      int *channels, float **band, ng_error *err)
{
    reader **open = calloc((size_t)n, sizeof *open);
    int k, y, rc = -1;
    if (!open) return ng_errorf(err, "stitch: out of memory");
    for (k = 0; k < n; k++) {
        if (!(open[k] = reader_open(tiles[k].path, tiles[k].width, tiles[k].height, err))) goto done;
        if (!*begun) {
            *channels = open[k]->channels;
            if (!(*band = malloc((size_t)width * BAND_ROWS * (size_t)*channels * sizeof **band))) {
                ng_errorf(err, "stitch: out of memory for a band of %d rows", BAND_ROWS);
                goto done;
            }
            if (sink->begin(sink->user, width, height, *channels, err)) goto done;
            *begun = 1;
        }
        if (open[k]->channels != *channels) {
            ng_errorf(err, "%s: has %d channel%s; the first tile has %d", tiles[k].path, open[k]->channels,
                      open[k]->channels == 1 ? "" : "s", *channels);
            goto done;
        }
    }
    for (y = 0; y < tiles[0].height; y += BAND_ROWS) {
        const int nrows = tiles[0].height - y < BAND_ROWS ? tiles[0].height - y : BAND_ROWS;
        for (k = 0; k < n; k++) {
            reader *r = open[k];
            if (r->format->rows(r, nrows, *band + (size_t)tiles[k].x * (size_t)*channels,
                                (size_t)width * (size_t)*channels)) {
                ng_errorf(err, "%s: %s", tiles[k].path, r->what);
                goto done;
            }
            r->next_row += nrows;
        }
        if (sink->rows(sink->user, tiles[0].y + y, nrows, *band, err)) goto done;
    }
    rc = 0;
done:
    for (k = 0; k < n; k++) reader_close(open[k]);
    free(open);
    return rc;
}

int ng_stitch(const ng_stitch_tile *tiles, int ntiles, int width, int height, ng_sink *sink, ng_error *err)
{
    float *band = NULL;
    int begun = 0, channels = 0, first = 0, rc = 0;
    ng_error end_err;
    while (first < ntiles && rc == 0) {
        int n = 1;
        while (first + n < ntiles && tiles[first + n].y == tiles[first].y) n++;
        rc = stitch_row(tiles + first, n, width, height, sink, &begun, &channels, &band, err);
        first += n;
    }
    free(band);
    if (begun && sink->end(sink->user, rc == 0, rc == 0 ? err : &end_err)) rc = -1;
    return rc;
}
