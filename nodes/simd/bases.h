/*
 * bases.h — the noise bases, declared once (nodes/ and tests). Everything
 * that lists bases is generated from NG_BASES: the NG_BASIS_* ids, the
 * noise node's `type` choices, shorthands and doc (noise.c), the kernel
 * tables of every SIMD path (kernels.h) and the tests' iterations.
 *
 * Adding a basis: one entry in its family's list below and its kernel in
 * that family's source, nodes/<family>_kernels.c (a new family: a new
 * source and a line in NG_FAMILIES).
 *
 * Columns of X(FAMILY, ID, id, name, freq, lo, hi, dims, tiling, kernel, tiled, grad, doc):
 *   FAMILY  the kernel unit holding its kernels (passed in by NG_BASES)
 *   ID, id  NG_BASIS_<ID> = id, the index of the `type` choice (ids 0 to
 *           NG_NBASES - 1, each once; the compiler refuses a repeat)
 *   name    the `type` choice and the shorthand (ng.<name>{...})
 *   freq    Houdini's frequency multiplier for the basis
 *   lo, hi  natural range, never exceeded (tests/test_kernels.c and
 *           tests/test_cells.c measure it)
 *   dims    bit d set: the basis has d dimensions
 *   tiling  NG_TILE_NONE, NG_TILE_LATTICE (the kernel honours a period on
 *           every axis) or NG_TILE_TORUS (2D only, through `tiled`)
 *   kernel  the batch kernel, static in the family's unit of every path
 *   tiled   the kernel for a tiled render (NULL: the basis does not tile)
 *   grad    value and analytic gradient in one pass, or NULL (the noise
 *           node then takes central differences)
 *   doc     for `noisegraph nodes`, followed there by the range
 */
#ifndef NG_BASES_H
#define NG_BASES_H

#define NG_DIMS_1234 0x1Eu
#define NG_DIMS_23 0x0Cu
#define NG_DIMS_234 0x1Cu

enum { NG_TILE_NONE, NG_TILE_LATTICE, NG_TILE_TORUS };

#define NG_BASES_LATTICE(X, F)                                                                                 \
    X(F, VALUE, 0, "value", 1.0, -1, 1, NG_DIMS_1234, NG_TILE_LATTICE, value_noise, value_noise, value_noise_d, \
      "smooth random lattice values")                                                                          \
    X(F, PERLIN, 1, "perlin", 1.0, -1, 1, NG_DIMS_1234, NG_TILE_LATTICE, perlin_noise, perlin_noise,            \
      perlin_noise_d, "improved gradient noise, 0 on the lattice")                                            \
    X(F, FAST, 2, "fast", 1.25, -1, 1, NG_DIMS_1234, NG_TILE_LATTICE, fast_noise, fast_noise, fast_noise_d,     \
      "cheaper Perlin-like gradient noise, x1.25 frequency")                                                  \
    X(F, FLOW, 4, "flow", 1.0, -1, 1, NG_DIMS_234, NG_TILE_LATTICE, flow_noise, flow_noise, flow_noise_d,        \
      "Perlin flow noise, gradients rotated by `flow` (4D: by flow + time, one turn per cell)")

#define NG_BASES_SIMPLEX(X, F)                                                                                 \
    X(F, SIMPLEX, 3, "simplex", 1.0, -1, 1, NG_DIMS_1234, NG_TILE_TORUS, simplex_noise, simplex_tiled2,         \
      simplex_noise_d, "gradient noise on a simplex grid")

#define NG_BASES_WHITE(X, F)                                                                                   \
    X(F, WHITE, 5, "white", 1.0, -1, 1, NG_DIMS_1234, NG_TILE_NONE, white_noise, NULL, NULL,                    \
      "independent per-sample values")

#define NG_BASES_WORLEY(X, F)                                                                                  \
    X(F, WORLEY, 6, "worley", 1.0, 0, 1, NG_DIMS_1234, NG_TILE_LATTICE, worley_noise, worley_noise, NULL,       \
      "cellular distances f1, f2, f3, f2-f1, the distance to the cell's edge, a per-cell value, or the nearest "  \
      "point's position (a vector in world units)")

#define NG_BASES_IMPULSE(X, F)                                                                                 \
    X(F, SPARSE, 7, "sparse", 1.25, -1, 1, NG_DIMS_1234, NG_TILE_LATTICE, sparse_noise, sparse_noise, NULL,     \
      "sparse convolution, x1.25")                                                                            \
    X(F, ALLIGATOR, 8, "alligator", 1.64, 0, 1, NG_DIMS_1234, NG_TILE_LATTICE, alligator_noise,                 \
      alligator_noise, NULL, "max of random bumps, x1.64")

/* The families: X(FAMILY, family, list); family names the source
 * nodes/<family>_kernels.c, compiled once per SIMD path. */
#define NG_FAMILIES(X, a)                                                                                      \
    X(LATTICE, lattice, NG_BASES_LATTICE, a)                                                                   \
    X(SIMPLEX, simplex, NG_BASES_SIMPLEX, a)                                                                   \
    X(WHITE, white, NG_BASES_WHITE, a)                                                                         \
    X(WORLEY, worley, NG_BASES_WORLEY, a)                                                                      \
    X(IMPULSE, impulse, NG_BASES_IMPULSE, a)

/* Every basis, family by family (not in id order: index arrays by id). */
#define NG__FAMILY_BASES(FAMILY, family, list, X) list(X, FAMILY)
#define NG_BASES(X) NG_FAMILIES(NG__FAMILY_BASES, X)

#define NG__BASIS_ID(F, ID, id, ...) NG_BASIS_##ID = id,
#define NG__BASIS_COUNT(F, ID, ...) NG__COUNT_##ID,
#define NG__FAMILY_ID(FAMILY, family, list, a) NG_FAMILY_##FAMILY,
enum { NG_BASES(NG__BASIS_ID) };
enum { NG_BASES(NG__BASIS_COUNT) NG_NBASES };
enum { NG_FAMILIES(NG__FAMILY_ID, ~) NG_NFAMILIES };

#endif
