/*
 * pfm.c — the Portable Float Map encoder of the file sink (filesink.c):
 * "Pf" (grey) or "PF" (RGB), "W H", the scale -1.0 (negative: little-endian
 * samples), then 32-bit floats with the rows stored bottom to top, as the
 * format requires.
 *
 * Values go out as they are, bit for bit: not clamped, NaN and infinities
 * included. PFM is how float data leaves noisegraph unchanged; a reader that
 * wants [0,1] clamps for itself.
 *
 * Rows arrive top down, so each band is written where it belongs in the
 * file, with one seek per band: memory stays one row, whatever the height.
 */
#ifndef _GNU_SOURCE
#define _XOPEN_SOURCE 700 /* fseeko */
#endif

#include "filesink.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Writes the header into buf and returns its length, the same text at
 * begin and at every seek. */
static int header(const ng__image *im, char *buf, size_t len)
{
    return snprintf(buf, len, "%s\n%d %d\n-1.0\n", im->channels == 3 ? "PF" : "Pf", im->width, im->height);
}

static size_t row_bytes(const ng__image *im) { return (size_t)im->width * (size_t)im->channels * 4; }

static int encode_begin(ng__image *im)
{
    const uintmax_t off_max = ((uintmax_t)1 << (sizeof(off_t) * CHAR_BIT - 1)) - 1;
    char h[64];
    int n = header(im, h, sizeof h);
    /* Every row's offset must fit off_t for the seeks. */
    if ((uintmax_t)row_bytes(im) > (off_max - (uintmax_t)n) / (uintmax_t)im->height)
        return ng__image_fail(im, 0, "a %dx%d PFM is larger than this system's files can be", im->width,
                              im->height);
    return ng__image_write(im, h, (size_t)n);
}

static int encode_rows(ng__image *im, int y, int nrows, const float *rows)
{
    size_t n = (size_t)im->width * (size_t)im->channels;
    unsigned char *dst = im->row;
    char h[64];
    off_t at;
    int r;
    if (nrows == 0) return 0;
    /* The band's last row comes first in the file. */
    at = (off_t)header(im, h, sizeof h) + (off_t)(im->height - y - nrows) * (off_t)row_bytes(im);
    if (ng__image_seek(im, at) != 0) return -1;
    for (r = nrows - 1; r >= 0; r--) {
        const float *src = rows + (size_t)r * n;
        ng__put_floats_le(dst, src, n);
        if (ng__image_write(im, dst, row_bytes(im)) != 0) return -1;
    }
    return 0;
}

const ng__encoder ng__pfm_encoder = {
    "PFM", {".pfm", NULL}, {32, 0}, NULL, encode_begin, encode_rows, NULL, NULL, 1, NG__IMAGES, NULL, 1, 0,
};
