/*
 * model.h - the alpha-beta-gamma cost model: its type, its default, its
 * parser and the price of one message.
 *
 * A leaf: it includes nothing of ch4coll but its generated default.  The
 * algorithms' cost formulas (algos/, the registry's cost functions) are written
 * in its terms, so algos/ may include this header, and only this one, of
 * model/; the model's code (model.c, the replay, the lower bounds) sits above
 * algos/ and is not linked into MPICH in the custom build.
 */
#ifndef CH4COLL_MODEL_H
#define CH4COLL_MODEL_H

#include <stddef.h>

#include "model_default.h"

/*
 * The cost model (Rabenseifner 3.1, Hockney): a message of m bytes costs
 * alpha + m beta; every rank sends one message and receives one message at
 * a time (full duplex, single port); combining m bytes in a local reduction
 * costs m gamma; copies are free.  Times in seconds.
 *
 * With a locality (args.loc) a message inside a node costs alpha_node +
 * m beta_node, between nodes alpha + m beta, and each node has one network
 * interface: at any time it sends at most one message to other nodes and
 * receives at most one (full duplex), on top of each rank's own ports, so
 * the inter-node messages of a node's ranks queue at its interface.
 *
 * model/replay.c runs committed schedules on exactly this model; each
 * algorithm's cost function is its closed formula (flat algorithms: on
 * the model without nodes; smp: with both link classes), and test_model.c
 * checks that formula and replay agree.
 */
typedef struct {
    double alpha; /* seconds per message */
    double beta;  /* seconds per byte transferred */
    double gamma; /* seconds per byte reduced */
    /* Two link classes (when the call has a locality, args.loc): alpha and
     * beta are between nodes, these between two ranks of one node. */
    double alpha_node;
    double beta_node;
    /* A multi-ported machine (LogP's g): a rank starts a message every gap
     * seconds while earlier ones are in flight, as SimGrid's hosts do when
     * a send costs the CPU less than the wire's latency.  0 (the default):
     * single-ported as above.  Only the lower bounds (bounds.c) read it:
     * on such a machine a flat tree beats the single-ported bound. */
    double gap;
    /* The eager limit in bytes: the replay (replay.h) starts a larger
     * message only once its receive is posted (rendezvous), as MPI
     * libraries do; 0 (the default): every message is eager. */
    double eager;
} ch4coll_model_t;

/* The model of machines/default.json (model_default.h is generated from
 * it by maint/gen-docs): alpha 2 us, 10 GB/s links, 4 GB/s reductions, a
 * commodity cluster; inside a node 0.5 us and 20 GB/s.  The pipelines'
 * chunk defaults are derived from it, so the custom build has it too: a
 * constant here, not code in model.c. */
static const ch4coll_model_t ch4coll_model_default = CH4COLL_MODEL_DEFAULT_INIT;

/* "alpha=2e-6,beta=1e-10,gamma=2.5e-10" (any subset, gap, eager; the rest from
 * ch4coll_model_default) into *m; "machine=FILE" takes all of them from a
 * machine description (machine.h), and the keys after it override; 0, or
 * -1 with the reason in err. */
int ch4coll_model_parse(const char *text, ch4coll_model_t *m, char *err,
                        size_t len);

/* One message of `bytes` bytes between nodes (the flat model): alpha +
 * bytes beta.  A message that is sent costs alpha even when empty (a
 * barrier's). */
static inline double ch4coll_model_msg(const ch4coll_model_t *m, double bytes)
{
    return m->alpha + bytes * m->beta;
}

/* A block of `bytes` bytes that the builders send only when it holds
 * something (they skip empty blocks of irregular counts): nothing when
 * empty, else one message. */
static inline double ch4coll_model_block(const ch4coll_model_t *m, double bytes)
{
    return bytes > 0 ? ch4coll_model_msg(m, bytes) : 0.0;
}

#endif /* CH4COLL_MODEL_H */
