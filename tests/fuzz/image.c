/*
 * image.c — libFuzzer target: arbitrary bytes as an image file through
 * ng_image_load, the project's one image reader (stb_image behind it: PNG,
 * JPEG, TGA, BMP, PSD, GIF, HDR, PIC, PNM). The reader takes a path, so each
 * input is written to one file in a private directory made at start-up.
 */
#include "fuzz_util.h"
#include "ng_internal.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[4200];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ng_image img;
    ng_error err;
    if (!path[0]) ng_fuzz_path(path, sizeof path, "input.img");
    ng_fuzz_write(path, data, size);
    if (ng_image_load(path, &img, &err) == 0) {
        /* the decoded pixels must all be readable and in [0, 1] */
        size_t i, n = (size_t)img.width * (size_t)img.height * (size_t)img.channels;
        if (img.width < 1 || img.height < 1 || img.channels < 1 || img.channels > 4) abort();
        for (i = 0; i < n; i++)
            if (!(img.px[i] >= 0.0f && img.px[i] <= 1.0f)) abort();
        ng_image_free(&img);
    }
    return 0;
}
