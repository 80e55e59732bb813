/*
 * filesink.h — what an image format plugs into the file sink (filesink.c):
 * one encoder table per format, named by the format's row (formats.h). The
 * file sink owns the temporary file, the row order, failure cleanup and the
 * final rename; an encoder only turns float rows into bytes in that file.
 */
#ifndef NG_FILESINK_H
#define NG_FILESINK_H

#include "formats.h"

#include <stdio.h>
#include <sys/types.h>

/* The image being written, as an encoder sees it. */
typedef struct ng__image {
    FILE *fp;            /* the temporary file, open for writing */
    int width, height;
    int channels;        /* as the format's row allows */
    int bits;            /* per sample: one of the format's bits[] */
    unsigned char *row;  /* scratch: width * channels * bits / 8 bytes */
    void *state;         /* the encoder's own, freed by its discard */
    int depth;           /* 0: an image; >= 1: a volume (see vol) */
    ng_volume_info vol;  /* a volume's window and placement */
    const char *grid;    /* a volume's grid name ("density" unless set) */
    double background;   /* a volume's background value (0 unless set) */
    double memory_limit; /* bytes an encoder may hold besides its row (a VDB tree); 0: none */
    ng_file_options opt; /* how to encode (level -1: the encoder's default), where it lies */
    const char *name;    /* the output's name (a channel's, in an .exr), or NULL */
    const char *path;    /* the temporary file's name, for a library that writes by name (GDAL) */
    /* Sharing a file (ng_file_sink_join): the lead's first joined image,
     * each joined image's next, NULL after the last; set before the lead's
     * begin() (every member has begun: the render begins its sinks in
     * order, the lead last) and again before its end(). joining: 1 for a
     * member, whose encoder keeps what the lead's needs (no file of its
     * own: fp is NULL). */
    struct ng__image *joined;
    int joining;
    int errnum;          /* why the last encoder call failed: errno, or 0 */
    char what[300];      /* what failed; empty while nothing has */
} ng__image;

/* The most images joined to one file. */
#define NG__MAX_JOINED 64

/* A format's writer: its row in formats.c says what it takes (depths,
 * channels, images or volumes, options); the sink checks those before
 * begin. */
struct ng__encoder {
    /* Each returns 0, or -1 after ng__image_fail. rows() gets nrows >= 0 rows
     * starting at row y, top to bottom, in order and within the image; end()
     * only after every row. NULL: nothing to do. */
    int (*begin)(ng__image *im);
    int (*rows)(ng__image *im, int y, int nrows, const float *rows);
    int (*end)(ng__image *im);
    /* Frees state. Runs after end() and after any failure, in any state,
     * possibly twice. NULL: the encoder keeps no state. */
    void (*discard)(ng__image *im);
    /* Volumes: slabs as ng_sink.slab gives them (z-major, rows in order
     * within a slab), after begin with im->depth >= 1. NULL for an
     * encoder of images only. */
    int (*slab)(ng__image *im, int z, int nslices, int y, int nrows, const float *data);
};

extern const ng__encoder ng__png_encoder, ng__pfm_encoder, ng__raw16_encoder;
extern const ng__encoder ng__vdb_encoder;  /* vdb.c: through vdbgrid.cc */
extern const ng__encoder ng__nrrd_encoder;
extern const ng__encoder ng__exr_encoder;  /* exr.c: through OpenEXRCore (DWA: exr_dwa.cc) */
extern const ng__encoder ng__geotiff_encoder; /* geotiff.c: through GDAL */
extern const ng__encoder ng__r32_encoder;  /* raw16.c: float heightmaps */

/* geotiff.c: the GeoTIFF options (an SRS GDAL knows, a nodata the depth
 * holds), and its metadata read back; 0, or -1 with msg filled. */
int ng__geotiff_check(const ng_file_options *o, int bits, char *msg, size_t len);
int ng__png_meta(const char *path, void (*each)(void *user, const char *key, const char *value), void *user,
                 char *msg, size_t len);
int ng__exr_meta(const char *path, void (*each)(void *user, const char *key, const char *value), void *user,
                 char *msg, size_t len);
int ng__geotiff_meta(const char *path, void (*each)(void *user, const char *key, const char *value), void *user,
                     char *msg, size_t len);

/* Records why an encoder call failed (errnum: an errno value or 0) for the
 * file sink to report as "PATH: WHAT[: strerror]". Returns -1. */
int ng__image_fail(ng__image *im, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* fwrite / fseeko that record a failure as "cannot write". 0 or -1. */
int ng__image_write(ng__image *im, const void *data, size_t n);
int ng__image_seek(ng__image *im, off_t offset);

/* n floats as little-endian 32-bit words into dst (4n bytes): their bits
 * as they are, NaN payloads included. */
void ng__put_floats_le(unsigned char *dst, const float *src, size_t n);

/* An integer sample from v: clamped to [0,1] (NaN reads as 0) and rounded
 * half up. v * max is exact in double, so 0.5 gives (max + 1) / 2 and
 * k / (float)max gives k. */
static inline unsigned ng__quantize(float v, unsigned max)
{
    if (!(v > 0.0f)) v = 0.0f; /* also NaN */
    if (v > 1.0f) v = 1.0f;
    return (unsigned)((double)v * max + 0.5);
}

#endif
