/*
 * host.c — runs a graph script. The Lua state is sandboxed by default (no
 * io, os, debug, binary chunks; `require` only of .lua files in the
 * script's directory tree, symlinks resolved), and bounded: one byte budget
 * counts everything the script causes to be allocated (its Lua state, the
 * graph, decoded images, its parameters), and its wall time is bounded by
 * an instruction-count hook backed by a watchdog thread for C code the hook
 * cannot reach. A runaway script ends with one clear line instead of
 * hanging or swapping.
 */
#include "host.h"
#include "ng_io.h"

#include <errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <lualib.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct hoststate {
    const ng_host_opts *o;
    ng_script *s;
    ng_budget budget; /* the script's memory: Lua's allocator and the graph */
    struct timespec start;
    int expired;    /* the time limit has passed: the hook fails every instruction */
    uintptr_t stack_base; /* the C stack where the script started (see stack_deep) */
    int set_used[NG_MAX_SETS];
    char dir[4096];
    char realdir[PATH_MAX]; /* dir with symlinks resolved: require stays inside it */
} hoststate;

void ng_host_defaults(ng_host_opts *o)
{
    memset(o, 0, sizeof *o);
    o->time_limit = 10;
    o->fps = 24;
    o->memory_limit = 512.0 * 1024 * 1024;
    o->width = o->height = 512;
    o->pixel_size = 1;
}

static hoststate *host(lua_State *L)
{
    void *ud;
    lua_getallocf(L, &ud);
    return ud;
}

/* ---- limits ---------------------------------------------------------------- */

/* What malloc holds for a block of n bytes, as glibc lays it out on a 64-bit
 * machine: an 8-byte header, 16-byte alignment, 32 bytes at least (other
 * allocators are close). Lua makes many small blocks (a table is 56 bytes,
 * a short string 24 and up), so counting the sizes asked for let a script of
 * small objects use a quarter more memory than its limit. */
static size_t held(size_t n)
{
    size_t c = (n + 8 + 15) & ~(size_t)15;
    return n == 0 ? 0 : c < 32 ? 32 : c;
}

static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    hoststate *h = ud;
    const size_t old = ptr ? held(osize) : 0, now = held(nsize);
    void *p;
    if (nsize == 0) {
        free(ptr);
        ng_budget_give(&h->budget, old);
        return NULL;
    }
    if (now < nsize) return NULL; /* held() wrapped: no such block */
    if (now > old && ng_budget_take(&h->budget, now - old)) return NULL;
    if (!(p = realloc(ptr, nsize))) {
        if (now > old) ng_budget_give(&h->budget, now - old);
        return NULL;
    }
    if (now < old) ng_budget_give(&h->budget, old - now);
    return p;
}

static double elapsed(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* The C stack a script may use below where it started. Lua counts nested
 * C calls (200) per coroutine, but 5.4.4 starts a coroutine closed by
 * coroutine.close or by a failed coroutine.wrap from its own stale count,
 * so __close methods that close or call further coroutines nest without
 * limit and overflow the process's stack: a crash, not an error. The host
 * measures the stack itself, at every call (the hook) and where Lua calls
 * the script without hooks (l_msgh, l_coclose). A megabyte is a few
 * thousand C-level calls; Lua-to-Lua calls use none. */
#define C_STACK_BUDGET ((uintptr_t)1 << 20)

static int stack_deep(const hoststate *h)
{
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    return h->stack_base > here && h->stack_base - here > C_STACK_BUDGET;
}

static int too_deep(lua_State *L, const char *what)
{
    return luaL_error(L, "%s nests too deeply: more than %d KiB of the C stack (metamethods, callbacks or "
                         "__close methods, one inside another)", what, (int)(C_STACK_BUDGET >> 10));
}

/* Whether the function returning (in a return hook) is the script's main
 * chunk: the outermost call on the main thread. (A chunk that ends in a
 * tail call, `return f(x)` of a Lua function, has left its frame by then;
 * f's locals are not the script's names.) */
static int script_returns(lua_State *L, lua_Debug *ar)
{
    lua_Debug up;
    int main_thread;
    if (lua_getstack(L, 1, &up) || !lua_getinfo(L, "S", ar) || strcmp(ar->what, "main")) return 0;
    main_thread = lua_pushthread(L);
    lua_pop(L, 1);
    return main_thread;
}

/* Every 1000 instructions: the time limit; at every call: the C stack; at
 * the script's return: its local variables name its nodes (while they
 * still exist: the frame is gone once the call has returned). */
static void guard_hook(lua_State *L, lua_Debug *ar)
{
    hoststate *h = host(L);
    char msg[160];
    if (ar->event == LUA_HOOKRET) {
        if (script_returns(L, ar)) ng_lua_label_locals(L, ar);
        return;
    }
    if (ar->event != LUA_HOOKCOUNT) {
        if (stack_deep(h)) too_deep(L, "the script");
        return;
    }
    if (elapsed(&h->start) <= h->o->time_limit) return;
    h->expired = 1;
    /* From now on fail at every instruction, so a pcall cannot swallow the
     * error and carry on: the first instruction outside it fails too. */
    lua_sethook(L, guard_hook, LUA_MASKCOUNT, 1);
    snprintf(msg, sizeof msg, "the script ran longer than its time limit of %g s (raise it with --time-limit)",
             h->o->time_limit);
    luaL_error(L, "%s", msg);
}

/* The watchdog: the hook only runs between Lua instructions, and Lua turns
 * hooks off inside finalizers, so C code that does not come back (a
 * pattern match that backtracks for hours, table.move over 2^50 indices, a
 * looping __gc, an open() that blocks) would outlive the limit. A thread
 * waits until the limit plus a grace period; if the script's thread has
 * not finished by then it is stuck where it cannot be stopped safely, and
 * the process ends (opts->overrun). */
typedef struct watchdog {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct timespec deadline; /* CLOCK_MONOTONIC */
    int done, running;
    void (*overrun)(const char *msg);
    char msg[600];
} watchdog;

static void default_overrun(const char *msg)
{
    char line[700];
    int n = snprintf(line, sizeof line, "noisegraph: %s\n", msg);
    if (n > (int)sizeof line - 1) n = (int)sizeof line - 1;
    if (write(2, line, (size_t)n) < 0) { /* nothing more to do */
    }
    _exit(1);
}

static void *watch(void *arg)
{
    watchdog *w = arg;
    sigset_t all;
    int rc = 0;
    sigfillset(&all); /* signals belong to the program's thread (its handlers remove temporaries) */
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_mutex_lock(&w->mu);
    while (!w->done && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&w->cv, &w->mu, &w->deadline);
    if (!w->done) w->overrun(w->msg); /* does not return */
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static int watchdog_start(watchdog *w, const char *path, const ng_host_opts *o, const struct timespec *start)
{
    pthread_condattr_t ca;
    /* Long enough that the hook always wins for Lua code, short enough that
     * a stuck script still ends close to its limit. */
    double grace = fmin(0.5 + 0.1 * o->time_limit, 5.0), at = o->time_limit + grace, whole;
    memset(w, 0, sizeof *w);
    if (!(at < 1e9)) return 0; /* an unlimited script: no watchdog */
    w->overrun = o->overrun ? o->overrun : default_overrun;
    snprintf(w->msg, sizeof w->msg,
             "%s: the script ran longer than its time limit of %g s, stuck in a library call or finalizer "
             "(raise it with --time-limit)", path, o->time_limit);
    whole = floor(at);
    w->deadline = *start;
    w->deadline.tv_sec += (time_t)whole;
    w->deadline.tv_nsec += (long)((at - whole) * 1e9);
    if (w->deadline.tv_nsec >= 1000000000L) {
        w->deadline.tv_sec++;
        w->deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_init(&w->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&w->thread, NULL, watch, w)) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        return -1;
    }
    w->running = 1;
    return 0;
}

static void watchdog_stop(watchdog *w)
{
    if (!w->running) return;
    pthread_mutex_lock(&w->mu);
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    w->running = 0;
}

/* ---- reading scripts ---------------------------------------------------------- */

/* Loads the Lua source file at path as a text chunk (pushed on
 * success; an error message otherwise, returning non-zero); messages name
 * it `name`. Only regular files are read, opened as every file is
 * (ng_file_open_read: a FIFO or a device would hang the script where no
 * hook runs), and the text lives in Lua memory, so it counts against the
 * budget. A first line starting with '#' is skipped as Lua's loadfile
 * does, keeping line numbers. */
static int load_source(lua_State *L, const char *path, const char *name)
{
    char *buf;
    size_t len, got = 0, skip = 0;
    uint64_t bytes = 0;
    ng_error err;
    int fd = ng_file_open_read(path, "a Lua script", 0, &bytes, &err), status;
    if (fd < 0) { /* the reason after "PATH: ": messages name the file by name (unless a long path cut it) */
        const size_t named = strlen(path) + 2;
        lua_pushstring(L, named < strlen(err.msg) ? err.msg + named : err.msg);
        return LUA_ERRFILE;
    }
    len = (size_t)bytes;
    buf = lua_newuserdatauv(L, len ? len : 1, 0); /* may raise a memory error: fd first */
    while (got < len) {
        ssize_t r = read(fd, buf + got, len - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break; /* a file that shrank: read what is there */
        got += (size_t)r;
    }
    close(fd);
    if (got >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) skip = 3;
    if (got > skip && buf[skip] == '#') { /* keep the newline: line numbers stay */
        while (skip < got && buf[skip] != '\n') skip++;
    }
    lua_pushfstring(L, "@%s", name);
    status = luaL_loadbufferx(L, buf + skip, got - skip, lua_tostring(L, -1), "t");
    lua_replace(L, -3); /* the chunk or message replaces the buffer */
    lua_pop(L, 1);      /* the name */
    return status;
}

/* ---- sandbox ------------------------------------------------------------------ */

/* require(name): name.lua (dots are directories) under the script's
 * directory; symlinks are resolved first and must not lead out of it. */
static int l_require(lua_State *L)
{
    hoststate *h = host(L);
    const char *name = luaL_checkstring(L, 1);
    char path[4200], real[PATH_MAX];
    size_t i, len = strlen(name), dl = strlen(h->realdir);
    int ok = len > 0 && len < 256 && name[0] != '.' && name[len - 1] != '.';
    for (i = 0; ok && i < len; i++) {
        char c = name[i];
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
             (c == '.' && name[i + 1] != '.');
    }
    if (!ok)
        return luaL_error(L, "require '%s': only modules beside the script can be loaded "
                             "(names of letters, digits, _ and .; --unsafe lifts this)", name);
    lua_getfield(L, LUA_REGISTRYINDEX, "noisegraph.loaded");
    if (lua_getfield(L, -1, name) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    snprintf(path, sizeof path, "%s/%s.lua", h->dir, name);
    for (i = strlen(h->dir) + 1; path[i]; i++)
        if (path[i] == '.' && strcmp(path + i, ".lua") != 0) path[i] = '/';
    if (h->o->on_require) h->o->on_require(h->o->on_require_user, path); /* also when it does not exist yet */
    if (!realpath(path, real)) return luaL_error(L, "require '%s': %s: %s", name, path, strerror(errno));
    if (h->o->on_require && strcmp(real, path)) h->o->on_require(h->o->on_require_user, real);
    if (strncmp(real, h->realdir, dl) != 0 || (real[dl] != '/' && strcmp(h->realdir, "/") != 0))
        return luaL_error(L, "require '%s': %s leads outside the script's directory (--unsafe allows it)", name,
                          path);
    if ((i = (size_t)load_source(L, real, path)) != LUA_OK) {
        if (i == LUA_ERRFILE) return luaL_error(L, "require '%s': %s: %s", name, path, lua_tostring(L, -1));
        return luaL_error(L, "require '%s': %s", name, lua_tostring(L, -1));
    }
    lua_pushstring(L, name);
    lua_call(L, 1, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, name);
    return 1;
}

/* load(chunk [, chunkname [, mode [, env]]]) that only accepts text. */
static int l_load_text(lua_State *L)
{
    int n = lua_gettop(L);
    if (n >= 3 && !lua_isnil(L, 3) && strcmp(luaL_checkstring(L, 3), "t") != 0)
        return luaL_error(L, "load: only text chunks are allowed in the sandbox (--unsafe lifts this)");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    if (n >= 2) lua_pushvalue(L, 2);
    else lua_pushnil(L);
    lua_pushstring(L, "t");
    if (n >= 4) lua_pushvalue(L, 4);
    lua_call(L, n >= 4 ? 4 : 3, LUA_MULTRET);
    return lua_gettop(L) - n;
}

/* xpcall's message handler runs where the hook cannot stop it: Lua calls
 * it before unwinding, and for an error a hook raised, with hooks still
 * off, so a handler that loops would outlive the limit (and end the
 * process through the watchdog). An error inside the handler calls the
 * handler again, nesting until the C stack runs out, a path where Lua
 * 5.4.4 overflows its own stack. So the script's handler (upvalue 1) is
 * called through this one: not at all once the time limit has passed or
 * the C stack is deep, and not again for an error raised inside it
 * (upvalue 2: this xpcall's handler is running; each xpcall has its own).
 * Either way the error value goes on as it is, and the xpcall returns
 * false with it. */
static int l_msgh(lua_State *L)
{
    hoststate *h = host(L);
    lua_settop(L, 1);
    if (h->expired || stack_deep(h) || lua_toboolean(L, lua_upvalueindex(2))) return 1;
    lua_pushboolean(L, 1);
    lua_replace(L, lua_upvalueindex(2));
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 1, 1);
    lua_pushboolean(L, 0);
    lua_replace(L, lua_upvalueindex(2));
    return 1;
}

/* After the protected call of l_xpcall, or when it resumes after a yield. */
static int xpcall_done(lua_State *L, int status, lua_KContext ctx)
{
    (void)ctx;
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - 2; /* true and the results */
}

/* xpcall(f, msgh, ...) with msgh called through its own l_msgh. */
static int l_xpcall(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushboolean(L, 1); /* the first result on success */
    lua_pushvalue(L, 1);   /* the function */
    lua_rotate(L, 3, 2);   /* f, msgh, true, f, args... */
    lua_pushvalue(L, 2);
    lua_pushboolean(L, 0);
    lua_pushcclosure(L, l_msgh, 2);
    lua_replace(L, 2);
    return xpcall_done(L, lua_pcallk(L, n - 2, LUA_MULTRET, 2, 0, xpcall_done), 0);
}

/* coroutine.close(co) runs co's pending __close methods, which may close
 * another coroutine, and so on, also from finalizers, where no hook runs:
 * refused once the C stack is deep (see C_STACK_BUDGET). Upvalue 1: Lua's
 * close. */
static int l_coclose(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTHREAD); /* named here: Lua's close called from C cannot name itself */
    if (stack_deep(host(L))) return too_deep(L, "coroutine.close");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* The host's versions of Lua functions with holes (l_xpcall, l_coclose). */
static void guard_library(lua_State *L)
{
    lua_pushcfunction(L, l_xpcall);
    lua_setglobal(L, "xpcall");
    if (lua_getglobal(L, LUA_COLIBNAME) == LUA_TTABLE) {
        lua_getfield(L, -1, "close");
        lua_pushcclosure(L, l_coclose, 1);
        lua_setfield(L, -2, "close");
    }
    lua_pop(L, 1);
}

static void open_sandbox(lua_State *L)
{
    static const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},     {LUA_TABLIBNAME, luaopen_table},
                                    {LUA_STRLIBNAME, luaopen_string}, {LUA_MATHLIBNAME, luaopen_math},
                                    {LUA_UTF8LIBNAME, luaopen_utf8},  {LUA_COLIBNAME, luaopen_coroutine},
                                    {NULL, NULL}};
    const luaL_Reg *lib;
    for (lib = libs; lib->func; lib++) {
        luaL_requiref(L, lib->name, lib->func, 1);
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");
    lua_getglobal(L, "load");
    lua_pushcclosure(L, l_load_text, 1);
    lua_setglobal(L, "load");
    lua_pushcfunction(L, l_require);
    lua_setglobal(L, "require");
    guard_library(L);
}

static void open_unsafe(lua_State *L, const char *dir)
{
    luaL_openlibs(L);
    guard_library(L);
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;", dir, dir);
    lua_getfield(L, -2, "path");
    lua_concat(L, 2);
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
}

/* Decimal syntax only: [+-]digits[.digits][e[+-]digits], at least one
 * mantissa digit. strtod alone would also take blanks, hex, inf and nan. */
int ng_decimal_syntax(const char *s, const char *end)
{
    int digits = 0;
    if (s < end && (*s == '-' || *s == '+')) s++;
    for (; s < end && *s >= '0' && *s <= '9'; s++) digits++;
    if (s < end && *s == '.')
        for (s++; s < end && *s >= '0' && *s <= '9'; s++) digits++;
    if (!digits) return 0;
    if (s < end && (*s == 'e' || *s == 'E')) {
        s++;
        if (s < end && (*s == '-' || *s == '+')) s++;
        if (s == end || *s < '0' || *s > '9') return 0;
        while (s < end && *s >= '0' && *s <= '9') s++;
    }
    return s == end;
}

/* ---- ng.param ----------------------------------------------------------------- */

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* A copy of str in C memory counted against the script's budget. NULL
 * for a NULL str, or (setting *fail) when it does not fit; after a failure
 * it copies nothing more, so the caller frees what it has and raises once. */
static char *charged_dup(hoststate *h, const char *str, int *fail)
{
    char *d = NULL;
    if (!str || *fail) return NULL;
    if (ng_budget_take(&h->budget, strlen(str) + 1) == 0 && !(d = copy_string(str))) ng_budget_give(&h->budget, strlen(str) + 1);
    if (!d) *fail = 1;
    return d;
}

static void charged_free(hoststate *h, char *str)
{
    if (!str) return;
    ng_budget_give(&h->budget, strlen(str) + 1);
    free(str);
}

static double opt_number(lua_State *L, int t, const char *key, int *has)
{
    double v = 0;
    *has = 0;
    if (lua_type(L, t) != LUA_TTABLE) return 0;
    if (lua_getfield(L, t, key) != LUA_TNIL) {
        if (!lua_isnumber(L, -1)) luaL_error(L, "ng.param: '%s' must be a number", key);
        v = lua_tonumber(L, -1);
        *has = 1;
    }
    lua_pop(L, 1);
    return v;
}

/* Whether v is a whole number an integer parameter can hold exactly. */
static int whole(double v) { return v == floor(v) && fabs(v) <= 9007199254740992.0; }

/* Applies --set name=value to the default at index 2 (of Lua type t; a
 * number that must be whole when integer). */
static void apply_sets(lua_State *L, hoststate *h, const char *name, int t, int integer)
{
    int i;
    for (i = 0; i < h->o->nsets; i++) {
        const char *v = h->o->set_value[i];
        if (strcmp(h->o->set_name[i], name) != 0) continue;
        h->set_used[i] = 1;
        if (t == LUA_TNUMBER) {
            if (!ng_decimal_syntax(v, v + strlen(v)) || !lua_stringtonumber(L, v) || !isfinite(lua_tonumber(L, -1)))
                luaL_error(L, "--set %s=%s: '%s' is a number parameter (a finite decimal number)", name, v, name);
            if (integer && !whole(lua_tonumber(L, -1)))
                luaL_error(L, "--set %s=%s: '%s' is an integer parameter (a whole number)", name, v, name);
        } else if (t == LUA_TBOOLEAN) {
            if (strcmp(v, "true") && strcmp(v, "false") && strcmp(v, "1") && strcmp(v, "0"))
                luaL_error(L, "--set %s=%s: '%s' is a boolean parameter (true or false)", name, v, name);
            lua_pushboolean(L, !strcmp(v, "true") || !strcmp(v, "1"));
        } else {
            lua_pushstring(L, v);
        }
        lua_replace(L, 2);
    }
}

/* ng.param(name, default, {min =, max =, doc =, integer =}) -> value
 * A number parameter takes any number unless declared integer = true,
 * however its default is written (1 and 1.0 alike). 
 * Everything that can run Lua code (metamethods of the options table, which
 * may call ng.param again) happens before the C records are touched. */
static int l_param(lua_State *L)
{
    hoststate *h = host(L);
    ng_script *s = h->s;
    const char *name = luaL_checkstring(L, 1), *doc, *text;
    int t = lua_type(L, 2), i, has_min, has_max, fail = 0, integer = 0;
    double mn, mx;
    char *name_copy, *doc_copy, *value_copy;
    ng_script_param *p;
    if (t != LUA_TNUMBER && t != LUA_TSTRING && t != LUA_TBOOLEAN)
        return luaL_error(L, "ng.param '%s': the default must be a number, string or boolean, got %s", name,
                          luaL_typename(L, 2));
    if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
    lua_settop(L, 3);
    mn = opt_number(L, 3, "min", &has_min);
    mx = opt_number(L, 3, "max", &has_max);
    if (lua_type(L, 3) != LUA_TTABLE) lua_pushnil(L);
    else if (lua_getfield(L, 3, "doc") != LUA_TNIL && lua_type(L, 4) != LUA_TSTRING)
        return luaL_error(L, "ng.param '%s': 'doc' must be a string, got %s", name, luaL_typename(L, 4));
    if (lua_type(L, 3) == LUA_TTABLE) {
        int it = lua_getfield(L, 3, "integer");
        if (it != LUA_TNIL && it != LUA_TBOOLEAN)
            return luaL_error(L, "ng.param '%s': 'integer' must be a boolean, got %s", name, luaL_typename(L, -1));
        integer = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    if (integer && (t != LUA_TNUMBER || !whole(lua_tonumber(L, 2))))
        return luaL_error(L, "ng.param '%s': an integer parameter needs a whole number default, got %s", name,
                          t == LUA_TNUMBER ? lua_tostring(L, 2) : luaL_typename(L, 2));
    apply_sets(L, h, name, t, integer); /* index 4 (doc) stays referenced while its text is used */
    if (t == LUA_TNUMBER) {
        double v = lua_tonumber(L, 2);
        if ((has_min && v < mn) || (has_max && v > mx)) {
            char msg[256];
            snprintf(msg, sizeof msg, "parameter '%s' = %s is outside %s to %s", name, ng_number(v).s,
                     ng_number(has_min ? mn : -HUGE_VAL).s, ng_number(has_max ? mx : HUGE_VAL).s);
            return luaL_error(L, "%s", msg);
        }
    }
    /* the value as text, without __tostring: number, boolean or string */
    if (t == LUA_TBOOLEAN) lua_pushstring(L, lua_toboolean(L, 2) ? "true" : "false");
    else lua_pushvalue(L, 2);
    text = lua_tostring(L, 5);
    doc = lua_tostring(L, 4);

    for (i = 0; i < s->nparams; i++)
        if (strcmp(s->params[i].name, name) == 0) break;
    value_copy = charged_dup(h, text, &fail);
    if (i < s->nparams) {
        if (fail) return luaL_error(L, "not enough memory");
        charged_free(h, s->params[i].value);
        s->params[i].value = value_copy;
    } else {
        ng_script_param *ps = NULL;
        name_copy = charged_dup(h, name, &fail);
        doc_copy = charged_dup(h, doc, &fail);
        if (!fail && ng_budget_take(&h->budget, sizeof *ps)) fail = 1;
        else if (!fail && !(ps = realloc(s->params, (size_t)(s->nparams + 1) * sizeof *ps))) {
            ng_budget_give(&h->budget, sizeof *ps);
            fail = 1;
        }
        if (fail) {
            charged_free(h, value_copy);
            charged_free(h, name_copy);
            charged_free(h, doc_copy);
            return luaL_error(L, "not enough memory");
        }
        s->params = ps;
        p = &s->params[s->nparams++];
        memset(p, 0, sizeof *p);
        p->name = name_copy;
        p->doc = doc_copy;
        p->value = value_copy;
        p->min = mn;
        p->max = mx;
        p->has_min = has_min;
        p->has_max = has_max;
        p->kind = t == LUA_TBOOLEAN ? NG_SCRIPT_BOOLEAN : t == LUA_TSTRING ? NG_SCRIPT_STRING
                  : integer ? NG_SCRIPT_INTEGER : NG_SCRIPT_NUMBER;
    }
    lua_pushvalue(L, 2);
    return 1;
}

/* ---- the render context -------------------------------------------------------- */

/* ng.size() -> width, height, depth of the render (depth 0 for an image) */
static int l_size(lua_State *L)
{
    const ng_host_opts *o = host(L)->o;
    lua_pushinteger(L, o->width);
    lua_pushinteger(L, o->height);
    lua_pushinteger(L, o->depth);
    return 3;
}

/* ng.u() and ng.v(): the u and v nodes with the render's edge and extent. */
static void add_image_coord(lua_State *L, const char *name, double origin, double size)
{
    static const char *const keys[] = {"origin", "size"};
    const double values[] = {origin, size};
    ng_lua_push_preset(L, name, 2, keys, values);
    lua_setfield(L, -2, name);
}

/* The functions that tell a script about its render. ng on top. */
static void add_context(lua_State *L, const ng_host_opts *o)
{
    lua_pushcfunction(L, l_size);
    lua_setfield(L, -2, "size");
    add_image_coord(L, "u", o->origin[0], o->width * o->pixel_size);
    add_image_coord(L, "v", o->origin[1], o->height * o->pixel_size);
}

/* ---- running ----------------------------------------------------------------------- */

/* Output names become parts of file names: no directories, no dot files. */
static int valid_output_name(const char *s)
{
    const char *c;
    if (!*s || *s == '.' || strlen(s) > 64) return 0;
    for (c = s; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
              *c == '-' || *c == '.'))
            return 0;
    return 1;
}

static int collect_outputs(lua_State *L, const char *path, ng_script *s, ng_error *err)
{
    int id = ng_lua_node_id(L, -1), i, j;
    if (id >= 0) {
        s->noutputs = 1;
        s->output[0] = id;
        s->output_name[0] = NULL;
        return 0;
    }
    if (!lua_istable(L, -1))
        return ng_errorf(err, "%s: the script must return a node or a table of named nodes (it returned %s)", path,
                         luaL_typename(L, -1));
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            return ng_errorf(err, "%s: returned outputs must be named (name = node), got a %s key", path,
                             luaL_typename(L, -2));
        if (!valid_output_name(lua_tostring(L, -2)))
            return ng_errorf(err, "%s: output name '%s' must be letters, digits, '_', '-' or '.' (it names a file)",
                             path, lua_tostring(L, -2));
        if ((id = ng_lua_node_id(L, -1)) < 0)
            return ng_errorf(err, "%s: output '%s' is a %s, not a node", path, lua_tostring(L, -2),
                             luaL_typename(L, -1));
        if (s->noutputs == NG_MAX_OUTPUTS) return ng_errorf(err, "%s: more than %d outputs", path, NG_MAX_OUTPUTS);
        s->output_name[s->noutputs] = copy_string(lua_tostring(L, -2));
        s->output[s->noutputs++] = id;
        lua_pop(L, 1);
    }
    if (!s->noutputs) return ng_errorf(err, "%s: the script returned an empty table; return a node", path);
    for (i = 1; i < s->noutputs; i++) /* by name, so files and order never depend on hashing */
        for (j = i; j > 0 && strcmp(s->output_name[j - 1], s->output_name[j]) > 0; j--) {
            char *tn = s->output_name[j];
            int ti = s->output[j];
            s->output_name[j] = s->output_name[j - 1], s->output[j] = s->output[j - 1];
            s->output_name[j - 1] = tn, s->output[j - 1] = ti;
        }
    return 0;
}

static int message(lua_State *L, hoststate *h, const char *path, int status, ng_error *err)
{
    if (status == LUA_ERRMEM || h->budget.exceeded)
        return ng_errorf(err, "%s: the script used more than its memory limit of %g MiB (raise it with --memory-limit)",
                         path, h->o->memory_limit / (1024.0 * 1024.0));
    if (lua_type(L, -1) == LUA_TSTRING) {
        const char *m = lua_tostring(L, -1);
        /* Lua's own messages start with file:line; others get the script name */
        if (strncmp(m, path, strlen(path)) == 0) return ng_errorf(err, "%s", m);
        return ng_errorf(err, "%s: %s", path, m);
    }
    return ng_errorf(err, "%s: the script raised an error that is a %s, not a message", path, luaL_typename(L, -1));
}

static int l_label_globals(lua_State *L)
{
    ng_lua_label_globals(L);
    return 0;
}

/* The globals' names for their nodes, protected (it may run out of memory). */
static int label_globals(lua_State *L)
{
    int status;
    lua_pushcfunction(L, l_label_globals);
    if ((status = lua_pcall(L, 0, 0, 0)) != LUA_OK) lua_remove(L, -2); /* the message replaces the value */
    return status;
}

/* Runs the loaded chunk on top of L's stack; the script's value on top. */
static int run_chunk(lua_State *L, hoststate *h, const char *path, ng_error *err)
{
    int status = load_source(L, path, path);
    if (status == LUA_ERRFILE)
        return ng_errorf(err, "%s: cannot read the script (%s)", path, lua_tostring(L, -1));
    if (status == LUA_OK) status = lua_pcall(L, 0, 1, 0);
    if (status == LUA_OK) status = label_globals(L);
    if (status != LUA_OK) return message(L, h, path, status, err);
    return 0;
}

static int check_sets(const char *path, const ng_host_opts *o, const hoststate *h, const ng_script *s,
                      ng_error *err)
{
    int i;
    for (i = 0; i < o->nsets; i++)
        if (!h->set_used[i]) {
            int len = 0, k;
            char names[512];
            names[0] = 0;
            for (k = 0; k < s->nparams && len < (int)sizeof names - 64; k++)
                len += snprintf(names + len, sizeof names - (size_t)len, "%s%s", k ? ", " : "", s->params[k].name);
            return ng_errorf(err, "--set %s: %s declares no parameter '%s'%s%s%s", o->set_name[i], path,
                             o->set_name[i], s->nparams ? " (it declares " : " (it declares none)", names,
                             s->nparams ? ")" : "");
        }
    return 0;
}

int ng_script_run(const char *path, const ng_host_opts *o, ng_script *s, ng_error *err)
{
    hoststate h;
    watchdog dog;
    lua_State *L;
    const char *slash;
    int rc = -1;
    memset(s, 0, sizeof *s);
    memset(&h, 0, sizeof h);
    h.o = o;
    h.s = s;
    h.budget.limit = o->memory_limit >= 1.8e19 ? (size_t)-1 : o->memory_limit > 0 ? (size_t)o->memory_limit : 0;
    slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path) >= sizeof h.dir)
        return ng_errorf(err, "%.200s...: the script's directory name is longer than %zu bytes", path, sizeof h.dir - 1);
    if (slash) snprintf(h.dir, sizeof h.dir, "%.*s", (int)(slash - path), path);
    else snprintf(h.dir, sizeof h.dir, ".");
    if (slash == path) snprintf(h.dir, sizeof h.dir, "/");
    if (!realpath(h.dir, h.realdir)) return ng_errorf(err, "%s: cannot read the script (%s)", path, strerror(errno));
    clock_gettime(CLOCK_MONOTONIC, &h.start);
    h.stack_base = (uintptr_t)__builtin_frame_address(0);
    if (watchdog_start(&dog, path, o, &h.start)) return ng_errorf(err, "%s: cannot start the time-limit watchdog", path);
    if ((s->graph = ng_graph_new())) ng_graph_set_image_loader(s->graph, ng_image_load);
    if (!s->graph) {
        watchdog_stop(&dog);
        return ng_errorf(err, "%s: out of memory", path);
    }
    ng_graph_set_budget(s->graph, &h.budget);
    ng_graph_set_classic(s->graph, o->classic);
    if (!(L = lua_newstate(limited_alloc, &h))) {
        ng_errorf(err, "%s: cannot create a Lua state", path);
        goto detach;
    }
    if (o->unsafe) open_unsafe(L, h.dir);
    else open_sandbox(L);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "noisegraph.loaded");
    ng_lua_open(L, s->graph, h.dir, o->unsafe);
    if (o->on_require) ng_lua_on_file(L, o->on_require, o->on_require_user);
    ng_lua_default(L, "frame", "fps", o->fps);
    lua_pushcfunction(L, l_param);
    lua_setfield(L, -2, "param");
    add_context(L, o);
    lua_setglobal(L, "ng");

    lua_sethook(L, guard_hook, LUA_MASKCOUNT | LUA_MASKCALL | LUA_MASKRET, 1000);
    if (!run_chunk(L, &h, path, err) && !collect_outputs(L, path, s, err) && !check_sets(path, o, &h, s, err))
        rc = 0;
    ng_lua_close(L);
    lua_close(L); /* finalizers run here, hooks off: the watchdog still watches */
detach:
    watchdog_stop(&dog);
    s->memory_held = h.budget.used; /* the Lua state is gone: the graph and the parameters */
    ng_graph_set_budget(s->graph, NULL); /* the budget dies with this call */
    if (rc) {
        ng_script_free(s);
        memset(s, 0, sizeof *s);
        if (h.expired) rc = -2; /* the hook's error: the time limit, whatever the script made of it */
    }
    return rc;
}

void ng_script_free(ng_script *s)
{
    int i;
    ng_graph_free(s->graph);
    for (i = 0; i < s->noutputs; i++) free(s->output_name[i]);
    for (i = 0; i < s->nparams; i++) {
        free(s->params[i].name);
        free(s->params[i].doc);
        free(s->params[i].value);
    }
    free(s->params);
    s->graph = NULL;
    s->params = NULL;
    s->noutputs = s->nparams = 0;
}
