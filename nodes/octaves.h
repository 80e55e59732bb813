/*
 * octaves.h — the octave machinery shared by fractal, cloud and warp
 * (nodes/ only): weights with a fading fractional last octave, the pixel
 * cut-off, and the block an octave is evaluated on.
 */
#ifndef NG_OCTAVES_H
#define NG_OCTAVES_H

#include "ng_node.h"

typedef struct ng_octaves {
    double octaves, lacunarity, roughness;
    int full, count; /* whole octaves, and with the fractional one */
    double total;    /* sum of all weights */
} ng_octaves;

void ng__octaves_init(ng_octaves *o, double octaves, double lacunarity, double roughness);
/* roughness^k, times the fraction for the last, fractional octave */
double ng__octave_weight(const ng_octaves *o, int k);
/* Weight factor after the pixel cut-off for octave k at frequency scale
 * `scale`: 1 down to 2 pixels per feature (Nyquist), 0 at 1, linear in
 * log2 between; octave 0 is always kept. detail: the source's finest
 * feature size in world units. */
double ng__octave_antialias(double detail, const ng_block *b, double scale, int k, int enabled);
/* The block octave k is evaluated on: positions src (dims planes; the
 * block's own when NULL) times scale, anchor and period scaled alike, its
 * own seed and position identity. Octave 0 of unmoved positions is the
 * block itself. pos: scratch of b->dims planes. */
void ng__octave_block(ng_ctx *ctx, const ng_block *b, int k, double scale, const float *src, float *pos,
                      ng_block *ob);

#endif
