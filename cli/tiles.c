/*
 * tiles.c — `noisegraph tiles`: a render cut into a grid of tile files,
 * each a --region render of the whole image (so they stitch bit for bit),
 * with a plan of one shell command per tile for GNU parallel or a Slurm
 * job array, resumable records, a manifest and a GDAL VRT (tiles.h says
 * which file is where and who writes it).
 */
#include "tiles.h"

#include "args.h"
#include "host.h"
#include "json.h"
#include "tilefile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the job ---------------------------------------------------------------------- */

typedef struct job {
    ng_cli c;                 /* the options (ng_cli_parse): render's, --tile-size, --index, --plan */
    int argc;                 /* the command line, for the plan */
    char **argv;
    int cols, rows, ntiles;
    char *dir;                /* the tiles' folder, as -o names it ("." when none) */
    char *name_pattern;       /* -o's file name (after the last '/') as UTF-8 (malloc'd) */
    char script_sha[65], key[65];
    int channels;             /* of the script's output */
} job;

typedef struct rect {
    int x, y, w, h, col, row;
} rect;

static rect tile_rect(const job *j, int i)
{
    rect r;
    r.col = i % j->cols, r.row = i / j->cols;
    r.x = r.col * j->c.tile_size, r.y = r.row * j->c.tile_size;
    r.w = j->c.r.width - r.x < j->c.tile_size ? j->c.r.width - r.x : j->c.tile_size;
    r.h = j->c.r.height - r.y < j->c.tile_size ? j->c.r.height - r.y : j->c.tile_size;
    return r;
}

/* pattern with {x}, {y} and {i} replaced by the tile's column, row and
 * index (malloc'd; NULL without memory). */
static char *fill_pattern(const char *pattern, int col, int row, int index)
{
    static const char *const keys[3] = {"{x}", "{y}", "{i}"};
    const int values[3] = {col, row, index};
    size_t len = strlen(pattern) + 1, o = 0;
    const char *p;
    char *buf;
    for (p = pattern; *p; p++) len += *p == '{' ? 11 : 0; /* room for any int */
    if (!(buf = malloc(len))) return NULL;
    for (p = pattern; *p;) {
        int k, hit = 0;
        for (k = 0; k < 3 && !hit; k++)
            if (!strncmp(p, keys[k], 3)) {
                o += (size_t)snprintf(buf + o, len - o, "%d", values[k]);
                p += 3, hit = 1;
            }
        if (!hit) buf[o++] = *p++;
    }
    buf[o] = '\0';
    return buf;
}

/* a/b (malloc'd; NULL without memory) */
static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s/%s", a, b);
    return s;
}

static char *tile_name(const job *j, int i)
{
    rect r = tile_rect(j, i);
    return fill_pattern(j->name_pattern, r.col, r.row, i);
}

static char *tile_path(const job *j, int i)
{
    char *name = tile_name(j, i), *path = name ? join(j->dir, name) : NULL;
    free(name);
    return path;
}

/* .tiles/I.EXT in the tiles' folder */
static char *record_path(const job *j, int i, const char *ext)
{
    char name[64];
    snprintf(name, sizeof name, NG_TILES_RECORDS "/%d.%s", i, ext);
    return join(j->dir, name);
}

static const char *extension(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) ? dot : "";
}

/* ---- reading the command line ----------------------------------------------------- */

/* What a tiled render needs besides the options (ng_cli_parse checked
 * those, tiles' own included). */
static int check_given(const job *j)
{
    if (!j->c.script) return ng_cli_fail(2, "tiles: no SCRIPT given (see --help)");
    if (!j->c.output) return ng_cli_fail(2, "tiles: no output pattern given (-o 'out/tile_{x}_{y}.png')");
    return 0;
}

/* Whether two of {x}, {y}, {i} meet with only digits between them: the
 * numbers then run together and names repeat ("{x}{y}": column 1 of row
 * 11 and column 11 of row 1 are both "111"). With a non-digit between
 * each, the digits before it tell each number apart. */
static int placeholders_run_together(const char *name)
{
    const char *p = name;
    int seen = 0, apart = 1;
    while (*p) {
        if (*p == '{' && (!strncmp(p, "{x}", 3) || !strncmp(p, "{y}", 3) || !strncmp(p, "{i}", 3))) {
            if (seen && !apart) return 1;
            seen = 1, apart = 0, p += 3;
            continue;
        }
        if (*p < '0' || *p > '9') apart = 1;
        p++;
    }
    return 0;
}

/* The pattern names each tile apart ({x} and {y}, or {i}) in its file name
 * only, and a format a tile can be read back from. */
static int check_pattern(job *j)
{
    const char *out = j->c.output, *slash = strrchr(out, '/'), *name = slash ? slash + 1 : out;
    char *first;
    ng_error err;
    int rc = 0;
    if (slash && strchr(out, '{') && strchr(out, '{') < slash)
        return ng_cli_fail(2, "-o: %s: {x}, {y} and {i} belong in the file name, not in a folder", out);
    if (!((strstr(name, "{x}") && strstr(name, "{y}")) || strstr(name, "{i}")))
        return ng_cli_fail(2, "-o: %s: a tile's file name needs {x} and {y} (its column and row) or {i} (its index)",
                           out);
    if (placeholders_run_together(name))
        return ng_cli_fail(2, "-o: %s: put a separator that is not a digit between {x}, {y} and {i} (as in "
                              "tile_{x}_{y}): run together, two tiles' numbers can make the same name", out);
    if (strstr(out, "{name}") || strstr(out, "{z}") || strstr(out, "{frame}"))
        return ng_cli_fail(2, "-o: %s: tiles fills {x}, {y} and {i} only", out);
    /* any image format of the file sink; stitch reads those of its table
     * (ng_tile_readable) and says so of the others */
    if (!(first = fill_pattern(out, 0, 0, 0))) return ng_cli_fail(1, "tiles: out of memory");
    if (ng_file_check_depth(first, j->c.bits, 0, &err)) rc = ng_cli_fail(2, "%s", err.msg);
    free(first);
    /* A tile's name is written down as UTF-8 (the manifest's JSON, the
     * VRT's XML): a byte of no character is U+FFFD there, and so in the
     * file's own name, or the mosaic would name files that are not there.
     * Every process of a plan makes the same names from the same -o. */
    if (!rc && !(j->name_pattern = ng_json_utf8(name))) rc = ng_cli_fail(1, "tiles: out of memory");
    if (!rc && strcmp(j->name_pattern, name) && !j->c.quiet)
        fprintf(stderr, "noisegraph: -o: %s: a byte of no UTF-8 character in the file name is U+FFFD in the tiles' "
                        "names\n", j->name_pattern);
    j->dir = slash ? strndup(out, (size_t)(slash - out)) : strdup(".");
    if (!rc && !j->dir) rc = ng_cli_fail(1, "tiles: out of memory");
    if (!rc && !*j->dir) { /* "/tile_{i}.png": the root */
        free(j->dir);
        j->dir = strdup("/");
    }
    return rc;
}

static int parse_job(job *j, int argc, char **argv)
{
    int rc;
    j->argc = argc, j->argv = argv;
    if ((rc = ng_cli_parse(NG_CMD_TILES, argc, argv, &j->c))) return rc;
    if ((rc = check_given(j)) || (rc = check_pattern(j))) return rc;
    j->cols = (j->c.r.width + j->c.tile_size - 1) / j->c.tile_size;
    j->rows = (j->c.r.height + j->c.tile_size - 1) / j->c.tile_size;
    if ((long)j->cols * j->rows > INT_MAX / 2) return ng_cli_fail(2, "--tile-size: %d makes too many tiles", j->c.tile_size);
    j->ntiles = j->cols * j->rows;
    if (j->c.index >= j->ntiles)
        return ng_cli_fail(2, "--index: %ld: the %dx%d image has tiles 0 to %d (%d columns, %d rows of %d pixels)",
                           j->c.index, j->c.r.width, j->c.r.height, j->ntiles - 1, j->cols, j->rows, j->c.tile_size);
    return 0;
}

/* ---- the plan ------------------------------------------------------------------- */

/* word for sh: as it is when it holds only safe characters, else in
 * single quotes (a quote inside as '\''). */
static void put_word(FILE *out, const char *w)
{
    const char *p;
    int plain = *w != '\0';
    for (p = w; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=,:+@%", *p) != NULL;
    if (plain) {
        fputs(w, out);
        return;
    }
    fputc('\'', out);
    for (p = w; *p; p++)
        if (*p == '\'') fputs("'\\''", out);
        else fputc(*p, out);
    fputc('\'', out);
}

/* path made absolute against the current folder (malloc'd; NULL on
 * failure): a farm node runs the plan from any folder. */
static char *absolute(const char *path)
{
    char cwd[PATH_MAX];
    if (path[0] == '/') return strdup(path);
    if (!getcwd(cwd, sizeof cwd)) return NULL;
    return join(cwd, path);
}

/* Whether word k of the command line is one of those the plan says
 * itself: --tile-size and --index (with their values), --plan. */
static int plan_drops(const job *j, int k)
{
    const char *opt = j->c.option_of[k];
    return opt && (!strcmp(opt, "--tile-size") || !strcmp(opt, "--index") || !strcmp(opt, "--plan"));
}

/* One line per tile, tile I on line I + 1: this program, the script and
 * the pattern by absolute paths, the render options as given. */
static int print_plan(const job *j)
{
    char self[PATH_MAX], script[PATH_MAX], *output = absolute(j->c.output);
    const char *broken = NULL;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    int i, k, rc;
    if (n <= 0 || !realpath(j->c.script, script) || !output) {
        free(output);
        return ng_cli_fail(1, "%s: %s", j->c.script, strerror(errno));
    }
    self[n] = '\0';
    /* a newline, even quoted, splits a tile's command over two lines of
     * the plan, which parallel and the Slurm array read line by line */
    for (k = 0; k < j->argc && !broken; k++)
        if (strchr(j->argv[k], '\n')) broken = j->argv[k];
    if (!broken)
        broken = strchr(self, '\n') ? self : strchr(script, '\n') ? script : strchr(output, '\n') ? output : NULL;
    if (broken) {
        rc = ng_cli_fail(2, "--plan: '%s' holds a newline, which a plan's one line per tile cannot", broken);
        free(output); /* after the message: broken may be it */
        return rc;
    }
    for (i = 0; i < j->ntiles; i++) {
        put_word(stdout, self);
        fputs(" tiles", stdout);
        for (k = 0; k < j->argc; k++) {
            if (plan_drops(j, k)) continue;
            fputc(' ', stdout);
            put_word(stdout, j->argv[k] == j->c.script ? script : j->argv[k] == j->c.output ? output : j->argv[k]);
        }
        printf(" --tile-size %d --index %d\n", j->c.tile_size, i);
    }
    free(output);
    return fflush(stdout) == 0 ? 0 : ng_cli_fail(1, "tiles: cannot write the plan");
}

/* ---- files written whole ---------------------------------------------------------- */

/* text into path through a temporary beside it, synced and renamed: a
 * reader sees the old file or the new one, never a part. */
static int write_atomic(const char *path, const char *text, size_t len)
{
    char tmp[PATH_MAX + 64];
    FILE *fp;
    int bad, fd;
    mode_t mask = umask(0);
    umask(mask);
    /* mkstemp, not a name from the pid: farm nodes sharing the folder
     * can have the same pid, and O_EXCL keeps their temporaries apart */
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    if ((fd = mkstemp(tmp)) < 0) return ng_cli_fail(1, "%s: %s", tmp, strerror(errno));
    if (fchmod(fd, 0666 & ~mask) != 0 || !(fp = fdopen(fd, "wb"))) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return ng_cli_fail(1, "%s: %s", tmp, strerror(e));
    }
    bad = fwrite(text, 1, len, fp) != len;
    bad |= fflush(fp) != 0 || fsync(fileno(fp)) != 0;
    bad |= fclose(fp) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return ng_cli_fail(1, "%s: cannot write it: %s", path, strerror(e));
    }
    return 0;
}

static void put_xml_text(FILE *out, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
}

/* A text built by print(out, arg) into memory, then written whole. */
static int write_built(const char *path, void (*print)(FILE *, const job *, int), const job *j, int arg)
{
    char *text = NULL;
    size_t len = 0;
    int rc;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return ng_cli_fail(1, "%s: out of memory", path);
    print(mem, j, arg);
    if (fclose(mem) != 0) {
        free(text);
        return ng_cli_fail(1, "%s: out of memory", path);
    }
    rc = write_atomic(path, text, len);
    free(text);
    return rc;
}

/* v (a reference taken over; NULL: out of memory) into path as the text
 * of the JSON codec: one line, or the manifest's one member a line. */
static int write_json(const char *path, json_t *v, int lines)
{
    size_t len = 0;
    char *text = lines ? ng_json_text_lines(v, &len) : ng_json_text(v, &len);
    int rc = text ? write_atomic(path, text, len) : ng_cli_fail(1, "%s: out of memory", path);
    json_decref(v);
    free(text);
    return rc;
}

/* ---- what makes the pixels: the job's key ------------------------------------------- */

/* --bits, or the tiles' format's default (check_pattern checked both) */
static int effective_bits(const job *j) { return ng_file_bits(j->c.output, j->c.bits); }

/* Everything that changes a tile's bytes, one per line: the key is its
 * SHA-256. Two runs with the same key make the same files. */
static void print_identity(FILE *out, const job *j, int unused)
{
    const ng_render_opts *r = &j->c.r;
    int k;
    (void)unused;
    fprintf(out, "noisegraph %s tiles\nscript %s\nsize %dx%d\ntile %d\norigin %.17g %.17g\npixel %.17g\n", NG_VERSION,
            j->script_sha, r->width, r->height, j->c.tile_size, r->origin[0], r->origin[1], r->pixel_size);
    fprintf(out, "z %.17g\ntime %.17g\ndims %d\nperiod %.17g\ntileable %d\nfps %.17g\nbits %d\nname %s\n", r->z,
            r->time, r->dims, r->time_period, r->tileable, j->c.h.fps, effective_bits(j), j->name_pattern);
    /* the encoding, when not the default (the keys of earlier runs stay) */
    if (j->c.file.level != -1) fprintf(out, "level %d\n", j->c.file.level);
    if (j->c.file.exr_tile) fprintf(out, "exr_tile %d\n", j->c.file.exr_tile);
    if (j->c.file.exr_compression != NG_EXR_ZIP) fprintf(out, "exr_compression %d\n", (int)j->c.file.exr_compression);
    if (j->c.file.exr_dwa_level != -1) fprintf(out, "exr_dwa_level %.17g\n", j->c.file.exr_dwa_level);
    if (j->c.file.srs) fprintf(out, "srs %s\n", j->c.file.srs);
    if (j->c.file.nodata_set) fprintf(out, "nodata %.17g\n", j->c.file.nodata);
    if (j->c.file.cog) fprintf(out, "cog 1\n");
    if (j->c.normalize) fprintf(out, "normalize 1\n");
    for (k = 0; k < j->c.h.nsets; k++) fprintf(out, "set %s=%s\n", j->c.h.set_name[k], j->c.h.set_value[k]);
}

static int make_key(job *j)
{
    ng_sha256 s;
    ng_error err;
    char *text = NULL;
    size_t len = 0;
    FILE *mem;
    if (ng_sha256_file(j->c.script, "a Lua script", 0, j->script_sha, &err)) return ng_cli_fail(1, "%s", err.msg);
    if (!(mem = open_memstream(&text, &len))) return ng_cli_fail(1, "tiles: out of memory");
    print_identity(mem, j, 0);
    fclose(mem);
    ng_sha256_init(&s);
    ng_sha256_update(&s, text, len);
    ng_sha256_hex(&s, j->key);
    free(text);
    return 0;
}

/* ---- records: one per finished tile ----------------------------------------------- */

typedef struct record {
    json_t *doc;
    const char *file, *sha256; /* in doc */
} record;

/* Record text[0..len) parsed into rec (whose doc the caller frees either
 * way): 1 when it is the record of tile index named file of the job of
 * key, with a SHA-256 of 64 hex digits; else 0. */
static int parse_record(const char *text, size_t len, const char *key, const char *file, long index, record *rec)
{
    ng_error why;
    const char *k;
    long idx;
    memset(rec, 0, sizeof *rec);
    if (!(rec->doc = ng_json_parse(text, len, &why))) return 0;
    k = ng_json_str(rec->doc, "key");
    rec->file = ng_json_str(rec->doc, "file");
    rec->sha256 = ng_json_str(rec->doc, "sha256");
    return k && rec->file && rec->sha256 && !strcmp(k, key) && !strcmp(rec->file, file) &&
           strlen(rec->sha256) == 64 && strspn(rec->sha256, "0123456789abcdef") == 64 &&
           ng_json_int(rec->doc, "index", 0, INT_MAX, &idx) == 0 && idx == index;
}

int ng__tiles_record_matches(const char *text, size_t len, const char *key, const char *file, long index)
{
    record rec;
    const int ok = parse_record(text, len, key, file, index, &rec);
    json_decref(rec.doc);
    return ok;
}

/* Reads tile i's record; 1 when it is this job's (its key and file name),
 * 0 when there is none or another's, -1 (err filled) when a FIFO, device
 * or folder is where it belongs. Free rec->doc either way. */
static int read_record(const job *j, int i, record *rec, ng_error *err)
{
    char *path = record_path(j, i, "json"), *name = tile_name(j, i), *text = NULL;
    size_t n = 0;
    int ok = 0;
    memset(rec, 0, sizeof *rec);
    if (path && !(text = ng_file_read_all(path, "a tile record", NG_TILES_MAX_RECORD, &n, err)) &&
        (errno == EINVAL || errno == EISDIR))
        ok = -1;
    if (text && name) ok = parse_record(text, n, j->key, name, i, rec);
    free(text);
    free(path);
    free(name);
    return ok;
}

/* Tile i's record, once its file is written: the job's key, the tile's
 * place and file, and the file's SHA-256. */
static int write_record(const job *j, int i, const char *path)
{
    const rect r = tile_rect(j, i);
    char *name = tile_name(j, i), *tile = tile_path(j, i), sha[65];
    ng_error err;
    json_t *v;
    if (!tile || ng_sha256_file(tile, "a tile", ng_tile_max_bytes(r.w, r.h), sha, &err)) strcpy(sha, "unreadable");
    v = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o, s:s}", "key", j->key, "index", i, "column", r.col,
                  "row", r.row, "x", r.x, "y", r.y, "width", r.w, "height", r.h, "file", ng_json_string(name ? name : ""),
                  "sha256", sha);
    free(name);
    free(tile);
    return write_json(path, v, 0);
}

/* Whether tile i is done: its record is this job's and the file's bytes
 * are what it recorded (a corrupt or foreign file is not). -1 with err
 * when its record or the tile is a FIFO, a device or a folder. */
static int tile_done(const job *j, int i, ng_error *err)
{
    record rec;
    const rect r = tile_rect(j, i);
    char sha[65], *path = tile_path(j, i);
    int done = read_record(j, i, &rec, err);
    if (done == 1 && path) {
        if (ng_sha256_file(path, "a tile", ng_tile_max_bytes(r.w, r.h), sha, err) == 0) done = !strcmp(sha, rec.sha256);
        else done = errno == EINVAL || errno == EISDIR ? -1 : 0;
    }
    json_decref(rec.doc);
    free(path);
    return done;
}

/* ---- rendering a tile ---------------------------------------------------------------- */

static void print_note(void *user, const char *msg)
{
    (void)user;
    fprintf(stderr, "noisegraph: %s\n", msg);
}

/* How a tile is encoded: --compression, --exr-tiles, --exr-compression
 * as given, and each tile an image of its own (no placement in the whole). */
static int render_tile(job *j, ng_script *s, int i, int first)
{
    const rect t = tile_rect(j, i);
    char label[64], *path = tile_path(j, i), *rec = record_path(j, i, "json");
    ng_render_opts r = j->c.r;
    ng_file_options opt;
    ng_file_sink *file = NULL;
    ng_sink sink;
    ng_error err;
    int rc = 1;
    if (!path || !rec) {
        ng_cli_fail(1, "tiles: out of memory");
        goto done;
    }
    r.region[0] = t.x, r.region[1] = t.y, r.region[2] = t.w, r.region[3] = t.h;
    snprintf(label, sizeof label, "tile %d/%d", i + 1, j->ntiles);
    r.progress_label = label;
    r.progress = !j->c.quiet && isatty(2);
    r.note = !j->c.quiet && first ? print_note : NULL;
    /* the encoding options as given, and the tile's place in the image:
     * an .exr tile's data window is its rectangle, as a --region render's */
    opt = j->c.file;
    ng_file_options_place(&opt, &r);
    if (!(file = ng_file_sink_new(path, j->c.bits, &err)) || ng_file_sink_set_options(file, &opt, &err)) {
        ng_cli_fail(1, "%s", err.msg);
        goto done;
    }
    ng_file_sink_set_memory_limit(file, r.memory_limit);
    sink = ng_file_sink_as_sink(file);
    if (ng_render(s->graph, s->output, 1, &r, &sink, &err)) {
        ng_cli_fail(1, "tile %d (%s): %s", i, path, err.msg);
        goto done;
    }
    rc = write_record(j, i, rec);
done:
    ng_file_sink_free(file);
    free(path);
    free(rec);
    return rc;
}

/* ---- the mosaic: manifest and VRT ---------------------------------------------------- */

/* How GDAL reads the job's tiles, and its data type for their samples:
 * the format's row says (ng_file_vrt_source, ng_file_gdal_type). */
static ng_vrt_source source_of(const job *j) { return ng_file_vrt_source(j->c.output); }
static const char *gdal_type(const job *j) { return ng_file_gdal_type(j->c.output, effective_bits(j)); }

/* The bytes before a tile's samples: a PFM's three header lines, an
 * NRRD's header up to its blank line. */
static long header_bytes(const char *path, int nrrd)
{
    char buf[4096];
    uint64_t bytes;
    ng_error err;
    ssize_t n;
    size_t k;
    int lines = 0, fd = ng_file_open_read(path, "a tile", 0, &bytes, &err);
    if (fd < 0) return 0;
    n = read(fd, buf, sizeof buf);
    close(fd);
    if (n < 0) return 0;
    for (k = 0; k < (size_t)n; k++)
        if (buf[k] == '\n' && (nrrd ? k > 0 && buf[k - 1] == '\n' : ++lines == 3)) return (long)k + 1;
    return 0;
}

/* .tiles/I.vrt: a raw tile as GDAL reads it, channels interleaved. PFM
 * rows go bottom to top: the first line is the file's last, and lines
 * step backwards. */
static void print_raw_vrt(FILE *out, const job *j, int i)
{
    const rect r = tile_rect(j, i);
    const ng_vrt_source kind = source_of(j);
    const char *type = gdal_type(j);
    const int pfm = kind == NG_VRT_PFM, sample = strcmp(type, "Float32") ? 2 : 4, ch = j->channels;
    const long line = (long)r.w * sample * ch;
    char *name = tile_name(j, i), *path = tile_path(j, i);
    const long header = kind == NG_VRT_RAW ? 0 : header_bytes(path ? path : "", kind == NG_VRT_NRRD);
    const long start = header + (pfm ? (long)(r.h - 1) * line : 0);
    int b;
    fprintf(out, "<VRTDataset rasterXSize=\"%d\" rasterYSize=\"%d\">\n", r.w, r.h);
    for (b = 0; b < ch; b++) {
        fprintf(out, "  <VRTRasterBand dataType=\"%s\" band=\"%d\" subClass=\"VRTRawRasterBand\">\n", type,
                b + 1);
        fputs("    <SourceFilename relativeToVRT=\"1\">../", out);
        put_xml_text(out, name ? name : "");
        fprintf(out, "</SourceFilename>\n    <ImageOffset>%ld</ImageOffset>\n", start + (long)b * sample);
        fprintf(out, "    <PixelOffset>%d</PixelOffset>\n    <LineOffset>%ld</LineOffset>\n", sample * ch,
                pfm ? -line : line);
        fputs("    <ByteOrder>LSB</ByteOrder>\n  </VRTRasterBand>\n", out);
    }
    fputs("</VRTDataset>\n", out);
    free(name);
    free(path);
}

static void print_vrt(FILE *out, const job *j, int unused)
{
    const ng_render_opts *o = &j->c.r;
    const ng_vrt_source kind = source_of(j);
    int b, i;
    (void)unused;
    const int north = ng_file_north_up(j->c.output);
    fprintf(out, "<VRTDataset rasterXSize=\"%d\" rasterYSize=\"%d\">\n", o->width, o->height);
    /* pixel (i, j) covers origin + [i, i+1) * pixel_size (its centre is
     * sampled); y grows down the image, as world y does. GeoTIFF tiles
     * are north up (northing = -y): the mosaic is placed as they are,
     * in their SRS. */
    if (north) {
        fprintf(out, "  <GeoTransform>%.17g, %.17g, 0, %.17g, 0, %.17g</GeoTransform>\n", o->origin[0],
                o->pixel_size, -o->origin[1], -o->pixel_size);
        if (j->c.file.srs) {
            fputs("  <SRS>", out);
            put_xml_text(out, j->c.file.srs);
            fputs("</SRS>\n", out);
        }
    } else {
        fprintf(out, "  <GeoTransform>%.17g, %.17g, 0, %.17g, 0, %.17g</GeoTransform>\n", o->origin[0],
                o->pixel_size, o->origin[1], o->pixel_size);
    }
    for (b = 0; b < j->channels; b++) {
        fprintf(out, "  <VRTRasterBand dataType=\"%s\" band=\"%d\">\n", gdal_type(j), b + 1);
        if (north && j->c.file.nodata_set) fprintf(out, "    <NoDataValue>%.17g</NoDataValue>\n", j->c.file.nodata);
        if (j->channels == 3) fprintf(out, "    <ColorInterp>%s</ColorInterp>\n", b == 0 ? "Red" : b == 1 ? "Green" : "Blue");
        for (i = 0; i < j->ntiles; i++) {
            const rect r = tile_rect(j, i);
            char *name = tile_name(j, i);
            fputs("    <SimpleSource>\n      <SourceFilename relativeToVRT=\"1\">", out);
            if (kind == NG_VRT_NATIVE) put_xml_text(out, name ? name : "");
            else fprintf(out, NG_TILES_RECORDS "/%d.vrt", i);
            fprintf(out, "</SourceFilename>\n      <SourceBand>%d</SourceBand>\n", b + 1);
            fprintf(out, "      <SourceProperties RasterXSize=\"%d\" RasterYSize=\"%d\" DataType=\"%s\"/>\n", r.w, r.h,
                    gdal_type(j));
            fprintf(out, "      <SrcRect xOff=\"0\" yOff=\"0\" xSize=\"%d\" ySize=\"%d\"/>\n", r.w, r.h);
            fprintf(out, "      <DstRect xOff=\"%d\" yOff=\"%d\" xSize=\"%d\" ySize=\"%d\"/>\n", r.x, r.y, r.w, r.h);
            fputs("    </SimpleSource>\n", out);
            free(name);
        }
        fputs("  </VRTRasterBand>\n", out);
    }
    fputs("</VRTDataset>\n", out);
}

/* The --set values as "NAME=VALUE" strings; NULL without memory. */
static json_t *sets_json(const job *j)
{
    json_t *list = json_array();
    int k;
    for (k = 0; list && k < j->c.h.nsets; k++) {
        char *kv = malloc(strlen(j->c.h.set_name[k]) + strlen(j->c.h.set_value[k]) + 2);
        if (kv) sprintf(kv, "%s=%s", j->c.h.set_name[k], j->c.h.set_value[k]);
        if (!kv || json_array_append_new(list, ng_json_string(kv))) {
            json_decref(list);
            list = NULL;
        }
        free(kv);
    }
    return list;
}

/* Every tile's entry, as its record says it; NULL without memory. */
static json_t *tiles_json(const job *j)
{
    json_t *list = json_array();
    int i;
    for (i = 0; list && i < j->ntiles; i++) {
        record rec;
        const rect r = tile_rect(j, i);
        ng_error err;
        read_record(j, i, &rec, &err); /* each found this job's by finish() */
        if (json_array_append_new(list, json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o, s:s}", "index", i, "column",
                                                  r.col, "row", r.row, "x", r.x, "y", r.y, "width", r.w, "height", r.h,
                                                  "file", ng_json_string(rec.file ? rec.file : ""), "sha256",
                                                  rec.sha256 ? rec.sha256 : ""))) {
            json_decref(list);
            list = NULL;
        }
        json_decref(rec.doc);
    }
    return list;
}

static int write_manifest(const char *path, const job *j)
{
    const ng_render_opts *o = &j->c.r;
    char script[PATH_MAX];
    if (!realpath(j->c.script, script)) snprintf(script, sizeof script, "%s", j->c.script);
    return write_json(
        path,
        json_pack("{s:s, s:o, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:[o, o], s:o, s:o, s:o, s:i, s:o, s:b, s:s, s:i, "
                  "s:i, s:o, s:o, s:o}",
                  "noisegraph", NG_VERSION, "script", ng_json_string(script), "script_sha256", j->script_sha, "key",
                  j->key, "width", o->width, "height", o->height, "tile_size", j->c.tile_size, "columns", j->cols, "rows",
                  j->rows, "origin", ng_json_number(o->origin[0]), ng_json_number(o->origin[1]), "pixel_size",
                  ng_json_number(o->pixel_size), "z", ng_json_number(o->z), "time", ng_json_number(o->time), "dims",
                  o->dims, "time_period", ng_json_number(o->time_period), "tileable", o->tileable, "format",
                  extension(j->c.output) + 1, "bits", effective_bits(j), "channels", j->channels, "pattern",
                  ng_json_string(j->name_pattern), "sets", sets_json(j), "tiles", tiles_json(j)),
        1);
}

/* The script's name without folder or extension: the VRT's name. */
static char *vrt_path(const job *j)
{
    const char *slash = strrchr(j->c.script, '/'), *base = slash ? slash + 1 : j->c.script;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
    char *name = malloc(n + 5), *path;
    if (!name) return NULL;
    snprintf(name, n + 5, "%.*s.vrt", (int)n, base);
    path = join(j->dir, name);
    free(name);
    return path;
}

/* When every tile has this job's record, the manifest and the VRT (each
 * written whole; processes finishing at once write the same bytes). */
static int finish(const job *j)
{
    char *manifest, *vrt;
    int i, rc = 0;
    for (i = 0; i < j->ntiles; i++) {
        record rec;
        ng_error err;
        int ok = read_record(j, i, &rec, &err);
        json_decref(rec.doc);
        if (ok < 0) return ng_cli_fail(1, "%s", err.msg);
        if (!ok) return 0; /* another process renders it, or will */
    }
    if (source_of(j) != NG_VRT_NATIVE)
        for (i = 0; i < j->ntiles && rc == 0; i++) {
            char *path = record_path(j, i, "vrt");
            rc = path ? write_built(path, print_raw_vrt, j, i) : ng_cli_fail(1, "tiles: out of memory");
            free(path);
        }
    manifest = join(j->dir, NG_TILES_MANIFEST);
    vrt = vrt_path(j);
    if (rc == 0 && (!manifest || !vrt)) rc = ng_cli_fail(1, "tiles: out of memory");
    if (rc == 0) rc = write_built(vrt, print_vrt, j, 0);
    if (rc == 0) rc = write_manifest(manifest, j);
    free(manifest);
    free(vrt);
    return rc;
}

/* A manifest of another job in the folder goes before a tile changes, so
 * no manifest ever lists tiles that are no longer there. 0, or the exit
 * code 1 after the one-line error: a FIFO, device or folder is there. */
static int drop_stale_manifest(const job *j)
{
    char *path = join(j->dir, NG_TILES_MANIFEST);
    const char *key;
    ng_error err;
    json_t *doc = NULL;
    int rc = 0;
    if (path && access(path, F_OK) == 0) {
        errno = 0;
        doc = ng_json_load(path, NG_TILES_MAX_MANIFEST, "a tiles manifest", &err);
        /* a FIFO, device or folder named like it is an error, not removed */
        if (!doc && (errno == EINVAL || errno == EISDIR)) rc = ng_cli_fail(1, "%s", err.msg);
        else if (!(key = ng_json_str(doc, "key")) || strcmp(key, j->key)) unlink(path);
    }
    json_decref(doc);
    free(path);
    return rc;
}

/* ---- the command ------------------------------------------------------------------- */

/* mkdir -p of the tiles' folder and its records' (the folders of a
 * pattern are made, as render makes those of {name} and {z}). */
static int make_folders(const job *j)
{
    char *records = join(j->dir, NG_TILES_RECORDS);
    size_t k, n;
    int rc = 0;
    if (!records) return ng_cli_fail(1, "tiles: out of memory");
    n = strlen(records);
    for (k = 1; k <= n && rc == 0; k++) {
        if (records[k] != '/' && records[k] != '\0') continue;
        records[k] = '\0';
        if (mkdir(records, 0777) != 0 && errno != EEXIST)
            rc = ng_cli_fail(1, "%s: cannot create the folder: %s", records, strerror(errno));
        if (k < n) records[k] = '/';
    }
    free(records);
    return rc;
}

static int run_script(job *j, ng_script *s)
{
    ng_host_opts *h = &j->c.h;
    ng_error err;
    h->width = j->c.r.width, h->height = j->c.r.height, h->depth = 0;
    h->origin[0] = j->c.r.origin[0], h->origin[1] = j->c.r.origin[1];
    h->pixel_size = j->c.r.pixel_size;
    if (ng_script_run(j->c.script, h, s, &err)) return ng_cli_fail(1, "%s", err.msg);
    if (s->noutputs != 1) {
        const int n = s->noutputs; /* ng_script_free clears it */
        ng_script_free(s);
        return ng_cli_fail(1, "%s: returns %d outputs; tiles renders a script of one output", j->c.script, n);
    }
    j->c.r.memory_limit = h->memory_limit > (double)s->memory_held ? h->memory_limit - (double)s->memory_held : 1;
    if (ng_cli_normalize(&j->c, s)) {
        ng_script_free(s);
        return 1;
    }
    j->channels = ng_node_channels(ng_graph_node(s->graph, s->output[0]));
    return 0;
}

/* Renders the tiles asked for that are not done yet, one after another
 * (each with every thread), then the manifest if the set is complete. */
static int render_tiles(job *j)
{
    ng_script s;
    int i, first = 1, rc;
    if ((rc = make_key(j)) || (rc = make_folders(j))) return rc;
    ng_catch_signals();
    if ((rc = run_script(j, &s))) return rc;
    for (i = j->c.index < 0 ? 0 : (int)j->c.index; rc == 0 && i < (j->c.index < 0 ? j->ntiles : j->c.index + 1); i++) {
        ng_error err;
        const int done = tile_done(j, i, &err);
        if (done < 0) rc = ng_cli_fail(1, "%s", err.msg);
        if (done) continue;
        if (first && (rc = drop_stale_manifest(j))) break;
        rc = render_tile(j, &s, i, first);
        first = 0;
    }
    if (rc == 0) rc = finish(j);
    ng_script_free(&s);
    return rc;
}

int ng_cmd_tiles(int argc, char **argv)
{
    job j;
    int rc;
    memset(&j, 0, sizeof j);
    if ((rc = parse_job(&j, argc, argv)) == 0) rc = j.c.plan ? print_plan(&j) : render_tiles(&j);
    ng_cli_free(&j.c);
    free(j.dir);
    free(j.name_pattern);
    return rc;
}
