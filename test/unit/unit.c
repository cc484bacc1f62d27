/* unit.c - the main of a unit-test program (unit.h). */
#include "unit.h"

#include <mpi.h>

int unit_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    int failed;

    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}

int unit_main(int argc, char **argv, unit_suite_fn *make)
{
    int rc;

    MPI_Init(&argc, &argv);
    rc = unit_run(make());
    MPI_Finalize();
    return rc;
}
