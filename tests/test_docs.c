/*
 * test_docs.c — the pictures in docs/ are what the current code makes.
 *
 * docs/pictures lists every picture with the command that makes it (`make
 * docs` runs them through docs/render.sh). Here each line is rendered
 * again and must give the committed file byte for byte (our PNG encoder is
 * deterministic on every SIMD path and thread count), so a change of
 * output that forgets `make docs` fails, naming the picture. Besides:
 * - every PNG in docs/ is listed, but docs/serve.png, the browser test's
 *   screenshot of the page (fonts and timing make its bytes the machine's;
 *   `make docs` takes it too);
 * - README.md shows every listed picture, and every picture README.md
 *   shows exists;
 * - a picture of a script's render covers the world its script's header
 *   command renders (`--size` times `--pixel-size`), so a reader's own
 *   render of a README graph looks like the README's picture.
 */
#include "cli_support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXPIC 64
#define MAXARG 24

typedef struct picture {
    int line;
    char name[128];
    int nargs;
    char *args[MAXARG]; /* command, script (absolute), options; NULL-terminated */
} picture;

static picture pics[MAXPIC];
static int npics;
static char *manifest;

static char *dup_word(const char *s, size_t n)
{
    char *w = malloc(n + 1);
    if (w) {
        memcpy(w, s, n);
        w[n] = 0;
    }
    return w;
}

/* Splits docs/pictures into pics[]; a malformed line is a failure. */
static int load_manifest(void)
{
    char path[PATHLEN], *line, *save = NULL;
    size_t len;
    int lineno = 0;
    pathf(path, "%s/docs/pictures", ng_root);
    if (!(manifest = (char *)slurp(path, &len))) return -1;
    for (line = strtok_r(manifest, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        picture *p;
        const char *s = line;
        int word = 0;
        lineno++;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s || *s == '#') continue;
        CHECKF(npics < MAXPIC, "docs/pictures: more than %d pictures", MAXPIC);
        if (npics >= MAXPIC) break;
        p = &pics[npics++];
        p->line = lineno;
        while (*s) {
            size_t n = strcspn(s, " \t");
            if (word == 0) snprintf(p->name, sizeof p->name, "%.*s", (int)n, s);
            else if (word == 2) {
                char abs[PATHLEN];
                pathf(abs, "%s/%.*s", ng_root, (int)n, s);
                p->args[p->nargs++] = dup_word(abs, strlen(abs));
            } else if (p->nargs < MAXARG - 3)
                p->args[p->nargs++] = dup_word(s, n);
            word++;
            s += n;
            while (*s == ' ' || *s == '\t') s++;
        }
        CHECKF(word >= 3 && strstr(p->name, ".png"), "docs/pictures:%d: want PICTURE.png COMMAND SCRIPT OPTIONS...",
               lineno);
    }
    return 0;
}

static const char *option(const picture *p, const char *name)
{
    int k;
    for (k = 2; k + 1 < p->nargs; k++)
        if (strcmp(p->args[k], name) == 0) return p->args[k + 1];
    return NULL;
}

/* Each picture, rendered now, is the committed file. */
static void test_pictures_are_current(void)
{
    int i;
    for (i = 0; i < npics; i++) {
        picture *p = &pics[i];
        const char *argv[MAXARG + 4];
        char out[PATHLEN], committed[PATHLEN];
        res r;
        int k, n = 0;
        tpath(out, p->name);
        pathf(committed, "%s/docs/%s", ng_root, p->name);
        for (k = 0; k < 2; k++) argv[n++] = p->args[k];
        argv[n++] = "-o";
        argv[n++] = out;
        for (k = 2; k < p->nargs; k++) argv[n++] = p->args[k];
        argv[n] = NULL;
        run_argv(&r, DEFAULT_TIMEOUT, argv);
        CHECKF(r.code == 0, "docs/pictures:%d: %s: exit %d: %s", p->line, p->name, r.code, r.err);
        CHECKF(r.code != 0 || same_bytes(out, committed),
               "docs/%s is not what the current code makes (docs/pictures:%d): run `make docs`", p->name, p->line);
        res_free(&r);
    }
}

static int listed(const char *name)
{
    int i;
    for (i = 0; i < npics; i++)
        if (strcmp(pics[i].name, name) == 0) return 1;
    return 0;
}

/* No picture in docs/ escapes `make docs`. */
static void test_every_picture_is_listed(void)
{
    char path[PATHLEN];
    struct dirent *e;
    DIR *d;
    pathf(path, "%s/docs", ng_root);
    CHECK((d = opendir(path)) != NULL);
    if (!d) return;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".png") != 0 || e->d_name[0] == '.') continue;
        CHECKF(listed(e->d_name) || strcmp(e->d_name, "serve.png") == 0,
               "docs/%s is in no line of docs/pictures: `make docs` would not remake it", e->d_name);
    }
    closedir(d);
}

/* README shows each listed picture, and each picture it shows exists. */
static void test_readme_shows_the_pictures(void)
{
    char path[PATHLEN], want[200];
    size_t len;
    char *readme, *s;
    int i;
    pathf(path, "%s/README.md", ng_root);
    CHECK((readme = (char *)slurp(path, &len)) != NULL);
    if (!readme) return;
    for (i = 0; i < npics; i++) {
        snprintf(want, sizeof want, "](docs/%s)", pics[i].name);
        CHECKF(strstr(readme, want) != NULL, "README.md does not show docs/%s", pics[i].name);
    }
    for (s = readme; (s = strstr(s, "](docs/")) != NULL; s += 7) {
        size_t n = strcspn(s + 2, ")");
        char file[PATHLEN];
        pathf(file, "%s/%.*s", ng_root, (int)n, s + 2);
        CHECKF(exists(file), "README.md shows %.*s, which is not there", (int)n, s + 2);
    }
    free(readme);
}

/* WxH or N of a --size value; 0 when it is neither. */
static int parse_size(const char *v, double *w, double *h)
{
    char *end;
    *w = strtod(v, &end);
    if (end == v) return 0;
    if (*end == 'x') {
        *h = strtod(end + 1, &end);
        return *end == 0;
    }
    *h = *w;
    return *end == 0;
}

/* A render's picture covers the world of the script's own header command:
 * the header's --size equals the picture's --size times its --pixel-size. */
static void test_pictures_cover_the_scripts_world(void)
{
    int i;
    for (i = 0; i < npics; i++) {
        const picture *p = &pics[i];
        const char *size = option(p, "--size"), *px = option(p, "--pixel-size");
        double w = 0, h = 0, hw = 0, hh = 0, scale = px ? atof(px) : 1;
        char *text, *cmd;
        size_t len;
        if (strcmp(p->args[0], "render") != 0) continue; /* views choose their own framing */
        CHECKF(size && parse_size(size, &w, &h), "docs/pictures:%d: a render needs --size WxH", p->line);
        CHECKF((text = (char *)slurp(p->args[1], &len)) != NULL, "cannot read %s", p->args[1]);
        if (!text || !size) {
            free(text);
            continue;
        }
        cmd = strstr(text, "noisegraph render graphs/");
        CHECKF(cmd && strstr(cmd, "--size ") && (size_t)(strstr(cmd, "--size ") - cmd) < strcspn(cmd, "\n") &&
                   parse_size(strtok(strstr(cmd, "--size ") + 7, " \n"), &hw, &hh),
               "%s: its header names no `noisegraph render graphs/... --size WxH` command", p->args[1]);
        CHECKF(hw == w * scale && hh == h * scale,
               "docs/%s shows %gx%g world units, its script's header command renders %gx%g: a reader's render would "
               "not look like it",
               p->name, w * scale, h * scale, hw, hh);
        free(text);
    }
}

static void test_docs_environment(void)
{
    ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must name the program and the repository (run `make test`)");
}

NG_SUITE(docs, full)
{
    int i, k;
    if (cli_setup("ngdocs")) {
        RUN(test_docs_environment);
        return;
    }
    if (load_manifest()) ng_t_fail(__FILE__, __LINE__, "cannot read docs/pictures");
    /* Rendering every picture is a question of bits, which the optimised
     * run answers (the sanitized build takes 4 min on it; the same graphs'
     * renders run under SAN in the graphs suite). */
    if (!SANITIZED) RUN(test_pictures_are_current);
    RUN(test_every_picture_is_listed);
    RUN(test_readme_shows_the_pictures);
    RUN(test_pictures_cover_the_scripts_world);
    for (i = 0; i < npics; i++)
        for (k = 0; k < pics[i].nargs; k++) free(pics[i].args[k]);
    free(manifest);
    cli_teardown();
}
