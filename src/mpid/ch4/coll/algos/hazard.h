/*
 * hazard.h - whole-buffer read/write tracking for builders.
 *
 * Reduction builders juggle a running result between the user's buffers and
 * a few scratch vectors.  Instead of reasoning about every dependency by
 * hand, they wrap each buffer in a ch4coll_hz_t and emit vertices through
 * the hz_* verbs, which add exactly the dependencies that memory needs:
 *
 *   a reader waits for the buffer's last writer          (read after write)
 *   a writer waits for the last writer and all readers   (WAW, WAR)
 *
 * Tracking is per whole buffer, which is conservative for builders that use
 * disjoint parts of one buffer concurrently; those use the plain verbs.
 */
#ifndef CH4COLL_HAZARD_H
#define CH4COLL_HAZARD_H

#include "../sched/sched.h"

#define CH4COLL_HZ_READERS 4

typedef struct {
    int buf;                    /* buffer id, or -1 until first use */
    size_t nelems;              /* scratch size to allocate on first use */
    int wr;                     /* last writer or -1 */
    int rd[CH4COLL_HZ_READERS]; /* readers since the last write */
    int nrd;
} ch4coll_hz_t;

static inline ch4coll_hz_t ch4coll_hz_user(int buf)
{
    ch4coll_hz_t h = {buf, 0, -1, {-1, -1, -1, -1}, 0};
    return h;
}

static inline ch4coll_hz_t ch4coll_hz_scratch(size_t nelems)
{
    ch4coll_hz_t h = {-1, nelems, -1, {-1, -1, -1, -1}, 0};
    return h;
}

static inline int ch4coll_hz_id(ch4coll_sched_t *s, ch4coll_hz_t *h)
{
    if (h->buf < 0)
        h->buf = ch4coll_sched_scratch(s, h->nelems);
    return h->buf;
}

/* Dependencies of a read (deps[0]) and of a write (deps[0..4]). */
static inline int ch4coll_hz_rdeps(const ch4coll_hz_t *h, int *deps)
{
    deps[0] = h->wr;
    return 1;
}

static inline int ch4coll_hz_wdeps(const ch4coll_hz_t *h, int *deps)
{
    int i;
    deps[0] = h->wr;
    for (i = 0; i < h->nrd; i++)
        deps[1 + i] = h->rd[i];
    return 1 + h->nrd;
}

static inline void ch4coll_hz_read_by(ch4coll_sched_t *s, ch4coll_hz_t *h,
                                      int v)
{
    if (h->nrd == CH4COLL_HZ_READERS) {
        /* fold the readers into one join vertex */
        h->rd[0] = ch4coll_sched_sink(s, h->nrd, h->rd);
        h->nrd = 1;
    }
    h->rd[h->nrd++] = v;
}

static inline void ch4coll_hz_written_by(ch4coll_hz_t *h, int v)
{
    h->wr = v;
    h->nrd = 0;
}

static inline int ch4coll_hz_send(ch4coll_sched_t *s, ch4coll_hz_t *h,
                                  size_t off, size_t count, int peer, int tag)
{
    int d[1], n = ch4coll_hz_rdeps(h, d);
    int v = ch4coll_sched_send(s, ch4coll_ref(ch4coll_hz_id(s, h), off), count,
                               peer, tag, n, d);
    ch4coll_hz_read_by(s, h, v);
    return v;
}

static inline int ch4coll_hz_recv(ch4coll_sched_t *s, ch4coll_hz_t *h,
                                  size_t off, size_t count, int peer, int tag)
{
    int d[1 + CH4COLL_HZ_READERS], n = ch4coll_hz_wdeps(h, d);
    int v = ch4coll_sched_recv(s, ch4coll_ref(ch4coll_hz_id(s, h), off), count,
                               peer, tag, n, d);
    ch4coll_hz_written_by(h, v);
    return v;
}

/* inout = in op inout */
static inline int ch4coll_hz_reduce(ch4coll_sched_t *s, ch4coll_hz_t *in,
                                    size_t in_off, ch4coll_hz_t *inout,
                                    size_t inout_off, size_t count)
{
    int d[2 + CH4COLL_HZ_READERS], n = ch4coll_hz_wdeps(inout, d + 1);
    int v;
    ch4coll_hz_rdeps(in, d);
    v = ch4coll_sched_reduce(s, ch4coll_ref(ch4coll_hz_id(s, in), in_off),
                             ch4coll_ref(ch4coll_hz_id(s, inout), inout_off),
                             count, n + 1, d);
    ch4coll_hz_read_by(s, in, v);
    ch4coll_hz_written_by(inout, v);
    return v;
}

static inline int ch4coll_hz_copy(ch4coll_sched_t *s, ch4coll_hz_t *src,
                                  size_t src_off, ch4coll_hz_t *dst,
                                  size_t dst_off, size_t count)
{
    int d[2 + CH4COLL_HZ_READERS], n = ch4coll_hz_wdeps(dst, d + 1);
    int v;
    ch4coll_hz_rdeps(src, d);
    v = ch4coll_sched_copy(s, ch4coll_ref(ch4coll_hz_id(s, src), src_off),
                           ch4coll_ref(ch4coll_hz_id(s, dst), dst_off), count,
                           n + 1, d);
    ch4coll_hz_read_by(s, src, v);
    ch4coll_hz_written_by(dst, v);
    return v;
}

#endif /* CH4COLL_HAZARD_H */
