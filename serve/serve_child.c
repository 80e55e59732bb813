/*
 * serve_child.c — work the server hands to a child process, because a
 * thread stuck in C code cannot be stopped safely, and the server must
 * outlive it: script runs (a backtracking string.find, a slow image decode
 * or a looping finalizer, where the host's watchdog would end the whole
 * process) and Graphviz layouts (no limit reaches into dot's layout, whose
 * time grows far faster than the graph).
 *
 * The children are forked by a spawner: a process forked from the server
 * as it starts, while it still has one thread. A fork of the server itself
 * (a hundred threads and more) would copy whatever lock another thread
 * held at that instant: glibc takes care of malloc's, not of every
 * library's (AddressSanitizer's allocator left such a child hung in its
 * first malloc), and it would copy the server's page tables each time.
 * The server asks the spawner over a socket, passing the two ends of pipes
 * the child uses (its input, its answer); the spawner forks, answers with
 * a pidfd of the child (to kill it without the risk of a reused pid), and
 * lets the kernel reap it (SIGCHLD ignored).
 *
 * A child keeps nothing but its two pipes, gets an address-space limit,
 * and dies with the spawner, which dies with the server. The server reads
 * its answer with a deadline and kills it at that deadline, when the
 * server stops, or when the request waiting for it gives up.
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
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Seconds a script's child may take past its time limit and the host's
 * grace period (whose watchdog ends it first, with its own message)
 * before the server kills it: writing a large graph into the pipe. */
#define SCRIPT_SLACK 5.0
/* The most bytes a child's input may hold (a script's --set values, the
 * DOT text of a graph of 500 boxes). */
#define CHILD_INPUT_MAX (16u << 20)

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

/* The spawner, seen from the server: its socket (requests one at a time). */
static struct {
    pthread_mutex_t mu;
    int sock;
    pid_t pid;
} spawner = {PTHREAD_MUTEX_INITIALIZER, -1, -1};

/* ---- in a child ----------------------------------------------------------------------- */

/* The address space the child has plus extra bytes: an allocation past its
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

/* The whole of fd (the child's input, which the server writes and
 * closes): malloc'd and NUL-terminated, or NULL. */
static char *read_input(int fd, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap), *grown;
    while (buf) {
        ssize_t got;
        if (n + 1 == cap) {
            if (cap > CHILD_INPUT_MAX || !(grown = realloc(buf, cap *= 2))) break;
            buf = grown;
        }
        got = read(fd, buf + n, cap - n - 1);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) break;
        if (got == 0) {
            buf[n] = '\0';
            *len = n;
            return buf;
        }
        n += (size_t)got;
    }
    free(buf);
    return NULL;
}

static const ng_serve_opts *child_opts; /* in the spawner and its children: the server's options */
static ng_wire_out *child_out;          /* in a script's child: its answer, for the watchdog's overrun */

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

/* A script run: its input is the --set values, "name\0value\0" each. */
static void script_child(int in, int out)
{
    ng_host_opts h = child_opts->h;
    ng_script s;
    ng_error err;
    size_t len = 0, at;
    char *sets = read_input(in, &len);
    int rc;
    if (!sets || !(child_out = calloc(1, sizeof *child_out))) _exit(125);
    child_out->fd = out;
    for (at = 0, h.nsets = 0; at < len && h.nsets < NG_MAX_SETS; h.nsets++) {
        h.set_name[h.nsets] = sets + at;
        at += strlen(sets + at) + 1;
        h.set_value[h.nsets] = at < len ? sets + at : "";
        at += at < len ? strlen(sets + at) + 1 : 0;
    }
    h.on_require = child_require;
    h.overrun = child_overrun;
    rc = ng_script_run(child_opts->script, &h, &s, &err);
    if (rc == 0) ng_wire_script(child_out, &s);
    else ng_wire_error(child_out, rc == -2 ? NG_WIRE_TIME : NG_WIRE_FAILED, err.msg);
    /* nothing freed: the process ends */
}

/* A layout: its input is the DOT text. */
static void layout_child(int in, int out)
{
    size_t len;
    char *dot = read_input(in, &len);
    if (!dot) _exit(125);
    ng_api_layout(dot, out);
}

/* ---- the spawner ------------------------------------------------------------------------- */

/* One request: the kind of child (a byte) and its two pipe ends. */
static int recv_request(int sock, char *kind, int fds[2])
{
    char ctl[CMSG_SPACE(2 * sizeof(int))];
    struct iovec iov = {kind, 1};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
    struct cmsghdr *c;
    ssize_t n;
    while ((n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    c = CMSG_FIRSTHDR(&m);
    if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(2 * sizeof(int))) return 0; /* no pipes */
    memcpy(fds, CMSG_DATA(c), 2 * sizeof(int));
    return 1;
}

/* Whether the child started, and its pidfd (-1: none, it has ended
 * already), back to the server. */
static void send_pidfd(int sock, int started, int pidfd)
{
    char ok = started ? 'y' : 'n', ctl[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {&ok, 1};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (pidfd >= 0) {
        struct cmsghdr *c;
        m.msg_control = ctl, m.msg_controllen = sizeof ctl;
        c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS, c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &pidfd, sizeof(int));
    }
    while (sendmsg(sock, &m, MSG_NOSIGNAL) < 0 && errno == EINTR) continue;
}

/* In a new child: its answer as descriptor 3 and its input as 4 (the
 * standard ones stay the server's: a script's print goes where it went),
 * nothing else open; signals at their defaults and unblocked; killed when
 * the spawner ends. */
static void child_setup(int in, int out, pid_t spawner_pid, double extra)
{
    sigset_t none;
    int o = fcntl(out, F_DUPFD, 10), i = fcntl(in, F_DUPFD, 10); /* out of the way of 3 and 4 */
    if (o < 0 || i < 0 || dup2(o, 3) != 3 || dup2(i, 4) != 4) _exit(125);
    close_range(5, ~0u, 0);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != spawner_pid) _exit(125); /* it ended before the line above */
    limit_memory(extra);
}

/* The spawner's life: one child per request, until the server closes the
 * socket (or ends). It has the server's memory as it started and one
 * thread. */
static void spawn_loop(int sock)
{
    const pid_t self = getpid();
    char kind;
    int fds[2], got;
    while ((got = recv_request(sock, &kind, fds)) >= 0) {
        pid_t pid;
        int pidfd = -1;
        if (!got) continue;
        if ((pid = fork()) == 0) {
            const double limit = child_opts->h.memory_limit;
            close(sock);
            child_setup(fds[0], fds[1], self, kind == 'S' ? limit + 256.0 * 1024 * 1024 : 1024.0 * 1024 * 1024);
            if (kind == 'S') script_child(4, 3);
            else if (kind == 'L') layout_child(4, 3);
            _exit(0);
        }
        /* a child that ended already was reaped at once (SIGCHLD ignored):
         * no pidfd then (ESRCH), and its answer is in its pipe */
        if (pid > 0) pidfd = pidfd_open(pid, 0);
        send_pidfd(sock, pid > 0, pidfd);
        if (pidfd >= 0) close(pidfd);
        close(fds[0]), close(fds[1]);
    }
}

int ng_spawner_start(const ng_serve_opts *c, ng_error *err)
{
    int sv[2];
    pid_t parent = getpid();
    child_opts = c;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
        return ng_errorf(err, "serve: cannot start the process that runs scripts (%s)", strerror(errno));
    fflush(stdout), fflush(stderr);
    if ((spawner.pid = fork()) == 0) {
        sigset_t block;
        close(sv[0]);
        close_range(3, (unsigned)sv[1] - 1, 0); /* sv[1] is the highest descriptor made */
        close_range((unsigned)sv[1] + 1, ~0u, 0);
        sigfillset(&block); /* SIGINT and SIGTERM are the server's to act on; it closes the socket */
        sigprocmask(SIG_SETMASK, &block, NULL);
        signal(SIGCHLD, SIG_IGN);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(0); /* the server ended before the line above */
        spawn_loop(sv[1]);
        _exit(0);
    }
    close(sv[1]);
    if (spawner.pid < 0) {
        close(sv[0]);
        return ng_errorf(err, "serve: cannot start the process that runs scripts (%s)", strerror(errno));
    }
    spawner.sock = sv[0];
    return 0;
}

void ng_spawner_stop(void)
{
    if (spawner.sock < 0) return;
    close(spawner.sock); /* it leaves its loop and exits; its children die with it */
    spawner.sock = -1;
    while (waitpid(spawner.pid, NULL, 0) < 0 && errno == EINTR) continue;
}

/* ---- the server's side -------------------------------------------------------------- */

/* Asks the spawner for a child of kind with these pipe ends: 0 with its
 * pidfd (-1 when it has ended already), or -1. */
static int ask_spawner(char kind, int in, int out, int *pidfd)
{
    int fds[2] = {in, out};
    char ctl[CMSG_SPACE(2 * sizeof(int))], ok = 0;
    struct iovec iov = {&kind, 1};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS, c->cmsg_len = CMSG_LEN(2 * sizeof(int));
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    *pidfd = -1;
    pthread_mutex_lock(&spawner.mu);
    if (spawner.sock >= 0 && sendmsg(spawner.sock, &m, MSG_NOSIGNAL) == 1) {
        char back[CMSG_SPACE(sizeof(int))];
        struct iovec biov = {&ok, 1};
        struct msghdr b = {.msg_iov = &biov, .msg_iovlen = 1, .msg_control = back, .msg_controllen = sizeof back};
        ssize_t n;
        while ((n = recvmsg(spawner.sock, &b, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) continue;
        c = n == 1 && ok == 'y' ? CMSG_FIRSTHDR(&b) : NULL;
        if (c && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int))) memcpy(pidfd, CMSG_DATA(c), sizeof(int));
    }
    pthread_mutex_unlock(&spawner.mu);
    return ok == 'y' ? 0 : -1;
}

int ng_child_start(ng_child *c, char kind, const void *input, size_t len, double seconds, const atomic_int *cancel,
                   ng_error *err)
{
    int in[2], out[2], rc;
    size_t off = 0;
    memset(c, 0, sizeof *c);
    c->fd = c->pidfd = -1;
    if (pipe2(in, O_CLOEXEC)) return ng_errorf(err, "cannot start a process (pipe: %s)", strerror(errno));
    if (pipe2(out, O_CLOEXEC)) {
        close(in[0]), close(in[1]);
        return ng_errorf(err, "cannot start a process (pipe: %s)", strerror(errno));
    }
    rc = ask_spawner(kind, in[0], out[1], &c->pidfd);
    close(in[0]), close(out[1]);
    c->fd = out[0];
    if (rc) {
        close(in[1]);
        ng_child_end(c);
        return ng_errorf(err, "cannot start a process (the process that starts them is gone)");
    }
    while (off < len) { /* the child reads all of it first; a dead one: EPIPE */
        ssize_t w = write(in[1], (const char *)input + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
    close(in[1]);
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

void ng_child_end(ng_child *c)
{
    if (c->fd >= 0) close(c->fd);
    if (c->pidfd >= 0) {
        pidfd_send_signal(c->pidfd, SIGKILL, NULL, 0); /* ESRCH when it ended: the spawner reaps it */
        close(c->pidfd);
    }
    c->fd = c->pidfd = -1;
}

/* ---- script runs ---------------------------------------------------------------------- */

int ng_child_script(const char *path, const ng_host_opts *h, const atomic_int *cancel, ng_script *s, ng_error *err)
{
    const double grace = fmin(0.5 + 0.1 * h->time_limit, 5.0);
    ng_wire_in *in = calloc(1, sizeof *in);
    ng_wire_record *r = calloc(1, sizeof *r);
    ng_buf sets = {0};
    ng_child c;
    int rc = -1, i;
    memset(s, 0, sizeof *s);
    for (i = 0; i < h->nsets; i++) {
        ng_buf_add(&sets, h->set_name[i], strlen(h->set_name[i]) + 1);
        ng_buf_add(&sets, h->set_value[i], strlen(h->set_value[i]) + 1);
    }
    if (!in || !r || sets.oom) {
        free(in), free(r), ng_buf_free(&sets);
        return ng_errorf(err, "%s: out of memory", path);
    }
    if (ng_child_start(&c, 'S', sets.data, sets.len, h->time_limit + grace + SCRIPT_SLACK, cancel, err)) {
        ng_error e = *err;
        free(in), free(r), ng_buf_free(&sets);
        return ng_errorf(err, "%s: %s", path, e.msg);
    }
    ng_buf_free(&sets);
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
    ng_child_end(&c);
    if (in->status == NG_WIRE_TIMEOUT) {
        rc = -2;
        ng_errorf(err, "%s: the script ran longer than its time limit of %g s, and its process was killed "
                       "(raise it with --time-limit)", path, h->time_limit);
    } else if (in->status == NG_WIRE_STOPPED) {
        ng_errorf(err, "%s: the run was given up (the server is stopping, or no one waits for it)", path);
    } else if (in->status == NG_WIRE_EOF) {
        ng_errorf(err, "%s: the script's process ended without a result (it crashed, or ran out of memory)", path);
    } else if (in->status) {
        ng_errorf(err, "%s: the script's result could not be read: %s", path, in->err.msg);
    }
    free(in), free(r);
    return rc;
}
