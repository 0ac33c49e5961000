#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The first README command: installs the dependencies, builds and installs
# cats, then traces the bundled example, prints its summary, its value
# communication graph and the projected MPI communication for 2-64 ranks.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/scripts/install-deps.sh"
sh "$top/scripts/build.sh" --prefix=/usr
make -s -C "$top/build" install
work=$(mktemp -d)
gcc -O2 -g -I"$top/cats" "$top/examples/heat.c" -o "$work/heat"
cd "$work"
valgrind --tool=cats --cats-out-file="$work/heat.cats" --ranks=2,4,8,16,32,64 ./heat
cats stat "$work/heat.cats"
cats vcg "$work/heat.cats"
echo "trace: $work/heat.cats (try: cats dump $work/heat.cats,"
echo "       cats project $work/heat.cats --ranks=4 --json proj.json)"
