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

/* The unified controls, options 0 to 6 of every noise-based node (the
 * evaluator reads them by these indices). */
#define NG_UNIFIED_PARAMS(choices, default_choice, type_doc)                                                  \
    {"type", NG_PARAM_ENUM, {default_choice}, 0, 0, choices, type_doc},                                      \
    {"element_size", NG_PARAM_NUMBER, {64}, 1e-6, 1e12, NULL,                                                 \
     "feature size in world units (pixels by default): one lattice cell"},                                   \
    {"element_scale", NG_PARAM_VEC3, {1, 1, 1}, 1e-6, 1e6, NULL, "per-axis multiplier of element_size"},     \
    {"offset", NG_PARAM_VEC3, {0, 0, 0}, -1e15, 1e15, NULL, "added to the position, in world units"},        \
    {"amplitude", NG_PARAM_NUMBER, {1}, -1e30, 1e30, NULL, "multiplies the output after range mapping"},     \
    {"seed", NG_PARAM_INT, {0}, -2147483648.0, 2147483647.0, NULL, "selects an unrelated pattern"},          \
    {"range", NG_PARAM_RANGE, {NG_RANGE_NATURAL, 0, 1}, 0, 0, NULL,                                           \
     "\"natural\" (the basis's own range), \"unit\" [0,1], \"signed\" [-1,1], or {lo, hi}"}

/* From the unified controls: k[0..3] frequency per axis, k[4] and k[5] the
 * output scale and bias mapping the basis's natural range, k[6] the seed;
 * restricts dims and sets detail. */
void ng__noise_prepare(ng_node *n, int basis);

/* One channel of a basis, natural range, at block b with the node's unified
 * controls and frequency times freq_scale. grad (optional): b->dims planes of
 * derivatives per world unit, analytic where the kernel has them. */
int ng__noise_basis(ng_ctx *ctx, const ng_node *n, int basis, uint32_t channel, double freq_scale,
                    const ng_block *b, float *out, float *grad);

#endif
