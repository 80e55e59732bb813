/*
 * test_fuzz_regress.c — what the fuzzers found. Every reproducer in
 * tests/fuzz/crashes/<target>/ is replayed through the entry point its
 * target drives and must end as a hostile input should: a result or a
 * one-line error, never a crash or undefined behaviour. Most findings are
 * memory or UB errors, which only the sanitizer build (make test SAN=1)
 * sees; there these tests fail on the code the fuzzer broke.
 */
#include "ng_io.h"
#include "cli_support.h"
#include "harness.h"
#include "ng_node.h"
#include "suites.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The image target's allowance (tests/fuzz/image.c). */
#define MAX_BYTES ((size_t)64 << 20)

/* Replays one reproducer in a child process, so that a sanitizer report
 * (which ends the process) fails this test and not the whole run; fn
 * returns 0 when the input ended as it should, or prints why not. */
static void replay(const char *path, int (*fn)(const char *path))
{
    int status = 0;
    pid_t pid;
    fflush(NULL);
    pid = fork();
    if (pid == 0) _exit(fn(path) ? 3 : 0);
    CHECKF(pid > 0 && waitpid(pid, &status, 0) == pid, "%s: fork failed", path);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "%s: %s %d (a sanitizer report above, or a wrong result)", path,
           WIFEXITED(status) ? "exit" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

/* Replays every file of tests/fuzz/crashes/<target>/; returns how many. */
static int replay_all(const char *target, int (*fn)(const char *path))
{
    char dir[PATHLEN], path[PATHLEN];
    struct dirent *e;
    int n = 0;
    DIR *d;
    pathf(dir, "%s/tests/fuzz/crashes/%s", ng_root, target);
    if (!(d = opendir(dir))) return 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        pathf(path, "%s/%s", dir, e->d_name);
        replay(path, fn);
        n++;
    }
    closedir(d);
    return n;
}

/* Loads, with samples in [0, 1], or refuses with a one-line error that
 * names the file. */
static int load_image(const char *path)
{
    ng_image img;
    ng_error err;
    if (ng_image_load(path, &img, MAX_BYTES, &err) == 0) {
        size_t i, n = (size_t)img.width * (size_t)img.height * (size_t)img.channels, bad = 0;
        for (i = 0; i < n; i++) bad += !(img.px[i] >= 0.0f && img.px[i] <= 1.0f);
        ng_image_free(&img);
        if (bad) fprintf(stderr, "%s: %zu samples outside [0, 1]\n", path, bad);
        return bad != 0;
    }
    if (strncmp(err.msg, path, strlen(path)) != 0 || strchr(err.msg, '\n')) {
        fprintf(stderr, "%s: the error does not name the file on one line: %s\n", path, err.msg);
        return -1;
    }
    return 0;
}

/* stb_image 2.27 (Debian's libstb) has two that the image target found in
 * its first minute: a PSD with an alpha channel is un-premultiplied with a
 * float -> unsigned char conversion out of range (UB); a JPEG whose DHT
 * code counts sum past 256 overflows stbi__huffman.size[257]. */
static void test_image_reproducers(void)
{
    CHECK(replay_all("image", load_image) >= 2);
}

void suite_fuzz_regress(void)
{
    if (cli_setup("ngfuzzregress")) {
        ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must be set");
        return;
    }
    RUN(test_image_reproducers);
    cli_teardown();
}
