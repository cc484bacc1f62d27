/*
 * sched.h - schedules: a DAG of sends, receives, local reductions and copies
 * for one rank, built once and run many times.
 *
 * A builder (algos/) emits vertices with explicit dependency lists:
 *
 *     v0 = ch4coll_sched_recv(s, ch4coll_ref(tmp, 0), n, left, 0, 0, NULL);
 *     v1 = ch4coll_sched_reduce(s, ch4coll_ref(tmp, 0),
 *                               ch4coll_ref(CH4COLL_BUF_RECV, 0), n, 1, &v0);
 *
 * Vertices live in one arena, their dependency lists in one flat array; at
 * commit the in-edges are turned into CSR out-edges and every run-time array
 * is allocated, so that start + progress never allocate.  Running keeps a
 * dependency counter per vertex and a FIFO ready queue: a vertex is issued
 * when its counter reaches zero, no vertex is ever scanned twice.
 *
 * Buffers are named (buffer id, byte offset).  CH4COLL_BUF_SEND and
 * CH4COLL_BUF_RECV are the user's buffers, bound at start; every other id is
 * scratch owned by the schedule (one allocation, made at commit).  Memory
 * used only while building belongs to the builder, memory used while running
 * belongs to the schedule (MPICH gentran's rule).
 *
 * Errors while building are sticky: a failing verb records the status in
 * the schedule and returns -1; later verbs do nothing and commit returns the
 * first error.  Builders therefore need no error check after each verb.
 * Dependencies < 0 are ignored, so "no previous vertex yet" can be -1.
 *
 * Message order: messages of one schedule to the same (peer, tag) must be
 * issued in the same order on both sides.  The executor issues ready vertices
 * in FIFO order and the initially ready ones in vertex order; builders that
 * cannot guarantee the order use distinct tags (tag < the declared ntags).
 */
#ifndef CH4COLL_SCHED_H
#define CH4COLL_SCHED_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "../transport/transport.h"
#include "kernels.h"

enum {
    CH4COLL_BUF_SEND = 0,
    CH4COLL_BUF_RECV = 1,
    CH4COLL_BUF_FIRST_SCRATCH = 2
};

typedef enum {
    CH4COLL_V_SEND,
    CH4COLL_V_RECV,
    CH4COLL_V_REDUCE, /* b = a op b (a: lower ranks' data) */
    CH4COLL_V_COPY,   /* b = a */
    CH4COLL_V_FENCE,  /* depends on every earlier vertex; later
                       * vertices wait for it only if they name it */
    CH4COLL_V_SINK    /* no-op join of its dependencies */
} ch4coll_vkind_t;

/* A place in a buffer: buffer id and byte offset from the buffer's base. */
typedef struct {
    int32_t buf;
    size_t off;
} ch4coll_ref_t;

static inline ch4coll_ref_t ch4coll_ref(int buf, size_t off)
{
    ch4coll_ref_t r = {buf, off};
    return r;
}

typedef struct {
    uint8_t kind;             /* ch4coll_vkind_t */
    int32_t peer;             /* send/recv: rank in the communicator */
    int32_t tag;              /* send/recv: offset within the call's tags */
    ch4coll_ref_t a;          /* send/recv buffer; reduce/copy source */
    ch4coll_ref_t b;          /* reduce/copy destination */
    size_t count;             /* elements */
    int32_t in_first, n_in;   /* this vertex's slice of deps[] */
    int32_t out_first, n_out; /* this vertex's slice of succ[] */
} ch4coll_vtx_t;

#define CH4COLL_REQ_MAX 16 /* bytes of the largest transport request */

/*
 * A view lets a composition (algos/smp.c) run an ordinary builder on a
 * subset of the ranks, as if it were a communicator of its own.  While a
 * view is pushed the verbs translate what the inner builder says:
 *
 *   peer        sub rank -> peers[peer] (a rank of the schedule)
 *   tag         + tag_base (the composition gives each step its own tags)
 *   SEND, RECV  -> io[0], io[1] plus the inner offset (scratch buffers the
 *               inner builder asks for are ordinary scratch)
 *   no deps     -> deps[0..ndeps) (the step waits for the previous one)
 *
 * Views do not nest.  The inner builder's ch4coll_sched_set_ntags() is
 * recorded, and ch4coll_sched_pop_view() returns it.
 */
typedef struct {
    const int *peers; /* size entries */
    int size;
    int tag_base;
    ch4coll_ref_t io[2];
    int ndeps;
    const int *deps;
} ch4coll_view_t;

/* Where a scratch buffer lives: memory of its own, or offset off in ring
 * slot slot (see ch4coll_sched_scratch_slot). */
typedef struct {
    size_t bytes;
    size_t off;
    int slot; /* or -1 */
} ch4coll_scratch_t;

#define CH4COLL_SCRATCH_SLOTS 8

typedef struct ch4coll_sched {
    /* built by the verbs */
    ch4coll_vtx_t *vtx;
    int nv, cap_v;
    int32_t *deps; /* in-edges of all vertices, flat */
    int ndeps, cap_deps;
    int last_fence;             /* vertex id of the latest fence, or -1 */
    int status;                 /* sticky build error */
    const ch4coll_view_t *view; /* pushed view, or NULL */
    int view_ntags;             /* tags the viewed builder declared */

    /* fixed at init */
    ch4coll_elem_t elem;
    MPI_Op op;
    ch4coll_kernel_fn kernel; /* predefined (type, op): direct, else NULL */
    int rank, size;
    int ntags; /* tags used per call (same on every rank) */

    /* buffers: bufs[0], bufs[1] bound at start; scratch bound at commit */
    void **bufs;
    ch4coll_scratch_t *scratch_of; /* per buffer id, build time */
    int nbufs, cap_bufs;
    int slot;         /* ring slot new scratch goes to, or -1 */
    size_t slot_fill; /* bytes of the slot's current generation */
    size_t slot_bytes[CH4COLL_SCRATCH_SLOTS]; /* its largest generation */
    void *scratch;                            /* the one scratch allocation */

    /* built at commit */
    int32_t *succ; /* out-edges, CSR */
    int32_t *indeg;
    int32_t *roots; /* vertices without dependencies */
    int nroots;
    int ncomm; /* number of send + recv vertices */
    /* an exchange (at most one send and one recv, neither after the
     * other): the order ch4coll_sched_run_now takes its vertices, worked
     * out once, with -1 where the message(s) go; NULL for other schedules,
     * and for an exchange with much local work that does not wait for its
     * messages (sched.c: CH4COLL_OVERLAP_BYTES) and no large receive
     * (CH4COLL_RECV_FIRST_BYTES), which the ready queue runs while they
     * are in flight */
    int32_t *plan;
    int nplan;
    int xsend, xrecv; /* the exchange's send and recv vertex, or -1 */
    int committed;

    /* run state, allocated at commit */
    int32_t *pending;
    int32_t *ready;
    int rhead, rtail;
    int32_t *act;        /* vertices in flight */
    unsigned char *reqs; /* their transport requests */
    int *done_idx;
    int nact;
    int ndone;
    int tag_base;
    const ch4coll_transport_t *tp;
    void *tctx;
} ch4coll_sched_t;

int ch4coll_sched_init(ch4coll_sched_t *s, const ch4coll_elem_t *elem,
                       MPI_Op op, int rank, int size);
void ch4coll_sched_destroy(ch4coll_sched_t *s);

/* Declare that vertices use tags 0..ntags-1 (default 1).  ntags must be
 * computed from values every rank knows (p, counts, parameters). */
void ch4coll_sched_set_ntags(ch4coll_sched_t *s, int ntags);

/* Scratch for nelems elements of the schedule's element type; returns the
 * buffer id.  Offsets into it are nelems-relative byte offsets
 * (i * elem.extent), exactly as for the user buffers. */
int ch4coll_sched_scratch(ch4coll_sched_t *s, size_t nelems);
/* The same, always in memory of its own (whatever the current slot). */
int ch4coll_sched_scratch_own(ch4coll_sched_t *s, size_t nelems);

/*
 * Scratch reuse across pipeline pieces.  After ch4coll_sched_scratch_slot(s,
 * r) (0 <= r < CH4COLL_SCRATCH_SLOTS) the scratch buffers asked for go to
 * ring slot r, laid out from its start again: a new generation of the slot,
 * sharing memory with the earlier ones.  The slot is as large as its
 * largest generation.  The builder must order every vertex that uses an
 * earlier generation before every vertex that uses the new one (a
 * dependency on this rank; memory is per rank).  r = -1 (the default):
 * every buffer gets memory of its own.  A composition that builds piece k
 * into slot k mod D, each piece waiting for piece k - D, holds D pieces'
 * scratch instead of all of them (algos/smp.c).
 */
void ch4coll_sched_scratch_slot(ch4coll_sched_t *s, int slot);

int ch4coll_sched_send(ch4coll_sched_t *s, ch4coll_ref_t buf, size_t count,
                       int peer, int tag, int ndeps, const int *deps);
int ch4coll_sched_recv(ch4coll_sched_t *s, ch4coll_ref_t buf, size_t count,
                       int peer, int tag, int ndeps, const int *deps);
/* inout = in op inout, count elements. */
int ch4coll_sched_reduce(ch4coll_sched_t *s, ch4coll_ref_t in,
                         ch4coll_ref_t inout, size_t count, int ndeps,
                         const int *deps);
int ch4coll_sched_copy(ch4coll_sched_t *s, ch4coll_ref_t src, ch4coll_ref_t dst,
                       size_t count, int ndeps, const int *deps);
int ch4coll_sched_sink(ch4coll_sched_t *s, int ndeps, const int *deps);
int ch4coll_sched_fence(ch4coll_sched_t *s);

/* Convenience: one dependency (or none when dep < 0). */
static inline int ch4coll_dep1(int dep, int *buf)
{
    buf[0] = dep;
    return dep >= 0 ? 1 : 0;
}

/* Memory of a committed schedule: its arrays and scratch (what one cached
 * schedule, or one instance of it, holds). */
size_t ch4coll_sched_bytes(const ch4coll_sched_t *s);
/* Its scratch alone. */
size_t ch4coll_sched_scratch_total(const ch4coll_sched_t *s);

/* Build through view v until the matching pop (v must outlive it). */
void ch4coll_sched_push_view(ch4coll_sched_t *s, const ch4coll_view_t *v);
/* End the view; returns the number of tags the inner builder used. */
int ch4coll_sched_pop_view(ch4coll_sched_t *s);

/* A sink depending on every vertex from first on that no later vertex
 * depends on: "all of that step is done".  -1 if there is no such vertex. */
int ch4coll_sched_join(ch4coll_sched_t *s, int first);

/* Freeze the DAG: CSR edges, scratch and run-time arrays. */
int ch4coll_sched_commit(ch4coll_sched_t *s);

/* An independent copy of a committed schedule: the same DAG with its own
 * scratch and run state, so that both can run at the same time (one cached
 * schedule, several outstanding nonblocking calls of that shape). */
int ch4coll_sched_clone(ch4coll_sched_t *dst, const ch4coll_sched_t *src);

/* Bind the user buffers and make the schedule runnable.  No allocation. */
int ch4coll_sched_start(ch4coll_sched_t *s, const void *sendbuf, void *recvbuf,
                        int tag_base, const ch4coll_transport_t *tp,
                        void *tctx);

/* Issue what is ready and test what is in flight.  *progressed is set when
 * some vertex was issued or completed. */
int ch4coll_sched_progress(ch4coll_sched_t *s, int *progressed);

/* Run a started schedule to its end, blocking in the transport's
 * waitsome (which it must have) whenever nothing is ready: the host's
 * wait polls cheaper than a loop of tests through the MPI layer, and under
 * SimGrid SMPI each test costs simulated time.  Only where nothing else
 * needs progress meanwhile and the rank has a core of its own. */
int ch4coll_sched_wait(ch4coll_sched_t *s);

/* A committed schedule that is one exchange (at most one send and one
 * receive, neither depending on the other, and local steps, not much of
 * which could overlap the messages), on a transport with blocking
 * operations: run it now from start to finish,
 * bound to sendbuf and recvbuf at tag_base, the message(s) as one blocking
 * send, receive or sendrecv, and return 1 (*rc: status); else 0 and
 * nothing happened (start it as usual).  The order of its steps was worked
 * out at commit (the local steps the messages wait for, the messages, the
 * rest, each in ready order), so a run neither starts the schedule nor
 * keeps its ready queue.  Holding the receive's local successors until the
 * send is done changes nothing outside the rank: this is the same schedule
 * without requests or a test loop, what p = 2 costs (every collective
 * there is one exchange).  The caller uses it only where blocking inside
 * the host MPI is acceptable (a core of its own, nothing else of ch4coll's
 * in flight). */
int ch4coll_sched_run_now(ch4coll_sched_t *s, const void *sendbuf,
                          void *recvbuf, int tag_base,
                          const ch4coll_transport_t *tp, void *tctx, int *rc);

static inline int ch4coll_sched_done(const ch4coll_sched_t *s)
{
    return s->ndone == s->nv;
}

/* Bytes of scratch the committed schedule owns. */
size_t ch4coll_sched_scratch_size(const ch4coll_sched_t *s);

const char *ch4coll_vkind_name(int kind);

#endif /* CH4COLL_SCHED_H */
