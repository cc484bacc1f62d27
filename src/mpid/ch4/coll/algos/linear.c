/*
 * linear.c - linear (flat) gather(v), scatter(v) and allgather(v).
 *
 * Source: NEC MPI/SX section 4.1 notes that irregular gather/scatter cannot
 * use the regular binomial tree without knowing every count everywhere; the
 * flat tree needs counts only at the root.
 *
 * gatherv   the root posts one receive per non-empty block, straight into
 *           place; every other rank sends its block.  scatterv mirrors it.
 * T = (p-1) alpha + N beta at the root (N bytes in all), exactly: the
 * root's port carries one message per non-empty block but its own, back to
 * back (alpha per message, empty blocks cost nothing).  No scratch.
 * Zero-size blocks are skipped on both sides (sender and root both know).
 *
 * gather and scatter are the same builders with regular blocks (i m).
 *
 * Worked example, p = 5, root 3: ranks 0, 1, 2, 4 each send once to 3,
 * which receives at displs[0], displs[1], displs[2], displs[4] and copies
 * its own block (unless MPI_IN_PLACE).
 *
 * allgather(v) linear: every rank sends its block straight to every other
 * rank and receives every other block straight into place, all posted at
 * once, sends in the order rank + 1, rank + 2, ... (step k pairs every
 * rank with rank + k, so no receiver is the target of two senders at a
 * step); one message per pair, tag 0.  SMPI's spreading_simple and
 * smp_simple (one rank per host) do the same.  Where a host injects many
 * messages at once (SimGrid's hosts, NICs with per-message overheads well
 * below the latency) this costs one latency plus the send overheads and
 * the bytes through the host link, against p - 1 latencies for the ring:
 * at p = 16 on SimGrid's fat tree, 8 KiB, SMPI's smp_simple took 0.32 of
 * the ring's time.  On the single-ported model a rank's ports carry its
 * block p - 1 times out and the others' in, (p-1)(alpha + m beta) for
 * regular blocks, but the replay places every message as early as its two
 * ports allow, first come, and never into an earlier gap: with everything
 * posted at once the ports interleave badly and it takes 3 times that, as
 * alltoall `scattered` does with every exchange posted.  The formula is
 * the replay's: 3 (p-1)(alpha + m beta); irregular: 3 times the busiest
 * port (its own block p - 1 times, or the others' blocks).  Worked example, p =
 * 5 at rank 3: sends its block to 4, 0, 1, 2 in that order and receives blocks
 * 2, 1, 0, 4 (step k's sender is 3 - k); empty blocks are skipped on both
 * sides.
 */
#include "algo.h"

#include "../util/util.h"

int ch4coll_gatherv_linear(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    int p = a->size, i;

    (void) params;
    if (a->rank != a->root) {
        if (a->count > 0)
            ch4coll_sched_send(s, ch4coll_ref(CH4COLL_BUF_SEND, 0), a->count,
                               a->root, 0, 0, NULL);
        return CH4COLL_OK;
    }
    for (i = 0; i < p; i++) {
        ch4coll_ref_t at = ch4coll_ref(CH4COLL_BUF_RECV, a->displs[i]);
        if (a->counts[i] == 0 || (i == a->root && a->inplace))
            continue;
        if (i == a->root)
            ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0), at,
                               a->counts[i], 0, NULL);
        else
            ch4coll_sched_recv(s, at, a->counts[i], i, 0, 0, NULL);
    }
    return CH4COLL_OK;
}

int ch4coll_scatterv_linear(ch4coll_sched_t *s, const ch4coll_args_t *a,
                            const int64_t *params)
{
    int p = a->size, i;

    (void) params;
    if (a->rank != a->root) {
        if (a->count > 0)
            ch4coll_sched_recv(s, ch4coll_ref(CH4COLL_BUF_RECV, 0), a->count,
                               a->root, 0, 0, NULL);
        return CH4COLL_OK;
    }
    for (i = 0; i < p; i++)
        if (a->scounts[i] > 0 && i != a->root)
            ch4coll_sched_send(s, ch4coll_ref(CH4COLL_BUF_SEND, a->sdispls[i]),
                               a->scounts[i], i, 0, 0, NULL);
    /* its own block last: no rank waits for the copy */
    i = a->root;
    if (a->scounts[i] > 0 && !a->inplace)
        ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, a->sdispls[i]),
                           ch4coll_ref(CH4COLL_BUF_RECV, 0), a->scounts[i], 0,
                           NULL);
    return CH4COLL_OK;
}

/* gather and scatter: the v-builders with regular blocks of a->count bytes
 * at i * a->count (the root talks to every rank directly; NEC MPI/SX 4.1:
 * the binomial trees "gradually become flatter" as m grows). */
static int regular(ch4coll_sched_t *s, const ch4coll_args_t *a,
                   const int64_t *params,
                   int (*vbuild)(ch4coll_sched_t *, const ch4coll_args_t *,
                                 const int64_t *))
{
    ch4coll_args_t va = *a;
    size_t *v;
    int i, rc;

    if (a->count == 0)
        return CH4COLL_OK;
    /* builder-time memory belongs to the builder */
    v = ch4coll_malloc(2 * (size_t) a->size * sizeof *v);
    if (!v)
        return CH4COLL_ERR_NOMEM;
    for (i = 0; i < a->size; i++) {
        v[i] = a->count;
        v[a->size + i] = (size_t) i * a->count;
    }
    va.counts = va.scounts = v;
    va.displs = va.sdispls = v + a->size;
    rc = vbuild(s, &va, params);
    ch4coll_free(v);
    return rc;
}

int ch4coll_gather_linear(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          const int64_t *params)
{
    return regular(s, a, params, ch4coll_gatherv_linear);
}

int ch4coll_scatter_linear(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    return regular(s, a, params, ch4coll_scatterv_linear);
}

static int allgather_linear(ch4coll_sched_t *s, const ch4coll_args_t *a)
{
    int p = a->size, me = a->rank, k;
    size_t own = ch4coll_blk_count(a, me);
    ch4coll_ref_t mine =
        a->inplace ? ch4coll_ref(CH4COLL_BUF_RECV, ch4coll_blk_displ(a, me))
                   : ch4coll_ref(CH4COLL_BUF_SEND, 0);

    for (k = 1; k < p; k++) {
        int from = (me - k + p) % p;
        if (ch4coll_blk_count(a, from) > 0)
            ch4coll_sched_recv(
                s, ch4coll_ref(CH4COLL_BUF_RECV, ch4coll_blk_displ(a, from)),
                ch4coll_blk_count(a, from), from, 0, 0, NULL);
    }
    for (k = 1; k < p && own > 0; k++)
        ch4coll_sched_send(s, mine, own, (me + k) % p, 0, 0, NULL);
    if (!a->inplace && own > 0)
        ch4coll_sched_copy(
            s, mine, ch4coll_ref(CH4COLL_BUF_RECV, ch4coll_blk_displ(a, me)),
            own, 0, NULL);
    return CH4COLL_OK;
}

int ch4coll_allgather_linear(ch4coll_sched_t *s, const ch4coll_args_t *a,
                             const int64_t *params)
{
    (void) params;
    return a->count == 0 ? CH4COLL_OK : allgather_linear(s, a);
}

int ch4coll_allgatherv_linear(ch4coll_sched_t *s, const ch4coll_args_t *a,
                              const int64_t *params)
{
    (void) params;
    return allgather_linear(s, a);
}

/* ------------------------------------------------------------------- cost */

/* The root's port carries one message per non-empty block but its own, one
 * after another.  Without the counts (a non-root's view) every block is
 * taken to be count bytes. */
static double root_port(const ch4coll_args_t *a, const size_t *counts,
                        const ch4coll_model_t *m)
{
    int p = a->size, i;
    double t = 0;

    if (!counts)
        return a->count > 0 ? (p - 1) * (m->alpha + a->count * m->beta) : 0.0;
    for (i = 0; i < p; i++)
        if (i != a->root && counts[i] > 0)
            t += m->alpha + (double) counts[i] * m->beta;
    return t;
}

double ch4coll_cost_gatherv_linear(const ch4coll_args_t *a,
                                   const int64_t *params,
                                   const ch4coll_model_t *m)
{
    (void) params;
    return root_port(a, a->counts, m);
}

double ch4coll_cost_scatterv_linear(const ch4coll_args_t *a,
                                    const int64_t *params,
                                    const ch4coll_model_t *m)
{
    (void) params;
    return root_port(a, a->scounts, m);
}

double ch4coll_cost_gather_linear(const ch4coll_args_t *a,
                                  const int64_t *params,
                                  const ch4coll_model_t *m)
{
    (void) params;
    return root_port(a, NULL, m);
}

double ch4coll_cost_scatter_linear(const ch4coll_args_t *a,
                                   const int64_t *params,
                                   const ch4coll_model_t *m)
{
    (void) params;
    return root_port(a, NULL, m);
}

/* Each rank's send port carries its block p - 1 times, its receive port
 * every other block: 3 times the busiest port (see the opening note). */
double ch4coll_cost_allgatherv_linear(const ch4coll_args_t *a,
                                      const int64_t *params,
                                      const ch4coll_model_t *m)
{
    int p = a->size, r;
    double all = 0, worst = 0;

    (void) params;
    for (r = 0; r < p; r++)
        all += ch4coll_model_block(m, (double) ch4coll_blk_count(a, r));
    for (r = 0; r < p; r++) {
        double t = ch4coll_model_block(m, (double) ch4coll_blk_count(a, r));
        double port = (p - 1) * t > all - t ? (p - 1) * t : all - t;
        worst = port > worst ? port : worst;
    }
    return 3 * worst;
}

double ch4coll_cost_allgather_linear(const ch4coll_args_t *a,
                                     const int64_t *params,
                                     const ch4coll_model_t *m)
{
    (void) params;
    return a->count == 0 ? 0.0
                         : 3 * (a->size - 1) * ch4coll_model_msg(m, a->count);
}
