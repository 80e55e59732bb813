/* octaves.c — octave weights, the pixel cut-off, octave blocks and the
 * fractal sum (plain, and with per-sample options). */
#include "octaves.h"
#include "loops.h"
#include "noise_kernels.h"
#include "ngmath.h"

#include <float.h>
#include <math.h>
#include <string.h>

int ng__fractal_musgrave_check(const char *label, const char *offset, int offset_set, int gain_set, int type,
                               ng_error *err)
{
    static const char *const types[NG_NFRACTALS] = {NG_FRACTAL_CHOICES};
    if (!(offset_set || gain_set) || ng__fractal_musgrave(type)) return 0;
    return ng_errorf(err, "%s: option '%s' shapes the ridged and hybrid fractals only, not %s", label,
                     offset_set ? offset : "gain", types[type]);
}

/* first_whole: below one octave the sum is divided by the first octave's
 * whole weight, not its fraction, so octaves from 0 to 1 fade it in from
 * 0 (divided by its own fraction, 0.001 of an octave was the whole
 * octave, and animating octaves jumped from flat to full noise). */
/* The octaves' weights summed (and their squares) at `roughness`: o's
 * own, or one sample's under a driven roughness (sample_sums). */
static void weight_totals(const ng_octaves *o, double roughness, double *total, double *total_sq)
{
    double w = 1;
    int k;
    *total = *total_sq = 0;
    for (k = 0; k < o->count; k++, w *= roughness) {
        const double wk = k < o->full ? w : w * (o->octaves - o->full);
        *total += wk;
        *total_sq += wk * wk;
    }
    if (o->full == 0 && o->count) *total = *total_sq = 1; /* see first_whole */
}

void ng__octaves_init(ng_octaves *o, double octaves, double lacunarity, double roughness)
{
    o->octaves = octaves;
    o->lacunarity = lacunarity;
    o->roughness = roughness;
    o->full = (int)floor(octaves);
    o->count = o->full + (octaves > o->full ? 1 : 0);
    weight_totals(o, roughness, &o->total, &o->total_sq);
}

double ng__octave_weight(const ng_octaves *o, int k)
{
    double w = 1;
    int j;
    for (j = 0; j < k; j++) w *= o->roughness;
    return k < o->full ? w : w * (o->octaves - o->full);
}

static double antialias(double detail, float footprint, double scale, int k, int enabled)
{
    double px;
    if (k == 0 || !enabled || footprint <= 0 || !(detail < HUGE_VAL)) return 1;
    px = detail / scale / footprint; /* pixels per feature at this octave */
    if (px >= 2) return 1;
    if (px <= 1) return 0;
    return ng_log2(px);
}

double ng__octave_antialias(double detail, const ng_block *b, double scale, int k, int enabled)
{
    return antialias(detail, b->footprint, scale, k, enabled);
}

/* ob = b moved to octave k at frequency scale `scale`, but its positions. */
static void octave_frame(ng_ctx *ctx, const ng_block *b, int k, double scale, ng_block *ob)
{
    int d;
    *ob = *b;
    for (d = 0; d < b->dims; d++) {
        ob->anchor[d] = b->anchor[d] * scale;
        ob->period[d] = b->period[d] * scale;
    }
    if (k > 0) ob->seed = ng_hash_mix(b->seed + (uint32_t)k * 0x9E3779B9u);
    ob->pos_id = ng_new_pos_id(ctx);
    ob->footprint = (float)(b->footprint * scale);
}

void ng__octave_block(ng_ctx *ctx, const ng_block *b, int k, double scale, const float *src, float *pos,
                      ng_block *ob)
{
    const float fs = (float)scale, ps = src ? 0.0f : b->p_scale;
    int d, i;
    if (k == 0 && !src) {
        *ob = *b;
        return;
    }
    octave_frame(ctx, b, k, scale, ob);
    for (d = 0; d < b->dims; d++) {
        const float *s = src ? src + (size_t)d * (size_t)b->n : b->p[d];
        float *p = pos + (size_t)d * (size_t)b->n;
        if (ps != 0.0f) /* b's positions are s * ps: the product a pass would have made, then the octave's */
            for (i = 0; i < b->n; i++) p[i] = s[i] * ps * fs;
        else
            ng__loops()->scale(p, s, fs, b->n);
        ob->p[d] = p;
    }
    ob->p_scale = 0.0f;
}

/* The largest |p| over the block's positions, NaN skipped (times any scale
 * it stays NaN): an integer maximum of the bits (loop_max_abs_bits). */
float ng__block_max_abs(const ng_block *b)
{
    unsigned m = 0;
    float f;
    int d;
    for (d = 0; d < b->dims; d++) ng__loops()->max_abs_bits(&m, b->p[d], b->n);
    memcpy(&f, &m, sizeof f);
    return f;
}

/* Whether s is a power of two >= 1 (then x * s is exact unless it overflows). */
static int power_of_two(double s)
{
    int e;
    return s >= 1 && s <= FLT_MAX && frexp(s, &e) == 0.5;
}

void ng__octave_block_scaled(ng_ctx *ctx, const ng_block *b, int k, double scale, float max_abs, float *pos,
                             ng_block *ob)
{
    const double fs = (float)scale, s = fs * (b->p_scale != 0.0f ? b->p_scale : 1.0f);
    if (k == 0 || !power_of_two(fs) || !power_of_two(s) || !((double)max_abs * s < FLT_MAX)) {
        ng__octave_block(ctx, b, k, scale, NULL, pos, ob);
        return;
    }
    octave_frame(ctx, b, k, scale, ob);
    ob->p_scale = (float)s; /* exact: a product of powers of two, below float's maximum */
}

void ng__octave_rotation(int k, int dims, double R[3][3])
{
    const double a = k * 2.399963229728653, b = dims >= 3 ? k * 0.9553166181245093 : 0.0;
    double ca, sa, cb, sb;
    ng_sincos(a, &sa, &ca); /* noisegraph's own: libm's bits vary by CPU */
    ng_sincos(b, &sb, &cb);
    /* Rz(a) Rx(b) */
    R[0][0] = ca, R[0][1] = -sa * cb, R[0][2] = sa * sb;
    R[1][0] = sa, R[1][1] = ca * cb, R[1][2] = -ca * sb;
    R[2][0] = 0, R[2][1] = sb, R[2][2] = cb;
}

/* The axes an octave turns (2 or 3), or 0 when it is not turned: octave 0,
 * 1D, option off, or a period on a turned axis (a turned lattice has no
 * axis-aligned period, so tiled renders keep their octaves unturned and
 * tile). */
static int turned_axes(const ng_fractal *f, const ng_block *b, int k)
{
    const int nd = b->dims >= 3 ? 3 : b->dims;
    int d;
    if (!f->rotate || k == 0 || nd < 2) return 0;
    for (d = 0; d < nd; d++)
        if (b->period[d] != 0) return 0;
    return nd;
}

void ng__block_turn(const ng_block *b, float T[3][3])
{
    const float ps = b->p_scale != 0.0f ? b->p_scale : 1.0f;
    int d, e;
    for (d = 0; d < 3; d++) /* exact: ps is a power of two that no |entry| <= 1 takes past float's range */
        for (e = 0; e < 3; e++) T[d][e] = b->turn[d][e] * ps;
}

const ng_block *ng__block_plain(const ng_block *b, ng_block *tmp, float *pos)
{
    const ng_loops *L = ng__loops();
    const float ps = b->p_scale != 0.0f ? b->p_scale : 1.0f;
    const size_t n = (size_t)b->n;
    float T[3][3];
    int d;
    if (!b->turn_axes) return ng_block_unscaled(b, tmp, pos);
    ng__block_turn(b, T);
    *tmp = *b;
    L->turn(pos, b->p, (const float(*)[3])T, b->turn_axes, b->n);
    for (d = 0; d < b->dims; d++) {
        tmp->p[d] = pos + (size_t)d * n;
        if (d >= b->turn_axes) L->scale(pos + (size_t)d * n, b->p[d], ps, b->n);
    }
    tmp->p_scale = 0.0f;
    tmp->turn_axes = 0;
    return tmp;
}

/* ob turned by octave k's rotation into tb: the anchor in double, the
 * positions by the block's turn (ng_node.h), which the source takes as it
 * is where it can (f->source_turns), else multiplied out into buf (b->dims
 * planes) and tb2. Returns the block to evaluate. */
static const ng_block *turn_block(const ng_fractal *f, const ng_block *ob, int k, float *buf, ng_block *tb,
                                  ng_block *tb2)
{
    const int nd = turned_axes(f, ob, k);
    double R[3][3];
    int d, e;
    if (!nd) return ob;
    ng__octave_rotation(k, nd, R);
    *tb = *ob;
    memset(tb->turn, 0, sizeof tb->turn);
    for (d = 0; d < nd; d++) {
        double a = 0;
        for (e = 0; e < nd; e++) a += R[d][e] * ob->anchor[e], tb->turn[d][e] = (float)R[d][e];
        tb->anchor[d] = a;
    }
    tb->turn_axes = nd;
    return f->source_turns ? tb : ng__block_plain(tb, tb2, buf);
}

/* A turned octave's gradient (dims planes per channel, along the turned
 * axes) back to the block's axes: g = R^T g'. */
static void unturn_grad(const ng_fractal *f, const ng_block *ob, int k, int channels, float *grad)
{
    const int nd = turned_axes(f, ob, k), n = ob->n, dims = ob->dims;
    double R[3][3];
    int c, d, e, i;
    if (!nd) return;
    ng__octave_rotation(k, nd, R);
    for (c = 0; c < channels; c++)
        for (i = 0; i < n; i++) {
            float g[3], r[3];
            for (d = 0; d < nd; d++) g[d] = grad[((size_t)c * (size_t)dims + (size_t)d) * (size_t)n + (size_t)i];
            for (e = 0; e < nd; e++) {
                r[e] = 0.0f;
                for (d = 0; d < nd; d++) r[e] += (float)R[d][e] * g[d];
            }
            for (e = 0; e < nd; e++) grad[((size_t)c * (size_t)dims + (size_t)e) * (size_t)n + (size_t)i] = r[e];
        }
}

double ng__ridged_peak(double offset)
{
    const double a = offset * offset, b = (offset - 1) * (offset - 1);
    return a > b ? a : b;
}

/* ---- the fractal sum ------------------------------------------------------ */

/* What the sum is divided by: the weights' sum (or root of squares), and
 * for ridged the signal's bound too (1 at the default offset). */
static double normaliser(const ng_octaves *o, const ng_fractal *f)
{
    const double w = f->normalize == NG_NORMALIZE_RMS ? sqrt(o->total_sq) : o->total;
    return f->type == NG_FRACTAL_RIDGED ? w * ng__ridged_peak(f->offset) : w;
}

/* One octave's weighted values x (len floats) into out; state: the running
 * weight of hybrid and ridged; first: out holds nothing yet; norm != 0:
 * the last octave, the sum then times norm. fractal.c's header says why
 * each is bounded. */
static void accumulate(const ng_loops *L, const ng_fractal *f, float *out, float *state, const float *x, float fw,
                       float inv, int first, float norm, int len)
{
    const float offset = (float)f->offset, gain = (float)f->gain;
    switch (f->type) {
    case NG_FRACTAL_STANDARD: /* x w + 0 is 0 + x w, -0 included */
        if (first && norm != 0.0f) L->scale_bias(out, x, fw, 0.0f, len), L->scale(out, out, norm, len);
        else if (first) L->scale_bias(out, x, fw, 0.0f, len);
        else if (norm != 0.0f) L->axpy_scale(out, x, fw, norm, len);
        else L->axpy(out, x, fw, len);
        break;
    case NG_FRACTAL_BILLOW: L->acc_billow(out, x, fw, first, norm, len); break;
    case NG_FRACTAL_TERRAIN: L->acc_terrain(out, x, fw, inv, first, norm, len); break;
    case NG_FRACTAL_HYBRID: L->acc_hybrid(out, state, x, fw, offset, gain * 0.5f, first, norm, len); break;
    case NG_FRACTAL_RIDGED: L->acc_ridged(out, state, x, fw, offset, gain, first, norm, len); break;
    }
}

/* The plain sum: one pass over out per octave (accumulate), the last one
 * normalising; the octaves' positions without a pass where the scale
 * allows (ng__octave_block_scaled). */
static int plain_sum(ng_ctx *ctx, const ng_node *n, const ng_fractal *f, const ng_block *b, int channels,
                     ng_octave_fn source, void *user, float *out, float *pos, float *oct, float *state, float *turn)
{
    const int len = b->n * channels;
    const ng_loops *L = ng__loops();
    const float max_abs = ng__block_max_abs(b);
    double scale = 1, partial = 0, norm;
    ng_octaves o;
    int k, i, normalised = 0;
    ng__octaves_init(&o, f->octaves, f->lacunarity, f->roughness);
    norm = normaliser(&o, f);
    if (o.count == 0)
        for (i = 0; i < len; i++) out[i] = 0;
    for (k = 0; k < o.count; k++, scale *= o.lacunarity) {
        const double w = ng__octave_weight(&o, k), a = ng__octave_antialias(f->detail, b, scale, k, f->antialias);
        const float fw = (float)(w * a);
        float end;
        ng_block ob, tb, tb2;
        int last;
        if (a <= 0) break; /* finer octaves are finer still */
        last = k + 1 == o.count ||
               ng__octave_antialias(f->detail, b, scale * o.lacunarity, k + 1, f->antialias) <= 0;
        end = last && norm > 0 ? (float)(1.0 / norm) : 0.0f;
        ng__octave_block_scaled(ctx, b, k, scale, max_abs, pos, &ob);
        if (source(ctx, n, turn_block(f, &ob, k, turn, &tb, &tb2), oct, user)) return -1;
        accumulate(L, f, out, state, oct, fw, partial > 0 ? (float)(0.5 / partial) : 0.0f, k == 0, end, len);
        normalised |= end != 0.0f;
        partial += w;
    }
    if (norm > 0 && !normalised) L->scale(out, out, (float)(1.0 / norm), len);
    return 0;
}

/* A driven roughness or lacunarity sample: clamped to the options' range
 * (the same on every node that has them), NaN read as the number. */
static double clamp_sample(float v, double lo, double hi, double number)
{
    return v != v ? number : v < lo ? lo : v > hi ? hi : (double)v;
}

/* Per-sample accumulation: as accumulate with weight w[i] and inv[i]; a
 * zero weight leaves the sample (and its running weight) alone, since
 * every later octave of it weighs 0 too (its roughness is 0, or the
 * cut-off has passed it and passes it at every finer octave). */
static void accumulate_at(const ng_fractal *f, float *restrict out, float *restrict state, const float *restrict x,
                          const float *restrict w, const float *restrict inv, int first, int n)
{
    const int type = f->type;
    const float offset = (float)f->offset, gain = (float)f->gain, hgain = gain * 0.5f;
    int i;
    for (i = 0; i < n; i++) {
        float r, sig, wt, s;
        if (w[i] == 0.0f) continue;
        switch (type) {
        case NG_FRACTAL_STANDARD: out[i] += x[i] * w[i]; break;
        case NG_FRACTAL_BILLOW: out[i] += (2.0f * fabsf(x[i]) - 1.0f) * w[i]; break;
        case NG_FRACTAL_TERRAIN:
            if (first) out[i] = x[i] * w[i];
            else out[i] += x[i] * w[i] * (out[i] * inv[i] + 0.5f);
            break;
        case NG_FRACTAL_HYBRID:
            if (first) out[i] = x[i] * w[i], state[i] = 1.0f;
            else out[i] += x[i] * w[i] * state[i];
            s = state[i] * (x[i] + offset) * hgain;
            state[i] = s < 0.0f ? 0.0f : s > 1.0f ? 1.0f : s;
            break;
        case NG_FRACTAL_RIDGED:
            r = offset - fabsf(x[i]), sig = r * r, wt = first ? 1.0f : state[i];
            out[i] += sig * wt * w[i];
            wt = sig * gain;
            state[i] = wt < 0.0f ? 0.0f : wt > 1.0f ? 1.0f : wt;
            break;
        }
    }
}

/* Per-sample state of the sum: doubles, as the plain loop keeps them. */
typedef struct sample_sum {
    double *weight, *scale, *partial, *norm; /* r^k, lacunarity^k, weights so far, normaliser */
    float *fw, *inv;
} sample_sum;

/* Octave k's positions when every sample has its own frequency scale s[i]:
 * world (anchor + p) * s[i] with the block anchor scaled by `ref` (the
 * numbers' scale, the same for every block, so the split does not depend
 * on the tiling), the rest per sample. Equal scales give the plain
 * octave block's bits. */
static void octave_block_at(ng_ctx *ctx, const ng_block *b, int k, double ref, const double *s, float *pos,
                            ng_block *ob)
{
    int d, i;
    ng__octave_block(ctx, b, k, ref, NULL, pos, ob);
    for (d = 0; d < b->dims; d++) {
        float *p = pos + (size_t)d * (size_t)b->n;
        for (i = 0; i < b->n; i++) {
            const double extra = b->anchor[d] * (s[i] - ref);
            p[i] = b->p[d][i] * (float)s[i];
            if (extra != 0) p[i] += (float)(extra > 1e30 ? 1e30 : extra < -1e30 ? -1e30 : extra);
        }
        ob->p[d] = p;
    }
}

static int sample_sums(ng_ctx *ctx, const ng_node *n, const ng_fractal *f, const ng_block *b, int channels,
                       ng_octave_fn source, void *user, float *out, float *pos, float *oct, float *state,
                       const sample_sum *S, float *turn)
{
    const int len = b->n;
    const double octaves = f->octaves, frac = octaves - floor(octaves);
    ng_octaves o;
    double ref = 1;
    int k, i, c;
    ng__octaves_init(&o, f->octaves, f->lacunarity, f->roughness);
    for (i = 0; i < len * channels; i++) out[i] = 0;
    for (i = 0; i < len; i++) { /* each sample's normaliser, as ng__octaves_init makes it */
        const double r = f->roughness_at ? clamp_sample(f->roughness_at[i], 0, 2, f->roughness) : f->roughness;
        double total, total_sq;
        weight_totals(&o, r, &total, &total_sq);
        S->norm[i] = (f->normalize == NG_NORMALIZE_RMS ? sqrt(total_sq) : total) *
                     (f->type == NG_FRACTAL_RIDGED ? ng__ridged_peak(f->offset) : 1.0);
        S->weight[i] = 1, S->scale[i] = 1, S->partial[i] = 0;
    }
    for (k = 0; k < o.count; k++, ref *= o.lacunarity) {
        int alive = 0;
        ng_block ob, tb, tb2;
        for (i = 0; i < len; i++) {
            const double detail = f->detail_at ? f->detail_at[i] : f->detail;
            const double w = k < o.full ? S->weight[i] : S->weight[i] * frac;
            const double a = antialias(detail, b->footprint, S->scale[i], k, f->antialias);
            S->fw[i] = a > 0 ? (float)(w * a) : 0.0f;
            S->inv[i] = S->partial[i] > 0 ? (float)(0.5 / S->partial[i]) : 0.0f;
            alive |= a > 0;
        }
        if (!alive) break;
        if (f->lacunarity_at) octave_block_at(ctx, b, k, ref, S->scale, pos, &ob);
        else ng__octave_block(ctx, b, k, ref, NULL, pos, &ob);
        if (source(ctx, n, turn_block(f, &ob, k, turn, &tb, &tb2), oct, user)) return -1;
        for (c = 0; c < channels; c++)
            accumulate_at(f, out + (size_t)c * len, state + (size_t)c * len, oct + (size_t)c * len, S->fw,
                          S->inv, k == 0, len);
        for (i = 0; i < len; i++) {
            S->partial[i] += k < o.full ? S->weight[i] : S->weight[i] * frac;
            S->weight[i] *= f->roughness_at ? clamp_sample(f->roughness_at[i], 0, 2, f->roughness) : f->roughness;
            S->scale[i] *= f->lacunarity_at ? clamp_sample(f->lacunarity_at[i], 1, 16, f->lacunarity) : f->lacunarity;
        }
    }
    for (c = 0; c < channels; c++)
        for (i = 0; i < len; i++)
            if (S->norm[i] > 0) out[(size_t)c * len + i] *= (float)(1.0 / S->norm[i]);
    return 0;
}

int ng__fractal_sum(ng_ctx *ctx, const ng_node *n, const ng_fractal *f, const ng_block *b, int channels,
                    ng_octave_fn source, void *user, float *out)
{
    const int stateful = f->type == NG_FRACTAL_RIDGED || f->type == NG_FRACTAL_HYBRID;
    const int per_sample = f->roughness_at || f->lacunarity_at || f->detail_at;
    float *pos = ng_scratch(ctx, b->dims), *oct = ng_scratch(ctx, channels);
    float *state = stateful || per_sample ? ng_scratch(ctx, channels) : NULL;
    float *turn = f->rotate ? ng_scratch(ctx, b->dims) : NULL;
    float *dbl[4] = {NULL, NULL, NULL, NULL}, *fw = NULL, *inv = NULL; /* 2 floats hold a double */
    int rc = -1, j;
    if (!pos || !oct || ((stateful || per_sample) && !state) || (f->rotate && !turn)) goto done;
    /* the per-sample octaves multiply b's positions themselves; a turned b
     * (a noise's own fractal at an outer fractal's octave) is turned first */
    if (b->turn_axes || (per_sample && b->p_scale != 0.0f)) {
        ng_block plain;
        float *p = ng_scratch(ctx, b->dims);
        if (!p) goto done;
        rc = ng__fractal_sum(ctx, n, f, ng__block_plain(b, &plain, p), channels, source, user, out);
        ng_scratch_free(ctx, p, b->dims);
        goto done;
    }
    if (!per_sample) {
        rc = plain_sum(ctx, n, f, b, channels, source, user, out, pos, oct, state, turn);
    } else {
        sample_sum S;
        for (j = 0; j < 4; j++)
            if (!(dbl[j] = ng_scratch(ctx, 2))) goto done;
        if (!(fw = ng_scratch(ctx, 1)) || !(inv = ng_scratch(ctx, 1))) goto done;
        S.weight = (double *)(void *)dbl[0], S.scale = (double *)(void *)dbl[1];
        S.partial = (double *)(void *)dbl[2], S.norm = (double *)(void *)dbl[3];
        S.fw = fw, S.inv = inv;
        rc = sample_sums(ctx, n, f, b, channels, source, user, out, pos, oct, state, &S, turn);
    }
done:
    for (j = 0; j < 4; j++) ng_scratch_free(ctx, dbl[j], 2);
    ng_scratch_free(ctx, fw, 1);
    ng_scratch_free(ctx, inv, 1);
    ng_scratch_free(ctx, pos, b->dims);
    ng_scratch_free(ctx, oct, channels);
    ng_scratch_free(ctx, state, channels);
    ng_scratch_free(ctx, turn, b->dims);
    return rc;
}

/* ---- the fractal sum with its gradient ------------------------------------------ */

static float sign_of(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f; }

/* Whether a running weight s is left as it is by the clamp to [0, 1] (its
 * slope passes) or clamped (no slope). */
static int unclamped(float s) { return !(s < 0.0f) && !(s > 1.0f); }

/* Octave gradient step for one channel along one axis, before accumulate
 * moves out and state on: x the octave's values, g times gs their gradient
 * per world unit (gs: the octave's frequency scale); G the sum's gradient
 * and SG the running weight's. */
static void accumulate_grad(const ng_fractal *f, const float *restrict out, const float *restrict state,
                            const float *restrict x, const float *restrict g, float gs, float *restrict G,
                            float *restrict SG, float fw, float inv, int first, int n)
{
    const int type = f->type;
    const float offset = (float)f->offset, gain = (float)f->gain, hgain = gain * 0.5f;
    int i;
    switch (type) { /* one loop per type, so each vectorises */
    case NG_FRACTAL_STANDARD: /* the SIMD path's loop */
        ng__loops()->acc_grad(G, g, gs, fw, first, n);
        break;
    case NG_FRACTAL_BILLOW: /* (2 |x| - 1) w */
        for (i = 0; i < n; i++) G[i] += 2.0f * sign_of(x[i]) * (g[i] * gs) * fw;
        break;
    case NG_FRACTAL_TERRAIN: /* out += x w (out inv + 0.5) */
        if (first)
            for (i = 0; i < n; i++) G[i] = g[i] * gs * fw;
        else
            for (i = 0; i < n; i++) G[i] += fw * (g[i] * gs * (out[i] * inv + 0.5f) + x[i] * inv * G[i]);
        break;
    case NG_FRACTAL_HYBRID: /* out += x w state; state = clamp(state (x + offset) gain / 2) */
        if (first)
            for (i = 0; i < n; i++) {
                G[i] = g[i] * gs * fw;
                SG[i] = unclamped((x[i] + offset) * hgain) ? g[i] * gs * hgain : 0.0f;
            }
        else
            for (i = 0; i < n; i++) {
                const float s = state[i] * (x[i] + offset) * hgain, gx = g[i] * gs;
                G[i] += fw * (gx * state[i] + x[i] * SG[i]);
                SG[i] = unclamped(s) ? (SG[i] * (x[i] + offset) + state[i] * gx) * hgain : 0.0f;
            }
        break;
    case NG_FRACTAL_RIDGED: /* out += (offset - |x|)^2 state w; state = clamp(gain (offset - |x|)^2) */
        for (i = 0; i < n; i++) {
            const float r = offset - fabsf(x[i]), sig = r * r, dsig = -2.0f * r * sign_of(x[i]) * (g[i] * gs);
            const float wt = first ? 1.0f : state[i], dwt = first ? 0.0f : SG[i];
            G[i] += fw * (dsig * wt + sig * dwt);
            SG[i] = unclamped(sig * gain) ? gain * dsig : 0.0f;
        }
        break;
    }
}

typedef struct grad_bufs {
    float *pos, *oct, *ogr, *state, *gstate, *turn;
} grad_bufs;

static int plain_sum_grad(ng_ctx *ctx, const ng_node *n, const ng_fractal *f, const ng_block *b, int channels,
                          ng_octave_grad_fn source, void *user, float *out, float *grad, const grad_bufs *B)
{
    const int len = b->n * channels, dims = b->dims, np = b->n;
    const ng_loops *L = ng__loops();
    double scale = 1, partial = 0, norm;
    ng_octaves o;
    int k, i, c, d;
    const float max_abs = ng__block_max_abs(b);
    ng__octaves_init(&o, f->octaves, f->lacunarity, f->roughness);
    if (o.count == 0) /* else the first octave starts the sum */
        for (i = 0; i < len; i++) out[i] = 0;
    for (i = 0; i < len * dims; i++) grad[i] = 0;
    for (k = 0; k < o.count; k++, scale *= o.lacunarity) {
        const double w = ng__octave_weight(&o, k), a = ng__octave_antialias(f->detail, b, scale, k, f->antialias);
        const float fw = (float)(w * a), inv = partial > 0 ? (float)(0.5 / partial) : 0.0f;
        ng_block ob, tb, tb2;
        if (a <= 0) break; /* finer octaves are finer still */
        ng__octave_block_scaled(ctx, b, k, scale, max_abs, B->pos, &ob);
        if (source(ctx, n, turn_block(f, &ob, k, B->turn, &tb, &tb2), B->oct, B->ogr, user)) return -1;
        unturn_grad(f, &ob, k, channels, B->ogr);
        for (c = 0; c < channels; c++)
            for (d = 0; d < dims; d++) {
                const size_t v = (size_t)c * (size_t)np, g = ((size_t)c * (size_t)dims + (size_t)d) * (size_t)np;
                accumulate_grad(f, out + v, B->state + v, B->oct + v, B->ogr + g, (float)scale, grad + g,
                                B->gstate + g, fw, inv, k == 0, np); /* octave positions are world * scale */
            }
        accumulate(L, f, out, B->state, B->oct, fw, inv, k == 0, 0.0f, len);
        partial += w;
    }
    norm = normaliser(&o, f);
    if (norm > 0) {
        L->scale(out, out, (float)(1.0 / norm), len);
        L->scale(grad, grad, (float)(1.0 / norm), len * dims);
    }
    return 0;
}

int ng__fractal_sum_grad(ng_ctx *ctx, const ng_node *n, const ng_fractal *f, const ng_block *b, int channels,
                         ng_octave_grad_fn source, void *user, float *out, float *grad)
{
    const int planes = channels * b->dims;
    grad_bufs B;
    int rc = -1;
    if (f->roughness_at || f->lacunarity_at || f->detail_at) return 1;
    if (b->turn_axes) { /* as ng__fractal_sum */
        ng_block plain;
        float *p = ng_scratch(ctx, b->dims);
        if (!p) return -1;
        rc = ng__fractal_sum_grad(ctx, n, f, ng__block_plain(b, &plain, p), channels, source, user, out, grad);
        ng_scratch_free(ctx, p, b->dims);
        return rc;
    }
    B.pos = ng_scratch(ctx, b->dims), B.oct = ng_scratch(ctx, channels), B.ogr = ng_scratch(ctx, planes);
    B.state = ng_scratch(ctx, channels), B.gstate = ng_scratch(ctx, planes);
    B.turn = f->rotate ? ng_scratch(ctx, b->dims) : NULL;
    if (B.pos && B.oct && B.ogr && B.state && B.gstate && (B.turn || !f->rotate))
        rc = plain_sum_grad(ctx, n, f, b, channels, source, user, out, grad, &B);
    ng_scratch_free(ctx, B.pos, b->dims);
    ng_scratch_free(ctx, B.oct, channels);
    ng_scratch_free(ctx, B.ogr, planes);
    ng_scratch_free(ctx, B.state, channels);
    ng_scratch_free(ctx, B.gstate, planes);
    ng_scratch_free(ctx, B.turn, b->dims);
    return rc;
}
