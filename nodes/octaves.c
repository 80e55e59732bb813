/* octaves.c — octave weights, the pixel cut-off and octave blocks. */
#include "octaves.h"
#include "loops.h"
#include "noise_kernels.h"

#include <math.h>

void ng__octaves_init(ng_octaves *o, double octaves, double lacunarity, double roughness)
{
    double w = 1;
    int k;
    o->octaves = octaves;
    o->lacunarity = lacunarity;
    o->roughness = roughness;
    o->full = (int)floor(octaves);
    o->count = o->full + (octaves > o->full ? 1 : 0);
    o->total = 0;
    for (k = 0; k < o->count; k++, w *= roughness) o->total += k < o->full ? w : w * (octaves - o->full);
}

double ng__octave_weight(const ng_octaves *o, int k)
{
    double w = 1;
    int j;
    for (j = 0; j < k; j++) w *= o->roughness;
    return k < o->full ? w : w * (o->octaves - o->full);
}

double ng__octave_antialias(double detail, const ng_block *b, double scale, int k, int enabled)
{
    double px;
    if (k == 0 || !enabled || b->footprint <= 0 || !(detail < HUGE_VAL)) return 1;
    px = detail / scale / b->footprint; /* pixels per feature at this octave */
    if (px >= 2) return 1;
    if (px <= 1) return 0;
    return log2(px);
}

void ng__octave_block(ng_ctx *ctx, const ng_block *b, int k, double scale, const float *src, float *pos,
                      ng_block *ob)
{
    const float fs = (float)scale;
    int d;
    *ob = *b;
    if (k == 0 && !src) return;
    for (d = 0; d < b->dims; d++) {
        const float *s = src ? src + (size_t)d * (size_t)b->n : b->p[d];
        float *p = pos + (size_t)d * (size_t)b->n;
        ng__loops()->scale(p, s, fs, b->n);
        ob->p[d] = p;
        ob->anchor[d] = b->anchor[d] * scale;
        ob->period[d] = b->period[d] * scale;
    }
    if (k > 0) ob->seed = ng_hash_mix(b->seed + (uint32_t)k * 0x9E3779B9u);
    ob->pos_id = ng_new_pos_id(ctx);
    ob->footprint = (float)(b->footprint * scale);
}
