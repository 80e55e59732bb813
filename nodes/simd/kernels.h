/*
 * kernels.h — the SIMD paths (nodes/ only). A path is the kernel sources
 * compiled with its target flags (PATH_FLAGS_<path> in the Makefile, the
 * one place a target is defined): one unit per basis family,
 * nodes/simd/<family>_kernels.c, exporting its family's table
 * ng__<family>_<path>, and nodes/simd/path_<path>.c with the loops, exporting
 * the path's table ng__path_<path>. Kernels and loops are static. Every
 * path is the same C, so every path computes the same bits; only the speed
 * differs.
 */
#ifndef NG_KERNELS_H
#define NG_KERNELS_H

#include "bases.h"
#include "loops.h"
#include "noise_kernels.h"

#include <stddef.h>

typedef void (*ng_basis_fn)(const ng_noise_pts *p, float *out);
typedef void (*ng_basis_d_fn)(const ng_noise_pts *p, float *out, float *grad);
/* A vector kernel (output = "vector"): `channels` (1 to 3) decorrelated
 * channels from one lattice walk, out holding channels planes of n, each
 * channel from the gradient set p->gradients names (lattice_parts.h,
 * vector channels). Channel c is the same bits whatever channels is. The
 * _d form also writes each
 * channel's gradient: grad[(c * dims + e) * n + i] = d out_c / d axis e. */
typedef void (*ng_vector_fn)(const ng_noise_pts *p, int channels, float *out);
typedef void (*ng_vector_d_fn)(const ng_noise_pts *p, int channels, float *out, float *grad);

/* A family unit's kernels, by NG_BASIS_*; NULL for other families' bases. */
typedef struct ng_kernels {
    ng_basis_fn basis[NG_NBASES];
    ng_basis_fn tiled[NG_NBASES];  /* the kernel of a tiled render; NULL: does not tile */
    ng_basis_d_fn grad[NG_NBASES]; /* value and gradient (see noise_kernels.h); NULL: none */
    /* every channel in one walk, honouring period like `basis`, for the
     * dims vector_dims[basis] has bit d set; NULL: one call per channel */
    ng_vector_fn vector[NG_NBASES];
    ng_vector_d_fn vector_d[NG_NBASES];
    unsigned vector_dims[NG_NBASES];
} ng_kernels;

typedef struct ng_path {
    const char *name;
    const ng_kernels *family[NG_NFAMILIES]; /* by NG_FAMILY_* */
    ng_loops loops;
} ng_path;

/* The compiled paths, narrowest first (the Makefile builds the same list). */
#ifndef NG_PATHS /* the Makefile's PATHS; a build may compile fewer (make demo) */
#if defined(__aarch64__)
#define NG_PATHS(X) X(scalar) X(neon)
#else
#define NG_PATHS(X) X(scalar) X(sse2) X(avx2) X(avx512)
#endif
#endif

#define NG__DECLARE_UNIT(FAMILY, family, list, path) extern const ng_kernels ng__##family##_##path;
#define NG__DECLARE_PATH(path) extern const ng_path ng__path_##path; NG_FAMILIES(NG__DECLARE_UNIT, path)
NG_PATHS(NG__DECLARE_PATH)

/* The selected path: NG_SIMD, or the widest this CPU runs. */
const ng_path *ng__path(void);
/* Tests: evaluation runs on path p (one this CPU runs) from now on, whatever
 * NG_SIMD chose; NULL goes back to that choice. Only between renders: a
 * render reads the path as it goes. */
void ng__path_force(const ng_path *p);

/* Path i of NG_PATHS (NULL past the last); *runs: this CPU can run it. */
const ng_path *ng__path_at(int i, int *runs);

/* The family of each basis, by NG_BASIS_*. */
extern const unsigned char ng__basis_family[NG_NBASES];

/* A basis's kernels on path p. */
static inline ng_basis_fn ng__kernel(const ng_path *p, int basis)
{
    return p->family[ng__basis_family[basis]]->basis[basis];
}

static inline ng_basis_fn ng__kernel_tiled(const ng_path *p, int basis)
{
    return p->family[ng__basis_family[basis]]->tiled[basis];
}

static inline ng_basis_d_fn ng__kernel_grad(const ng_path *p, int basis)
{
    return p->family[ng__basis_family[basis]]->grad[basis];
}

/* A basis's vector kernel on path p for dims, or NULL (one call per channel). */
static inline ng_vector_fn ng__kernel_vector(const ng_path *p, int basis, int dims)
{
    const ng_kernels *k = p->family[ng__basis_family[basis]];
    return (k->vector_dims[basis] >> dims) & 1u ? k->vector[basis] : NULL;
}

static inline ng_vector_d_fn ng__kernel_vector_d(const ng_path *p, int basis, int dims)
{
    const ng_kernels *k = p->family[ng__basis_family[basis]];
    return (k->vector_dims[basis] >> dims) & 1u ? k->vector_d[basis] : NULL;
}

/* ---- in the units of a path (NG_PATH defined by the Makefile) ---------- */

#define NG__CAT2(a, b) a##b
#define NG__CAT(a, b) NG__CAT2(a, b)

/* The last line of nodes/<family>_kernels.c: its table, from its list in
 * bases.h (whose kernel names are the unit's static functions). */
#define NG__KERNEL_ROW(F, ID, id, name, freq, lo, hi, dims, tiling, kfn, ktiled, kgrad, doc)                   \
    .basis[NG_BASIS_##ID] = kfn, .tiled[NG_BASIS_##ID] = ktiled, .grad[NG_BASIS_##ID] = kgrad,
#define NG_FAMILY_TABLE(family, list)                                                                          \
    const ng_kernels NG__CAT(ng__##family##_, NG_PATH) = {list(NG__KERNEL_ROW, ~)}
/* The same with the family's vector kernels, vectors = NG_VECTOR_ROW(...) per basis that has one. */
#define NG_VECTOR_ROW(ID, kvec, kvec_d, dims)                                                                  \
    .vector[NG_BASIS_##ID] = kvec, .vector_d[NG_BASIS_##ID] = kvec_d, .vector_dims[NG_BASIS_##ID] = dims,
#define NG_FAMILY_TABLE_VECTOR(family, list, vectors)                                                          \
    const ng_kernels NG__CAT(ng__##family##_, NG_PATH) = {list(NG__KERNEL_ROW, ~) vectors}

/* The last line of nodes/simd/<path>.c: the path's table. */
#define NG__UNIT_REF(FAMILY, family, list, path) [NG_FAMILY_##FAMILY] = &ng__##family##_##path,
#define NG_PATH_TABLE(path)                                                                                    \
    const ng_path ng__path_##path = {#path, {NG_FAMILIES(NG__UNIT_REF, path)}, NG_LOOP_TABLE}

#endif
