/*
 * world.h - p ranks with one hand-built schedule and one send/receive
 * buffer of BUFN ints each, run on the loop transport (transport/loop.h):
 * the fixture of the scheduler and loop executor tests (test_sched.c,
 * test_transport.c).  Send buffers hold sval(r, i), receive buffers
 * SENTINEL until written.  Data is MPI_INT with MPI_SUM.
 */
#ifndef CH4COLL_TEST_WORLD_H
#define CH4COLL_TEST_WORLD_H

#include <stddef.h>

#include "sched/sched.h"

#define MAXP     8
#define BUFN     64 /* ints per rank buffer */
#define SENTINEL (-1)
#define ERRLEN   2048

/* MPI_INT as the schedules see it. */
extern const ch4coll_elem_t int_elem;

/* p ranks with one schedule and one send/receive buffer each. */
typedef struct {
    int p;
    ch4coll_sched_t s[MAXP];
    ch4coll_sched_t *sp[MAXP];
    int sbuf[MAXP][BUFN];
    int rbuf[MAXP][BUFN];
    char err[ERRLEN];
} world_t;

/* Element i of rank r's send buffer. */
int sval(int r, int i);

/* Send buffers to sval, receive buffers to SENTINEL. */
void world_fill(world_t *w);

/* p empty schedules (MPI_INT, MPI_SUM), buffers filled. */
void world_init(world_t *w, int p);

/* Commit every rank's schedule (asserts success). */
void world_commit(world_t *w);

/* Start every rank on a fresh loop world and run; returns the run status. */
int world_run(world_t *w, int eager);

void world_destroy(world_t *w);

/* The byte offset of int i of a buffer. */
size_t ioff(size_t i);

#endif /* CH4COLL_TEST_WORLD_H */
