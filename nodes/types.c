/* types.c — the list of node types, and lookups by name. */
#include "types.h"

#include <string.h>

static const ng_node_type *const all_types[] = {
    &ng_type_noise,
    &ng_type_fractal,
    &ng_type_cloud,
    &ng_type_warp, &ng_type_vector, &ng_type_channel, &ng_type_curl, &ng_type_surface,
    &ng_type_constant, &ng_type_add, &ng_type_sub, &ng_type_mul, &ng_type_div, &ng_type_pow,
    &ng_type_neg, &ng_type_abs, &ng_type_min, &ng_type_max, &ng_type_clamp, &ng_type_fit, &ng_type_mix,
    &ng_type_sqrt, &ng_type_invert, &ng_type_step, &ng_type_smoothstep, &ng_type_select,
    &ng_type_terrace, &ng_type_curve,
    &ng_type_image, &ng_type_x, &ng_type_y, &ng_type_z, &ng_type_time, &ng_type_distance,
};

const ng_node_type *const *ng_types(int *count)
{
    *count = (int)(sizeof all_types / sizeof all_types[0]);
    return all_types;
}

const ng_node_type *ng_type_lookup(const char *name, const ng_shorthand **shorthand)
{
    size_t t;
    int s;
    if (shorthand) *shorthand = NULL;
    for (t = 0; t < sizeof all_types / sizeof all_types[0]; t++)
        if (strcmp(all_types[t]->name, name) == 0) return all_types[t];
    for (t = 0; t < sizeof all_types / sizeof all_types[0]; t++)
        for (s = 0; s < all_types[t]->nshorthands; s++)
            if (strcmp(all_types[t]->shorthands[s].name, name) == 0) {
                if (shorthand) *shorthand = &all_types[t]->shorthands[s];
                return all_types[t];
            }
    return NULL;
}

const ng_node_type *ng_type_find(const char *name) { return ng_type_lookup(name, NULL); }

int ng_constant(ng_graph *g, double v, ng_error *err)
{
    ng_node *n = ng_node_begin(g, &ng_type_constant, NULL, NULL, err);
    if (!n) return -1;
    if (ng_set_number(n, 0, v, err)) {
        ng_node_discard(n);
        return -1;
    }
    return ng_node_finish(g, n, err);
}

int ng_node_is_constant(const ng_node *n, double *value)
{
    if (ng_node_type_of(n) != &ng_type_constant) return 0;
    if (value) *value = ng_node_param(n, 0)->v[0];
    return 1;
}
