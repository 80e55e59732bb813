/*
 * sha256.c — SHA-256 as FIPS 180-4 defines it, for the checksums of tiled
 * renders (a user checks a tile with sha256sum). Written from the standard;
 * big-endian words, unsigned 32-bit arithmetic throughout.
 */
#include "tilefile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const uint32_t round_k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
};

static uint32_t rotr(uint32_t v, int n) { return (v >> n) | (v << (32 - n)); }

static void compress(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64], a, b, c, d, e, f, g, k;
    int i;
    for (i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (i = 16; i < 64; i++) {
        const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (i = 0; i < 64; i++) {
        const uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + round_k[i] + w[i];
        const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

void ng_sha256_init(ng_sha256 *s)
{
    static const uint32_t initial[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                                        0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
    memcpy(s->h, initial, sizeof initial);
    s->bytes = 0;
    s->fill = 0;
}

void ng_sha256_update(ng_sha256 *s, const void *data, size_t n)
{
    const unsigned char *p = data;
    s->bytes += n;
    while (n > 0) {
        size_t take = 64 - s->fill < n ? 64 - s->fill : n;
        if (s->fill == 0 && n >= 64) { /* whole blocks straight from the input */
            compress(s->h, p);
            p += 64, n -= 64;
            continue;
        }
        memcpy(s->block + s->fill, p, take);
        s->fill += take, p += take, n -= take;
        if (s->fill == 64) {
            compress(s->h, s->block);
            s->fill = 0;
        }
    }
}

void ng_sha256_hex(ng_sha256 *s, char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    const uint64_t bits = s->bytes * 8;
    unsigned char tail[72];
    size_t pad = (s->fill < 56 ? 56 : 120) - s->fill, i;
    memset(tail, 0, sizeof tail);
    tail[0] = 0x80;
    for (i = 0; i < 8; i++) tail[pad + i] = (unsigned char)(bits >> (56 - 8 * i));
    ng_sha256_update(s, tail, pad + 8);
    for (i = 0; i < 32; i++) {
        const unsigned byte = (s->h[i / 4] >> (24 - 8 * (i % 4))) & 0xffu;
        hex[2 * i] = digits[byte >> 4];
        hex[2 * i + 1] = digits[byte & 15];
    }
    hex[64] = '\0';
}

int ng_sha256_file(const char *path, const char *what, uint64_t max_bytes, char hex[65], ng_error *err)
{
    unsigned char buf[1 << 16];
    ng_sha256 s;
    size_t n;
    uint64_t bytes;
    int bad, fd = ng_file_open_read(path, what, max_bytes, &bytes, err);
    FILE *fp = fd < 0 ? NULL : fdopen(fd, "rb");
    if (fd < 0) return -1;
    if (!fp) {
        close(fd);
        return ng_errorf(err, "%s: %s", path, strerror(errno));
    }
    ng_sha256_init(&s);
    /* the bytes it had when opened: a file still growing is not chased */
    while (bytes > 0 && (n = fread(buf, 1, bytes < sizeof buf ? (size_t)bytes : sizeof buf, fp)) > 0) {
        ng_sha256_update(&s, buf, n);
        bytes -= n;
    }
    bad = ferror(fp);
    fclose(fp);
    if (bad) return ng_errorf(err, "%s: cannot read it", path);
    ng_sha256_hex(&s, hex);
    return 0;
}
