/*
 * types.h — every node descriptor, one per type, defined in its family's
 * file. The list in types.c is the only other place a new type is named.
 */
#ifndef NG_TYPES_H
#define NG_TYPES_H

#include "noisegraph.h"

extern const ng_node_type ng_type_constant, ng_type_add, ng_type_sub, ng_type_mul, ng_type_div,
    ng_type_pow, ng_type_min, ng_type_max, ng_type_neg, ng_type_abs, ng_type_clamp, ng_type_fit,
    ng_type_mix, ng_type_sqrt, ng_type_invert, ng_type_step, ng_type_smoothstep, ng_type_select;
extern const ng_node_type ng_type_terrace, ng_type_curve;
extern const ng_node_type ng_type_image, ng_type_surface;
extern const ng_node_type ng_type_x, ng_type_y, ng_type_z, ng_type_time, ng_type_distance;
extern const ng_node_type ng_type_noise;
extern const ng_node_type ng_type_fractal, ng_type_cloud;
extern const ng_node_type ng_type_warp, ng_type_vector, ng_type_channel, ng_type_curl;

#endif
