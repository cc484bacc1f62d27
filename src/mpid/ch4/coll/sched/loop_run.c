/*
 * loop_run.c - ch4coll_loop_run (loop_run.h).
 */
#include "loop_run.h"

#include <stdio.h>
#include <string.h>

#include "../util/util.h"

/* Append what every unfinished rank waits for to err. */
static void report_deadlock(int p, ch4coll_sched_t **s, char *err,
                            size_t errlen)
{
    size_t used = strlen(err);
    int r, i;

    for (r = 0; r < p && used + 80 < errlen; r++) {
        if (!s[r] || ch4coll_sched_done(s[r]))
            continue;
        for (i = 0; i < s[r]->nact && used + 80 < errlen; i++) {
            const ch4coll_vtx_t *v = &s[r]->vtx[s[r]->act[i]];
            used += (size_t) snprintf(
                err + used, errlen - used, "; rank %d waits in %s %s %d tag %d",
                r, ch4coll_vkind_name(v->kind),
                v->kind == CH4COLL_V_SEND ? "to" : "from", v->peer, v->tag);
        }
    }
}

int ch4coll_loop_run(ch4coll_loop_t *w, ch4coll_sched_t **s, char *err,
                     size_t errlen)
{
    char none[1];
    int r, rc, all_done, any, p = ch4coll_loop_size(w);

    ch4coll_loop_begin(w, err, errlen); /* the world keeps err, or none */
    if (!err) {
        none[0] = '\0';
        err = none;
        errlen = sizeof none;
    }
    for (;;) {
        all_done = 1;
        any = 0;
        for (r = 0; r < p; r++) {
            int progressed = 0;
            if (!s[r] || ch4coll_sched_done(s[r]))
                continue;
            rc = ch4coll_sched_progress(s[r], &progressed);
            if (rc != CH4COLL_OK) {
                if (!err[0])
                    snprintf(err, errlen, "rank %d: %s", r,
                             ch4coll_strerror(rc));
                return rc;
            }
            any |= progressed;
            if (!ch4coll_sched_done(s[r]))
                all_done = 0;
        }
        if (all_done)
            break;
        if (!any) {
            snprintf(err, errlen, "deadlock");
            report_deadlock(p, s, err, errlen);
            return CH4COLL_ERR_DEADLOCK;
        }
    }
    return ch4coll_loop_end(w);
}
