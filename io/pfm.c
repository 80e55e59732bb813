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
 * The reader of PFM tiles for stitch (tileread.h) gives the floats back
 * bit for bit.
 */
#ifndef _GNU_SOURCE
#define _XOPEN_SOURCE 700 /* fseeko */
#endif

#include "filesink.h"
#include "tileread.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

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

const ng__encoder ng__pfm_encoder = {.begin = encode_begin, .rows = encode_rows};

/* ---- reading a tile back (tileread.h) ------------------------------------------------ */

/* What a PFM tile's reader keeps: where the samples start (rows bottom to
 * top after it). */
typedef struct pfm_in {
    long header_bytes;
} pfm_in;

static int read_open(ng__tile_reader *r)
{
    char kind[3] = {0};
    long w, h;
    double scale;
    long long bytes = 0, want;
    pfm_in *p;
    if (fscanf(r->fp, "%2s %ld %ld %lf", kind, &w, &h, &scale) != 4 || (strcmp(kind, "Pf") && strcmp(kind, "PF")) ||
        fgetc(r->fp) != '\n')
        return ng__tile_fail(r, "is not a PFM file");
    if (!(scale < 0)) return ng__tile_fail(r, "is a big-endian PFM; noisegraph writes little-endian ones");
    if (w != r->width || h != r->height) return ng__tile_wrong_size(r, w, h);
    if (!(p = r->state = malloc(sizeof *p))) return ng__tile_fail(r, "out of memory");
    r->channels = kind[1] == 'F' ? 3 : 1;
    r->bits = 32;
    p->header_bytes = ftell(r->fp);
    want = p->header_bytes + (long long)w * h * 4 * r->channels;
    if (ng__tile_file_bytes(r, &bytes)) return -1;
    if (bytes != want) return ng__tile_fail(r, "holds %lld bytes; a %ldx%ld PFM is %lld", bytes, w, h, want);
    if (!(r->row = malloc((size_t)r->width * (size_t)r->channels * 4))) return ng__tile_fail(r, "out of memory");
    return 0;
}

static int read_rows(ng__tile_reader *r, int nrows, float *dst, size_t stride)
{
    const pfm_in *p = r->state;
    const size_t n = (size_t)r->width * (size_t)r->channels;
    int k;
    size_t i;
    for (k = 0; k < nrows; k++) {
        const off_t at = (off_t)p->header_bytes + (off_t)(r->height - 1 - (r->next_row + k)) * (off_t)(n * 4);
        if (fseeko(r->fp, at, SEEK_SET) != 0 || fread(r->row, 4, n, r->fp) != n) return ng__tile_fail(r, "cannot read it");
        for (i = 0; i < n; i++) {
            const uint32_t bits = (uint32_t)r->row[4 * i] | (uint32_t)r->row[4 * i + 1] << 8 |
                                  (uint32_t)r->row[4 * i + 2] << 16 | (uint32_t)r->row[4 * i + 3] << 24;
            memcpy(&dst[(size_t)k * stride + i], &bits, 4);
        }
    }
    return 0;
}

const ng__reader ng__pfm_reader = {.open = read_open, .rows = read_rows};
