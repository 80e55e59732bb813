/* path_avx2.h — the avx2 path's suffix and target (see path_avx512.h). */
#define NG_SIMD_SUFFIX _avx2
#define NG_SIMD_TARGET "avx2,bmi,bmi2,popcnt"
#include "rename.h"
