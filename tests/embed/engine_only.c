/*
 * engine_only.c — an embedder's program that links the engine archive
 * (libnoisegraph.a: core/ and nodes/) and nothing else but -lm -lpthread,
 * builds a graph through the public headers and renders it into memory.
 * The link itself is half the test: an engine object that needed libpng,
 * OpenEXR, OpenVDB, zlib, libjpeg or Lua would fail it. `make test` builds
 * and runs it; it prints "engine_only: ok" or what failed.
 */
#include "noisegraph.h"
#include "types.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed;
#define CHECK(c) ((c) ? (void)0 : (void)(failed = 1, fprintf(stderr, "engine_only: FAILED %s (line %d)\n", #c, __LINE__)))

static int node(ng_graph *g, const char *type, const char *input, int source, ng_error *err)
{
    const ng_node_type *t = ng_type_find(type);
    ng_node *n = t ? ng_node_begin(g, t, NULL, NULL, err) : NULL;
    if (!n) return -1;
    if (input && ng_set_input(g, n, ng_input_index(t, input), source, err)) {
        ng_node_discard(n);
        return -1;
    }
    return ng_node_finish(g, n, err);
}

int main(void)
{
    enum { W = 96, H = 64 };
    ng_graph *g = ng_graph_new();
    ng_error err = {{0}};
    ng_render_opts o;
    float *one = malloc(sizeof(float) * W * H), *two = malloc(sizeof(float) * W * H);
    int base = -1, fbm = -1, i, varies = 0, in_range = 1;
    CHECK(g && one && two);
    if (g) base = node(g, "perlin", NULL, 0, &err);
    if (base >= 0) fbm = node(g, "fractal", "source", base, &err);
    if (fbm < 0) fprintf(stderr, "engine_only: %s\n", err.msg);
    CHECK(fbm >= 0);
    if (fbm >= 0 && one && two) {
        ng_render_defaults(&o, W, H);
        o.threads = 1;
        CHECK(ng_render_buffer(g, fbm, &o, one, &err) == 0);
        o.threads = 2;
        o.tile = 16;
        CHECK(ng_render_buffer(g, fbm, &o, two, &err) == 0);
        for (i = 0; i < W * H; i++) {
            in_range &= isfinite(one[i]) && one[i] >= -1.0f && one[i] <= 1.0f;
            varies |= one[i] != one[0];
        }
        CHECK(in_range);
        CHECK(varies);
        CHECK(memcmp(one, two, sizeof(float) * W * H) == 0); /* the same bits on 1 and 2 threads */
    }
    /* ng.image needs a loader, which the io library gives; without one the
     * node says so instead of reading a file */
    if (g) {
        const ng_node_type *t = ng_type_find("image");
        ng_node *n = t ? ng_node_begin(g, t, NULL, NULL, &err) : NULL;
        CHECK(n && ng_set_string(n, ng_param_index(t, "path"), "x.png", &err) == 0);
        CHECK(n && ng_node_finish(g, n, &err) < 0 && strstr(err.msg, "no image loader"));
    }
    ng_graph_free(g);
    free(one);
    free(two);
    printf("engine_only: %s\n", failed ? "FAILED" : "ok");
    return failed;
}
