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

#include "bits.h"
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

/* The Minkowski exponent's range: p outside it is clamped (NaN: 2). */
#define NG_MINKOWSKI_MIN 0.5f
#define NG_MINKOWSKI_MAX 10.0f

static inline float ng_minkowski_exponent(float e)
{
    if (!(e == e)) return 2.0f;
    return e < NG_MINKOWSKI_MIN ? NG_MINKOWSKI_MIN : e > NG_MINKOWSKI_MAX ? NG_MINKOWSKI_MAX : e;
}

/*
 * x^e for x >= 0 and |e| <= 10, the Minkowski metric's power: exp2(e log2
 * x) in float, log2 of the mantissa in [sqrt(1/2), sqrt(2)) by its
 * atanh series to s^9, 2^f on [-1/2, 1/2] by Taylor to f^7. Relative
 * error for x in [1e-4, 1e4] below 2e-6 for |e| <= 2 (the 1/p root) and
 * 8e-6 for |e| <= 10 (e log2 x carries float's rounding times e):
 * test_cell_pow_error in tests/test_cells.c.
 * Only +, *, one division, conversions and bit selects, so it vectorises
 * and gives the same bits on every path (libm's powf does neither: it
 * is a call, and glibc picks an FMA variant by CPU). 0, subnormals and
 * results below 2^-126 give +0; above 2^127 it saturates.
 */
static inline __attribute__((always_inline)) float ng_cell_pow(float x, float e)
{
    const uint32_t u = f2u(x), big = (u & 0x007fffffu) > 0x3504f3u; /* mantissa >= sqrt(2) */
    const uint32_t mu = (u & 0x007fffffu) | (big ? 0x3f000000u : 0x3f800000u);
    const int32_t k = (int32_t)((u >> 23) & 0xffu) - 127 + (int32_t)big;
    const float m = u2f(mu), s = (m - 1.0f) / (m + 1.0f), s2 = s * s;
    const float l = s * (2.8853900818f + s2 * (0.9617966939f + s2 * (0.5770780164f +
                                          s2 * (0.4121985831f + s2 * 0.3205988980f))));
    float y = e * (float)k + e * l, f, q;
    int32_t n;
    uint32_t zero = (u & 0x7f800000u) == 0u || y < -126.0f;
    y = y > 127.0f ? 127.0f : y;
    y = y < -126.0f ? -126.0f : y;
    n = (int32_t)(y + 126.5f) - 126; /* round(y), y + 126.5 >= 0.5: truncation is floor */
    f = y - (float)n;
    q = 1.0f + f * (0.6931471806f + f * (0.2402265070f + f * (0.0555041087f + f * (0.0096181291f +
            f * (0.0013333558f + f * (0.0001540353f + f * 0.0000152528f))))));
    q = q * u2f((uint32_t)(n + 127) << 23);
    return u2f(f2u(q) & (zero - 1u));
}

/*
 * worley_noise: one feature point per cell at
 * cell + 0.5 + jitter * (u - 0.5) per axis (jitter clamped to [0, 1]; 0 is
 * the regular grid). p->metric picks euclidean, manhattan, chebyshev or
 * minkowski distance ((sum |d_k|^p)^(1/p), p = p->exponent clamped to
 * [0.5, 10] by ng_minkowski_exponent, powers by ng_cell_pow: p = 1 and 2
 * have manhattan's and euclidean's shapes, not their bits), p->feature the
 * output:
 *   F1, F2, F3 nearest, second- and third-nearest feature distance; [0, 1],
 *              0 at a feature point (F1);
 *   F2_F1      F2 - F1; [0, 1], exactly 0 where two cells meet;
 *   CELL       a random value in [0, 1) per cell, of the nearest feature's
 *              cell: constant inside each Voronoi cell;
 *   EDGE       euclidean only (other metrics write zeros): the distance to
 *              the nearest cell edge, min over features g of
 *              (|g - x|^2 - |f1 - x|^2) / (2 |g - f1|), exact (not the
 *              (F2 - F1) / 2 approximation, which it bounds from above);
 *              [0, 1], exactly 0 where two cells meet, 1-Lipschitz before
 *              normalising;
 *   POSITION   the vector from the point to its nearest feature, in cells
 *              (noise space), one plane per axis: out[k * plane + i] for k
 *              < dims (plane = p->plane, 0: n); not normalised; with
 *              p->cells, also the feature's coordinates in its own cell
 *              in planes dims to 2 dims - 1. The noise node turns them
 *              into a world position.
 * All are exact (the search widens where a feature that matters could lie
 * outside the 3^d neighbourhood). Distances are divided by a normaliser per
 * (feature, metric, dims, jitter, exponent), continuous in jitter and
 * exponent, and clamped at 1; fewer than 1e-4 of samples clamp (see
 * worley_norm.c). Lipschitz along an axis before normalising: 1 for F1, F2,
 * F3 and EDGE, 2 for F2-F1, in every metric but minkowski below p = 1,
 * whose distance is continuous but infinitely steep where the point lines
 * up with a feature along an axis.
 */

/* The raw value (F1, F2, F3, F2-F1, EDGE; in cells of the metric) that
 * Worley maps to 1, for jitter clamped to [0, 1] and minkowski's exponent
 * (ignored by the other metrics): a distance in world units is output *
 * normaliser * cell size. 0 for CELL, POSITION and invalid arguments. */
float ng_worley_normaliser(int feature, int metric, int dims, float jitter, float exponent);

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
