/* loops.c — element-wise loops, one source for every SIMD path (loops.h). */
#include "loops.h"

NG_LOOP_DECLS()

#define LOOP2(name, expr)                                                                                     \
    void name(float *restrict out, const float *restrict x, const float *restrict y, int n)                  \
    {                                                                                                         \
        int i;                                                                                                \
        for (i = 0; i < n; i++) out[i] = (expr);                                                              \
    }

LOOP2(ng__loop_add, x[i] + y[i])
LOOP2(ng__loop_sub, x[i] - y[i])
LOOP2(ng__loop_mul, x[i] * y[i])
LOOP2(ng__loop_div, x[i] / y[i])
LOOP2(ng__loop_min, x[i] < y[i] ? x[i] : y[i])
LOOP2(ng__loop_max, x[i] > y[i] ? x[i] : y[i])

void ng__loop_axpy(float *restrict out, const float *restrict x, float w, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] += x[i] * w;
}

void ng__loop_axpy_masked(float *restrict out, const float *restrict a, float w, const float *restrict x, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] += a[i] * w * x[i];
}

void ng__loop_scale_bias(float *out, const float *x, float s, float b, int n)
{
    int i;
    for (i = 0; i < n; i++) out[i] = x[i] * s + b;
}
