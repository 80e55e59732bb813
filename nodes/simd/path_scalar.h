/* path_scalar.h — the scalar path's suffix: no target; the Makefile turns
 * the vectoriser off for these units (see path_avx512.h). */
#define NG_SIMD_SUFFIX _scalar
#include "rename.h"
