/*
 * collcase.c - one collective call as a test case; see collcase.h.
 *
 * Arguments.  Counts are drawn in units; a side passes count*mult elements
 * of its datatype, so "MPI_INT x3" on the send side matches "VEC x1" on the
 * receive side (same type signature, different layout) and the library's
 * packing is exercised on each side independently.  Buffers MPI says are
 * not significant on a rank (gather's receive buffer off the root, the
 * v-arrays there, the send arguments under MPI_IN_PLACE) are passed as
 * NULL / MPI_DATATYPE_NULL, so touching them crashes instead of passing.
 * Displacements of v-collectives are placed in a random order with random
 * gaps, so they are irregular and not monotone.
 *
 * Data.  Integer-valued everywhere (doubles too), in a range fitting the
 * op: small for MPI_SUM, 1..3 for MPI_PROD, [1, CC_AFFINE_MOD) for the
 * affine op, any bits otherwise; so every reduction is exact and the order
 * of a commutative fold cannot change a bit.
 *
 * References.  The host MPI (PMPI_X) with the same arguments, except:
 *  - the non-commutative op and scan/exscan: a rank-order fold computed
 *    locally with PMPI_Reduce_local (SimGrid's scan does not keep rank
 *    order; keeping the reference independent of the host is cheap);
 *  - in-place reduce at the root: the host runs it not in place, from the
 *    pristine input (MPICH 4.0.2 crashes in place at a non-zero root);
 *  - allgatherv alone in a communicator: a local typed copy (MPICH 4.0.2
 *    ignores displs[0] there);
 *  - exscan on rank 0: undefined by MPI, only the guards are checked.
 *
 * Forms.  cc_start calls MPI_I<coll> or MPI_<coll>_init with the arguments
 * and buffers cc_run passes, so the nonblocking and persistent forms are
 * checked against the same reference.  A persistent request runs again on
 * new data: cc_refill changes the data seed and refills the buffers in
 * place, leaving everything the request holds (buffers, counts,
 * displacements) as it was.
 */
#include "collcase.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the bytes of a type are made of, for generating values. */
enum { SLOT_INT, SLOT_DOUBLE, SLOT_BYTE };

/* Value ranges, chosen per op so that reductions stay exact. */
enum { DOM_BITS, DOM_SMALL, DOM_PROD, DOM_AFFINE };

#define SMALL_MAX         1000 /* DOM_SMALL: [-SMALL_MAX, SMALL_MAX] */
#define PROD_MAX          3    /* DOM_PROD: [1, PROD_MAX] */
#define MAX_SHOWN_VCOUNTS 40   /* v-counts printed in a description */
#define MAX_GAP           2    /* elements left free before a v-block */
#define DISPL_STREAM      UINT64_C(0xD15B1A5) /* displacements vs data streams */

typedef struct {
    const char *name;
    MPI_Datatype dt;
    int slot;
    int size;
    MPI_Aint extent;
} type_t;

static type_t types[CC_NTYPES] = {
    [CC_T_INT] = {"MPI_INT", MPI_INT, SLOT_INT, 0, 0},
    [CC_T_DOUBLE] = {"MPI_DOUBLE", MPI_DOUBLE, SLOT_DOUBLE, 0, 0},
    [CC_T_CHAR] = {"MPI_CHAR", MPI_CHAR, SLOT_BYTE, 0, 0},
    [CC_T_BYTE] = {"MPI_BYTE", MPI_BYTE, SLOT_BYTE, 0, 0},
    [CC_T_VEC] = {"vector(3,1,2,MPI_INT)", MPI_DATATYPE_NULL, SLOT_INT, 0, 0},
    [CC_T_PAIR] = {"contiguous(2,MPI_INT)", MPI_DATATYPE_NULL, SLOT_INT, 0, 0},
};

typedef struct {
    const char *name;
    MPI_Op op;
    int domain;
} op_t;

static op_t ops[CC_NOPS] = {
    [CC_OP_SUM] = {"MPI_SUM", MPI_SUM, DOM_SMALL},
    [CC_OP_MAX] = {"MPI_MAX", MPI_MAX, DOM_BITS},
    [CC_OP_MIN] = {"MPI_MIN", MPI_MIN, DOM_BITS},
    [CC_OP_PROD] = {"MPI_PROD", MPI_PROD, DOM_PROD},
    [CC_OP_BAND] = {"MPI_BAND", MPI_BAND, DOM_BITS},
    [CC_OP_BOR] = {"MPI_BOR", MPI_BOR, DOM_BITS},
    [CC_OP_BXOR] = {"MPI_BXOR", MPI_BXOR, DOM_BITS},
    [CC_OP_USERSUM] = {"usersum(commutative)", MPI_OP_NULL, DOM_SMALL},
    [CC_OP_AFFINE] = {"affine(non-commutative)", MPI_OP_NULL, DOM_AFFINE},
};

static const char *const coll_names[CC_NCOLL] = {"bcast",
                                                 "reduce",
                                                 "allreduce",
                                                 "allgather",
                                                 "allgatherv",
                                                 "alltoall",
                                                 "alltoallv",
                                                 "gather",
                                                 "gatherv",
                                                 "scatter",
                                                 "scatterv",
                                                 "reduce_scatter",
                                                 "reduce_scatter_block",
                                                 "barrier",
                                                 "scan",
                                                 "exscan"};

/* ------------------------------------------------------------ catalog */

const char *cc_coll_name(int coll)
{
    return coll >= 0 && coll < CC_NCOLL ? coll_names[coll] : "?";
}

int cc_coll_from_name(const char *name)
{
    int i;

    for (i = 0; i < CC_NCOLL; i++)
        if (strcmp(name, coll_names[i]) == 0)
            return i;
    return -1;
}

const char *cc_type_name(int type)
{
    return types[type].name;
}

const char *cc_op_name(int op)
{
    return op >= 0 && op < CC_NOPS ? ops[op].name : "-";
}

int cc_type_size(int type)
{
    return types[type].size;
}

int cc_is_reduction(int coll)
{
    return coll == CC_REDUCE || coll == CC_ALLREDUCE ||
           coll == CC_REDUCE_SCATTER || coll == CC_REDUCE_SCATTER_BLOCK ||
           coll == CC_SCAN || coll == CC_EXSCAN;
}

int cc_is_rooted(int coll)
{
    return coll == CC_BCAST || coll == CC_REDUCE || coll == CC_GATHER ||
           coll == CC_GATHERV || coll == CC_SCATTER || coll == CC_SCATTERV;
}

int cc_inplace_allowed(int coll)
{
    return coll != CC_BCAST && coll != CC_BARRIER;
}

/* ---------------------------------------------------- user-defined ops */

/* The int items of an element of an int-based type: PAIR has 2 at ints 0,
 * 1; VEC 3 at ints 0, 2, 4 of a 5-int extent; MPI_INT 1.  Told apart by
 * size, so a duplicate of a type works as well. */
typedef struct {
    int stride, nitem;
} int_layout_t;

static int_layout_t layout_of(MPI_Datatype dt)
{
    int_layout_t l;
    int size;
    MPI_Aint lb, extent;

    PMPI_Type_size(dt, &size);
    PMPI_Type_get_extent(dt, &lb, &extent);
    l.stride = (int) (extent / (MPI_Aint) sizeof(int));
    l.nitem = size / (int) sizeof(int);
    return l;
}

static int item_offset(const int_layout_t *l, int k)
{
    return l->nitem == 2 ? k : 2 * k;
}

/* inout += in, item by item (commutative). */
static void usersum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int_layout_t l = layout_of(*dt);
    int *x = in, *y = inout, i, k;

    for (i = 0; i < *len; i++, x += l.stride, y += l.stride)
        for (k = 0; k < l.nitem; k++)
            y[item_offset(&l, k)] += x[item_offset(&l, k)];
}

/* Composition of affine maps, in then inout: (a1, b1) o (a2, b2) =
 * (a1*a2, b1*a2 + b2) mod CC_AFFINE_MOD; associative, not commutative.
 * Item 0 is a; every further item is transformed like b. */
static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int_layout_t l = layout_of(*dt);
    int *x = in, *y = inout, i, k, off;

    for (i = 0; i < *len; i++, x += l.stride, y += l.stride) {
        int64_t a1 = x[0], a2 = y[0];
        for (k = 1; k < l.nitem; k++) {
            off = item_offset(&l, k);
            y[off] = (int) (((int64_t) x[off] * a2 + y[off]) % CC_AFFINE_MOD);
        }
        y[0] = (int) (a1 * a2 % CC_AFFINE_MOD);
    }
}

static void measure(type_t *t)
{
    MPI_Aint lb;

    PMPI_Type_size(t->dt, &t->size);
    PMPI_Type_get_extent(t->dt, &lb, &t->extent);
}

int cc_init(void)
{
    int i;

    if (PMPI_Type_vector(3, 1, 2, MPI_INT, &types[CC_T_VEC].dt) !=
            MPI_SUCCESS ||
        PMPI_Type_commit(&types[CC_T_VEC].dt) != MPI_SUCCESS ||
        PMPI_Type_contiguous(2, MPI_INT, &types[CC_T_PAIR].dt) != MPI_SUCCESS ||
        PMPI_Type_commit(&types[CC_T_PAIR].dt) != MPI_SUCCESS ||
        PMPI_Op_create(usersum_fn, 1, &ops[CC_OP_USERSUM].op) != MPI_SUCCESS ||
        PMPI_Op_create(affine_fn, 0, &ops[CC_OP_AFFINE].op) != MPI_SUCCESS)
        return -1;
    for (i = 0; i < CC_NTYPES; i++)
        measure(&types[i]);
    return 0;
}

void cc_finalize(void)
{
    PMPI_Type_free(&types[CC_T_VEC].dt);
    PMPI_Type_free(&types[CC_T_PAIR].dt);
    PMPI_Op_free(&ops[CC_OP_USERSUM].op);
    PMPI_Op_free(&ops[CC_OP_AFFINE].op);
}

/* ------------------------------------------------------------- data */

static int draw_value(cc_rng_t *r, int domain)
{
    switch (domain) {
    case DOM_SMALL:
        return cc_below(r, 2 * SMALL_MAX + 1) - SMALL_MAX;
    case DOM_PROD:
        return 1 + cc_below(r, PROD_MAX);
    case DOM_AFFINE:
        return 1 + cc_below(r, CC_AFFINE_MOD - 1);
    default:
        return (int) (uint32_t) cc_next(r);
    }
}

/* bytes of values made of slot-sized items; item i depends only on (seed,
 * i), so a shorter fill is a prefix of a longer one. */
static void fill(char *buf, size_t bytes, int slot, int domain, uint64_t seed)
{
    cc_rng_t r = {seed};
    size_t i;

    for (i = 0; slot == SLOT_INT && i + sizeof(int) <= bytes;
         i += sizeof(int)) {
        int v = draw_value(&r, domain);
        memcpy(buf + i, &v, sizeof v);
    }
    for (i = 0; slot == SLOT_DOUBLE && i + sizeof(double) <= bytes;
         i += sizeof(double)) {
        double v = (double) draw_value(&r, domain);
        memcpy(buf + i, &v, sizeof v);
    }
    for (i = 0; slot == SLOT_BYTE && i < bytes; i++)
        buf[i] = (char) cc_next(&r);
}

static uint64_t data_seed(const cc_case_t *c, int rank)
{
    return cc_mix(c->dseed ^ cc_mix((uint64_t) rank + 1));
}

static int domain_of(const cc_case_t *c)
{
    return c->prm.op == CC_OP_NONE ? DOM_BITS : ops[c->prm.op].domain;
}

/* The input bytes of a rank; for reductions the same whether they sit in
 * the send buffer or, in place, in the receive buffer. */
static void fill_input(const cc_case_t *c, int rank, int type, char *buf,
                       size_t bytes)
{
    fill(buf, bytes, types[type].slot, domain_of(c), data_seed(c, rank));
}

/* --------------------------------------------------------- arguments */

/* Place n blocks in a random order with gaps of 0..MAX_GAP elements;
 * displs in elements; returns the span in elements. */
static size_t place_blocks(cc_rng_t *r, const int *counts, int n, int *displs,
                           int *order)
{
    size_t off = 0;
    int i, j, t;

    for (i = 0; i < n; i++)
        order[i] = i;
    for (i = n - 1; i > 0; i--) {
        j = cc_below(r, i + 1);
        t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (i = 0; i < n; i++) {
        off += (size_t) cc_below(r, MAX_GAP + 1);
        displs[order[i]] = (int) off;
        off += (size_t) counts[order[i]];
    }
    return off;
}

static int *new_ints(size_t n)
{
    return calloc(n ? n : 1, sizeof(int));
}

/* Counts times mult into out[0..p); displacements placed with a random
 * stream of this rank's own (salt tells its sides apart); returns the span
 * in elements, or SIZE_MAX if out of memory. */
static size_t v_side(cc_case_t *c, const int *units, int mult, int salt,
                     int **counts, int **displs)
{
    uint64_t who = ((uint64_t) c->rank << 1 | (uint64_t) salt) + 1;
    cc_rng_t r = {cc_mix(c->prm.seed ^ cc_mix(who ^ DISPL_STREAM))};
    int *order = new_ints((size_t) c->size), i;
    size_t span;

    *counts = new_ints((size_t) c->size);
    *displs = new_ints((size_t) c->size);
    if (!order || !*counts || !*displs) {
        free(order);
        return SIZE_MAX;
    }
    for (i = 0; i < c->size; i++)
        (*counts)[i] = units[i] * mult;
    span = place_blocks(&r, *counts, c->size, *displs, order);
    free(order);
    return span;
}

static void set_send(cc_case_t *c, int type, int count, size_t elems)
{
    c->stype_i = type;
    c->sdt = types[type].dt;
    c->scount = count;
    c->sbytes = elems * (size_t) types[type].extent;
    c->skind = CC_ARG_BUF;
}

static void set_recv(cc_case_t *c, int type, int count, size_t elems)
{
    c->rtype_i = type;
    c->rdt = types[type].dt;
    c->rcount = count;
    c->rbytes = elems * (size_t) types[type].extent;
    c->rkind = CC_ARG_BUF;
}

static void drop_send(cc_case_t *c, int kind)
{
    c->skind = kind;
    c->sdt = MPI_DATATYPE_NULL;
    c->scount = 0;
    c->sbytes = 0;
    free(c->scounts);
    free(c->sdispls);
    c->scounts = c->sdispls = NULL;
}

static void drop_recv(cc_case_t *c, int kind)
{
    c->rkind = kind;
    c->rdt = MPI_DATATYPE_NULL;
    c->rcount = 0;
    c->rbytes = 0;
    free(c->rcounts);
    free(c->rdispls);
    c->rcounts = c->rdispls = NULL;
}

/* MPI_IN_PLACE as this rank passes it: rooted collectives only at the root;
 * scatter(v) puts it in the receive buffer, everyone else in the send. */
static void apply_inplace(cc_case_t *c)
{
    int coll = c->prm.coll;

    if (!c->prm.inplace || (cc_is_rooted(coll) && c->rank != c->prm.root))
        return;
    if (coll == CC_SCATTER || coll == CC_SCATTERV) {
        drop_recv(c, CC_ARG_IN_PLACE);
        return;
    }
    drop_send(c, CC_ARG_IN_PLACE);
    c->rinput = 1;
}

static void args_bcast(cc_case_t *c)
{
    const cc_params_t *p = &c->prm;

    /* the root describes the message with the send type, the others with
     * the receive type: same signature, per-rank layout */
    if (c->rank == p->root)
        set_recv(c, p->stype, p->count * p->smult,
                 (size_t) p->count * p->smult);
    else
        set_recv(c, p->rtype, p->count * p->rmult,
                 (size_t) p->count * p->rmult);
    c->rinput = c->rank == p->root;
    c->skind = CC_ARG_NULL;
}

/* gather, scatter, allgather, alltoall */
static void args_blocks(cc_case_t *c)
{
    const cc_params_t *p = &c->prm;
    int coll = p->coll, root = c->rank == p->root;
    size_t sn = (size_t) p->count * p->smult, rn = (size_t) p->count * p->rmult;
    size_t sblk =
        coll == CC_ALLTOALL || coll == CC_SCATTER ? (size_t) c->size : 1;
    size_t rblk = coll == CC_SCATTER ? 1 : (size_t) c->size;

    set_send(c, p->stype, (int) sn, sblk * sn);
    set_recv(c, p->rtype, (int) rn, rblk * rn);
    if (coll == CC_SCATTER && !root)
        drop_send(c, CC_ARG_NULL);
    if (coll == CC_GATHER && !root)
        drop_recv(c, CC_ARG_NULL);
    apply_inplace(c);
}

/* gatherv, allgatherv, scatterv */
static int args_vblocks(cc_case_t *c)
{
    const cc_params_t *p = &c->prm;
    int coll = p->coll, root = c->rank == p->root;
    int mine = p->vcounts[c->rank];
    size_t span;

    if (coll == CC_SCATTERV) {
        span = v_side(c, p->vcounts, p->smult, 0, &c->scounts, &c->sdispls);
        set_send(c, p->stype, 0, span);
        set_recv(c, p->rtype, mine * p->rmult, (size_t) mine * p->rmult);
        if (!root)
            drop_send(c, CC_ARG_NULL);
    } else {
        span = v_side(c, p->vcounts, p->rmult, 1, &c->rcounts, &c->rdispls);
        set_recv(c, p->rtype, 0, span);
        set_send(c, p->stype, mine * p->smult, (size_t) mine * p->smult);
        if (coll == CC_GATHERV && !root)
            drop_recv(c, CC_ARG_NULL);
    }
    apply_inplace(c);
    return span == SIZE_MAX ? -1 : 0;
}

static int args_alltoallv(cc_case_t *c)
{
    const cc_params_t *p = &c->prm;
    int *row = new_ints((size_t) c->size), *col = new_ints((size_t) c->size);
    size_t sspan = SIZE_MAX, rspan = SIZE_MAX;
    int j;

    if (row && col) {
        for (j = 0; j < c->size; j++) {
            row[j] = p->vcounts[c->rank * c->size + j];
            col[j] = p->vcounts[j * c->size + c->rank];
        }
        sspan = v_side(c, row, p->smult, 0, &c->scounts, &c->sdispls);
        rspan = v_side(c, col, p->rmult, 1, &c->rcounts, &c->rdispls);
    }
    free(row);
    free(col);
    if (sspan == SIZE_MAX || rspan == SIZE_MAX)
        return -1;
    set_send(c, p->stype, 0, sspan);
    set_recv(c, p->rtype, 0, rspan);
    apply_inplace(c);
    return 0;
}

/* Input elements per rank of a reduction. */
static size_t reduction_inputs(const cc_case_t *c)
{
    size_t total = 0;
    int i;

    switch (c->prm.coll) {
    case CC_REDUCE_SCATTER_BLOCK:
        return (size_t) c->size * (size_t) c->prm.count;
    case CC_REDUCE_SCATTER:
        for (i = 0; i < c->size; i++)
            total += (size_t) c->prm.vcounts[i];
        return total;
    default:
        return (size_t) c->prm.count;
    }
}

static int args_reduction(cc_case_t *c)
{
    const cc_params_t *p = &c->prm;
    size_t nout = (size_t) p->count;
    int i;

    c->nin = reduction_inputs(c);
    if (p->coll == CC_REDUCE_SCATTER) {
        nout = (size_t) p->vcounts[c->rank];
        c->rcounts = new_ints((size_t) c->size);
        if (!c->rcounts)
            return -1;
        for (i = 0; i < c->size; i++)
            c->rcounts[i] = p->vcounts[i];
    }
    set_send(c, p->stype, p->count, c->nin);
    set_recv(c, p->stype, p->count, nout);
    if (p->coll == CC_REDUCE && c->rank != p->root)
        drop_recv(c, CC_ARG_NULL);
    apply_inplace(c);
    if (c->rinput) /* in place: the receive buffer holds the input */
        c->rbytes = c->nin * (size_t) types[p->stype].extent;
    c->local_ref =
        p->op == CC_OP_AFFINE || p->coll == CC_SCAN || p->coll == CC_EXSCAN;
    return 0;
}

static int derive_args(cc_case_t *c)
{
    switch (c->prm.coll) {
    case CC_BCAST:
        args_bcast(c);
        return 0;
    case CC_GATHER:
    case CC_SCATTER:
    case CC_ALLGATHER:
    case CC_ALLTOALL:
        args_blocks(c);
        return 0;
    case CC_GATHERV:
    case CC_ALLGATHERV:
    case CC_SCATTERV:
        return args_vblocks(c);
    case CC_ALLTOALLV:
        return args_alltoallv(c);
    case CC_BARRIER:
        c->skind = c->rkind = CC_ARG_NULL;
        return 0;
    default:
        return args_reduction(c);
    }
}

/* ----------------------------------------------------------- buffers */

static char *new_bytes(size_t n)
{
    return malloc(n ? n : 1);
}

/* Input data from c->dseed: the send buffer and its copy, the before
 * image, and rtest and rexp starting from it. */
static void fill_buffers(cc_case_t *c)
{
    size_t rall = c->rbytes + 2 * CC_GUARD;

    fill_input(c, c->rank, c->stype_i, c->sbuf, c->sbytes);
    memcpy(c->sorig, c->sbuf, c->sbytes);
    memset(c->rbefore, CC_SENTINEL, rall);
    if (c->rinput)
        fill_input(c, c->rank, c->rtype_i, c->rbefore + CC_GUARD, c->rbytes);
    memcpy(c->rtest, c->rbefore, rall);
    memcpy(c->rexp, c->rbefore, rall);
}

static int make_buffers(cc_case_t *c)
{
    size_t rall = c->rbytes + 2 * CC_GUARD;

    c->sbuf = new_bytes(c->sbytes);
    c->sorig = new_bytes(c->sbytes);
    c->rbefore = new_bytes(rall);
    c->rtest = new_bytes(rall);
    c->rexp = new_bytes(rall);
    if (!c->sbuf || !c->sorig || !c->rbefore || !c->rtest || !c->rexp)
        return -1;
    fill_buffers(c);
    return 0;
}

int cc_prepare(cc_case_t *c, const cc_params_t *prm)
{
    memset(c, 0, sizeof *c);
    c->prm = *prm;
    c->dseed = prm->seed;
    PMPI_Comm_rank(prm->comm, &c->rank);
    PMPI_Comm_size(prm->comm, &c->size);
    c->stype_i = prm->stype;
    c->rtype_i = prm->rtype;
    c->sdt = c->rdt = MPI_DATATYPE_NULL;
    if (derive_args(c) != 0)
        return -1;
    return make_buffers(c);
}

void cc_refill(cc_case_t *c, uint64_t dseed)
{
    c->dseed = dseed;
    fill_buffers(c);
}

void cc_release(cc_case_t *c)
{
    free(c->scounts);
    free(c->sdispls);
    free(c->rcounts);
    free(c->rdispls);
    free(c->sbuf);
    free(c->sorig);
    free(c->rbefore);
    free(c->rtest);
    free(c->rexp);
    memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------ calling */

static void *arg_of(int kind, char *buf)
{
    return kind == CC_ARG_IN_PLACE ? MPI_IN_PLACE
           : kind == CC_ARG_NULL   ? NULL
                                   : buf;
}

/* MPI_X (host = 0: through ch4coll) or PMPI_X (host = 1). */
static int call_movement(const cc_case_t *c, const void *s, void *r, int host)
{
    MPI_Comm comm = c->prm.comm;
    int root = c->prm.root;

    switch (c->prm.coll) {
    case CC_BCAST:
        return (host ? PMPI_Bcast : MPI_Bcast)(r, c->rcount, c->rdt, root,
                                               comm);
    case CC_GATHER:
        return (host ? PMPI_Gather : MPI_Gather)(s, c->scount, c->sdt, r,
                                                 c->rcount, c->rdt, root, comm);
    case CC_SCATTER:
        return (host ? PMPI_Scatter : MPI_Scatter)(
            s, c->scount, c->sdt, r, c->rcount, c->rdt, root, comm);
    case CC_ALLGATHER:
        return (host ? PMPI_Allgather : MPI_Allgather)(s, c->scount, c->sdt, r,
                                                       c->rcount, c->rdt, comm);
    case CC_ALLTOALL:
        return (host ? PMPI_Alltoall : MPI_Alltoall)(s, c->scount, c->sdt, r,
                                                     c->rcount, c->rdt, comm);
    case CC_GATHERV:
        return (host ? PMPI_Gatherv : MPI_Gatherv)(s, c->scount, c->sdt, r,
                                                   c->rcounts, c->rdispls,
                                                   c->rdt, root, comm);
    case CC_SCATTERV:
        return (host ? PMPI_Scatterv : MPI_Scatterv)(s, c->scounts, c->sdispls,
                                                     c->sdt, r, c->rcount,
                                                     c->rdt, root, comm);
    case CC_ALLGATHERV:
        return (host ? PMPI_Allgatherv : MPI_Allgatherv)(
            s, c->scount, c->sdt, r, c->rcounts, c->rdispls, c->rdt, comm);
    case CC_ALLTOALLV:
        return (host ? PMPI_Alltoallv
                     : MPI_Alltoallv)(s, c->scounts, c->sdispls, c->sdt, r,
                                      c->rcounts, c->rdispls, c->rdt, comm);
    default:
        return (host ? PMPI_Barrier : MPI_Barrier)(comm);
    }
}

static int call_reduction(const cc_case_t *c, const void *s, void *r, int host)
{
    MPI_Comm comm = c->prm.comm;
    MPI_Datatype dt = types[c->prm.stype].dt;
    MPI_Op op = ops[c->prm.op].op;
    int n = c->prm.count;

    switch (c->prm.coll) {
    case CC_REDUCE:
        return (host ? PMPI_Reduce : MPI_Reduce)(s, r, n, dt, op, c->prm.root,
                                                 comm);
    case CC_ALLREDUCE:
        return (host ? PMPI_Allreduce : MPI_Allreduce)(s, r, n, dt, op, comm);
    case CC_REDUCE_SCATTER:
        return (host ? PMPI_Reduce_scatter
                     : MPI_Reduce_scatter)(s, r, c->rcounts, dt, op, comm);
    case CC_REDUCE_SCATTER_BLOCK:
        return (host ? PMPI_Reduce_scatter_block
                     : MPI_Reduce_scatter_block)(s, r, n, dt, op, comm);
    case CC_SCAN:
        return (host ? PMPI_Scan : MPI_Scan)(s, r, n, dt, op, comm);
    default:
        return (host ? PMPI_Exscan : MPI_Exscan)(s, r, n, dt, op, comm);
    }
}

static int call(const cc_case_t *c, const void *s, void *r, int host)
{
    return cc_is_reduction(c->prm.coll) ? call_reduction(c, s, r, host)
                                        : call_movement(c, s, r, host);
}

int cc_run(cc_case_t *c)
{
    return call(c, arg_of(c->skind, c->sbuf),
                arg_of(c->rkind, c->rtest + CC_GUARD), 0);
}

/* MPI_I<coll> (persistent = 0) or MPI_<coll>_init (persistent = 1) of the
 * data-movement collectives, as call_movement. */
static int start_movement(const cc_case_t *c, const void *s, void *r,
                          int persistent, MPI_Request *q)
{
    MPI_Comm comm = c->prm.comm;
    MPI_Info info = MPI_INFO_NULL;
    int root = c->prm.root;

    switch (c->prm.coll) {
    case CC_BCAST:
        return persistent
                   ? MPI_Bcast_init(r, c->rcount, c->rdt, root, comm, info, q)
                   : MPI_Ibcast(r, c->rcount, c->rdt, root, comm, q);
    case CC_GATHER:
        return persistent ? MPI_Gather_init(s, c->scount, c->sdt, r, c->rcount,
                                            c->rdt, root, comm, info, q)
                          : MPI_Igather(s, c->scount, c->sdt, r, c->rcount,
                                        c->rdt, root, comm, q);
    case CC_SCATTER:
        return persistent ? MPI_Scatter_init(s, c->scount, c->sdt, r, c->rcount,
                                             c->rdt, root, comm, info, q)
                          : MPI_Iscatter(s, c->scount, c->sdt, r, c->rcount,
                                         c->rdt, root, comm, q);
    case CC_ALLGATHER:
        return persistent ? MPI_Allgather_init(s, c->scount, c->sdt, r,
                                               c->rcount, c->rdt, comm, info, q)
                          : MPI_Iallgather(s, c->scount, c->sdt, r, c->rcount,
                                           c->rdt, comm, q);
    case CC_ALLTOALL:
        return persistent ? MPI_Alltoall_init(s, c->scount, c->sdt, r,
                                              c->rcount, c->rdt, comm, info, q)
                          : MPI_Ialltoall(s, c->scount, c->sdt, r, c->rcount,
                                          c->rdt, comm, q);
    case CC_GATHERV:
        return persistent
                   ? MPI_Gatherv_init(s, c->scount, c->sdt, r, c->rcounts,
                                      c->rdispls, c->rdt, root, comm, info, q)
                   : MPI_Igatherv(s, c->scount, c->sdt, r, c->rcounts,
                                  c->rdispls, c->rdt, root, comm, q);
    case CC_SCATTERV:
        return persistent
                   ? MPI_Scatterv_init(s, c->scounts, c->sdispls, c->sdt, r,
                                       c->rcount, c->rdt, root, comm, info, q)
                   : MPI_Iscatterv(s, c->scounts, c->sdispls, c->sdt, r,
                                   c->rcount, c->rdt, root, comm, q);
    case CC_ALLGATHERV:
        return persistent
                   ? MPI_Allgatherv_init(s, c->scount, c->sdt, r, c->rcounts,
                                         c->rdispls, c->rdt, comm, info, q)
                   : MPI_Iallgatherv(s, c->scount, c->sdt, r, c->rcounts,
                                     c->rdispls, c->rdt, comm, q);
    case CC_ALLTOALLV:
        return persistent
                   ? MPI_Alltoallv_init(s, c->scounts, c->sdispls, c->sdt, r,
                                        c->rcounts, c->rdispls, c->rdt, comm,
                                        info, q)
                   : MPI_Ialltoallv(s, c->scounts, c->sdispls, c->sdt, r,
                                    c->rcounts, c->rdispls, c->rdt, comm, q);
    default:
        return persistent ? MPI_Barrier_init(comm, info, q)
                          : MPI_Ibarrier(comm, q);
    }
}

/* The same for the reductions, as call_reduction. */
static int start_reduction(const cc_case_t *c, const void *s, void *r,
                           int persistent, MPI_Request *q)
{
    MPI_Comm comm = c->prm.comm;
    MPI_Info info = MPI_INFO_NULL;
    MPI_Datatype dt = types[c->prm.stype].dt;
    MPI_Op op = ops[c->prm.op].op;
    int n = c->prm.count, root = c->prm.root;

    switch (c->prm.coll) {
    case CC_REDUCE:
        return persistent
                   ? MPI_Reduce_init(s, r, n, dt, op, root, comm, info, q)
                   : MPI_Ireduce(s, r, n, dt, op, root, comm, q);
    case CC_ALLREDUCE:
        return persistent ? MPI_Allreduce_init(s, r, n, dt, op, comm, info, q)
                          : MPI_Iallreduce(s, r, n, dt, op, comm, q);
    case CC_REDUCE_SCATTER:
        return persistent
                   ? MPI_Reduce_scatter_init(s, r, c->rcounts, dt, op, comm,
                                             info, q)
                   : MPI_Ireduce_scatter(s, r, c->rcounts, dt, op, comm, q);
    case CC_REDUCE_SCATTER_BLOCK:
        return persistent ? MPI_Reduce_scatter_block_init(s, r, n, dt, op, comm,
                                                          info, q)
                          : MPI_Ireduce_scatter_block(s, r, n, dt, op, comm, q);
    case CC_SCAN:
        return persistent ? MPI_Scan_init(s, r, n, dt, op, comm, info, q)
                          : MPI_Iscan(s, r, n, dt, op, comm, q);
    default:
        return persistent ? MPI_Exscan_init(s, r, n, dt, op, comm, info, q)
                          : MPI_Iexscan(s, r, n, dt, op, comm, q);
    }
}

int cc_start(cc_case_t *c, int form, MPI_Request *req)
{
    const void *s = arg_of(c->skind, c->sbuf);
    void *r = arg_of(c->rkind, c->rtest + CC_GUARD);
    int persistent = form == CC_FORM_PERSISTENT;

    return cc_is_reduction(c->prm.coll)
               ? start_reduction(c, s, r, persistent, req)
               : start_movement(c, s, r, persistent, req);
}

/* ---------------------------------------------------- local reference */

/* First input element of this rank's result, and how many ranks fold. */
static size_t result_first(const cc_case_t *c)
{
    size_t off = 0;
    int i;

    if (c->prm.coll == CC_REDUCE_SCATTER_BLOCK)
        return (size_t) c->rank * (size_t) c->prm.count;
    if (c->prm.coll == CC_REDUCE_SCATTER)
        for (i = 0; i < c->rank; i++)
            off += (size_t) c->prm.vcounts[i];
    return off;
}

static int folded_ranks(const cc_case_t *c)
{
    return c->prm.coll == CC_SCAN     ? c->rank + 1
           : c->prm.coll == CC_EXSCAN ? c->rank
                                      : c->size;
}

/* acc = input(0) op input(1) op ... op input(nranks-1) over elements
 * [first, first+n), in rank order. */
static int fold_inputs(const cc_case_t *c, int nranks, size_t first, size_t n,
                       char *acc)
{
    const type_t *t = &types[c->prm.stype];
    size_t ext = (size_t) t->extent, all = (first + n) * ext;
    char *in = new_bytes(all);
    int r, rc = MPI_SUCCESS;

    if (!in)
        return MPI_ERR_NO_MEM;
    for (r = 0; r < nranks && rc == MPI_SUCCESS; r++) {
        fill_input(c, r, c->prm.stype, in, all);
        if (r > 0) /* in[first..] = acc op in[first..] */
            rc = PMPI_Reduce_local(acc, in + first * ext, (int) n, t->dt,
                                   ops[c->prm.op].op);
        memcpy(acc, in + first * ext, n * ext);
    }
    free(in);
    return rc;
}

/* Copy n elements of sdt at src into m elements of rdt at dst (same type
 * signature), through a packed buffer: only the data bytes of dst, not its
 * holes, are written. */
static int copy_typed(const char *src, int n, MPI_Datatype sdt, char *dst,
                      int m, MPI_Datatype rdt)
{
    int bytes, pos = 0, rc;
    char *packed;

    if (n == 0)
        return MPI_SUCCESS;
    PMPI_Pack_size(n, sdt, MPI_COMM_SELF, &bytes);
    packed = new_bytes((size_t) bytes);
    if (!packed)
        return MPI_ERR_NO_MEM;
    rc = PMPI_Pack(src, n, sdt, packed, bytes, &pos, MPI_COMM_SELF);
    pos = 0;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Unpack(packed, bytes, &pos, dst, m, rdt, MPI_COMM_SELF);
    free(packed);
    return rc;
}

/* Allgatherv alone in a communicator is a copy to displs[0].  MPICH 4.0.2
 * gets it wrong (it copies to the start of the buffer), so the expected
 * result is made here. */
static int expect_self_copy(cc_case_t *c)
{
    if (c->skind != CC_ARG_BUF) /* in place: nothing moves */
        return MPI_SUCCESS;
    return copy_typed(c->sorig, c->scount, c->sdt,
                      c->rexp + CC_GUARD +
                          (size_t) c->rdispls[0] *
                              (size_t) types[c->rtype_i].extent,
                      c->rcounts[0], c->rdt);
}

static int expect_local(cc_case_t *c)
{
    size_t n = c->prm.coll == CC_REDUCE_SCATTER
                   ? (size_t) c->prm.vcounts[c->rank]
                   : (size_t) c->prm.count;
    char *acc;
    int rc;

    if (c->rkind != CC_ARG_BUF || folded_ranks(c) == 0)
        return MPI_SUCCESS;
    acc = new_bytes(n * (size_t) types[c->prm.stype].extent);
    if (!acc)
        return MPI_ERR_NO_MEM;
    rc = fold_inputs(c, folded_ranks(c), result_first(c), n, acc);
    if (rc == MPI_SUCCESS)
        rc = copy_typed(acc, (int) n, types[c->prm.stype].dt,
                        c->rexp + CC_GUARD, (int) n, types[c->prm.stype].dt);
    free(acc);
    return rc;
}

int cc_expect(cc_case_t *c)
{
    void *r = arg_of(c->rkind, c->rexp + CC_GUARD);
    const void *s = arg_of(c->skind, c->sorig);

    if (c->local_ref)
        return expect_local(c);
    if (c->prm.coll == CC_ALLGATHERV && c->size == 1)
        return expect_self_copy(c);
    if (c->prm.coll == CC_REDUCE && c->skind == CC_ARG_IN_PLACE)
        s = c->rbefore + CC_GUARD; /* host: not in place, same input */
    return call(c, s, r, 1);
}

/* ------------------------------------------------------------ checking */

static size_t first_diff(const char *a, const char *b, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return SIZE_MAX;
}

static void explain(const cc_case_t *c, size_t at, char *msg, size_t len)
{
    size_t ext = c->rtype_i >= 0 ? (size_t) types[c->rtype_i].extent : 1;
    unsigned got = (unsigned char) c->rtest[at];
    unsigned want = (unsigned char) c->rexp[at];

    if (at < CC_GUARD)
        snprintf(msg, len,
                 "guard byte %zu before the receive buffer: got "
                 "0x%02x, expected 0x%02x",
                 CC_GUARD - at, got, want);
    else if (at >= CC_GUARD + c->rbytes)
        snprintf(msg, len,
                 "guard byte %zu after the receive buffer: got "
                 "0x%02x, expected 0x%02x",
                 at - CC_GUARD - c->rbytes, got, want);
    else
        snprintf(msg, len,
                 "receive buffer byte %zu (element %zu, byte %zu "
                 "in it): got 0x%02x, expected 0x%02x",
                 at - CC_GUARD, (at - CC_GUARD) / ext, (at - CC_GUARD) % ext,
                 got, want);
}

int cc_check(const cc_case_t *c, char *msg, size_t len)
{
    size_t at;

    if (c->skind == CC_ARG_BUF &&
        (at = first_diff(c->sbuf, c->sorig, c->sbytes)) != SIZE_MAX) {
        snprintf(msg, len, "send buffer modified at byte %zu", at);
        return 1;
    }
    if (c->rkind != CC_ARG_BUF)
        return 0;
    if (c->prm.coll == CC_EXSCAN && c->rank == 0) { /* undefined there */
        at = first_diff(c->rtest, c->rexp, CC_GUARD);
        if (at == SIZE_MAX)
            at = first_diff(c->rtest + CC_GUARD + c->rbytes,
                            c->rexp + CC_GUARD + c->rbytes, CC_GUARD);
        if (at != SIZE_MAX)
            at += CC_GUARD + c->rbytes;
    } else {
        at = first_diff(c->rtest, c->rexp, c->rbytes + 2 * CC_GUARD);
    }
    if (at == SIZE_MAX)
        return 0;
    explain(c, at, msg, len);
    return 1;
}

/* ------------------------------------------------------------ messages */

static void describe_vcounts(const cc_case_t *c, char *buf, size_t len)
{
    int n = c->prm.coll == CC_ALLTOALLV ? c->size * c->size : c->size, i;
    size_t used = strlen(buf);

    used += (size_t) snprintf(buf + used, len - used, " counts=[");
    for (i = 0; i < n && i < MAX_SHOWN_VCOUNTS && used < len; i++)
        used += (size_t) snprintf(buf + used, len - used, "%s%d", i ? "," : "",
                                  c->prm.vcounts[i]);
    if (used < len)
        snprintf(buf + used, len - used, "%s]",
                 n > MAX_SHOWN_VCOUNTS ? ",..." : "");
}

void cc_describe(const cc_case_t *c, char *buf, size_t len)
{
    const cc_params_t *p = &c->prm;
    int coll = p->coll;

    snprintf(buf, len, "%s comm=%s size=%d", cc_coll_name(coll), p->comm_name,
             c->size);
    if (coll != CC_BARRIER && !p->vcounts)
        snprintf(buf + strlen(buf), len - strlen(buf), " count=%d", p->count);
    if (p->vcounts)
        describe_vcounts(c, buf, len);
    if (cc_is_reduction(coll))
        snprintf(buf + strlen(buf), len - strlen(buf), " type=%s op=%s",
                 types[p->stype].name, ops[p->op].name);
    else if (coll != CC_BARRIER)
        snprintf(buf + strlen(buf), len - strlen(buf),
                 " send=%s x%d recv=%s "
                 "x%d",
                 types[p->stype].name, p->smult, types[p->rtype].name,
                 p->rmult);
    if (cc_is_rooted(coll))
        snprintf(buf + strlen(buf), len - strlen(buf), " root=%d", p->root);
    if (cc_inplace_allowed(coll))
        snprintf(buf + strlen(buf), len - strlen(buf), " in_place=%d",
                 p->inplace);
    snprintf(buf + strlen(buf), len - strlen(buf), " seed=0x%llx",
             (unsigned long long) p->seed);
}

/* ------------------------------------------------------ the library */

int cc_get_stats(ch4coll_stats_t *out)
{
    void (*get)(ch4coll_stats_t *);
    void *sym = dlsym(RTLD_DEFAULT, "ch4coll_get_stats");

    if (!sym)
        return -1;
    memcpy(&get, &sym, sizeof get);
    get(out);
    return 0;
}

int cc_module_enabled(void)
{
    const char *v = getenv("MPIR_CVAR_CH4COLL_ENABLE");
    return !(v && strcmp(v, "0") == 0);
}

/* MPIR_CVAR_CH4COLL_<prefix><COLL>_ALGORITHM, or NULL if not set. */
static const char *forced_algorithm(const char *prefix, int coll)
{
    char var[96];
    int n, i;

    n = snprintf(var, sizeof var, "MPIR_CVAR_CH4COLL_%s", prefix);
    for (i = 0; coll_names[coll][i] && n + 1 < (int) sizeof var; i++)
        var[n++] = (char) toupper((unsigned char) coll_names[coll][i]);
    snprintf(var + n, sizeof var - (size_t) n, "_ALGORITHM");
    return getenv(var);
}

int cc_host_may_run(int coll)
{
    const char *v = forced_algorithm("", coll);

    if (!cc_module_enabled())
        return 1;
    return v && strcmp(v, "native") == 0;
}

int cc_host_may_run_nb(int coll)
{
    const char *v = forced_algorithm("I", coll);

    if (!cc_module_enabled())
        return 1;
    if (!v)
        v = forced_algorithm("", coll);
    return v && strcmp(v, "native") == 0;
}
