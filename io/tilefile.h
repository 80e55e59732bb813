/*
 * tilefile.h — what a tiled render needs of the engine besides ng_render:
 * a SHA-256 of files (the manifest's per-tile checksums), reading tiles
 * back (each format's reader, named by its row in formats.c) and the
 * stitcher that streams a grid of tiles into one sink in bounded memory.
 */
#ifndef NG_TILEFILE_H
#define NG_TILEFILE_H

#include "ng_io.h"

#include <nettle/sha2.h>

#include <stddef.h>
#include <stdint.h>

/* ---- SHA-256 (FIPS 180-4, nettle's) --------------------------------------- */

typedef struct ng_sha256 {
    struct sha256_ctx ctx;
} ng_sha256;

void ng_sha256_init(ng_sha256 *s);
void ng_sha256_update(ng_sha256 *s, const void *data, size_t n);
/* The digest as 64 lowercase hex digits and a NUL; s starts afresh (as
 * nettle's sha256_digest leaves it). */
void ng_sha256_hex(ng_sha256 *s, char hex[65]);
/* The digest of a whole file, opened by ng_file_open_read (what and
 * max_bytes as there: a FIFO or device is refused, not hashed for ever).
 * 0, or -1 with err "PATH: WHY" and errno as ng_file_open_read sets it. */
int ng_sha256_file(const char *path, const char *what, uint64_t max_bytes, char hex[65], ng_error *err);

/* ---- reading tiles back -------------------------------------------------- */

/* Whether path's extension names a format a tile can be read back from
 * (.png 8/16, .r16/.raw, .pfm, .exr: the rows of formats.c with a reader). */
int ng_tile_readable(const char *path);

/* The most bytes a width x height tile can take in any format noisegraph
 * writes: a larger file is no tile, and is not read or hashed. */
uint64_t ng_tile_max_bytes(int width, int height);

/* One tile of a stitch: its file and where it lies in the whole image. */
typedef struct ng_stitch_tile {
    const char *path;
    int x, y, width, height;
} ng_stitch_tile;

/* Checks that tile t of a full_width x full_height image opens as its
 * format at t's size (an .exr also at t's place, when its windows say
 * one; and every chunk within the file), and says its channels (1 or 3)
 * and bits a sample (8 or 16 for PNG, 16 raw, 32 PFM; EXR 16 when every
 * channel is half, else 32). 0, or -1 with err naming the file and what is
 * wrong (missing, not the format, another size or place, cut short). */
int ng_tile_probe(const ng_stitch_tile *t, int full_width, int full_height, int *channels, int *bits, ng_error *err);

/* Streams tiles (sorted by y, then x, rows of equal y and height each
 * covering 0..width without gaps or overlaps: the caller checked) into
 * sink as one width x height image, a band of rows at a time: memory is
 * a band of the whole width, and one open reader per tile of a row. Every
 * tile must have the first tile's channels. The sink is ended (ok or
 * not) whenever it was begun. 0, or -1 with err naming the tile. */
int ng_stitch(const ng_stitch_tile *tiles, int ntiles, int width, int height, ng_sink *sink, ng_error *err);

#endif
