#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs the Debian packages cats builds, tests and runs with.
set -eu
export DEBIAN_FRONTEND=noninteractive
need=""
for p in build-essential autoconf automake pkg-config valgrind zlib1g-dev \
         libelf-dev libcapstone-dev libmetis-dev metis libjansson-dev openmpi-bin libopenmpi-dev libdwarf-dev gfortran g++ python3 chromium; do
   dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need="$need $p"
done
# Node.js for the viewer tests; a machine may have it from elsewhere
# (a nodejs package that bundles npm), so only the command counts.
command -v npm >/dev/null 2>&1 || need="$need nodejs npm"
if [ -n "$need" ]; then
   apt-get update -qq
   apt-get install -y -qq $need >/dev/null
fi
# playwright-core drives Debian's chromium in tests/test_view.py; installed
# from tests/node/package-lock.json into tests/node/node_modules.
top=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -d "$top/tests/node/node_modules/playwright-core" ]; then
   npm ci --prefix "$top/tests/node" --no-audit --no-fund >/dev/null
fi
