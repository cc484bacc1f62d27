/*
 * fold.h - the receive-and-fold step of the halving reductions
 * (reduce_butterfly.c, binary_blocks.c): a partner's partial of a range
 * arrives and joins mine in rank order, whatever the op.
 */
#ifndef CH4COLL_FOLD_H
#define CH4COLL_FOLD_H

#include "algo.h"

/* Where a rank's running partial of one range lives and what guards the
 * buffers (the builders keep these fields across steps). */
typedef struct {
    int commutative;
    int mine_ro;    /* my partial is still only my (read-only) input */
    int *tmp;       /* scratch for received partials, -1 until first use */
    size_t tmp_len; /* its elements */
    int *tmp_free;  /* last vertex reading tmp */
    int last_fold;  /* last vertex writing acc's range */
} ch4coll_fold_t;

/*
 * Receive the partner's partial (len elements, from peer with tag) and fold
 * it into acc in rank order: the partner's ranks are all below mine if
 * lower, else all above.  mine is my input at the same range.  Returns the
 * vertex that completes acc.
 */
static inline int ch4coll_fold_in(ch4coll_sched_t *s, const ch4coll_fold_t *f,
                                  ch4coll_ref_t mine, ch4coll_ref_t acc,
                                  int peer, int tag, int lower, size_t len)
{
    ch4coll_ref_t tmp;
    int d[2], got, v;

    if (f->mine_ro && (!lower || f->commutative)) {
        /* acc is still unused: receive into it, acc = mine op acc */
        got = ch4coll_sched_recv(s, acc, len, peer, tag, 0, NULL);
        return ch4coll_sched_reduce(s, mine, acc, len, 1, &got);
    }
    if (*f->tmp < 0)
        *f->tmp = ch4coll_sched_scratch(s, f->tmp_len);
    tmp = ch4coll_ref(*f->tmp, 0);
    got = ch4coll_sched_recv(s, tmp, len, peer, tag,
                             ch4coll_dep1(*f->tmp_free, d), d);
    if (f->mine_ro) { /* lower, non-commutative: acc = tmp op mine */
        d[0] = ch4coll_sched_copy(s, mine, acc, len, 0, NULL);
        d[1] = got;
        return *f->tmp_free = ch4coll_sched_reduce(s, tmp, acc, len, 2, d);
    }
    d[0] = got;
    d[1] = f->last_fold;
    if (lower || f->commutative) /* acc = tmp op acc */
        return *f->tmp_free = ch4coll_sched_reduce(s, tmp, acc, len, 2, d);
    /* acc = acc op tmp, formed in tmp and copied back */
    v = ch4coll_sched_reduce(s, acc, tmp, len, 2, d);
    return *f->tmp_free = ch4coll_sched_copy(s, tmp, acc, len, 1, &v);
}

#endif /* CH4COLL_FOLD_H */
