/*
 * vdb.c — the OpenVDB encoder of the file sink (filesink.c): a volume
 * becomes one grid in a .vdb file, the format Houdini, Blender and every
 * DCC read. One channel is a float fog volume, three a vector grid
 * (vec3s, contravariant relative: a velocity); the grid is built through
 * the OpenVDB library (vdbgrid.cc). The named outputs of one render share
 * one file (density, temperature, vel, flame: what Pyro and Karma read
 * per frame): the sinks of the other outputs join the last one's
 * (ng_file_sink_join), and its end() writes every grid, in output order.
 *
 * Sparse, as VDB is meant to be: a voxel at or below the background cut-off
 * (0 unless set; for vectors, one no longer than it), or NaN (a vector
 * with a NaN component), is left inactive and reads back as the grid's
 * background, 0 (a fog volume is empty there), so empty sky costs nothing.
 * Slabs go
 * into the grid's tree as they arrive, so memory is the active voxels, not
 * the dense volume (bounded by the sink's memory limit); the file is written at end(), into the sink's
 * temporary file. 16 bits stores the floats as halves.
 *
 * Voxel indices are those of the full volume (the window's offset added)
 * and the transform maps index (i, j, k) to the voxel's centre, origin +
 * (ijk + 0.5) * voxel size: windows of one volume share one index space
 * and stitch.
 */
#include "filesink.h"
#include "vdbgrid.h"

#include <float.h>
#include <math.h>

static int encode_begin(ng__image *im)
{
    ng__vdbgrid_spec spec;
    char msg[sizeof im->what];
    if (!(fabs(im->background) <= FLT_MAX))
        return ng__image_fail(im, 0, "the background %g is not a 32-bit float", im->background);
    int a;
    for (a = 0; a < 3; a++) {
        spec.voxel_size[a] = ng_volume_voxel(&im->vol, a);
        if (!(spec.voxel_size[a] >= NG__VDB_MIN_VOXEL_SIZE))
            return ng__image_fail(im, 0, "a voxel size of %g is below OpenVDB's smallest (%g)", spec.voxel_size[a],
                                  NG__VDB_MIN_VOXEL_SIZE);
        spec.origin[a] = im->vol.origin[a];
    }
    spec.name = im->grid;
    spec.channels = im->channels;
    spec.background = (float)im->background;
    spec.half = im->bits == 16;
    spec.y_up = im->opt.y_up;
    if (!(im->state = ng__vdbgrid_new(&spec, msg, sizeof msg))) return ng__image_fail(im, 0, "%s", msg);
    return 0;
}

static int encode_slab(ng__image *im, int z, int nslices, int y, int nrows, const float *data)
{
    char msg[sizeof im->what];
    const int *at = im->vol.offset;
    if (ng__vdbgrid_add(im->state, at[0], at[1] + y, at[2] + z, im->width, nrows, nslices, data, msg, sizeof msg))
        return ng__image_fail(im, 0, "%s", msg);
    if (im->memory_limit > 0 && (double)ng__vdbgrid_bytes(im->state) > im->memory_limit)
        return ng__image_fail(im, 0,
                              "the VDB tree of the active voxels needs more than the %.0f MiB the memory limit "
                              "leaves it (raise --memory-limit or --vdb-background, or render a --region)",
                              im->memory_limit / 1048576.0);
    return 0;
}

/* This grid and those of the images joined to it, in output order (the
 * joined ones first: this one is the last output). */
static int encode_end(ng__image *im)
{
    ng__vdbgrid *grids[NG__MAX_JOINED + 1];
    char msg[sizeof im->what];
    int errnum, n = 0;
    const ng__image *j;
    for (j = im->joined; j && n < NG__MAX_JOINED; j = j->joined) grids[n++] = j->state;
    grids[n++] = im->state;
    if (ng__vdbgrid_write(grids, n, im->fp, "noisegraph " NG_VERSION, im->opt.meta, &errnum, msg, sizeof msg))
        return ng__image_fail(im, errnum, "%s", msg);
    return 0;
}

static void encode_discard(ng__image *im)
{
    ng__vdbgrid_free(im->state);
    im->state = NULL;
}

const ng__encoder ng__vdb_encoder = {
    .begin = encode_begin, .end = encode_end, .discard = encode_discard, .slab = encode_slab,
};
