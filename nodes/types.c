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
