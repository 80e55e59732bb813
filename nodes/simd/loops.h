/*
 * loops.h — the element-wise loops of the math, fractal, cloud, warp,
 * vector, coordinate and noise nodes, compiled into every SIMD path's unit
 * (nodes/simd/<path>.c includes loops.c) and called through the selected
 * path's table. Same C, same bits on every path.
 */
#ifndef NG_LOOPS_H
#define NG_LOOPS_H

#include <stddef.h>
#include <stdint.h>

typedef void (*ng_loop1)(float *restrict out, const float *restrict x, int n);
typedef void (*ng_loop2)(float *restrict out, const float *restrict x, const float *restrict y, int n);

/* One octave of a 2D warp's field, read by warp_step2: amount a, the field's
 * 2 channels f (2 planes) and their gradient fg (4 planes, fg[c][j] plane
 * c * 2 + j) at positions whose derivative is `scale` times J (through_J)
 * or the identity, the amount's gradient ga (2 planes; NULL: a number, flat),
 * the octave's weight w; first: J is the identity (not read). */
typedef struct ng_warp_octave2 {
    const float *a, *f, *fg, *ga;
    float w, scale;
    int through_J, first;
} ng_warp_octave2;

/* One octave of ng.erosion_filter (nodes/erosion.c) over a block. Per
 * point (planes of n floats): x, y the block's offsets; gx, gy the
 * accumulated gradient (the source's plus the earlier octaves'), updated;
 * amp the point's depth factor (strength x the source's slope x the keep
 * fade), off its carve/fill offset in [-1, 1], mask its masks' weight in
 * [0, 1]; h, ridge, crease accumulated (ridge and crease NULL: no masks,
 * mask unread). Per octave: the anchor's cell
 * (mod 2^32) and fraction in cells, the cell size's inverse inv, the
 * octave's depth per unit of amp (depth), its share of the masks (share),
 * the rounding fillets' 0.5 / width (0 for none) and the hash seed. */
typedef struct ng_erosion_octave {
    uint32_t cell[2], seed;
    float frac[2], inv, depth, share, ridge_k, gully_k, ridge_w, gully_w;
} ng_erosion_octave;

/* ng.erosion_filter's per-point factors from the source's value and
 * gradient (erosion_prepare): the levels' low end lo and 1 / span inv,
 * keep, strength, and the masks' slope scale mk. */
typedef struct ng_erosion_prep {
    float lo, inv, keep, strength, mk;
} ng_erosion_prep;

typedef struct ng_erosion_pts {
    const float *x, *y, *amp, *off, *mask;
    float *gx, *gy, *h, *ridge, *crease;
} ng_erosion_pts;

/* The loops, X(name, parameters): the table's fields (ng_loops.name) and
 * loops.c's static loop_<name>. Adding a loop: an entry here and its body
 * in loops.c. */
#define NG_LOOPS(X)                                                                                            \
    /* out = x op y */                                                                                         \
    X(add, (float *restrict out, const float *restrict x, const float *restrict y, int n))                   \
    X(sub, (float *restrict out, const float *restrict x, const float *restrict y, int n))                   \
    X(mul, (float *restrict out, const float *restrict x, const float *restrict y, int n))                   \
    X(div, (float *restrict out, const float *restrict x, const float *restrict y, int n))                   \
    X(min, (float *restrict out, const float *restrict x, const float *restrict y, int n))                   \
    X(max, (float *restrict out, const float *restrict x, const float *restrict y, int n))                   \
    /* out = -x, |x|, 1 - x, sqrt(max(x, 0)) */                                                                \
    X(neg, (float *restrict out, const float *restrict x, int n))                                             \
    X(abs, (float *restrict out, const float *restrict x, int n))                                             \
    X(invert, (float *restrict out, const float *restrict x, int n))                                          \
    X(sqrt0, (float *restrict out, const float *restrict x, int n))                                           \
    /* out = v */                                                                                              \
    X(fill, (float *out, float v, int n))                                                                     \
    /* out = x clamped to [lo, hi], NaN kept (x may be out) */                                                 \
    X(clamp, (float *out, const float *x, float lo, float hi, int n))                                         \
    /* out = x < edge ? 0 : 1 */                                                                               \
    X(step, (float *restrict out, const float *restrict x, float edge, int n))                                \
    /* out = the cubic ramp of (x - lo) * inv clamped to [0, 1] */                                             \
    X(smoothstep, (float *restrict out, const float *restrict x, float lo, float inv, int n))                 \
    /* out = x + (y - x) * t */                                                                                \
    X(mix, (float *restrict out, const float *restrict x, const float *restrict y, const float *restrict t,  \
            int n))                                                                                            \
    /* out = t < edge ? x : y */                                                                               \
    X(select, (float *restrict out, const float *restrict x, const float *restrict y,                        \
               const float *restrict t, float edge, int n))                                                   \
    /* out = (x - y) * s */                                                                                    \
    X(sub_scale, (float *restrict out, const float *restrict x, const float *restrict y, float s, int n))    \
    /* out = (float)(a + (double)x): a world coordinate from an anchor and a block offset */                   \
    X(offset, (float *restrict out, const float *restrict x, double a, int n))                                \
    /* out += x * w */                                                                                         \
    X(axpy, (float *restrict out, const float *restrict x, float w, int n))                                   \
    /* out = (out + x * w) * s (a fractal's last octave and its normaliser in one pass) */                    \
    X(axpy_scale, (float *restrict out, const float *restrict x, float w, float s, int n))                    \
    /* out += a * w * x (a warp's mask times its octave weight times the field) */                             \
    X(axpy_masked, (float *restrict out, const float *restrict a, float w, const float *restrict x, int n))  \
    /* out = p + a * w * x, the same bits as out = p then axpy_masked (a warp's first octave; p or x may be out) */ \
    X(axpy_masked_to, (float *out, const float *p, const float *restrict a, float w, const float *x, int n))  \
    /* out + d n = p[d] + s * (x + d n) for d < axes in one pass: axpy_masked_to's bits when every a is the   \
     * same, s = a * w (a warp by a constant amount; p[d] or x may be out) */                                  \
    X(axpy_const_to, (float *out, const float *const *p, float s, const float *x, int axes, int n))           \
    /* a fractal octave's turned positions (octaves.c): q[d n + i] = (m[d][0] p[0][i] + m[d][1] p[1][i])        \
     * + m[d][2] p[2][i] for d < axes (2: the third term left out) */                                          \
    X(turn, (float *restrict q, const float *const *p, const float m[3][3], int axes, int n))                  \
    /* out = x * s (x may be out) */                                                                           \
    X(scale, (float *out, const float *x, float s, int n))                                                    \
    /* *m = the largest of *m and the bits of |x| over x, NaN skipped (octaves.c: ng__block_max_abs) */       \
    X(max_abs_bits, (unsigned *restrict m, const float *restrict x, int n))                                   \
    /* out = x * s + b (x may be out) */                                                                       \
    X(scale_bias, (float *out, const float *x, float s, float b, int n))                                      \
    /* fractal octave accumulation, one per type (fractal.c says why each is bounded): first, the first    \
     * octave (out is not read: the sum starts at 0); s != 0, the last, whose sum is then times s (the     \
     * normaliser, the same two roundings as a pass after) */                                                 \
    X(acc_billow, (float *restrict out, const float *restrict x, float w, int first, float s, int n))        \
    X(acc_terrain, (float *restrict out, const float *restrict x, float w, float inv, int first, float s,    \
                    int n))                                                                                    \
    X(acc_hybrid, (float *restrict out, float *restrict state, const float *restrict x, float w, float offset, \
                   float gain, int first, float s, int n))                                                     \
    X(acc_ridged, (float *restrict out, float *restrict state, const float *restrict x, float w, float offset, \
                   float gain, int first, float s, int n))                                                     \
    /* cloud: out = p + g * dg + v * dv (a position moved along the gradient and by the droop) */              \
    X(displace, (float *restrict out, const float *restrict p, const float *restrict g, float dg,            \
                 const float *restrict v, float dv, int n))                                                   \
    /* cloud: out = (out + w * (1 - 2 x)) * s (the Worley puffs blended in) */                                 \
    X(puff, (float *restrict out, const float *restrict x, float w, float s, int n))                          \
    /* distance: one axis, offset a + p, accumulated by metric (coords.c) */                                   \
    X(acc_distance, (float *restrict out, const float *restrict p, double a, int metric, int n))             \
    /* 2D warp octave (warp.c): Jacobian J (4 planes, J[c][j] plane c * 2 + j) and positions pos (2 planes) */ \
    X(warp_step2, (float *restrict J, float *restrict pos, const ng_warp_octave2 *o, int n))                 \
    /* 2D warp: g[c] = sg[c] J for `channels` channels of 2 planes each (warp.c); J NULL: the one octave o's */ \
    X(warp_apply2, (float *restrict g, const float *restrict sg, const float *restrict J,                    \
                    const ng_warp_octave2 *o, int channels, int n))                                            \
    /* smin (sign 1) / smax (sign -1) with smoothness k: sign (min(sign x, sign y) - max(k - |x - y|, 0)^2 / 4k) \
     * (math.c) */                                                                                            \
    X(smooth_min, (float *restrict out, const float *restrict x, const float *restrict y, float k, float sign, \
                   int n))                                                                                     \
    /* its derivative along one axis from the operands' gx, gy (math.c) */                                     \
    X(smooth_slope, (float *restrict out, const float *restrict x, const float *restrict y,                   \
                     const float *restrict gx, const float *restrict gy, float k, float sign, int n))         \
    /* fit with clamp: out = g * s, 0 where x * s + b lies outside [lo, hi] (math.c) */                        \
    X(fit_slope, (float *restrict out, const float *restrict x, const float *restrict g, float s, float b,    \
                  float lo, float hi, int n))                                                                  \
    /* fBm's octave gradient: G += g * gs * fw (first: G = 0 + g * gs * fw, the bits of a zeroed G) */          \
    X(acc_grad, (float *restrict G, const float *restrict g, float gs, float fw, int first, int n))           \
    /* surface (light): Lambert max(0, n . l) of the height field's normal, hs times the gradient (gx, gy) */  \
    X(light, (float *restrict out, const float *restrict gx, const float *restrict gy, float hs, float lx,    \
              float ly, float lz, int n))                                                                       \
    /* the same from a height lattice's central differences: cell i's gradient (c[i + 1] - c[i - 1]) k,    \
     * (c[i + w] - c[i - w]) k, the grid shading's (surface.c; its own arithmetic, not light's bits) */         \
    X(light_grid, (float *restrict out, const float *restrict c, ptrdiff_t w, float k, float hs, float lx,    \
                   float ly, float lz, int n))                                                                  \
    /* ng.erosion_filter: per point from the source's value v and gradient (gx, gy), the depth factor amp,  \
     * the carve/fill offset off and (mask not NULL) the masks' weight (see nodes/erosion.c) */                \
    X(erosion_prepare, (const ng_erosion_prep *q, const float *restrict v, const float *restrict gx,          \
                        const float *restrict gy, float *restrict amp, float *restrict off, float *restrict mask, \
                        int n))                                                                                 \
    /* ng.erosion_filter: one octave of gullies over n points (see ng_erosion_octave) */                       \
    X(erosion_octave, (const ng_erosion_pts *p, const ng_erosion_octave *o, int n))

#define NG__LOOP_FIELD(name, params) void(*name) params;
typedef struct ng_loops {
    NG_LOOPS(NG__LOOP_FIELD)
} ng_loops;

/* The loops of the selected SIMD path (see kernels.h). */
const ng_loops *ng__loops(void);

#endif
