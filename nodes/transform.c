/*
 * transform.c — moving, turning and sizing a pattern: the source is pulled
 * at the positions the inverse transform gives, so translate, rotate and
 * scale act on the pattern as written (scale 2 makes its features twice
 * as large). The translation goes into the block's double anchor, so a
 * pattern moved far from the origin keeps full precision; the linear part
 * acts on the small float offsets.
 */
#include "ng_node.h"
#include "types.h"
#include "ngmath.h"

#include <math.h>
#include <stdio.h>

enum { I_SOURCE, NINPUTS };

static const ng_input_desc transform_inputs[NINPUTS] = {
    [I_SOURCE] = {"source", NG_INPUT_PULL, 1, NG_MAX_CHANNELS, 0, "the pattern moved"},
};

enum { P_TRANSLATE, P_ROTATE, P_ANGLE, P_SCALE, NPARAMS };

static const ng_param_desc transform_params[NPARAMS] = {
    [P_TRANSLATE] = {"translate", NG_PARAM_VEC3, {0, 0, 0}, -1e15, 1e15, NULL,
                     "moves the pattern by {x, y, z} world units (applied last)"},
    [P_ROTATE] = {"rotate", NG_PARAM_LIST, {1, 1, 3}, -1e6, 1e6, NULL,
                  "{rx, ry, rz}: degrees about x, then y, then z (after scale, before translate)"},
    [P_ANGLE] = {"angle", NG_PARAM_NUMBER, {0}, -1e6, 1e6, NULL,
                 "degrees about z, from +x towards +y (clockwise in an image, whose y grows downwards): the 2D "
                 "rotation, instead of rotate"},
    [P_SCALE] = {"scale", NG_PARAM_VEC3, {1, 1, 1}, -1e9, 1e9, NULL,
                 "a number or {sx, sy, sz}: 2 makes features twice as large; negative mirrors (applied first)"},
};

typedef struct transform_state {
    /* source position = a (world position - t): a = S^-1 R^T */
    double a[3][3], t[3];
    int linear;   /* a is not the identity */
    int need;     /* the source sees at least this many dimensions */
    double inv_scale[3]; /* 1 / |scale|, for the pixel footprint */
} transform_state;

/* sin and cos of an angle in degrees, exact at multiples of 90 so a
 * quarter or whole turn maps the lattice onto itself bit for bit. */
static void sincos_deg(double deg, double *s, double *c)
{
    static const double quarter_sin[4] = {0, 1, 0, -1};
    double r = fmod(deg, 360.0), q;
    if (r < 0) r += 360.0;
    q = r / 90.0;
    if (q == floor(q)) {
        const int k = (int)q & 3;
        *s = quarter_sin[k];
        *c = quarter_sin[(k + 1) & 3];
        return;
    }
    r *= 3.14159265358979323846 / 180.0;
    *s = ng_sin(r);
    *c = ng_cos(r);
}

static void mat_mul(const double x[3][3], const double y[3][3], double out[3][3])
{
    int i, j, k;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            out[i][j] = 0;
            for (k = 0; k < 3; k++) out[i][j] += x[i][k] * y[k][j];
        }
}

/* R = Rz Ry Rx: about x first, then y, then z (Houdini's default order). */
static void rotation(const double deg[3], double r[3][3])
{
    double sx, cx, sy, cy, sz, cz, zy[3][3];
    sincos_deg(deg[0], &sx, &cx);
    sincos_deg(deg[1], &sy, &cy);
    sincos_deg(deg[2], &sz, &cz);
    {
        const double rx[3][3] = {{1, 0, 0}, {0, cx, -sx}, {0, sx, cx}};
        const double ry[3][3] = {{cy, 0, sy}, {0, 1, 0}, {-sy, 0, cy}};
        const double rz[3][3] = {{cz, -sz, 0}, {sz, cz, 0}, {0, 0, 1}};
        mat_mul(rz, ry, zy);
        mat_mul(zy, rx, r);
    }
}

/* The axes the transform mixes: 3 when z meets x or y, 2 when x meets y. */
static int axes_needed(const double a[3][3])
{
    if (a[0][2] != 0 || a[1][2] != 0 || a[2][0] != 0 || a[2][1] != 0) return 3;
    if (a[0][1] != 0 || a[1][0] != 0) return 2;
    return 1;
}

/* Render dimensions d the node takes: those where the source evaluates in
 * max(d, need), since a render of fewer axes is lifted to the mixed ones. */
static unsigned lifted_dims(unsigned src, int need)
{
    unsigned out = 0;
    int d;
    for (d = 1; d <= 4; d++)
        if (src & (1u << (d > need ? d : need))) out |= 1u << d;
    return out;
}

static int read_rotation(const ng_node *n, double deg[3], ng_error *err)
{
    const ng_value *rot = &n->param[P_ROTATE];
    int d;
    deg[0] = deg[1] = deg[2] = 0;
    if (rot->count && ng_node_param_set(n, P_ANGLE))
        return ng_errorf(err, "%s: give rotate = {rx, ry, rz} or angle, not both", n->label);
    if (rot->count && rot->count != 3)
        return ng_errorf(err, "%s: rotate takes 3 angles {rx, ry, rz} in degrees, got %d; a 2D rotation is angle "
                              "= degrees", n->label, rot->count);
    for (d = 0; d < 3 && rot->count; d++) deg[d] = rot->list[d];
    if (!rot->count) deg[2] = ng_num(n, P_ANGLE);
    return 0;
}

static int transform_setup(ng_node *n, const int *ch, ng_error *err)
{
    const double *sc = n->param[P_SCALE].v, *tr = n->param[P_TRANSLATE].v;
    static const char axis[3] = {'x', 'y', 'z'};
    double deg[3], r[3][3], smallest = HUGE_VAL;
    transform_state *s;
    int i, j;
    if (read_rotation(n, deg, err)) return -1;
    for (i = 0; i < 3; i++)
        if (!(fabs(sc[i]) >= 1e-9))
            return ng_errorf(err, "%s: scale along %c is %g; it must be at least 1e-9 in size (a pattern cannot "
                                  "shrink to nothing)", n->label, axis[i], sc[i]);
    if (!(s = ng_node_state_alloc(n, sizeof *s, err))) return -1;
    rotation(deg, r);
    for (i = 0; i < 3; i++) {
        s->t[i] = tr[i];
        s->inv_scale[i] = 1.0 / fabs(sc[i]);
        if (fabs(sc[i]) < smallest) smallest = fabs(sc[i]);
        for (j = 0; j < 3; j++) {
            s->a[i][j] = r[j][i] / sc[i];
            s->linear |= s->a[i][j] != (i == j ? 1.0 : 0.0);
        }
    }
    s->need = axes_needed(s->a);
    if (!(n->dims = lifted_dims(n->dims, s->need)))
        return ng_errorf(err, "%s: this rotation mixes z into the plane, and the source does not evaluate in 3D",
                         n->label);
    n->detail *= smallest; /* features scale with the pattern */
    n->channels = ch[I_SOURCE];
    return 0;
}

/* Tiling holds for a moved pattern (a shifted repeat repeats), not for a
 * turned or resized one. */
static int transform_tile_check(const ng_node *n, const double period[4], int dims, char *buf, size_t len)
{
    const transform_state *s = n->state;
    (void)period;
    (void)dims;
    if (!s->linear) return 0;
    snprintf(buf, len, "%s%s%s: a rotated or scaled pattern does not repeat with the image, so it cannot tile; "
                       "translate alone can (or scale the source's element_size instead)",
             n->where ? n->where : "", n->where ? ": " : "", n->label);
    return -1;
}

static int transform_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const transform_state *s = n->state;
    const int dims = b->dims > s->need ? b->dims : s->need, spatial = dims < 3 ? dims : 3;
    float *pos = NULL;
    double widest = 0;
    ng_block sb = *b;
    int i, j, k, rc;
    (void)in;
    sb.dims = dims;
    for (i = 0; i < spatial; i++) {
        /* the anchor's image in double: exact far from the origin */
        double anchor = 0;
        for (j = 0; j < 3; j++) anchor += s->a[i][j] * (b->anchor[j] - s->t[j]);
        sb.anchor[i] = anchor;
        if (s->inv_scale[i] > widest) widest = s->inv_scale[i];
    }
    if (s->linear) {
        if (!(pos = ng_scratch(ctx, spatial))) return -1;
        for (i = 0; i < spatial; i++) {
            float *p = pos + (size_t)i * (size_t)b->n;
            for (k = 0; k < b->n; k++)
                p[k] = (float)(s->a[i][0] * b->p[0][k] + s->a[i][1] * b->p[1][k] + s->a[i][2] * b->p[2][k]);
            sb.p[i] = p;
        }
        sb.footprint = (float)(b->footprint * widest);
    }
    sb.pos_id = ng_new_pos_id(ctx);
    rc = ng_pull_channels(ctx, n, I_SOURCE, &sb, out, b->channels);
    ng_scratch_free(ctx, pos, spatial);
    return rc;
}

const ng_node_type ng_type_transform = {
    .name = "transform", .family = "warp",
    .doc = "the source moved, turned and sized as written: scale, then rotate (x, y, z), then translate; the "
           "source is sampled at the inverse-transformed positions. Far from the origin stays exact; a "
           "tileable render takes translate only",
    .params = transform_params, .nparams = NPARAMS, .inputs = transform_inputs, .ninputs = NINPUTS,
    .dims = NG_DIMS_ALL, .method = "transform", .positional = "source", .setup = transform_setup,
    .tile_check = transform_tile_check, .eval = transform_eval,
};
