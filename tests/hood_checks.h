/*
 * hood_checks.h — the checks every neighbourhood suite makes of its
 * graphs (test_neighbourhood, test_weathering, test_stream_power):
 *   - the value at a world point does not depend on how a render is cut
 *     (tiles, threads, a memory limit that evicts patches, regions);
 *   - nor on the block it is asked in (points evaluated one at a time);
 *   - patch memory kept for reuse (core/slab.c) leaks nothing into later
 *     patches: a graph rendered again in the memory an earlier render
 *     freed, filled with NaN first, gives the bits of a render in fresh
 *     memory only if no patch reads a cell it did not write.
 * Each suite says which cuts its graphs take (fewer under the sanitizers).
 */
#ifndef NG_TEST_HOOD_CHECKS_H
#define NG_TEST_HOOD_CHECKS_H

#include "noisegraph.h"

#include <stddef.h>

/* Builds graph number `which` in g: its root. */
typedef int (*t_make_graph)(ng_graph *g, int which);

/* Renders make(g, which) with o twice, each by a graph of its own: first
 * in fresh patch memory (the pool emptied), then in the memory the first
 * freed, each slot filled with NaN before its patch is computed. 1 when
 * both give the same n floats and the second took every chunk it needed
 * from the pool, else 0; *chunks: the chunks the first mapped. */
int t_same_in_reused_memory(t_make_graph make, int which, const ng_render_opts *o, size_t n, long *chunks);

/* One cut of a render: its tile size and threads, a memory limit in MiB
 * (0: none) and a region x, y, w, h (w 0: the whole render). */
typedef struct t_cut {
    int tile, threads;
    double memory_mib;
    int region[4];
} t_cut;

/* Graph `which` (named `name` in failures; ch channels) rendered w x h at
 * origin (at, -at) whole (tile 64, one thread) and then cut each of the n
 * ways: each render, by a graph of its own (no patch from an earlier
 * render's cache), has the whole render's bits, or its crop's. */
void t_cuts_equal(t_make_graph make, int which, const char *name, int ch, int w, int h, double at,
                  const t_cut *cuts, size_t n);

/* The window r = (x, y, w, h) of full (fw wide, ch channels) equals win,
 * bit for bit. */
int t_crop_equal(const float *full, int fw, const float *win, int ch, const int *r);

/* root asked at the pixel centres of a w x h render at origin (x0, y0) one
 * point at a time (ng_eval_points: another anchor and block per point)
 * gives the render's bits (root: one channel). */
void t_pointwise_equal(const ng_graph *g, int root, int w, int h, double x0, double y0);

#endif
