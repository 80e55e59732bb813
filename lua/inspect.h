/* inspect.h — printing a script's graph as text (info) or Graphviz (dot). */
#ifndef NG_INSPECT_H
#define NG_INSPECT_H

#include "host.h"

#include <stdio.h>

void ng_print_info(const ng_script *s, const char *script, FILE *f);
/* Whether info and dot show node id (constants used only as inputs are
 * folded into their consumers instead). */
int ng_inspect_shown(const ng_script *s, int id);
void ng_print_dot(const ng_script *s, const char *script, FILE *f);
/* The same with branches folded: for each node id with fold[id] set, the
 * nodes that feed it and nothing drawn are left out, and its box says how
 * many it stands for (a node that also feeds another drawn node or an
 * output stays). fold: ng_graph_count flags, or NULL for none. */
void ng_print_dot_folded(const ng_script *s, const char *script, const unsigned char *fold, FILE *f);
/* The boxes ng_print_dot_folded draws: nodes shown and outputs. */
int ng_inspect_drawn(const ng_script *s, const unsigned char *fold);

#endif
