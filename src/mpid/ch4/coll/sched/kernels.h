/*
 * kernels.h - local reduction kernels for the predefined operations on the
 * predefined C types.
 *
 * A schedule looks its kernel up once, at init (ch4coll_kernel_find); a
 * reduce vertex then calls it directly instead of going through the
 * transport's MPI_Reduce_local.  The loops are plain element-wise
 * functions over restrict pointers, compiled so that the compiler
 * vectorises them (SIMD adds, max, xor, ...).  Anything without a kernel
 * (user ops, derived types, MPI_MAXLOC, long double, complex) keeps using
 * the transport's reduce.
 */
#ifndef CH4COLL_KERNELS_H
#define CH4COLL_KERNELS_H

#include <mpi.h>
#include <stddef.h>

/* inout[i] = in[i] op inout[i] for i < count ("in" holds the lower ranks'
 * data, as in MPI_Reduce_local). */
typedef void (*ch4coll_kernel_fn)(const void *in, void *inout, size_t count);

/* The kernel for (dt, op), or NULL. */
ch4coll_kernel_fn ch4coll_kernel_find(MPI_Datatype dt, MPI_Op op);

#endif /* CH4COLL_KERNELS_H */
