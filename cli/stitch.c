/*
 * stitch.c — `noisegraph stitch MANIFEST -o FILE`: the tiles a manifest
 * lists (tiles.h), checked whole before anything is written, streamed into
 * one file by ng_stitch (io/tileread.c) in bounded memory. The file is
 * written through the file sink: any failure leaves nothing.
 */
#include "tiles.h"

#include "args.h"
#include "json.h"
#include "tilefile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>


/* What a manifest says, checked. */
typedef struct mosaic {
    json_t *doc;
    char *dir;            /* the manifest's folder: tiles are beside it */
    long width, height, tile, cols, rows, bits;
    double origin[2], pixel_size; /* the world the image samples */
    const char *key, *script_sha, *format;
    int ntiles;
    const json_t **slot;  /* slot[i]: tile i's entry (in doc) */
    ng_stitch_tile *tiles;
    char **paths;         /* tiles[i].path, owned */
} mosaic;

/* What stitch needs besides the options (ng_cli_parse checked those):
 * the manifest, and an output of a format it knows. */
static int check_given(const ng_cli *c)
{
    ng_error err;
    if (!c->manifest) return ng_cli_fail(2, "stitch: no MANIFEST given (out/manifest.json)");
    if (!c->output) return ng_cli_fail(2, "stitch: no output file given (-o FILE)");
    if (ng_file_check_options(c->output, &c->file, &err)) return ng_cli_fail(2, "%s", err.msg);
    return 0;
}

static void mosaic_free(mosaic *m)
{
    int i;
    for (i = 0; m->paths && i < m->ntiles; i++) free(m->paths[i]);
    free(m->paths);
    free(m->tiles);
    free(m->slot);
    free(m->dir);
    json_decref(m->doc);
}

static int is_sha(const char *s)
{
    size_t k;
    if (!s || strlen(s) != 64) return 0;
    for (k = 0; k < 64; k++)
        if (!strchr("0123456789abcdef", s[k])) return 0;
    return 1;
}

/* The world: origin [x, y] and pixel_size, numbers. 0, or -1. */
static int read_world(mosaic *m)
{
    const json_t *origin = json_object_get(m->doc, "origin"), *pixel = json_object_get(m->doc, "pixel_size");
    if (json_array_size(origin) != 2 || !json_is_number(json_array_get(origin, 0)) ||
        !json_is_number(json_array_get(origin, 1)) || !json_is_number(pixel) || !(json_number_value(pixel) > 0))
        return -1;
    m->origin[0] = json_number_value(json_array_get(origin, 0)), m->origin[1] = json_number_value(json_array_get(origin, 1));
    m->pixel_size = json_number_value(pixel);
    return 0;
}

/* The header fields: the grid they make. */
static int read_grid(const char *path, mosaic *m)
{
    ng_error err;
    char probe[16];
    if (ng_json_int(m->doc, "width", 1, NG_MAX_EXTENT, &m->width) || ng_json_int(m->doc, "height", 1, NG_MAX_EXTENT, &m->height) ||
        ng_json_int(m->doc, "tile_size", 1, NG_MAX_EXTENT, &m->tile) || ng_json_int(m->doc, "columns", 1, NG_MAX_EXTENT, &m->cols) ||
        ng_json_int(m->doc, "rows", 1, NG_MAX_EXTENT, &m->rows) || ng_json_int(m->doc, "bits", 0, 32, &m->bits) ||
        !(m->format = ng_json_str(m->doc, "format")) || !(m->key = ng_json_str(m->doc, "key")) ||
        !(m->script_sha = ng_json_str(m->doc, "script_sha256")) || !json_is_array(json_object_get(m->doc, "tiles")) ||
        read_world(m))
        return ng_cli_fail(1, "%s: not a tiles manifest (width, height, tile_size, columns, rows, format, bits, key, "
                              "script_sha256, origin, pixel_size and tiles are needed)", path);
    /* the tiles' format and depth, as a tile file of theirs would be checked */
    if (m->bits != 8 && m->bits != 16 && m->bits != 32)
        return ng_cli_fail(1, "%s: bits %ld: a tile's samples have 8, 16 or 32 bits", path, m->bits);
    if (strlen(m->format) > 8 || strchr(m->format, '.') || strchr(m->format, '/') ||
        snprintf(probe, sizeof probe, "t.%s", m->format) < 0 || !ng_tile_readable(probe) ||
        ng_file_check(probe, (int)m->bits, &err))
        return ng_cli_fail(1, "%s: format \"%.16s\" with %ld bits is not one of tiles stitch reads (png 8 or 16, "
                              "r16 and raw 16, pfm 32, exr 16 or 32)", path, m->format, m->bits);
    if (m->cols != (m->width + m->tile - 1) / m->tile || m->rows != (m->height + m->tile - 1) / m->tile ||
        m->cols * m->rows > INT_MAX / 2)
        return ng_cli_fail(1, "%s: %ld columns and %ld rows of %ld pixels do not make the %ldx%ld image", path, m->cols,
                           m->rows, m->tile, m->width, m->height);
    m->ntiles = (int)(m->cols * m->rows);
    return 0;
}

/* Each entry in its place on the grid: one per tile, at the tile's
 * rectangle; none overlapping, none missing. */
static int place_tiles(const char *path, mosaic *m)
{
    const json_t *list = json_object_get(m->doc, "tiles"), *t;
    size_t e;
    int i;
    if (!(m->slot = calloc((size_t)m->ntiles, sizeof *m->slot))) return ng_cli_fail(1, "stitch: out of memory");
    json_array_foreach(list, e, t) {
        const char *file = ng_json_str(t, "file"), *dot;
        long idx, x, y, w, h, gx, gy;
        if (ng_json_int(t, "index", 0, INT_MAX, &idx) || ng_json_int(t, "x", 0, INT_MAX, &x) ||
            ng_json_int(t, "y", 0, INT_MAX, &y) || ng_json_int(t, "width", 1, INT_MAX, &w) ||
            ng_json_int(t, "height", 1, INT_MAX, &h) || !file || !*file || strchr(file, '/') ||
            !is_sha(ng_json_str(t, "sha256")))
            return ng_cli_fail(1, "%s: tile entry %zu is not index, x, y, width, height, file (a name beside the "
                                  "manifest) and sha256", path, e);
        if (idx >= m->ntiles)
            return ng_cli_fail(1, "%s: %s: tile %ld is past the grid's %d tiles", path, file, idx, m->ntiles);
        if (!(dot = strrchr(file, '.')) || strcasecmp(dot + 1, m->format))
            return ng_cli_fail(1, "%s: %s: tile %ld is not a .%s file, as the manifest's format says: a mosaic is "
                                  "of one format", path, file, idx, m->format);
        gx = idx % m->cols * m->tile, gy = idx / m->cols * m->tile;
        if (x != gx || y != gy || w != (m->width - gx < m->tile ? m->width - gx : m->tile) ||
            h != (m->height - gy < m->tile ? m->height - gy : m->tile))
            return ng_cli_fail(1, "%s: %s: tile %ld at %ld,%ld (%ldx%ld) is not the grid's tile %ld at %ld,%ld: it would "
                                  "overlap its neighbours or leave a gap", path, file, idx, x, y, w, h, idx, gx, gy);
        if (m->slot[idx])
            return ng_cli_fail(1, "%s: %s and %s are both tile %ld at %ld,%ld: they overlap", path,
                               ng_json_str(m->slot[idx], "file"), file, idx, x, y);
        m->slot[idx] = t;
    }
    for (i = 0; i < m->ntiles; i++)
        if (!m->slot[i])
            return ng_cli_fail(1, "%s: tile %d (column %ld, row %ld) is missing", path, i, i % m->cols, i / m->cols);
    return 0;
}

/* The manifest text[0..len) as stitch takes it before opening a tile:
 * JSON, a grid that makes the image, one entry per tile in its place, one
 * format and depth. 0, or the exit code after the one-line error. */
static int check_manifest(const char *path, const char *text, size_t len, mosaic *m)
{
    ng_error why;
    int rc;
    if (!(m->doc = ng_json_parse(text, len, &why)))
        return ng_cli_fail(1, "%s: not a tiles manifest (%s)", path, why.msg);
    if ((rc = read_grid(path, m))) return rc;
    /* every entry holds a 64-digit checksum: a grid of more tiles than
     * that leaves room for is not listed (and no slot is made for it) */
    if ((uint64_t)m->ntiles * 64 > len)
        return ng_cli_fail(1, "%s: a grid of %d tiles cannot be listed in its %zu bytes", path, m->ntiles, len);
    return place_tiles(path, m);
}

int ng__stitch_check_manifest(const char *text, size_t len, const char *name)
{
    mosaic m;
    int rc;
    memset(&m, 0, sizeof m);
    rc = check_manifest(name, text, len, &m);
    mosaic_free(&m);
    return rc;
}

static int read_manifest(const char *path, mosaic *m)
{
    ng_error err;
    size_t n;
    int rc;
    char *text = ng_file_read_all(path, "a tiles manifest", NG_TILES_MAX_MANIFEST, &n, &err);
    if (!text) return ng_cli_fail(1, "%s", err.msg);
    rc = check_manifest(path, text, n, m);
    free(text);
    return rc;
}

/* The record tile i's render left beside it, if any, must be this
 * manifest's job: a tile of another script or other parameters is not. */
static int check_record(const mosaic *m, int i, const char *file, const char *manifest)
{
    char path[PATH_MAX];
    const char *key;
    ng_error err;
    json_t *rec; /* none, unreadable or too long: no record of ours */
    int rc = 0;
    snprintf(path, sizeof path, "%s/" NG_TILES_RECORDS "/%d.json", m->dir, i);
    /* a FIFO or a device where a record belongs is refused, not waited on */
    if (!(rec = ng_json_load(path, NG_TILES_MAX_RECORD, "a tile record", &err)) && (errno == EINVAL || errno == EISDIR))
        return ng_cli_fail(1, "%s", err.msg);
    if ((key = ng_json_str(rec, "key")) && strcmp(key, m->key))
        rc = ng_cli_fail(1, "%s/%s: rendered by another job than %s (another script or other parameters: its "
                            "record's key differs)", m->dir, file, manifest);
    json_decref(rec);
    return rc;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Every tile: there, its record this job's, its format and size, its
 * channels those of the first, its bytes those the manifest lists. */
static int check_tiles(const ng_cli *a, mosaic *m)
{
    int i, channels = 0;
    if (!(m->tiles = calloc((size_t)m->ntiles, sizeof *m->tiles)) || !(m->paths = calloc((size_t)m->ntiles, sizeof *m->paths)))
        return ng_cli_fail(1, "stitch: out of memory");
    for (i = 0; i < m->ntiles; i++) {
        const json_t *t = m->slot[i];
        const char *file = ng_json_str(t, "file");
        size_t len = strlen(m->dir) + strlen(file) + 2;
        char sha[65];
        ng_error err;
        int ch, bits;
        long v;
        if (!(m->paths[i] = malloc(len))) return ng_cli_fail(1, "stitch: out of memory");
        snprintf(m->paths[i], len, "%s/%s", m->dir, file);
        m->tiles[i].path = m->paths[i];
        ng_json_int(t, "x", 0, INT_MAX, &v), m->tiles[i].x = (int)v;
        ng_json_int(t, "y", 0, INT_MAX, &v), m->tiles[i].y = (int)v;
        ng_json_int(t, "width", 0, INT_MAX, &v), m->tiles[i].width = (int)v;
        ng_json_int(t, "height", 0, INT_MAX, &v), m->tiles[i].height = (int)v;
        if (check_record(m, i, file, a->manifest)) return 1;
        if (same_file(a->output, m->paths[i])) return ng_cli_fail(1, "%s: is tile %d itself; choose another output", a->output, i);
        if (ng_tile_probe(&m->tiles[i], (int)m->width, (int)m->height, &ch, &bits, &err))
            return ng_cli_fail(1, "%s (tile %d)", err.msg, i);
        if (bits != m->bits)
            return ng_cli_fail(1, "%s: holds %d-bit samples; %s says %ld (tile %d): a mosaic is of one depth",
                               m->paths[i], bits, a->manifest, m->bits, i);
        if (i == 0) channels = ch;
        if (ng_json_int(m->doc, "channels", 1, 3, &v) == 0 && ch != v)
            return ng_cli_fail(1, "%s: has %d channel%s; %s says %ld (tile %d)", m->paths[i], ch, ch == 1 ? "" : "s",
                               a->manifest, v, i);
        if (ch != channels)
            return ng_cli_fail(1, "%s: has %d channel%s; tile 0 has %d (tile %d)", m->paths[i], ch, ch == 1 ? "" : "s",
                               channels, i);
        if (ng_sha256_file(m->paths[i], "a tile", ng_tile_max_bytes(m->tiles[i].width, m->tiles[i].height), sha, &err))
            return ng_cli_fail(1, "%s", err.msg);
        if (strcmp(sha, ng_json_str(t, "sha256")))
            return ng_cli_fail(1, "%s: its bytes are not those %s lists (a corrupt tile, or one of another render; "
                                  "re-run the tiles command to redo it)", m->paths[i], a->manifest);
    }
    return 0;
}

static int check_script(const ng_cli *a, const mosaic *m)
{
    char sha[65];
    ng_error err;
    if (!a->source_script) return 0;
    if (ng_sha256_file(a->source_script, "a Lua script", 0, sha, &err)) return ng_cli_fail(1, "%s", err.msg);
    if (strcmp(sha, m->script_sha))
        return ng_cli_fail(1, "%s: was made from another script than %s (its sha256 differs)", a->manifest, a->source_script);
    return 0;
}

/* ng_stitch reads a row of tiles at once, every tile of it open: a grid
 * of many columns (a 65536-wide image in 64-pixel tiles: 1024) needs more
 * descriptors than the usual soft limit of 1024. Raised, up to the hard
 * limit, to what the columns need; past that the tile that cannot be
 * opened is named. */
static void allow_open_tiles(long columns)
{
    struct rlimit l;
    const rlim_t want = (rlim_t)columns + 64; /* the output, the standard streams, libraries */
    if (getrlimit(RLIMIT_NOFILE, &l) != 0 || l.rlim_cur == RLIM_INFINITY || l.rlim_cur >= want) return;
    l.rlim_cur = l.rlim_max != RLIM_INFINITY && l.rlim_max < want ? l.rlim_max : want;
    setrlimit(RLIMIT_NOFILE, &l);
}

static int write_mosaic(const ng_cli *a, mosaic *m)
{
    ng_file_options opt;
    ng_file_sink *file;
    ng_sink sink;
    ng_error err;
    int bits = a->bits, rc = 0;
    if (!bits && ng_file_check(a->output, (int)m->bits, &err) == 0) bits = (int)m->bits; /* the tiles' depth */
    if (ng_file_check(a->output, bits, &err)) return ng_cli_fail(2, "%s", err.msg);
    if (same_file(a->output, a->manifest)) return ng_cli_fail(1, "%s: is the manifest itself; choose another output", a->output);
    /* placed as a single render of the whole image is: an .exr's windows
     * and world attributes are that render's */
    opt = a->file;
    opt.full[0] = (int)m->width, opt.full[1] = (int)m->height;
    opt.offset[0] = opt.offset[1] = 0;
    opt.origin[0] = m->origin[0], opt.origin[1] = m->origin[1];
    opt.pixel_size = m->pixel_size;
    if (!(file = ng_file_sink_new(a->output, bits, &err))) return ng_cli_fail(1, "%s", err.msg);
    if (ng_file_sink_set_options(file, &opt, &err)) {
        ng_file_sink_free(file);
        return ng_cli_fail(2, "%s", err.msg);
    }
    sink = ng_file_sink_as_sink(file);
    allow_open_tiles(m->cols);
    if (ng_stitch(m->tiles, m->ntiles, (int)m->width, (int)m->height, &sink, &err)) rc = ng_cli_fail(1, "%s", err.msg);
    ng_file_sink_free(file);
    return rc;
}

int ng_cmd_stitch(int argc, char **argv)
{
    ng_cli a;
    mosaic m;
    const char *slash;
    int rc;
    memset(&m, 0, sizeof m);
    if ((rc = ng_cli_parse(NG_CMD_STITCH, argc, argv, &a)) || (rc = check_given(&a))) {
        ng_cli_free(&a);
        return rc;
    }
    slash = strrchr(a.manifest, '/');
    m.dir = slash ? (slash == a.manifest ? strdup("/") : strndup(a.manifest, (size_t)(slash - a.manifest))) : strdup(".");
    if (!m.dir) rc = ng_cli_fail(1, "stitch: out of memory");
    ng_catch_signals();
    if (!rc && !(rc = read_manifest(a.manifest, &m)) && !(rc = check_script(&a, &m)) && !(rc = check_tiles(&a, &m)))
        rc = write_mosaic(&a, &m);
    mosaic_free(&m);
    ng_cli_free(&a);
    return rc;
}
