/* path_avx512.h — the avx512 path's suffix and target, for the units that
 * compile a per-path source for it (then rename.h, which opens the target). */
#define NG_SIMD_SUFFIX _avx512
#if defined(__clang__) /* clang takes the vector width from -mprefer-vector-width (Makefile) */
#define NG_SIMD_TARGET "avx512f,avx512bw,avx512dq,avx512vl,avx2,bmi,bmi2,popcnt"
#else
#define NG_SIMD_TARGET "avx512f,avx512bw,avx512dq,avx512vl,avx2,bmi,bmi2,popcnt,prefer-vector-width=512"
#endif
#include "rename.h"
