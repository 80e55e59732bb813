/*
 * signals.c — what the commands that write files (render, preview, tiles,
 * stitch) do on a signal: remove their temporaries, then die of it.
 */
#include "args.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* SIGINT, SIGTERM, SIGHUP mid-render: the temporaries go, then the process
 * dies of the same signal (SA_RESETHAND restored the default action; the
 * signal, blocked while the handler runs, is delivered on return). */
static void on_signal(int sig)
{
    ng_file_remove_temporaries();
    raise(sig);
}

/* At exit: when a handler on another thread (OpenVDB's TBB workers leave
 * the signals open) has begun removing the temporaries, the render on
 * this thread finds it may create nothing more and fails, and its exit
 * would end the process with status 1 before the handler's raise ended it
 * by the signal (test_anim's SIGTERM stress saw 1 run in a few hundred
 * under load). It waits here for that end instead. */
static void settle(void)
{
    if (ng_file_stopping())
        for (;;) pause();
}

void ng_catch_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    size_t i;
    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa, old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue; /* nohup */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_RESETHAND;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
    /* Past the file size limit (ulimit -f) a write fails with EFBIG and the
     * render says so and removes its temporary; the default action would
     * kill the process mid-file, silently, leaving the temporary. */
    signal(SIGXFSZ, SIG_IGN);
    atexit(settle);
}
