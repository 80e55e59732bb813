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

#endif
