/* cell_scalar.c — the cell kernels compiled for the scalar path (see kernels.h). */
#define NG_SIMD_SUFFIX _scalar

#include "rename.h"
#include "../cell_kernels.c"
#include "target_end.h"
