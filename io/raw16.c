/*
 * raw16.c — the raw heightmap encoder of the file sink (filesink.c): no
 * header, 16-bit little-endian grey samples, rows top to bottom, what Unity
 * (.raw, "Windows" byte order) and Unreal (.r16) import as terrain. Values
 * are clamped to [0,1] and rounded as in a 16-bit PNG, so both hold the
 * same integers. And the reader of such tiles for stitch (tileread.h).
 *
 * .r32 is its float sibling: 32-bit little-endian IEEE floats as they are
 * (no clamping), what World Machine, Gaea and Unity's RAW float import
 * read; the full range of a height survives.
 */
#include "filesink.h"
#include "tileread.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static int encode_rows(ng__image *im, int y, int nrows, const float *rows)
{
    size_t n = (size_t)im->width, i;
    unsigned char *dst = im->row;
    int r;
    (void)y; /* rows simply follow one another */
    for (r = 0; r < nrows; r++) {
        const float *src = rows + (size_t)r * n;
        for (i = 0; i < n; i++) {
            unsigned q = ng__quantize(src[i], 65535);
            dst[2 * i] = (unsigned char)(q & 0xff);
            dst[2 * i + 1] = (unsigned char)(q >> 8);
        }
        if (ng__image_write(im, dst, 2 * n) != 0) return -1;
    }
    return 0;
}

const ng__encoder ng__raw16_encoder = {.rows = encode_rows};

static int encode_r32(ng__image *im, int y, int nrows, const float *rows)
{
    const size_t n = (size_t)im->width;
    int r;
    (void)y;
    for (r = 0; r < nrows; r++) {
        ng__put_floats_le(im->row, rows + (size_t)r * n, n);
        if (ng__image_write(im, im->row, 4 * n) != 0) return -1;
    }
    return 0;
}

const ng__encoder ng__r32_encoder = {.rows = encode_r32};

/* ---- reading a tile back (tileread.h) ------------------------------------------------ */

static int read_open(ng__tile_reader *r)
{
    long long bytes = 0, want = (long long)r->width * r->height * 2;
    if (ng__tile_file_bytes(r, &bytes)) return -1;
    if (bytes != want)
        return ng__tile_fail(r, "holds %lld bytes; a %dx%d 16-bit tile is %lld", bytes, r->width, r->height, want);
    r->channels = 1;
    r->bits = 16;
    if (!(r->row = malloc((size_t)r->width * 2))) return ng__tile_fail(r, "out of memory");
    return 0;
}

static int read_rows(ng__tile_reader *r, int nrows, float *dst, size_t stride)
{
    int k, i;
    for (k = 0; k < nrows; k++) {
        if (fread(r->row, 2, (size_t)r->width, r->fp) != (size_t)r->width) return ng__tile_fail(r, "cannot read it");
        for (i = 0; i < r->width; i++)
            dst[(size_t)k * stride + (size_t)i] = (float)(r->row[2 * i] | (unsigned)r->row[2 * i + 1] << 8) / 65535.0f;
    }
    return 0;
}

const ng__reader ng__raw16_reader = {.open = read_open, .rows = read_rows};
