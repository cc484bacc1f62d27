/*
 * cycle.h - the cycle of ranks a ring or a pipelined chain runs round:
 * rank order, or the ranks in the order of their nodes, or a cycle of
 * torus neighbours through the nodes' hosts (topo/torus.h).
 *
 * A ring steps from position x to x + 1 and a chain from a root's
 * position on, one way or the other; which rank sits at a position is
 * all the builders ask.  The ring algorithms (ring.c) take the node order
 * whenever the nodes are not consecutive, so that one rank of each node
 * sends to another node; the chains (line.c, chain.c) keep rank order
 * then.  With the parameters torus_x and torus_y (0 = no torus) both
 * follow the torus: every hop between neighbours, so that a stream one
 * way round gets every link to itself and two streams, one each way,
 * share none (both: an odd number of nodes gets no such cycle and keeps
 * the order it had; without both it gets the cycle with one odd step,
 * topo/torus.h).
 *
 * Build-time memory only: the order array is freed by the builder
 * (ch4coll_cycle_close) before it returns.
 */
#ifndef CH4COLL_CYCLE_H
#define CH4COLL_CYCLE_H

#include "algo.h"

#include "../topo/torus.h"

typedef struct {
    int p;
    int *order; /* rank at each position; NULL: position x is rank x */
    int x;      /* this rank's position */
} ch4coll_cycle_t;

/* The cycle of a's ranks: the torus ring when torus (the parameters
 * torus_x, torus_y; NULL: none) makes one, else with by_node the node
 * order when the nodes are not consecutive, else rank order.  both: the
 * cycle carries a stream each way at once.  CH4COLL_OK or
 * CH4COLL_ERR_NOMEM. */
static inline int ch4coll_cycle_open(ch4coll_cycle_t *c,
                                     const ch4coll_args_t *a,
                                     const int64_t *torus, int both,
                                     int by_node)
{
    const ch4coll_locality_t *loc = a->loc;
    int p = a->size, nodes = loc ? loc->nodes : p;
    int consecutive = !by_node || !loc || loc->consecutive;

    c->p = p;
    c->order = NULL;
    c->x = a->rank;
    if (!(torus && torus[0] > 0) && consecutive)
        return CH4COLL_OK;
    c->order = ch4coll_malloc(((size_t) p + ch4coll_torus_work(nodes)) *
                              sizeof *c->order);
    if (!c->order)
        return CH4COLL_ERR_NOMEM;
    c->x = ch4coll_ring_order(p, loc ? loc->node_of : NULL, nodes, consecutive,
                              torus, both, a->rank, c->order, c->order + p);
    if (c->x < 0) { /* no such cycle: rank order */
        ch4coll_free(c->order);
        c->order = NULL;
        c->x = a->rank;
    }
    return CH4COLL_OK;
}

static inline void ch4coll_cycle_close(ch4coll_cycle_t *c)
{
    ch4coll_free(c->order);
    c->order = NULL;
}

/* The rank at position x, taken mod p. */
static inline int ch4coll_cycle_at(const ch4coll_cycle_t *c, int x)
{
    x = (x % c->p + c->p) % c->p;
    return c->order ? c->order[x] : x;
}

/* The position of rank r (r itself in rank order). */
static inline int ch4coll_cycle_pos(const ch4coll_cycle_t *c, int r)
{
    int x;

    for (x = 0; c->order && x < c->p; x++)
        if (c->order[x] == r)
            return x;
    return r;
}

#endif
