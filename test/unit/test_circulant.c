/*
 * test_circulant.c - topo/circulant.h against brute force, as
 * ../shared/notes/circulant-schedules.md prescribes:
 *
 *   - the receive schedule of every rank of every p = 1..600, and of 20
 *     ranks each of p = 1023, 1024, 1025, 4095, 4096 and 65536, equals the
 *     defining rule: in round k the largest baseblock not yet taken (and
 *     not r's own) among the ranks r - s[k+1] < x <= r - s[k], else the
 *     baseblock of r - s[k+1]; the root's sentinel q stands for r's own
 *     baseblock of the current period;
 *   - its values are r's baseblock and c - q for every other index c, its
 *     baseblock comes in round K with s[K] <= r < s[K+1], and every send
 *     value is the sender's baseblock of the period before or a value it
 *     received earlier in the period; the root sends block k in round k;
 *   - broadcasts of n = 1, 2, 3, 5, 8, 17 blocks run round by round for
 *     p = 1..600 (n = 3 for p = 1023, 1024, 1025, 4095, 4096): in every
 *     round a rank sends only a block it held when the round began, no
 *     rank receives a block twice, every rank holds every block after
 *     exactly n - 1 + q rounds, and some rank still lacked one before the
 *     last round.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/circulant.h"

/* Failures are counted here and asserted once per test: Check records
 * every ck_assert it passes in a file, and these tests make millions. */
static long nfail;
static char first[256];

static void expect(int ok, const char *fmt, ...)
{
    va_list ap;

    if (ok || nfail++ > 0)
        return;
    va_start(ap, fmt);
    vsnprintf(first, sizeof first, fmt, ap);
    va_end(ap);
}

static void setup(void)
{
    nfail = 0;
    first[0] = '\0';
}

static void verdict(void)
{
    ck_assert_msg(nfail == 0, "%ld failures, the first: %s", nfail, first);
}

/* The defining rule, O(p) per rank. */
static void rule_recv(const ch4coll_circ_t *g, int r, const int *bb, int *recv)
{
    int used[CH4COLL_CIRC_QMAX + 1] = {0}, q = g->q, p = g->p, k, d, c, best;

    for (k = 0; k < q; k++) {
        best = -1;
        for (d = g->s[k]; d < g->s[k + 1]; d++) {
            c = bb[((r - d) % p + p) % p];
            if (c != bb[r] && !used[c] && c > best)
                best = c;
        }
        if (best < 0)
            best = bb[((r - g->s[k + 1]) % p + p) % p];
        expect(best != bb[r] && !used[best],
               "p=%d r=%d k=%d: the rule's fallback is taken", p, r, k);
        used[best] = 1;
        recv[k] = best == q ? bb[r] : best - q;
    }
}

static int *baseblocks(const ch4coll_circ_t *g)
{
    int *bb = malloc((size_t) g->p * sizeof *bb), r;

    ck_assert_ptr_nonnull(bb);
    for (r = 0; r < g->p; r++) {
        bb[r] = ch4coll_circ_baseblock(g, r);
        expect(bb[r] >= 0, "p=%d: no baseblock for %d", g->p, r);
    }
    return bb;
}

static void check_rank(const ch4coll_circ_t *g, const int *bb, int r)
{
    int got[CH4COLL_CIRC_QMAX], want[CH4COLL_CIRC_QMAX], k;

    ch4coll_circ_recv(g, r, got);
    rule_recv(g, r, bb, want);
    for (k = 0; k < g->q; k++)
        expect(got[k] == want[k], "p=%d r=%d k=%d: %d, the rule %d", g->p, r, k,
               got[k], want[k]);
}

START_TEST(test_skips)
{
    static const int p10[] = {1, 2, 3, 5, 10}, p17[] = {1, 2, 3, 5, 9, 17};
    ch4coll_circ_t g;
    int p, k;

    ch4coll_circ_init(&g, 10);
    expect(g.q == 4, "g.q == 4");
    for (k = 0; k <= 4; k++)
        expect(g.s[k] == p10[k], "g.s[k] == p10[k]");
    ch4coll_circ_init(&g, 17);
    for (k = 0; k <= 5; k++)
        expect(g.s[k] == p17[k], "g.s[k] == p17[k]");
    for (p = 1; p <= 5000; p++) {
        ch4coll_circ_init(&g, p);
        expect(p == 1 ? g.q == 0 : (1 << (g.q - 1)) < p && p <= (1 << g.q),
               "p=%d: q=%d is not ceil(lg p)", p, g.q);
        expect(g.s[0] == 1, "p=%d: s[0]=%d", p, g.s[0]);
        for (k = 0; k < g.q; k++)
            expect(g.s[k] < g.s[k + 1] && g.s[k + 1] <= 2 * g.s[k],
                   "p=%d: s[%d]=%d, s[%d]=%d", p, k, g.s[k], k + 1, g.s[k + 1]);
    }
    verdict();
}
END_TEST

START_TEST(test_recv_rule)
{
    ch4coll_circ_t g;
    int p, r, *bb;

    for (p = 1; p <= 600; p++) {
        ch4coll_circ_init(&g, p);
        bb = baseblocks(&g);
        for (r = 1; r < p; r++)
            check_rank(&g, bb, r);
        free(bb);
    }
    verdict();
}
END_TEST

START_TEST(test_recv_rule_large)
{
    static const int plist[] = {1023, 1024, 1025, 4095, 4096, 65536};
    ch4coll_circ_t g;
    int i, j, r, *bb;

    for (i = 0; i < 6; i++) {
        ch4coll_circ_init(&g, plist[i]);
        bb = baseblocks(&g);
        for (j = 0; j < 20; j++) {
            r = j < 2 ? (j == 0 ? 1 : g.p - 1)
                      : (int) (((long) j * 2654435761L) % (g.p - 1)) + 1;
            check_rank(&g, bb, r);
        }
        free(bb);
    }
    verdict();
}
END_TEST

/* The properties of section 4 and 5 of the notes, for one p. */
static void check_properties(const ch4coll_circ_t *g)
{
    int recv[CH4COLL_CIRC_QMAX], send[CH4COLL_CIRC_QMAX], seen[64];
    int q = g->q, r, k, j, b, K, held;

    ch4coll_circ_send(g, 0, send);
    for (k = 0; k < q; k++)
        expect(send[k] == k, "p=%d: the root sends %d in round %d", g->p,
               send[k], k);
    for (r = 1; r < g->p; r++) {
        b = ch4coll_circ_baseblock(g, r);
        ch4coll_circ_recv(g, r, recv);
        ch4coll_circ_send(g, r, send);
        memset(seen, 0, sizeof seen);
        for (k = 0; k < q; k++) {
            expect(recv[k] >= -q && recv[k] < q, "p=%d r=%d k=%d: value %d",
                   g->p, r, k, recv[k]);
            seen[recv[k] + q]++;
        }
        for (j = 0; j < q; j++) /* b itself, and c - q for every c != b */
            expect(seen[j] == (j != b), "p=%d r=%d: value %d seen %d times",
                   g->p, r, j - q, seen[j]);
        expect(seen[b + q] == 1, "p=%d r=%d: own baseblock seen %d times", g->p,
               r, seen[b + q]);
        for (K = 0; !(g->s[K] <= r && r < g->s[K + 1]); K++)
            ;
        expect(recv[K] == b, "p=%d r=%d: baseblock not in round %d", g->p, r,
               K);
        for (k = 0; k < q; k++) {
            if (send[k] == CH4COLL_CIRC_NONE) {
                expect((r + g->s[k]) % g->p == 0,
                       "p=%d r=%d k=%d: no send value", g->p, r, k);
                continue;
            }
            held = send[k] == b - q;
            for (j = 0; j < k; j++)
                held |= recv[j] == send[k];
            expect(held, "p=%d r=%d k=%d sends %d", g->p, r, k, send[k]);
        }
    }
}

START_TEST(test_properties)
{
    ch4coll_circ_t g;
    int p;

    for (p = 2; p <= 600; p++) {
        ch4coll_circ_init(&g, p);
        check_properties(&g);
    }
    verdict();
}
END_TEST

/* A broadcast of n blocks from relative rank 0, round by round. */
static void simulate(const ch4coll_circ_t *g, long n)
{
    int p = g->p, q = g->q, r, k, t;
    long rounds = ch4coll_circ_rounds(g, n), j, blk, missing;
    int *recv = malloc((size_t) p * (q ? q : 1) * sizeof *recv);
    int *send = malloc((size_t) p * (q ? q : 1) * sizeof *send);
    unsigned char *has = calloc((size_t) p * (size_t) n, 1);
    unsigned char *got = calloc((size_t) p * (size_t) n, 1);

    ck_assert(recv && send && has && got);
    for (r = 0; r < p; r++) {
        if (r > 0)
            ch4coll_circ_recv(g, r, recv + r * q);
        ch4coll_circ_send(g, r, send + r * q);
    }
    for (blk = 0; blk < n; blk++)
        has[blk] = 1; /* the root */
    for (j = 0; j < rounds; j++) {
        k = ch4coll_circ_slot(g, n, j);
        memset(got, 0, (size_t) p * (size_t) n);
        for (r = 0; r < p; r++) {
            t = (r + g->s[k]) % p;
            blk = ch4coll_circ_block(g, n, j, send[r * q + k]);
            if (t == 0) {
                expect(send[r * q + k] == CH4COLL_CIRC_NONE,
                       "p=%d r=%d k=%d: a send to the root", p, r, k);
                continue;
            }
            /* what the target expects, from the same round and slot */
            expect(blk == ch4coll_circ_block(g, n, j, recv[t * q + k]),
                   "p=%d n=%ld round %ld: %d sends %ld, %d expects %ld", p, n,
                   j, r, blk, t, ch4coll_circ_block(g, n, j, recv[t * q + k]));
            if (blk < 0)
                continue;
            expect(has[(size_t) r * n + blk],
                   "p=%d n=%ld round %ld: %d sends block %ld it lacks", p, n, j,
                   r, blk);
            expect(!has[(size_t) t * n + blk],
                   "p=%d n=%ld round %ld: %d gets block %ld twice", p, n, j, t,
                   blk);
            got[(size_t) t * n + blk] = 1;
        }
        missing = 0;
        for (r = 0; r < p; r++)
            for (blk = 0; blk < n; blk++) {
                has[(size_t) r * n + blk] |= got[(size_t) r * n + blk];
                missing += !has[(size_t) r * n + blk];
            }
        if (j == rounds - 2)
            expect(missing > 0, "p=%d n=%ld: done a round early", p, n);
    }
    for (r = 0; r < p; r++)
        for (blk = 0; blk < n; blk++)
            expect(has[(size_t) r * n + blk],
                   "p=%d n=%ld: rank %d lacks block %ld after %ld "
                   "rounds",
                   p, n, r, blk, rounds);
    free(recv);
    free(send);
    free(has);
    free(got);
}

START_TEST(test_broadcast)
{
    static const long nlist[] = {1, 2, 3, 5, 8, 17};
    ch4coll_circ_t g;
    int p, i;

    for (p = 2; p <= 600; p++) {
        ch4coll_circ_init(&g, p);
        for (i = 0; i < 6; i++)
            simulate(&g, nlist[i]);
    }
    verdict();
}
END_TEST

START_TEST(test_broadcast_large)
{
    static const int plist[] = {1023, 1024, 1025, 4095, 4096};
    ch4coll_circ_t g;
    int i;

    for (i = 0; i < 5; i++) {
        ch4coll_circ_init(&g, plist[i]);
        simulate(&g, 3);
    }
    verdict();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("circulant");
    TCase *tc = tcase_create("topo");
    SRunner *sr;
    int failed;

    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_skips);
    tcase_add_test(tc, test_recv_rule);
    tcase_add_test(tc, test_recv_rule_large);
    tcase_add_test(tc, test_properties);
    tcase_add_test(tc, test_broadcast);
    tcase_add_test(tc, test_broadcast_large);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
