/* loops_avx512.c — the loops kernels compiled for the avx512 path (see kernels.h). */
#include "path_avx512.h"
#include "../loops.c"
#include "target_end.h"
