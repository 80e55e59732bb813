/*
 * test_farm.c — the tiles plan run by real distribution engines: GNU
 * parallel (two local jobs) and a Slurm job array on a one-node cluster
 * the test starts (tests/farm/cluster.sh: its own munged, slurmctld and
 * slurmd, all in the suite's scratch folder). Each checks that the
 * stitched tiles are the single render's bytes. The Slurm test runs as
 * root only (the daemons need it); elsewhere it says why it did not run.
 */
#include "cli_support.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char script[PATHLEN];

/* The plan of a 300x200 16-bit PNG job in 128-pixel tiles (6 lines) into
 * DIR/plan, its tiles going to DIR/tiles/. */
static void write_plan(const char *dir)
{
    char pattern[PATHLEN], plan[PATHLEN];
    res r;
    pathf(pattern, "%s/tiles/t_{x}_{y}.png", dir);
    pathf(plan, "%s/plan", dir);
    cli(&r, "tiles", script, "--size", "300x200", "--tile-size", "128", "--bits", "16", "-o", pattern, "--plan", NULL);
    EXPECT_SILENT(&r);
    CHECK_INT(count_lines(r.out), 6);
    put_file(plan, r.out);
    res_free(&r);
}

/* The tiles in DIR/tiles stitched are the single render's bytes. */
static void expect_mosaic(const char *dir)
{
    char manifest[PATHLEN], big[PATHLEN], single[PATHLEN];
    res r;
    pathf(manifest, "%s/tiles/manifest.json", dir);
    pathf(big, "%s/big.png", dir);
    pathf(single, "%s/single.png", dir);
    CHECKF(exists(manifest), "%s: the last tile's job wrote no manifest", manifest);
    cli(&r, "stitch", manifest, "-o", big, NULL);
    EXPECT_SILENT(&r);
    res_free(&r);
    cli(&r, "render", script, "--no-provenance", "--size", "300x200", "--bits", "16", "-o", single, NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(big, single));
}

static void test_gnu_parallel(void)
{
    char dir[PATHLEN], cmd[PATHLEN * 3], *out = NULL;
    pathf(dir, "%s/parallel", tmpdir);
    mksub(dir, "parallel");
    write_plan(dir);
    /* from another folder, as a farm node would; the hang guard is generous */
    snprintf(cmd, sizeof cmd, "cd / && timeout 300 parallel --will-cite --halt now,fail=1 -j2 < '%s/plan' 2>&1", dir);
    CHECKF(shell(cmd, &out) == 0, "%s: %s", cmd, out);
    free(out);
    expect_mosaic(dir);
}

/* The ```sh block that follows "`terrain.sbatch`" in docs/farm.md
 * (malloc'd), or NULL. */
static char *docs_sbatch(void)
{
    char path[PATHLEN], *text, *at, *end, *block = NULL;
    FILE *f;
    long n;
    pathf(path, "%s/docs/farm.md", ng_root);
    if (!(f = fopen(path, "rb"))) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    text = n > 0 ? calloc(1, (size_t)n + 1) : NULL;
    if (text && fread(text, 1, (size_t)n, f) == (size_t)n && (at = strstr(text, "`terrain.sbatch`")) &&
        (at = strstr(at, "```sh\n")) && (end = strstr(at + 6, "```")) && (block = malloc((size_t)(end - at))))
        snprintf(block, (size_t)(end - at - 5), "%s", at + 6);
    fclose(f);
    free(text);
    return block;
}

static void test_slurm_array(void)
{
    char dir[PATHLEN], cluster[PATHLEN], job[PATHLEN], cmd[PATHLEN * 4], text[PATHLEN * 2], *out = NULL;
    int up;
    if (geteuid() != 0) {
        printf("farm: test_slurm_array did not run: not root (the local cluster's munged, slurmctld and slurmd "
               "run as root)\n");
        return;
    }
    pathf(dir, "%s/slurm", tmpdir);
    mksub(dir, "slurm");
    write_plan(dir);
    pathf(cluster, "%s/cluster", dir);
    snprintf(cmd, sizeof cmd, "timeout 60 sh '%s/tests/farm/cluster.sh' start '%s' 2>&1", ng_root, cluster);
    up = shell(cmd, &out) == 0;
    CHECKF(up, "the local Slurm cluster did not start: %s", out);
    free(out);
    if (up) {
        /* docs/farm.md's terrain.sbatch, verbatim: run from dir, it reads
         * out.plan and logs into logs/ */
        char *sbatch = docs_sbatch();
        CHECKF(sbatch != NULL, "docs/farm.md: no ```sh block after `terrain.sbatch`");
        pathf(job, "%s/terrain.sbatch", dir);
        if (sbatch) put_file(job, sbatch);
        free(sbatch);
        pathf(text, "%s/plan", dir);
        pathf(cmd, "%s/out.plan", dir);
        CHECK_INT(rename(text, cmd), 0);
        pathf(text, "%s/logs", dir);
        mksub(text, "slurm/logs");
        snprintf(cmd, sizeof cmd,
                 "cd '%s' && SLURM_CONF='%s/slurm.conf' timeout 300 sbatch --quiet --wait --array=0-5 terrain.sbatch 2>&1",
                 dir, cluster);
        CHECKF(shell(cmd, &out) == 0, "%s: %s", cmd, out);
        free(out);
        pathf(text, "%s/logs", dir);
        CHECKF(count_entries(text, "terrain-") == 6, "%s: not one log per tile", text);
        snprintf(cmd, sizeof cmd, "sh '%s/tests/farm/cluster.sh' stop '%s'", ng_root, cluster);
        CHECK_INT(shell(cmd, NULL), 0);
        expect_mosaic(dir);
    }
}

NG_SUITE(farm, full)
{
    if (cli_setup("ng-farm")) {
        ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must name the program and the repository");
        return;
    }
    mkscript(script, "field.lua",
             "return ng.fbm{source = ng.perlin{element_size = 40, seed = 5}, octaves = 3}:fit(-0.7, 0.7, 0, 1, true)\n");
    RUN(test_gnu_parallel);
    /* the optimised run submits docs/farm.md's script to Slurm; the
     * sanitizer run's worker code is test_gnu_parallel's (48 s of Slurm's
     * start and scheduling spared) */
    if (!SANITIZED) RUN(test_slurm_array);
    cli_teardown();
}
