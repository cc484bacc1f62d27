/*
 * select_helpers.h - what the selection tests (test_select_*.c) share:
 * JSON written with single quotes, loading with the warnings captured,
 * searching a tree for a call, the selection inputs of a communicator or
 * a call, a seeded generator, where the test files are, and the check
 * that a pruned tree answers exactly like the full tree.
 */
#ifndef CH4COLL_TEST_SELECT_HELPERS_H
#define CH4COLL_TEST_SELECT_HELPERS_H

#include <check.h>
#include <stdint.h>
#include <string.h>

#include "algos/algo.h"
#include "select/tree.h"

#define ERRLEN  4096
#define MAXWARN 64

extern const ch4coll_elem_t int_elem;
extern const ch4coll_elem_t byte_elem;

/* JSON written with single quotes in C strings: J("{'a': {}}").  Four
 * rotating buffers, so a few may be alive at once. */
const char *J(const char *s);

/* Warnings of the last load (load_ok, load_err, or a load given
 * warn_capture): the first MAXWARN, and how many there were. */
extern char warns[MAXWARN][1024];
extern int nwarn;

void warn_capture(const char *msg);

/* 1 if some warning contains both a and b (b may be NULL). */
int warned(const char *a, const char *b);

/* Load json as "test"; it must load. */
void load_ok(ch4coll_tree_t *t, const char *json);

/* Load must fail; returns the message (static). */
const char *load_err(const char *json);

#define ck_assert_has(msg, sub)                                                \
    ck_assert_msg(strstr((msg), (sub)) != NULL, "message '%s' lacks '%s'",     \
                  (msg), (sub))

/* A communicator of p ranks on `nodes` nodes, no call. */
ch4coll_selin_t comm_in(int p, int nodes);

/* A call of `bytes` per rank with a commutative built-in op. */
ch4coll_selin_t call_in(int coll, int p, int64_t bytes);

/* An accept() callback that takes every leaf. */
int accept_all(const ch4coll_tnode_t *leaf, void *ctx);

/* Path of the selected leaf, or NULL. */
const char *found(const ch4coll_tree_t *t, const ch4coll_selin_t *in);

/* Algorithm of the selected leaf, or NULL. */
const ch4coll_algo_t *found_algo(const ch4coll_tree_t *t,
                                 const ch4coll_selin_t *in);

/* The registered algorithm `name` of coll (asserts it exists). */
const ch4coll_algo_t *algo(int coll, const char *name);

/* What an MPICH leaf naming our `name` must resolve to: ours if
 * registered, else native. */
const char *mapped(int coll, const char *name);

/* xorshift64: the next value of *s; rnd: one of 0..n-1. */
uint64_t rng_next(uint64_t *s);
int rnd(uint64_t *s, int n);

/* Where the test files live: $CH4COLL_TEST_DATA, else the json/
 * directory next to this source file (from __FILE__). */
const char *data_dir(void);

/* Message sizes around powers of two, for random keys and calls. */
extern const int64_t sample_sizes[12];

/* No communicator-level predicate survives pruning (the root aside). */
void check_no_comm_preds(const ch4coll_tree_t *t, int i);

/* Search t and its pruned copies with many communicators and calls; the
 * answers must be the same leaf (by path).  Returns the searches done. */
int prune_equivalence(const ch4coll_tree_t *t, uint64_t seed);

#endif /* CH4COLL_TEST_SELECT_HELPERS_H */
