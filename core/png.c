/*
 * png.c — the PNG encoder of the file sink (filesink.c): 8- or 16-bit grey
 * or RGB, values clamped to [0,1], written row by row with libpng. Memory is
 * the file sink's one row plus libpng's own O(width) state.
 *
 * libpng reports errors by longjmp: every function below that calls into
 * libpng owns one setjmp, and after a jump only png_destroy_write_struct
 * (in encode_discard) touches the png struct again.
 */
#include "filesink.h"

#include <png.h>

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

/* Noise compresses poorly at any level, and the encoder runs on one thread
 * while rendering may use every core. Measured on a 2048x2048 8-bit fBm:
 * level 2 is 12% larger than zlib's default 6 and about 6x faster; 9 saves
 * 3% more at 30x the time. Paeth alone matches libpng's try-every-filter heuristic on
 * smooth noise (same size) at a fraction of the filtering work. */
#define PNG_ZLIB_LEVEL 2
#define PNG_ROW_FILTER PNG_FILTER_PAETH

typedef struct encoder {
    png_structp png;
    png_infop info;
    char msg[200]; /* libpng's own error text */
} encoder;

/* ---- libpng callbacks ---------------------------------------------------- */

static void error_fn(png_structp png, png_const_charp msg)
{
    ng__image *im = png_get_error_ptr(png);
    encoder *p = im->state;
    snprintf(p->msg, sizeof p->msg, "%s", msg);
    png_longjmp(png, 1);
}

/* Warnings concern ancillary details we never write; an error that follows
 * one carries its own text. */
static void warning_fn(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* Our own I/O so a short write keeps its errno (ENOSPC, EFBIG) for the
 * message instead of libpng's generic "Write Error". */
static void write_fn(png_structp png, png_bytep data, size_t n)
{
    ng__image *im = png_get_io_ptr(png);
    if (ng__image_write(im, data, n) != 0) png_error(png, "write failed");
}

static void flush_fn(png_structp png)
{
    ng__image *im = png_get_io_ptr(png);
    errno = 0;
    if (fflush(im->fp) != 0) {
        ng__image_fail(im, errno ? errno : EIO, "cannot write");
        png_error(png, "write failed");
    }
}

/* After a longjmp: a failed write has said why already. */
static int encoder_failed(ng__image *im)
{
    encoder *p = im->state;
    if (im->what[0]) return -1;
    return ng__image_fail(im, 0, "PNG encoder: %s", p->msg);
}

/* ---- the encoder: each function calling libpng owns one setjmp ----------- */

static int encode_begin(ng__image *im)
{
    encoder *p = calloc(1, sizeof *p);
    int color = im->channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB;
    im->state = p;
    if (p) p->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, im, error_fn, warning_fn);
    if (p && p->png) p->info = png_create_info_struct(p->png);
    if (!p || !p->png || !p->info)
        return ng__image_fail(im, 0, "cannot start the PNG encoder (out of memory)");
    if (setjmp(png_jmpbuf(p->png))) return encoder_failed(im);
    png_set_write_fn(p->png, im, write_fn, flush_fn);
    /* The default limit (1e6 pixels a side) guards decoders, not us. */
    png_set_user_limits(p->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_set_compression_level(p->png, PNG_ZLIB_LEVEL);
    png_set_filter(p->png, PNG_FILTER_TYPE_BASE, PNG_ROW_FILTER);
    png_set_IHDR(p->png, p->info, (png_uint_32)im->width, (png_uint_32)im->height, im->bits, color,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_write_info(p->png, p->info);
    return 0;
}

/* 16-bit samples are stored big-endian, as PNG wants, by hand. */
static void pack_row(ng__image *im, const float *src)
{
    size_t n = (size_t)im->width * (size_t)im->channels, i;
    unsigned char *dst = im->row;
    for (i = 0; i < n; i++) {
        if (im->bits == 8) {
            dst[i] = (unsigned char)ng__quantize(src[i], 255);
        } else {
            unsigned q = ng__quantize(src[i], 65535);
            dst[2 * i] = (unsigned char)(q >> 8);
            dst[2 * i + 1] = (unsigned char)(q & 0xff);
        }
    }
}

static int encode_rows(ng__image *im, int y, int nrows, const float *rows)
{
    encoder *p = im->state;
    size_t stride = (size_t)im->width * (size_t)im->channels;
    volatile int r; /* changes after setjmp */
    (void)y;        /* PNG rows simply follow one another */
    if (setjmp(png_jmpbuf(p->png))) return encoder_failed(im);
    for (r = 0; r < nrows; r++) {
        pack_row(im, rows + (size_t)r * stride);
        png_write_row(p->png, im->row);
    }
    return 0;
}

static int encode_end(ng__image *im)
{
    encoder *p = im->state;
    if (setjmp(png_jmpbuf(p->png))) return encoder_failed(im);
    png_write_end(p->png, p->info);
    return 0;
}

static void encode_discard(ng__image *im)
{
    encoder *p = im->state;
    if (!p) return;
    if (p->png) png_destroy_write_struct(&p->png, &p->info);
    free(p);
    im->state = NULL;
}

const ng__encoder ng__png_encoder = {
    "PNG", {".png", NULL}, {8, 16, 0}, NULL, encode_begin, encode_rows, encode_end, encode_discard, 0, NG__IMAGES, NULL, 0,
};
