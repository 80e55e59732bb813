/* noise_scalar.c — the noise kernels compiled for the scalar path (see kernels.h). */
#define NG_SIMD_SUFFIX _scalar

#include "rename.h"
#include "../noise_kernels.c"
#include "target_end.h"
