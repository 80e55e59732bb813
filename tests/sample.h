/*
 * sample.h — what the kernel suites share for sampling: a fixed xorshift64
 * stream (every run tests the same points) and Pearson correlation.
 */
#ifndef NG_TEST_SAMPLE_H
#define NG_TEST_SAMPLE_H

#include <stdint.h>

void t_rng_seed(uint64_t s);
uint64_t t_rng_next(void);
double t_rng_unit(void);                     /* [0, 1), 53 bits */
double t_rng_range(double lo, double hi);    /* [lo, hi) */
/* Pearson correlation of two fields at the same n points. */
double t_correlation(const float *a, const float *b, int n);

#endif
