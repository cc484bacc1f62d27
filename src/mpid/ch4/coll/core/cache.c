/*
 * cache.c - hash chains plus an LRU list (see cache.h).
 */
#include "cache.h"

#include <string.h>

#include "../util/util.h"

uint64_t ch4coll_cache_evictions_total;

void ch4coll_cache_init(ch4coll_cache_t *c, int limit)
{
    memset(c, 0, sizeof *c);
    c->limit = limit > 0 ? limit : 1;
}

static void inst_free(ch4coll_inst_t *in)
{
    ch4coll_sched_destroy(&in->sched);
    ch4coll_free(in->stage[0]);
    ch4coll_free(in->stage[1]);
    if (in->ext)
        in->ext_free(in->ext);
    ch4coll_free(in);
}

ch4coll_inst_t *ch4coll_cache_acquire(ch4coll_centry_t *e)
{
    ch4coll_inst_t *in;
    int i;

    for (in = e->insts; in; in = in->next)
        if (!in->busy) {
            in->busy = 1;
            return in;
        }
    in = ch4coll_calloc(1, sizeof *in);
    if (!in)
        return NULL;
    if (ch4coll_sched_clone(&in->sched, &e->sched) != CH4COLL_OK) {
        ch4coll_free(in);
        return NULL;
    }
    for (i = 0; i < 2; i++)
        if (e->stage[i] &&
            !(in->stage[i] = ch4coll_malloc(e->stage_bytes[i]))) {
            inst_free(in);
            return NULL;
        }
    in->bind = e->bind;
    in->home = e;
    in->busy = 1;
    in->next = e->insts;
    e->insts = in;
    return in;
}

void ch4coll_cache_release(ch4coll_inst_t *in)
{
    in->busy = 0;
    if (!in->home)
        inst_free(in);
}

static void entry_free(ch4coll_centry_t *e)
{
    ch4coll_inst_t *in, *next;

    for (in = e->insts; in; in = next) { /* busy ones live on as orphans */
        next = in->next;
        in->home = NULL;
        in->next = NULL;
        if (!in->busy)
            inst_free(in);
    }
    if (e->built)
        ch4coll_sched_destroy(&e->sched);
    ch4coll_free(e->stage[0]);
    ch4coll_free(e->stage[1]);
    ch4coll_free(e->vcopy);
    ch4coll_free(e);
}

void ch4coll_cache_destroy(ch4coll_cache_t *c)
{
    ch4coll_centry_t *e = c->newest, *next;

    for (; e; e = next) {
        next = e->lnext;
        entry_free(e);
    }
    memset(c->bucket, 0, sizeof c->bucket);
    c->newest = c->oldest = c->hot = NULL;
    c->n = 0;
}

static uint64_t mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}

void ch4coll_key_hash(ch4coll_key_t *k)
{
    uint64_t h = 1469598103934665603ULL;
    int i, j;

    h = mix(h, (uint64_t) k->f.coll | (uint64_t) k->f.nb << 6 |
                   (uint64_t) k->f.inplace << 8 |
                   (uint64_t) (uint32_t) k->f.root << 16);
    h = mix(h,
            (uint64_t) (uint32_t) k->f.scount << 32 | (uint32_t) k->f.rcount);
    h = mix(h, (uint64_t) (uintptr_t) k->f.stype);
    h = mix(h, (uint64_t) (uintptr_t) k->f.rtype);
    h = mix(h, (uint64_t) (uintptr_t) k->f.op);
    for (j = 0; j < 4; j++)
        if (k->v[j])
            for (i = 0; i < k->f.p; i++)
                h = mix(h, (uint64_t) (uint32_t) k->v[j][i] + (uint64_t) j);
    k->hash = h;
}

/* Equal keys; the hashes are compared by the caller when both exist. */
static int key_equal(const ch4coll_key_t *a, const ch4coll_key_t *b)
{
    int j;

    if (memcmp(&a->f, &b->f, sizeof a->f) != 0)
        return 0;
    for (j = 0; a->f.nv > 0 && j < 4; j++) {
        if (!a->v[j] != !b->v[j])
            return 0;
        if (a->v[j] &&
            memcmp(a->v[j], b->v[j], (size_t) a->f.p * sizeof(int)) != 0)
            return 0;
    }
    return 1;
}

static void lru_unlink(ch4coll_cache_t *c, ch4coll_centry_t *e)
{
    if (e->lprev)
        e->lprev->lnext = e->lnext;
    else
        c->newest = e->lnext;
    if (e->lnext)
        e->lnext->lprev = e->lprev;
    else
        c->oldest = e->lprev;
    e->lprev = e->lnext = NULL;
}

static void lru_push(ch4coll_cache_t *c, ch4coll_centry_t *e)
{
    e->lprev = NULL;
    e->lnext = c->newest;
    if (c->newest)
        c->newest->lprev = e;
    c->newest = e;
    if (!c->oldest)
        c->oldest = e;
}

ch4coll_centry_t *ch4coll_cache_lookup(ch4coll_cache_t *c, ch4coll_key_t *k)
{
    ch4coll_centry_t *e = c->newest;

    /* The most recent shape first: repeated calls need no hash at all. */
    if (e && key_equal(&e->key, k)) {
        c->hits++;
        return e;
    }
    ch4coll_key_hash(k);
    e = c->bucket[k->hash % CH4COLL_CACHE_BUCKETS];
    while (e && !(e->key.hash == k->hash && key_equal(&e->key, k)))
        e = e->hnext;
    if (!e) {
        c->misses++;
        return NULL;
    }
    c->hits++;
    lru_unlink(c, e);
    lru_push(c, e);
    return e;
}

static void evict(ch4coll_cache_t *c, ch4coll_centry_t *e)
{
    ch4coll_centry_t **pp;

    pp = &c->bucket[e->key.hash % CH4COLL_CACHE_BUCKETS];
    while (*pp != e)
        pp = &(*pp)->hnext;
    *pp = e->hnext;
    if (c->hot == e)
        c->hot = NULL;
    lru_unlink(c, e);
    entry_free(e);
    c->n--;
    c->evictions++;
    __atomic_fetch_add(&ch4coll_cache_evictions_total, 1, __ATOMIC_RELAXED);
}

void ch4coll_cache_remove(ch4coll_cache_t *c, ch4coll_centry_t *e)
{
    evict(c, e);
    c->evictions--; /* not an eviction: it never worked */
    __atomic_fetch_sub(&ch4coll_cache_evictions_total, 1, __ATOMIC_RELAXED);
}

void ch4coll_cache_forget(ch4coll_cache_t *c, MPI_Datatype dt, MPI_Op op)
{
    ch4coll_centry_t *e = c->newest, *next;

    for (; e; e = next) {
        next = e->lnext;
        if ((dt != MPI_DATATYPE_NULL &&
             (e->key.f.stype == dt || e->key.f.rtype == dt)) ||
            (op != MPI_OP_NULL && e->key.f.op == op))
            evict(c, e);
    }
}

ch4coll_centry_t *ch4coll_cache_insert(ch4coll_cache_t *c,
                                       const ch4coll_key_t *k)
{
    ch4coll_centry_t *e = ch4coll_calloc(1, sizeof *e);
    size_t b, nv;
    int j;

    if (!e)
        return NULL;
    e->key = *k;
    nv = 0;
    for (j = 0; j < 4; j++)
        nv += k->v[j] ? (size_t) k->f.p : 0;
    if (nv > 0) {
        int *dst = e->vcopy = ch4coll_malloc(nv * sizeof *e->vcopy);
        if (!dst) {
            ch4coll_free(e);
            return NULL;
        }
        for (j = 0; j < 4; j++) {
            if (!k->v[j])
                continue;
            memcpy(dst, k->v[j], (size_t) k->f.p * sizeof *dst);
            e->key.v[j] = dst;
            dst += k->f.p;
        }
    }
    while (c->n >= c->limit && c->oldest)
        evict(c, c->oldest);
    b = k->hash % CH4COLL_CACHE_BUCKETS;
    e->hnext = c->bucket[b];
    c->bucket[b] = e;
    lru_push(c, e);
    c->n++;
    return e;
}
