/*
 * exr_dwa.h — DWAA and DWAB, the lossy DCT compressions of OpenEXR, which
 * OpenEXRCore 3.1 (Debian 12; what exr.c uses) neither writes nor reads
 * ("DWA/A compression not yet implemented in C"), through OpenEXR's C++
 * library (Imf, the same package) in exr_dwa.cc, behind a C interface.
 * exr.c is its only user: it plans the file (channels, parts, windows,
 * mip levels) and hands over bands of rows; this unit writes them with
 * Imf's part writers (one part, or several: MultiPartOutputFile), which
 * compress on Imf's global thread pool and write through the stream given
 * here (the file sink's temporary file). It also reads the rows of a DWA
 * tile back for stitch. Plain C types only, as vdbgrid.h.
 *
 * No C++ exception leaves these functions: each failure is a return value
 * and a message in msg (msglen bytes, always terminated).
 */
#ifndef NG_EXR_DWA_H
#define NG_EXR_DWA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* OpenEXR's default DWA level (its dwaCompressionLevel, 45): the base
 * error of the DCT coefficients' quantisation, in 1/100000ths. */
#define NG__DWA_DEFAULT_LEVEL 45.0

/* A channel of the file: its name, its part, and where its sample is
 * among a pixel's nfloat interleaved floats. */
typedef struct ng__dwa_channel {
    const char *name;
    int part, at;
} ng__dwa_channel;

typedef struct ng__dwa_spec {
    int dwab;               /* 0: DWAA (32 scanlines a chunk), 1: DWAB (256) */
    double level;           /* dwaCompressionLevel */
    int half;               /* samples stored as halves (else floats) */
    int data[4], display[4]; /* windows: min x, min y, max x, max y */
    int tile, mipmap;       /* tile edge (0: scanlines); mip levels (rounded up) */
    int nparts;             /* 1, or a part each: part_names */
    const char *const *part_names;
    const ng__dwa_channel *ch;
    int nch;                /* channels, of every part; nch floats a pixel */
    int world;              /* 1: worldOrigin (v2d) and worldPixelSize (double) */
    double origin[2], pixel_size;
    const char *const *meta; /* string attributes: key, value, ..., NULL (or NULL) */
    int threads;            /* Imf's global thread pool grows to this */
    /* The file's bytes: write n at the position, move the position; 0 or
     * -1 (the caller keeps why). */
    int (*write)(void *user, const void *buf, size_t n);
    int (*seek)(void *user, unsigned long long offset);
    void *user;
} ng__dwa_spec;

typedef struct ng__dwa_file ng__dwa_file;

/* The file's header written, or NULL with msg filled. spec's pointers
 * are read here alone (its write, seek and user stay in use). */
ng__dwa_file *ng__dwa_open(const ng__dwa_spec *spec, char *msg, size_t msglen);

/* Rows y .. y + nrows - 1 (of the data window, from 0; or of mip level
 * `level`; whole scanline chunks or rows of tiles, but the last) of part
 * `part`: rows[(r * width + x) * nch + at] is channel at's sample of
 * pixel (x, y + r). A half file's are rounded to the nearest halves in a
 * buffer of their own (nrows * width * the part's channels halves). 0, or
 * -1 with msg filled. */
int ng__dwa_write(ng__dwa_file *f, int part, int level, int y, int nrows, int width, const float *rows, char *msg,
                  size_t msglen);

/* Finishes the file (Imf writes its chunk offset tables as it destroys
 * it; a failed write there is known by the caller's write callback
 * alone) and frees f. */
void ng__dwa_close(ng__dwa_file *f);

/* The size of the chunk buffers Imf keeps for the parts at once (each of
 * its 2 * threads line or tile buffers a part, with the DWA compressor's
 * own, about four times a chunk's raw bytes), for the memory limit.
 * Besides: ng__dwa_write's rows of a half file, converted to halves. */
double ng__dwa_buffer_bytes(const ng__dwa_spec *spec, int width);

/* ---- reading (a DWA tile for stitch) ---- */

typedef struct ng__dwa_in ng__dwa_in;

ng__dwa_in *ng__dwa_read_open(const char *path, char *msg, size_t msglen);

/* Rows y .. y + nrows - 1 (from the data window's top) of the first part
 * (level 0) into dst as floats, channel name[i] at at[i] among a pixel's
 * nch; width pixels a row. 0, or -1 with msg filled. */
int ng__dwa_read(ng__dwa_in *in, int y, int nrows, int width, int nch, const char *const *name, const int *at,
                 float *dst, char *msg, size_t msglen);

void ng__dwa_read_close(ng__dwa_in *in);

#ifdef __cplusplus
}
#endif

#endif
