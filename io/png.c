/*
 * png.c — the PNG encoder of the file sink (filesink.c): 8- or 16-bit grey
 * or RGB, values clamped to [0,1]; and the reader of PNG tiles for stitch
 * (tileread.h), an integer sample k of depth max reading as k / max.
 *
 * Compression runs beside the render and across cores (encq.c): the rows
 * are cut into bands of a fixed size (BAND_BYTES of samples, whole rows:
 * it depends on the image's width and depth alone, never on threads or
 * tiles), and each band is quantized, filtered and deflated on its own, as
 * a raw deflate stream of its own ended by a sync flush (the last band:
 * finished). Those streams, one after the other, are one valid deflate
 * stream; the zlib header goes before the first and the Adler-32 of all
 * the filtered bytes (adler32_combine of the bands') after the last. Each
 * band is one IDAT chunk, written in order by the sink's thread. The bytes
 * are the same for any thread count; a band restarts the compressor's
 * history, which costs well under 1% in size at these band sizes.
 *
 * libpng writes the signature and IHDR and frames every chunk (its
 * png_write_chunk_* calls); it reports errors by longjmp, so every function
 * below calling into libpng owns one setjmp, and after a jump only
 * png_destroy_write_struct (in encode_discard) touches the png struct again.
 *
 * Memory: a few bands per encoder thread (the queue's slots), whatever the
 * height. ng_png_encode_memory runs the same encoder into memory (the
 * server's pictures).
 */
#include "deflate.h"
#include "encq.h"
#include "filesink.h"
#include "tileread.h"

#include <png.h>
#include <zlib.h>

#include <errno.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Levels: 0 stores; 1 is Huffman coding alone; 2 (the default) adds
 * runs of one byte (as zlib's Z_RLE); both are our own coder (deflate.c);
 * 3 to 9 are zlib's string matching at that level (Z_FILTERED, as
 * libpng). Noise filtered by Paeth leaves few repeated strings to find:
 * on terrain rows zlib's string matching (levels 1 to 6) makes files no
 * smaller than runs or Huffman codes alone, at a fraction of their speed.
 * deflate.c makes them as small as zlib's Z_RLE, and faster (`bench
 * encode`): a code per 64 KiB rather than zlib's 16 K symbols, and optimal
 * lengths. Matching pays on flat or
 * terraced images (masks, quantized steps). Paeth alone matches libpng's
 * try-every-filter heuristic on smooth noise (same size) at a fraction of
 * the filtering work. */
#define DEFAULT_LEVEL 2
/* Samples per band, in bytes as stored: large enough that a fresh
 * compressor history per band costs little, small enough that a few bands
 * per thread stay a few MiB. */
#define BAND_BYTES (256 * 1024)

typedef struct band {
    float *rows;          /* nrows + 1 rows: the row above the band (for the filter; unused for y 0), then its rows */
    int y, nrows, last;   /* first row, rows, the image's last band */
    unsigned char *line;  /* scratch: two packed rows (the one above, this one) */
    unsigned char *filt;  /* nrows filtered rows, each its filter byte and then its samples */
    unsigned char *out;   /* the band's deflate stream */
    size_t nfilt, nout, cap;
    uLong adler;          /* of filt */
    z_stream z;
    int z_ready, zerr;    /* zerr: deflate's error, or Z_OK */
} band;

typedef struct encoder {
    png_structp png;
    png_infop info;
    char msg[200];        /* libpng's own error text */
    int level, band_rows, nslots;
    size_t row_bytes;     /* packed samples of a row */
    band *slot;
    ng__encq *q;
    int cur;              /* the slot being filled, or -1 */
    float *above;         /* the last row of the band before */
    uLong adler;          /* of the filtered bytes written so far */
    ng__image *im;
} encoder;

/* ---- libpng callbacks ---------------------------------------------------- */

static void error_fn(png_structp png, png_const_charp msg)
{
    ng__image *im = png_get_error_ptr(png);
    encoder *p = im->state;
    snprintf(p->msg, sizeof p->msg, "%s", msg);
    png_longjmp(png, 1);
}

/* Warnings concern ancillary details we never write; an error that follows
 * one carries its own text. */
static void warning_fn(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* Our own I/O so a short write keeps its errno (ENOSPC, EFBIG) for the
 * message instead of libpng's generic "Write Error". */
static void write_fn(png_structp png, png_bytep data, size_t n)
{
    ng__image *im = png_get_io_ptr(png);
    if (ng__image_write(im, data, n) != 0) png_error(png, "write failed");
}

static void flush_fn(png_structp png)
{
    ng__image *im = png_get_io_ptr(png);
    errno = 0;
    if (fflush(im->fp) != 0) {
        ng__image_fail(im, errno ? errno : EIO, "cannot write");
        png_error(png, "write failed");
    }
}

/* After a longjmp: a failed write has said why already. */
static int encoder_failed(ng__image *im)
{
    encoder *p = im->state;
    if (im->what[0]) return -1;
    return ng__image_fail(im, 0, "PNG encoder: %s", p->msg);
}

/* ---- a band's work: any thread ---------------------------------------------- */

/* ng__quantize's arithmetic, split in two loops that the compiler
 * vectorises (one loop with both does not: its selects become branches
 * around the conversion): the clamps as selects (NaN fails v > 0 and goes
 * to 0, as there), then the scaling, whose result (at most 65535.5,
 * truncated) fits an int, a conversion SIMD has. Same values. */
#define PACK_CHUNK 256

static void clamp01(float *restrict dst, const float *restrict src, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const float v = src[i] > 0.0f ? src[i] : 0.0f;
        dst[i] = v < 1.0f ? v : 1.0f;
    }
}

static void pack8(unsigned char *restrict dst, const float *restrict src, size_t n)
{
    float c[PACK_CHUNK];
    size_t at, i;
    for (at = 0; at < n; at += PACK_CHUNK) {
        const size_t m = n - at < PACK_CHUNK ? n - at : PACK_CHUNK;
        clamp01(c, src + at, m);
        for (i = 0; i < m; i++) dst[at + i] = (unsigned char)(int)((double)c[i] * 255.0 + 0.5);
    }
}

/* 16-bit samples are stored big-endian, as PNG wants, by hand. */
static void pack16(unsigned char *restrict dst, const float *restrict src, size_t n)
{
    float c[PACK_CHUNK];
    size_t at, i;
    for (at = 0; at < n; at += PACK_CHUNK) {
        const size_t m = n - at < PACK_CHUNK ? n - at : PACK_CHUNK;
        unsigned char *d = dst + 2 * at;
        clamp01(c, src + at, m);
        for (i = 0; i < m; i++) {
            const int q = (int)((double)c[i] * 65535.0 + 0.5);
            d[2 * i] = (unsigned char)(q >> 8);
            d[2 * i + 1] = (unsigned char)q;
        }
    }
}

static void pack_row(const ng__image *im, unsigned char *dst, const float *src)
{
    const size_t n = (size_t)im->width * (size_t)im->channels;
    if (im->bits == 8) pack8(dst, src, n);
    else pack16(dst, src, n);
}

/* The Paeth predictor of a (left), b (up), c (up left): the one nearest
 * a + b - c, ties to a then b. Written as selects without branches, in
 * 16-bit arithmetic (every difference of bytes here fits), so that the
 * loop below vectorises with 8 lanes a vector rather than 4. */
static inline int16_t abs16(int16_t x)
{
    return x < 0 ? (int16_t)-x : x;
}

static inline int16_t paeth(int16_t a, int16_t b, int16_t c)
{
    const int16_t pa = abs16((int16_t)(b - c)), pb = abs16((int16_t)(a - c)), pc = abs16((int16_t)(a + b - c - c));
    const int16_t ab = pb <= pc ? b : c;
    return pa <= pb && pa <= pc ? a : ab;
}

/* The Paeth filter (type 4) of row `cur` under row `up` (zeros above the
 * image), bpp bytes a pixel, into dst: its type byte, then n bytes. On the
 * encoder's side every byte depends on the inputs alone, so the loop has
 * no carried dependence. */
static void filter_row(unsigned char *restrict dst, const unsigned char *restrict cur,
                       const unsigned char *restrict up, size_t n, size_t bpp)
{
    size_t i;
    dst[0] = 4;
    /* no left neighbours: the predictor of (0, b, 0) is b */
    for (i = 0; i < bpp && i < n; i++) dst[1 + i] = (unsigned char)(cur[i] - up[i]);
    for (; i < n; i++) dst[1 + i] = (unsigned char)(cur[i] - paeth(cur[i - bpp], up[i], up[i - bpp]));
}

/* Deflates b->filt into b->out with zlib (levels 0 and 3-9), growing it as needed. */
static int zlib_band(band *b, int level)
{
    int rc;
    if (!b->z_ready) {
        memset(&b->z, 0, sizeof b->z);
        /* raw deflate (-15): the zlib header and trailer are written once
         * for the whole image */
        if ((rc = deflateInit2(&b->z, level, Z_DEFLATED, -15, 8, Z_FILTERED)) != Z_OK) return rc;
        b->z_ready = 1;
    } else if ((rc = deflateReset(&b->z)) != Z_OK) {
        return rc;
    }
    b->z.next_in = b->filt;
    b->z.avail_in = (uInt)b->nfilt;
    b->nout = 0;
    do {
        if (b->cap - b->nout < 64) {
            size_t cap = b->cap ? b->cap * 2 : deflateBound(&b->z, (uLong)b->nfilt) + 64;
            unsigned char *out = realloc(b->out, cap);
            if (!out) return Z_MEM_ERROR;
            b->out = out;
            b->cap = cap;
        }
        b->z.next_out = b->out + b->nout;
        b->z.avail_out = (uInt)(b->cap - b->nout);
        rc = deflate(&b->z, b->last ? Z_FINISH : Z_SYNC_FLUSH);
        b->nout = b->cap - b->z.avail_out;
        if (rc == Z_STREAM_ERROR) return rc;
    } while (b->last ? rc != Z_STREAM_END : b->z.avail_out == 0);
    return Z_OK;
}

/* Levels 1 and 2: our own coder (deflate.c), several times zlib's speed
 * at those strategies for the same size. */
static int deflate_band(band *b, int level)
{
    const size_t need = ng__deflate_bound(b->nfilt);
    if (level != 1 && level != 2) return zlib_band(b, level);
    if (b->cap < need) {
        free(b->out);
        b->cap = 0;
        if (!(b->out = malloc(need))) return Z_MEM_ERROR;
        b->cap = need;
    }
    b->nout = ng__deflate(b->out, b->filt, b->nfilt, level == 2, b->last);
    return b->nout ? Z_OK : Z_MEM_ERROR;
}

static void band_work(void *ctx, int slot)
{
    encoder *p = ctx;
    const ng__image *im = p->im;
    band *b = &p->slot[slot];
    const size_t n = p->row_bytes, stride = (size_t)im->width * (size_t)im->channels;
    const size_t bpp = (size_t)im->channels * (size_t)im->bits / 8;
    unsigned char *up = b->line, *cur = b->line + n, *t;
    int r;
    if (b->y == 0) memset(up, 0, n);
    else pack_row(im, up, b->rows);
    for (r = 0; r < b->nrows; r++) {
        pack_row(im, cur, b->rows + (size_t)(r + 1) * stride);
        filter_row(b->filt + (size_t)r * (n + 1), cur, up, n, bpp);
        t = up, up = cur, cur = t;
    }
    b->nfilt = (size_t)b->nrows * (n + 1);
    b->adler = adler32(1L, b->filt, (uInt)b->nfilt);
    b->zerr = deflate_band(b, p->level);
}

/* ---- writing: the sink's thread, in order -------------------------------------- */

static void put_be32(unsigned char *d, uLong v)
{
    d[0] = (unsigned char)(v >> 24 & 0xff);
    d[1] = (unsigned char)(v >> 16 & 0xff);
    d[2] = (unsigned char)(v >> 8 & 0xff);
    d[3] = (unsigned char)(v & 0xff);
}

/* The zlib header: deflate with a 32 KiB window, FLEVEL saying roughly how
 * hard it tried (informative only), and the check bits. */
static void zlib_header(unsigned char h[2], int level)
{
    const int flevel = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
    unsigned v = 0x78u << 8 | (unsigned)flevel << 6;
    v += 31 - v % 31;
    h[0] = (unsigned char)(v >> 8);
    h[1] = (unsigned char)(v & 0xff);
}

/* Band in slot as one IDAT chunk (the first with the zlib header, the last
 * with the Adler-32 of everything). */
static int band_retire(void *ctx, int slot)
{
    static const png_byte idat[5] = {'I', 'D', 'A', 'T', '\0'};
    encoder *p = ctx;
    ng__image *im = p->im;
    band *b = &p->slot[slot];
    unsigned char head[2], tail[4];
    const size_t len = b->nout + (b->y == 0 ? 2 : 0) + (b->last ? 4 : 0);
    if (b->zerr != Z_OK)
        return ng__image_fail(im, 0, "PNG encoder: deflate: %s", b->zerr == Z_MEM_ERROR ? "out of memory" : "failed");
    p->adler = b->y == 0 ? b->adler : adler32_combine(p->adler, b->adler, (z_off_t)b->nfilt);
    if (b->y == 0) zlib_header(head, p->level);
    if (b->last) put_be32(tail, p->adler);
    if (setjmp(png_jmpbuf(p->png))) return encoder_failed(im);
    png_write_chunk_start(p->png, idat, (png_uint_32)len);
    if (b->y == 0) png_write_chunk_data(p->png, head, 2);
    png_write_chunk_data(p->png, b->out, b->nout);
    if (b->last) png_write_chunk_data(p->png, tail, 4);
    png_write_chunk_end(p->png);
    return 0;
}

/* ---- the encoder ------------------------------------------------------------ */

/* The slots' buffers and the queue's threads. */
static int start_bands(ng__image *im, encoder *p)
{
    const size_t stride = (size_t)im->width * (size_t)im->channels;
    const int threads = ng__encq_threads(im->opt.threads);
    int s;
    p->row_bytes = stride * (size_t)im->bits / 8;
    p->band_rows = p->row_bytes >= BAND_BYTES ? 1 : (int)(BAND_BYTES / p->row_bytes);
    if (p->band_rows > im->height) p->band_rows = im->height;
    /* Two bands a thread keep every thread busy while the writer catches up. */
    p->nslots = threads ? 2 * threads : 1;
    p->cur = -1;
    if (!(p->slot = calloc((size_t)p->nslots, sizeof *p->slot)) || !(p->above = malloc(stride * sizeof(float))))
        return -1;
    for (s = 0; s < p->nslots; s++) {
        band *b = &p->slot[s];
        b->rows = malloc((size_t)(p->band_rows + 1) * stride * sizeof(float));
        b->line = malloc(2 * p->row_bytes);
        b->filt = malloc((size_t)p->band_rows * (p->row_bytes + 1));
        if (!b->rows || !b->line || !b->filt) return -1;
    }
    p->q = ng__encq_new(threads, p->nslots, band_work, band_retire, p);
    return p->q ? 0 : -1;
}

/* The provenance as tEXt chunks before the pixels (what every reader,
 * GDAL and ImageMagick included, lists). */
static void put_text(encoder *p, const char *const *meta)
{
    png_text t[16];
    int n = 0, k;
    for (k = 0; meta && meta[k] && meta[k + 1] && n < 16; k += 2, n++) {
        memset(&t[n], 0, sizeof t[n]);
        t[n].compression = PNG_TEXT_COMPRESSION_NONE;
        t[n].key = (png_charp)meta[k];
        t[n].text = (png_charp)meta[k + 1];
        t[n].text_length = strlen(meta[k + 1]);
    }
    if (n) png_set_text(p->png, p->info, t, n);
}

static int encode_begin(ng__image *im)
{
    encoder *p = calloc(1, sizeof *p);
    int color = im->channels == 1 ? PNG_COLOR_TYPE_GRAY : im->channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB;
    im->state = p;
    if (p) {
        p->im = im;
        p->level = im->opt.level < 0 ? DEFAULT_LEVEL : im->opt.level;
        p->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, im, error_fn, warning_fn);
    }
    if (p && p->png) p->info = png_create_info_struct(p->png);
    if (!p || !p->png || !p->info || start_bands(im, p))
        return ng__image_fail(im, 0, "cannot start the PNG encoder (out of memory)");
    if (setjmp(png_jmpbuf(p->png))) return encoder_failed(im);
    png_set_write_fn(p->png, im, write_fn, flush_fn);
    /* The default limit (1e6 pixels a side) guards decoders, not us. */
    png_set_user_limits(p->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_set_IHDR(p->png, p->info, (png_uint_32)im->width, (png_uint_32)im->height, im->bits, color,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    put_text(p, im->opt.meta);
    png_write_info(p->png, p->info);
    return 0;
}

/* A failure of the queue (a band that could not be written) said why. */
static int queue_failed(ng__image *im)
{
    return im->what[0] ? -1 : ng__image_fail(im, 0, "PNG encoder failed");
}

static int encode_rows(ng__image *im, int y, int nrows, const float *rows)
{
    encoder *p = im->state;
    const size_t stride = (size_t)im->width * (size_t)im->channels;
    int r;
    for (r = 0; r < nrows; r++) {
        band *b;
        if (p->cur < 0) {
            if ((p->cur = ng__encq_next(p->q)) < 0) return queue_failed(im);
            b = &p->slot[p->cur];
            b->y = y + r;
            b->nrows = 0;
            if (b->y > 0) memcpy(b->rows, p->above, stride * sizeof(float));
        }
        b = &p->slot[p->cur];
        memcpy(b->rows + (size_t)(b->nrows + 1) * stride, rows + (size_t)r * stride, stride * sizeof(float));
        if (++b->nrows == p->band_rows || b->y + b->nrows == im->height) {
            b->last = b->y + b->nrows == im->height;
            memcpy(p->above, b->rows + (size_t)b->nrows * stride, stride * sizeof(float));
            ng__encq_submit(p->q, p->cur);
            p->cur = -1;
        }
    }
    return 0;
}

static int encode_end(ng__image *im)
{
    static const png_byte iend[5] = {'I', 'E', 'N', 'D', '\0'};
    encoder *p = im->state;
    if (ng__encq_drain(p->q)) return queue_failed(im);
    if (setjmp(png_jmpbuf(p->png))) return encoder_failed(im);
    png_write_chunk(p->png, iend, NULL, 0);
    return 0;
}

static void encode_discard(ng__image *im)
{
    encoder *p = im->state;
    int s;
    if (!p) return;
    ng__encq_free(p->q); /* first: a worker may be in a band */
    for (s = 0; p->slot && s < p->nslots; s++) {
        band *b = &p->slot[s];
        if (b->z_ready) deflateEnd(&b->z);
        free(b->rows);
        free(b->line);
        free(b->filt);
        free(b->out);
    }
    free(p->slot);
    free(p->above);
    if (p->png) png_destroy_write_struct(&p->png, &p->info);
    free(p);
    im->state = NULL;
}

/* ---- into memory ----------------------------------------------------------- */

int ng_png_encode_memory(const float *px, int width, int height, int channels, int bits, const ng_file_options *o,
                         unsigned char **out, size_t *len, ng_error *err)
{
    ng__image im;
    char *buf = NULL;
    size_t n = 0;
    int rc;
    *out = NULL, *len = 0;
    if (width < 1 || height < 1 || (channels != 1 && channels != 3) || (bits != 8 && bits != 16))
        return ng_errorf(err, "PNG: a %dx%d image of %d channels at %d bits is not one PNG holds", width, height,
                         channels, bits);
    memset(&im, 0, sizeof im);
    im.width = width, im.height = height, im.channels = channels, im.bits = bits;
    if (o) im.opt = *o;
    else ng_file_options_default(&im.opt);
    /* the file sink's encoder, writing into a memory stream: the bytes of
     * the file `noisegraph render` writes for these samples */
    if (!(im.fp = open_memstream(&buf, &n))) return ng_errorf(err, "PNG: out of memory");
    rc = encode_begin(&im) || encode_rows(&im, 0, height, px) || encode_end(&im) ? -1 : 0;
    encode_discard(&im);
    if (fclose(im.fp) != 0 && rc == 0) rc = ng__image_fail(&im, errno, "cannot write");
    if (rc) {
        free(buf);
        return ng_errorf(err, "PNG: %s%s%s", im.what, im.errnum ? ": " : "", im.errnum ? strerror(im.errnum) : "");
    }
    *out = (unsigned char *)buf, *len = n;
    return 0;
}

/* ---- its text read back (ng_file_meta) ----------------------------------------------- */

static void quiet_error(png_structp png, png_const_charp msg)
{
    snprintf(png_get_error_ptr(png), 200, "%s", msg);
    png_longjmp(png, 1);
}

static void quiet_warning(png_structp png, png_const_charp msg) { (void)png, (void)msg; }

int ng__png_meta(const char *path, void (*each)(void *user, const char *key, const char *value), void *user,
                 char *msg, size_t len)
{
    char why[200] = "";
    FILE *fp = fopen(path, "rb");
    png_structp png = NULL;
    png_infop info = NULL;
    png_textp text = NULL;
    int n = 0, k, rc = -1;
    if (!fp) {
        snprintf(msg, len, "cannot open it");
        return -1;
    }
    png = png_create_read_struct(PNG_LIBPNG_VER_STRING, why, quiet_error, quiet_warning);
    if (png) info = png_create_info_struct(png);
    if (png && info && !setjmp(png_jmpbuf(png))) {
        png_init_io(png, fp);
        png_read_info(png, info);
        n = png_get_text(png, info, &text, NULL);
        for (k = 0; k < n; k++) each(user, text[k].key, text[k].text ? text[k].text : "");
        rc = 0;
    } else {
        snprintf(msg, len, "not a PNG libpng reads (%s)", why[0] ? why : "out of memory");
    }
    png_destroy_read_struct(&png, &info, NULL);
    fclose(fp);
    return rc;
}

const ng__encoder ng__png_encoder = {
    .begin = encode_begin, .rows = encode_rows, .end = encode_end, .discard = encode_discard,
};

/* ---- reading a tile back (tileread.h) ------------------------------------------------ */

/* A PNG tile's reader: libpng's read structs, the file's depth. libpng
 * reports errors by longjmp here too: each function calling into it owns
 * one setjmp, and after a jump only read_close touches the structs. */
typedef struct png_in {
    png_structp png;
    png_infop info;
    int bits;
} png_in;

static void read_error_fn(png_structp png, png_const_charp msg)
{
    ng__tile_reader *r = png_get_error_ptr(png);
    ng__tile_fail(r, "not a readable PNG (%s)", msg);
    png_longjmp(png, 1);
}

static int read_open(ng__tile_reader *r)
{
    png_uint_32 w, h;
    int depth, ctype, interlace;
    unsigned char sig[8];
    png_in *p;
    if (fread(sig, 1, 8, r->fp) != 8 || png_sig_cmp(sig, 0, 8)) return ng__tile_fail(r, "is not a PNG file");
    if (!(p = r->state = calloc(1, sizeof *p))) return ng__tile_fail(r, "out of memory");
    p->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, read_error_fn, warning_fn);
    if (!p->png || !(p->info = png_create_info_struct(p->png))) return ng__tile_fail(r, "out of memory");
    if (setjmp(png_jmpbuf(p->png))) return -1;
    png_set_user_limits(p->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_init_io(p->png, r->fp);
    png_set_sig_bytes(p->png, 8);
    png_read_info(p->png, p->info);
    png_get_IHDR(p->png, p->info, &w, &h, &depth, &ctype, &interlace, NULL, NULL);
    if ((ctype != PNG_COLOR_TYPE_GRAY && ctype != PNG_COLOR_TYPE_RGB && ctype != PNG_COLOR_TYPE_RGB_ALPHA) ||
        (depth != 8 && depth != 16) || interlace != PNG_INTERLACE_NONE)
        return ng__tile_fail(r, "is not a tile noisegraph writes (8- or 16-bit grey, RGB or RGBA, not interlaced)");
    if ((long)w != r->width || (long)h != r->height) return ng__tile_wrong_size(r, (long)w, (long)h);
    p->bits = depth;
    r->bits = depth;
    r->channels = ctype == PNG_COLOR_TYPE_RGB ? 3 : ctype == PNG_COLOR_TYPE_RGB_ALPHA ? 4 : 1;
    if (!(r->row = malloc((size_t)r->width * (size_t)r->channels * (size_t)(depth / 8))))
        return ng__tile_fail(r, "out of memory");
    return 0;
}

static int read_rows(ng__tile_reader *r, int nrows, float *dst, size_t stride)
{
    png_in *p = r->state;
    const size_t n = (size_t)r->width * (size_t)r->channels;
    const float max = p->bits == 16 ? 65535.0f : 255.0f;
    int k;
    size_t i;
    if (setjmp(png_jmpbuf(p->png))) return -1;
    for (k = 0; k < nrows; k++) {
        float *out = dst + (size_t)k * stride;
        png_read_row(p->png, r->row, NULL);
        if (p->bits == 16)
            for (i = 0; i < n; i++) out[i] = (float)((unsigned)r->row[2 * i] << 8 | r->row[2 * i + 1]) / max;
        else
            for (i = 0; i < n; i++) out[i] = (float)r->row[i] / max;
    }
    /* the end of the image, its CRCs and IEND: a tile cut short fails here */
    if (r->next_row + nrows == r->height) png_read_end(p->png, NULL);
    return 0;
}

static void read_close(ng__tile_reader *r)
{
    png_in *p = r->state;
    if (p && p->png) png_destroy_read_struct(&p->png, p->info ? &p->info : NULL, NULL);
}

const ng__reader ng__png_reader = {.open = read_open, .rows = read_rows, .close = read_close};
