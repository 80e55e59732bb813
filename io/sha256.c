/*
 * sha256.c — SHA-256 of buffers and files for the checksums of tiled
 * renders (a user checks a tile with sha256sum), by nettle: a hash is a
 * library's job, not ours to get right again.
 */
#include "tilefile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void ng_sha256_init(ng_sha256 *s) { sha256_init(&s->ctx); }

void ng_sha256_update(ng_sha256 *s, const void *data, size_t n) { sha256_update(&s->ctx, n, data); }

void ng_sha256_hex(ng_sha256 *s, char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    uint8_t d[SHA256_DIGEST_SIZE];
    size_t i;
    sha256_digest(&s->ctx, sizeof d, d);
    for (i = 0; i < sizeof d; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
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
