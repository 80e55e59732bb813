/*
 * ngmath.h — noisegraph's own transcendental functions, used on the bit
 * path instead of libm's sin, cos, tan, atan, atan2, exp, log, log2, pow,
 * tanh and the float sinf, cosf, expf, logf, powf: the same bits on every
 * CPU, libm and architecture (core/ngmath.c says why and how accurate).
 * libm's exact functions (sqrt, floor, fmod, fma, ldexp, ...) are used as
 * they are: IEEE defines their results to the bit.
 */
#ifndef NG_NGMATH_H
#define NG_NGMATH_H

double ng_sin(double x);
double ng_cos(double x);
void ng_sincos(double x, double *s, double *c);
double ng_tan(double x);
double ng_atan(double x);
double ng_atan2(double y, double x);
double ng_exp(double x);
double ng_log(double x);
double ng_log2(double x);
double ng_pow(double x, double y);
double ng_tanh(double x);

float ng_sinf(float x);
float ng_cosf(float x);
float ng_expf(float x);
float ng_logf(float x);
float ng_powf(float x, float y);

#endif
