/*
 * filesink.c — the file sink: picks a format's row (formats.c) by the file
 * name's extension, checks what the row says the format takes, and gives
 * every format's encoder (png.c, pfm.c, raw16.c, vdb.c, nrrd.c, exr.c) the
 * same promise. The image goes to a temporary file beside the target, renamed
 * over it only when every row arrived and reached the disk; a failed or
 * cancelled render leaves whatever was at the target untouched and no
 * temporary file behind.
 *
 * Memory is one encoded row plus what the encoder keeps (O(width) for the
 * image formats, whatever the height; the active voxels for .vdb).
 *
 * Temporaries that outlive their render: a live one is in a fixed registry
 * that a signal handler can empty (ng_file_remove_temporaries); one whose
 * process was killed outright is found by name on the next render of the
 * same target. Every writer holds flock(LOCK_EX) on its temporary until it
 * is renamed or removed, so a temporary whose lock can be taken is stale.
 *
 * Slice sequences: a name with {z} in its file name ("slices/cloud_{z}.png")
 * takes a volume and writes one image per slice with any encoder of images.
 * The slices are written, under their final names, into one temporary
 * folder beside the target (".cloud_{z}.png.tmp-XXXXXX", locked and
 * registered like a temporary file, whatever the number of slices) and
 * moved out of it at commit, once the whole volume succeeded. Only the
 * current slab's slices are open at once.
 */
#ifndef _GNU_SOURCE
#define _XOPEN_SOURCE 700 /* mkstemp, fchmod, fsync, fseeko */
#endif

#include "filesink.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

/* IDLE: nothing open; WRITING: tmp, lock_fd, im.fp, im.row live;
 * PREPARED (deferred sinks): the temporary is complete and on disk, tmp and
 * lock_fd live, waiting for ng_file_sink_commit. */
enum { IDLE, WRITING, PREPARED };

struct ng_file_sink {
    char *path;               /* owned copy of the target */
    const ng__format *fmt;    /* its row */
    const ng__encoder *enc;   /* fmt->encoder */
    int state;
    int failed;               /* a begun image was discarded by an error */
    int deferred;             /* end() prepares; ng_file_sink_commit renames */
    char *tmp;                /* the temporary file's name, owned */
    int lock_fd;              /* holds the temporary's flock; -1 when none */
    int live;                 /* its slot in the registry, or -1 */
    int next_y;               /* the row rows() expects next (of the current slab, for volumes) */
    int next_z, slab_slices;  /* volumes: the current slab's first slice and its count */
    char *grid;               /* a volume's grid name, owned; NULL: "density" */
    /* A slice sequence: zat is where {z} is in the file name (-1: not a
     * sequence). tmp is the temporary folder, lock_fd its descriptor;
     * slices first + 0 .. first + made - 1 have files in it, the last
     * nslice of them open in slice[] while their slab arrives. */
    int zat;
    size_t dirlen;            /* the length of path's folder part, '/' included */
    int digits, first, made;
    ng__image *slice;         /* owned */
    int nslice;
    char *name;               /* scratch for a slice's file name, owned */
    double background;
    double memory_limit;      /* what an encoder may hold (a VDB tree); 0: no limit */
    uint64_t nan, inf;        /* samples the format changed (see ng_file_sink_changed) */
    uint64_t clamped, samples; /* finite samples outside [0, 1], of all (ng_file_sink_clamped) */
    ng_file_options opt;      /* ng_file_sink_set_options */
    /* Sharing one file (ng_file_sink_join): a member's lead, or NULL; a
     * lead's first member and each member's next, in the order joined. */
    ng_file_sink *lead, *member, *next;
    ng__image im;
};

/* ---- the registry of live temporaries ------------------------------------------ */

/* Fixed storage, so a signal handler reads no heap memory that another
 * thread may be freeing. A slot is FREE, CLAIMED (its path being written:
 * skipped) or LIVE. More live temporaries than slots are not registered:
 * a signal leaves those for the next run's stale sweep. A slice sequence,
 * however many slices it has, takes one slot: its temporary folder and
 * what names the files in it. */
enum { SLOT_FREE, SLOT_CLAIMED, SLOT_LIVE };
#define LIVE_SLOTS 64
#define LIVE_PATH 4352
#define LIVE_NAME 256 /* a file name and its NUL: NAME_MAX + 1 */
static struct {
    atomic_int state;
    char path[LIVE_PATH]; /* a temporary file, or a sequence's temporary folder */
    int dirfd;            /* a sequence: the folder, open; -1 for a file */
    char name[LIVE_NAME]; /* a sequence: the slices' file name pattern */
    int zat, digits, first;
    atomic_int made;      /* slices first .. first + made - 1 may exist */
} live[LIVE_SLOTS];

/* A slot with path in it, CLAIMED for the caller to finish and publish;
 * -1 when none is free. */
static int live_claim(const char *path)
{
    size_t n = strlen(path);
    int i;
    if (n >= LIVE_PATH) return -1;
    for (i = 0; i < LIVE_SLOTS; i++) {
        int expect = SLOT_FREE;
        if (atomic_compare_exchange_strong(&live[i].state, &expect, SLOT_CLAIMED)) {
            memcpy(live[i].path, path, n + 1);
            live[i].dirfd = -1;
            atomic_store(&live[i].made, 0);
            return i;
        }
    }
    return -1;
}

static int live_add(const char *tmp)
{
    int i = live_claim(tmp);
    if (i >= 0) atomic_store(&live[i].state, SLOT_LIVE);
    return i;
}

/* After the file is renamed or unlinked: a handler running in between
 * unlinks a name that is gone, which does nothing. */
static void live_drop(int slot)
{
    if (slot >= 0) atomic_store(&live[slot].state, SLOT_FREE);
}

/* The file name of slice `index` in buf (LIVE_NAME + 16 bytes at least,
 * name being shorter than LIVE_NAME): name with its {z} at zat replaced by
 * index, zero-padded to digits. Without stdio: the signal handler uses it. */
static void slice_name(char *buf, const char *name, int zat, int digits, int index)
{
    char num[16];
    int n = 0;
    size_t i = 0, k;
    do {
        num[n++] = (char)('0' + index % 10);
        index /= 10;
    } while (index > 0 && n < 15);
    while (n < digits && n < 15) num[n++] = '0';
    for (k = 0; k < (size_t)zat; k++) buf[i++] = name[k];
    while (n > 0) buf[i++] = num[--n];
    for (k = (size_t)zat + 3; name[k]; k++) buf[i++] = name[k];
    buf[i] = '\0';
}

/* A handler runs on whichever thread does not hold the signal, and a
 * library's own threads (OpenVDB's TBB workers) start with the signals
 * open: holding them on the thread that creates a temporary keeps that
 * thread's handler out, not another's, which could sweep the registry
 * while a temporary exists unregistered, then end the process (a frame of
 * a .vdb sequence now and then left one). So creating counts those being
 * created; the handler first says the process is stopping, then waits for
 * them to be registered; and once stopping is said, nothing is created. */
static atomic_int creating, stopping;

int ng_file_stopping(void) { return atomic_load(&stopping); }

void ng_file_remove_temporaries(void)
{
    char name[LIVE_NAME + 16];
    int i, k, made;
    atomic_store(&stopping, 1);
    /* a creation takes microseconds; a file system stuck for a second is
     * not waited on further (poll: a pause a handler may take) */
    for (i = 0; i < 1000 && atomic_load(&creating) > 0; i++) poll(NULL, 0, 1);
    for (i = 0; i < LIVE_SLOTS; i++) {
        if (atomic_load(&live[i].state) != SLOT_LIVE) continue;
        if (live[i].dirfd < 0) {
            unlink(live[i].path);
            continue;
        }
        made = atomic_load(&live[i].made);
        for (k = 0; k < made; k++) {
            slice_name(name, live[i].name, live[i].zat, live[i].digits, live[i].first + k);
            unlinkat(live[i].dirfd, name, 0);
        }
        rmdir(live[i].path);
    }
}

/* ---- for encoders ------------------------------------------------------------ */

int ng__image_fail(ng__image *im, int errnum, const char *fmt, ...)
{
    va_list ap;
    im->errnum = errnum;
    va_start(ap, fmt);
    vsnprintf(im->what, sizeof im->what, fmt, ap);
    va_end(ap);
    return -1;
}

int ng__image_write(ng__image *im, const void *data, size_t n)
{
    errno = 0;
    if (fwrite(data, 1, n, im->fp) != n)
        return ng__image_fail(im, errno ? errno : EIO, "cannot write");
    return 0;
}

/* fseeko flushes what is buffered, so a full disk shows up here too. */
int ng__image_seek(ng__image *im, off_t offset)
{
    errno = 0;
    if (fseeko(im->fp, offset, SEEK_SET) != 0)
        return ng__image_fail(im, errno ? errno : EIO, "cannot write");
    return 0;
}

void ng__put_floats_le(unsigned char *dst, const float *src, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &src[i], 4);
        dst[4 * i] = (unsigned char)(b & 0xff);
        dst[4 * i + 1] = (unsigned char)(b >> 8 & 0xff);
        dst[4 * i + 2] = (unsigned char)(b >> 16 & 0xff);
        dst[4 * i + 3] = (unsigned char)(b >> 24);
    }
}

/* ---- choosing a format ---------------------------------------------------------- */

/* A {z} names slices of one folder, each by one index. */
static int check_pattern(const char *path, ng_error *err)
{
    const char *z = strstr(path, "{z}"), *slash = strrchr(path, '/');
    if (!z) return 0;
    if (slash && z < slash)
        return ng_errorf(err, "%s: {z} must be in the file name, not in a folder name (the slices go into one folder)",
                         path);
    if (strstr(z + 3, "{z}")) return ng_errorf(err, "%s: {z} may appear only once", path);
    return 0;
}

/* The format of path and the sample depth to use: bits, or the format's
 * default for 0. 0, or -1 with err filled. */
static int choose(const char *path, int bits, const ng__format **fmt, int *use_bits, ng_error *err)
{
    const ng__format *e = NULL;
    char allowed[32] = "";
    int k;
    if (!path || !*path) return ng_errorf(err, "output: empty file name");
    if (check_pattern(path, err)) return -1;
    e = ng__format_of(path);
    if (!e)
        return ng_errorf(err, "%s: unknown image format (noisegraph writes %s)", path, ng_file_formats());
    for (k = 0; e->bits[k]; k++) {
        if (bits == 0 || bits == e->bits[k]) {
            *fmt = e;
            *use_bits = e->bits[k];
            return 0;
        }
        snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%d",
                 k ? " or " : "", e->bits[k]);
    }
    return ng_errorf(err, "%s: %s bits must be %s, not %d", path, e->name, allowed, bits);
}

int ng_file_check(const char *path, int bits, ng_error *err)
{
    const ng__format *fmt = NULL;
    int use_bits;
    return choose(path, bits, &fmt, &use_bits, err);
}

int ng_file_bits(const char *path, int bits)
{
    const ng__format *fmt = NULL;
    int use_bits;
    ng_error err;
    return choose(path, bits, &fmt, &use_bits, &err) ? 0 : use_bits;
}

static int holds_volumes(const ng__format *f) { return f->holds & NG__VOLUMES; }

/* Whether the format holds what the render makes; -1 with why. A {z}
 * sequence holds a volume as images of the format. */
static int holds(const char *path, const ng__format *e, int depth, ng_error *err)
{
    char volumes[64];
    if (strstr(path, "{z}")) {
        if (depth == 0) return ng_errorf(err, "%s: {z} needs a volume (--size WxHxD): it names one image per slice", path);
        if (!(e->holds & NG__IMAGES))
            return ng_errorf(err, "%s: {z} writes one image per slice, and %s %s file holds a volume", path,
                             ng__format_article(e), e->name);
        return 0;
    }
    if (depth > 0 && !(e->holds & NG__VOLUMES))
        return ng_errorf(err,
                         "%s: %s %s file holds an image, not a volume: write a volume to %s, "
                         "or to one image per slice with {z} in the name (cloud_{z}.png)",
                         path, ng__format_article(e), e->name, ng__format_list(volumes, sizeof volumes, holds_volumes, 1, " or "));
    if (depth == 0 && !(e->holds & NG__IMAGES))
        return ng_errorf(err, "%s: %s %s file holds a volume: render one with --size WxHxD", path,
                         ng__format_article(e), e->name);
    return 0;
}

int ng_file_check_depth(const char *path, int bits, int depth, ng_error *err)
{
    const ng__format *fmt = NULL;
    int use_bits;
    return choose(path, bits, &fmt, &use_bits, err) || holds(path, fmt, depth, err) ? -1 : 0;
}

/* ---- state ---------------------------------------------------------------------- */

static void drop_slices(ng_file_sink *f);

/* Drops everything a begun image holds; the temporary file is removed, the
 * target never touched. Safe in any state, any number of times. */
static void discard(ng_file_sink *f)
{
    if (f->enc->discard) f->enc->discard(&f->im);
    if (f->im.fp) fclose(f->im.fp); /* errors do not matter: the file goes */
    f->im.fp = NULL;
    /* before the lock goes: no sweep sees it unlocked */
    if (f->zat >= 0) drop_slices(f);
    else if (f->tmp) unlink(f->tmp);
    live_drop(f->live);
    f->live = -1;
    if (f->lock_fd >= 0) close(f->lock_fd);
    f->lock_fd = -1;
    free(f->tmp);
    f->tmp = NULL;
    free(f->im.row);
    f->im.row = NULL;
    f->state = IDLE;
}

/* Any failure after begin discards at once, so a full disk gets its space
 * back before the renderer gets round to end(). The message is
 * "PATH: WHAT" or, with errnum, "PATH: WHAT: strerror". */
static int fail(ng_file_sink *f, ng_error *err, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(ng_file_sink *f, ng_error *err, int errnum, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap); /* before discard: args may point into f */
    va_end(ap);
    discard(f);
    f->failed = 1;
    if (errnum) return ng_errorf(err, "%s: %s: %s", f->path, what, strerror(errnum));
    return ng_errorf(err, "%s: %s", f->path, what);
}

static int encoder_failed(ng_file_sink *f, ng_error *err)
{
    return fail(f, err, f->im.errnum, "%s", f->im.what[0] ? f->im.what : "encoder failed");
}

/* The umask can only be read by setting it, which races with other threads
 * creating files, so ask Linux first. */
static mode_t current_umask(void)
{
    char line[128];
    unsigned m;
    mode_t old;
    FILE *fp = fopen("/proc/self/status", "r");
    if (fp) {
        while (fgets(line, sizeof line, fp)) {
            if (sscanf(line, "Umask: %o", &m) == 1) {
                fclose(fp);
                return (mode_t)m;
            }
        }
        fclose(fp);
    }
    old = umask(022);
    umask(old);
    return old;
}

/* "<dir>/.<basename>.tmp-XXXXXX": same directory, so rename() is atomic;
 * hidden, so a half-written file does not look like output. */
static char *temp_template(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dirlen;
    size_t len = dirlen + 1 + strlen(base) + sizeof ".tmp-XXXXXX";
    char *t = malloc(len);
    if (!t) return NULL;
    snprintf(t, len, "%.*s.%s.tmp-XXXXXX", (int)dirlen, path, base);
    return t;
}

/* name is ".<base>.tmp-" and six characters of mkstemp's alphabet. */
static int is_temp_of(const char *name, const char *base)
{
    size_t n = strlen(base), i;
    if (name[0] != '.' || strncmp(name + 1, base, n) != 0 || strncmp(name + 1 + n, ".tmp-", 5) != 0) return 0;
    name += 1 + n + 5;
    for (i = 0; i < 6; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
              (name[i] >= '0' && name[i] <= '9')))
            return 0;
    return name[6] == '\0';
}

/* Empties and removes the temporary folder `name` in dfd (fd: the folder,
 * open). Only what a sequence puts there (files) goes; a folder holding
 * anything else stays. */
static void remove_temp_folder(int dfd, const char *name, int fd)
{
    int dup_fd = dup(fd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    struct dirent *e;
    if (!d) {
        if (dup_fd >= 0) close(dup_fd);
        return;
    }
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlinkat(fd, e->d_name, 0);
    closedir(d);
    unlinkat(dfd, name, AT_REMOVEDIR);
}

/* Removes temporaries of path left by a render that was killed (SIGKILL,
 * a crash, power loss): those whose flock nobody holds. A render still
 * running holds its lock, so its temporary stays. Best effort: a
 * directory that cannot be read is left as it is. The temporaries of a
 * {z} pattern are folders. */
static void remove_stale_temporaries(const char *path)
{
    const int folders = strstr(path, "{z}") != NULL;
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : NULL;
    int dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    struct dirent *e;
    free(dir);
    if (!d) {
        if (dfd >= 0) close(dfd);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        int fd;
        if (!is_temp_of(e->d_name, base)) continue;
        fd = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) continue;
        if (fstat(fd, &st) == 0 && (folders ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)) &&
            flock(fd, LOCK_EX | LOCK_NB) == 0) {
            if (folders) remove_temp_folder(dfd, e->d_name, fd);
            else unlinkat(dfd, e->d_name, 0);
        }
        close(fd);
    }
    closedir(d);
}

/* Creates, locks and registers the temporary file: f->tmp, f->lock_fd,
 * f->live; returns its descriptor for writing, or -1 with errno set. A
 * sweep of another render may remove the file between mkstemp and flock
 * (it was not locked yet); then it has no name left and another is made.
 * Where flock is not supported (some network file systems) the file goes
 * unlocked: a sweep there cannot lock it either, so leaves it alone. */
static int create_temp(ng_file_sink *f)
{
    int tries, fd;
    for (tries = 0; tries < 8; tries++) {
        struct stat st;
        if (!(f->tmp = temp_template(f->path))) {
            errno = ENOMEM;
            return -1;
        }
        if ((fd = mkstemp(f->tmp)) < 0) {
            int en = errno;
            free(f->tmp); /* nothing was created */
            f->tmp = NULL;
            errno = en;
            return -1;
        }
        if (flock(fd, LOCK_EX) != 0 || fstat(fd, &st) != 0 || st.st_nlink > 0) {
            /* the lock outlives fclose(im.fp) until the rename */
            if ((f->lock_fd = dup(fd)) < 0) {
                int en = errno;
                unlink(f->tmp);
                close(fd);
                free(f->tmp);
                f->tmp = NULL;
                errno = en;
                return -1;
            }
            f->live = live_add(f->tmp);
            return fd;
        }
        close(fd); /* swept before we locked it: the name is gone already */
        free(f->tmp);
        f->tmp = NULL;
    }
    errno = EAGAIN;
    return -1;
}

/* create (create_temp, create_temp_folder or create_slice) with the
 * signals whose handlers remove temporaries (SIGINT, SIGTERM, SIGHUP:
 * cli/signals.c) held from before the file exists until it is registered,
 * so a handler cannot run in between and leave it behind (a test that
 * signalled as soon as the file appeared found it there now and then).
 * Held, not lost: one that arrived is delivered when the mask is restored,
 * and removes the file. A handler on another thread waits for it (creating,
 * stopping above). */
static int create_registered(ng_file_sink *f, int (*create)(ng_file_sink *))
{
    sigset_t held, old;
    int rc, en;
    sigemptyset(&held);
    sigaddset(&held, SIGINT);
    sigaddset(&held, SIGTERM);
    sigaddset(&held, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &held, &old);
    atomic_fetch_add(&creating, 1);
    if (atomic_load(&stopping)) { /* a handler swept, or is sweeping: the process ends */
        rc = -1;
        en = EINTR;
    } else {
        rc = create(f);
        en = errno;
    }
    atomic_fetch_sub(&creating, 1);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = en;
    return rc;
}

/* ---- slice sequences ---------------------------------------------------------------- */

static const char *base_name(const ng_file_sink *f) { return f->path + f->dirlen; }

/* f->name: the file name of slice k of the window (index first + k). */
static void name_slice(ng_file_sink *f, int k)
{
    slice_name(f->name, base_name(f), f->zat, f->digits, f->first + k);
}

/* Like create_temp, a folder: f->tmp, f->lock_fd (the folder, open and
 * locked) and one registry slot for all its slices. 0, or -1 with errno. */
static int create_temp_folder(ng_file_sink *f)
{
    int tries, fd;
    for (tries = 0; tries < 8; tries++) {
        struct stat st;
        if (!(f->tmp = temp_template(f->path))) {
            errno = ENOMEM;
            return -1;
        }
        if (!mkdtemp(f->tmp)) {
            int en = errno;
            free(f->tmp);
            f->tmp = NULL;
            errno = en;
            return -1;
        }
        fd = open(f->tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            int en = errno;
            rmdir(f->tmp);
            free(f->tmp);
            f->tmp = NULL;
            errno = en;
            return -1;
        }
        if (flock(fd, LOCK_EX) != 0 || fstat(fd, &st) != 0 || st.st_nlink > 0) {
            f->lock_fd = fd;
            if (strlen(base_name(f)) < LIVE_NAME && (f->live = live_claim(f->tmp)) >= 0) {
                memcpy(live[f->live].name, base_name(f), strlen(base_name(f)) + 1);
                live[f->live].zat = f->zat;
                live[f->live].digits = f->digits;
                live[f->live].first = f->first;
                live[f->live].dirfd = fd;
                atomic_store(&live[f->live].state, SLOT_LIVE);
            }
            return 0;
        }
        close(fd); /* swept before we locked it: the name is gone already */
        free(f->tmp);
        f->tmp = NULL;
    }
    errno = EAGAIN;
    return -1;
}

/* The digits of the largest index, so names sort in slice order. */
static int digits_of(int n)
{
    int d = 1;
    while (n >= 10) {
        n /= 10;
        d++;
    }
    return d;
}

static int check_slice_targets(ng_file_sink *f, int count, ng_error *err);

static int begin_slices(ng_file_sink *f, ng_error *err)
{
    f->digits = digits_of(f->im.vol.full[2] - 1);
    f->first = f->im.vol.offset[2];
    f->made = 0;
    if (!(f->name = malloc(strlen(base_name(f)) + 16))) return fail(f, err, 0, "out of memory");
    remove_stale_temporaries(f->path);
    if (create_registered(f, create_temp_folder) != 0) return fail(f, err, errno, "cannot create temporary folder");
    f->state = WRITING; /* from here on discard() removes the folder */
    return check_slice_targets(f, f->im.vol.depth, err);
}

/* An encoder failure of slice k, as the sink's own. */
static int slice_failed(ng_file_sink *f, const ng__image *im, int k)
{
    name_slice(f, k);
    return ng__image_fail(&f->im, im->errnum, "%s: %s", f->name, im->what[0] ? im->what : "encoder failed");
}

/* The file of slice f->name in the temporary folder (already counted in
 * f->made, so a sweep looks for it). */
static int create_slice(ng_file_sink *f)
{
    return openat(f->lock_fd, f->name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
}

/* The slab's nslices images begin: each a new file in the folder. */
static int open_slices(ng_file_sink *f, int nslices)
{
    const size_t row = (size_t)f->im.width * (size_t)f->im.channels * (size_t)f->im.bits / 8;
    int s;
    if (!(f->slice = calloc((size_t)nslices, sizeof *f->slice)))
        return ng__image_fail(&f->im, 0, "out of memory for %d slices", nslices);
    for (s = 0; s < nslices; s++) {
        ng__image *im = &f->slice[s];
        int fd, k = f->made;
        *im = f->im;
        im->fp = NULL;
        im->row = NULL;
        im->state = NULL;
        im->depth = 0; /* each slice is an image of the format */
        im->opt.threads = 1; /* a slab's slices compress at once, each on the sink's thread */
        memset(&im->vol, 0, sizeof im->vol);
        f->nslice = s + 1;
        /* counted before it exists, so a signal never misses it */
        f->made++;
        if (f->live >= 0) atomic_store(&live[f->live].made, f->made);
        name_slice(f, k);
        fd = create_registered(f, create_slice);
        if (fd < 0) return ng__image_fail(&f->im, errno, "%s: cannot create", f->name);
        if (!(im->fp = fdopen(fd, "wb"))) {
            int en = errno;
            close(fd);
            return ng__image_fail(&f->im, en, "%s: cannot open", f->name);
        }
        if (!(im->row = malloc(row))) return ng__image_fail(&f->im, 0, "out of memory for a row");
        if (f->enc->begin && f->enc->begin(im) != 0) return slice_failed(f, im, k);
    }
    return 0;
}

/* The slab's images are complete: each ends and reaches the disk. */
static int close_slices(ng_file_sink *f)
{
    const int k0 = f->made - f->nslice;
    int s;
    for (s = 0; s < f->nslice; s++) {
        ng__image *im = &f->slice[s];
        FILE *fp = im->fp;
        if (f->enc->end && f->enc->end(im) != 0) return slice_failed(f, im, k0 + s);
        if (f->enc->discard) f->enc->discard(im);
        free(im->row);
        im->row = NULL;
        im->fp = NULL;
        errno = 0;
        if (fflush(fp) != 0 || fsync(fileno(fp)) != 0) {
            int en = errno ? errno : EIO;
            fclose(fp);
            name_slice(f, k0 + s);
            return ng__image_fail(&f->im, en, "%s: cannot write", f->name);
        }
        if (fclose(fp) != 0) {
            name_slice(f, k0 + s);
            return ng__image_fail(&f->im, errno ? errno : EIO, "%s: cannot write", f->name);
        }
    }
    free(f->slice);
    f->slice = NULL;
    f->nslice = 0;
    return 0;
}

/* One band of a slab: rows y .. y + nrows - 1 of its slices z .. z +
 * nslices - 1 (window indices), after sink_slab checked the order. */
static int slices_slab(ng_file_sink *f, int nslices, int y, int nrows, const float *data)
{
    const size_t slice = (size_t)nrows * (size_t)f->im.width * (size_t)f->im.channels;
    int s;
    if (!f->slice && open_slices(f, nslices) != 0) return -1;
    for (s = 0; s < nslices; s++)
        if (f->enc->rows(&f->slice[s], y, nrows, data + (size_t)s * slice) != 0)
            return slice_failed(f, &f->slice[s], f->made - f->nslice + s);
    return y + nrows == f->im.height ? close_slices(f) : 0;
}

/* discard() of a sequence: open slices close, every file made goes, then
 * the folder (the lock is still held). */
static void drop_slices(ng_file_sink *f)
{
    int s;
    for (s = 0; s < f->nslice; s++) {
        ng__image *im = &f->slice[s];
        if (f->enc->discard) f->enc->discard(im);
        if (im->fp) fclose(im->fp);
        free(im->row);
    }
    free(f->slice);
    f->slice = NULL;
    f->nslice = 0;
    if (f->tmp) {
        for (s = 0; s < f->made; s++) {
            name_slice(f, s);
            unlinkat(f->lock_fd, f->name, 0);
        }
        rmdir(f->tmp);
    }
    f->made = 0;
    free(f->name);
    f->name = NULL;
}

/* The slices move out of the folder, each replacing its target. A failure
 * half way leaves the slices moved so far and removes the others. */
/* to: the target of slice k ("dir/" + its name). */
static void slice_target(ng_file_sink *f, int k, char *to, size_t len)
{
    name_slice(f, k);
    snprintf(to, len, "%.*s%s", (int)f->dirlen, f->path, f->name);
}

/* Every target of slices first .. first + count - 1 can be replaced by a
 * file: none is a folder. Checked when the sequence begins and again
 * before its first rename, so a failure leaves every old slice in place. */
static int check_slice_targets(ng_file_sink *f, int count, ng_error *err)
{
    size_t len = strlen(f->path) + 16;
    char *to = malloc(len);
    int k, rc = 0;
    if (!to) return fail(f, err, 0, "out of memory");
    for (k = 0; k < count && rc == 0; k++) {
        struct stat st;
        slice_target(f, k, to, len);
        if (lstat(to, &st) == 0 && S_ISDIR(st.st_mode)) rc = fail(f, err, 0, "cannot replace %s: is a folder", to);
    }
    free(to);
    return rc;
}

static int commit_slices(ng_file_sink *f, ng_error *err)
{
    size_t len = strlen(f->path) + 16;
    char *to;
    int k, rc = 0;
    if (check_slice_targets(f, f->made, err)) return -1;
    if (!(to = malloc(len))) return fail(f, err, 0, "out of memory");
    for (k = 0; k < f->made && rc == 0; k++) {
        slice_target(f, k, to, len);
        if (renameat(f->lock_fd, f->name, AT_FDCWD, to) != 0) rc = fail(f, err, errno, "cannot replace %s", to);
    }
    free(to);
    if (rc == 0) discard(f); /* the folder is empty */
    return rc;
}

/* ---- the sink ------------------------------------------------------------------- */

/* channels suit the format's row; -1 after the message (fail) if not. */
static int check_channels(ng_file_sink *f, int channels, ng_error *err)
{
    const ng__format *e = f->fmt;
    switch (e->channels) {
    case NG__GREY_ONLY:
        if (channels == 1) return 0;
        return fail(f, err, 0, "%ss are grey only (1 channel), not %d channels", e->name, channels);
    case NG__VECTORS:
        if (channels >= 1 && channels <= 4) return 0;
        return fail(f, err, 0, "%s output takes 1 to 4 channels, not %d", e->name, channels);
    case NG__GREY_RGB_OR_RGBA:
        if (channels == 1 || channels == 3 || channels == 4) return 0;
        return fail(f, err, 0, "%s output takes 1 (grey), 3 (RGB) or 4 (RGBA) channels, not %d", e->name, channels);
    case NG__GREY_OR_RGB: break;
    }
    if (channels == 1 || channels == 3) return 0;
    return fail(f, err, 0, "%s output takes 1 (grey) or 3 (RGB) channels, not %d%s", e->name, channels,
                channels == 2 || channels == 4 ? " (no alpha channel)" : "");
}

/* An uncompressed file's samples must fit the file size limit (ulimit -f;
 * a sequence: each slice) and the free space of its folder (a sequence:
 * all slices), or the render would run to fail at the end. A folder whose
 * free space cannot be read is not refused. */
/* bytes as a message says them: "512 bytes", "16 KiB", "2.50 GiB" */
static const char *say_bytes(char buf[32], double bytes)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = -1;
    while (bytes >= 1024 && u < 4) bytes /= 1024, u++;
    if (u < 0) snprintf(buf, 32, "%.0f bytes", bytes);
    else snprintf(buf, 32, bytes == (double)(long long)bytes ? "%.0f %s" : "%.2f %s", bytes, unit[u]);
    return buf;
}

static int check_room(ng_file_sink *f, int width, int height, int depth, int channels, ng_error *err)
{
    char a[32], b[32];
    const double file = (double)width * height * channels * (f->im.bits / 8) * (depth && f->zat < 0 ? depth : 1);
    const double all = file * (depth && f->zat >= 0 ? depth : 1);
    char *dir = f->dirlen ? strndup(f->path, f->dirlen) : NULL;
    struct statvfs fs;
    struct rlimit lim;
    int have_fs = statvfs(dir ? dir : ".", &fs) == 0;
    free(dir);
    if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && file > (double)lim.rlim_cur)
        return fail(f, err, 0, "a %s %s is more than the file size limit (ulimit -f) of %s", say_bytes(a, file),
                    depth && f->zat >= 0 ? "slice" : "file", say_bytes(b, (double)lim.rlim_cur));
    if (have_fs && all > (double)fs.f_bavail * (double)fs.f_frsize)
        return fail(f, err, 0, "%s %s, more than the %s free on its disk",
                    depth && f->zat >= 0 ? "the slices need" : "the file needs", say_bytes(a, all),
                    say_bytes(b, (double)fs.f_bavail * (double)fs.f_frsize));
    return 0;
}

/* A member of a shared file (ng_file_sink_join) has no file of its own:
 * its encoder keeps what it made for the lead's end(). */
static int begin_member(ng_file_sink *f, ng_error *err)
{
    f->state = WRITING;
    f->im.joining = 1;
    f->im.row = malloc((size_t)f->im.width * (size_t)f->im.channels * (size_t)(f->im.bits / 8));
    if (!f->im.row) return fail(f, err, 0, "out of memory for a row");
    if (f->enc->begin && f->enc->begin(&f->im) != 0) return encoder_failed(f, err);
    return 0;
}

/* Before the lead's begin() (state WRITING: every member begun) and its
 * end() (PREPARED: every member complete): their images chained for its
 * encoder. 0, or -1 after fail(). */
static int chain_members(ng_file_sink *f, int state, ng_error *err)
{
    ng_file_sink *m;
    ng__image **link = &f->im.joined;
    for (m = f->member; m; m = m->next) {
        if (m->state != state)
            return fail(f, err, 0, "not written: its output '%s' did not %s", m->grid ? m->grid : "density",
                        state == WRITING ? "begin" : "finish");
        *link = &m->im;
        link = &m->im.joined;
    }
    *link = NULL;
    return 0;
}

/* begin and begin_volume: depth 0 for an image. */
static int begin_file(ng_file_sink *f, int width, int height, int depth, int channels, ng_error *err)
{
    const ng__format *e = f->fmt;
    size_t bytes = (size_t)f->im.bits / 8;
    int fd;

    if (f->state != IDLE) return ng_errorf(err, "%s: output begun twice", f->path);
    f->failed = 0;
    if (holds(f->path, e, depth, err)) {
        f->failed = 1;
        return -1;
    }
    if (check_channels(f, channels, err)) return -1;
    if (width < 1 || height < 1)
        return fail(f, err, 0, "cannot write a %dx%d %s: it needs at least one pixel", width, height,
                    e->name);
    /* Row bytes must fit size_t; encoders check their formats' own limits. */
    if ((size_t)width > (size_t)-1 / ((size_t)channels * bytes))
        return fail(f, err, 0, "a %d pixel wide row does not fit in memory", width);
    /* a level makes a format that takes one compressed (.nrrd's gzip): its size is not known */
    if (e->uncompressed && !((e->takes & NG__LEVEL) && f->im.opt.level > 0) &&
        check_room(f, width, height, depth, channels, err))
        return -1;
    f->im.width = width;
    f->im.height = height;
    f->im.depth = depth;
    f->im.channels = channels;
    f->im.grid = f->grid ? f->grid : "density";
    f->im.background = f->background;
    f->im.memory_limit = f->memory_limit;
    f->im.opt = f->opt;
    f->im.name = f->grid;
    f->im.joined = NULL;
    f->im.joining = 0;
    f->im.errnum = 0;
    f->im.what[0] = '\0';
    f->next_y = 0;
    f->next_z = f->slab_slices = 0;
    f->nan = f->inf = f->clamped = f->samples = 0;
    if (f->zat >= 0) return begin_slices(f, err);
    if (f->lead) return begin_member(f, err);

    remove_stale_temporaries(f->path);
    fd = create_registered(f, create_temp);
    if (fd < 0) return fail(f, err, errno, "cannot create temporary file");
    f->im.path = f->tmp;
    f->state = WRITING; /* from here on discard() removes the file */
    /* mkstemp makes 0600; a render should look like any file fopen makes. */
    if (fchmod(fd, 0666 & ~current_umask()) != 0) {
        int en = errno;
        close(fd);
        return fail(f, err, en, "cannot set permissions of temporary file");
    }
    f->im.fp = fdopen(fd, "wb");
    if (!f->im.fp) {
        int en = errno;
        close(fd);
        return fail(f, err, en, "cannot open temporary file");
    }
    f->im.row = malloc((size_t)width * (size_t)channels * bytes);
    if (!f->im.row) return fail(f, err, 0, "out of memory for a row");
    if (f->member && chain_members(f, WRITING, err)) return -1;
    if (f->enc->begin && f->enc->begin(&f->im) != 0) return encoder_failed(f, err);
    return 0;
}

static int sink_begin(void *user, int width, int height, int channels, ng_error *err)
{
    ng_file_sink *f = user;
    memset(&f->im.vol, 0, sizeof f->im.vol);
    return begin_file(f, width, height, 0, channels, err);
}

static int sink_begin_volume(void *user, const ng_volume_info *v, ng_error *err)
{
    ng_file_sink *f = user;
    if (v->depth < 1) return ng_errorf(err, "%s: a volume of depth %d", f->path, v->depth);
    f->im.vol = *v;
    return begin_file(f, v->width, v->height, v->depth, v->channels, err);
}

/* NaN and infinities, which an integer format cannot hold: NaN becomes 0,
 * infinities the end they point to; and finite samples outside [0, 1],
 * which it clamps (a signed noise written as it is loses half its
 * samples). Counted so the user hears of them. */
static void count_changed(ng_file_sink *f, const float *v, size_t n)
{
    uint64_t nan = 0, inf = 0, clamped = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &v[i], 4);
        if ((b & 0x7f800000u) == 0x7f800000u) { /* exponent all ones */
            if (b & 0x007fffffu) nan++;
            else inf++;
        } else {
            clamped += v[i] < 0.0f || v[i] > 1.0f;
        }
    }
    f->nan += nan;
    f->inf += inf;
    f->clamped += clamped;
    f->samples += n;
}

/* Whether the samples are quantized at this depth (an integer format). */
static int quantizes(const ng_file_sink *f)
{
    return !f->fmt->exact || (f->fmt->quantized_bits && f->im.bits == f->fmt->quantized_bits);
}

void ng_file_sink_changed(const ng_file_sink *f, uint64_t *nan, uint64_t *inf)
{
    *nan = f->nan;
    *inf = f->inf;
}

void ng_file_sink_clamped(const ng_file_sink *f, uint64_t *clamped, uint64_t *samples)
{
    *clamped = f->clamped;
    *samples = f->samples;
}

static int sink_rows(void *user, int y, int nrows, const float *rows, ng_error *err)
{
    ng_file_sink *f = user;
    if (f->state != WRITING)
        return ng_errorf(err, "%s: %s", f->path,
                         f->failed ? "not written: an earlier error stopped it" : "rows given before begin");
    if (f->im.depth > 0) return fail(f, err, 0, "rows given to a volume (slabs expected)");
    if (y != f->next_y || nrows < 0)
        return fail(f, err, 0, "rows from %d given where row %d of %d was expected", y, f->next_y,
                    f->im.height);
    if (nrows > f->im.height - y)
        return fail(f, err, 0, "rows %d..%lld given but the image has %d", y, (long long)y + nrows - 1,
                    f->im.height);
    if (quantizes(f)) count_changed(f, rows, (size_t)nrows * (size_t)f->im.width * (size_t)f->im.channels);
    if (f->enc->rows(&f->im, y, nrows, rows) != 0) return encoder_failed(f, err);
    f->next_y += nrows;
    return 0;
}

/* Slabs in the order ng_sink.slab promises: z-major, rows in order. */
static int sink_slab(void *user, int z, int nslices, int y, int nrows, const float *data, ng_error *err)
{
    ng_file_sink *f = user;
    if (f->state != WRITING || f->im.depth < 1)
        return ng_errorf(err, "%s: %s", f->path,
                         f->failed ? "not written: an earlier error stopped it" : "slab given before begin_volume");
    if (y == 0 && f->next_y == 0) { /* a new slab */
        if (z != f->next_z || nslices < 1 || nslices > f->im.depth - z)
            return fail(f, err, 0, "slices %d..%lld given where slice %d of %d was expected", z,
                        (long long)z + nslices - 1, f->next_z, f->im.depth);
        f->slab_slices = nslices;
    } else if (z != f->next_z || nslices != f->slab_slices || y != f->next_y) {
        return fail(f, err, 0, "slab %d+%d, rows from %d given where rows from %d of slab %d+%d were expected", z,
                    nslices, y, f->next_y, f->next_z, f->slab_slices);
    }
    if (nrows < 0 || nrows > f->im.height - y)
        return fail(f, err, 0, "rows %d..%lld given but the volume has %d", y, (long long)y + nrows - 1,
                    f->im.height);
    if (quantizes(f))
        count_changed(f, data, (size_t)nslices * (size_t)nrows * (size_t)f->im.width * (size_t)f->im.channels);
    if ((f->zat >= 0 ? slices_slab(f, nslices, y, nrows, data) : f->enc->slab(&f->im, z, nslices, y, nrows, data)) != 0)
        return encoder_failed(f, err);
    if ((f->next_y += nrows) == f->im.height) {
        f->next_y = 0;
        f->next_z += nslices;
    }
    return 0;
}

static int commit(ng_file_sink *f, ng_error *err);

static int sink_end(void *user, int ok, ng_error *err)
{
    ng_file_sink *f = user;
    FILE *fp;
    int en;

    if (!ok) {
        discard(f);
        return 0;
    }
    if (f->state != WRITING)
        return ng_errorf(err, "%s: %s", f->path,
                         f->failed ? "not written: an earlier error stopped it" : "end without begin");
    if (f->im.depth > 0 && (f->next_z != f->im.depth || f->next_y != 0))
        return fail(f, err, 0, "not written: only %d of %d slices written", f->next_z, f->im.depth);
    if (f->im.depth == 0 && f->next_y != f->im.height)
        return fail(f, err, 0, "not written: only %d of %d rows written", f->next_y, f->im.height);
    if (f->lead) { /* the lead writes it */
        f->state = PREPARED;
        return 0;
    }
    if (f->member && chain_members(f, PREPARED, err)) return -1;
    if (f->zat >= 0) { /* each slab's slices reached the disk as it ended */
        if (f->deferred) {
            f->state = PREPARED;
            return 0;
        }
        return commit(f, err);
    }
    if (f->enc->end && f->enc->end(&f->im) != 0) return encoder_failed(f, err);
    /* The data must be on disk before the rename makes it the target, or a
     * crash could leave an empty file where the old one was. */
    fp = f->im.fp;
    f->im.fp = NULL;
    if (fflush(fp) != 0 || fsync(fileno(fp)) != 0) {
        en = errno;
        fclose(fp);
        return fail(f, err, en, "cannot write");
    }
    if (fclose(fp) != 0) return fail(f, err, errno, "cannot write");
    if (f->deferred) {
        f->state = PREPARED;
        return 0;
    }
    return commit(f, err);
}

/* The complete temporary replaces the target. */
static int commit(ng_file_sink *f, ng_error *err)
{
    if (f->lead) { /* in the lead's file, written at its end */
        discard(f);
        return 0;
    }
    if (f->zat >= 0) return commit_slices(f, err);
    if (rename(f->tmp, f->path) != 0) return fail(f, err, errno, "cannot replace the file");
    free(f->tmp); /* renamed: nothing left to unlink */
    f->tmp = NULL;
    discard(f);
    return 0;
}

void ng_file_sink_defer(ng_file_sink *f) { f->deferred = 1; }

int ng_file_sink_commit(ng_file_sink *f, ng_error *err)
{
    if (f->state != PREPARED)
        return ng_errorf(err, "%s: not written: %s", f->path,
                         f->failed ? "an earlier error stopped it" : "the image is not complete");
    return commit(f, err);
}

ng_file_sink *ng_file_sink_new(const char *path, int bits, ng_error *err)
{
    const ng__format *fmt = NULL;
    ng_file_sink *f;
    size_t len;
    int use_bits;
    struct stat st;
    /* before the format: "dir" has no extension, and that is not the problem */
    if (path && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        ng_errorf(err, "%s: is a directory", path);
        return NULL;
    }
    if (choose(path, bits, &fmt, &use_bits, err) != 0) return NULL;
    len = strlen(path);
    f = calloc(1, sizeof *f);
    if (f) f->path = malloc(len + 1);
    if (!f || !f->path) {
        free(f);
        ng_errorf(err, "%s: out of memory", path);
        return NULL;
    }
    memcpy(f->path, path, len + 1);
    f->lock_fd = -1;
    f->live = -1;
    f->zat = strstr(path, "{z}") ? (int)(strstr(path, "{z}") - path) : -1;
    f->dirlen = strrchr(path, '/') ? (size_t)(strrchr(path, '/') - path) + 1 : 0;
    if (f->zat >= 0) f->zat -= (int)f->dirlen; /* within the file name: check_pattern */
    f->fmt = fmt;
    f->enc = fmt->encoder;
    f->im.bits = use_bits;
    f->state = IDLE;
    ng_file_options_default(&f->opt);
    return f;
}

ng_sink ng_file_sink_as_sink(ng_file_sink *f)
{
    ng_sink s = {sink_begin, sink_rows, sink_end, f, NULL, NULL};
    if ((f->fmt->holds & NG__VOLUMES) || f->zat >= 0) {
        s.begin_volume = sink_begin_volume;
        s.slab = sink_slab;
    }
    return s;
}

/* ---- encoding options ---------------------------------------------------------- */

void ng_file_options_default(ng_file_options *o)
{
    memset(o, 0, sizeof *o);
    o->level = -1;
    o->exr_compression = NG_EXR_ZIP;
    o->exr_dwa_level = -1;
    o->pixel_size = 1;
}

void ng_file_options_place(ng_file_options *o, const ng_render_opts *r)
{
    o->full[0] = r->width;
    o->full[1] = r->height;
    o->offset[0] = r->region[2] ? r->region[0] : 0;
    o->offset[1] = r->region[2] ? r->region[1] : 0;
    o->origin[0] = r->origin[0];
    o->origin[1] = r->origin[1];
    o->pixel_size = r->pixel_size;
    o->threads = r->threads;
}

/* Options e does not read are refused, so a user never believes a file
 * was written the way an option said when it was not. */
static int takes_level(const ng__format *f) { return f->takes & NG__LEVEL; }
static int takes_exr(const ng__format *f) { return f->takes & NG__EXR; }
static int takes_grid(const ng__format *f) { return f->takes & NG__GRID; }

static int takes_geo(const ng__format *f) { return f->takes & NG__GEO; }

static int check_options(const char *path, const ng__format *e, const ng_file_options *o, int bits, ng_error *err)
{
    char which[128], msg[400];
    if (o->level != -1 && (o->level < 0 || o->level > 9))
        return ng_errorf(err, "%s: --compression: level %d is not 0 to 9", path, o->level);
    if (o->level != -1 && !(e->takes & NG__LEVEL))
        return ng_errorf(err, "%s: --compression: %s has no compression level (%s do)", path, e->name,
                         ng__format_list(which, sizeof which, takes_level, 0, " and "));
    if ((o->exr_tile || o->exr_compression != NG_EXR_ZIP || o->exr_layout != NG_EXR_LAYERS || o->exr_mipmap) &&
        !(e->takes & NG__EXR))
        return ng_errorf(err,
                         "%s: --exr-tiles, --exr-compression, --exr-layout, --exr-mipmap: are for %s outputs, "
                         "not %s",
                         path, ng__format_list(which, sizeof which, takes_exr, 1, " or "), e->name);
    if ((unsigned)o->exr_layout > NG_EXR_FILES)
        return ng_errorf(err, "%s: unknown EXR layout %d", path, (int)o->exr_layout);
    if (o->grid && !(e->takes & NG__GRID))
        return ng_errorf(err, "%s: --vdb-background: is for %s outputs, not %s", path,
                         ng__format_list(which, sizeof which, takes_grid, 1, " or "), e->name);
    if (o->y_up && !(e->takes & NG__GRID))
        return ng_errorf(err, "%s: --vdb-up: is for %s outputs, not %s", path,
                         ng__format_list(which, sizeof which, takes_grid, 1, " or "), e->name);
    if (o->exr_tile < 0 || o->exr_tile > 65536)
        return ng_errorf(err, "%s: EXR tiles of %d pixels (1 to 65536)", path, o->exr_tile);
    if ((unsigned)o->exr_compression >= NG_EXR_NCOMPRESSIONS)
        return ng_errorf(err, "%s: unknown EXR compression %d", path, (int)o->exr_compression);
    if (o->exr_dwa_level != -1 && o->exr_compression != NG_EXR_DWAA && o->exr_compression != NG_EXR_DWAB)
        return ng_errorf(err, "%s: --exr-dwa-level: is for --exr-compression dwaa or dwab", path);
    if (o->exr_dwa_level != -1 && !(o->exr_dwa_level >= 0 && o->exr_dwa_level <= 10000))
        return ng_errorf(err, "%s: --exr-dwa-level: %g is not 0 to 10000", path, o->exr_dwa_level);
    if ((o->srs || o->nodata_set || o->cog) && !(e->takes & NG__GEO))
        return ng_errorf(err, "%s: --srs, --nodata, --cog: are for %s outputs, not %s", path,
                         ng__format_list(which, sizeof which, takes_geo, 1, " or "), e->name);
    if (o->threads < 0) return ng_errorf(err, "%s: %d encoder threads", path, o->threads);
    if (e->check && e->check(o, bits, msg, sizeof msg)) return ng_errorf(err, "%s: %s", path, msg);
    return 0;
}

int ng_file_check_options(const char *path, const ng_file_options *o, ng_error *err)
{
    const ng__format *e = NULL;
    int bits = 0;
    if (choose(path, 0, &e, &bits, err)) return -1;
    return check_options(path, e, o, bits, err);
}

int ng_file_sink_set_options(ng_file_sink *f, const ng_file_options *o, ng_error *err)
{
    if (check_options(f->path, f->fmt, o, f->im.bits, err)) return -1;
    f->opt = *o;
    return 0;
}

int ng_file_sink_join(ng_file_sink *member, ng_file_sink *lead, ng_error *err)
{
    ng_file_sink **link;
    int n = 0;
    if (!member->fmt->shares)
        return ng_errorf(err, "%s: a %s file holds one output; give each its own file", member->path,
                         member->fmt->name);
    if (member == lead || strcmp(member->path, lead->path) || member->state != IDLE || lead->state != IDLE ||
        member->lead || member->member || lead->lead)
        return ng_errorf(err, "%s: cannot join this output to the file", member->path);
    for (link = &lead->member; *link; link = &(*link)->next) n++;
    if (n + 1 >= NG__MAX_JOINED)
        return ng_errorf(err, "%s: more than %d outputs in one file", member->path, NG__MAX_JOINED);
    *link = member;
    member->lead = lead;
    return 0;
}

void ng_file_sink_set_memory_limit(ng_file_sink *f, double bytes) { f->memory_limit = bytes > 0 ? bytes : 0; }

int ng_file_sink_set_grid(ng_file_sink *f, const char *name, double background, ng_error *err)
{
    char *copy = NULL;
    if (name && !*name) return ng_errorf(err, "%s: an empty grid name", f->path);
    if (name && !(copy = strdup(name))) return ng_errorf(err, "%s: out of memory", f->path);
    free(f->grid);
    f->grid = copy;
    f->background = background;
    return 0;
}

/* A sink freed while still writing discards its image, as end(ok = 0). */
void ng_file_sink_free(ng_file_sink *f)
{
    if (!f) return;
    discard(f);
    free(f->grid);
    free(f->path);
    free(f);
}
