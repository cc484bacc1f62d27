/*
 * unit.h - the main of a unit-test program.
 *
 * MPI is initialised as a singleton (no mpiexec) because the argument
 * structs carry MPI handles and some tests call the host MPI.  Check runs
 * in CK_NOFORK mode: the loop transport runs every rank in this process,
 * and each test frees what it creates.  The exit status is what automake
 * reads: 0 when every test passed, else 1.
 */
#ifndef CH4COLL_TEST_UNIT_H
#define CH4COLL_TEST_UNIT_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* Run suite s without forking; 0 if every test passed, else 1.  For a
 * main that sets up more than MPI (harness.h's hz_setup). */
int unit_run(Suite *s);

/* What builds a program's suite. */
typedef Suite *unit_suite_fn(void);

/* The whole main of most programs: MPI_Init, unit_run(make()),
 * MPI_Finalize. */
int unit_main(int argc, char **argv, unit_suite_fn *make);

/* CH4COLL_TEST_QUICK=1: the sanitizer and valgrind runs (maint/sanitize),
 * where the instrumented code is 5-20x slower.  The heavy loops keep
 * their shapes (every algorithm, distribution, root, in place) on fewer
 * process counts. */
static inline int unit_quick(void)
{
    const char *q = getenv("CH4COLL_TEST_QUICK");
    return q && strcmp(q, "1") == 0;
}

/* The quick runs' process counts: 1, the power of two 2, and non-powers
 * with every remainder p - 2^floor(lg p) from 1 to 4 (3, 5; 6; 7; 12),
 * odd and even, below and above 8: the shapes of non-power-of-two
 * handling at about a third of the work of p = 1..17.  1 if a quick run
 * leaves p out. */
static inline int unit_quick_skips(int p)
{
    static const int keep[] = {1, 2, 3, 5, 6, 7, 12};
    size_t i;

    if (!unit_quick())
        return 0;
    for (i = 0; i < sizeof keep / sizeof keep[0]; i++)
        if (keep[i] == p)
            return 0;
    return 1;
}

#endif /* CH4COLL_TEST_UNIT_H */
