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
enum { NG_U_TYPE, NG_U_SIZE, NG_U_SCALE, NG_U_OFFSET, NG_U_AMP, NG_U_SEED, NG_U_RANGE, NG_U_COUNT };
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

/* What the unified controls precompute: the first member of the state of
 * every noise-based node. */
typedef struct ng_unified {
    double freq[3];     /* lattice cells per world unit, per axis */
    double freq_w;      /* along time */
    double scale, bias; /* output mapping of the basis's natural range */
    uint32_t seed;
} ng_unified;

/* Fills u from n's unified controls for the basis; restricts n's dims and
 * sets its detail. */
void ng__noise_prepare(ng_node *n, int basis, ng_unified *u);

/* One channel of a basis, natural range, at block b with the node's unified
 * controls (u, n's options) and frequency times freq_scale. grad (optional):
 * b->dims planes of derivatives per world unit, analytic where the kernel
 * has them. */
int ng__noise_basis(ng_ctx *ctx, const ng_node *n, const ng_unified *u, int basis, uint32_t channel,
                    double freq_scale, const ng_block *b, float *out, float *grad);

#endif
