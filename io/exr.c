/*
 * exr.c — the OpenEXR encoder of the file sink (filesink.c), through
 * OpenEXR's C library, OpenEXRCore: 32-bit float (the default) or 16-bit
 * half samples; scanlines, square tiles (ng_file_options.exr_tile) or
 * mip-mapped tiles (exr_mipmap); ZIP, ZIPS, PIZ, RLE or no compression;
 * DWAA and DWAB, which OpenEXRCore 3.1 has no codec for, through
 * exr_dwa.cc (OpenEXR's C++ library): the same plan of the file, its
 * bands written as they fill (see "DWAA and DWAB" below). Values are
 * stored as they are (half: rounded to the nearest half), not clamped
 * (DWA: as its DCT leaves them).
 *
 * Channels have the names every reader knows: one output's are Y (grey:
 * a channel named after the output loads black in Blender), R, G (a 2D
 * vector), R, G, B, or R, G, B, A (a splat map's four masks, stored as
 * they are, not premultiplied). The named outputs of one render share
 * one file (ng_file_sink_join: the others' sinks join the last one's) as
 * layers, NAME.Y, NAME.R, NAME.G, ... (Nuke's, Blender's and OpenImageIO's
 * layer.channel), in one part (NG_EXR_LAYERS) or one part each, named
 * after its output (NG_EXR_PARTS; the channels keep their layer names, so
 * a reader that merges parts sees the same layers). The render hands each
 * band to its sinks in output order, the lead last: a joined output's
 * encoder keeps its band's rows (staged), and the lead's gathers them
 * with its own into one band of every channel. OpenEXR writes a file's
 * parts one after another, so the chunks of every part but the first are
 * held in memory (compressed) until the end, against the memory limit.
 *
 * Float is the default because heights are the main use: a half has 11
 * bits of precision, so near 1.0 its steps are 2^-11 (about 0.0005, 33
 * times coarser than a 16-bit PNG's), which terraces a heightmap; half is
 * there for colour and for tools that want it (--bits 16).
 *
 * Placement: the data window is the render's region in the full image
 * (the display window), so regions of one image line up in any EXR
 * reader, and the world position of the full image's top-left corner and
 * the pixel size are the attributes worldOrigin (v2d) and worldPixelSize
 * (double). Tiles are counted from the data window's corner (the format's
 * rule): regions stitch tile for tile when their offsets are multiples of
 * the tile size.
 *
 * Rows arrive in bands; a band of whole chunks (scanline chunks of 16
 * rows for ZIP, 32 for PIZ, 1 uncompressed; or a row of tiles) is one job
 * of the encoding queue (encq.c): its chunks are converted and compressed
 * by OpenEXRCore (exr_encoding_run) on a queue thread, and written in
 * order by the sink's thread (exr_write_*_chunk), which also writes the
 * header and, at the end, the chunk offset table. OpenEXRCore writes
 * through our write function into the sink's temporary file, so the sink's
 * temporary-and-rename promise holds. Memory: a few bands per encoder
 * thread (for tiles, a band is tile rows high), as many as the sink's
 * memory limit allows; one that does not fit it is an error.
 *
 * Mip levels (plan_levels says the filter) are made from the rows as
 * they arrive and kept in memory (a third of the image's floats), then
 * written after the image's tiles of their part, on the sink's thread.
 *
 * The reader of EXR tiles for stitch (tileread.h) takes any scanline or
 * tiled (level 0 of a mip-mapped one), flat, one-part file OpenEXRCore
 * decodes (a DWA file's rows: exr_dwa.cc), half or float, 1 channel (any
 * name) or R, G (B, A); halves come back as the floats they are exactly.
 */
#ifndef _GNU_SOURCE
#define _XOPEN_SOURCE 700 /* fseeko */
#endif

#include "encq.h"
#include "exr_dwa.h"
#include "filesink.h"
#include "tileread.h"

#include <openexr.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Samples (as floats) a band holds at least: whole chunks or tile rows. */
#define BAND_BYTES (512 * 1024)
/* The tile edge of a mip-mapped file without --exr-tiles (maketx's). */
#define MIP_TILE 64

typedef struct chunk {
    exr_chunk_info_t info;
    int part;
    int x, y;         /* its first pixel: a column of the band's rows, a row of the band */
    size_t at, size;  /* its compressed bytes in the band's out */
} chunk;

/* Rows of pixels of p->nfloat floats each (every output's channels, in
 * output order): a band of the image, or rows of a mip level. */
typedef struct band {
    float *rows;      /* the band's rows, interleaved channels */
    int width;        /* pixels a row */
    int y, nrows;     /* first row (of the window, or of the level), rows */
    int level;        /* 0: the image; >= 1: a mip level */
    chunk *chunks;
    int nchunks, doing; /* doing: the chunk being compressed */
    unsigned char *out;
    size_t nout, cap;
    exr_encode_pipeline_t *pipe; /* one per part */
    unsigned char *pipe_ready;
    exr_result_t err; /* the first failure of its work, or EXR_ERR_SUCCESS */
} band;

/* A channel of the file: its name, its part, and where its sample is
 * among a pixel's floats. */
typedef struct channel {
    char *name;
    int part, at;
} channel;

/* A chunk of a later part, held until the parts before it are written
 * (OpenEXR writes the parts of a file one after another). */
typedef struct held {
    int x, y, level;  /* the chunk_info's start_x, start_y (tile indices, or the scanline), level */
    size_t at, size;  /* its bytes in the part's */
} held;

typedef struct part_hold {
    held *chunks;
    int n, cap;
    unsigned char *bytes;
    size_t nbytes, capbytes;
} part_hold;

/* A mip level: its size, its pixels (made as the image's rows arrive) and
 * the sums of the row being made. */
typedef struct mip_level {
    int w, h;
    float *px;
    double *acc;
} mip_level;

typedef struct encoder {
    ng__image *im;
    exr_context_t ctx;
    /* The outputs in the file, in output order (the joined ones, then im);
     * the file's channels, every one's, which are the floats of a pixel. */
    const ng__image *src[NG__MAX_JOINED];
    int nsrc;
    channel *ch;
    int nfloat;
    int nparts;       /* 1, or one per output (NG_EXR_PARTS) */
    part_hold *hold;  /* [nparts]: the chunks of parts 1 .. held */
    double held_bytes;
    mip_level *lv;        /* [nlevels]: mip levels (lv[0] is the image, unused) */
    int nlevels;
    double mip_bytes;
    int tile;         /* 0: scanlines */
    int lines;        /* rows of a scanline chunk, or the tile edge */
    int band_rows, max_chunks, nslots;
    int x0, y0;       /* the data window's corner */
    band *slot;
    ng__encq *q;
    int cur;          /* the slot being filled, or -1 */
    int dead;         /* the file is closed: writes fail without touching it */
    off_t pos;        /* where the file's position is */
    ng__dwa_file *dwa; /* DWAA/DWAB: the file, through exr_dwa.cc (ctx is NULL) */
    double dwa_bytes;  /* what its buffers hold at most */
    pthread_mutex_t mu; /* msg, written by any thread */
    char msg[200];    /* OpenEXRCore's last error text */
} encoder;

/* A joined output's encoder (ng_file_sink_join): its last rows, which the
 * lead's encoder takes into its band with its own. */
typedef struct staged {
    int y, nrows;
    float *rows;
    size_t cap;       /* floats */
} staged;

/* ---- OpenEXRCore callbacks ----------------------------------------------------- */

static void error_fn(exr_const_context_t ctx, exr_result_t code, const char *msg)
{
    void *user = NULL;
    encoder *p;
    if (exr_get_user_data(ctx, &user) != EXR_ERR_SUCCESS || !user) return;
    p = ((ng__image *)user)->state;
    pthread_mutex_lock(&p->mu);
    snprintf(p->msg, sizeof p->msg, "%s", msg ? msg : exr_get_default_error_message(code));
    pthread_mutex_unlock(&p->mu);
}

/* Into the sink's temporary file, keeping errno's reason (ENOSPC, EFBIG)
 * for the message. Only the sink's thread writes. */
static int64_t write_fn(exr_const_context_t ctx, void *user, const void *buf, uint64_t sz, uint64_t offset,
                        exr_stream_error_func_ptr_t error_cb)
{
    ng__image *im = user;
    encoder *p = im->state;
    (void)ctx;
    (void)error_cb;
    if (p->dead || im->what[0]) return -1;
    if ((off_t)offset != p->pos && ng__image_seek(im, (off_t)offset) != 0) return -1;
    if (ng__image_write(im, buf, (size_t)sz) != 0) return -1;
    p->pos = (off_t)(offset + sz);
    return (int64_t)sz;
}

/* A failed OpenEXRCore call: a failed write has said why already. */
static int exr_failed(ng__image *im, exr_result_t rc, const char *what)
{
    encoder *p = im->state;
    if (im->what[0]) return -1;
    return ng__image_fail(im, 0, "EXR encoder: %s: %s", what, p->msg[0] ? p->msg : exr_get_default_error_message(rc));
}

/* ---- the header ---------------------------------------------------------------- */

/* The channel names of an output of n channels: grey, a 2D vector (red
 * and green in any viewer), colour, colour and a fourth (a splat map's
 * masks; stored as it is, not premultiplied). */
static const char *const channel_names[NG_MAX_CHANNELS + 1][NG_MAX_CHANNELS] = {
    {NULL}, {"Y"}, {"R", "G"}, {"R", "G", "B"}, {"R", "G", "B", "A"},
};

static exr_compression_t compression_of(ng_exr_compression c)
{
    static const exr_compression_t of[NG_EXR_NCOMPRESSIONS] = {
        [NG_EXR_ZIP] = EXR_COMPRESSION_ZIP,   [NG_EXR_PIZ] = EXR_COMPRESSION_PIZ,
        [NG_EXR_NONE] = EXR_COMPRESSION_NONE, [NG_EXR_ZIPS] = EXR_COMPRESSION_ZIPS,
        [NG_EXR_RLE] = EXR_COMPRESSION_RLE,   [NG_EXR_DWAA] = EXR_COMPRESSION_DWAA,
        [NG_EXR_DWAB] = EXR_COMPRESSION_DWAB,
    };
    return of[c];
}

/* The window within the full image, when the options place it there. */
static int placed(const ng__image *im)
{
    const ng_file_options *o = &im->opt;
    return o->full[0] > 0 && o->offset[0] >= 0 && o->offset[1] >= 0 &&
           (long long)o->offset[0] + im->width <= o->full[0] && (long long)o->offset[1] + im->height <= o->full[1];
}

/* The outputs in the file and its channels: one output's are Y, or R, G,
 * B (A); several outputs' are layers, NAME.Y, NAME.R, ..., in one part or
 * a part each. */
static int plan_channels(ng__image *im, encoder *p)
{
    const ng__image *j;
    int s, c, n = 0, at = 0;
    for (j = im->joined; j && p->nsrc < NG__MAX_JOINED - 1; j = j->joined) p->src[p->nsrc++] = j;
    p->src[p->nsrc++] = im;
    p->nparts = p->nsrc > 1 && im->opt.exr_layout == NG_EXR_PARTS ? p->nsrc : 1;
    for (s = 0; s < p->nsrc; s++) n += p->src[s]->channels;
    if (!(p->ch = calloc((size_t)n, sizeof *p->ch)) || !(p->hold = calloc((size_t)p->nparts, sizeof *p->hold)))
        return -1;
    p->nfloat = n;
    for (s = 0; s < p->nsrc; s++) {
        const ng__image *o = p->src[s];
        if (p->nsrc > 1 && (!o->name || o->width != im->width || o->height != im->height))
            return ng__image_fail(im, 0, "EXR encoder: the outputs in one file must be named and of one size");
        for (c = 0; c < o->channels; c++, at++) {
            const char *base = channel_names[o->channels][c];
            const size_t len = (p->nsrc > 1 ? strlen(o->name) + 1 : 0) + strlen(base) + 1;
            if (!(p->ch[at].name = malloc(len))) return -1;
            if (p->nsrc > 1) snprintf(p->ch[at].name, len, "%s.%s", o->name, base);
            else snprintf(p->ch[at].name, len, "%s", base);
            p->ch[at].part = p->nparts > 1 ? s : 0;
            p->ch[at].at = at;
        }
    }
    return 0;
}

/* One part's header: its windows, storage, compression, channels and
 * attributes. */
static int write_part_header(ng__image *im, encoder *p, int k)
{
    const ng_file_options *o = &im->opt;
    const exr_pixel_type_t type = im->bits == 16 ? EXR_PIXEL_HALF : EXR_PIXEL_FLOAT;
    exr_attr_box2i_t data, display;
    exr_attr_v2f_t centre = {{{0.0f, 0.0f}}};
    exr_result_t rc;
    int part, c;
    const int at = placed(im);
    data.min.x = p->x0, data.min.y = p->y0;
    data.max.x = p->x0 + im->width - 1, data.max.y = p->y0 + im->height - 1;
    display.min.x = display.min.y = 0;
    display.max.x = at ? o->full[0] - 1 : im->width - 1;
    display.max.y = at ? o->full[1] - 1 : im->height - 1;
    if ((rc = exr_add_part(p->ctx, p->nparts > 1 ? p->src[k]->name : NULL,
                           p->tile ? EXR_STORAGE_TILED : EXR_STORAGE_SCANLINE, &part)))
        return exr_failed(im, rc, "add part");
    if ((rc = exr_initialize_required_attr(p->ctx, part, &display, &data, 1.0f, &centre, 1.0f,
                                           EXR_LINEORDER_INCREASING_Y, compression_of(o->exr_compression))))
        return exr_failed(im, rc, "header");
    if (p->tile && (rc = exr_set_tile_descriptor(p->ctx, part, (uint32_t)p->tile, (uint32_t)p->tile,
                                                 o->exr_mipmap ? EXR_TILE_MIPMAP_LEVELS : EXR_TILE_ONE_LEVEL,
                                                 o->exr_mipmap ? EXR_TILE_ROUND_UP : EXR_TILE_ROUND_DOWN)))
        return exr_failed(im, rc, "tiles");
    if (o->exr_compression == NG_EXR_ZIP && o->level >= 0 &&
        (rc = exr_set_zip_compression_level(p->ctx, part, o->level)))
        return exr_failed(im, rc, "compression level");
    for (c = 0; c < p->nfloat; c++)
        if (p->ch[c].part == k &&
            (rc = exr_add_channel(p->ctx, part, p->ch[c].name, type, EXR_PERCEPTUALLY_LINEAR, 1, 1)))
            return exr_failed(im, rc, "channel");
    if (o->full[0] > 0) {
        exr_attr_v2d_t origin = {{{o->origin[0], o->origin[1]}}};
        if ((rc = exr_attr_set_v2d(p->ctx, part, "worldOrigin", &origin)) ||
            (rc = exr_attr_set_double(p->ctx, part, "worldPixelSize", o->pixel_size)))
            return exr_failed(im, rc, "attributes");
    }
    for (c = 0; o->meta && o->meta[c] && o->meta[c + 1]; c += 2) /* the provenance */
        if ((rc = exr_attr_set_string(p->ctx, part, o->meta[c], o->meta[c + 1])))
            return exr_failed(im, rc, "attributes");
    return 0;
}

/* The data window's corner. */
static void place_window(ng__image *im, encoder *p)
{
    const int at = placed(im);
    p->x0 = at ? im->opt.offset[0] : 0;
    p->y0 = at ? im->opt.offset[1] : 0;
}

static int write_header(ng__image *im, encoder *p)
{
    exr_result_t rc;
    int k;
    place_window(im, p);
    for (k = 0; k < p->nparts; k++)
        if (write_part_header(im, p, k)) return -1;
    if ((rc = exr_write_header(p->ctx))) return exr_failed(im, rc, "header");
    if (!p->tile && (rc = exr_get_scanlines_per_chunk(p->ctx, 0, &p->lines))) return exr_failed(im, rc, "chunks");
    if (p->tile) p->lines = p->tile;
    return 0;
}

/* ---- mip levels -------------------------------------------------------------------- */

/* Level l is ceil(size / 2^l) pixels each way (OpenEXR's round-up mode),
 * down to 1x1; its pixel (x, y) is the mean of the image's pixels in the
 * block [x 2^l, (x + 1) 2^l) x [y 2^l, (y + 1) 2^l), cut at the image's
 * right and bottom edges (a box filter that counts every pixel once).
 * The sums are doubles added in a fixed order (a level's row from the two
 * rows of the level above it, left to right), divided by the block's
 * pixel count and rounded to the nearest float once: the same bits on
 * every machine, NaN and infinities carried through. */
static int plan_levels(ng__image *im, encoder *p)
{
    int l, w = im->width, h = im->height;
    if (!im->opt.exr_mipmap) return 0;
    while (w > 1 || h > 1) {
        w = (w + 1) / 2, h = (h + 1) / 2;
        p->nlevels++;
        p->mip_bytes += (double)w * h * p->nfloat * sizeof(float);
    }
    p->nlevels++;
    if (im->memory_limit > 0 && p->mip_bytes >= im->memory_limit)
        return ng__image_fail(im, 0, "EXR encoder: the mip levels of a %dx%d image need %.0f MiB, more than the %.0f "
                                     "MiB the memory limit leaves it (raise --memory-limit)",
                              im->width, im->height, p->mip_bytes / 1048576.0, im->memory_limit / 1048576.0);
    if (!(p->lv = calloc((size_t)p->nlevels, sizeof *p->lv))) return -1;
    p->lv[0].w = im->width, p->lv[0].h = im->height;
    for (l = 1; l < p->nlevels; l++) {
        mip_level *v = &p->lv[l];
        v->w = (p->lv[l - 1].w + 1) / 2, v->h = (p->lv[l - 1].h + 1) / 2;
        v->px = malloc((size_t)v->w * (size_t)v->h * (size_t)p->nfloat * sizeof *v->px);
        v->acc = calloc((size_t)v->w * (size_t)p->nfloat, sizeof *v->acc);
        if (!v->px || !v->acc) return -1;
    }
    return 0;
}

static void mip_add(encoder *p, int l, int y, const float *f, const double *d);

/* Row y of level l >= 1 has all its sums: its means, then its sums on
 * into level l + 1. */
static void mip_finish(encoder *p, int l, int y)
{
    mip_level *v = &p->lv[l];
    const long long side = 1LL << l, W = p->lv[0].w, H = p->lv[0].h;
    const long long bh = H - y * side < side ? H - y * side : side;
    const int n = p->nfloat;
    int x, c;
    for (x = 0; x < v->w; x++) {
        const long long bw = W - x * side < side ? W - x * side : side;
        const double count = (double)(bw * bh);
        for (c = 0; c < n; c++) v->px[((size_t)y * v->w + x) * n + c] = (float)(v->acc[(size_t)x * n + c] / count);
    }
    if (l + 1 < p->nlevels) mip_add(p, l, y, NULL, v->acc);
    memset(v->acc, 0, (size_t)v->w * (size_t)n * sizeof *v->acc);
}

/* Adds row y of level l (the image's floats f, or a level's sums d) into
 * level l + 1's row y / 2, which is complete after an odd row or the last. */
static void mip_add(encoder *p, int l, int y, const float *f, const double *d)
{
    mip_level *up = &p->lv[l + 1];
    const int n = p->nfloat, w = p->lv[l].w;
    int x, c;
    for (x = 0; x < w; x++)
        for (c = 0; c < n; c++)
            up->acc[(size_t)(x >> 1) * n + c] += f ? (double)f[(size_t)x * n + c] : d[(size_t)x * n + c];
    if ((y & 1) || y == p->lv[l].h - 1) mip_finish(p, l + 1, y >> 1);
}

/* ---- a band's work: any thread ------------------------------------------------- */

/* Takes the chunk the pipeline compressed instead of writing it: the
 * band's chunks are written in order by the sink's thread. */
static exr_result_t keep_chunk(exr_encode_pipeline_t *pipe)
{
    band *b = pipe->encoding_user_data;
    chunk *k = &b->chunks[b->doing];
    /* A chunk whose stored size is its raw size is raw to every reader;
     * OpenEXRCore 3.1 keeps a compressed chunk that came out exactly that
     * long (OpenEXR issue 2306), which reads back as garbage: store the
     * raw bytes then, as the format says (the smaller; raw on a tie). */
    const int raw = !pipe->compressed_buffer || pipe->compressed_bytes >= pipe->packed_bytes;
    const void *src = raw ? pipe->packed_buffer : pipe->compressed_buffer;
    const size_t n = raw ? pipe->packed_bytes : pipe->compressed_bytes;
    if (b->cap - b->nout < n) {
        size_t cap = b->cap ? b->cap : 1024;
        unsigned char *out;
        while (cap - b->nout < n) cap *= 2;
        if (!(out = realloc(b->out, cap))) return EXR_ERR_OUT_OF_MEMORY;
        b->out = out;
        b->cap = cap;
    }
    memcpy(b->out + b->nout, src, n);
    k->at = b->nout;
    k->size = n;
    b->nout += n;
    return EXR_ERR_SUCCESS;
}

/* Channel pointers into the band for chunk k: interleaved floats, which
 * OpenEXRCore converts to the file's type (half or float). */
static void point_channels(const encoder *p, band *b, const chunk *k)
{
    const size_t stride = (size_t)b->width * (size_t)p->nfloat;
    exr_encode_pipeline_t *pipe = &b->pipe[k->part];
    int c, i;
    for (i = 0; i < pipe->channel_count; i++) {
        exr_coding_channel_info_t *ch = &pipe->channels[i];
        for (c = 0; c < p->nfloat - 1 && (p->ch[c].part != k->part || strcmp(ch->channel_name, p->ch[c].name)); c++) {
        }
        ch->user_bytes_per_element = 4;
        ch->user_data_type = EXR_PIXEL_FLOAT;
        ch->user_pixel_stride = p->nfloat * 4;
        ch->user_line_stride = (int32_t)(stride * 4);
        ch->encode_from_ptr =
            (const uint8_t *)(b->rows + (size_t)k->y * stride + (size_t)k->x * p->nfloat + p->ch[c].at);
    }
}

static exr_result_t encode_chunk(encoder *p, band *b, const chunk *k)
{
    exr_encode_pipeline_t *pipe = &b->pipe[k->part];
    exr_result_t rc;
    if (!b->pipe_ready[k->part]) {
        if ((rc = exr_encoding_initialize(p->ctx, k->part, &k->info, pipe))) return rc;
        b->pipe_ready[k->part] = 1;
        point_channels(p, b, k);
        if ((rc = exr_encoding_choose_default_routines(p->ctx, k->part, pipe))) return rc;
    } else {
        if ((rc = exr_encoding_update(p->ctx, k->part, &k->info, pipe))) return rc;
        point_channels(p, b, k);
    }
    pipe->encoding_user_data = b;
    pipe->yield_until_ready_fn = NULL; /* chunks go out in order from the sink's thread */
    pipe->write_fn = keep_chunk;
    return exr_encoding_run(p->ctx, k->part, pipe);
}

static void encode_band(encoder *p, band *b)
{
    b->nout = 0;
    b->err = EXR_ERR_SUCCESS;
    for (b->doing = 0; b->doing < b->nchunks; b->doing++)
        if ((b->err = encode_chunk(p, b, &b->chunks[b->doing]))) break;
}

static void band_work(void *ctx, int slot)
{
    encoder *p = ctx;
    encode_band(p, &p->slot[slot]);
}

/* ---- writing: the sink's thread, in order -------------------------------------- */

static int write_chunk(encoder *p, int part, int x, int y, int level, const void *data, size_t size)
{
    const exr_result_t rc = p->tile ? exr_write_tile_chunk(p->ctx, part, x, y, level, level, data, size)
                                    : exr_write_scanline_chunk(p->ctx, part, y, data, size);
    return rc ? exr_failed(p->im, rc, "write") : 0;
}

/* A later part's chunk, kept until its part's turn; its bytes count
 * against the memory limit. */
static int hold_chunk(encoder *p, const band *b, const chunk *k)
{
    part_hold *h = &p->hold[k->part];
    const double mib = 1048576.0;
    held *e;
    if (h->n == h->cap) {
        held *more = realloc(h->chunks, (size_t)(h->cap ? 2 * h->cap : 64) * sizeof *more);
        if (!more) return ng__image_fail(p->im, 0, "EXR encoder: out of memory");
        h->chunks = more;
        h->cap = h->cap ? 2 * h->cap : 64;
    }
    if (h->capbytes - h->nbytes < k->size) {
        size_t cap = h->capbytes ? h->capbytes : 65536;
        unsigned char *more;
        while (cap - h->nbytes < k->size) cap *= 2;
        if (!(more = realloc(h->bytes, cap))) return ng__image_fail(p->im, 0, "EXR encoder: out of memory");
        h->bytes = more;
        h->capbytes = cap;
    }
    p->held_bytes += (double)k->size;
    if (p->im->memory_limit > 0 && p->held_bytes + p->mip_bytes > p->im->memory_limit)
        return ng__image_fail(p->im, 0, "EXR encoder: a multi-part file holds its later parts until the first is "
                                        "written, more than the %.0f MiB the memory limit leaves it (use "
                                        "--exr-layout layers, or raise --memory-limit)",
                              p->im->memory_limit / mib);
    memcpy(h->bytes + h->nbytes, b->out + k->at, k->size);
    e = &h->chunks[h->n++];
    e->x = k->info.start_x, e->y = k->info.start_y, e->level = k->info.level_x;
    e->at = h->nbytes, e->size = k->size;
    h->nbytes += k->size;
    return 0;
}

/* The image's chunks of the first part go out as their band is done;
 * those of later parts wait (write_held). */
static int band_retire(void *ctx, int slot)
{
    encoder *p = ctx;
    band *b = &p->slot[slot];
    int i;
    if (b->err) return exr_failed(p->im, b->err, "encoding");
    for (i = 0; i < b->nchunks; i++) {
        const chunk *k = &b->chunks[i];
        if (k->part ? hold_chunk(p, b, k)
                    : write_chunk(p, 0, k->info.start_x, k->info.start_y, 0, b->out + k->at, k->size))
            return -1;
    }
    return 0;
}

/* OpenEXRCore 3.1 sizes a mip level's tiles at its right and bottom
 * edges as whole tiles (it cuts them at the image's edge, not the
 * level's), where every reader (and its own) takes them cut at the
 * level's: the tile at column x, row r of the band, cut there. */
static void clip_tile(const encoder *p, const band *b, int r, int x, int part, exr_chunk_info_t *info)
{
    const int w = b->width - x < p->tile ? b->width - x : p->tile, h = b->nrows - r < p->tile ? b->nrows - r : p->tile;
    int c, n = 0;
    if (info->width == w && info->height == h) return;
    for (c = 0; c < p->nfloat; c++) n += p->ch[c].part == part;
    info->width = w, info->height = h;
    info->unpacked_size = (uint64_t)w * (uint64_t)h * (uint64_t)n * (p->im->bits == 16 ? 2u : 4u);
}

/* The chunks of parts first .. first + nparts - 1 in the band in b (rows
 * y .. y + nrows - 1 of the window or of its level). */
static int plan_chunks(encoder *p, band *b, int first, int nparts)
{
    exr_result_t rc;
    int r, x, part;
    b->nchunks = 0;
    for (part = first; part < first + nparts; part++)
        for (r = 0; r < b->nrows; r += p->lines)
            for (x = 0; x < b->width; x += p->tile ? p->tile : b->width) {
                chunk *k = &b->chunks[b->nchunks++];
                rc = p->tile ? exr_write_tile_chunk_info(p->ctx, part, x / p->tile, (b->y + r) / p->tile, b->level,
                                                         b->level, &k->info)
                             : exr_write_scanline_chunk_info(p->ctx, part, p->y0 + b->y + r, &k->info);
                if (rc) return exr_failed(p->im, rc, "chunk");
                if (p->tile) clip_tile(p, b, r, x, part, &k->info);
                k->part = part;
                k->x = x;
                k->y = r;
            }
    return 0;
}

/* ---- the encoder ---------------------------------------------------------------- */

/* What a slot holds at most: the band's floats, its pipelines' buffers
 * for one chunk each (packed, compressed and scratch, each at most the
 * chunk's bytes in the file), and the band's compressed bytes (a buffer
 * grown by doubling: twice the band's bytes in the file at most). */
static double slot_bytes(const ng__image *im, const encoder *p)
{
    const double sample = im->bits == 16 ? 2 : 4, floats = (double)p->band_rows * im->width * p->nfloat;
    const double one = (double)p->lines * (p->tile ? p->tile : im->width) * p->nfloat * sample;
    if (p->dwa_bytes > 0) /* DWA: the band (and its halves), and Imf's buffers */
        return floats * (4 + (im->bits == 16 ? 2 : 0)) + p->dwa_bytes;
    return floats * 4 + 3 * one + 2 * floats * sample;
}

/* The slots the memory limit allows, besides the mip levels (one per
 * queue thread and one more each, as many as fit): 0 when even one does
 * not, with the reason. A band is at least a chunk row: a row of tiles
 * 8192 pixels high is 8192 rows. */
static int slots_allowed(ng__image *im, const encoder *p, int want)
{
    const double each = slot_bytes(im, p), mib = 1024.0 * 1024.0, limit = im->memory_limit - p->mip_bytes;
    int n = want;
    if (!(im->memory_limit > 0)) return n;
    while (n > 1 && n * each > limit) n--;
    if (each <= limit) return n;
    if (p->tile)
        ng__image_fail(im, 0, "EXR encoder: a row of %d-pixel tiles (%d rows of %d pixels) needs %.0f MiB, more "
                              "than the %.0f MiB the memory limit leaves it (use smaller --exr-tiles, or raise "
                              "--memory-limit)",
                       p->tile, p->band_rows, im->width, each / mib, limit / mib);
    else
        ng__image_fail(im, 0, "EXR encoder: a band of %d rows of %d pixels needs %.0f MiB, more than the %.0f MiB the "
                              "memory limit leaves it (raise --memory-limit)",
                       p->band_rows, im->width, each / mib, limit / mib);
    return 0;
}

static int band_alloc(const encoder *p, band *b, int nchunks)
{
    b->pipe = calloc((size_t)p->nparts, sizeof *b->pipe);
    b->pipe_ready = calloc((size_t)p->nparts, 1);
    b->chunks = malloc((size_t)nchunks * sizeof *b->chunks);
    return b->pipe && b->pipe_ready && b->chunks ? 0 : -1;
}

static int start_bands(ng__image *im, encoder *p)
{
    const size_t stride = (size_t)im->width * (size_t)p->nfloat;
    const size_t unit = (size_t)p->lines * stride * sizeof(float); /* a chunk row's bytes */
    int threads = ng__encq_threads(im->opt.threads);
    size_t units = unit >= BAND_BYTES ? 1 : BAND_BYTES / unit;
    int s;
    if (units > (size_t)(im->height / p->lines + 1)) units = (size_t)(im->height / p->lines + 1);
    p->band_rows = (int)units * p->lines;
    p->max_chunks = (int)units * (p->tile ? (im->width + p->tile - 1) / p->tile : 1) * p->nparts;
    /* DWA: one band, written by Imf's threads (exr_dwa.cc) */
    if (!(p->nslots = slots_allowed(im, p, p->dwa_bytes > 0 ? 1 : threads ? 2 * threads : 1))) return -1;
    if (threads > p->nslots) threads = p->nslots; /* a thread per slot at most: the others would idle */
    p->cur = -1;
    if (!(p->slot = calloc((size_t)p->nslots, sizeof *p->slot))) return -1;
    for (s = 0; s < p->nslots; s++) {
        band *b = &p->slot[s];
        b->rows = malloc((size_t)p->band_rows * stride * sizeof(float));
        b->width = im->width;
        if (!b->rows || band_alloc(p, b, p->max_chunks)) return -1;
    }
    if (p->dwa_bytes > 0) return 0;
    p->q = ng__encq_new(threads, p->nslots, band_work, band_retire, p);
    return p->q ? 0 : -1;
}

/* ---- DWAA and DWAB, through OpenEXR's C++ library (exr_dwa.cc) -------------------- */

/* OpenEXRCore 3.1 has no DWA codec: the file is written by exr_dwa.cc,
 * with the same channels, parts, windows, attributes and mip levels. Its
 * bands are written on the sink's thread as they fill (every part's, so
 * no part is held back: Imf interleaves the parts' chunks); Imf's global
 * thread pool compresses a band's chunks. */
static int is_dwa(const ng_file_options *o)
{
    return o->exr_compression == NG_EXR_DWAA || o->exr_compression == NG_EXR_DWAB;
}

static int dwa_write_fn(void *user, const void *buf, size_t n)
{
    ng__image *im = user;
    const encoder *p = im->state;
    if (p->dead || im->what[0]) return -1;
    return ng__image_write(im, buf, n);
}

static int dwa_seek_fn(void *user, unsigned long long offset)
{
    ng__image *im = user;
    const encoder *p = im->state;
    if (p->dead || im->what[0]) return -1;
    return ng__image_seek(im, (off_t)offset);
}

static int dwa_failed(ng__image *im, const char *msg)
{
    if (im->what[0]) return -1; /* a failed write has said why */
    return ng__image_fail(im, 0, "EXR encoder (DWA): %s", msg);
}

/* The file's description; ch (p->nfloat) and names (p->nparts) are the
 * caller's, alive while the spec is used. */
static void dwa_spec(ng__image *im, const encoder *p, ng__dwa_spec *s, ng__dwa_channel *ch, const char **names)
{
    const ng_file_options *o = &im->opt;
    const int at = placed(im);
    int c;
    memset(s, 0, sizeof *s);
    s->dwab = o->exr_compression == NG_EXR_DWAB;
    s->level = o->exr_dwa_level >= 0 ? o->exr_dwa_level : NG__DWA_DEFAULT_LEVEL;
    s->half = im->bits == 16;
    s->data[0] = p->x0, s->data[1] = p->y0;
    s->data[2] = p->x0 + im->width - 1, s->data[3] = p->y0 + im->height - 1;
    s->display[2] = at ? o->full[0] - 1 : im->width - 1;
    s->display[3] = at ? o->full[1] - 1 : im->height - 1;
    s->tile = p->tile;
    s->mipmap = o->exr_mipmap;
    s->nparts = p->nparts;
    for (c = 0; c < p->nparts; c++) names[c] = p->nparts > 1 ? p->src[c]->name : NULL;
    s->part_names = names;
    for (c = 0; c < p->nfloat; c++) ch[c].name = p->ch[c].name, ch[c].part = p->ch[c].part, ch[c].at = p->ch[c].at;
    s->ch = ch;
    s->nch = p->nfloat;
    s->world = o->full[0] > 0;
    s->origin[0] = o->origin[0], s->origin[1] = o->origin[1];
    s->pixel_size = o->pixel_size;
    s->meta = o->meta;
    s->threads = ng__encq_threads(o->threads);
    s->write = dwa_write_fn;
    s->seek = dwa_seek_fn;
    s->user = im;
}

/* The band (its memory checked against the limit, with Imf's buffers),
 * then the header. */
static int dwa_begin(ng__image *im, encoder *p)
{
    ng__dwa_channel *ch = calloc((size_t)p->nfloat, sizeof *ch);
    const char **names = calloc((size_t)p->nparts, sizeof *names);
    ng__dwa_spec s;
    char msg[256];
    int rc = -1;
    place_window(im, p);
    if (ch && names) {
        dwa_spec(im, p, &s, ch, names);
        p->lines = p->tile ? p->tile : s.dwab ? 256 : 32;
        p->dwa_bytes = ng__dwa_buffer_bytes(&s, im->width);
        if (start_bands(im, p))
            rc = im->what[0] ? -1 : ng__image_fail(im, 0, "cannot start the EXR encoder (out of memory)");
        else if (!(p->dwa = ng__dwa_open(&s, msg, sizeof msg)))
            rc = dwa_failed(im, msg);
        else
            rc = 0;
    } else {
        rc = ng__image_fail(im, 0, "cannot start the EXR encoder (out of memory)");
    }
    free(ch);
    free(names);
    return rc;
}

/* Rows of level l of every part: the band's, or a row of a mip level's tiles. */
static int dwa_rows(encoder *p, int l, int y, int nrows, int width, const float *rows)
{
    char msg[256];
    int k;
    for (k = 0; k < p->nparts; k++)
        if (ng__dwa_write(p->dwa, k, l, y, nrows, width, rows, msg, sizeof msg)) return dwa_failed(p->im, msg);
    return 0;
}

/* The mip levels, a row of tiles at a time, then the offset tables. */
static int dwa_end(encoder *p)
{
    int l, y;
    for (l = 1; l < p->nlevels; l++)
        for (y = 0; y < p->lv[l].h; y += p->tile)
            if (dwa_rows(p, l, y, p->lv[l].h - y < p->tile ? p->lv[l].h - y : p->tile, p->lv[l].w,
                         p->lv[l].px + (size_t)y * p->lv[l].w * p->nfloat))
                return -1;
    ng__dwa_close(p->dwa); /* the offset tables, through dwa_write_fn */
    p->dwa = NULL;
    return p->im->what[0] ? -1 : 0;
}

/* A joined output keeps its last rows for the lead's encoder. */
static int stage_begin(ng__image *im)
{
    if (!(im->state = calloc(1, sizeof(staged)))) return ng__image_fail(im, 0, "out of memory");
    return 0;
}

static int stage_rows(ng__image *im, int y, int nrows, const float *rows)
{
    staged *t = im->state;
    const size_t n = (size_t)nrows * (size_t)im->width * (size_t)im->channels;
    if (n > t->cap) {
        float *more = realloc(t->rows, n * sizeof *more);
        if (!more) return ng__image_fail(im, 0, "out of memory for %d rows", nrows);
        t->rows = more;
        t->cap = n;
    }
    memcpy(t->rows, rows, n * sizeof *rows);
    t->y = y;
    t->nrows = nrows;
    return 0;
}

static int encode_begin(ng__image *im)
{
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    encoder *p;
    exr_result_t rc;
    if (im->joining) return stage_begin(im);
    if (!(p = im->state = calloc(1, sizeof *p)))
        return ng__image_fail(im, 0, "cannot start the EXR encoder (out of memory)");
    pthread_mutex_init(&p->mu, NULL);
    p->im = im;
    p->tile = im->opt.exr_tile ? im->opt.exr_tile : im->opt.exr_mipmap ? MIP_TILE : 0;
    if (plan_channels(im, p) || plan_levels(im, p))
        return im->what[0] ? -1 : ng__image_fail(im, 0, "cannot start the EXR encoder (out of memory)");
    if (is_dwa(&im->opt)) return dwa_begin(im, p);
    init.error_handler_fn = error_fn;
    init.user_data = im;
    init.write_fn = write_fn;
    /* noisegraph's own limits hold; OpenEXRCore's defaults guard readers */
    init.max_image_width = init.max_image_height = NG_MAX_EXTENT;
    init.max_tile_width = init.max_tile_height = 65536;
    if ((rc = exr_start_write(&p->ctx, "noisegraph output", EXR_WRITE_FILE_DIRECTLY, &init)))
        return exr_failed(im, rc, "start");
    if (write_header(im, p)) return -1;
    if (start_bands(im, p))
        return im->what[0] ? -1 : ng__image_fail(im, 0, "cannot start the EXR encoder (out of memory)");
    return 0;
}

static int queue_failed(ng__image *im)
{
    return im->what[0] ? -1 : ng__image_fail(im, 0, "EXR encoder failed");
}

/* Submits the band in the current slot (DWA: writes it). */
static int submit(encoder *p)
{
    if (p->dwa) {
        const band *b = &p->slot[p->cur];
        p->cur = -1;
        return dwa_rows(p, 0, b->y, b->nrows, b->width, b->rows);
    }
    if (plan_chunks(p, &p->slot[p->cur], 0, p->nparts)) return -1;
    ng__encq_submit(p->q, p->cur);
    p->cur = -1;
    return 0;
}

/* Rows r .. r + n - 1 of the given ones (the lead's own) into the band at
 * its row `to`, each pixel's floats every output's channels in order: the
 * joined outputs' from their staged rows, which must be these rows. */
static int gather(encoder *p, band *b, int to, int y, int r, int n, const float *rows)
{
    ng__image *im = p->im;
    const size_t px = (size_t)n * (size_t)im->width;
    float *dst = b->rows + (size_t)to * im->width * p->nfloat;
    size_t i;
    int s, at = 0;
    if (p->nsrc == 1) {
        memcpy(dst, rows + (size_t)r * im->width * im->channels, px * im->channels * sizeof *dst);
        return 0;
    }
    for (s = 0; s < p->nsrc; s++) {
        const ng__image *o = p->src[s];
        const float *from = rows;
        if (o != im) {
            const staged *t = o->state;
            if (!t || t->y != y || t->nrows < r + n)
                return ng__image_fail(im, 0, "EXR encoder: the outputs' rows came out of step");
            from = t->rows;
        }
        from += (size_t)r * im->width * o->channels;
        for (i = 0; i < px; i++) memcpy(dst + i * p->nfloat + at, from + i * o->channels, o->channels * sizeof *dst);
        at += o->channels;
    }
    return 0;
}

static int encode_rows(ng__image *im, int y, int nrows, const float *rows)
{
    encoder *p = im->state;
    size_t stride;
    int r = 0, k;
    if (im->joining) return stage_rows(im, y, nrows, rows);
    stride = (size_t)im->width * (size_t)p->nfloat;
    while (r < nrows) {
        band *b;
        int n;
        if (p->cur < 0) {
            if ((p->cur = p->dwa ? 0 : ng__encq_next(p->q)) < 0) return queue_failed(im);
            p->slot[p->cur].y = y + r;
            p->slot[p->cur].nrows = 0;
        }
        b = &p->slot[p->cur];
        n = p->band_rows - b->nrows < nrows - r ? p->band_rows - b->nrows : nrows - r;
        if (gather(p, b, b->nrows, y, r, n, rows)) return -1;
        for (k = 0; k < n && p->nlevels > 1; k++)
            mip_add(p, 0, y + r + k, b->rows + (size_t)(b->nrows + k) * stride, NULL);
        b->nrows += n;
        r += n;
        if ((b->nrows == p->band_rows || b->y + b->nrows == im->height) && submit(p)) return -1;
    }
    return 0;
}

/* The pipelines' buffers, while the context they came from lives. */
static void free_band_pipes(encoder *p, band *b)
{
    int k;
    for (k = 0; b->pipe_ready && k < p->nparts; k++)
        if (b->pipe_ready[k]) {
            exr_encoding_destroy(p->ctx, &b->pipe[k]);
            b->pipe_ready[k] = 0;
        }
}

static void free_pipes(encoder *p)
{
    int s;
    for (s = 0; p->slot && s < p->nslots; s++) free_band_pipes(p, &p->slot[s]);
}

static void band_free(band *b)
{
    free(b->chunks);
    free(b->out);
    free(b->pipe);
    free(b->pipe_ready);
}

/* Part k's mip levels, a row of tiles at a time, on the sink's thread. */
static int write_levels(encoder *p, int k)
{
    band b = {0};
    int l, rc = 0;
    if (band_alloc(p, &b, (p->im->width + p->tile - 1) / p->tile))
        rc = ng__image_fail(p->im, 0, "EXR encoder: out of memory");
    for (l = 1; l < p->nlevels && !rc; l++) {
        const mip_level *v = &p->lv[l];
        int i;
        b.level = l;
        b.width = v->w;
        for (b.y = 0; b.y < v->h && !rc; b.y += p->tile) {
            b.nrows = v->h - b.y < p->tile ? v->h - b.y : p->tile;
            b.rows = v->px + (size_t)b.y * v->w * p->nfloat;
            if ((rc = plan_chunks(p, &b, k, 1))) break;
            encode_band(p, &b);
            if (b.err) rc = exr_failed(p->im, b.err, "encoding");
            for (i = 0; i < b.nchunks && !rc; i++)
                rc = write_chunk(p, k, b.chunks[i].info.start_x, b.chunks[i].info.start_y, l,
                                 b.out + b.chunks[i].at, b.chunks[i].size);
        }
    }
    free_band_pipes(p, &b);
    band_free(&b);
    return rc;
}

/* Part k's chunks of the image, held while the parts before it were written. */
static int write_held(encoder *p, int k)
{
    const part_hold *h = &p->hold[k];
    int i;
    for (i = 0; i < h->n; i++)
        if (write_chunk(p, k, h->chunks[i].x, h->chunks[i].y, h->chunks[i].level, h->bytes + h->chunks[i].at,
                        h->chunks[i].size))
            return -1;
    return 0;
}

static int encode_end(ng__image *im)
{
    encoder *p = im->state;
    exr_result_t rc;
    int k;
    if (im->joining) return 0;
    if (p->dwa) return dwa_end(p);
    if (ng__encq_drain(p->q)) return queue_failed(im);
    free_pipes(p);
    for (k = 0; k < p->nparts; k++)
        if ((k && write_held(p, k)) || (p->nlevels > 1 && write_levels(p, k))) return -1;
    rc = exr_finish(&p->ctx); /* the chunk offset table */
    p->ctx = NULL;
    if (rc) return exr_failed(im, rc, "finish");
    return 0;
}

static void stage_discard(ng__image *im)
{
    staged *t = im->state;
    if (t) free(t->rows);
    free(t);
    im->state = NULL;
}

static void encode_discard(ng__image *im)
{
    encoder *p = im->state;
    int s;
    if (im->joining) {
        stage_discard(im);
        return;
    }
    if (!p) return;
    ng__encq_free(p->q); /* first: a worker may be in a band */
    p->dead = 1;         /* the file may be closed already */
    if (p->dwa) ng__dwa_close(p->dwa); /* its writes fail now, unseen */
    free_pipes(p);
    for (s = 0; p->slot && s < p->nslots; s++) {
        free(p->slot[s].rows);
        band_free(&p->slot[s]);
    }
    free(p->slot);
    for (s = 0; p->ch && s < p->nfloat; s++) free(p->ch[s].name);
    free(p->ch);
    for (s = 0; p->hold && s < p->nparts; s++) {
        free(p->hold[s].chunks);
        free(p->hold[s].bytes);
    }
    free(p->hold);
    for (s = 0; p->lv && s < p->nlevels; s++) {
        free(p->lv[s].px);
        free(p->lv[s].acc);
    }
    free(p->lv);
    if (p->ctx) exr_finish(&p->ctx);
    pthread_mutex_destroy(&p->mu);
    free(p);
    im->state = NULL;
}

const ng__encoder ng__exr_encoder = {
    .begin = encode_begin, .rows = encode_rows, .end = encode_end, .discard = encode_discard,
};

/* ---- reading a tile back (tileread.h): any storage and compression OpenEXRCore decodes ---- */

/* An EXR tile's reader. Rows are decoded a chunk row at a time (a
 * scanline chunk, or a row of tiles) into buf, which holds rows buf_y ..
 * buf_y + buf_rows - 1. */
typedef struct exr_in {
    exr_context_t ctx;
    int tile_width;  /* 0: scanlines */
    int lines;       /* rows of a scanline chunk, or the tile height */
    int x0, y0;      /* the data window's corner */
    float *buf;
    int buf_y, buf_rows;
    char msg[160];   /* OpenEXRCore's last error */
    /* DWAA/DWAB, which OpenEXRCore does not decode: rows through
     * exr_dwa.cc, each channel's name and place among a pixel's floats */
    ng__dwa_in *dwa;
    const char *names[NG_MAX_CHANNELS];
    int at[NG_MAX_CHANNELS];
} exr_in;

static void read_error_fn(exr_const_context_t ctx, exr_result_t code, const char *msg)
{
    void *user = NULL;
    exr_in *t;
    if (exr_get_user_data(ctx, &user) != EXR_ERR_SUCCESS || !user) return;
    t = ((ng__tile_reader *)user)->state;
    snprintf(t->msg, sizeof t->msg, "%s", msg ? msg : exr_get_default_error_message(code));
}

/* OpenEXRCore reads through the reader's own descriptor (pread: it may
 * read from any offset, in any order). */
static int64_t read_fn(exr_const_context_t ctx, void *user, void *buf, uint64_t sz, uint64_t offset,
                       exr_stream_error_func_ptr_t error_cb)
{
    const ng__tile_reader *r = user;
    ssize_t n;
    (void)ctx;
    (void)error_cb;
    do n = pread(fileno(r->fp), buf, (size_t)sz, (off_t)offset);
    while (n < 0 && errno == EINTR);
    return (int64_t)n;
}

/* The file's size, so that OpenEXRCore refuses offsets past its end. */
static int64_t size_fn(exr_const_context_t ctx, void *user)
{
    const ng__tile_reader *r = user;
    struct stat st;
    (void)ctx;
    return fstat(fileno(r->fp), &st) == 0 ? (int64_t)st.st_size : -1;
}

static int read_failed(ng__tile_reader *r, exr_result_t rc, const char *what)
{
    const exr_in *t = r->state;
    return ng__tile_fail(r, "is not a readable EXR (%s: %s)", what, t->msg[0] ? t->msg : exr_get_default_error_message(rc));
}

/* The data window is the tile: its size, and where it lies. noisegraph
 * places a region in the display window of the whole image; a file that
 * is an image of its own (windows equal, at 0,0) is taken as well. */
static int check_windows(ng__tile_reader *r)
{
    exr_in *t = r->state;
    exr_attr_box2i_t dw, disp;
    long w, h;
    exr_result_t rc;
    if ((rc = exr_get_data_window(t->ctx, 0, &dw)) || (rc = exr_get_display_window(t->ctx, 0, &disp)))
        return read_failed(r, rc, "windows");
    w = (long)dw.max.x - dw.min.x + 1, h = (long)dw.max.y - dw.min.y + 1;
    if (w != r->width || h != r->height) return ng__tile_wrong_size(r, w, h);
    t->x0 = dw.min.x, t->y0 = dw.min.y;
    if (disp.min.x == 0 && disp.min.y == 0 && disp.max.x == r->full_width - 1 && disp.max.y == r->full_height - 1 &&
        dw.min.x == r->x && dw.min.y == r->y)
        return 0;
    if (dw.min.x == 0 && dw.min.y == 0 && disp.min.x == 0 && disp.min.y == 0 && disp.max.x == dw.max.x &&
        disp.max.y == dw.max.y)
        return 0;
    return ng__tile_fail(r, "lies at %d,%d of a %ldx%ld image; the tile is at %d,%d of %dx%d", dw.min.x, dw.min.y,
                         (long)disp.max.x - disp.min.x + 1, (long)disp.max.y - disp.min.y + 1, r->x, r->y,
                         r->full_width, r->full_height);
}

/* Where channel name goes among a pixel's interleaved samples: a grey
 * tile's one channel (whatever its name), or R, G (B, A) as the writer
 * names them; -1 if neither. */
static int channel_at(const ng__tile_reader *r, const char *name)
{
    int k;
    if (r->channels == 1) return 0;
    for (k = 0; k < r->channels; k++)
        if (!strcmp(name, channel_names[r->channels][k])) return k;
    return -1;
}

static int check_channels(ng__tile_reader *r)
{
    const exr_in *t = r->state;
    const exr_attr_chlist_t *list = NULL;
    exr_result_t rc;
    int i;
    if ((rc = exr_get_channels(t->ctx, 0, &list))) return read_failed(r, rc, "channels");
    if (list->num_channels < 1 || list->num_channels > NG_MAX_CHANNELS)
        return ng__tile_fail(r, "has %d channels; a tile has 1 (grey) to %d (R, G, B, A)", list->num_channels,
                             NG_MAX_CHANNELS);
    r->channels = list->num_channels;
    r->bits = 16; /* halves, unless a channel is float */
    for (i = 0; i < list->num_channels; i++) {
        const exr_attr_chlist_entry_t *c = &list->entries[i];
        if (channel_at(r, c->name.str) < 0)
            return ng__tile_fail(r, "has a channel %s; a tile of %d channels has R, G%s", c->name.str, r->channels,
                                 r->channels == 2 ? "" : r->channels == 3 ? ", B" : ", B, A");
        if (c->pixel_type != EXR_PIXEL_HALF && c->pixel_type != EXR_PIXEL_FLOAT)
            return ng__tile_fail(r, "channel %s holds integers; a tile holds half or float samples", c->name.str);
        if (c->x_sampling != 1 || c->y_sampling != 1)
            return ng__tile_fail(r, "channel %s is subsampled; a tile has a sample per pixel", c->name.str);
        if (c->pixel_type == EXR_PIXEL_FLOAT) r->bits = 32;
    }
    return 0;
}

/* The chunk holding the rows from row (a multiple of lines) on: a
 * scanline chunk, or tile column tx of that tile row. */
static exr_result_t chunk_at(const exr_in *t, int row, int tx, exr_chunk_info_t *ci)
{
    return t->tile_width ? exr_read_tile_chunk_info(t->ctx, 0, tx, row / t->lines, 0, 0, ci)
                         : exr_read_scanline_chunk_info(t->ctx, 0, t->y0 + row, ci);
}

static int columns(const ng__tile_reader *r)
{
    const exr_in *t = r->state;
    return t->tile_width ? (r->width + t->tile_width - 1) / t->tile_width : 1;
}

/* Every chunk's place in the offset table and its size against the
 * file's: a tile cut short is refused when it is opened, before a stitch
 * writes anything. */
static int check_chunks(ng__tile_reader *r)
{
    const exr_in *t = r->state;
    int row, tx;
    for (row = 0; row < r->height; row += t->lines)
        for (tx = 0; tx < columns(r); tx++) {
            exr_chunk_info_t ci;
            const exr_result_t rc = chunk_at(t, row, tx, &ci);
            if (rc) return read_failed(r, rc, "chunk table");
        }
    return 0;
}

/* A DWA file's rows are read by exr_dwa.cc (OpenEXRCore read its header). */
static int open_dwa(ng__tile_reader *r)
{
    exr_in *t = r->state;
    const exr_attr_chlist_t *list = NULL;
    exr_compression_t comp;
    exr_result_t rc;
    char msg[256];
    int i;
    if ((rc = exr_get_compression(t->ctx, 0, &comp)) || (rc = exr_get_channels(t->ctx, 0, &list)))
        return read_failed(r, rc, "header");
    if (comp != EXR_COMPRESSION_DWAA && comp != EXR_COMPRESSION_DWAB) return 0;
    for (i = 0; i < r->channels; i++) {
        t->names[i] = list->entries[i].name.str;
        t->at[i] = channel_at(r, t->names[i]);
    }
    if (!(t->dwa = ng__dwa_read_open(r->path, msg, sizeof msg)))
        return ng__tile_fail(r, "is not a readable EXR (%s)", msg);
    return 0;
}

static int read_open(ng__tile_reader *r)
{
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    exr_storage_t storage;
    exr_result_t rc;
    int parts = 0;
    exr_in *t;
    if (!(t = r->state = calloc(1, sizeof *t))) return ng__tile_fail(r, "out of memory");
    init.user_data = r;
    init.error_handler_fn = read_error_fn;
    init.read_fn = read_fn;
    init.size_fn = size_fn;
    init.max_image_width = init.max_image_height = NG_MAX_EXTENT;
    init.max_tile_width = init.max_tile_height = 65536;
    /* a damaged offset table is an error, not something to guess around */
    init.flags = EXR_CONTEXT_FLAG_DISABLE_CHUNK_RECONSTRUCTION;
    if ((rc = exr_start_read(&t->ctx, r->path, &init))) return read_failed(r, rc, "header");
    if ((rc = exr_get_count(t->ctx, &parts)) || (rc = exr_get_storage(t->ctx, 0, &storage)))
        return read_failed(r, rc, "header");
    if (parts != 1) return ng__tile_fail(r, "has %d parts; a tile is one image", parts);
    if (storage != EXR_STORAGE_SCANLINE && storage != EXR_STORAGE_TILED)
        return ng__tile_fail(r, "is a deep EXR; a tile is a flat image");
    if (check_windows(r) || check_channels(r)) return -1;
    if (storage == EXR_STORAGE_TILED) {
        uint32_t tw, th;
        exr_tile_level_mode_t levels;
        exr_tile_round_mode_t round;
        if ((rc = exr_get_tile_descriptor(t->ctx, 0, &tw, &th, &levels, &round))) return read_failed(r, rc, "tiles");
        t->tile_width = (int)tw, t->lines = (int)th; /* level 0 (full size) of any level mode */
    } else if ((rc = exr_get_scanlines_per_chunk(t->ctx, 0, &t->lines))) {
        return read_failed(r, rc, "chunks");
    }
    if (t->lines < 1 || (storage == EXR_STORAGE_TILED && t->tile_width < 1))
        return ng__tile_fail(r, "is not a readable EXR (chunks of %d rows)", t->lines);
    t->buf_rows = t->lines < r->height ? t->lines : r->height;
    if (!(t->buf = malloc((size_t)t->buf_rows * (size_t)r->width * (size_t)r->channels * sizeof *t->buf)))
        return ng__tile_fail(r, "out of memory for %d rows", t->buf_rows);
    t->buf_y = -t->buf_rows; /* nothing decoded yet */
    return check_chunks(r) || open_dwa(r);
}

/* Decodes chunk ci (tile rows row ..) into buf at column col, as floats
 * (halves exactly). */
static int decode(ng__tile_reader *r, const exr_chunk_info_t *ci, int row, int col)
{
    exr_in *t = r->state;
    exr_decode_pipeline_t dec = EXR_DECODE_PIPELINE_INITIALIZER;
    const size_t stride = (size_t)r->width * (size_t)r->channels;
    char what[64];
    exr_result_t rc;
    int i;
    if (ci->width > r->width - col || ci->height > t->buf_rows)
        return ng__tile_fail(r, "is not a readable EXR (a chunk of %dx%d at row %d)", ci->width, ci->height, row);
    rc = exr_decoding_initialize(t->ctx, 0, ci, &dec);
    for (i = 0; rc == EXR_ERR_SUCCESS && i < dec.channel_count; i++) {
        exr_coding_channel_info_t *c = &dec.channels[i];
        c->decode_to_ptr = (uint8_t *)(t->buf + (size_t)col * (size_t)r->channels + channel_at(r, c->channel_name));
        c->user_bytes_per_element = 4;
        c->user_data_type = EXR_PIXEL_FLOAT;
        c->user_pixel_stride = r->channels * 4;
        c->user_line_stride = (int32_t)(stride * 4);
    }
    if (rc == EXR_ERR_SUCCESS) rc = exr_decoding_choose_default_routines(t->ctx, 0, &dec);
    if (rc == EXR_ERR_SUCCESS) rc = exr_decoding_run(t->ctx, 0, &dec);
    exr_decoding_destroy(t->ctx, &dec);
    if (rc == EXR_ERR_SUCCESS) return 0;
    snprintf(what, sizeof what, "rows %d to %d", row, row + ci->height - 1);
    return read_failed(r, rc, what);
}

/* The chunk row holding tile row y into buf. */
static int fill(ng__tile_reader *r, int y)
{
    exr_in *t = r->state;
    const int row = y - y % t->lines;
    int tx;
    t->buf_y = -t->buf_rows; /* a failure leaves no stale rows */
    if (t->dwa) {
        const int n = r->height - row < t->buf_rows ? r->height - row : t->buf_rows;
        char msg[256];
        if (ng__dwa_read(t->dwa, row, n, r->width, r->channels, t->names, t->at, t->buf, msg, sizeof msg))
            return ng__tile_fail(r, "is not a readable EXR (rows %d to %d: %s)", row, row + n - 1, msg);
        t->buf_y = row;
        return 0;
    }
    for (tx = 0; tx < columns(r); tx++) {
        exr_chunk_info_t ci;
        const exr_result_t rc = chunk_at(t, row, tx, &ci);
        if (rc) return read_failed(r, rc, "chunk table");
        if (decode(r, &ci, row, tx * t->tile_width)) return -1;
    }
    t->buf_y = row;
    return 0;
}

static int read_rows(ng__tile_reader *r, int nrows, float *dst, size_t stride)
{
    const exr_in *t = r->state;
    const size_t n = (size_t)r->width * (size_t)r->channels;
    int k;
    for (k = 0; k < nrows; k++) {
        const int y = r->next_row + k;
        if (y >= t->buf_y + t->buf_rows && fill(r, y)) return -1;
        memcpy(dst + (size_t)k * stride, t->buf + (size_t)(y - t->buf_y) * n, n * sizeof *dst);
    }
    return 0;
}

static void read_close(ng__tile_reader *r)
{
    exr_in *t = r->state;
    if (!t) return;
    if (t->dwa) ng__dwa_read_close(t->dwa);
    if (t->ctx) exr_finish(&t->ctx);
    free(t->buf);
}

/* ---- its string attributes read back (ng_file_meta) --------------------------------- */

static void quiet_exr_error(exr_const_context_t ctx, exr_result_t code, const char *msg)
{
    (void)ctx, (void)code, (void)msg;
}

int ng__exr_meta(const char *path, void (*each)(void *user, const char *key, const char *value), void *user,
                 char *msg, size_t len)
{
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    exr_context_t ctx = NULL;
    exr_result_t rc;
    int32_t n = 0, i;
    init.error_handler_fn = quiet_exr_error;
    if ((rc = exr_start_read(&ctx, path, &init))) {
        snprintf(msg, len, "not an EXR OpenEXR reads (%s)", exr_get_default_error_message(rc));
        return -1;
    }
    if (exr_get_attribute_count(ctx, 0, &n) == EXR_ERR_SUCCESS)
        for (i = 0; i < n; i++) {
            const exr_attribute_t *a = NULL;
            if (exr_get_attribute_by_index(ctx, 0, EXR_ATTR_LIST_FILE_ORDER, i, &a) == EXR_ERR_SUCCESS && a &&
                a->type == EXR_ATTR_STRING && a->string) {
                char *v = malloc((size_t)a->string->length + 1);
                if (!v) continue;
                memcpy(v, a->string->str, (size_t)a->string->length);
                v[a->string->length] = '\0';
                each(user, a->name, v);
                free(v);
            }
        }
    exr_finish(&ctx);
    return 0;
}

const ng__reader ng__exr_reader = {.open = read_open, .rows = read_rows, .close = read_close};
