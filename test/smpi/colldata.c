/*
 * colldata.c - data, buffers and references of collcheck; see colldata.h.
 *
 * Under SMPI (smpicc defines SMPI_SHARED_MALLOC) the shared mode allocates
 * with SMPI_SHARED_MALLOC: all simulated ranks map the same pages, so
 * p = 4096 ranks of megabyte buffers fit in memory, and the data is
 * garbage.  Elsewhere (a plain mpicc build, for a quick look under MPICH)
 * the shared mode is plain malloc.  Every fill and check is a no-op in the
 * shared mode.
 */
#include "colldata.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SMPI_SHARED_MALLOC
#define SHARED_MALLOC(n) SMPI_SHARED_MALLOC(n)
#define SHARED_FREE(p)   SMPI_SHARED_FREE(p)
#else
#define SHARED_MALLOC(n) malloc(n)
#define SHARED_FREE(p)   free(p)
#endif

/* inout = in op inout for the affine maps (a, b): apply in first, then
 * inout; MPI passes the lower ranks' data as in. */
static void affine_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int *x = in;
    int *y = inout;
    int k;

    (void) dt;
    for (k = 0; k < *len; k++, x += 2, y += 2) {
        int64_t a = (int64_t) y[0] * x[0] % CD_MOD;
        int64_t b = ((int64_t) y[0] * x[1] + y[1]) % CD_MOD;
        y[0] = (int) a;
        y[1] = (int) b;
    }
}

void cd_env_init(cd_env_t *e, int affine)
{
    e->w = affine ? 2 : 1;
    e->dt = MPI_INT;
    e->op = MPI_SUM;
    if (!affine)
        return;
    MPI_Type_contiguous(2, MPI_INT, &e->dt);
    MPI_Type_commit(&e->dt);
    MPI_Op_create(affine_op, 0, &e->op);
}

void cd_env_free(cd_env_t *e)
{
    if (e->w == 1)
        return;
    MPI_Type_free(&e->dt);
    MPI_Op_free(&e->op);
}

int *cd_alloc(const cd_env_t *e, size_t n)
{
    size_t bytes = (n + CD_GUARD) * (size_t) e->w * sizeof(int);
    int *buf = e->shared ? SHARED_MALLOC(bytes) : malloc(bytes);

    if (!buf) {
        fprintf(stderr, "collcheck: rank %d: out of memory (%zu bytes)\n",
                e->rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return buf;
}

int *cd_alloc_recv(const cd_env_t *e, size_t n)
{
    int *buf = cd_alloc(e, n);
    size_t k, len = (n + CD_GUARD) * (size_t) e->w;

    if (!e->shared)
        for (k = 0; k < len; k++)
            buf[k] = CD_SENTINEL;
    return buf;
}

void cd_free(const cd_env_t *e, int *buf)
{
    if (!buf)
        return;
    if (e->shared)
        SHARED_FREE(buf);
    else
        free(buf);
}

static uint32_t mix(uint32_t q, uint32_t i, uint32_t salt)
{
    uint32_t h = (q + 1) * 0x9E3779B1u ^ (i + 0x7F4A7C15u) * 0x85EBCA77u ^
                 (salt + 1) * 0xC2B2AE3Du;

    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return h;
}

/* out = element (q, i) */
static void element(const cd_env_t *e, int q, size_t i, int *out)
{
    if (e->w == 1) {
        out[0] = (int) (mix((uint32_t) q, (uint32_t) i, 0) % CD_VALUE_MAX);
        return;
    }
    out[0] = 1 + (int) (mix((uint32_t) q, (uint32_t) i, 1) % (CD_MOD - 1));
    out[1] = (int) (mix((uint32_t) q, (uint32_t) i, 2) % CD_MOD);
}

void cd_fill(const cd_env_t *e, int *buf, int q, size_t first, size_t n)
{
    size_t k;

    if (e->shared)
        return;
    for (k = 0; k < n; k++)
        element(e, q, first + k, buf + k * (size_t) e->w);
}

void cd_fold(const cd_env_t *e, int lo, int hi, size_t i, int *out)
{
    int x[CD_MAXW], q, len = 1;

    element(e, lo, i, out);
    for (q = lo + 1; q < hi; q++) {
        element(e, q, i, x);
        if (e->w == 1) {
            out[0] += x[0];
            continue;
        }
        affine_op(out, x, &len, NULL); /* x = out op x */
        memcpy(out, x, sizeof x);
    }
}

void cd_expect(cd_env_t *e, const int *buf, size_t k, const int *want)
{
    const int *got = buf + k * (size_t) e->w;
    int j;

    for (j = 0; j < e->w; j++) {
        if (got[j] == want[j])
            continue;
        if (e->bad++ == 0) {
            e->bad_index = (long) k;
            e->bad_got = got[j];
            e->bad_want = want[j];
        }
        return;
    }
}

void cd_expect_fold(cd_env_t *e, const int *buf, size_t at, int lo, int hi,
                    size_t first, size_t n)
{
    int want[CD_MAXW];
    size_t k;

    if (e->shared)
        return;
    for (k = 0; k < n; k++) {
        cd_fold(e, lo, hi, first + k, want);
        cd_expect(e, buf, at + k, want);
    }
}

void cd_expect_block(cd_env_t *e, const int *buf, size_t at, int q,
                     size_t first, size_t n)
{
    cd_expect_fold(e, buf, at, q, q + 1, first, n); /* a fold of one */
}

void cd_expect_untouched(cd_env_t *e, const int *buf, size_t from, size_t to)
{
    const int want[CD_MAXW] = {CD_SENTINEL, CD_SENTINEL};
    size_t k;

    if (e->shared)
        return;
    for (k = from; k < to; k++)
        cd_expect(e, buf, k, want);
}

int cd_vcount(const cd_env_t *e, int q)
{
    return q % 5 == 2 ? 0 : e->count + q % 3;
}

int cd_pair_count(const cd_env_t *e, int s, int d)
{
    return (s + 2 * d) % 4 == 3 ? 0 : e->count + (s + d) % 3;
}
