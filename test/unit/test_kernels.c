/*
 * test_kernels.c - unit tests of the reduction kernels (sched/kernels.c).
 *
 * What is covered, and why it matters:
 *
 *   kernels    Every reduction kernel against the host's MPI_Reduce_local,
 *              for lengths around the vector width; where MPICH 4.0.2
 *              compares unsigned values as signed, against the definition.
 *
 * Assumptions: unit.h (MPI singleton, CK_NOFORK).
 */
#include <check.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sched/kernels.h"
#include "unit.h"

/* MPICH 4.0.2's MPI_MAX and MPI_MIN on some unsigned types compare the
 * values as signed (MAX(200, 100) = 100 for MPI_UNSIGNED_CHAR): where the
 * host gets an unsigned pair wrong, the kernel is checked against the
 * definition instead (doc/performance-log.md, "Kernels"). */
static int host_max_min_bug(MPI_Datatype dt, size_t size, MPI_Op op)
{
    static const MPI_Datatype uns[] = {
        MPI_UNSIGNED_CHAR, MPI_UNSIGNED_SHORT,     MPI_UNSIGNED,
        MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG, MPI_UINT8_T,
        MPI_UINT16_T,      MPI_UINT32_T,           MPI_UINT64_T};
    unsigned char x[8] = {0}, y[8] = {0};
    size_t i;

    if (op != MPI_MAX && op != MPI_MIN)
        return 0;
    for (i = 0; i < sizeof uns / sizeof uns[0]; i++)
        if (uns[i] == dt)
            break;
    if (i == sizeof uns / sizeof uns[0])
        return 0;
    x[size - 1] = 0x80; /* little endian: the top bit */
    y[0] = 1;
    PMPI_Reduce_local(x, y, 1, dt, op);
    /* MAX must pick x, MIN must keep y */
    return op == MPI_MAX ? y[size - 1] != 0x80 : y[0] != 1;
}

static uint64_t load_u(const unsigned char *p, size_t size)
{
    uint64_t v = 0;
    memcpy(&v, p, size); /* little endian */
    return v;
}

/* got = in op orig by the definition of MAX / MIN on unsigned values */
static void check_unsigned_max_min(const unsigned char *in,
                                   const unsigned char *orig,
                                   const unsigned char *got, size_t n,
                                   size_t size, int is_max)
{
    size_t i;

    for (i = 0; i < n; i++) {
        uint64_t x = load_u(in + i * size, size);
        uint64_t y = load_u(orig + i * size, size);
        uint64_t want = is_max ? (x > y ? x : y) : (x < y ? x : y);
        ck_assert(load_u(got + i * size, size) == want);
    }
}

/* Every kernel against the host's MPI_Reduce_local on the same bytes, for
 * lengths around the vector width; pairs the host rejects are skipped
 * (the entry layer sends such calls to the host anyway). */
START_TEST(test_kernels_match_host)
{
    static const struct {
        MPI_Datatype dt;
        size_t size;
        const char *name;
    } types[] = {{MPI_INT, sizeof(int), "int"},
                 {MPI_FLOAT, sizeof(float), "float"},
                 {MPI_DOUBLE, sizeof(double), "double"},
                 {MPI_CHAR, 1, "char"},
                 {MPI_SIGNED_CHAR, 1, "signed char"},
                 {MPI_UNSIGNED_CHAR, 1, "unsigned char"},
                 {MPI_BYTE, 1, "byte"},
                 {MPI_SHORT, sizeof(short), "short"},
                 {MPI_UNSIGNED_SHORT, sizeof(short), "unsigned short"},
                 {MPI_UNSIGNED, sizeof(int), "unsigned"},
                 {MPI_LONG, sizeof(long), "long"},
                 {MPI_UNSIGNED_LONG, sizeof(long), "unsigned long"},
                 {MPI_LONG_LONG, sizeof(long long), "long long"},
                 {MPI_UNSIGNED_LONG_LONG, sizeof(long long), "ull"},
                 {MPI_INT8_T, 1, "int8"},
                 {MPI_UINT16_T, 2, "uint16"},
                 {MPI_INT32_T, 4, "int32"},
                 {MPI_UINT64_T, 8, "uint64"},
                 {MPI_C_BOOL, 1, "bool"}};
    static const MPI_Op ops[] = {MPI_SUM,  MPI_PROD, MPI_MAX,  MPI_MIN,
                                 MPI_LAND, MPI_LOR,  MPI_LXOR, MPI_BAND,
                                 MPI_BOR,  MPI_BXOR};
    unsigned char in[64 * 8], a[64 * 8], b[64 * 8], orig[64 * 8];
    size_t ti, oi, n, i;
    int found = 0, host_bugs = 0;
    unsigned seed = 12345;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
            ch4coll_kernel_fn k = ch4coll_kernel_find(types[ti].dt, ops[oi]);
            if (!k)
                continue;
            for (n = 1; n <= 37; n += 4) {
                size_t bytes = n * types[ti].size;
                for (i = 0; i < bytes; i++) {
                    seed = seed * 1103515245u + 12345u;
                    in[i] = (unsigned char) (seed >> 16);
                    seed = seed * 1103515245u + 12345u;
                    a[i] = (unsigned char) (seed >> 16);
                }
                if (types[ti].dt == MPI_C_BOOL) /* valid bools only */
                    for (i = 0; i < bytes; i++) {
                        in[i] &= 1;
                        a[i] &= 1;
                    }
                if (types[ti].dt == MPI_FLOAT || types[ti].dt == MPI_DOUBLE)
                    for (i = 0; i < n; i++) { /* finite values */
                        if (types[ti].dt == MPI_FLOAT) {
                            ((float *) in)[i] = (float) (i * 7 % 13) - 6.5f;
                            ((float *) a)[i] = (float) (i * 5 % 11) * 0.25f;
                        } else {
                            ((double *) in)[i] = (double) (i * 7 % 13) - 6.5;
                            ((double *) a)[i] = (double) (i * 5 % 11) * 0.25;
                        }
                    }
                memcpy(b, a, bytes);
                memcpy(orig, a, bytes);
                if (PMPI_Reduce_local(in, b, (int) n, types[ti].dt, ops[oi]) !=
                    MPI_SUCCESS)
                    break; /* the host does not define this pair */
                k(in, a, n);
                if (host_max_min_bug(types[ti].dt, types[ti].size, ops[oi])) {
                    check_unsigned_max_min(in, orig, a, n, types[ti].size,
                                           ops[oi] == MPI_MAX);
                    host_bugs++;
                    found++;
                    continue;
                }
                ck_assert_msg(memcmp(a, b, bytes) == 0,
                              "kernel %s op #%zu n=%zu differs from the host",
                              types[ti].name, oi, n);
                found++;
            }
        }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    ck_assert_int_gt(found, 100);
    if (host_bugs)
        fprintf(stderr,
                "test_kernels: %d unsigned MAX/MIN cases where the "
                "host compares as signed; checked by definition\n",
                host_bugs);
    ck_assert(ch4coll_kernel_find(MPI_DOUBLE, MPI_BXOR) == NULL);
    ck_assert(ch4coll_kernel_find(MPI_2INT, MPI_MAXLOC) == NULL);
}
END_TEST

/* =============================================================== main */

static Suite *kernels_suite(void)
{
    Suite *s = suite_create("kernels");
    TCase *tc;

    tc = tcase_create("kernels");
    tcase_add_test(tc, test_kernels_match_host);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return unit_main(argc, argv, kernels_suite);
}
