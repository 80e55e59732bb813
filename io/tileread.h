/*
 * tileread.h — what a format's reader plugs into the tile reader
 * (tileread.c), for `noisegraph stitch`: open a tile at the size it must
 * have, hand its rows over in order as floats. tileread.c owns the file,
 * the row scratch and the order; a reader only turns the file's bytes
 * into samples.
 */
#ifndef NG_TILEREAD_H
#define NG_TILEREAD_H

#include "formats.h"

#include <stdio.h>

/* A tile being read, as a reader sees it. */
typedef struct ng__tile_reader {
    const char *path;
    FILE *fp;                /* the file, open for reading */
    int width, height;       /* the size the tile must have */
    int x, y, full_width, full_height; /* where it lies in the whole image */
    int channels;            /* set by open: 1 or 3 */
    int bits;                /* set by open: a sample's, PNG 8 or 16, raw 16, PFM 32, EXR 16 (all half) or 32 */
    int next_row;            /* rows handed over so far */
    unsigned char *row;      /* the reader's scratch (malloc'd by it, freed by tileread.c), or NULL */
    void *state;             /* the reader's own (malloc'd by open, freed by tileread.c after close) */
    char what[256];          /* why the last call failed */
} ng__tile_reader;

struct ng__reader {
    /* Checks the header against the size the tile must have (and where the
     * format says it, its place) and sets channels. */
    int (*open)(ng__tile_reader *r);
    /* The next nrows rows (from next_row, in order) as floats into dst, a
     * row every stride floats. */
    int (*rows)(ng__tile_reader *r, int nrows, float *dst, size_t stride);
    /* Releases what state holds (a library's handles); NULL: nothing. Runs
     * after any open, successful or not. */
    void (*close)(ng__tile_reader *r);
};
/* Each returns 0, or -1 after ng__tile_fail. */

/* Records why a reader call failed, as "PATH: WHAT" will say it. Returns -1. */
int ng__tile_fail(ng__tile_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "is WxH; the tile is WxH". Returns -1. */
int ng__tile_wrong_size(ng__tile_reader *r, long w, long h);
/* The file's size in bytes. 0, or -1 after ng__tile_fail. */
int ng__tile_file_bytes(ng__tile_reader *r, long long *bytes);

extern const ng__reader ng__png_reader, ng__pfm_reader, ng__raw16_reader, ng__exr_reader;

#endif
