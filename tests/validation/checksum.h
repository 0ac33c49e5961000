/* checksum.h: the checksum both versions of a kernel print.
 *
 *   checksum SUM WSUM ASUM
 *
 * SUM is the sum of the result, WSUM a position-weighted sum (weight
 * chk_w(g) = 1 + g mod 7 for the global linear index g, which also
 * catches values that land in the wrong place) and ASUM the sum of
 * absolute values. The per-point values are bitwise identical in the
 * serial and the MPI runs; only the order of the additions differs (MPI
 * adds per rank, then MPI_Reduce). To make the printed line identical
 * anyway (tests/validation/validate.py compares it as a string), the
 * sums are accumulated with a compensated (TwoSum, Neumaier) accumulator
 * whose error is ~1e-25 of ASUM, and the MPI reduction combines the
 * accumulators with a user MPI_Op; rounding the result to double then
 * gives the same value whatever the order. */
#ifndef VALIDATION_CHECKSUM_H
#define VALIDATION_CHECKSUM_H

#include <math.h>

typedef struct {
   double hi, lo;
} chk_acc;

static inline void chk_add(chk_acc *a, double x)
{
   double s = a->hi + x;
   double bp = s - a->hi;
   double e = (a->hi - (s - bp)) + (x - bp);  /* exact error of hi + x */
   a->hi = s;
   a->lo += e;
}

static inline double chk_w(long g)
{
   return 1.0 + (double)(g % 7);
}

typedef struct {
   chk_acc s[3];                /* sum, weighted sum, sum of |x| */
} chk_t;

static inline void chk_init(chk_t *c)
{
   for (int i = 0; i < 3; i++)
      c->s[i].hi = c->s[i].lo = 0.0;
}

/* add the value x of the global point g */
static inline void chk_point(chk_t *c, long g, double x)
{
   chk_add(&c->s[0], x);
   chk_add(&c->s[1], chk_w(g) * x);
   chk_add(&c->s[2], fabs(x));
}

/* the three numbers to print */
static inline void chk_result(const chk_t *c, double out[3])
{
   for (int i = 0; i < 3; i++)
      out[i] = c->s[i].hi + c->s[i].lo;
}

#ifdef MPI_VERSION
/* MPI_Op combining (hi, lo) pairs */
static void chk_mpi_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
   const double *a = in;
   double *b = inout;
   (void)type;
   for (int i = 0; i + 1 < *len; i += 2) {
      chk_acc t = {b[i], b[i + 1]};
      chk_add(&t, a[i]);
      t.lo += a[i + 1];
      b[i] = t.hi;
      b[i + 1] = t.lo;
   }
}

/* Reduce the per-rank accumulators to root 0 of comm (in place on root). */
static void chk_reduce(chk_t *c, MPI_Comm comm)
{
   double in[6], out[6];
   MPI_Op op;
   for (int i = 0; i < 3; i++) {
      in[2 * i] = c->s[i].hi;
      in[2 * i + 1] = c->s[i].lo;
   }
   MPI_Op_create(chk_mpi_op, 1, &op);
   MPI_Reduce(in, out, 6, MPI_DOUBLE, op, 0, comm);
   MPI_Op_free(&op);
   for (int i = 0; i < 3; i++) {
      c->s[i].hi = out[2 * i];
      c->s[i].lo = out[2 * i + 1];
   }
}
#endif

#endif /* VALIDATION_CHECKSUM_H */
/* SPDX-License-Identifier: GPL-2.0-or-later */
