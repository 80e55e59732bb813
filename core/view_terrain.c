/*
 * view_terrain.c — a picture of a heightmap: a colour ramp by height
 * (water, sand, grass, forest, rock, snow) lit by a hillshade from the sun.
 *
 * A tile evaluates its heights with a border of BORDER pixels, (w + 2
 * BORDER) x (h + 2 BORDER) points in blocks of at most tile^2, at the very
 * positions a render of the same options samples (pixel centres from the
 * render's origin): the slope at a pixel comes from its neighbours'
 * heights, the hollows from those BORDER away, and every height depends
 * on its pixel's index alone, so tiles and threads do not show.
 *
 * The terrain ramp (0.2.0's default) reads the ground as a terrain artist's
 * preview does (Gaea's, World Machine's): bare rock where it is too steep
 * for soil, from about 32 degrees, whatever the height (snow and meadow
 * do not hold on cliffs), and hollows (gullies, valley floors) darker
 * than the ridges between them, from how far a pixel lies below the mean
 * of the heights around it (an ambient occlusion of one scale). Erosion's
 * gullies and ridges show in it as they do in those tools; a colour by
 * height alone drew a whole flank one colour. NG_RAMP_HEIGHT keeps that
 * colour and its bits (--classic).
 */
#include "view.h"

#include <math.h>
#include <string.h>

/* Below the sea level (NG__SEA_LEVEL unless moved) the ground is water:
 * drawn flat, its colour by depth. */
static const float AMBIENT = 0.3f, DIFFUSE = 0.8f;
/* The border the hollows read: the ring of pixels BORDER away. */
#define BORDER 2
/* Bare rock: its colour low and high, and the normal's z (the cosine of
 * the slope) where it starts (32 degrees) and covers the ground (52). */
static const float ROCK_LOW[3] = {0.40f, 0.36f, 0.32f}, ROCK_HIGH[3] = {0.60f, 0.58f, 0.56f};
static const float ROCK_FROM = 0.85f, ROCK_FULL = 0.62f;
/* Hollows: the light times 1 - HOLLOW q, q the height (world units) the
 * ring lies above the pixel over the ring's radius (world units), within
 * [HOLLOW_RIDGE, HOLLOW_DEEP]: a gully whose walls rise at 45 degrees is
 * q of about 0.7. */
static const float HOLLOW = 0.55f, HOLLOW_RIDGE = -0.35f, HOLLOW_DEEP = 0.75f;

/* ORDER: heights (ascending) and their colours; linear between stops. */
static const struct stop {
    float at, rgb[3];
} RAMP[] = {
    {0.00f, {0.04f, 0.12f, 0.30f}}, /* deep water */
    {(float)NG__SEA_LEVEL, {0.12f, 0.36f, 0.55f}}, /* shallow water */
    {(float)NG__SEA_LEVEL, {0.80f, 0.74f, 0.54f}}, /* sand */
    {0.34f, {0.74f, 0.70f, 0.50f}},
    {0.40f, {0.40f, 0.58f, 0.26f}}, /* grass */
    {0.56f, {0.22f, 0.42f, 0.18f}}, /* forest */
    {0.70f, {0.46f, 0.41f, 0.35f}}, /* rock */
    {0.84f, {0.58f, 0.55f, 0.52f}},
    {0.90f, {0.94f, 0.95f, 0.97f}}, /* snow */
    {1.00f, {1.00f, 1.00f, 1.00f}},
};
enum { NSTOPS = sizeof RAMP / sizeof RAMP[0] };

int ng__view_terrain_setup(ng__view *w, ng_error *err)
{
    (void)err;
    w->height_scale = w->v->height_scale > 0 ? w->v->height_scale : 0.2 * w->o.width * w->o.pixel_size;
    w->sea = (float)w->v->sea_level;
    w->moved = w->v->sea_level != NG__SEA_LEVEL;
    return 0;
}

void ng_view_ramp(float h, float rgb[3])
{
    int i = 1, a;
    float t;
    if (!(h > RAMP[0].at)) h = RAMP[0].at; /* NaN too */
    if (h > RAMP[NSTOPS - 1].at) h = RAMP[NSTOPS - 1].at;
    while (i < NSTOPS - 1 && h >= RAMP[i].at) i++;
    t = RAMP[i].at > RAMP[i - 1].at ? (h - RAMP[i - 1].at) / (RAMP[i].at - RAMP[i - 1].at) : 1;
    for (a = 0; a < 3; a++) rgb[a] = RAMP[i - 1].rgb[a] + (RAMP[i].rgb[a] - RAMP[i - 1].rgb[a]) * t;
}

/* Heights of pixels x0 - BORDER .. x0 + w - 1 + BORDER, y0 - BORDER ..
 * y0 + h - 1 + BORDER into hgt, row by row, in blocks of at most cap
 * points. */
static int heights(const ng__view *w, ng_ctx *c, int x0, int y0, int bw, int bh, float *hgt, float *px, float *py)
{
    const double ps = w->o.pixel_size;
    const int n = bw * bh;
    int start;
    for (start = 0; start < n; start += w->cap) {
        const int m = n - start < w->cap ? n - start : w->cap;
        ng_block b;
        int i;
        for (i = 0; i < m; i++) {
            const int at = start + i;
            px[i] = (float)(((double)(x0 - BORDER + at % bw) + 0.5) * ps);
            py[i] = (float)(((double)(y0 - BORDER + at / bw) + 0.5) * ps);
        }
        memset(&b, 0, sizeof b);
        b.n = m;
        b.dims = w->o.dims;
        b.anchor[0] = w->o.origin[0];
        b.anchor[1] = w->o.origin[1];
        b.anchor[2] = w->o.z;
        b.anchor[3] = w->o.time;
        b.p[0] = px;
        b.p[1] = py;
        b.p[2] = b.p[3] = ng__ctx_zeros(c);
        b.footprint = (float)ps;
        b.pos_id = ng__ctx_tile(c);
        if (ng__eval(c, w->root, &b, hgt + start, 0)) return -1;
    }
    for (start = 0; start < n; start++)
        if (!(hgt[start] == hgt[start])) hgt[start] = 0; /* NaN: no height */
    return 0;
}

/* The colour of height h: the ramp's (its shore moved to the sea level:
 * water below scaled onto the ramp's water, land above onto its land), or
 * grey. */
static void colour(const ng__view *w, float h, float rgb[3])
{
    const float shore = (float)NG__SEA_LEVEL;
    if (w->v->ramp == NG_RAMP_GREY) {
        rgb[0] = rgb[1] = rgb[2] = h > 0.0f ? (h < 1.0f ? h : 1.0f) : 0.0f;
        return;
    }
    if (w->moved)
        h = h < w->sea ? shore * h / w->sea : shore + (1.0f - shore) * (h - w->sea) / (1.0f - w->sea);
    ng_view_ramp(h, rgb);
}

static float smooth01(float a, float b, float x)
{
    float t = (x - a) / (b - a);
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    return t * t * (3.0f - 2.0f * t);
}

/* The terrain ramp's ground: bare rock over the height's colour where the
 * ground is steep (nz, the normal's z), and the hollows' shade, a factor
 * of the light, from the heights BORDER pixels away (a bordered row of bw
 * values). */
static float ground(const ng__view *w, const float *hgt, int at, int bw, float nz, float rgb[3])
{
    static const int ring[8][2] = {{-1, -1}, {0, -1}, {1, -1}, {-1, 0}, {1, 0}, {-1, 1}, {0, 1}, {1, 1}};
    const float h = hgt[at], rock = smooth01(ROCK_FROM, ROCK_FULL, nz);
    const float high = smooth01(0.5f, 0.95f, h);
    double sum = 0, q;
    int a, k;
    for (a = 0; a < 3; a++) {
        const float r = ROCK_LOW[a] + (ROCK_HIGH[a] - ROCK_LOW[a]) * high;
        rgb[a] += (r - rgb[a]) * rock;
    }
    for (k = 0; k < 8; k++) sum += hgt[at + BORDER * (ring[k][0] + ring[k][1] * bw)];
    /* the ring's mean above h, in world units over the ring's mean radius */
    q = (sum / 8 - h) * w->height_scale / (BORDER * 1.2071067811865476 * w->o.pixel_size);
    q = q < HOLLOW_RIDGE ? HOLLOW_RIDGE : q > HOLLOW_DEEP ? HOLLOW_DEEP : q;
    return 1.0f - HOLLOW * (float)q;
}

/* Colour of the pixel at hgt[at] (a bordered row of bw values). */
static void shade(const ng__view *w, const float *hgt, int at, int bw, float rgb[3])
{
    const float h = hgt[at];
    const double k = w->height_scale / (2 * w->o.pixel_size);
    double n[3] = {0, 0, 1}, len, lambert;
    float hollow = 1.0f;
    int a;
    if (h >= w->sea) {
        n[0] = -(hgt[at + 1] - hgt[at - 1]) * k;
        n[1] = -(hgt[at + bw] - hgt[at - bw]) * k;
    }
    len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    lambert = (n[0] * w->sun[0] + n[1] * w->sun[1] + n[2] * w->sun[2]) / len;
    colour(w, h, rgb);
    if (w->v->ramp == NG_RAMP_TERRAIN && h >= w->sea) hollow = ground(w, hgt, at, bw, (float)(1 / len), rgb);
    for (a = 0; a < 3; a++) rgb[a] *= (AMBIENT + DIFFUSE * (float)(lambert > 0 ? lambert : 0)) * hollow;
}

int ng__view_terrain_run(void *user, ng_ctx *c, int x0, int y0, int tw, int th, float *const *out)
{
    const ng__view *w = user;
    const int bw = tw + 2 * BORDER, bh = th + 2 * BORDER;
    /* (tile + 2 BORDER)^2 <= 4 tile^2 for tiles of 8 and more */
    float *hgt = ng_scratch(c, 4), *px = ng_scratch(c, 1), *py = ng_scratch(c, 1);
    int rc = -1, i, j, a;
    if (hgt && px && py && heights(w, c, x0, y0, bw, bh, hgt, px, py) == 0) {
        for (j = 0; j < th; j++)
            for (i = 0; i < tw; i++) {
                float rgb[3];
                shade(w, hgt, (j + BORDER) * bw + i + BORDER, bw, rgb);
                for (a = 0; a < 3; a++) out[0][(size_t)a * tw * th + (size_t)j * tw + i] = rgb[a];
            }
        rc = 0;
    }
    ng_scratch_free(c, hgt, 4);
    ng_scratch_free(c, px, 1);
    ng_scratch_free(c, py, 1);
    return rc;
}
