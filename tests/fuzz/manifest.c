/*
 * manifest.c — libFuzzer target: arbitrary bytes as the files `noisegraph
 * tiles` writes and reads back, through the code stitch and a re-run of
 * tiles run on them: the first byte's low bit picks a manifest
 * (ng__stitch_check_manifest: JSON, the grid, every entry in its place, one
 * format and depth) or a tile record (ng__tiles_record_matches, against a
 * job's key, a file name and the index the rest of the first byte says).
 * Besides memory errors and leaks it checks their promises: a manifest is
 * taken (0) or refused with exit code 1, never anything else, and memory
 * stays within what the bytes can list (libFuzzer's -rss_limit_mb).
 */
#include "tiles.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char KEY[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text;
    int rc;
    if (size < 1) return 0;
    /* a copy of just the bytes, so a read past them is ASan's to see */
    if (!(text = malloc(size - 1 ? size - 1 : 1))) return 0;
    memcpy(text, data + 1, size - 1);
    if (data[0] & 1) {
        rc = ng__tiles_record_matches(text, size - 1, KEY, "tile_0_1.png", data[0] >> 1);
        if (rc != 0 && rc != 1) abort();
    } else {
        rc = ng__stitch_check_manifest(text, size - 1, "fuzz/manifest.json");
        if (rc != 0 && rc != 1) abort();
    }
    free(text);
    return 0;
}
