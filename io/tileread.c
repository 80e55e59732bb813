/*
 * tileread.c — reading tiles back for `noisegraph stitch`: one reader per
 * tile format, found by the file's extension in one table (a new format,
 * EXR, is one more row), and the stitcher that streams a grid of tiles
 * into a sink band by band.
 *
 * Samples come back as the floats that wrote them: an integer sample k of
 * depth max reads as k / (float)max, which the file sink quantizes back to
 * k (ng__quantize), so a stitch of integer tiles into the same format is
 * the single render's bytes; PFM and EXR floats come back bit for bit,
 * EXR halves as the floats they are exactly.
 */
#ifndef _GNU_SOURCE
#define _XOPEN_SOURCE 700 /* fseeko */
#endif

#include "tilefile.h"

#include <errno.h>
#include <openexr.h>
#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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
    int x, y, full_width, full_height; /* where the tile lies in the whole image */
    int bits;           /* a sample's: PNG 8 or 16, raw 16, PFM 32, EXR 16 (all half) or 32 */
    /* PNG */
    png_structp png;
    png_infop info;
    /* PFM: where the image starts (rows bottom to top after it) */
    long header_bytes;
    /* EXR: rows are decoded a chunk row at a time (a scanline chunk, or a
     * row of tiles) into buf, which holds rows buf_y .. buf_y + buf_rows - 1 */
    exr_context_t exr;
    int exr_tile_width;   /* 0: scanlines */
    int exr_lines;        /* rows of a scanline chunk, or the tile height */
    int exr_x0, exr_y0;   /* the data window's corner */
    float *buf;
    int buf_y, buf_rows;
    char exr_msg[160];    /* OpenEXRCore's last error */
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
    r->bits = 16;
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
    r->bits = 32;
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

/* ---- OpenEXR: through OpenEXRCore, any storage and compression it decodes -------- */

static void exr_error_fn(exr_const_context_t ctx, exr_result_t code, const char *msg)
{
    void *user = NULL;
    reader *r;
    if (exr_get_user_data(ctx, &user) != EXR_ERR_SUCCESS || !user) return;
    r = user;
    snprintf(r->exr_msg, sizeof r->exr_msg, "%s", msg ? msg : exr_get_default_error_message(code));
}

/* OpenEXRCore reads through the reader's own descriptor (pread: it may
 * read from any offset, in any order). */
static int64_t exr_read_fn(exr_const_context_t ctx, void *user, void *buf, uint64_t sz, uint64_t offset,
                           exr_stream_error_func_ptr_t error_cb)
{
    const reader *r = user;
    ssize_t n;
    (void)ctx;
    (void)error_cb;
    do n = pread(fileno(r->fp), buf, (size_t)sz, (off_t)offset);
    while (n < 0 && errno == EINTR);
    return (int64_t)n;
}

/* The file's size, so that OpenEXRCore refuses offsets past its end. */
static int64_t exr_size_fn(exr_const_context_t ctx, void *user)
{
    const reader *r = user;
    struct stat st;
    (void)ctx;
    return fstat(fileno(r->fp), &st) == 0 ? (int64_t)st.st_size : -1;
}

static int exr_fail(reader *r, exr_result_t rc, const char *what)
{
    return fail(r, "is not a readable EXR (%s: %s)", what, r->exr_msg[0] ? r->exr_msg : exr_get_default_error_message(rc));
}

/* The data window is the tile: its size, and where it lies. noisegraph
 * places a region in the display window of the whole image; a file that
 * is an image of its own (windows equal, at 0,0) is taken as well. */
static int exr_check_windows(reader *r)
{
    exr_attr_box2i_t dw, disp;
    long w, h;
    exr_result_t rc;
    if ((rc = exr_get_data_window(r->exr, 0, &dw)) || (rc = exr_get_display_window(r->exr, 0, &disp)))
        return exr_fail(r, rc, "windows");
    w = (long)dw.max.x - dw.min.x + 1, h = (long)dw.max.y - dw.min.y + 1;
    if (w != r->width || h != r->height) return wrong_size(r, w, h);
    r->exr_x0 = dw.min.x, r->exr_y0 = dw.min.y;
    if (disp.min.x == 0 && disp.min.y == 0 && disp.max.x == r->full_width - 1 && disp.max.y == r->full_height - 1 &&
        dw.min.x == r->x && dw.min.y == r->y)
        return 0;
    if (dw.min.x == 0 && dw.min.y == 0 && disp.min.x == 0 && disp.min.y == 0 && disp.max.x == dw.max.x &&
        disp.max.y == dw.max.y)
        return 0;
    return fail(r, "lies at %d,%d of a %ldx%ld image; the tile is at %d,%d of %dx%d", dw.min.x, dw.min.y,
                (long)disp.max.x - disp.min.x + 1, (long)disp.max.y - disp.min.y + 1, r->x, r->y, r->full_width,
                r->full_height);
}

/* Where channel name goes among a pixel's interleaved samples: a grey
 * tile's one channel (whatever its name), or R, G, B; -1 if neither. */
static int exr_channel_at(const reader *r, const char *name)
{
    static const char *const rgb[3] = {"R", "G", "B"};
    int k;
    if (r->channels == 1) return 0;
    for (k = 0; k < 3; k++)
        if (!strcmp(name, rgb[k])) return k;
    return -1;
}

static int exr_check_channels(reader *r)
{
    const exr_attr_chlist_t *list = NULL;
    exr_result_t rc;
    int i;
    if ((rc = exr_get_channels(r->exr, 0, &list))) return exr_fail(r, rc, "channels");
    if (list->num_channels != 1 && list->num_channels != 3)
        return fail(r, "has %d channels; a tile has 1 (grey) or 3 (R, G, B)", list->num_channels);
    r->channels = list->num_channels;
    r->bits = 16; /* halves, unless a channel is float */
    for (i = 0; i < list->num_channels; i++) {
        const exr_attr_chlist_entry_t *c = &list->entries[i];
        if (exr_channel_at(r, c->name.str) < 0)
            return fail(r, "has a channel %s; a 3-channel tile has R, G and B", c->name.str);
        if (c->pixel_type != EXR_PIXEL_HALF && c->pixel_type != EXR_PIXEL_FLOAT)
            return fail(r, "channel %s holds integers; a tile holds half or float samples", c->name.str);
        if (c->x_sampling != 1 || c->y_sampling != 1)
            return fail(r, "channel %s is subsampled; a tile has a sample per pixel", c->name.str);
        if (c->pixel_type == EXR_PIXEL_FLOAT) r->bits = 32;
    }
    return 0;
}

/* The chunk holding the rows from row (a multiple of exr_lines) on: a
 * scanline chunk, or tile column tx of that tile row. */
static exr_result_t exr_chunk_at(reader *r, int row, int tx, exr_chunk_info_t *ci)
{
    return r->exr_tile_width ? exr_read_tile_chunk_info(r->exr, 0, tx, row / r->exr_lines, 0, 0, ci)
                             : exr_read_scanline_chunk_info(r->exr, 0, r->exr_y0 + row, ci);
}

static int exr_columns(const reader *r)
{
    return r->exr_tile_width ? (r->width + r->exr_tile_width - 1) / r->exr_tile_width : 1;
}

/* Every chunk's place in the offset table and its size against the
 * file's: a tile cut short is refused when it is opened, before a stitch
 * writes anything. */
static int exr_check_chunks(reader *r)
{
    int row, tx;
    for (row = 0; row < r->height; row += r->exr_lines)
        for (tx = 0; tx < exr_columns(r); tx++) {
            exr_chunk_info_t ci;
            const exr_result_t rc = exr_chunk_at(r, row, tx, &ci);
            if (rc) return exr_fail(r, rc, "chunk table");
        }
    return 0;
}

static int exr_open(reader *r)
{
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    exr_storage_t storage;
    exr_result_t rc;
    int parts = 0;
    init.user_data = r;
    init.error_handler_fn = exr_error_fn;
    init.read_fn = exr_read_fn;
    init.size_fn = exr_size_fn;
    init.max_image_width = init.max_image_height = NG_MAX_EXTENT;
    init.max_tile_width = init.max_tile_height = 65536;
    /* a damaged offset table is an error, not something to guess around */
    init.flags = EXR_CONTEXT_FLAG_DISABLE_CHUNK_RECONSTRUCTION;
    if ((rc = exr_start_read(&r->exr, r->path, &init))) return exr_fail(r, rc, "header");
    if ((rc = exr_get_count(r->exr, &parts)) || (rc = exr_get_storage(r->exr, 0, &storage)))
        return exr_fail(r, rc, "header");
    if (parts != 1) return fail(r, "has %d parts; a tile is one image", parts);
    if (storage != EXR_STORAGE_SCANLINE && storage != EXR_STORAGE_TILED)
        return fail(r, "is a deep EXR; a tile is a flat image");
    if (exr_check_windows(r) || exr_check_channels(r)) return -1;
    if (storage == EXR_STORAGE_TILED) {
        uint32_t tw, th;
        exr_tile_level_mode_t levels;
        exr_tile_round_mode_t round;
        if ((rc = exr_get_tile_descriptor(r->exr, 0, &tw, &th, &levels, &round))) return exr_fail(r, rc, "tiles");
        r->exr_tile_width = (int)tw, r->exr_lines = (int)th; /* level 0 (full size) of any level mode */
    } else if ((rc = exr_get_scanlines_per_chunk(r->exr, 0, &r->exr_lines))) {
        return exr_fail(r, rc, "chunks");
    }
    if (r->exr_lines < 1 || (storage == EXR_STORAGE_TILED && r->exr_tile_width < 1))
        return fail(r, "is not a readable EXR (chunks of %d rows)", r->exr_lines);
    r->buf_rows = r->exr_lines < r->height ? r->exr_lines : r->height;
    if (!(r->buf = malloc((size_t)r->buf_rows * (size_t)r->width * (size_t)r->channels * sizeof *r->buf)))
        return fail(r, "out of memory for %d rows", r->buf_rows);
    r->buf_y = -r->buf_rows; /* nothing decoded yet */
    return exr_check_chunks(r);
}

/* Decodes chunk ci (tile rows row ..) into buf at column col, as floats
 * (halves exactly). */
static int exr_decode(reader *r, const exr_chunk_info_t *ci, int row, int col)
{
    exr_decode_pipeline_t dec = EXR_DECODE_PIPELINE_INITIALIZER;
    const size_t stride = (size_t)r->width * (size_t)r->channels;
    char what[64];
    exr_result_t rc;
    int i;
    if (ci->width > r->width - col || ci->height > r->buf_rows)
        return fail(r, "is not a readable EXR (a chunk of %dx%d at row %d)", ci->width, ci->height, row);
    rc = exr_decoding_initialize(r->exr, 0, ci, &dec);
    for (i = 0; rc == EXR_ERR_SUCCESS && i < dec.channel_count; i++) {
        exr_coding_channel_info_t *c = &dec.channels[i];
        c->decode_to_ptr = (uint8_t *)(r->buf + (size_t)col * (size_t)r->channels + exr_channel_at(r, c->channel_name));
        c->user_bytes_per_element = 4;
        c->user_data_type = EXR_PIXEL_FLOAT;
        c->user_pixel_stride = r->channels * 4;
        c->user_line_stride = (int32_t)(stride * 4);
    }
    if (rc == EXR_ERR_SUCCESS) rc = exr_decoding_choose_default_routines(r->exr, 0, &dec);
    if (rc == EXR_ERR_SUCCESS) rc = exr_decoding_run(r->exr, 0, &dec);
    exr_decoding_destroy(r->exr, &dec);
    if (rc == EXR_ERR_SUCCESS) return 0;
    snprintf(what, sizeof what, "rows %d to %d", row, row + ci->height - 1);
    return exr_fail(r, rc, what);
}

/* The chunk row holding tile row y into buf. */
static int exr_fill(reader *r, int y)
{
    const int row = y - y % r->exr_lines;
    int tx;
    r->buf_y = -r->buf_rows; /* a failure leaves no stale rows */
    for (tx = 0; tx < exr_columns(r); tx++) {
        exr_chunk_info_t ci;
        const exr_result_t rc = exr_chunk_at(r, row, tx, &ci);
        if (rc) return exr_fail(r, rc, "chunk table");
        if (exr_decode(r, &ci, row, tx * r->exr_tile_width)) return -1;
    }
    r->buf_y = row;
    return 0;
}

static int exr_rows(reader *r, int nrows, float *dst, size_t stride)
{
    const size_t n = (size_t)r->width * (size_t)r->channels;
    int k;
    for (k = 0; k < nrows; k++) {
        const int y = r->next_row + k;
        if (y >= r->buf_y + r->buf_rows && exr_fill(r, y)) return -1;
        memcpy(dst + (size_t)k * stride, r->buf + (size_t)(y - r->buf_y) * n, n * sizeof *dst);
    }
    return 0;
}

static void exr_close(reader *r)
{
    if (r->exr) exr_finish(&r->exr);
    free(r->buf);
}

/* ---- the table ------------------------------------------------------------------- */

static const tile_format formats[] = {
    {{".png", NULL}, "PNG", png_open, png_rows, png_close},
    {{".r16", ".raw", NULL}, "16-bit raw", r16_open, r16_rows, NULL},
    {{".pfm", NULL}, "PFM", pfm_open, pfm_rows, NULL},
    {{".exr", NULL}, "OpenEXR", exr_open, exr_rows, exr_close},
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

/* 88 bytes a pixel: 3 float channels stored twice over (incompressible
 * data that deflate could only grow a little), plus an EXR's chunk header
 * and offset of 1-pixel tiles (28 bytes); 1 MiB for headers. */
uint64_t ng_tile_max_bytes(int width, int height)
{
    return (uint64_t)(width > 0 ? width : 0) * (uint64_t)(height > 0 ? height : 0) * 88 + ((uint64_t)1 << 20);
}

static void reader_close(reader *r)
{
    if (!r) return;
    if (r->format && r->format->close) r->format->close(r);
    if (r->fp) fclose(r->fp);
    free(r->row);
    free(r);
}

/* Opens tile t of a full_width x full_height image as its format,
 * checking it is t's size (and, where the format says it, place). NULL
 * with err. */
static reader *reader_open(const ng_stitch_tile *t, int full_width, int full_height, ng_error *err)
{
    const char *path = t->path;
    uint64_t bytes = 0;
    int fd;
    reader *r = calloc(1, sizeof *r);
    if (!r) {
        ng_errorf(err, "%s: out of memory", path);
        return NULL;
    }
    r->path = path, r->width = t->width, r->height = t->height;
    r->x = t->x, r->y = t->y, r->full_width = full_width, r->full_height = full_height;
    if (!(r->format = format_of(path))) {
        ng_errorf(err, "%s: no reader for this kind of file (tiles are .png, .r16, .raw, .pfm or .exr)", path);
    } else if ((fd = ng_file_open_read(path, "a tile", ng_tile_max_bytes(t->width, t->height), &bytes, err)) < 0) {
        if (errno == ENOENT) ng_errorf(err, "%s: missing", path);
    } else if (!(r->fp = fdopen(fd, "rb"))) {
        ng_errorf(err, "%s: %s", path, strerror(errno));
        close(fd);
    } else if (r->format->open(r) == 0) {
        return r;
    } else {
        ng_errorf(err, "%s: %s", path, r->what);
    }
    reader_close(r);
    return NULL;
}

int ng_tile_probe(const ng_stitch_tile *t, int full_width, int full_height, int *channels, int *bits, ng_error *err)
{
    reader *r = reader_open(t, full_width, full_height, err);
    if (!r) return -1;
    *channels = r->channels;
    *bits = r->bits;
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
        if (!(open[k] = reader_open(&tiles[k], width, height, err))) goto done;
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
