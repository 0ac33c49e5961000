#!/bin/sh
# Installs the Debian packages cats builds, tests and runs with.
set -eu
export DEBIAN_FRONTEND=noninteractive
need=""
for p in build-essential autoconf automake pkg-config valgrind zlib1g-dev \
         libelf-dev libcapstone-dev libmetis-dev metis libjansson-dev openmpi-bin libopenmpi-dev libdwarf-dev gfortran g++ python3; do
   dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
   apt-get update -qq
   apt-get install -y -qq $need >/dev/null
fi
