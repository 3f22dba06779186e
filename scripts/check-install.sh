#!/usr/bin/env bash
# Installs a configured portasolve build into a scratch prefix, then builds and
# runs tests/install/as_library (a project of its own that find_package()s
# portasolve and calls every solver) against that prefix.
#   scripts/check-install.sh BUILD_DIR [SCRATCH_DIR]
# Exit 0 only when the install, the consumer's build and its checks pass.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:?usage: scripts/check-install.sh BUILD_DIR [SCRATCH_DIR]}
scratch=${2:-$(mktemp -d)}
[ -f "$build/CMakeCache.txt" ] || { echo "check-install: $build is not a configured build folder" >&2; exit 2; }
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }

mkdir -p "$scratch"
prefix=$scratch/prefix
rm -rf "$prefix" "$scratch/consumer"
cmake --install "$build" --prefix "$prefix" > "$scratch/install.log"
echo "check-install: installed into $prefix ($(find "$prefix" -type f | wc -l) files)"
# The consumer uses the same compiler; Kokkos is found through the hint the
# installed package config carries.
cmake -S "$repo/tests/install/as_library" -B "$scratch/consumer" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$(cache_value CMAKE_CXX_COMPILER)" > "$scratch/consumer-configure.log"
cmake --build "$scratch/consumer" > "$scratch/consumer-build.log" ||
  { cat "$scratch/consumer-build.log" >&2; exit 1; }
"$scratch/consumer/as_library"
echo "check-install: the installed package builds and runs a consumer"
