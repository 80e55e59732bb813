/*
 * reuse.h — for the neighbourhood suites: patch memory kept for reuse
 * (core/slab.c) must leak nothing into later patches. A graph rendered
 * again in the memory an earlier render freed, filled with NaN first,
 * gives the bits of a render in fresh memory only if no patch reads a
 * cell it did not write.
 */
#ifndef NG_TEST_REUSE_H
#define NG_TEST_REUSE_H

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

#endif
