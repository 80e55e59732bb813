/* inspect.h — printing a script's graph as text (info) or Graphviz (dot). */
#ifndef NG_INSPECT_H
#define NG_INSPECT_H

#include "host.h"

#include <stdio.h>

void ng_print_info(const ng_script *s, const char *script, FILE *f);
void ng_print_dot(const ng_script *s, const char *script, FILE *f);

#endif
