/*
 * main.c — the `noisegraph` program: render, nodes, info. Every failure is
 * one line "noisegraph: WHERE: WHAT" on stderr; exit 1, or 2 for usage.
 */
#include "host.h"
#include "inspect.h"
#include "types.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: noisegraph render SCRIPT -o FILE [options]   render a graph script to an image\n"
    "       noisegraph nodes [TYPE]                      every node type, its options and docs\n"
    "       noisegraph info SCRIPT [--set k=v]...        the graph a script builds, as text\n"
    "       noisegraph dot SCRIPT [--set k=v]...         the same as a Graphviz graph\n"
    "       noisegraph --help | --version\n"
    "\n"
    "render options:\n"
    "  -o, --output FILE     the image: .png, .pfm (float), .r16/.raw (16-bit heightmap);\n"
    "                        several outputs: FILE with {name}, or FILE-name.png\n"
    "  --size WxH | N        full image size in pixels (default 512x512)\n"
    "  --bits 8|16|32        sample depth: PNG 8 (default) or 16, PFM 32, raw 16\n"
    "  --region X,Y,W,H      render only this window of the full image (stitches exactly)\n"
    "  --threads N           worker threads (default: one per CPU)\n"
    "  --tile N              tile edge in pixels, 8 to 1024 (default 64)\n"
    "  --origin X,Y          world position of the image's top-left corner (default 0,0)\n"
    "  --pixel-size S        world units per pixel (default 1)\n"
    "  --z Z                 sample the 3D plane z = Z\n"
    "  --time T              sample 4D noise at time T (implies 3D z = 0 unless --z)\n"
    "  --set NAME=VALUE      set a parameter the script declares with ng.param\n"
    "  --unsafe              give the script the full Lua standard library\n"
    "  --time-limit S        seconds the script may run (default 10)\n"
    "  --memory-limit MIB    memory the script may use (default 512)\n"
    "  --tileable            make the image wrap seamlessly in x and y (element sizes are\n"
    "                        adjusted to whole cells per image; a note says so)\n"
    "  --quiet               no progress or notes on stderr\n"
    "\n"
    "environment: NG_SIMD=avx512|avx2|sse2|scalar forces a SIMD path (all give the same bits)\n";

static int failf(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int failf(int code, const char *fmt, ...)
{
    char msg[1024], *c;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (c = msg; *c; c++) /* one line, whatever the script's message held */
        if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
    fprintf(stderr, "noisegraph: %s\n", msg);
    return code;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return (errno || end == s || *end || *out != *out) ? -1 : 0;
}

/* "a,b,c" -> n doubles */
static int parse_list(const char *s, double *v, int n)
{
    char buf[256], *save = NULL, *tok;
    int i = 0;
    snprintf(buf, sizeof buf, "%s", s);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (i == n || parse_double(tok, &v[i])) return -1;
        i++;
    }
    return i == n ? 0 : -1;
}

static int takes_value(const char *opt)
{
    static const char *const opts[] = {"-o", "--output", "--size", "--bits", "--region", "--threads", "--tile",
                                       "--origin", "--pixel-size", "--z", "--time", "--set", "--time-limit",
                                       "--memory-limit", NULL};
    int i;
    for (i = 0; opts[i]; i++)
        if (!strcmp(opt, opts[i])) return 1;
    return 0;
}

typedef struct cli {
    const char *script, *output;
    int bits; /* 0: the format's default */
    int quiet;
    ng_render_opts r;
    ng_host_opts h;
    int z_set, time_set;
} cli;

/* Parses options after the subcommand. Returns 0, or the exit code. */
static int parse(int argc, char **argv, cli *c)
{
    int i;
    ng_render_defaults(&c->r, 512, 512);
    ng_host_defaults(&c->h);
    for (i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        double d[4];
        if (a[0] != '-' || !a[1]) {
            if (c->script) return failf(2, "%s: unexpected argument (the script is %s)", a, c->script);
            c->script = a;
            continue;
        }
        if (!strcmp(a, "--unsafe")) { c->h.unsafe = 1; continue; }
        if (!strcmp(a, "--quiet")) { c->quiet = 1; continue; }
        if (!strcmp(a, "--tileable")) { c->r.tileable = 1; continue; }
        if (!takes_value(a)) return failf(2, "%s: unknown option (see --help)", a);
        if (!v) return failf(2, "%s: needs a value (see --help)", a);
        i++;
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            c->output = v;
        } else if (!strcmp(a, "--size")) {
            char *x = strchr(v, 'x');
            long w, h;
            if (x) {
                char wb[32];
                snprintf(wb, sizeof wb, "%.*s", (int)(x - v), v);
                if (parse_int(wb, 1, 1 << 20, &w) || parse_int(x + 1, 1, 1 << 20, &h))
                    return failf(2, "--size: '%s' is not WxH or N (1 to 1048576)", v);
            } else if (parse_int(v, 1, 1 << 20, &w)) {
                return failf(2, "--size: '%s' is not WxH or N (1 to 1048576)", v);
            } else {
                h = w;
            }
            c->r.width = (int)w;
            c->r.height = (int)h;
        } else if (!strcmp(a, "--bits")) {
            if (parse_int(v, 8, 32, &n) || (n != 8 && n != 16 && n != 32))
                return failf(2, "--bits: '%s' is not 8, 16 or 32", v);
            c->bits = (int)n;
        } else if (!strcmp(a, "--region")) {
            int k;
            if (parse_list(v, d, 4)) return failf(2, "--region: '%s' is not X,Y,W,H", v);
            for (k = 0; k < 4; k++) {
                if (d[k] != (double)(int)d[k] || d[k] < 0 || (k >= 2 && d[k] < 1))
                    return failf(2, "--region: '%s' needs whole pixels, W and H at least 1", v);
                c->r.region[k] = (int)d[k];
            }
        } else if (!strcmp(a, "--threads")) {
            if (parse_int(v, 1, 256, &n)) return failf(2, "--threads: '%s' is not a number from 1 to 256", v);
            c->r.threads = (int)n;
        } else if (!strcmp(a, "--tile")) {
            if (parse_int(v, 8, 1024, &n)) return failf(2, "--tile: '%s' is not a number from 8 to 1024", v);
            c->r.tile = (int)n;
        } else if (!strcmp(a, "--origin")) {
            if (parse_list(v, c->r.origin, 2)) return failf(2, "--origin: '%s' is not X,Y", v);
        } else if (!strcmp(a, "--pixel-size")) {
            if (parse_double(v, &c->r.pixel_size) || !(c->r.pixel_size > 0))
                return failf(2, "--pixel-size: '%s' is not a number above 0", v);
        } else if (!strcmp(a, "--z")) {
            if (parse_double(v, &c->r.z)) return failf(2, "--z: '%s' is not a number", v);
            c->z_set = 1;
        } else if (!strcmp(a, "--time")) {
            if (parse_double(v, &c->r.time)) return failf(2, "--time: '%s' is not a number", v);
            c->time_set = 1;
        } else if (!strcmp(a, "--set")) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v) return failf(2, "--set: '%s' is not NAME=VALUE", v);
            if (c->h.nsets == NG_MAX_SETS) return failf(2, "--set: more than %d", NG_MAX_SETS);
            c->h.set_name[c->h.nsets] = strndup(v, (size_t)(eq - v));
            c->h.set_value[c->h.nsets++] = eq + 1;
        } else if (!strcmp(a, "--time-limit")) {
            if (parse_double(v, &c->h.time_limit) || !(c->h.time_limit > 0))
                return failf(2, "--time-limit: '%s' is not a number of seconds above 0", v);
        } else if (!strcmp(a, "--memory-limit")) {
            if (parse_double(v, &d[0]) || !(d[0] >= 1)) return failf(2, "--memory-limit: '%s' is not MiB (1 or more)", v);
            c->h.memory_limit = d[0] * 1024 * 1024;
        }
    }
    c->r.dims = c->time_set ? 4 : c->z_set ? 3 : 2;
    if (c->r.region[2] && ((long)c->r.region[0] + c->r.region[2] > c->r.width ||
                           (long)c->r.region[1] + c->r.region[3] > c->r.height))
        return failf(2, "--region: %d,%d,%d,%d does not fit in the %dx%d image", c->r.region[0], c->r.region[1],
                     c->r.region[2], c->r.region[3], c->r.width, c->r.height);
    return 0;
}

static void free_cli(cli *c)
{
    int i;
    for (i = 0; i < c->h.nsets; i++) free((char *)c->h.set_name[i]);
}

/* The file for output `name` of a multi-output script. */
static void output_path(const char *pattern, const char *name, char *buf, size_t len)
{
    const char *brace = strstr(pattern, "{name}"), *dot, *slash;
    if (!name) {
        snprintf(buf, len, "%s", pattern);
    } else if (brace) {
        snprintf(buf, len, "%.*s%s%s", (int)(brace - pattern), pattern, name, brace + 6);
    } else {
        dot = strrchr(pattern, '.');
        slash = strrchr(pattern, '/');
        if (!dot || (slash && dot < slash)) dot = pattern + strlen(pattern);
        snprintf(buf, len, "%.*s-%s%s", (int)(dot - pattern), pattern, name, dot);
    }
}

static void print_note(void *user, const char *msg)
{
    (void)user;
    fprintf(stderr, "noisegraph: %s\n", msg);
}

static int cmd_render(int argc, char **argv)
{
    cli c;
    ng_script s;
    ng_error err;
    ng_file_sink *files[NG_MAX_OUTPUTS] = {0};
    ng_sink sinks[NG_MAX_OUTPUTS];
    char paths[NG_MAX_OUTPUTS][4096];
    int rc, i, k;
    memset(&c, 0, sizeof c);
    if ((rc = parse(argc, argv, &c))) goto out;
    rc = 2;
    if (!c.script) { failf(2, "render: no SCRIPT given (see --help)"); goto out; }
    if (!c.output) { failf(2, "render: no output file given (-o FILE)"); goto out; }
    /* Format and --bits are usage errors, caught before the script runs. */
    if (ng_file_check(c.output, c.bits, &err)) { failf(2, "%s", err.msg); goto out; }
    rc = 1;
    if (ng_script_run(c.script, &c.h, &s, &err)) { failf(1, "%s", err.msg); goto out; }
    for (i = 0; i < s.noutputs; i++) {
        output_path(c.output, s.output_name[i], paths[i], sizeof paths[i]);
        for (k = 0; k < i; k++)
            if (!strcmp(paths[k], paths[i])) {
                failf(1, "%s: two outputs would write %s", c.script, paths[i]);
                goto done;
            }
        if (!(files[i] = ng_file_sink_new(paths[i], c.bits, &err))) { failf(1, "%s", err.msg); goto done; }
        sinks[i] = ng_file_sink_as_sink(files[i]);
    }
    c.r.progress = !c.quiet && isatty(2);
    if (!c.quiet) c.r.note = print_note;
    if (ng_render(s.graph, s.output, s.noutputs, &c.r, sinks, &err)) {
        failf(1, "%s", err.msg);
        goto done;
    }
    rc = 0;
done:
    for (i = 0; i < s.noutputs; i++) ng_file_sink_free(files[i]);
    ng_script_free(&s);
out:
    free_cli(&c);
    return rc;
}

/* ---- nodes ------------------------------------------------------------------ */

static void print_default(const ng_param_desc *p)
{
    char buf[256];
    ng_param_format_default(p, buf, sizeof buf);
    fputs(buf, stdout);
}

static void print_type(const ng_node_type *t)
{
    int k, d;
    printf("%s", t->name);
    for (k = 0; k < t->nshorthands; k++)
        printf("%s%s", k ? ", " : "  (also ", t->shorthands[k].name);
    printf("%s  [%s", t->nshorthands ? ")" : "", t->family);
    for (d = 1; d <= 4; d++)
        if (t->dims & (1u << d)) printf(" %dD", d);
    printf("]\n  %s\n", t->doc);
    if (t->op) printf("  operator: %s\n", t->op);
    if (t->method) printf("  method: node:%s(...)\n", t->method);
    for (k = 0; k < t->ninputs; k++) {
        const ng_input_desc *in = &t->inputs[k];
        printf("  input  %-14s %s%s", in->name, (in->flags & NG_INPUT_HYBRID) ? "node or number" : "node",
               (in->flags & NG_INPUT_OPTIONAL) ? ", optional" : "");
        if (in->flags & NG_INPUT_HYBRID) printf(", default %g", in->def);
        if (in->min_channels == in->max_channels)
            printf(", %d channel%s", in->min_channels, in->min_channels == 1 ? "" : "s");
        else if (in->min_channels > 1 || in->max_channels < NG_MAX_CHANNELS)
            printf(", %d to %d channels", in->min_channels, in->max_channels);
        printf(" — %s\n", in->doc);
    }
    for (k = 0; k < t->nparams; k++) {
        const ng_param_desc *p = &t->params[k];
        printf("  option %-14s %s = ", p->name, ng_param_kind_word(p->kind));
        print_default(p);
        if (p->kind == NG_PARAM_INT) printf(", %.0f to %.0f", p->min, p->max);
        if (p->kind == NG_PARAM_NUMBER || p->kind == NG_PARAM_VEC3) printf(", %g to %g", p->min, p->max);
        if (p->kind == NG_PARAM_ENUM) {
            int c;
            printf(", one of");
            for (c = 0; p->choices[c]; c++) printf(" \"%s\"", p->choices[c]);
        }
        printf(" — %s\n", p->doc);
    }
    printf("\n");
}

static int cmd_nodes(int argc, char **argv)
{
    int n, i;
    const ng_node_type *const *types = ng_types(&n);
    if (argc > 1) return failf(2, "nodes: takes at most one TYPE");
    if (argc == 1) {
        const ng_node_type *t = ng_type_find(argv[0]);
        if (!t) return failf(2, "nodes: no node type '%s' (run `noisegraph nodes` for the list)", argv[0]);
        print_type(t);
        return 0;
    }
    for (i = 0; i < n; i++) print_type(types[i]);
    return 0;
}

/* ---- info ------------------------------------------------------------------------ */

/* info and dot: run the script, print its graph */
static int cmd_inspect(int argc, char **argv, const char *what,
                       void (*print)(const ng_script *, const char *, FILE *))
{
    cli c;
    ng_script s;
    ng_error err;
    int rc;
    memset(&c, 0, sizeof c);
    if ((rc = parse(argc, argv, &c))) goto out;
    rc = 2;
    if (!c.script) { failf(2, "%s: no SCRIPT given", what); goto out; }
    rc = 1;
    if (ng_script_run(c.script, &c.h, &s, &err)) { failf(1, "%s", err.msg); goto out; }
    print(&s, c.script, stdout);
    ng_script_free(&s);
    rc = fflush(stdout) == 0 ? 0 : failf(1, "%s: cannot write the output", what);
out:
    free_cli(&c);
    return rc;
}

int main(int argc, char **argv)
{
    ng_error err;
    if (argc < 2) return failf(2, "no command (render, nodes, info, dot; see --help)");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (ng_simd_check(&err)) return failf(2, "%s", err.msg);
    if (!strcmp(argv[1], "--version")) {
        printf("noisegraph %s (SIMD path: %s)\n", NG_VERSION, ng_simd_path());
        return 0;
    }
    if (!strcmp(argv[1], "render")) return cmd_render(argc - 2, argv + 2);
    if (!strcmp(argv[1], "nodes")) return cmd_nodes(argc - 2, argv + 2);
    if (!strcmp(argv[1], "info")) return cmd_inspect(argc - 2, argv + 2, "info", ng_print_info);
    if (!strcmp(argv[1], "dot")) return cmd_inspect(argc - 2, argv + 2, "dot", ng_print_dot);
    return failf(2, "%s: unknown command (render, nodes, info, dot; see --help)", argv[1]);
}
