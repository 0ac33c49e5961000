#!/bin/sh
# check_checksums.sh [BUILDDIR]: build the validation pairs (into BUILDDIR,
# or a temporary directory), run every serial version and every MPI
# version at N = 2, 4, 8, and check that
#   - the MPI checksum line (the last line of stdout) is identical to the
#     serial one, as validate.py requires (checksum.h makes the sums
#     order-independent); on a mismatch the numbers are also compared
#     with a tolerance (SUM and WSUM to 1e-12 * 7 * ASUM, other numbers
#     1e-12 relative) to tell rounding noise from a real error;
#   - the communication plan the MPI version reports (bytes per
#     iteration, summed over all ranks) equals the hand-derived value in
#     README.md.
# Exit status 0 when everything passes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 1 ]; then
   bin=$1
else
   bin=$(mktemp -d /tmp/cats-validation.XXXXXX)
   trap 'rm -rf "$bin"' EXIT
fi
sh "$here/build.sh" "$bin" >/dev/null || { echo "FAIL: build"; exit 1; }

mpirun_flags="--oversubscribe"
[ "$(id -u)" = 0 ] && mpirun_flags="$mpirun_flags --allow-run-as-root"

# expected plan bytes per iteration at N = 2 4 8 (README.md)
expected() {
   case $1 in
      matmul | matmul_p2p) echo "18432 36864 73728" ;;
      spmv) echo "21016 40528 56176" ;;
      heat2d) echo "1024 2048 4096" ;;
      stencil3d) echo "6400 12800 19200" ;;
      mesh) echo "656 1344 2720" ;;
      solver) echo "1024 2048 4096" ;;
   esac
}

# compare "REF" and "GOT" checksum lines; prints a reason and fails on mismatch
compare() {
   awk -v ref="$1" -v got="$2" 'BEGIN {
      nr = split(ref, r, " "); ng = split(got, g, " ")
      for (c = 1; c <= nr && r[c] != "checksum"; c++) ;
      if (c > nr || nr != ng) { print "malformed or differing lines"; exit 1 }
      for (i = 1; i <= c; i++)
         if (r[i] != g[i]) { print "header differs: " r[i] " vs " g[i]; exit 1 }
      asum = r[c + 3]; if (asum < 0) asum = -asum
      for (i = c + 1; i <= nr; i++) {
         a = r[i] + 0; b = g[i] + 0; d = a - b; if (d < 0) d = -d
         k = i - c
         if (k <= 2) tol = 1e-12 * 7 * asum
         else { tol = (a < 0 ? -a : a); tol = 1e-12 * tol }
         if (d > tol) { printf "field %d: %s vs %s (|diff| %g > %g)\n", k, r[i], g[i], d, tol; exit 1 }
      }
   }'
}

fail=0
for k in matmul spmv heat2d stencil3d mesh solver; do
   ref=$("$bin/${k}_serial" | tail -n 1)
   if [ -z "$ref" ]; then
      echo "FAIL $k serial: no checksum line"
      fail=1
      continue
   fi
   echo "$k serial: $ref"
   variants=${k}_mpi
   [ $k = matmul ] && variants="matmul_mpi matmul_mpi_p2p"
   for v in $variants; do
      case $v in
         matmul_mpi_p2p) set -- $(expected matmul_p2p) ;;
         *) set -- $(expected $k) ;;
      esac
      for N in 2 4 8; do
         want=$1
         shift
         outp=$(mpirun $mpirun_flags -np $N "$bin/$v" 2>&1)
         got=$(printf '%s\n' "$outp" | grep -v '^plan' | tail -n 1)
         plan=$(printf '%s\n' "$outp" | grep '^plan')
         bytes=$(printf '%s\n' "$plan" | sed -n 's/.*bytes_per_iter=\([0-9]*\).*/\1/p')
         if [ "$got" != "$ref" ]; then
            if why=$(compare "$ref" "$got"); then
               why="lines differ, numbers within rounding tolerance"
            fi
            echo "FAIL $v N=$N: $why"
            printf '%s\n' "$outp" | sed 's/^/    /'
            fail=1
         elif [ "$bytes" != "$want" ]; then
            echo "FAIL $v N=$N: plan bytes/iter $bytes, README says $want"
            fail=1
         else
            echo "  ok $v N=$N  ($plan)"
         fi
      done
   done
done
if [ $fail = 0 ]; then
   echo "PASS: all checksum lines identical, all plans as in README.md"
else
   echo "FAILED"
fi
exit $fail
# SPDX-License-Identifier: GPL-2.0-or-later
