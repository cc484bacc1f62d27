/*
 * machine.h - machine descriptions: what ch4coll-calibrate measures and
 * writes (JSON), and what the cost model, the lower bounds and the SimGrid
 * comparison read from it (doc/machines.md).
 *
 * One file is the one source of the model's parameters for a machine:
 * every model spec (ch4coll-info --model ...,machine=FILE, the public
 * ch4coll_model() that collbench's bounds use) takes alpha, beta and gamma
 * from it; maint/smpi-compare takes the per-message overheads and the
 * reduction cost for its SimGrid platforms from the files of machines/.
 */
#ifndef CH4COLL_MACHINE_H
#define CH4COLL_MACHINE_H

#include <stddef.h>
#include <stdio.h>

#include "model.h"

#define CH4COLL_MACHINE_MAX_GAMMA 64

typedef struct {
    char op[16];   /* "sum", "max", ... */
    char type[24]; /* "double", "int", ... */
    double seconds_per_byte;
} ch4coll_machine_gamma_t;

typedef struct {
    char name[128];
    char made_by[512]; /* the command that wrote the file */
    char date[32];     /* UTC, ISO 8601 */
    char mpi[256];     /* the host MPI's version string, first line */
    /* alpha: a lone message's whole cost (both overheads and the wire);
     * beta: 1 / bandwidth; gamma: the MPI_SUM-on-double kernel's */
    ch4coll_model_t model;
    double latency;   /* seconds on the wire between the two overheads */
    double bandwidth; /* bytes per second */
    long long eager;  /* the eager/rendezvous switch, bytes */
    /* SimGrid's smpi/os, smpi/ois, smpi/or: "threshold:startup:per_byte"
     * segments joined by ';' */
    char os[256];
    char ois[256];
    char or_[256];
    int ngamma;
    ch4coll_machine_gamma_t gamma[CH4COLL_MACHINE_MAX_GAMMA];
    double host_gamma; /* the host's MPI_Reduce_local, MPI_SUM on doubles */
} ch4coll_machine_t;

/* Every field empty or 0, the model ch4coll_model_default. */
void ch4coll_machine_init(ch4coll_machine_t *m);

/* Read a description; 0, or -1 with the reason in err (a missing or
 * negative alpha, beta or gamma, a malformed segment list, not JSON). */
int ch4coll_machine_load(const char *path, ch4coll_machine_t *m, char *err,
                         size_t len);

/* Time ch4coll's reduction kernel of every predefined op and type it has
 * on vectors of `bytes` bytes into m->gamma, and set m->model.gamma to
 * MPI_SUM on doubles'; 0, or -1 with the reason. */
int ch4coll_machine_gamma(ch4coll_machine_t *m, size_t bytes, char *err,
                          size_t len);

/* Write m as JSON, with `extra` (members, already JSON text, or NULL)
 * before the closing brace. */
void ch4coll_machine_write(FILE *f, const ch4coll_machine_t *m,
                           const char *extra);

/* A segment list's cost of a message of `bytes` bytes, as SimGrid charges
 * it (the last segment whose threshold is below bytes; the first for
 * bytes at or below every threshold); 0 for an empty list. */
double ch4coll_machine_overhead(const char *segments, double bytes);

#endif /* CH4COLL_MACHINE_H */
