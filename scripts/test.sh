#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The second README command: installs the dependencies, builds cats in
# ./build and runs the whole test suite against the uninstalled tool.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/scripts/install-deps.sh"
sh "$top/scripts/build.sh"
make -s -C "$top/build" check
