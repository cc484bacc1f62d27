/*
 * replay.h - the cost model, run: committed schedules of all p ranks are
 * replayed as a discrete-event simulation on the alpha-beta-gamma model of
 * model.h, without moving data.
 *
 * Each rank has a send port, a receive port and a CPU, each busy with one
 * thing at a time.  A vertex is ready when its dependencies have finished.
 * A send of m bytes ready at t starts at max(t, sender's send port free,
 * receiver's receive port free) and occupies both ports for alpha + m beta;
 * the matching receive finishes at max(its own ready time, the transfer's
 * end).  With an eager limit (model.h's eager > 0) a larger message is
 * rendezvous: its transfer starts only once its receive is posted too,
 * and the send finishes with the transfer.  A reduction of m bytes occupies the
 * rank's CPU for m gamma. Copies, sinks and fences take no time.  Events are
 * processed in time order (ties in the order they became ready), so ports serve
 * messages first come, first served, and messages match receives as MPI's
 * non-overtaking rule says: the k-th send from s to d with tag t matches
 * the k-th receive d posts for (s, t).
 *
 * Locality (a ch4coll_locality_t, the call's args.loc): two link classes
 * and one network interface per node.  A message between two ranks of one
 * node costs alpha_node + m beta_node and uses only the two ranks' ports.
 * A message between nodes costs alpha + m beta and also needs its nodes'
 * interfaces: each node sends at most one message to other nodes and
 * receives at most one from other nodes at a time (full duplex), so it
 * starts at max(t, send port, receive port, source node's outgoing
 * interface, destination node's incoming interface) and holds all four
 * for its whole alpha + m beta.  The inter-node messages of the ranks of a
 * node thus queue at its interface, first come, first served: a flat ring
 * on cyclically placed ranks, where every rank of a node sends to another
 * node at once, moves ppn times slower than on block placement.  Without
 * a locality (NULL) every rank is its own node: the interfaces are the
 * ranks' ports and nothing changes.
 *
 * The closed formulas of the registry (ch4coll_algo_t.cost) describe the
 * model without interfaces; test_model.c holds them to the replay without
 * a locality.
 */
#ifndef CH4COLL_REPLAY_H
#define CH4COLL_REPLAY_H

#include <stddef.h>

#include "../algos/algo.h"

/* Simulated completion time of the collective (the last rank's finish).
 * scheds[r] is rank r's committed schedule (NULL: no work).  loc: the node
 * of each of the p ranks (NULL: every rank its own node; model->alpha_node
 * and beta_node unused).  Returns CH4COLL_OK, or an error with a
 * description in err (a node map out of range, unmatched messages, size
 * mismatch, deadlock). */
int ch4coll_replay(ch4coll_sched_t *const *scheds, int p,
                   const ch4coll_model_t *model, const ch4coll_locality_t *loc,
                   double *time, char *err, size_t errlen);

#endif /* CH4COLL_REPLAY_H */
