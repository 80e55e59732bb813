/* types.c — the list of node types (from types.h), and lookups by name. */
#include "types.h"

#include <string.h>

#define NG_TYPE_ENTRY(name) &ng_type_##name,
static const ng_node_type *const all_types[] = {NG_NODE_TYPES(NG_TYPE_ENTRY)};
#undef NG_TYPE_ENTRY

#define NTYPES ((int)(sizeof all_types / sizeof all_types[0]))

const ng_node_type *const *ng_types(int *count)
{
    *count = NTYPES;
    return all_types;
}

const ng_node_type *ng_type_lookup(const char *name, const ng_shorthand **shorthand)
{
    int t, s;
    if (shorthand) *shorthand = NULL;
    for (t = 0; t < NTYPES; t++)
        if (strcmp(all_types[t]->name, name) == 0) return all_types[t];
    for (t = 0; t < NTYPES; t++)
        for (s = 0; s < all_types[t]->nshorthands; s++)
            if (strcmp(all_types[t]->shorthands[s].name, name) == 0) {
                if (shorthand) *shorthand = &all_types[t]->shorthands[s];
                return all_types[t];
            }
    return NULL;
}

const ng_node_type *ng_type_find(const char *name) { return ng_type_lookup(name, NULL); }

/* The option names artists type from other tools (libnoise, FastNoise,
 * Unity: persistence, gain, frequency), declared once for every type that
 * has the option they mean. */
static const ng_option_alias option_aliases[] = {
    {"persistence", "roughness", 0},
    {"gain", "roughness", 0},
    {"frequency", "element_size", 1},
};
#define NALIASES ((int)(sizeof option_aliases / sizeof option_aliases[0]))

static int alias_applies(const ng_node_type *t, const ng_option_alias *a)
{
    return ng_param_index(t, a->means) >= 0 && ng_param_index(t, a->name) < 0 && ng_input_index(t, a->name) < 0;
}

const ng_option_alias *ng_option_alias_find(const ng_node_type *t, const char *key)
{
    int i;
    for (i = 0; i < NALIASES; i++)
        if (!strcmp(option_aliases[i].name, key) && alias_applies(t, &option_aliases[i])) return &option_aliases[i];
    return NULL;
}

const ng_option_alias *ng_option_alias_of(const ng_node_type *t, int k, int i)
{
    int a;
    for (a = 0; a < NALIASES; a++)
        if (!strcmp(option_aliases[a].means, t->params[k].name) && alias_applies(t, &option_aliases[a]) && i-- == 0)
            return &option_aliases[a];
    return NULL;
}
