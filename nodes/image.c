/*
 * image.c — an image file as a source: world positions map onto image
 * pixels (origin = the world position of the image's top-left corner,
 * pixel_size = world units per image pixel), with repeat, clamp or mirror
 * beyond the edges and nearest or bilinear filtering.
 */
#include "ng_node.h"
#include "types.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const wrap_choices[] = {"repeat", "clamp", "mirror", NULL};
static const char *const filter_choices[] = {"bilinear", "nearest", NULL};
static const char *const channel_choices[] = {"gray", "r", "g", "b", "a", "rgb", NULL};

enum { P_PATH, P_WRAP, P_FILTER, P_CHANNEL, P_ORIGIN, P_PIXEL, NPARAMS };
enum { C_GRAY, C_R, C_G, C_B, C_A, C_RGB };

static const ng_param_desc image_params[NPARAMS] = {
    {"path", NG_PARAM_PATH, {0}, 0, 0, NULL,
     "the image file (PNG, JPEG, TGA, BMP, ...; 8 or 16 bit), relative to the script"},
    {"wrap", NG_PARAM_ENUM, {0}, 0, 0, wrap_choices, "beyond the edges: repeat the image, clamp to its edge, or mirror it"},
    {"filter", NG_PARAM_ENUM, {0}, 0, 0, filter_choices, "bilinear (smooth) or nearest (blocky) between pixels"},
    {"channel", NG_PARAM_ENUM, {0}, 0, 0, channel_choices,
     "gray (luminance, Rec. 709), one of r g b a, or rgb (a 3-channel vector)"},
    {"origin", NG_PARAM_VEC3, {0, 0, 0}, -1e15, 1e15, NULL, "world position of the image's top-left corner"},
    {"pixel_size", NG_PARAM_NUMBER, {1}, 1e-9, 1e12, NULL, "world units per image pixel"},
};

typedef struct picture {
    int width, height;
    float px[]; /* width * height * 4: RGBA, grey and alpha filled in */
} picture;

static int image_setup(ng_node *n, const int *ch, ng_error *err)
{
    const char *path = n->param[P_PATH].s;
    ng_image img;
    picture *pic;
    size_t i, count;
    (void)ch;
    if (!path || !*path) return ng_errorf(err, "%s: needs a path", n->label);
    if (ng_image_load(path, &img, err)) {
        ng_error e = *err;
        return ng_errorf(err, "%s: %s", n->label, e.msg);
    }
    count = (size_t)img.width * (size_t)img.height;
    if (!(pic = malloc(sizeof *pic + count * 4 * sizeof(float)))) {
        ng_image_free(&img);
        return ng_errorf(err, "%s: out of memory", path);
    }
    pic->width = img.width;
    pic->height = img.height;
    for (i = 0; i < count; i++) { /* to RGBA: grey spreads over RGB, missing alpha is 1 */
        const float *s = img.px + i * (size_t)img.channels;
        float *d = pic->px + i * 4;
        int c = img.channels;
        d[0] = s[0];
        d[1] = c >= 3 ? s[1] : s[0];
        d[2] = c >= 3 ? s[2] : s[0];
        d[3] = c == 2 ? s[1] : c == 4 ? s[3] : 1.0f;
    }
    ng_image_free(&img);
    n->state = pic;
    n->channels = ng_int(n, P_CHANNEL) == C_RGB ? 3 : 1;
    n->detail = ng_num(n, P_PIXEL);
    return 0;
}

static int wrap_index(int i, int size, int mode)
{
    if (mode == 1) return i < 0 ? 0 : i >= size ? size - 1 : i;
    if (mode == 0) {
        i %= size;
        return i < 0 ? i + size : i;
    }
    i %= 2 * size; /* mirror: 0 1 .. s-1 s-1 .. 1 0 0 1 .. */
    if (i < 0) i += 2 * size;
    return i < size ? i : 2 * size - 1 - i;
}

/* The picked channel of pixel (x, y), already wrapped. */
static float texel(const picture *p, int x, int y, int c)
{
    const float *t = p->px + ((size_t)y * (size_t)p->width + (size_t)x) * 4;
    if (c == C_GRAY) /* a grey pixel is its own luminance, exactly */
        return t[0] == t[1] && t[1] == t[2] ? t[0] : 0.2126f * t[0] + 0.7152f * t[1] + 0.0722f * t[2];
    return t[c - 1];
}

static int image_eval(ng_ctx *ctx, const ng_node *n, const ng_block *b, const float *const *in, float *out)
{
    const picture *p = n->state;
    const int wrap = ng_int(n, P_WRAP), nearest = ng_int(n, P_FILTER) == 1, pick = ng_int(n, P_CHANNEL);
    const double inv = 1.0 / ng_num(n, P_PIXEL), *org = n->param[P_ORIGIN].v;
    int i, c;
    (void)ctx;
    (void)in;
    for (i = 0; i < b->n; i++) {
        /* image coordinates, pixel centres at i + 0.5, in double: exact far out */
        double u = (b->anchor[0] + (double)b->p[0][i] - org[0]) * inv;
        double v = (b->anchor[1] + (double)b->p[1][i] - org[1]) * inv;
        for (c = 0; c < n->channels; c++) {
            int ch = pick == C_RGB ? C_R + c : pick;
            float *o = out + (size_t)c * (size_t)b->n + i;
            if (nearest) {
                *o = texel(p, wrap_index((int)floor(u), p->width, wrap), wrap_index((int)floor(v), p->height, wrap), ch);
            } else {
                double fu = u - 0.5, fv = v - 0.5, iu = floor(fu), iv = floor(fv);
                float tx = (float)(fu - iu), ty = (float)(fv - iv);
                int x0 = wrap_index((int)iu, p->width, wrap), x1 = wrap_index((int)iu + 1, p->width, wrap);
                int y0 = wrap_index((int)iv, p->height, wrap), y1 = wrap_index((int)iv + 1, p->height, wrap);
                float top = texel(p, x0, y0, ch) + (texel(p, x1, y0, ch) - texel(p, x0, y0, ch)) * tx;
                float bot = texel(p, x0, y1, ch) + (texel(p, x1, y1, ch) - texel(p, x0, y1, ch)) * tx;
                *o = top + (bot - top) * ty;
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
};
