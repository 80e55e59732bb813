/*
 * test_vdb.c — .vdb output read back with OpenVDB's own tools (Debian's
 * pyopenvdb, vdb_print), not ours: the grid's name, class, type and
 * transform, every active voxel's world position and value against
 * ng_eval_points at the voxel centres, the inactive voxels exactly those at
 * or below the background, half-float storage, windows landing at their
 * offset in one index space, vector grids; and what is refused (a 2D
 * render, 2 channels, a background or voxel size OpenVDB cannot hold) or
 * fails (cancelled, a full disk) leaving no file and no temporary.
 */
#include "ng_io.h"
#include "build.h"
#include "cli_support.h"
#include "noisegraph.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* The full volume of the tests through the C API: odd extents, an origin
 * off the grid, a voxel size that is no power of 2. */
enum { W = 21, H = 18, D = 13, NVOX = W * H * D };

/* A full volume: its extents and placement. */
typedef struct geom {
    int n[3];
    double origin[3], voxel;
} geom;
static const geom VOL = {{W, H, D}, {-3.25, 1.5, 0.75}, 0.37};

static int nvox(const geom *v) { return v->n[0] * v->n[1] * v->n[2]; }

static const char precious[] = "precious\n";

/* A 3D fbm around 0: about half the voxels above a background of 0.
 * channels 3: the same from a vector noise. Its finest octave spans more
 * than two voxels, so the render evaluates every octave, as
 * ng_eval_points (no footprint) does. */
static int cloud(ng_graph *g, int channels)
{
    int base = channels == 3 ? t_vnoise(g, "simplex", 4, 5) : t_noise(g, "perlin", 4, 7);
    return t_fbm(g, base, 3, 2.0, 0.5);
}

static void volume_opts(ng_render_opts *o)
{
    t_opts(o, W, H);
    o->depth = D;
    o->dims = 3;
    o->brick = 8;
    o->threads = 2; /* slabs handed over while others are evaluated */
    o->origin[0] = VOL.origin[0];
    o->origin[1] = VOL.origin[1];
    o->z = VOL.origin[2];
    o->pixel_size = VOL.voxel;
}

/* The world position of a voxel centre of volume v, axis a. */
static double centre(const geom *v, int a, int ijk) { return v->origin[a] + (ijk + 0.5) * v->voxel; }

/* ng_eval_points at every voxel centre of volume v: nvox * channels
 * floats, index ((k * H + j) * W + i) * channels + c. */
static float *expected(const ng_graph *g, int root, int channels, const geom *v)
{
    double *xs[3];
    float *out = malloc((size_t)nvox(v) * channels * sizeof *out);
    ng_error err = {{0}};
    int a, i, j, k, n = 0;
    for (a = 0; a < 3; a++) xs[a] = malloc((size_t)nvox(v) * sizeof(double));
    if (!out || !xs[0] || !xs[1] || !xs[2]) abort();
    for (k = 0; k < v->n[2]; k++)
        for (j = 0; j < v->n[1]; j++)
            for (i = 0; i < v->n[0]; i++, n++) {
                xs[0][n] = centre(v, 0, i);
                xs[1][n] = centre(v, 1, j);
                xs[2][n] = centre(v, 2, k);
            }
    if (ng_eval_points(g, root, 3, (const double *const *)xs, nvox(v), out, &err)) {
        fprintf(stderr, "test fixture failed: ng_eval_points: %s\n", err.msg);
        exit(3);
    }
    for (a = 0; a < 3; a++) free(xs[a]);
    return out;
}

/* Renders root (with o) to path through a file sink with this grid name
 * (NULL: the default) and background. 0, or -1 with err filled. */
static int render_vdb(const char *path, const ng_graph *g, int root, const ng_render_opts *o, int bits,
                      const char *grid, double background, ng_error *err)
{
    ng_file_sink *f = ng_file_sink_new(path, bits, err);
    ng_sink s;
    int rc;
    if (!f) return -1;
    if (ng_file_sink_set_grid(f, grid, background, err)) {
        ng_file_sink_free(f);
        return -1;
    }
    s = ng_file_sink_as_sink(f);
    rc = ng_render(g, &root, 1, o, &s, err);
    ng_file_sink_free(f);
    return rc;
}

/* ---- reading back with pyopenvdb ---------------------------------------------- */

/* Prints the file's grids, its creator, then the first grid's properties
 * and one line per active voxel (tiles expanded): index, world position,
 * value(s), as Python's shortest round-trip text. */
static const char reader_py[] =
    "import sys\n"
    "import pyopenvdb as vdb\n"
    "grids, meta = vdb.readAll(sys.argv[1])\n"
    "print('grids', len(grids))\n"
    "print('filecreator', meta.get('creator', '-'))\n"
    "g = grids[0]\n"
    "print('name', g.name)\n"
    "print('class', g.gridClass.replace(' ', '_'))\n"
    "print('type', g.valueTypeName)\n"
    "print('creator', g.creator.replace(' ', '_'))\n"
    "print('half', int(g.saveFloatAsHalf))\n"
    "print('voxel', *map(repr, g.transform.voxelSize()))\n"
    "bg = g.background\n"
    "print('background', *map(repr, bg if isinstance(bg, tuple) else (bg,)))\n"
    "for it in g.citerOnValues():\n"
    "    lo, hi = it.min, it.max\n"
    "    v = it.value if isinstance(it.value, tuple) else (it.value,)\n"
    "    for k in range(lo[2], hi[2] + 1):\n"
    "        for j in range(lo[1], hi[1] + 1):\n"
    "            for i in range(lo[0], hi[0] + 1):\n"
    "                w = g.transform.indexToWorld((i, j, k))\n"
    "                print('v', i, j, k, *map(repr, w), *map(repr, v))\n"
    "print('end')\n";

typedef struct readback {
    geom vol;                /* the volume expected */
    int ok;                  /* the reader ran and printed 'end' */
    int grids, half;
    char filecreator[64], name[64], gclass[64], type[64], creator[64];
    double voxel[3], background[3];
    int nactive;             /* voxels listed */
    int outside;             /* listed voxels outside the full volume */
    int dup;                 /* listed twice */
    unsigned char *active;   /* nvox: listed */
    float *value;            /* nvox * 3: their values */
    double worst_world;      /* largest error of a world position */
} readback;

static void readback_free(readback *rb)
{
    free(rb->active);
    free(rb->value);
}

/* Reads the first two words of line into key and rest. */
static void parse_line(readback *rb, const char *line)
{
    char key[32];
    int n = 0;
    if (sscanf(line, "%31s %n", key, &n) != 1) return;
    line += n;
    if (!strcmp(key, "grids")) sscanf(line, "%d", &rb->grids);
    else if (!strcmp(key, "filecreator")) sscanf(line, "%63[^\n]", rb->filecreator);
    else if (!strcmp(key, "name")) sscanf(line, "%63s", rb->name);
    else if (!strcmp(key, "class")) sscanf(line, "%63s", rb->gclass);
    else if (!strcmp(key, "type")) sscanf(line, "%63s", rb->type);
    else if (!strcmp(key, "creator")) sscanf(line, "%63s", rb->creator);
    else if (!strcmp(key, "half")) sscanf(line, "%d", &rb->half);
    else if (!strcmp(key, "voxel")) sscanf(line, "%lf %lf %lf", &rb->voxel[0], &rb->voxel[1], &rb->voxel[2]);
    else if (!strcmp(key, "background"))
        sscanf(line, "%lf %lf %lf", &rb->background[0], &rb->background[1], &rb->background[2]);
    else if (!strcmp(key, "end")) rb->ok = 1;
    else if (!strcmp(key, "v")) {
        const int *n3 = rb->vol.n;
        int ijk[3], a, idx;
        double w[3], v[3] = {0, 0, 0};
        if (sscanf(line, "%d %d %d %lf %lf %lf %lf %lf %lf", &ijk[0], &ijk[1], &ijk[2], &w[0], &w[1], &w[2], &v[0],
                   &v[1], &v[2]) < 7)
            return;
        if (ijk[0] < 0 || ijk[0] >= n3[0] || ijk[1] < 0 || ijk[1] >= n3[1] || ijk[2] < 0 || ijk[2] >= n3[2]) {
            rb->outside++;
            return;
        }
        idx = (ijk[2] * n3[1] + ijk[1]) * n3[0] + ijk[0];
        if (rb->active[idx]) rb->dup++;
        rb->active[idx] = 1;
        rb->nactive++;
        for (a = 0; a < 3; a++) {
            double e = fabs(w[a] - centre(&rb->vol, a, ijk[a]));
            if (e > rb->worst_world) rb->worst_world = e;
            rb->value[idx * 3 + a] = (float)v[a];
        }
    }
}

/* Runs the reader on path, a file of volume v; rb->ok says whether it
 * worked. */
static void read_vdb(const char *path, const geom *v, readback *rb)
{
    char script[PATHLEN], errs[PATHLEN], cmd[4 * PATHLEN], line[512];
    size_t nwhy;
    unsigned char *why;
    FILE *p;
    memset(rb, 0, sizeof *rb);
    rb->vol = *v;
    rb->active = calloc((size_t)nvox(v), 1);
    rb->value = calloc((size_t)nvox(v) * 3, sizeof *rb->value);
    if (!rb->active || !rb->value) abort();
    tpath(script, "reader.py");
    tpath(errs, "reader.err");
    put_file(script, reader_py);
    /* Debian's Python, where python3-openvdb installs the module; the
     * timeout is a hang guard only */
    snprintf(cmd, sizeof cmd, "timeout 600 /usr/bin/python3 '%s' '%s' 2>'%s'", script, path, errs);
    p = popen(cmd, "r");
    if (!p) return;
    while (fgets(line, sizeof line, p)) parse_line(rb, line);
    if (pclose(p) != 0) rb->ok = 0;
    why = slurp(errs, &nwhy);
    CHECKF(rb->ok, "pyopenvdb could not read %s: %.400s", path, why ? (char *)why : "");
    free(why);
    unlink(errs);
}

/* Every voxel of the window [x0, x0+w) x [y0, y0+h) x [z0, z0+d) is
 * active exactly when want is above bg (and not NaN), with want's value
 * within tol (relative tol for halves: rel); none outside it is. */
static void check_voxels(const readback *rb, const float *want, int channels, float bg, int x0, int y0, int z0,
                         int w, int h, int d, double tol, int rel)
{
    const int *n3 = rb->vol.n;
    int i, j, k, c, wrong_active = 0, wrong_value = 0, above = 0;
    double worst = 0;
    for (k = 0; k < n3[2]; k++)
        for (j = 0; j < n3[1]; j++)
            for (i = 0; i < n3[0]; i++) {
                int idx = (k * n3[1] + j) * n3[0] + i, inside = i >= x0 && i < x0 + w && j >= y0 && j < y0 + h &&
                                                      k >= z0 && k < z0 + d;
                int nan = 0, up = 0;
                double len2 = 0;
                for (c = 0; c < channels; c++) {
                    float v = want[idx * channels + c];
                    nan |= v != v;
                    len2 += (double)v * v;
                }
                /* a float above the cut-off; a vector longer than it */
                up = channels == 1 ? want[idx] > bg : bg < 0 || len2 > (double)bg * bg;
                up = inside && up && !nan;
                above += up;
                if (rb->active[idx] != up) wrong_active++;
                if (!up || !rb->active[idx]) continue;
                for (c = 0; c < channels; c++) {
                    double e = want[idx * channels + c], got = rb->value[idx * 3 + c];
                    double err = fabs(got - e) / (rel ? fabs(e) + 1e-4 : 1.0);
                    if (err > worst) worst = err;
                    if (err > tol) wrong_value++;
                }
            }
    CHECKF(above > w * h * d / 5 && above < w * h * d * 4 / 5, "%d of %d voxels above %g: not a useful test", above,
           w * h * d, bg);
    CHECK_INT(rb->nactive, above);
    CHECK_INT(wrong_active, 0);
    CHECK_INT(rb->outside, 0);
    CHECK_INT(rb->dup, 0);
    CHECKF(wrong_value == 0, "%d values off by more than %g (worst %g)", wrong_value, tol, worst);
    CHECK_LE(rb->worst_world, 1e-9);
}

/* ---- the grid as written ----------------------------------------------------------- */

/* The default grid: "density", a float fog volume, 32-bit, background 0,
 * the transform placing each voxel at its centre. */
static void test_vdb_reads_back(void)
{
    char path[PATHLEN];
    ng_graph *g = ng_graph_new();
    int root = cloud(g, 1);
    ng_render_opts o;
    ng_error err = {{0}};
    float *want = expected(g, root, 1, &VOL);
    readback rb;
    volume_opts(&o);
    tpath(path, "cloud.vdb");
    CHECKF(render_vdb(path, g, root, &o, 0, NULL, 0, &err) == 0, "%s", err.msg);
    read_vdb(path, &VOL, &rb);
    CHECK_INT(rb.grids, 1);
    CHECK_STR(rb.name, "density");
    CHECK_STR(rb.gclass, "fog_volume");
    CHECK_STR(rb.type, "float");
    CHECK_STR(rb.filecreator, "noisegraph " NG_VERSION);
    CHECK_STR(rb.creator, "noisegraph_" NG_VERSION);
    CHECK_INT(rb.half, 0);
    for (int a = 0; a < 3; a++) CHECK_NEAR(rb.voxel[a], VOL.voxel, 1e-12);
    CHECK_NEAR(rb.background[0], 0, 0);
    check_voxels(&rb, want, 1, 0.0f, 0, 0, 0, W, H, D, 1e-5, 0);
    CHECK_INT(count_entries(tmpdir, ".tmp-"), 0);
    readback_free(&rb);
    free(want);
    ng_graph_free(g);
}

/* A grid name and a cut-off of one's own: exactly the voxels at or below
 * it inactive; the grid's background stays 0, so empty space reads as no
 * density in a DCC. */
static void test_vdb_name_and_background(void)
{
    char path[PATHLEN];
    ng_graph *g = ng_graph_new();
    int root = cloud(g, 1);
    ng_render_opts o;
    ng_error err = {{0}};
    float *want = expected(g, root, 1, &VOL);
    readback rb;
    volume_opts(&o);
    tpath(path, "named.vdb");
    CHECKF(render_vdb(path, g, root, &o, 0, "cloud_base", 0.0625, &err) == 0, "%s", err.msg);
    read_vdb(path, &VOL, &rb);
    CHECK_STR(rb.name, "cloud_base");
    CHECK_NEAR(rb.background[0], 0, 0); /* the cut-off is not the background: empty sky reads 0 */
    check_voxels(&rb, want, 1, 0.0625f, 0, 0, 0, W, H, D, 1e-5, 0);
    readback_free(&rb);
    free(want);
    ng_graph_free(g);
}

/* --bits 16: stored as halves, read back within half precision. */
static void test_vdb_half(void)
{
    char path[PATHLEN];
    ng_graph *g = ng_graph_new();
    int root = cloud(g, 1);
    ng_render_opts o;
    ng_error err = {{0}};
    float *want = expected(g, root, 1, &VOL);
    readback rb;
    volume_opts(&o);
    tpath(path, "half.vdb");
    CHECKF(render_vdb(path, g, root, &o, 16, NULL, 0, &err) == 0, "%s", err.msg);
    read_vdb(path, &VOL, &rb);
    CHECK_INT(rb.half, 1);
    check_voxels(&rb, want, 1, 0.0f, 0, 0, 0, W, H, D, 1e-3, 1);
    readback_free(&rb);
    free(want);
    ng_graph_free(g);
}

/* A window (region and zregion) keeps the full volume's indices and
 * transform: its voxels land where the full render puts them. */
static void test_vdb_window_at_offset(void)
{
    char path[PATHLEN];
    ng_graph *g = ng_graph_new();
    int root = cloud(g, 1);
    ng_render_opts o;
    ng_error err = {{0}};
    float *want = expected(g, root, 1, &VOL);
    readback rb;
    volume_opts(&o);
    o.region[0] = 5, o.region[1] = 3, o.region[2] = 11, o.region[3] = 9;
    o.zregion[0] = 4, o.zregion[1] = 7;
    tpath(path, "window.vdb");
    CHECKF(render_vdb(path, g, root, &o, 0, NULL, 0, &err) == 0, "%s", err.msg);
    read_vdb(path, &VOL, &rb);
    check_voxels(&rb, want, 1, 0.0f, 5, 3, 4, 11, 9, 7, 1e-5, 0);
    readback_free(&rb);
    free(want);
    ng_graph_free(g);
}

/* Three channels: a vector grid, active where a component is above the
 * background. */
static void test_vdb_vector_grid(void)
{
    char path[PATHLEN];
    ng_graph *g = ng_graph_new();
    int root = cloud(g, 3);
    ng_render_opts o;
    ng_error err = {{0}};
    float *want = expected(g, root, 3, &VOL);
    readback rb;
    volume_opts(&o);
    tpath(path, "vec.vdb");
    CHECK_INT(ng_node_channels(ng_graph_node(g, root)), 3);
    /* not 0: some component is above 0 almost everywhere */
    CHECKF(render_vdb(path, g, root, &o, 0, "flow", 0.25, &err) == 0, "%s", err.msg);
    read_vdb(path, &VOL, &rb);
    CHECK_STR(rb.type, "vec3s");
    CHECK_STR(rb.name, "flow");
    for (int a = 0; a < 3; a++) CHECK_NEAR(rb.background[a], 0, 0);
    check_voxels(&rb, want, 3, 0.25f, 0, 0, 0, W, H, D, 1e-5, 0);
    readback_free(&rb);
    free(want);
    ng_graph_free(g);
}

/* A hash, so neighbouring voxels differ. */
static uint32_t hash(uint32_t k)
{
    k *= 0x9E3779B1u;
    k ^= k >> 15;
    k *= 0x85EBCA77u;
    k ^= k >> 13;
    return k;
}

/* Voxels given straight to the sink, in unequal slabs of unequal row
 * bands: NaN stays inactive, a value equal to the background too (at or
 * below), infinities are kept as they are. */
static void test_vdb_nan_and_edges(void)
{
    static const int slices[] = {5, 1, 7}, bands[] = {7, 0, 11}; /* sum D, sum H */
    const float bg = 0.25f;
    char path[PATHLEN];
    ng_volume_info v = {W, H, D, 1, {0, 0, 0}, {W, H, D}, {VOL.origin[0], VOL.origin[1], VOL.origin[2]}, VOL.voxel, {0, 0, 0}};
    float *vox = malloc(NVOX * sizeof *vox), *slab = malloc(NVOX * sizeof *slab);
    ng_error err = {{0}};
    ng_file_sink *f;
    ng_sink s;
    readback rb;
    int z = 0, i, rc = 0, ninf = 0;
    if (!vox || !slab) abort();
    for (i = 0; i < NVOX; i++)
        vox[i] = i % 7 == 0 ? NAN : i % 11 == 0 ? INFINITY : i % 13 == 0 ? bg
               : (float)(hash((uint32_t)i) % 2001u) / 1000.0f - 1.0f;
    tpath(path, "edges.vdb");
    f = ng_file_sink_new(path, 0, &err);
    CHECK(f != NULL);
    if (!f) return;
    CHECK_INT(ng_file_sink_set_grid(f, NULL, bg, &err), 0);
    s = ng_file_sink_as_sink(f);
    rc = s.begin_volume(s.user, &v, &err);
    for (int a = 0; rc == 0 && a < 3; z += slices[a++]) {
        int y = 0;
        for (int b = 0; rc == 0 && b < 3; y += bands[b++]) {
            /* slab layout: slice-major, then rows, then voxels */
            for (int sl = 0; sl < slices[a]; sl++)
                memcpy(slab + (size_t)sl * bands[b] * W, vox + ((size_t)(z + sl) * H + y) * W,
                       (size_t)bands[b] * W * sizeof *slab);
            rc = s.slab(s.user, z, slices[a], y, bands[b], slab, &err);
        }
    }
    CHECKF(rc == 0, "%s", err.msg);
    CHECKF(s.end(s.user, rc == 0, &err) == 0, "%s", err.msg);
    ng_file_sink_free(f);
    read_vdb(path, &VOL, &rb);
    check_voxels(&rb, vox, 1, bg, 0, 0, 0, W, H, D, 0, 0);
    for (i = 0; i < NVOX; i++)
        if (rb.active[i] && isinf(rb.value[i * 3]) && rb.value[i * 3] > 0) ninf++;
    CHECK_INT(ninf, (NVOX - 1) / 11 + 1 - ((NVOX - 1) / 77 + 1)); /* multiples of 11, not of 7 */
    readback_free(&rb);
    free(vox);
    free(slab);
}

/* OpenVDB's own printer takes the file and lists the grid. */
static void test_vdb_print_lists_grid(void)
{
    char path[PATHLEN], cmd[2 * PATHLEN], out[4096] = "";
    ng_graph *g = ng_graph_new();
    int root = cloud(g, 1);
    ng_render_opts o;
    ng_error err = {{0}};
    size_t n;
    FILE *p;
    volume_opts(&o);
    tpath(path, "printed.vdb");
    CHECKF(render_vdb(path, g, root, &o, 0, "smoke", 0, &err) == 0, "%s", err.msg);
    snprintf(cmd, sizeof cmd, "timeout 600 vdb_print -l '%s' 2>&1", path);
    p = popen(cmd, "r");
    CHECK(p != NULL);
    if (p) {
        n = fread(out, 1, sizeof out - 1, p);
        out[n] = '\0';
        CHECK_INT(pclose(p), 0);
    }
    CHECK_CONTAINS(out, "smoke");
    CHECK_CONTAINS(out, "float");
    CHECK_CONTAINS(out, "fog volume");
    ng_graph_free(g);
}

/* ---- what is refused, what fails ------------------------------------------------- */

/* Nothing was written: the target holds `precious`, no temporary is left. */
static void check_kept(const char *path)
{
    size_t n;
    unsigned char *d = slurp(path, &n);
    CHECKF(d && n == sizeof precious - 1 && memcmp(d, precious, n) == 0, "%s was changed", path);
    CHECK_INT(count_entries(tmpdir, ".tmp-"), 0);
    free(d);
}

/* A 2D render to .vdb: refused by the check and by the sink, in one line,
 * creating nothing. */
static void test_vdb_refuses_images(void)
{
    char path[PATHLEN];
    ng_graph *g = ng_graph_new();
    int root = cloud(g, 1);
    ng_render_opts o;
    ng_error err = {{0}};
    tpath(path, "flat.vdb");
    CHECK_INT(ng_file_check_depth(path, 0, 0, &err), -1);
    CHECK_CONTAINS(err.msg, path);
    CHECK_CONTAINS(err.msg, "a VDB file holds a volume");
    CHECK_INT(ng_file_check_depth(path, 0, D, &err), 0);
    CHECK_INT(ng_file_check_depth(path, 16, D, &err), 0);
    CHECK_INT(ng_file_check_depth(path, 8, D, &err), -1);
    CHECK_CONTAINS(err.msg, "VDB bits must be 32 or 16, not 8");

    t_opts(&o, W, H);
    o.dims = 3;
    CHECK_INT(render_vdb(path, g, root, &o, 0, NULL, 0, &err), -1);
    CHECK_CONTAINS(err.msg, path);
    CHECK_CONTAINS(err.msg, "a VDB file holds a volume");
    CHECK(!strchr(err.msg, '\n'));
    CHECK(!exists(path));
    CHECK_INT(count_entries(tmpdir, "flat.vdb"), 0);
    ng_graph_free(g);
}

/* Volumes OpenVDB cannot hold as asked, refused at begin in one line:
 * 2 channels, a background that is no 32-bit float, a voxel size below
 * what its transforms take. The target stays as it was. */
static void test_vdb_refuses_at_begin(void)
{
    static const struct {
        int channels;
        double background, voxel;
        const char *msg;
    } cases[] = {
        {2, 0, 1, "VDB output takes 1 (grey) or 3 (RGB) channels, not 2"},
        {4, 0, 1, "not 4 (no alpha channel)"},
        {1, 1e300, 1, "the background 1e+300 is not a 32-bit float"},
        {1, 0, 1e-6, "a voxel size of 1e-06 is below OpenVDB's smallest"},
    };
    char path[PATHLEN];
    tpath(path, "keep.vdb");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ng_error err = {{0}};
        ng_volume_info v = {4, 4, 4, cases[i].channels, {0, 0, 0}, {4, 4, 4}, {0, 0, 0}, cases[i].voxel, {0, 0, 0}};
        ng_file_sink *f = ng_file_sink_new(path, 0, &err);
        ng_sink s;
        put_file(path, precious);
        CHECK(f != NULL);
        if (!f) continue;
        CHECK_INT(ng_file_sink_set_grid(f, NULL, cases[i].background, &err), 0);
        s = ng_file_sink_as_sink(f);
        CHECK_INT(s.begin_volume(s.user, &v, &err), -1);
        CHECK_CONTAINS(err.msg, path);
        CHECK_CONTAINS(err.msg, cases[i].msg);
        CHECK(!strchr(err.msg, '\n'));
        CHECK_INT(s.end(s.user, 0, &err), 0);
        CHECK_INT(s.end(s.user, 0, &err), 0); /* discard twice */
        ng_file_sink_free(f);
        check_kept(path);
    }
    unlink(path);
}

/* Cancelled before it ends: the grid begun is freed (twice over, end(0)
 * and free), the target untouched, no temporary left. */
static void test_vdb_cancelled_render_leaves_nothing(void)
{
    char path[PATHLEN];
    ng_graph *g = ng_graph_new();
    int root = cloud(g, 1);
    ng_render_opts o;
    ng_error err = {{0}};
    atomic_int cancel;
    atomic_init(&cancel, 1);
    volume_opts(&o);
    o.cancel = &cancel;
    tpath(path, "cancelled.vdb");
    put_file(path, precious);
    CHECK_INT(render_vdb(path, g, root, &o, 0, NULL, 0, &err), -1);
    check_kept(path);
    unlink(path);

    /* a sink that got slabs and then end(0) */
    {
        ng_volume_info v = {4, 4, 2, 1, {0, 0, 0}, {4, 4, 2}, {0, 0, 0}, 1, {0, 0, 0}};
        static const float ones[4 * 4 * 2] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                              1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
        ng_file_sink *f = ng_file_sink_new(path, 0, &err);
        ng_sink s = ng_file_sink_as_sink(f);
        put_file(path, precious);
        CHECK_INT(s.begin_volume(s.user, &v, &err), 0);
        CHECK_INT(s.slab(s.user, 0, 2, 0, 4, ones, &err), 0);
        CHECK_INT(count_entries(tmpdir, ".tmp-"), 1);
        CHECK_INT(s.end(s.user, 0, &err), 0);
        CHECK_INT(s.end(s.user, 0, &err), 0);
        ng_file_sink_free(f);
        check_kept(path);
        unlink(path);
    }
    ng_graph_free(g);
}

/* A full disk while the grid is written (a file size limit far below the
 * file): the sink's one-line error with the errno, nothing left. */
static void test_vdb_write_failure_leaves_nothing(void)
{
    char path[PATHLEN];
    ng_graph *g = ng_graph_new();
    int root = cloud(g, 1);
    ng_render_opts o;
    ng_error err = {{0}};
    struct rlimit old, lim;
    void (*old_handler)(int);
    int rc;
    volume_opts(&o);
    tpath(path, "full.vdb");
    put_file(path, precious);
    if (getrlimit(RLIMIT_FSIZE, &old) != 0) {
        CHECK(!"getrlimit");
        ng_graph_free(g);
        return;
    }
    lim = old;
    lim.rlim_cur = 4096; /* the grid's ~2400 active floats need well over it, compressed or not */
    old_handler = signal(SIGXFSZ, SIG_IGN);
    CHECK_INT(setrlimit(RLIMIT_FSIZE, &lim), 0);
    rc = render_vdb(path, g, root, &o, 0, NULL, 0, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_handler);
    CHECK_INT(rc, -1);
    CHECK_CONTAINS(err.msg, path);
    CHECK_CONTAINS(err.msg, "cannot write");
    CHECK_CONTAINS(err.msg, strerror(EFBIG));
    CHECK(!strchr(err.msg, '\n'));
    check_kept(path);
    unlink(path);
    ng_graph_free(g);
}

/* ---- the program -------------------------------------------------------------------- */

/* The CLI's cloud: the graph of cli_cloud_lua, built through the C API for
 * ng_eval_points. Element size 6 at voxel size 0.5: every octave over two
 * voxels. */
static const char cli_cloud_lua[] =
    "local c = ng.fbm{source = ng.perlin{element_size = 6, seed = 7}, octaves = 3, lacunarity = 2, roughness = 0.5}\n";

static int cli_cloud(ng_graph *g) { return t_fbm(g, t_noise(g, "perlin", 6, 7), 3, 2.0, 0.5); }

/* render -o c.vdb --size 32x32x32 --voxel-size 0.5 --origin 1,2,3: the
 * default grid where the options put it, read back. */
static void test_cli_vdb(void)
{
    static const geom v = {{32, 32, 32}, {1, 2, 3}, 0.5};
    char script[PATHLEN], out[PATHLEN], text[512];
    ng_graph *g = ng_graph_new();
    float *want = expected(g, cli_cloud(g), 1, &v);
    readback rb;
    res r;
    snprintf(text, sizeof text, "%sreturn c\n", cli_cloud_lua);
    mkscript(script, "c.lua", text);
    tpath(out, "c.vdb");
    cli(&r, "render", script, "-o", out, "--size", "32x32x32", "--voxel-size", "0.5", "--origin", "1,2,3", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    read_vdb(out, &v, &rb);
    CHECK_STR(rb.name, "density");
    CHECK_STR(rb.gclass, "fog_volume");
    CHECK_INT(rb.half, 0);
    for (int a = 0; a < 3; a++) CHECK_NEAR(rb.voxel[a], 0.5, 0);
    check_voxels(&rb, want, 1, 0.0f, 0, 0, 0, 32, 32, 32, 1e-5, 0);
    CHECK_INT(count_entries(tmpdir, ".tmp-"), 0);
    readback_free(&rb);
    free(want);
    ng_graph_free(g);
}

/* A named output (its grid takes the name), --vdb-background, --bits 16
 * and a --region window, together. The cut-off is below 0 (active voxels
 * of negative density) and leaves 68 % of the window's voxels above it
 * (-0.0625 left 84 % once 3D perlin's lattice was turned, 0.2.0). */
static void test_cli_vdb_options(void)
{
    static const geom v = {{24, 20, 16}, {-2, 0.5, 7}, 0.5};
    char script[PATHLEN], out[PATHLEN], named[PATHLEN], text[512];
    ng_graph *g = ng_graph_new();
    float *want = expected(g, cli_cloud(g), 1, &v);
    readback rb;
    res r;
    snprintf(text, sizeof text, "%sreturn {cloud = c}\n", cli_cloud_lua);
    mkscript(script, "named.lua", text);
    tpath(out, "n.vdb");
    tpath(named, "n-cloud.vdb");
    cli(&r, "render", script, "-o", out, "--size", "24x20x16", "--voxel-size", "0.5", "--origin", "-2,0.5,7",
        "--vdb-background", "-0.015625", "--bits", "16", "--region", "3,2,5,15,12,9", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    read_vdb(named, &v, &rb);
    CHECK_STR(rb.name, "cloud");
    CHECK_INT(rb.half, 1);
    CHECK_NEAR(rb.background[0], 0, 0);
    check_voxels(&rb, want, 1, -0.015625f, 3, 2, 5, 15, 12, 9, 1e-3, 1);
    readback_free(&rb);
    free(want);
    ng_graph_free(g);
}

/* What OpenVDB cannot hold fails in one line (exit 1), leaving no file. */
static void test_cli_vdb_refused(void)
{
    char script[PATHLEN], out[PATHLEN], text[512];
    res r;
    snprintf(text, sizeof text, "%sreturn c\n", cli_cloud_lua);
    mkscript(script, "tiny.lua", text);
    tpath(out, "tiny.vdb");
    cli(&r, "render", script, "-o", out, "--size", "8x8x8", "--voxel-size", "1e-6", NULL);
    EXPECT_ERR(&r, 1, out, "voxel size of 1e-06 is below OpenVDB's smallest");
    res_free(&r);
    CHECK(!exists(out));
    CHECK_INT(count_entries(tmpdir, "tiny.vdb"), 0);
}

/* The tree of active voxels counts against --memory-limit: a volume whose
 * tree outgrows it stops with one line and leaves no file; the same
 * render with room writes it. */
static void test_cli_vdb_tree_within_memory_limit(void)
{
    char script[PATHLEN], out[PATHLEN];
    res r;
    /* every voxel active: 96^3 voxels need about 3.6 MiB of leaves */
    mkscript(script, "dense.lua", "return ng.constant(0.5)\n");
    tpath(out, "dense.vdb");
    cli(&r, "render", script, "-o", out, "--size", "96x96x96", "--memory-limit", "3", NULL);
    EXPECT_ERR(&r, 1, out, "VDB tree", "--memory-limit");
    res_free(&r);
    CHECK(!exists(out));
    CHECK_INT(count_entries(tmpdir, "dense.vdb"), 0);
    cli(&r, "render", script, "-o", out, "--size", "96x96x96", "--memory-limit", "16", NULL);
    CHECK_INT(r.code, 0);
    res_free(&r);
    CHECK(exists(out));
    /* inactive voxels cost nothing: the same volume below the background fits */
    unlink(out);
    cli(&r, "render", script, "-o", out, "--size", "96x96x96", "--memory-limit", "3", "--vdb-background", "0.5",
        NULL);
    CHECK_INT(r.code, 0);
    res_free(&r);
    CHECK(exists(out));
}

/* A density half full everywhere (perlin > 0): a .vdb of 32^3 voxels of
 * it compresses to far more than 4 KiB. */
static const char half_full[] = "return ng.perlin{element_size = 8, seed = 1}\n";

/* Runs NG_BIN with args, its stderr into errfile, under a file size limit
 * of fsize bytes and SIGXFSZ at its default action, as in a shell after
 * `ulimit -f` (the runner's own disposition is not inherited). Returns
 * the exit code, or -signal. */
static int run_with_fsize(const char *const *args, const char *errfile, long fsize)
{
    const char *argv[32];
    pid_t pid;
    int i, st;
    argv[0] = ng_bin;
    for (i = 0; args[i] && i < 30; i++) argv[i + 1] = args[i];
    argv[i + 1] = NULL;
    fflush(stdout);
    fflush(stderr);
    if ((pid = fork()) < 0) return -1000;
    if (pid == 0) {
        struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
        int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644), out = open("/dev/null", O_WRONLY);
        if (fd < 0 || out < 0 || dup2(out, 1) < 0 || dup2(fd, 2) < 0) _exit(126);
        signal(SIGXFSZ, SIG_DFL);
        setrlimit(RLIMIT_FSIZE, &rl);
        alarm(DEFAULT_TIMEOUT);
        execv(ng_bin, (char *const *)argv);
        _exit(127);
    }
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1000;
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? -WTERMSIG(st) : -1000;
}

/* `ulimit -f` smaller than a compressed output (.vdb, whose size is not
 * known before it is written): the write fails with EFBIG and the user gets
 * the one-line error, exit 1, the old file kept and no temporary left. The
 * reviewed program died of SIGXFSZ (exit 153 in a shell), said nothing and
 * left .out.vdb.tmp-XXXXXX behind. */
static void test_file_size_limit_vdb_is_an_error_not_a_signal(void)
{
    char dir[PATHLEN], s[PATHLEN], out[PATHLEN], errs[PATHLEN];
    unsigned char *said;
    size_t n;
    int code;
    mksub(dir, "fsize");
    mkscript(s, "half.lua", half_full);
    pathf(out, "%s/out.vdb", dir);
    tpath(errs, "fsize.err");
    put_file(out, "old\n");
    code = run_with_fsize((const char *const[]){"render", s, "-o", out, "--size", "32x32x32", "--quiet", NULL}, errs,
                          4096);
    said = slurp(errs, &n);
    CHECKF(code == 1, "exit %d (a negative one is the signal that killed it); stderr: %s", code,
           said ? (char *)said : "");
    CHECK(said && count_lines((char *)said) == 1);
    if (said) {
        CHECK_CONTAINS((char *)said, "noisegraph: ");
        CHECK_CONTAINS((char *)said, strerror(EFBIG));
    }
    free(said);
    said = slurp(out, &n);
    CHECK(said && !strcmp((char *)said, "old\n"));
    free(said);
    CHECK_INT(count_entries(dir, ".tmp"), 0);
}

NG_SUITE(vdb, full)
{
    int have_cli = cli_setup("ng-vdb") == 0;
    if (!have_cli) { /* suite_cli reports the missing program; the sink tests still run */
        pathf(tmpdir, "/tmp/ng-vdb-XXXXXX");
        if (!mkdtemp(tmpdir)) {
            perror("suite_vdb: mkdtemp");
            return;
        }
    }
    RUN(test_vdb_reads_back);
    RUN(test_vdb_name_and_background);
    RUN(test_vdb_half);
    RUN(test_vdb_window_at_offset);
    RUN(test_vdb_vector_grid);
    RUN(test_vdb_nan_and_edges);
    RUN(test_vdb_print_lists_grid);
    RUN(test_vdb_refuses_images);
    RUN(test_vdb_refuses_at_begin);
    RUN(test_vdb_cancelled_render_leaves_nothing);
    RUN(test_vdb_write_failure_leaves_nothing);
    if (have_cli) {
        RUN(test_cli_vdb);
        RUN(test_cli_vdb_options);
        RUN(test_cli_vdb_refused);
        RUN(test_cli_vdb_tree_within_memory_limit);
        RUN(test_file_size_limit_vdb_is_an_error_not_a_signal);
    }
    cli_teardown();
}
