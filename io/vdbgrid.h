/*
 * vdbgrid.h — a C++ unit (vdbgrid.cc) behind a C interface: an
 * OpenVDB grid filled voxel by voxel as slabs of a volume arrive and
 * written to a FILE * at the end. vdb.c (the .vdb encoder) is its only
 * user. Plain C types only: noisegraph.h is not C++ (it includes
 * <stdatomic.h>), so neither side sees the other's headers.
 *
 * No C++ exception leaves these functions: each failure is a return value
 * and a message in msg (msglen bytes, always terminated).
 */
#ifndef NG_VDBGRID_H
#define NG_VDBGRID_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ng__vdbgrid ng__vdbgrid;

/* What the grid is and where its voxels lie: index (i, j, k) of the full
 * volume has its centre at origin + (ijk + 0.5) * voxel_size. */
typedef struct ng__vdbgrid_spec {
    const char *name;   /* the grid's name */
    int channels;       /* 1: a float fog volume; 3: a vector grid */
    float background;   /* the cut-off: float voxels at or below it, vectors no
                         * longer than it, and NaN stay inactive and read
                         * as the grid's background, 0 */
    double voxel_size[3]; /* along x, y, z; each > 0 (anisotropic voxels) */
    double origin[3];
    int half;           /* store floats as 16-bit halves */
    /* 1: y up (Houdini's axes): noisegraph's (x, y, z) is stored as
     * (x, z, -y), a rotation, so a volume whose height is z stands upright;
     * vectors are turned the same way. 0: as they are (z up). */
    int y_up;
} ng__vdbgrid_spec;

/* The smallest voxel size OpenVDB's transforms take (their scale maps
 * refuse a determinant below 3e-15). */
#define NG__VDB_MIN_VOXEL_SIZE 1.5e-5

/* A new empty grid, or NULL with msg filled. */
ng__vdbgrid *ng__vdbgrid_new(const ng__vdbgrid_spec *spec, char *msg, size_t msglen);

/* Stores the active voxels of a block of nslices * nrows * width voxels
 * whose first voxel has index (x0, y0, z0):
 * data[((s * nrows + j) * width + i) * channels + c] is voxel
 * (x0 + i, y0 + j, z0 + s), channel c. 0, or -1 with msg filled. */
int ng__vdbgrid_add(ng__vdbgrid *g, int x0, int y0, int z0, int width, int nrows, int nslices,
                    const float *data, char *msg, size_t msglen);

/* Writes grids[0 .. n - 1] (distinct names) as one .vdb file to fp
 * (seekable, positioned at 0), with creator as the file's and each grid's
 * "creator" metadata, and meta (NULL, or key, value, ..., NULL: the
 * provenance) as string metadata of the file and of every grid. 0, or -1
 * with msg filled and *errnum the errno of a failed write (0 for other
 * failures). */
int ng__vdbgrid_write(ng__vdbgrid *const *grids, int n, FILE *fp, const char *creator, const char *const *meta,
                      int *errnum, char *msg, size_t msglen);

/* Calls each(user, key, value) for every string metadata item of the .vdb
 * file at path: the file's, then each grid's as "GRID: key" (the grid's
 * own "name", "class", "value_type" and "vector_type" included). 0, or -1
 * with msg filled (not a .vdb file OpenVDB reads). */
int ng__vdb_read_meta(const char *path, void (*each)(void *user, const char *key, const char *value), void *user,
                      char *msg, size_t msglen);

/* Bytes the grid's tree holds, estimated from its node counts (cheap:
 * the leaves are counted, not visited). */
size_t ng__vdbgrid_bytes(const ng__vdbgrid *g);

/* Frees g (NULL: nothing). */
void ng__vdbgrid_free(ng__vdbgrid *g);

#ifdef __cplusplus
}
#endif

#endif
