#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Configures and builds cats in ./build (out of tree) and stages the tool in
# build/vglib, so it also runs uninstalled with VALGRIND_LIB=build/vglib.
# Arguments go to configure (the first time only).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ -x configure ] || autoreconf -fi
mkdir -p build
cd build
[ -f Makefile ] || ../configure -q "$@"
make -s -j"$(nproc)"
