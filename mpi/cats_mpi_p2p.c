/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cats_mpi_p2p.c: libcats-mpi's point-to-point wrappers: bytes = count x
 * type size per destination, in MPI_COMM_WORLD ranks whatever the
 * communicator, MPI_PROC_NULL and sends to self left out, persistent
 * sends counted at each start (see cats_mpi.h). */
#define _POSIX_C_SOURCE 200809L

#include "cats_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Both sets of counters are kept so the choice between the whole run and
 * the MPI_Pcontrol region can be made at the end. Caller holds the lock. */
static void cmpi_add_sent(int world_dest, uint64_t bytes)
{
   cmpi.whole.row[world_dest] += bytes;
   if (cmpi.in_region)
      cmpi.region.row[world_dest] += bytes;
}

/* ------------------------------------------------------------------ */
/* Rank translation                                                    */
/* ------------------------------------------------------------------ */

/* The MPI_COMM_WORLD ranks of a communicator's ranks, cached on the
 * communicator as an attribute: MPI frees it with the communicator, so a
 * freed and reused handle can never find a stale table. */
struct cmpi_ranks {
   int n;          /* ranks in the (remote) group */
   int world[];    /* world rank of each, -1 if not in MPI_COMM_WORLD */
};

static int cmpi_free_ranks(MPI_Comm comm, int keyval, void *val, void *extra)
{
   (void)comm;
   (void)keyval;
   (void)extra;
   free(val);
   return MPI_SUCCESS;
}

/* Builds and attaches the table of COMM; NULL on failure. Destinations of
 * an intercommunicator are ranks of its remote group. */
static struct cmpi_ranks *cmpi_translate(MPI_Comm comm)
{
   int inter = 0, n = 0;
   MPI_Group group;
   if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
      return NULL;
   if ((inter ? PMPI_Comm_remote_group(comm, &group)
              : PMPI_Comm_group(comm, &group)) != MPI_SUCCESS)
      return NULL;
   struct cmpi_ranks *t = NULL;
   int *in = NULL;
   if (PMPI_Group_size(group, &n) != MPI_SUCCESS || n <= 0)
      goto out;
   t = malloc(sizeof *t + (size_t)n * sizeof t->world[0]);
   in = malloc((size_t)n * sizeof *in);
   if (!t || !in)
      goto fail;
   t->n = n;
   for (int i = 0; i < n; i++)
      in[i] = i;
   if (PMPI_Group_translate_ranks(group, n, in, cmpi.world_group,
                                  t->world) != MPI_SUCCESS)
      goto fail;
   for (int i = 0; i < n; i++)
      if (t->world[i] == MPI_UNDEFINED || t->world[i] < 0 ||
          t->world[i] >= cmpi.world_size)
         t->world[i] = -1;
   if (PMPI_Comm_set_attr(comm, cmpi.keyval, t) != MPI_SUCCESS)
      goto fail;
   goto out;
fail:
   free(t);
   t = NULL;
out:
   free(in);
   PMPI_Group_free(&group);
   return t;
}

/* World rank of rank R of COMM, or -1. Caller holds the lock. */
static int cmpi_world_of(MPI_Comm comm, int r)
{
   if (comm == MPI_COMM_WORLD)
      return r >= 0 && r < cmpi.world_size ? r : -1;
   void *val = NULL;
   int found = 0;
   if (PMPI_Comm_get_attr(comm, cmpi.keyval, &val, &found) != MPI_SUCCESS)
      return -1;
   const struct cmpi_ranks *t = found ? val : cmpi_translate(comm);
   if (!t || r < 0 || r >= t->n)
      return -1;
   return t->world[r];
}

/* World destination of a send, or -1 when it is not communication:
 * MPI_PROC_NULL, the sender itself, or a rank outside MPI_COMM_WORLD.
 * Caller holds the lock. */
static int cmpi_dest_of(MPI_Comm comm, int dest)
{
   if (dest == MPI_PROC_NULL)
      return -1;
   int w = cmpi_world_of(comm, dest);
   return w == cmpi.world_rank ? -1 : w;
}

/* Counts one send of COUNT elements of TYPE to rank DEST of COMM. */
void cmpi_p2p(MPI_Comm comm, int dest, int count, MPI_Datatype type)
{
   if (!cmpi.active || dest == MPI_PROC_NULL)
      return;
   uint64_t bytes = cmpi_type_bytes(count, type);
   pthread_mutex_lock(&cmpi.lock);
   int w = cmpi_dest_of(comm, dest);
   if (w >= 0)
      cmpi_add_sent(w, bytes);
   pthread_mutex_unlock(&cmpi.lock);
}

/* ------------------------------------------------------------------ */
/* Persistent sends                                                    */
/* ------------------------------------------------------------------ */

/* A persistent send request and what each MPI_Start of it sends, in a
 * small chained hash table: codes start the same few requests every time
 * step, so lookups must not scan a list. */
struct cmpi_persistent {
   MPI_Request req;
   int world_dest;                /* counted destination */
   uint64_t bytes;                /* bytes per start */
   struct cmpi_persistent *next;
};

#define CMPI_PBUCKETS 256
static struct cmpi_persistent *cmpi_pers[CMPI_PBUCKETS];

/* MPI_Request is a pointer in Open MPI and an int in MPICH: hash its bytes. */
static unsigned cmpi_req_hash(MPI_Request req)
{
   uint64_t k = 0;
   memcpy(&k, &req, sizeof req < sizeof k ? sizeof req : sizeof k);
   return (unsigned)((k * 0x9E3779B97F4A7C15ull) >> 56) % CMPI_PBUCKETS;
}

static void cmpi_persistent_add(MPI_Comm comm, int dest, int count,
                                MPI_Datatype type, MPI_Request req)
{
   if (!cmpi.active || dest == MPI_PROC_NULL)
      return;
   uint64_t bytes = cmpi_type_bytes(count, type);
   pthread_mutex_lock(&cmpi.lock);
   int w = cmpi_dest_of(comm, dest);
   if (w >= 0) {
      struct cmpi_persistent *p = malloc(sizeof *p);
      if (!p) {
         fprintf(stderr, "libcats-mpi: out of memory: a persistent send "
                 "is not counted\n");
      } else {
         unsigned h = cmpi_req_hash(req);
         *p = (struct cmpi_persistent){ req, w, bytes, cmpi_pers[h] };
         cmpi_pers[h] = p;
      }
   }
   pthread_mutex_unlock(&cmpi.lock);
}

/* Counts one start of REQ if it is a persistent send we know. Caller
 * holds the lock. */
static void cmpi_persistent_start(MPI_Request req)
{
   for (struct cmpi_persistent *p = cmpi_pers[cmpi_req_hash(req)]; p;
        p = p->next)
      if (p->req == req) {
         cmpi_add_sent(p->world_dest, p->bytes);
         return;
      }
}

static void cmpi_persistent_remove(MPI_Request req)
{
   pthread_mutex_lock(&cmpi.lock);
   for (struct cmpi_persistent **pp = &cmpi_pers[cmpi_req_hash(req)]; *pp;
        pp = &(*pp)->next)
      if ((*pp)->req == req) {
         struct cmpi_persistent *dead = *pp;
         *pp = dead->next;
         free(dead);
         break;
      }
   pthread_mutex_unlock(&cmpi.lock);
}

/* ------------------------------------------------------------------ */
/* Set-up and tear-down                                                */
/* ------------------------------------------------------------------ */

int cmpi_p2p_setup(void)
{
   return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cmpi_free_ranks,
                                  &cmpi.keyval, NULL) == MPI_SUCCESS ? 0 : -1;
}

/* Tables still attached to communicators the program did not free are
 * freed by MPI, which calls cmpi_free_ranks even after the keyval is. */
void cmpi_p2p_teardown(void)
{
   pthread_mutex_lock(&cmpi.lock);
   for (int b = 0; b < CMPI_PBUCKETS; b++)
      while (cmpi_pers[b]) {
         struct cmpi_persistent *dead = cmpi_pers[b];
         cmpi_pers[b] = dead->next;
         free(dead);
      }
   pthread_mutex_unlock(&cmpi.lock);
   PMPI_Comm_free_keyval(&cmpi.keyval);
}

/* ------------------------------------------------------------------ */
/* Wrappers: point-to-point                                            */
/* ------------------------------------------------------------------ */

/* Sends are counted once the call succeeded, nonblocking ones when they
 * start (a later cancel is not subtracted). */

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest,
             int tag, MPI_Comm comm)
{
   int rc = PMPI_Send(buf, count, type, dest, tag, comm);
   if (rc == MPI_SUCCESS)
      cmpi_p2p(comm, dest, count, type);
   return rc;
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest,
              int tag, MPI_Comm comm)
{
   int rc = PMPI_Ssend(buf, count, type, dest, tag, comm);
   if (rc == MPI_SUCCESS)
      cmpi_p2p(comm, dest, count, type);
   return rc;
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest,
              int tag, MPI_Comm comm)
{
   int rc = PMPI_Bsend(buf, count, type, dest, tag, comm);
   if (rc == MPI_SUCCESS)
      cmpi_p2p(comm, dest, count, type);
   return rc;
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest,
              int tag, MPI_Comm comm)
{
   int rc = PMPI_Rsend(buf, count, type, dest, tag, comm);
   if (rc == MPI_SUCCESS)
      cmpi_p2p(comm, dest, count, type);
   return rc;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest,
              int tag, MPI_Comm comm, MPI_Request *req)
{
   int rc = PMPI_Isend(buf, count, type, dest, tag, comm, req);
   if (rc == MPI_SUCCESS)
      cmpi_p2p(comm, dest, count, type);
   return rc;
}

int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest,
               int tag, MPI_Comm comm, MPI_Request *req)
{
   int rc = PMPI_Issend(buf, count, type, dest, tag, comm, req);
   if (rc == MPI_SUCCESS)
      cmpi_p2p(comm, dest, count, type);
   return rc;
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype type, int dest,
               int tag, MPI_Comm comm, MPI_Request *req)
{
   int rc = PMPI_Ibsend(buf, count, type, dest, tag, comm, req);
   if (rc == MPI_SUCCESS)
      cmpi_p2p(comm, dest, count, type);
   return rc;
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype type, int dest,
               int tag, MPI_Comm comm, MPI_Request *req)
{
   int rc = PMPI_Irsend(buf, count, type, dest, tag, comm, req);
   if (rc == MPI_SUCCESS)
      cmpi_p2p(comm, dest, count, type);
   return rc;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 int dest, int sendtag, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
   int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag,
                          recvbuf, recvcount, recvtype, source, recvtag,
                          comm, status);
   if (rc == MPI_SUCCESS)
      cmpi_p2p(comm, dest, sendcount, sendtype);
   return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest,
                         int sendtag, int source, int recvtag, MPI_Comm comm,
                         MPI_Status *status)
{
   int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source,
                                  recvtag, comm, status);
   if (rc == MPI_SUCCESS)
      cmpi_p2p(comm, dest, count, type);
   return rc;
}

/* Persistent sends count nothing when set up, and their bytes at each
 * MPI_Start/MPI_Startall. */

int MPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest,
                  int tag, MPI_Comm comm, MPI_Request *req)
{
   int rc = PMPI_Send_init(buf, count, type, dest, tag, comm, req);
   if (rc == MPI_SUCCESS)
      cmpi_persistent_add(comm, dest, count, type, *req);
   return rc;
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype type, int dest,
                   int tag, MPI_Comm comm, MPI_Request *req)
{
   int rc = PMPI_Ssend_init(buf, count, type, dest, tag, comm, req);
   if (rc == MPI_SUCCESS)
      cmpi_persistent_add(comm, dest, count, type, *req);
   return rc;
}

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype type, int dest,
                   int tag, MPI_Comm comm, MPI_Request *req)
{
   int rc = PMPI_Bsend_init(buf, count, type, dest, tag, comm, req);
   if (rc == MPI_SUCCESS)
      cmpi_persistent_add(comm, dest, count, type, *req);
   return rc;
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype type, int dest,
                   int tag, MPI_Comm comm, MPI_Request *req)
{
   int rc = PMPI_Rsend_init(buf, count, type, dest, tag, comm, req);
   if (rc == MPI_SUCCESS)
      cmpi_persistent_add(comm, dest, count, type, *req);
   return rc;
}

int MPI_Start(MPI_Request *req)
{
   int rc = PMPI_Start(req);
   if (rc == MPI_SUCCESS && cmpi.active) {
      pthread_mutex_lock(&cmpi.lock);
      cmpi_persistent_start(*req);
      pthread_mutex_unlock(&cmpi.lock);
   }
   return rc;
}

int MPI_Startall(int count, MPI_Request reqs[])
{
   int rc = PMPI_Startall(count, reqs);
   if (rc == MPI_SUCCESS && cmpi.active) {
      pthread_mutex_lock(&cmpi.lock);
      for (int i = 0; i < count; i++)
         cmpi_persistent_start(reqs[i]);
      pthread_mutex_unlock(&cmpi.lock);
   }
   return rc;
}

/* The handle is forgotten before MPI frees it, since MPI may hand the same
 * value out again for a request we must not mistake for this one. */
int MPI_Request_free(MPI_Request *req)
{
   if (cmpi.active && req && *req != MPI_REQUEST_NULL)
      cmpi_persistent_remove(*req);
   return PMPI_Request_free(req);
}
