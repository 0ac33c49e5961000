#!/bin/sh
# build.sh OUTDIR: compile the validation pairs into OUTDIR.
#   <kernel>_serial      gcc -O2 -g     (run under valgrind --tool=cats)
#   <kernel>_mpi         mpicc -O2 -g   (run under mpirun, measured by PMPI;
#                        matmul with -DMATMUL_ROWS: 1-D row blocks)
#   matmul_mpi_summa     matmul_mpi.c on a 2-D grid (SUMMA), reported apart
#   matmul_mpi_p2p       matmul_mpi.c with -DUSE_P2P: flat point-to-point
#                        panel broadcasts instead of MPI_Bcast
# CC, MPICC and CFLAGS can be overridden from the environment; extra
# arguments after OUTDIR are passed to both compilers (e.g. -DHEAT_N=128).
set -eu
if [ $# -lt 1 ]; then
   echo "usage: $0 OUTDIR [extra compiler flags]" >&2
   exit 2
fi
out=$1
shift
src=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-gcc}
MPICC=${MPICC:-mpicc}
CFLAGS=${CFLAGS:--O2 -g}
mkdir -p "$out"
for k in matmul spmv heat2d stencil3d mesh solver; do
   $CC -std=c11 $CFLAGS -Wall -I"$src" -I"$src/../../cats" "$@" -o "$out/${k}_serial" "$src/${k}_serial.c" -lm
   extra=""
   [ "$k" = matmul ] && extra=-DMATMUL_ROWS   # 1-D row blocks; SUMMA below
   $MPICC $CFLAGS -Wall -I"$src" $extra "$@" -o "$out/${k}_mpi" "$src/${k}_mpi.c" -lm
done
$MPICC $CFLAGS -Wall -I"$src" "$@" -o "$out/matmul_mpi_summa" "$src/matmul_mpi.c" -lm
$MPICC $CFLAGS -Wall -I"$src" -DUSE_P2P "$@" -o "$out/matmul_mpi_p2p" "$src/matmul_mpi.c" -lm
echo "built into $out"
# SPDX-License-Identifier: GPL-2.0-or-later
