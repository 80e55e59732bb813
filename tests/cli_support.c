/*
 * cli_support.c — running the noisegraph program from tests: fork/execv
 * with stdout and stderr captured through pipes and an alarm so a hang
 * fails instead of stalling; the one-line error contract; scratch files;
 * reading PNGs back.
 */
#include "cli_support.h"

#include <png.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

const char *ng_bin;   /* absolute path of the program under test */
const char *ng_root;  /* repository root */
char tmpdir[PATHLEN]; /* mkdtemp directory for this suite */

/* ---- running the program ------------------------------------------------------ */


void res_free(res *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

static void append(char **buf, size_t *len, const char *data, size_t n)
{
    char *b = realloc(*buf, *len + n + 1);
    if (!b) return;
    memcpy(b + *len, data, n);
    *len += n;
    b[*len] = 0;
    *buf = b;
}

/* Runs NG_BIN with args (NULL-terminated), at most timeout seconds. */
void run_argv(res *r, unsigned timeout, const char *const *args)
{
    const char *argv[64];
    int po[2], pe[2], i, open_fds;
    pid_t pid;
    memset(r, 0, sizeof *r);
    r->out = calloc(1, 1);
    r->err = calloc(1, 1);
    r->code = -1000;
    argv[0] = ng_bin;
    for (i = 0; args[i] && i < 62; i++) argv[i + 1] = args[i];
    argv[i + 1] = NULL;
    if (pipe(po)) return;
    if (pipe(pe)) {
        close(po[0]);
        close(po[1]);
        return;
    }
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        return;
    }
    if (pid == 0) {
        int dn = open("/dev/null", O_RDONLY);
        if (dn >= 0) dup2(dn, 0);
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        if (dn > 2) close(dn);
        alarm(timeout); /* survives execv: a hang ends with SIGALRM */
        execv(ng_bin, (char *const *)argv);
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    open_fds = 2;
    while (open_fds) {
        struct pollfd fds[2];
        int nf = 0, k;
        if (po[0] >= 0) fds[nf].fd = po[0], fds[nf].events = POLLIN, fds[nf++].revents = 0;
        if (pe[0] >= 0) fds[nf].fd = pe[0], fds[nf].events = POLLIN, fds[nf++].revents = 0;
        if (poll(fds, (nfds_t)nf, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (k = 0; k < nf; k++) {
            char buf[4096];
            ssize_t n;
            if (!fds[k].revents) continue;
            n = read(fds[k].fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                close(fds[k].fd);
                if (fds[k].fd == po[0]) po[0] = -1;
                else pe[0] = -1;
                open_fds--;
            } else if (fds[k].fd == po[0]) {
                append(&r->out, &r->nout, buf, (size_t)n);
            } else {
                append(&r->err, &r->nerr, buf, (size_t)n);
            }
        }
    }
    if (po[0] >= 0) close(po[0]);
    if (pe[0] >= 0) close(pe[0]);
    {
        int st;
        while (waitpid(pid, &st, 0) < 0)
            if (errno != EINTR) return;
        r->code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? -WTERMSIG(st) : -1000;
    }
}

static void vrun(res *r, unsigned timeout, va_list ap)
{
    const char *args[64];
    int n = 0;
    const char *a;
    while ((a = va_arg(ap, const char *)) && n < 63) args[n++] = a;
    args[n] = NULL;
    run_argv(r, timeout, args);
}

/* cli(&r, "render", script, "-o", out, NULL) */
void cli(res *r, ...)
{
    va_list ap;
    va_start(ap, r);
    vrun(r, DEFAULT_TIMEOUT, ap);
    va_end(ap);
}

void cli_t(res *r, unsigned timeout, ...)
{
    va_list ap;
    va_start(ap, timeout);
    vrun(r, timeout, ap);
    va_end(ap);
}

/* ---- checking what it said ---------------------------------------------------- */

int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* The failure contract: exit code, nothing on stdout, exactly one line on
 * stderr that starts "noisegraph: " and contains every needle. */
void expect_err(const char *file, int line, const res *r, int code, const char *const *needles)
{
    int k;
    if (r->code != code)
        ng_t_fail(file, line, "exit code %d, expected %d; stderr: \"%s\"", r->code, code, r->err);
    if (r->nout)
        ng_t_fail(file, line, "stdout should be empty on failure, got \"%s\"", r->out);
    if (strncmp(r->err, "noisegraph: ", 12) != 0 || count_lines(r->err) != 1 ||
        r->err[r->nerr ? r->nerr - 1 : 0] != '\n')
        ng_t_fail(file, line, "stderr should be one line \"noisegraph: ...\", got \"%s\"", r->err);
    for (k = 0; needles[k]; k++)
        if (!strstr(r->err, needles[k]))
            ng_t_fail(file, line, "stderr should contain \"%s\", got \"%s\"", needles[k], r->err);
}

/* Success: exit 0 and a silent stderr (no progress: stderr is a pipe). */
/* Whether every line of s is the note that a file format clamped part of
 * an output ("noisegraph: FILE: N % of the samples were outside [0, 1]
 * and were clamped (...)"). */
static int only_clamp_notes(const char *s)
{
    while (*s) {
        const char *end = strchr(s, '\n');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        static const char note[] = "% of the samples were outside [0, 1] and were clamped (";
        if (strncmp(s, "noisegraph: ", 12) != 0 || !memmem(s, len, note, sizeof note - 1)) return 0;
        s += len + (end != NULL);
    }
    return 1;
}

void expect_ok(const char *file, int line, const res *r)
{
    if (r->code != 0 || !only_clamp_notes(r->err))
        ng_t_fail(file, line, "expected success, got exit %d; stderr: \"%s\"", r->code, r->err);
}

void expect_silent(const char *file, int line, const res *r)
{
    if (r->code != 0 || r->nerr)
        ng_t_fail(file, line, "expected silent success, got exit %d; stderr: \"%s\"", r->code, r->err);
}

/* ---- files ---------------------------------------------------------------------- */

/* snprintf into a PATHLEN buffer; a path that does not fit fails the test. */
void pathf(char *buf, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf, PATHLEN, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= PATHLEN) ng_t_fail(__FILE__, __LINE__, "path too long: %s", buf);
}

void tpath(char *buf, const char *name) { pathf(buf, "%s/%s", tmpdir, name); }

void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        ng_t_fail(__FILE__, __LINE__, "cannot write %s", path);
        return;
    }
    fputs(text, f);
    fclose(f);
}

/* Writes text to tmpdir/name and puts that path in buf. */
void mkscript(char *buf, const char *name, const char *text)
{
    tpath(buf, name);
    put_file(buf, text);
}

/* A fresh directory tmpdir/name, its path in buf. */
void mksub(char *buf, const char *name)
{
    tpath(buf, name);
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) ng_t_fail(__FILE__, __LINE__, "mkdir %s", buf);
}

/* "path:line:" as Lua prints a script position. */
const char *at(const char *path, int line)
{
    static char buf[4][PATHLEN + 32];
    static int next;
    char *b = buf[next++ & 3];
    if (snprintf(b, PATHLEN + 32, "%s:%d:", path, line) >= PATHLEN + 32) b[0] = 0;
    return b;
}

unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t n = 0, cap = 0;
    *len = 0;
    if (!f) return NULL;
    for (;;) {
        size_t got;
        if (n == cap) {
            unsigned char *b = realloc(buf, cap = cap ? 2 * cap : 65536);
            if (!b) break;
            buf = b;
        }
        got = fread(buf + n, 1, cap - n, f);
        if (!got) break;
        n += got;
    }
    fclose(f);
    if (buf && n == cap) { /* room for the terminator */
        unsigned char *b = realloc(buf, n + 1);
        if (!b) {
            free(buf);
            return NULL;
        }
        buf = b;
    }
    if (buf) buf[n] = 0; /* text files read back are strings */
    *len = n;
    return buf;
}

int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int same_bytes(const char *a, const char *b)
{
    size_t na, nb;
    unsigned char *da = slurp(a, &na), *db = slurp(b, &nb);
    int same = da && db && na == nb && memcmp(da, db, na) == 0;
    free(da);
    free(db);
    return same;
}

/* The IHDR fields of a PNG: bytes 16-19 width, 20-23 height, 24 bit depth,
 * 25 colour type (0 grey, 2 RGB). Returns 0 when the file is not a PNG. */
int ihdr(const char *path, unsigned *w, unsigned *h, int *depth, int *ctype)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    size_t n;
    unsigned char *d = slurp(path, &n);
    int ok = d && n >= 33 && memcmp(d, sig, 8) == 0 && memcmp(d + 12, "IHDR", 4) == 0;
    if (ok) {
        *w = (unsigned)d[16] << 24 | (unsigned)d[17] << 16 | (unsigned)d[18] << 8 | d[19];
        *h = (unsigned)d[20] << 24 | (unsigned)d[21] << 16 | (unsigned)d[22] << 8 | d[23];
        *depth = d[24];
        *ctype = d[25];
    }
    free(d);
    return ok;
}

/* Decodes a PNG with libpng's simplified API into format; NULL on failure. */
void *decode(const char *path, png_uint_32 format, int *w, int *h)
{
    png_image img;
    void *buf;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path)) return NULL;
    img.format = format;
    if (!(buf = malloc(PNG_IMAGE_SIZE(img)))) {
        png_image_free(&img);
        return NULL;
    }
    if (!png_image_finish_read(&img, NULL, buf, 0, NULL)) {
        free(buf);
        png_image_free(&img);
        return NULL;
    }
    *w = (int)img.width;
    *h = (int)img.height;
    return buf;
}

uint16_t *read_png16(const char *path, int *w, int *h, int *channels)
{
    FILE *f = fopen(path, "rb");
    png_structp png = NULL;
    png_infop info = NULL;
    uint16_t *volatile px = NULL;
    unsigned char *volatile row = NULL;
    png_uint_32 pw, ph, i, j;
    int depth, ctype, ok = 0;
    if (!f || !(png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL))) goto done;
    if (!(info = png_create_info_struct(png)) || setjmp(png_jmpbuf(png))) goto done;
    png_init_io(png, f);
    png_read_info(png, info);
    png_get_IHDR(png, info, &pw, &ph, &depth, &ctype, NULL, NULL, NULL);
    *channels = png_get_channels(png, info);
    if (depth != 16 || !(px = malloc((size_t)pw * ph * (size_t)*channels * 2)) ||
        !(row = malloc((size_t)pw * (size_t)*channels * 2)))
        goto done;
    for (j = 0; j < ph; j++) {
        png_read_row(png, row, NULL);
        for (i = 0; i < pw * (png_uint_32)*channels; i++)
            px[(size_t)j * pw * (size_t)*channels + i] = (uint16_t)(row[2 * i] << 8 | row[2 * i + 1]);
    }
    *w = (int)pw, *h = (int)ph;
    ok = 1;
done:
    if (png) png_destroy_read_struct(&png, info ? &info : NULL, NULL);
    if (f) fclose(f);
    free(row);
    if (!ok) {
        free(px);
        return NULL;
    }
    return px;
}

/* Entries of dir whose name contains part. */
int count_entries(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d) return -1;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strstr(e->d_name, part)) n++;
    closedir(d);
    return n;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

int cli_setup(const char *prefix)
{
    ng_bin = getenv("NG_BIN");
    ng_root = getenv("NG_ROOT");
    if (!ng_bin || !*ng_bin || !ng_root || !*ng_root || access(ng_bin, X_OK) != 0) return -1;
    pathf(tmpdir, "%s/%s-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", prefix);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

void cli_teardown(void) { nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* A PNG through libpng's low-level writer: every sample as given, no gamma
 * or alpha handling. rows: height rows of width * channels samples
 * (bytes, or 16-bit values when depth is 16). */
int write_png(const char *path, int w, int h, int depth, int ctype, int nch, const void *samples)
{
    FILE *f = fopen(path, "wb");
    png_structp png = NULL;
    png_infop info = NULL;
    unsigned char *row = malloc((size_t)w * (size_t)nch * 2);
    int ok = 0, i, j;
    if (!f || !row) goto done;
    if (!(png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL))) goto done;
    if (!(info = png_create_info_struct(png))) goto done;
    if (setjmp(png_jmpbuf(png))) goto done;
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, depth, ctype, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (j = 0; j < h; j++) {
        for (i = 0; i < w * nch; i++) {
            if (depth == 16) {
                unsigned v = ((const unsigned short *)samples)[j * w * nch + i];
                row[2 * i] = (unsigned char)(v >> 8), row[2 * i + 1] = (unsigned char)(v & 0xff);
            } else {
                row[i] = ((const unsigned char *)samples)[j * w * nch + i];
            }
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    ok = 1;
done:
    if (png) png_destroy_write_struct(&png, info ? &info : NULL);
    if (f) ok &= fclose(f) == 0;
    free(row);
    if (!ok) ng_t_fail(__FILE__, __LINE__, "cannot write the fixture %s", path);
    return ok;
}

/* cli_spawn: see cli_support.h. */
pid_t cli_spawn(const char *const *args)
{
    const char *argv[16];
    pid_t pid;
    int i;
    argv[0] = ng_bin;
    for (i = 0; args[i] && i < 14; i++) argv[i + 1] = args[i];
    argv[i + 1] = NULL;
    fflush(stdout);
    fflush(stderr);
    if ((pid = fork()) == 0) {
        int null = open("/dev/null", O_WRONLY);
        sigset_t none;
        if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0) _exit(126);
        signal(SIGINT, SIG_DFL);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        alarm(DEFAULT_TIMEOUT * 2);
        execv(ng_bin, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* sh -c cmd; its exit status (stdout and stderr into *out when out). */
int shell(const char *cmd, char **out)
{
    char buf[4096], *text = calloc(1, 1);
    size_t len = 0, n;
    int st;
    FILE *p;
    fflush(stdout);
    if (!(p = popen(cmd, "r"))) return -1;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) {
        char *t = realloc(text, len + n + 1);
        if (!t) break;
        text = t;
        memcpy(text + len, buf, n);
        len += n;
        text[len] = '\0';
    }
    st = pclose(p);
    if (out) *out = text;
    else free(text);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
