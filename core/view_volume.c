/*
 * view_volume.c — a picture of a density as a cloud: the rays of a tile
 * march through the box together, one block of sample points per step,
 * so the engine evaluates the graph on whole blocks as in any render.
 *
 * Light: Beer–Lambert extinction (sigma_t = density * density_scale per
 * voxel length); single scattering of the sun, attenuated along a shadow
 * ray toward it and weighted by a two-lobe Henyey–Greenstein phase
 * function (a strong forward lobe: the silver lining; a weak backward
 * one); the multiple scattering that makes real clouds bright inside is
 * approximated by two more, softer octaves of the same term (Wrenninge's
 * approximation: less extinction, a flatter phase); ambient light, the
 * sky's from above and the ground's from below, each dimmed by the density
 * a few samples up or down (a cheap occlusion estimate). Behind the box: a
 * sky with the sun. Then a filmic tone map to [0, 1] and gamma 1/2.2.
 *
 * Every sample position is a function of the pixel's index (its ray) and
 * the step's index alone, relative to a fixed anchor (the box's corner)
 * with a fixed footprint, and every decision a ray takes (where to step
 * finely, when to stop) reads only its own samples: the picture has the
 * same bits for any thread count and tile size.
 *
 * Every step of a primary ray is sampled: crossing empty space several
 * steps at a time missed layers thinner than the stride (a review found a
 * 2-voxel sheet drawn as bare sky), and costs a third more time here.
 * Shadow rays take a few samples at doubling distances with growing
 * footprints (fractals then skip their fine octaves: a cone, not a line).
 */
#include "view.h"
#include "ngmath.h"

#include <math.h>
#include <string.h>

#define OPAQUE 1e-3f       /* transmittance below which a ray is done */

/* Light, in units of the sky's brightness; chosen by eye for a picture an
 * artist reads as a cumulus in daylight. */
static const float SUN_RGB[3] = {1.00f, 0.95f, 0.86f};
static const float SUN_POWER = 11.0f;      /* sun light relative to the sky */
static const float AMBIENT_RGB[3] = {0.18f, 0.25f, 0.40f};
static const float ZENITH_RGB[3] = {0.10f, 0.26f, 0.70f};
static const float HORIZON_RGB[3] = {0.50f, 0.66f, 0.88f};
static const float GROUND_RGB[3] = {0.26f, 0.36f, 0.56f}; /* haze below the horizon */
static const float EXPOSURE = 1.2f;
static const float G_FORWARD = 0.75f, G_BACK = -0.25f, BACK_WEIGHT = 0.3f;
static const float BOUNCE_RGB[3] = {0.12f, 0.12f, 0.11f}; /* light the ground sends back up */
static const float SKY_EXTINCTION = 0.5f; /* ambient light goes further into a cloud than the sun's */

/* ---- setup ------------------------------------------------------------------ */

static void cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double normalize(double a[3])
{
    double s = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (s > 0) a[0] /= s, a[1] /= s, a[2] /= s;
    return s;
}

int ng__view_camera_aims(const double cam[3], const double target[3], double fwd[3])
{
    int d;
    for (d = 0; d < 3; d++) fwd[d] = target[d] - cam[d];
    return normalize(fwd) > 1e-9 * (1 + fabs(cam[0]) + fabs(cam[1]) + fabs(cam[2]));
}

/* The camera's axes looking along fwd (unit): z is up; looking (almost)
 * straight down or up, +y is the picture's up. */
static void camera_axes(ng__view *w)
{
    static const double up_z[3] = {0, 0, 1}, up_y[3] = {0, 1, 0};
    cross(w->fwd, fabs(w->fwd[2]) > 0.9999 ? up_y : up_z, w->right);
    normalize(w->right);
    cross(w->right, w->fwd, w->up);
}

/* Where a preset puts the camera: along (azimuth, elevation) from the
 * box's centre, just far enough for all eight corners to be in the
 * picture (a corner at c from the centre is in it when its offsets along
 * right and up are within tan * its depth, D - c.u). Sets fwd. */
static void preset_camera(ng__view *w, const double centre[3])
{
    static const double az[] = {[NG_VIEW_THREE_QUARTER] = 215, [NG_VIEW_SIDE] = 215, [NG_VIEW_TOP] = 0};
    static const double el[] = {[NG_VIEW_THREE_QUARTER] = 28, [NG_VIEW_SIDE] = 0, [NG_VIEW_TOP] = 90};
    const double rad = 3.14159265358979323846 / 180;
    const double a = az[w->v->preset] * rad, e = el[w->v->preset] * rad;
    const double u[3] = {ng_sin(a) * ng_cos(e), -ng_cos(a) * ng_cos(e), ng_sin(e)};
    double dist = 0;
    int corner, d;
    for (d = 0; d < 3; d++) w->fwd[d] = -u[d];
    camera_axes(w);
    for (corner = 0; corner < 8; corner++) {
        double c[3], x = 0, y = 0, along = 0, need;
        for (d = 0; d < 3; d++) {
            c[d] = (corner >> d & 1 ? 0.5 : -0.5) * w->size[d];
            x += c[d] * w->right[d];
            y += c[d] * w->up[d];
            along += c[d] * u[d];
        }
        need = fabs(x) / w->tan_x + along;
        if (fabs(y) / w->tan_y + along > need) need = fabs(y) / w->tan_y + along;
        if (need > dist) dist = need;
    }
    dist *= 1.08; /* a margin */
    for (d = 0; d < 3; d++) w->cam[d] = centre[d] + dist * u[d];
}

/* The probes' distances double from a voxel (a step) to the box's
 * diagonal; each sample stands for the path from the previous one. */
static void probe_init(ng__probe *p, const double dir[3], double first, double reach, double vs, int max)
{
    double prev = 0, d = first;
    memcpy(p->dir, dir, sizeof p->dir);
    for (p->n = 0; p->n < max && prev < reach; p->n++, prev = d, d *= 2) {
        double len = d - prev;
        p->at[p->n] = (prev + 0.5 * len) * vs;
        p->len[p->n] = (float)len;
        p->footprint[p->n] = (float)(vs * (len > 2 ? 0.5 * len : 1));
    }
}

int ng__view_volume_setup(ng__view *w, ng_error *err)
{
    const ng_view_opts *v = w->v;
    static const double up_z[3] = {0, 0, 1}, down_z[3] = {0, 0, -1};
    double centre[3], target[3], reach;
    int d;
    w->vs = v->voxel_size;
    w->ds = v->step * v->voxel_size;
    w->kstep = (float)(v->density_scale * v->step);
    for (d = 0; d < 3; d++) {
        w->lo[d] = v->box_origin[d];
        w->size[d] = v->box[d] * v->voxel_size;
        centre[d] = w->lo[d] + 0.5 * w->size[d];
    }
    w->tan_y = ng_tan(0.5 * v->fov * 3.14159265358979323846 / 180);
    w->tan_x = w->tan_y * w->o.width / w->o.height;
    if (v->has_camera) memcpy(w->cam, v->camera, sizeof w->cam);
    else preset_camera(w, centre);
    memcpy(target, v->has_look_at ? v->look_at : centre, sizeof target);
    if (!ng__view_camera_aims(w->cam, target, w->fwd))
        return ng_errorf(err, "--camera, --look-at: the camera stands on the point it looks at");
    camera_axes(w);
    reach = sqrt((double)v->box[0] * v->box[0] + (double)v->box[1] * v->box[1] + (double)v->box[2] * v->box[2]);
    probe_init(&w->shadow, w->sun, v->step > 1 ? v->step : 1, reach, w->vs, NG_VIEW_MAX_PROBES);
    probe_init(&w->skyward, up_z, 2, 30, w->vs, 4);
    probe_init(&w->groundward, down_z, 2, 6, w->vs, 2);
    return 0;
}

/* ---- one tile's rays ------------------------------------------------------------- */

/* Per-ray state, planes of the tile's scratch buffers (see march_alloc). */
typedef struct march {
    int n;                        /* rays: the tile's pixels */
    double *dir[3], *tin;         /* direction (unit) and where the box begins */
    int *k, *kend;                /* next step; steps in the box */
    float *T, *L[3];              /* transmittance, light gathered */
    float *tau_sun, *tau_sky, *tau_ground; /* optical depth (voxels x density) toward the sun, up, down */
    float *dens;                  /* density at the sample */
    int *active, *lit, *map;      /* rays marching; rays whose sample holds density; a block's rays */
    float *p[3], *out;            /* a block's positions and the graph's values there */
    float *buf[7];                /* what was taken from the scratch pool */
} march;

static void march_free(ng_ctx *c, march *m)
{
    int i;
    for (i = 0; i < 7; i++) ng_scratch_free(c, m->buf[i], 4);
}

/* Seven 4-channel scratch buffers, cut into planes of cap floats (or cap
 * doubles for two planes). */
static int march_alloc(ng_ctx *c, int cap, march *m)
{
    int i;
    memset(m, 0, sizeof *m);
    for (i = 0; i < 7; i++)
        if (!(m->buf[i] = ng_scratch(c, 4))) {
            march_free(c, m);
            return -1;
        }
    m->dir[0] = (double *)(void *)m->buf[0];
    m->dir[1] = (double *)(void *)(m->buf[0] + 2 * (size_t)cap);
    m->dir[2] = (double *)(void *)m->buf[1];
    m->tin = (double *)(void *)(m->buf[1] + 2 * (size_t)cap);
    m->k = (int *)(void *)m->buf[2];
    m->kend = (int *)(void *)(m->buf[2] + cap);
    m->active = (int *)(void *)m->buf[3];
    m->lit = (int *)(void *)(m->buf[3] + cap);
    m->map = (int *)(void *)(m->buf[3] + 2 * (size_t)cap);
    m->T = m->buf[4];
    for (i = 0; i < 3; i++) m->L[i] = m->buf[4] + (size_t)(i + 1) * cap;
    m->tau_sun = m->buf[5];
    m->tau_sky = m->buf[5] + cap;
    m->tau_ground = m->buf[5] + 2 * (size_t)cap;
    m->dens = m->buf[5] + 3 * (size_t)cap;
    for (i = 0; i < 3; i++) m->p[i] = m->buf[6] + (size_t)i * cap;
    m->out = m->buf[6] + 3 * (size_t)cap;
    return 0;
}

/* Ray r of the tile: pixel (x, y) of the full picture through the camera. */
static void ray_dir(const ng__view *w, int x, int y, double d[3])
{
    const double sx = (2 * (x + 0.5) / w->o.width - 1) * w->tan_x, sy = (1 - 2 * (y + 0.5) / w->o.height) * w->tan_y;
    int a;
    for (a = 0; a < 3; a++) d[a] = w->fwd[a] + sx * w->right[a] + sy * w->up[a];
    normalize(d);
}

/* Where the ray enters and leaves the box (slabs); 0 when it misses. */
static int box_hit(const ng__view *w, const double d[3], double *t0, double *t1)
{
    double a = 0, b = HUGE_VAL;
    int i;
    for (i = 0; i < 3; i++) {
        double lo = w->lo[i] - w->cam[i], hi = lo + w->size[i], u, v;
        if (d[i] == 0) {
            if (lo > 0 || hi < 0) return 0;
            continue;
        }
        u = lo / d[i];
        v = hi / d[i];
        if (u > v) {
            double s = u;
            u = v;
            v = s;
        }
        if (u > a) a = u;
        if (v < b) b = v;
    }
    *t0 = a;
    *t1 = b;
    return b > a;
}

static void start_rays(const ng__view *w, march *m, int x0, int y0, int tw, int *nactive)
{
    int r;
    *nactive = 0;
    for (r = 0; r < m->n; r++) {
        double d[3], t0, t1;
        ray_dir(w, x0 + r % tw, y0 + r / tw, d);
        m->dir[0][r] = d[0], m->dir[1][r] = d[1], m->dir[2][r] = d[2];
        m->T[r] = 1;
        m->L[0][r] = m->L[1][r] = m->L[2][r] = 0;
        if (!box_hit(w, d, &t0, &t1)) continue;
        m->tin[r] = t0;
        m->k[r] = 0;
        m->kend[r] = (int)ceil((t1 - t0) / w->ds);
        if (m->kend[r] < 1) m->kend[r] = 1;
        m->active[(*nactive)++] = r;
    }
}

/* Step `step` of ray r, relative to the box's corner (the blocks' anchor). */
static void ray_point(const ng__view *w, const march *m, int r, int step, double q[3])
{
    const double t = m->tin[r] + (step + 0.5) * w->ds;
    int a;
    for (a = 0; a < 3; a++) q[a] = w->cam[a] - w->lo[a] + t * m->dir[a][r];
}

/* The graph at n points of m->p, footprint fp, into m->out (densities:
 * NaN and negatives are empty space). */
static int eval_density(const ng__view *w, ng_ctx *c, march *m, int n, float fp)
{
    ng_block b;
    int i;
    memset(&b, 0, sizeof b);
    b.n = n;
    b.dims = w->o.dims;
    memcpy(b.anchor, w->lo, sizeof w->lo);
    b.anchor[3] = w->o.time;
    b.p[0] = m->p[0], b.p[1] = m->p[1], b.p[2] = m->p[2];
    b.p[3] = ng__ctx_zeros(c);
    b.footprint = fp;
    b.pos_id = ng__ctx_tile(c);
    if (ng__eval(c, w->root, &b, m->out, 0)) return -1;
    for (i = 0; i < n; i++)
        if (!(m->out[i] > 0)) m->out[i] = 0;
    return 0;
}

static int inside(const ng__view *w, const double q[3])
{
    return q[0] >= 0 && q[0] < w->size[0] && q[1] >= 0 && q[1] < w->size[1] && q[2] >= 0 && q[2] < w->size[2];
}

/* Optical depth (voxels x density) along probe pr from the current sample
 * of every lit ray, into tau: one block per probe distance, holding the
 * rays whose sample at that distance is still inside the box. */
static int probe(const ng__view *w, ng_ctx *c, march *m, int nlit, const ng__probe *pr, float *tau)
{
    int j, i;
    for (i = 0; i < nlit; i++) tau[m->lit[i]] = 0;
    for (j = 0; j < pr->n; j++) {
        int n = 0;
        for (i = 0; i < nlit; i++) {
            const int r = m->lit[i];
            double q[3];
            int a;
            ray_point(w, m, r, m->k[r] - 1, q);
            for (a = 0; a < 3; a++) q[a] += pr->at[j] * pr->dir[a];
            if (!inside(w, q)) continue;
            for (a = 0; a < 3; a++) m->p[a][n] = (float)q[a];
            m->map[n++] = r;
        }
        if (n == 0) break; /* the box is convex: further samples are outside too */
        if (eval_density(w, c, m, n, pr->footprint[j])) return -1;
        for (i = 0; i < n; i++) tau[m->map[i]] += m->out[i] * pr->len[j];
    }
    return 0;
}

static float hg(float g, float cosv)
{
    const float d = 1 + g * g - 2 * g * cosv;
    return (1 - g * g) / (4 * 3.14159265f * d * sqrtf(d));
}

static float phase(float g_scale, float cosv)
{
    return (1 - BACK_WEIGHT) * hg(G_FORWARD * g_scale, cosv) + BACK_WEIGHT * hg(G_BACK * g_scale, cosv);
}

/* Light scattered toward the camera at ray r's sample, per unit of
 * scattering: the sun through tau_sun (three octaves, each with half the
 * extinction, half the weight and half the anisotropy of the last), the
 * sky through tau_sky and the ground's light through tau_ground. */
static void in_scatter(const ng__view *w, const march *m, int r, float rgb[3])
{
    const float K = (float)w->v->density_scale;
    const float cosv = (float)(m->dir[0][r] * w->sun[0] + m->dir[1][r] * w->sun[1] + m->dir[2][r] * w->sun[2]);
    float sun = 0, weight = 1, ext = 1, gs = 1, sky, ground;
    int o, a;
    for (o = 0; o < 3; o++, weight *= 0.45f, ext *= 0.35f, gs *= 0.5f)
        sun += weight * phase(gs, cosv) * ng_expf(-ext * K * m->tau_sun[r]);
    sun *= SUN_POWER * (w->sun[2] > 0 ? 1.0f : 0.1f); /* a sun below the horizon lights little */
    sky = ng_expf(-SKY_EXTINCTION * K * m->tau_sky[r]);
    ground = ng_expf(-SKY_EXTINCTION * K * m->tau_ground[r]);
    for (a = 0; a < 3; a++) rgb[a] = SUN_RGB[a] * sun + AMBIENT_RGB[a] * sky + BOUNCE_RGB[a] * ground;
}

/* Lit rays: gather the light of their step, then lose what it absorbs. */
static void shade(const ng__view *w, march *m, int nlit)
{
    int i, a;
    for (i = 0; i < nlit; i++) {
        const int r = m->lit[i];
        const float through = ng_expf(-m->dens[r] * w->kstep), taken = m->T[r] * (1 - through);
        float rgb[3];
        in_scatter(w, m, r, rgb);
        for (a = 0; a < 3; a++) m->L[a][r] += taken * rgb[a];
        m->T[r] *= through;
    }
}

/* One step of every active ray: the rays whose sample holds density go to
 * m->lit. Returns how many. */
static int step_rays(const ng__view *w, ng_ctx *c, march *m, int nactive)
{
    int i, nlit = 0;
    for (i = 0; i < nactive; i++) {
        double q[3];
        ray_point(w, m, m->active[i], m->k[m->active[i]], q);
        m->p[0][i] = (float)q[0], m->p[1][i] = (float)q[1], m->p[2][i] = (float)q[2];
    }
    if (eval_density(w, c, m, nactive, (float)w->vs)) return -1;
    for (i = 0; i < nactive; i++) {
        const int r = m->active[i];
        const float d = m->out[i];
        m->k[r]++;
        if (d > 0) {
            m->dens[r] = d;
            m->lit[nlit++] = r;
        }
    }
    return nlit;
}

/* ---- sky and tone ---------------------------------------------------------------- */

static float mixf(float a, float b, float t) { return a + (b - a) * t; }

/* The sky seen along unit d: a zenith-to-horizon gradient, a dim ground
 * below, a glow around the sun and its disc. */
static void sky(const ng__view *w, const double d[3], float rgb[3])
{
    const float e = (float)d[2];
    const float c = (float)(d[0] * w->sun[0] + d[1] * w->sun[1] + d[2] * w->sun[2]);
    const float glow = c > 0 ? 0.25f * ng_powf(c, 8) + 0.6f * ng_powf(c, 300) : 0;
    const float disc = c > 0.99996f ? 40.0f : 0;
    int a;
    for (a = 0; a < 3; a++) {
        float base = e >= 0 ? mixf(HORIZON_RGB[a], ZENITH_RGB[a], 1 - ng_powf(1 - e, 5))
                            : mixf(HORIZON_RGB[a], GROUND_RGB[a], fminf(1, -2 * e));
        rgb[a] = base + SUN_RGB[a] * (glow + disc);
    }
}

/* Filmic curve (Narkowicz's fit of ACES) and gamma 1/2.2: highlights
 * roll off instead of clipping. */
static float tone(float x)
{
    x *= EXPOSURE;
    if (!(x > 0)) return 0;
    x = (x * (2.51f * x + 0.03f)) / (x * (2.43f * x + 0.59f) + 0.14f);
    return ng_powf(x < 1 ? x : 1, 1 / 2.2f);
}

static void finish(const ng__view *w, const march *m, float *out)
{
    int r, a;
    for (r = 0; r < m->n; r++) {
        const double d[3] = {m->dir[0][r], m->dir[1][r], m->dir[2][r]};
        float s[3];
        sky(w, d, s);
        for (a = 0; a < 3; a++) out[(size_t)a * m->n + r] = tone(m->L[a][r] + m->T[r] * s[a]);
    }
}

/* ---- the tile job ------------------------------------------------------------------ */

/* Keeps the rays still in the box and not yet opaque, in order. */
static int still_marching(march *m, int nactive)
{
    int i, n = 0;
    for (i = 0; i < nactive; i++) {
        const int r = m->active[i];
        if (m->k[r] < m->kend[r] && m->T[r] >= OPAQUE) m->active[n++] = r;
    }
    return n;
}

int ng__view_volume_run(void *user, ng_ctx *c, int x0, int y0, int tw, int th, float *const *out)
{
    const ng__view *w = user;
    march m;
    int nactive, nlit, rc = 0;
    if (march_alloc(c, w->cap, &m)) return -1;
    m.n = tw * th;
    start_rays(w, &m, x0, y0, tw, &nactive);
    while (nactive > 0) {
        if ((nlit = step_rays(w, c, &m, nactive)) < 0 || probe(w, c, &m, nlit, &w->shadow, m.tau_sun) ||
            probe(w, c, &m, nlit, &w->skyward, m.tau_sky) || probe(w, c, &m, nlit, &w->groundward, m.tau_ground)) {
            rc = -1;
            break;
        }
        shade(w, &m, nlit);
        nactive = still_marching(&m, nactive);
    }
    if (rc == 0) finish(w, &m, out[0]);
    march_free(c, &m);
    return rc;
}
