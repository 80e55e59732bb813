/*
 * raw16.c — the raw heightmap encoder of the file sink (filesink.c): no
 * header, 16-bit little-endian grey samples, rows top to bottom, what Unity
 * (.raw, "Windows" byte order) and Unreal (.r16) import as terrain. Values
 * are clamped to [0,1] and rounded as in a 16-bit PNG, so both hold the
 * same integers.
 */
#include "filesink.h"

#include <stddef.h>

static int encode_rows(ng__image *im, int y, int nrows, const float *rows)
{
    size_t n = (size_t)im->width, i;
    unsigned char *dst = im->row;
    int r;
    (void)y; /* rows simply follow one another */
    for (r = 0; r < nrows; r++) {
        const float *src = rows + (size_t)r * n;
        for (i = 0; i < n; i++) {
            unsigned q = ng__quantize(src[i], 65535);
            dst[2 * i] = (unsigned char)(q & 0xff);
            dst[2 * i + 1] = (unsigned char)(q >> 8);
        }
        if (ng__image_write(im, dst, 2 * n) != 0) return -1;
    }
    return 0;
}

const ng__encoder ng__raw16_encoder = {
    "raw heightmap", {".r16", ".raw", NULL}, {16, 0}, "raw heightmaps are grey only (1 channel)",
    NULL, encode_rows, NULL, NULL, 0, NG__IMAGES, NULL, 1, 0,
};
