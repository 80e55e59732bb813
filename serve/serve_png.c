/*
 * serve_png.c — 8-bit PNGs into memory for the server's renders. Samples
 * are quantised exactly as the file sink quantises an 8-bit PNG (clamped
 * to [0, 1], NaN as 0, round half up), so a served grey render has the
 * pixels of `noisegraph render` of the same window (the serve suite
 * checks it). libpng reports errors by longjmp: encode() owns one setjmp.
 */
#include "serve.h"

#include <png.h>

#include <setjmp.h>
#include <stdlib.h>

/* Level and filter as io/png.c chose them for noise (fast, Paeth). */
#define SERVE_ZLIB_LEVEL 2

static unsigned char quantize8(float v)
{
    if (!(v > 0.0f)) v = 0.0f;
    if (v > 1.0f) v = 1.0f;
    return (unsigned char)((double)v * 255 + 0.5);
}

static void write_fn(png_structp png, png_bytep data, size_t n)
{
    ng_buf *out = png_get_io_ptr(png);
    ng_buf_add(out, data, n);
    if (out->oom) png_error(png, "out of memory");
}

static void flush_fn(png_structp png) { (void)png; }

static void error_fn(png_structp png, png_const_charp msg)
{
    (void)msg;
    png_longjmp(png, 1);
}

static void warning_fn(png_structp png, png_const_charp msg) { (void)png, (void)msg; }

int ng_png_encode(const float *px, int w, int h, int nch, ng_buf *out)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, error_fn, warning_fn);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    unsigned char *volatile row = malloc((size_t)w * (size_t)nch);
    volatile int rc = -1;
    int y;
    size_t i, stride = (size_t)w * (size_t)nch;
    if (!png || !info || !row || (nch != 1 && nch != 3)) goto done;
    if (setjmp(png_jmpbuf(png))) goto done;
    png_set_write_fn(png, out, write_fn, flush_fn);
    png_set_compression_level(png, SERVE_ZLIB_LEVEL);
    png_set_filter(png, 0, PNG_FILTER_PAETH);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, nch == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (y = 0; y < h; y++) {
        const float *src = px + (size_t)y * stride;
        for (i = 0; i < stride; i++) row[i] = quantize8(src[i]);
        png_write_row(png, row);
    }
    png_write_end(png, info);
    rc = 0;
done:
    if (png) png_destroy_write_struct(&png, info ? &info : NULL);
    free(row);
    return rc;
}
