/*
 * kernels.h — the noise kernels as compiled for each SIMD path, and the
 * table of the path chosen at start-up (nodes/ only). Every path is the same
 * C source compiled with other target attributes (nodes/simd/), so every
 * path computes the same bits; only the speed differs.
 */
#ifndef NG_KERNELS_H
#define NG_KERNELS_H

#include "noise.h"
#include "noise_kernels.h"

typedef void (*ng_basis_fn)(const ng_noise_pts *p, float *out);
typedef void (*ng_basis_d_fn)(const ng_noise_pts *p, float *out, float *grad);

typedef struct ng_kernels {
    const char *name;
    ng_basis_fn basis[NG_BASIS_ALLIGATOR + 1]; /* by NG_BASIS_* */
    ng_basis_d_fn grad[NG_BASIS_ALLIGATOR + 1]; /* NULL: no analytic gradient */
    unsigned grad_dims;                         /* bit d: the gradients cover d dimensions */
    ng_basis_fn simplex_tiled2;
} ng_kernels;

/* The table of the selected path (NG_SIMD, or the best the CPU runs). */
const ng_kernels *ng__kernels(void);

#endif
