/*
 * host.h — running a graph script: a sandboxed, time- and memory-bounded
 * Lua state whose `ng` library builds an ng_graph, and what the script
 * returned (its outputs) and declared (its parameters).
 */
#ifndef NG_HOST_H
#define NG_HOST_H

#include "noisegraph.h"

#define NG_MAX_OUTPUTS 64
#define NG_MAX_SETS 128

typedef struct ng_host_opts {
    int unsafe;            /* full standard library */
    int classic;           /* the defaults before 0.2.0 (ng_graph_set_classic) */
    /* Wall-clock seconds the script may take, from loading it to closing
     * its state (finalizers included). Lua code is stopped by an
     * instruction hook; C code that never returns to Lua (a backtracking
     * string.find, a loop in a __gc finalizer, which runs without hooks)
     * is ended by a watchdog thread a grace period later: see overrun. */
    double time_limit;
    /* Bytes the script may cause to be held: its Lua state, the graph it
     * builds (nodes, strings, decoded images), its parameters. */
    double memory_limit;
    /* Called on the watchdog thread with one line "SCRIPT: WHAT" when the
     * script is still running time_limit plus a grace period after it
     * started. It must not return (the script's thread is stuck in C and
     * cannot be stopped safely). NULL: print "noisegraph: LINE" on stderr
     * and _exit(1). */
    void (*overrun)(const char *msg);
    /* Frames per second of the render: ng.frame() is time x fps (24 by
     * default; render --fps). */
    double fps;
    /* The render the script is run for, which ng.size(), ng.u() and ng.v()
     * read: its full extents (depth 0 for an image), the world position of
     * its top-left corner and its world units per pixel. ng_host_defaults:
     * 512 x 512 at the origin, pixel size 1 (info and dot run with these). */
    int width, height, depth;
    double origin[2], pixel_size;
    int nsets;
    const char *set_name[NG_MAX_SETS]; /* --set name=value, as given */
    const char *set_value[NG_MAX_SETS];
    /* Called with the path of every module the script requires, as
     * found under the script's directory and (when a link) resolved,
     * before it is read (a module that is missing or fails to load is
     * named too), and of every file a node's option names, the same way
     * (ng_lua_on_file): serve watches them. NULL: not called. */
    void (*on_require)(void *user, const char *path);
    void *on_require_user;
} ng_host_opts;

/* What a parameter's default was: a number (an integer when the script
 * wrote one), a boolean or a string. */
typedef enum ng_script_param_kind {
    NG_SCRIPT_NUMBER,
    NG_SCRIPT_INTEGER,
    NG_SCRIPT_BOOLEAN,
    NG_SCRIPT_STRING
} ng_script_param_kind;

typedef struct ng_script_param {
    char *name, *doc, *value; /* value: as the script sees it, printed */
    double min, max;
    int has_min, has_max, was_set;
    ng_script_param_kind kind;
} ng_script_param;

typedef struct ng_script {
    ng_graph *graph;
    int noutputs;
    char *output_name[NG_MAX_OUTPUTS]; /* NULL for a single unnamed output */
    int output[NG_MAX_OUTPUTS];
    int nparams;
    ng_script_param *params;
    /* Bytes of the memory limit the script's graph and parameters still
     * hold: what is left of the limit is the render's (ng_render_opts). */
    size_t memory_held;
} ng_script;

void ng_host_defaults(ng_host_opts *o);
/* Whether s..end is a decimal number and nothing else: [+-]digits[.digits]
 * [e[+-]digits] (no blanks, hex, inf or nan); --set and the CLI use it. */
int ng_decimal_syntax(const char *s, const char *end);
/* Runs the script at path: 0; on failure -1, or -2 when its time limit
 * ended it, and err holds one line "WHERE: WHAT" (WHERE is the script
 * position when there is one). */
int ng_script_run(const char *path, const ng_host_opts *o, ng_script *s, ng_error *err);
void ng_script_free(ng_script *s);

/* Registers the `ng` library in L (a table left on the stack). The graph is
 * owned by the caller and must outlive L. File options resolve against dir
 * and, unless unsafe, must stay inside it. Used by the host only. */
struct lua_State;
void ng_lua_open(struct lua_State *L, ng_graph *g, const char *dir, int unsafe);
/* Sets option key of every node of the named type the script makes to
 * value before the script's own options (which replace it): the host's
 * render context, like the --fps of ng.frame(). Call after ng_lua_open. */
void ng_lua_default(struct lua_State *L, const char *type, const char *key, double value);
/* Pushes a function of no arguments that makes a node of the named type
 * with the numeric options keys[k] = values[k]: constructors whose options
 * the render decides (ng.u()). After ng_lua_open. */
void ng_lua_push_preset(struct lua_State *L, const char *type, int n, const char *const *keys, const double *values);
/* fn(user, path) with the path of every file a node's option names (as
 * the script gave it, joined to its directory, and where a link, the file
 * it leads to), before it is read, also when it does not exist: serve
 * watches them, so a file that failed the run is watched too. After
 * ng_lua_open. */
void ng_lua_on_file(struct lua_State *L, void (*fn)(void *user, const char *path), void *user);
/* The script has ended: constructors refuse from now on (finalizers run by
 * lua_close must not begin nodes). Call before lua_close. */
void ng_lua_close(struct lua_State *L);
/* Labels nodes by the script's variables (`local hills = ng.fbm{...}`
 * labels that node "hills"), unless :named() named them: the locals of the
 * function returning, ar (in a return hook), the first declared first;
 * then the globals, of two holding one node the first by name. Labels
 * only: the graph computes the same. */
struct lua_Debug;
void ng_lua_label_locals(struct lua_State *L, struct lua_Debug *ar);
void ng_lua_label_globals(struct lua_State *L);
/* The node id of the value at idx, or -1. */
int ng_lua_node_id(struct lua_State *L, int idx);

#endif
