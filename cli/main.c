/*
 * main.c — the `noisegraph` program: render, preview, nodes, info, dot,
 * serve (serve.c), tiles and stitch (tiles.c, stitch.c).
 * Every failure is one line "noisegraph: WHERE: WHAT" on stderr; exit 1,
 * or 2 for usage.
 */
#include "args.h"
#include "host.h"
#include "inspect.h"
#include "serve.h"
#include "tilefile.h"
#include "tiles.h"
#include "types.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file for output `name` of a multi-output script (malloc'd, NULL
 * without memory): built to its full length, never cut. Every {name} is
 * the name ('{name}/{name}.png': a folder per output). */
static char *output_path(const char *pattern, const char *name)
{
    const char *brace = strstr(pattern, "{name}"), *dot, *slash, *at;
    const size_t nl = name ? strlen(name) : 0;
    size_t braces = 0, len;
    char *buf, *w;
    for (at = brace; at; at = strstr(at + 6, "{name}")) braces++;
    len = strlen(pattern) + (braces + 1) * nl + 2 + 1;
    if (!(buf = malloc(len))) return NULL;
    if (!name) {
        snprintf(buf, len, "%s", pattern);
    } else if (brace) {
        for (w = buf, at = pattern; brace; at = brace + 6, brace = strstr(at, "{name}")) {
            memcpy(w, at, (size_t)(brace - at));
            w += brace - at;
            memcpy(w, name, nl);
            w += nl;
        }
        snprintf(w, len - (size_t)(w - buf), "%s", at);
    } else {
        dot = strrchr(pattern, '.');
        slash = strrchr(pattern, '/');
        if (!dot || (slash && dot < slash)) dot = pattern + strlen(pattern);
        snprintf(buf, len, "%.*s-%s%s", (int)(dot - pattern), pattern, name, dot);
    }
    return buf;
}

/* Whether path names the script file itself, by any spelling or link. */
static int is_script(const char *path, const char *script)
{
    struct stat a, b;
    return stat(path, &a) == 0 && stat(script, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int refuse_script_output(const char *path, const char *script)
{
    return ng_cli_fail(2, "%s: is the script %s itself; choose another output file", path, script);
}

static void print_note(void *user, const char *msg)
{
    (void)user;
    fprintf(stderr, "noisegraph: %s\n", msg);
}

/* An integer format clamps to [0, 1]: a signed noise written as it is
 * loses its lower half without a word unless we say so. A few samples
 * past the ends (a fractal's rare peaks) are no news: over 1 % is. */
static void note_clamped(const ng_file_sink *f, const char *path)
{
    uint64_t clamped, samples;
    ng_file_sink_clamped(f, &clamped, &samples);
    if (clamped == 0 || clamped <= samples / 100) return;
    fprintf(stderr,
            "noisegraph: %s: %.0f %% of the samples were outside [0, 1] and were clamped "
            "(use fit/range = \"unit\", or a float format: .pfm, .nrrd, .vdb)\n",
            path, 100.0 * (double)clamped / (double)samples);
}

/* Integer formats cannot hold NaN or infinities: say how many there were. */
static void note_changed(const ng_file_sink *f, const char *path)
{
    uint64_t nan, inf;
    note_clamped(f, path);
    ng_file_sink_changed(f, &nan, &inf);
    if (nan && inf)
        fprintf(stderr, "noisegraph: %s: %llu NaN samples written as 0, %llu infinite samples clamped to 0 or 1\n",
                path, (unsigned long long)nan, (unsigned long long)inf);
    else if (nan)
        fprintf(stderr, "noisegraph: %s: %llu NaN sample%s written as 0\n", path, (unsigned long long)nan,
                nan == 1 ? "" : "s");
    else if (inf)
        fprintf(stderr, "noisegraph: %s: %llu infinite sample%s clamped to 0 or 1\n", path,
                (unsigned long long)inf, inf == 1 ? "" : "s");
}

/* ---- output folders ---------------------------------------------------------------- */

/* The patterns -o may hold. The folders of an output named by a pattern
 * are made as it is written; those of a plain name must exist, as a typo
 * in a folder name should not make a new folder. */
static const char *const output_patterns[] = {"{name}", "{z}", "{frame}"};

static int has_pattern(const char *path)
{
    size_t i;
    for (i = 0; i < sizeof output_patterns / sizeof output_patterns[0]; i++)
        if (strstr(path, output_patterns[i])) return 1;
    return 0;
}

/* The folders an output's pattern made: dir (malloc'd) and the length of
 * its part that existed before (the folders below it were made). */
typedef struct made_folders {
    char *dir;
    size_t kept;
} made_folders;

/* Walks the folders of path, outermost first: each must be a folder; a
 * missing one is made (mkdir -p, mode 0777 less the umask) when made is
 * given, which then says what was made, and an error otherwise. 0, or the
 * exit code 1 after the one-line error. */
static int walk_folders(const char *path, made_folders *made)
{
    const char *last = strrchr(path, '/');
    char *dir;
    size_t i, end;
    int rc = 0;
    if (!last || last == path) return 0; /* the current folder, or / */
    end = (size_t)(last - path);
    if (!(dir = strndup(path, end))) return ng_cli_fail(1, "%s: out of memory", path);
    for (i = 1; i <= end && rc == 0; i++) {
        struct stat st;
        if (i < end && dir[i] != '/') continue;
        dir[i] = '\0'; /* dir is the first i bytes: one more folder */
        if (stat(dir, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) rc = ng_cli_fail(1, "%s: '%s' is not a folder", path, dir);
        } else if (errno != ENOENT) {
            rc = ng_cli_fail(1, "%s: the folder '%s': %s", path, dir, strerror(errno));
        } else if (!made) {
            rc = ng_cli_fail(1, "%s: the folder '%.*s' does not exist", path, (int)end, path);
        } else if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
            rc = ng_cli_fail(1, "%s: cannot create the folder '%s': %s", path, dir, strerror(errno));
        } else if (!made->kept) {
            made->kept = i; /* this one and those below it are new */
        }
        if (i < end) dir[i] = '/';
    }
    if (made && !made->dir && made->kept) made->dir = dir;
    else free(dir);
    return rc;
}

/* After a failed render: the folders walk_folders made, innermost first,
 * each if it is empty (the sinks removed what they wrote in them). */
static void remove_made_folders(made_folders *made)
{
    char *slash;
    if (!made->dir) return;
    while (strlen(made->dir) >= made->kept && rmdir(made->dir) == 0 && (slash = strrchr(made->dir, '/')))
        *slash = '\0';
    free(made->dir);
    made->dir = NULL;
}

/* Every output is written to its temporary first; only when the whole
 * render succeeded are they renamed, so a failure on one output never
 * leaves another replaced. output: -o with {frame} already filled in;
 * frame: said before an error of a sequence's frame ("" otherwise);
 * notes: say the graph's notes (a sequence says them once). */
static int render_outputs(ng_cli *c, ng_script *s, const char *output, const char *frame, int notes)
{
    ng_file_sink *files[NG_MAX_OUTPUTS] = {0};
    ng_sink sinks[NG_MAX_OUTPUTS];
    char *paths[NG_MAX_OUTPUTS] = {0};
    made_folders made[NG_MAX_OUTPUTS] = {{0}};
    ng_error err;
    /* named outputs into one file of a format that holds them all (a
     * .vdb's grids, an .exr's layers or parts), unless -o says where {name}
     * goes or --exr-layout files asks for a file each */
    const int shared = s->noutputs > 1 && !strstr(output, "{name}") && ng_file_shares(output, &c->file);
    int rc = 1, i, k;
    for (i = 0; i < s->noutputs; i++) {
        /* --only NAME: -o is the file itself, unless it says where {name} goes */
        const char *suffix = shared || (c->only && !strstr(output, "{name}")) ? NULL : s->output_name[i];
        if (!(paths[i] = output_path(output, suffix))) {
            ng_cli_fail(1, "render: out of memory");
            goto done;
        }
        if (is_script(paths[i], c->script)) {
            rc = refuse_script_output(paths[i], c->script);
            goto done;
        }
        for (k = 0; k < i && !shared; k++)
            if (!strcmp(paths[k], paths[i])) {
                ng_cli_fail(1, "%s: two outputs would write %s", c->script, paths[i]);
                goto done;
            }
        if (!(files[i] = ng_file_sink_new(paths[i], c->bits, &err)) ||
            ng_file_sink_set_grid(files[i], s->output_name[i], c->vdb_background, &err)) {
            ng_cli_fail(1, "%s%s", frame, err.msg);
            goto done;
        }
        ng_file_sink_set_memory_limit(files[i], c->r.memory_limit);
        if (ng_file_sink_set_options(files[i], &c->file, &err)) {
            ng_cli_fail(1, "%s%s", frame, err.msg);
            goto done;
        }
        if (has_pattern(c->output) && walk_folders(paths[i], &made[i])) goto done;
        ng_file_sink_defer(files[i]);
        sinks[i] = ng_file_sink_as_sink(files[i]);
    }
    /* the last output's sink writes the file: the render ends it last */
    for (i = 0; shared && i < s->noutputs - 1; i++)
        if (ng_file_sink_join(files[i], files[s->noutputs - 1], &err)) {
            ng_cli_fail(1, "%s%s", frame, err.msg);
            goto done;
        }
    c->r.progress = !c->quiet && isatty(2);
    c->r.note = !c->quiet && notes ? print_note : NULL;
    if (ng_render(s->graph, s->output, s->noutputs, &c->r, sinks, &err)) {
        ng_cli_fail(1, "%s%s", frame, err.msg);
        goto done;
    }
    for (i = 0; i < s->noutputs; i++)
        if (ng_file_sink_commit(files[i], &err)) {
            ng_cli_fail(1, "%s%s", frame, err.msg);
            goto done;
        }
    if (!c->quiet)
        for (i = 0; i < s->noutputs; i++) note_changed(files[i], paths[i]);
    rc = 0;
done:
    for (i = 0; i < s->noutputs; i++) {
        ng_file_sink_free(files[i]);
        free(paths[i]);
    }
    for (i = s->noutputs - 1; i >= 0; i--) { /* after the sinks: their temporaries are gone */
        if (rc) remove_made_folders(&made[i]);
        free(made[i].dir);
    }
    return rc;
}

/* ---- provenance ------------------------------------------------------------------ */

/* What a file says of how it was made (ng_file_options.meta): the
 * version, the script and its SHA-256, the --set values and the command
 * line, so a file found on a farm's disk can be made again. The command
 * leaves out what never changes the bytes (-o, --threads, --tile, the
 * limits: ng_cli_recorded), so a file's bytes still do not depend on
 * them. */
typedef struct provenance {
    char sha[65];
    char *sets, *command; /* malloc'd */
    const char *meta[11];
} provenance;

/* words joined by spaces, each quoted for a POSIX shell when it needs it
 * (malloc'd, NULL without memory) */
static char *join_words(int n, char *const *words, const char *const *names)
{
    size_t len = 1;
    char *buf, *w;
    int i;
    for (i = 0; i < n; i++) len += 4 * strlen(words[i]) + (names ? strlen(names[i]) + 1 : 0) + 3;
    if (!(buf = malloc(len))) return NULL;
    for (w = buf, i = 0; i < n; i++) {
        const char *p = words[i];
        int plain = *p != '\0';
        for (; *p; p++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%", *p)) plain = 0;
        if (i) *w++ = ' ';
        if (names) w += sprintf(w, "%s=", names[i]);
        if (plain) {
            w += sprintf(w, "%s", words[i]);
            continue;
        }
        *w++ = '\'';
        for (p = words[i]; *p; p++) w += *p == '\'' ? sprintf(w, "'\\''") : sprintf(w, "%c", *p);
        *w++ = '\'';
    }
    *w = '\0';
    return buf;
}

static int provenance_make(provenance *p, const ng_cli *c, const char *cmd)
{
    ng_error err;
    char **words;
    int i, k = 0;
    memset(p, 0, sizeof *p);
    if (ng_sha256_file(c->script, "the script", 0, p->sha, &err)) return ng_cli_fail(1, "%s", err.msg);
    if (!(words = malloc(((size_t)c->argc + 2) * sizeof *words))) return ng_cli_fail(1, "render: out of memory");
    words[k++] = "noisegraph", words[k++] = (char *)cmd;
    for (i = 0; i < c->argc; i++) /* the words that make the bytes */
        if (!c->option_of[i] || ng_cli_recorded(c->option_of[i])) words[k++] = c->argv[i];
    p->command = join_words(k, words, NULL);
    k = 0;
    free(words);
    p->sets = join_words(c->h.nsets, (char *const *)c->h.set_value, c->h.set_name);
    if (!p->command || !p->sets) return ng_cli_fail(1, "render: out of memory");
    p->meta[k++] = "noisegraph_version", p->meta[k++] = NG_VERSION;
    p->meta[k++] = "noisegraph_script", p->meta[k++] = c->script;
    p->meta[k++] = "noisegraph_script_sha256", p->meta[k++] = p->sha;
    p->meta[k++] = "noisegraph_set", p->meta[k++] = p->sets;
    p->meta[k++] = "noisegraph_command", p->meta[k++] = p->command;
    p->meta[k] = NULL;
    return 0;
}

static void provenance_free(provenance *p)
{
    free(p->sets);
    free(p->command);
}

/* ---- frames ---------------------------------------------------------------------- */

/* pattern with every {frame} replaced by f, zero-padded to `digits`
 * (malloc'd, NULL without memory). */
static char *frame_path(const char *pattern, long f, int digits)
{
    char num[32], *buf, *o;
    const char *p;
    size_t n = 0, len = (size_t)snprintf(num, sizeof num, "%0*ld", digits, f);
    for (p = pattern; (p = strstr(p, "{frame}")); p += 7) n++;
    if (!(buf = malloc(strlen(pattern) + n * len + 1))) return NULL;
    for (o = buf, p = pattern; *p;) {
        if (!strncmp(p, "{frame}", 7)) {
            memcpy(o, num, len);
            o += len, p += 7;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return buf;
}

/* Digits of the frame numbers in file names: B's, and at least 4. */
static int frame_digits(long last)
{
    int d = 1;
    for (; last >= 10; last /= 10) d++;
    return d < 4 ? 4 : d;
}

/* --frames A-B: the graph the script built once, rendered at time f / fps
 * for every frame in turn (each with all the threads), each frame's files
 * written and renamed before the next begins. A failure stops the
 * sequence; the frames already written stay. */
static int render_frames(ng_cli *c, ng_script *s)
{
    const long first = c->frame_first, last = c->frame_last, count = last - first + 1;
    const int digits = frame_digits(last);
    char label[64], where[64];
    long f;
    int rc = 0;
    for (f = first; f <= last && rc == 0; f++) {
        char *out = frame_path(c->output, f, digits);
        if (!out) return ng_cli_fail(1, "render: out of memory");
        c->r.time = (double)f / c->h.fps;
        snprintf(label, sizeof label, "frame %ld/%ld", f - first + 1, count);
        snprintf(where, sizeof where, count > 1 ? "frame %ld: " : "", f);
        c->r.progress_label = label;
        rc = render_outputs(c, s, out, where, f == first);
        free(out);
    }
    c->r.progress_label = NULL;
    return rc;
}

/* ---- views ---------------------------------------------------------------------- */

/* The output a view draws: the script's output named `height` if it has
 * one channel (as serve's ramp and hillshade pick it), else its first
 * with one channel (outputs come in name order: a script's `flow` mask
 * before its `height`). */
static int view_output(const ng_script *s, const char *script)
{
    int i;
    for (i = 0; i < s->noutputs; i++)
        if (s->output_name[i] && !strcmp(s->output_name[i], "height") &&
            ng_node_channels(ng_graph_node(s->graph, s->output[i])) == 1)
            return s->output[i];
    for (i = 0; i < s->noutputs; i++)
        if (ng_node_channels(ng_graph_node(s->graph, s->output[i])) == 1) return s->output[i];
    ng_cli_fail(1, "%s: no 1-channel output to view (a density or a height)", script);
    return -1;
}

/* A picture of the script's output drawn by a view (core/view.c) into
 * one image file, through the same temporary-and-rename path as render. */
static int draw_view(ng_cli *c, const ng_script *s)
{
    ng_file_sink *file;
    ng_sink sink;
    ng_error err;
    int root, rc = 1;
    c->r.progress = !c->quiet && isatty(2);
    if ((root = view_output(s, c->script)) < 0) return 1;
    if (!(file = ng_file_sink_new(c->output, c->bits, &err))) return ng_cli_fail(1, "%s", err.msg);
    if (ng_file_sink_set_options(file, &c->file, &err)) {
        ng_file_sink_free(file);
        return ng_cli_fail(1, "%s", err.msg);
    }
    sink = ng_file_sink_as_sink(file);
    if (ng_view_render(s->graph, root, &c->v, &c->r, &sink, &err)) {
        ng_cli_fail(1, "%s", err.msg);
    } else {
        if (!c->quiet) note_changed(file, c->output);
        rc = 0;
    }
    ng_file_sink_free(file);
    return rc;
}

/* ---- render, preview -------------------------------------------------------------- */

/* What ng.size(), ng.u() and ng.v() tell the script: the render's full
 * extents and world, or a volume view's box (the world the view samples). */
static void script_context(ng_cli *c)
{
    ng_host_opts *h = &c->h;
    if (c->view && c->v.kind == NG_VIEW_VOLUME) {
        h->width = c->v.box[0], h->height = c->v.box[1], h->depth = c->v.box[2];
        h->origin[0] = c->v.box_origin[0], h->origin[1] = c->v.box_origin[1];
        h->pixel_size = c->v.voxel_size;
        return;
    }
    h->width = c->r.width, h->height = c->r.height, h->depth = c->r.depth;
    h->origin[0] = c->r.origin[0], h->origin[1] = c->r.origin[1];
    h->pixel_size = c->r.pixel_size;
}

/* The target, its format and --bits, checked before the script runs. 0,
 * or the exit code after the one-line error. */
static int check_target(const ng_cli *c)
{
    ng_error err;
    if (is_script(c->output, c->script)) return refuse_script_output(c->output, c->script);
    if (is_directory(c->output)) return ng_cli_fail(1, "%s: is a directory", c->output);
    if (ng_file_check_depth(c->output, c->bits, c->r.depth, &err)) return ng_cli_fail(2, "%s", err.msg);
    /* a view writes one picture: its -o is never a pattern */
    if ((c->view || !has_pattern(c->output)) && walk_folders(c->output, NULL)) return 1;
    return 0;
}

/* --only NAME: keeps output NAME alone, so the render evaluates it and
 * nothing else. 0, or the exit code (2: NAME is not an output) after the
 * one-line error listing the outputs there are. */
static int keep_only(const ng_cli *c, ng_script *s)
{
    char names[1024];
    int i, len = 0;
    if (!c->only) return 0;
    for (i = 0; i < s->noutputs; i++)
        if (s->output_name[i] && !strcmp(s->output_name[i], c->only)) {
            char *name = s->output_name[i];
            int root = s->output[i], k;
            for (k = 0; k < s->noutputs; k++)
                if (k != i) free(s->output_name[k]);
            s->output_name[0] = name, s->output[0] = root, s->noutputs = 1;
            return 0;
        }
    if (!s->output_name[0])
        return ng_cli_fail(2, "--only %s: %s returns one unnamed output; --only picks one of several named outputs",
                           c->only, c->script);
    names[0] = '\0';
    for (i = 0; i < s->noutputs && len < (int)sizeof names - 80; i++)
        len += snprintf(names + len, sizeof names - (size_t)len, "%s%s", i ? ", " : "", s->output_name[i]);
    return ng_cli_fail(2, "--only %s: %s has no output '%s' (its outputs: %s%s)", c->only, c->script, c->only,
                       names, i < s->noutputs ? ", ..." : "");
}

/* render and preview: one path, which writes the outputs or, for preview
 * and render --view, draws the view of one. */
static int cmd_picture(ng_cmd cmd, const char *name, int argc, char **argv)
{
    ng_cli c;
    ng_script s;
    ng_error err;
    provenance prov = {0};
    int rc;
    if ((rc = ng_cli_parse(cmd, argc, argv, &c))) goto out;
    rc = 2;
    if (!c.script) { ng_cli_fail(2, "%s: no SCRIPT given (see --help)", name); goto out; }
    if (!c.output) { ng_cli_fail(2, "%s: no output file given (-o FILE)", name); goto out; }
    if ((rc = check_target(&c))) goto out;
    ng_catch_signals();
    rc = 1;
    script_context(&c);
    if (ng_script_run(c.script, &c.h, &s, &err)) { ng_cli_fail(1, "%s", err.msg); goto out; }
    /* the render's intermediate results take what the graph left of the limit */
    c.r.memory_limit = c.h.memory_limit > (double)s.memory_held ? c.h.memory_limit - (double)s.memory_held : 1;
    /* a view's picture is a look at the output, not the output: no provenance */
    c.no_provenance |= c.view;
    if ((rc = keep_only(&c, &s)) == 0 && (rc = ng_cli_normalize(&c, &s)) == 0 &&
        (c.no_provenance || (rc = provenance_make(&prov, &c, name)) == 0)) {
        if (!c.no_provenance) c.file.meta = prov.meta;
        rc = c.view ? draw_view(&c, &s) : c.frames_set ? render_frames(&c, &s) : render_outputs(&c, &s, c.output, "", 1);
    }
    provenance_free(&prov);
    ng_script_free(&s);
out:
    ng_cli_free(&c);
    return rc;
}

static int cmd_render(int argc, char **argv) { return cmd_picture(NG_CMD_RENDER, "render", argc, argv); }
static int cmd_preview(int argc, char **argv) { return cmd_picture(NG_CMD_PREVIEW, "preview", argc, argv); }

/* ---- nodes ------------------------------------------------------------------ */

static void print_default(const ng_param_desc *p)
{
    char buf[256];
    ng_param_format_default(p, buf, sizeof buf);
    fputs(buf, stdout);
}

/* " (also gain, persistence)": the option's other names */
static void print_aliases(const ng_node_type *t, int k)
{
    const ng_option_alias *a;
    int i;
    for (i = 0; (a = ng_option_alias_of(t, k, i)); i++)
        printf("%s%s%s", i ? ", " : " (also ", a->name, a->inverse ? " = 1 / it" : "");
    if (i) printf(")");
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
        printf("  option %-14s %s = ", p->name, ng_param_word(t, k));
        print_default(p);
        if (p->kind == NG_PARAM_INT) printf(", %.0f to %.0f", p->min, p->max);
        if (p->kind == NG_PARAM_NUMBER || p->kind == NG_PARAM_VEC3) printf(", %g to %g", p->min, p->max);
        if (p->kind == NG_PARAM_ENUM) {
            int c;
            printf(", one of");
            for (c = 0; p->choices[c]; c++) printf(" \"%s\"", p->choices[c]);
        }
        printf(" — %s", p->doc);
        print_aliases(t, k);
        printf("\n");
    }
    printf("\n");
}

/* `noisegraph nodes NAME` for a name that is neither a type nor a
 * shorthand: the closest of them. */
static int unknown_type(const char *name)
{
    const char *names[512], *near;
    int n, i, k, count = 0;
    const ng_node_type *const *types = ng_types(&n);
    for (i = 0; i < n; i++) {
        if (count < 512) names[count++] = types[i]->name;
        for (k = 0; k < types[i]->nshorthands && count < 512; k++) names[count++] = types[i]->shorthands[k].name;
    }
    if ((near = ng_closest_name(name, names, count)))
        return ng_cli_fail(2, "nodes: no node type '%s'; did you mean '%s'? (run `noisegraph nodes` for the list)",
                           name, near);
    return ng_cli_fail(2, "nodes: no node type '%s' (run `noisegraph nodes` for the list)", name);
}

static int cmd_nodes(int argc, char **argv)
{
    int n, i;
    const ng_node_type *const *types = ng_types(&n);
    for (i = 0; i < argc; i++)
        if (ng_cli_is_help(argv[i])) return NG_CLI_HELP;
    if (argc > 1) return ng_cli_fail(2, "nodes: takes at most one TYPE");
    if (argc == 1) {
        const ng_node_type *t = ng_type_find(argv[0]);
        if (!t) return unknown_type(argv[0]);
        print_type(t);
        return 0;
    }
    for (i = 0; i < n; i++) print_type(types[i]);
    return 0;
}

/* ---- info ------------------------------------------------------------------------ */

/* info and dot: run the script, print its graph */
static int cmd_inspect(ng_cmd cmd, const char *what, int argc, char **argv,
                       void (*print)(const ng_script *, const char *, FILE *))
{
    ng_cli c;
    ng_script s;
    ng_error err;
    int rc;
    if ((rc = ng_cli_parse(cmd, argc, argv, &c))) goto out;
    rc = 2;
    if (!c.script) { ng_cli_fail(2, "%s: no SCRIPT given", what); goto out; }
    rc = 1;
    script_context(&c);
    if (ng_script_run(c.script, &c.h, &s, &err)) { ng_cli_fail(1, "%s", err.msg); goto out; }
    print(&s, c.script, stdout);
    ng_script_free(&s);
    rc = fflush(stdout) == 0 ? 0 : ng_cli_fail(1, "%s: cannot write the output", what);
out:
    ng_cli_free(&c);
    return rc;
}

static void print_meta(void *user, const char *key, const char *value)
{
    const char *v;
    (void)user;
    printf("%s: ", key);
    for (v = value; *v; v++) putchar(*v == '\n' ? ' ' : *v); /* one line each */
    putchar('\n');
}

/* info FILE, for a file noisegraph writes (by its extension): the text
 * metadata in it, the provenance first among them. */
static int info_file(const char *path)
{
    ng_error err;
    if (ng_file_meta(path, print_meta, NULL, &err)) return ng_cli_fail(1, "info: %s", err.msg);
    return fflush(stdout) == 0 ? 0 : ng_cli_fail(1, "info: cannot write the output");
}

static int cmd_info(int argc, char **argv)
{
    ng_error err;
    if (argc == 1 && ng_file_check(argv[0], 0, &err) == 0) return info_file(argv[0]);
    return cmd_inspect(NG_CMD_INFO, "info", argc, argv, ng_print_info);
}
static int cmd_dot(int argc, char **argv) { return cmd_inspect(NG_CMD_DOT, "dot", argc, argv, ng_print_dot); }

/* serve: the options, then the server (serve/) until SIGINT or SIGTERM */
static int cmd_serve(int argc, char **argv)
{
    ng_cli c;
    ng_serve_opts o;
    ng_error err;
    int rc;
    if ((rc = ng_cli_parse(NG_CMD_SERVE, argc, argv, &c))) goto out;
    rc = 2;
    if (!c.script) { ng_cli_fail(2, "serve: no SCRIPT given (see --help)"); goto out; }
    script_context(&c);
    memset(&o, 0, sizeof o);
    o.script = c.script, o.listen = c.listen, o.port = c.port;
    o.h = c.h, o.r = c.r, o.v = c.v, o.quiet = c.quiet;
    o.h.depth = 0; /* the page shows images */
    if ((rc = ng_serve_run(&o, &err))) ng_cli_fail(rc, "%s", err.msg);
out:
    ng_cli_free(&c);
    return rc;
}

/* ---- the program ------------------------------------------------------------------ */

/* The commands, in the order messages list them (args.c names them). */
static const struct command {
    ng_cmd cmd;
    int (*run)(int argc, char **argv);
} commands[] = {
    {NG_CMD_RENDER, cmd_render}, {NG_CMD_PREVIEW, cmd_preview}, {NG_CMD_NODES, cmd_nodes},
    {NG_CMD_INFO, cmd_info},     {NG_CMD_DOT, cmd_dot},         {NG_CMD_SERVE, cmd_serve},
    {NG_CMD_TILES, ng_cmd_tiles}, {NG_CMD_STITCH, ng_cmd_stitch},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* "(render, preview, ...; see --help)", for the messages of a missing or
 * unknown command. */
static const char *command_list(void)
{
    static char list[128];
    size_t i, used = 0;
    for (i = 0; i < NCOMMANDS; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "(",
                                 ng_cli_command_name(commands[i].cmd));
    snprintf(list + used, sizeof list - used, "; see --help)");
    return list;
}

int main(int argc, char **argv)
{
    ng_error err;
    size_t i;
    if (argc < 2) return ng_cli_fail(2, "no command %s", command_list());
    if (ng_cli_is_help(argv[1]) || !strcmp(argv[1], "help")) {
        ng_cli_usage(stdout);
        return 0;
    }
    if (ng_simd_check(&err)) return ng_cli_fail(2, "%s", err.msg);
    if (!strcmp(argv[1], "--version")) {
        printf("noisegraph %s (SIMD path: %s)\n", NG_VERSION, ng_simd_path());
        return 0;
    }
    for (i = 0; i < NCOMMANDS; i++) {
        int rc;
        if (strcmp(argv[1], ng_cli_command_name(commands[i].cmd))) continue;
        if ((rc = commands[i].run(argc - 2, argv + 2)) != NG_CLI_HELP) return rc;
        ng_cli_help(commands[i].cmd, stdout); /* noisegraph tiles --help, or with other words */
        return 0;
    }
    return ng_cli_fail(2, "%s: unknown command %s", argv[1], command_list());
}
