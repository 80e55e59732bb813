/*
 * test_hostile_cli.c — careless and hostile command lines (issue 10, classes
 * 6 to 9): values that used to be cut, rounded or half-read; sizes whose
 * tile count overflowed; files left behind by signals and kills, replaced
 * by a render that failed later, or clobbered when the output is the
 * script; NaN and infinities written silently; renders without an end.
 *
 * Runs the program (NG_BIN) as a user would. Renders that must be
 * interrupted run in a child of our own (spawn) so the test can wait for
 * the temporary file to appear, then signal or kill it; every child has an
 * alarm, so a hang ends as a failure instead of stalling the suite.
 */
#include "build.h"
#include "cli_support.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

/* Six nested 32-octave fBm: one tile takes seconds, a 256x256 image far
 * longer than any test waits. */
static const char slow_script[] = "local n = ng.perlin{}\n"
                                  "for i = 1, 6 do n = ng.fbm{source = n, octaves = 32, antialias = false} end\n"
                                  "return n\n";

/* ---- children of our own --------------------------------------------------------- */

/* Starts NG_BIN with args; stdout and stderr go to errfile (or /dev/null).
 * fsize > 0: the child may write files of at most that many bytes (writes
 * past it fail with EFBIG instead of killing it). */
static pid_t spawn(const char *const *args, const char *errfile, long fsize)
{
    const char *argv[64];
    pid_t pid;
    int i;
    argv[0] = ng_bin;
    for (i = 0; args[i] && i < 62; i++) argv[i + 1] = args[i];
    argv[i + 1] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        int fd = open(errfile ? errfile : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int out = open("/dev/null", O_WRONLY);
        sigset_t none;
        if (fd < 0 || out < 0 || dup2(out, 1) < 0 || dup2(fd, 2) < 0) _exit(126);
        if (fd > 2) close(fd);
        if (out > 2) close(out);
        /* a test runner started in the background may ignore SIGINT */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (fsize > 0) {
            struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
            signal(SIGXFSZ, SIG_IGN);
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        alarm(DEFAULT_TIMEOUT * 2);
        execv(ng_bin, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Waits for the child; its exit code, or -signal. */
static int reap(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1000;
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? -WTERMSIG(st) : -1000;
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) < 0 && errno == EINTR) {
    }
}

/* Waits (at most DEFAULT_TIMEOUT s) until dir holds n entries naming part;
 * 0 when it did. */
static int wait_entries(const char *dir, const char *part, int n)
{
    long waited;
    for (waited = 0; waited < DEFAULT_TIMEOUT * 1000L; waited += 10) {
        if (count_entries(dir, part) == n) return 0;
        sleep_ms(10);
    }
    return -1;
}

/* ---- 8: every value read whole and strictly ---------------------------------------- */

static void expect_usage(const char *opt, const char *value, const char *needle)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    mkscript(s, "usage.lua", "return ng.perlin{}\n");
    tpath(o, "usage.png");
    if (strcmp(opt, "--size") == 0) /* an option is given once */
        cli(&r, "render", s, "-o", o, opt, value, NULL);
    else
        cli(&r, "render", s, "-o", o, "--size", "16", opt, value, NULL);
    CHECKF(r.code == 2, "%s '%s': exit %d, expected 2 (stderr: %s)", opt, value, r.code, r.err);
    EXPECT_ERR(&r, 2, opt, needle);
    res_free(&r);
    CHECKF(!exists(o), "%s '%s' wrote an image", opt, value);
}

/* A value option (or --set of one parameter) given twice is a usage error,
 * not a silent override;
 * --set takes decimal numbers only, as the options do. */
static void test_repeated_options_and_set_numbers(void)
{
    char s[PATHLEN], o[PATHLEN], o2[PATHLEN];
    res r;
    static const char *const bad[] = {"0x10", " 5", "1e999", "inf", "nan", "0x1p4", "5 "};
    size_t k;
    mkscript(s, "twice.lua", "local v = ng.param('v', 1, {min = 0})\nreturn ng.perlin{seed = v}\n");
    tpath(o, "twice.png");
    tpath(o2, "twice2.png");
    cli(&r, "render", s, "-o", o, "-o", o2, NULL);
    EXPECT_ERR(&r, 2, "-o", "given twice");
    res_free(&r);
    cli(&r, "render", s, "-o", o, "--size", "16", "--size", "32", NULL);
    EXPECT_ERR(&r, 2, "--size", "given twice");
    res_free(&r);
    /* the same parameter set twice too (the last one silently won) */
    cli(&r, "render", s, "-o", o, "--size", "16", "--set", "v=2", "--set", "w=1", "--set", "v=3", NULL);
    EXPECT_ERR(&r, 2, "--set", "'v' is given twice");
    res_free(&r);
    CHECK(!exists(o) && !exists(o2));
    for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char set[64];
        snprintf(set, sizeof set, "v=%s", bad[k]);
        cli(&r, "render", s, "-o", o, "--size", "16", "--set", set, NULL);
        EXPECT_ERR(&r, 1, "--set", "number parameter");
        res_free(&r);
    }
    cli(&r, "render", s, "-o", o, "--size", "16", "--set", "v=+12", NULL);
    EXPECT_OK(&r);
    res_free(&r);
}

static void test_value_with_trailing_text(void)
{
    expect_usage("--size", "00000000000000000000000000000064abcx64", "WxH");
    expect_usage("--size", "64x64abc", "WxH");
    expect_usage("--size", " 64", "WxH");
    expect_usage("--size", "64x0x64", "WxH");
    expect_usage("--size", "0x40", "WxH"); /* hex is not a size */
    expect_usage("--tile", "16px", "8 to 1024");
    expect_usage("--threads", "2.5", "1 to 256");
    expect_usage("--bits", "16bit", "8, 16 or 32");
    expect_usage("--z", "1.5.5", "'1.5.5'");
    expect_usage("--time", "0x1p3", "'0x1p3'");
    expect_usage("--time-limit", "5s", "'5s'");
    expect_usage("--region", "0,0,8,8px", "X,Y,W,H");
}

static void test_empty_list_fields(void)
{
    expect_usage("--region", "0,,0,8,8", "X,Y,W,H");
    expect_usage("--region", "0,0,8,8,", "X,Y,W,H");
    expect_usage("--region", ",0,0,8,8", "X,Y,W,H");
    expect_usage("--region", "0,0,8,,8", "X,Y,W,H");
    expect_usage("--origin", ",1", "X,Y");
    expect_usage("--origin", "1,", "X,Y");
    expect_usage("--origin", "1,,2", "X,Y");
    expect_usage("--size", "x16", "WxH");
    expect_usage("--size", "16x", "WxH");
}

static void test_infinities_refused(void)
{
    expect_usage("--origin", "inf,inf", "X,Y");
    expect_usage("--origin", "0,-infinity", "X,Y");
    expect_usage("--z", "inf", "'inf'");
    expect_usage("--time", "-inf", "'-inf'");
    expect_usage("--pixel-size", "inf", "'inf'");
    expect_usage("--pixel-size", "nan", "'nan'");
    expect_usage("--time-limit", "inf", "'inf'");
    expect_usage("--memory-limit", "inf", "'inf'");
    expect_usage("--z", "1e999", "'1e999'"); /* overflows to infinity */
}

/* Out of range is a usage error (exit 2) that names the range. */
static void test_out_of_range_names_range(void)
{
    expect_usage("--pixel-size", "1e30", "1e+12");
    expect_usage("--pixel-size", "1e-30", "1e-09");
    expect_usage("--origin", "1e300,0", "1e+15");
    expect_usage("--z", "-1e16", "1e+15");
    expect_usage("--time", "2e15", "1e+15");
    expect_usage("--region", "0,0,2147483648,8", "1048576");
    expect_usage("--region", "0,0,1e3,8", "X,Y,W,H"); /* whole numbers are written as such */
    expect_usage("--size", "99999999999999999999999x2", "1048576");
    expect_usage("--threads", "-1", "1 to 256");
    expect_usage("--time-limit", "1e300", "0.001 to 1000000");
    expect_usage("--memory-limit", "1e300", "1048576");
}

/* A value too long is refused, not cut; a long one within the limit is
 * read whole (it used to pass through a 32-byte buffer). */
static void test_long_values(void)
{
    char s[PATHLEN], o[PATHLEN], big[6000], zeros[200];
    unsigned w, h;
    int depth, ct;
    res r;
    mkscript(s, "long.lua", "return ng.perlin{}\n");
    tpath(o, "long.png");

    memset(zeros, '0', 100);
    snprintf(zeros + 100, sizeof zeros - 100, "12x0000000000000000000000000000000000000009");
    cli(&r, "render", s, "-o", o, "--size", zeros, NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(ihdr(o, &w, &h, &depth, &ct) && w == 12 && h == 9);
    unlink(o);

    memset(big, 'a', sizeof big - 5);
    memcpy(big + sizeof big - 5, ".png", 5); /* 5999 bytes, one path */
    cli(&r, "render", s, "-o", big, NULL);
    EXPECT_ERR(&r, 2, "-o", "longer than 4096 bytes");
    res_free(&r);

    memset(big, '0', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    big[sizeof big - 2] = '8';
    cli(&r, "render", s, "-o", o, "--tile", big, NULL);
    EXPECT_ERR(&r, 2, "--tile", "longer than 4096 bytes");
    res_free(&r);
    CHECK(!exists(o));
}

/* The help is made from the option table: every option is in it. */
static void test_help_lists_every_option(void)
{
    static const char *const opts[] = {"-o, --output FILE", "--size", "--bits", "--region", "--threads", "--tile",
                                       "--origin", "--pixel-size", "--z Z", "--time T", "--set", "--unsafe",
                                       "--time-limit", "--memory-limit", "--render-time-limit", "--tileable",
                                       "--quiet"};
    size_t i;
    res r;
    cli(&r, "--help", NULL);
    EXPECT_OK(&r);
    for (i = 0; i < sizeof opts / sizeof opts[0]; i++) CHECK_CONTAINS(r.out, opts[i]);
    res_free(&r);
}

/* ---- 6: sizes whose products overflowed -------------------------------------------- */

/* 2^20 x 2^20 in 16-pixel tiles is 2^32 tiles: the count overflowed int
 * (UBSan; the optimised build deadlocked). Now it renders, on one thread
 * or several, until the render time limit stops it. */
static void test_huge_image_small_tiles(void)
{
    static const char *const threads[] = {"1", "2"};
    char dir[PATHLEN], s[PATHLEN], o[PATHLEN];
    size_t i;
    res r;
    mksub(dir, "huge");
    mkscript(s, "huge.lua", "return ng.perlin{}\n");
    pathf(o, "%s/huge.png", dir);
    for (i = 0; i < 2; i++) {
        cli_t(&r, DEFAULT_TIMEOUT, "render", s, "-o", o, "--size", "1048576", "--tile", "16", "--threads",
              threads[i], "--render-time-limit", "1", NULL);
        EXPECT_ERR(&r, 1, "render time limit of 1 s");
        res_free(&r);
        CHECK_INT(count_entries(dir, ""), 0);
    }
}

/* ---- 7: files left behind or clobbered ------------------------------------------------ */

static void test_signal_removes_temporary(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    char dir[PATHLEN], s[PATHLEN], o[PATHLEN];
    size_t i;
    mksub(dir, "signals");
    mkscript(s, "slow.lua", slow_script);
    pathf(o, "%s/out.png", dir);
    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        const char *args[] = {"render", s, "-o", o, "--size", "256", "--threads", i == 1 ? "2" : "1", NULL};
        pid_t pid = spawn(args, NULL, 0);
        int appeared = wait_entries(dir, ".out.png.tmp-", 1) == 0;
        CHECKF(appeared, "signal %d: no temporary appeared", sigs[i]);
        kill(pid, appeared ? sigs[i] : SIGKILL);
        CHECK_INT(reap(pid), -sigs[i]); /* died of the same signal */
        CHECK_INT(count_entries(dir, ""), 0);
    }
}

/* SIGKILL cannot be caught: the next render of the same target removes the
 * dead render's temporary, but never that of a render still running. */
static void test_killed_render_swept_next_time(void)
{
    char dir[PATHLEN], s[PATHLEN], quick[PATHLEN], o[PATHLEN], other[PATHLEN];
    const char *args[] = {"render", s, "-o", o, "--size", "256", "--threads", "1", NULL};
    pid_t pid;
    res r;
    mksub(dir, "killed");
    mkscript(s, "slow2.lua", slow_script);
    mkscript(quick, "quick.lua", "return ng.perlin{}\n");
    pathf(o, "%s/out.png", dir);
    pathf(other, "%s/other.png", dir);

    pid = spawn(args, NULL, 0);
    CHECK(wait_entries(dir, ".out.png.tmp-", 1) == 0);
    kill(pid, SIGKILL);
    CHECK_INT(reap(pid), -SIGKILL);
    CHECK_INT(count_entries(dir, ".tmp-"), 1); /* nobody could remove it */

    /* another target's render leaves it alone */
    cli(&r, "render", quick, "-o", other, "--size", "8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK_INT(count_entries(dir, ".out.png.tmp-"), 1);

    cli(&r, "render", quick, "-o", o, "--size", "8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK_INT(count_entries(dir, ".tmp-"), 0);
    CHECK(exists(o));

    /* a running render's temporary is not stale */
    pid = spawn(args, NULL, 0);
    CHECK(wait_entries(dir, ".out.png.tmp-", 1) == 0);
    cli(&r, "render", quick, "-o", o, "--size", "8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK_INT(count_entries(dir, ".out.png.tmp-"), 1);
    kill(pid, SIGTERM);
    CHECK_INT(reap(pid), -SIGTERM);
    CHECK_INT(count_entries(dir, ".tmp-"), 0);
}

/* Output b fails as it is finished (its file passes the size limit when
 * the last bytes are flushed); output a, finished before it, must not have
 * replaced a.png. */
static void test_failed_output_keeps_the_others(void)
{
    char dir[PATHLEN], s[PATHLEN], pattern[PATHLEN], a[PATHLEN], b[PATHLEN], log[PATHLEN];
    const char *args[] = {"render", s, "-o", pattern, "--size", "32", "--bits", "16", NULL};
    size_t n;
    char *err;
    mksub(dir, "twophase");
    mkscript(s, "twophase.lua", "return {a = ng.constant{value = 0.5}, b = ng.white{}}\n");
    pathf(pattern, "%s/{name}.png", dir);
    pathf(a, "%s/a.png", dir);
    pathf(b, "%s/b.png", dir);
    tpath(log, "twophase.log");
    put_file(a, "precious a");
    put_file(b, "precious b");
    /* a constant 32x32 PNG is about 100 bytes, white noise about 2 KiB */
    CHECK_INT(reap(spawn(args, log, 600)), 1);
    err = (char *)slurp(log, &n);
    CHECKF(err && count_lines(err) == 1, "one line expected on stderr, got \"%s\"", err ? err : "(none)");
    CHECK_CONTAINS(err, "noisegraph: ");
    CHECK_CONTAINS(err, b);
    free(err);
    err = (char *)slurp(a, &n);
    CHECK(err && n == 10 && !memcmp(err, "precious a", 10));
    free(err);
    err = (char *)slurp(b, &n);
    CHECK(err && n == 10 && !memcmp(err, "precious b", 10));
    free(err);
    CHECK_INT(count_entries(dir, ".tmp-"), 0);

    /* the same render without the limit replaces both */
    CHECK_INT(reap(spawn(args, log, 0)), 0);
    CHECK(ihdr(a, &(unsigned){0}, &(unsigned){0}, &(int){0}, &(int){0}));
    CHECK(ihdr(b, &(unsigned){0}, &(unsigned){0}, &(int){0}, &(int){0}));
}

static void check_script_kept(const char *path, const char *text)
{
    size_t n;
    char *got = (char *)slurp(path, &n);
    CHECKF(got && n == strlen(text) && !memcmp(got, text, n), "%s was overwritten", path);
    free(got);
}

/* The output is the script itself: refused before anything runs, by any
 * spelling of the path, through a symlink, or as a named output's file. */
static void test_output_is_the_script(void)
{
    static const char text[] = "return ng.perlin{}\n";
    static const char multi[] = "return {a = ng.perlin{}, b = ng.value{}}\n";
    char dir[PATHLEN], s[PATHLEN], other[PATHLEN], link[PATHLEN], m[PATHLEN], mo[PATHLEN];
    res r;
    mksub(dir, "self");
    pathf(s, "%s/g.png", dir);
    put_file(s, text);
    cli(&r, "render", s, "-o", s, "--size", "8", NULL);
    EXPECT_ERR(&r, 2, "is the script");
    res_free(&r);
    check_script_kept(s, text);

    pathf(other, "%s/../self/./g.png", dir);
    cli(&r, "render", s, "-o", other, "--size", "8", NULL);
    EXPECT_ERR(&r, 2, "is the script");
    res_free(&r);
    check_script_kept(s, text);

    pathf(link, "%s/link.png", dir);
    CHECK(symlink("g.png", link) == 0);
    cli(&r, "render", s, "-o", link, "--size", "8", NULL);
    EXPECT_ERR(&r, 2, "is the script");
    res_free(&r);
    check_script_kept(s, text);

    /* out-b.png is the script: out.png with outputs a and b would write it */
    pathf(m, "%s/out-b.png", dir);
    put_file(m, multi);
    pathf(mo, "%s/out.png", dir);
    cli(&r, "render", m, "-o", mo, "--size", "8", NULL);
    EXPECT_ERR(&r, 2, "is the script");
    res_free(&r);
    check_script_kept(m, multi);
    CHECK(!exists(mo));
    CHECK_INT(count_entries(dir, ".tmp-"), 0);
}

static void test_output_is_a_directory(void)
{
    char dir[PATHLEN], s[PATHLEN], o[PATHLEN];
    res r;
    mksub(dir, "outdir");
    mkscript(s, "outdir.lua", "return ng.perlin{}\n");
    cli(&r, "render", s, "-o", dir, "--size", "8", NULL);
    EXPECT_ERR(&r, 1, dir, "is a directory");
    res_free(&r);
    pathf(o, "%s/", dir);
    cli(&r, "render", s, "-o", o, "--size", "8", NULL);
    EXPECT_ERR(&r, 1, "is a directory");
    res_free(&r);
    CHECK_INT(count_entries(dir, ""), 0);
}

/* ---- 9: silent garbage ------------------------------------------------------------ */

static void test_nan_and_infinity_noted(void)
{
    char s[PATHLEN], inf[PATHLEN], o[PATHLEN], r16[PATHLEN], pfm[PATHLEN];
    res r;
    mkscript(s, "nan.lua", "return ng.x{} * 0 / 0\n"); /* 0/0 everywhere */
    mkscript(inf, "inf.lua", "return ng.x{} / 0\n");   /* x > 0: +inf everywhere */
    tpath(o, "nan.png");
    tpath(r16, "nan.r16");
    tpath(pfm, "nan.pfm");

    cli(&r, "render", s, "-o", o, "--size", "8x4", NULL);
    CHECK_INT(r.code, 0);
    CHECK_INT(count_lines(r.err), 1);
    CHECK_CONTAINS(r.err, "noisegraph: ");
    CHECK_CONTAINS(r.err, "32 NaN samples written as 0");
    res_free(&r);
    CHECK(exists(o));

    cli(&r, "render", inf, "-o", r16, "--size", "8x4", NULL);
    CHECK_INT(r.code, 0);
    CHECK_INT(count_lines(r.err), 1);
    CHECK_CONTAINS(r.err, "32 infinite samples clamped");
    res_free(&r);

    cli(&r, "render", s, "-o", o, "--size", "8x4", "--quiet", NULL);
    EXPECT_OK(&r);
    res_free(&r);

    /* PFM keeps them as they are: nothing to say */
    cli(&r, "render", s, "-o", pfm, "--size", "8x4", NULL);
    EXPECT_OK(&r);
    res_free(&r);
}

static void test_render_time_limit(void)
{
    static const char *const threads[] = {"1", "2"};
    char dir[PATHLEN], s[PATHLEN], o[PATHLEN];
    size_t i;
    res r;
    mksub(dir, "rtl");
    mkscript(s, "rtl.lua", slow_script);
    pathf(o, "%s/out.png", dir);
    for (i = 0; i < 2; i++) {
        /* one 16x16 tile of this takes longer than the limit */
        cli_t(&r, DEFAULT_TIMEOUT, "render", s, "-o", o, "--size", "16", "--tile", "16", "--threads", threads[i],
              "--render-time-limit", "0.5", NULL);
        EXPECT_ERR(&r, 1, "render:", "ran longer than its render time limit of 0.5 s", "--render-time-limit");
        res_free(&r);
        CHECK_INT(count_entries(dir, ""), 0);
    }
    mkscript(s, "rtl_quick.lua", "return ng.perlin{}\n");
    cli(&r, "render", s, "-o", o, "--size", "16", "--render-time-limit", "600", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(exists(o));
}

/* info estimates the cost: nesting multiplies the octaves. */
static void test_info_cost_estimate(void)
{
    char s[PATHLEN];
    res r;
    mkscript(s, "cost1.lua", "return ng.perlin{} + ng.worley{}\n");
    cli(&r, "info", s, NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "cost (single): at most 2 noise kernel and 3 node evaluations per pixel");
    res_free(&r);
    mkscript(s, "cost6.lua", slow_script); /* 32^6 */
    cli(&r, "info", s, NULL);
    EXPECT_OK(&r);
    CHECK_CONTAINS(r.out, "cost (single): at most 1.07e+09 noise kernel");
    res_free(&r);
}

/* The library's cancel flag: a render whose flag is set stops with an
 * error and its sink is told to discard. */
typedef struct count_sink {
    int begun, rows, ended_ok, ended_fail;
} count_sink;

static int cs_begin(void *u, int w, int h, int ch, ng_error *err)
{
    (void)w, (void)h, (void)ch, (void)err;
    ((count_sink *)u)->begun++;
    return 0;
}

static int cs_rows(void *u, int y, int n, const float *rows, ng_error *err)
{
    (void)y, (void)n, (void)rows, (void)err;
    ((count_sink *)u)->rows++;
    return 0;
}

static int cs_end(void *u, int ok, ng_error *err)
{
    (void)err;
    if (ok) ((count_sink *)u)->ended_ok++;
    else ((count_sink *)u)->ended_fail++;
    return 0;
}

static void test_cancel_flag(void)
{
    ng_graph *g = ng_graph_new();
    int root = t_noise(g, "perlin", 16, 1), t;
    atomic_int cancel;
    ng_render_opts o;
    ng_error err;
    for (t = 1; t <= 2; t++) {
        count_sink c = {0, 0, 0, 0};
        ng_sink sink = {cs_begin, cs_rows, cs_end, &c, NULL, NULL};
        atomic_init(&cancel, 1);
        t_opts(&o, 64, 64);
        o.threads = t;
        o.tile = 8;
        o.cancel = &cancel;
        CHECK(ng_render(g, &root, 1, &o, &sink, &err) != 0);
        CHECK_CONTAINS(err.msg, "cancelled");
        CHECK_INT(c.begun, 1);
        CHECK_INT(c.rows, 0);
        CHECK_INT(c.ended_fail, 1);
        CHECK_INT(c.ended_ok, 0);
        atomic_store(&cancel, 0);
        c.begun = c.ended_fail = 0;
        CHECK(ng_render(g, &root, 1, &o, &sink, &err) == 0);
        CHECK_INT(c.ended_ok, 1);
    }
    ng_graph_free(g);
}

/* ---- suite ------------------------------------------------------------------------ */

static void test_environment(void)
{
    ng_t_fail(__FILE__, __LINE__, "NG_BIN (an executable noisegraph) and NG_ROOT must be set");
}

NG_SUITE(hostile_cli, full)
{
    RUN(test_cancel_flag);
    if (cli_setup("nghostile")) {
        RUN(test_environment);
        return;
    }
    RUN(test_repeated_options_and_set_numbers);
    RUN(test_value_with_trailing_text);
    RUN(test_empty_list_fields);
    RUN(test_infinities_refused);
    RUN(test_out_of_range_names_range);
    RUN(test_long_values);
    RUN(test_help_lists_every_option);
    RUN(test_huge_image_small_tiles);
    RUN(test_signal_removes_temporary);
    RUN(test_killed_render_swept_next_time);
    RUN(test_failed_output_keeps_the_others);
    RUN(test_output_is_the_script);
    RUN(test_output_is_a_directory);
    RUN(test_nan_and_infinity_noted);
    RUN(test_render_time_limit);
    RUN(test_info_cost_estimate);
    cli_teardown();
}
