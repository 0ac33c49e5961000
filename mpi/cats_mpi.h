/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cats_mpi.h: internal interface of libcats-mpi, the PMPI profiling
 * library that measures the communication of a real MPI run and writes it
 * as the JSON of docs/COMM-JSON.md (kind "measured").
 *
 *   cats_mpi.c       state, MPI_Init/MPI_Finalize/MPI_Pcontrol, counters
 *   cats_mpi_p2p.c   point-to-point wrappers, rank translation,
 *                    persistent requests
 *   cats_mpi_coll.c  collective wrappers and their byte formulas (a table)
 *   cats_mpi_json.c  gathering the counters to rank 0 and writing the file
 *   cats_mpi_fortran.c  the same for Fortran programs (mpif.h and the mpi
 *                    module), whose bindings call PMPI_* directly
 *
 * Only the MPI_* wrappers are exported; everything here is hidden so the
 * library cannot clash with the program's own symbols. */
#ifndef CATS_MPI_H
#define CATS_MPI_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#define CMPI_HIDDEN __attribute__((visibility("hidden")))

/* Collective types as COMM-JSON.md names them; the v and nonblocking
 * variants are counted under the plain type. */
enum cmpi_kind {
   CMPI_BROADCAST,
   CMPI_REDUCE,
   CMPI_ALLREDUCE,
   CMPI_GATHER,
   CMPI_SCATTER,
   CMPI_ALLGATHER,
   CMPI_ALLTOALL,
   CMPI_REDUCE_SCATTER,
   CMPI_BARRIER,
   CMPI_NKINDS
};

/* One set of counters. Each rank counts what it sent point-to-point and
 * its own share of the collective bytes; the shares add up to the totals
 * of COMM-JSON.md when summed over the ranks (see cats_mpi_coll.c). */
struct cmpi_counters {
   uint64_t *row;                 /* bytes sent to each MPI_COMM_WORLD rank */
   uint64_t calls[CMPI_NKINDS];   /* calls this rank counts (rank 0 of the comm) */
   uint64_t bytes[CMPI_NKINDS];   /* this rank's share of the bytes moved */
};

/* The state of the process. Written under `lock` once MPI is up, since
 * the program may call MPI from several threads (MPI_THREAD_MULTIPLE). */
struct cmpi_state {
   int active;                    /* MPI_Init went through us and set up */
   int world_rank, world_size;
   MPI_Comm comm;                 /* private dup of MPI_COMM_WORLD: our traffic */
   MPI_Group world_group;         /* for MPI_Group_translate_ranks */
   int keyval;                    /* attribute caching a comm's world ranks */
   int in_region;                 /* between MPI_Pcontrol(>=1) and (0) */
   int region_used;               /* MPI_Pcontrol(>=1) was called at all */
   uint64_t iterations;           /* region entries on this rank */
   struct cmpi_counters whole;    /* MPI_Init .. MPI_Finalize */
   struct cmpi_counters region;   /* inside MPI_Pcontrol regions only */
   char program[4096];            /* argv[0] or /proc/self/exe */
   pthread_mutex_t lock;
};

CMPI_HIDDEN extern struct cmpi_state cmpi;

/* JSON name of a collective type. */
CMPI_HIDDEN extern const char *const cmpi_kind_names[CMPI_NKINDS];

/* Bytes of COUNT elements of TYPE (0 for an invalid count or type). */
CMPI_HIDDEN uint64_t cmpi_type_bytes(int count, MPI_Datatype type);

/* Adds one collective call with this rank's share of bytes to the
 * counters in effect. Takes the lock. */
CMPI_HIDDEN void cmpi_count_collective(enum cmpi_kind kind, int count_call,
                                       uint64_t share);

/* The wrapped functions; the nonblocking ones share their blocking
 * sibling's entry. */
enum cmpi_op {
   CMPI_OP_BARRIER,
   CMPI_OP_BCAST,
   CMPI_OP_REDUCE,
   CMPI_OP_ALLREDUCE,
   CMPI_OP_GATHER,
   CMPI_OP_GATHERV,
   CMPI_OP_SCATTER,
   CMPI_OP_SCATTERV,
   CMPI_OP_ALLGATHER,
   CMPI_OP_ALLGATHERV,
   CMPI_OP_ALLTOALL,
   CMPI_OP_ALLTOALLV,
   CMPI_OP_REDUCE_SCATTER,
   CMPI_OP_REDUCE_SCATTER_BLOCK,
   CMPI_NOPS
};

/* Counts one successful call of OP on COMM. COUNT or COUNTS (per rank of
 * COMM) are elements of TYPE (cats_mpi_coll.c). */
CMPI_HIDDEN void cmpi_coll(enum cmpi_op op, MPI_Comm comm, int root, int count,
                           const int counts[], MPI_Datatype type);

/* Counts one send of COUNT elements of TYPE to rank DEST of COMM
 * (cats_mpi_p2p.c). */
CMPI_HIDDEN void cmpi_p2p(MPI_Comm comm, int dest, int count, MPI_Datatype type);

/* After a successful MPI_Init: set up the counters (argv may be NULL);
 * before MPI_Finalize: report and tear down; MPI_Pcontrol's level
 * (cats_mpi.c). */
CMPI_HIDDEN void cmpi_started(char **argv);
CMPI_HIDDEN void cmpi_finishing(void);
CMPI_HIDDEN void cmpi_pcontrol(int level);

/* Creates the keyval of the rank translation (0, or -1 on failure);
 * frees the persistent-request table and the keyval. */
CMPI_HIDDEN int cmpi_p2p_setup(void);
CMPI_HIDDEN void cmpi_p2p_teardown(void);

/* Gathers the counters to rank 0 of MPI_COMM_WORLD, which writes the
 * JSON file. Collective over cmpi.comm; never aborts the program: a
 * failure prints one line on rank 0's stderr. */
CMPI_HIDDEN void cmpi_report(void);

#endif /* CATS_MPI_H */
