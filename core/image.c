/*
 * image.c — reading images (PNG, JPEG, TGA, BMP, ..., 8 or 16 bit) with
 * stb_image into floats in [0, 1]. The one translation unit that holds
 * stb_image's implementation.
 */
#include "ng_internal.h"

#include <stdlib.h>

#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_STDIO_LARGE_FILES
#define STBI_FAILURE_USERMSG
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#include <stb_image.h>
#pragma GCC diagnostic pop

#define MAX_PIXELS (1u << 28)

int ng_image_load(const char *path, ng_image *img, ng_error *err)
{
    int w, h, ch, wide;
    void *data;
    size_t i, count;
    img->px = NULL;
    wide = stbi_is_16_bit(path);
    data = wide ? (void *)stbi_load_16(path, &w, &h, &ch, 0) : (void *)stbi_load(path, &w, &h, &ch, 0);
    if (!data) return ng_errorf(err, "%s: cannot read the image (%s)", path, stbi_failure_reason());
    if ((size_t)w * (size_t)h > MAX_PIXELS) {
        stbi_image_free(data);
        return ng_errorf(err, "%s: %dx%d is larger than the %u pixels an image input may have", path, w, h, MAX_PIXELS);
    }
    count = (size_t)w * (size_t)h * (size_t)ch;
    if (!(img->px = malloc(count * sizeof(float)))) {
        stbi_image_free(data);
        return ng_errorf(err, "%s: out of memory for a %dx%d image", path, w, h);
    }
    for (i = 0; i < count; i++)
        img->px[i] = wide ? ((const unsigned short *)data)[i] / 65535.0f : ((const unsigned char *)data)[i] / 255.0f;
    stbi_image_free(data);
    img->width = w;
    img->height = h;
    img->channels = ch;
    return 0;
}

void ng_image_free(ng_image *img)
{
    free(img->px);
    img->px = NULL;
}
