/*
 * test_image_input.c — the image input as a hostile file and far from the
 * origin: dimensions refused from the header before anything is decoded,
 * the decoder held to the caller's memory allowance, files that are not
 * regular refused unread, sampling that stays exact (or says it cannot)
 * at any position, and what the image fuzzer found: every reproducer in
 * tests/fuzz/crashes/image/ ends as a hostile input should, a result or a
 * one-line error, never a crash or undefined behaviour (most are memory or
 * UB errors, which only the sanitizer build, make test SAN=1, sees).
 */
#include "ng_io.h"
#include "build.h"
#include "cli_support.h"
#include "harness.h"
#include "ng_node.h"

#include <dirent.h>
#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jpeglib.h> /* after stdio.h */

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define T_ASAN 1
#endif
#ifdef T_ASAN
/* From compiler-rt's sanitizer/allocator_interface.h (gcc 12 does not ship it). */
size_t __sanitizer_get_allocated_size(const volatile void *p);
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
#endif

#define MIB ((size_t)1 << 20)

/* ---- files made at run time ------------------------------------------------------------------------ */

static uint32_t crc_table[256];

static uint32_t crc32_of(const unsigned char *p, size_t n, uint32_t crc)
{
    size_t i;
    if (!crc_table[1]) {
        uint32_t k, c;
        int j;
        for (k = 0; k < 256; k++) {
            for (c = k, j = 0; j < 8; j++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            crc_table[k] = c;
        }
    }
    crc = ~crc;
    for (i = 0; i < n; i++) crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static int chunk(FILE *f, const char *type, const unsigned char *data, size_t n)
{
    unsigned char head[8], tail[4];
    put32(head, (uint32_t)n);
    memcpy(head + 4, type, 4);
    put32(tail, crc32_of(data, n, crc32_of(head + 4, 4, 0)));
    return fwrite(head, 1, 8, f) == 8 && (n == 0 || fwrite(data, 1, n, f) == n) && fwrite(tail, 1, 4, f) == 4;
}

/* A PNG made by hand: the IHDR as given, then idat as its one IDAT chunk,
 * whatever it holds (the header may promise more than the data has). */
static void craft_png(const char *path, uint32_t w, uint32_t h, int depth, int ctype, const unsigned char *idat,
                      size_t n)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char ihdr[13] = {0};
    FILE *f = fopen(path, "wb");
    int ok;
    put32(ihdr, w);
    put32(ihdr + 4, h);
    ihdr[8] = (unsigned char)depth;
    ihdr[9] = (unsigned char)ctype;
    ok = f && fwrite(sig, 1, 8, f) == 8 && chunk(f, "IHDR", ihdr, 13) && chunk(f, "IDAT", idat, n) &&
         chunk(f, "IEND", NULL, 0);
    if (!f || fclose(f) != 0 || !ok) ng_t_fail(__FILE__, __LINE__, "cannot write %s", path);
}

/* An empty zlib stream: the data of an image that promises pixels it does not have. */
static const unsigned char EMPTY_ZLIB[] = {0x78, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01};

/* Deflate bits, least significant first; Huffman codes go most significant first. */
typedef struct bits {
    unsigned char *p;
    size_t n;
    unsigned acc, nacc;
} bits;

static void put_bits(bits *b, unsigned v, unsigned n)
{
    b->acc |= v << b->nacc;
    b->nacc += n;
    while (b->nacc >= 8) {
        b->p[b->n++] = (unsigned char)b->acc;
        b->acc >>= 8;
        b->nacc -= 8;
    }
}

static void put_code(bits *b, unsigned code, unsigned n)
{
    unsigned r = 0, i;
    for (i = 0; i < n; i++) r |= ((code >> i) & 1u) << (n - 1 - i);
    put_bits(b, r, n);
}

/* A zlib stream of 1 + 258 * runs zero bytes in a few bytes per run (one
 * fixed-Huffman block: a literal 0, then length-258 copies at distance 1).
 * Returns the malloc'd stream and its length in *len. */
static unsigned char *zero_bomb(size_t runs, size_t *len)
{
    bits b = {malloc(16 + runs * 2), 2, 0, 0};
    const uint32_t total = (uint32_t)(1 + 258 * runs);
    size_t i;
    if (!b.p) return NULL;
    b.p[0] = 0x78, b.p[1] = 0x01;
    put_bits(&b, 1, 1);          /* final block */
    put_bits(&b, 1, 2);          /* fixed Huffman codes */
    put_code(&b, 0x30, 8);       /* literal 0 */
    for (i = 0; i < runs; i++) { /* length 258 (code 285), distance 1 (code 0) */
        put_code(&b, 0xC5, 8);
        put_code(&b, 0, 5);
    }
    put_code(&b, 0, 7); /* end of block */
    if (b.nacc) put_bits(&b, 0, 8 - b.nacc);
    /* Adler-32 of zeros: a = 1, b = the count */
    put32(b.p + b.n, ((total % 65521u) << 16) | 1u);
    *len = b.n + 4;
    return b.p;
}


/* The 4x3 grey image the sampling tests read: every pixel different. */
static const unsigned char G8[3][4] = {{0, 40, 80, 120}, {160, 200, 240, 255}, {10, 20, 30, 50}};
static char fix_g8[PATHLEN];

/* A graph whose image nodes read files with io's loader, as the Lua host
 * sets it (the engine alone reads no files). */
static ng_graph *image_graph(void)
{
    ng_graph *g = ng_graph_new();
    if (g) ng_graph_set_image_loader(g, ng_image_load);
    return g;
}

/* ---- loads with their peak memory measured ----------------------------------------------------------- */

typedef struct load_result {
    int rc;
    int width, height, channels;
    float first;        /* the first sample, when loaded */
    size_t peak;        /* bytes allocated at most at once during the load (ASan only) */
    char msg[512];
} load_result;

static void load_now(const char *path, size_t max_bytes, load_result *out)
{
    ng_image img;
    ng_error err = {{0}};
    out->rc = ng_image_load(path, &img, max_bytes, &err);
    snprintf(out->msg, sizeof out->msg, "%s", out->rc ? err.msg : "");
    if (out->rc == 0) {
        out->width = img.width, out->height = img.height, out->channels = img.channels;
        out->first = img.px[0];
        ng_image_free(&img);
    } else if (img.px) {
        out->rc = -2; /* a refusal must leave nothing behind */
    }
}

#ifdef T_ASAN
/* Under AddressSanitizer the address space is reserved wholesale, so an
 * address-space limit cannot bound a load: count its allocations instead. */
static size_t live, peak;
static int hooks_on;

static void on_malloc(const volatile void *p, size_t n)
{
    (void)p;
    live += n;
    if (live > peak) peak = live;
}

static void on_free(const volatile void *p)
{
    if (p) live -= __sanitizer_get_allocated_size(p);
}

/* Loads path in this process; 0 unless it allocated more than `bound` at once. */
static int load_bounded(const char *path, size_t max_bytes, size_t bound, load_result *out)
{
    if (!hooks_on) hooks_on = __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free) != 0;
    live = peak = 0;
    load_now(path, max_bytes, out);
    out->peak = peak;
    if (!hooks_on) {
        ng_t_fail(__FILE__, __LINE__, "cannot install the allocation hooks");
        return -1;
    }
    return peak > bound ? -1 : 0;
}
#else
/* The address space this process maps now, in bytes. */
static size_t mapped_now(void)
{
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1) pages = 0;
        fclose(f);
    }
    return pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* Loads path in a child whose address space may grow by `bound` bytes at
 * most: a load that tried to take more fails there (or the child dies).
 * 0 when the child reported back. */
static int load_bounded(const char *path, size_t max_bytes, size_t bound, load_result *out)
{
    int fds[2], status = 0;
    pid_t pid;
    ssize_t got;
    memset(out, 0, sizeof *out);
    if (pipe(fds) != 0) return -1;
    if ((pid = fork()) == 0) {
        struct rlimit rl;
        size_t base = mapped_now();
        close(fds[0]);
        rl.rlim_cur = rl.rlim_max = base + bound;
        if (base == 0 || setrlimit(RLIMIT_AS, &rl) != 0) _exit(3);
        load_now(path, max_bytes, out);
        _exit(write(fds[1], out, sizeof *out) == (ssize_t)sizeof *out ? 0 : 4);
    }
    close(fds[1]);
    got = pid > 0 ? read(fds[0], out, sizeof *out) : -1;
    close(fds[0]);
    if (pid > 0) waitpid(pid, &status, 0);
    if (got != (ssize_t)sizeof *out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        ng_t_fail(__FILE__, __LINE__, "the load of %s in a child with %zu MiB to spare did not report back (status %d)",
                  path, bound / MIB, status);
        return -1;
    }
    return 0;
}
#endif

/* ---- refused before decoding ------------------------------------------------------------------------- */

/* A 20000x20000 header over an empty IDAT is refused for its pixel count,
 * by the header alone: decoding would fail with stb's own reason instead,
 * after allocating the image (hundreds of MB). */
static void test_header_over_pixel_limit(void)
{
    char path[PATHLEN];
    load_result r;
    tpath(path, "huge.png");
    craft_png(path, 20000, 20000, 8, 0, EMPTY_ZLIB, sizeof EMPTY_ZLIB);
    CHECKF(load_bounded(path, SIZE_MAX, 32 * MIB, &r) == 0, "the refused load took %zu bytes", r.peak);
    CHECK_INT(r.rc, -1);
    CHECK_CONTAINS(r.msg, path);
    CHECK_CONTAINS(r.msg, "20000x20000 is larger than the 268435456 pixels");
}

/* Through the node (what ng.image runs) the same refusal, labelled. */
static void test_node_refuses_header(void)
{
    char path[PATHLEN];
    ng_graph *g = image_graph();
    ng_node *n = t_begin(g, "image");
    ng_error err = {{0}};
    tpath(path, "huge-node.png");
    craft_png(path, 17000, 16000, 8, 4, EMPTY_ZLIB, sizeof EMPTY_ZLIB);
    CHECK(ng_set_string(n, ng_param_index(ng_node_type_of(n), "path"), path, &err) == 0);
    CHECK(ng_node_finish(g, n, &err) < 0);
    CHECK_CONTAINS(err.msg, "image: ");
    CHECK_CONTAINS(err.msg, "17000x16000 is larger than");
    CHECK_INT(ng_graph_count(g), 0);
    ng_graph_free(g);
}

/* Under the pixel limit but over the allowance: refused from the header
 * with the figure, still without decoding (the IDAT is empty). 1000x1000
 * RGBA 16-bit: (2 + 4) bytes * 4 channels = 22.9 MiB. */
static void test_header_over_allowance(void)
{
    char path[PATHLEN], want[PATHLEN];
    load_result r;
    tpath(path, "big16.png");
    craft_png(path, 1000, 1000, 16, 6, EMPTY_ZLIB, sizeof EMPTY_ZLIB);
    CHECKF(load_bounded(path, 16 * MIB, 8 * MIB, &r) == 0, "the refused load took %zu bytes", r.peak);
    CHECK_INT(r.rc, -1);
    pathf(want, "%s: a 1000x1000 image needs 23 MiB, more than the 16 MiB allowed (raise --memory-limit)", path);
    CHECK_STR(r.msg, want);
    /* an 8-bit grey one of the same size needs (1 + 4) bytes a pixel */
    craft_png(path, 1000, 1000, 8, 0, EMPTY_ZLIB, sizeof EMPTY_ZLIB);
    load_now(path, 4 * MIB, &r);
    CHECK_CONTAINS(r.msg, "a 1000x1000 image needs 5 MiB, more than the 4 MiB allowed (raise --memory-limit)");
}

/* The figure is the load's peak bound: stb's samples, the floats, the
 * file, stb's state; a load given exactly that much succeeds. */
static size_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

static void test_allowance_figure(void)
{
    static unsigned short rgb16[6 * 5 * 3];
    static unsigned char rgb8[6 * 5 * 3];
    char p8[PATHLEN], p16[PATHLEN];
    size_t need8, need16;
    load_result r;
    int i;
    for (i = 0; i < 6 * 5 * 3; i++) rgb8[i] = (unsigned char)(i * 3 + 7), rgb16[i] = (unsigned short)(i * 999 + 1);
    tpath(p8, "rgb8.png");
    tpath(p16, "rgb16.png");
    write_png(p8, 6, 5, 8, PNG_COLOR_TYPE_RGB, 3, rgb8);
    write_png(p16, 6, 5, 16, PNG_COLOR_TYPE_RGB, 3, rgb16);
    need8 = 6 * 5 * 3 * (1 + 4) + file_size(p8) + 65536;
    need16 = 6 * 5 * 3 * (2 + 4) + file_size(p16) + 65536;
    load_now(p8, need8, &r);
    CHECK_INT(r.rc, 0);
    CHECK_INT(r.width, 6);
    CHECK_INT(r.height, 5);
    CHECK_INT(r.channels, 3);
    CHECK_NEAR(r.first, 7 / 255.0f, 0);
    load_now(p8, need8 - 1, &r);
    CHECK_INT(r.rc, -1);
    CHECK_CONTAINS(r.msg, "a 6x5 image needs 1 MiB, more than the 0 MiB allowed");
    load_now(p16, need16, &r);
    CHECK_INT(r.rc, 0);
    CHECK_NEAR(r.first, 1 / 65535.0f, 0);
    load_now(p16, need16 - 1, &r);
    CHECK_INT(r.rc, -1);
}

/* A 16x16 header over an IDAT that inflates to 16 MiB of zeros (a 30 KB
 * file): the header passes, the decoder's own buffers are what is counted
 * against the allowance, and the load stops there. */
static void test_decoder_held_to_allowance(void)
{
    char path[PATHLEN];
    size_t n;
    unsigned char *z = zero_bomb(16 * MIB / 258, &n);
    load_result r;
    tpath(path, "bomb.png");
    if (!z) {
        ng_t_fail(__FILE__, __LINE__, "out of memory");
        return;
    }
    craft_png(path, 16, 16, 8, 0, z, n);
    free(z);
    CHECKF(load_bounded(path, MIB, 8 * MIB, &r) == 0, "the refused load took %zu bytes", r.peak);
    CHECK_INT(r.rc, -1);
    CHECK_CONTAINS(r.msg, path);
    CHECK_CONTAINS(r.msg, "decoding the image needs more than the 1 MiB allowed (raise --memory-limit)");
    /* with room for it, the same file decodes (stb ignores the extra data) */
    load_now(path, 64 * MIB, &r);
    CHECK_INT(r.rc, 0);
    CHECK_INT(r.width, 16);
}

/* ---- what is not a regular file is not read ----------------------------------------------------------- */

/* A FIFO with no writer: ng.image used to block in fopen for ever. */
static void test_fifo_refused(void)
{
    char dir[PATHLEN], fifo[PATHLEN], s[PATHLEN], out[PATHLEN];
    res r;
    mksub(dir, "fifo");
    pathf(fifo, "%s/pipe.png", dir);
    if (mkfifo(fifo, 0600) != 0) {
        ng_t_fail(__FILE__, __LINE__, "mkfifo: %s", strerror(errno));
        return;
    }
    pathf(s, "%s/fifo.lua", dir);
    put_file(s, "return ng.image{path = \"pipe.png\"}\n");
    tpath(out, "fifo.png");
    cli_t(&r, DEFAULT_TIMEOUT, "render", s, "-o", out, "--size", "4", NULL);
    EXPECT_ERR(&r, 1, at(s, 1), "pipe.png", "is not a regular file");
    res_free(&r);
    CHECK(!exists(out));
}

/* A directory and a device: refused by what they are, not by what reading
 * them gave. */
static void test_directory_and_device_refused(void)
{
    char dir[PATHLEN];
    load_result r;
    mksub(dir, "adir.png");
    load_now(dir, SIZE_MAX, &r);
    CHECK_INT(r.rc, -1);
    CHECK_CONTAINS(r.msg, "adir.png: is a directory");
    load_now("/dev/zero", SIZE_MAX, &r);
    CHECK_INT(r.rc, -1);
    CHECK_CONTAINS(r.msg, "/dev/zero: is not a regular file");
}

/* ---- BMP and TGA ------------------------------------------------------------------------------------ */

static void put_le(unsigned char *p, uint32_t v, int n)
{
    int i;
    for (i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static void put_bytes(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, n, f) == n);
    if (f) fclose(f);
}

/* A 24-bit BMP of w x h (w * 3 a multiple of 4: no row padding) from
 * top-to-bottom BGR rows; top_down: its height negative, rows stored as
 * given, else bottom row first. Its length. */
static size_t craft_bmp(unsigned char *b, int w, int h, const unsigned char *bgr, int top_down)
{
    const size_t row = (size_t)w * 3, n = 54 + row * (size_t)h;
    int y;
    memset(b, 0, 54);
    b[0] = 'B', b[1] = 'M';
    put_le(b + 2, (uint32_t)n, 4);
    put_le(b + 10, 54, 4);
    put_le(b + 14, 40, 4);
    put_le(b + 18, (uint32_t)w, 4);
    put_le(b + 22, (uint32_t)(top_down ? -h : h), 4);
    put_le(b + 26, 1, 2);
    put_le(b + 28, 24, 2);
    put_le(b + 34, (uint32_t)(row * (size_t)h), 4);
    for (y = 0; y < h; y++) memcpy(b + 54 + row * (size_t)y, bgr + row * (size_t)(top_down ? y : h - 1 - y), row);
    return n;
}

/* A top-down BMP (negative height) is as valid as a bottom-up one: both
 * read as the same image, top row first. It was refused as larger than
 * the pixel limit (the negative height taken as a huge unsigned one). */
static void test_bmp_top_down(void)
{
    enum { BW = 4, BH = 3 };
    unsigned char bgr[BW * BH * 3], file[54 + sizeof bgr];
    char up[PATHLEN], down[PATHLEN];
    ng_image a, b;
    ng_error err;
    size_t i, n;
    for (i = 0; i < sizeof bgr; i++) bgr[i] = (unsigned char)(7 * i + 3);
    tpath(up, "bottom_up.bmp");
    tpath(down, "top_down.bmp");
    n = craft_bmp(file, BW, BH, bgr, 0);
    put_bytes(up, file, n);
    n = craft_bmp(file, BW, BH, bgr, 1);
    put_bytes(down, file, n);
    CHECK_INT(ng_image_load(up, &a, SIZE_MAX, &err), 0);
    if (ng_image_load(down, &b, SIZE_MAX, &err) != 0) {
        ng_t_fail(__FILE__, __LINE__, "top-down BMP refused: %s", err.msg);
        if (a.px) ng_image_free(&a);
        return;
    }
    CHECK_INT(b.width, BW);
    CHECK_INT(b.height, BH);
    CHECK_INT(b.channels, 3);
    CHECK(a.px && !memcmp(a.px, b.px, sizeof(float) * BW * BH * 3));
    CHECK_NEAR(b.px[0], bgr[2] / 255.0f, 0); /* the top-left pixel's red */
    ng_image_free(&a);
    ng_image_free(&b);
}

/* A BMP cut short is an error too (stb read it as zeros); one whose last
 * row lacks only its padding still reads. */
static void test_truncated_bmp(void)
{
    enum { BW = 3, BH = 2 }; /* rows of 9 bytes padded to 12 */
    unsigned char file[54 + 12 * BH];
    char p[PATHLEN];
    ng_image img;
    ng_error err;
    size_t i;
    memset(file, 0, sizeof file);
    file[0] = 'B', file[1] = 'M';
    put_le(file + 2, sizeof file, 4);
    put_le(file + 10, 54, 4);
    put_le(file + 14, 40, 4);
    put_le(file + 18, BW, 4);
    put_le(file + 22, BH, 4);
    put_le(file + 26, 1, 2);
    put_le(file + 28, 24, 2);
    for (i = 54; i < sizeof file; i++) file[i] = (unsigned char)i;
    tpath(p, "cut.bmp");
    put_bytes(p, file, sizeof file - 3);
    CHECK_INT(ng_image_load(p, &img, SIZE_MAX, &err), 0);
    if (img.px) ng_image_free(&img);
    put_bytes(p, file, sizeof file - 4);
    CHECK_INT(ng_image_load(p, &img, SIZE_MAX, &err), -1);
    CHECK_CONTAINS(err.msg, "cut.bmp: cannot read the image (a 3x2 BMP cut short");
    CHECK(img.px == NULL);
}

/* A TGA header: type (2 colour, 3 grey; + 8 RLE), w x h, bits a pixel,
 * rows top to bottom, an ID field of idlen bytes. Its length (18 + idlen). */
static size_t tga_header(unsigned char *b, int type, int w, int h, int depth, int idlen)
{
    memset(b, 0, 18 + (size_t)idlen);
    b[0] = (unsigned char)idlen;
    b[2] = (unsigned char)type;
    put_le(b + 12, (uint32_t)w, 2);
    put_le(b + 14, (uint32_t)h, 2);
    b[16] = (unsigned char)depth;
    b[17] = 0x20;
    return 18 + (size_t)idlen;
}

/* A TGA cut short is an error, as a cut PNG or JPEG is: stb reads past
 * its end as zeros, and the missing pixels came back black. Whole files
 * (uncompressed and RLE, grey and colour, with an ID field, and with a
 * footer after the pixels) still read. */
static void test_truncated_tga(void)
{
    unsigned char b[256];
    char p[PATHLEN];
    ng_image img;
    ng_error err;
    size_t n, i;
    int cut;
    tpath(p, "t.tga");
    for (cut = 0; cut < 2; cut++) {
        /* uncompressed grey 4x3 with a 5-byte ID field */
        n = tga_header(b, 3, 4, 3, 8, 5);
        for (i = 0; i < 12; i++) b[n++] = (unsigned char)(20 * i + 1);
        put_bytes(p, b, n - (cut ? 5 : 0));
        if (!cut) {
            CHECK_INT(ng_image_load(p, &img, SIZE_MAX, &err), 0);
            CHECK_NEAR(img.px ? img.px[11] : -1, 221 / 255.0f, 0);
            ng_image_free(&img);
        } else {
            CHECK_INT(ng_image_load(p, &img, SIZE_MAX, &err), -1);
            CHECK_CONTAINS(err.msg, "t.tga: cannot read the image (a 4x3 TGA cut short");
            CHECK(img.px == NULL);
        }
        /* RLE colour 4x3: a run of 5, then 7 raw pixels; a footer after them */
        n = tga_header(b, 10, 4, 3, 24, 0);
        b[n++] = 0x80 | 4, b[n++] = 10, b[n++] = 20, b[n++] = 30;
        b[n++] = 6;
        for (i = 0; i < 21; i++) b[n++] = (unsigned char)(100 + i);
        if (cut) {
            put_bytes(p, b, n - 2);
        } else {
            memcpy(b + n, "\0\0\0\0\0\0\0\0TRUEVISION-XFILE.", 26);
            put_bytes(p, b, n + 26);
        }
        if (!cut) {
            CHECK_INT(ng_image_load(p, &img, SIZE_MAX, &err), 0);
            CHECK_NEAR(img.px ? img.px[11 * 3] : -1, 120 / 255.0f, 0); /* the last pixel's red (BGR stored) */
            ng_image_free(&img);
        } else {
            CHECK_INT(ng_image_load(p, &img, SIZE_MAX, &err), -1);
            CHECK_CONTAINS(err.msg, "TGA cut short");
        }
        /* RLE grey cut before its last packet's count */
        n = tga_header(b, 11, 4, 3, 8, 0);
        b[n++] = 0x80 | 7, b[n++] = 50;
        if (!cut) b[n++] = 0x80 | 3, b[n++] = 60;
        put_bytes(p, b, n);
        CHECK_INT(ng_image_load(p, &img, SIZE_MAX, &err), cut ? -1 : 0);
        if (!cut) ng_image_free(&img);
    }
}

/* A file larger than any image input (a sparse 2.1 GB one) is refused by
 * its size, before a byte is read. */
static void test_file_size_cap(void)
{
    char path[PATHLEN];
    load_result r;
    tpath(path, "vast.png");
    craft_png(path, 16, 16, 8, 0, EMPTY_ZLIB, sizeof EMPTY_ZLIB);
    if (truncate(path, (off_t)2150 * (off_t)MIB) != 0) {
        ng_t_fail(__FILE__, __LINE__, "truncate: %s", strerror(errno));
        return;
    }
    load_now(path, SIZE_MAX, &r);
    CHECK_INT(r.rc, -1);
    CHECK_CONTAINS(r.msg, "vast.png: a 2254438400-byte file is larger than an image file can be");
    remove(path);
}

/* ---- sampling anywhere ------------------------------------------------------------------------------- */

static int image_node(ng_graph *g, const char *path, const char *wrap, const char *filter, const char *channel)
{
    ng_node *n = t_begin(g, "image");
    const ng_node_type *t = ng_node_type_of(n);
    ng_error err;
    if (ng_set_string(n, ng_param_index(t, "path"), path, &err) ||
        ng_set_choice(n, ng_param_index(t, "wrap"), wrap, &err) ||
        ng_set_choice(n, ng_param_index(t, "filter"), filter, &err) ||
        (channel && ng_set_choice(n, ng_param_index(t, "channel"), channel, &err)))
        ng_t_fail(__FILE__, __LINE__, "image option refused: %s", err.msg);
    return t_finish(g, n);
}

/* w x h pixels of root rendered with the top-left corner at (x, y). */
/* A w x h window whose top-left corner is at world (x, y), pixel centres
 * sampled. Renders refuse origins beyond NG_MAX_COORD, but positions that
 * far still reach an image through warps and fractal octaves: with
 * `points` (or out there) it is sampled through ng_eval_points instead. */
static float *sample_at(const ng_graph *g, int root, int w, int h, double x, double y, int points, ng_error *err)
{
    ng_render_opts o;
    float *buf = malloc((size_t)w * (size_t)h * NG_MAX_CHANNELS * sizeof(float));
    if (points || fabs(x) > NG_MAX_COORD || fabs(y) > NG_MAX_COORD) {
        double *xs = malloc((size_t)w * (size_t)h * sizeof(double)), *ys = malloc((size_t)w * (size_t)h * sizeof(double));
        const double *axes[2];
        int i, j, rc = -1;
        if (buf && xs && ys) {
            for (j = 0; j < h; j++)
                for (i = 0; i < w; i++) {
                    xs[j * w + i] = x + i + 0.5;
                    ys[j * w + i] = y + j + 0.5;
                }
            axes[0] = xs;
            axes[1] = ys;
            rc = ng_eval_points(g, root, 2, axes, w * h, buf, err);
        }
        free(xs);
        free(ys);
        if (rc == 0) return buf;
        free(buf);
        return NULL;
    }
    t_opts(&o, w, h);
    o.origin[0] = x;
    o.origin[1] = y;
    o.tile = 8; /* several tiles, each with its own anchor */
    if (buf && ng_render_buffer(g, root, &o, buf, err) == 0) return buf;
    free(buf);
    return NULL;
}

static float *render_at(const ng_graph *g, int root, int w, int h, double x, double y, ng_error *err)
{
    return sample_at(g, root, w, h, x, y, 0, err);
}

/* x mod m in [0, m) for a whole-number double */
static double modp(double x, double m)
{
    double r = fmod(x, m);
    return r < 0 ? r + m : r;
}

/* Repeat and mirror, nearest and bilinear: at an origin far out, the same
 * bits as at the origin it is congruent to near 0 (modulo 8 x 6, a period
 * of both modes on the 4x3 image). */
static void test_far_origin_repeats_exactly(void)
{
    static const double origins[][2] = {
        {2147483647, 0},  {2147483645, 2147483646}, {-2147483649.0, -2147483650.0}, {4294967296.0 + 3, 5},
        {1e15, 999999999999996.0}, {-1e15, -999999999999996.0}, {4503599627370496.0 - 64, -4503599627370496.0 + 64},
    };
    static const char *const wraps[] = {"repeat", "mirror"}, *const filters[] = {"nearest", "bilinear"};
    const int W = 20, H = 13;
    ng_graph *g = image_graph();
    int m, f, k;
    for (m = 0; m < 2; m++)
        for (f = 0; f < 2; f++) {
            int img = image_node(g, fix_g8, wraps[m], filters[f], "r");
            for (k = 0; k < (int)(sizeof origins / sizeof origins[0]); k++) {
                const double x = origins[k][0], y = origins[k][1];
                ng_error e1 = {{0}}, e2 = {{0}};
                const int points = fabs(x) > NG_MAX_COORD || fabs(y) > NG_MAX_COORD; /* both the same way */
                float *far = sample_at(g, img, W, H, x, y, points, &e1),
                      *near = sample_at(g, img, W, H, modp(x, 8), modp(y, 6), points, &e2);
                if (!far || !near)
                    ng_t_fail(__FILE__, __LINE__, "%s %s at (%.17g, %.17g): %s%s", wraps[m], filters[f], x, y, e1.msg,
                              e2.msg);
                else if (memcmp(far, near, (size_t)W * H * sizeof(float)) != 0)
                    ng_t_fail(__FILE__, __LINE__, "%s %s at (%.17g, %.17g) differs from (%g, %g)", wraps[m], filters[f],
                              x, y, modp(x, 8), modp(y, 6));
                free(far);
                free(near);
            }
        }
    ng_graph_free(g);
}

/* Clamp far out is the edge: the right column at x = 1e15, the corner
 * beyond both edges, and no limit on how far (2^60 pixels out). */
static void test_far_origin_clamps_to_edge(void)
{
    ng_graph *g = image_graph();
    int near = image_node(g, fix_g8, "clamp", "nearest", "r"), bil = image_node(g, fix_g8, "clamp", "bilinear", "r");
    int i, j, k;
    for (k = 0; k < 2; k++) {
        const int img = k ? bil : near;
        ng_error err = {{0}};
        float *right = render_at(g, img, 5, 3, 1e15, 0, &err);
        float *low = render_at(g, img, 5, 3, -1e15, 1e15, &err);
        float *far = render_at(g, img, 5, 3, 1152921504606846976.0, 1152921504606846976.0, &err);
        if (!right || !low || !far) {
            ng_t_fail(__FILE__, __LINE__, "clamp render failed: %s", err.msg);
        } else {
            for (j = 0; j < 3; j++) /* pixel centres: bilinear is exact there too */
                for (i = 0; i < 5; i++) {
                    CHECK_NEAR(right[j * 5 + i], G8[j][3] / 255.0f, 0);
                    CHECK_NEAR(low[j * 5 + i], G8[2][0] / 255.0f, 0);
                    CHECK_NEAR(far[j * 5 + i], G8[2][3] / 255.0f, 0);
                }
        }
        free(right);
        free(low);
        free(far);
    }
    ng_graph_free(g);
}

/* Beyond 2^52 pixels repeat cannot tell which pixel: an error naming the
 * node, the position and the way out, not wrong pixels. */
static void test_too_far_is_an_error(void)
{
    ng_graph *g = image_graph();
    int rep = image_node(g, fix_g8, "repeat", "nearest", "r"), mir = image_node(g, fix_g8, "mirror", "bilinear", "r");
    ng_error err = {{0}};
    float *v = render_at(g, rep, 4, 4, 9007199254740992.0, 0, &err);
    CHECK(v == NULL);
    CHECK_CONTAINS(err.msg, "image: sampled at (9007199254740992, 0.5)");
    CHECK_CONTAINS(err.msg, "too far for wrap = \"repeat\"");
    CHECK_CONTAINS(err.msg, "wrap = \"clamp\"");
    free(v);
    v = render_at(g, mir, 4, 4, 0, -1e300, &err);
    CHECK(v == NULL);
    CHECK_CONTAINS(err.msg, "too far for wrap = \"mirror\"");
    free(v);
    ng_graph_free(g);
}

/* A position that is not a number (a warp by a 0/0) samples nothing: NaN
 * out, in every mode, and no undefined conversion on the way. */
static void test_nan_position(void)
{
    static const char *const wraps[] = {"repeat", "clamp", "mirror"}, *const filters[] = {"nearest", "bilinear"};
    ng_graph *g = image_graph();
    const double x[2] = {NAN, 1.5}, y[2] = {0.5, NAN};
    const double *xs[2] = {x, y};
    int m, f;
    for (m = 0; m < 3; m++)
        for (f = 0; f < 2; f++) {
            int img = image_node(g, fix_g8, wraps[m], filters[f], "rgb");
            float out[6];
            ng_error err = {{0}};
            int i;
            if (ng_eval_points(g, img, 2, xs, 2, out, &err)) {
                ng_t_fail(__FILE__, __LINE__, "%s %s: %s", wraps[m], filters[f], err.msg);
                continue;
            }
            for (i = 0; i < 6; i++) CHECKF(out[i] != out[i], "%s %s: value %d is %g", wraps[m], filters[f], i, out[i]);
        }
    ng_graph_free(g);
}

/* value of root at world (x, y) */
static float at_point(const ng_graph *g, int root, double x, double y, int ch)
{
    const double *xs[2] = {&x, &y};
    float out[NG_MAX_CHANNELS] = {0};
    ng_error err;
    if (ng_eval_points(g, root, 2, xs, 1, out, &err)) ng_t_fail(__FILE__, __LINE__, "eval: %s", err.msg);
    return out[ch];
}

/* A w x h JPEG (grey when nch is 1, else RGB) at quality 100 through
 * libjpeg's encoder. */
static int write_jpeg(const char *path, int w, int h, int nch, const unsigned char *samples, int progressive)
{
    struct jpeg_compress_struct ci;
    struct jpeg_error_mgr jerr;
    FILE *f = fopen(path, "wb");
    int y;
    if (!f) return 0;
    ci.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&ci);
    jpeg_stdio_dest(&ci, f);
    ci.image_width = (JDIMENSION)w;
    ci.image_height = (JDIMENSION)h;
    ci.input_components = nch;
    ci.in_color_space = nch == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&ci);
    jpeg_set_quality(&ci, 100, TRUE);
    if (progressive) jpeg_simple_progression(&ci);
    jpeg_start_compress(&ci, TRUE);
    for (y = 0; y < h; y++) {
        JSAMPROW row = (JSAMPROW)(samples + (size_t)y * (size_t)w * (size_t)nch);
        jpeg_write_scanlines(&ci, &row, 1);
    }
    jpeg_finish_compress(&ci);
    jpeg_destroy_compress(&ci);
    return fclose(f) == 0;
}

/* JPEG (read by libjpeg-turbo): grey and colour, baseline and progressive,
 * come back close to what was written (quality 100, smooth content); a
 * truncated or corrupt one is one clear error; the header's size is checked
 * against the allowance before decoding. */
static void test_jpeg(void)
{
    enum { W = 24, H = 16 };
    unsigned char grey[W * H], rgb[W * H * 3];
    char p[PATHLEN];
    ng_image img;
    ng_error err;
    int x, y, c, prog;
    size_t n;
    unsigned char *bytes;
    for (y = 0; y < H; y++)
        for (x = 0; x < W; x++) {
            grey[y * W + x] = (unsigned char)(40 + 5 * x + 3 * y);
            for (c = 0; c < 3; c++) rgb[(y * W + x) * 3 + c] = (unsigned char)(c == 0 ? 200 - 4 * x : c == 1 ? 30 + 6 * y : 128);
        }
    for (prog = 0; prog < 2; prog++) {
        double worst = 0;
        tpath(p, "grey.jpg");
        CHECK(write_jpeg(p, W, H, 1, grey, prog));
        CHECK(ng_image_load(p, &img, SIZE_MAX, &err) == 0);
        CHECK_INT(img.width, W);
        CHECK_INT(img.height, H);
        CHECK_INT(img.channels, 1);
        for (x = 0; img.px && x < W * H; x++) worst = fmax(worst, fabs(img.px[x] - grey[x] / 255.0));
        CHECKF(worst < 3.0 / 255, "grey JPEG (progressive %d) off by %g", prog, worst);
        ng_image_free(&img);
        worst = 0;
        tpath(p, "rgb.jpg");
        CHECK(write_jpeg(p, W, H, 3, rgb, prog));
        CHECK(ng_image_load(p, &img, SIZE_MAX, &err) == 0);
        CHECK_INT(img.channels, 3);
        for (x = 0; img.px && x < W * H * 3; x++) worst = fmax(worst, fabs(img.px[x] - rgb[x] / 255.0));
        CHECKF(worst < 8.0 / 255, "RGB JPEG (progressive %d) off by %g", prog, worst);
        ng_image_free(&img);
    }
    /* the allowance is checked from the header */
    CHECK(ng_image_load(p, &img, 1000, &err) == -1);
    CHECK_CONTAINS(err.msg, "more than the 0 MiB allowed");
    /* cut in the middle of the header: an error naming the file, no image */
    bytes = slurp(p, &n);
    CHECK(bytes != NULL && n > 40);
    if (bytes) {
        FILE *f;
        tpath(p, "cut.jpg");
        f = fopen(p, "wb");
        CHECK(f && fwrite(bytes, 1, 30, f) == 30);
        if (f) fclose(f);
        free(bytes);
        CHECK(ng_image_load(p, &img, SIZE_MAX, &err) == -1);
        CHECK_CONTAINS(err.msg, "cut.jpg: cannot read the image");
        CHECK(img.px == NULL);
    }
}

/* Small and unusual images: 1x1 everywhere in every mode, grey + alpha,
 * 16-bit RGBA; mirror across negative coordinates. */
static void test_odd_images(void)
{
    static const unsigned char one[1] = {77}, ga[2 * 1 * 2] = {10, 250, 20, 128};
    static const unsigned short rgba16[1 * 2 * 4] = {65535, 0, 1, 32768, 0, 65535, 2, 3};
    static const double pos[] = {-1e15, -2147483649.0, -3.5, -0.5, 0.25, 0.5, 0.99, 1.5, 7.75, 2147483648.5, 1e15};
    static const char *const wraps[] = {"repeat", "clamp", "mirror"}, *const filters[] = {"nearest", "bilinear"};
    char p1[PATHLEN], pga[PATHLEN], p16[PATHLEN];
    ng_graph *g = image_graph();
    int m, f, a, b;
    tpath(p1, "one.png");
    tpath(pga, "ga.png");
    tpath(p16, "rgba16.png");
    write_png(p1, 1, 1, 8, PNG_COLOR_TYPE_GRAY, 1, one);
    write_png(pga, 2, 1, 8, PNG_COLOR_TYPE_GRAY_ALPHA, 2, ga);
    write_png(p16, 1, 2, 16, PNG_COLOR_TYPE_RGBA, 4, rgba16);
    for (m = 0; m < 3; m++)
        for (f = 0; f < 2; f++) {
            int img = image_node(g, p1, wraps[m], filters[f], NULL);
            for (a = 0; a < (int)(sizeof pos / sizeof pos[0]); a++)
                for (b = 0; b < (int)(sizeof pos / sizeof pos[0]); b++) {
                    float v = at_point(g, img, pos[a], pos[b], 0);
                    if (v != 77 / 255.0f)
                        ng_t_fail(__FILE__, __LINE__, "1x1 %s %s at (%g, %g): %.9g", wraps[m], filters[f], pos[a],
                                  pos[b], v);
                }
        }
    {
        int gr = image_node(g, pga, "mirror", "nearest", "g"), al = image_node(g, pga, "mirror", "nearest", "a");
        int gray = image_node(g, pga, "repeat", "nearest", NULL);
        CHECK_NEAR(at_point(g, gr, 0.5, 0.5, 0), 10 / 255.0f, 0);
        CHECK_NEAR(at_point(g, gr, -0.5, 0.5, 0), 10 / 255.0f, 0);  /* mirror: -1 -> 0 */
        CHECK_NEAR(at_point(g, gr, -1.5, 0.5, 0), 20 / 255.0f, 0);  /* -2 -> 1 */
        CHECK_NEAR(at_point(g, gr, -2.5, -7.5, 0), 20 / 255.0f, 0); /* -3 -> 1 */
        CHECK_NEAR(at_point(g, gr, -4.5, 0.5, 0), 10 / 255.0f, 0);  /* -5 -> 0 */
        CHECK_NEAR(at_point(g, al, 1.5, 0.5, 0), 128 / 255.0f, 0);
        CHECK_NEAR(at_point(g, al, 2.5, 0.5, 0), 128 / 255.0f, 0);
        CHECK_NEAR(at_point(g, gray, -0.5, 9.5, 0), 20 / 255.0f, 0);
    }
    {
        int rgb = image_node(g, p16, "clamp", "nearest", "rgb"), al = image_node(g, p16, "clamp", "nearest", "a");
        CHECK_NEAR(at_point(g, rgb, 0.5, 0.5, 0), 1, 0);
        CHECK_NEAR(at_point(g, rgb, 0.5, 0.5, 1), 0, 0);
        CHECK_NEAR(at_point(g, rgb, 0.5, 0.5, 2), 1 / 65535.0f, 0);
        CHECK_NEAR(at_point(g, al, 0.5, 0.5, 0), 32768 / 65535.0f, 0);
        CHECK_NEAR(at_point(g, rgb, -9, 1e15, 1), 1, 0);
        CHECK_NEAR(at_point(g, al, -9, 1e15, 0), 3 / 65535.0f, 0);
    }
    ng_graph_free(g);
}

/* The case through the program: --origin 2147483647,0 renders the
 * same pixels as the origin congruent to it. */
static void test_cli_far_origin(void)
{
    char dir[PATHLEN], img[PATHLEN], s[PATHLEN], far[PATHLEN], near[PATHLEN];
    res r;
    mksub(dir, "farimg");
    pathf(img, "%s/g.png", dir);
    write_png(img, 4, 3, 8, PNG_COLOR_TYPE_GRAY, 1, G8);
    pathf(s, "%s/far.lua", dir);
    put_file(s, "return ng.image{path = \"g.png\", wrap = \"mirror\"}\n");
    tpath(far, "far.pfm");
    tpath(near, "near.pfm");
    cli(&r, "render", s, "-o", far, "--size", "16x8", "--origin", "2147483647,0", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", near, "--size", "16x8", "--origin", "7,0", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(far, near));
}

static void test_image_input_environment(void)
{
    ng_t_fail(__FILE__, __LINE__, "NG_BIN (an executable noisegraph) and NG_ROOT must be set: NG_BIN=%s NG_ROOT=%s",
              ng_bin ? ng_bin : "(unset)", ng_root ? ng_root : "(unset)");
}

/* The image target's allowance (tests/fuzz/image.c). */
#define MAX_BYTES ((size_t)64 << 20)

/* Replays one reproducer in a child process, so that a sanitizer report
 * (which ends the process) fails this test and not the whole run; fn
 * returns 0 when the input ended as it should, or prints why not. */
static void replay(const char *path, int (*fn)(const char *path))
{
    int status = 0;
    pid_t pid;
    fflush(NULL);
    pid = fork();
    if (pid == 0) _exit(fn(path) ? 3 : 0);
    CHECKF(pid > 0 && waitpid(pid, &status, 0) == pid, "%s: fork failed", path);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "%s: %s %d (a sanitizer report above, or a wrong result)", path,
           WIFEXITED(status) ? "exit" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

/* Replays every file of tests/fuzz/crashes/<target>/; returns how many. */
static int replay_all(const char *target, int (*fn)(const char *path))
{
    char dir[PATHLEN], path[PATHLEN];
    struct dirent *e;
    int n = 0;
    DIR *d;
    pathf(dir, "%s/tests/fuzz/crashes/%s", ng_root, target);
    if (!(d = opendir(dir))) return 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        pathf(path, "%s/%s", dir, e->d_name);
        replay(path, fn);
        n++;
    }
    closedir(d);
    return n;
}

/* Loads, with samples in [0, 1], or refuses with a one-line error that
 * names the file. */
static int load_image(const char *path)
{
    ng_image img;
    ng_error err;
    if (ng_image_load(path, &img, MAX_BYTES, &err) == 0) {
        size_t i, n = (size_t)img.width * (size_t)img.height * (size_t)img.channels, bad = 0;
        for (i = 0; i < n; i++) bad += !(img.px[i] >= 0.0f && img.px[i] <= 1.0f);
        ng_image_free(&img);
        if (bad) fprintf(stderr, "%s: %zu samples outside [0, 1]\n", path, bad);
        return bad != 0;
    }
    if (strncmp(err.msg, path, strlen(path)) != 0 || strchr(err.msg, '\n')) {
        fprintf(stderr, "%s: the error does not name the file on one line: %s\n", path, err.msg);
        return -1;
    }
    return 0;
}

/* stb_image 2.27 (Debian's libstb) has two that the image target found in
 * its first minute: a PSD with an alpha channel is un-premultiplied with a
 * float -> unsigned char conversion out of range (UB); a JPEG whose DHT
 * code counts sum past 256 overflows stbi__huffman.size[257]. */
static void test_image_reproducers(void)
{
    CHECK(replay_all("image", load_image) >= 2);
}

NG_SUITE(image_input, fast)
{
    if (cli_setup("ngimage") != 0) {
        RUN(test_image_input_environment);
        return;
    }
    tpath(fix_g8, "g8.png");
    write_png(fix_g8, 4, 3, 8, PNG_COLOR_TYPE_GRAY, 1, G8);
    RUN(test_header_over_pixel_limit);
    RUN(test_node_refuses_header);
    RUN(test_header_over_allowance);
    RUN(test_allowance_figure);
    RUN(test_decoder_held_to_allowance);
    RUN(test_fifo_refused);
    RUN(test_directory_and_device_refused);
    RUN(test_file_size_cap);
    RUN(test_bmp_top_down);
    RUN(test_truncated_tga);
    RUN(test_truncated_bmp);
    RUN(test_far_origin_repeats_exactly);
    RUN(test_far_origin_clamps_to_edge);
    RUN(test_too_far_is_an_error);
    RUN(test_nan_position);
    RUN(test_odd_images);
    RUN(test_jpeg);
    RUN(test_cli_far_origin);
    RUN(test_image_reproducers);
    cli_teardown();
}
