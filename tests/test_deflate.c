/*
 * test_deflate.c — the PNG encoder's own deflate coder (io/deflate.c):
 * every stream it writes inflates, through zlib (the reference decoder),
 * to its input; streams of separate calls joined one after the other
 * (as png.c joins its bands) are one zlib stream; its sizes stay those of
 * zlib's Huffman-only coding, and runs shrink flat data; the CLI's PNGs
 * at levels 1 and 2 hold the samples of the same render to .r16.
 */
#include "cli_support.h"

#include "deflate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define BIG (300 * 1024) /* more than a band (256 KiB) and several blocks */

/* xorshift: the same bytes on every run */
static uint32_t next_random(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

typedef enum { RANDOM, EQUAL, TWO, RAMP16, RUNS, ALL256, SKEWED, NKINDS } kind;
static const char *const kind_name[NKINDS] = {"random", "all equal", "two symbols", "16-bit ramp",
                                              "runs 1..600", "all 256 values", "skewed"};

/* n bytes of one kind of data. */
static unsigned char *make_data(kind k, size_t n)
{
    unsigned char *d = malloc(n ? n : 1);
    uint32_t s = 2463534242u;
    size_t i = 0, len = 1;
    if (!d) return NULL;
    switch (k) {
    case RANDOM:
        for (i = 0; i < n; i++) d[i] = (unsigned char)(next_random(&s) >> 24);
        break;
    case EQUAL:
        memset(d, 0x5a, n);
        break;
    case TWO:
        for (i = 0; i < n; i++) d[i] = next_random(&s) >> 31 ? 7 : 200;
        break;
    case RAMP16: /* big-endian 16-bit samples, as a PNG row holds */
        for (i = 0; i < n; i++) d[i] = (unsigned char)(i & 1 ? (i / 2) * 37 : (i / 2) * 37 >> 8);
        break;
    case RUNS: /* a run of every length 1..600 in turn, each of a new byte */
        while (i < n) {
            size_t r;
            for (r = 0; r < len && i < n; r++) d[i++] = (unsigned char)len;
            len = len == 600 ? 1 : len + 1;
        }
        break;
    case ALL256:
        for (i = 0; i < n; i++) d[i] = (unsigned char)(i * 151 + (i >> 8));
        break;
    case SKEWED: /* filtered smooth noise: small residuals far more often */
        for (i = 0; i < n; i++) {
            const uint32_t v = next_random(&s), m = (v & 0xff) >> (v >> 8 & 7);
            d[i] = (unsigned char)(v >> 31 ? m : 0u - m);
        }
        break;
    default:
        break;
    }
    return d;
}

/* Raw inflate of z (zlib's); whether it uses all of z, gives src and
 * ends (final) or stops at a byte boundary with every byte out (not
 * final: a sync flush). */
static int inflates_to(const unsigned char *z, size_t nz, const unsigned char *src, size_t n, int final)
{
    z_stream s;
    unsigned char *out = malloc(n + 16);
    int rc, ok;
    memset(&s, 0, sizeof s);
    if (!out || inflateInit2(&s, -15) != Z_OK) {
        free(out);
        return 0;
    }
    s.next_in = (unsigned char *)z;
    s.avail_in = (uInt)nz;
    s.next_out = out;
    s.avail_out = (uInt)(n + 16);
    rc = inflate(&s, final ? Z_FINISH : Z_SYNC_FLUSH);
    ok = rc == (final ? Z_STREAM_END : Z_OK) && s.avail_in == 0 && s.total_out == n && (n == 0 || memcmp(out, src, n) == 0);
    inflateEnd(&s);
    free(out);
    return ok;
}

/* src coded (runs or not) as a stream, final or not; its size, 0 when it
 * is past the bound or does not inflate back. */
static size_t coded_size(const unsigned char *src, size_t n, int runs, int final)
{
    const size_t bound = ng__deflate_bound(n);
    unsigned char *z = malloc(bound);
    size_t nz = z ? ng__deflate(z, src, n, runs, final) : 0;
    int ok = nz > 0 && nz <= bound && inflates_to(z, nz, src, n, final);
    free(z);
    return ok ? nz : 0;
}

/* As a final stream, and as one ended by a sync flush: the final size. */
static size_t round_trip(const unsigned char *src, size_t n, int runs)
{
    return coded_size(src, n, runs, 0) ? coded_size(src, n, runs, 1) : 0;
}

static void deflate_round_trips(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 257, 65535, 65536 + 3, BIG};
    size_t i, k;
    int runs;
    for (k = 0; k < NKINDS; k++)
        for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            unsigned char *d = make_data((kind)k, sizes[i]);
            CHECK(d != NULL);
            for (runs = 0; d && runs <= 1; runs++)
                CHECKF(round_trip(d, sizes[i], runs) > 0, "%s, %zu bytes, level %d: does not inflate back",
                       kind_name[k], sizes[i], runs + 1);
            free(d);
        }
}

/* Short inputs of every size up to 400, of mixed statistics (a half of
 * one kind, a half of another, so that splitting a block tempts), each
 * within ng__deflate_bound and inflating back. */
static void deflate_short_inputs(void)
{
    size_t n, bad = 0;
    int runs, k;
    for (k = 0; k < NKINDS; k++) {
        unsigned char *a = make_data((kind)k, 400), *b = make_data((kind)((k + 1) % NKINDS), 400), *d = malloc(400);
        CHECK(a && b && d);
        for (n = 0; a && b && d && n <= 400; n++) {
            memcpy(d, a, n / 2);
            memcpy(d + n / 2, b + 200, n - n / 2);
            for (runs = 0; runs <= 1; runs++)
                if (!round_trip(d, n, runs)) {
                    if (bad++ < 5)
                        CHECKF(0, "%s then %s, %zu bytes, level %d: past the bound or does not inflate back",
                               kind_name[k], kind_name[(k + 1) % NKINDS], n, runs + 1);
                }
        }
        free(a);
        free(b);
        free(d);
    }
    CHECKF(bad == 0, "%zu short inputs failed", bad);
}

/* What the fuzz target found: 115 bytes, coded at level 1 as four blocks
 * on an estimate, took 138 bytes, past the bound (135). */
static void deflate_fuzz_found_bound(void)
{
    static const unsigned char found[] =
        "\xf7\xa6\x08\x94\x94\xe8\x94\x94\x94\x94\x94\x94\x94\x94\x94\x94\x94\x03\x94\x00\x41\x60\x00\x0d"
        "\x3d\xdc\x61\x27\x61\x9e\x38\xc7\xc7\xc7\xc7\xc7\xc7\x00\xc7\xc7\x43\xc7\xc7\xc7\xc7\xc7\xc7\xc7"
        "\xc7\xc7\x69\x8e\x69\x7e\xfa\x11\x8e\x3b\x4a\xbb\x17\xfe\x3f\xf8\xff\xff\x9e\xfe\x9e\xfe\x9d\xfb"
        "\xc4\x44\xb5\xf6\x13\x5d\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x17\x44\x7f\x00\x00\x62\xaf\x63"
        "\xff\xfd\xc1\xc1\xc1\xc1\xc1\xc1\xc1\xc1\xc1\xc1\xc1\x01\x00\x00\x00\x00\x17";
    CHECK_INT(sizeof found - 1, 115);
    CHECKF(coded_size(found, 115, 0, 0) > 0, "level 1: past the bound or does not inflate back");
    CHECKF(coded_size(found, 115, 1, 0) > 0, "level 2: past the bound or does not inflate back");
}

/* Several calls' streams, one after the other behind one zlib header and
 * the Adler-32 combined from the parts', are one zlib stream: what png.c
 * writes. Parts of 0 and 1 byte, and one longer than a band. */
static void deflate_bands_join(void)
{
    static const size_t parts[] = {1000, 0, 1, 65536 + 3, 257, BIG, 2};
    size_t total = 0, i, at, nz;
    unsigned char *src, *z, *back;
    int runs;
    for (i = 0; i < sizeof parts / sizeof parts[0]; i++) total += parts[i];
    src = make_data(RUNS, total);
    back = malloc(total);
    z = malloc(ng__deflate_bound(total) + 6 * sizeof parts / sizeof parts[0] * 32 + 6);
    CHECK(src && back && z);
    if (!src || !back || !z) goto out;
    for (i = 0; i < total; i += 2) src[i] = (unsigned char)(src[i] + i % 3); /* runs and literals */
    for (runs = 0; runs <= 1; runs++) {
        uLong adler = adler32(0L, Z_NULL, 0), len = total;
        z[0] = 0x78, z[1] = 0x01; /* 32 KiB window, check bits */
        nz = 2;
        for (i = 0, at = 0; i < sizeof parts / sizeof parts[0]; at += parts[i++]) {
            const int last = i + 1 == sizeof parts / sizeof parts[0];
            nz += ng__deflate(z + nz, src + at, parts[i], runs, last);
            adler = adler32_combine(adler, adler32(1L, src + at, (uInt)parts[i]), (z_off_t)parts[i]);
        }
        z[nz++] = (unsigned char)(adler >> 24), z[nz++] = (unsigned char)(adler >> 16);
        z[nz++] = (unsigned char)(adler >> 8), z[nz++] = (unsigned char)adler;
        CHECKF(uncompress(back, &len, z, (uLong)nz) == Z_OK && len == total && memcmp(back, src, total) == 0,
               "level %d: the joined streams are not one zlib stream of the parts", runs + 1);
    }
out:
    free(src);
    free(back);
    free(z);
}

/* zlib's size of src at a strategy (level 1 for Huffman only, 2 for RLE):
 * raw deflate, finished. */
static size_t zlib_size(const unsigned char *src, size_t n, int strategy)
{
    uLong bound = compressBound((uLong)n) + 64;
    unsigned char *z = malloc(bound);
    z_stream s;
    size_t out = 0;
    memset(&s, 0, sizeof s);
    if (z && deflateInit2(&s, strategy == Z_RLE ? 2 : 1, Z_DEFLATED, -15, 8, strategy) == Z_OK) {
        s.next_in = (unsigned char *)src;
        s.avail_in = (uInt)n;
        s.next_out = z;
        s.avail_out = (uInt)bound;
        if (deflate(&s, Z_FINISH) == Z_STREAM_END) out = s.total_out;
        deflateEnd(&s);
    }
    free(z);
    return out;
}

/* Optimal lengths under the limit code no larger than zlib's heuristic
 * ones (1% slack for block boundaries); stored when coding cannot pay;
 * runs make flat data tiny and literals-only data cannot be. */
static void deflate_sizes(void)
{
    static const kind kinds[] = {SKEWED, TWO, RAMP16, RUNS, RANDOM};
    size_t i;
    unsigned char *d;
    for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t ours1, ours2, huff, rle;
        d = make_data(kinds[i], BIG);
        CHECK(d != NULL);
        if (!d) continue;
        ours1 = round_trip(d, BIG, 0);
        ours2 = round_trip(d, BIG, 1);
        huff = zlib_size(d, BIG, Z_HUFFMAN_ONLY);
        rle = zlib_size(d, BIG, Z_RLE);
        CHECKF(ours1 > 0 && ours1 <= huff + huff / 100, "%s, level 1: %zu bytes, zlib's Huffman only %zu",
               kind_name[kinds[i]], ours1, huff);
        CHECKF(ours2 > 0 && ours2 <= rle + rle / 100, "%s, level 2: %zu bytes, zlib's RLE %zu", kind_name[kinds[i]],
               ours2, rle);
        if (kinds[i] == RANDOM) /* stored: 5 bytes a block of 64 KiB */
            CHECKF(ours1 <= BIG + 5 * (BIG / 65535 + 2), "random: %zu bytes for %d", ours1, BIG);
        free(d);
    }
    d = make_data(EQUAL, BIG);
    CHECK(d != NULL);
    if (d) {
        const size_t flat2 = round_trip(d, BIG, 1), flat1 = round_trip(d, BIG, 0);
        CHECKF(flat2 > 0 && flat2 < BIG / 200, "flat data at level 2: %zu bytes of %d", flat2, BIG);
        /* one bit a byte, at best, without runs */
        CHECKF(flat1 >= BIG / 8 && flat1 < BIG / 8 + 200, "flat data at level 1: %zu bytes of %d", flat1, BIG);
    }
    free(d);
}

/* The samples of a .r16 (little-endian, top row first). */
static uint16_t *read_r16(const char *path, size_t count)
{
    size_t len, i;
    unsigned char *d = slurp(path, &len);
    uint16_t *v = d && len == 2 * count ? malloc(count * sizeof *v) : NULL;
    for (i = 0; v && i < count; i++) v[i] = (uint16_t)(d[2 * i] | d[2 * i + 1] << 8);
    free(d);
    return v;
}

/* The CLI's PNGs at levels 1 and 2, read by libpng, hold what the same
 * render writes to .r16: an image of several bands, and one whose rows
 * are each longer than a band (140000 samples of 2 bytes). */
static void deflate_png_levels_equal_r16(void)
{
    static const char *const sizes[] = {"1500x400", "140000x3"};
    char s[PATHLEN], r16[PATHLEN], png[PATHLEN];
    size_t k;
    res r;
    mkscript(s, "dfl.lua", "return ng.perlin{element_size = 30}:fit(-1, 1, -0.05, 1.05)\n");
    for (k = 0; k < 2; k++) {
        const char *level[] = {"1", "2"};
        uint16_t *ref;
        int w = 0, h = 0, l;
        sscanf(sizes[k], "%dx%d", &w, &h);
        tpath(r16, "dfl.r16");
        cli(&r, "render", s, "-o", r16, "--size", sizes[k], NULL);
        EXPECT_OK(&r);
        res_free(&r);
        ref = read_r16(r16, (size_t)w * h);
        CHECK(ref != NULL);
        for (l = 0; ref && l < 2; l++) {
            uint16_t *px;
            int pw, ph;
            pathf(png, "%s/dfl_%zu_%s.png", tmpdir, k, level[l]);
            cli(&r, "render", s, "-o", png, "--size", sizes[k], "--bits", "16", "--compression", level[l], NULL);
            EXPECT_OK(&r);
            res_free(&r);
            px = decode(png, PNG_FORMAT_LINEAR_Y, &pw, &ph);
            CHECKF(px && pw == w && ph == h, "%s at level %s does not decode", sizes[k], level[l]);
            if (px && pw == w && ph == h)
                CHECKF(memcmp(px, ref, (size_t)w * h * 2) == 0, "%s at level %s: samples differ from the .r16",
                       sizes[k], level[l]);
            free(px);
        }
        free(ref);
    }
}

/* A constant image at the default level: runs make it tiny. */
static void deflate_png_constant_tiny(void)
{
    char s[PATHLEN], png[PATHLEN];
    size_t len;
    unsigned char *d;
    uint16_t *px;
    int w, h;
    res r;
    mkscript(s, "dfl_const.lua", "return ng.constant{value = 0.25}\n");
    tpath(png, "dfl_const.png");
    cli(&r, "render", s, "-o", png, "--size", "2048x1024", "--bits", "16", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    d = slurp(png, &len);
    CHECK(d != NULL);
    CHECKF(len < 2048 * 1024 * 2 / 100, "a constant 2048x1024 16-bit PNG takes %zu bytes", len);
    px = decode(png, PNG_FORMAT_LINEAR_Y, &w, &h);
    CHECK(px != NULL && w == 2048 && h == 1024);
    if (px && w == 2048 && h == 1024) {
        size_t i, bad = 0;
        for (i = 0; i < (size_t)w * h; i++) bad += px[i] != 16384; /* 0.25 * 65535 + 0.5 */
        CHECKF(bad == 0, "%zu samples are not 0.25", bad);
    }
    free(px);
    free(d);
}

NG_SUITE(deflate, fast)
{
    RUN(deflate_round_trips);
    RUN(deflate_short_inputs);
    RUN(deflate_fuzz_found_bound);
    RUN(deflate_bands_join);
    RUN(deflate_sizes);
    if (cli_setup("deflate")) return;
    RUN(deflate_png_levels_equal_r16);
    RUN(deflate_png_constant_tiny);
    cli_teardown();
}
