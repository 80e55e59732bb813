/*
 * cell_kernels.h — the contract of the cellular (Worley:
 * worley_kernels.c) and kernel-noise (sparse convolution, alligator:
 * impulse_kernels.c) bases over a batch of points; the kernels are static
 * in each SIMD path's units (kernels.h).
 *
 * Same batch, precision and hashing contract as noise_kernels.h: a double
 * anchor split once per call into an integer cell and a float fraction,
 * lattice cells hashed as uint32 (ng_cell_hash below), output a function of
 * (position, seed, period, and the Worley fields) only, so it is
 * bit-identical for every batch split. Dims 1 to 4 for all three; other
 * dims, an unknown feature or an unknown metric write zeros.
 *
 * Periodic: when p->period[d] > 0 the lattice along d repeats every
 * period[d] cells, exactly: f(x + period) == f(x) whenever both positions
 * are representable.
 */
#ifndef NG_CELL_KERNELS_H
#define NG_CELL_KERNELS_H

#include "noise_kernels.h"

/*
 * A cell's hash: ng_lattice_hash(ng_hash_seed(seed) ^ x * NG_LATTICE_PRIME_X
 * ^ y * NG_LATTICE_PRIME_Y ^ ...) of its (wrapped) coordinates, one
 * multiply per cell. Its feature point's coordinate along axis k is the top
 * 16 bits of ng_cell_word(h, k) as a unit (1/65536 of a cell is far below a
 * pixel): axis 0 takes h itself, the others h times an odd constant, whose
 * top bits depend on every bit of h. The per-cell value (Worley CELL,
 * alligator height) is ng_hash_unit(ng_hash_step(h, 1)), a full mix.
 */
static inline uint32_t ng_cell_hash(uint32_t seed, int dims, const uint32_t *cell)
{
    static const uint32_t prime[4] = {NG_LATTICE_PRIME_X, NG_LATTICE_PRIME_Y, NG_LATTICE_PRIME_Z,
                                      NG_LATTICE_PRIME_W};
    uint32_t v = ng_hash_seed(seed);
    int k;
    for (k = 0; k < dims; k++) v ^= cell[k] * prime[k];
    return ng_lattice_hash(v);
}

static inline uint32_t ng_cell_word(uint32_t h, int k)
{
    return k == 0 ? h : k == 1 ? h * 0x85ebca6bu : k == 2 ? h * 0xc2b2ae35u : h * 0x27d4eb2du;
}

/*
 * worley_noise: one feature point per cell at
 * cell + 0.5 + jitter * (u - 0.5) per axis (jitter clamped to [0, 1]; 0 is
 * the regular grid). p->metric picks euclidean, manhattan or chebyshev
 * distance, p->feature the output:
 *   F1, F2     nearest and second-nearest feature distance; [0, 1], 0 at a
 *              feature point (F1);
 *   F2_F1      F2 - F1; [0, 1], exactly 0 where two cells meet;
 *   CELL       a random value in [0, 1) per cell, of the nearest feature's
 *              cell: constant inside each Voronoi cell.
 * F1 and F2 are exact (the search widens where a nearer feature could lie
 * outside the 3^d neighbourhood). Distances are divided by a normaliser per
 * (feature, metric, dims, jitter), continuous in jitter, and clamped at 1;
 * fewer than 1e-4 of samples clamp (see worley_norm.c).
 */

/* The raw distance (F1, F2, F2-F1; in cells of the metric) that Worley maps to
 * 1, for jitter clamped to [0, 1]: a distance in world units is output *
 * normaliser * cell size. 0 for CELL and invalid arguments. */
float ng_worley_normaliser(int feature, int metric, int dims, float jitter);

/*
 * sparse_noise, sparse convolution (Lewis 1989): 2 to 4 impulses per cell at random
 * positions with random weights in [-1, 1], each convolved with the kernel
 * (1 - r^2)^3 of radius one cell. Symmetric range [-1, 1], clamped at +-1
 * in fewer than 1e-4 of samples; C2-smooth elsewhere. Ignores
 * jitter/feature/metric.
 */

/*
 * alligator_noise: the maximum over cells of bumps h * (1 - (r / 1 cell)^2)^2
 * centred on fully jittered feature points, h uniform in [0, 1). Scaly
 * plates with creases where two bumps meet. Range [0, 1], 0 where no bump
 * reaches, never above 1 (no clamp). Continuous. Ignores
 * jitter/feature/metric.
 */

#endif
