/* ghost.h: a point-to-point ghost (halo) exchange plan for irregular
 * decompositions, used by spmv_mpi.c and mesh_mpi.c.
 *
 * A rank's local value array holds its nown owned entries followed by
 * its nghost ghost copies; the ghosts are grouped by owner rank in
 * ascending rank order. The plan is built once (outside the measured
 * region): every rank tells each owner which of the owner's entries it
 * needs. Each exchange then sends exactly those entries, one message per
 * (owner, needer) pair that has anything to send. */
#ifndef VALIDATION_GHOST_H
#define VALIDATION_GHOST_H

#include <mpi.h>
#include <stdlib.h>

typedef struct {
   int nown;
   int nrecv, *recv_rank, *recv_cnt, *recv_off;  /* ghosts, by owner */
   int nsend, *send_rank, *send_cnt, *send_off;  /* what others need */
   int *send_idx;                                /* local indices to pack */
   double *sendbuf;
   MPI_Request *req;
   long send_total;                              /* entries sent per exchange */
} ghost_plan;

/* ghost_gid[k] / ghost_owner[k]: global id and owner of ghost k, grouped
   by ascending owner. g2l maps a global id this rank owns to its local
   index (it is only read at ids this rank owns). */
static void ghost_plan_build(ghost_plan *gp, MPI_Comm comm, int nown, int nghost,
                             const int *ghost_gid, const int *ghost_owner,
                             const int *g2l)
{
   int P;
   MPI_Comm_size(comm, &P);
   int *cnt_to = calloc(P, sizeof(int)), *cnt_from = malloc(sizeof(int) * P);
   for (int k = 0; k < nghost; k++)
      cnt_to[ghost_owner[k]]++;
   MPI_Alltoall(cnt_to, 1, MPI_INT, cnt_from, 1, MPI_INT, comm);

   gp->nown = nown;
   gp->recv_rank = malloc(sizeof(int) * P);
   gp->recv_cnt = malloc(sizeof(int) * P);
   gp->recv_off = malloc(sizeof(int) * P);
   gp->send_rank = malloc(sizeof(int) * P);
   gp->send_cnt = malloc(sizeof(int) * P);
   gp->send_off = malloc(sizeof(int) * P);
   gp->nrecv = gp->nsend = 0;
   int off = 0;
   for (int q = 0; q < P; q++)
      if (cnt_to[q]) {
         gp->recv_rank[gp->nrecv] = q;
         gp->recv_cnt[gp->nrecv] = cnt_to[q];
         gp->recv_off[gp->nrecv++] = off;
         off += cnt_to[q];
      }
   off = 0;
   for (int q = 0; q < P; q++)
      if (cnt_from[q]) {
         gp->send_rank[gp->nsend] = q;
         gp->send_cnt[gp->nsend] = cnt_from[q];
         gp->send_off[gp->nsend++] = off;
         off += cnt_from[q];
      }
   gp->send_total = off;
   gp->send_idx = malloc(sizeof(int) * (off + 1));
   gp->sendbuf = malloc(sizeof(double) * (off + 1));
   gp->req = malloc(sizeof(MPI_Request) * (gp->nrecv + gp->nsend + 1));

   /* tell the owners which ids we need */
   int nr = 0;
   for (int s = 0; s < gp->nsend; s++)
      MPI_Irecv(gp->send_idx + gp->send_off[s], gp->send_cnt[s], MPI_INT,
                gp->send_rank[s], 10, comm, &gp->req[nr++]);
   for (int r = 0; r < gp->nrecv; r++)
      MPI_Isend((void *)(ghost_gid + gp->recv_off[r]), gp->recv_cnt[r], MPI_INT,
                gp->recv_rank[r], 10, comm, &gp->req[nr++]);
   MPI_Waitall(nr, gp->req, MPI_STATUSES_IGNORE);
   for (int k = 0; k < off; k++)
      gp->send_idx[k] = g2l[gp->send_idx[k]];
   free(cnt_to);
   free(cnt_from);
}

/* Refresh the ghost part x[nown ..] from the owners. */
static void ghost_exchange(ghost_plan *gp, double *x, MPI_Comm comm)
{
   int nr = 0;
   for (int r = 0; r < gp->nrecv; r++)
      MPI_Irecv(x + gp->nown + gp->recv_off[r], gp->recv_cnt[r], MPI_DOUBLE,
                gp->recv_rank[r], 11, comm, &gp->req[nr++]);
   for (int s = 0; s < gp->nsend; s++) {
      double *buf = gp->sendbuf + gp->send_off[s];
      const int *idx = gp->send_idx + gp->send_off[s];
      for (int k = 0; k < gp->send_cnt[s]; k++)
         buf[k] = x[idx[k]];
      MPI_Isend(buf, gp->send_cnt[s], MPI_DOUBLE, gp->send_rank[s], 11, comm,
                &gp->req[nr++]);
   }
   MPI_Waitall(nr, gp->req, MPI_STATUSES_IGNORE);
}

static void ghost_plan_free(ghost_plan *gp)
{
   free(gp->recv_rank);
   free(gp->recv_cnt);
   free(gp->recv_off);
   free(gp->send_rank);
   free(gp->send_cnt);
   free(gp->send_off);
   free(gp->send_idx);
   free(gp->sendbuf);
   free(gp->req);
}

/* Sum over ranks of this plan's per-exchange bytes and messages, to rank 0. */
static void ghost_plan_totals(const ghost_plan *gp, MPI_Comm comm, long *bytes, long *msgs)
{
   long loc[2] = {8L * gp->send_total, gp->nsend}, tot[2];
   MPI_Reduce(loc, tot, 2, MPI_LONG, MPI_SUM, 0, comm);
   *bytes = tot[0];
   *msgs = tot[1];
}

#endif /* VALIDATION_GHOST_H */
/* SPDX-License-Identifier: GPL-2.0-or-later */
