/*
 * test_vdb_grids.c — a render's named outputs as the grids of one .vdb per
 * frame (density, temperature, vel, flame: what Houdini Pyro, Karma and
 * Blender read), read back by real clients, not by us: Debian's pyopenvdb
 * (every voxel's value against its world position), vdb_print, and a
 * headless Blender import where Blender is installed. Also box voxels
 * (--voxel-size X,Y,Z), the y-up axis (--vdb-up y), the provenance in the
 * file and grid metadata (read by pyopenvdb and by `noisegraph info`),
 * and what is refused: one line, nothing written.
 *
 * The script's outputs are the coordinates themselves (ng.x(), ...), so a
 * voxel's value says where the render sampled it: a client that finds
 * each value at the world position its transform gives proves placement,
 * axes and voxel sizes at once.
 */
#include "cli_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every coordinate is positive (--origin 1,1,1), so every voxel is
 * above the background 0 and active. */
static const char coords_lua[] =
    "local x, y, z = ng.x(), ng.y(), ng.z()\n"
    "local k = ng.param('k', 1, {min = 0, max = 4})\n"
    "return {density = x, temperature = y, vel = ng.vector{x = x, y = y, z = z}, flame = z * k}\n";

enum { W = 12, H = 10, D = 6 };

/* For each grid: its name, type, class, vector type, active voxels, voxel
 * size, and the worst difference between a voxel's value and the world
 * coordinate it must hold (noisegraph's axes: VDB's (x, z, -y) is
 * noisegraph's (x, y, z) when y is up). Then the provenance the file's
 * metadata holds. argv: file, up axis, flame's factor k. */
static const char check_py[] =
    "import sys\n"
    "import pyopenvdb as vdb\n"
    "path, up, k = sys.argv[1], sys.argv[2], float(sys.argv[3])\n"
    "grids, meta = vdb.readAll(path)\n"
    "print('grids', ' '.join(g.name for g in grids))\n"
    "for g in grids:\n"
    "    worst, n = 0.0, 0\n"
    "    for it in g.citerOnValues():\n"
    "        lo, hi = it.min, it.max\n"
    "        for kk in range(lo[2], hi[2] + 1):\n"
    "            for j in range(lo[1], hi[1] + 1):\n"
    "                for i in range(lo[0], hi[0] + 1):\n"
    "                    w = g.transform.indexToWorld((i, j, kk))\n"
    "                    p = w if up == 'z' else (w[0], -w[2], w[1])\n"
    "                    want = {'density': (p[0],), 'temperature': (p[1],), 'flame': (p[2] * k,),\n"
    "                            'vel': w}[g.name]\n"
    "                    v = it.value if isinstance(it.value, tuple) else (it.value,)\n"
    "                    worst = max([worst] + [abs(a - b) for a, b in zip(v, want)])\n"
    "                    n += 1\n"
    "    print('grid', g.name, g.valueTypeName, g.gridClass.replace(' ', '_'), g.vectorType.replace(' ', '_'),\n"
    "          n, *g.transform.voxelSize(), worst, g.metadata.get('noisegraph_script_sha256', '-'))\n"
    "for key in sorted(meta):\n"
    "    if key.startswith('noisegraph_'):\n"
    "        print('meta', key, meta[key])\n";

/* Runs check_py on path; its output (malloc'd) or NULL after a failed check. */
static char *pycheck(const char *path, const char *up, const char *k)
{
    char py[PATHLEN], cmd[3 * PATHLEN], *out = NULL;
    int rc;
    tpath(py, "check.py");
    put_file(py, check_py);
    snprintf(cmd, sizeof cmd, "timeout 600 /usr/bin/python3 '%s' '%s' %s %s 2>&1", py, path, up, k);
    rc = shell(cmd, &out);
    CHECKF(rc == 0, "pyopenvdb could not read %s: %.600s", path, out ? out : "");
    if (rc) {
        free(out);
        return NULL;
    }
    return out;
}

/* The line of grid `name` in pycheck's output, parsed. 1 when found. */
typedef struct gridline {
    char type[32], gclass[32], vtype[64], sha[80];
    long n;
    double voxel[3], worst;
} gridline;

static int grid_of(const char *out, const char *name, gridline *g)
{
    char key[64];
    const char *at;
    snprintf(key, sizeof key, "grid %s ", name);
    if (!out || !(at = strstr(out, key))) return 0;
    return sscanf(at + strlen(key), "%31s %31s %63s %ld %lf %lf %lf %lf %79s", g->type, g->gclass, g->vtype, &g->n,
                  &g->voxel[0], &g->voxel[1], &g->voxel[2], &g->worst, g->sha) == 9;
}

/* The script's SHA-256 as sha256sum (coreutils) says it. */
static void script_sha(const char *script, char sha[65])
{
    char cmd[PATHLEN + 64], *out = NULL;
    snprintf(cmd, sizeof cmd, "sha256sum '%s'", script);
    sha[0] = '\0';
    if (shell(cmd, &out) == 0 && out) snprintf(sha, 65, "%.64s", out);
    free(out);
}

/* Four named outputs, one file: four grids of the right types and
 * classes, every voxel at the world position of its value, box voxels of
 * the sizes given, z up as rendered. */
static void test_grids_in_one_file(void)
{
    char s[PATHLEN], out[PATHLEN], sha[65], *py;
    gridline g;
    res r;
    static const char *const scalar[] = {"density", "temperature", "flame"};
    size_t i;
    mkscript(s, "coords.lua", coords_lua);
    tpath(out, "fire.vdb");
    cli(&r, "render", s, "-o", out, "--size", "12x10x6", "--origin", "1,1,1", "--voxel-size", "2,1.5,0.5", "--set",
        "k=3", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    /* one file, not one per output */
    CHECK(exists(out));
    CHECK_INT(count_entries(tmpdir, "fire"), 1);
    py = pycheck(out, "z", "3");
    script_sha(s, sha);
    for (i = 0; i < sizeof scalar / sizeof scalar[0]; i++) {
        CHECKF(grid_of(py, scalar[i], &g), "no grid %s in: %.600s", scalar[i], py ? py : "");
        CHECK_STR(g.type, "float");
        CHECK_STR(g.gclass, "fog_volume");
        CHECK_INT(g.n, W * H * D);
        CHECK_NEAR(g.voxel[0], 2, 0);
        CHECK_NEAR(g.voxel[1], 1.5, 0);
        CHECK_NEAR(g.voxel[2], 0.5, 0);
        CHECK_LE(g.worst, 1e-5);
        CHECK_STR(g.sha, sha); /* the provenance is each grid's too */
    }
    CHECKF(grid_of(py, "vel", &g), "no grid vel in: %.600s", py ? py : "");
    CHECK_STR(g.type, "vec3s");
    CHECK_STR(g.gclass, "unknown");
    CHECK_STR(g.vtype, "contravariant_relative");
    CHECK_INT(g.n, W * H * D);
    CHECK_LE(g.worst, 1e-5);
    if (py) {
        char want[PATHLEN + 64];
        CHECK_CONTAINS(py, "meta noisegraph_set k=3\n");
        snprintf(want, sizeof want, "meta noisegraph_script_sha256 %s\n", sha);
        CHECK_CONTAINS(py, want);
        CHECK_CONTAINS(py, "meta noisegraph_command noisegraph render ");
        CHECK_CONTAINS(py, "--voxel-size 2,1.5,0.5 --set k=3\n");
        CHECK_CONTAINS(py, "meta noisegraph_version ");
    }
    free(py);
}

/* --vdb-up y: the same volume turned upright for Houdini's axes; every
 * value is still at its world position (read through the turn), and the
 * vectors turned with it (vel equals VDB's own world position). */
static void test_y_up(void)
{
    char s[PATHLEN], out[PATHLEN], *py;
    gridline g;
    res r;
    mkscript(s, "coords.lua", coords_lua);
    tpath(out, "up.vdb");
    cli(&r, "render", s, "-o", out, "--size", "12x10x6", "--origin", "1,1,1", "--voxel-size", "2,1.5,0.5",
        "--vdb-up", "y", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    py = pycheck(out, "y", "1");
    CHECKF(grid_of(py, "density", &g), "no density in: %.600s", py ? py : "");
    CHECK_INT(g.n, W * H * D);
    CHECK_LE(g.worst, 1e-5);
    /* noisegraph's z (0.5) is VDB's y; its y (1.5) VDB's z */
    CHECK_NEAR(g.voxel[0], 2, 0);
    CHECK_NEAR(g.voxel[1], 0.5, 0);
    CHECK_NEAR(g.voxel[2], 1.5, 0);
    CHECKF(grid_of(py, "vel", &g), "no vel in: %.600s", py ? py : "");
    CHECK_INT(g.n, W * H * D);
    CHECK_LE(g.worst, 1e-5);
    CHECK_STR(g.vtype, "contravariant_relative");
    free(py);
}

/* vdb_print, OpenVDB's own printer, lists the four grids of one file. */
static void test_vdb_print_lists_every_grid(void)
{
    char s[PATHLEN], out[PATHLEN], cmd[2 * PATHLEN], *said = NULL;
    res r;
    mkscript(s, "coords.lua", coords_lua);
    tpath(out, "printed.vdb");
    cli(&r, "render", s, "-o", out, "--size", "8x8x8", "--origin", "1,1,1", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    snprintf(cmd, sizeof cmd, "timeout 600 vdb_print '%s' 2>&1", out);
    CHECK_INT(shell(cmd, &said), 0);
    if (said) {
        CHECK_CONTAINS(said, "density");
        CHECK_CONTAINS(said, "temperature");
        CHECK_CONTAINS(said, "flame");
        CHECK_CONTAINS(said, "vel");
        CHECK_CONTAINS(said, "vec3s");
    }
    free(said);
}

/* `noisegraph info FILE` prints the provenance back; {name} in -o still
 * writes one file per output (the way before one file held them all). */
static void test_info_and_name_pattern(void)
{
    char s[PATHLEN], out[PATHLEN], pat[PATHLEN], one[PATHLEN], sha[65], want[128];
    res r;
    mkscript(s, "coords.lua", coords_lua);
    tpath(out, "info.vdb");
    cli(&r, "render", s, "-o", out, "--size", "8x8x8", "--origin", "1,1,1", "--set", "k=2", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    script_sha(s, sha);
    cli(&r, "info", out, NULL);
    CHECK_INT(r.code, 0);
    snprintf(want, sizeof want, "noisegraph_script_sha256: %s\n", sha);
    CHECK_CONTAINS(r.out, want);
    CHECK_CONTAINS(r.out, "noisegraph_set: k=2\n");
    CHECK_CONTAINS(r.out, "vel: value_type: vec3s\n");
    CHECK_CONTAINS(r.out, "density: class: fog volume\n");
    res_free(&r);

    tpath(pat, "per_{name}.vdb");
    cli(&r, "render", s, "-o", pat, "--size", "8x8x8", "--origin", "1,1,1", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    CHECK_INT(count_entries(tmpdir, "per_"), 4);
    tpath(one, "per_vel.vdb");
    CHECK(exists(one));
}

/* Blender (where Debian's blender is installed) imports the multi-grid
 * file headless and finds the four grids, vel a 3-channel vector. */
static const char blender_py[] =
    "import bpy, sys\n"
    "path = sys.argv[sys.argv.index('--') + 1]\n"
    "bpy.ops.object.volume_import(filepath=path)\n"
    "vol = bpy.context.active_object.data\n"
    "vol.grids.load()\n"
    "print('loaded', vol.grids.is_loaded)\n"
    "for g in vol.grids:\n"
    "    print('bgrid', g.name, g.data_type, g.channels)\n";

static void test_blender_imports_grids(void)
{
    char s[PATHLEN], out[PATHLEN], py[PATHLEN], cmd[4 * PATHLEN], *said = NULL;
    res r;
    if (access("/usr/bin/blender", X_OK) != 0) {
        printf("  (blender is not installed: its import is not checked)\n");
        return;
    }
    mkscript(s, "coords.lua", coords_lua);
    tpath(out, "blender.vdb");
    cli(&r, "render", s, "-o", out, "--size", "8x8x8", "--origin", "1,1,1", "--vdb-up", "y", NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    tpath(py, "import.py");
    put_file(py, blender_py);
    snprintf(cmd, sizeof cmd,
             "HOME='%s' timeout 600 /usr/bin/blender -b --factory-startup -noaudio --python '%s' -- '%s' 2>&1",
             tmpdir, py, out);
    CHECK_INT(shell(cmd, &said), 0);
    if (said) {
        CHECKF(strstr(said, "loaded True"), "blender: %.800s", said);
        CHECK_CONTAINS(said, "bgrid density FLOAT 1");
        CHECK_CONTAINS(said, "bgrid temperature FLOAT 1");
        CHECK_CONTAINS(said, "bgrid flame FLOAT 1");
        CHECK_CONTAINS(said, "bgrid vel VECTOR_FLOAT 3");
    }
    free(said);
}

/* Bad input: one line, exit 2 (usage) or 1, and nothing written. */
static void test_refused(void)
{
    char s[PATHLEN], s2[PATHLEN], out[PATHLEN], png[PATHLEN];
    res r;
    mkscript(s, "coords.lua", coords_lua);
    /* a 2-channel output cannot be a grid: the other grids are not
     * written either */
    mkscript(s2, "two.lua", "return {density = ng.x(), flow = ng.vector{x = ng.x(), y = ng.y()}}\n");
    tpath(out, "bad.vdb");
    tpath(png, "bad.png");
    cli(&r, "render", s, "-o", out, "--size", "8x8x8", "--voxel-size", "0", NULL);
    EXPECT_ERR(&r, 2, "--voxel-size");
    res_free(&r);
    cli(&r, "render", s, "-o", out, "--size", "8x8x8", "--voxel-size", "1,0,1", NULL);
    EXPECT_ERR(&r, 2, "--voxel-size");
    res_free(&r);
    cli(&r, "render", s, "-o", out, "--size", "8x8x8", "--voxel-size", "1,2", NULL);
    EXPECT_ERR(&r, 2, "--voxel-size");
    res_free(&r);
    cli(&r, "render", s, "-o", png, "--size", "8x8", "--voxel-size", "1,1,2", NULL);
    EXPECT_ERR(&r, 2, "--voxel-size", "volumes");
    res_free(&r);
    cli(&r, "render", s, "-o", out, "--size", "8x8x8", "--vdb-up", "x", NULL);
    EXPECT_ERR(&r, 2, "--vdb-up", "not y or z");
    res_free(&r);
    cli(&r, "render", s, "-o", png, "--size", "8x8", "--vdb-up", "y", NULL);
    EXPECT_ERR(&r, 2, "--vdb-up", ".vdb");
    res_free(&r);
    cli(&r, "render", s2, "-o", out, "--size", "8x8x8", "--origin", "1,1,1", NULL);
    EXPECT_ERR(&r, 1, "bad.vdb", "2");
    res_free(&r);
    CHECK(!exists(out));
    CHECK(!exists(png));
    CHECK_INT(count_entries(tmpdir, ".tmp"), 0);
}

NG_SUITE(vdb_grids, full)
{
    if (cli_setup("ng-vdbgrids")) return;
    RUN(test_grids_in_one_file);
    RUN(test_y_up);
    RUN(test_vdb_print_lists_every_grid);
    RUN(test_info_and_name_pattern);
    RUN(test_blender_imports_grids);
    RUN(test_refused);
    cli_teardown();
}
