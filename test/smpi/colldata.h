/*
 * colldata.h - data, buffers and references of collcheck (the SMPI-scale
 * correctness driver, collcheck.c).
 *
 * Every element a rank contributes is a pure function of (rank, index), so
 * each rank computes what it must receive from a formula, without a second
 * MPI call: a reference costs O(p * count) per rank, which is what makes
 * checked runs at thousands of simulated ranks affordable.
 *
 * An element is W ints: W = 1 with MPI_INT and MPI_SUM (values in
 * [0, CD_VALUE_MAX), so a sum over 2^20 ranks stays exact), or W = 2 with
 * the pair type and the affine op (a, b) = x -> a*x + b modulo CD_MOD,
 * which is associative and not commutative: an algorithm that reorders the
 * ranks' contributions gives a different result.
 *
 * Receive buffers start as a sentinel and have CD_GUARD elements after the
 * data; the gaps between v-blocks and the guards must come back untouched.
 */
#ifndef COLLDATA_H
#define COLLDATA_H

#include <mpi.h>
#include <stddef.h>

#define CD_VALUE_MAX 1000
#define CD_MOD       65521 /* the largest prime below 2^16 */
#define CD_GUARD     4     /* sentinel elements after every receive area */
#define CD_SENTINEL  (-0x5a5a5a5b)
#define CD_MAXW      2

/* What all ranks agree on for one run, plus this rank's identity. */
typedef struct {
    int rank, size;
    int root;        /* rooted collectives */
    int count;       /* elements per block */
    int w;           /* ints per element: 1 (sum) or 2 (affine) */
    MPI_Datatype dt; /* MPI_INT or contiguous(2, MPI_INT) */
    MPI_Op op;       /* MPI_SUM or the affine op */
    int shared;      /* buffers from SMPI_SHARED_MALLOC, nothing checked */
    long bad;        /* mismatches found on this rank in this collective */
    long bad_index;  /* first of them: element index, got, expected */
    int bad_got, bad_want;
} cd_env_t;

/* Select the element kind: affine = 0 sum of ints, 1 affine pairs.  Needs
 * MPI_Init (creates the type and the op). */
void cd_env_init(cd_env_t *e, int affine);
void cd_env_free(cd_env_t *e);

/* A buffer of n elements: data (shared mode: SMPI_SHARED_MALLOC, untouched)
 * or a receive area of n elements + CD_GUARD set to the sentinel. */
int *cd_alloc(const cd_env_t *e, size_t n);
int *cd_alloc_recv(const cd_env_t *e, size_t n);
void cd_free(const cd_env_t *e, int *buf);

/* buf[k] = element (q, first + k), k < n. */
void cd_fill(const cd_env_t *e, int *buf, int q, size_t first, size_t n);

/* out = element (lo, i) op (lo+1, i) op ... op (hi-1, i): the rank-order
 * fold of the contributions at index i of ranks lo .. hi-1 (hi > lo). */
void cd_fold(const cd_env_t *e, int lo, int hi, size_t i, int *out);

/* Compare element k of buf with want; count a mismatch. */
void cd_expect(cd_env_t *e, const int *buf, size_t k, const int *want);

/* buf[k] == element (q, first + k) for k < n, at buf position at. */
void cd_expect_block(cd_env_t *e, const int *buf, size_t at, int q,
                     size_t first, size_t n);

/* buf[at .. at+n) holds the fold over ranks lo .. hi-1 of indices
 * first .. first+n. */
void cd_expect_fold(cd_env_t *e, const int *buf, size_t at, int lo, int hi,
                    size_t first, size_t n);

/* Elements [from, to) of buf still hold the sentinel. */
void cd_expect_untouched(cd_env_t *e, const int *buf, size_t from, size_t to);

/* Irregular counts of the v-collectives: the block rank q contributes
 * (some are empty), and the block rank s sends to rank d in alltoallv. */
int cd_vcount(const cd_env_t *e, int q);
int cd_pair_count(const cd_env_t *e, int s, int d);

#endif /* COLLDATA_H */
