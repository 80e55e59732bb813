/*
 * tiles.h — `noisegraph tiles` (a big image as a grid of tile files, a
 * plan of one command per tile for farms, a manifest and a GDAL VRT) and
 * `noisegraph stitch` (the tiles streamed back into one file).
 *
 * In the folder of the tiles: manifest.json (written once every tile is
 * done, by whichever process finishes the last one), SCRIPT.vrt (the
 * mosaic for GDAL), and .tiles/ holding one record per finished tile
 * (I.json, written by the process that rendered it: parallel jobs never
 * write the same file) and, for raw formats, I.vrt (the tile described
 * for GDAL).
 */
#ifndef NG_TILES_H
#define NG_TILES_H

#include "args.h"
#include "host.h"

#include <stddef.h>

#define NG_TILES_RECORDS ".tiles"
#define NG_TILES_MANIFEST "manifest.json"
/* Bytes at most: a record of ours is a line well under this (a longer
 * file is no record); a manifest of a million tiles is under 200 MiB. */
#define NG_TILES_MAX_RECORD 4095
#define NG_TILES_MAX_MANIFEST (256L << 20)

int ng_cmd_tiles(int argc, char **argv);
int ng_cmd_stitch(int argc, char **argv);

/* The readers of the files tiles writes, from bytes (stitch.c, tiles.c;
 * tests/fuzz/manifest.c runs them on any input). A manifest as stitch
 * checks it before opening a tile: 0, or the exit code (1) after the
 * one-line error naming name. A tile record: 1 when it is the record of
 * tile index named file of the job of key, else 0. */
int ng__stitch_check_manifest(const char *text, size_t len, const char *name);
int ng__tiles_record_matches(const char *text, size_t len, const char *key, const char *file, long index);

#endif
