#!/bin/sh
# The first README command: installs the dependencies, builds and installs
# cats, then traces the bundled example and prints its summary.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/scripts/install-deps.sh"
sh "$top/scripts/build.sh" --prefix=/usr
make -s -C "$top/build" install
work=$(mktemp -d)
gcc -O2 -g -I"$top/cats" "$top/examples/heat.c" -o "$work/heat"
cd "$work"
valgrind --tool=cats --cats-out-file="$work/heat.cats" ./heat
cats stat "$work/heat.cats"
cats vcg "$work/heat.cats"
echo "trace: $work/heat.cats (try: cats dump $work/heat.cats)"
