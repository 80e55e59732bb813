/* noise_avx2.c — the noise kernels compiled for the avx2 path (see kernels.h). */
#define NG_SIMD_SUFFIX _avx2
#define NG_SIMD_TARGET "avx2,bmi,bmi2,popcnt"
#include "rename.h"
#include "../noise_kernels.c"
#include "target_end.h"
