#!/usr/bin/env bash
# Installs what portasolve needs on Debian 12 and, unless a Kokkos is given,
# builds Kokkos 3.4.01 + Kokkos Kernels 3.4.01 from Debian's trilinos source
# package into a cache outside the repository. Idempotent: re-runs that find
# everything in place take a few seconds.
#
#   scripts/bootstrap.sh [--backend openmp|cuda|hip|serial] [--arch ARCH]
#                        [--jobs N] [--no-apt] [--force]
#
# Environment:
#   PORTASOLVE_DEPS_DIR   cache root (default ~/.cache/portasolve/deps);
#                         Kokkos lands in $PORTASOLVE_DEPS_DIR/<backend>
#   Kokkos_ROOT / CMAKE_PREFIX_PATH
#                         an existing Kokkos (+ Kokkos Kernels) install:
#                         nothing is built, only packages are installed
#   NVCC_WRAPPER_DEFAULT_COMPILER  host compiler for CUDA (default g++)
set -euo pipefail

script_name=bootstrap help_lines=2,18
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

backend=openmp
arch=""
jobs=$(nproc)
use_apt=1
force=0
no_apt_option() { [ "$1" != --no-apt ] || { use_apt=0; taken=1; }; }
parse_build_options no_apt_option "$@"

case "$backend" in
  openmp|serial) arch=${arch:-} ;;
  cuda) arch=${arch:-HOPPER90} ;;
  hip) arch=${arch:-VEGA908} ;;
  *) die "unknown backend '$backend' (allowed: openmp, cuda, hip, serial)" ;;
esac

patch_dir="$repo_root/scripts/patches"
deps_root=${PORTASOLVE_DEPS_DIR:-$HOME/.cache/portasolve/deps}
prefix="$deps_root/$backend"
trilinos_version=13.2.0

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# ---------------------------------------------------------------- packages
packages=(g++ cmake ninja-build make patch xz-utils pkg-config
          libhdf5-dev libyaml-cpp-dev libgtest-dev googletest libfftw3-dev clang-format-14
          python3 python3-numpy python3-h5py python3-matplotlib python3-dev pybind11-dev python3-pybind11
          python3-pytest python3-scipy python3-astropy libopenmpi-dev openmpi-bin libhdf5-openmpi-dev)
[ "$backend" = hip ] && packages+=(hipcc)

missing_packages() {
  local p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

apt_updated=0
if [ "$use_apt" -eq 1 ]; then
  mapfile -t missing < <(missing_packages)
  if [ "${#missing[@]}" -gt 0 ]; then
    say "installing Debian packages: ${missing[*]}"
    as_root apt-get update -qq
    apt_updated=1
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    say "Debian packages present"
  fi
fi

# ------------------------------------------------------- user's own Kokkos?
user_kokkos=""
if [ -n "${Kokkos_ROOT:-}" ]; then
  user_kokkos=$Kokkos_ROOT
elif [ -n "${CMAKE_PREFIX_PATH:-}" ]; then
  IFS=: read -ra search_dirs <<< "$CMAKE_PREFIX_PATH"
  for d in "${search_dirs[@]}"; do
    if compgen -G "$d/lib*/cmake/Kokkos/KokkosConfig.cmake" > /dev/null; then user_kokkos=$d; break; fi
  done
fi
if [ -n "$user_kokkos" ]; then
  say "using the Kokkos at $user_kokkos; nothing to build"
  exit 0
fi

# -------------------------------------------------------- toolchain checks
case "$backend" in
  cuda)
    command -v nvcc > /dev/null || [ -x /usr/local/cuda/bin/nvcc ] ||
      die "backend cuda needs NVIDIA's nvcc (CUDA toolkit) on PATH or in /usr/local/cuda/bin"
    command -v nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH ;;
  hip)
    command -v hipcc > /dev/null || die "backend hip needs hipcc (Debian package hipcc)" ;;
esac

# ------------------------------------------ up to date? (options + patches)
# Position-independent code so the static libraries link into the Python
# extension module too (a shared object: Kokkos' OpenMP thread-locals
# otherwise use the executable-only TLS model).
kokkos_options=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF
                -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DKokkos_ENABLE_SERIAL=ON)
case "$backend" in
  openmp) kokkos_options+=(-DKokkos_ENABLE_OPENMP=ON) ;;
  serial) ;;
  cuda) kokkos_options+=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON "-DKokkos_ARCH_${arch}=ON") ;;
  hip) kokkos_options+=(-DKokkos_ENABLE_HIP=ON "-DKokkos_ARCH_${arch}=ON") ;;
esac
# Nothing is pre-instantiated: portasolve's own translation units instantiate
# exactly the Kokkos Kernels calls they make (the 3.4 default ETI costs ~8 min
# on 2 cores for kernels we never call).
kernels_options=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF
                 -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DKokkosKernels_ADD_DEFAULT_ETI=OFF
                 -DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF
                 -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF)
if [ "$backend" = cuda ]; then
  # Their 3.4 code uses cuSPARSE/cuBLAS names that CUDA 12/13 removed.
  kernels_options+=(-DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF)
fi

stamp_file="$prefix/.portasolve-stamp"
stamp=$( { echo "trilinos $trilinos_version"; echo "${kokkos_options[*]}"; echo "${kernels_options[*]}";
           cat "$patch_dir"/*.patch; } | sha256sum | cut -d' ' -f1)
if [ "$force" -eq 0 ] && [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ]; then
  say "Kokkos + Kokkos Kernels ($backend${arch:+, $arch}) up to date in $prefix"
  exit 0
fi

# ------------------------------------------------------------ the sources
src_cache="$deps_root/src"
tarball="$src_cache/trilinos_${trilinos_version}.orig.tar.gz"
mkdir -p "$src_cache"

# Source entries mirroring the configured binary ones (same URIs, suites,
# components, keys), for the running release only.
derived_source_entries() {
  local codename f
  codename=$(. /etc/os-release; echo "${VERSION_CODENAME:-}")
  [ -n "$codename" ] || return 0
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v rel="$codename" 'BEGIN { RS = ""; FS = "\n" }
      { is_deb = 0; rel_ok = 0; body = ""
        for (i = 1; i <= NF; i++) { line = $i
          if (line ~ /^Types:/) { if (line ~ /[ \t]deb([ \t]|$)/) is_deb = 1; line = "Types: deb-src" }
          if (line ~ /^Suites:/ && line ~ ("[ \t]" rel "([ \t-]|$)")) rel_ok = 1
          if (line ~ /^Enabled:[ \t]*no/) is_deb = 0
          if (line !~ /^#/) body = body line "\n" }
        if (is_deb && rel_ok) printf "%s\n", body }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v rel="$codename" '$1 == "deb" && $0 ~ ("[ \t]" rel "([ \t-]|$)") { sub(/^deb/, "deb-src"); print }' "$f"
  done
}

fetch_sources() {
  local work
  work=$(mktemp -d)
  # shellcheck disable=SC2064
  trap "rm -rf '$work'" RETURN
  if ! (cd "$work" && apt-get source --download-only -qq trilinos > /dev/null 2>&1); then
    local entries
    entries=$(derived_source_entries)
    [ -n "$entries" ] || die "no Debian binary source entries to derive deb-src entries from"
    say "enabling Debian source entries (derived from the configured binary entries)"
    printf '%s\n' "$entries" | as_root tee /etc/apt/sources.list.d/portasolve-deb-src.sources > /dev/null
    as_root apt-get update -qq
    (cd "$work" && apt-get source --download-only -qq trilinos) ||
      die "could not download Debian's trilinos ${trilinos_version} source package"
  fi
  [ -f "$work/trilinos_${trilinos_version}.orig.tar.gz" ] ||
    die "Debian's trilinos source is not version ${trilinos_version}: $(ls "$work")"
  mv "$work/trilinos_${trilinos_version}.orig.tar.gz" "$tarball"
}

if [ ! -s "$tarball" ]; then
  say "downloading Debian's trilinos ${trilinos_version} source package (~166 MB, once)"
  fetch_sources
fi

build_root="$deps_root/build/$backend"
rm -rf "$build_root"
mkdir -p "$build_root/src"
say "extracting packages/kokkos and packages/kokkos-kernels"
tar -xzf "$tarball" -C "$build_root/src" --strip-components=2 \
  "Trilinos-trilinos-release-${trilinos_version//./-}/packages/kokkos" \
  "Trilinos-trilinos-release-${trilinos_version//./-}/packages/kokkos-kernels"
for p in "$patch_dir"/*.patch; do
  say "patch $(basename "$p"): $(head -n 1 "$p" | sed 's/^Reason: //')"
  patch -p1 -s -d "$build_root/src" < "$p"
done

# --------------------------------------------------------------- the build
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
rm -rf "$prefix"
mkdir -p "$prefix/bin"

compiler=g++
case "$backend" in
  cuda)
    # Installed first so Kokkos' launch-compiler rule keeps pointing at a
    # wrapper that outlives the build tree.
    install -m 0755 "$build_root/src/kokkos/bin/nvcc_wrapper" "$prefix/bin/nvcc_wrapper"
    compiler="$prefix/bin/nvcc_wrapper" ;;
  hip) compiler=$(command -v hipcc) ;;
esac

start=$SECONDS
say "building Kokkos 3.4.01 ($backend${arch:+, $arch}) into $prefix"
cmake -S "$build_root/src/kokkos" -B "$build_root/kokkos" "${generator[@]}" \
  -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_INSTALL_PREFIX="$prefix" "${kokkos_options[@]}" \
  > "$build_root/kokkos-configure.log" 2>&1 || { tail -n 40 "$build_root/kokkos-configure.log"; die "Kokkos configure failed"; }
cmake --build "$build_root/kokkos" --parallel "$jobs" > "$build_root/kokkos-build.log" 2>&1 ||
  { tail -n 40 "$build_root/kokkos-build.log"; die "Kokkos build failed"; }
cmake --install "$build_root/kokkos" > /dev/null

say "building Kokkos Kernels 3.4.01 into $prefix"
cmake -S "$build_root/src/kokkos-kernels" -B "$build_root/kernels" "${generator[@]}" \
  -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_INSTALL_PREFIX="$prefix" -DKokkos_ROOT="$prefix" \
  "${kernels_options[@]}" \
  > "$build_root/kernels-configure.log" 2>&1 || { tail -n 40 "$build_root/kernels-configure.log"; die "Kokkos Kernels configure failed"; }
cmake --build "$build_root/kernels" --parallel "$jobs" > "$build_root/kernels-build.log" 2>&1 ||
  { tail -n 40 "$build_root/kernels-build.log"; die "Kokkos Kernels build failed"; }
cmake --install "$build_root/kernels" > /dev/null

echo "$stamp" > "$stamp_file"
rm -rf "$build_root"
say "done in $((SECONDS - start)) s: configure portasolve with --preset $backend"
