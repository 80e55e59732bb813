/* loops_avx2.c — the loops kernels compiled for the avx2 path (see kernels.h). */
#include "path_avx2.h"
#include "../loops.c"
#include "target_end.h"
