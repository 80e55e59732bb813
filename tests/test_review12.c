/*
 * test_review12.c — regressions found by the hostile review of issue 12
 * (volumes, .vdb, .nrrd, {z} sequences, previews). Each test fails on the
 * code that was reviewed (main at 10c7a0f) and states what a user relies on.
 */
#include "cli_support.h"
#include "suites.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* A slice that cannot be replaced (its name is a folder) fails the render;
 * the slices before it in the sequence must not have been replaced by the
 * failed render (README: "moved into place only when the whole volume
 * succeeded"). The reviewed program had renamed c_0 .. c_2 over the old
 * ones before it met c_3, leaving a sequence half new, half old. */
static void test_failed_sequence_replaces_no_slice(void)
{
    char dir[PATHLEN], s[PATHLEN], pat[PATHLEN], p[PATHLEN];
    unsigned char *got;
    size_t n;
    res r;
    int k;
    mksub(dir, "seq");
    mkscript(s, "half.lua", half_full);
    for (k = 0; k < 5; k++) {
        pathf(p, "%s/c_%d.pfm", dir, k);
        if (k == 3) CHECK_INT(mkdir(p, 0755), 0);
        else put_file(p, "old\n");
    }
    pathf(pat, "%s/c_{z}.pfm", dir);
    cli(&r, "render", s, "-o", pat, "--size", "8x8x5", NULL);
    EXPECT_ERR(&r, 1, "c_3.pfm");
    res_free(&r);
    for (k = 0; k < 5; k++) {
        if (k == 3) continue;
        pathf(p, "%s/c_%d.pfm", dir, k);
        got = slurp(p, &n);
        CHECKF(got && !strcmp((char *)got, "old\n"), "slice %d was replaced by a render that failed", k);
        free(got);
    }
}

/* A dense layer two voxels thick across the whole box, seen from the top,
 * is a white sheet in the preview wherever it lies. The reviewed march
 * crossed "empty" space four voxels at a time looking only at each span's
 * far end, so at some heights (bottom 10 or 13.5 of a 32-voxel box) the
 * layer fell between two looks and the picture was bare sky. */
static void test_preview_sees_a_thin_dense_layer(void)
{
    static const double bottoms[] = {10.0, 11.0, 13.5};
    size_t i;
    for (i = 0; i < sizeof bottoms / sizeof bottoms[0]; i++) {
        char s[PATHLEN], out[PATHLEN], text[512];
        unsigned char *px;
        int w = 0, h = 0;
        res r;
        snprintf(text, sizeof text,
                 "return ng.height_profile{bottom = %g, top = %g, shape = \"custom\",\n"
                 "                         curve = {{0, 0}, {0.01, 1}, {0.99, 1}, {1, 0}}} * 5\n",
                 bottoms[i], bottoms[i] + 2);
        mkscript(s, "layer.lua", text);
        tpath(out, "layer.png");
        cli(&r, "preview", s, "-o", out, "--size", "16x16", "--volume", "32x32x32", "--view-preset", "top",
            NULL);
        EXPECT_OK(&r);
        res_free(&r);
        px = decode(out, PNG_FORMAT_RGB, &w, &h);
        CHECK(px && w == 16 && h == 16);
        if (px && w == 16 && h == 16) {
            /* the corner is sky beside the box; the centre looks straight down into the layer */
            const unsigned char *sky = px, *mid = px + (8 * 16 + 8) * 3;
            CHECKF(memcmp(sky, mid, 3) != 0, "layer at z %g..%g: the centre is sky (%d,%d,%d)", bottoms[i],
                   bottoms[i] + 2, mid[0], mid[1], mid[2]);
        }
        free(px);
    }
}

/* `noisegraph --help` is how a user finds the subcommands; preview is one. */
static void test_help_lists_preview(void)
{
    res r;
    cli(&r, "--help", NULL);
    CHECK_INT(r.code, 0);
    CHECK_CONTAINS(r.out, "noisegraph preview");
    res_free(&r);
}

/* --vdb-background on a preview (a PNG) does nothing: refused, as render
 * refuses it for any output that is not a .vdb, never silently dropped. */
static void test_preview_refuses_vdb_background(void)
{
    char s[PATHLEN], out[PATHLEN];
    res r;
    mkscript(s, "half.lua", half_full);
    tpath(out, "bg.png");
    cli(&r, "preview", s, "-o", out, "--size", "8x8", "--volume", "8x8x8", "--vdb-background", "0.5", NULL);
    EXPECT_ERR(&r, 2, "--vdb-background");
    res_free(&r);
    CHECK(!exists(out));
}

void suite_review12(void)
{
    if (cli_setup("ng-review12") != 0) return; /* suite_cli reports the missing program */
    RUN(test_file_size_limit_vdb_is_an_error_not_a_signal);
    RUN(test_failed_sequence_replaces_no_slice);
    RUN(test_preview_sees_a_thin_dense_layer);
    RUN(test_help_lists_preview);
    RUN(test_preview_refuses_vdb_background);
    cli_teardown();
}
