/* loops_scalar.c — the loops kernels compiled for the scalar path (see kernels.h). */
#define NG_SIMD_SUFFIX _scalar

#include "rename.h"
#include "../loops.c"
#include "target_end.h"
