/*
 * host.c — runs a graph script. The Lua state is sandboxed by default (no
 * io, os, debug, binary chunks; `require` only of .lua files in the
 * script's directory tree), its memory is capped by its allocator and its
 * run time by an instruction-count hook, so a runaway script ends with one
 * clear line instead of hanging or swapping.
 */
#include "host.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct hoststate {
    const ng_host_opts *o;
    ng_script *s;
    size_t used;
    int over_memory;
    struct timespec start;
    int set_used[NG_MAX_SETS];
    char dir[4096];
} hoststate;

void ng_host_defaults(ng_host_opts *o)
{
    memset(o, 0, sizeof *o);
    o->time_limit = 10;
    o->memory_limit = 512.0 * 1024 * 1024;
}

static hoststate *host(lua_State *L)
{
    void *ud;
    lua_getallocf(L, &ud);
    return ud;
}

/* ---- limits ---------------------------------------------------------------- */

static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    hoststate *h = ud;
    size_t old = ptr ? osize : 0;
    void *p;
    if (nsize == 0) {
        free(ptr);
        h->used -= old;
        return NULL;
    }
    if (nsize > old && (double)(h->used - old + nsize) > h->o->memory_limit) {
        h->over_memory = 1;
        return NULL;
    }
    if (!(p = realloc(ptr, nsize))) return NULL;
    h->used = h->used - old + nsize;
    return p;
}

static double elapsed(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

static void time_hook(lua_State *L, lua_Debug *ar)
{
    hoststate *h = host(L);
    char msg[160];
    (void)ar;
    if (elapsed(&h->start) <= h->o->time_limit) return;
    /* From now on fail at every instruction, so a pcall cannot swallow the
     * error and carry on: the first instruction outside it fails too. */
    lua_sethook(L, time_hook, LUA_MASKCOUNT, 1);
    snprintf(msg, sizeof msg, "the script ran longer than its time limit of %g s (raise it with --time-limit)",
             h->o->time_limit);
    luaL_error(L, "%s", msg);
}

/* ---- sandbox ------------------------------------------------------------------ */

/* require(name): name.lua (dots are directories) under the script's directory. */
static int l_require(lua_State *L)
{
    hoststate *h = host(L);
    const char *name = luaL_checkstring(L, 1);
    char path[4200];
    size_t i, len = strlen(name);
    int ok = len > 0 && name[0] != '.' && name[len - 1] != '.';
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
    if (luaL_loadfilex(L, path, "t") != LUA_OK)
        return luaL_error(L, "require '%s': %s", name, lua_tostring(L, -1));
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
}

static void open_unsafe(lua_State *L, const char *dir)
{
    luaL_openlibs(L);
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;", dir, dir);
    lua_getfield(L, -2, "path");
    lua_concat(L, 2);
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
}

/* ---- ng.param ----------------------------------------------------------------- */

static char *dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
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

/* ng.param(name, default, {min =, max =, doc =}) -> value */
static int l_param(lua_State *L)
{
    hoststate *h = host(L);
    ng_script *s = h->s;
    const char *name = luaL_checkstring(L, 1);
    int t = lua_type(L, 2), i, has_min, has_max;
    double mn, mx;
    const char *doc = NULL;
    ng_script_param *p;
    if (t != LUA_TNUMBER && t != LUA_TSTRING && t != LUA_TBOOLEAN)
        return luaL_error(L, "ng.param '%s': the default must be a number, string or boolean, got %s", name,
                          luaL_typename(L, 2));
    if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
    mn = opt_number(L, 3, "min", &has_min);
    mx = opt_number(L, 3, "max", &has_max);
    if (lua_type(L, 3) == LUA_TTABLE && lua_getfield(L, 3, "doc") == LUA_TSTRING) doc = lua_tostring(L, -1);
    lua_settop(L, 3);
    for (i = 0; i < h->o->nsets; i++) {
        const char *v = h->o->set_value[i];
        if (strcmp(h->o->set_name[i], name) != 0) continue;
        h->set_used[i] = 1;
        lua_settop(L, 3);
        if (t == LUA_TNUMBER) {
            if (!lua_stringtonumber(L, v))
                return luaL_error(L, "--set %s=%s: '%s' is a number parameter", name, v, name);
        } else if (t == LUA_TBOOLEAN) {
            if (strcmp(v, "true") && strcmp(v, "false") && strcmp(v, "1") && strcmp(v, "0"))
                return luaL_error(L, "--set %s=%s: '%s' is a boolean parameter (true or false)", name, v, name);
            lua_pushboolean(L, !strcmp(v, "true") || !strcmp(v, "1"));
        } else {
            lua_pushstring(L, v);
        }
        lua_replace(L, 2);
    }
    if (t == LUA_TNUMBER) {
        double v = lua_tonumber(L, 2);
        if ((has_min && v < mn) || (has_max && v > mx)) {
            char msg[256];
            snprintf(msg, sizeof msg, "parameter '%s' = %g is outside %g to %g", name, v, has_min ? mn : -HUGE_VAL,
                     has_max ? mx : HUGE_VAL);
            return luaL_error(L, "%s", msg);
        }
    }
    for (i = 0; i < s->nparams; i++)
        if (strcmp(s->params[i].name, name) == 0) break;
    if (i == s->nparams) {
        ng_script_param *ps = realloc(s->params, (size_t)(s->nparams + 1) * sizeof *ps);
        if (!ps) return luaL_error(L, "ng.param: out of memory");
        s->params = ps;
        p = &s->params[s->nparams++];
        memset(p, 0, sizeof *p);
        p->name = dup(name);
        p->doc = doc ? dup(doc) : NULL;
        p->min = mn;
        p->max = mx;
        p->has_min = has_min;
        p->has_max = has_max;
    }
    p = &s->params[i];
    free(p->value);
    p->value = dup(luaL_tolstring(L, 2, NULL));
    lua_pop(L, 1);
    lua_pushvalue(L, 2);
    return 1;
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
        s->output_name[s->noutputs] = dup(lua_tostring(L, -2));
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
    if (status == LUA_ERRMEM || h->over_memory)
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

int ng_script_run(const char *path, const ng_host_opts *o, ng_script *s, ng_error *err)
{
    hoststate h;
    lua_State *L;
    const char *slash;
    int status, i, rc = -1;
    memset(s, 0, sizeof *s);
    memset(&h, 0, sizeof h);
    h.o = o;
    h.s = s;
    slash = strrchr(path, '/');
    if (slash) snprintf(h.dir, sizeof h.dir, "%.*s", (int)(slash - path), path);
    else snprintf(h.dir, sizeof h.dir, ".");
    if (slash == path) snprintf(h.dir, sizeof h.dir, "/");
    if (!(s->graph = ng_graph_new())) return ng_errorf(err, "%s: out of memory", path);
    if (!(L = lua_newstate(limited_alloc, &h))) return ng_errorf(err, "%s: cannot create a Lua state", path);
    if (o->unsafe) open_unsafe(L, h.dir);
    else open_sandbox(L);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "noisegraph.loaded");
    ng_lua_open(L, s->graph, h.dir, o->unsafe);
    lua_pushcfunction(L, l_param);
    lua_setfield(L, -2, "param");
    lua_setglobal(L, "ng");

    clock_gettime(CLOCK_MONOTONIC, &h.start);
    lua_sethook(L, time_hook, LUA_MASKCOUNT, 1000);
    status = luaL_loadfilex(L, path, "t");
    if (status == LUA_OK) status = lua_pcall(L, 0, 1, 0);
    lua_sethook(L, NULL, 0, 0);
    if (status != LUA_OK) {
        if (status == LUA_ERRFILE) { /* "cannot open PATH: REASON" */
            const char *why = strrchr(lua_tostring(L, -1), ':');
            ng_errorf(err, "%s: cannot read the script (%s)", path, why ? why + 2 : "unknown reason");
        } else {
            message(L, &h, path, status, err);
        }
        goto done;
    }
    if (collect_outputs(L, path, s, err)) goto done;
    for (i = 0; i < o->nsets; i++)
        if (!h.set_used[i]) {
            int len = 0, k;
            char names[512];
            names[0] = 0;
            for (k = 0; k < s->nparams && len < (int)sizeof names - 64; k++)
                len += snprintf(names + len, sizeof names - (size_t)len, "%s%s", k ? ", " : "", s->params[k].name);
            ng_errorf(err, "--set %s: %s declares no parameter '%s'%s%s%s", o->set_name[i], path, o->set_name[i],
                      s->nparams ? " (it declares " : " (it declares none)", names, s->nparams ? ")" : "");
            goto done;
        }
    rc = 0;
done:
    ng_lua_cleanup(L);
    lua_close(L);
    if (rc) {
        ng_script_free(s);
        memset(s, 0, sizeof *s);
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
