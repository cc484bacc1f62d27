/*
 * smp.h - what the hierarchical compositions (smp_*.c) share: the node
 * groups of a call, its pipeline pieces and tags, the inner steps run
 * through views, element runs of copies, and the cost skeleton.  smp.c
 * has the design (steps, layout, pipelining, tags, cost); the functions
 * are defined there.
 */
#ifndef CH4COLL_SMP_H
#define CH4COLL_SMP_H

#include "algo.h"

#include <stddef.h>

#include "../util/util.h"

/* At most this many pipeline pieces; the pieces whose builders' scratch is
 * live at once. */
#define CH4COLL_SMP_MAX_PIECES 64
#define CH4COLL_SMP_RING       4

/* Tags per piece of the intra-node steps (the binomial builders' ntags). */
enum {
    CH4COLL_SMP_TAGS_REDUCE = 2, /* ch4coll_reduce_binomial */
    CH4COLL_SMP_TAGS_BCAST = 1,  /* ch4coll_bcast_binomial */
    CH4COLL_SMP_TAGS_GATHER = 1, /* ch4coll_gather_binomial */
    CH4COLL_SMP_TAGS_OWN = 1     /* fan-in, fan-out, scatter (smp_*.c) */
};

/* The nodes as groups of ranks, and this rank's place among them. */
typedef struct {
    int nodes;
    int consecutive; /* every node's ranks contiguous (rank order sorted) */
    int *order;      /* p: ranks sorted by (node, rank) */
    int *first;      /* nodes + 1: node j is order[first[j] .. first[j+1]) */
    int *pos;        /* p: position of each rank in order */
    int *lead;       /* nodes: index of node j's leader among its ranks */
    int *leaders;    /* nodes: rank of node j's leader */
    int node, idx;   /* this rank's node and index in it */
    int root_node;   /* node of the root (rooted collectives), else 0 */
    int qmax;        /* ranks of the largest node */
} ch4coll_smp_groups_t;

/* One call on one rank: its groups, pieces and tags. */
typedef struct {
    ch4coll_sched_t *s; /* NULL when only costing */
    const ch4coll_args_t *a;
    ch4coll_smp_groups_t g;
    size_t piece; /* units per piece (the last one may be shorter) */
    int npieces;  /* K */
    int t1, t3;   /* intra-node tags per piece of steps 1 and 3 */
    int xtags;    /* step-2 tags declared so far */
    size_t *vc;   /* nodes: inner counts */
    size_t *vd;   /* nodes: inner displacements */
    size_t *q;    /* p + 1: a piece's offsets in node order */
    size_t *d;    /* p: block offsets in rank order (reduce_scatter) */
    int work;     /* scratch buffer id, or -1 */
    int ends[3][CH4COLL_SMP_MAX_PIECES]; /* vertex after step i of piece k */
    int last[CH4COLL_SMP_MAX_PIECES]; /* vertex after all of piece k, or -1 */
    int first;                        /* the current piece's first vertex */
    int pbuf, pbuf_k;                 /* piece pbuf_k's scratch (piece_buf) */
} ch4coll_smp_t;

/* Copies of element runs from one buffer to another, merged where both
 * sides run on; offsets are elements from sbase and dbase. */
typedef struct {
    const ch4coll_smp_t *x;
    int sbuf, dbuf;
    size_t sbase, dbase;
    size_t so, dof, n; /* the pending run */
    int dep;
} ch4coll_smp_runs_t;

/* One piece on the model: the three steps' times, and what the busiest
 * leader's send port, receive port and CPU spend on the piece (the
 * leader serves all three steps). */
typedef struct {
    double step[3];
    double out, in, cpu;
} ch4coll_smp_piece_cost_t;

typedef void (*ch4coll_smp_stages_fn)(ch4coll_smp_t *x, int k,
                                      const ch4coll_model_t *m,
                                      ch4coll_smp_piece_cost_t *c);

static inline int ch4coll_smp_node_size(const ch4coll_smp_groups_t *g, int j)
{
    return g->first[j + 1] - g->first[j];
}

/* Rank of member i of this rank's node. */
static inline int ch4coll_smp_member(const ch4coll_smp_groups_t *g, int i)
{
    return g->order[g->first[g->node] + i];
}

static inline size_t ch4coll_smp_piece_off(const ch4coll_smp_t *x, int k)
{
    return (size_t) k * x->piece;
}

/* Units of piece k within a vector (or block) of len units. */
static inline size_t ch4coll_smp_piece_len(const ch4coll_smp_t *x, int k,
                                           size_t len)
{
    size_t o = ch4coll_smp_piece_off(x, k);

    if (len <= o)
        return 0;
    return len - o < x->piece ? len - o : x->piece;
}

static inline int ch4coll_smp_is_leader(const ch4coll_smp_t *x)
{
    return x->g.idx == x->g.lead[x->g.node];
}

/* (buf, element offset) as a schedule reference. */
static inline ch4coll_ref_t ch4coll_smp_at(const ch4coll_smp_t *x, int buf,
                                           size_t elems)
{
    return ch4coll_ref(buf, ch4coll_eoff(x->a, elems));
}

/* Messages the root of a binomial tree of q ranks exchanges. */
static inline double ch4coll_smp_root_msgs(int q)
{
    return (double) ch4coll_ceil_log2(q);
}

/* Rank layout is node order and there is one piece: no packing. */
static inline int ch4coll_smp_direct(const ch4coll_smp_t *x)
{
    return x->g.consecutive && x->npieces == 1;
}

/* An inner step's algorithm and its parameters. */
typedef struct {
    const ch4coll_algo_t *al;
    int64_t params[CH4COLL_MAX_PARAMS];
} ch4coll_smp_choice_t;

/* An inner step's algorithm: args->subselect on the inner shape ia
 * unless that names a composed one (CH4COLL_F_COMPOSED: its steps would
 * nest schedules) or one that does not apply, else a fallback per
 * collective (allreduce: butterfly).  Every rank gets the same answer
 * (the shape is the same). */
int ch4coll_smp_choose(const ch4coll_args_t *a, const ch4coll_args_t *ia,
                       ch4coll_smp_choice_t *c);

/* Run build on ia through view v; *done: a vertex after the whole step
 * (v's dependency if the step added nothing); *ntags its tags. */
int ch4coll_smp_run_view(ch4coll_sched_t *s, ch4coll_build_fn build,
                         const ch4coll_args_t *ia, const int64_t *params,
                         const ch4coll_view_t *v, int *done, int *ntags);

/* Set up one call on one rank: its groups (root >= 0 leads its node, -1
 * for none) and the intra-node tags per piece of steps 1 and 3. */
int ch4coll_smp_open(ch4coll_smp_t *x, ch4coll_sched_t *s,
                     const ch4coll_args_t *a, int root, int t1, int t3);

/* Declare the tags (steps 1 and 3 of every piece, then all step-2 tags)
 * and free what was used only to build. */
int ch4coll_smp_close(ch4coll_smp_t *x, int rc);

/* Cut total units into pieces of about chunk bytes, unit bytes each. */
void ch4coll_smp_cut(ch4coll_smp_t *x, int64_t chunk, size_t total,
                     size_t unit);

/* Scratch for nelems elements, allocated once per call. */
int ch4coll_smp_work_buf(ch4coll_smp_t *x, size_t nelems);

/* Scratch for nelems elements that only piece k uses, in its ring slot
 * (piece_open); asked once per piece, the same nelems every time. */
int ch4coll_smp_piece_buf(ch4coll_smp_t *x, int k, size_t nelems);

/* The shape of an inner call with the outer call's element and op. */
void ch4coll_smp_inner_args(const ch4coll_smp_t *x, int coll, size_t count,
                            ch4coll_args_t *ia);

/* Step 1 (post = 0) or 3 (post = 1) of piece k: build on this rank's node
 * as a communicator of its own, rooted at the leader; ia gets the group
 * (size, rank, root).  SEND/RECV of build are in and out. */
int ch4coll_smp_intra(ch4coll_smp_t *x, int k, int post, ch4coll_build_fn build,
                      ch4coll_args_t *ia, ch4coll_ref_t in, ch4coll_ref_t out,
                      int dep, int *done);

/* Step 2 of piece k among the leaders (ia: shape, root in node numbers,
 * this node's leader's inplace; gets size and rank).  Ranks that are not
 * leaders only reserve its tags; *done is then dep. */
int ch4coll_smp_inter(ch4coll_smp_t *x, int k, ch4coll_args_t *ia,
                      ch4coll_ref_t in, ch4coll_ref_t out, int dep, int *done);

/* Piece k begins: its builders' scratch goes to ring slot k mod
 * CH4COLL_SMP_RING, over that of piece k - CH4COLL_SMP_RING, whose last use its
 * steps wait for (step_deps).  The scratch of the steps' builders is then that
 * of CH4COLL_SMP_RING pieces, not of all K. */
void ch4coll_smp_piece_open(ch4coll_smp_t *x, int k);

/* Piece k is built: a vertex after all of it, if a later piece reuses its
 * slot. */
void ch4coll_smp_piece_close(ch4coll_smp_t *x, int k);

/* Element runs of copies from sbuf to dbuf (ch4coll_smp_runs_t). */
ch4coll_smp_runs_t ch4coll_smp_runs_open(const ch4coll_smp_t *x, int sbuf,
                                         size_t sbase, int dbuf, size_t dbase,
                                         int dep);
void ch4coll_smp_runs_flush(ch4coll_smp_runs_t *r);
void ch4coll_smp_runs_add(ch4coll_smp_runs_t *r, size_t so, size_t dof,
                          size_t n);

/* An intra-node builder's cost on q ranks rooted at index root. */
double ch4coll_smp_node_cost(const ch4coll_smp_t *x, ch4coll_cost_fn f,
                             int coll, size_t count, int q, int root,
                             const ch4coll_model_t *m);

/* Step 2: the chosen algorithm's own formula between nodes; at the leader
 * its time without reductions on both ports, the rest on the CPU. */
void ch4coll_smp_leaders_cost(const ch4coll_smp_t *x, ch4coll_args_t *ia,
                              const ch4coll_model_t *m,
                              ch4coll_smp_piece_cost_t *c);

/* Step 1 as a binomial reduce of count elements to the leader of q ranks
 * (index root). */
void ch4coll_smp_node_reduce_cost(const ch4coll_smp_t *x, size_t count, int q,
                                  int root, const ch4coll_model_t *m,
                                  ch4coll_smp_piece_cost_t *c);

/* Step 3 as a binomial bcast of count units from the leader of q ranks. */
void ch4coll_smp_node_bcast_cost(const ch4coll_smp_t *x, size_t count, int q,
                                 const ch4coll_model_t *m,
                                 ch4coll_smp_piece_cost_t *c);

/* Fill (piece 0 through all three steps), then one period per further
 * piece: the busiest of the three steps and of the leader's ports and
 * CPU.  For K equal pieces T = T1 + T2 + T3 + (K - 1) period. */
double ch4coll_smp_cost(ch4coll_smp_t *x, ch4coll_smp_stages_fn f,
                        const ch4coll_model_t *m);

/* Step 3: piece k (count units at element offset off) from the leader
 * inside the node. */
int ch4coll_smp_bcast_in_node(ch4coll_smp_t *x, int k, size_t off, size_t count,
                              int dep);

#endif /* CH4COLL_SMP_H */
