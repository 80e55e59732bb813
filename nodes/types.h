/*
 * types.h — the node library's list of types. Adding a type is its
 * descriptor, ng_type_NAME in its family's file, and one line here.
 * ORDER: documentation order (`noisegraph nodes`, the README's tables).
 */
#ifndef NG_TYPES_H
#define NG_TYPES_H

#include "noisegraph.h"

#define NG_NODE_TYPES(X) \
    X(noise)             \
    X(fractal)           \
    X(cloud)             \
    X(height_profile)    \
    X(coverage)          \
    X(normalize)         \
    X(erode)             \
    X(warp)              \
    X(transform)         \
    X(vector)            \
    X(channel)           \
    X(curl)              \
    X(surface)           \
    X(erosion_filter)    \
    X(blur)              \
    X(curvature)         \
    X(drainage)          \
    X(mask_distance)     \
    X(cavity)            \
    X(splat)             \
    X(thermal)           \
    X(hydraulic)         \
    X(stream_power)      \
    X(ramp)              \
    X(constant)          \
    X(add)               \
    X(sub)               \
    X(mul)               \
    X(div)               \
    X(pow)               \
    X(mod)               \
    X(neg)               \
    X(abs)               \
    X(min)               \
    X(max)               \
    X(smin)              \
    X(smax)              \
    X(clamp)             \
    X(fit)               \
    X(mix)               \
    X(sqrt)              \
    X(floor)             \
    X(fract)             \
    X(sin)               \
    X(cos)               \
    X(invert)            \
    X(step)              \
    X(smoothstep)        \
    X(bias)              \
    X(gain)              \
    X(select)            \
    X(terrace)           \
    X(curve)             \
    X(image)             \
    X(x)                 \
    X(y)                 \
    X(z)                 \
    X(time)              \
    X(frame)             \
    X(u)                 \
    X(v)                 \
    X(distance)

#define NG_DECLARE_TYPE(name) extern const ng_node_type ng_type_##name;
NG_NODE_TYPES(NG_DECLARE_TYPE)
#undef NG_DECLARE_TYPE

/* An option's other name, as other tools and papers write it: a script
 * may give it for `means` on every type that has that option and no
 * option of its own called `name`. inverse: the value given is 1 / the
 * option's (frequency = 1 / element_size). */
typedef struct ng_option_alias {
    const char *name, *means;
    int inverse;
} ng_option_alias;

/* The alias called key on type t, or NULL. */
const ng_option_alias *ng_option_alias_find(const ng_node_type *t, const char *key);
/* The i-th alias (from 0) that applies to type t's option k, or NULL. */
const ng_option_alias *ng_option_alias_of(const ng_node_type *t, int k, int i);

/* Every node type, in documentation order. */
const ng_node_type *const *ng_types(int *count);
const ng_node_type *ng_type_find(const char *name);
/* A descriptor and the shorthand that names it (NULL for a plain name). */
const ng_node_type *ng_type_lookup(const char *name, const ng_shorthand **shorthand);

#endif
