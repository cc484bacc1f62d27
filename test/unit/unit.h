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

/* Run suite s without forking; 0 if every test passed, else 1.  For a
 * main that sets up more than MPI (harness.h's hz_setup). */
int unit_run(Suite *s);

/* What builds a program's suite. */
typedef Suite *unit_suite_fn(void);

/* The whole main of most programs: MPI_Init, unit_run(make()),
 * MPI_Finalize. */
int unit_main(int argc, char **argv, unit_suite_fn *make);

#endif /* CH4COLL_TEST_UNIT_H */
