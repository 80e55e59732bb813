/*
 * rename.h — gives the kernel entry points of one SIMD compilation their
 * path's suffix (NG_SIMD_SUFFIX), so several paths link side by side.
 * Included before the kernel source in each nodes/simd/ unit.
 */
#define NG_CAT2(a, b) a##b
#define NG_CAT(a, b) NG_CAT2(a, b)
#define ng_value_noise NG_CAT(ng_value_noise, NG_SIMD_SUFFIX)
#define ng_perlin_noise NG_CAT(ng_perlin_noise, NG_SIMD_SUFFIX)
#define ng_fast_noise NG_CAT(ng_fast_noise, NG_SIMD_SUFFIX)
#define ng_simplex_noise NG_CAT(ng_simplex_noise, NG_SIMD_SUFFIX)
#define ng_flow_noise NG_CAT(ng_flow_noise, NG_SIMD_SUFFIX)
#define ng_white_noise NG_CAT(ng_white_noise, NG_SIMD_SUFFIX)
#define ng_simplex_tiled2 NG_CAT(ng_simplex_tiled2, NG_SIMD_SUFFIX)
#define ng_worley_noise NG_CAT(ng_worley_noise, NG_SIMD_SUFFIX)
#define ng_worley_normaliser NG_CAT(ng_worley_normaliser, NG_SIMD_SUFFIX)
#define ng_sparse_noise NG_CAT(ng_sparse_noise, NG_SIMD_SUFFIX)
#define ng_alligator_noise NG_CAT(ng_alligator_noise, NG_SIMD_SUFFIX)
#define ng_value_noise_d NG_CAT(ng_value_noise_d, NG_SIMD_SUFFIX)
#define ng_perlin_noise_d NG_CAT(ng_perlin_noise_d, NG_SIMD_SUFFIX)
#define ng_fast_noise_d NG_CAT(ng_fast_noise_d, NG_SIMD_SUFFIX)
#define ng_simplex_noise_d NG_CAT(ng_simplex_noise_d, NG_SIMD_SUFFIX)
#define ng_flow_noise_d NG_CAT(ng_flow_noise_d, NG_SIMD_SUFFIX)

/* Target attributes for every function that follows, kernel helpers and
 * the header's inline hashes included. */
#if defined(NG_SIMD_TARGET) && defined(__clang__)
#define NG_PRAGMA(x) _Pragma(#x)
#define NG_TARGET_PUSH(t) NG_PRAGMA(clang attribute push(__attribute__((target(t))), apply_to = function))
NG_TARGET_PUSH(NG_SIMD_TARGET)
#elif defined(NG_SIMD_TARGET)
#define NG_PRAGMA(x) _Pragma(#x)
#define NG_TARGET_PUSH(t) NG_PRAGMA(GCC target(t))
NG_TARGET_PUSH(NG_SIMD_TARGET)
#endif

/* the element-wise loops (loops.c) */
#define ng__loop_add NG_CAT(ng__loop_add, NG_SIMD_SUFFIX)
#define ng__loop_sub NG_CAT(ng__loop_sub, NG_SIMD_SUFFIX)
#define ng__loop_mul NG_CAT(ng__loop_mul, NG_SIMD_SUFFIX)
#define ng__loop_div NG_CAT(ng__loop_div, NG_SIMD_SUFFIX)
#define ng__loop_min NG_CAT(ng__loop_min, NG_SIMD_SUFFIX)
#define ng__loop_max NG_CAT(ng__loop_max, NG_SIMD_SUFFIX)
#define ng__loop_axpy NG_CAT(ng__loop_axpy, NG_SIMD_SUFFIX)
#define ng__loop_axpy_masked NG_CAT(ng__loop_axpy_masked, NG_SIMD_SUFFIX)
#define ng__loop_scale NG_CAT(ng__loop_scale, NG_SIMD_SUFFIX)
#define ng__loop_scale_bias NG_CAT(ng__loop_scale_bias, NG_SIMD_SUFFIX)
#define ng__loop_acc_billow NG_CAT(ng__loop_acc_billow, NG_SIMD_SUFFIX)
#define ng__loop_acc_terrain NG_CAT(ng__loop_acc_terrain, NG_SIMD_SUFFIX)
#define ng__loop_acc_hybrid NG_CAT(ng__loop_acc_hybrid, NG_SIMD_SUFFIX)
#define ng__loop_acc_ridged NG_CAT(ng__loop_acc_ridged, NG_SIMD_SUFFIX)
