/*
 * reuse.c — a graph rendered in fresh and in reused, NaN-filled patch
 * memory (reuse.h).
 */
#include "reuse.h"

#include "build.h"
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
