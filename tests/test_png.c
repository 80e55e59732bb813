/*
 * test_png.c — the file sink writing PNG: exact sample values after
 * decoding with libpng, band boundaries, and the promise that a failed or
 * cancelled render never clobbers the target nor leaves a temporary file
 * beside it (test_files.c checks the other formats).
 */
#include "ng_io.h"
#include "harness.h"
#include "noisegraph.h"

#include <png.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>


static char scratch[64]; /* mkdtemp directory for this suite */

static const char *in_scratch(const char *name)
{
    static char buf[sizeof scratch + 256 + 1]; /* any d_name fits */
    snprintf(buf, sizeof buf, "%s/%s", scratch, name);
    return buf;
}

/* Entries of the scratch directory whose name contains part ("" for all). */
static int count_entries(const char *part)
{
    DIR *d = opendir(scratch);
    struct dirent *e;
    int n = 0;
    if (!d) return -1;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            strstr(e->d_name, part))
            n++;
    closedir(d);
    return n;
}

/* Temporary files left beside the targets. */
static int count_temps(void) { return count_entries(".tmp-"); }

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* The whole file as a string (NUL-terminated; NULL when unreadable). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (buf) buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Begins, sends img (w*h*ch floats) in bands of the given heights, ends with
 * ok = 1. Returns -1 at the first failing call, with err filled. */
static int write_png(const char *path, int bits, int w, int h, int ch, const float *img,
                     const int *bands, int nbands, ng_error *err)
{
    ng_file_sink *p = ng_file_sink_new(path, bits, err);
    ng_sink s;
    int y = 0, k, rc = 0;
    if (!p) return -1;
    s = ng_file_sink_as_sink(p);
    if (s.begin(s.user, w, h, ch, err) != 0) rc = -1;
    for (k = 0; rc == 0 && k < nbands; k++) {
        rc = s.rows(s.user, y, bands[k], img + (size_t)y * w * ch, err);
        y += bands[k];
    }
    if (rc == 0) rc = s.end(s.user, 1, err);
    else s.end(s.user, 0, err);
    ng_file_sink_free(p);
    return rc;
}

/* Decodes path into a malloc'd buffer in the given simplified-API format
 * (no conversion for matching formats: no gAMA chunk is written, so 8-bit
 * reads as sRGB and 16-bit as linear, each unchanged). */
static void *read_png(const char *path, uint32_t format, int *w, int *h, uint32_t *file_format)
{
    png_image im;
    void *buf;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&im, path)) return NULL;
    *file_format = im.format;
    *w = (int)im.width;
    *h = (int)im.height;
    im.format = format;
    buf = malloc(PNG_IMAGE_SIZE(im));
    if (buf && !png_image_finish_read(&im, NULL, buf, 0, NULL)) {
        free(buf);
        buf = NULL;
    }
    png_image_free(&im);
    return buf;
}

/*
 * The test image: sample k (row-major, interleaved) is code(k) / max with
 * max = 255 or 65535, except for the first pixels of each row, which hold
 * the values whose encoding is the point: 0, 1, 0.5, -3, 7, NaN, and (for
 * 16 bits) 258/65535 = 0x0102, whose bytes a swapped writer would reverse.
 */
enum { W = 37, H = 23, NSPECIAL = 7 };

/* A hash, so the samples are as incompressible as noise gets. */
static unsigned code(size_t k, unsigned max)
{
    uint32_t h = (uint32_t)k * 0x9E3779B1u;
    h ^= h >> 15;
    h *= 0x85EBCA77u;
    h ^= h >> 13;
    return h % (max + 1);
}

static void make_image(float *img, int ch, unsigned max)
{
    static const float special[NSPECIAL] = {0.0f, 1.0f, 0.5f, -3.0f, 7.0f, 0.0f, 258.0f / 65535.0f};
    size_t i, n = (size_t)W * H * ch;
    for (i = 0; i < n; i++) img[i] = (float)code(i, max) / (float)max;
    for (int y = 0; y < H; y++)
        for (int i2 = 0; i2 < NSPECIAL * ch; i2++) img[(size_t)y * W * ch + i2] = special[i2 / ch];
    for (int y = 0; y < H; y++)
        for (int c = 0; c < ch; c++) img[(size_t)y * W * ch + 5 * ch + c] = NAN;
}

static unsigned expected(size_t k, int ch, unsigned max)
{
    /* 0.5 rounds half up; 258/65535 is exact only at 16 bits. */
    const unsigned special[NSPECIAL] = {0, max, max == 255 ? 128 : 32768, 0, max, 0,
                                        max == 255 ? 1 : 258};
    size_t x = (k / ch) % W;
    return x < NSPECIAL ? special[x] : code(k, max);
}

static const int bands[] = {1, 5, 10, 7}; /* unequal, sum H */

static void check_round_trip(int bits, int ch)
{
    unsigned max = bits == 8 ? 255 : 65535;
    size_t n = (size_t)W * H * ch, k, bad = 0;
    float *img = malloc(n * sizeof *img);
    const char *path = in_scratch("trip.png");
    ng_error err = {{0}};
    uint32_t want = (ch == 3 ? PNG_FORMAT_FLAG_COLOR : 0) | (bits == 16 ? PNG_FORMAT_FLAG_LINEAR : 0);
    uint32_t got_format = 0;
    int w = 0, h = 0;
    void *px;

    make_image(img, ch, max);
    CHECK_INT(write_png(path, bits, W, H, ch, img, bands, 4, &err), 0);
    CHECK_STR(err.msg, "");
    px = read_png(path, want, &w, &h, &got_format);
    CHECK(px != NULL);
    CHECK_INT(got_format, want); /* grey/RGB and bit depth as asked */
    CHECK_INT(w, W);
    CHECK_INT(h, H);
    for (k = 0; px && k < n; k++) {
        unsigned v = bits == 8 ? ((uint8_t *)px)[k] : ((uint16_t *)px)[k];
        if (v != expected(k, ch, max) && bad++ < 5)
            CHECK_INT(v, expected(k, ch, max));
    }
    CHECK_INT(bad, 0);
    CHECK_INT(count_temps(), 0);
    free(px);
    free(img);
    unlink(path);
}

static void test_png_grey8_values(void) { check_round_trip(8, 1); }
static void test_png_grey16_values(void) { check_round_trip(16, 1); }
static void test_png_rgb8_values(void) { check_round_trip(8, 3); }
static void test_png_rgb16_values(void) { check_round_trip(16, 3); }

/* A fresh file gets 0666 less the umask, as fopen would give it, not
 * mkstemp's 0600. */
static void test_png_file_mode(void)
{
    float img[W * H] = {0};
    const int one[] = {H};
    const char *path = in_scratch("mode.png");
    ng_error err = {{0}};
    struct stat st;
    mode_t mask = umask(022);
    umask(mask);
    CHECK_INT(write_png(path, 8, W, H, 1, img, one, 1, &err), 0);
    CHECK_INT(stat(path, &st), 0);
    CHECK_INT(st.st_mode & 0777, 0666 & ~mask);
    unlink(path);
}

/* Begins an image at path and writes its first nrows rows of zeros. */
static ng_file_sink *start(const char *path, int nrows, ng_sink *s, ng_error *err)
{
    static float zeros[W * H];
    ng_file_sink *p = ng_file_sink_new(path, 8, err);
    if (!p) return NULL;
    *s = ng_file_sink_as_sink(p);
    CHECK_INT(s->begin(s->user, W, H, 1, err), 0);
    CHECK_INT(s->rows(s->user, 0, nrows, zeros, err), 0);
    return p;
}

/* The old target survived byte for byte and nothing was left beside it;
 * then removes it. */
static void check_target_kept(const char *path)
{
    char *after = slurp(path);
    CHECK_STR(after, "precious\n");
    CHECK_INT(count_temps(), 0);
    CHECK_INT(count_entries(""), 1);
    free(after);
    unlink(path);
}

static void test_png_cancel_keeps_target(void)
{
    const char *path = in_scratch("keep.png");
    ng_error err = {{0}};
    ng_sink s;
    ng_file_sink *p;
    put_file(path, "precious\n");
    p = start(path, 10, &s, &err);
    CHECK(p != NULL);
    CHECK_INT(count_temps(), 1); /* the image goes to a file beside it */
    CHECK_INT(s.end(s.user, 0, &err), 0);
    CHECK_INT(s.end(s.user, 0, &err), 0); /* twice is harmless */
    ng_file_sink_free(p);
    check_target_kept(path);
}

static void test_png_missing_rows_fail(void)
{
    const char *path = in_scratch("short.png");
    ng_error err = {{0}};
    ng_sink s;
    ng_file_sink *p;
    put_file(path, "precious\n");
    p = start(path, 10, &s, &err);
    CHECK_INT(s.end(s.user, 1, &err), -1);
    CHECK_CONTAINS(err.msg, path);
    CHECK_CONTAINS(err.msg, "only 10 of 23 rows written");
    ng_file_sink_free(p);
    check_target_kept(path);
}

static void test_png_success_replaces(void)
{
    float img[W * H] = {0};
    const char *path = in_scratch("replace.png");
    ng_error err = {{0}};
    uint32_t fmt;
    int w, h;
    void *px;
    put_file(path, "old contents\n");
    CHECK_INT(write_png(path, 8, W, H, 1, img, bands, 4, &err), 0);
    px = read_png(path, PNG_FORMAT_GRAY, &w, &h, &fmt);
    CHECK(px != NULL);
    CHECK_INT(w, W);
    CHECK_INT(count_temps(), 0);
    CHECK_INT(count_entries(""), 1);
    free(px);
    unlink(path);
}

/* A sink freed mid-image (say the renderer bailed out) cleans up too. */
static void test_png_free_while_writing(void)
{
    const char *path = in_scratch("abandon.png");
    ng_error err = {{0}};
    ng_sink s;
    ng_file_sink_free(start(path, 3, &s, &err));
    ng_file_sink_free(NULL);
    CHECK_INT(count_entries(""), 0);
}

static void test_png_missing_directory(void)
{
    const char *path = in_scratch("no/such/dir/x.png");
    ng_error err = {{0}};
    ng_file_sink *p = ng_file_sink_new(path, 8, &err);
    ng_sink s = ng_file_sink_as_sink(p);
    CHECK_INT(s.begin(s.user, W, H, 1, &err), -1);
    CHECK_CONTAINS(err.msg, path);
    CHECK_CONTAINS(err.msg, "cannot create temporary file");
    CHECK_CONTAINS(err.msg, strerror(ENOENT));
    /* end after a failed begin: no crash, no double free (ASan), no success */
    CHECK_INT(s.end(s.user, 1, &err), -1);
    CHECK_INT(s.end(s.user, 0, &err), 0);
    ng_file_sink_free(p);
    CHECK_INT(count_entries(""), 0);
}

static void test_png_bad_bits(void)
{
    ng_error err = {{0}};
    CHECK(ng_file_sink_new(in_scratch("b.png"), 12, &err) == NULL);
    CHECK_CONTAINS(err.msg, "bits must be 8 or 16");
    CHECK_CONTAINS(err.msg, "12");
    CHECK(ng_file_sink_new(in_scratch("b.png"), 32, &err) == NULL);
    CHECK_CONTAINS(err.msg, "not 32");
    CHECK_INT(count_entries(""), 0);
}

/* bits = 0 asks for the format's default: 8-bit for PNG. */
static void test_png_default_bits(void)
{
    float img[W * H] = {0};
    const int one[] = {H};
    const char *path = in_scratch("default.png");
    ng_error err = {{0}};
    uint32_t fmt = 0;
    int w, h;
    void *px;
    CHECK_INT(write_png(path, 0, W, H, 1, img, one, 1, &err), 0);
    px = read_png(path, PNG_FORMAT_GRAY, &w, &h, &fmt);
    CHECK(px != NULL);
    CHECK_INT(fmt, PNG_FORMAT_GRAY); /* no PNG_FORMAT_FLAG_LINEAR: 8 bits */
    free(px);
    unlink(path);
}

/* Two-channel (and empty) images are refused by name, and nothing is
 * made; 4 channels are RGBA (a splat map: test_terrain_masks.c). */
static void test_png_bad_channels(void)
{
    static const int counts[] = {2, 5, 0};
    for (int i = 0; i < 3; i++) {
        ng_error err = {{0}};
        char want[32];
        ng_file_sink *p = ng_file_sink_new(in_scratch("c.png"), 16, &err);
        ng_sink s = ng_file_sink_as_sink(p);
        CHECK_INT(s.begin(s.user, W, H, counts[i], &err), -1);
        snprintf(want, sizeof want, "not %d", counts[i]);
        CHECK_CONTAINS(err.msg, want);
        CHECK_CONTAINS(err.msg, "1 (grey), 3 (RGB) or 4 (RGBA)");
        CHECK_INT(s.end(s.user, 0, &err), 0);
        ng_file_sink_free(p);
    }
    CHECK_INT(count_entries(""), 0);
}

/* Rows that skip or overrun are a renderer bug: refused, image discarded,
 * later calls refused as well. */
static void test_png_rows_out_of_order(void)
{
    static float zeros[W * H];
    const char *path = in_scratch("order.png");
    ng_error err = {{0}};
    ng_sink s;
    ng_file_sink *p = start(path, 4, &s, &err);
    CHECK_INT(s.rows(s.user, 5, 2, zeros, &err), -1);
    CHECK_CONTAINS(err.msg, "row 4 of 23 was expected");
    CHECK_INT(count_entries(""), 0);
    CHECK_INT(s.rows(s.user, 4, 2, zeros, &err), -1);
    CHECK_CONTAINS(err.msg, "earlier error");
    CHECK_INT(s.end(s.user, 0, &err), 0);
    ng_file_sink_free(p);

    p = start(path, 20, &s, &err);
    CHECK_INT(s.rows(s.user, 20, 4, zeros, &err), -1); /* past the bottom */
    CHECK_CONTAINS(err.msg, "rows 20..23 given but the image has 23");
    CHECK_INT(s.end(s.user, 1, &err), -1);
    ng_file_sink_free(p);
    CHECK_INT(count_entries(""), 0);
}

/* A full disk, simulated with a file size limit: the error names the file
 * and the reason, the target survives, the partial file is gone. */
static void test_png_write_failure(void)
{
    enum { BW = 512, BH = 256 };
    const char *path = in_scratch("full.png");
    float *img = malloc((size_t)BW * BH * 3 * sizeof *img);
    ng_error err = {{0}};
    struct rlimit old, lim;
    void (*old_handler)(int);
    const int one[] = {BH};
    size_t i;
    if (!img || getrlimit(RLIMIT_FSIZE, &old) != 0) {
        CHECK(!"setup");
        free(img);
        return;
    }
    for (i = 0; i < (size_t)BW * BH * 3; i++) img[i] = (float)code(i, 255) / 255.0f;
    put_file(path, "precious\n");
    lim = old;
    lim.rlim_cur = 64 * 1024; /* the noise is ~400 KB of PNG */
    old_handler = signal(SIGXFSZ, SIG_IGN);
    CHECK_INT(setrlimit(RLIMIT_FSIZE, &lim), 0);
    CHECK_INT(write_png(path, 8, BW, BH, 3, img, one, 1, &err), -1);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_handler);
    CHECK_CONTAINS(err.msg, path);
    CHECK_CONTAINS(err.msg, strerror(EFBIG));
    check_target_kept(path);
    free(img);
}

/* A bare file name puts its temporary file in the working directory. */
static void test_png_relative_name(void)
{
    float img[W * H] = {0};
    ng_error err = {{0}};
    int here = open(".", O_RDONLY | O_DIRECTORY);
    CHECK(here >= 0);
    CHECK_INT(chdir(scratch), 0);
    CHECK_INT(write_png("rel.png", 8, W, H, 1, img, bands, 4, &err), 0);
    CHECK_STR(err.msg, "");
    CHECK_INT(fchdir(here), 0);
    close(here);
    CHECK_INT(count_entries(""), 1);
    unlink(in_scratch("rel.png"));
}

static void remove_scratch(void)
{
    DIR *d = opendir(scratch);
    struct dirent *e;
    if (d) {
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                unlink(in_scratch(e->d_name));
        closedir(d);
    }
    rmdir(scratch);
}

NG_SUITE(png, fast)
{
    snprintf(scratch, sizeof scratch, "/tmp/ng-png-XXXXXX");
    if (!mkdtemp(scratch)) {
        perror("suite_png: mkdtemp");
        return;
    }
    RUN(test_png_grey8_values);
    RUN(test_png_grey16_values);
    RUN(test_png_rgb8_values);
    RUN(test_png_rgb16_values);
    RUN(test_png_file_mode);
    RUN(test_png_cancel_keeps_target);
    RUN(test_png_missing_rows_fail);
    RUN(test_png_success_replaces);
    RUN(test_png_free_while_writing);
    RUN(test_png_missing_directory);
    RUN(test_png_bad_bits);
    RUN(test_png_default_bits);
    RUN(test_png_bad_channels);
    RUN(test_png_rows_out_of_order);
    RUN(test_png_write_failure);
    RUN(test_png_relative_name);
    remove_scratch();
}
