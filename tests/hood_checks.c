/*
 * hood_checks.c — the neighbourhood suites' shared checks (hood_checks.h):
 * renders cut every way against the whole, points one at a time against
 * the render, and a graph in fresh and in reused, NaN-filled patch memory.
 */
#include "hood_checks.h"

#include "build.h"
#include "harness.h"
#include "ng_internal.h"

#include <stdlib.h>
#include <string.h>

static float *render_alone(t_make_graph make, int which, const ng_render_opts *o)
{
    ng_graph *g = ng_graph_new();
    float *v = g ? t_render(g, make(g, which), o) : NULL;
    ng_graph_free(g);
    return v;
}

int t_same_in_reused_memory(t_make_graph make, int which, const ng_render_opts *o, size_t n, long *chunks)
{
    long mapped[3], reused[3];
    float *a, *b;
    int same;
    ng__slab_trim(0);
    ng__slab_counts(&mapped[0], &reused[0]);
    a = render_alone(make, which, o);
    ng__slab_counts(&mapped[1], &reused[1]);
    ng__slab_scribble(1);
    b = render_alone(make, which, o);
    ng__slab_scribble(0);
    ng__slab_counts(&mapped[2], &reused[2]);
    same = a && b && memcmp(a, b, n * sizeof(float)) == 0;
    *chunks = mapped[1] - mapped[0];
    free(a), free(b);
    /* (small patches take malloc, which scribble fills too) */
    return same && mapped[2] == mapped[1] && reused[2] - reused[1] == *chunks;
}

int t_crop_equal(const float *full, int fw, const float *win, int ch, const int *r)
{
    int j;
    for (j = 0; j < r[3]; j++)
        if (memcmp(full + ((size_t)(r[1] + j) * fw + r[0]) * ch, win + (size_t)j * r[2] * ch,
                   (size_t)r[2] * ch * sizeof(float)))
            return 0;
    return 1;
}

void t_cuts_equal(t_make_graph make, int which, const char *name, int ch, int w, int h, double at,
                  const t_cut *cuts, size_t n)
{
    ng_render_opts o;
    float *whole;
    size_t k;
    t_opts(&o, w, h);
    o.origin[0] = at;
    o.origin[1] = -at;
    o.tile = 64;
    whole = render_alone(make, which, &o);
    CHECKF(whole != NULL, "%s at %g: the render failed", name, at);
    for (k = 0; whole && k < n; k++) {
        const t_cut *c = &cuts[k];
        float *v;
        o.tile = c->tile;
        o.threads = c->threads;
        o.memory_limit = c->memory_mib * 1048576.0;
        memcpy(o.region, c->region, sizeof o.region);
        v = render_alone(make, which, &o);
        if (c->region[2])
            CHECKF(v && t_crop_equal(whole, w, v, ch, c->region),
                   "%s at %g: region %d,%d,%d,%d (tile %d, %d threads) differs from the crop of the whole", name, at,
                   c->region[0], c->region[1], c->region[2], c->region[3], c->tile, c->threads);
        else
            CHECKF(v && !memcmp(v, whole, (size_t)w * h * ch * sizeof(float)),
                   "%s at %g: tile %d, %d threads, memory limit %g MiB differ from the whole", name, at, c->tile,
                   c->threads, c->memory_mib);
        free(v);
    }
    free(whole);
}

void t_pointwise_equal(const ng_graph *g, int root, int w, int h, double x0, double y0)
{
    const size_t n = (size_t)w * h;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    ng_render_opts o;
    float *whole, *pts;
    size_t i;
    int a, b;
    t_opts(&o, w, h);
    o.origin[0] = x0;
    o.origin[1] = y0;
    whole = t_render(g, root, &o);
    for (b = 0; b < h; b++)
        for (a = 0; a < w; a++) {
            x[(size_t)b * w + a] = x0 + (double)(float)((a + 0.5) * o.pixel_size);
            y[(size_t)b * w + a] = y0 + (double)(float)((b + 0.5) * o.pixel_size);
        }
    pts = t_points(g, root, 2, (int)n, x, y, NULL);
    CHECK(whole && pts);
    for (i = 0; whole && pts && i < n; i++)
        if (memcmp(&pts[i], &whole[i], sizeof(float))) break;
    CHECKF(whole && pts && i == n, "point %zu: %.9g evaluated alone, %.9g in the render", i,
           pts && i < n ? pts[i] : 0.0, whole && i < n ? whole[i] : 0.0);
    free(x), free(y), free(whole), free(pts);
}
