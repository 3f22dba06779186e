#!/usr/bin/env bash
# Builds portasolve and packs a folder that runs on a GPU node without our
# development packages: the executables, the shared libraries they need
# (found through an $ORIGIN/../lib rpath), a test runner and a build record.
# Only glibc and the GPU driver are taken from the node.
#
#   scripts/bundle.sh [--preset cuda-bundle] [--output DIR] [--target T ...]
#
# --target (repeatable) builds only those targets (e.g. portasolve
# lorenz05_tests) and packs what the build folder holds: a quicker bundle
# for one solver's GPU check. Then copy DIR to the node and run
# DIR/run_tests.sh, or DIR/bin/portasolve.
set -euo pipefail

preset=cuda-bundle
output=""
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) preset=${2:?}; shift 2 ;;
    --output) output=${2:?}; shift 2 ;;
    --target) targets+=(--target "${2:?}"); shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bundle: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
output=${output:-build/bundle-$preset}
build_dir="build/$preset"

# The preset's backend, read from CMakePresets.json (following "inherits"),
# so the bootstrap builds its Kokkos before the first configure needs it.
backend=$(python3 - "$preset" <<'PY'
import json, sys
presets = {p["name"]: p for p in json.load(open("CMakePresets.json"))["configurePresets"]}
name = sys.argv[1]
while name:
    preset = presets[name]
    if "PORTASOLVE_BACKEND" in preset.get("cacheVariables", {}):
        print(preset["cacheVariables"]["PORTASOLVE_BACKEND"])
        break
    name = preset.get("inherits")
PY
)
[ -n "$backend" ] || { echo "bundle: preset '$preset' names no PORTASOLVE_BACKEND in CMakePresets.json" >&2; exit 2; }
scripts/bootstrap.sh --backend "$backend" > /dev/null
cmake --preset "$preset" > /dev/null
cmake --build --preset "$preset" "${targets[@]}"

grep -q '^PORTASOLVE_BUNDLE_RPATH:BOOL=ON' "$build_dir/CMakeCache.txt" ||
  { echo "bundle: preset '$preset' does not set PORTASOLVE_BUNDLE_RPATH=ON" >&2; exit 2; }

rm -rf "$output"
mkdir -p "$output/bin" "$output/lib"
executables=("$build_dir/bin/portasolve")
for t in "$build_dir"/bin/*_tests "$build_dir"/bin/test_distributed; do [ -x "$t" ] && executables+=("$t"); done
cp "${executables[@]}" "$output/bin/"
# Host symbol tables are of no use on the node and make the folder 10% larger.
strip --strip-unneeded "$output"/bin/*

# Everything the loader resolves except glibc's own libraries and the driver.
is_from_node() {
  case "$(basename "$1")" in
    ld-linux*|libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*|libutil.so*) return 0 ;;
    libcuda.so*|libnvidia-*|libamdhip64.so*|libhsa-runtime64.so*) return 0 ;;
    # cuFFT is 280 MB: the node's CUDA toolkit provides it (see the needs line).
    libcufft.so*) return 0 ;;
  esac
  return 1
}
for exe in "$output"/bin/*; do
  ldd "$exe" | awk '/=> \// { print $3 }' | while read -r lib; do
    is_from_node "$lib" || cp -nL "$lib" "$output/lib/"
  done
done

# MPI builds: Open MPI's launcher, libraries and plugins under openmpi/, their
# dependencies in lib/; ./mpirun relocates them (OPAL_PREFIX), so ranks start
# on a node without Open MPI. PMIx's own plugins (compression, Slurm) stay
# behind: it runs without them.
if ldd "$output/bin/portasolve" | grep -q 'libmpi\.so'; then
  multiarch=$(gcc -print-multiarch)
  ompi_root="$output/openmpi/usr"
  mkdir -p "$ompi_root/bin" "$ompi_root/lib/$multiarch" "$ompi_root/share"
  cp -L /usr/bin/orterun "$ompi_root/bin/"
  cp -a "/usr/lib/$multiarch/openmpi" "$ompi_root/lib/$multiarch/"
  rm -rf "$ompi_root/lib/$multiarch/openmpi/include"
  cp -a /usr/share/openmpi "$ompi_root/share/"
  find "$ompi_root" \( -name '*.so' -o -name '*.so.*' -o -name orterun \) -type f | while read -r f; do
    ldd "$f" 2>/dev/null | awk '/=> \// { print $3 }' | while read -r lib; do
      is_from_node "$lib" || cp -nL "$lib" "$output/lib/"
    done
  done
  cat > "$output/mpirun" <<MPIRUN
#!/usr/bin/env bash
# Open MPI's mpirun from this bundle: e.g. ./mpirun -np 2 bin/portasolve run CONFIG.yaml
here=\$(cd "\$(dirname "\$0")" && pwd)
export OPAL_PREFIX=\$here/openmpi/usr
export LD_LIBRARY_PATH=\$here/lib:\$OPAL_PREFIX/lib/$multiarch/openmpi/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
exec "\$OPAL_PREFIX/bin/orterun" "\$@"
MPIRUN
  chmod +x "$output/mpirun"
fi

for exe in "$output"/bin/*; do
  readelf -d "$exe" | grep -q 'RPATH.*\$ORIGIN/../lib' ||
    { echo "bundle: $exe lacks the \$ORIGIN/../lib rpath" >&2; exit 1; }
done

glibc_needed=$(for f in "$output"/bin/* "$output"/lib/*; do objdump -T "$f" 2>/dev/null; done |
  grep -o 'GLIBC_[0-9.]*' | sort -t. -k2,2n -u | tail -n 1)

cat > "$output/run_tests.sh" <<'EOF'
#!/usr/bin/env bash
# Runs every test binary of this bundle; extra arguments go to each binary
# (e.g. --gtest_filter=Math.*). Exit status 0 only if all pass.
here=$(cd "$(dirname "$0")" && pwd)
# cuFFT is the node's (CUDA toolkit): its usual folder when the loader lacks it.
if ldd "$here/bin/portasolve" 2>/dev/null | grep -q 'libcufft.*not found'; then
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
status=0
passed=0
failed=0
for t in "$here"/bin/*_tests; do
  echo "== $(basename "$t")"
  if "$t" --gtest_color=no "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); status=1; fi
done
echo "$passed passed, $failed failed (test binaries)"
exit $status
EOF
chmod +x "$output/run_tests.sh"

{
  echo "portasolve bundle"
  echo "preset:      $preset (backend $backend)"
  echo "commit:      $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "built:       $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release; echo "$PRETTY_NAME")"
  echo "needs:       x86-64 Linux with ${glibc_needed:-glibc} or newer$([ "$backend" = cuda ] && echo ', an NVIDIA driver for the CUDA version it was built with, and libcufft.so.12 from a CUDA toolkit on the loader path (e.g. LD_LIBRARY_PATH=/usr/local/cuda/lib64)')"
  echo "executables: $(cd "$output/bin" && echo *)"
  echo "libraries:   $(cd "$output/lib" && echo *)"
} > "$output/BUILD_INFO"
cat "$output/BUILD_INFO"
du -sh "$output"
