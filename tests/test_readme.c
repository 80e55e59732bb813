/*
 * test_readme.c — README.md is a tested file: its examples run and what it
 * says about nodes and options is what `noisegraph nodes` says. The README
 * is parsed here at test time; no example is copied into this file.
 *
 * The conventions the README follows (a failure names the README line):
 * - Code blocks are fenced as ```lua, ```sh, ```python or ```text. An
 *   indented code block is refused: a script in one would never be run.
 *   ```python blocks are run by tests/python/test_module.py (make
 *   test-python), those marked `<!-- blender -->` on the line before by
 *   Debian's Blender (make test-blender).
 * - Every ```lua block is a whole script and renders at 64x64 with exit 0,
 *   a silent stderr and a non-empty image. `<!-- file: NAME.lua -->` on the
 *   line before the block names the script, so a ```sh block can use it;
 *   `<!-- fragment -->` marks a block that is not a whole script: it is only
 *   compiled (by Lua's `load` inside a render), so its syntax is checked.
 *   `<!-- volume -->` (on either of the two lines before the block) marks a
 *   3D script: it renders as a 16x16x16 volume to .vdb instead.
 * - In a ```sh block, a line whose first word is noisegraph, build/noisegraph
 *   or build/opt/noisegraph runs NG_BIN in the directory that holds the Lua
 *   blocks' scripts. To keep it cheap, the value after `--size` becomes 64x64
 *   (16x16x16 for a volume's WxHxD, as after `--volume`) and a render or
 *   preview without --size gets `--size 64x64`. It must exit 0 with a
 *   silent stderr; a render must write its -o file, other commands print
 *   something. Such a line may not use pipes, redirections or variables.
 *   Other lines (make ...) are not run.
 * - Every `ng.NAME` in a prose code span exists in the ng table. In a span
 *   `ng.TYPE{a, b = ...}` or `ng.TYPE(a, b)` every bare name and key is an
 *   input or option of TYPE (or of the type behind the shorthand); in
 *   `n:METHOD(a)` the method exists and `a` is an input or option of it.
 * - `<!-- options: TYPE -->` before a table: the names in code spans in its
 *   first column are options or inputs of TYPE.
 * - The lines between `<!-- nodes: begin -->` and `<!-- nodes: end -->` are
 *   exactly the table generate_reference() makes from `noisegraph nodes`:
 *   every type, input and option with its default and range. To regenerate,
 *   run the suite with NG_README_NODES=FILE; it writes the table to FILE.
 */
#include "cli_support.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINES 4000
#define MAX_BLOCKS 64
#define MAX_TYPES 96
#define MAX_ENTRIES 32
#define RENDER_SIZE "64x64"
#define VOLUME_SIZE "16x16x16"
#define EM_DASH " \xe2\x80\x94 " /* "name spec — doc" in `noisegraph nodes` */

/* ---- README.md as lines and blocks -------------------------------------------------- */

static char *readme;                /* README.md, its lines NUL-terminated in place */
static char *lines[MAX_LINES + 1];  /* lines[i] is README line i + 1 */
static int nlines;
static char readme_path[PATHLEN];
static char scripts[PATHLEN];       /* the scratch directory the Lua blocks are written to */

typedef struct block {
    int line;        /* README line of the opening fence */
    char lang[16];   /* the fence's info string */
    char file[64];   /* from <!-- file: NAME -->, else readme-LINE.lua */
    int fragment;    /* <!-- fragment --> */
    int volume;      /* <!-- volume --> (on one of the two lines before): a 3D script */
    int first, last; /* content: lines[first .. last - 1] */
} block;

static block blocks[MAX_BLOCKS];
static int nblocks;

static int load_readme(void)
{
    size_t len, i;
    pathf(readme_path, "%s/README.md", ng_root);
    if (!(readme = (char *)slurp(readme_path, &len))) return -1;
    lines[nlines++] = readme;
    for (i = 0; i < len && nlines < MAX_LINES; i++) {
        if (readme[i] != '\n') continue;
        readme[i] = 0;
        if (i + 1 < len) lines[nlines++] = readme + i + 1;
    }
    return i < len ? -1 : 0;
}

/* The marker value of an HTML comment `<!-- key VALUE -->` on line i, or 0. */
static int marker(int i, const char *key, char *value, size_t size)
{
    size_t k = strlen(key), n;
    const char *s;
    if (i < 0 || strncmp(lines[i], "<!-- ", 5) != 0 || strncmp(lines[i] + 5, key, k) != 0) return 0;
    s = lines[i] + 5 + k;
    while (*s == ' ') s++;
    n = strlen(s);
    if (n < 3 || strcmp(s + n - 3, "-->") != 0) return 0;
    for (n -= 3; n && s[n - 1] == ' '; n--) {}
    snprintf(value, size, "%.*s", (int)n, s);
    return 1;
}

/* Finds the fenced blocks; a fence left open or an indented code block fails. */
static void test_code_blocks_are_fenced(void)
{
    int i;
    for (i = 0; i < nlines; i++) {
        block *b;
        char dummy[8];
        if (strncmp(lines[i], "    ", 4) == 0 && (i == 0 || !lines[i - 1][0]))
            ng_t_fail(__FILE__, __LINE__, "README.md:%d: an indented code block; fence it (```lua, ```sh or ```text)",
                      i + 1);
        if (strncmp(lines[i], "```", 3) != 0) continue;
        if (nblocks == MAX_BLOCKS) {
            ng_t_fail(__FILE__, __LINE__, "README.md: more than %d code blocks", MAX_BLOCKS);
            return;
        }
        b = &blocks[nblocks++];
        b->line = i + 1;
        snprintf(b->lang, sizeof b->lang, "%s", lines[i] + 3);
        if (!marker(i - 1, "file:", b->file, sizeof b->file)) snprintf(b->file, sizeof b->file, "readme-%d.lua", i + 1);
        b->fragment = marker(i - 1, "fragment", dummy, sizeof dummy);
        b->volume = marker(i - 1, "volume", dummy, sizeof dummy) || (i > 1 && marker(i - 2, "volume", dummy, sizeof dummy));
        b->first = i + 1;
        for (i++; i < nlines && strncmp(lines[i], "```", 3) != 0; i++) {}
        b->last = i;
        if (i == nlines) ng_t_fail(__FILE__, __LINE__, "README.md:%d: the code block is never closed", b->line);
    }
}

/* The block's text, lines joined with newlines; the caller frees it. */
static char *block_text(const block *b)
{
    size_t len = 1;
    int i;
    char *s;
    for (i = b->first; i < b->last; i++) len += strlen(lines[i]) + 1;
    if (!(s = malloc(len))) return NULL;
    s[0] = 0;
    for (i = b->first; i < b->last; i++) strcat(strcat(s, lines[i]), "\n");
    return s;
}

static int in_block(int i)
{
    int k;
    for (k = 0; k < nblocks; k++)
        if (i + 1 >= blocks[k].line && i <= blocks[k].last) return 1;
    return 0;
}

/* ---- `noisegraph nodes` as data ----------------------------------------------------- */

typedef struct entry {
    int input;       /* an input (else an option) */
    char name[48];
    char spec[480];  /* what follows the name, up to the doc: "number = 6, 0 to 32" */
} entry;

typedef struct ntype {
    char name[48];
    char also[400];  /* shorthands: "value, perlin, ..." */
    char dims[96];   /* "noise 1D 2D 3D 4D" */
    char calls[200]; /* methods and operators: "node:abs(...)", "__add" */
    entry e[MAX_ENTRIES];
    int ne;
} ntype;

static ntype types[MAX_TYPES];
static int ntypes;

static int copy(char *dst, size_t size, const char *src, size_t n)
{
    if (n >= size) {
        ng_t_fail(__FILE__, __LINE__, "`noisegraph nodes`: \"%.*s\" is longer than this test allows", (int)n, src);
        return -1;
    }
    memcpy(dst, src, n);
    dst[n] = 0;
    return 0;
}

static void parse_header(ntype *t, const char *s)
{
    const char *also = strstr(s, "(also "), *dims = strrchr(s, '[');
    copy(t->name, sizeof t->name, s, strcspn(s, " "));
    if (also) copy(t->also, sizeof t->also, also + 6, strcspn(also + 6, ")"));
    if (dims) copy(t->dims, sizeof t->dims, dims + 1, strcspn(dims + 1, "]"));
}

/* "  option NAME   SPEC — DOC" or "  input  NAME   SPEC — DOC" */
static void parse_entry(ntype *t, const char *s, int input)
{
    entry *e;
    const char *doc;
    size_t n;
    if (t->ne == MAX_ENTRIES) {
        ng_t_fail(__FILE__, __LINE__, "`noisegraph nodes %s`: more than %d options", t->name, MAX_ENTRIES);
        return;
    }
    e = &t->e[t->ne++];
    e->input = input;
    s += strspn(s, " ");
    n = strcspn(s, " ");
    copy(e->name, sizeof e->name, s, n);
    s += n + strspn(s + n, " ");
    doc = strstr(s, EM_DASH);
    copy(e->spec, sizeof e->spec, s, doc ? (size_t)(doc - s) : strlen(s));
}

static void add_call(ntype *t, const char *s)
{
    size_t used = strlen(t->calls);
    snprintf(t->calls + used, sizeof t->calls - used, "%s%s", used ? " " : "", s);
}

static void parse_nodes(const char *out)
{
    ntype *t = NULL;
    while (*out) {
        size_t n = strcspn(out, "\n");
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)n, out);
        out += n + (out[n] == '\n');
        if (!line[0]) continue;
        if (line[0] != ' ') {
            if (ntypes == MAX_TYPES) break;
            t = &types[ntypes++];
            parse_header(t, line);
        } else if (!t) {
            ng_t_fail(__FILE__, __LINE__, "`noisegraph nodes`: \"%s\" before any type", line);
        } else if (strncmp(line, "  option ", 9) == 0 || strncmp(line, "  input ", 8) == 0) {
            parse_entry(t, line + 8, line[2] == 'i');
        } else if (strncmp(line, "  method: ", 10) == 0) {
            add_call(t, line + 10);
        } else if (strncmp(line, "  operator: ", 12) == 0) {
            add_call(t, line + 12);
        } /* else a line of the type's doc */
    }
}

static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    const char *p;
    for (p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ',' || !p[n])) return 1;
    return 0;
}

/* The type a constructor name builds (its own name or a shorthand), or NULL. */
static const ntype *type_of(const char *name)
{
    int i;
    for (i = 0; i < ntypes; i++)
        if (strcmp(types[i].name, name) == 0 || in_list(types[i].also, name)) return &types[i];
    return NULL;
}

/* The type whose method `node:NAME(...)` is, or NULL. */
static const ntype *method_type(const char *name)
{
    char call[80];
    int i;
    snprintf(call, sizeof call, "node:%s(", name);
    for (i = 0; i < ntypes; i++)
        if (strstr(types[i].calls, call)) return &types[i];
    return NULL;
}

static int has_entry(const ntype *t, const char *name)
{
    int i;
    for (i = 0; i < t->ne; i++)
        if (strcmp(t->e[i].name, name) == 0) return 1;
    return 0;
}

/* ---- the reference table ---------------------------------------------------------------- */

/* Appends s to buf, with table pipes escaped if it is cell text. */
static void put_text(char *buf, size_t size, const char *s, int cell)
{
    size_t n = strlen(buf);
    for (; *s && n + 3 < size; s++) {
        if (cell && *s == '|') buf[n++] = '\\';
        buf[n++] = *s;
    }
    buf[n] = 0;
}

static void put_cell(char *buf, size_t size, const char *s) { put_text(buf, size, s, 1); }
static void put_rule(char *buf, size_t size, const char *s) { put_text(buf, size, s, 0); }

static void put_names(char *buf, size_t size, const char *list, const char *sep)
{
    char copy_[400], *save = NULL, *tok;
    snprintf(copy_, sizeof copy_, "%s", list);
    for (tok = strtok_r(copy_, sep, &save); tok; tok = strtok_r(NULL, sep, &save)) {
        put_cell(buf, size, " `");
        put_cell(buf, size, tok);
        put_cell(buf, size, "`");
    }
}

/* One row: | `name` (also `a` `b`) `node:m(...)` | dims | `opt` spec; ... | */
static void reference_row(const ntype *t, char *row, size_t size)
{
    int i;
    snprintf(row, size, "| `%s`", t->name);
    if (t->also[0]) {
        put_cell(row, size, " (also");
        put_names(row, size, t->also, ", ");
        put_cell(row, size, ")");
    }
    put_names(row, size, t->calls, " ");
    put_rule(row, size, " | ");
    put_cell(row, size, t->dims);
    put_rule(row, size, " |");
    for (i = 0; i < t->ne; i++) {
        put_cell(row, size, i ? "; `" : " `");
        put_cell(row, size, t->e[i].name);
        put_cell(row, size, "` ");
        put_cell(row, size, t->e[i].spec);
    }
    put_rule(row, size, " |");
}

/* The README's node reference, a line per entry of out[]; returns the count. */
static int generate_reference(char out[][4096], int max)
{
    int n = 0, i;
    snprintf(out[n++], 4096, "| node | family, dims | inputs and options: `name` kind = default, range |");
    snprintf(out[n++], 4096, "|---|---|---|");
    for (i = 0; i < ntypes && n < max; i++) reference_row(&types[i], out[n++], 4096);
    return n;
}

static int find_line(const char *prefix, int from)
{
    int i;
    for (i = from; i < nlines; i++)
        if (strncmp(lines[i], prefix, strlen(prefix)) == 0) return i;
    return -1;
}

static void write_reference(const char *path, char rows[][4096], int n)
{
    FILE *f = fopen(path, "w");
    int i;
    if (!f) {
        ng_t_fail(__FILE__, __LINE__, "cannot write NG_README_NODES=%s", path);
        return;
    }
    fprintf(f, "<!-- nodes: begin -->\n");
    for (i = 0; i < n; i++) fprintf(f, "%s\n", rows[i]);
    fprintf(f, "<!-- nodes: end -->\n");
    fclose(f);
}

/* Every type, input and option `noisegraph nodes` lists is in the README's
 * reference with the same default and range, and nothing else is. */
static void test_node_reference_matches_nodes_output(void)
{
    static char rows[MAX_TYPES + 2][4096];
    int n = generate_reference(rows, MAX_TYPES + 2), begin = find_line("<!-- nodes: begin", 0),
        end = find_line("<!-- nodes: end", begin + 1), i;
    const char *regen = "regenerate it: NG_README_NODES=nodes.md NG_BIN=$PWD/build/opt/noisegraph NG_ROOT=$PWD "
                        "build/opt/run_tests readme, then put nodes.md in place of the README's section";
    CHECK(ntypes >= 30); /* the parse of `noisegraph nodes` found the types */
    if (getenv("NG_README_NODES")) write_reference(getenv("NG_README_NODES"), rows, n);
    if (begin < 0 || end < 0) {
        ng_t_fail(__FILE__, __LINE__, "README.md has no <!-- nodes: begin --> ... <!-- nodes: end --> section; %s",
                  regen);
        return;
    }
    for (i = 0; i < n || begin + 1 + i < end; i++) {
        const char *have = begin + 1 + i < end ? lines[begin + 1 + i] : "(the end of the section)";
        const char *want = i < n ? rows[i] : "(the end of the section)";
        if (strcmp(have, want) == 0) continue;
        ng_t_fail(__FILE__, __LINE__,
                  "README.md:%d: the node reference differs from `noisegraph nodes`:\n    README: %s\n    nodes:  %s\n"
                  "  (%s)",
                  begin + 2 + i, have, want, regen);
        break;
    }
}

/* ---- names in prose --------------------------------------------------------------------- */

static int is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The length of the identifier at s (0 if none). */
static size_t ident(const char *s)
{
    size_t n = 0;
    if (!isalpha((unsigned char)s[0]) && s[0] != '_') return 0;
    while (is_ident_char(s[n])) n++;
    return n;
}

/* The length of the bracketed group at s ("{...}" or "(...)", nested), 0 if
 * unclosed. Square brackets are the signature notation of optional items. */
static size_t group(const char *s, const char *end)
{
    int depth = 0;
    const char *p;
    for (p = s; p < end; p++) {
        if (*p == '{' || *p == '(') depth++;
        if ((*p == '}' || *p == ')') && --depth == 0) return (size_t)(p - s) + 1;
    }
    return 0;
}

/* Checks each top-level item of args (without the brackets): a bare name or
 * a key is an input or option of t. Numbers, strings and `...` are values. */
static void check_items(int line, const char *call, const ntype *t, const char *args, size_t len)
{
    const char *p = args, *end = args + len;
    while (p < end) {
        const char *item = p;
        size_t n;
        int depth = 0;
        for (; p < end && (depth || *p != ','); p++) {
            if (*p == '{' || *p == '(') depth++;
            if (*p == '}' || *p == ')') depth--;
        }
        while (item < p && (isspace((unsigned char)*item) || *item == '[')) item++;
        n = ident(item);
        if (n) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)n, item);
            if (!has_entry(t, name))
                ng_t_fail(__FILE__, __LINE__, "README.md:%d: `%s` names '%s', which %s has not (see `noisegraph nodes %s`)",
                          line, call, name, t->name, t->name);
        }
        p++;
    }
}

static char ng_names[4096]; /* every ng.NAME in prose, " name" each */

static void note_ng_name(const char *name)
{
    char key[80];
    size_t used = strlen(ng_names);
    snprintf(key, sizeof key, " %s ", name);
    if (strstr(ng_names, key)) return;
    snprintf(ng_names + used, sizeof ng_names - used, " %s ", name);
}

/* `ng.NAME{...}` / `ng.NAME(...)` at s (s points after "ng."), inside a span ending at end. */
static void check_constructor(int line, const char *s, const char *end)
{
    char name[64], call[256];
    size_t n = ident(s), g;
    const ntype *t;
    if (!n) return;
    snprintf(name, sizeof name, "%.*s", (int)n, s);
    note_ng_name(name);
    if (!(t = type_of(name)) || (s[n] != '{' && s[n] != '(') || !(g = group(s + n, end))) return;
    snprintf(call, sizeof call, "ng.%.*s", (int)(n + g), s);
    check_items(line, call, t, s + n + 1, g - 2);
}

/* `n:METHOD(...)` at s (s points after the colon). */
static void check_method(int line, const char *s, const char *end)
{
    char name[64], call[256];
    size_t n = ident(s), g;
    const ntype *t;
    if (!n || s[n] != '(' || !(g = group(s + n, end))) return;
    snprintf(name, sizeof name, "%.*s", (int)n, s);
    snprintf(call, sizeof call, "n:%.*s", (int)(n + g), s);
    if (!strcmp(name, "named")) return; /* every node's own method (lua/ngmodule.c), no type's: its test is scripts' */
    if (!(t = method_type(name))) {
        ng_t_fail(__FILE__, __LINE__, "README.md:%d: `%s`: nodes have no method '%s'", line, call, name);
        return;
    }
    check_items(line, call, t, s + n + 1, g - 2);
}

static void check_span(int line, const char *s, const char *end)
{
    const char *p;
    for (p = s; p < end; p++) {
        if (strncmp(p, "ng.", 3) == 0 && (p == s || (!is_ident_char(p[-1]) && p[-1] != '.')))
            check_constructor(line, p + 3, end);
        else if (*p == ':' && p > s && is_ident_char(p[-1]))
            check_method(line, p + 1, end);
    }
}

/* Code spans of the prose; a span may continue on the next line of its paragraph. */
static void check_prose_spans(void)
{
    static char text[1 << 17];
    static int line_of[MAX_LINES];
    int i, nl = 0;
    size_t used = 0;
    const char *p, *open = NULL;
    for (i = 0; i < nlines; i++) {
        if (in_block(i)) continue;
        line_of[nl++] = i + 1;
        used += (size_t)snprintf(text + used, sizeof text - used, "%s\n", lines[i]);
        if (used >= sizeof text) {
            ng_t_fail(__FILE__, __LINE__, "README.md is longer than this test allows");
            return;
        }
    }
    for (p = text, nl = 0; *p; p++) {
        if (*p == '\n') nl++;
        if (*p != '`') continue;
        if (!open) {
            open = p + 1;
        } else {
            check_span(line_of[nl], open, p);
            open = NULL;
        }
    }
}

/* Tables marked <!-- options: TYPE -->: the first column names TYPE's options. */
static void check_option_tables(void)
{
    int i, r;
    for (i = 0; i < nlines; i++) {
        char name[64];
        const ntype *t;
        int checked = 0;
        if (!marker(i, "options:", name, sizeof name)) continue;
        if (!(t = type_of(name))) {
            ng_t_fail(__FILE__, __LINE__, "README.md:%d: no node type '%s'", i + 1, name);
            continue;
        }
        for (r = i + 3; r < nlines && lines[r][0] == '|'; r++) { /* past the header and the rule */
            const char *p = lines[r] + 1, *cell_end = strchr(p, '|');
            for (; cell_end && (p = strchr(p, '`')) && p < cell_end; p++) {
                const char *close = strchr(p + 1, '`');
                char opt[64];
                if (!close) break;
                snprintf(opt, sizeof opt, "%.*s", (int)(close - p - 1), p + 1);
                if (!has_entry(t, opt))
                    ng_t_fail(__FILE__, __LINE__, "README.md:%d: %s has no option '%s' (see `noisegraph nodes %s`)",
                              r + 1, t->name, opt, t->name);
                checked++;
                p = close;
            }
        }
        CHECKF(checked > 0, "README.md:%d: the options table after the marker names no option", i + 1);
    }
}

/* The names the README gives inputs and options are the real ones. */
static void test_prose_names_real_options(void)
{
    check_prose_spans();
    check_option_tables();
    CHECK(strstr(ng_names, " perlin ") != NULL); /* the scan saw the README's constructors */
}

/* Every ng.NAME the prose mentions (collected by the test before) exists in
 * a script's ng table. */
static void test_prose_names_real_functions(void)
{
    char script[PATHLEN], out[PATHLEN], list[8192] = "", text[9000], *save = NULL, *tok;
    res r;
    for (tok = strtok_r(ng_names, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "\"%s\", ", tok);
    }
    snprintf(text, sizeof text,
             "for _, k in ipairs{%s} do\n"
             "  if ng[k] == nil then error(\"README.md names ng.\" .. k .. \", which does not exist\", 0) end\n"
             "end\nreturn ng.constant(0)\n",
             list);
    mkscript(script, "names.lua", text);
    tpath(out, "names.png");
    cli(&r, "render", script, "-o", out, "--size", "8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
}

/* ---- running the blocks ----------------------------------------------------------------- */

static int nonempty_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* Regular non-empty files in dir. */
static int nonempty_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    char path[PATHLEN];
    if (!d) return 0;
    while ((e = readdir(d))) {
        pathf(path, "%s/%s", dir, e->d_name);
        n += nonempty_file(path);
    }
    closedir(d);
    return n;
}

/* A script that only compiles text (a fragment): a syntax error fails the render. */
static char *fragment_script(const char *text, int line)
{
    char eq[16] = "";
    size_t len = strlen(text) + 256, k;
    char *s = malloc(len), close_[24];
    for (k = 0; k + 1 < sizeof eq; k++) { /* a long bracket the text does not close */
        snprintf(close_, sizeof close_, "]%s]", eq);
        if (!strstr(text, close_)) break;
        strcat(eq, "=");
    }
    if (s)
        snprintf(s, len,
                 "local f, err = load([%s[\n%s]%s], \"=README.md, the block at line %d\")\n"
                 "if not f then error(err, 0) end\nreturn ng.constant(0)\n",
                 eq, text, eq, line);
    return s;
}

/* Writes every ```lua block into the scratch directory, under its name. */
static void write_scripts(void)
{
    int k;
    mksub(scripts, "readme");
    for (k = 0; k < nblocks; k++) {
        const block *b = &blocks[k];
        char path[PATHLEN], *text, *script;
        if (strcmp(b->lang, "lua") != 0) continue;
        text = block_text(b);
        script = text && b->fragment ? fragment_script(text, b->line) : text;
        pathf(path, "%s/%s", scripts, b->file);
        if (script) put_file(path, script);
        if (script != text) free(script);
        free(text);
    }
}

/* Code blocks are only ```lua, ```sh, ```python and ```text, so no script hides in another. */
static void test_code_blocks_are_known_kinds(void)
{
    int k, lua = 0;
    for (k = 0; k < nblocks; k++) {
        lua += strcmp(blocks[k].lang, "lua") == 0;
        CHECKF(strcmp(blocks[k].lang, "lua") == 0 || strcmp(blocks[k].lang, "sh") == 0 ||
                   strcmp(blocks[k].lang, "python") == 0 || strcmp(blocks[k].lang, "text") == 0,
               "README.md:%d: a code block fenced as \"%s\": use lua, sh, python or text", blocks[k].line,
               blocks[k].lang);
    }
    CHECK(lua >= 1);
}

/* Every Lua block renders (a fragment compiles) to a non-empty image. */
static void test_lua_blocks_render(void)
{
    int k;
    for (k = 0; k < nblocks; k++) {
        const block *b = &blocks[k];
        char script[PATHLEN], dir[PATHLEN], out[PATHLEN], sub[64];
        res r;
        if (strcmp(b->lang, "lua") != 0) continue;
        snprintf(sub, sizeof sub, "readme/out-%d", b->line);
        mksub(dir, sub);
        pathf(script, "%s/%s", scripts, b->file);
        pathf(out, "%s/out.%s", dir, b->volume ? "vdb" : "png");
        cli(&r, "render", script, "-o", out, "--size", b->volume ? VOLUME_SIZE : RENDER_SIZE, NULL);
        if (r.code != 0 || r.nerr)
            ng_t_fail(__FILE__, __LINE__, "README.md:%d: the Lua block fails: exit %d; stderr: %s", b->line, r.code,
                      r.err);
        else
            CHECKF(nonempty_files(dir) >= 1, "README.md:%d: the Lua block rendered no image", b->line);
        res_free(&r);
    }
}

static int runs_program(const char *word)
{
    return strcmp(word, "noisegraph") == 0 || strcmp(word, "build/noisegraph") == 0 ||
           strcmp(word, "build/opt/noisegraph") == 0;
}

/* Splits a command line into words (quotes group, # starts a comment);
 * returns the count, or -1 if it needs a shell (pipes, redirections, variables). */
static int split_words(char *s, char **words, int max)
{
    int n = 0;
    while (*s) {
        char quote = 0, *w = s, *o = s;
        while (isspace((unsigned char)*s)) s++;
        if (!*s || *s == '#') break;
        for (w = o = s; *s && (quote || !isspace((unsigned char)*s)); s++) {
            if (!quote && strchr("|<>;&$`\\", *s)) return -1;
            if (quote ? *s == quote : (*s == '\'' || *s == '"')) quote = quote ? 0 : *s;
            else *o++ = *s;
        }
        if (*s) s++;
        *o = 0;
        if (n + 1 < max) words[n++] = w;
    }
    words[n] = NULL;
    return n;
}

/* Runs one README command in the scripts' directory; the size made cheap. */
static void run_command(int line, char *text)
{
    char *words[40];
    const char *args[44];
    int n = split_words(text, words, 36), i, sized = 0, render;
    const char *output = NULL;
    res r;
    if (n < 0) {
        ng_t_fail(__FILE__, __LINE__, "README.md:%d: a run command uses the shell (pipe, redirection, variable)", line);
        return;
    }
    if (n == 0 || !runs_program(words[0])) return;
    render = n > 1 && (strcmp(words[1], "render") == 0 || strcmp(words[1], "preview") == 0);
    for (i = 1; i < n; i++) {
        args[i - 1] = words[i];
        if ((strcmp(words[i], "--size") == 0 || strcmp(words[i], "--volume") == 0) && i + 1 < n) {
            const char *x = strchr(words[i + 1], 'x');
            words[i + 1] = x && strchr(x + 1, 'x') ? VOLUME_SIZE : RENDER_SIZE;
            sized |= strcmp(words[i], "--size") == 0;
        }
        if ((strcmp(words[i], "-o") == 0 || strcmp(words[i], "--output") == 0) && i + 1 < n) output = words[i + 1];
    }
    n--;
    if (render && !sized) args[n++] = "--size", args[n++] = RENDER_SIZE;
    args[n] = NULL;
    run_argv(&r, DEFAULT_TIMEOUT, args);
    if (r.code != 0 || r.nerr)
        ng_t_fail(__FILE__, __LINE__, "README.md:%d: the command fails: exit %d; stderr: %s", line, r.code, r.err);
    else if (render)
        CHECKF(output && (strchr(output, '{') || nonempty_file(output)), "README.md:%d: the render wrote no %s", line,
               output ? output : "-o file");
    else
        CHECKF(r.nout > 0, "README.md:%d: the command printed nothing", line);
    res_free(&r);
}

/* The noisegraph commands of ```sh blocks run, against the Lua blocks' scripts. */
static void test_sh_commands_run(void)
{
    char cwd[PATHLEN];
    int k, i, ran = 0;
    if (!getcwd(cwd, sizeof cwd) || chdir(scripts) != 0) {
        ng_t_fail(__FILE__, __LINE__, "cannot change to %s", scripts);
        return;
    }
    for (k = 0; k < nblocks; k++) {
        if (strcmp(blocks[k].lang, "sh") != 0) continue;
        for (i = blocks[k].first; i < blocks[k].last; i++) {
            char text[1024], *words[40];
            snprintf(text, sizeof text, "%s", lines[i]);
            if (split_words(text, words, 36) > 0 && runs_program(words[0])) ran++;
            snprintf(text, sizeof text, "%s", lines[i]);
            run_command(i + 1, text);
        }
    }
    if (chdir(cwd) != 0) ng_t_fail(__FILE__, __LINE__, "cannot change back to %s", cwd);
    CHECK(ran >= 1);
}

static void test_readme_environment(void)
{
    ng_t_fail(__FILE__, __LINE__, "NG_BIN and NG_ROOT must name the program and the repository (run `make test`)");
}

NG_SUITE(readme, fast)
{
    res r;
    if (cli_setup("ngreadme")) {
        RUN(test_readme_environment);
        return;
    }
    if (load_readme()) ng_t_fail(__FILE__, __LINE__, "cannot read %s", readme_path);
    cli(&r, "nodes", NULL);
    if (r.code != 0) ng_t_fail(__FILE__, __LINE__, "`noisegraph nodes` failed: exit %d: %s", r.code, r.err);
    parse_nodes(r.out);
    res_free(&r);
    RUN(test_code_blocks_are_fenced);
    write_scripts();
    RUN(test_code_blocks_are_known_kinds);
    RUN(test_lua_blocks_render);
    RUN(test_sh_commands_run);
    RUN(test_prose_names_real_options);
    RUN(test_prose_names_real_functions);
    RUN(test_node_reference_matches_nodes_output);
    free(readme);
    cli_teardown();
}
