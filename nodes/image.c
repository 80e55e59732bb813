/*
 * image.c — an image file as a source: world positions map onto image
 * pixels (origin = the world position of the image's top-left corner,
 * pixel_size = world units per image pixel), with repeat, clamp or mirror
 * beyond the edges and nearest or bilinear filtering.
 */
#include "ng_node.h"
#include "types.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const wrap_choices[] = {"repeat", "clamp", "mirror", NULL};
static const char *const filter_choices[] = {"bilinear", "nearest", NULL};
static const char *const channel_choices[] = {"gray", "r", "g", "b", "a", "rgb", NULL};

enum { P_PATH, P_WRAP, P_FILTER, P_CHANNEL, P_ORIGIN, P_PIXEL, NPARAMS };
enum { C_GRAY, C_R, C_G, C_B, C_A, C_RGB };

static const ng_param_desc image_params[NPARAMS] = {
    {"path", NG_PARAM_PATH, {0}, 0, 0, NULL,
     "the image file (PNG, JPEG, TGA or BMP; 8 or 16 bit), relative to the script"},
    {"wrap", NG_PARAM_ENUM, {0}, 0, 0, wrap_choices, "beyond the edges: repeat the image, clamp to its edge, or mirror it"},
    {"filter", NG_PARAM_ENUM, {0}, 0, 0, filter_choices, "bilinear (smooth) or nearest (blocky) between pixels"},
    {"channel", NG_PARAM_ENUM, {0}, 0, 0, channel_choices,
     "gray (luminance, Rec. 709), one of r g b a, or rgb (a 3-channel vector)"},
    {"origin", NG_PARAM_VEC3, {0, 0, 0}, -1e15, 1e15, NULL, "world position of the image's top-left corner"},
    {"pixel_size", NG_PARAM_NUMBER, {1}, 1e-9, 1e12, NULL, "world units per image pixel"},
};

enum { W_REPEAT, W_CLAMP, W_MIRROR };

/* The node's state: the pixels as the graph's image loader gave them (width * height
 * * channels floats, no wider RGBA copy, not copied again) and its size. */
typedef struct picture {
    int width, height, channels;
    float *px; /* taken over from the loader, freed by free_picture */
} picture;

static void free_picture(void *state)
{
    picture *pic = state;
    free(pic->px);
}

static int image_setup(ng_node *n, const int *ch, ng_error *err)
{
    const char *path = n->param[P_PATH].s;
    ng_image img;
    picture *pic;
    (void)ch;
    if (!path || !*path) return ng_errorf(err, "%s: needs a path", n->label);
    if (!(pic = ng_node_state_alloc(n, sizeof *pic, err))) return -1;
    /* the decode may take what the graph's budget has left; the floats it
     * returns are kept as they are (no copy) and charged */
    if (!n->load_image)
        return ng_errorf(err, "%s: this program reads no image files (the graph has no image loader: "
                              "ng_graph_set_image_loader)", n->label);
    if (n->load_image(path, &img, ng_node_budget_left(n), err)) {
        ng_error e = *err;
        return ng_errorf(err, "%s: %s", n->label, e.msg);
    }
    pic->px = img.px;
    pic->width = img.width;
    pic->height = img.height;
    pic->channels = img.channels;
    if (ng_node_charge(n, (size_t)img.width * (size_t)img.height * (size_t)img.channels * sizeof(float), err))
        return -1; /* the state, pixels and all, goes with the node */
    n->channels = ng_int(n, P_CHANNEL) == C_RGB ? 3 : 1;
    n->detail = ng_num(n, P_PIXEL);
    return 0;
}

int ng_node_image(const ng_node *n, ng_image *view)
{
    const picture *pic = n->type == &ng_type_image ? n->state : NULL;
    if (!pic) return -1;
    view->width = pic->width;
    view->height = pic->height;
    view->channels = pic->channels;
    view->px = pic->px;
    return 0;
}

/* Pixel f (a whole number, |f| < 2^53) of an axis of `size` pixels, taken
 * into [0, size) by the wrap mode. In double: fmod is exact, and no int
 * conversion happens before the index is in range. */
static size_t wrap_index(double f, int size, int mode)
{
    const double s = size;
    double r;
    if (mode == W_CLAMP) return f < 0 ? 0 : f >= s ? (size_t)size - 1 : (size_t)f;
    if (mode == W_REPEAT) {
        r = fmod(f, s);
        return (size_t)(r < 0 ? r + s : r);
    }
    r = fmod(f, 2 * s); /* mirror: 0 1 .. s-1 s-1 .. 1 0 0 1 .. */
    if (r < 0) r += 2 * s;
    return (size_t)(r < s ? r : 2 * s - 1 - r);
}

/* From 2^52 pixels out a double has no fraction bits left: the place
 * inside a pixel is lost, and repeat or mirror cannot tell which pixel of
 * its period a position is. Clamp can: everything out there is the edge. */
#define FAR_PIXELS 4503599627370496.0 /* 2^52 */

/* Where image coordinate u (pixel centres at i + 0.5) falls along one axis:
 * the pixel i0 (nearest), or the pixels i0, i1 bilinear filtering blends
 * with weight t on i1. -1 when u is too far out to place exactly. */
typedef struct axis {
    size_t i0, i1;
    float t;
} axis;

static int locate(double u, int size, int mode, int nearest, axis *a)
{
    double f;
    if (mode == W_CLAMP) /* past a pixel beyond the edge all is the edge: keep u small */
        u = u < -1 ? -1 : u > size + 1.0 ? size + 1.0 : u;
    else if (!(fabs(u) < FAR_PIXELS))
        return -1;
    if (nearest) {
        a->i0 = a->i1 = wrap_index(floor(u), size, mode);
        a->t = 0;
        return 0;
    }
    u -= 0.5;
    f = floor(u);
    a->t = (float)(u - f);
    a->i0 = wrap_index(f, size, mode);
    a->i1 = wrap_index(f + 1, size, mode);
    return 0;
}

/* The picked channel of the pixel at index idx (y * width + x). */
static float texel(const float *px, int ch, size_t idx, int pick)
{
    const float *t = px + idx * (size_t)ch;
    const float r = t[0], g = ch >= 3 ? t[1] : r, b = ch >= 3 ? t[2] : r;
    switch (pick) {
    case C_R: return r;
    case C_G: return g;
    case C_B: return b;
    case C_A: return ch == 2 ? t[1] : ch == 4 ? t[3] : 1.0f; /* no alpha: opaque */
    default: /* gray: a grey pixel is its own luminance, exactly */
        return r == g && g == b ? r : 0.2126f * r + 0.7152f * g + 0.0722f * b;
    }
}

static int image_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const picture *pic = n->state;
    const float *px = pic->px;
    const int w = pic->width, h = pic->height, ch = pic->channels;
    const int wrap = ng_int(n, P_WRAP), nearest = ng_int(n, P_FILTER) == 1, pick = ng_int(n, P_CHANNEL);
    const double size = ng_num(n, P_PIXEL), *org = n->param[P_ORIGIN].v;
    /* the anchor's offset from the image's origin first: exact when both are
     * far out and close to each other */
    const double ox = b->anchor[0] - org[0], oy = b->anchor[1] - org[1];
    int i, c;
    (void)in;
    for (i = 0; i < b->n; i++) {
        /* image coordinates, pixel centres at i + 0.5, in double */
        const double u = (ox + (double)b->p[0][i]) / size, v = (oy + (double)b->p[1][i]) / size;
        axis ax, ay;
        if (u != u || v != v) { /* a position that is not a number samples nothing */
            for (c = 0; c < n->channels; c++) out[(size_t)c * (size_t)b->n + i] = NAN;
            continue;
        }
        if (locate(u, w, wrap, nearest, &ax) || locate(v, h, wrap, nearest, &ay))
            return ng_fail(ctx,
                           "%s: sampled at (%.17g, %.17g), 2^52 or more image pixels from its origin: too far for "
                           "wrap = \"%s\" to tell which pixel (use wrap = \"clamp\", or an origin nearer the render)",
                           n->label, b->anchor[0] + (double)b->p[0][i], b->anchor[1] + (double)b->p[1][i],
                           wrap_choices[wrap]);
        for (c = 0; c < n->channels; c++) {
            const int p = pick == C_RGB ? C_R + c : pick;
            const size_t r0 = ay.i0 * (size_t)w, r1 = ay.i1 * (size_t)w;
            float *o = out + (size_t)c * (size_t)b->n + i;
            if (nearest) {
                *o = texel(px, ch, r0 + ax.i0, p);
            } else {
                const float t00 = texel(px, ch, r0 + ax.i0, p), t10 = texel(px, ch, r0 + ax.i1, p);
                const float t01 = texel(px, ch, r1 + ax.i0, p), t11 = texel(px, ch, r1 + ax.i1, p);
                const float top = t00 + (t10 - t00) * ax.t, bot = t01 + (t11 - t01) * ax.t;
                *o = top + (bot - top) * ay.t;
            }
        }
    }
    return 0;
}

const ng_node_type ng_type_image = {
    .name = "image",
    .family = "source",
    .doc = "an image file as a source, values in [0, 1]: world positions map to image pixels through origin and "
           "pixel_size, with repeat/clamp/mirror beyond the edges and bilinear or nearest filtering",
    .params = image_params,
    .nparams = NPARAMS,
    .dims = 0x1Cu,
    .positional = "path",
    .setup = image_setup,
    .eval = image_eval,
    .free_state = free_picture,
};
