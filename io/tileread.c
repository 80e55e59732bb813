/*
 * tileread.c — reading tiles back for `noisegraph stitch`: a tile's
 * reader is its format's (the row in formats.c names it; the codec file
 * defines it, as it does the encoder), and the stitcher streams a grid of
 * tiles into a sink band by band.
 *
 * Samples come back as the floats that wrote them: an integer sample k of
 * depth max reads as k / (float)max, which the file sink quantizes back to
 * k (ng__quantize), so a stitch of integer tiles into the same format is
 * the single render's bytes; PFM and EXR floats come back bit for bit,
 * EXR halves as the floats they are exactly.
 */
#include "tileread.h"

#include "tilefile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- for readers ------------------------------------------------------------------- */

int ng__tile_fail(ng__tile_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->what, sizeof r->what, fmt, ap);
    va_end(ap);
    return -1;
}

int ng__tile_wrong_size(ng__tile_reader *r, long w, long h)
{
    return ng__tile_fail(r, "is %ldx%ld; the tile is %dx%d", w, h, r->width, r->height);
}

int ng__tile_file_bytes(ng__tile_reader *r, long long *bytes)
{
    struct stat st;
    if (fstat(fileno(r->fp), &st) != 0) return ng__tile_fail(r, "%s", strerror(errno));
    *bytes = (long long)st.st_size;
    return 0;
}

/* ---- opening a tile -------------------------------------------------------------------- */

/* A tile being read, and its format's reader. */
typedef struct reader {
    const ng__reader *format;
    ng__tile_reader in;
} reader;

static int has_reader(const ng__format *f) { return f->reader != NULL; }

static void reader_close(reader *r)
{
    if (!r) return;
    if (r->format && r->format->close) r->format->close(&r->in);
    if (r->in.fp) fclose(r->in.fp);
    free(r->in.state);
    free(r->in.row);
    free(r);
}

/* 88 bytes a pixel: 3 float channels stored twice over (incompressible
 * data that deflate could only grow a little), plus an EXR's chunk header
 * and offset of 1-pixel tiles (28 bytes); 1 MiB for headers. */
uint64_t ng_tile_max_bytes(int width, int height)
{
    return (uint64_t)(width > 0 ? width : 0) * (uint64_t)(height > 0 ? height : 0) * 88 + ((uint64_t)1 << 20);
}

/* Opens tile t of a full_width x full_height image as its format,
 * checking it is t's size (and, where the format says it, place). NULL
 * with err. */
static reader *reader_open(const ng_stitch_tile *t, int full_width, int full_height, ng_error *err)
{
    const char *path = t->path;
    const ng__format *f = ng__format_of(path);
    reader *r = calloc(1, sizeof *r);
    char readable[128];
    uint64_t bytes = 0;
    int fd;
    if (!r) {
        ng_errorf(err, "%s: out of memory", path);
        return NULL;
    }
    r->in.path = path, r->in.width = t->width, r->in.height = t->height;
    r->in.x = t->x, r->in.y = t->y, r->in.full_width = full_width, r->in.full_height = full_height;
    if (!f || !f->reader) {
        ng_errorf(err, "%s: no reader for this kind of file (tiles are %s)", path,
                  ng__format_list(readable, sizeof readable, has_reader, 1, " or "));
    } else if ((fd = ng_file_open_read(path, "a tile", ng_tile_max_bytes(t->width, t->height), &bytes, err)) < 0) {
        if (errno == ENOENT) ng_errorf(err, "%s: missing", path);
    } else if (!(r->in.fp = fdopen(fd, "rb"))) {
        ng_errorf(err, "%s: %s", path, strerror(errno));
        close(fd);
    } else if ((r->format = f->reader)->open(&r->in) == 0) {
        return r;
    } else {
        ng_errorf(err, "%s: %s", path, r->in.what);
    }
    reader_close(r);
    return NULL;
}

int ng_tile_probe(const ng_stitch_tile *t, int full_width, int full_height, int *channels, int *bits, ng_error *err)
{
    reader *r = reader_open(t, full_width, full_height, err);
    if (!r) return -1;
    *channels = r->in.channels;
    *bits = r->in.bits;
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
            *channels = open[k]->in.channels;
            if (!(*band = malloc((size_t)width * BAND_ROWS * (size_t)*channels * sizeof **band))) {
                ng_errorf(err, "stitch: out of memory for a band of %d rows", BAND_ROWS);
                goto done;
            }
            if (sink->begin(sink->user, width, height, *channels, err)) goto done;
            *begun = 1;
        }
        if (open[k]->in.channels != *channels) {
            ng_errorf(err, "%s: has %d channel%s; the first tile has %d", tiles[k].path, open[k]->in.channels,
                      open[k]->in.channels == 1 ? "" : "s", *channels);
            goto done;
        }
    }
    for (y = 0; y < tiles[0].height; y += BAND_ROWS) {
        const int nrows = tiles[0].height - y < BAND_ROWS ? tiles[0].height - y : BAND_ROWS;
        for (k = 0; k < n; k++) {
            reader *r = open[k];
            if (r->format->rows(&r->in, nrows, *band + (size_t)tiles[k].x * (size_t)*channels,
                                (size_t)width * (size_t)*channels)) {
                ng_errorf(err, "%s: %s", tiles[k].path, r->in.what);
                goto done;
            }
            r->in.next_row += nrows;
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
