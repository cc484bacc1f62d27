/*
 * circulant.c - the skips, baseblocks and periodic schedules of
 * circulant.h.
 *
 * The receive schedule.  Rank r's window of round k is the ranks at
 * distance s[k] .. s[k+1] - 1 behind it; r receives there the largest
 * baseblock not yet received and not its own, from the period before
 * (value c - q), and its own baseblock of the current period where that
 * largest one is the root's sentinel q.  Träff finds these without
 * looking at the ranks: on the line unrolled once (r sits at T = r + p,
 * the root at 0 and at p), the positions the root reaches by sums of
 * distinct skips, larger skips first, are the ranks whose baseblock is
 * the last skip added.  A depth-first search over those sums, with the
 * unused indices in decreasing order in a linked list, takes for round k
 * the first position inside (T - s[k+1], T - s[k]] that lies left of
 * every position taken before (the windows move left as k grows); a
 * position left of the window is first extended by smaller skips.  Each
 * index is taken once, in about 2.3 q steps in all (p <= 600).
 */
#include "circulant.h"

void ch4coll_circ_init(ch4coll_circ_t *g, int p)
{
    int k;

    g->p = p;
    for (g->q = 0; g->q < CH4COLL_CIRC_QMAX && (1L << g->q) < p; g->q++)
        ;
    g->s[g->q] = p;
    for (k = g->q - 1; k >= 0; k--)
        g->s[k] = (g->s[k + 1] + 1) / 2;
}

int ch4coll_circ_baseblock(const ch4coll_circ_t *g, int r)
{
    int k;

    if (r == 0)
        return g->q;
    for (k = g->q - 1; k >= 0; k--)
        if (r >= g->s[k]) {
            r -= g->s[k];
            if (r == 0)
                return k;
        }
    return -1; /* not reached: s[k+1] <= 2 s[k] leaves no rest */
}

/* The search state of one rank's receive schedule. */
typedef struct {
    const ch4coll_circ_t *g;
    long target;                        /* r + p */
    int next[CH4COLL_CIRC_QMAX + 1];    /* next smaller unused */
    int prev[CH4COLL_CIRC_QMAX + 1];    /* next larger unused */
    int pick[CH4COLL_CIRC_QMAX], npick; /* index per round */
} circ_search_t;

static void unlink_index(circ_search_t *st, int e)
{
    int q = st->g->q;

    if (st->prev[e] <= q)
        st->next[st->prev[e]] = st->next[e];
    if (st->next[e] >= 0)
        st->prev[st->next[e]] = st->prev[e];
    /* e keeps its own next: the walk that stands on e goes on from it */
}

/* Walk the unused indices from e down, adding each skip to base; bound
 * is the exclusive limit on the right of every position placed below
 * here. */
static void search(circ_search_t *st, long base, long bound, int e)
{
    const int *s = st->g->s;
    int q = st->g->q, k;
    long pos;

    for (; e >= 0 && st->npick < q; e = st->next[e]) {
        k = st->npick;
        pos = base + s[e];
        if (pos > st->target - s[k] || pos >= bound)
            continue; /* right of the window, or of a position placed */
        if (pos <= st->target - s[k + 1]) { /* left of it: extend first */
            search(st, pos, bound, st->next[e]);
            k = st->npick;
            if (k == q)
                return;
        }
        if (base > st->target - s[k + 1])
            return; /* the caller's own position serves this window */
        bound = pos;
        st->pick[st->npick++] = e;
        unlink_index(st, e);
    }
}

void ch4coll_circ_recv(const ch4coll_circ_t *g, int r, int *recv)
{
    circ_search_t st;
    int q = g->q, b = ch4coll_circ_baseblock(g, r), e, k;

    st.g = g;
    st.target = (long) r + g->p;
    st.npick = 0;
    for (e = 0; e <= q; e++) {
        st.next[e] = e - 1;
        st.prev[e] = e + 1;
    }
    unlink_index(&st, b);
    search(&st, 0, 2L * g->p, q);
    for (k = 0; k < q; k++)
        recv[k] = k < st.npick && st.pick[k] == q ? b
                  : k < st.npick                  ? st.pick[k] - q
                                                  : CH4COLL_CIRC_NONE;
}

void ch4coll_circ_send(const ch4coll_circ_t *g, int r, int *send)
{
    int row[CH4COLL_CIRC_QMAX], k, t;

    for (k = 0; k < g->q; k++) {
        t = (int) (((long) r + g->s[k]) % g->p);
        if (t == 0) {
            send[k] = CH4COLL_CIRC_NONE;
            continue;
        }
        ch4coll_circ_recv(g, t, row);
        send[k] = row[k];
    }
}
