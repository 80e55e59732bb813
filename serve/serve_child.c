/*
 * serve_child.c — work the server hands to a child process, because a
 * thread stuck in C code cannot be stopped safely, and the server must
 * outlive it: script runs (a backtracking string.find, a slow image decode
 * or a looping finalizer, where the host's watchdog would end the whole
 * process) and Graphviz layouts (no limit reaches into dot's layout, whose
 * time grows far faster than the graph).
 *
 * A child keeps nothing of the server but the write end of a pipe for its
 * answer (every other descriptor is closed: no socket stays open in it),
 * gets an address-space limit, and dies with the thread that made it. The
 * server reads its answer with a deadline and kills it (SIGKILL) at that
 * deadline, when the server stops, or when the request waiting for it
 * gives up.
 *
 * A script run comes back as a wire stream (serve_wire.c): the modules it
 * required as it went, then its error or its graph, which is built again
 * here from the same calls, so the graph the server renders is never one a
 * stuck script could be in the middle of making.
 */
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Seconds a script's child may take past its time limit and the host's
 * grace period (whose watchdog ends it first, with its own message)
 * before the server kills it: writing a large graph into the pipe. */
#define SCRIPT_SLACK 5.0

/* AddressSanitizer's shadow memory reserves terabytes of address space:
 * no address-space limit under it (gcc says so one way, clang another). */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- the child's side --------------------------------------------------------------- */

/* The address space the child has (every thread stack and mapping of the
 * server is still mapped in it) plus extra bytes: an allocation past its
 * limits that the budgets do not see fails instead of taking the machine. */
static void limit_memory(double extra)
{
#if !defined(UNDER_ASAN)
    unsigned long pages = 0;
    char text[64] = "";
    struct rlimit rl;
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0) close(fd);
    if (n <= 0 || sscanf(text, "%lu", &pages) != 1 || !(extra > 0 && extra < 1e15)) return;
    rl.rlim_cur = rl.rlim_max = (rlim_t)((double)pages * (double)sysconf(_SC_PAGESIZE) + extra);
    setrlimit(RLIMIT_AS, &rl);
#else
    (void)extra;
#endif
}

/* In the child, before its work: its pipe as descriptor 3 and nothing
 * else open past stderr; signals at their defaults and unblocked (the
 * server's threads block them); killed when the thread that forked it
 * ends. */
static int child_setup(int fd, pid_t parent, double extra)
{
    sigset_t none;
    if (fd != 3 && dup2(fd, 3) != 3) _exit(125);
    close_range(4, ~0u, 0);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(125); /* it ended before the line above */
    limit_memory(extra);
    return 3;
}

/* ---- the server's side ---------------------------------------------------------------- */

int ng_child_start(ng_child *c, void (*body)(int fd, void *arg), void *arg, double extra_bytes, double seconds,
                   const atomic_int *cancel, ng_error *err)
{
    int p[2];
    pid_t parent = getpid();
    memset(c, 0, sizeof *c);
    c->pid = -1, c->fd = -1;
    if (pipe2(p, O_CLOEXEC)) return ng_errorf(err, "cannot start a process (pipe: %s)", strerror(errno));
    c->pid = fork();
    if (c->pid == 0) {
        close(p[0]);
        body(child_setup(p[1], parent, extra_bytes), arg);
        _exit(0);
    }
    close(p[1]);
    if (c->pid < 0) {
        close(p[0]);
        return ng_errorf(err, "cannot start a process (fork: %s)", strerror(errno));
    }
    c->fd = p[0];
    c->deadline = seconds > 0 && seconds < 1e9 ? now_s() + seconds : 0;
    c->cancel = cancel;
    return 0;
}

long ng_child_read(void *child, void *buf, size_t n)
{
    ng_child *c = child;
    for (;;) {
        struct pollfd p = {c->fd, POLLIN, 0};
        double left = c->deadline ? c->deadline - now_s() : 0.1;
        ssize_t got;
        if ((c->cancel && atomic_load(c->cancel)) || ng_serve_stopping()) return -3;
        if (left <= 0) return -2;
        /* a slice at a time: the cancel flag and the stopping server are looked at */
        if (poll(&p, 1, (int)ceil(fmin(left, 0.1) * 1000)) < 0 && errno != EINTR) return -1;
        if (!p.revents) continue;
        got = read(c->fd, buf, n);
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        return got < 0 ? -1 : (long)got;
    }
}

int ng_child_end(ng_child *c)
{
    int status = 0;
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    if (c->pid <= 0) return 0;
    if (waitpid(c->pid, &status, WNOHANG) == 0) {
        kill(c->pid, SIGKILL);
        while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR) continue;
    }
    c->pid = -1;
    return status;
}

/* ---- script runs ---------------------------------------------------------------------- */

typedef struct script_job {
    const char *path;
    const ng_host_opts *h;
} script_job;

static ng_wire_out *child_out; /* in the child: its answer, for the watchdog's overrun */

static void child_require(void *user, const char *path)
{
    (void)user;
    ng_wire_path(child_out, path);
}

/* The host's watchdog, on its own thread, when the script is stuck in C:
 * the script's thread writes nothing while stuck, so this is the only
 * writer; the child then ends. */
static void child_overrun(const char *msg)
{
    ng_wire_out *o = calloc(1, sizeof *o);
    if (o) {
        o->fd = child_out->fd;
        ng_wire_error(o, NG_WIRE_TIME, msg);
    }
    _exit(0);
}

static void script_body(int fd, void *arg)
{
    const script_job *j = arg;
    ng_host_opts h = *j->h;
    ng_script s;
    ng_error err;
    int rc;
    if (!(child_out = calloc(1, sizeof *child_out))) _exit(125);
    child_out->fd = fd;
    h.on_require = h.on_require ? child_require : NULL;
    h.overrun = child_overrun;
    rc = ng_script_run(j->path, &h, &s, &err);
    if (rc == 0) ng_wire_script(child_out, &s);
    else ng_wire_error(child_out, rc == -2 ? NG_WIRE_TIME : NG_WIRE_FAILED, err.msg);
    /* nothing freed: the process ends */
}

/* Why a child ended without an answer. */
static void ended_how(int status, char *buf, size_t len)
{
    if (WIFSIGNALED(status)) snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
    else if (WIFEXITED(status)) snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
    else snprintf(buf, len, "status %d", status);
}

int ng_child_script(const char *path, const ng_host_opts *h, const atomic_int *cancel, ng_script *s, ng_error *err)
{
    const double grace = fmin(0.5 + 0.1 * h->time_limit, 5.0);
    script_job job = {path, h};
    ng_wire_in *in = calloc(1, sizeof *in);
    ng_wire_record *r = calloc(1, sizeof *r);
    ng_child c;
    char how[64];
    int rc = -1, status;
    memset(s, 0, sizeof *s);
    if (!in || !r) {
        free(in), free(r);
        return ng_errorf(err, "%s: out of memory", path);
    }
    if (ng_child_start(&c, script_body, &job, h->memory_limit + 256.0 * 1024 * 1024,
                       h->time_limit + grace + SCRIPT_SLACK, cancel, err)) {
        ng_error e = *err;
        free(in), free(r);
        return ng_errorf(err, "%s: %s", path, e.msg);
    }
    in->read = ng_child_read;
    in->ctx = &c;
    in->budget.limit = h->memory_limit >= 1.8e19 ? (size_t)-1 : h->memory_limit > 0 ? (size_t)h->memory_limit : 0;
    while (ng_wire_next(in, r) == 0) {
        if (r->tag == 'P') {
            if (h->on_require) h->on_require(h->on_require_user, r->text);
            continue;
        }
        if (r->tag == 'S') {
            *s = r->s;
            rc = 0;
        } else {
            rc = r->kind == NG_WIRE_TIME ? -2 : -1;
            ng_errorf(err, "%s", r->text);
        }
        break;
    }
    status = ng_child_end(&c);
    if (in->status == NG_WIRE_TIMEOUT) {
        rc = -2;
        ng_errorf(err, "%s: the script ran longer than its time limit of %g s, and its process was killed "
                       "(raise it with --time-limit)", path, h->time_limit);
    } else if (in->status == NG_WIRE_STOPPED) {
        ng_errorf(err, "%s: the run was given up (the server is stopping, or no one waits for it)", path);
    } else if (in->status == NG_WIRE_EOF) {
        ended_how(status, how, sizeof how);
        ng_errorf(err, "%s: the script's process ended without a result (%s)", path, how);
    } else if (in->status) {
        ng_errorf(err, "%s: the script's result could not be read: %s", path, in->err.msg);
    }
    free(in), free(r);
    return rc;
}
