/*
 * sample.h — what the kernel suites share: the SIMD path under test (they
 * run on every path this CPU runs), a fixed xorshift64 stream (every run
 * tests the same points) and Pearson correlation.
 */
#ifndef NG_TEST_SAMPLE_H
#define NG_TEST_SAMPLE_H

#include "harness.h"
#include "kernels.h"

#include <stdint.h>

/* The SIMD path under test. t_on_every_path calls tests(), which runs a
 * suite's cases with T_RUN, once per compiled path this CPU runs, and names
 * the others as skipped. A failure names the case and the path. */
extern const ng_path *t_path;
void t_on_every_path(const char *suite, void (*tests)(void));
void t_run_on_path(const char *name, void (*fn)(void));
#define T_RUN(fn) t_run_on_path(#fn, fn)
/* The widest path this CPU runs. */
const ng_path *t_widest_path(void);
/* A statistical sweep (millions of samples): on every path in the
 * optimised run, on the widest path alone under the sanitizers, whose run
 * is for memory and undefined behaviour and where the sweeps took minutes
 * a path (every path's bits are checked in the optimised run), and under
 * qemu (SCALED), where every path's bits are checked against the widest
 * path's by the suites' bit-identity cases. */
#define T_RUN_SWEEP(fn)                                                        \
    do {                                                                       \
        if (!SCALED || t_path == t_widest_path()) t_run_on_path(#fn, fn);      \
    } while (0)

void t_rng_seed(uint64_t s);
uint64_t t_rng_next(void);
double t_rng_unit(void);                     /* [0, 1), 53 bits */
double t_rng_range(double lo, double hi);    /* [lo, hi) */
/* Pearson correlation of two fields at the same n points. */
double t_correlation(const float *a, const float *b, int n);

/* Statistics of steps between neighbouring samples, for the far-origin
 * tests: how many are bit-identical (blockiness) and their spread. */
typedef struct t_steps {
    long same, count;
    double sum, sum2;
} t_steps;
void t_steps_add(t_steps *st, const float *v, int n); /* steps v[i] - v[i-1] */
double t_steps_same(const t_steps *st);               /* share of zero steps */
double t_steps_sd(const t_steps *st);                 /* standard deviation */

#endif
