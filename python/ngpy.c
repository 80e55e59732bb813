/*
 * ngpy.c — `import noisegraph`: the CPython module (make python), an edge
 * of the engine like the CLI: it runs graph scripts through the Lua host
 * and renders them into NumPy arrays.
 *
 *   noisegraph.render(script_or_path_or_graph, size=512, region=None,
 *                     params=None, threads=0, bits=32, ...)  -> ndarray
 *   noisegraph.sample(graph, points, ...)                     -> ndarray
 *   noisegraph.Graph(script_or_path, params=None, ...)        compiled once
 *   noisegraph.nodes()                                        -> list of dicts
 *
 * A render writes straight into a buffer this module allocates and NumPy
 * wraps through the buffer protocol (no copy after the render), float32
 * (H, W, C) for an image and (D, H, W, C) for a volume; bits=16 or 8 give
 * uint16 or uint8 samples quantised as the CLI's integer files are. The
 * render runs on a thread of its own while the caller waits without the
 * GIL, checking for signals (KeyboardInterrupt) and the cancel callable
 * every 50 ms; either stops the render through its cancel flag. Script
 * and render errors raise noisegraph.Error with the CLI's one line
 * (file:line where the script has one); wrong argument types and sizes
 * raise TypeError and ValueError before anything runs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "filesink.h"
#include "host.h"
#include "ng_io.h"
#include "noisegraph.h"
#include "types.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS 50
#define RENDER_STACK (16u << 20) /* as the engine's pool threads: deep graphs */
#define MAX_DIMS 4


/* A ValueError whose text printf formats: PyErr_Format has no %g (it
 * printed "%g" itself). NULL, for the caller to return. */
static PyObject *value_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static PyObject *value_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    PyErr_SetString(PyExc_ValueError, msg);
    return NULL;
}

static PyObject *ng_error_type, *ng_cancelled_type;

/* ---- the array buffer ------------------------------------------------------------- */

/* A malloc'd block of samples exposed through the buffer protocol, which
 * numpy.asarray wraps without copying; the array keeps it alive. */
typedef struct {
    PyObject_HEAD
    void *data;
    int ndim, itemsize;
    const char *format;
    Py_ssize_t shape[MAX_DIMS], strides[MAX_DIMS];
} Buffer;

static void buffer_dealloc(Buffer *b)
{
    free(b->data);
    Py_TYPE(b)->tp_free((PyObject *)b);
}

static int buffer_get(Buffer *b, Py_buffer *view, int flags)
{
    Py_ssize_t len = b->itemsize;
    int d;
    for (d = 0; d < b->ndim; d++) len *= b->shape[d];
    view->obj = Py_NewRef((PyObject *)b);
    view->buf = b->data;
    view->len = len;
    view->readonly = 0;
    view->itemsize = b->itemsize;
    view->format = flags & PyBUF_FORMAT ? (char *)b->format : NULL;
    view->ndim = b->ndim;
    view->shape = flags & PyBUF_ND ? b->shape : NULL;
    view->strides = flags & PyBUF_STRIDES ? b->strides : NULL;
    view->suboffsets = NULL;
    view->internal = NULL;
    return 0;
}

static PyBufferProcs buffer_procs = {(getbufferproc)buffer_get, NULL};

static PyTypeObject BufferType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "noisegraph._Buffer",
    .tp_basicsize = sizeof(Buffer),
    .tp_dealloc = (destructor)buffer_dealloc,
    .tp_as_buffer = &buffer_procs,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "samples of one render, owned here and wrapped by a NumPy array",
};

/* A C-contiguous buffer of shape[0..ndim-1] items of itemsize bytes
 * (format: "f", "H" or "B"), uninitialised; NULL with MemoryError. */
static Buffer *buffer_new(int ndim, const Py_ssize_t *shape, int itemsize, const char *format)
{
    Buffer *b = PyObject_New(Buffer, &BufferType);
    size_t n = (size_t)itemsize;
    int d;
    if (!b) return NULL;
    b->data = NULL;
    b->ndim = ndim;
    b->itemsize = itemsize;
    b->format = format;
    for (d = ndim - 1; d >= 0; d--) {
        b->shape[d] = shape[d];
        b->strides[d] = (Py_ssize_t)n;
        if (shape[d] && n > (size_t)PY_SSIZE_T_MAX / (size_t)shape[d]) {
            Py_DECREF(b);
            return (Buffer *)PyErr_NoMemory();
        }
        n *= (size_t)shape[d];
    }
    if (!(b->data = malloc(n ? n : 1))) {
        Py_DECREF(b);
        return (Buffer *)PyErr_NoMemory();
    }
    return b;
}

/* numpy.asarray(b): the array over b's memory. Steals b. */
static PyObject *as_array(Buffer *b)
{
    PyObject *np = PyImport_ImportModule("numpy"), *a = NULL;
    if (np) a = PyObject_CallMethod(np, "asarray", "O", (PyObject *)b);
    Py_XDECREF(np);
    Py_DECREF(b);
    return a;
}

/* ---- compiled scripts ----------------------------------------------------------------- */

/* The render context a script is run for (ng.size(), ng.u() read it) and
 * its parameters: a Graph runs its script again when these change. */
typedef struct context {
    int width, height, depth;
    double origin[3], pixel_size;
    int nsets;
    char *set_name[NG_MAX_SETS], *set_value[NG_MAX_SETS];
} context;

typedef struct {
    PyObject_HEAD
    char *path;        /* the script file */
    char *tmpdir;      /* a script given as text: its folder, removed at the end */
    double time_limit, memory_limit;
    int loaded, busy;  /* busy: a render or sample of it runs without the GIL */
    context ctx;
    ng_script s;
} Graph;

static void context_free(context *c)
{
    int i;
    for (i = 0; i < c->nsets; i++) free(c->set_name[i]), free(c->set_value[i]);
    c->nsets = 0;
}

static int context_same(const context *a, const context *b)
{
    int i;
    if (a->width != b->width || a->height != b->height || a->depth != b->depth || a->nsets != b->nsets ||
        memcmp(a->origin, b->origin, sizeof a->origin) || a->pixel_size != b->pixel_size)
        return 0;
    for (i = 0; i < a->nsets; i++)
        if (strcmp(a->set_name[i], b->set_name[i]) || strcmp(a->set_value[i], b->set_value[i])) return 0;
    return 1;
}

static void graph_unload(Graph *g)
{
    if (g->loaded) ng_script_free(&g->s);
    g->loaded = 0;
    context_free(&g->ctx);
}

static void graph_dealloc(Graph *g)
{
    graph_unload(g);
    if (g->tmpdir) {
        unlink(g->path);
        rmdir(g->tmpdir);
    }
    free(g->path);
    free(g->tmpdir);
    Py_TYPE(g)->tp_free((PyObject *)g);
}

/* A parameter value as --set would give it: True/False, an int, a float
 * (repr, exact) or a str. 0, or -1 with TypeError. */
static int param_text(const char *name, PyObject *v, char **out)
{
    PyObject *s = NULL;
    const char *t;
    if (PyBool_Check(v)) t = v == Py_True ? "true" : "false";
    else if (PyLong_Check(v) || PyFloat_Check(v)) {
        if (PyFloat_Check(v) && !isfinite(PyFloat_AS_DOUBLE(v))) {
            PyErr_Format(PyExc_ValueError, "params['%s']: %R is not a finite number", name, v);
            return -1;
        }
        if (!(s = PyObject_Repr(v))) return -1;
        t = PyUnicode_AsUTF8(s);
    } else if (PyUnicode_Check(v)) t = PyUnicode_AsUTF8(v);
    else {
        PyErr_Format(PyExc_TypeError, "params['%s']: a number, bool or str, not %s", name, Py_TYPE(v)->tp_name);
        return -1;
    }
    *out = t ? strdup(t) : NULL;
    Py_XDECREF(s);
    if (!t) return -1;
    if (!*out) return PyErr_NoMemory(), -1;
    return 0;
}

/* params (a dict or None) into c's sets. 0, or -1 with an exception. */
static int context_params(context *c, PyObject *params)
{
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    if (!params || params == Py_None) return 0;
    if (!PyDict_Check(params)) {
        PyErr_Format(PyExc_TypeError, "params: a dict of name: value, not %s", Py_TYPE(params)->tp_name);
        return -1;
    }
    if (PyDict_Size(params) > NG_MAX_SETS) {
        PyErr_Format(PyExc_ValueError, "params: at most %d parameters", NG_MAX_SETS);
        return -1;
    }
    while (PyDict_Next(params, &pos, &k, &v)) {
        const char *name;
        if (!PyUnicode_Check(k)) {
            PyErr_Format(PyExc_TypeError, "params: names are str, not %s", Py_TYPE(k)->tp_name);
            return -1;
        }
        if (!(name = PyUnicode_AsUTF8(k))) return -1;
        if (!(c->set_name[c->nsets] = strdup(name))) return PyErr_NoMemory(), -1;
        if (param_text(name, v, &c->set_value[c->nsets])) {
            free(c->set_name[c->nsets]);
            return -1;
        }
        c->nsets++;
    }
    return 0;
}

/* Runs g's script for c unless it was run for the same context: 0, or -1
 * with noisegraph.Error (the host's one line). Takes c's strings. */
static int graph_load(Graph *g, context *c)
{
    ng_host_opts h;
    ng_error err;
    int i, rc;
    if (!g->path) {
        context_free(c);
        PyErr_SetString(PyExc_RuntimeError, "noisegraph.Graph: not initialised (call Graph(script))");
        return -1;
    }
    if (g->loaded && context_same(&g->ctx, c)) {
        context_free(c);
        return 0;
    }
    graph_unload(g);
    g->ctx = *c;
    c->nsets = 0;
    ng_host_defaults(&h);
    h.time_limit = g->time_limit;
    h.memory_limit = g->memory_limit;
    h.width = g->ctx.width, h.height = g->ctx.height, h.depth = g->ctx.depth;
    h.origin[0] = g->ctx.origin[0], h.origin[1] = g->ctx.origin[1];
    h.pixel_size = g->ctx.pixel_size;
    h.nsets = g->ctx.nsets;
    for (i = 0; i < h.nsets; i++) h.set_name[i] = g->ctx.set_name[i], h.set_value[i] = g->ctx.set_value[i];
    g->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    rc = ng_script_run(g->path, &h, &g->s, &err);
    Py_END_ALLOW_THREADS
    g->busy = 0;
    if (rc) {
        context_free(&g->ctx);
        PyErr_SetString(ng_error_type, err.msg);
        return -1;
    }
    g->loaded = 1;
    return 0;
}

/* A script given as text goes to a file of its own (the host runs files):
 * a new folder in $TMPDIR holding script.lua. 0, or -1 with OSError. */
static int write_script(Graph *g, const char *text)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    FILE *f;
    size_t n = strlen(text);
    snprintf(dir, sizeof dir, "%s/noisegraph-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) return PyErr_SetFromErrnoWithFilename(PyExc_OSError, dir), -1;
    if (!(g->tmpdir = strdup(dir)) || !(g->path = malloc(strlen(dir) + 16))) {
        rmdir(dir);
        return PyErr_NoMemory(), -1;
    }
    sprintf(g->path, "%s/script.lua", dir);
    if (!(f = fopen(g->path, "w")) || fwrite(text, 1, n, f) != n || fclose(f)) {
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, g->path);
        if (f) fclose(f);
        return -1;
    }
    return 0;
}

/* Whether s is a script's text rather than a file name: a line break or
 * a `return`, which no sensible file name has. */
static int is_text(const char *s) { return strchr(s, '\n') || strstr(s, "return"); }

static int graph_init(Graph *g, PyObject *args, PyObject *kw)
{
    static char *keys[] = {"script", "time_limit", "memory_limit", NULL};
    PyObject *script;
    const char *text;
    double mib = 512;
    g->time_limit = 10;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|dd:Graph", keys, &script, &g->time_limit, &mib)) return -1;
    if (g->path) {
        PyErr_SetString(PyExc_RuntimeError, "Graph: already initialised");
        return -1;
    }
    if (PyUnicode_Check(script)) {
        if (!(text = PyUnicode_AsUTF8(script))) return -1;
    } else if (PyObject_CheckBuffer(script) || !PyObject_HasAttrString(script, "__fspath__")) {
        PyErr_Format(PyExc_TypeError, "Graph: script is a str (a path or the script's text) or a path, not %s",
                     Py_TYPE(script)->tp_name);
        return -1;
    } else {
        PyObject *p = PyOS_FSPath(script), *b = NULL;
        if (!p || !PyUnicode_FSConverter(p, &b)) {
            Py_XDECREF(p);
            return -1;
        }
        g->path = strdup(PyBytes_AS_STRING(b));
        Py_DECREF(p);
        Py_DECREF(b);
        if (!g->path) return PyErr_NoMemory(), -1;
        text = NULL;
    }
    if (!(g->time_limit >= 0.001 && g->time_limit <= 1e6)) {
        value_error("Graph: time_limit %g is not 0.001 to 1e6 seconds", g->time_limit);
        return -1;
    }
    if (!(mib >= 1 && mib <= 1048576)) {
        value_error("Graph: memory_limit %g is not 1 to 1048576 MiB", mib);
        return -1;
    }
    g->memory_limit = mib * 1024 * 1024;
    if (text && is_text(text)) return write_script(g, text);
    if (text && !(g->path = strdup(text))) return PyErr_NoMemory(), -1;
    return 0;
}

/* ---- argument parsing ------------------------------------------------------------------ */

/* An int or a sequence of 1 to max ints into v; n gets the count. 0, or
 * -1 with TypeError or ValueError naming what. */
static int int_list(PyObject *o, const char *what, int *v, int max, int *n)
{
    PyObject *seq;
    Py_ssize_t k, len;
    if (PyUnicode_Check(o) || PyBytes_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: an int or a tuple of ints, not %s", what, Py_TYPE(o)->tp_name);
        return -1;
    }
    if (PyLong_Check(o) && !PyBool_Check(o)) {
        long x = PyLong_AsLong(o);
        if (x == -1 && PyErr_Occurred()) return -1;
        if (x < 0 || x > NG_MAX_EXTENT) {
            PyErr_Format(PyExc_ValueError, "%s: %ld is not 0 to %d", what, x, NG_MAX_EXTENT);
            return -1;
        }
        v[0] = (int)x, *n = 1;
        return 0;
    }
    if (!(seq = PySequence_Fast(o, ""))) {
        PyErr_Format(PyExc_TypeError, "%s: an int or a tuple of ints, not %s", what, Py_TYPE(o)->tp_name);
        return -1;
    }
    len = PySequence_Fast_GET_SIZE(seq);
    if (len < 1 || len > max) {
        PyErr_Format(PyExc_ValueError, "%s: %zd values, where 1 to %d are taken", what, len, max);
        Py_DECREF(seq);
        return -1;
    }
    for (k = 0; k < len; k++) {
        PyObject *x = PySequence_Fast_GET_ITEM(seq, k);
        long y;
        if (!PyLong_Check(x) || PyBool_Check(x)) {
            PyErr_Format(PyExc_TypeError, "%s: item %zd is %s, not an int", what, k, Py_TYPE(x)->tp_name);
            Py_DECREF(seq);
            return -1;
        }
        y = PyLong_AsLong(x);
        if ((y == -1 && PyErr_Occurred()) || y < 0 || y > NG_MAX_EXTENT) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s: item %zd, %R, is not 0 to %d", what, k, x, NG_MAX_EXTENT);
            Py_DECREF(seq);
            return -1;
        }
        v[k] = (int)y;
    }
    *n = (int)len;
    Py_DECREF(seq);
    return 0;
}

/* A sequence of 2 or 3 finite numbers within +-NG_MAX_COORD into v: 0, or
 * -1 with TypeError or ValueError naming what. */
static int coords(PyObject *o, const char *what, double *v, int *n)
{
    PyObject *seq = NULL;
    Py_ssize_t k, len = 0;
    if (!PyUnicode_Check(o) && !PyBytes_Check(o)) seq = PySequence_Fast(o, "");
    if (seq) len = PySequence_Fast_GET_SIZE(seq);
    if (!seq || len < 2 || len > 3) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: a tuple (x, y) or (x, y, z) of numbers, not %s", what, Py_TYPE(o)->tp_name);
        Py_XDECREF(seq);
        return -1;
    }
    for (k = 0; k < len; k++) {
        v[k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, k));
        if (v[k] == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s: item %zd is not a number", what, k);
            Py_DECREF(seq);
            return -1;
        }
        if (!(fabs(v[k]) <= NG_MAX_COORD)) {
            value_error("%s: %g is not within +-%g", what, v[k], NG_MAX_COORD);
            Py_DECREF(seq);
            return -1;
        }
    }
    *n = (int)len;
    Py_DECREF(seq);
    return 0;
}

/* An optional coordinate (None: not given) into *v; *given says which. */
static int coord(PyObject *o, const char *what, double *v, int *given)
{
    *given = o && o != Py_None;
    if (!*given) return 0;
    *v = PyFloat_AsDouble(o);
    if (*v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: a number, not %s", what, Py_TYPE(o)->tp_name);
        return -1;
    }
    if (!(fabs(*v) <= NG_MAX_COORD)) {
        value_error("%s: %g is not within +-%g", what, *v, NG_MAX_COORD);
        return -1;
    }
    return 0;
}

/* What render and sample take besides the script. */
typedef struct call {
    PyObject *size, *region, *params, *origin, *output, *cancel, *z, *time;
    int threads, bits;
    double pixel_size, render_time_limit, time_limit, memory_limit;
} call;

/* size, origin and pixel_size into the script's context c and the render
 * options o. 0, or -1 with an exception. */
static int parse_world(const call *a, context *c, ng_render_opts *o)
{
    int v[3] = {512, 512, 0}, n = 2, norg = 0, has_z, has_time;
    double org[3] = {0, 0, 0}, z = 0, t = 0;
    if (a->size && int_list(a->size, "size", v, 3, &n)) return -1;
    if (n == 1) v[1] = v[0];
    if (v[0] < 1 || v[1] < 1 || (n == 3 && v[2] < 1)) {
        PyErr_Format(PyExc_ValueError, "size: %R has an extent below 1", a->size);
        return -1;
    }
    if (a->origin && a->origin != Py_None && coords(a->origin, "origin", org, &norg)) return -1;
    if (norg == 3 && n != 3) {
        PyErr_SetString(PyExc_ValueError, "origin: (x, y, z) is for a volume (size=(W, H, D)); an image samples z=Z");
        return -1;
    }
    if (coord(a->z, "z", &z, &has_z) || coord(a->time, "time", &t, &has_time)) return -1;
    if (has_z && n == 3) {
        PyErr_SetString(PyExc_ValueError, "z: a volume's lowest z is the third value of origin=(x, y, z)");
        return -1;
    }
    if (!(a->pixel_size >= NG_MIN_PIXEL_SIZE && a->pixel_size <= NG_MAX_PIXEL_SIZE)) {
        value_error("pixel_size: %g is not %g to %g", a->pixel_size, NG_MIN_PIXEL_SIZE,
                     NG_MAX_PIXEL_SIZE);
        return -1;
    }
    ng_render_defaults(o, v[0], v[1]);
    c->width = v[0], c->height = v[1], c->depth = n == 3 ? v[2] : 0;
    memcpy(c->origin, org, sizeof org);
    c->pixel_size = a->pixel_size;
    o->depth = c->depth;
    o->origin[0] = org[0], o->origin[1] = org[1];
    o->pixel_size = a->pixel_size;
    o->z = c->depth ? org[2] : z;
    o->time = t;
    o->dims = has_time ? 4 : has_z || c->depth ? 3 : 2; /* as the CLI's --z and --time */
    return 0;
}

/* region=(x, y, w, h), or (x, y, z, w, h, d) for a volume, within the size. */
static int parse_region(const call *a, ng_render_opts *o)
{
    int v[6], n, vol = o->depth > 0, d;
    int full[3] = {o->width, o->height, o->depth};
    if (!a->region || a->region == Py_None) return 0;
    if (int_list(a->region, "region", v, 6, &n)) return -1;
    if (n != (vol ? 6 : 4)) {
        PyErr_Format(PyExc_ValueError, "region: %s, not %d values", vol ? "(x, y, z, w, h, d) for a volume" : "(x, y, w, h)",
                     n);
        return -1;
    }
    for (d = 0; d < (vol ? 3 : 2); d++) {
        int at = v[d], len = v[d + n / 2];
        if (len < 1 || at + len > full[d]) {
            PyErr_Format(PyExc_ValueError, "region: %R does not fit the size %d x %d%s", a->region, o->width, o->height,
                         vol ? " x depth" : "");
            return -1;
        }
    }
    o->region[0] = v[0], o->region[1] = v[1];
    o->region[2] = v[n / 2], o->region[3] = v[n / 2 + 1];
    if (vol) o->zregion[0] = v[2], o->zregion[1] = v[5];
    return 0;
}

/* The root of the output named by a->output (None: the only output, or an
 * error naming the outputs). -1 with an exception. */
static int pick_output(const Graph *g, PyObject *output)
{
    const char *want = NULL;
    int i;
    if (output && output != Py_None) {
        if (!PyUnicode_Check(output)) {
            PyErr_Format(PyExc_TypeError, "output: a str, not %s", Py_TYPE(output)->tp_name);
            return -1;
        }
        if (!(want = PyUnicode_AsUTF8(output))) return -1;
    }
    if (!want && g->s.noutputs == 1) return g->s.output[0];
    for (i = 0; want && i < g->s.noutputs; i++)
        if (g->s.output_name[i] && !strcmp(g->s.output_name[i], want)) return g->s.output[i];
    {
        char names[1024];
        int len = 0;
        names[0] = 0;
        for (i = 0; i < g->s.noutputs && len < (int)sizeof names - 80; i++)
            len += snprintf(names + len, sizeof names - (size_t)len, "%s%s", i ? ", " : "",
                            g->s.output_name[i] ? g->s.output_name[i] : "(unnamed)");
        PyErr_Format(PyExc_ValueError, "output: %s%s%s (its outputs: %s)", want ? "no output '" : "",
                     want ? want : "the script has several outputs: name one", want ? "'" : "", names);
    }
    return -1;
}

/* ---- rendering off the GIL ---------------------------------------------------------------- */

/* A render into out, on a thread of its own. */
typedef struct job {
    const ng_graph *g;
    int root, channels, bits;
    ng_render_opts o;
    void *out;          /* the window's samples: floats, or uint16/uint8 when bits < 32 */
    int w, h;           /* the window */
    ng_error err;
    int rc, done;
    atomic_int cancel;
    pthread_mutex_t m;
    pthread_cond_t cv;
} job;

/* n floats from src into the job's buffer at index at. */
static void put(job *j, size_t at, const float *src, size_t n)
{
    size_t i;
    if (j->bits == 32) memcpy((float *)j->out + at, src, n * sizeof *src);
    else if (j->bits == 16)
        for (i = 0; i < n; i++) ((uint16_t *)j->out)[at + i] = (uint16_t)ng__quantize(src[i], 65535);
    else
        for (i = 0; i < n; i++) ((uint8_t *)j->out)[at + i] = (uint8_t)ng__quantize(src[i], 255);
}

static int job_begin(void *u, int w, int h, int ch, ng_error *err)
{
    job *j = u;
    if (w != j->w || h != j->h || ch != j->channels) return ng_errorf(err, "python: the window changed");
    return 0;
}

static int job_rows(void *u, int y, int n, const float *rows, ng_error *err)
{
    job *j = u;
    size_t row = (size_t)j->w * (size_t)j->channels;
    (void)err;
    put(j, (size_t)y * row, rows, (size_t)n * row);
    return 0;
}

static int job_begin_volume(void *u, const ng_volume_info *v, ng_error *err)
{
    job *j = u;
    if (v->width != j->w || v->height != j->h || v->channels != j->channels)
        return ng_errorf(err, "python: the window changed");
    return 0;
}

static int job_slab(void *u, int z, int ns, int y, int n, const float *d, ng_error *err)
{
    job *j = u;
    size_t row = (size_t)j->w * (size_t)j->channels;
    int s;
    (void)err;
    for (s = 0; s < ns; s++) put(j, ((size_t)(z + s) * (size_t)j->h + (size_t)y) * row, d + (size_t)s * n * row, (size_t)n * row);
    return 0;
}

static int job_end(void *u, int ok, ng_error *err)
{
    (void)u, (void)ok, (void)err;
    return 0;
}

static void *job_main(void *arg)
{
    job *j = arg;
    ng_sink sink = {job_begin, job_rows, job_end, j, job_begin_volume, job_slab};
    int rc;
    j->o.cancel = &j->cancel;
    rc = ng_render(j->g, &j->root, 1, &j->o, &sink, &j->err);
    pthread_mutex_lock(&j->m);
    j->rc = rc;
    j->done = 1;
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->m);
    return NULL;
}

/* With the GIL: whether the render should stop (a signal's exception or
 * the cancel callable's; *raised tells them apart from a plain cancel). */
static int should_stop(PyObject *cancel, int *raised)
{
    PyObject *r;
    int t;
    if (PyErr_CheckSignals() < 0) return *raised = 1;
    if (!cancel || cancel == Py_None) return 0;
    if (!(r = PyObject_CallNoArgs(cancel))) return *raised = 1;
    t = PyObject_IsTrue(r);
    Py_DECREF(r);
    if (t < 0) return *raised = 1;
    return t;
}

/* Runs j on its thread and waits, GIL released, polling for a stop. 0, or
 * -1 with an exception: the render's error, Cancelled, or what stopped it. */
static int run_job(job *j, PyObject *cancel)
{
    pthread_attr_t attr;
    pthread_t t;
    int stop = 0, raised = 0, err;
    PyThreadState *ts;
    pthread_mutex_init(&j->m, NULL);
    pthread_cond_init(&j->cv, NULL);
    atomic_init(&j->cancel, 0);
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, RENDER_STACK);
    err = pthread_create(&t, &attr, job_main, j);
    pthread_attr_destroy(&attr);
    if (err) {
        errno = err;
        PyErr_SetFromErrno(PyExc_OSError);
        goto out;
    }
    ts = PyEval_SaveThread();
    pthread_mutex_lock(&j->m);
    while (!j->done) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += POLL_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&j->cv, &j->m, &until);
        if (j->done || stop) continue;
        pthread_mutex_unlock(&j->m);
        PyEval_RestoreThread(ts);
        stop = should_stop(cancel, &raised);
        ts = PyEval_SaveThread();
        if (stop) atomic_store(&j->cancel, 1);
        pthread_mutex_lock(&j->m);
    }
    pthread_mutex_unlock(&j->m);
    pthread_join(t, NULL);
    PyEval_RestoreThread(ts);
    if (raised) err = -1;  /* the exception is set */
    else if (j->rc && stop) PyErr_SetString(ng_cancelled_type, j->err.msg), err = -1;
    else if (j->rc) PyErr_SetString(ng_error_type, j->err.msg), err = -1;
    else err = 0;
out:
    pthread_cond_destroy(&j->cv);
    pthread_mutex_destroy(&j->m);
    return err ? -1 : 0;
}

/* ---- render ---------------------------------------------------------------------------------- */

static const char *const call_keys[] = {"size",      "region",       "params", "threads", "bits", "origin",
                                        "pixel_size", "z",           "time",   "output",  "cancel",
                                        "render_time_limit", "time_limit", "memory_limit", NULL};

static void call_defaults(call *a)
{
    memset(a, 0, sizeof *a);
    a->bits = 32;
    a->pixel_size = 1;
    a->time_limit = 10;
    a->memory_limit = 512;
}

/* The Graph a call is about: g itself, or a new one from a script. New
 * reference; NULL with an exception. */
static Graph *graph_of(PyObject *script, const call *a);
static PyTypeObject GraphType;

static int busy_error(void)
{
    PyErr_SetString(PyExc_RuntimeError, "noisegraph: this Graph is rendering on another thread; use a Graph per thread");
    return -1;
}

static PyObject *graph_render_call(Graph *g, call *a)
{
    context c;
    job j;
    Buffer *b;
    Py_ssize_t shape[4];
    int ndim, rc;
    double held;
    memset(&c, 0, sizeof c);
    memset(&j, 0, sizeof j);
    if (g->busy) return busy_error(), NULL;
    if (a->bits != 32 && a->bits != 16 && a->bits != 8)
        return PyErr_Format(PyExc_ValueError, "bits: %d is not 8, 16 or 32", a->bits);
    if (a->threads < 0 || a->threads > 1024) return PyErr_Format(PyExc_ValueError, "threads: %d is not 0 to 1024", a->threads);
    if (!(a->render_time_limit >= 0 && a->render_time_limit <= 1e6))
        return value_error("render_time_limit: %g is not 0 to 1e6 seconds", a->render_time_limit);
    if (parse_world(a, &c, &j.o) || parse_region(a, &j.o) || context_params(&c, a->params) || graph_load(g, &c)) {
        context_free(&c);
        return NULL;
    }
    if ((j.root = pick_output(g, a->output)) < 0) return NULL;
    j.g = g->s.graph;
    j.bits = a->bits;
    j.channels = ng_node_channels(ng_graph_node(g->s.graph, j.root));
    j.o.threads = a->threads;
    j.o.time_limit = a->render_time_limit;
    held = (double)g->s.memory_held;
    j.o.memory_limit = g->memory_limit > held ? g->memory_limit - held : 1;
    j.w = j.o.region[2] ? j.o.region[2] : j.o.width;
    j.h = j.o.region[2] ? j.o.region[3] : j.o.height;
    ndim = 0;
    if (j.o.depth) shape[ndim++] = j.o.zregion[1] ? j.o.zregion[1] : j.o.depth;
    shape[ndim++] = j.h, shape[ndim++] = j.w, shape[ndim++] = j.channels;
    if (!(b = buffer_new(ndim, shape, a->bits / 8, a->bits == 32 ? "f" : a->bits == 16 ? "H" : "B"))) return NULL;
    j.out = b->data;
    g->busy = 1;
    Py_INCREF(g);
    rc = run_job(&j, a->cancel);
    g->busy = 0;
    Py_DECREF(g);
    if (rc) {
        Py_DECREF(b);
        return NULL;
    }
    return as_array(b);
}

#define CALL_FORMAT "|$OOOiiOdOOOOddd"
#define CALL_ARGS(a)                                                                                          \
    &(a).size, &(a).region, &(a).params, &(a).threads, &(a).bits, &(a).origin, &(a).pixel_size, &(a).z,      \
        &(a).time, &(a).output, &(a).cancel, &(a).render_time_limit, &(a).time_limit, &(a).memory_limit

/* A script's limits are its Graph's, set when it runs (Graph(script,
 * time_limit, memory_limit)): given to a call on a Graph they would be
 * ignored, so they are refused. -1 with a TypeError, or 0. */
static int limits_are_the_graphs(PyObject *kw, const char *who)
{
    static const char *const limits[] = {"time_limit", "memory_limit"};
    size_t k;
    for (k = 0; kw && k < sizeof limits / sizeof limits[0]; k++) {
        const int has = PyDict_GetItemString(kw, limits[k]) != NULL;
        if (has) {
            PyErr_Format(PyExc_TypeError, "%s: %s is the Graph's: Graph(script, %s=...) runs the script under it",
                         who, limits[k], limits[k]);
            return -1;
        }
    }
    return 0;
}

static PyObject *py_render(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *keys[16];
    PyObject *script, *r;
    Graph *g;
    call a;
    int i;
    (void)self;
    keys[0] = "script";
    for (i = 0; call_keys[i]; i++) keys[i + 1] = (char *)call_keys[i];
    call_defaults(&a);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O" CALL_FORMAT ":render", keys, &script, CALL_ARGS(a))) return NULL;
    if (PyObject_TypeCheck(script, &GraphType) && limits_are_the_graphs(kw, "render")) return NULL;
    if (!(g = graph_of(script, &a))) return NULL;
    r = graph_render_call(g, &a);
    Py_DECREF(g);
    return r;
}

static PyObject *graph_render(Graph *g, PyObject *args, PyObject *kw)
{
    call a;
    call_defaults(&a);
    if (!PyArg_ParseTupleAndKeywords(args, kw, CALL_FORMAT ":Graph.render", (char **)call_keys, CALL_ARGS(a)) ||
        limits_are_the_graphs(kw, "Graph.render"))
        return NULL;
    return graph_render_call(g, &a);
}

/* ---- sample ------------------------------------------------------------------------------------ */

/* points: anything numpy.asarray makes an (N, dims) array of, dims 1 to
 * 4; the output's values there, float32 (N, C). */
static PyObject *graph_sample_points(Graph *g, PyObject *points, call *a)
{
    PyObject *np = NULL, *arr = NULL, *r = NULL;
    Py_buffer view;
    context c;
    ng_render_opts o;
    ng_error err;
    const double *xs[4];
    double *cols = NULL;
    Buffer *b = NULL;
    Py_ssize_t n, shape[2];
    int dims, root, d, rc, got = 0;
    memset(&c, 0, sizeof c);
    if (g->busy) return busy_error(), NULL;
    if (parse_world(a, &c, &o) || context_params(&c, a->params) || graph_load(g, &c)) {
        context_free(&c);
        return NULL;
    }
    if ((root = pick_output(g, a->output)) < 0) return NULL;
    if (!(np = PyImport_ImportModule("numpy"))) return NULL;
    if (!(arr = PyObject_CallMethod(np, "ascontiguousarray", "Os", points, "float64"))) goto out;
    if (PyObject_GetBuffer(arr, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)) goto out;
    got = 1;
    if (view.ndim != 2 || view.shape[1] < 1 || view.shape[1] > 4) {
        PyErr_Format(PyExc_ValueError, "points: an (N, dims) array with dims 1 to 4, not of %d dimensions%s",
                     view.ndim, view.ndim == 2 ? " with that many columns" : "");
        goto out;
    }
    n = view.shape[0], dims = (int)view.shape[1];
    if (n > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "points: too many");
        goto out;
    }
    if (!(cols = malloc((size_t)(n ? n : 1) * (size_t)dims * sizeof *cols))) {
        PyErr_NoMemory();
        goto out;
    }
    for (d = 0; d < dims; d++) {
        Py_ssize_t i;
        for (i = 0; i < n; i++) {
            double v = ((const double *)view.buf)[i * dims + d];
            if (!(fabs(v) <= NG_MAX_COORD)) {
                value_error("points[%zd, %d]: %g is not within +-%g", i, d, v, NG_MAX_COORD);
                goto out;
            }
            cols[(size_t)d * (size_t)n + (size_t)i] = v;
        }
        xs[d] = cols + (size_t)d * (size_t)n;
    }
    shape[0] = n, shape[1] = ng_node_channels(ng_graph_node(g->s.graph, root));
    if (!(b = buffer_new(2, shape, 4, "f"))) goto out;
    g->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    rc = ng_eval_points(g->s.graph, root, dims, xs, (int)n, b->data, &err);
    Py_END_ALLOW_THREADS
    g->busy = 0;
    if (rc) PyErr_SetString(ng_error_type, err.msg);
    else r = as_array(b), b = NULL;
out:
    Py_XDECREF(b);
    if (got) PyBuffer_Release(&view);
    free(cols);
    Py_XDECREF(arr);
    Py_XDECREF(np);
    return r;
}

static const char *const sample_keys[] = {"points", "params", "output", "size", "origin", "pixel_size", NULL};

static PyObject *py_sample(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *keys[] = {"graph", "points", "params", "output", "size", "origin", "pixel_size", NULL};
    PyObject *script, *points, *r;
    Graph *g;
    call a;
    (void)self;
    call_defaults(&a);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$OOOOd:sample", keys, &script, &points, &a.params, &a.output,
                                     &a.size, &a.origin, &a.pixel_size))
        return NULL;
    if (!(g = graph_of(script, &a))) return NULL;
    r = graph_sample_points(g, points, &a);
    Py_DECREF(g);
    return r;
}

static PyObject *graph_sample(Graph *g, PyObject *args, PyObject *kw)
{
    PyObject *points;
    call a;
    call_defaults(&a);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OOOOd:Graph.sample", (char **)sample_keys, &points, &a.params,
                                     &a.output, &a.size, &a.origin, &a.pixel_size))
        return NULL;
    return graph_sample_points(g, points, &a);
}

/* ---- parameters, outputs and nodes as Python data ------------------------------------------------ */

static const char *const script_kinds[] = {"number", "integer", "boolean", "string"};

/* Graph.params(params=None, size=...): the parameters the script declares,
 * as run with those values: a list of dicts. */
static PyObject *graph_params(Graph *g, PyObject *args, PyObject *kw)
{
    static char *keys[] = {"params", "size", NULL};
    PyObject *list;
    context c;
    ng_render_opts o;
    call a;
    int i;
    call_defaults(&a);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OO:Graph.params", keys, &a.params, &a.size)) return NULL;
    if (g->busy) return busy_error(), NULL;
    memset(&c, 0, sizeof c);
    if (parse_world(&a, &c, &o) || context_params(&c, a.params) || graph_load(g, &c)) {
        context_free(&c);
        return NULL;
    }
    if (!(list = PyList_New(0))) return NULL;
    for (i = 0; i < g->s.nparams; i++) {
        const ng_script_param *p = &g->s.params[i];
        int k, set = 0;
        PyObject *d;
        for (k = 0; k < g->ctx.nsets; k++) set |= !strcmp(g->ctx.set_name[k], p->name);
        d = Py_BuildValue("{s:s,s:s,s:s,s:s,s:N,s:N,s:O}", "name", p->name, "kind", script_kinds[p->kind],
                                    "value", p->value ? p->value : "", "doc", p->doc ? p->doc : "", "min",
                                    p->has_min ? PyFloat_FromDouble(p->min) : Py_NewRef(Py_None), "max",
                                    p->has_max ? PyFloat_FromDouble(p->max) : Py_NewRef(Py_None), "set",
                                    set ? Py_True : Py_False);
        if (!d || PyList_Append(list, d)) {
            Py_XDECREF(d);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(d);
    }
    return list;
}

/* Graph.outputs(): the output names (None for a single unnamed output). */
static PyObject *graph_outputs(Graph *g, PyObject *unused)
{
    PyObject *list;
    context c;
    ng_render_opts o;
    call a;
    int i;
    (void)unused;
    call_defaults(&a);
    memset(&c, 0, sizeof c);
    if (g->busy) return busy_error(), NULL;
    if (!g->loaded && (parse_world(&a, &c, &o) || graph_load(g, &c))) return NULL;
    if (!(list = PyList_New(g->s.noutputs))) return NULL;
    for (i = 0; i < g->s.noutputs; i++)
        PyList_SET_ITEM(list, i, g->s.output_name[i] ? PyUnicode_FromString(g->s.output_name[i]) : Py_NewRef(Py_None));
    return list;
}

static PyObject *node_param(const ng_node_type *t, int k)
{
    const ng_param_desc *p = &t->params[k];
    char def[256];
    PyObject *choices = PyList_New(0);
    const char *const *c;
    if (!choices) return NULL;
    for (c = p->choices; c && *c; c++) {
        PyObject *s = PyUnicode_FromString(*c);
        if (!s || PyList_Append(choices, s)) {
            Py_XDECREF(s);
            Py_DECREF(choices);
            return NULL;
        }
        Py_DECREF(s);
    }
    ng_param_format_default(p, def, sizeof def);
    return Py_BuildValue("{s:s,s:s,s:s,s:d,s:d,s:N,s:s}", "name", p->name, "kind", ng_param_word(t, k), "default", def,
                         "min", p->min, "max", p->max, "choices", choices, "doc", p->doc ? p->doc : "");
}

/* nodes(): every node type, as `noisegraph nodes` lists them: name,
 * family, doc, params, inputs and shorthands (ng.fbm is the fractal type
 * with type = "fbm"). */
static PyObject *py_nodes(PyObject *self, PyObject *unused)
{
    PyObject *list = PyList_New(0);
    int i, k, count;
    const ng_node_type *const *types = ng_types(&count);
    (void)self, (void)unused;
    for (i = 0; list && i < count; i++) {
        const ng_node_type *t = types[i];
        PyObject *params = PyList_New(0), *inputs = PyList_New(0), *shorthands = PyList_New(0), *d = NULL;
        for (k = 0; params && k < t->nparams; k++) {
            PyObject *p = node_param(t, k);
            if (!p || PyList_Append(params, p)) Py_CLEAR(params);
            Py_XDECREF(p);
        }
        for (k = 0; inputs && k < t->ninputs; k++) {
            PyObject *p = Py_BuildValue("{s:s,s:O,s:s}", "name", t->inputs[k].name, "optional",
                                        t->inputs[k].flags & NG_INPUT_OPTIONAL ? Py_True : Py_False, "doc",
                                        t->inputs[k].doc ? t->inputs[k].doc : "");
            if (!p || PyList_Append(inputs, p)) Py_CLEAR(inputs);
            Py_XDECREF(p);
        }
        for (k = 0; shorthands && k < t->nshorthands; k++) {
            const ng_shorthand *sh = &t->shorthands[k];
            PyObject *p = Py_BuildValue("{s:s,s:s,s:s}", "name", sh->name, "param", sh->param, "value", sh->value);
            if (!p || PyList_Append(shorthands, p)) Py_CLEAR(shorthands);
            Py_XDECREF(p);
        }
        if (params && inputs && shorthands)
            d = Py_BuildValue("{s:s,s:s,s:s,s:O,s:O,s:O}", "name", t->name, "family", t->family ? t->family : "",
                              "doc", t->doc ? t->doc : "", "params", params, "inputs", inputs, "shorthands",
                              shorthands);
        Py_XDECREF(params);
        Py_XDECREF(inputs);
        Py_XDECREF(shorthands);
        if (!d || PyList_Append(list, d)) Py_CLEAR(list);
        Py_XDECREF(d);
    }
    return list;
}

/* ---- the module ------------------------------------------------------------------------------------ */

static PyMethodDef graph_methods[] = {
    {"render", (PyCFunction)(void (*)(void))graph_render, METH_VARARGS | METH_KEYWORDS,
     "render(size=512, region=None, params=None, threads=0, bits=32, ...) -> numpy array"},
    {"sample", (PyCFunction)(void (*)(void))graph_sample, METH_VARARGS | METH_KEYWORDS,
     "sample(points, params=None, output=None) -> float32 array (N, channels)"},
    {"params", (PyCFunction)(void (*)(void))graph_params, METH_VARARGS | METH_KEYWORDS,
     "params(params=None) -> the parameters the script declares, as dicts"},
    {"outputs", (PyCFunction)graph_outputs, METH_NOARGS, "outputs() -> the output names"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject GraphType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "noisegraph.Graph",
    .tp_basicsize = sizeof(Graph),
    .tp_dealloc = (destructor)graph_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Graph(script, time_limit=10, memory_limit=512): a graph script (a path or its text), run once "
              "per set of parameters and render size and rendered many times",
    .tp_methods = graph_methods,
    .tp_init = (initproc)graph_init,
    .tp_new = PyType_GenericNew,
};

static Graph *graph_of(PyObject *script, const call *a)
{
    PyObject *args;
    Graph *g;
    if (PyObject_TypeCheck(script, &GraphType)) return (Graph *)Py_NewRef(script);
    if (!(args = Py_BuildValue("(Odd)", script, a->time_limit, a->memory_limit))) return NULL;
    g = (Graph *)PyObject_CallObject((PyObject *)&GraphType, args);
    Py_DECREF(args);
    return g;
}

static PyMethodDef methods[] = {
    {"render", (PyCFunction)(void (*)(void))py_render, METH_VARARGS | METH_KEYWORDS,
     "render(script_or_path_or_graph, size=512, region=None, params=None, threads=0, bits=32, origin=None,\n"
     "       pixel_size=1, z=0, time=0, output=None, cancel=None, render_time_limit=0, time_limit=10,\n"
     "       memory_limit=512) -> numpy array: float32 (H, W, C), or (D, H, W, C) for size=(W, H, D);\n"
     "       uint16 / uint8 for bits=16 / 8"},
    {"sample", (PyCFunction)(void (*)(void))py_sample, METH_VARARGS | METH_KEYWORDS,
     "sample(graph_or_script, points, params=None, output=None) -> float32 array (N, channels) of the output\n"
     "       at the world points, an (N, dims) array"},
    {"nodes", (PyCFunction)py_nodes, METH_NOARGS, "nodes() -> every node type, with its options and inputs"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "noisegraph", "noisegraph: procedural noise graphs rendered into NumPy arrays", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_noisegraph(void);
PyMODINIT_FUNC PyInit_noisegraph(void)
{
    PyObject *m;
    if (PyType_Ready(&BufferType) || PyType_Ready(&GraphType)) return NULL;
    if (!(m = PyModule_Create(&module))) return NULL;
    ng_error_type = PyErr_NewException("noisegraph.Error", PyExc_Exception, NULL);
    ng_cancelled_type = ng_error_type ? PyErr_NewException("noisegraph.Cancelled", ng_error_type, NULL) : NULL;
    if (!ng_cancelled_type || PyModule_AddObjectRef(m, "Error", ng_error_type) ||
        PyModule_AddObjectRef(m, "Cancelled", ng_cancelled_type) ||
        PyModule_AddObjectRef(m, "Graph", (PyObject *)&GraphType) ||
        PyModule_AddStringConstant(m, "__version__", NG_VERSION) ||
        PyModule_AddStringConstant(m, "simd_path", ng_simd_path())) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
