/*
 * lock.h - the process lock of preload mode at MPI_THREAD_MULTIPLE.
 *
 * ch4coll's process-wide state (the nonblocking request table, the list
 * of communicator states, the argument-check memos, statistics) and each
 * communicator's schedule cache are guarded by one lock, as MPICH guards
 * its own state with one global critical section.  The lock is taken at
 * every entry from the application (a collective, a nonblocking one
 * started or progressed, a persistent request started or freed, a
 * datatype, op or communicator freed) and held while ch4coll works, never
 * while it waits: every wait loop lets go of it between polls
 * (ch4coll_lock_pause), and no blocking host call is made under it.  So a
 * thread waiting in a collective on one communicator never holds up
 * another thread's collective on another one, whose peers may be the
 * ones the first is waiting for.
 *
 * It is a ticket lock: threads get it in the order they asked, so a thread
 * that lets go between two polls and asks again queues behind those that
 * wait, and nobody starves.  It is recursive (an error handler that
 * ch4coll calls may call MPI, whose wrappers enter again).  Below
 * MPI_THREAD_MULTIPLE ch4coll_locking is 0 and each call is one test.
 *
 * Lock order: ch4coll's lock before the host MPI's internal ones.  The one
 * place the host runs ch4coll code from inside a call of its own, the
 * attribute delete callback of MPI_Comm_free, is entered with the lock
 * already held (preload.c wraps MPI_Comm_free and MPI_Comm_disconnect).
 */
#ifndef CH4COLL_LOCK_H
#define CH4COLL_LOCK_H

#include <sched.h>

/* 1 once the library runs at MPI_THREAD_MULTIPLE in preload mode. */
extern int ch4coll_locking;

void ch4coll_lock_enter(void);
void ch4coll_lock_leave(void);
void ch4coll_lock_pause_held(int idle);

static inline void ch4coll_lock(void)
{
    if (ch4coll_locking)
        ch4coll_lock_enter();
}

static inline void ch4coll_unlock(void)
{
    if (ch4coll_locking)
        ch4coll_lock_leave();
}

/* One turn of a wait loop: let the threads waiting for the lock have it
 * (if this thread holds it, at any depth), and yield the core when idle
 * (nothing moved and yielding is configured). */
static inline void ch4coll_lock_pause(int idle)
{
    if (ch4coll_locking)
        ch4coll_lock_pause_held(idle);
    else if (idle)
        sched_yield();
}

#endif /* CH4COLL_LOCK_H */
