/*
 * pipelined.c - pipelined binary-tree broadcast.
 *
 * Source: NEC MPI/SX section 3.3: "for small messages the best possible
 * algorithm is a binomial tree, whereas a pipelined binary tree algorithm
 * is used for messages beyond a certain threshold ... for large enough m
 * the broadcast time of the pipelined binary tree is independent of N".
 *
 * Steps: the message is cut into chunks of at most `chunk` bytes.  Over
 * relative ranks vr = (rank - root) mod p the tree is the binary heap
 * (parent (vr-1)/2, children 2vr+1 and 2vr+2).  A rank receives chunk c from
 * its parent and forwards it to its children as soon as it has it, while
 * chunk c+1 is already on its way: with k chunks and depth d =
 * floor(lg p), the last chunk leaves the root after k steps and reaches
 * the deepest leaf d steps later.
 * T = (k + d) (alpha + 2 (n/k) beta)   (two children share a rank's link),
 *   minimal near k = sqrt(d n beta / (2 alpha)).
 * Scratch: none (chunks land in place).  Any p, any root.
 * Parameter: chunk (bytes, default 65536, 1 .. 2^40); at most 2^20 chunks
 * (a smaller chunk is raised).  Chunk c uses tag c; at most two receives
 * and two sends per child are in flight (chunk c waits for chunk c-2), so
 * a long message does not post thousands of requests at once.
 *
 * Worked example, p = 6, root 0, 3 chunks: tree 0 -> 1, 2; 1 -> 3, 4;
 * 2 -> 5.  Step 1: 0 sends chunk 0 to 1 and 2; step 2: 1 and 2 forward
 * chunk 0 to 3, 4, 5 while 0 sends chunk 1; ...; rank 5 has chunk 2 after
 * step 5 = 3 chunks + depth 2.
 */
#include "algo.h"

#include "../topo/topo.h"

#define MAX_CHUNKS (1 << 20)
#define WINDOW     2

int ch4coll_bcast_pipelined_bintree(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                    const int64_t *params)
{
    int p = a->size, vr = ch4coll_rel(a->rank, a->root, p);
    int parent = vr > 0 ? ch4coll_abs((vr - 1) / 2, a->root, p) : -1;
    int kids[2], nkids = 0, k, c, j;
    size_t n = a->count, chunk = (size_t) params[0], nchunks;
    int *got, *sent;
    int d[2];

    if (n == 0 || p == 1)
        return CH4COLL_OK;
    if (chunk < 1)
        chunk = 1;
    if ((n + chunk - 1) / chunk > MAX_CHUNKS)
        chunk = (n + MAX_CHUNKS - 1) / MAX_CHUNKS;
    nchunks = (n + chunk - 1) / chunk;
    for (k = 1; k <= 2; k++)
        if (2 * vr + k < p)
            kids[nkids++] = ch4coll_abs(2 * vr + k, a->root, p);
    /* build-time memory: the last vertices per chunk (receive, sends) */
    got = ch4coll_malloc(nchunks * sizeof *got);
    sent = ch4coll_malloc(2 * nchunks * sizeof *sent);
    if (!got || !sent) {
        ch4coll_free(got);
        ch4coll_free(sent);
        return CH4COLL_ERR_NOMEM;
    }
    for (c = 0; c < (int) nchunks; c++) {
        size_t off = (size_t) c * chunk,
               len = n - off < chunk ? n - off : chunk;
        ch4coll_ref_t at = ch4coll_ref(CH4COLL_BUF_RECV, off);
        got[c] = -1;
        if (parent >= 0)
            got[c] = ch4coll_sched_recv(
                s, at, len, parent, c,
                ch4coll_dep1(c >= WINDOW ? got[c - WINDOW] : -1, d), d);
        for (j = 0; j < nkids; j++) {
            d[0] = got[c];
            d[1] = c >= WINDOW ? sent[2 * (c - WINDOW) + j] : -1;
            sent[2 * c + j] = ch4coll_sched_send(s, at, len, kids[j], c, 2, d);
        }
    }
    ch4coll_sched_set_ntags(s, (int) nchunks);
    ch4coll_free(got);
    ch4coll_free(sent);
    return CH4COLL_OK;
}
