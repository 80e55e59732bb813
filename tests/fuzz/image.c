/*
 * image.c — libFuzzer target: arbitrary bytes as an image file through
 * ng_image_load, the project's one image reader (stb_image for PNG, TGA
 * and BMP, libjpeg-turbo for JPEG; other formats must be refused). The
 * reader takes a path, so each input is written to one file in a private
 * directory made at start-up.
 */
#include "fuzz_util.h"
#include "ng_io.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the reader may allocate for one image (the host passes what is left
 * of the script's memory limit). */
#define MAX_BYTES ((size_t)64 << 20)

static char path[4200];
static int verbose; /* NG_FUZZ_VERBOSE=1: say what became of each input, on stderr */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ng_image img;
    ng_error err;
    if (!path[0]) {
        ng_fuzz_path(path, sizeof path, "input.img");
        verbose = getenv("NG_FUZZ_VERBOSE") != NULL;
    }
    ng_fuzz_write(path, data, size);
    if (ng_image_load(path, &img, MAX_BYTES, &err) == 0) {
        /* the decoded pixels must all be readable and in [0, 1] */
        size_t i, n = (size_t)img.width * (size_t)img.height * (size_t)img.channels;
        if (img.width < 1 || img.height < 1 || img.channels < 1 || img.channels > 4) abort();
        for (i = 0; i < n; i++)
            if (!(img.px[i] >= 0.0f && img.px[i] <= 1.0f)) abort();
        if (verbose) fprintf(stderr, "fuzz: %dx%d, %d channels\n", img.width, img.height, img.channels);
        ng_image_free(&img);
    } else if (verbose) {
        fprintf(stderr, "fuzz: %s\n", err.msg);
    }
    return 0;
}
