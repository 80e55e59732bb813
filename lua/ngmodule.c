/*
 * ngmodule.c — the `ng` Lua library: one generic constructor, driven by
 * the node descriptors, behind every `ng.<type>` and shorthand, the
 * operators and the methods. Nothing here names a node type.
 *
 * A node is a userdata holding its id in the one graph of this state; the
 * graph is owned by the host and outlives the state, so nodes need no
 * reference counts. Every function gets the module state as upvalue 1.
 *
 * A node being built belongs to a "pending" userdata whose __gc discards
 * it: building calls back into Lua (metamethods of option tables, nested
 * constructors, garbage collection), and a Lua error may unwind at any of
 * those points; the half-built node is then freed by the collector, never
 * by a later constructor while its builder still uses it.
 */
#include "colour.h"
#include "host.h"
#include "types.h"

#include <errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <lua.h>
#include <stdio.h>
#include <string.h>

#define NODE_MT "noisegraph.node"
#define PENDING_MT "noisegraph.pending"
#define DEFAULTS_KEY "noisegraph.defaults" /* registry: {type = {key = value}} (ng_lua_default) */
#define NAMED_KEY "noisegraph.named" /* registry: {[id] = true} for nodes the script has named */

typedef struct modstate {
    ng_graph *g;
    char dir[4096]; /* the script's directory: file options resolve against it */
    int unsafe;
    int closed;     /* the script has ended: no more nodes (see ng_lua_close) */
    void (*on_file)(void *user, const char *path); /* ng_lua_on_file; NULL: none */
    void *on_file_user;
} modstate;

typedef struct pending {
    ng_node *n; /* owned until finished; NULL after */
} pending;

static int pending_gc(lua_State *L)
{
    pending *p = luaL_checkudata(L, 1, PENDING_MT);
    ng_node_discard(p->n);
    p->n = NULL;
    return 0;
}

typedef struct lnode {
    int id;
} lnode;

static modstate *state(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(1)); }

static void push_node(lua_State *L, int id)
{
    lnode *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->id = id;
    luaL_setmetatable(L, NODE_MT);
}

static int to_node(lua_State *L, int idx)
{
    lnode *u = luaL_testudata(L, idx, NODE_MT);
    return u ? u->id : -1;
}

/* The script position of the caller, without the trailing ": ". */
static void where(lua_State *L, char *buf, size_t len)
{
    size_t n;
    luaL_where(L, 1);
    snprintf(buf, len, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    n = strlen(buf);
    if (n >= 2 && buf[n - 2] == ':') buf[n - 2] = 0;
}

/* Raises err as a Lua error (luaL_error adds file:line). A half-built
 * node is left to its pending userdata's __gc. */
static int raise(lua_State *L, const ng_error *err)
{
    return luaL_error(L, "%s", err->msg);
}

static const char *type_word(lua_State *L, int idx)
{
    if (luaL_testudata(L, idx, NODE_MT)) return "node";
    return luaL_typename(L, idx);
}

/* {a, b, c} or, for pairs, {{x, y}, {x, y}} (a flat {x, y, x, y} works too). */
/* One item of a list option into v: a number; a colour string ("#rrggbb",
 * a name) as its 3 numbers; a table (up to two levels: {pos, {r, g, b}})
 * as its items in order. 0, or -1 with err filled. */
static int add_list_item(lua_State *L, const char *label, const char *opt, int item, int idx, int depth, double *v,
                         int *count, int cap, ng_error *err)
{
    int t = lua_type(L, idx), ok, j, len;
    if (t == LUA_TSTRING) {
        double rgb[3];
        ng_error why;
        if (ng_colour_parse(lua_tostring(L, idx), rgb, &why))
            return ng_errorf(err, "%s: option '%s': item %d: %s", label, opt, item, why.msg);
        if (*count > cap - 3) return ng_errorf(err, "%s: option '%s' has more than %d numbers", label, opt, cap);
        for (j = 0; j < 3; j++) v[(*count)++] = rgb[j];
        return 0;
    }
    if (t == LUA_TTABLE && depth < 2) {
        len = (int)lua_rawlen(L, idx);
        for (j = 1; j <= len; j++) {
            int rc;
            lua_geti(L, idx, j);
            rc = add_list_item(L, label, opt, item, lua_gettop(L), depth + 1, v, count, cap, err);
            lua_pop(L, 1);
            if (rc) return rc;
        }
        return 0;
    }
    if (*count == cap) return ng_errorf(err, "%s: option '%s' has more than %d numbers", label, opt, cap);
    v[(*count)++] = lua_tonumberx(L, idx, &ok);
    if (!ok) return ng_errorf(err, "%s: option '%s': item %d is not a number", label, opt, item);
    return 0;
}

static int set_list(lua_State *L, ng_node *n, const char *label, int k, int idx, ng_error *err)
{
    const ng_param_desc *p = &ng_node_type_of(n)->params[k];
    double v[1024];
    int count = 0, i, len = (int)lua_rawlen(L, idx);
    for (i = 1; i <= len; i++) {
        int rc;
        lua_geti(L, idx, i);
        rc = add_list_item(L, label, p->name, i, lua_gettop(L), 0, v, &count, (int)(sizeof v / sizeof v[0]), err);
        lua_pop(L, 1);
        if (rc) return rc;
    }
    return ng_set_list(n, k, v, count, err);
}

/* File paths are relative to the script's directory; in the sandbox they
 * must stay inside its tree (checked on the resolved path, so symlinks
 * cannot lead out). */
static int set_path(modstate *m, ng_node *n, const char *label, int k, const char *path, ng_error *err)
{
    const ng_param_desc *p = &ng_node_type_of(n)->params[k];
    char joined[8192], real[PATH_MAX], realdir[PATH_MAX];
    size_t dl;
    if (!*path) return ng_errorf(err, "%s: option '%s' is an empty file name", label, p->name);
    if (path[0] == '/' && !m->unsafe)
        return ng_errorf(err, "%s: %s: absolute paths are outside the script's directory (--unsafe allows them)",
                         label, path);
    if (path[0] == '/') snprintf(joined, sizeof joined, "%s", path);
    else snprintf(joined, sizeof joined, "%s/%s", m->dir, path);
    if (m->on_file) m->on_file(m->on_file_user, joined); /* also when it does not exist (yet) */
    if (!realpath(joined, real)) return ng_errorf(err, "%s: %s: %s", label, joined, strerror(errno));
    if (m->on_file && strcmp(real, joined)) m->on_file(m->on_file_user, real);
    if (!m->unsafe) {
        if (!realpath(m->dir, realdir)) return ng_errorf(err, "%s: %s: %s", label, m->dir, strerror(errno));
        dl = strlen(realdir);
        if (strncmp(real, realdir, dl) != 0 || (real[dl] != '/' && strcmp(realdir, "/") != 0))
            return ng_errorf(err, "%s: %s: outside the script's directory (--unsafe allows it)", label, path);
    }
    return ng_set_string(n, k, real, err);
}

/* Whether the table at idx has an item past the first n (a vector or a
 * range given more numbers than it takes must not lose them silently).
 * Raw: a proxy table's __index answers for every index. */
static int has_item_past(lua_State *L, int idx, int n)
{
    int more = lua_rawgeti(L, idx, n + 1) != LUA_TNIL;
    lua_pop(L, 1);
    return more;
}

static int set_param(lua_State *L, modstate *m, ng_node *n, const char *label, int k, int idx, ng_error *err)
{
    const ng_param_desc *p = &ng_node_type_of(n)->params[k];
    int t = lua_type(L, idx), src = to_node(L, idx);
    if (src >= 0 && ng_param_takes_node(ng_node_type_of(n), k)) return ng_set_param_node(m->g, n, k, src, err);
    switch (p->kind) {
    case NG_PARAM_NUMBER:
    case NG_PARAM_INT:
        if (t != LUA_TNUMBER) break;
        return ng_set_number(n, k, lua_tonumber(L, idx), err);
    case NG_PARAM_BOOL:
        if (t != LUA_TBOOLEAN) break;
        return ng_set_bool(n, k, lua_toboolean(L, idx), err);
    case NG_PARAM_ENUM:
        if (t != LUA_TSTRING) break;
        return ng_set_choice(n, k, lua_tostring(L, idx), err);
    case NG_PARAM_STRING:
        if (t != LUA_TSTRING) break;
        return ng_set_string(n, k, lua_tostring(L, idx), err);
    case NG_PARAM_VEC3: {
        double v[3];
        int d;
        if (t == LUA_TNUMBER) {
            v[0] = v[1] = v[2] = lua_tonumber(L, idx);
            return ng_set_vec3(n, k, v, err);
        }
        if (t != LUA_TTABLE) break;
        if (has_item_past(L, idx, 3))
            return ng_errorf(err, "%s: option '%s' must be a number, {x, y} or {x, y, z}; it has more than 3 items",
                             label, p->name);
        for (d = 0; d < 3; d++) { /* {x, y} in a 2D script: z keeps its default */
            int ok, missing_z = lua_geti(L, idx, d + 1) == LUA_TNIL && d == 2;
            v[d] = missing_z ? p->def[2] : lua_tonumberx(L, -1, &ok);
            lua_pop(L, 1);
            if (!missing_z && !ok)
                return ng_errorf(err, "%s: option '%s' must be a number, {x, y} or {x, y, z}; item %d is not a number",
                                 label, p->name, d + 1);
        }
        return ng_set_vec3(n, k, v, err);
    }
    case NG_PARAM_RANGE:
        if (t == LUA_TSTRING) {
            const char *s = lua_tostring(L, idx);
            int mode = ng_range_mode(s);
            if (mode >= 0) return ng_set_range(n, k, mode, 0, 0, err);
            return ng_errorf(err, "%s: option '%s' = \"%s\" is not \"natural\", \"unit\", \"signed\" or {lo, hi}",
                             label, p->name, s);
        }
        if (t == LUA_TTABLE) {
            int ok1, ok2;
            double lo, hi;
            if (has_item_past(L, idx, 2))
                return ng_errorf(err, "%s: option '%s' as a table must be {lo, hi}; it has more than 2 items", label,
                                 p->name);
            lua_geti(L, idx, 1);
            lua_geti(L, idx, 2);
            lo = lua_tonumberx(L, -2, &ok1);
            hi = lua_tonumberx(L, -1, &ok2);
            lua_pop(L, 2);
            if (!ok1 || !ok2) return ng_errorf(err, "%s: option '%s' as a table must be {lo, hi}", label, p->name);
            return ng_set_range(n, k, NG_RANGE_CUSTOM, lo, hi, err);
        }
        break;
    case NG_PARAM_LIST:
        if (t == LUA_TTABLE) return set_list(L, n, label, k, idx, err);
        break;
    case NG_PARAM_PATH:
        if (t == LUA_TSTRING) return set_path(m, n, label, k, lua_tostring(L, idx), err);
        break;
    }
    return ng_errorf(err, "%s: option '%s' must be %s, got %s", label, p->name,
                     ng_param_must_be(ng_node_type_of(n), k), type_word(L, idx));
}

static int set_input(lua_State *L, modstate *m, ng_node *n, const char *label, int k, int idx, ng_error *err)
{
    const ng_input_desc *in = &ng_node_type_of(n)->inputs[k];
    int id = to_node(L, idx);
    if (id < 0 && lua_type(L, idx) == LUA_TNUMBER && (in->flags & NG_INPUT_HYBRID)) {
        if ((id = ng_constant(m->g, lua_tonumber(L, idx), err)) < 0) return -1;
    }
    if (id < 0)
        return ng_errorf(err, "%s: input '%s' must be a node%s, got %s", label, in->name,
                         (in->flags & NG_INPUT_HYBRID) ? " or a number" : "", type_word(L, idx));
    return ng_set_input(m->g, n, k, id, err);
}

/* An unknown key: the closest option, input or alias, if one is close. */
static int unknown_option(const ng_node_type *t, const char *label, const char *key, ng_error *err)
{
    const char *names[128], *near;
    const ng_option_alias *a;
    int count = 0, k, i;
    for (k = 0; k < t->nparams + t->ninputs && count < 128; k++)
        names[count++] = k < t->nparams ? t->params[k].name : t->inputs[k - t->nparams].name;
    for (k = 0; k < t->nparams; k++)
        for (i = 0; (a = ng_option_alias_of(t, k, i)) && count < 128; i++) names[count++] = a->name;
    if ((near = ng_closest_name(key, names, count))) {
        a = ng_option_alias_find(t, near);
        return ng_errorf(err, "%s: unknown option '%s' (did you mean '%s'%s%s?)", label, key, near,
                         !a ? "" : a->inverse ? ", 1 / " : ", another name for ", a ? a->means : "");
    }
    return ng_errorf(err, "%s: unknown option '%s' (see `noisegraph nodes %s`)", label, key, t->name);
}

/* Sets the option an alias means from the value at idx: as it is, or its
 * inverse (frequency 0.01: element_size 100), a number then. */
static int set_alias(lua_State *L, modstate *m, ng_node *n, const char *label, const ng_option_alias *a, int idx,
                     ng_error *err)
{
    const ng_node_type *t = ng_node_type_of(n);
    const int k = ng_param_index(t, a->means);
    double v;
    if (!a->inverse) return set_param(L, m, n, label, k, idx, err);
    if (lua_type(L, idx) != LUA_TNUMBER || !((v = lua_tonumber(L, idx)) > 0) || !isfinite(1 / v))
        return ng_errorf(err, "%s: option '%s' (1 / %s) must be a number above 0, got %s", label, a->name, a->means,
                         lua_type(L, idx) == LUA_TNUMBER ? lua_tostring(L, idx) : type_word(L, idx));
    return ng_set_number(n, k, 1 / v, err);
}

/* Sets option `key` from the value at idx. */
static int set_option(lua_State *L, modstate *m, ng_node *n, const char *label, const char *key, int idx,
                      ng_error *err)
{
    const ng_node_type *t = ng_node_type_of(n);
    int k;
    const ng_option_alias *a;
    if ((k = ng_param_index(t, key)) >= 0) return set_param(L, m, n, label, k, idx, err);
    if ((k = ng_input_index(t, key)) >= 0) return set_input(L, m, n, label, k, idx, err);
    if ((a = ng_option_alias_find(t, key))) return set_alias(L, m, n, label, a, idx, err);
    return unknown_option(t, label, key, err);
}

/* The options the host set for type t before the script's own (see
 * ng_lua_default): the script's, set after, replace them. */
static int host_defaults(lua_State *L, modstate *m, ng_node *n, const char *label, ng_error *err)
{
    int rc = 0;
    lua_getfield(L, LUA_REGISTRYINDEX, DEFAULTS_KEY);
    if (lua_getfield(L, -1, ng_node_type_of(n)->name) == LUA_TTABLE) {
        lua_pushnil(L);
        while (rc == 0 && lua_next(L, -2)) {
            rc = set_option(L, m, n, label, lua_tostring(L, -2), lua_gettop(L), err);
            lua_pop(L, 1);
        }
        if (rc) lua_pop(L, 1); /* the key */
    }
    lua_pop(L, 2);
    return rc;
}

void ng_lua_default(lua_State *L, const char *type, const char *key, double value)
{
    lua_getfield(L, LUA_REGISTRYINDEX, DEFAULTS_KEY);
    if (lua_getfield(L, -1, type) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, -3, type);
    }
    lua_pushnumber(L, value);
    lua_setfield(L, -2, key);
    lua_pop(L, 2);
}

/* The i-th (from 1) name in the type's positional list, or 0. */
static int positional_name(const ng_node_type *t, lua_Integer i, char *buf, size_t len)
{
    const char *p = t->positional, *end;
    if (!p || i < 1) return 0;
    for (; i > 1; i--) {
        if (!(p = strchr(p, ','))) return 0;
        p++;
    }
    end = strchr(p, ',');
    snprintf(buf, len, "%.*s", (int)(end ? (size_t)(end - p) : strlen(p)), p);
    return 1;
}

/* An alias given beside the option it means (or another alias of it) in
 * the table at idx: one value would silently win. */
static int given_twice(lua_State *L, const ng_node_type *t, int idx, const char *key, const char *label,
                       ng_error *err)
{
    const ng_option_alias *a = ng_option_alias_find(t, key), *b;
    const char *other = NULL;
    int k, i;
    if (!a) return 0;
    k = ng_param_index(t, a->means);
    if (lua_getfield(L, idx, a->means) != LUA_TNIL) other = a->means;
    lua_pop(L, 1);
    for (i = 0; !other && (b = ng_option_alias_of(t, k, i)); i++) {
        if (b == a) continue;
        if (lua_getfield(L, idx, b->name) != LUA_TNIL) other = b->name;
        lua_pop(L, 1);
    }
    if (!other) return 0;
    return ng_errorf(err, "%s: '%s' and '%s' both set %s; give one", label, other, key, a->means);
}

/* Builds a node of type t from a table of options at idx, or from the
 * positional arguments first..last. Leaves the node on the stack. */
static int build(lua_State *L, const ng_node_type *t, const ng_shorthand *sh, const char *label, int first,
                 int last)
{
    modstate *m = state(L);
    char pos[256];
    ng_error err;
    ng_node *n;
    pending *owner;
    int id;
    if (m->closed) return luaL_error(L, "%s: the script has ended; nodes cannot be made now (in a finalizer?)", label);
    where(L, pos, sizeof pos);
    owner = lua_newuserdatauv(L, sizeof *owner, 0); /* before the node, so its __gc covers it */
    owner->n = NULL;
    luaL_setmetatable(L, PENDING_MT);
    if (!(n = owner->n = ng_node_begin(m->g, t, label, pos, &err))) return raise(L, &err);
    if (sh && sh->param && ng_set_choice(n, ng_param_index(t, sh->param), sh->value, &err)) return raise(L, &err);
    if (host_defaults(L, m, n, label, &err)) return raise(L, &err);
    if (first == last && lua_type(L, first) == LUA_TTABLE && !luaL_testudata(L, first, NODE_MT)) {
        lua_pushnil(L);
        while (lua_next(L, first)) {
            const char *key;
            char name[64];
            if (lua_isinteger(L, -2)) { /* {src, octaves = 5}: array items are the positional arguments */
                if (!positional_name(t, lua_tointeger(L, -2), name, sizeof name)) {
                    ng_errorf(&err, "%s: item %lld has no name to go to; name the options (key = value)%s%s%s", label,
                              (long long)lua_tointeger(L, -2), t->positional ? " (positional: " : "",
                              t->positional ? t->positional : "", t->positional ? ")" : "");
                    return raise(L, &err);
                }
                key = name;
            } else if (lua_type(L, -2) != LUA_TSTRING) {
                ng_errorf(&err, "%s: options are named (key = value); got a %s key", label, luaL_typename(L, -2));
                return raise(L, &err);
            } else {
                key = lua_tostring(L, -2);
            }
            if (sh && sh->param && strcmp(key, sh->param) == 0) {
                ng_errorf(&err, "%s: '%s' is fixed to \"%s\" here; use ng.%s{%s = ...} to choose it", label, key,
                          sh->value, t->name, key);
                return raise(L, &err);
            }
            if (given_twice(L, t, first, key, label, &err)) return raise(L, &err);
            if (set_option(L, m, n, label, key, lua_gettop(L), &err)) return raise(L, &err);
            lua_pop(L, 1);
        }
    } else if (last >= first) {
        char names[256], *save = NULL, *name;
        int a = first;
        if (!t->positional) {
            ng_errorf(&err, "%s: takes a table of options, like ng.%s{...}", label, label);
            return raise(L, &err);
        }
        snprintf(names, sizeof names, "%s", t->positional);
        for (name = strtok_r(names, ",", &save); name && a <= last; name = strtok_r(NULL, ",", &save), a++)
            if (set_option(L, m, n, label, name, a, &err)) return raise(L, &err);
        if (a <= last) {
            ng_errorf(&err, "%s: too many arguments (%d); it takes (%s)", label, last - first + 1, t->positional);
            return raise(L, &err);
        }
    }
    owner->n = NULL; /* finish takes it, and frees it on failure */
    if ((id = ng_node_finish(m->g, n, &err)) < 0) return luaL_error(L, "%s", err.msg);
    push_node(L, id);
    return 1;
}

/* node:named("mountains"): the node, labelled as the script calls it
 * (messages, info, dot, the page); upvalue: state */
static int l_named(lua_State *L)
{
    modstate *m = state(L);
    const int id = to_node(L, 1);
    const char *name = luaL_checkstring(L, 2);
    ng_error err;
    if (id < 0) return luaL_argerror(L, 1, "a node");
    if (ng_node_rename(m->g, id, name, &err)) return luaL_error(L, "%s", err.msg);
    lua_getfield(L, LUA_REGISTRYINDEX, NAMED_KEY);
    lua_pushboolean(L, 1);
    lua_rawseti(L, -2, id);
    lua_settop(L, 1);
    return 1;
}

/* ---- labels from the script's variables ---------------------------------------- */

/* Labels the node at the top of the stack (popped) by the variable name,
 * unless the node is named already (by :named(), or by a variable taken
 * first). A name a node cannot have (over 64 bytes) is left out. The
 * registry's state, not an upvalue: the host calls these from a hook. */
static void label_by_variable(lua_State *L, const char *name)
{
    modstate *m;
    int id = to_node(L, -1);
    lua_pop(L, 1);
    if (id < 0 || !name || name[0] == '(') return; /* "(temporary)", "(for state)" */
    lua_getfield(L, LUA_REGISTRYINDEX, "noisegraph.state");
    m = lua_touserdata(L, -1);
    lua_getfield(L, LUA_REGISTRYINDEX, NAMED_KEY);
    if (lua_rawgeti(L, -1, id) == LUA_TNIL && m && ng_node_rename(m->g, id, name, &(ng_error){0}) == 0) {
        lua_pushboolean(L, 1);
        lua_rawseti(L, -3, id);
    }
    lua_pop(L, 3);
}

void ng_lua_label_locals(lua_State *L, lua_Debug *ar)
{
    const char *name;
    int k;
    for (k = 1; (name = lua_getlocal(L, ar, k)); k++) label_by_variable(L, name);
}

/* Globals have no order of declaration: of two holding one node, the
 * first by name (a fixed choice, where table order changes by run). */
void ng_lua_label_globals(lua_State *L)
{
    int g, best;
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    g = lua_gettop(L);
    lua_newtable(L); /* best: {[id] = name} */
    best = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, g)) {
        int id = to_node(L, -1);
        if (id >= 0 && lua_type(L, -2) == LUA_TSTRING) {
            if (lua_rawgeti(L, best, id) == LUA_TNIL || strcmp(lua_tostring(L, -3), lua_tostring(L, -1)) < 0) {
                lua_pushvalue(L, -3);
                lua_rawseti(L, best, id);
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    while (lua_next(L, best)) {
        const char *name = lua_tostring(L, -1);
        lua_pushvalue(L, -1);
        lua_rawget(L, g); /* the node again, by its name */
        label_by_variable(L, name);
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
}

/* ng.<name>{...} or ng.<name>(a, b, ...): upvalues state, type, shorthand, label */
static int l_construct(lua_State *L)
{
    const ng_node_type *t = lua_touserdata(L, lua_upvalueindex(2));
    const ng_shorthand *sh = lua_touserdata(L, lua_upvalueindex(3));
    const char *label = lua_tostring(L, lua_upvalueindex(4));
    return build(L, t, sh, label, 1, lua_gettop(L));
}

/* metamethods and methods: positional with a fixed argument count */
static int l_operator(lua_State *L)
{
    const ng_node_type *t = lua_touserdata(L, lua_upvalueindex(2));
    int nargs = (int)lua_tointeger(L, lua_upvalueindex(3)), top = lua_gettop(L);
    if (nargs && top > nargs) top = nargs; /* __unm gets its operand twice */
    return build(L, t, NULL, t->name, 1, top);
}

/* Whether the one argument at idx of a method call is a table of options
 * (node:terrace{steps = 8}) rather than the value of the method's second
 * positional option (node:curve{{0, 0}, {1, 1}}: a list of points). A
 * table with a named key, or none at all, holds options; a list is the
 * second positional's value when that option takes a table. */
static int method_options(lua_State *L, const ng_node_type *t, int idx)
{
    char second[64];
    int k;
    if (lua_type(L, idx) != LUA_TTABLE || luaL_testudata(L, idx, NODE_MT)) return 0;
    lua_pushnil(L);
    if (!lua_next(L, idx)) return 1; /* node:curve{}: no options */
    lua_pop(L, 2);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        int named = lua_type(L, -2) == LUA_TSTRING;
        lua_pop(L, 1);
        if (named) {
            lua_pop(L, 1);
            return 1;
        }
    }
    if (!positional_name(t, 2, second, sizeof second) || (k = ng_param_index(t, second)) < 0) return 1;
    switch (t->params[k].kind) {
    case NG_PARAM_VEC3: case NG_PARAM_RANGE: case NG_PARAM_LIST: return 0;
    default: return 1;
    }
}

/* node:method(a, b) or node:method{opt = v, ...}: the same table form as
 * the constructor, the receiver being the leading positional input. */
static int l_method(lua_State *L)
{
    const ng_node_type *t = lua_touserdata(L, lua_upvalueindex(2));
    char first[64];
    if (lua_gettop(L) != 2 || !method_options(L, t, 2) || !positional_name(t, 1, first, sizeof first))
        return build(L, t, NULL, t->name, 1, lua_gettop(L));
    lua_newtable(L); /* 3: the options with the receiver first */
    lua_pushvalue(L, 1);
    lua_seti(L, 3, 1);
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        if (lua_type(L, -2) == LUA_TSTRING && strcmp(lua_tostring(L, -2), first) == 0)
            return luaL_error(L, "%s: '%s' is the node the method is called on (node:%s{...})", t->name, first,
                              t->method);
        if (lua_isinteger(L, -2) && lua_tointeger(L, -2) >= 1) { /* items follow the receiver */
            lua_pushinteger(L, lua_tointeger(L, -2) + 1);
            lua_insert(L, -2);
        } else {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
        }
        lua_settable(L, 3);
    }
    return build(L, t, NULL, t->name, 3, 3);
}

static int l_tostring(lua_State *L)
{
    modstate *m = state(L);
    lnode *u = luaL_checkudata(L, 1, NODE_MT);
    const ng_node *n = ng_graph_node(m->g, u->id);
    lua_pushfstring(L, "node #%d (%s)", u->id, n ? ng_node_label(n) : "?");
    return 1;
}

/* node.name for a name that is no method: the closest method, if any. */
static int l_index_fail(lua_State *L)
{
    const char *key = luaL_optstring(L, 2, "?"), *names[256], *near;
    const ng_node_type *const *types;
    int ntypes, i, count = 1;
    names[0] = "named"; /* the one method of every node (l_named) */
    types = ng_types(&ntypes);
    for (i = 0; i < ntypes && count < 256; i++)
        if (types[i]->method) names[count++] = types[i]->method;
    if ((near = ng_closest_name(key, names, count)))
        return luaL_error(L, "nodes have no field or method '%s'; did you mean node:%s?", key, near);
    return luaL_error(L, "nodes have no field or method '%s'", key);
}

/* ng.name for a name ng does not have (a misspelt constructor): the
 * closest of ng's functions, read from the table itself so functions the
 * host adds (ng.param) are offered too. Upvalue 1: the ng table. */
static int l_ng_index_fail(lua_State *L)
{
    const char *key = luaL_optstring(L, 2, "?"), *names[512], *near;
    int count = 0;
    lua_pushnil(L);
    while (count < 512 && lua_next(L, lua_upvalueindex(1))) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TFUNCTION) names[count++] = lua_tostring(L, -2);
        lua_pop(L, 1);
    }
    if (count == 512) lua_pop(L, 1);
    if ((near = ng_closest_name(key, names, count)))
        return luaL_error(L, "ng.%s is not a node type; did you mean ng.%s?", key, near);
    return luaL_error(L, "ng.%s is not a node type or function (see `noisegraph nodes`)", key);
}

/* Reading a name ng lacks is an error naming the closest one, not a nil
 * that fails later as "attempt to call a nil value". ng on top. */
static void guard_ng(lua_State *L)
{
    lua_newtable(L);
    lua_pushvalue(L, -2);
    lua_pushcclosure(L, l_ng_index_fail, 1);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
}

static int count_names(const char *list)
{
    int c = 1;
    if (!list || !*list) return 0;
    for (; *list; list++) c += *list == ',';
    return c;
}

static void push_closure(lua_State *L, int st, const ng_node_type *t, lua_CFunction f, int extra)
{
    lua_pushvalue(L, st);
    lua_pushlightuserdata(L, (void *)t);
    lua_pushinteger(L, extra);
    lua_pushcclosure(L, f, 3);
}

void ng_lua_open(lua_State *L, ng_graph *g, const char *dir, int unsafe)
{
    const ng_node_type *const *types;
    int ntypes, i, s, st;
    modstate *m = lua_newuserdatauv(L, sizeof *m, 0);
    m->g = g;
    m->closed = 0;
    snprintf(m->dir, sizeof m->dir, "%s", dir);
    m->unsafe = unsafe;
    m->on_file = NULL, m->on_file_user = NULL;
    st = lua_gettop(L);
    lua_pushvalue(L, st);
    lua_setfield(L, LUA_REGISTRYINDEX, "noisegraph.state");
    types = ng_types(&ntypes);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, DEFAULTS_KEY);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, NAMED_KEY);

    luaL_newmetatable(L, PENDING_MT);
    lua_pushcfunction(L, pending_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushboolean(L, 0); /* getmetatable() on it cannot reach __gc */
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);

    luaL_newmetatable(L, NODE_MT);
    lua_newtable(L); /* methods */
    for (i = 0; i < ntypes; i++) {
        if (types[i]->method) {
            push_closure(L, st, types[i], l_method, 0);
            lua_setfield(L, -2, types[i]->method);
        }
    }
    lua_pushvalue(L, st);
    lua_pushcclosure(L, l_named, 1);
    lua_setfield(L, -2, "named");
    lua_newtable(L); /* methods' metatable: unknown names are errors */
    lua_pushvalue(L, st);
    lua_pushcclosure(L, l_index_fail, 1);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, "__index");
    for (i = 0; i < ntypes; i++) {
        if (types[i]->op) {
            push_closure(L, st, types[i], l_operator, count_names(types[i]->positional));
            lua_setfield(L, -2, types[i]->op);
        }
    }
    lua_pushvalue(L, st);
    lua_pushcclosure(L, l_tostring, 1);
    lua_setfield(L, -2, "__tostring");
    lua_pushstring(L, "noisegraph.node");
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);

    lua_newtable(L); /* ng */
    for (i = 0; i < ntypes; i++) {
        lua_pushvalue(L, st);
        lua_pushlightuserdata(L, (void *)types[i]);
        lua_pushnil(L);
        lua_pushstring(L, types[i]->name);
        lua_pushcclosure(L, l_construct, 4);
        lua_setfield(L, -2, types[i]->name);
        for (s = 0; s < types[i]->nshorthands; s++) {
            const ng_shorthand *sh = &types[i]->shorthands[s];
            lua_pushvalue(L, st);
            lua_pushlightuserdata(L, (void *)types[i]);
            lua_pushlightuserdata(L, (void *)sh);
            lua_pushstring(L, sh->name);
            lua_pushcclosure(L, l_construct, 4);
            lua_setfield(L, -2, sh->name);
        }
    }
    lua_pushstring(L, NG_VERSION);
    lua_setfield(L, -2, "version");
    guard_ng(L);
    lua_remove(L, st);
}

/* A preset constructor: upvalues state, type, options table. */
static int l_preset(lua_State *L)
{
    const ng_node_type *t = lua_touserdata(L, lua_upvalueindex(2));
    if (lua_gettop(L) > 0)
        return luaL_error(L, "ng.%s() takes no arguments: the render sets its options", t->name);
    lua_pushvalue(L, lua_upvalueindex(3));
    return build(L, t, NULL, t->name, 1, 1);
}

void ng_lua_push_preset(lua_State *L, const char *type, int n, const char *const *keys, const double *values)
{
    int k;
    lua_getfield(L, LUA_REGISTRYINDEX, "noisegraph.state");
    lua_pushlightuserdata(L, (void *)ng_type_find(type));
    lua_createtable(L, 0, n);
    for (k = 0; k < n; k++) {
        lua_pushnumber(L, values[k]);
        lua_setfield(L, -2, keys[k]);
    }
    lua_pushcclosure(L, l_preset, 3);
}

void ng_lua_on_file(lua_State *L, void (*fn)(void *user, const char *path), void *user)
{
    modstate *m;
    lua_getfield(L, LUA_REGISTRYINDEX, "noisegraph.state");
    m = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (m) m->on_file = fn, m->on_file_user = user;
}

void ng_lua_close(lua_State *L)
{
    modstate *m;
    lua_getfield(L, LUA_REGISTRYINDEX, "noisegraph.state");
    m = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (m) m->closed = 1;
}

int ng_lua_node_id(lua_State *L, int idx) { return to_node(L, idx); }
