/*
 * loops.h — the element-wise loops of the math, fractal, warp and noise
 * nodes, compiled for every SIMD path like the kernels (nodes/simd/) and
 * called through the selected path's table. Same C, same bits on every path.
 */
#ifndef NG_LOOPS_H
#define NG_LOOPS_H

typedef void (*ng_loop2)(float *restrict out, const float *restrict x, const float *restrict y, int n);

typedef struct ng_loops {
    ng_loop2 add, sub, mul, div, min, max;  /* out = x op y */
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
    void ng__loop_axpy##sfx(float *restrict, const float *restrict, float, int);                             \
    void ng__loop_axpy_masked##sfx(float *restrict, const float *restrict, float, const float *restrict, int); \
    void ng__loop_scale##sfx(float *, const float *, float, int);                                            \
    void ng__loop_scale_bias##sfx(float *, const float *, float, float, int);                                \
    void ng__loop_acc_billow##sfx(float *restrict, const float *restrict, float, int);                       \
    void ng__loop_acc_terrain##sfx(float *restrict, const float *restrict, float, float, int, int);          \
    void ng__loop_acc_hybrid##sfx(float *restrict, float *restrict, const float *restrict, float, int, int); \
    void ng__loop_acc_ridged##sfx(float *restrict, float *restrict, const float *restrict, float, int, int);

#define NG_LOOP_TABLE(sfx)                                                                                    \
    {ng__loop_add##sfx, ng__loop_sub##sfx, ng__loop_mul##sfx, ng__loop_div##sfx, ng__loop_min##sfx,          \
     ng__loop_max##sfx, ng__loop_axpy##sfx, ng__loop_axpy_masked##sfx, ng__loop_scale##sfx, ng__loop_scale_bias##sfx,             \
     ng__loop_acc_billow##sfx, ng__loop_acc_terrain##sfx, ng__loop_acc_hybrid##sfx, ng__loop_acc_ridged##sfx}

#endif
