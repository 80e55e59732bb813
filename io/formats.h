/*
 * formats.h — the file formats, one row each in one table (formats.c):
 * name, extensions, sample depths, channels, what a file holds, the
 * options it reads, its encoder (filesink.h) and, for the formats stitch
 * reads tiles back from, its reader (tileread.h), and how GDAL reads its
 * tiles in a VRT mosaic. The file sink, the checks of ng_io.h,
 * ng_file_formats, ng_tile_readable and the VRT's types all come from
 * it. A format is its codec file, which exports the encoder (and reader),
 * and its row.
 */
#ifndef NG_FORMATS_H
#define NG_FORMATS_H

#include "ng_io.h"

#include <stddef.h>

typedef struct ng__encoder ng__encoder; /* filesink.h */
typedef struct ng__reader ng__reader;   /* tileread.h */

/* What a file holds (or'd). */
enum { NG__IMAGES = 1, NG__VOLUMES = 2 };
/* The ng_file_options a format reads besides placement (or'd): level;
 * exr_tile, exr_compression, exr_layout and exr_mipmap; grid (a .vdb's background) and y_up;
 * geo: srs, nodata and cog. */
enum { NG__LEVEL = 1, NG__EXR = 2, NG__GRID = 4, NG__GEO = 8 };
/* The channels a sample may have. */
typedef enum ng__channels {
    NG__GREY_OR_RGB, /* 1 or 3 */
    NG__GREY_RGB_OR_RGBA, /* 1, 3 or 4 (alpha: a splat map's fourth layer) */
    NG__GREY_ONLY,   /* 1 */
    NG__VECTORS      /* 1 to 4 */
} ng__channels;

typedef struct ng__format {
    const char *name;     /* "PNG", in messages */
    const char *ext[3];   /* file name endings, matched ignoring case; NULL-terminated */
    int bits[3];          /* accepted sample depths, the default first; 0-terminated */
    ng__channels channels;
    int holds;            /* NG__IMAGES, NG__VOLUMES, or both */
    unsigned takes;       /* NG__LEVEL, NG__EXR, NG__GRID; 0: none */
    /* 1: samples are stored as they are (floats), NaN and infinities
     * included; 0: they are quantized, and the file sink counts the NaN,
     * infinities and samples outside [0, 1] that quantizing changes. */
    int exact;
    /* 1: the file is its samples, uncompressed (and a small header): the
     * sink knows its size before writing and refuses one that cannot fit
     * the disk or the file size limit; 0: compressed, size unknown. */
    int uncompressed;
    /* The sample depth at which samples are quantized (counted as a
     * non-exact format's are) although the format is exact at the others
     * (a GeoTIFF's UInt16); 0: none. */
    int quantized_bits;
    /* Checks the options the format takes beyond the table's rules (an
     * SRS its library reads), before anything is written; NULL: none. 0,
     * or -1 with msg filled. */
    int (*check)(const ng_file_options *o, int bits, char *msg, size_t msglen);
    /* 1: several named outputs go into one file (a .vdb's grids, an .exr's
     * layers or parts), through ng_file_sink_join; 0: one file per output. */
    int shares;
    /* Reads the text metadata of a file of this format back
     * (ng_file_meta), or NULL. 0, or -1 with msg filled. */
    int (*meta)(const char *path, void (*each)(void *user, const char *key, const char *value), void *user,
                char *msg, size_t msglen);
    const ng__encoder *encoder;
    const ng__reader *reader; /* NULL: stitch does not read its tiles */
    /* How GDAL reads a tile of this format in the VRT mosaic of `tiles`
     * (ng_file_vrt_source): by a driver of its own (NG_VRT_NATIVE, 0) or
     * as raw samples after the file's header. */
    ng_vrt_source vrt;
} ng__format;

extern const ng__format ng__formats[];
extern const size_t ng__nformats;

/* The format of path's file name by its extension ("dir/.png" is a
 * hidden file without one), or NULL. */
const ng__format *ng__format_of(const char *path);

/* "a" or "an", as a message says it before f's name: an acronym by the
 * sound of its first letter ("an EXR", "an NRRD", "a PNG"), a word by
 * its first letter ("a raw heightmap"). */
const char *ng__format_article(const ng__format *f);

/* For messages: the formats pick() accepts (NULL: all), by name
 * (exts 0) or every extension (exts 1), joined by ", " and before the
 * last by `last` (" and ", " or "; NULL: ", ") into buf. Returns buf. */
const char *ng__format_list(char *buf, size_t size, int (*pick)(const ng__format *f), int exts, const char *last);

#endif
