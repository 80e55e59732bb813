/*
 * image_read.c — reading images into floats in [0, 1]: PNG, TGA or BMP (8 or
 * 16 bit) with stb_image, JPEG with libjpeg-turbo. The one translation unit that holds
 * stb_image's implementation, static (STB_IMAGE_STATIC) so that a program
 * linking the library can carry its own stb_image.
 *
 * The file is a hostile input: it is opened once without blocking and must
 * be a regular file of sane size; its header's dimensions are checked
 * against the pixel limit and the caller's memory allowance before anything
 * is decoded; and every allocation stb_image makes is counted against that
 * allowance too, since a lying header or stb's working buffers could
 * otherwise take more than the header promised.
 */
#include "ng_io.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h> /* after stdio.h: it uses FILE */
#include <setjmp.h>

/* The allowance of the load running on this thread: stb_image allocates
 * through counted_* below, which refuse what would go past it. */
typedef struct allowance {
    size_t limit, used;
} allowance;

static _Thread_local allowance *current;

/* Each block stb allocates carries its size in front, so that a free or a
 * realloc gives back exactly what it took. */
typedef union block_head {
    size_t size;
    max_align_t align;
} block_head;

static void *counted_realloc(void *p, size_t n)
{
    block_head *h = p ? (block_head *)p - 1 : NULL;
    const size_t old = h ? h->size : 0;
    allowance *a = current;
    /* a growing realloc that moves holds both blocks for a moment: charge n
     * whole beside the old one */
    if (n > SIZE_MAX - sizeof *h || (a && n > old && n > a->limit - a->used)) return NULL;
    if (!(h = realloc(h, sizeof *h + n))) return NULL;
    h->size = n;
    if (a) a->used = a->used - old + n;
    return h + 1;
}

static void *counted_malloc(size_t n) { return counted_realloc(NULL, n); }

static void counted_free(void *p)
{
    block_head *h;
    if (!p) return;
    h = (block_head *)p - 1;
    if (current) current->used -= h->size;
    free(h);
}

/* Declarations here, the implementation at the end of the file. */
#define STB_IMAGE_STATIC
#define STBI_FAILURE_USERMSG
#define STBI_MALLOC(n) counted_malloc(n)
#define STBI_REALLOC(p, n) counted_realloc(p, n)
#define STBI_FREE(p) counted_free(p)
/* The formats the image node promises, and no others: stb 2.27's PSD
 * loader converts out-of-range floats to bytes (undefined behaviour, found
 * by tests/fuzz), and its GIF, PIC, PNM and HDR loaders are code a hostile
 * file could reach for no gain. JPEG goes to libjpeg-turbo (below). */
#define STBI_ONLY_PNG
#define STBI_ONLY_TGA
#define STBI_ONLY_BMP
#pragma GCC diagnostic push /* clang reports the undefined static (below) here */
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb_image.h>
#pragma GCC diagnostic pop

#define MAX_PIXELS (1u << 28)
/* The largest image accepted, stored uncompressed (4 channels of 16 bits)
 * with room for its headers: no image file worth reading is bigger. */
#define MAX_FILE_BYTES ((uint64_t)MAX_PIXELS * 8 + ((uint64_t)1 << 20))

/* Bytes in MiB for a message: the need rounded up, the allowance down, so
 * that "needs 5 MiB, more than the 5 MiB allowed" cannot be printed. */
static unsigned long long mib(uint64_t bytes, int up)
{
    const uint64_t m = (uint64_t)1 << 20;
    return (unsigned long long)(bytes / m + (up && bytes % m ? 1 : 0));
}

static int too_big(const char *path, int w, int h, uint64_t need, size_t max_bytes, ng_error *err)
{
    return ng_errorf(err, "%s: a %dx%d image needs %llu MiB, more than the %llu MiB allowed (raise --memory-limit)",
                     path, w, h, mib(need, 1), mib(max_bytes, 0));
}

/* A decoder's working state beside its buffers: JPEG's Huffman and
 * quantisation tables, PNG's first IDAT block, the inflater. */
#define STB_STATE_BYTES ((uint64_t)64 << 10)

/* The peak of a load: stb's decoded buffer (1 or 2 bytes a sample) and the
 * float copy, held together while converting, plus what stb may hold
 * besides: its state, and the compressed data (PNG keeps its IDAT chunks
 * while inflating; no format keeps more than the file). Every earlier
 * stage of every format stb reads takes less (inflating a PNG: at most
 * twice the IDAT bytes plus the raw rows). UINT64_MAX beyond the pixel
 * limit or for a channel count stb never gives. */
static uint64_t load_bytes(int w, int h, int ch, int wide, uint64_t file_bytes)
{
    const uint64_t px = (uint64_t)w * (uint64_t)h; /* w, h < 2^31: no overflow */
    if (w < 1 || h < 1 || px > MAX_PIXELS || ch < 1 || ch > 4) return UINT64_MAX;
    return px * (uint64_t)ch * (uint64_t)((wide ? 2 : 1) + sizeof(float)) + file_bytes + STB_STATE_BYTES;
}

/* The header's dimensions, refused before anything is decoded. */
static int check_header(FILE *f, const char *path, uint64_t file_bytes, size_t max_bytes, int *wide, ng_error *err)
{
    int w, h, ch;
    uint64_t need;
    if (!stbi_info_from_file(f, &w, &h, &ch))
        return ng_errorf(err, "%s: cannot read the image (%s)", path, stbi_failure_reason());
    *wide = stbi_is_16_bit_from_file(f);
    /* a top-down BMP says its height negative, and stb's info passes it on
     * as it is (its loader takes the magnitude) */
    if (h < 0 && h != INT_MIN) h = -h;
    if ((uint64_t)w * (uint64_t)h > MAX_PIXELS)
        return ng_errorf(err, "%s: %dx%d is larger than the %u pixels an image input may have", path, w, h,
                         MAX_PIXELS);
    if ((need = load_bytes(w, h, ch, *wide, file_bytes)) == UINT64_MAX)
        return ng_errorf(err, "%s: cannot read the image (its header says %dx%d with %d channels)", path, w, h, ch);
    if (need > max_bytes) return too_big(path, w, h, need, max_bytes, err);
    return 0;
}

/* stb's samples into floats in [0, 1], a block the allowance must hold
 * beside stb's buffer. */
static int to_floats(const char *path, const void *data, int w, int h, int ch, int wide, ng_image *img, ng_error *err)
{
    const uint64_t need = load_bytes(w, h, ch, wide, 0);
    const allowance *a = current;
    size_t i, count;
    if (need == UINT64_MAX) /* the decoder went beyond what the header said */
        return ng_errorf(err, "%s: cannot read the image (it decodes to %dx%d with %d channels)", path, w, h, ch);
    count = (size_t)w * (size_t)h * (size_t)ch; /* at most 2^30 */
    if ((uint64_t)count * sizeof(float) > a->limit - a->used) return too_big(path, w, h, need, a->limit, err);
    if (!(img->px = malloc(count * sizeof(float))))
        return ng_errorf(err, "%s: out of memory for a %dx%d image", path, w, h);
    for (i = 0; i < count; i++)
        img->px[i] = wide ? ((const unsigned short *)data)[i] / 65535.0f : ((const unsigned char *)data)[i] / 255.0f;
    img->width = w;
    img->height = h;
    img->channels = ch;
    return 0;
}

/* ---- JPEG: libjpeg-turbo ------------------------------------------------ */

/* JPEG is read by libjpeg-turbo, not stb: fuzzing this reader found stb
 * 2.27's JPEG decoder writing past its Huffman tables (counts over 256) and
 * reading far outside them (scans naming undefined tables), bugs fixed only
 * in later stb releases. libjpeg-turbo is the reference decoder, fuzzed
 * upstream, and reports every error through error_exit. */
typedef struct jpeg_fail {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char msg[JMSG_LENGTH_MAX];
} jpeg_fail;

static void jpeg_error_exit(j_common_ptr ci)
{
    jpeg_fail *f = (jpeg_fail *)ci->err;
    ci->err->format_message(ci, f->msg);
    longjmp(f->jump, 1);
}

static void jpeg_quiet(j_common_ptr ci, int level)
{
    (void)ci; /* warnings (a truncated file, extra bytes) are not errors: the decoder recovers */
    (void)level;
}

static int is_jpeg(FILE *f)
{
    int a = getc(f), b = getc(f);
    rewind(f);
    return a == 0xFF && b == 0xD8;
}

/* Grey stays grey, colour becomes RGB; the header's size is checked against
 * the pixel limit and the allowance before any pixel is decoded, counting
 * the coefficient store a progressive file needs (2 bytes a coefficient). */
static int decode_jpeg(FILE *f, const char *path, uint64_t file_bytes, ng_image *img, size_t max_bytes,
                       ng_error *err)
{
    struct jpeg_decompress_struct ci;
    jpeg_fail fail;
    unsigned char *volatile data = NULL;
    volatile int created = 0, rc = -1;
    int w, h, ch;
    uint64_t need;
    memset(&ci, 0, sizeof ci);
    ci.err = jpeg_std_error(&fail.mgr);
    fail.mgr.error_exit = jpeg_error_exit;
    fail.mgr.emit_message = jpeg_quiet;
    fail.msg[0] = 0;
    if (setjmp(fail.jump)) {
        ng_errorf(err, "%s: cannot read the image (%s)", path, fail.msg);
        goto done;
    }
    jpeg_create_decompress(&ci);
    created = 1;
    jpeg_stdio_src(&ci, f);
    jpeg_read_header(&ci, TRUE);
    if (ci.jpeg_color_space == JCS_CMYK || ci.jpeg_color_space == JCS_YCCK) {
        ng_errorf(err, "%s: cannot read the image (CMYK JPEG; save it as RGB)", path);
        goto done;
    }
    ci.out_color_space = ci.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    if (ci.image_width > 0x7fffffff || ci.image_height > 0x7fffffff ||
        (uint64_t)ci.image_width * ci.image_height > MAX_PIXELS) {
        ng_errorf(err, "%s: %ux%u is larger than the %u pixels an image input may have", path, ci.image_width,
                  ci.image_height, MAX_PIXELS);
        goto done;
    }
    w = (int)ci.image_width;
    h = (int)ci.image_height;
    ch = ci.num_components == 1 ? 1 : 3;
    need = load_bytes(w, h, ch, 0, file_bytes);
    if (need != UINT64_MAX && jpeg_has_multiple_scans(&ci))
        need += (uint64_t)w * (uint64_t)h * (uint64_t)ci.num_components * 2;
    if (need == UINT64_MAX || need > max_bytes) {
        too_big(path, w, h, need, max_bytes, err);
        goto done;
    }
    jpeg_start_decompress(&ci);
    if ((int)ci.output_components != ch) {
        ng_errorf(err, "%s: cannot read the image (%d colour components)", path, ci.output_components);
        goto done;
    }
    if (!(data = counted_malloc((size_t)w * (size_t)h * (size_t)ch))) {
        ng_errorf(err, "%s: out of memory for a %dx%d image", path, w, h);
        goto done;
    }
    while (ci.output_scanline < ci.output_height) {
        JSAMPROW row = data + (size_t)ci.output_scanline * (size_t)w * (size_t)ch;
        jpeg_read_scanlines(&ci, &row, 1);
    }
    jpeg_finish_decompress(&ci);
    rc = to_floats(path, data, w, h, ch, 0, img, err);
done:
    if (created) jpeg_destroy_decompress(&ci);
    counted_free(data);
    return rc;
}

/* ---- TGA and BMP: their length --------------------------------------------- */

/* stb_image reads past the end of a TGA or BMP as zeros, so a truncated
 * one would decode with its missing pixels black where a truncated PNG or
 * JPEG is an error. The bytes its pixels take must be in the file. Run
 * after check_header, which bounds the pixel count. */

/* A TGA's, walked as stb's loader walks them: the header, ID field and
 * palette, then each pixel or RLE packet. */
static int check_tga_length(FILE *f, const char *path, uint64_t file_bytes, ng_error *err)
{
    unsigned char hd[18], buf[1 << 14];
    uint64_t at, pixels, win = 0;
    size_t len = 0;
    int w, h, px;
    if (fread(hd, 1, sizeof hd, f) != sizeof hd)
        return ng_errorf(err, "%s: cannot read the image (a TGA cut short in its header)", path);
    w = hd[12] | hd[13] << 8, h = hd[14] | hd[15] << 8;
    pixels = (uint64_t)w * (uint64_t)h;
    /* a colour-mapped image's pixels are indices of 1 or 2 bytes, each
     * palette entry whole bytes; other pixels whole bytes (15 bits: 2) */
    px = hd[1] ? (hd[16] == 8 ? 1 : 2) : (hd[16] + 7) / 8;
    at = sizeof hd + hd[0];
    if (hd[1]) at += (uint64_t)(hd[3] | hd[4] << 8) + (uint64_t)(hd[5] | hd[6] << 8) * (uint64_t)((hd[7] + 7) / 8);
    if (hd[2] < 8) {
        at += pixels * (uint64_t)px;
        pixels = 0;
    }
    while (pixels > 0 && at < file_bytes) { /* RLE: a count byte, then one pixel (a run) or count pixels */
        uint64_t n;
        unsigned cmd;
        if (at < win || at >= win + len) {
            if (fseeko(f, (off_t)at, SEEK_SET) != 0 || (len = fread(buf, 1, sizeof buf, f)) == 0) break;
            win = at;
        }
        cmd = buf[at - win];
        n = 1 + (cmd & 127);
        if (n > pixels) n = pixels; /* stb stops at the last pixel */
        at += 1 + (cmd & 128 ? 1 : n) * (uint64_t)px;
        pixels -= n;
    }
    if (pixels > 0 || at > file_bytes)
        return ng_errorf(err, "%s: cannot read the image (a %dx%d TGA cut short: its pixels need more than the "
                              "file's %llu bytes)", path, w, h, (unsigned long long)file_bytes);
    return 0;
}

/* An uncompressed BMP's rows from the offset its header gives (the last
 * row's padding may be missing; stb's compressed formats are bit fields,
 * whose rows are the same size). */
static int check_bmp_length(FILE *f, const char *path, uint64_t file_bytes, ng_error *err)
{
    unsigned char hd[34];
    uint64_t need, stride;
    long w, h;
    unsigned bpp, hsz;
    if (fread(hd, 1, sizeof hd, f) != sizeof hd) return 0; /* too short for a header: stb's error says so */
    hsz = (unsigned)(hd[14] | hd[15] << 8 | hd[16] << 16 | (uint32_t)hd[17] << 24);
    if (hsz == 12) {
        w = hd[18] | hd[19] << 8, h = hd[20] | hd[21] << 8, bpp = hd[24] | hd[25] << 8;
    } else {
        w = (int32_t)(hd[18] | hd[19] << 8 | hd[20] << 16 | (uint32_t)hd[21] << 24);
        h = (int32_t)(hd[22] | hd[23] << 8 | hd[24] << 16 | (uint32_t)hd[25] << 24);
        bpp = hd[28] | hd[29] << 8;
        if ((hd[30] | hd[31] | hd[32] | hd[33]) && !(hd[30] == 3 && !(hd[31] | hd[32] | hd[33])))
            return 0; /* RLE or another compression: stb refuses it */
    }
    if (h < 0) h = -h;
    if (w < 1 || h < 1 || bpp < 1 || bpp > 32) return 0; /* check_header passed: stb's error if any */
    stride = ((uint64_t)w * bpp + 31) / 32 * 4;
    need = (uint64_t)(hd[10] | hd[11] << 8 | hd[12] << 16 | (uint32_t)hd[13] << 24) + stride * (uint64_t)(h - 1) +
           ((uint64_t)w * bpp + 7) / 8;
    if (need > file_bytes)
        return ng_errorf(err, "%s: cannot read the image (a %ldx%ld BMP cut short: its pixels need %llu bytes, the "
                              "file has %llu)", path, w, h, (unsigned long long)need, (unsigned long long)file_bytes);
    return 0;
}

/* stb is built for PNG, BMP and TGA alone (JPEG went to libjpeg): a file
 * that is not a PNG or a BMP is a TGA. */
static int check_length(FILE *f, const char *path, uint64_t file_bytes, ng_error *err)
{
    int a = getc(f), b = getc(f), rc = 0;
    rewind(f);
    if (a == 'B' && b == 'M') rc = check_bmp_length(f, path, file_bytes, err);
    else if (!(a == 0x89 && b == 'P')) rc = check_tga_length(f, path, file_bytes, err);
    rewind(f);
    return rc;
}

static int decode(FILE *f, const char *path, uint64_t file_bytes, ng_image *img, size_t max_bytes, ng_error *err)
{
    int w, h, ch, wide = 0, rc;
    void *data;
    if (is_jpeg(f)) return decode_jpeg(f, path, file_bytes, img, max_bytes, err);
    if (check_header(f, path, file_bytes, max_bytes, &wide, err)) return -1;
    if (check_length(f, path, file_bytes, err)) return -1;
    data = wide ? (void *)stbi_load_from_file_16(f, &w, &h, &ch, 0) : (void *)stbi_load_from_file(f, &w, &h, &ch, 0);
    if (!data) {
        const char *why = stbi_failure_reason();
        if (max_bytes != SIZE_MAX && why && strcmp(why, "Out of memory") == 0)
            return ng_errorf(err, "%s: decoding the image needs more than the %llu MiB allowed (raise --memory-limit)",
                             path, mib(max_bytes, 0));
        return ng_errorf(err, "%s: cannot read the image (%s)", path, why ? why : "unknown reason");
    }
    rc = to_floats(path, data, w, h, ch, wide, img, err);
    stbi_image_free(data);
    return rc;
}

/* Opens path as every file is read (ng_file_open_read): a FIFO, device or
 * directory, or a file larger than any image, is refused unread. */
static FILE *open_image(const char *path, uint64_t *file_bytes, ng_error *err)
{
    FILE *f;
    int fd = ng_file_open_read(path, "an image file", MAX_FILE_BYTES, file_bytes, err);
    if (fd < 0) return NULL;
    if (!(f = fdopen(fd, "rb"))) {
        ng_errorf(err, "%s: cannot open the image (%s)", path, strerror(errno));
        close(fd);
    }
    return f;
}

int ng_image_load(const char *path, ng_image *img, size_t max_bytes, ng_error *err)
{
    allowance a = {max_bytes, 0};
    uint64_t file_bytes = 0;
    FILE *f;
    int rc;
    img->px = NULL;
    img->width = img->height = img->channels = 0;
    if (!(f = open_image(path, &file_bytes, err))) return -1;
    current = &a;
    rc = decode(f, path, file_bytes, img, max_bytes, err);
    current = NULL;
    fclose(f);
    return rc;
}

/* stb_image's implementation, private to this file. The warnings it would
 * raise stay off to the end of the file: stb 2.27 declares
 * stbi_set_unpremultiply_on_load_thread without defining it, which for a
 * static function gcc reports when the file ends. */
#define STB_IMAGE_IMPLEMENTATION
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#include <stb_image.h>
