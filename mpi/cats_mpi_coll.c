/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cats_mpi_coll.c: the collective wrappers of libcats-mpi and the bytes
 * each call moves by the formulas of docs/COMM-JSON.md.
 *
 * Every rank that takes part in a call counts its own share of the bytes,
 * and rank 0 of the communicator counts the call. The shares are chosen so
 * that their sum over the ranks is the formula's total, so the totals do
 * not depend on which ranks record them, and a call on a sub-communicator
 * counts with that communicator's size:
 *
 *   rooted (bcast, reduce, gather, scatter): each rank but the root moves
 *     its payload S once:                   sum S*(N-1)
 *   allreduce, seen as a reduce to rank 0 and a broadcast from it: each
 *     rank but rank 0 moves 2*S:            sum 2*S*(N-1)
 *   all-to-all kinds: each rank receives S from each other rank:
 *                                           sum S*N*(N-1)
 *   their v variants: each rank receives its recvcounts from the others,
 *     which sums to the bytes over all pairs of distinct ranks.
 *
 * Receive-side counts are used wherever MPI_IN_PLACE may leave the send
 * arguments undefined. Collectives on intercommunicators are not counted. */
#define _POSIX_C_SOURCE 200809L

#include "cats_mpi.h"

const char *const cmpi_kind_names[CMPI_NKINDS] = {
   [CMPI_BROADCAST] = "broadcast",
   [CMPI_REDUCE] = "reduce",
   [CMPI_ALLREDUCE] = "allreduce",
   [CMPI_GATHER] = "gather",
   [CMPI_SCATTER] = "scatter",
   [CMPI_ALLGATHER] = "allgather",
   [CMPI_ALLTOALL] = "alltoall",
   [CMPI_REDUCE_SCATTER] = "reduce_scatter",
   [CMPI_BARRIER] = "barrier",
};

/* How one rank's share follows from its arguments (count, counts, type),
 * me = its rank in the communicator of size n. */
enum cmpi_share {
   CMPI_SHARE_NONE,       /* 0 (barrier) */
   CMPI_SHARE_NONROOT,    /* me == root ? 0 : count */
   CMPI_SHARE_NONZERO2,   /* me == 0 ? 0 : 2 * count */
   CMPI_SHARE_PEERS,      /* count * (n - 1) */
   CMPI_SHARE_MINE,       /* counts[me] * (n - 1) */
   CMPI_SHARE_OTHERS      /* sum of counts[j], j != me */
};


static const struct cmpi_op_desc {
   enum cmpi_kind kind;     /* counted under */
   enum cmpi_share share;   /* this rank's bytes */
} cmpi_ops[CMPI_NOPS] = {
   [CMPI_OP_BARRIER] = { CMPI_BARRIER, CMPI_SHARE_NONE },
   [CMPI_OP_BCAST] = { CMPI_BROADCAST, CMPI_SHARE_NONROOT },
   [CMPI_OP_REDUCE] = { CMPI_REDUCE, CMPI_SHARE_NONROOT },
   [CMPI_OP_ALLREDUCE] = { CMPI_ALLREDUCE, CMPI_SHARE_NONZERO2 },
   [CMPI_OP_GATHER] = { CMPI_GATHER, CMPI_SHARE_NONROOT },
   [CMPI_OP_GATHERV] = { CMPI_GATHER, CMPI_SHARE_NONROOT },
   [CMPI_OP_SCATTER] = { CMPI_SCATTER, CMPI_SHARE_NONROOT },
   [CMPI_OP_SCATTERV] = { CMPI_SCATTER, CMPI_SHARE_NONROOT },
   [CMPI_OP_ALLGATHER] = { CMPI_ALLGATHER, CMPI_SHARE_PEERS },
   [CMPI_OP_ALLGATHERV] = { CMPI_ALLGATHER, CMPI_SHARE_OTHERS },
   [CMPI_OP_ALLTOALL] = { CMPI_ALLTOALL, CMPI_SHARE_PEERS },
   [CMPI_OP_ALLTOALLV] = { CMPI_ALLTOALL, CMPI_SHARE_OTHERS },
   [CMPI_OP_REDUCE_SCATTER] = { CMPI_REDUCE_SCATTER, CMPI_SHARE_MINE },
   [CMPI_OP_REDUCE_SCATTER_BLOCK] = { CMPI_REDUCE_SCATTER, CMPI_SHARE_PEERS },
};

/* Counts one successful call of OP on COMM. COUNT or COUNTS (per rank of
 * COMM) are elements of TYPE; the type is only looked at when this rank's
 * share needs it, since MPI leaves some arguments undefined at the root. */
void cmpi_coll(enum cmpi_op op, MPI_Comm comm, int root, int count,
                      const int counts[], MPI_Datatype type)
{
   if (!cmpi.active)
      return;
   int inter = 0, me = 0, n = 0;
   if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
       PMPI_Comm_rank(comm, &me) != MPI_SUCCESS ||
       PMPI_Comm_size(comm, &n) != MPI_SUCCESS)
      return;
   const struct cmpi_op_desc *d = &cmpi_ops[op];
   uint64_t share = 0;
   switch (d->share) {
   case CMPI_SHARE_NONE:
      break;
   case CMPI_SHARE_NONROOT:
      share = me == root ? 0 : cmpi_type_bytes(count, type);
      break;
   case CMPI_SHARE_NONZERO2:
      share = me == 0 ? 0 : 2 * cmpi_type_bytes(count, type);
      break;
   case CMPI_SHARE_PEERS:
      share = cmpi_type_bytes(count, type) * (uint64_t)(n - 1);
      break;
   case CMPI_SHARE_MINE:
      share = cmpi_type_bytes(counts[me], type) * (uint64_t)(n - 1);
      break;
   case CMPI_SHARE_OTHERS:
      for (int j = 0; j < n; j++)
         if (j != me)
            share += cmpi_type_bytes(counts[j], type);
      break;
   }
   cmpi_count_collective(d->kind, me == 0, share);
}

/* ------------------------------------------------------------------ */
/* Wrappers                                                            */
/* ------------------------------------------------------------------ */

int MPI_Barrier(MPI_Comm comm)
{
   int rc = PMPI_Barrier(comm);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_BARRIER, comm, 0, 0, NULL, MPI_DATATYPE_NULL);
   return rc;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
   int rc = PMPI_Ibarrier(comm, req);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_BARRIER, comm, 0, 0, NULL, MPI_DATATYPE_NULL);
   return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root,
              MPI_Comm comm)
{
   int rc = PMPI_Bcast(buf, count, type, root, comm);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_BCAST, comm, root, count, NULL, type);
   return rc;
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root,
               MPI_Comm comm, MPI_Request *req)
{
   int rc = PMPI_Ibcast(buf, count, type, root, comm, req);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_BCAST, comm, root, count, NULL, type);
   return rc;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
   int rc = PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_REDUCE, comm, root, count, NULL, type);
   return rc;
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request *req)
{
   int rc = PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, req);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_REDUCE, comm, root, count, NULL, type);
   return rc;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
   int rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_ALLREDUCE, comm, 0, count, NULL, type);
   return rc;
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request *req)
{
   int rc = PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, req);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_ALLREDUCE, comm, 0, count, NULL, type);
   return rc;
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
               MPI_Comm comm)
{
   int rc = PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, root, comm);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_GATHER, comm, root, sendcount, NULL, sendtype);
   return rc;
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int displs[],
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
   int rc = PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                         displs, recvtype, root, comm);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_GATHERV, comm, root, sendcount, NULL, sendtype);
   return rc;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
   int rc = PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                         recvtype, root, comm);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_SCATTER, comm, root, recvcount, NULL, recvtype);
   return rc;
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[],
                 const int displs[], MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
   int rc = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                          recvcount, recvtype, root, comm);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_SCATTERV, comm, root, recvcount, NULL, recvtype);
   return rc;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm)
{
   int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, comm);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_ALLGATHER, comm, 0, recvcount, NULL, recvtype);
   return rc;
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   MPI_Comm comm, MPI_Request *req)
{
   int rc = PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            recvtype, comm, req);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_ALLGATHER, comm, 0, recvcount, NULL, recvtype);
   return rc;
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int displs[],
                   MPI_Datatype recvtype, MPI_Comm comm)
{
   int rc = PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf,
                            recvcounts, displs, recvtype, comm);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_ALLGATHERV, comm, 0, 0, recvcounts, recvtype);
   return rc;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 MPI_Comm comm)
{
   int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          recvtype, comm);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_ALLTOALL, comm, 0, recvcount, NULL, recvtype);
   return rc;
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm, MPI_Request *req)
{
   int rc = PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, comm, req);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_ALLTOALL, comm, 0, recvcount, NULL, recvtype);
   return rc;
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                  const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm)
{
   int rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                           recvcounts, rdispls, recvtype, comm);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_ALLTOALLV, comm, 0, 0, recvcounts, recvtype);
   return rc;
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                       const int recvcounts[], MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm)
{
   int rc = PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_REDUCE_SCATTER, comm, 0, 0, recvcounts, type);
   return rc;
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                             int recvcount, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm)
{
   int rc = PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op,
                                      comm);
   if (rc == MPI_SUCCESS)
      cmpi_coll(CMPI_OP_REDUCE_SCATTER_BLOCK, comm, 0, recvcount, NULL, type);
   return rc;
}
