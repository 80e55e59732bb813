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
/* b's positions as a pass makes them (ng_block_unscaled), the turn
 * multiplied out with the SIMD path's loops: b itself when it has neither
 * a scale nor a turn, else tmp with pos (b->dims planes) as its positions. */
const ng_block *ng__block_plain(const ng_block *b, ng_block *tmp, float *pos);
/* The matrix ng__block_plain's pass multiplies a turned block's positions
 * by: its turn times its p_scale (exact). The lattice kernels take it as
 * ng_noise_pts.turn, for the pass's bits without the pass (noise.c). */
void ng__block_turn(const ng_block *b, float T[3][3]);
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
    "0.0005 % of samples of 6 octaves of perlin fBm, 5 % of simplex, far more for billow and ridged (README)"

/* The bound on ridged's signal (offset - |n|)^2 for |n| <= 1: the sum is
 * divided by it too, so ridged stays in [0, 1] for any offset. */
double ng__ridged_peak(double offset);

typedef struct ng_fractal {
    int type, normalize, antialias;
    double octaves, lacunarity, roughness;
    double detail; /* the source's finest features, world units, for the cut-off */
    /* hybrid and ridged: Musgrave's offset and gain (defaults 1 and 2: the
     * sums before 0.2.0; see loops.c); rotate: turn each octave after the
     * first by a fixed rotation (ng__octave_rotation), except where the
     * block has a period (tiled renders) */
    double offset, gain;
    int rotate;
    /* the source reads a turned block as it is (ng_node.h: turn_axes; a
     * noise, ng_input_takes); 0: each turned octave's positions are
     * multiplied out in a pass */
    int source_turns;
    /* Per-sample options (b->n floats, or NULL for the numbers above):
     * roughness and lacunarity from driving nodes (clamped here to [0, 2]
     * and [1, 16]), detail where the source's element size varies. */
    const float *roughness_at, *lacunarity_at;
    const double *detail_at;
} ng_fractal;

/* The descriptor rows of the options every fractal sum takes (ng.fractal
 * and the noise node's fractal tab), offset named by the caller. */
#define NG_FRACTAL_OFFSET_ROW(name)                                                                            \
    {name, NG_PARAM_NUMBER, {1}, 0, 2, NULL,                                                                   \
     "hybrid and ridged: Musgrave's offset. ridged: each octave's signal is (offset - |n|)^2 (1: sharp ridges; " \
     "lower: wider, flatter ridges); the sum is also divided by the signal's bound max(offset^2, (1 - "        \
     "offset)^2), so ridged stays in [0, 1]. hybrid: the running weight is multiplied by (n + offset) gain / 2"}
#define NG_FRACTAL_GAIN_ROW                                                                                    \
    {"gain", NG_PARAM_NUMBER, {2}, 0, 8, NULL,                                                                 \
     "hybrid and ridged: Musgrave's gain: the next octave's weight is the signal times gain, clamped to [0, 1] " \
     "(higher: detail spreads from the ridges further into the valleys); the range holds for any gain"}
#define NG_FRACTAL_ROTATE_ROW                                                                                  \
    {"rotate", NG_PARAM_BOOL, {1}, 0, 1, NULL,                                                                 \
     "turn each octave after the first by a fixed rotation, so the octaves' lattices do not line up (no grid " \
     "in the sum); tiled renders keep octaves unturned so they still tile; false: the octaves of versions "    \
     "before 0.2.0"}

/* Whether Musgrave's offset and gain shape fractal type `type`
 * (NG_FRACTAL_*): hybrid and ridged only; set on another type they
 * would change nothing, so the nodes refuse them (ng__fractal_musgrave_check). */
static inline int ng__fractal_musgrave(int type) { return type == NG_FRACTAL_HYBRID || type == NG_FRACTAL_RIDGED; }

/* 0, or -1 with err set where offset (named `offset`: the node's name
 * for it) or gain is set on a fractal type they do not shape. */
int ng__fractal_musgrave_check(const char *label, const char *offset, int offset_set, int gain_set, int type,
                               ng_error *err);

/* The fixed turn of octave k >= 1 in noise space: the xy plane by k
 * golden angles in 2D; in 3D and 4D x, y, z by Rz(k golden angle) Rx(k
 * 0.9553166) (time, the fourth axis, is never turned). Row-major. */
void ng__octave_rotation(int k, int dims, double R[3][3]);

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
