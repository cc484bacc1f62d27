/*
 * test_cache.c - unit tests of the schedule cache (core/cache.c).
 *
 * What is covered, and why it matters:
 *
 *   cache      Lookup by the raw MPI arguments, v-array contents (and which
 *              array they are) in the key, LRU eviction with refresh on
 *              lookup, eviction by datatype/op handle, and the hit/miss/
 *              eviction counters.
 *
 * Assumptions: unit.h (MPI singleton, CK_NOFORK, each test frees what it
 * creates).
 */
#include <check.h>
#include <mpi.h>
#include <string.h>

#include "core/cache.h"
#include "unit.h"

/* A key with the receive counts v (length p, or NULL). */
static ch4coll_key_t make_key(int coll, int rcount, const int *v, int p)
{
    ch4coll_key_t k;

    memset(&k, 0, sizeof k);
    k.f.coll = coll;
    k.f.scount = rcount;
    k.f.rcount = rcount;
    k.f.stype = MPI_INT;
    k.f.rtype = MPI_INT;
    k.f.op = MPI_SUM;
    k.f.p = p;
    k.v[0] = v;
    k.f.nv = v != NULL;
    ch4coll_key_hash(&k);
    return k;
}

/* k with one field changed must miss. */
static void expect_miss(ch4coll_cache_t *c, ch4coll_key_t k)
{
    ch4coll_key_hash(&k);
    ck_assert_ptr_null(ch4coll_cache_lookup(c, &k));
}

START_TEST(test_cache_lookup)
{
    ch4coll_cache_t c;
    ch4coll_key_t k1 = make_key(CH4COLL_ALLREDUCE, 10, NULL, 4);
    ch4coll_key_t k2 = make_key(CH4COLL_ALLREDUCE, 11, NULL, 4);
    ch4coll_key_t k3 = make_key(CH4COLL_BCAST, 10, NULL, 4);
    ch4coll_key_t k4 = k1;
    ch4coll_centry_t *e;

    ch4coll_cache_init(&c, 8);
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &k1));
    e = ch4coll_cache_insert(&c, &k1);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &k4), e); /* equal copy */
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &k2));
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &k3));
    k4.f.root = 1; /* every field is part of the key */
    expect_miss(&c, k4);
    k4 = k1;
    k4.f.inplace = 1;
    expect_miss(&c, k4);
    k4 = k1;
    k4.f.op = MPI_MAX;
    expect_miss(&c, k4);
    k4 = k1;
    k4.f.rtype = MPI_DOUBLE;
    expect_miss(&c, k4);
    k4 = k1;
    k4.f.scount = 9;
    expect_miss(&c, k4);
    ck_assert_uint_eq(c.hits, 1);
    ck_assert_uint_eq(c.misses, 8);
    ck_assert_uint_eq(c.evictions, 0);
    ck_assert_int_eq(c.n, 1);
    ch4coll_cache_destroy(&c);
}
END_TEST

START_TEST(test_cache_varrays)
{
    int v1[4] = {1, 2, 3, 4}, v2[4] = {1, 2, 3, 5}, v3[4] = {1, 2, 3, 4};
    ch4coll_cache_t c;
    ch4coll_key_t k1 = make_key(CH4COLL_ALLGATHERV, 0, v1, 4);
    ch4coll_key_t k2 = make_key(CH4COLL_ALLGATHERV, 0, v2, 4);
    ch4coll_key_t k3 = make_key(CH4COLL_ALLGATHERV, 0, v3, 3);
    ch4coll_key_t k4 = make_key(CH4COLL_ALLGATHERV, 0, NULL, 4);
    ch4coll_key_t k5 = k1;
    ch4coll_centry_t *e;

    ch4coll_cache_init(&c, 8);
    e = ch4coll_cache_insert(&c, &k1);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_ne(e->key.v[0], v1); /* the entry owns a copy */
    ck_assert_ptr_null(
        ch4coll_cache_lookup(&c, &k2)); /* same length, other value */
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &k3)); /* prefix */
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &k4)); /* no array */
    k5.v[0] = NULL; /* same values in another slot */
    k5.v[1] = v3;
    expect_miss(&c, k5);
    v1[3] = 99; /* the caller's array may change */
    k5 = make_key(CH4COLL_ALLGATHERV, 0, v3, 4);
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &k5), e);
    k1 = make_key(CH4COLL_ALLGATHERV, 0, v1, 4);
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &k1));
    ck_assert_uint_eq(c.hits, 1);
    ck_assert_uint_eq(c.misses, 5);
    ch4coll_cache_destroy(&c);
}
END_TEST

/* The hot entry (core/run.c's shortcut for a repeated blocking call) goes
 * with its entry: by LRU eviction and by MPI_Type_free / MPI_Op_free. */
START_TEST(test_cache_hot_goes_with_entry)
{
    ch4coll_cache_t c;
    ch4coll_key_t ka = make_key(CH4COLL_ALLREDUCE, 1, NULL, 2);
    ch4coll_key_t kb = make_key(CH4COLL_ALLREDUCE, 2, NULL, 2);
    ch4coll_key_t kc = make_key(CH4COLL_ALLREDUCE, 3, NULL, 2);
    ch4coll_centry_t *a, *b;

    ch4coll_cache_init(&c, 2);
    a = ch4coll_cache_insert(&c, &ka);
    b = ch4coll_cache_insert(&c, &kb);
    c.hot = a;
    ck_assert_ptr_nonnull(ch4coll_cache_insert(&c, &kc)); /* evicts a */
    ck_assert_ptr_null(c.hot);
    c.hot = b;
    ch4coll_cache_forget(&c, MPI_DATATYPE_NULL, MPI_MAX); /* not b's op */
    ck_assert_ptr_eq(c.hot, b);
    ch4coll_cache_forget(&c, MPI_DATATYPE_NULL, b->key.f.op);
    ck_assert_ptr_null(c.hot);
    ck_assert_int_eq(c.n, 0);
    c.hot = ch4coll_cache_insert(&c, &ka);
    ch4coll_cache_destroy(&c);
    ck_assert_ptr_null(c.hot);
}
END_TEST

START_TEST(test_cache_lru)
{
    ch4coll_cache_t c;
    ch4coll_key_t ka = make_key(CH4COLL_ALLREDUCE, 1, NULL, 2);
    ch4coll_key_t kb = make_key(CH4COLL_ALLREDUCE, 2, NULL, 2);
    ch4coll_key_t kc = make_key(CH4COLL_ALLREDUCE, 3, NULL, 2);
    ch4coll_key_t kd = make_key(CH4COLL_ALLREDUCE, 4, NULL, 2);
    ch4coll_centry_t *a, *cc, *d;

    ch4coll_cache_init(&c, 2);
    a = ch4coll_cache_insert(&c, &ka);
    ck_assert_ptr_nonnull(ch4coll_cache_insert(&c, &kb));
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &ka), a); /* a is now newest */
    cc = ch4coll_cache_insert(&c, &kc);                 /* evicts b */
    ck_assert_uint_eq(c.evictions, 1);
    ck_assert_int_eq(c.n, 2);
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &kb));
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &ka), a);  /* order: a, c */
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &kc), cc); /* order: c, a */
    d = ch4coll_cache_insert(&c, &kd);                   /* evicts a */
    ck_assert_uint_eq(c.evictions, 2);
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &ka));
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &kc), cc);
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &kd), d);
    ck_assert_int_eq(c.n, 2);
    ck_assert_uint_eq(c.hits, 5);
    ck_assert_uint_eq(c.misses, 2);
    ck_assert_uint_eq(c.evictions, 2);
    ch4coll_cache_destroy(&c);
}
END_TEST

/* Freeing a datatype or op evicts exactly the entries that name it. */
START_TEST(test_cache_forget)
{
    ch4coll_cache_t c;
    ch4coll_key_t ki = make_key(CH4COLL_ALLREDUCE, 1, NULL, 2);
    ch4coll_key_t kd = ki, km = ki, ks = ki;
    ch4coll_centry_t *ed, *es;

    kd.f.rtype = kd.f.stype = MPI_DOUBLE;
    ch4coll_key_hash(&kd);
    km.f.op = MPI_MAX;
    km.f.rtype = km.f.stype = MPI_DOUBLE;
    ch4coll_key_hash(&km);
    ks.f.coll = CH4COLL_ALLGATHER; /* MPI_INT on the send side only */
    ks.f.rtype = MPI_BYTE;
    ch4coll_key_hash(&ks);
    ch4coll_cache_init(&c, 8);
    ch4coll_cache_insert(&c, &ki);
    ed = ch4coll_cache_insert(&c, &kd);
    ch4coll_cache_insert(&c, &km);
    es = ch4coll_cache_insert(&c, &ks);
    ck_assert_ptr_nonnull(es);
    ck_assert_int_eq(c.n, 4);
    ch4coll_cache_forget(&c, MPI_INT, MPI_OP_NULL);
    ck_assert_int_eq(c.n, 2);
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &ki));
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &ks));
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &kd), ed);
    ch4coll_cache_forget(&c, MPI_DATATYPE_NULL, MPI_MAX);
    ck_assert_int_eq(c.n, 1);
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &km));
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &kd), ed);
    ch4coll_cache_destroy(&c);
}
END_TEST

/* =============================================================== main */

static Suite *cache_suite(void)
{
    Suite *s = suite_create("cache");
    TCase *tc;

    tc = tcase_create("cache");
    tcase_add_test(tc, test_cache_lookup);
    tcase_add_test(tc, test_cache_varrays);
    tcase_add_test(tc, test_cache_lru);
    tcase_add_test(tc, test_cache_hot_goes_with_entry);
    tcase_add_test(tc, test_cache_forget);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return unit_main(argc, argv, cache_suite);
}
