/*
 * test_anim.c — animation: render --frames A-B (frame f at time f / fps,
 * {frame} in -o zero-padded, the script run once, each frame the render
 * --time f / fps gives, bit for bit), the usage errors, a failure or a
 * SIGINT mid-sequence (earlier frames stay, no temporaries), ng.frame(),
 * looping time (frame 0 == frame N bit for bit for every basis with 4D,
 * the seam as smooth as any other step) and flow noise in 4D.
 */
#include "bases.h"
#include "build.h"
#include "cli_support.h"
#include "ng_io.h"
#include "noisegraph.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the command line ------------------------------------------------------------ */

static const char perlin4[] = "return ng.perlin{element_size = 4}\n";

static void test_frames_named_and_padded(void)
{
    char s[PATHLEN], dir[PATHLEN], o[PATHLEN], f[PATHLEN];
    res r;
    mkscript(s, "named.lua", perlin4);
    mksub(dir, "named");
    pathf(o, "%s/cloud_{frame}.png", dir);
    cli(&r, "render", s, "-o", o, "--frames", "8-10", "--size", "8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK_INT(count_entries(dir, ""), 3);
    pathf(f, "%s/cloud_0008.png", dir);
    CHECK(exists(f));
    pathf(f, "%s/cloud_0010.png", dir);
    CHECK(exists(f));
    /* B's digits when it has more than 4; every {frame} in the name */
    mksub(dir, "wide");
    pathf(o, "%s/{frame}/c_{frame}.pfm", dir);
    cli(&r, "render", s, "-o", o, "--frames", "99999-100000", "--size", "4", "--bits", "32", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    pathf(f, "%s/099999/c_099999.pfm", dir);
    CHECK(exists(f));
    pathf(f, "%s/100000/c_100000.pfm", dir);
    CHECK(exists(f));
    /* a single frame needs no {frame} */
    pathf(o, "%s/one.png", dir);
    cli(&r, "render", s, "-o", o, "--frames", "3", "--size", "4", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(exists(o));
}

/* print runs once per run of the script: once for the whole sequence. */
static void test_script_runs_once(void)
{
    char s[PATHLEN], o[PATHLEN];
    const char *at;
    int n = 0;
    res r;
    mkscript(s, "once.lua", "print('script ran')\nreturn ng.perlin{element_size = 4}\n");
    pathf(o, "%s/once_{frame}.png", tmpdir);
    cli(&r, "render", s, "-o", o, "--frames", "0-5", "--size", "4", NULL);
    EXPECT_OK(&r);
    for (at = r.out; at && (at = strstr(at, "script ran")); at++) n++;
    CHECK_INT(n, 1);
    res_free(&r);
}

/* A note about the graph (here: --tileable adjusting an element size) is
 * said once for the sequence, not once per frame. */
static void test_notes_once(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    mkscript(s, "note.lua", "return ng.perlin{element_size = 5}\n");
    pathf(o, "%s/note_{frame}.pfm", tmpdir); /* floats: no clamping note */
    cli(&r, "render", s, "-o", o, "--frames", "0-3", "--size", "16", "--tileable", NULL);
    CHECK_INT(r.code, 0);
    CHECK_INT(count_lines(r.err), 1);
    CHECK_CONTAINS(r.err, "element_size 5 becomes");
    res_free(&r);
}

/* Frame f of a sequence is the render at --time f / fps, bit for bit. */
static void test_frame_is_render_at_time(void)
{
    static const char script[] = "local n = ng.fbm{source = ng.simplex{element_size = 6}, octaves = 3}\n"
                                 "return {a = n, b = n * 0.5 + ng.frame() * 0.01}\n";
    char s[PATHLEN], o[PATHLEN], one[PATHLEN], seq[PATHLEN], t[64];
    int f, k;
    res r;
    mkscript(s, "attime.lua", script);
    pathf(o, "%s/seq_{frame}_{name}.pfm", tmpdir);
    cli(&r, "render", s, "-o", o, "--frames", "2-4", "--fps", "30", "--size", "12x10", "--bits", "32", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    for (f = 2; f <= 4; f++) {
        snprintf(t, sizeof t, "%.17g", f / 30.0);
        pathf(o, "%s/at_{name}.pfm", tmpdir);
        cli(&r, "render", s, "-o", o, "--time", t, "--fps", "30", "--size", "12x10", "--bits", "32", NULL);
        EXPECT_OK(&r);
        res_free(&r);
        for (k = 0; k < 2; k++) {
            pathf(one, "%s/at_%s.pfm", tmpdir, k ? "b" : "a");
            pathf(seq, "%s/seq_%04d_%s.pfm", tmpdir, f, k ? "b" : "a");
            CHECKF(same_bytes(one, seq), "frame %d output %c", f, k ? 'b' : 'a');
        }
    }
}

/* A PFM's samples (32-bit, little-endian: the host's floats). */
static int read_pfm(const char *path, float *out, int n)
{
    size_t len;
    unsigned char *b = slurp(path, &len);
    int ok = b && len >= (size_t)n * 4;
    if (ok) memcpy(out, b + len - (size_t)n * 4, (size_t)n * 4);
    free(b);
    return ok;
}

/* ng.frame() is the frame number exactly, at any fps; fps = ... overrides. */
static void test_frame_node(void)
{
    char s[PATHLEN], o[PATHLEN], f[PATHLEN];
    float v[4];
    int k;
    res r;
    mkscript(s, "frame.lua", "return {a = ng.frame(), b = ng.frame{fps = 10}}\n");
    pathf(o, "%s/fr_{frame}_{name}.pfm", tmpdir);
    cli(&r, "render", s, "-o", o, "--frames", "997-1001", "--fps", "29.97", "--size", "2", "--bits", "32", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    for (k = 997; k <= 1001; k++) {
        pathf(f, "%s/fr_%04d_a.pfm", tmpdir, k);
        CHECK(read_pfm(f, v, 4));
        CHECKF(v[0] == (float)k && v[3] == (float)k, "frame %d: %.9g", k, v[0]);
        pathf(f, "%s/fr_%04d_b.pfm", tmpdir, k);
        CHECK(read_pfm(f, v, 4));
        CHECK_NEAR(v[0], k / 29.97 * 10, 1e-3);
    }
    /* like ng.time(), it needs time: a 2D render names it */
    pathf(o, "%s/fr2d.pfm", tmpdir);
    cli(&r, "render", s, "-o", o, "--size", "2", NULL);
    EXPECT_ERR(&r, 1, "frame", "4D");
    res_free(&r);
}

static void test_usage_errors(void)
{
    static const struct {
        const char *a, *b, *c, *d, *needle;
    } cases[] = {
        {"--frames", "0-3", NULL, NULL, "{frame}"},
        {"--frames", "5-2", NULL, NULL, "A <= B"},
        {"--frames", "-1", NULL, NULL, "'-1'"},
        {"--frames", "1-", NULL, NULL, "A-B or N"},
        {"--frames", "-2-4", NULL, NULL, "A-B or N"},
        {"--frames", "1-2-3", NULL, NULL, "A-B or N"},
        {"--frames", "a-b", NULL, NULL, "A-B or N"},
        {"--frames", "", NULL, NULL, "A-B or N"},
        {"--frames", "1", "--time", "2", "--time"},
        {"--fps", "0", NULL, NULL, "--fps"},
        {"--fps", "-24", NULL, NULL, "--fps"},
        {"--loop-frames", "8", NULL, NULL, "--loop-frames"},
        {"--frames", "2", "--loop-frames", "0", "--loop-frames"},
    };
    char s[PATHLEN], dir[PATHLEN], o[PATHLEN];
    size_t i;
    res r;
    mkscript(s, "usage.lua", perlin4);
    mksub(dir, "usage");
    pathf(o, "%s/u.png", dir);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli(&r, "render", s, "-o", o, "--size", "4", cases[i].a, cases[i].b, cases[i].c, cases[i].d, NULL);
        EXPECT_ERR(&r, 2, cases[i].needle);
        res_free(&r);
    }
    pathf(o, "%s/u_{frame}.png", dir);
    cli(&r, "render", s, "-o", o, "--size", "4", NULL);
    EXPECT_ERR(&r, 2, "{frame}", "--frames");
    res_free(&r);
    cli(&r, "preview", s, "-o", o, "--frames", "1-2", NULL);
    EXPECT_ERR(&r, 2, "--frames");
    res_free(&r);
    CHECK_INT(count_entries(dir, ""), 0);
}

/* A frame that cannot be written stops the sequence with one line; the
 * frames before it stay, nothing after it is made, no temporary is left. */
static void test_failure_mid_sequence(void)
{
    char s[PATHLEN], dir[PATHLEN], o[PATHLEN], f[PATHLEN];
    res r;
    mkscript(s, "mid.lua", perlin4);
    mksub(dir, "mid");
    pathf(f, "%s/f_0002.pfm", dir);
    CHECK_INT(mkdir(f, 0700), 0); /* frame 2's name is taken by a folder */
    pathf(o, "%s/f_{frame}.pfm", dir);
    cli(&r, "render", s, "-o", o, "--frames", "0-4", "--size", "8", NULL);
    EXPECT_ERR(&r, 1, "frame 2", "f_0002.pfm");
    res_free(&r);
    pathf(f, "%s/f_0000.pfm", dir);
    CHECK(exists(f));
    pathf(f, "%s/f_0001.pfm", dir);
    CHECK(exists(f));
    CHECK_INT(count_entries(dir, ""), 3);
    CHECK_INT(count_entries(dir, "tmp"), 0);
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) < 0 && errno == EINTR) {
    }
}

/* SIGINT while a later frame renders: the process dies of it, the frames
 * written stay, the frame being written leaves no temporary. */
#if SANITIZED
#define SLOW_OCTAVES 6
#else
#define SLOW_OCTAVES 16
#endif
#define NG_STR_(x) #x
#define NG_STR(x) NG_STR_(x)
static void test_sigint_mid_sequence(void)
{
    /* 16^3 perlin samples a pixel, a fraction of a second a frame; the
     * sanitized build is ~20x slower, so 6^3 there */
    static const char slow[] = "local n = ng.perlin{}\n"
                               "for i = 1, 3 do n = ng.fbm{source = n, octaves = " NG_STR(SLOW_OCTAVES)
                               ", antialias = false} end\n"
                               "return n\n";
    char s[PATHLEN], dir[PATHLEN], o[PATHLEN], f[PATHLEN];
    const char *args[] = {"render", s, "-o", o, "--frames", "0-999", "--size", "96", "--threads", "1", NULL};
    long waited;
    int st = 0;
    pid_t pid;
    mkscript(s, "slow.lua", slow);
    mksub(dir, "sigint");
    pathf(o, "%s/s_{frame}.png", dir);
    pathf(f, "%s/s_0001.png", dir);
    pid = cli_spawn(args);
    for (waited = 0; waited < DEFAULT_TIMEOUT * 1000L && !exists(f); waited += 5) sleep_ms(5);
    CHECK(exists(f));
    sleep_ms(20); /* into frame 2 */
    kill(pid, SIGINT);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT);
    pathf(f, "%s/s_0000.png", dir);
    CHECK(exists(f));
    CHECK_INT(count_entries(dir, "tmp"), 0);
    CHECK(count_entries(dir, "") < 1000);
}

/* SIGTERM at varied moments of a .vdb frame sequence: OpenVDB's TBB
 * starts threads of its own with the signals open, so the handler may run
 * on one of them while the main thread, holding the signals, is creating
 * the next frame's temporary. Every run dies of the signal and leaves no
 * temporary. (Locally: 200+ runs in a row; here a few seconds' worth.) */
static void test_sigterm_frames_stress(void)
{
    char s[PATHLEN], dir[PATHLEN], o[PATHLEN], f[PATHLEN];
    const char *args[] = {"render", s, "-o", o, "--frames", "0-99999", "--size", "12x12x12", "--quiet", NULL};
    int run, left = 0, died = 0;
    mkscript(s, "stress.lua", perlin4);
    for (run = 0; run < 24; run++) {
        long waited;
        int st = 0;
        pid_t pid;
        char sub[64];
        snprintf(sub, sizeof sub, "stress%d", run);
        mksub(dir, sub);
        pathf(o, "%s/v_{frame}.vdb", dir);
        pathf(f, "%s/v_00000.vdb", dir);
        pid = cli_spawn(args);
        for (waited = 0; waited < DEFAULT_TIMEOUT * 1000L && !exists(f); waited++) sleep_ms(1);
        sleep_ms(run % 8 * 3); /* into a later frame, at another point of it each run */
        kill(pid, SIGTERM);
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
        died += WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM;
        left += count_entries(dir, "tmp") != 0;
    }
    CHECK_INT(died, run);
    CHECK_INT(left, 0);
}

/* The same window made wide: a child creates and drops temporaries as
 * fast as it can, with a thread of its own that leaves the signals open
 * (as TBB's do) and the CLI's handler; SIGTERM after 1 to 12 ms must find
 * every temporary registered. The old sink left one about every third run. */
static void on_term(int sig)
{
    ng_file_remove_temporaries();
    raise(sig);
}

static void *open_thread(void *unused)
{
    (void)unused;
    for (;;) sched_yield();
    return NULL;
}

static void test_sigterm_on_another_thread(void)
{
    char dir[PATHLEN], o[PATHLEN];
    int run, left = 0, died = 0;
    mksub(dir, "other_thread");
    pathf(o, "%s/t.pfm", dir);
    for (run = 0; run < 24; run++) {
        int st = 0;
        pid_t pid = fork();
        if (pid == 0) {
            struct sigaction sa;
            sigset_t none;
            pthread_t th;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_term;
            sa.sa_flags = SA_RESETHAND;
            sigemptyset(&sa.sa_mask);
            sigaction(SIGTERM, &sa, NULL);
            sigemptyset(&none);
            pthread_sigmask(SIG_SETMASK, &none, NULL);
            alarm(60);
            if (pthread_create(&th, NULL, open_thread, NULL)) _exit(3);
            for (;;) {
                ng_error err;
                ng_file_sink *fs = ng_file_sink_new(o, 0, &err);
                ng_sink sk;
                if (!fs) _exit(4);
                sk = ng_file_sink_as_sink(fs);
                if (sk.begin(sk.user, 1, 1, 1, &err) == 0) sk.end(sk.user, 0, &err);
                ng_file_sink_free(fs);
            }
        }
        if (pid < 0) break;
        sleep_ms(1 + run % 12);
        kill(pid, SIGTERM);
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
        died += WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM;
        left += count_entries(dir, "tmp") != 0; /* the next run's sink sweeps what a run left */
    }
    CHECK_INT(died, run);
    CHECK_INT(left, 0);
}

/* Volumes animate the same way: a file per frame. */
static void test_volume_frames(void)
{
    char s[PATHLEN], o[PATHLEN], a[PATHLEN], b[PATHLEN];
    res r;
    mkscript(s, "vol.lua", perlin4);
    pathf(o, "%s/v_{frame}.nrrd", tmpdir);
    cli(&r, "render", s, "-o", o, "--frames", "0-1", "--size", "6x5x4", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    pathf(a, "%s/v_0000.nrrd", tmpdir);
    pathf(b, "%s/v_0001.nrrd", tmpdir);
    CHECK(exists(a) && exists(b));
    CHECK(!same_bytes(a, b));
}

/* time_scale: a noise at time_scale 2 and time t is the same noise at
 * time 2t, bit for bit (doubling is exact), beside one that keeps its
 * pace; time_scale 0 holds a noise (and a cloud) still; and a
 * curl of an animated potential renders animated (4D). */
static void render_pfm(const char *script_text, const char *name, const char *time, char *out)
{
    char s[PATHLEN];
    res r;
    mkscript(s, "ts.lua", script_text);
    pathf(out, "%s/%s.pfm", tmpdir, name);
    cli(&r, "render", s, "-o", out, "--time", time, "--size", "12", NULL);
    EXPECT_OK(&r);
    res_free(&r);
}

static void test_time_scale(void)
{
    char a[PATHLEN], b[PATHLEN];
    render_pfm("return ng.perlin{element_size = 4, time_scale = 2} + ng.simplex{element_size = 5, seed = 3}\n",
               "fast", "0.75", a);
    render_pfm("return ng.perlin{element_size = 4} + ng.simplex{element_size = 5, seed = 3, time_scale = 0.5}\n",
               "slow", "1.5", b);
    CHECK(same_bytes(a, b));
    render_pfm("return ng.perlin{element_size = 4}\n", "pace", "0.75", b);
    CHECK(!same_bytes(a, b));
    render_pfm("return ng.worley{element_size = 4, time_scale = 0}\n", "still0", "0", a);
    render_pfm("return ng.worley{element_size = 4, time_scale = 0}\n", "still1", "7.5", b);
    CHECK(same_bytes(a, b));
    render_pfm("return ng.cloud{element_size = 6, time_scale = 0}\n", "cloud0", "0", a);
    render_pfm("return ng.cloud{element_size = 6, time_scale = 0}\n", "cloud3", "3", b);
    CHECK(same_bytes(a, b));
    render_pfm("return ng.cloud{element_size = 6}\n", "cloud3b", "3", b);
    CHECK(!same_bytes(a, b));
    render_pfm("return ng.curl{ng.simplex{element_size = 6, output = \"vector\"}}\n", "curl0", "0", a);
    render_pfm("return ng.curl{ng.simplex{element_size = 6, output = \"vector\"}}\n", "curl1", "0.5", b);
    CHECK(!same_bytes(a, b));
}

/* What the shell command prints (malloc'd), or NULL when it failed. */
static char *run_shell(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    char *out = calloc(1, 4096);
    size_t n = 0;
    if (!p || !out) {
        if (p) pclose(p);
        free(out);
        return NULL;
    }
    while (n < 4095 && fgets(out + n, (int)(4096 - n), p)) n = strlen(out);
    if (pclose(p) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* The README's line that starts with `start` (after its indent), or "". */
static void readme_line(const char *start, char *out, size_t len)
{
    char path[PATHLEN];
    size_t n;
    char *text, *at;
    pathf(path, "%s/README.md", ng_root);
    text = (char *)slurp(path, &n);
    out[0] = '\0';
    for (at = text; at && (at = strstr(at, start)); at++)
        if (at > text && (at[-1] == ' ' || at[-1] == '\n')) {
            snprintf(out, len, "%.*s", (int)strcspn(at, "\n"), at);
            break;
        }
    free(text);
}

/* The README's ffmpeg recipe, as written, reads the frames --frames
 * writes under its pattern (frames/cloud_{frame}.png from 1): a video of
 * every frame (Debian's ffmpeg, a test tool). */
static void test_ffmpeg_recipe(void)
{
    char render[1024], ffmpeg[1024], s[PATHLEN], o[PATHLEN], cmd[2 * PATHLEN + 2048], *count;
    res r;
    readme_line("noisegraph render graphs/clouds.lua -o 'frames/cloud_{frame}.png' --frames 1-", render, sizeof render);
    readme_line("ffmpeg -framerate 24 -start_number 1 -i frames/cloud_%04d.png ", ffmpeg, sizeof ffmpeg);
    CHECKF(render[0] && ffmpeg[0], "the README's recipe is not there: '%s' '%s'", render, ffmpeg);
    if (!render[0] || !ffmpeg[0]) return;
    /* the recipe's pattern, at a size and length a test can afford */
    mkscript(s, "video.lua", "return ng.perlin{element_size = 6, range = \"unit\"}\n");
    pathf(o, "%s/frames/cloud_{frame}.png", tmpdir);
    cli(&r, "render", s, "-o", o, "--frames", "1-3", "--fps", "24", "--size", "32x18", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s </dev/null >/dev/null 2>&1 && ffprobe -v error -count_frames "
             "-select_streams v:0 -show_entries stream=nb_read_frames,width,height -of csv=p=0 cloud.mp4 2>&1",
             tmpdir, ffmpeg);
    count = run_shell(cmd);
    CHECKF(count && !strcmp(count, "32,18,3\n"), "%s: %s", cmd, count ? count : "(did not run)");
    free(count);
}

/* --loop-frames N: frame N is frame 0, through the whole program. */
static void test_cli_loop(void)
{
    char s[PATHLEN], o[PATHLEN], a[PATHLEN], b[PATHLEN];
    res r;
    mkscript(s, "loop.lua",
             "return ng.fbm{source = ng.perlin{element_size = 4}, octaves = 4, lacunarity = 2.3}\n");
    pathf(o, "%s/loop_{frame}.pfm", tmpdir);
    cli(&r, "render", s, "-o", o, "--frames", "0-6", "--fps", "12", "--loop-frames", "6", "--size", "16", "--bits",
        "32", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    pathf(a, "%s/loop_0000.pfm", tmpdir);
    pathf(b, "%s/loop_0006.pfm", tmpdir);
    CHECK(same_bytes(a, b));
    pathf(b, "%s/loop_0005.pfm", tmpdir);
    CHECK(!same_bytes(a, b));
}

/* A tileable looping cloud, through the whole program: simplex's torus
 * tiling has no analytic gradient, so the loop's cross-fade takes central
 * differences for the distortion (the fuzzer found a call through the
 * missing one). Every cloud type loops and renders. */
static void test_cli_loop_tileable_clouds(void)
{
    static const char *const types[] = {"perlin", "simplex", "fast_simplex"};
    char s[PATHLEN], o[PATHLEN], a[PATHLEN], b[PATHLEN], text[160];
    size_t t;
    for (t = 0; t < sizeof types / sizeof types[0]; t++) {
        res r;
        snprintf(text, sizeof text, "return ng.%s_cloud{element_size = 6, distortion = 0.8}\n", types[t]);
        mkscript(s, "cloudloop.lua", text);
        pathf(o, "%s/cloudloop_%s_{frame}.pfm", tmpdir, types[t]);
        cli(&r, "render", s, "-o", o, "--frames", "0-4", "--fps", "8", "--loop-frames", "4", "--size", "24",
            "--tileable", "--bits", "32", NULL);
        EXPECT_OK(&r);
        res_free(&r);
        pathf(a, "%s/cloudloop_%s_0000.pfm", tmpdir, types[t]);
        pathf(b, "%s/cloudloop_%s_0004.pfm", tmpdir, types[t]);
        CHECKF(same_bytes(a, b), "%s_cloud: tileable looping frames 0 and 4 differ", types[t]);
    }
}

/* ---- looping time, through the library ----------------------------------------------- */

#define W 24
#define LOOP 24 /* frames */

static const struct {
    const char *name;
    unsigned dims;
} bases[] = {
#define BASIS_NAME(F, ID, id, name, freq, lo, hi, dims, ...) {name, dims},
    NG_BASES(BASIS_NAME)
};

/* Frame f of a loop of LOOP frames at 8 fps, into out (W x W). */
static int render_frame(const ng_graph *g, int root, int f, double period, float *out)
{
    ng_render_opts o;
    ng_error err = {{0}};
    t_opts(&o, W, W);
    o.dims = 4;
    o.time = f / 8.0;
    o.time_period = period;
    if (ng_render_buffer(g, root, &o, out, &err)) {
        CHECKF(0, "%s", err.msg);
        return -1;
    }
    return 0;
}

static double max_step(const float *a, const float *b)
{
    double m = 0;
    int i;
    for (i = 0; i < W * W; i++) m = fmax(m, fabs((double)a[i] - b[i]));
    return m;
}

/* Every basis with 4D, alone and as the source of a fractal: frame 0 and
 * frame LOOP are the same bits, neighbouring frames differ, and the step
 * across the seam (LOOP - 1 to LOOP) is no bigger than the largest other.
 * Simplex loops by a cross-fade (nodes/noise.c, simplex_loop) whose slope
 * (other - out) / C is the same at both ends, so its seam step and its
 * first step are drawn alike and either may be the larger: there the seam
 * may take up to 1.2 times the largest other (the isotropic gradients of
 * 0.2.0 drew 1.03 and 1.14). */
static void check_loop(const char *what, const ng_graph *g, int root)
{
    const double slack = strstr(what, "simplex") ? 1.2 : 1.0;
    static float fr[LOOP + 1][W * W];
    double seam, other = 0;
    int f, failed = 0;
    for (f = 0; f <= LOOP && !failed; f++) failed = render_frame(g, root, f, LOOP / 8.0, fr[f]);
    if (failed) return;
    CHECKF(!memcmp(fr[0], fr[LOOP], sizeof fr[0]), "%s: frame 0 and frame %d differ", what, LOOP);
    for (f = 0; f + 1 < LOOP; f++) {
        double st = max_step(fr[f], fr[f + 1]);
        CHECKF(st > 0, "%s: frames %d and %d are the same", what, f, f + 1);
        other = fmax(other, st);
    }
    seam = max_step(fr[LOOP - 1], fr[LOOP]);
    CHECKF(seam > 0 && seam <= slack * other, "%s: the seam steps %g, the other frames at most %g", what, seam,
           other);
}

static void test_loop_every_basis(void)
{
    size_t b;
    int seen = 0;
    for (b = 0; b < sizeof bases / sizeof bases[0]; b++) {
        ng_graph *g;
        char what[64];
        if (!(bases[b].dims & 0x10u)) continue;
        seen++;
        g = ng_graph_new();
        snprintf(what, sizeof what, "%s", bases[b].name);
        check_loop(what, g, t_noise(g, bases[b].name, 5, 3));
        if (strcmp(bases[b].name, "white")) { /* white has no continuity to keep */
            snprintf(what, sizeof what, "fbm of %s", bases[b].name);
            check_loop(what, g, t_fbm(g, t_noise(g, bases[b].name, 7, 4), 3.5, 2.2, 0.5));
        }
        ng_graph_free(g);
    }
    CHECK_INT(seen, 9);
    for (b = 0; b < 2; b++) { /* clouds displace along gradients: analytic (perlin), the cross-fade's (simplex) */
        ng_graph *g = ng_graph_new();
        ng_node *n = t_begin(g, b ? "simplex_cloud" : "perlin_cloud");
        t_set(n, "element_size", 6);
        t_set(n, "distortion", 0.8);
        check_loop(b ? "simplex cloud" : "perlin cloud", g, t_finish(g, n));
        ng_graph_free(g);
    }
}

/* Without a period nothing changes: the period is the only switch. */
static void test_no_loop_no_change(void)
{
    static float a[W * W], b[W * W];
    ng_graph *g = ng_graph_new();
    int root = t_noise(g, "perlin", 5, 3);
    if (!render_frame(g, root, 0, 0, a) && !render_frame(g, root, LOOP, 0, b))
        CHECK(memcmp(a, b, sizeof a) != 0);
    ng_graph_free(g);
}

/* ---- flow in 4D ------------------------------------------------------------------ */

/* 4D flow turns its gradients with time: at time t it is the 3D flow field
 * (z = 0) with flow = t / element_size turns, bit for bit; continuous in
 * time; the same bits on every thread count. */
static void test_flow_4d(void)
{
    static float a[W * W], b[W * W], c[W * W];
    ng_graph *g = ng_graph_new();
    ng_node *n = t_begin(g, "flow");
    int flow4, flow3, k;
    ng_render_opts o;
    double worst = 0;
    t_set(n, "element_size", 8);
    flow4 = t_finish(g, n);
    n = t_begin(g, "flow");
    t_set(n, "element_size", 8);
    t_set(n, "flow", 0.375);
    flow3 = t_finish(g, n);
    t_opts(&o, W, W);
    o.dims = 4;
    o.time = 3; /* 3 / 8 turns */
    CHECK(ng_render_buffer(g, flow4, &o, a, NULL) == 0);
    o.dims = 3;
    CHECK(ng_render_buffer(g, flow3, &o, b, NULL) == 0);
    CHECK(memcmp(a, b, sizeof a) == 0);
    /* continuous: a step of 1/1000 turn moves no sample by more than
     * |d/dflow| (7.58 per turn, noise_kernels.h) times the step, with room */
    o.dims = 4;
    for (k = 0; k < 8; k++) {
        o.time = k * 0.77;
        o.threads = 1;
        CHECK(ng_render_buffer(g, flow4, &o, a, NULL) == 0);
        o.time += 8 * 1e-3;
        CHECK(ng_render_buffer(g, flow4, &o, b, NULL) == 0);
        worst = fmax(worst, max_step(a, b));
        o.threads = 3;
        o.time -= 8 * 1e-3;
        CHECK(ng_render_buffer(g, flow4, &o, c, NULL) == 0);
        CHECK(memcmp(a, c, sizeof a) == 0);
    }
    CHECKF(worst > 0 && worst < 8 * 1e-3 * 1.25, "largest step %g", worst);
    ng_graph_free(g);
}

NG_SUITE(anim, full)
{
    RUN(test_loop_every_basis);
    RUN(test_no_loop_no_change);
    RUN(test_flow_4d);
    if (cli_setup("ng-anim")) return; /* suite_cli reports the missing program */
    RUN(test_frames_named_and_padded);
    RUN(test_script_runs_once);
    RUN(test_frame_is_render_at_time);
    RUN(test_frame_node);
    RUN(test_notes_once);
    RUN(test_usage_errors);
    RUN(test_failure_mid_sequence);
    RUN(test_sigint_mid_sequence);
    RUN(test_sigterm_frames_stress);
    RUN(test_sigterm_on_another_thread);
    RUN(test_volume_frames);
    RUN(test_cli_loop);
    RUN(test_time_scale);
    RUN(test_ffmpeg_recipe);
    RUN(test_cli_loop_tileable_clouds);
    cli_teardown();
}
