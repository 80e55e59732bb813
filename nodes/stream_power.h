/*
 * stream_power.h — the drainage simulation of nodes/stream_power.c on a
 * plain array, for the node and for tests that check what it promises
 * (every cell drains to the edge, drainage grows downstream, valleys are
 * cut where it is high) on one tile.
 */
#ifndef NG_STREAM_POWER_H
#define NG_STREAM_POWER_H

#include <stdint.h>

typedef struct ng_sp_params {
    float k, m;         /* the stream-power law's K and m (n = 1) */
    float uplift;       /* share of the way back to the source a step, 0 to 1 */
    float diffusion;    /* hillslope diffusion a step, 0 to 0.25 */
    float fill;         /* share of each depression filled a step, 0 to 1 */
    float spacing;      /* world units between cells */
    int iterations;
} ng_sp_params;

/* p->iterations steps of fill, routing, drainage and incision of the
 * w x w heights h (world units) in place, uplifted toward source (w^2,
 * world units: h as it was, usually), the outer ring of cells the
 * fixed outlets. area (w^2) gets the drainage area (world units^2) of
 * the last step's routing; rcv (w^2, or NULL) each cell's receiver, the
 * index of the cell it drains to (the ring's its own), and filled (w^2,
 * or NULL) the filled surface that routing ran on, both as they were
 * before that step's incision. 0, or -1 when there was no memory for
 * the working planes (about 33 bytes a cell). */
int ng_stream_power_run(const ng_sp_params *p, const float *source, float *h, float *area, int32_t *rcv,
                        float *filled, int w);

#endif
