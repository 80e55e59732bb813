/*
 * encq.h — an ordered queue of encoding jobs run on a few threads of their
 * own (encq.c), so an encoder's compression runs beside the render's
 * evaluation and across cores, while its output still goes to the file in
 * job order, from the sink's thread.
 *
 * The encoder owns `slots` job records; job n uses slot n % slots. It asks
 * for the slot of its next job (ng__encq_next), fills it, and submits it.
 * work(ctx, slot) runs on any thread (a worker, or the caller when no
 * worker took it); retire(ctx, slot) runs on the caller's thread only, in
 * job order, when the slot's job is done and the slot is needed again (or
 * at ng__encq_drain). Memory is bounded by the slots: the caller waits
 * (helping) rather than queueing more.
 *
 * The bytes a job makes depend on its slot's contents alone, so the output
 * is the same for any number of threads (0: the caller runs every job).
 */
#ifndef NG_ENCQ_H
#define NG_ENCQ_H

typedef struct ng__encq ng__encq;

/* threads: workers to start (0 to 64; fewer start if the system refuses);
 * slots >= 1. NULL without memory. */
ng__encq *ng__encq_new(int threads, int slots, void (*work)(void *ctx, int slot), int (*retire)(void *ctx, int slot),
                       void *ctx);
/* The slot for the next job: its earlier job, if any, is done and retired
 * first. -1 when a retire failed (now or before): stop. */
int ng__encq_next(ng__encq *q);
/* The slot ng__encq_next gave is filled: its job may run. */
void ng__encq_submit(ng__encq *q, int slot);
/* Every submitted job done and retired, in order. 0, or -1 when a retire failed. */
int ng__encq_drain(ng__encq *q);
/* Stops the workers (a job running finishes first; queued ones are
 * dropped, not retired) and frees the queue. NULL: nothing. */
void ng__encq_free(ng__encq *q);
/* Encoder threads for a render of `threads` (0: one per CPU): as many, up
 * to 8; none for one thread (the caller encodes, as it renders, alone). */
int ng__encq_threads(int threads);

#endif
