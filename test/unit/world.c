/* world.c - p hand-built schedules on the loop transport (world.h). */
#include "world.h"

#include <check.h>
#include <mpi.h>
#include <string.h>

#include "sched/loop_run.h"
#include "transport/loop.h"
#include "util/util.h"

const ch4coll_elem_t int_elem = {MPI_INT, 4, 4, 0, 4, 1};

int sval(int r, int i)
{
    return 1000 * (r + 1) + i;
}

void world_fill(world_t *w)
{
    int r, i;

    for (r = 0; r < w->p; r++)
        for (i = 0; i < BUFN; i++) {
            w->sbuf[r][i] = sval(r, i);
            w->rbuf[r][i] = SENTINEL;
        }
}

void world_init(world_t *w, int p)
{
    int r;

    memset(w, 0, sizeof *w);
    w->p = p;
    for (r = 0; r < p; r++) {
        ck_assert_int_eq(ch4coll_sched_init(&w->s[r], &int_elem, MPI_SUM, r, p),
                         CH4COLL_OK);
        w->sp[r] = &w->s[r];
    }
    world_fill(w);
}

void world_commit(world_t *w)
{
    int r;

    for (r = 0; r < w->p; r++)
        ck_assert_msg(ch4coll_sched_commit(&w->s[r]) == CH4COLL_OK,
                      "commit of rank %d: %s", r,
                      ch4coll_strerror(w->s[r].status));
}

/* Start every rank on a fresh loop world and run; returns the run status. */
int world_run(world_t *w, int eager)
{
    ch4coll_loop_t *loop = ch4coll_loop_create(w->p, eager);
    int r, rc;

    ck_assert_ptr_nonnull(loop);
    for (r = 0; r < w->p; r++)
        ck_assert_int_eq(ch4coll_sched_start(&w->s[r], w->sbuf[r], w->rbuf[r],
                                             0, &ch4coll_transport_loop,
                                             ch4coll_loop_ctx(loop, r)),
                         CH4COLL_OK);
    rc = ch4coll_loop_run(loop, w->sp, w->err, sizeof w->err);
    ch4coll_loop_destroy(loop);
    return rc;
}

void world_destroy(world_t *w)
{
    int r;

    for (r = 0; r < w->p; r++)
        ch4coll_sched_destroy(&w->s[r]);
}

size_t ioff(size_t i)
{
    return i * sizeof(int);
}
