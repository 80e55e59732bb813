/*
 * test_preview.c — views (core/view*.c) and `noisegraph preview`: the same
 * bits for every thread count, tile size and region split; pictures that
 * follow from the physics a user expects (nothing in the box is exactly
 * the sky, the side toward the sun is the bright one, a denser cloud hides
 * more of the sky, a slope facing the sun is brighter, a plane is one
 * colour); a camera that moves the picture; and options and graphs a view
 * cannot take refused in one line, with no file left behind.
 */
#include "build.h"
#include "cli_support.h"

#include <stdlib.h>
#include <string.h>

/* ---- pictures in memory ---------------------------------------------------------- */

typedef struct picture {
    int w, h, ch;
    float *px;
} picture;

static int pic_begin(void *u, int w, int h, int ch, ng_error *err)
{
    picture *p = u;
    p->w = w, p->h = h, p->ch = ch;
    p->px = calloc((size_t)w * h * ch, sizeof(float));
    return p->px ? 0 : ng_errorf(err, "test: out of memory");
}

static int pic_rows(void *u, int y, int n, const float *rows, ng_error *err)
{
    picture *p = u;
    (void)err;
    memcpy(p->px + (size_t)y * p->w * p->ch, rows, (size_t)n * p->w * p->ch * sizeof(float));
    return 0;
}

static int pic_end(void *u, int ok, ng_error *err)
{
    (void)u, (void)ok, (void)err;
    return 0;
}

/* The view of root as w x h RGB floats (malloc'd), or NULL with the error
 * printed. */
static float *view(const ng_graph *g, int root, const ng_view_opts *v, const ng_render_opts *o)
{
    picture p = {0, 0, 0, NULL};
    ng_sink s = {pic_begin, pic_rows, pic_end, &p, NULL, NULL};
    ng_error err;
    if (ng_view_render(g, root, v, o, &s, &err)) {
        fprintf(stderr, "view failed: %s\n", err.msg);
        free(p.px);
        return NULL;
    }
    return p.px;
}

static const float *px(const float *pic, int w, int x, int y) { return pic + ((size_t)y * w + x) * 3; }
static float luma(const float *rgb) { return 0.2126f * rgb[0] + 0.7152f * rgb[1] + 0.0722f * rgb[2]; }

/* A cloud-like density: max(0, fbm - 0.1) * 3, lumps with empty gaps. */
static int lumps(ng_graph *g)
{
    int f = t_fbm(g, t_noise(g, "perlin", 10, 4), 4, 2, 0.5);
    return t_bin(g, "mul", t_bin(g, "max", t_bin(g, "sub", f, t_const(g, 0.1)), t_const(g, 0)), t_const(g, 3));
}

static void small_box(ng_view_opts *v, int edge)
{
    ng_view_defaults(v, NG_VIEW_VOLUME);
    v->box[0] = v->box[1] = v->box[2] = edge;
}

/* Looking along +y at the box's y = 0 face: +x is the picture's right. */
static void face_camera(ng_view_opts *v)
{
    v->has_camera = v->has_look_at = 1;
    v->camera[0] = v->box[0] / 2.0, v->camera[1] = -3.0 * v->box[1], v->camera[2] = v->box[2] / 2.0;
    v->look_at[0] = v->box[0] / 2.0, v->look_at[1] = v->box[1] / 2.0, v->look_at[2] = v->box[2] / 2.0;
}

/* ---- determinism ---------------------------------------------------------------- */

static void check_same_for_threads_and_tiles(const ng_graph *g, int root, const ng_view_opts *v, int w, int h)
{
    static const int threads[] = {1, 2, 3}, tiles[] = {16, 64};
    const size_t bytes = (size_t)w * h * 3 * sizeof(float);
    ng_render_opts o;
    float *ref, *part;
    int i, j;
    t_opts(&o, w, h);
    o.tile = 8;
    ref = view(g, root, v, &o);
    CHECK(ref != NULL);
    for (i = 0; ref && i < 3; i++)
        for (j = 0; j < 2; j++) {
            float *b;
            o.threads = threads[i];
            o.tile = tiles[j];
            b = view(g, root, v, &o);
            CHECK(b != NULL);
            if (b && memcmp(ref, b, bytes) != 0)
                ng_t_fail(__FILE__, __LINE__, "threads %d tile %d differs from threads 1 tile 8", threads[i], tiles[j]);
            free(b);
        }
    /* a window of the picture is that part of the whole picture */
    o.threads = 2;
    o.tile = 16;
    o.region[0] = 5, o.region[1] = 7, o.region[2] = w - 9, o.region[3] = h - 10;
    part = view(g, root, v, &o);
    CHECK(part != NULL);
    for (j = 0; ref && part && j < o.region[3]; j++)
        if (memcmp(part + (size_t)j * o.region[2] * 3, ref + ((size_t)(j + 7) * w + 5) * 3,
                   (size_t)o.region[2] * 3 * sizeof(float))) {
            ng_t_fail(__FILE__, __LINE__, "region row %d differs from the full picture", j);
            break;
        }
    free(part);
    free(ref);
}

static void test_volume_same_bits_any_threads_tiles(void)
{
    ng_graph *g = ng_graph_new();
    int root = lumps(g);
    ng_view_opts v;
    small_box(&v, 24);
    check_same_for_threads_and_tiles(g, root, &v, 70, 45);
    ng_graph_free(g);
}

static void test_terrain_same_bits_any_threads_tiles(void)
{
    ng_graph *g = ng_graph_new();
    int f = t_fbm(g, t_noise(g, "perlin", 20, 2), 5, 2, 0.5);
    int root = t_bin(g, "add", t_bin(g, "mul", f, t_const(g, 0.5)), t_const(g, 0.5));
    ng_view_opts v;
    ng_view_defaults(&v, NG_VIEW_TERRAIN);
    check_same_for_threads_and_tiles(g, root, &v, 83, 50);
    ng_graph_free(g);
}

/* ---- what the light does -------------------------------------------------------------- */

/* No density is exactly the sky: the picture of an empty box is the
 * picture of a dense box the camera turns its back on, and of a dense box
 * that absorbs nothing; a dense box in view is not. */
static void test_empty_density_is_exactly_the_sky(void)
{
    ng_graph *g = ng_graph_new();
    int empty = t_const(g, 0), dense = t_const(g, 1);
    ng_view_opts v;
    ng_render_opts o;
    float *a, *behind, *clear, *seen;
    const size_t bytes = 48 * 32 * 3 * sizeof(float);
    small_box(&v, 16);
    face_camera(&v);
    t_opts(&o, 48, 32);
    a = view(g, empty, &v, &o);
    v.box_origin[1] = -200; /* behind the camera at y = -48, which looks along +y */
    behind = view(g, dense, &v, &o);
    v.box_origin[1] = 0;
    v.density_scale = 0;
    clear = view(g, dense, &v, &o);
    v.density_scale = 0.5;
    seen = view(g, dense, &v, &o);
    CHECK(a && behind && clear && seen);
    if (a && behind && clear && seen) {
        CHECK(memcmp(a, behind, bytes) == 0);
        CHECK(memcmp(a, clear, bytes) == 0);
        CHECK(memcmp(a, seen, bytes) != 0);
        /* and it is a sky: bluer than red, brighter toward the zenith */
        CHECK(px(a, 48, 24, 16)[2] > px(a, 48, 24, 16)[0]);
        CHECK(px(a, 48, 24, 0)[2] != px(a, 48, 24, 31)[2]);
    }
    free(a), free(behind), free(clear), free(seen);
    ng_graph_free(g);
}

/* A dense box lit from +x, seen from -y: its right part (near the sun) is
 * brighter than its left part, whose light crossed the whole box. */
static void test_side_toward_the_sun_is_brighter(void)
{
    ng_graph *g = ng_graph_new();
    int dense = t_const(g, 1);
    ng_view_opts v;
    ng_render_opts o;
    float *p;
    small_box(&v, 24);
    face_camera(&v);
    ng_view_sun(&v, 90, 5); /* toward +x, low */
    t_opts(&o, 64, 64);
    p = view(g, dense, &v, &o);
    CHECK(p != NULL);
    if (p) {
        /* the box spans about the middle third of the picture */
        float left = luma(px(p, 64, 25, 32)), right = luma(px(p, 64, 38, 32));
        CHECKF(right > left + 0.1f, "toward the sun %g, away %g", right, left);
    }
    free(p);
    /* the other way round with the sun toward -x */
    ng_view_sun(&v, 270, 5);
    p = view(g, dense, &v, &o);
    CHECK(p != NULL);
    if (p) CHECK(luma(px(p, 64, 25, 32)) > luma(px(p, 64, 38, 32)) + 0.1f);
    free(p);
    ng_graph_free(g);
}

/* Looking up through the box at the zenith: a thin box leaves the sky
 * almost as it is, and a denser one changes it more (in that regime the
 * light the box scatters and the sky it hides both grow with its optical
 * depth); an opaque box hides the sky: ten times its density looks the
 * same, unlike the thin box. */
static void test_denser_hides_more_sky(void)
{
    static const double density[] = {0, 0.0001, 0.002, 0.02, 5, 50};
    ng_graph *g = ng_graph_new();
    int one = t_const(g, 1), k;
    ng_view_opts v;
    ng_render_opts o;
    float rgb[6][3] = {{0}}, change[6] = {0};
    small_box(&v, 16);
    v.has_camera = v.has_look_at = 1;
    v.camera[0] = v.camera[1] = v.look_at[0] = v.look_at[1] = v.look_at[2] = 8;
    v.camera[2] = -40;
    ng_view_sun(&v, 30, 60);
    t_opts(&o, 33, 33);
    for (k = 0; k < 6; k++) {
        float *p;
        v.density_scale = density[k];
        p = view(g, one, &v, &o);
        CHECK(p != NULL);
        if (!p) continue;
        memcpy(rgb[k], px(p, 33, 16, 16), sizeof rgb[k]);
        free(p);
        change[k] = fabsf(rgb[k][0] - rgb[0][0]) + fabsf(rgb[k][1] - rgb[0][1]) + fabsf(rgb[k][2] - rgb[0][2]);
        if (k >= 2 && k <= 3)
            CHECKF(change[k] > change[k - 1], "density scale %g changes the sky by %g, not more than %g", density[k],
                   change[k], change[k - 1]);
    }
    CHECKF(change[1] < 0.03f, "a thin box changes the sky by %g", change[1]);
    CHECKF(fabsf(rgb[5][0] - rgb[4][0]) + fabsf(rgb[5][1] - rgb[4][1]) + fabsf(rgb[5][2] - rgb[4][2]) < 0.02f,
           "an opaque box still changes with density: %g,%g,%g vs %g,%g,%g", rgb[4][0], rgb[4][1], rgb[4][2], rgb[5][0],
           rgb[5][1], rgb[5][2]);
    CHECKF(change[4] > 0.1f, "an opaque box looks like the sky (%g)", change[4]);
    ng_graph_free(g);
}

/* Each preset and a camera of one's own see another picture; the
 * density changes with them, not only the sky. */
static void test_camera_changes_the_picture(void)
{
    ng_graph *g = ng_graph_new();
    int root = lumps(g), i, j;
    ng_view_opts v;
    ng_render_opts o;
    float *p[4];
    const size_t bytes = 40 * 30 * 3 * sizeof(float);
    small_box(&v, 20);
    t_opts(&o, 40, 30);
    v.preset = NG_VIEW_THREE_QUARTER;
    p[0] = view(g, root, &v, &o);
    v.preset = NG_VIEW_SIDE;
    p[1] = view(g, root, &v, &o);
    v.preset = NG_VIEW_TOP;
    p[2] = view(g, root, &v, &o);
    face_camera(&v);
    v.camera[0] += 7;
    p[3] = view(g, root, &v, &o);
    for (i = 0; i < 4; i++) CHECK(p[i] != NULL);
    for (i = 0; i < 4; i++)
        for (j = i + 1; j < 4; j++)
            if (p[i] && p[j] && memcmp(p[i], p[j], bytes) == 0)
                ng_t_fail(__FILE__, __LINE__, "camera %d and %d give the same picture", i, j);
    for (i = 0; i < 4; i++) free(p[i]);
    ng_graph_free(g);
}

/* Whether pixel (x, y) of pic is the sky's own. */
static int is_sky(const float *pic, const float *sky, int w, int x, int y)
{
    return memcmp(px(pic, w, x, y), px(sky, w, x, y), 3 * sizeof(float)) == 0;
}

/* The box's corners are all in a preset's picture, and it fills a good
 * part of it: a dense box leaves sky on every edge of the picture, and
 * covers its centre. */
static void test_preset_frames_the_box(void)
{
    ng_graph *g = ng_graph_new();
    int dense = t_const(g, 1), empty = t_const(g, 0), preset, x, y;
    ng_view_opts v;
    ng_render_opts o;
    small_box(&v, 16);
    v.box[2] = 8;
    t_opts(&o, 48, 36);
    for (preset = NG_VIEW_THREE_QUARTER; preset <= NG_VIEW_TOP; preset++) {
        float *p, *sky;
        int edge_box = 0;
        v.preset = (ng_view_preset)preset;
        p = view(g, dense, &v, &o);
        sky = view(g, empty, &v, &o);
        CHECK(p && sky);
        if (!p || !sky) continue;
        for (x = 0; x < 48; x++) edge_box += !is_sky(p, sky, 48, x, 0) + !is_sky(p, sky, 48, x, 35);
        for (y = 0; y < 36; y++) edge_box += !is_sky(p, sky, 48, 0, y) + !is_sky(p, sky, 48, 47, y);
        CHECKF(edge_box == 0, "preset %d: the box touches the picture's edge at %d pixels", preset, edge_box);
        CHECKF(!is_sky(p, sky, 48, 24, 18), "preset %d: the box misses the centre", preset);
        free(p), free(sky);
    }
    ng_graph_free(g);
}

/* ---- terrain --------------------------------------------------------------------------- */

static void test_terrain_plane_is_one_colour(void)
{
    ng_graph *g = ng_graph_new();
    int plane = t_const(g, 0.5), i;
    ng_view_opts v;
    ng_render_opts o;
    float *p;
    ng_view_defaults(&v, NG_VIEW_TERRAIN);
    t_opts(&o, 37, 29);
    o.tile = 16;
    p = view(g, plane, &v, &o);
    CHECK(p != NULL);
    for (i = 1; p && i < 37 * 29; i++)
        if (memcmp(p, p + 3 * i, 3 * sizeof(float))) {
            ng_t_fail(__FILE__, __LINE__, "pixel %d has another colour", i);
            break;
        }
    if (p) CHECK(p[1] > p[2]); /* mid height is grass: greener than blue */
    free(p);
    ng_graph_free(g);
}

/* The sea level moves the shore: a plane at 0.4 is land (not blue) at the
 * default 0.3 and water (bluest) at 0.5, flat either way; the default
 * given explicitly is the same picture; the grey ramp is grey. */
static void test_terrain_sea_level_and_ramp(void)
{
    ng_graph *g = ng_graph_new();
    int plane = t_const(g, 0.4), slope = t_bin(g, "mul", t_finish_ok(g, t_begin(g, "x")), t_const(g, 0.05)), i;
    ng_view_opts v;
    ng_render_opts o;
    float *land, *sea, *a, *b;
    ng_view_defaults(&v, NG_VIEW_TERRAIN);
    t_opts(&o, 16, 12);
    land = view(g, plane, &v, &o);
    v.sea_level = 0.5;
    sea = view(g, plane, &v, &o);
    CHECK(land && sea);
    if (land && sea) {
        CHECK(land[2] < land[1]);  /* grass */
        CHECK(sea[2] > sea[0] && sea[2] > sea[1]);  /* water */
    }
    free(land), free(sea);
    ng_view_defaults(&v, NG_VIEW_TERRAIN);
    a = view(g, slope, &v, &o);
    v.sea_level = 0.3;
    b = view(g, slope, &v, &o);
    CHECK(a && b && !memcmp(a, b, 16 * 12 * 3 * sizeof(float)));
    free(b);
    v.ramp = NG_RAMP_GREY;
    b = view(g, slope, &v, &o);
    for (i = 0; b && i < 16 * 12; i++)
        if (b[3 * i] != b[3 * i + 1] || b[3 * i] != b[3 * i + 2]) {
            ng_t_fail(__FILE__, __LINE__, "grey ramp: pixel %d is not grey", i);
            break;
        }
    CHECK(a && b && memcmp(a, b, 16 * 12 * 3 * sizeof(float)));
    free(a), free(b);
    ng_graph_free(g);
}

/* Height rising toward +x: the slope faces -x. Lit from -x it is brighter
 * than lit from +x, and brighter than a plane of its height lit the same
 * way... at the same pixel, the same colour ramp. */
static void test_terrain_slope_facing_the_sun_is_brighter(void)
{
    ng_graph *g = ng_graph_new();
    ng_node *xn = t_begin(g, "x");
    int x = t_finish(g, xn);
    int slope = t_bin(g, "add", t_bin(g, "mul", x, t_const(g, 0.002)), t_const(g, 0.5));
    ng_view_opts v;
    ng_render_opts o;
    float *toward, *away;
    ng_view_defaults(&v, NG_VIEW_TERRAIN);
    v.height_scale = 100;
    t_opts(&o, 32, 32);
    ng_view_sun(&v, 270, 30); /* the sun toward -x */
    toward = view(g, slope, &v, &o);
    ng_view_sun(&v, 90, 30);
    away = view(g, slope, &v, &o);
    CHECK(toward && away);
    if (toward && away)
        CHECKF(luma(px(toward, 32, 16, 16)) > luma(px(away, 32, 16, 16)) + 0.05f, "facing %g, away %g",
               luma(px(toward, 32, 16, 16)), luma(px(away, 32, 16, 16)));
    free(toward), free(away);
    ng_graph_free(g);
}

/* The terrain ramp (the default) shows the ground as erosion leaves it:
 * ground too steep for soil is bare rock, whatever its height (a plane
 * at 60 degrees, at the height of grass, is not green; the height ramp,
 * the colours before 0.2.0, draws it green), and a hollow is darker and a
 * ridge brighter than the flank between them, under the same light: the
 * same pixels of a V-shaped valley and of a ridge, against the height
 * ramp (whose shade is the light alone). */
static void test_terrain_rock_and_hollows(void)
{
    ng_graph *g = ng_graph_new();
    const int x = t_finish(g, t_begin(g, "x")), d = t_bin(g, "sub", x, t_const(g, 16.5));
    const int vee = t_bin(g, "max", d, t_bin(g, "sub", t_const(g, 0), d));
    const int valley = t_bin(g, "add", t_const(g, 0.5), t_bin(g, "mul", vee, t_const(g, 0.004)));
    const int ridge = t_bin(g, "sub", t_const(g, 0.6), t_bin(g, "mul", vee, t_const(g, 0.004)));
    const int steep = t_bin(g, "add", t_const(g, 0.3), t_bin(g, "mul", x, t_const(g, 0.01)));
    ng_view_opts v;
    ng_render_opts o;
    float *a, *b;
    int k;
    ng_view_defaults(&v, NG_VIEW_TERRAIN);
    t_opts(&o, 32, 20);
    v.height_scale = 173.2; /* the plane's slope: 0.01 x 173.2 = tan 60 degrees */
    a = view(g, steep, &v, &o);
    v.ramp = NG_RAMP_HEIGHT;
    b = view(g, steep, &v, &o);
    CHECK(a && b);
    if (a && b) {
        const float *r = px(a, 32, 20, 10), *h = px(b, 32, 20, 10); /* height 0.505: grass */
        CHECKF(r[0] >= r[1] && r[0] > r[2], "a 60 degree slope at height 0.5: rgb %g %g %g, not rock", r[0], r[1],
               r[2]);
        CHECKF(h[1] > h[0] + 0.05f, "the height ramp's grass at 0.5: rgb %g %g %g", h[0], h[1], h[2]);
    }
    free(a), free(b);
    ng_view_sun(&v, 0, 90); /* overhead: the flanks lit alike */
    v.height_scale = 100;   /* the flanks at 22 degrees: soil */
    for (k = 0; k < 2; k++) {
        const int root = k ? ridge : valley;
        float ratio[2];
        int j;
        v.ramp = NG_RAMP_TERRAIN;
        a = view(g, root, &v, &o);
        v.ramp = NG_RAMP_HEIGHT;
        b = view(g, root, &v, &o);
        CHECK(a && b);
        if (!a || !b) break;
        for (j = 0; j < 2; j++) /* the fold (pixel 16, at d = 0) and a flank */
            ratio[j] = luma(px(a, 32, j ? 8 : 16, 10)) / luma(px(b, 32, j ? 8 : 16, 10));
        CHECKF(fabsf(ratio[1] - 1) < 0.01f, "%s: a straight flank's shade changed by %g", k ? "ridge" : "valley",
               ratio[1]);
        if (k) CHECKF(ratio[0] > 1.08f, "a ridge's crest is not brighter: %g of the height ramp's", ratio[0]);
        else CHECKF(ratio[0] < 0.92f, "a valley's floor is not darker: %g of the height ramp's", ratio[0]);
        free(a), free(b);
    }
    ng_graph_free(g);
}

/* ---- refused ------------------------------------------------------------------------------ */

static void expect_refused(const ng_graph *g, int root, const ng_view_opts *v, const ng_render_opts *o,
                           const char *needle)
{
    picture p = {0, 0, 0, NULL};
    ng_sink s = {pic_begin, pic_rows, pic_end, &p, NULL, NULL};
    ng_error err = {{0}};
    CHECK(ng_view_render(g, root, v, o, &s, &err) == -1);
    CHECK_CONTAINS(err.msg, needle);
    CHECK(p.px == NULL); /* refused before the sink began */
    free(p.px);
}

static void test_api_refuses_bad_options(void)
{
    ng_graph *g = ng_graph_new();
    int one = t_const(g, 1), vec = t_vnoise(g, "perlin", 8, 1);
    ng_node *tn = t_begin(g, "time");
    int t = t_finish(g, tn);
    ng_view_opts v;
    ng_render_opts o;
    t_opts(&o, 16, 16);
    small_box(&v, 8);
    v.fov = 0;
    expect_refused(g, one, &v, &o, "--fov");
    small_box(&v, 8);
    v.step = 0;
    expect_refused(g, one, &v, &o, "--step");
    small_box(&v, 8);
    v.box[1] = 0;
    expect_refused(g, one, &v, &o, "--volume");
    small_box(&v, 8);
    v.sun[0] = v.sun[1] = v.sun[2] = 0;
    expect_refused(g, one, &v, &o, "--sun");
    small_box(&v, 8);
    v.has_camera = v.has_look_at = 1;
    v.camera[0] = v.look_at[0] = 3;
    expect_refused(g, one, &v, &o, "stands on the point");
    small_box(&v, 8);
    v.density_scale = NAN;
    expect_refused(g, one, &v, &o, "--density-scale");
    small_box(&v, 8);
    expect_refused(g, vec, &v, &o, "3 channels");
    expect_refused(g, t, &v, &o, "samples the density in 3D");
    o.depth = 4;
    expect_refused(g, one, &v, &o, "draws an image");
    o.depth = 0;
    ng_view_defaults(&v, NG_VIEW_TERRAIN);
    v.height_scale = -1;
    expect_refused(g, one, &v, &o, "--height-scale");
    ng_graph_free(g);
}

/* ---- the program ------------------------------------------------------------------------- */

static const char CLOUD[] = "local n = ng.fbm{source = ng.perlin{element_size = 8, seed = 2}, octaves = 3}\n"
                            "return ((n - 0.1) * 3):clamp(0, 1)\n";

static void test_cli_writes_pictures(void)
{
    char s[PATHLEN], o[PATHLEN], o2[PATHLEN];
    unsigned w, h;
    int depth, ctype;
    res r;
    mkscript(s, "cloud.lua", CLOUD);
    tpath(o, "cloud.png");
    cli(&r, "preview", s, "-o", o, "--size", "40x24", "--volume", "16x16x12", "--voxel-size", "1.5", "--origin",
        "-3,2,1", "--threads", "2", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(ihdr(o, &w, &h, &depth, &ctype));
    CHECK_INT(w, 40);
    CHECK_INT(h, 24);
    CHECK_INT(depth, 8);
    CHECK_INT(ctype, PNG_COLOR_TYPE_RGB);
    /* one thread, other tiles, the options in another order: the same file */
    tpath(o2, "cloud2.png");
    cli(&r, "preview", "--origin", "-3,2,1", "--tile", "8", s, "--voxel-size", "1.5", "--threads", "1", "-o", o2,
        "--volume", "16x16x12", "--size", "40x24", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(o, o2));
    /* the camera is the user's to move */
    cli(&r, "preview", s, "-o", o2, "--size", "40x24", "--volume", "16x16x12", "--voxel-size", "1.5", "--origin",
        "-3,2,1", "--view-preset", "top", "--sun", "0.3,0.2,1", "--fov", "30", "--step", "0.5", "--density-scale",
        "2", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(!same_bytes(o, o2));
    /* 16-bit PNG and PFM */
    cli(&r, "preview", s, "-o", o2, "--size", "20x10", "--volume", "8x8x8", "--bits", "16", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(ihdr(o2, &w, &h, &depth, &ctype));
    CHECK_INT(depth, 16);
    tpath(o2, "cloud.pfm");
    cli(&r, "preview", s, "-o", o2, "--size", "20x10", "--volume", "8x8x8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    {
        size_t len = 0;
        unsigned char *b = slurp(o2, &len);
        CHECK(b && len > 2 && b[0] == 'P' && b[1] == 'F'); /* PF: colour */
        free(b);
    }
    /* a terrain */
    mkscript(s, "hills.lua", "return ng.perlin{element_size = 16}:fit(-1, 1, 0, 1)\n");
    tpath(o2, "hills.png");
    cli(&r, "preview", s, "-o", o2, "--view", "terrain", "--size", "30x20", "--origin", "100,-40", "--sun", "200,30",
        "--height-scale", "12", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(ihdr(o2, &w, &h, &depth, &ctype));
    CHECK_INT(w, 30);
    CHECK_INT(ctype, PNG_COLOR_TYPE_RGB);
}

static void test_cli_usage_errors(void)
{
    static const struct {
        const char *opt, *value, *needle;
    } bad[] = {
        {"--fov", "0", "--fov"},
        {"--fov", "abc", "'abc'"},
        {"--view", "sideways", "volume|terrain"},
        {"--view-preset", "front", "three-quarter|side|top"},
        {"--volume", "0x4x4", "--volume"},
        {"--volume", "4x4", "WxHxD"},
        {"--volume", "4.5x4x4", "WxHxD"},
        {"--origin", "1,2", "X,Y,Z"},
        {"--origin", "1,2,3,4", "--origin"},
        {"--sun", "1", "AZ,EL"},
        {"--step", "0", "--step"},
        {"--density-scale", "-1", "--density-scale"},
        {"--height-scale", "3", "only a terrain view"},
        {"--z", "3", "--z"},
        {"--pixel-size", "2", "--voxel-size"},
    };
    char s[PATHLEN], o[PATHLEN];
    size_t i;
    res r;
    mkscript(s, "usage.lua", CLOUD);
    tpath(o, "usage.png");
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cli(&r, "preview", s, "-o", o, "--size", "8", bad[i].opt, bad[i].value, NULL);
        EXPECT_ERR(&r, 2, bad[i].needle);
        res_free(&r);
    }
    cli(&r, "preview", s, "-o", o, "--fov", "30", "--fov", "40", NULL);
    EXPECT_ERR(&r, 2, "--fov", "twice");
    res_free(&r);
    cli(&r, "preview", s, "-o", o, "--view", "terrain", "--camera", "1,2,3", NULL);
    EXPECT_ERR(&r, 2, "--camera", "only a volume view");
    res_free(&r);
    cli(&r, "preview", s, "-o", o, "--view", "terrain", "--origin", "1,2,3", NULL);
    EXPECT_ERR(&r, 2, "--origin", "X,Y");
    res_free(&r);
    cli(&r, "preview", s, "-o", o, "--tileable", NULL);
    EXPECT_ERR(&r, 2, "--tileable");
    res_free(&r);
    cli(&r, "preview", s, "--fov", NULL);
    EXPECT_ERR(&r, 2, "--fov", "needs a value");
    res_free(&r);
    cli(&r, "preview", s, NULL);
    EXPECT_ERR(&r, 2, "-o FILE");
    res_free(&r);
    cli(&r, "preview", s, "-o", o, "--camera-pos", "1,2,3", NULL);
    EXPECT_ERR(&r, 2, "--camera-pos", "unknown option");
    res_free(&r);
    CHECK(!exists(o));
    /* the render's flags stay flags: the word after --quiet is read as a view option */
    cli(&r, "preview", s, "-o", o, "--quiet", "--fov", "0", NULL);
    EXPECT_ERR(&r, 2, "--fov");
    res_free(&r);
    cli(&r, "preview", "--help", NULL);
    CHECK_INT(r.code, 0);
    CHECK_CONTAINS(r.out, "--view-preset");
    res_free(&r);
    /* a camera on the point it looks at, a sun of no direction: usage
     * errors (2) before the script runs, not render failures (1) */
    cli(&r, "preview", s, "-o", o, "--size", "8", "--camera", "1,2,3", "--look-at", "1,2,3", NULL);
    EXPECT_ERR(&r, 2, "--camera, --look-at: the camera stands on the point it looks at");
    res_free(&r);
    cli(&r, "preview", s, "-o", o, "--size", "8", "--volume", "8x8x8", "--camera", "4,4,4", NULL); /* the box's centre */
    EXPECT_ERR(&r, 2, "stands on the point it looks at");
    res_free(&r);
    cli(&r, "preview", s, "-o", o, "--size", "8", "--sun", "0,0,0", NULL);
    EXPECT_ERR(&r, 2, "--sun", "not a nonzero finite vector");
    res_free(&r);
    cli(&r, "render", s, "--view", "terrain", "-o", o, "--size", "8", "--sun", "0,0,0", NULL);
    EXPECT_ERR(&r, 2, "--sun");
    res_free(&r);
    CHECK(!exists(o));
}

/* A view writes the picture formats its help names, .png and .pfm, and
 * refuses the others (it wrote .exr and .nrrd without a word). */
static void test_cli_view_formats(void)
{
    static const char *const refused[] = {"v.exr", "v.nrrd", "v.r16", "v.vdb"};
    char s[PATHLEN], o[PATHLEN];
    size_t i;
    res r;
    mkscript(s, "formats.lua", CLOUD);
    for (i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        tpath(o, refused[i]);
        cli(&r, "preview", s, "-o", o, "--size", "8", "--volume", "8x8x8", NULL);
        EXPECT_ERR(&r, 2, o, "a view draws one picture, into .png or .pfm");
        res_free(&r);
        cli(&r, "render", s, "--view", "terrain", "-o", o, "--size", "8", NULL);
        EXPECT_ERR(&r, 2, "a view draws one picture");
        res_free(&r);
        CHECK(!exists(o));
    }
    tpath(o, "V.PFM");
    cli(&r, "preview", s, "-o", o, "--size", "8", "--volume", "8x8x8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(exists(o));
}

/* --sea-level and --terrain-ramp on the command line: another picture,
 * the default given explicitly the same file; out of range, a usage error. */
static void test_cli_terrain_controls(void)
{
    char s[PATHLEN], a[PATHLEN], b[PATHLEN];
    res r;
    mkscript(s, "ter.lua", "return ng.perlin{element_size = 6, range = \"unit\"}\n");
    tpath(a, "ter_default.pfm");
    tpath(b, "ter_moved.pfm");
    cli(&r, "render", s, "--view", "terrain", "-o", a, "--size", "16", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s, "--view", "terrain", "-o", b, "--size", "16", "--sea-level", "0.3", "--terrain-ramp",
        "terrain", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(same_bytes(a, b));
    cli(&r, "preview", s, "--view", "terrain", "-o", b, "--size", "16", "--sea-level", "0.6", "--height-scale", "4",
        "--terrain-ramp", "grey", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(!same_bytes(a, b));
    /* --classic draws the terrain colours before 0.2.0: the height ramp,
     * unless another is given */
    {
        char c[PATHLEN], d[PATHLEN];
        tpath(c, "ter_classic.pfm");
        tpath(d, "ter_height.pfm");
        cli(&r, "preview", s, "--view", "terrain", "-o", c, "--size", "16", "--classic", NULL);
        EXPECT_OK(&r);
        res_free(&r);
        cli(&r, "preview", s, "--view", "terrain", "-o", d, "--size", "16", "--classic", "--terrain-ramp", "height",
            NULL);
        EXPECT_OK(&r);
        res_free(&r);
        CHECK(same_bytes(c, d));
        cli(&r, "preview", s, "--view", "terrain", "-o", d, "--size", "16", "--classic", "--terrain-ramp", "terrain",
            NULL);
        EXPECT_OK(&r);
        res_free(&r);
        CHECK(!same_bytes(c, d)); /* the same heights (--classic's), the terrain ramp */
    }
    cli(&r, "preview", s, "--view", "terrain", "-o", b, "--sea-level", "1.5", NULL);
    EXPECT_ERR(&r, 2, "--sea-level", "0.01 to 0.99");
    res_free(&r);
    cli(&r, "preview", s, "--view", "terrain", "-o", b, "--terrain-ramp", "heat", NULL);
    EXPECT_ERR(&r, 2, "--terrain-ramp", "terrain|grey|height");
    res_free(&r);
    cli(&r, "preview", s, "-o", b, "--sea-level", "0.5", NULL);
    EXPECT_ERR(&r, 2, "--sea-level", "terrain");
    res_free(&r);
}

/* render --view draws what preview draws, through the same path: the same
 * file, byte for byte, for a volume (preview's default view) and a
 * terrain, with the view options anywhere on the line. */
static void test_cli_render_view_is_preview(void)
{
    char s[PATHLEN], a[PATHLEN], b[PATHLEN];
    res r;
    mkscript(s, "same.lua", CLOUD);
    tpath(a, "by_render.png");
    tpath(b, "by_preview.png");
    cli(&r, "render", s, "--view", "volume", "-o", a, "--size", "36x20", "--volume", "12x12x10", "--origin", "2,-1,3",
        "--voxel-size", "1.5", "--sun", "40,30", "--view-preset", "side", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "preview", s, "-o", b, "--size", "36x20", "--volume", "12x12x10", "--origin", "2,-1,3", "--voxel-size",
        "1.5", "--sun", "40,30", "--view-preset", "side", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(exists(a) && same_bytes(a, b));
    /* a picture, not the density itself: RGB at the picture's size */
    {
        unsigned w = 0, h = 0;
        int depth = 0, ctype = 0;
        CHECK(ihdr(a, &w, &h, &depth, &ctype));
        CHECK_INT(w, 36);
        CHECK_INT(ctype, PNG_COLOR_TYPE_RGB);
    }
    /* the defaults are the first words of --view and --view-preset */
    tpath(a, "default_view.png");
    tpath(b, "first_words.png");
    cli(&r, "preview", s, "-o", a, "--size", "20x12", "--volume", "8x8x8", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "render", s, "-o", b, "--size", "20x12", "--volume", "8x8x8", "--view", "volume", "--view-preset",
        "three-quarter", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(exists(a) && same_bytes(a, b));
    tpath(a, "terrain_by_render.pfm");
    tpath(b, "terrain_by_preview.pfm");
    cli(&r, "render", s, "-o", a, "--size", "24x16", "--origin", "5,7", "--pixel-size", "2", "--view", "terrain",
        "--height-scale", "9", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "preview", s, "--view", "terrain", "-o", b, "--size", "24x16", "--origin", "5,7", "--pixel-size", "2",
        "--height-scale", "9", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(exists(a) && same_bytes(a, b));
}

/* A script of several outputs is viewed by its output named `height`,
 * as serve pictures it, not by its first in name order (graphs/
 * terrain_eroded.lua's `flow` mask, lit as terrain, came first). */
static void test_cli_view_takes_the_height(void)
{
    char s[PATHLEN], a[PATHLEN], b[PATHLEN];
    res r;
    mkscript(s, "named.lua",
             "local h = ng.perlin{element_size = 12, seed = 3}\n"
             "return {flow = ng.perlin{element_size = 5, seed = 9}, height = h, colour = ng.vector{h, h, h}}\n");
    tpath(a, "named_view.png");
    tpath(b, "named_only.png");
    cli(&r, "preview", s, "--view", "terrain", "-o", a, "--size", "24x16", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    cli(&r, "preview", s, "--view", "terrain", "--only", "height", "-o", b, "--size", "24x16", NULL);
    EXPECT_OK(&r);
    res_free(&r);
    CHECK(exists(a) && same_bytes(a, b));
}

/* An option is refused, in one line naming it and where it belongs, by a
 * command that does not read it: view options by render without --view,
 * the other view's options by a view, the render's volume and tiling
 * options by a view, and the picture options by info and dot. */
static void test_cli_options_refused_by_other_commands(void)
{
    static const struct {
        const char *cmd, *opt, *value, *view, *needle1, *needle2;
    } bad[] = {
        {"render", "--camera", "1,2,3", NULL, "is for preview", "render --view volume"},
        {"render", "--fov", "30", NULL, "is for preview", "render --view volume"},
        {"render", "--sun", "10,20", NULL, "is for preview", "render --view"},
        {"render", "--height-scale", "2", NULL, "is for preview --view terrain", "render --view terrain"},
        {"render", "--camera", "1,2,3", "terrain", "only a volume view", "terrain view"},
        {"preview", "--height-scale", "2", "volume", "only a terrain view", "volume view"},
        {"preview", "--voxel-size", "2", "terrain", "only a volume view", "terrain view"},
        {"preview", "--brick", "16", NULL, "is for render", "not a view"},
        {"render", "--vdb-background", "0.5", "volume", "is for render", "not a view"},
        {"render", "--tileable", NULL, "terrain", "a view is a picture", "--tileable"},
        {"preview", "--size", "8x8x8", NULL, "one picture", "--volume WxHxD"},
        {"render", "--region", "0,0,0,2,2,2", "volume", "one picture", "X,Y,W,H"},
        {"info", "--size", "16", NULL, "info reads the script alone", "--set"},
        {"dot", "--view", "terrain", NULL, "dot reads the script alone", "--memory-limit"},
        {"info", "--threads", "2", NULL, "is for render and preview", "info"},
    };
    char s[PATHLEN], o[PATHLEN];
    size_t i;
    res r;
    mkscript(s, "refused.lua", CLOUD);
    tpath(o, "refused.png");
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[16];
        int n = 0;
        args[n++] = bad[i].cmd;
        args[n++] = s;
        if (strcmp(bad[i].cmd, "info") && strcmp(bad[i].cmd, "dot")) args[n++] = "-o", args[n++] = o;
        if (bad[i].view) args[n++] = "--view", args[n++] = bad[i].view;
        args[n++] = bad[i].opt;
        if (bad[i].value) args[n++] = bad[i].value;
        args[n] = NULL;
        run_argv(&r, DEFAULT_TIMEOUT, args);
        EXPECT_ERR(&r, 2, bad[i].opt, bad[i].needle1, bad[i].needle2);
        res_free(&r);
    }
    CHECK(!exists(o));
}

/* Graphs a view cannot draw: one line, exit 1, the old file untouched and
 * no temporary left. */
/* A failed preview left o's "old bytes" (put_file) as they were, and no
 * temporary. */
static void expect_untouched(const char *o)
{
    size_t len = 0;
    unsigned char *b = slurp(o, &len);
    CHECK(b && len == 9 && !memcmp(b, "old bytes", 9));
    free(b);
    CHECK_INT(count_entries(tmpdir, ".tmp-"), 0);
}

static void test_cli_graph_errors_leave_files_alone(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    tpath(o, "kept.png");
    put_file(o, "old bytes");
    mkscript(s, "timed.lua", "return ng.time() * 0.1\n");
    cli(&r, "preview", s, "-o", o, "--size", "8", NULL);
    EXPECT_ERR(&r, 1, "volume view", "3D", "time");
    res_free(&r);
    mkscript(s, "vec.lua", "return ng.perlin{output = \"vector\"}\n");
    cli(&r, "preview", s, "-o", o, "--size", "8", NULL);
    EXPECT_ERR(&r, 1, s, "no 1-channel output");
    res_free(&r);
    /* stopped mid-picture by its time limit */
    mkscript(s, "slow.lua", CLOUD);
    cli(&r, "preview", s, "-o", o, "--size", "600", "--volume", "64x64x64", "--render-time-limit", "0.001", NULL);
    EXPECT_ERR(&r, 1, "render time limit");
    res_free(&r);
    expect_untouched(o);
}

/* The CLI's time limit holds where no ray meets the box: tiles of sky alone run
 * no node, whose evaluation was the only place the deadline was read (a
 * 16384^2 preview looking away from the volume ran 21 s past a 1 s limit
 * and wrote its picture). */
static void test_sky_alone_stops_at_the_time_limit(void)
{
    char s[PATHLEN], o[PATHLEN];
    res r;
    tpath(o, "sky.png");
    put_file(o, "old bytes");
    mkscript(s, "away.lua", CLOUD);
    cli(&r, "preview", s, "-o", o, "--size", "1024", "--volume", "64x64x64", "--camera", "32,32,1000", "--look-at",
        "32,32,2000", "--render-time-limit", "0.001", NULL);
    EXPECT_ERR(&r, 1, "render:", "render time limit of 0.001 s");
    res_free(&r);
    expect_untouched(o);
}

/* The program's tests must not pass by not running. */
static void test_cli_needs_its_environment(void) { CHECKF(0, "NG_BIN and NG_ROOT must name the program and the tree"); }

/* A density half full everywhere (perlin > 0): a .vdb of 32^3 voxels of
 * it compresses to far more than 4 KiB. */
static const char half_full[] = "return ng.perlin{element_size = 8, seed = 1}\n";

/* A dense layer two voxels thick across the whole box, seen from the top,
 * is a white sheet in the preview wherever it lies. The reviewed march
 * crossed "empty" space four voxels at a time looking only at each span's
 * far end, so at some heights (bottom 10 or 13.5 of a 32-voxel box) the
 * layer fell between two looks and the picture was bare sky. */
static void test_preview_sees_a_thin_dense_layer(void)
{
    static const double bottoms[] = {10.0, 11.0, 13.5};
    size_t i;
    for (i = 0; i < sizeof bottoms / sizeof bottoms[0]; i++) {
        char s[PATHLEN], out[PATHLEN], text[512];
        unsigned char *px;
        int w = 0, h = 0;
        res r;
        snprintf(text, sizeof text,
                 "return ng.height_profile{bottom = %g, top = %g, shape = \"custom\",\n"
                 "                         curve = {{0, 0}, {0.01, 1}, {0.99, 1}, {1, 0}}} * 5\n",
                 bottoms[i], bottoms[i] + 2);
        mkscript(s, "layer.lua", text);
        tpath(out, "layer.png");
        cli(&r, "preview", s, "-o", out, "--size", "16x16", "--volume", "32x32x32", "--view-preset", "top",
            NULL);
        EXPECT_OK(&r);
        res_free(&r);
        px = decode(out, PNG_FORMAT_RGB, &w, &h);
        CHECK(px && w == 16 && h == 16);
        if (px && w == 16 && h == 16) {
            /* the corner is sky beside the box; the centre looks straight down into the layer */
            const unsigned char *sky = px, *mid = px + (8 * 16 + 8) * 3;
            CHECKF(memcmp(sky, mid, 3) != 0, "layer at z %g..%g: the centre is sky (%d,%d,%d)", bottoms[i],
                   bottoms[i] + 2, mid[0], mid[1], mid[2]);
        }
        free(px);
    }
}

/* `noisegraph --help` is how a user finds the subcommands; preview is one. */
static void test_help_lists_preview(void)
{
    res r;
    cli(&r, "--help", NULL);
    CHECK_INT(r.code, 0);
    CHECK_CONTAINS(r.out, "noisegraph preview");
    res_free(&r);
}

/* --vdb-background on a preview (a PNG) does nothing: refused, as render
 * refuses it for any output that is not a .vdb, never silently dropped. */
static void test_preview_refuses_vdb_background(void)
{
    char s[PATHLEN], out[PATHLEN];
    res r;
    mkscript(s, "half.lua", half_full);
    tpath(out, "bg.png");
    cli(&r, "preview", s, "-o", out, "--size", "8x8", "--volume", "8x8x8", "--vdb-background", "0.5", NULL);
    EXPECT_ERR(&r, 2, "--vdb-background");
    res_free(&r);
    CHECK(!exists(out));
}

NG_SUITE(preview, fast)
{
    RUN(test_volume_same_bits_any_threads_tiles);
    RUN(test_terrain_same_bits_any_threads_tiles);
    RUN(test_terrain_rock_and_hollows);
    RUN(test_empty_density_is_exactly_the_sky);
    RUN(test_side_toward_the_sun_is_brighter);
    RUN(test_denser_hides_more_sky);
    RUN(test_camera_changes_the_picture);
    RUN(test_preset_frames_the_box);
    RUN(test_terrain_plane_is_one_colour);
    RUN(test_terrain_sea_level_and_ramp);
    RUN(test_terrain_slope_facing_the_sun_is_brighter);
    RUN(test_api_refuses_bad_options);
    if (cli_setup("preview")) {
        RUN(test_cli_needs_its_environment);
        return;
    }
    RUN(test_cli_writes_pictures);
    RUN(test_cli_usage_errors);
    RUN(test_cli_view_formats);
    RUN(test_cli_terrain_controls);
    RUN(test_cli_render_view_is_preview);
    RUN(test_cli_view_takes_the_height);
    RUN(test_cli_options_refused_by_other_commands);
    RUN(test_cli_graph_errors_leave_files_alone);
    RUN(test_sky_alone_stops_at_the_time_limit);
    RUN(test_preview_sees_a_thin_dense_layer);
    RUN(test_help_lists_preview);
    RUN(test_preview_refuses_vdb_background);
    cli_teardown();
}
