/*
 * test_volfiles.c — volumes in plain files: .nrrd read back with a parser of
 * our own (every header field, the data against ng_eval_points at the voxel
 * centres, exact float bits), {z} slice sequences (names, zero padding,
 * each slice the matching plane of the volume, nothing left by a failure
 * or a signal), and the output folders the program makes or refuses.
 */
#include "ng_io.h"
#include "build.h"
#include "cli_support.h"
#include "noisegraph.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* ---- reading NRRD back ------------------------------------------------------------ */

#define MAX_FIELDS 24

typedef struct nrrd {
    char magic[16];
    int nfields;
    char key[MAX_FIELDS][32], value[MAX_FIELDS][160];
    unsigned char *file;
    size_t size, data; /* the whole file; where the data starts */
} nrrd;

/* Splits the header into "key: value" lines up to the blank line. 0, or -1
 * when the file is not a well-formed attached header. */
static int read_nrrd(const char *path, nrrd *n)
{
    size_t at = 0;
    memset(n, 0, sizeof *n);
    if (!(n->file = slurp(path, &n->size))) return -1;
    for (;;) {
        char line[256];
        const char *nl = memchr(n->file + at, '\n', n->size - at), *colon;
        size_t len;
        if (!nl || (len = (size_t)(nl - (const char *)n->file) - at) >= sizeof line) return -1;
        memcpy(line, n->file + at, len);
        line[len] = '\0';
        at += len + 1;
        if (!n->magic[0]) {
            snprintf(n->magic, sizeof n->magic, "%.15s", line);
            continue;
        }
        if (len == 0) break; /* the data follows */
        if (line[0] == '#') continue;
        if (!(colon = strstr(line, ": ")) || n->nfields == MAX_FIELDS) return -1;
        snprintf(n->key[n->nfields], sizeof n->key[0], "%.*s", (int)(colon - line), line);
        snprintf(n->value[n->nfields], sizeof n->value[0], "%s", colon + 2);
        n->nfields++;
    }
    n->data = at;
    return 0;
}

/* A field's value, or NULL when the header lacks it. */
static const char *field(const nrrd *n, const char *key)
{
    for (int i = 0; i < n->nfields; i++)
        if (strcmp(n->key[i], key) == 0) return n->value[i];
    return NULL;
}

/* Float k of the data, from its little-endian bytes. */
static float sample(const nrrd *n, size_t k)
{
    const unsigned char *b = n->file + n->data + 4 * k;
    uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint32_t bits_of(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

/* "(x,y,z)" as three doubles. */
static int parse_vector(const char *s, double v[3])
{
    return s && sscanf(s, "(%lf,%lf,%lf)", &v[0], &v[1], &v[2]) == 3 ? 0 : -1;
}

/* ---- rendering volumes through the C API ------------------------------------------ */

static void volume_opts(ng_render_opts *o, int w, int h, int d)
{
    t_opts(o, w, h);
    o->depth = d;
    o->dims = 3;
    o->brick = 8;
}

/* Renders root once into each of the files paths[0..n-1]. 0, or -1 with err. */
static int render_files(const ng_graph *g, int root, const ng_render_opts *o, const char *const *paths, int n,
                        ng_error *err)
{
    ng_file_sink *f[4] = {0};
    ng_sink s[4];
    int roots[4] = {root, root, root, root}, rc = 0, k;
    for (k = 0; k < n && rc == 0; k++)
        if (!(f[k] = ng_file_sink_new(paths[k], 0, err))) rc = -1;
        else s[k] = ng_file_sink_as_sink(f[k]);
    if (rc == 0) rc = ng_render(g, roots, n, o, s, err);
    for (k = 0; k < n; k++) ng_file_sink_free(f[k]);
    return rc;
}

/* Checks voxel values v (interleaved, x fastest, then y, then z) of the
 * window [x0, x0 + w) x [y0, y0 + h) x [z0, z0 + d) against root at the voxel
 * centres. */
static void check_against_points(const ng_graph *g, int root, const ng_render_opts *o, int x0, int y0, int z0,
                                 int w, int h, int d, const nrrd *n)
{
    const int ch = ng_node_channels(ng_graph_node(g, root));
    const int count = w * h * d;
    double *xs[3];
    float *want = malloc((size_t)count * (size_t)ch * sizeof *want);
    ng_error err = {{0}};
    int i, j, k, bad = 0;
    for (k = 0; k < 3; k++) xs[k] = malloc((size_t)count * sizeof(double));
    if (!want || !xs[0] || !xs[1] || !xs[2]) {
        CHECK(!"out of memory");
        goto out;
    }
    for (k = 0; k < d; k++)
        for (j = 0; j < h; j++)
            for (i = 0; i < w; i++) {
                size_t p = ((size_t)k * h + j) * w + i;
                xs[0][p] = o->origin[0] + (x0 + i + 0.5) * o->pixel_size;
                xs[1][p] = o->origin[1] + (y0 + j + 0.5) * o->pixel_size;
                xs[2][p] = o->z + (z0 + k + 0.5) * o->pixel_size;
            }
    CHECK_INT(ng_eval_points(g, root, 3, (const double *const *)xs, count, want, &err), 0);
    CHECK_INT(n->size - n->data, (size_t)count * ch * 4);
    if (n->size - n->data != (size_t)count * ch * 4) goto out;
    for (i = 0; i < count * ch; i++)
        if (!(fabs((double)sample(n, (size_t)i) - want[i]) <= 1e-5) && bad++ < 5)
            ng_t_fail(__FILE__, __LINE__, "sample %d: %.9g, ng_eval_points %.9g", i, sample(n, (size_t)i), want[i]);
    CHECK_INT(bad, 0);
out:
    for (k = 0; k < 3; k++) free(xs[k]);
    free(want);
}

/* ---- NRRD ------------------------------------------------------------------------------ */

/* A grey volume not a multiple of the brick, placed off the origin: every
 * header field as the format defines it, the data at its voxel centres. */
static void test_nrrd_volume(void)
{
    char path[PATHLEN];
    const char *paths[] = {path};
    ng_graph *g = ng_graph_new();
    int root = t_bin(g, "add", t_noise(g, "perlin", 3, 7), t_noise(g, "simplex", 5, 2));
    ng_render_opts o;
    ng_error err = {{0}};
    nrrd n;
    double origin[3];
    tpath(path, "grey.nrrd");
    volume_opts(&o, 11, 7, 10);
    o.pixel_size = 0.5;
    o.origin[0] = 3;
    o.origin[1] = -2;
    o.z = 1.25;
    o.threads = 2;
    CHECKF(render_files(g, root, &o, paths, 1, &err) == 0, "%s", err.msg);
    CHECK_INT(read_nrrd(path, &n), 0);
    CHECK_STR(n.magic, "NRRD0004");
    CHECK_STR(field(&n, "type"), "float");
    CHECK_STR(field(&n, "dimension"), "3");
    CHECK_STR(field(&n, "space"), "right-anterior-superior");
    CHECK_STR(field(&n, "sizes"), "11 7 10");
    CHECK_STR(field(&n, "space directions"), "(0.5,0,0) (0,0.5,0) (0,0,0.5)");
    CHECK_STR(field(&n, "kinds"), "domain domain domain");
    CHECK_STR(field(&n, "endian"), "little");
    CHECK_STR(field(&n, "encoding"), "raw");
    CHECK_STR(field(&n, "content"), "density");
    CHECK(field(&n, "space dimension") == NULL); /* exclusive with "space" */
    CHECK_INT(parse_vector(field(&n, "space origin"), origin), 0);
    CHECK(origin[0] == 3.25 && origin[1] == -1.75 && origin[2] == 1.5); /* the first voxel's centre */
    CHECK_INT(n.nfields, 10);
    check_against_points(g, root, &o, 0, 0, 0, 11, 7, 10, &n);
    free(n.file);
    unlink(path);
    ng_graph_free(g);
    CHECK_INT(count_entries(tmpdir, ""), 0);
}

/* Three channels in a window of a larger volume: a leading 3-vector axis
 * without a space direction, and the origin of the window's first voxel. */
static void test_nrrd_vector_window(void)
{
    char path[PATHLEN];
    const char *paths[] = {path};
    ng_graph *g = ng_graph_new();
    int root = t_vnoise(g, "simplex", 2, 3);
    ng_render_opts o;
    ng_error err = {{0}};
    nrrd n;
    double origin[3];
    tpath(path, "vector.nrrd");
    volume_opts(&o, 12, 10, 20);
    o.pixel_size = 0.25;
    o.origin[0] = 10;
    o.origin[1] = 20;
    o.z = 30;
    o.region[0] = 2;
    o.region[1] = 3;
    o.region[2] = 5;
    o.region[3] = 4;
    o.zregion[0] = 9;
    o.zregion[1] = 11;
    CHECKF(render_files(g, root, &o, paths, 1, &err) == 0, "%s", err.msg);
    CHECK_INT(read_nrrd(path, &n), 0);
    CHECK_STR(field(&n, "dimension"), "4");
    CHECK_STR(field(&n, "sizes"), "3 5 4 11");
    CHECK_STR(field(&n, "space directions"), "none (0.25,0,0) (0,0.25,0) (0,0,0.25)");
    CHECK_STR(field(&n, "kinds"), "3-vector domain domain domain");
    CHECK_INT(parse_vector(field(&n, "space origin"), origin), 0);
    CHECK(origin[0] == 10.625 && origin[1] == 20.875 && origin[2] == 32.375);
    check_against_points(g, root, &o, 2, 3, 9, 5, 4, 11, &n);
    free(n.file);
    unlink(path);
    ng_graph_free(g);
}

/* Slabs fed by hand in unequal bands: every float arrives with its bits
 * (NaN payloads, infinities, -0, values far outside [0,1]) at its place;
 * an image is a plain 2D array; 2 and 4 channels are vectors, 5 are not. */
static void test_nrrd_exact_bits(void)
{
    enum { W = 3, H = 5, D = 4, C = 2 };
    static const int bands[] = {2, 0, 3}; /* rows of each slab, in order */
    float v[D * H * W * C], slab[8 * H * W * C];
    char path[PATHLEN];
    ng_volume_info info = {W, H, D, C, {0, 0, 0}, {W, H, D}, {0, 0, 0}, 1, {0, 0, 0}};
    ng_error err = {{0}};
    ng_file_sink *f;
    ng_sink s;
    nrrd n;
    int z, y, b, k, s0;
    for (k = 0; k < D * H * W * C; k++) v[k] = (float)k * 1.5f - 40.0f;
    v[3] = NAN;
    v[7] = INFINITY;
    v[8] = -INFINITY;
    v[9] = -0.0f;
    memcpy(&v[10], &(uint32_t){0x7fc01234u}, 4); /* a NaN with a payload */
    tpath(path, "bits.nrrd");
    f = ng_file_sink_new(path, 0, &err);
    CHECK(f != NULL);
    if (!f) return;
    s = ng_file_sink_as_sink(f);
    CHECK_INT(s.begin_volume(s.user, &info, &err), 0);
    for (z = 0; z < D; z += 3) { /* slabs of 3 slices, then 1 */
        const int ns = D - z < 3 ? D - z : 3;
        for (y = 0, b = 0; b < 3; y += bands[b++]) {
            for (s0 = 0; s0 < ns; s0++)
                memcpy(&slab[(size_t)s0 * bands[b] * W * C], &v[((size_t)(z + s0) * H + y) * W * C],
                       (size_t)bands[b] * W * C * sizeof(float));
            CHECKF(s.slab(s.user, z, ns, y, bands[b], slab, &err) == 0, "%s", err.msg);
        }
    }
    CHECKF(s.end(s.user, 1, &err) == 0, "%s", err.msg);
    ng_file_sink_free(f);
    CHECK_INT(read_nrrd(path, &n), 0);
    CHECK_STR(field(&n, "sizes"), "2 3 5 4");
    CHECK_STR(field(&n, "kinds"), "2-vector domain domain domain");
    CHECK_INT(n.size - n.data, sizeof v);
    for (k = 0; k < D * H * W * C && n.size - n.data == sizeof v; k++)
        CHECKF(bits_of(sample(&n, (size_t)k)) == bits_of(v[k]), "sample %d: %08x vs %08x", k,
               bits_of(sample(&n, (size_t)k)), bits_of(v[k]));
    free(n.file);

    /* an image: 4 channels, no placement */
    f = ng_file_sink_new(path, 0, &err);
    s = ng_file_sink_as_sink(f);
    CHECK_INT(s.begin(s.user, 3, 2, 4, &err), 0);
    CHECK_INT(s.rows(s.user, 0, 2, v, &err), 0);
    CHECK_INT(s.end(s.user, 1, &err), 0);
    ng_file_sink_free(f);
    CHECK_INT(read_nrrd(path, &n), 0);
    CHECK_STR(field(&n, "dimension"), "3");
    CHECK_STR(field(&n, "sizes"), "4 3 2");
    CHECK_STR(field(&n, "kinds"), "4-vector domain domain");
    CHECK(field(&n, "space") == NULL && field(&n, "space origin") == NULL && field(&n, "space directions") == NULL);
    CHECK_INT(n.size - n.data, 3 * 2 * 4 * 4);
    for (k = 0; k < 24 && n.size - n.data == 96; k++) CHECK(bits_of(sample(&n, (size_t)k)) == bits_of(v[k]));
    free(n.file);

    /* 5 channels: no NRRD kind says what they are */
    f = ng_file_sink_new(path, 0, &err);
    s = ng_file_sink_as_sink(f);
    CHECK_INT(s.begin(s.user, 3, 2, 5, &err), -1);
    CHECK_CONTAINS(err.msg, "NRRD output takes 1 to 4 channels, not 5");
    s.end(s.user, 0, &err);
    ng_file_sink_free(f);
    unlink(path);
    CHECK_INT(count_entries(tmpdir, ""), 0);
}

/* ---- slice sequences ---------------------------------------------------------------- */

/* The 8-bit PNG sample of v, as the PNG encoder quantizes it. */
static unsigned char quantize8(float v)
{
    if (!(v > 0.0f)) v = 0.0f;
    if (v > 1.0f) v = 1.0f;
    return (unsigned char)((double)v * 255 + 0.5);
}

/* The names a directory holds besides "." and "..", sorted, joined by
 * spaces, into buf. */
static void list_dir(const char *dir, char *buf, size_t len)
{
    struct dirent **e;
    int n = scandir(dir, &e, NULL, alphasort), i;
    buf[0] = '\0';
    for (i = 0; i < n; i++) {
        if (strcmp(e[i]->d_name, ".") && strcmp(e[i]->d_name, ".."))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " " : "", e[i]->d_name);
        free(e[i]);
    }
    if (n >= 0) free(e);
}

/* One render to a .nrrd, a PFM sequence and a PNG sequence: 12 slices
 * named 00 to 11, each PFM slice bit for bit the volume's plane, each PNG
 * slice the plane quantized. */
static void test_slices_match_volume(void)
{
    enum { W = 9, H = 7, D = 12 };
    char dir[PATHLEN], vol[PATHLEN], pfm[PATHLEN], png[PATHLEN], names[1024];
    const char *paths[] = {vol, pfm, png};
    ng_graph *g = ng_graph_new();
    int root = t_bin(g, "add", t_noise(g, "perlin", 4, 1), t_const(g, 0.5));
    ng_render_opts o;
    ng_error err = {{0}};
    nrrd n;
    int z;
    mksub(dir, "match");
    pathf(vol, "%s/v.nrrd", dir);
    pathf(pfm, "%s/f_{z}.pfm", dir);
    pathf(png, "%s/p_{z}.png", dir);
    volume_opts(&o, W, H, D);
    o.threads = 2;
    CHECKF(render_files(g, root, &o, paths, 3, &err) == 0, "%s", err.msg);
    list_dir(dir, names, sizeof names);
    CHECK_STR(names, "f_00.pfm f_01.pfm f_02.pfm f_03.pfm f_04.pfm f_05.pfm f_06.pfm f_07.pfm f_08.pfm f_09.pfm "
                     "f_10.pfm f_11.pfm p_00.png p_01.png p_02.png p_03.png p_04.png p_05.png p_06.png p_07.png "
                     "p_08.png p_09.png p_10.png p_11.png v.nrrd");
    CHECK_INT(read_nrrd(vol, &n), 0);
    CHECK_INT(n.size - n.data, W * H * D * 4);
    for (z = 0; z < D && n.size - n.data == W * H * D * 4; z++) {
        char slice[PATHLEN];
        size_t len;
        unsigned char *px, *pf;
        const char *hdr = "Pf\n9 7\n-1.0\n";
        int w = 0, h = 0, i, j, bad = 0;
        pathf(slice, "%s/p_%02d.png", dir, z);
        px = decode(slice, PNG_FORMAT_GRAY, &w, &h);
        pathf(slice, "%s/f_%02d.pfm", dir, z);
        pf = slurp(slice, &len);
        CHECK(px && w == W && h == H);
        CHECK(pf && len == strlen(hdr) + W * H * 4 && memcmp(pf, hdr, strlen(hdr)) == 0);
        for (j = 0; j < H && px && pf && len == strlen(hdr) + W * H * 4; j++)
            for (i = 0; i < W; i++) {
                float want = sample(&n, ((size_t)z * H + j) * W + i);
                float got; /* PFM rows go bottom to top */
                memcpy(&got, pf + strlen(hdr) + ((size_t)(H - 1 - j) * W + i) * 4, 4);
                bad += bits_of(got) != bits_of(want);
                bad += px[j * W + i] != quantize8(want);
            }
        CHECKF(bad == 0, "slice %d: %d samples differ from the volume's plane", z, bad);
        free(px);
        free(pf);
    }
    free(n.file);
    ng_graph_free(g);
}

/* Indices are the full volume's, padded to the digits of its last one. */
static void test_slices_names(void)
{
    static const struct {
        int depth, first, count;
        const char *names;
    } cases[] = {
        {1, 0, 0, "c_0.r16"},
        {10, 0, 0, "c_0.r16 c_1.r16 c_2.r16 c_3.r16 c_4.r16 c_5.r16 c_6.r16 c_7.r16 c_8.r16 c_9.r16"},
        {11, 8, 3, "c_08.r16 c_09.r16 c_10.r16"},
        {128, 98, 4, "c_098.r16 c_099.r16 c_100.r16 c_101.r16"},
        {1001, 997, 3, "c_0997.r16 c_0998.r16 c_0999.r16"},
    };
    ng_graph *g = ng_graph_new();
    int root = t_noise(g, "perlin", 4, 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[PATHLEN], pat[PATHLEN], sub[32], names[1024];
        const char *paths[] = {pat};
        ng_render_opts o;
        ng_error err = {{0}};
        snprintf(sub, sizeof sub, "names%zu", i);
        mksub(dir, sub);
        pathf(pat, "%s/c_{z}.r16", dir);
        volume_opts(&o, 2, 3, cases[i].depth);
        if (cases[i].count) {
            o.region[2] = 2;
            o.region[3] = 3;
            o.zregion[0] = cases[i].first;
            o.zregion[1] = cases[i].count;
        }
        CHECKF(render_files(g, root, &o, paths, 1, &err) == 0, "%s", err.msg);
        list_dir(dir, names, sizeof names);
        CHECK_STR(names, cases[i].names);
    }
    ng_graph_free(g);
}

/* A sink around a file sink that fails the render at slab call `fail_at`,
 * after running `hook` (when set). */
typedef struct failing {
    ng_sink inner;
    int calls, fail_at;
    void (*hook)(struct failing *);
    const char *dir;
} failing;

static int fw_begin(void *u, int w, int h, int ch, ng_error *err)
{
    failing *f = u;
    return f->inner.begin(f->inner.user, w, h, ch, err);
}

static int fw_rows(void *u, int y, int n, const float *rows, ng_error *err)
{
    failing *f = u;
    return f->inner.rows(f->inner.user, y, n, rows, err);
}

static int fw_end(void *u, int ok, ng_error *err)
{
    failing *f = u;
    return f->inner.end(f->inner.user, ok, err);
}

static int fw_begin_volume(void *u, const ng_volume_info *v, ng_error *err)
{
    failing *f = u;
    return f->inner.begin_volume(f->inner.user, v, err);
}

static int fw_slab(void *u, int z, int ns, int y, int n, const float *data, ng_error *err)
{
    failing *f = u;
    if (f->calls++ == f->fail_at) {
        if (f->hook) f->hook(f);
        return ng_errorf(err, "stopped by the test");
    }
    return f->inner.slab(f->inner.user, z, ns, y, n, data, err);
}

/* Renders a 2 x 2 x depth volume of root into pattern through a failing
 * sink; the render's result. */
static int render_failing(const ng_graph *g, int root, int depth, const char *pattern, failing *fw)
{
    ng_render_opts o;
    ng_error err = {{0}};
    ng_file_sink *f = ng_file_sink_new(pattern, 0, &err);
    ng_sink s = {fw_begin, fw_rows, fw_end, fw, fw_begin_volume, fw_slab};
    int rc;
    CHECK(f != NULL);
    if (!f) return 0;
    fw->inner = ng_file_sink_as_sink(f);
    volume_opts(&o, 2, 2, depth);
    rc = ng_render(g, &root, 1, &o, &s, &err);
    if (rc) CHECK_CONTAINS(err.msg, "stopped by the test");
    ng_file_sink_free(f);
    return rc;
}

/* The entries of the sequence's temporary folder in dir; -1 without one. */
static int temp_folder_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = -1;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".tmp-")) {
            char sub[PATHLEN];
            pathf(sub, "%s/%s", dir, e->d_name);
            n = count_entries(sub, "");
        }
    if (d) closedir(d);
    return n;
}

/* When the third slab arrives: the two before it wait, complete, in the
 * temporary folder; beside it only the slice that was there before. */
static void two_slabs_waiting(failing *fw)
{
    CHECK_INT(temp_folder_entries(fw->dir), 16);
    CHECK_INT(count_entries(fw->dir, ""), 2);
}

/* Slices of finished slabs are in the temporary folder, never beside the
 * target; a failure removes them and the folder, and a slice that was
 * there before keeps its bytes. */
static void test_slices_failure_leaves_nothing(void)
{
    char dir[PATHLEN], pat[PATHLEN], old[PATHLEN];
    ng_graph *g = ng_graph_new();
    int root = t_noise(g, "perlin", 4, 1);
    failing fw = {.fail_at = 2, .hook = two_slabs_waiting, .dir = dir};
    size_t len;
    unsigned char *kept;
    mksub(dir, "failing");
    pathf(pat, "%s/c_{z}.png", dir);
    pathf(old, "%s/c_03.png", dir);
    put_file(old, "precious\n");
    CHECK_INT(render_failing(g, root, 20, pat, &fw), -1); /* after 16 slices */
    CHECK_INT(count_entries(dir, ""), 1);
    kept = slurp(old, &len);
    CHECK(kept && len == 9 && memcmp(kept, "precious\n", 9) == 0);
    free(kept);
    ng_graph_free(g);
}

/* Deferred: a complete sequence waits in its folder for the commit; a sink
 * freed without one leaves nothing. */
static void test_slices_deferred(void)
{
    char dir[PATHLEN], pat[PATHLEN], names[256];
    ng_graph *g = ng_graph_new();
    int root = t_noise(g, "perlin", 4, 1);
    ng_render_opts o;
    ng_error err = {{0}};
    int pass;
    mksub(dir, "deferred");
    pathf(pat, "%s/c_{z}.pfm", dir);
    volume_opts(&o, 3, 2, 3);
    for (pass = 0; pass < 2; pass++) {
        ng_file_sink *f = ng_file_sink_new(pat, 0, &err);
        ng_sink s;
        if (!f) {
            CHECK(!"sink");
            break;
        }
        ng_file_sink_defer(f);
        s = ng_file_sink_as_sink(f);
        CHECKF(ng_render(g, &root, 1, &o, &s, &err) == 0, "%s", err.msg);
        CHECK_INT(count_entries(dir, ""), 1); /* the folder only */
        CHECK_INT(temp_folder_entries(dir), 3);
        if (pass == 1) CHECKF(ng_file_sink_commit(f, &err) == 0, "%s", err.msg);
        ng_file_sink_free(f);
        list_dir(dir, names, sizeof names);
        CHECK_STR(names, pass == 0 ? "" : "c_0.pfm c_1.pfm c_2.pfm");
    }
    ng_graph_free(g);
}

/* What a SIGINT handler runs, at a moment when 320 slices of a 512-slice
 * sequence are in its temporary folder: every one goes, and the folder.
 * Its exit status says what it saw (a child runs it: after the sweep the
 * process creates no temporary again, as it is ending). */
static void remove_mid_sequence(failing *fw)
{
    const int before = temp_folder_entries(fw->dir);
    ng_file_remove_temporaries();
    if (before != 320) _exit(2);
    if (count_entries(fw->dir, "") != 0) _exit(3);
}

static void test_slices_signal_handler_removes_all(void)
{
    char dir[PATHLEN], pat[PATHLEN];
    ng_graph *g = ng_graph_new();
    int root = t_noise(g, "perlin", 4, 1), st = 0;
    failing fw = {.fail_at = 40, .hook = remove_mid_sequence, .dir = dir};
    pid_t pid;
    mksub(dir, "handler");
    pathf(pat, "%s/c_{z}.png", dir);
    pid = fork();
    if (pid == 0) _exit(render_failing(g, root, 512, pat, &fw) == -1 && fw.calls == 41 ? 0 : 1);
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    CHECKF(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child saw %d (2: not 320 slices, 3: some left)",
           WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    CHECK_INT(count_entries(dir, ""), 0);
    ng_graph_free(g);
}

/* A sequence killed outright leaves its folder; the next render of the
 * same pattern removes it (its lock is free), never one a live render
 * holds, nor that of another pattern. */
static void test_slices_stale_folder_swept(void)
{
    char dir[PATHLEN], pat[PATHLEN], stale[PATHLEN], held[PATHLEN], other[PATHLEN], file[PATHLEN];
    const char *paths[] = {pat};
    ng_graph *g = ng_graph_new();
    int root = t_noise(g, "perlin", 4, 1), fd;
    ng_render_opts o;
    ng_error err = {{0}};
    mksub(dir, "stale");
    pathf(pat, "%s/c_{z}.png", dir);
    pathf(stale, "%s/.c_{z}.png.tmp-abc123", dir);
    pathf(held, "%s/.c_{z}.png.tmp-def456", dir);
    pathf(other, "%s/.d_{z}.png.tmp-abc123", dir);
    CHECK_INT(mkdir(stale, 0700), 0);
    CHECK_INT(mkdir(held, 0700), 0);
    CHECK_INT(mkdir(other, 0700), 0);
    pathf(file, "%s/c_07.png", stale);
    put_file(file, "half\n");
    fd = open(held, O_RDONLY | O_DIRECTORY);
    CHECK(fd >= 0 && flock(fd, LOCK_EX) == 0);
    volume_opts(&o, 2, 2, 3);
    CHECKF(render_files(g, root, &o, paths, 1, &err) == 0, "%s", err.msg);
    CHECK(!exists(stale));
    CHECK(exists(held));
    CHECK(exists(other));
    CHECK_INT(count_entries(dir, "c_"), 3 + 1); /* the slices, and the held folder */
    close(fd);
    rmdir(held);
    rmdir(other);
    ng_graph_free(g);
}

/* {z} only for volumes, once, in the file name. */
static void test_slices_refused(void)
{
    static const struct {
        const char *name;
        int depth;
        const char *msg;
    } cases[] = {
        {"c_{z}.png", 0, "{z} needs a volume (--size WxHxD)"},
        {"{z}/c.png", 4, "{z} must be in the file name, not in a folder name"},
        {"c_{z}_{z}.png", 4, "{z} may appear only once"},
    };
    ng_graph *g = ng_graph_new();
    int root = t_noise(g, "perlin", 4, 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[PATHLEN];
        ng_error err = {{0}};
        tpath(path, cases[i].name);
        CHECK_INT(ng_file_check_depth(path, 0, cases[i].depth, &err), -1);
        CHECK_CONTAINS(err.msg, path);
        CHECK_CONTAINS(err.msg, cases[i].msg);
    }
    {
        char path[PATHLEN];
        ng_error err = {{0}};
        ng_render_opts o;
        ng_file_sink *f;
        ng_sink s;
        tpath(path, "c_{z}.png");
        CHECK_INT(ng_file_check_depth(path, 0, 4, &err), 0);
        CHECK_INT(ng_file_check(path, 0, &err), 0);
        f = ng_file_sink_new(path, 0, &err);
        CHECK(f != NULL);
        s = ng_file_sink_as_sink(f);
        t_opts(&o, 4, 4); /* an image */
        CHECK_INT(ng_render(g, &root, 1, &o, &s, &err), -1);
        CHECK_CONTAINS(err.msg, "{z} needs a volume (--size WxHxD)");
        ng_file_sink_free(f);
    }
    CHECK_INT(count_entries(tmpdir, "c_"), 0);
    CHECK_INT(count_entries(tmpdir, "{z}"), 0);
    ng_graph_free(g);
}

/* A format of the wrong kind is named with its article, as said aloud:
 * "an EXR file", "a PNG file", "a VDB file". */
static void test_wrong_kind_named(void)
{
    static const struct {
        const char *name;
        int depth;
        const char *msg;
    } cases[] = {
        {"v.exr", 4, "an EXR file holds an image, not a volume"},
        {"v.png", 4, "a PNG file holds an image, not a volume"},
        {"v.r16", 4, "a raw heightmap file holds an image"},
        {"v.vdb", 0, "a VDB file holds a volume"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[PATHLEN];
        ng_error err = {{0}};
        tpath(path, cases[i].name);
        CHECK_INT(ng_file_check_depth(path, 0, cases[i].depth, &err), -1);
        CHECK_CONTAINS(err.msg, cases[i].msg);
    }
}

/* ---- the program ------------------------------------------------------------------------ */

#if SANITIZED /* 8^3 octaves a point: the sanitizers' 16^3 took 36 s to reach 72 slices */
#define SLOW_OCTAVES "8"
#else
#define SLOW_OCTAVES "16"
#endif
static const char slow_script[] = "local n = ng.perlin{}\n"
                                  "for i = 1, 3 do n = ng.fbm{source = n, octaves = " SLOW_OCTAVES ", antialias = false} end\n"
                                  "return n\n";

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) < 0 && errno == EINTR) {
    }
}


/* A SIGINT while 72 or more of 512 slices wait in the temporary folder:
 * the process dies of it, leaving no slice and no folder. */
static void test_cli_sigint_mid_sequence(void)
{
    char dir[PATHLEN], s[PATHLEN], pat[PATHLEN];
    const char *args[] = {"render", s, "-o", pat, "--size", "16x16x512", "--brick", "8", "--threads", "1", NULL};
    long waited;
    int st = 0, seen = -1;
    pid_t pid;
    mksub(dir, "sigint");
    mkscript(s, "slow.lua", slow_script);
    pathf(pat, "%s/c_{z}.png", dir);
    pid = cli_spawn(args);
    for (waited = 0; waited < DEFAULT_TIMEOUT * 1000L && (seen = temp_folder_entries(dir)) < 72; waited += 5)
        sleep_ms(5);
    CHECKF(seen >= 72 && seen < 512, "%d slices in the temporary folder", seen);
    kill(pid, SIGINT);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT);
    CHECK_INT(count_entries(dir, ""), 0);
}

static void test_cli_volume_files(void)
{
    char s[PATHLEN], o[PATHLEN], names[512];
    nrrd n;
    double origin[3];
    res r;
    mkscript(s, "vol.lua", "return {a = ng.perlin{element_size = 4}, b = ng.constant{value = 0.25}}\n");

    /* {name} and {z}: each output's slices, in folders made for them */
    pathf(o, "%s/made/{name}/s_{z}.png", tmpdir);
    cli(&r, "render", s, "-o", o, "--size", "4x3x11", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    pathf(o, "%s/made/a", tmpdir);
    list_dir(o, names, sizeof names);
    CHECK_STR(names, "s_00.png s_01.png s_02.png s_03.png s_04.png s_05.png s_06.png s_07.png s_08.png s_09.png "
                     "s_10.png");
    pathf(o, "%s/made/b", tmpdir);
    CHECK_INT(count_entries(o, "s_"), 11);

    /* .nrrd placed by --origin and --voxel-size */
    pathf(o, "%s/{name}.nrrd", tmpdir);
    cli(&r, "render", s, "-o", o, "--size", "6x5x4", "--voxel-size", "0.5", "--origin", "1,2,3", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    pathf(o, "%s/b.nrrd", tmpdir);
    CHECK_INT(read_nrrd(o, &n), 0);
    CHECK_STR(field(&n, "sizes"), "6 5 4");
    CHECK_INT(parse_vector(field(&n, "space origin"), origin), 0);
    CHECK(origin[0] == 1.25 && origin[1] == 2.25 && origin[2] == 3.25);
    CHECK_STR(field(&n, "content"), "b");
    CHECK_INT(n.size - n.data, 6 * 5 * 4 * 4);
    for (int k = 0; k < 6 * 5 * 4 && n.size - n.data == 480; k++) CHECK(sample(&n, (size_t)k) == 0.25f);
    free(n.file);

    /* {z} of an image render: a usage error before the script runs */
    pathf(o, "%s/img_{z}.png", tmpdir);
    cli(&r, "render", s, "-o", o, "--size", "4", NULL);
    EXPECT_ERR(&r, 2, o, "{z} needs a volume (--size WxHxD)");
    res_free(&r);
    CHECK_INT(count_entries(tmpdir, "img_"), 0);
}

/* The gzip stream of a NRRD's data, inflated; its length in *len. */
static unsigned char *gunzip(const unsigned char *in, size_t n, size_t cap, size_t *len)
{
    unsigned char *out = malloc(cap);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (!out || inflateInit2(&z, 15 + 16) != Z_OK) return free(out), NULL;
    z.next_in = (unsigned char *)(uintptr_t)in, z.avail_in = (uInt)n;
    z.next_out = out, z.avail_out = (uInt)cap;
    if (inflate(&z, Z_FINISH) != Z_STREAM_END) free(out), out = NULL;
    *len = z.total_out;
    inflateEnd(&z);
    return out;
}

/* --compression L gzips a .nrrd's data ("encoding: gzip"): the same
 * header otherwise, and the same samples, for a volume of several slabs
 * and bands, a vector volume and an image; teem's own unu reads it back
 * to the raw file's bytes. */
static void test_cli_nrrd_gzip(void)
{
    static const char *const sizes[] = {"13x30x21", "9x7x5", "33x17"};
    static const char *const scripts[] = {"return ng.perlin{element_size = 4}\n",
                                          "return ng.simplex{element_size = 3, output = \"vector\"}\n",
                                          "return ng.perlin{element_size = 4}\n"};
    char s[PATHLEN], raw[PATHLEN], gz[PATHLEN], back[PATHLEN], cmd[4 * PATHLEN];
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        nrrd a, b, c;
        unsigned char *data;
        size_t len = 0;
        res r;
        int k;
        mkscript(s, "gz.lua", scripts[i]);
        pathf(raw, "%s/raw%zu.nrrd", tmpdir, i);
        pathf(gz, "%s/gz%zu.nrrd", tmpdir, i);
        const char *cut = i == 2 ? "--tile" : "--brick"; /* small, so a volume comes in several slabs and bands */
        cli(&r, "render", s, "-o", raw, "--size", sizes[i], cut, "8", NULL);
        EXPECT_OK(&r);
        res_free(&r);
        cli(&r, "render", s, "-o", gz, "--size", sizes[i], cut, "8", "--compression", "6", NULL);
        EXPECT_OK(&r);
        res_free(&r);
        if (read_nrrd(raw, &a) || read_nrrd(gz, &b)) {
            CHECKF(0, "%s: a NRRD not read", sizes[i]);
            continue;
        }
        CHECK_STR(field(&a, "encoding"), "raw");
        CHECK_STR(field(&b, "encoding"), "gzip");
        CHECK_INT(a.nfields, b.nfields);
        for (k = 0; k < a.nfields && k < b.nfields; k++)
            if (strcmp(a.key[k], "encoding")) CHECK_STR(a.value[k], b.value[k]);
        data = gunzip(b.file + b.data, b.size - b.data, a.size - a.data + 1, &len);
        CHECKF(data && len == a.size - a.data && !memcmp(data, a.file + a.data, len), "%s: gzip data differs",
               sizes[i]);
        CHECKF(b.size - b.data < a.size - a.data, "%s: gzip %zu bytes, raw %zu", sizes[i], b.size - b.data,
               a.size - a.data);
        free(data);
        /* teem's reader (teem-apps): back to raw, the raw file's samples */
        pathf(back, "%s/back%zu.nrrd", tmpdir, i);
        snprintf(cmd, sizeof cmd, "teem-unu save -i '%s' -f nrrd -e raw -o '%s' 2>&1", gz, back);
        CHECKF(system(cmd) == 0, "%s failed", cmd);
        if (read_nrrd(back, &c) == 0) {
            CHECKF(c.size - c.data == a.size - a.data && !memcmp(c.file + c.data, a.file + a.data, a.size - a.data),
                   "%s: unu read other samples", sizes[i]);
            free(c.file);
        } else {
            CHECKF(0, "%s: unu wrote no NRRD", sizes[i]);
        }
        free(a.file), free(b.file);
        unlink(raw), unlink(gz), unlink(back);
    }
    /* level 0 is raw, as without --compression */
    {
        res r;
        nrrd a;
        mkscript(s, "gz.lua", scripts[0]);
        pathf(gz, "%s/l0.nrrd", tmpdir);
        cli(&r, "render", s, "-o", gz, "--size", "4x4x4", "--compression", "0", NULL);
        EXPECT_OK(&r);
        res_free(&r);
        if (read_nrrd(gz, &a) == 0) {
            CHECK_STR(field(&a, "encoding"), "raw");
            free(a.file);
        }
        unlink(gz);
    }
}

/* A render stopped by its time limit leaves no slice and no folder: not
 * the folders its pattern made either (they stayed, empty), while one
 * that was there before stays. */
static void test_cli_failed_sequence(void)
{
    char dir[PATHLEN], s[PATHLEN], pat[PATHLEN];
    res r;
    mksub(dir, "timeout");
    mkscript(s, "slow_t.lua", slow_script);
    pathf(pat, "%s/c_{z}.png", dir);
    cli(&r, "render", s, "-o", pat, "--size", "32x32x512", "--brick", "8", "--render-time-limit", "1", NULL);
    EXPECT_ERR(&r, 1, "render time limit of 1 s");
    res_free(&r);
    CHECK_INT(count_entries(dir, ""), 0);
    pathf(pat, "%s/made/deeper/c_{z}.png", dir);
    cli(&r, "render", s, "-o", pat, "--size", "32x32x512", "--brick", "8", "--render-time-limit", "0.3", NULL);
    EXPECT_ERR(&r, 1, "render time limit of 0.3 s");
    res_free(&r);
    CHECK_INT(count_entries(dir, ""), 0);
    CHECK(exists(dir));
}

/* An uncompressed volume bigger than the free space of its disk (here
 * 146 TiB) is refused before a voxel is evaluated: one line naming the
 * file and the sizes, nothing left behind, an existing file kept. Slices
 * count all together. */
static void test_cli_volume_too_big_for_the_disk(void)
{
    char s[PATHLEN], o[PATHLEN], want[PATHLEN + 64];
    res r;
    mkscript(s, "huge.lua", "return ng.perlin{}\n");
    tpath(o, "huge.nrrd");
    put_file(o, "keep\n");
    cli_t(&r, 60, "render", s, "-o", o, "--size", "20000x20000x100000", "--threads", "1", NULL);
    snprintf(want, sizeof want, "%s: the file needs 145.52 TiB, more than the", o);
    EXPECT_ERR(&r, 1, want, "free on its disk");
    res_free(&r);
    {
        size_t len;
        unsigned char *kept = slurp(o, &len);
        CHECK(kept && len == 5 && memcmp(kept, "keep\n", 5) == 0);
        free(kept);
    }
    CHECK_INT(count_entries(tmpdir, ".huge.nrrd"), 0);
    pathf(o, "%s/hugeslices/h_{z}.pfm", tmpdir);
    cli_t(&r, 60, "render", s, "-o", o, "--size", "20000x20000x100000", "--threads", "1", NULL);
    EXPECT_ERR(&r, 1, "the slices need 145.52 TiB, more than the", "free on its disk");
    res_free(&r);
    pathf(o, "%s/hugeslices", tmpdir);
    CHECK(!exists(o)); /* the folder the pattern made goes with the failure */
}

/* A plain -o names folders that must exist: a typo makes no folder. Said
 * before the script runs (this one would fail). */
static void test_cli_output_folders(void)
{
    char s[PATHLEN], o[PATHLEN], file[PATHLEN], want[2 * PATHLEN + 64];
    res r;
    mkscript(s, "broken.lua", "return ng.nosuch{}\n");
    pathf(o, "%s/missing/deeper/x.png", tmpdir);
    cli(&r, "render", s, "-o", o, NULL);
    snprintf(want, sizeof want, "%s: the folder '%s/missing/deeper' does not exist", o, tmpdir);
    EXPECT_ERR(&r, 1, want);
    res_free(&r);
    CHECK_INT(count_entries(tmpdir, "missing"), 0);
    cli(&r, "preview", s, "-o", o, NULL);
    EXPECT_ERR(&r, 1, want);
    res_free(&r);

    /* a file where a folder should be: plain and patterned */
    tpath(file, "plainfile");
    put_file(file, "x\n");
    pathf(o, "%s/plainfile/x.png", tmpdir);
    cli(&r, "render", s, "-o", o, NULL);
    snprintf(want, sizeof want, "'%s' is not a folder", file);
    EXPECT_ERR(&r, 1, o, want);
    res_free(&r);
    mkscript(s, "fine.lua", "return ng.perlin{}\n");
    pathf(o, "%s/plainfile/sub/{name}.png", tmpdir);
    cli(&r, "render", s, "-o", o, "--size", "4", NULL);
    EXPECT_ERR(&r, 1, want);
    res_free(&r);

    /* a pattern's folders are made, with the umask's permissions */
    pathf(o, "%s/new/sub/{name}.png", tmpdir);
    cli(&r, "render", s, "-o", o, "--size", "4", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    {
        struct stat st;
        mode_t mask = umask(0);
        umask(mask);
        pathf(o, "%s/new/sub", tmpdir);
        CHECK(stat(o, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == (0777 & ~mask));
        CHECK_INT(count_entries(o, ".png"), 1);
    }
}

/* A density half full everywhere (perlin > 0): a .vdb of 32^3 voxels of
 * it compresses to far more than 4 KiB. */
static const char half_full[] = "return ng.perlin{element_size = 8, seed = 1}\n";

/* A slice that cannot be replaced (its name is a folder) fails the render;
 * the slices before it in the sequence must not have been replaced by the
 * failed render (README: "moved into place only when the whole volume
 * succeeded"). The reviewed program had renamed c_0 .. c_2 over the old
 * ones before it met c_3, leaving a sequence half new, half old. */
static void test_failed_sequence_replaces_no_slice(void)
{
    char dir[PATHLEN], s[PATHLEN], pat[PATHLEN], p[PATHLEN];
    unsigned char *got;
    size_t n;
    res r;
    int k;
    mksub(dir, "seq");
    mkscript(s, "half.lua", half_full);
    for (k = 0; k < 5; k++) {
        pathf(p, "%s/c_%d.pfm", dir, k);
        if (k == 3) CHECK_INT(mkdir(p, 0755), 0);
        else put_file(p, "old\n");
    }
    pathf(pat, "%s/c_{z}.pfm", dir);
    cli(&r, "render", s, "-o", pat, "--size", "8x8x5", NULL);
    EXPECT_ERR(&r, 1, "c_3.pfm");
    res_free(&r);
    for (k = 0; k < 5; k++) {
        if (k == 3) continue;
        pathf(p, "%s/c_%d.pfm", dir, k);
        got = slurp(p, &n);
        CHECKF(got && !strcmp((char *)got, "old\n"), "slice %d was replaced by a render that failed", k);
        free(got);
    }
}

NG_SUITE(volfiles, full)
{
    int have_cli = cli_setup("ng-volfiles") == 0;
    if (!have_cli) { /* suite_cli reports the missing program; the sink tests still run */
        pathf(tmpdir, "/tmp/ng-volfiles-XXXXXX");
        if (!mkdtemp(tmpdir)) {
            perror("suite_volfiles: mkdtemp");
            return;
        }
    }
    RUN(test_nrrd_volume);
    RUN(test_nrrd_vector_window);
    RUN(test_nrrd_exact_bits);
    RUN(test_slices_match_volume);
    RUN(test_slices_names);
    RUN(test_slices_failure_leaves_nothing);
    RUN(test_slices_deferred);
    RUN(test_slices_signal_handler_removes_all);
    RUN(test_slices_stale_folder_swept);
    RUN(test_slices_refused);
    RUN(test_wrong_kind_named);
    if (have_cli) {
        RUN(test_cli_volume_files);
        RUN(test_cli_nrrd_gzip);
        RUN(test_cli_output_folders);
        RUN(test_cli_volume_too_big_for_the_disk);
        RUN(test_cli_failed_sequence);
        RUN(test_cli_sigint_mid_sequence);
        RUN(test_failed_sequence_replaces_no_slice);
    }
    cli_teardown();
}
