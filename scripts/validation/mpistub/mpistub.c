/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mpistub.c: a one-process MPI for building TeaLeaf_ref serially, which
 * has no build without MPI (docs/VALIDATION.md). Fortran entry points
 * (gfortran's names) of what TeaLeaf calls: with one process every
 * collective is a copy, the 2-D Cartesian grid is 1x1 and every
 * neighbour is MPI_PROC_NULL, so its halo exchange returns before any
 * point-to-point call; those stop the program if ever reached. The
 * constants are mpif.h's, beside this file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STUB_DOUBLE 17
#define STUB_INTEGER 7
#define STUB_PROC_NULL (-2)
#define STUB_CART_COMM 92

static size_t type_size(int t)
{
   return t == STUB_DOUBLE ? 8 : t == STUB_INTEGER ? 4 : 0;
}

static void unsupported(const char *what)
{
   fprintf(stderr, "mpistub: %s is not supported with one process\n", what);
   exit(1);
}

static void copy(void *s, void *r, int n, int t)
{
   if (s != r)
      memmove(r, s, (size_t)n * type_size(t));
}

void mpi_init_(int *e) { *e = 0; }
void mpi_finalize_(int *e) { *e = 0; }
void mpi_barrier_(int *c, int *e) { (void)c; *e = 0; }
void mpi_abort_(int *c, int *code, int *e) { (void)c, (void)e; exit(*code ? *code : 1); }

void mpi_comm_size_(int *c, int *size, int *e) { (void)c; *size = 1; *e = 0; }
void mpi_comm_rank_(int *c, int *rank, int *e) { (void)c; *rank = 0; *e = 0; }

void mpi_dims_create_(int *n, int *ndims, int *dims, int *e)
{
   (void)n;
   for (int i = 0; i < *ndims; i++)
      dims[i] = 1;
   *e = 0;
}

void mpi_cart_create_(int *c, int *ndims, int *dims, int *periods, int *reorder,
                      int *cart, int *e)
{
   (void)c, (void)ndims, (void)dims, (void)periods, (void)reorder;
   *cart = STUB_CART_COMM;
   *e = 0;
}

void mpi_cart_coords_(int *c, int *rank, int *ndims, int *coords, int *e)
{
   (void)c, (void)rank;
   for (int i = 0; i < *ndims; i++)
      coords[i] = 0;
   *e = 0;
}

void mpi_cart_shift_(int *c, int *dir, int *disp, int *src, int *dst, int *e)
{
   (void)c, (void)dir, (void)disp;
   *src = *dst = STUB_PROC_NULL;
   *e = 0;
}

void mpi_reduce_(void *s, void *r, int *n, int *t, int *op, int *root, int *c, int *e)
{
   (void)op, (void)root, (void)c;
   copy(s, r, *n, *t);
   *e = 0;
}

void mpi_allreduce_(void *s, void *r, int *n, int *t, int *op, int *c, int *e)
{
   (void)op, (void)c;
   copy(s, r, *n, *t);
   *e = 0;
}

void mpi_allgather_(void *s, int *sn, int *st, void *r, int *rn, int *rt, int *c, int *e)
{
   (void)rn, (void)rt, (void)c;
   copy(s, r, *sn, *st);
   *e = 0;
}

void mpi_isend_(void) { unsupported("MPI_ISEND"); }
void mpi_irecv_(void) { unsupported("MPI_IRECV"); }

void mpi_waitall_(int *n, int *reqs, int *statuses, int *e)
{
   (void)reqs, (void)statuses;
   if (*n)
      unsupported("MPI_WAITALL");
   *e = 0;
}

void mpi_testall_(int *n, int *reqs, int *flag, int *statuses, int *e)
{
   (void)reqs, (void)statuses;
   if (*n)
      unsupported("MPI_TESTALL");
   *flag = 1;
   *e = 0;
}
