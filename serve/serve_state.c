/*
 * serve_state.c — what the server serves: the script's last good run (the
 * "base", with its parameters at their defaults), recent runs with other
 * parameter values, the generation and the last run's error, and the
 * watcher thread that re-runs the script when one of its files changes.
 *
 * Ownership: every ng_served is reference-counted. The state holds one
 * reference to the base and one to each cached run; each request holds one
 * while it reads or renders the graph, so a swap (a new generation) never
 * frees a graph under a render: the last ng_served_put frees it.
 *
 * Runs: each in a child process (serve_child.c), its graph built again
 * here, so a script stuck in C code ends with its run, not the server. At
 * most SERVE_RUNS run at once (the watcher's re-runs and requests with new
 * parameter values alike); requests for the same values share one run;
 * the cache keeps recent runs while their graphs hold at most the memory
 * limit between them. So the server holds at most the base, the cache and
 * the runs in progress (and what requests in progress hold), each within
 * the memory limit, however many requests come.
 *
 * Watching: editors save by writing a new file and renaming it over the
 * old, so the directories of the files are watched (inotify) and events
 * are matched by name. The files are the script, every module it required
 * and every file a node's option names (host's on_require, from the
 * script's child as it runs, so those of a run that failed too), and
 * every file a good run's nodes read (their path options). A
 * burst of events is debounced: the script runs once they have been quiet
 * for DEBOUNCE_MS.
 */
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEBOUNCE_MS 50
#define CACHE_SIZE 8
#define SERVE_RUNS 2 /* script runs at once: each may take a core and the memory limit */
#define MAX_WATCHED 256
#define SOURCE_SCAN_MAX (64L << 20) /* bytes read to find an error's line */

typedef struct watched {
    int wd;
    char name[NAME_MAX + 1];
} watched;

static struct {
    const ng_serve_opts *cli;
    char dir[PATH_MAX]; /* the script's directory as given ("." when none) */
    char realdir[PATH_MAX]; /* and with symlinks resolved ("" when it cannot be) */
    pthread_mutex_t mu;
    pthread_cond_t changed;
    long generation;
    ng_served *base;
    ng_served *cache[CACHE_SIZE];
    int next_slot;
    struct pending *pending; /* runs in progress for parameter values */
    int running;             /* runs in progress (SERVE_RUNS at most) */
    pthread_cond_t ran;      /* a run ended: its waiters and those for a turn look again */
    int has_error;
    ng_script_error error;
    int stopping;
    /* the watcher */
    pthread_t thread;
    int thread_running;
    int ifd, wake[2];
    pthread_mutex_t watch_mu; /* files[]: scripts run on request threads add to it */
    watched files[MAX_WATCHED];
    int nfiles;
} st = {.mu = PTHREAD_MUTEX_INITIALIZER,
        .changed = PTHREAD_COND_INITIALIZER,
        .ran = PTHREAD_COND_INITIALIZER,
        .watch_mu = PTHREAD_MUTEX_INITIALIZER,
        .ifd = -1,
        .wake = {-1, -1}};

const ng_serve_opts *ng_serve_cli(void) { return st.cli; }

/* ---- watching --------------------------------------------------------------------- */

/* Adds path's directory to the inotify set and its name to the files
 * whose events count. Quietly ignores what cannot be watched (the script
 * still works; it is just not re-run on that file). */
static void watch_file(const char *path)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    int wd, i;
    if (st.ifd < 0 || !*name || strlen(name) > NAME_MAX) return;
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    wd = inotify_add_watch(st.ifd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE);
    if (wd < 0) return;
    pthread_mutex_lock(&st.watch_mu);
    for (i = 0; i < st.nfiles; i++)
        if (st.files[i].wd == wd && !strcmp(st.files[i].name, name)) break;
    if (i == st.nfiles && st.nfiles < MAX_WATCHED) {
        st.files[st.nfiles].wd = wd;
        snprintf(st.files[st.nfiles].name, sizeof st.files[st.nfiles].name, "%s", name);
        st.nfiles++;
    }
    pthread_mutex_unlock(&st.watch_mu);
}

static void on_require(void *user, const char *path)
{
    (void)user;
    watch_file(path);
}

/* The files the graph's nodes read (images): their path options. */
static void watch_graph_files(const ng_script *s)
{
    int i, k;
    for (i = 0; i < ng_graph_count(s->graph); i++) {
        const ng_node *n = ng_graph_node(s->graph, i);
        const ng_node_type *t = ng_node_type_of(n);
        for (k = 0; k < t->nparams; k++)
            if (t->params[k].kind == NG_PARAM_PATH && ng_node_param(n, k)->s) watch_file(ng_node_param(n, k)->s);
    }
}

static int is_watched(int wd, const char *name)
{
    int i, hit = 0;
    pthread_mutex_lock(&st.watch_mu);
    for (i = 0; i < st.nfiles && !hit; i++) hit = st.files[i].wd == wd && !strcmp(st.files[i].name, name);
    pthread_mutex_unlock(&st.watch_mu);
    return hit;
}

/* Reads the pending events; whether one concerns a watched file. */
static int drain_events(void)
{
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    int hit = 0;
    for (;;) {
        ssize_t n = read(st.ifd, buf, sizeof buf), off = 0;
        if (n <= 0) return hit; /* EAGAIN: nothing more */
        while (off < n) {
            const struct inotify_event *e = (const struct inotify_event *)(buf + off);
            if (e->len && is_watched(e->wd, e->name)) hit = 1;
            if (e->mask & IN_Q_OVERFLOW) hit = 1; /* lost events: assume ours */
            off += (ssize_t)sizeof *e + e->len;
        }
    }
}

/* ---- running the script ------------------------------------------------------------ */

static void served_free(ng_served *s)
{
    ng_script_free(&s->s);
    free(s->key);
    free(s);
}

void ng_served_put(ng_served *s)
{
    if (s && atomic_fetch_sub(&s->refs, 1) == 1) served_free(s);
}

static ng_served *ref(ng_served *s)
{
    if (s) atomic_fetch_add(&s->refs, 1);
    return s;
}

/* A run of the script with sets (NULL: none) in a child process: 0 with
 * *out; -1 (the script failed) or -2 (its time limit ended it) with err. */
static int run(const ng_serve_sets *sets, const char *key, long generation, ng_served **out, ng_error *err)
{
    ng_host_opts h = st.cli->h;
    ng_served *s = calloc(1, sizeof *s);
    int i, rc;
    *out = NULL;
    if (!s || !(s->key = strdup(key))) {
        free(s);
        return ng_errorf(err, "%s: out of memory", st.cli->script);
    }
    /* the command line's --set values (h's already), then the query's: a
     * query's value replaces the command line's of that name (the API
     * bounds the query's own count, not the two together) */
    for (i = 0; sets && i < sets->n; i++) {
        int k;
        for (k = 0; k < h.nsets && strcmp(h.set_name[k], sets->name[i]); k++) continue;
        if (k == NG_MAX_SETS) {
            free(s->key);
            free(s);
            return ng_errorf(err, "%s: more than %d parameters set, with serve's --set", st.cli->script, NG_MAX_SETS);
        }
        if (k == h.nsets) h.nsets++;
        h.set_name[k] = sets->name[i], h.set_value[k] = sets->value[i];
    }
    h.on_require = on_require;
    if ((rc = ng_child_script(st.cli->script, &h, NULL, &s->s, err))) {
        free(s->key);
        free(s);
        return rc;
    }
    watch_graph_files(&s->s);
    s->generation = generation;
    atomic_init(&s->refs, 1);
    *out = s;
    return 0;
}

/* A turn to run (st.mu held): 0, or -1 when the server stops or gives_up()
 * says so while waiting (looked at every 50 ms). */
static int run_turn_take(int (*gives_up)(const void *), const void *arg)
{
    while (st.running >= SERVE_RUNS && !st.stopping && !(gives_up && gives_up(arg))) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += 50000000;
        if (t.tv_nsec >= 1000000000) t.tv_sec++, t.tv_nsec -= 1000000000;
        pthread_cond_timedwait(&st.ran, &st.mu, &t);
    }
    if (st.running >= SERVE_RUNS) return -1;
    st.running++;
    return 0;
}

static void run_turn_give(void)
{
    st.running--;
    pthread_cond_broadcast(&st.ran);
}

/* Where a message names its file: after the "SCRIPT: " the host puts
 * before a message that does not start with the script's path (a module's
 * error, an error() of the script's own), up to the first ":DIGITS:".
 * *what is the text after that location (the whole message without one). */
static const char *error_at(const char *msg, int *line, size_t *len, const char **what)
{
    const char *rest = msg, *p;
    size_t sl = strlen(st.cli->script);
    if (!strncmp(msg, st.cli->script, sl) && !strncmp(msg + sl, ": ", 2)) rest = msg + sl + 2;
    for (p = rest; (p = strchr(p, ':')); p++) {
        const char *d = p + 1;
        while (*d >= '0' && *d <= '9') d++;
        if (d > p + 1 && d - p < 11 && *d == ':') {
            *line = atoi(p + 1);
            *len = (size_t)(p - rest);
            *what = d + 1 + (d[1] == ' ');
            return rest;
        }
    }
    *line = 0;
    *len = sl;
    *what = msg;
    return st.cli->script;
}

/* path opened for reading when it is a regular file inside the script's
 * directory tree (symlinks resolved), the files the sandbox lets the
 * script read; else NULL. The path comes from the error's text, which the
 * script writes (error("/etc/passwd:1: x", 0)): trusted, it would show
 * lines of any file, or hang on a FIFO or /dev/zero. */
static FILE *open_in_tree(const char *path)
{
    char real[PATH_MAX];
    size_t dl = strlen(st.realdir);
    struct stat sb;
    FILE *f = NULL;
    int fd;
    if (!dl || !realpath(path, real) || strncmp(real, st.realdir, dl) ||
        (real[dl] != '/' && strcmp(st.realdir, "/")))
        return NULL;
    if ((fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) return NULL;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || !(f = fdopen(fd, "r"))) close(fd);
    return f;
}

/* Line n (from 1) of the file into out, cut to size; "" past its end. */
static void read_line(FILE *f, int n, char *out, size_t size)
{
    long line = 1, bytes = 0;
    size_t k = 0;
    int ch;
    while (line < n && (ch = getc(f)) != EOF && ++bytes < SOURCE_SCAN_MAX) line += ch == '\n';
    while (line == n && (ch = getc(f)) != EOF && ch != '\n' && ch != '\r')
        if (k + 1 < size) out[k++] = (char)ch;
    out[k] = '\0';
}

/* "FILE:LINE: message" as Lua writes it: the file (relative to the
 * script's directory), the line, the message after them (the page shows
 * file and line once, apart) and the text of that line. */
static void split_error(const char *msg, ng_script_error *e)
{
    char path[PATH_MAX];
    const char *p, *what;
    size_t dl = strlen(st.dir), len;
    FILE *f;
    memset(e, 0, sizeof *e);
    p = error_at(msg, &e->line, &len, &what);
    if (len >= sizeof path) p = st.cli->script, len = strlen(p), e->line = 0, what = msg;
    snprintf(e->message, sizeof e->message, "%s", what);
    snprintf(path, sizeof path, "%.*s", (int)len, p);
    p = path;
    if (strcmp(st.dir, ".") && !strncmp(path, st.dir, dl) && path[dl] == '/') p = path + dl + 1;
    while (!strncmp(p, "./", 2)) p += 2;
    snprintf(e->file, sizeof e->file, "%.*s", (int)sizeof e->file - 1, p);
    if (e->line > 0 && (f = open_in_tree(path))) { /* the source line, as the file is now */
        read_line(f, e->line, e->source, sizeof e->source);
        fclose(f);
    }
}

/* Runs the base (defaults) as a new generation: a success replaces the
 * base and empties the cache; a failure keeps the base and sets the error. */
static void rerun(void)
{
    ng_error err;
    ng_served *s, *old = NULL, *dropped[CACHE_SIZE];
    ng_script_error failed;
    long gen;
    int i;
    pthread_mutex_lock(&st.mu);
    gen = st.generation + 1;
    if (run_turn_take(NULL, NULL)) {
        pthread_mutex_unlock(&st.mu);
        return; /* stopping */
    }
    pthread_mutex_unlock(&st.mu);
    run(NULL, "", gen, &s, &err);
    pthread_mutex_lock(&st.mu);
    run_turn_give();
    if (st.stopping) { /* the run was given up */
        pthread_mutex_unlock(&st.mu);
        ng_served_put(s);
        return;
    }
    pthread_mutex_unlock(&st.mu);
    /* the error's source line is read before the lock: finding it may read
     * a large file, and every request waits for the lock */
    if (!s) split_error(err.msg, &failed);
    pthread_mutex_lock(&st.mu);
    st.generation = gen;
    if (s) {
        old = st.base;
        st.base = s;
        st.has_error = 0;
    } else {
        st.error = failed;
        st.has_error = 1;
    }
    for (i = 0; i < CACHE_SIZE; i++) {
        dropped[i] = s ? st.cache[i] : NULL;
        if (s) st.cache[i] = NULL;
    }
    pthread_cond_broadcast(&st.changed);
    pthread_mutex_unlock(&st.mu);
    ng_served_put(old);
    for (i = 0; i < CACHE_SIZE; i++) ng_served_put(dropped[i]);
    if (!ng_serve_cli()->quiet) {
        if (s) fprintf(stderr, "noisegraph: serve: generation %ld: %s ran\n", gen, st.cli->script);
        else fprintf(stderr, "noisegraph: serve: generation %ld: %s\n", gen, err.msg);
    }
}

static void *watcher(void *arg)
{
    sigset_t all;
    (void)arg;
    sigfillset(&all); /* SIGINT and SIGTERM belong to the main thread */
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    for (;;) {
        struct pollfd p[2] = {{st.ifd, POLLIN, 0}, {st.wake[0], POLLIN, 0}};
        int hit;
        if (poll(p, 2, -1) < 0 && errno != EINTR) break;
        if (ng_serve_stopping()) break;
        if (!(hit = drain_events())) continue;
        while (poll(p, 1, DEBOUNCE_MS) > 0) drain_events(); /* until quiet */
        if (ng_serve_stopping()) break;
        rerun();
    }
    return NULL;
}

/* ---- the interface ----------------------------------------------------------------- */

int ng_serve_state_start(const ng_serve_opts *c, ng_error *err)
{
    const char *slash = strrchr(c->script, '/');
    st.cli = c;
    if (!slash) snprintf(st.dir, sizeof st.dir, ".");
    else snprintf(st.dir, sizeof st.dir, "%.*s", (int)(slash - c->script), c->script);
    if (slash == c->script) snprintf(st.dir, sizeof st.dir, "/");
    if (!realpath(st.dir, st.realdir)) st.realdir[0] = '\0';
    st.ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (st.ifd < 0) return ng_errorf(err, "serve: cannot watch files (inotify: %s)", strerror(errno));
    if (pipe(st.wake)) return ng_errorf(err, "serve: %s", strerror(errno));
    watch_file(c->script);
    st.generation = 0;
    rerun(); /* generation 1; an error is shown, not fatal: the user may be about to fix it */
    if (pthread_create(&st.thread, NULL, watcher, NULL)) return ng_errorf(err, "serve: cannot start the watcher");
    st.thread_running = 1;
    return 0;
}

void ng_serve_state_stopping(void)
{
    pthread_mutex_lock(&st.mu);
    st.stopping = 1;
    pthread_cond_broadcast(&st.changed);
    pthread_mutex_unlock(&st.mu);
}

void ng_serve_state_stop(void)
{
    int i;
    ng_serve_state_stopping();
    if (st.wake[1] >= 0 && write(st.wake[1], "x", 1) < 0) { /* the watcher also polls the flag */
    }
    if (st.thread_running) pthread_join(st.thread, NULL);
    st.thread_running = 0;
    ng_served_put(st.base);
    st.base = NULL;
    for (i = 0; i < CACHE_SIZE; i++) {
        ng_served_put(st.cache[i]);
        st.cache[i] = NULL;
    }
    if (st.ifd >= 0) close(st.ifd);
    if (st.wake[0] >= 0) close(st.wake[0]), close(st.wake[1]);
    st.ifd = st.wake[0] = st.wake[1] = -1;
}

int ng_serve_stopping(void)
{
    int s;
    pthread_mutex_lock(&st.mu);
    s = st.stopping;
    pthread_mutex_unlock(&st.mu);
    return s;
}

long ng_serve_generation(void)
{
    long g;
    pthread_mutex_lock(&st.mu);
    g = st.generation;
    pthread_mutex_unlock(&st.mu);
    return g;
}

ng_served *ng_served_get_base(void)
{
    ng_served *s;
    pthread_mutex_lock(&st.mu);
    s = ref(st.base);
    pthread_mutex_unlock(&st.mu);
    return s;
}

int ng_serve_error(ng_script_error *e)
{
    int has;
    pthread_mutex_lock(&st.mu);
    has = st.has_error;
    if (has) *e = st.error;
    pthread_mutex_unlock(&st.mu);
    return has;
}

/* "LEN:name LEN:value\n" per set, sorted by name: one run per set of
 * values. The lengths keep it unambiguous: a string value may hold "\n"
 * and "=" (set.a="x\nb=1" is not set.a=x with set.b=1). Names are unique
 * (the API refuses a name given twice). */
static char *sets_key(const ng_serve_sets *sets)
{
    int order[NG_MAX_SETS], i, j;
    ng_buf b = {0};
    for (i = 0; i < sets->n; i++) {
        for (j = i; j > 0 && strcmp(sets->name[order[j - 1]], sets->name[i]) > 0; j--) order[j] = order[j - 1];
        order[j] = i;
    }
    ng_buf_puts(&b, "");
    for (i = 0; i < sets->n; i++)
        ng_buf_printf(&b, "%zu:%s %zu:%s\n", strlen(sets->name[order[i]]), sets->name[order[i]],
                      strlen(sets->value[order[i]]), sets->value[order[i]]);
    if (b.oom) {
        ng_buf_free(&b);
        return NULL;
    }
    return b.data;
}

/* A run in progress for some parameter values: requests for the same
 * values wait for it rather than running the script again. Freed by the
 * last of the runner and its waiters (st.mu). */
typedef struct pending {
    char *key;
    long generation;
    int waiters, done, rc;
    ng_served *result;
    ng_error err;
    struct pending *next;
} pending;

static void pending_leave(pending *p)
{
    if (--p->waiters) return;
    ng_served_put(p->result);
    free(p->key);
    free(p);
}

/* Puts s in the cache (st.mu held): the oldest entries go while the
 * cache's graphs hold more than the memory limit (the newest stays). The
 * entries that went are put into out (CACHE_SIZE). */
static void cache_add(ng_served *s, ng_served **out)
{
    double held = 0;
    int i, k;
    out[0] = st.cache[st.next_slot];
    st.cache[st.next_slot] = ref(s);
    st.next_slot = (st.next_slot + 1) % CACHE_SIZE;
    for (i = 0; i < CACHE_SIZE; i++) held += st.cache[i] ? (double)st.cache[i]->s.memory_held : 0;
    for (i = 0, k = 1; i < CACHE_SIZE - 1 && held > st.cli->h.memory_limit; i++) { /* from the oldest */
        ng_served **slot = &st.cache[(st.next_slot + i) % CACHE_SIZE];
        if (!*slot) continue;
        held -= (double)(*slot)->s.memory_held;
        out[k++] = *slot;
        *slot = NULL;
    }
}

/* Whether a run's requester gave up (its cancel flag) and no other
 * request waits for the run (st.mu held). */
typedef struct giving_up {
    const atomic_int *cancel;
    const pending *p;
} giving_up;

static int gives_up(const void *arg)
{
    const giving_up *g = arg;
    return g->cancel && atomic_load(g->cancel) && g->p->waiters == 1;
}

int ng_served_get(const ng_serve_sets *sets, const atomic_int *cancel, ng_served **out, ng_error *err)
{
    ng_served *s = NULL, *evicted[CACHE_SIZE] = {0};
    pending *p = NULL, **pp;
    giving_up g = {cancel, NULL};
    char *key;
    long gen;
    int i, rc;
    *out = NULL;
    if (!sets || sets->n == 0) {
        if (!(*out = ng_served_get_base())) return ng_errorf(err, "%s: the script has no good run yet", st.cli->script), -3;
        return 0;
    }
    if (!(key = sets_key(sets))) return ng_errorf(err, "out of memory"), -3;
    pthread_mutex_lock(&st.mu);
    gen = st.base ? st.base->generation : -1;
    for (i = 0; i < CACHE_SIZE && !s; i++)
        if (st.cache[i] && st.cache[i]->generation == gen && !strcmp(st.cache[i]->key, key)) s = ref(st.cache[i]);
    for (p = st.pending; p && !s && (p->generation != gen || strcmp(p->key, key)); p = p->next) continue;
    if (s || gen < 0) {
        pthread_mutex_unlock(&st.mu);
        free(key);
        *out = s;
        return s ? 0 : (ng_errorf(err, "%s: the script has no good run yet", st.cli->script), -3);
    }
    if (p) { /* the same values are running: wait for that run */
        p->waiters++;
        while (!p->done && !st.stopping && !(cancel && atomic_load(cancel))) {
            struct timespec t;
            clock_gettime(CLOCK_REALTIME, &t);
            t.tv_nsec += 50000000;
            if (t.tv_nsec >= 1000000000) t.tv_sec++, t.tv_nsec -= 1000000000;
            pthread_cond_timedwait(&st.ran, &st.mu, &t);
        }
        rc = p->done ? p->rc : -3;
        if (p->done && p->rc == 0) *out = ref(p->result);
        else if (p->done) *err = p->err;
        else ng_errorf(err, "%s: the run was given up (the server is stopping, or no one waits for it)", st.cli->script);
        pending_leave(p);
        pthread_mutex_unlock(&st.mu);
        free(key);
        return rc;
    }
    if (!(p = calloc(1, sizeof *p))) {
        pthread_mutex_unlock(&st.mu);
        free(key);
        return ng_errorf(err, "out of memory"), -3;
    }
    p->key = key, p->generation = gen, p->waiters = 1;
    p->next = st.pending, st.pending = p;
    g.p = p;
    if (run_turn_take(gives_up, &g)) {
        rc = -3;
        ng_errorf(&p->err, "%s: the run was given up (the server is stopping, or no one waits for it)", st.cli->script);
    } else {
        pthread_mutex_unlock(&st.mu);
        rc = run(sets, key, gen, &s, &p->err);
        pthread_mutex_lock(&st.mu);
        run_turn_give();
        if (s && st.base && st.base->generation == gen) cache_add(s, evicted); /* still current */
    }
    p->done = 1, p->rc = rc, p->result = s;
    for (pp = &st.pending; *pp != p; pp = &(*pp)->next) continue;
    *pp = p->next;
    pthread_cond_broadcast(&st.ran);
    *out = ref(s);
    if (rc) *err = p->err;
    pending_leave(p);
    pthread_mutex_unlock(&st.mu);
    for (i = 0; i < CACHE_SIZE; i++) ng_served_put(evicted[i]);
    return rc;
}

long ng_serve_wait_generation(long seen, double seconds)
{
    struct timespec until;
    long g;
    int rc = 0;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)seconds;
    until.tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&st.mu);
    while (st.generation == seen && !st.stopping && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&st.changed, &st.mu, &until);
    g = st.stopping ? -1 : st.generation;
    pthread_mutex_unlock(&st.mu);
    return g;
}
