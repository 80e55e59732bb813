/*
 * grid.h — the two ways a node reads its height source's gradient, shared
 * by the shading nodes (surface.c) and the erosion filter (erosion.c), so
 * both take one `method` option with the same words and the same rule:
 * "grid", central differences of the source's samples on the engine's
 * world-aligned lattice of the render's pixel size (core/hood.c), about
 * the height's own cost for any graph; "analytic", the gradient of the
 * source's graph at each point (ng_pull_grad); "auto", the grid in a 2D
 * render with a pixel size (or the node's own spacing), analytic in 3D and
 * 4D and for points evaluated alone. Implemented in surface.c.
 */
#ifndef NG_GRID_H
#define NG_GRID_H

#include "ng_node.h"

/* The method option's words (an NG_PARAM_ENUM's choices), in enum order. */
extern const char *const ng_grid_method_choices[];
enum { NG_METHOD_AUTO, NG_METHOD_GRID, NG_METHOD_ANALYTIC };

/* Cells per patch edge of a grid lattice: its one-cell halo and margins
 * cost (256 + 3)^2 / 256^2 = 1.024 source evaluations per cell (a run
 * filter's domain, core/hood.c; the erosion filter's, with side()'s
 * margins, (256 + 5)^2 / 256^2 = 1.04). */
#define NG_GRID_PATCH 256

/* For setup: a 2D-only node for method grid (a height field needs x and
 * y in every method), and unless the method is analytic its lattice, of
 * `spacing` world units (0: the render's pixel size, its patches anchored
 * as `anchor` says, NG_HOOD_ANCHOR_*) with a one-cell halo. 0, or -1 with
 * err filled. */
int ng_grid_declare(ng_node *n, int method, double spacing, int anchor, ng_error *err);
/* For eval: whether block b reads the lattice (method grid, or auto in a
 * 2D block with a spacing or a pixel size). */
int ng_grid_here(int method, const ng_block *b, double spacing);
/* Row j of a grid filter's patch (ng_hood_type's in, with a radius of
 * 1): the source's central differences over two cells of
 * `spacing` along x into gx and along y into gy, `side` cells. */
void ng_grid_gradient_row(const float *in, int side, int j, double spacing, float *gx, float *gy);

#endif
