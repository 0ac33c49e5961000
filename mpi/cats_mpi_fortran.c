/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cats_mpi_fortran.c: libcats-mpi for Fortran programs. The Fortran
 * bindings of an MPI library (mpif.h, the mpi module) call PMPI_*
 * directly, so the C wrappers never see a Fortran program's calls: these
 * wrappers take the Fortran entry points (gfortran's names, lower case
 * with one underscore), count with the C wrappers' functions, and hand
 * the call on to the library's own Fortran profiling entry (pmpi_*_),
 * untouched, so Fortran's conventions (MPI_IN_PLACE, MPI_BOTTOM, status
 * arrays, ierror) stay the library's business. The pmpi_*_ entries are
 * weak: a C program's MPI library need not have them, and then no
 * Fortran code calls these either. Every argument is passed by
 * reference; handles are converted with the MPI_*_f2c functions.
 * Persistent sends (MPI_SEND_INIT and MPI_START) are not counted from
 * Fortran. */
#include "cats_mpi.h"

#define F(name) name##_
#define WEAK __attribute__((weak))

typedef MPI_Fint fint;
_Static_assert(sizeof(fint) == sizeof(int), "the v counts are passed as int");

#define COMM(c) MPI_Comm_f2c(*(c))
#define TYPE(t) MPI_Type_f2c(*(t))
#define OK(ierr) (*(ierr) == MPI_SUCCESS)

/* Environment ------------------------------------------------------- */

extern void F(pmpi_init)(fint *ierr) WEAK;
extern void F(pmpi_init_thread)(fint *required, fint *provided, fint *ierr) WEAK;
extern void F(pmpi_finalize)(fint *ierr) WEAK;
extern void F(pmpi_pcontrol)(fint *level) WEAK;

void F(mpi_init)(fint *ierr)
{
   F(pmpi_init)(ierr);
   if (OK(ierr))
      cmpi_started(NULL);
}

void F(mpi_init_thread)(fint *required, fint *provided, fint *ierr)
{
   F(pmpi_init_thread)(required, provided, ierr);
   if (OK(ierr))
      cmpi_started(NULL);
}

void F(mpi_finalize)(fint *ierr)
{
   cmpi_finishing();
   F(pmpi_finalize)(ierr);
}

void F(mpi_pcontrol)(fint *level)
{
   cmpi_pcontrol(*level);
   F(pmpi_pcontrol)(level);
}

/* Point to point ----------------------------------------------------- */

/* A blocking send (buf, count, type, dest, tag, comm, ierr) and a
 * nonblocking one (..., comm, request, ierr). */
#define SEND(name)                                                           \
   extern void F(p##name)(void *, fint *, fint *, fint *, fint *, fint *,    \
                          fint *) WEAK;                                      \
   void F(name)(void *buf, fint *count, fint *type, fint *dest, fint *tag,   \
                fint *comm, fint *ierr)                                      \
   {                                                                         \
      F(p##name)(buf, count, type, dest, tag, comm, ierr);                   \
      if (OK(ierr))                                                          \
         cmpi_p2p(COMM(comm), *dest, *count, TYPE(type));                    \
   }
#define ISEND(name)                                                          \
   extern void F(p##name)(void *, fint *, fint *, fint *, fint *, fint *,    \
                          fint *, fint *) WEAK;                              \
   void F(name)(void *buf, fint *count, fint *type, fint *dest, fint *tag,   \
                fint *comm, fint *req, fint *ierr)                           \
   {                                                                         \
      F(p##name)(buf, count, type, dest, tag, comm, req, ierr);              \
      if (OK(ierr))                                                          \
         cmpi_p2p(COMM(comm), *dest, *count, TYPE(type));                    \
   }

SEND(mpi_send)
SEND(mpi_ssend)
SEND(mpi_bsend)
SEND(mpi_rsend)
ISEND(mpi_isend)
ISEND(mpi_issend)
ISEND(mpi_ibsend)
ISEND(mpi_irsend)

extern void F(pmpi_sendrecv)(void *, fint *, fint *, fint *, fint *, void *, fint *,
                             fint *, fint *, fint *, fint *, fint *, fint *) WEAK;
void F(mpi_sendrecv)(void *sbuf, fint *scount, fint *stype, fint *dest, fint *stag,
                     void *rbuf, fint *rcount, fint *rtype, fint *source, fint *rtag,
                     fint *comm, fint *status, fint *ierr)
{
   F(pmpi_sendrecv)(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source,
                    rtag, comm, status, ierr);
   if (OK(ierr))
      cmpi_p2p(COMM(comm), *dest, *scount, TYPE(stype));
}

extern void F(pmpi_sendrecv_replace)(void *, fint *, fint *, fint *, fint *, fint *,
                                     fint *, fint *, fint *, fint *) WEAK;
void F(mpi_sendrecv_replace)(void *buf, fint *count, fint *type, fint *dest,
                             fint *stag, fint *source, fint *rtag, fint *comm,
                             fint *status, fint *ierr)
{
   F(pmpi_sendrecv_replace)(buf, count, type, dest, stag, source, rtag, comm, status,
                            ierr);
   if (OK(ierr))
      cmpi_p2p(COMM(comm), *dest, *count, TYPE(type));
}

/* Collectives: counted as the C wrappers count them ------------------ */

extern void F(pmpi_barrier)(fint *, fint *) WEAK;
void F(mpi_barrier)(fint *comm, fint *ierr)
{
   F(pmpi_barrier)(comm, ierr);
   if (OK(ierr))
      cmpi_coll(CMPI_OP_BARRIER, COMM(comm), 0, 0, NULL, MPI_DATATYPE_NULL);
}

extern void F(pmpi_bcast)(void *, fint *, fint *, fint *, fint *, fint *) WEAK;
void F(mpi_bcast)(void *buf, fint *count, fint *type, fint *root, fint *comm,
                  fint *ierr)
{
   F(pmpi_bcast)(buf, count, type, root, comm, ierr);
   if (OK(ierr))
      cmpi_coll(CMPI_OP_BCAST, COMM(comm), *root, *count, NULL, TYPE(type));
}

extern void F(pmpi_reduce)(void *, void *, fint *, fint *, fint *, fint *, fint *,
                           fint *) WEAK;
void F(mpi_reduce)(void *sbuf, void *rbuf, fint *count, fint *type, fint *op,
                   fint *root, fint *comm, fint *ierr)
{
   F(pmpi_reduce)(sbuf, rbuf, count, type, op, root, comm, ierr);
   if (OK(ierr))
      cmpi_coll(CMPI_OP_REDUCE, COMM(comm), *root, *count, NULL, TYPE(type));
}

extern void F(pmpi_allreduce)(void *, void *, fint *, fint *, fint *, fint *,
                              fint *) WEAK;
void F(mpi_allreduce)(void *sbuf, void *rbuf, fint *count, fint *type, fint *op,
                      fint *comm, fint *ierr)
{
   F(pmpi_allreduce)(sbuf, rbuf, count, type, op, comm, ierr);
   if (OK(ierr))
      cmpi_coll(CMPI_OP_ALLREDUCE, COMM(comm), 0, *count, NULL, TYPE(type));
}

/* gather and scatter (sbuf, scount, stype, rbuf, rcount, rtype, root,
 * comm, ierr); allgather and alltoall the same without the root. */
extern void F(pmpi_gather)(void *, fint *, fint *, void *, fint *, fint *, fint *,
                           fint *, fint *) WEAK;
void F(mpi_gather)(void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount,
                   fint *rtype, fint *root, fint *comm, fint *ierr)
{
   F(pmpi_gather)(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr);
   if (OK(ierr))
      cmpi_coll(CMPI_OP_GATHER, COMM(comm), *root, *scount, NULL, TYPE(stype));
}

extern void F(pmpi_scatter)(void *, fint *, fint *, void *, fint *, fint *, fint *,
                            fint *, fint *) WEAK;
void F(mpi_scatter)(void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount,
                    fint *rtype, fint *root, fint *comm, fint *ierr)
{
   F(pmpi_scatter)(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr);
   if (OK(ierr))
      cmpi_coll(CMPI_OP_SCATTER, COMM(comm), *root, *rcount, NULL, TYPE(rtype));
}

extern void F(pmpi_allgather)(void *, fint *, fint *, void *, fint *, fint *, fint *,
                              fint *) WEAK;
void F(mpi_allgather)(void *sbuf, fint *scount, fint *stype, void *rbuf,
                      fint *rcount, fint *rtype, fint *comm, fint *ierr)
{
   F(pmpi_allgather)(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr);
   if (OK(ierr))
      cmpi_coll(CMPI_OP_ALLGATHER, COMM(comm), 0, *rcount, NULL, TYPE(rtype));
}

extern void F(pmpi_alltoall)(void *, fint *, fint *, void *, fint *, fint *, fint *,
                             fint *) WEAK;
void F(mpi_alltoall)(void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount,
                     fint *rtype, fint *comm, fint *ierr)
{
   F(pmpi_alltoall)(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr);
   if (OK(ierr))
      cmpi_coll(CMPI_OP_ALLTOALL, COMM(comm), 0, *rcount, NULL, TYPE(rtype));
}

/* The v variants count the receive counts (fint is int here: MPI_Fint
 * is int for gfortran's default INTEGER). */
extern void F(pmpi_allgatherv)(void *, fint *, fint *, void *, fint *, fint *, fint *,
                               fint *, fint *) WEAK;
void F(mpi_allgatherv)(void *sbuf, fint *scount, fint *stype, void *rbuf,
                       fint *rcounts, fint *displs, fint *rtype, fint *comm, fint *ierr)
{
   F(pmpi_allgatherv)(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr);
   if (OK(ierr))
      cmpi_coll(CMPI_OP_ALLGATHERV, COMM(comm), 0, 0, rcounts, TYPE(rtype));
}

extern void F(pmpi_alltoallv)(void *, fint *, fint *, fint *, void *, fint *, fint *,
                              fint *, fint *, fint *) WEAK;
void F(mpi_alltoallv)(void *sbuf, fint *scounts, fint *sdispls, fint *stype,
                      void *rbuf, fint *rcounts, fint *rdispls, fint *rtype,
                      fint *comm, fint *ierr)
{
   F(pmpi_alltoallv)(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype,
                     comm, ierr);
   if (OK(ierr))
      cmpi_coll(CMPI_OP_ALLTOALLV, COMM(comm), 0, 0, rcounts, TYPE(rtype));
}

extern void F(pmpi_reduce_scatter)(void *, void *, fint *, fint *, fint *, fint *,
                                   fint *) WEAK;
void F(mpi_reduce_scatter)(void *sbuf, void *rbuf, fint *rcounts, fint *type,
                           fint *op, fint *comm, fint *ierr)
{
   F(pmpi_reduce_scatter)(sbuf, rbuf, rcounts, type, op, comm, ierr);
   if (OK(ierr))
      cmpi_coll(CMPI_OP_REDUCE_SCATTER, COMM(comm), 0, 0, rcounts, TYPE(type));
}
