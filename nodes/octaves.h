/*
 * octaves.h — the octave machinery shared by fractal, cloud and warp
 * (nodes/ only): weights with a fading fractional last octave, the pixel
 * cut-off, the block an octave is evaluated on, and the fractal sum itself
 * (the fractal node and the noise node's `fractal` option run the same
 * code, so one is the other bit for bit).
 */
#ifndef NG_OCTAVES_H
#define NG_OCTAVES_H

#include "ng_node.h"

typedef struct ng_octaves {
    double octaves, lacunarity, roughness;
    int full, count; /* whole octaves, and with the fractional one */
    double total;    /* sum of all weights */
    double total_sq; /* sum of their squares */
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
/* The same block of b's own positions with no pass over them where it
 * can: for a power-of-two scale whose products with positions up to
 * max_abs (ng__block_max_abs) stay below float's maximum, ob keeps b's
 * positions and carries the scale in p_scale (ng_node.h); the source then
 * sees the same bits as from the pass, which ng__octave_block makes
 * otherwise (pos: scratch of b->dims planes). */
void ng__octave_block_scaled(ng_ctx *ctx, const ng_block *b, int k, double scale, float max_abs, float *pos,
                             ng_block *ob);
/* The largest |p[d][i]| of b's positions (NaN skipped). */
float ng__block_max_abs(const ng_block *b);

/* ---- the fractal sum ------------------------------------------------------ */

/* ORDER: the fractal types, as choices of ng.fractal's `type` and of the
 * noise node's `fractal` (which has "none" first and "fbm" last, a second
 * name for standard). */
enum { NG_FRACTAL_STANDARD, NG_FRACTAL_TERRAIN, NG_FRACTAL_HYBRID, NG_FRACTAL_RIDGED, NG_FRACTAL_BILLOW,
       NG_NFRACTALS };
#define NG_FRACTAL_CHOICES "standard", "terrain", "hybrid", "ridged", "billow"
#define NG_FRACTAL_TYPE_DOC                                                                                     \
    "standard (fBm: the plain weighted sum), terrain (each octave scaled by the height so far: smooth valleys, " \
    "rough peaks), hybrid (octaves weighted by the running product of (value + 1), clamped to 1, as in "       \
    "Musgrave's hybrid multifractal), ridged (Musgrave's ridged multifractal, (1 - |n|)^2, range [0, 1]), "     \
    "billow (2|n| - 1: puffy, rounded)"
/* How the sum is normalised: by the sum of the weights (a bound that always
 * holds) or by the root of the sum of their squares (Houdini's RMS style:
 * fuller contrast, sometimes beyond the bound). */
enum { NG_NORMALIZE_BOUND, NG_NORMALIZE_RMS };
#define NG_NORMALIZE_CHOICES "bound", "rms"
#define NG_NORMALIZE_DOC                                                                                        \
    "bound: divided by the sum of the octave weights, so a source in [-1, 1] stays in [-1, 1] (ridged [0, 1]); " \
    "rms: by the root of the sum of their squares (Houdini's style): fuller contrast, leaving [-1, 1] for "     \
    "0.015 % of samples of 6 octaves of perlin fBm, 5 % of simplex, far more for billow and ridged (README)"

typedef struct ng_fractal {
    int type, normalize, antialias;
    double octaves, lacunarity, roughness;
    double detail; /* the source's finest features, world units, for the cut-off */
    /* Per-sample options (b->n floats, or NULL for the numbers above):
     * roughness and lacunarity from driving nodes (clamped here to [0, 2]
     * and [1, 16]), detail where the source's element size varies. */
    const float *roughness_at, *lacunarity_at;
    const double *detail_at;
} ng_fractal;

/* Evaluates the source at the octave block ob into out (all its channels). */
typedef int (*ng_octave_fn)(ng_ctx *ctx, const ng_node *n, const ng_block *ob, float *out, void *user);

/* The fractal sum of `channels` channels at b into out. With no per-sample
 * option it is the plain loop; with some, each sample has its own weights,
 * normalisation, frequencies and cut-off, computed exactly as the plain
 * loop computes them, so a sample whose options equal the numbers gets the
 * same bits. 0, or -1 with the context's error set. */
int ng__fractal_sum(ng_ctx *ctx, const ng_node *n, const ng_fractal *f, const ng_block *b, int channels,
                    ng_octave_fn source, void *user, float *out);

/* ---- the fractal sum with its gradient ------------------------------------------ */

/* Evaluates the source at the octave block ob: out all its channels, grad
 * their gradients along ob's world axes (channels * dims planes, as
 * ng_pull_grad lays them out). */
typedef int (*ng_octave_grad_fn)(ng_ctx *ctx, const ng_node *n, const ng_block *ob, float *out, float *grad,
                                 void *user);

/* The fractal sum as ng__fractal_sum computes it (the same bits in out)
 * and its gradient in grad (channels * dims planes): each octave's
 * gradient times its frequency scale, through each type's accumulation by
 * the chain rule (billow 2 sign(x) x', terrain, hybrid and ridged through
 * their running state; a clamped running weight has no slope), over the
 * normaliser. 1 (no analytic gradient) with per-sample options. */
int ng__fractal_sum_grad(ng_ctx *ctx, const ng_node *n, const ng_fractal *f, const ng_block *b, int channels,
                         ng_octave_grad_fn source, void *user, float *out, float *grad);

#endif
