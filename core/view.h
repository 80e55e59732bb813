/*
 * view.h — what the views share among core/view.c (the public entry, the
 * checks), view_volume.c (the cloud ray-march) and view_terrain.c (the
 * hillshaded heightmap). A view is a tile job (ng__render_job): the tile
 * engine hands it rectangles of pixels and it asks the engine for the
 * samples it needs, in blocks of at most tile^2 points.
 */
#ifndef NG_VIEW_H
#define NG_VIEW_H

#include "ng_internal.h"

/* Samples along one direction from a point, nearest first: a shadow ray
 * toward the sun, or the short looks up and down that estimate how much
 * of the sky (and of the light the ground sends back) reaches a point. */
enum { NG_VIEW_MAX_PROBES = 12 };
typedef struct ng__probe {
    double dir[3];                      /* unit */
    int n;
    double at[NG_VIEW_MAX_PROBES];      /* world distance of sample j */
    float len[NG_VIEW_MAX_PROBES];      /* voxels of the path sample j stands for */
    float footprint[NG_VIEW_MAX_PROBES]; /* wider far away: a cone, fewer octaves */
} ng__probe;

typedef struct ng__view {
    const ng_graph *g;
    int root;
    const ng_view_opts *v;
    ng_render_opts o;   /* the caller's, with the dims the view samples in */
    int cap;            /* points per block: the render's tile^2 */
    double sun[3];      /* unit, toward the sun */
    /* volume */
    double lo[3], size[3]; /* the box's corner (every block's anchor) and extent, world */
    double vs, ds;         /* voxel edge, march step, world units */
    float kstep;           /* optical depth of one step per unit of density */
    double cam[3], fwd[3], right[3], up[3], tan_x, tan_y;
    ng__probe shadow, skyward, groundward;
    /* terrain */
    double height_scale;
    float sea;    /* the sea level */
    int moved;    /* 1: the sea is not the ramp's own shore: heights are mapped onto the ramp */
} ng__view;

/* The terrain ramp's own shore: its water ends here. */
#define NG__SEA_LEVEL 0.3

/* Setup (0, or -1 with err filled) and the tile job of each kind. */
/* Whether a camera at cam can look at target: fwd, the unit direction
 * between them, is set when they are far enough apart for one. */
int ng__view_camera_aims(const double cam[3], const double target[3], double fwd[3]);
int ng__view_volume_setup(ng__view *w, ng_error *err);
int ng__view_volume_run(void *user, ng_ctx *c, int x0, int y0, int w, int h, float *const *out);
int ng__view_terrain_setup(ng__view *w, ng_error *err);
int ng__view_terrain_run(void *user, ng_ctx *c, int x0, int y0, int w, int h, float *const *out);

#endif
