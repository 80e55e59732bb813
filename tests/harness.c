/* harness.c — the test runner behind harness.h. */
#include "harness.h"

#include <stdarg.h>

int ng_t_failed_checks;
static int passed, failed;
static const char *current;

void ng_t_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    if (ng_t_failed_checks++ == 0) fprintf(stderr, "FAIL %s\n", current);
    fprintf(stderr, "  %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void ng_t_run(const char *name, void (*fn)(void))
{
    current = name;
    ng_t_failed_checks = 0;
    fn();
    if (ng_t_failed_checks) failed++;
    else passed++;
}

int ng_t_summary(void)
{
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
