/*
 * weathering.c — erosion simulations on the engine's world-aligned
 * neighbourhood lattice (core/hood.c): ng.thermal and ng.hydraulic. Both
 * give the same bits for a world point in every region, tile, thread
 * count and farm tile of a render.
 *
 * thermal: talus-angle relaxation. Wherever the slope between two
 * neighbouring lattice cells (8 neighbours) is steeper than the `talus`
 * angle (of the world slope: the source times `height`, over world
 * units, as ng.surface shades it), a tenth of the excess height moves
 * downhill across that edge, every cell at once from the previous
 * iteration's heights (Jacobi). Each edge's move is taken from one cell
 * and given to the other as the same float (g(-d) = -g(d) exactly), so
 * the total height of a closed domain changes only by the additions'
 * rounding. An iteration moves material one cell, so the node's halo is
 * `iterations` cells: the patch's centre is exact.
 *
 * hydraulic: droplets, in the line of Hans Theobald Beyer's "Implementation
 * of a method for hydraulic erosion" (2015), as Sebastian Lague's and
 * most game tools run it: a droplet falls at a random place, follows the
 * bilinear gradient with inertia, picks up sediment up to a capacity that
 * grows with its slope, speed and water, erodes with a round brush and
 * deposits where it slows or climbs; it evaporates as it goes. Droplets,
 * rather than a grid model (Mei et al.'s pipes, stream power), because a
 * droplet's reach is bounded by its lifetime, so a simulation tile of
 * fixed size is a faithful (if local) model; because they carve the
 * narrow branching gullies artists look for at the lattice's resolution
 * without hundreds of global iterations; and because their cost is
 * droplets x steps, whatever the terrain. Two changes to the usual
 * code: speed grows downhill (v^2 - dh g), and a droplet that dies, stalls
 * or reaches the tile's edge drops what it carries where it is, so the
 * volume eroded equals the volume deposited (test_weathering asserts it).
 *
 * Stitching: the engine runs the droplets on tiles of the world (2 x 64
 * lattice cells a side at a stride of 64, each seeded from its world
 * index and the render's seed, over its source sampled on the lattice)
 * and blends the tiles covering a cell with cos^2 windows summing to 1
 * (core/hood.c, ng_hood_type.tile). The result at a world point is a
 * function of the world. A tile balances, but its blend weighs its
 * change by the window: sediment shed from a tile's middle onto its rim
 * counts for less (4 % of a cone's eroded volume went missing from the
 * render). So each tile scales its deposit by the ratio of its windowed
 * wear to its windowed deposit (balance_tile): the render's wear and
 * deposit then balance over any area whose border nothing crosses.
 * The price: nothing drains further than a tile (128 cells): no river
 * crosses a range. Every cell is simulated by 4
 * tiles, so the droplets per area are run 4 times over.
 *
 * Channels: 1 the eroded height, 2 flow (the water that passed a cell, in
 * droplets per unit of rain: about the upstream area in cells within a
 * droplet's reach), 3 wear (the height eroded there) and 4 deposit (the
 * height deposited there), all blended alike.
 */
#include "ng_node.h"
#include "types.h"
#include "weathering.h"
#include "ngmath.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { I_SOURCE, NINPUTS };

static const ng_input_desc weather_inputs[NINPUTS] = {
    [I_SOURCE] = {"source", NG_INPUT_PULL, 1, 1, 0, "the height field eroded"},
};

/* ---- thermal ------------------------------------------------------------------------ */

enum { T_TALUS, T_ITERATIONS, T_SPACING, T_HEIGHT, T_NPARAMS };

static const ng_param_desc thermal_params[T_NPARAMS] = {
    [T_TALUS] = {"talus", NG_PARAM_NUMBER, {35}, 0, 89, NULL,
                 "the angle of repose in degrees, 0 to 89, of the world slope (the source times `height` over world "
                 "units): steeper slopes slide until they are at most this"},
    [T_ITERATIONS] = {"iterations", NG_PARAM_INT, {32}, 1, 512, NULL,
                      "relaxation steps, 1 to 512; each moves material one lattice cell, so the node reads its "
                      "source that many cells around"},
    [T_SPACING] = {"spacing", NG_PARAM_NUMBER, {2}, 1e-9, 1e12, NULL,
                   "world units between lattice cells; the result is sampled from the lattice by a smooth cubic"},
    [T_HEIGHT] = {"height", NG_PARAM_NUMBER, {100}, 1e-9, 1e12, NULL,
                  "world units of height per unit of the source, as ng.surface's `height`: what the talus angle is "
                  "measured against"},
};

typedef struct thermal_state {
    float axis, diag; /* talus height across an edge, straight and diagonal */
    int iterations;
} thermal_state;

static int thermal_setup(ng_node *n, const int *ch, ng_error *err)
{
    const double s = ng_num(n, T_SPACING);
    const int it = (int)ng_num(n, T_ITERATIONS);
    thermal_state *st;
    (void)ch;
    n->channels = 1;
    if (ng_hood_declare(n, s, it * s, it, err)) return -1;
    if (!(st = ng_node_state_alloc(n, sizeof *st, err))) return -1;
    /* the talus across an edge, in units of the source */
    st->axis = (float)(ng_tan(ng_num(n, T_TALUS) * 3.14159265358979323846 / 180) * s / ng_num(n, T_HEIGHT));
    st->diag = (float)(st->axis * sqrt(2.0));
    st->iterations = it;
    return 0;
}

/* What crosses an edge toward a cell d below its neighbour: a tenth of the
 * excess over the talus, signed; g(-d) = -g(d) bit for bit. */
static inline float slide(float d, float talus) { return copysignf(fmaxf(fabsf(d) - talus, 0.0f) * 0.1f, d); }

/* One row's new heights: old rows up (NULL at the top), cur and down
 * (NULL at the bottom), w cells, into o. Neighbours outside are absent:
 * nothing crosses the domain's edge. */
static void relax_row(const float *up, const float *cur, const float *down, float *restrict o, int w, float ta,
                      float td)
{
    int i;
    for (i = 0; i < w; i++) o[i] = 0.0f;
    for (i = 1; i < w; i++) o[i] += slide(cur[i - 1] - cur[i], ta);
    for (i = 0; i < w - 1; i++) o[i] += slide(cur[i + 1] - cur[i], ta);
    if (up) {
        for (i = 0; i < w; i++) o[i] += slide(up[i] - cur[i], ta);
        for (i = 1; i < w; i++) o[i] += slide(up[i - 1] - cur[i], td);
        for (i = 0; i < w - 1; i++) o[i] += slide(up[i + 1] - cur[i], td);
    }
    if (down) {
        for (i = 0; i < w; i++) o[i] += slide(down[i] - cur[i], ta);
        for (i = 1; i < w; i++) o[i] += slide(down[i - 1] - cur[i], td);
        for (i = 0; i < w - 1; i++) o[i] += slide(down[i + 1] - cur[i], td);
    }
    for (i = 0; i < w; i++) o[i] = cur[i] + o[i];
}

void ng_thermal_relax(float *h, float *rows, int w, int iterations, float talus_axis, float talus_diag)
{
    float *prev = rows, *cur = rows + w, *t;
    int it, j;
    for (it = 0; it < iterations; it++) {
        for (j = 0; j < w; j++) {
            memcpy(cur, h + (size_t)j * w, (size_t)w * sizeof(float)); /* the old row j */
            relax_row(j ? prev : NULL, cur, j + 1 < w ? h + (size_t)(j + 1) * w : NULL, h + (size_t)j * w, w,
                      talus_axis, talus_diag);
            t = prev, prev = cur, cur = t;
        }
    }
}

static void thermal_filter(const ng_node *n, const float *in, float *out, float *tmp, int side, int radius,
                           int channels)
{
    const thermal_state *st = n->state;
    const int w = side + 2 * radius;
    int j;
    (void)channels;
    memcpy(tmp, in, (size_t)w * (size_t)w * sizeof(float));
    ng_thermal_relax(tmp, tmp + (size_t)w * (size_t)w, w, st->iterations, st->axis, st->diag);
    for (j = 0; j < side; j++)
        memcpy(out + (size_t)j * side, tmp + (size_t)(j + radius) * w + radius, (size_t)side * sizeof(float));
}

static const ng_hood_type thermal_hood = {.input = I_SOURCE, .smooth = 1, .filter = thermal_filter};

const ng_node_type ng_type_thermal = {
    .name = "thermal", .family = "neighbourhood",
    .doc = "thermal erosion: talus-angle relaxation of a height field, slopes steeper than `talus` slide down "
           "over `iterations` steps on a world-aligned lattice of `spacing`; the total height is kept. Stitches "
           "exactly across regions, tiles and threads. 2D renders only",
    .params = thermal_params, .nparams = T_NPARAMS, .inputs = weather_inputs, .ninputs = NINPUTS,
    .dims = 1u << 2, .method = "thermal", .positional = "source", .setup = thermal_setup,
    .tile_check = ng_hood_tile_check, .eval = ng_hood_eval,
    .hood = &thermal_hood,
};

/* ---- hydraulic ---------------------------------------------------------------------- */

enum {
    H_SPACING,
    H_DROPLETS,
    H_ITERATIONS,
    H_INERTIA,
    H_CAPACITY,
    H_MIN_SLOPE,
    H_EROSION,
    H_DEPOSITION,
    H_EVAPORATION,
    H_GRAVITY,
    H_RADIUS,
    H_HEIGHT,
    H_NPARAMS
};

static const ng_param_desc hydraulic_params[H_NPARAMS] = {
    [H_SPACING] = {"spacing", NG_PARAM_NUMBER, {4}, 1e-9, 1e12, NULL,
                   "world units between lattice cells; a simulation tile (the patch) is 128 cells a side, so this "
                   "sets the patch size too (128 x spacing world units): nothing drains further than that"},
    [H_DROPLETS] = {"droplets", NG_PARAM_NUMBER, {1}, 0.001, 64, NULL,
                    "droplets per lattice cell of each tile, 0.001 to 64: more carves deeper, costs in proportion"},
    [H_ITERATIONS] = {"iterations", NG_PARAM_INT, {48}, 1, 1024, NULL,
                      "a droplet's lifetime in steps of about a cell, 1 to 1024: how far it runs"},
    [H_INERTIA] = {"inertia", NG_PARAM_NUMBER, {0.05}, 0, 0.99, NULL,
                   "0 to 0.99: how much a droplet keeps its direction rather than turn downhill (high: straighter, "
                   "wider channels)"},
    [H_CAPACITY] = {"capacity", NG_PARAM_NUMBER, {1}, 0, 1e3, NULL,
                    "sediment a droplet carries per unit of slope x speed x water, 0 to 1000"},
    [H_MIN_SLOPE] = {"min_slope", NG_PARAM_NUMBER, {0.01}, 0, 1, NULL,
                     "the least slope the capacity is reckoned with (height units per cell), 0 to 1: keeps flat "
                     "ground eroding a little"},
    [H_EROSION] = {"erosion", NG_PARAM_NUMBER, {0.15}, 0, 1, NULL,
                   "0 to 1: the share of its spare capacity a droplet erodes in a step"},
    [H_DEPOSITION] = {"deposition", NG_PARAM_NUMBER, {0.1}, 0, 1, NULL,
                      "0 to 1: the share of its excess sediment a droplet drops in a step"},
    [H_EVAPORATION] = {"evaporation", NG_PARAM_NUMBER, {0.02}, 0, 0.5, NULL,
                       "0 to 0.5: the share of its water a droplet loses each step"},
    [H_GRAVITY] = {"gravity", NG_PARAM_NUMBER, {4}, 0, 1e3, NULL,
                   "0 to 1000: how fast droplets gain speed downhill (v^2 grows by gravity x drop)"},
    [H_RADIUS] = {"radius", NG_PARAM_INT, {1}, 0, 8, NULL,
                  "erosion brush radius in lattice cells, 0 to 8: wider softens the gullies"},
    [H_HEIGHT] = {"height", NG_PARAM_NUMBER, {100}, 1e-9, 1e12, NULL,
                  "world units of height per unit of the source, as ng.surface's `height`: droplets run on the world "
                  "slope, so the knobs mean the same at any spacing"},
};

typedef struct hydro_state {
    ng_hydro_params p;
    float scale; /* source units to lattice cells of height */
    int8_t bx[NG_HYDRO_BRUSH_MAX], by[NG_HYDRO_BRUSH_MAX];
    float bw[NG_HYDRO_BRUSH_MAX];
} hydro_state;

void ng_hydro_brush(ng_hydro_params *p, int radius, int8_t *bx, int8_t *by, float *bw)
{
    double sum = 0, wk[NG_HYDRO_BRUSH_MAX];
    int x, y, k = 0;
    for (y = -radius; y <= radius; y++)
        for (x = -radius; x <= radius; x++) {
            const double d = sqrt((double)(x * x + y * y));
            if (d > radius + 0.5 && radius > 0) continue;
            bx[k] = (int8_t)x, by[k] = (int8_t)y;
            sum += wk[k++] = radius > 0 ? radius + 0.5 - d : 1.0;
        }
    for (x = 0; x < k; x++) bw[x] = (float)(wk[x] / sum);
    p->radius = radius;
    p->nbrush = k;
    p->bx = bx, p->by = by, p->bw = bw;
}

static int hydraulic_setup(ng_node *n, const int *ch, ng_error *err)
{
    const int radius = ng_hood_tile_radius(n);
    hydro_state *st;
    (void)ch;
    n->channels = 4;
    if (ng_hood_declare(n, ng_num(n, H_SPACING), radius * ng_num(n, H_SPACING), radius, err)) return -1;
    if (!(st = ng_node_state_alloc(n, sizeof *st, err))) return -1;
    st->p.droplets = (float)ng_num(n, H_DROPLETS);
    st->p.lifetime = (int)ng_num(n, H_ITERATIONS);
    st->p.inertia = (float)ng_num(n, H_INERTIA);
    st->p.capacity = (float)ng_num(n, H_CAPACITY);
    st->p.min_slope = (float)ng_num(n, H_MIN_SLOPE);
    st->p.erosion = (float)ng_num(n, H_EROSION);
    st->p.deposition = (float)ng_num(n, H_DEPOSITION);
    st->p.evaporation = (float)ng_num(n, H_EVAPORATION);
    st->p.gravity = (float)ng_num(n, H_GRAVITY);
    ng_hydro_brush(&st->p, (int)ng_num(n, H_RADIUS), st->bx, st->by, st->bw);
    st->scale = (float)(ng_num(n, H_HEIGHT) / ng_num(n, H_SPACING));
    return 0;
}

/* splitmix64: the tile's stream of droplet positions. */
static uint64_t next64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static float unit(uint64_t *s) { return (float)(next64(s) >> 40) * (1.0f / 16777216.0f); }

typedef struct field {
    float *h, *flow, *wear, *dep;
    int w;
} field;

/* Height and gradient at (x, y), cell (cx, cy) at fraction (u, v). */
static float height_at(const float *h, int w, float x, float y, float *gx, float *gy)
{
    const int cx = (int)x, cy = (int)y;
    const float u = x - (float)cx, v = y - (float)cy;
    const float *p = h + (size_t)cy * w + cx;
    const float a = p[0], b = p[1], c = p[w], d = p[w + 1];
    if (gx) *gx = (b - a) * (1 - v) + (d - c) * v, *gy = (c - a) * (1 - u) + (d - b) * u;
    return a * (1 - u) * (1 - v) + b * u * (1 - v) + c * (1 - u) * v + d * u * v;
}

/* amount laid on the 4 cells around (x, y), bilinear shares. */
static float lay(const field *f, float x, float y, float amount)
{
    const int cx = (int)x, cy = (int)y;
    const float u = x - (float)cx, v = y - (float)cy;
    const size_t i = (size_t)cy * f->w + cx;
    const float s[4] = {amount * (1 - u) * (1 - v), amount * u * (1 - v), amount * (1 - u) * v, amount * u * v};
    const size_t at[4] = {i, i + 1, i + (size_t)f->w, i + (size_t)f->w + 1};
    float laid = 0.0f;
    int k;
    for (k = 0; k < 4; k++) f->h[at[k]] += s[k], f->dep[at[k]] += s[k], laid += s[k];
    return laid;
}

/* amount taken with the brush around cell (cx, cy): what it took. */
static float take_brush(const field *f, const ng_hydro_params *p, int cx, int cy, float amount)
{
    float took = 0.0f;
    int k;
    for (k = 0; k < p->nbrush; k++) {
        const size_t i = (size_t)(cy + p->by[k]) * f->w + (size_t)(cx + p->bx[k]);
        const float e = amount * p->bw[k];
        f->h[i] -= e, f->wear[i] += e, took += e;
    }
    return took;
}

/* One droplet from (x, y); returns its steps. Whatever it carries at the
 * end it lays down where it is. */
static int droplet(const field *f, const ng_hydro_params *p, float x, float y)
{
    const float lo = (float)p->radius, hi = (float)(f->w - 1 - p->radius);
    float dx = 0, dy = 0, speed = 1, water = 1, sed = 0;
    int life;
    for (life = 0; life < p->lifetime; life++) {
        const int cx = (int)x, cy = (int)y;
        float gx, gy, len, nx, ny, dh, cap;
        const float h = height_at(f->h, f->w, x, y, &gx, &gy);
        dx = dx * p->inertia - gx * (1 - p->inertia);
        dy = dy * p->inertia - gy * (1 - p->inertia);
        len = sqrtf(dx * dx + dy * dy);
        if (!(len > 1e-20f)) break;
        dx /= len, dy /= len;
        f->flow[(size_t)cy * f->w + cx] += water;
        nx = x + dx, ny = y + dy;
        if (!(nx >= lo && ny >= lo && nx < hi && ny < hi)) break;
        dh = height_at(f->h, f->w, nx, ny, NULL, NULL) - h;
        cap = fmaxf(-dh, p->min_slope) * speed * water * p->capacity;
        if (sed > cap || dh > 0) {
            const float amt = fmaxf(0.0f, dh > 0 ? fminf(dh, sed) : (sed - cap) * p->deposition);
            sed -= lay(f, x, y, amt);
        } else {
            sed += take_brush(f, p, cx, cy, fminf((cap - sed) * p->erosion, -dh));
        }
        speed = sqrtf(fmaxf(0.0f, speed * speed - dh * p->gravity));
        water *= 1 - p->evaporation;
        x = nx, y = ny;
    }
    if (sed > 0) lay(f, x, y, sed);
    return life;
}

int64_t ng_hydro_run(const ng_hydro_params *p, float *h, float *flow, float *wear, float *dep, int w, int span,
                     uint64_t seed)
{
    const field f = {h, flow, wear, dep, w};
    const float lo = (float)p->radius, room = (float)(w - 1 - 2 * p->radius);
    const int64_t count = (int64_t)llround((double)p->droplets * span * span);
    int64_t d, steps = 0;
    uint64_t s = seed;
    for (d = 0; d < count; d++) {
        const float x = lo + unit(&s) * room, y = lo + unit(&s) * room;
        if (x < (float)(w - 1 - p->radius) && y < (float)(w - 1 - p->radius)) steps += droplet(&f, p, x, y);
    }
    return steps;
}

/* Scales the tile's deposit (and so its change, dh = dep - wear) by
 * its windowed wear over its windowed deposit, the blend's weights
 * (ng_hood_tile_window): the tile then adds as much as it takes away to
 * the rendered total. -1 when out of memory. */
static int balance_tile(const ng_node *n, float *dh, float *wear, float *dep, int w)
{
    float *win = malloc((size_t)w * sizeof *win);
    double took = 0, laid = 0, f;
    int x, y;
    if (!win) return -1;
    ng_hood_tile_window(n, win);
    for (y = 0; y < w; y++)
        for (x = 0; x < w; x++) {
            const float wt = win[x] * win[y]; /* as the blend multiplies them */
            took += (double)(wt * wear[(size_t)y * w + x]);
            laid += (double)(wt * dep[(size_t)y * w + x]);
        }
    f = laid > 0 ? took / laid : 1.0;
    for (x = 0; x < w * w; x++) {
        const float more = (float)(f * dep[x]) - dep[x];
        dep[x] += more;
        dh[x] += more;
    }
    free(win);
    return 0;
}

static int hydraulic_tile(const ng_node *n, const float *in, float *out, int w, int channels, uint64_t seed)
{
    const hydro_state *st = n->state;
    const size_t plane = (size_t)w * (size_t)w;
    float *h = out, *flow = out + plane, *wear = out + 2 * plane, *dep = out + 3 * plane;
    const float k = st->scale;
    size_t i;
    (void)channels;
    for (i = 0; i < plane; i++) h[i] = in[i] * k; /* heights in cells: the slopes are the world's */
    memset(flow, 0, 3 * plane * sizeof(float));
    ng_hydro_run(&st->p, h, flow, wear, dep, w, 4 * ng_hood_tile_radius(n), seed);
    for (i = 0; i < plane; i++) {
        h[i] = (h[i] - in[i] * k) / k; /* the change, blended and added back by the engine */
        flow[i] /= st->p.droplets;
        wear[i] /= k, dep[i] /= k;
    }
    return balance_tile(n, h, wear, dep, w);
}

static const ng_hood_type hydraulic_hood = {.input = I_SOURCE, .smooth = 1, .tile = hydraulic_tile};

const ng_node_type ng_type_hydraulic = {
    .name = "hydraulic", .family = "neighbourhood",
    .doc = "hydraulic erosion by droplets (Beyer 2015): 4 channels, 1 the eroded height, 2 flow, 3 wear (height "
           "eroded), 4 deposit (height deposited). Simulated on world tiles of 128 x `spacing` world units, each "
           "seeded from its place, blended by a partition of unity: stitches exactly across regions, tiles, "
           "threads and farm tiles, but nothing drains further than a tile. 2D renders only",
    .params = hydraulic_params, .nparams = H_NPARAMS, .inputs = weather_inputs, .ninputs = NINPUTS,
    .dims = 1u << 2, .method = "hydraulic", .positional = "source", .setup = hydraulic_setup,
    .tile_check = ng_hood_tile_check, .eval = ng_hood_eval,
    .hood = &hydraulic_hood,
};
