/*
 * test_fuzz_regress.c — what the fuzzers found. Every reproducer in
 * tests/fuzz/crashes/<target>/ is replayed through the entry point its
 * target drives and must end as a hostile input should: a result or a
 * one-line error, never a crash or undefined behaviour. Most findings are
 * memory or UB errors, which only the sanitizer build (make test SAN=1)
 * sees; there these tests fail on the code the fuzzer broke.
 */
#include "cli_support.h"
#include "harness.h"
#include "ng_node.h"
#include "suites.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* The image target's allowance (tests/fuzz/image.c). */
#define MAX_BYTES ((size_t)64 << 20)

/* Calls fn(path) for every file of tests/fuzz/crashes/<target>/; returns
 * how many. */
static int each_reproducer(const char *target, void (*fn)(const char *path))
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
        fn(path);
        n++;
    }
    closedir(d);
    return n;
}

static void load_image(const char *path)
{
    ng_image img;
    ng_error err;
    if (ng_image_load(path, &img, MAX_BYTES, &err) == 0) {
        size_t i, n = (size_t)img.width * (size_t)img.height * (size_t)img.channels, bad = 0;
        for (i = 0; i < n; i++) bad += !(img.px[i] >= 0.0f && img.px[i] <= 1.0f);
        CHECKF(bad == 0, "%s: %zu samples outside [0, 1]", path, bad);
        ng_image_free(&img);
    } else {
        CHECKF(strncmp(err.msg, path, strlen(path)) == 0 && !strchr(err.msg, '\n'),
               "%s: the error does not name the file on one line: %s", path, err.msg);
    }
}

/* stb_image 2.27 (Debian's libstb) has two that the image target found in
 * its first minute: a PSD with an alpha channel is un-premultiplied with a
 * float -> unsigned char conversion out of range (UB); a JPEG whose DHT
 * code counts sum past 256 overflows stbi__huffman.size[257]. */
static void test_image_reproducers(void)
{
    CHECK(each_reproducer("image", load_image) >= 2);
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
