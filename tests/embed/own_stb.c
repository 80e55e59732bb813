/*
 * own_stb.c — an embedder's program that carries its own stb_image
 * implementation and links libnoisegraph.a: the library's stb_image must be
 * private to it (STB_IMAGE_STATIC), or this fails to link with "multiple
 * definition of stbi_failure_reason". `make test` builds and runs it.
 */
#define STB_IMAGE_IMPLEMENTATION
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

#include "noisegraph.h"

#include <stdio.h>

int main(void)
{
    /* a 2x1 8-bit PGM, decoded by the program's own stb_image */
    static const unsigned char pgm[] = "P5 2 1 255\n\x10\x80";
    int w, h, ch, ok;
    unsigned char *px = stbi_load_from_memory(pgm, (int)sizeof pgm - 1, &w, &h, &ch, 0);
    ng_graph *g = ng_graph_new();
    ng_error err;
    float v = -1;
    const double x = 0.5, y = 0.5;
    const double *xs[2] = {&x, &y};
    int c = g ? ng_constant(g, 0.25, &err) : -1;
    ok = px && w == 2 && h == 1 && ch == 1 && px[0] == 0x10 && px[1] == 0x80;
    ok = ok && c >= 0 && ng_eval_points(g, c, 2, xs, 1, &v, &err) == 0 && v == 0.25f;
    stbi_image_free(px);
    ng_graph_free(g);
    printf("own_stb: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
