/*
 * view_terrain.c — a picture of a heightmap: a colour ramp by height
 * (water, sand, grass, forest, rock, snow) lit by a hillshade from the sun.
 *
 * A tile evaluates its heights with a one-pixel border, (w + 2) x (h + 2)
 * points in blocks of at most tile^2, at the very positions a render of
 * the same options samples (pixel centres from the render's origin): the
 * slope at a pixel comes from its neighbours' heights, and every height
 * depends on its pixel's index alone, so tiles and threads do not show.
 */
#include "view.h"

#include <math.h>
#include <string.h>

/* Below the sea level (NG__SEA_LEVEL unless moved) the ground is water:
 * drawn flat, its colour by depth. */
static const float AMBIENT = 0.3f, DIFFUSE = 0.8f;

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

/* Heights of pixels x0 - 1 .. x0 + w, y0 - 1 .. y0 + h into hgt, row by
 * row, in blocks of at most cap points. */
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
            px[i] = (float)(((double)(x0 - 1 + at % bw) + 0.5) * ps);
            py[i] = (float)(((double)(y0 - 1 + at / bw) + 0.5) * ps);
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

/* Colour of the pixel at hgt[at] (a bordered row of bw values). */
static void shade(const ng__view *w, const float *hgt, int at, int bw, float rgb[3])
{
    const float h = hgt[at];
    const double k = w->height_scale / (2 * w->o.pixel_size);
    double n[3] = {0, 0, 1}, len, lambert;
    int a;
    if (h >= w->sea) {
        n[0] = -(hgt[at + 1] - hgt[at - 1]) * k;
        n[1] = -(hgt[at + bw] - hgt[at - bw]) * k;
    }
    len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    lambert = (n[0] * w->sun[0] + n[1] * w->sun[1] + n[2] * w->sun[2]) / len;
    colour(w, h, rgb);
    for (a = 0; a < 3; a++) rgb[a] *= AMBIENT + DIFFUSE * (float)(lambert > 0 ? lambert : 0);
}

int ng__view_terrain_run(void *user, ng_ctx *c, int x0, int y0, int tw, int th, float *const *out)
{
    const ng__view *w = user;
    const int bw = tw + 2, bh = th + 2;
    /* (tile + 2)^2 <= 4 tile^2 for tiles of 8 and more */
    float *hgt = ng_scratch(c, 4), *px = ng_scratch(c, 1), *py = ng_scratch(c, 1);
    int rc = -1, i, j, a;
    if (hgt && px && py && heights(w, c, x0, y0, bw, bh, hgt, px, py) == 0) {
        for (j = 0; j < th; j++)
            for (i = 0; i < tw; i++) {
                float rgb[3];
                shade(w, hgt, (j + 1) * bw + i + 1, bw, rgb);
                for (a = 0; a < 3; a++) out[0][(size_t)a * tw * th + (size_t)j * tw + i] = rgb[a];
            }
        rc = 0;
    }
    ng_scratch_free(c, hgt, 4);
    ng_scratch_free(c, px, 1);
    ng_scratch_free(c, py, 1);
    return rc;
}
