/*
 * view.c — views: pictures of an output drawn on top
 * of the engine, not nodes inside the graph. This file is the public entry:
 * defaults, the checks every option gets before a sample is taken, and the
 * hand-over to the tile engine; the pictures themselves are drawn by
 * view_volume.c and view_terrain.c.
 */
#include "view.h"
#include "ngmath.h"

#include <math.h>
#include <string.h>

/* The box an embedder gets without saying: 128^3 unit voxels, the size a
 * first look at a cloud script wants (seconds on two cores). */
enum { DEFAULT_BOX = 128 };

void ng_view_defaults(ng_view_opts *v, ng_view_kind kind)
{
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->box[0] = v->box[1] = v->box[2] = DEFAULT_BOX;
    v->voxel_size = 1;
    v->preset = NG_VIEW_THREE_QUARTER;
    v->fov = 40;
    v->density_scale = 0.5;
    v->step = 1;
    v->sea_level = NG__SEA_LEVEL;
    ng_view_sun(v, 315, 40);
}

void ng_view_sun(ng_view_opts *v, double azimuth, double elevation)
{
    const double rad = 3.14159265358979323846 / 180;
    v->sun[0] = ng_sin(azimuth * rad) * ng_cos(elevation * rad);
    v->sun[1] = -ng_cos(azimuth * rad) * ng_cos(elevation * rad);
    v->sun[2] = ng_sin(elevation * rad);
}

static int finite_in(double x, double lo, double hi) { return x >= lo && x <= hi; } /* NaN: no */

static int vec_ok(const double *p, double lim)
{
    return finite_in(p[0], -lim, lim) && finite_in(p[1], -lim, lim) && finite_in(p[2], -lim, lim);
}

/* The options both kinds read; the messages name the CLI's options. */
static int check_common(const ng_view_opts *v, const ng_render_opts *o, ng_error *err)
{
    double s2 = v->sun[0] * v->sun[0] + v->sun[1] * v->sun[1] + v->sun[2] * v->sun[2];
    if (v->kind != NG_VIEW_VOLUME && v->kind != NG_VIEW_TERRAIN)
        return ng_errorf(err, "--view: kind %d is neither volume nor terrain", (int)v->kind);
    if (!vec_ok(v->sun, 1e6) || !(s2 > 1e-12))
        return ng_errorf(err, "--sun: the direction %g,%g,%g is not a nonzero finite vector", v->sun[0], v->sun[1],
                         v->sun[2]);
    if (o->depth)
        return ng_errorf(err, "preview: a view draws an image: --size is the picture's WxH (a volume view's box "
                              "is --volume WxHxD)");
    if (o->tileable) return ng_errorf(err, "preview: --tileable does not apply to a view (a view is a picture)");
    return 0;
}

static int check_volume(const ng_view_opts *v, const ng_render_opts *o, ng_error *err)
{
    int d;
    for (d = 0; d < 3; d++)
        if (v->box[d] < 1 || v->box[d] > NG_MAX_EXTENT)
            return ng_errorf(err, "--volume: %dx%dx%d is not a box from 1x1x1 to %dx%dx%d voxels", v->box[0],
                             v->box[1], v->box[2], NG_MAX_EXTENT, NG_MAX_EXTENT, NG_MAX_EXTENT);
    if (!finite_in(v->voxel_size, NG_MIN_PIXEL_SIZE, NG_MAX_PIXEL_SIZE))
        return ng_errorf(err, "--voxel-size: %g is outside %g to %g", v->voxel_size, NG_MIN_PIXEL_SIZE,
                         NG_MAX_PIXEL_SIZE);
    if (!vec_ok(v->box_origin, NG_MAX_COORD))
        return ng_errorf(err, "--origin: %g,%g,%g: each must be within -%g to %g", v->box_origin[0],
                         v->box_origin[1], v->box_origin[2], NG_MAX_COORD, NG_MAX_COORD);
    if ((v->has_camera && !vec_ok(v->camera, NG_MAX_COORD)) || (v->has_look_at && !vec_ok(v->look_at, NG_MAX_COORD)))
        return ng_errorf(err, "--camera, --look-at: each coordinate must be within -%g to %g", NG_MAX_COORD,
                         NG_MAX_COORD);
    if (v->preset != NG_VIEW_THREE_QUARTER && v->preset != NG_VIEW_SIDE && v->preset != NG_VIEW_TOP)
        return ng_errorf(err, "--view-preset: %d is not side, top or three-quarter", (int)v->preset);
    if (!finite_in(v->fov, 1, 170)) return ng_errorf(err, "--fov: %g is outside 1 to 170 degrees", v->fov);
    if (!finite_in(v->density_scale, 0, 1e6))
        return ng_errorf(err, "--density-scale: %g is outside 0 to 1e6", v->density_scale);
    if (!finite_in(v->step, 0.05, 64)) return ng_errorf(err, "--step: %g is outside 0.05 to 64 voxels", v->step);
    if (o->dims != 2 && o->dims != 3 && o->dims != 4)
        return ng_errorf(err, "preview: %d dimensions asked; a volume is sampled in 3 (or 4 with time)", o->dims);
    return 0;
}

static int check_terrain(const ng_view_opts *v, ng_error *err)
{
    if (!finite_in(v->height_scale, 0, 1e12))
        return ng_errorf(err, "--height-scale: %g is outside 0 (a fifth of the width) to 1e12", v->height_scale);
    if (!finite_in(v->sea_level, 0.01, 0.99))
        return ng_errorf(err, "--sea-level: %g is outside 0.01 to 0.99", v->sea_level);
    if ((unsigned)v->ramp > NG_RAMP_HEIGHT) return ng_errorf(err, "--terrain-ramp: unknown ramp %d", (int)v->ramp);
    return 0;
}

/* The density must be defined in 3D: said in the view's words, naming the
 * node that is not (ng__check_roots finds it). */
static int check_samples(const ng_graph *g, int root, int dims, ng_view_kind kind, ng_error *err)
{
    ng_error e;
    int ch;
    if (ng__check_roots(g, &root, 1, dims, &e)) {
        if (kind == NG_VIEW_VOLUME)
            return ng_errorf(err, "preview: a volume view samples the density in %dD, which this graph cannot: %s "
                                  "(a heightmap wants --view terrain)",
                             dims, e.msg);
        return ng_errorf(err, "preview: %s", e.msg);
    }
    ch = ng_node_channels(ng_graph_node(g, root));
    if (ch != 1)
        return ng_errorf(err, "preview: the output viewed has %d channels; a %s view needs 1", ch,
                         kind == NG_VIEW_VOLUME ? "volume (density)" : "terrain (height)");
    return 0;
}

/* A camera given where it stands on the point it looks at (the box's
 * centre when none is given). A preset camera stands outside the box. */
static int check_camera(const ng_view_opts *v, ng_error *err)
{
    double centre[3], fwd[3];
    int d;
    if (!v->has_camera) return 0;
    for (d = 0; d < 3; d++) centre[d] = v->box_origin[d] + 0.5 * v->box[d] * v->voxel_size;
    if (!ng__view_camera_aims(v->camera, v->has_look_at ? v->look_at : centre, fwd))
        return ng_errorf(err, "--camera, --look-at: the camera stands on the point it looks at");
    return 0;
}

int ng_view_check(const ng_view_opts *v, const ng_render_opts *o, ng_error *err)
{
    if (check_common(v, o, err)) return -1;
    if (v->kind != NG_VIEW_VOLUME) return check_terrain(v, err);
    return check_volume(v, o, err) || check_camera(v, err) ? -1 : 0;
}

int ng_view_render(const ng_graph *g, int root, const ng_view_opts *v, const ng_render_opts *o, ng_sink *sink,
                   ng_error *err)
{
    static const int rgb = 3;
    ng__view w;
    ng__tile_job job;
    double s;
    if (ng_view_check(v, o, err)) return -1;
    memset(&w, 0, sizeof w);
    w.g = g;
    w.root = root;
    w.v = v;
    w.o = *o;
    if (v->kind == NG_VIEW_VOLUME) w.o.dims = o->dims == 4 ? 4 : 3;
    if (root < 0 || root >= ng_graph_count(g))
        return ng_errorf(err, "preview: output node %d does not exist", root);
    if (check_samples(g, root, w.o.dims, v->kind, err)) return -1;
    /* o's tile is checked by the render; until then the block size must
     * not overflow */
    w.cap = o->tile >= 8 && o->tile <= 1024 ? o->tile * o->tile : 64;
    s = sqrt(v->sun[0] * v->sun[0] + v->sun[1] * v->sun[1] + v->sun[2] * v->sun[2]);
    w.sun[0] = v->sun[0] / s;
    w.sun[1] = v->sun[1] / s;
    w.sun[2] = v->sun[2] / s;
    if (v->kind == NG_VIEW_VOLUME ? ng__view_volume_setup(&w, err) : ng__view_terrain_setup(&w, err)) return -1;
    job.run = v->kind == NG_VIEW_VOLUME ? ng__view_volume_run : ng__view_terrain_run;
    job.user = &w;
    job.channels = &rgb;
    return ng__render_job(g, &root, 1, &w.o, &job, sink, err);
}
