/*
 * noise.h — what the noise-based nodes share (nodes/ only): Houdini's
 * unified controls as one block of option declarations, and evaluating one
 * basis with them. The noise node and the cloud node both use it, so a
 * cloud with no distortion is the plain fractal of the same noise, bit for
 * bit.
 */
#ifndef NG_NOISE_H
#define NG_NOISE_H

#include "bases.h"
#include "ng_node.h"

/* The unified controls lead every noise-based node's options, in this
 * order: its own parameter enum starts from these names. */
enum { NG_U_TYPE, NG_U_SIZE, NG_U_SCALE, NG_U_OFFSET, NG_U_AMP, NG_U_SEED, NG_U_RANGE, NG_U_TIME_SCALE, NG_U_COUNT };
#define NG_UNIFIED_PARAMS(choices, default_choice, type_doc)                                                  \
    {"type", NG_PARAM_ENUM, {default_choice}, 0, 0, choices, type_doc},                                      \
    {"element_size", NG_PARAM_NUMBER, {64}, 1e-6, 1e12, NULL,                                                 \
     "feature size in world units (pixels by default): one lattice cell (noise: a node varies it per sample)"},                                   \
    {"element_scale", NG_PARAM_VEC3, {1, 1, 1}, 1e-6, 1e6, NULL, "per-axis multiplier of element_size (noise: a node varies it)"},     \
    {"offset", NG_PARAM_VEC3, {0, 0, 0}, -1e15, 1e15, NULL, "added to the position, in world units; a node (1 to 3 channels) moves each sample"},        \
    {"amplitude", NG_PARAM_NUMBER, {1}, -1e30, 1e30, NULL, "multiplies the output after range mapping; a node (a mask) per sample"},     \
    {"seed", NG_PARAM_INT, {0}, -2147483648.0, 2147483647.0, NULL, "selects an unrelated pattern"},          \
    {"range", NG_PARAM_RANGE, {NG_RANGE_NATURAL, 0, 1}, 0, 0, NULL,                                           \
     "\"natural\" (the basis's own range), \"unit\" [0,1], \"signed\" [-1,1], or {lo, hi}"},                  \
    {"time_scale", NG_PARAM_NUMBER, {1}, 0, 1e6, NULL,                                                        \
     "how fast this noise evolves in time (4D: --time, --frames): time is multiplied by it (2: twice as fast, "  \
     "0: still); a loop (--loop-frames) keeps whole cells"}

/* The unified controls that take nodes (the type's node_params): where a
 * node samples (offset) and how loud (amplitude), and the feature size. */
#define NG_U_NODE_PLACE (1ull << NG_U_OFFSET | 1ull << NG_U_AMP)
#define NG_U_NODE_SIZE (1ull << NG_U_SIZE | 1ull << NG_U_SCALE)

/* What the unified controls precompute: the first member of the state of
 * every noise-based node. */
typedef struct ng_unified {
    double freq[3];     /* lattice cells per world unit, per axis */
    double freq_w;      /* along time */
    double scale, bias; /* output mapping of the basis's natural range */
    /* the mapping without the amplitude, for a driven one: scale is
     * amplitude * span / natural, bias amplitude * base */
    double span, natural, base;
    double freq_mult;   /* the basis's frequency multiplier */
    uint32_t seed;
} ng_unified;

/* The unified controls a node drives per sample (see node_params in
 * noisegraph.h): b->n floats per channel, NULL where the option is a
 * number. Samples are read with ng_driven (clamped, NaN the number). */
typedef struct ng_unified_in {
    const float *size, *scale, *offset, *amp, *jitter, *flow;
    int scale_ch, offset_ch; /* 1 (every axis) to 3 */
} ng_unified_in;

/* Fills in from the drivers of n's unified controls (and jitter and flow
 * where the type has them: their parameter indices, or -1). */
void ng__unified_in(ng_ctx *ctx, const ng_node *n, const float *const *in, int jitter, int flow,
                    ng_unified_in *drv);
/* Applies the output mapping to one channel: the precomputed one, or per
 * sample with a driven amplitude (n's). */
void ng__unified_map(const ng_node *n, const ng_unified *u, const ng_unified_in *drv, float *out, int len);

/* Fills u from n's unified controls for the basis; restricts n's dims and
 * sets its detail. */
void ng__noise_prepare(ng_node *n, int basis, ng_unified *u);

/* One channel of a basis, natural range, at block b with the node's unified
 * controls (u, n's options, drv: the driven ones or NULL) and frequency
 * times freq_scale. grad (optional, only without drivers): b->dims planes
 * of derivatives per world unit, analytic where the kernel has them. drv's
 * arrays are indexed like b's points (a fractal's octave blocks keep the
 * indices of the block the node was asked for). */
int ng__noise_basis(ng_ctx *ctx, const ng_node *n, const ng_unified *u, const ng_unified_in *drv, int basis,
                    uint32_t channel, double freq_scale, const ng_block *b, float *out, float *grad);

#endif
