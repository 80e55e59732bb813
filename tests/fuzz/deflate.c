/*
 * deflate.c — libFuzzer target: the PNG encoder's deflate coder
 * (io/deflate.c) on arbitrary bytes. The first byte picks the level
 * (runs or not) and where the input is cut in two; the two parts are coded
 * as png.c codes two bands (the first ended by a sync flush, the second
 * final), joined, and must inflate through zlib to the input. Aborts on a
 * mismatch or an output past ng__deflate_bound.
 */
#include "deflate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t cut, n1, n2, b1, b2;
    unsigned char *z, *back;
    z_stream s;
    int runs, rc;
    if (size < 1) return 0;
    runs = data[0] & 1;
    data++, size--;
    cut = size ? (size_t)(data[0] >> 1) * size / 128 : 0;
    b1 = ng__deflate_bound(cut);
    b2 = ng__deflate_bound(size - cut);
    z = malloc(b1 + b2);
    back = malloc(size + 1);
    if (!z || !back) abort();
    n1 = ng__deflate(z, data, cut, runs, 0);
    n2 = ng__deflate(z + n1, data + cut, size - cut, runs, 1);
    if (!n1 || !n2 || n1 > b1 || n2 > b2) abort();
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, -15) != Z_OK) abort();
    s.next_in = z;
    s.avail_in = (uInt)(n1 + n2);
    s.next_out = back;
    s.avail_out = (uInt)(size + 1);
    rc = inflate(&s, Z_FINISH);
    if (rc != Z_STREAM_END || s.avail_in != 0 || s.total_out != size || (size && memcmp(back, data, size) != 0))
        abort();
    inflateEnd(&s);
    free(z);
    free(back);
    return 0;
}
