/* target_end.h — closes the target region rename.h opened (clang needs an
 * explicit pop; gcc's pragma ends with the unit). */
#if defined(NG_SIMD_TARGET) && defined(__clang__)
#pragma clang attribute pop
#endif
