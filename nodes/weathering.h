/*
 * weathering.h — the simulations of nodes/weathering.c on plain arrays,
 * for the nodes and for tests that check what they keep (the total
 * height of thermal relaxation, the balance of eroded and deposited
 * volume of droplets) on a closed domain.
 */
#ifndef NG_WEATHERING_H
#define NG_WEATHERING_H

#include <stdint.h>

/* iterations of talus relaxation of the w x w heights h in place (nothing
 * crosses its edge); rows: room for 2 w floats. Talus heights across a
 * straight and a diagonal edge. */
void ng_thermal_relax(float *h, float *rows, int w, int iterations, float talus_axis, float talus_diag);

typedef struct ng_hydro_params {
    float droplets; /* per cell of span^2 */
    int lifetime;
    float inertia, capacity, min_slope, erosion, deposition, evaporation, gravity;
    int radius, nbrush;
    const int8_t *bx, *by; /* brush offsets, nbrush of them */
    const float *bw;       /* brush weights, summing to 1 */
} ng_hydro_params;

/* The brush of a radius (0 to 8 cells) into p, its offsets and weights
 * (a cone, summing to 1) in bx, by, bw: room for NG_HYDRO_BRUSH_MAX. */
#define NG_HYDRO_BRUSH_MAX (17 * 17)
void ng_hydro_brush(ng_hydro_params *p, int radius, int8_t *bx, int8_t *by, float *bw);

/* droplets * span^2 droplets over the w x w heights h (in place), from
 * positions drawn from seed; flow, wear and dep (w x w, zeroed by the
 * caller) gather the water that passed, the height eroded and the height
 * deposited at each cell. Returns the droplet steps taken. */
int64_t ng_hydro_run(const ng_hydro_params *p, float *h, float *flow, float *wear, float *dep, int w, int span,
                     uint64_t seed);

#endif
