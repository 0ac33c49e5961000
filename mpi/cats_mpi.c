/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cats_mpi.c: libcats-mpi's state, set-up and tear-down, and the
 * MPI_Pcontrol region marker (see cats_mpi.h).
 *
 * The library is preloaded (LD_PRELOAD) into every rank: its MPI_*
 * definitions come before libmpi's, do the real work through PMPI_* and
 * count what was sent. Nothing is counted before MPI_Init or after
 * MPI_Finalize, and the library's own traffic runs on a private duplicate
 * of MPI_COMM_WORLD that never goes through the wrappers. The
 * point-to-point wrappers are in cats_mpi_p2p.c.
 *
 * Build and use (Open MPI forwards LD_PRELOAD and CATS_MPI_OUT to remote
 * nodes only with -x; ranks forked on the local node inherit them anyway):
 *
 *   cd mpi && mpicc -std=c11 -O2 -fPIC -shared -o libcats-mpi.so cats_mpi*.c
 *   mpirun -np 4 -x LD_PRELOAD=/path/to/libcats-mpi.so \
 *          -x CATS_MPI_OUT=$PWD/app.json ./app
 *
 * Without CATS_MPI_OUT rank 0 writes cats-mpi.<N>.json in its current
 * directory. As root Open MPI also wants --allow-run-as-root (or
 * OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1). */
#define _POSIX_C_SOURCE 200809L

#include "cats_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

CMPI_HIDDEN struct cmpi_state cmpi = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* ------------------------------------------------------------------ */
/* Counting                                                            */
/* ------------------------------------------------------------------ */

uint64_t cmpi_type_bytes(int count, MPI_Datatype type)
{
   int size = 0;
   if (count <= 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS ||
       size == MPI_UNDEFINED || size <= 0)
      return 0;
   return (uint64_t)count * (uint64_t)size;
}

void cmpi_count_collective(enum cmpi_kind kind, int count_call, uint64_t share)
{
   pthread_mutex_lock(&cmpi.lock);
   struct cmpi_counters *sets[2] = { &cmpi.whole, &cmpi.region };
   for (int i = 0; i < (cmpi.in_region ? 2 : 1); i++) {
      sets[i]->calls[kind] += count_call ? 1 : 0;
      sets[i]->bytes[kind] += share;
   }
   pthread_mutex_unlock(&cmpi.lock);
}

/* ------------------------------------------------------------------ */
/* Set-up and tear-down                                                */
/* ------------------------------------------------------------------ */

static void cmpi_set_program(char **argv)
{
   if (argv && argv[0] && argv[0][0]) {
      snprintf(cmpi.program, sizeof cmpi.program, "%s", argv[0]);
      return;
   }
   ssize_t n = readlink("/proc/self/exe", cmpi.program, sizeof cmpi.program - 1);
   cmpi.program[n > 0 ? n : 0] = '\0';
}

static void cmpi_free_counters(void)
{
   free(cmpi.whole.row);
   free(cmpi.region.row);
   memset(&cmpi.whole, 0, sizeof cmpi.whole);
   memset(&cmpi.region, 0, sizeof cmpi.region);
}

/* After PMPI_Init: the private communicator, the world group, the keyval
 * and the counters. Every rank agrees on success, because the report at
 * MPI_Finalize is collective; on failure the program runs unmeasured. */
static void cmpi_setup(char **argv)
{
   cmpi_set_program(argv);
   if (PMPI_Comm_dup(MPI_COMM_WORLD, &cmpi.comm) != MPI_SUCCESS) {
      fprintf(stderr, "libcats-mpi: cannot duplicate MPI_COMM_WORLD; "
              "not measuring\n");
      return;
   }
   /* our own calls report errors instead of aborting the program */
   PMPI_Comm_set_errhandler(cmpi.comm, MPI_ERRORS_RETURN);
   int ok = PMPI_Comm_rank(MPI_COMM_WORLD, &cmpi.world_rank) == MPI_SUCCESS &&
            PMPI_Comm_size(MPI_COMM_WORLD, &cmpi.world_size) == MPI_SUCCESS &&
            PMPI_Comm_group(MPI_COMM_WORLD, &cmpi.world_group) == MPI_SUCCESS;
   if (ok && cmpi_p2p_setup() != 0)
      ok = 0;
   if (ok) {
      cmpi.whole.row = calloc((size_t)cmpi.world_size, sizeof(uint64_t));
      cmpi.region.row = calloc((size_t)cmpi.world_size, sizeof(uint64_t));
      ok = cmpi.whole.row && cmpi.region.row;
   }
   int all_ok = 0;
   if (PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, cmpi.comm) != MPI_SUCCESS)
      all_ok = 0;
   if (!all_ok) {
      if (!ok)
         fprintf(stderr, "libcats-mpi: cannot set up on rank %d; "
                 "not measuring\n", cmpi.world_rank);
      cmpi_free_counters();
      return;   /* the duplicate and the rest are freed by PMPI_Finalize */
   }
   cmpi.active = 1;
}

static void cmpi_teardown(void)
{
   pthread_mutex_lock(&cmpi.lock);
   cmpi.active = 0;
   cmpi_free_counters();
   pthread_mutex_unlock(&cmpi.lock);
   cmpi_p2p_teardown();
   PMPI_Group_free(&cmpi.world_group);
   PMPI_Comm_free(&cmpi.comm);
}

/* ------------------------------------------------------------------ */
/* Wrappers: environment and region marker                             */
/* ------------------------------------------------------------------ */

void cmpi_started(char **argv)
{
   cmpi_setup(argv);
}

void cmpi_finishing(void)
{
   if (cmpi.active) {
      cmpi_report();
      cmpi_teardown();
   }
}

/* Level >= 1 opens the region (an iteration, unless one is open), 0
 * closes it; negative levels mean nothing to us. */
void cmpi_pcontrol(int level)
{
   if (cmpi.active && level >= 0) {
      pthread_mutex_lock(&cmpi.lock);
      if (level >= 1) {
         cmpi.region_used = 1;
         if (!cmpi.in_region)
            cmpi.iterations++;
         cmpi.in_region = 1;
      } else {
         cmpi.in_region = 0;
      }
      pthread_mutex_unlock(&cmpi.lock);
   }
}

int MPI_Init(int *argc, char ***argv)
{
   int rc = PMPI_Init(argc, argv);
   if (rc == MPI_SUCCESS)
      cmpi_started(argv ? *argv : NULL);
   return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
   int rc = PMPI_Init_thread(argc, argv, required, provided);
   if (rc == MPI_SUCCESS)
      cmpi_started(argv ? *argv : NULL);
   return rc;
}

int MPI_Finalize(void)
{
   cmpi_finishing();
   return PMPI_Finalize();
}

int MPI_Pcontrol(const int level, ...)
{
   cmpi_pcontrol(level);
   return PMPI_Pcontrol(level);
}

