#!/usr/bin/env bash
# Checks portasolve against a given Kokkos + Kokkos Kernels release (not the
# bootstrap's 3.4.01): builds and installs them into a cache outside the
# repository (reused when present), configures portasolve against them in
# build/kokkos-<version>-<backend>[-<arch>], builds it, and for openmp runs the
# whole ctest suite (hip and cuda are compile-only: no such GPU here). Ends with
# a one-line summary and the time of each step.
#
#   scripts/check-kokkos.sh [--kokkos-source DIR_OR_TARBALL]
#                           [--kernels-source DIR_OR_TARBALL]
#                           [--backend openmp|hip|cuda] [--arch ARCH]
#                           [--jobs N] [--force] [--libraries-only]
#
# Sources default to the release tarballs in ../shared/deps (beside the
# repository) when present. --arch is a Kokkos_ARCH_ suffix (hip: AMD_GFX90A by
# default, cuda: HOPPER90). Patches for one release live in
# scripts/patches/kokkos-<version>/ and scripts/patches/kokkos-kernels-<version>/
# (first line: the reason), applied to that release only. --libraries-only
# builds the solver libraries alone (PORTASOLVE_BUILD_PROGRAM=OFF, no MPI):
# Kokkos, Kokkos Kernels and the backend's toolkit are all it needs, as on a GPU
# node without HDF5's and yaml-cpp's development files.
#
# Environment: PORTASOLVE_DEPS_DIR cache root (default ~/.cache/portasolve/deps);
# the install lands in $PORTASOLVE_DEPS_DIR/kokkos-<version>/<backend>[-<arch>].
set -euo pipefail

script_name=check-kokkos help_lines=2,21
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

shared_deps="$(dirname "$repo_root")/shared/deps"
kokkos_src=""
kernels_src=""
backend=openmp
arch=""
jobs=$(nproc)
force=0
libraries_only=0
source_option() {
  case "$1" in
    --libraries-only) libraries_only=1; taken=1 ;;
    --kokkos-source|--kokkos-source=*) option_value "$@"; kokkos_src=$value ;;
    --kernels-source|--kernels-source=*) option_value "$@"; kernels_src=$value ;;
  esac
}
parse_build_options source_option "$@"

case "$backend" in
  openmp) [ -z "$arch" ] || die "--arch is for hip and cuda only" ;;
  hip) arch=${arch:-AMD_GFX90A}; command -v hipcc > /dev/null || die "backend hip needs hipcc (Debian package hipcc)" ;;
  cuda)
    arch=${arch:-HOPPER90}
    command -v nvcc > /dev/null || [ -x /usr/local/cuda/bin/nvcc ] || die "backend cuda needs nvcc on PATH or in /usr/local/cuda/bin"
    command -v nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH ;;
  *) die "unknown backend '$backend' (allowed: openmp, hip, cuda)" ;;
esac
arch=${arch#Kokkos_ARCH_}

default_source() {  # newest matching tarball in ../shared/deps
  local f
  f=$(ls -1 "$shared_deps"/"$1"-[0-9]*.tar.gz 2> /dev/null | sort -V | tail -n 1 || true)
  [ -n "$f" ] || die "no --$2-source given and no $1-*.tar.gz in $shared_deps"
  echo "$f"
}
[ -n "$kokkos_src" ] || kokkos_src=$(default_source kokkos kokkos)
[ -n "$kernels_src" ] || kernels_src=$(default_source kokkos-kernels kernels)
[ -e "$kokkos_src" ] || die "no such Kokkos source: $kokkos_src"
[ -e "$kernels_src" ] || die "no such Kokkos Kernels source: $kernels_src"
kokkos_src=$(realpath "$kokkos_src")
kernels_src=$(realpath "$kernels_src")

# The top-level CMakeLists.txt of a source folder or tarball.
top_cmakelists() {
  if [ -d "$1" ]; then
    cat "$1/CMakeLists.txt"
  else
    local top
    top=$(tar -tzf "$1" | head -n 1 | cut -d/ -f1)
    tar -xzOf "$1" "$top/CMakeLists.txt"
  fi
}
# MAJOR.MINOR.PATCH (patch two digits, as the releases are named) from
# set(<prefix>_VERSION_MAJOR 4) etc.
release_version() {
  local text major minor patch
  text=$(top_cmakelists "$1")
  major=$(sed -n "s/^ *set *( *$2_VERSION_MAJOR *\([0-9]*\).*/\1/Ip" <<< "$text" | head -n 1)
  minor=$(sed -n "s/^ *set *( *$2_VERSION_MINOR *\([0-9]*\).*/\1/Ip" <<< "$text" | head -n 1)
  patch=$(sed -n "s/^ *set *( *$2_VERSION_PATCH *\([0-9]*\).*/\1/Ip" <<< "$text" | head -n 1)
  [ -n "$major" ] && [ -n "$minor" ] && [ -n "$patch" ] || die "cannot read the $2 version from $1"
  printf '%s.%s.%02d\n' "$major" "$minor" "$((10#$patch))"
}
kokkos_version=$(release_version "$kokkos_src" Kokkos)
kernels_version=$(release_version "$kernels_src" KokkosKernels)

deps_root=${PORTASOLVE_DEPS_DIR:-$HOME/.cache/portasolve/deps}
variant=$backend${arch:+-$arch}
prefix="$deps_root/kokkos-$kokkos_version/$variant"
build_dir="$repo_root/build/kokkos-$kokkos_version-$variant"
kokkos_patches="$repo_root/scripts/patches/kokkos-$kokkos_version"
kernels_patches="$repo_root/scripts/patches/kokkos-kernels-$kernels_version"

# The same choices as scripts/bootstrap.sh: static, C++17, Serial + the
# backend, and no pre-instantiated Kokkos Kernels (portasolve's translation
# units instantiate the calls they make).
kokkos_options=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF
                -DBUILD_SHARED_LIBS=OFF -DKokkos_ENABLE_SERIAL=ON)
case "$backend" in
  openmp) kokkos_options+=(-DKokkos_ENABLE_OPENMP=ON) ;;
  cuda) kokkos_options+=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON "-DKokkos_ARCH_${arch}=ON") ;;
  # rocThrust (on by default for HIP in 4.x, for sorting) is not in Debian 12.
  hip) kokkos_options+=(-DKokkos_ENABLE_HIP=ON "-DKokkos_ARCH_${arch}=ON" -DKokkos_ENABLE_ROCTHRUST=OFF) ;;
esac
kernels_options=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF
                 -DBUILD_SHARED_LIBS=OFF -DKokkosKernels_ADD_DEFAULT_ETI=OFF
                 -DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF
                 -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF)
case "$backend" in
  cuda) kernels_options+=(-DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF
                         -DKokkosKernels_ENABLE_TPL_CUSOLVER=OFF) ;;
  hip) kernels_options+=(-DKokkosKernels_ENABLE_TPL_ROCSPARSE=OFF -DKokkosKernels_ENABLE_TPL_ROCBLAS=OFF) ;;
esac

generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
compiler=g++
case "$backend" in
  hip) compiler=$(command -v hipcc) ;;
  cuda) compiler="$prefix/bin/nvcc_wrapper" ;;  # installed first, see below
esac

patch_files() { [ -d "$1" ] && ls -1 "$1"/*.patch 2> /dev/null || true; }
mapfile -t patches < <(patch_files "$kokkos_patches"; patch_files "$kernels_patches")

stamp_file="$prefix/.portasolve-stamp"
stamp=$( { echo "kokkos $kokkos_version kernels $kernels_version"; echo "${kokkos_options[*]}"
           echo "${kernels_options[*]}"; [ ${#patches[@]} -eq 0 ] || cat "${patches[@]}"; } | sha256sum | cut -d' ' -f1)

t_kokkos=0 t_kernels=0 t_portasolve=0 t_ctest=0
run_logged() {  # LOG WHAT CMD...: output to LOG; its tail and an error on failure
  local log=$1 what=$2
  shift 2
  if ! nice -n 10 "$@" > "$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "check-kokkos: SUMMARY: Kokkos $kokkos_version + Kernels $kernels_version, $variant: FAILED at $what (log: $log)"
    exit 1
  fi
}

if [ "$force" -eq 0 ] && [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ]; then
  say "Kokkos $kokkos_version + Kokkos Kernels $kernels_version ($variant) cached in $prefix"
  cached=1
else
  cached=0
  work="$deps_root/build/kokkos-$kokkos_version-$variant"
  rm -rf "$work" "$prefix"
  mkdir -p "$work/src/kokkos" "$work/src/kokkos-kernels" "$prefix/bin"
  for pair in "kokkos:$kokkos_src" "kokkos-kernels:$kernels_src"; do
    name=${pair%%:*} src=${pair#*:}
    if [ -d "$src" ]; then
      cp -a "$src/." "$work/src/$name/"
    else
      tar -xzf "$src" -C "$work/src/$name" --strip-components=1
    fi
  done
  for p in "${patches[@]}"; do
    say "patch $(basename "$p"): $(head -n 1 "$p" | sed 's/^Reason: //')"
    patch -p1 -s -d "$work/src" < "$p"
  done
  [ "$backend" != cuda ] || install -m 0755 "$work/src/kokkos/bin/nvcc_wrapper" "$prefix/bin/nvcc_wrapper"

  say "building Kokkos $kokkos_version ($variant) into $prefix"
  start=$SECONDS
  run_logged "$work/kokkos-configure.log" "Kokkos configure" \
    cmake -S "$work/src/kokkos" -B "$work/kokkos" "${generator[@]}" \
    -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_INSTALL_PREFIX="$prefix" "${kokkos_options[@]}"
  run_logged "$work/kokkos-build.log" "Kokkos build" cmake --build "$work/kokkos" --parallel "$jobs"
  run_logged "$work/kokkos-install.log" "Kokkos install" cmake --install "$work/kokkos"
  t_kokkos=$((SECONDS - start))
  say "Kokkos built in $t_kokkos s"

  say "building Kokkos Kernels $kernels_version ($variant) into $prefix"
  start=$SECONDS
  run_logged "$work/kernels-configure.log" "Kokkos Kernels configure" \
    cmake -S "$work/src/kokkos-kernels" -B "$work/kernels" "${generator[@]}" \
    -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_INSTALL_PREFIX="$prefix" -DKokkos_ROOT="$prefix" \
    "${kernels_options[@]}"
  run_logged "$work/kernels-build.log" "Kokkos Kernels build" cmake --build "$work/kernels" --parallel "$jobs"
  run_logged "$work/kernels-install.log" "Kokkos Kernels install" cmake --install "$work/kernels"
  t_kernels=$((SECONDS - start))
  say "Kokkos Kernels built in $t_kernels s"
  echo "$stamp" > "$stamp_file"
  rm -rf "$work"
fi

say "building portasolve against it in ${build_dir#"$repo_root"/}"
mkdir -p "$build_dir"
start=$SECONDS
what_built=()
[ "$libraries_only" -eq 0 ] || what_built=(-DPORTASOLVE_BUILD_PROGRAM=OFF -DPORTASOLVE_MPI=OFF)
run_logged "$build_dir/configure.log" "portasolve configure" \
  cmake -S "$repo_root" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$compiler" -DPORTASOLVE_BACKEND="$backend" \
  -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix" "${what_built[@]}"
grep -q "portasolve: Kokkos $((10#${kokkos_version%%.*})).*from $prefix/" "$build_dir/configure.log" ||
  die "portasolve did not pick up the Kokkos in $prefix: $(grep 'portasolve: Kokkos' "$build_dir/configure.log")"
run_logged "$build_dir/build.log" "portasolve build" cmake --build "$build_dir" --parallel "$jobs"
t_portasolve=$((SECONDS - start))
say "portasolve built in $t_portasolve s"

result="compiled only (no $backend device here)"
[ "$libraries_only" -eq 0 ] || result="solver libraries compiled only (--libraries-only: no program, no tests)"
if [ "$backend" = openmp ] && [ "$libraries_only" -eq 0 ]; then
  start=$SECONDS
  if ! (cd "$build_dir" && OMP_PROC_BIND=false nice -n 10 ctest --output-on-failure -j 1 > ctest.log 2>&1); then
    grep -E "tests passed|\(Failed\)|\(SEGFAULT\)|\(Timeout\)|Exception|\*\*\*" "$build_dir/ctest.log" >&2 || true
    echo "check-kokkos: SUMMARY: Kokkos $kokkos_version + Kernels $kernels_version, $variant: FAILED at ctest (log: $build_dir/ctest.log)"
    exit 1
  fi
  t_ctest=$((SECONDS - start))
  result="built, $(grep -o '[0-9]*% tests passed.*' "$build_dir/ctest.log")"
fi

deps_time="Kokkos ${t_kokkos} s, Kernels ${t_kernels} s"
[ "$cached" -eq 0 ] || deps_time="Kokkos + Kernels cached"
echo "check-kokkos: SUMMARY: Kokkos $kokkos_version + Kernels $kernels_version, $variant: $result;" \
  "$deps_time, portasolve ${t_portasolve} s, ctest ${t_ctest} s"
