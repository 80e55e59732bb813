/*
 * nrrd.c — the NRRD encoder of the file sink (filesink.c): an attached
 * NRRD0004 header, then raw little-endian 32-bit floats, x fastest, then y,
 * then z, the channels of a voxel side by side. ParaView and 3D Slicer read
 * it without VDB (teem's format definition: teem.sourceforge.net/nrrd).
 *
 * Values go out as they are, bit for bit, NaN and infinities included.
 *
 * A volume's header places it: "space: right-anterior-superior" (noisegraph's
 * world x, y, z as the space's three axes), the voxel size on the diagonal
 * of "space directions" and, as "space origin", the world position of the
 * window's first voxel centre, so a window lands where it lies in the full
 * volume. An image knows no placement (the sink is not told its pixel size)
 * and gets a plain 2D array. Several channels are a leading axis of kind
 * "2-vector", "3-vector" or "4-vector" (the channels are not declared
 * colours), with "none" as its space direction.
 *
 * Slabs come z-major with rows in order; each band of rows of a slice is
 * contiguous in the file and written at its offset, so memory stays one row.
 *
 * A compression level (1 to 9, --compression) writes "encoding: gzip": the
 * data as one gzip stream (zlib, at that level), as teem and its readers
 * (3D Slicer, ParaView, pynrrd) read it. The stream must be written in file
 * order, so a volume's slab is kept until its last band of rows came (one
 * slab: what the render holds of it anyway); an image's rows stream as
 * they come. Level 0 or none: raw, as before.
 */
#ifndef _GNU_SOURCE
#define _XOPEN_SOURCE 700 /* fseeko */
#endif

#include "filesink.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* A double as the header writes it: 17 digits read back to the same value. */
#define G17 "%.17g"

static int append(char *buf, size_t len, size_t *at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Appends to buf at *at; 0, or -1 when buf is too small. */
static int append(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= len - *at) return -1;
    *at += (size_t)n;
    return 0;
}

/* The grid name goes in "content" when it is plain text: a header line
 * cannot hold a line break. */
static int printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e) return 0;
    return 1;
}

/* Writes the header into buf; its length, or 0 when it does not fit. */
static size_t header(const ng__image *im, char *buf, size_t len)
{
    static const char *const vector_kind[] = {"", "", "2-vector", "3-vector", "4-vector"};
    const int vol = im->depth > 0, vec = im->channels > 1;
    const double v = im->vol.voxel_size;
    size_t at = 0;
    int k, bad = 0;
    bad |= append(buf, len, &at, "NRRD0004\n# written by noisegraph " NG_VERSION "\n");
    if (im->grid && printable(im->grid)) bad |= append(buf, len, &at, "content: %s\n", im->grid);
    bad |= append(buf, len, &at, "type: float\ndimension: %d\n", (vol ? 3 : 2) + vec);
    if (vol) bad |= append(buf, len, &at, "space: right-anterior-superior\n");
    bad |= append(buf, len, &at, "sizes:");
    if (vec) bad |= append(buf, len, &at, " %d", im->channels);
    bad |= append(buf, len, &at, " %d %d", im->width, im->height);
    if (vol) bad |= append(buf, len, &at, " %d", im->depth);
    if (vol) {
        bad |= append(buf, len, &at, "\nspace directions:%s", vec ? " none" : "");
        bad |= append(buf, len, &at, " (" G17 ",0,0) (0," G17 ",0) (0,0," G17 ")", v, v, v);
    }
    bad |= append(buf, len, &at, "\nkinds:%s%s", vec ? " " : "", vec ? vector_kind[im->channels] : "");
    for (k = 0; k < (vol ? 3 : 2); k++) bad |= append(buf, len, &at, " domain");
    bad |= append(buf, len, &at, "\nendian: little\nencoding: %s\n", im->opt.level > 0 ? "gzip" : "raw");
    if (vol) {
        bad |= append(buf, len, &at, "space origin: (");
        for (k = 0; k < 3; k++)
            bad |= append(buf, len, &at, G17 "%s", im->vol.origin[k] + (im->vol.offset[k] + 0.5) * v,
                          k < 2 ? "," : ")\n");
    }
    bad |= append(buf, len, &at, "\n"); /* the blank line ending the header */
    return bad ? 0 : at;
}

#define HEADER_MAX 1024

static size_t row_bytes(const ng__image *im) { return (size_t)im->width * (size_t)im->channels * 4; }

/* ---- gzip ------------------------------------------------------------------------ */

typedef struct gz {
    z_stream z;
    int open;
    unsigned char out[65536];
    unsigned char *slab; /* a volume's slab in file order (nslices slices) */
    size_t slab_bytes;
} gz;

static int gz_fail(ng__image *im) { return ng__image_fail(im, 0, "zlib cannot compress the NRRD's data"); }

/* Deflates n bytes (flush: Z_FINISH at the end) and writes what comes out. */
static int gz_put(ng__image *im, const void *data, size_t n, int flush)
{
    gz *g = im->state;
    int rc;
    g->z.next_in = (unsigned char *)(uintptr_t)data; /* zlib's API is not const */
    do {
        const uInt chunk = n > 1u << 30 ? 1u << 30 : (uInt)n;
        g->z.avail_in = chunk;
        n -= chunk;
        do {
            g->z.next_out = g->out;
            g->z.avail_out = sizeof g->out;
            rc = deflate(&g->z, n ? Z_NO_FLUSH : flush);
            if (rc == Z_STREAM_ERROR) return gz_fail(im);
            if (ng__image_write(im, g->out, sizeof g->out - g->z.avail_out) != 0) return -1;
        } while (g->z.avail_out == 0);
    } while (n);
    return 0;
}

static int gz_begin(ng__image *im)
{
    gz *g = calloc(1, sizeof *g);
    if (!g) return ng__image_fail(im, 0, "out of memory");
    im->state = g;
    /* windowBits 15 + 16: a gzip wrapper, as NRRD's "gzip" encoding is */
    if (deflateInit2(&g->z, im->opt.level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return gz_fail(im);
    g->open = 1;
    return 0;
}

static void encode_discard(ng__image *im)
{
    gz *g = im->state;
    if (!g) return;
    if (g->open) deflateEnd(&g->z);
    free(g->slab);
    free(g);
    im->state = NULL;
}

static int encode_end(ng__image *im)
{
    return im->state ? gz_put(im, NULL, 0, Z_FINISH) : 0;
}

static size_t row_bytes(const ng__image *im);

/* A band of a slab into the slab kept in file order; the whole slab goes
 * into the stream with its last band. */
static int gz_slab(ng__image *im, int nslices, int y, int nrows, const float *data)
{
    gz *g = im->state;
    const size_t rb = row_bytes(im), slice = (size_t)im->height * rb, band = (size_t)nrows * rb;
    const size_t n = rb / 4;
    int s, r;
    if (y == 0) {
        if (nslices > 0 && slice > (size_t)-1 / (size_t)nslices) return ng__image_fail(im, 0, "out of memory");
        if (g->slab_bytes < (size_t)nslices * slice) {
            free(g->slab);
            g->slab_bytes = 0;
            if (!(g->slab = malloc((size_t)nslices * slice))) return ng__image_fail(im, 0, "out of memory");
            g->slab_bytes = (size_t)nslices * slice;
        }
    }
    for (s = 0; s < nslices; s++)
        for (r = 0; r < nrows; r++)
            ng__put_floats_le(g->slab + (size_t)s * slice + (size_t)y * rb + (size_t)r * rb,
                              data + ((size_t)s * band + (size_t)r * rb) / 4, n);
    return y + nrows == im->height ? gz_put(im, g->slab, (size_t)nslices * slice, Z_NO_FLUSH) : 0;
}

/* ---- raw ------------------------------------------------------------------------- */

static int encode_begin(ng__image *im)
{
    const uintmax_t off_max = ((uintmax_t)1 << (sizeof(off_t) * CHAR_BIT - 1)) - 1;
    const uintmax_t slices = im->depth > 0 ? (uintmax_t)im->depth : 1;
    char h[HEADER_MAX];
    size_t n = header(im, h, sizeof h);
    if (im->channels < 1 || im->channels > 4)
        return ng__image_fail(im, 0, "NRRD output takes 1 to 4 channels, not %d", im->channels);
    if (n == 0) return ng__image_fail(im, 0, "the NRRD header does not fit %d bytes", HEADER_MAX);
    /* Every row's offset must fit off_t for the seeks. */
    if ((uintmax_t)row_bytes(im) > (off_max - n) / (uintmax_t)im->height / slices)
        return ng__image_fail(im, 0, "a %dx%dx%llu NRRD is larger than this system's files can be", im->width,
                              im->height, (unsigned long long)slices);
    if (ng__image_write(im, h, n) != 0) return -1;
    return im->opt.level > 0 ? gz_begin(im) : 0;
}

/* Rows y .. y + nrows - 1 of slice z, one after another in the file. */
static int write_rows(ng__image *im, int z, int y, int nrows, const float *rows)
{
    size_t n = (size_t)im->width * (size_t)im->channels;
    unsigned char *dst = im->row;
    char h[HEADER_MAX];
    off_t at;
    int r;
    if (nrows == 0) return 0;
    at = (off_t)header(im, h, sizeof h) +
         ((off_t)z * (off_t)im->height + (off_t)y) * (off_t)row_bytes(im);
    if (ng__image_seek(im, at) != 0) return -1;
    for (r = 0; r < nrows; r++) {
        const float *src = rows + (size_t)r * n;
        ng__put_floats_le(dst, src, n);
        if (ng__image_write(im, dst, row_bytes(im)) != 0) return -1;
    }
    return 0;
}

static int encode_rows(ng__image *im, int y, int nrows, const float *rows)
{
    const size_t n = (size_t)im->width * (size_t)im->channels;
    int r;
    if (!im->state) return write_rows(im, 0, y, nrows, rows);
    for (r = 0; r < nrows; r++) { /* in order: straight into the stream */
        ng__put_floats_le(im->row, rows + (size_t)r * n, n);
        if (gz_put(im, im->row, row_bytes(im), Z_NO_FLUSH) != 0) return -1;
    }
    return 0;
}

static int encode_slab(ng__image *im, int z, int nslices, int y, int nrows, const float *data)
{
    const size_t slice = (size_t)nrows * row_bytes(im) / 4;
    int s;
    if (im->state) return gz_slab(im, nslices, y, nrows, data);
    for (s = 0; s < nslices; s++)
        if (write_rows(im, z + s, y, nrows, data + (size_t)s * slice) != 0) return -1;
    return 0;
}

const ng__encoder ng__nrrd_encoder = {
    .begin = encode_begin, .rows = encode_rows, .end = encode_end, .discard = encode_discard, .slab = encode_slab};
