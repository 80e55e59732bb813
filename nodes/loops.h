/*
 * loops.h — the element-wise loops of the math, fractal, cloud, warp,
 * vector, coordinate and noise nodes, compiled for every SIMD path like the
 * kernels (nodes/simd/) and called through the selected path's table. Same
 * C, same bits on every path.
 */
#ifndef NG_LOOPS_H
#define NG_LOOPS_H

typedef void (*ng_loop1)(float *restrict out, const float *restrict x, int n);
typedef void (*ng_loop2)(float *restrict out, const float *restrict x, const float *restrict y, int n);

typedef struct ng_loops {
    ng_loop2 add, sub, mul, div, min, max;  /* out = x op y */
    ng_loop1 neg, abs, invert, sqrt0;       /* out = -x, |x|, 1 - x, sqrt(max(x, 0)) */
    /* out = v */
    void (*fill)(float *out, float v, int n);
    /* out = x clamped to [lo, hi], NaN kept (x may be out) */
    void (*clamp)(float *out, const float *x, float lo, float hi, int n);
    /* out = x < edge ? 0 : 1 */
    void (*step)(float *restrict out, const float *restrict x, float edge, int n);
    /* out = the cubic ramp of (x - lo) * inv clamped to [0, 1] */
    void (*smoothstep)(float *restrict out, const float *restrict x, float lo, float inv, int n);
    /* out = x + (y - x) * t */
    void (*mix)(float *restrict out, const float *restrict x, const float *restrict y, const float *restrict t, int n);
    /* out = t < edge ? x : y */
    void (*select)(float *restrict out, const float *restrict x, const float *restrict y, const float *restrict t,
                   float edge, int n);
    /* out = (x - y) * s */
    void (*sub_scale)(float *restrict out, const float *restrict x, const float *restrict y, float s, int n);
    /* out = (float)(a + (double)x): a world coordinate from an anchor and a block offset */
    void (*offset)(float *restrict out, const float *restrict x, double a, int n);
    /* out += x * w */
    void (*axpy)(float *restrict out, const float *restrict x, float w, int n);
    /* out += a * w * x (a warp's mask times its octave weight times the field) */
    void (*axpy_masked)(float *restrict out, const float *restrict a, float w, const float *restrict x, int n);
    /* out = x * s (x may be out) */
    void (*scale)(float *out, const float *x, float s, int n);
    /* out = x * s + b (x may be out) */
    void (*scale_bias)(float *out, const float *x, float s, float b, int n);
    /* fractal octave accumulation, one per type (fractal.c says why each is bounded) */
    void (*acc_billow)(float *restrict out, const float *restrict x, float w, int n);
    void (*acc_terrain)(float *restrict out, const float *restrict x, float w, float inv, int first, int n);
    void (*acc_hybrid)(float *restrict out, float *restrict state, const float *restrict x, float w, int first, int n);
    void (*acc_ridged)(float *restrict out, float *restrict state, const float *restrict x, float w, int first, int n);
    /* cloud: out = p + g * dg + v * dv (a position moved along the gradient and by the droop) */
    void (*displace)(float *restrict out, const float *restrict p, const float *restrict g, float dg,
                     const float *restrict v, float dv, int n);
    /* cloud: out = (out + w * (1 - 2 x)) * s (the Worley puffs blended in) */
    void (*puff)(float *restrict out, const float *restrict x, float w, float s, int n);
    /* distance: one axis, offset a + p, accumulated by metric (coords.c) */
    void (*acc_distance)(float *restrict out, const float *restrict p, double a, int metric, int n);
} ng_loops;

/* The loops of the selected SIMD path (see kernels.h). */
const ng_loops *ng__loops(void);

#define NG_LOOP_DECLS(sfx)                                                                                    \
    void ng__loop_add##sfx(float *restrict, const float *restrict, const float *restrict, int);              \
    void ng__loop_sub##sfx(float *restrict, const float *restrict, const float *restrict, int);              \
    void ng__loop_mul##sfx(float *restrict, const float *restrict, const float *restrict, int);              \
    void ng__loop_div##sfx(float *restrict, const float *restrict, const float *restrict, int);              \
    void ng__loop_min##sfx(float *restrict, const float *restrict, const float *restrict, int);              \
    void ng__loop_max##sfx(float *restrict, const float *restrict, const float *restrict, int);              \
    void ng__loop_neg##sfx(float *restrict, const float *restrict, int);                                     \
    void ng__loop_abs##sfx(float *restrict, const float *restrict, int);                                     \
    void ng__loop_invert##sfx(float *restrict, const float *restrict, int);                                  \
    void ng__loop_sqrt0##sfx(float *restrict, const float *restrict, int);                                   \
    void ng__loop_fill##sfx(float *, float, int);                                                            \
    void ng__loop_clamp##sfx(float *, const float *, float, float, int);                                     \
    void ng__loop_step##sfx(float *restrict, const float *restrict, float, int);                             \
    void ng__loop_smoothstep##sfx(float *restrict, const float *restrict, float, float, int);                \
    void ng__loop_mix##sfx(float *restrict, const float *restrict, const float *restrict, const float *restrict, \
                           int);                                                                              \
    void ng__loop_select##sfx(float *restrict, const float *restrict, const float *restrict,                 \
                              const float *restrict, float, int);                                            \
    void ng__loop_sub_scale##sfx(float *restrict, const float *restrict, const float *restrict, float, int); \
    void ng__loop_offset##sfx(float *restrict, const float *restrict, double, int);                          \
    void ng__loop_axpy##sfx(float *restrict, const float *restrict, float, int);                             \
    void ng__loop_axpy_masked##sfx(float *restrict, const float *restrict, float, const float *restrict, int); \
    void ng__loop_scale##sfx(float *, const float *, float, int);                                            \
    void ng__loop_scale_bias##sfx(float *, const float *, float, float, int);                                \
    void ng__loop_acc_billow##sfx(float *restrict, const float *restrict, float, int);                       \
    void ng__loop_acc_terrain##sfx(float *restrict, const float *restrict, float, float, int, int);          \
    void ng__loop_acc_hybrid##sfx(float *restrict, float *restrict, const float *restrict, float, int, int); \
    void ng__loop_acc_ridged##sfx(float *restrict, float *restrict, const float *restrict, float, int, int); \
    void ng__loop_displace##sfx(float *restrict, const float *restrict, const float *restrict, float,        \
                                const float *restrict, float, int);                                          \
    void ng__loop_puff##sfx(float *restrict, const float *restrict, float, float, int);                     \
    void ng__loop_acc_distance##sfx(float *restrict, const float *restrict, double, int, int);

/* Designated, so a loop added to the struct cannot shift the others. */
#define NG_LOOP_TABLE(sfx)                                                                                    \
    {                                                                                                         \
        .add = ng__loop_add##sfx, .sub = ng__loop_sub##sfx, .mul = ng__loop_mul##sfx,                         \
        .div = ng__loop_div##sfx, .min = ng__loop_min##sfx, .max = ng__loop_max##sfx,                         \
        .neg = ng__loop_neg##sfx, .abs = ng__loop_abs##sfx, .invert = ng__loop_invert##sfx, .sqrt0 = ng__loop_sqrt0##sfx,                   \
        .fill = ng__loop_fill##sfx, .clamp = ng__loop_clamp##sfx, .step = ng__loop_step##sfx,                 \
        .smoothstep = ng__loop_smoothstep##sfx, .mix = ng__loop_mix##sfx, .select = ng__loop_select##sfx,     \
        .sub_scale = ng__loop_sub_scale##sfx, .offset = ng__loop_offset##sfx, .axpy = ng__loop_axpy##sfx,     \
        .axpy_masked = ng__loop_axpy_masked##sfx, .scale = ng__loop_scale##sfx,                               \
        .scale_bias = ng__loop_scale_bias##sfx, .acc_billow = ng__loop_acc_billow##sfx,                       \
        .acc_terrain = ng__loop_acc_terrain##sfx, .acc_hybrid = ng__loop_acc_hybrid##sfx,                     \
        .acc_ridged = ng__loop_acc_ridged##sfx, .displace = ng__loop_displace##sfx,                           \
        .puff = ng__loop_puff##sfx, .acc_distance = ng__loop_acc_distance##sfx,                              \
    }

#endif
