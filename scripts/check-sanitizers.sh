#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer on the test suites that fit
# CI's time (issue 19): core, the application layer (config, CSV/PGM/HDF5
# readers and writers, memory budget, progress, interrupts), the FFT layer and
# Lorenz 2005, built with -fsanitize=address,undefined (OpenMP backend) in
# build/sanitize and run straight from their binaries. Any sanitizer report
# fails the run. The whole suite under ASan is `cmake --workflow --preset asan`
# (DEVELOPERS.md says why it is not in CI).
#
#   scripts/check-sanitizers.sh [--build-dir DIR]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir=build/sanitize
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check-sanitizers: unknown argument '$1' (allowed: --build-dir DIR)" >&2; exit 2 ;;
  esac
done

suites=(portasolve_core_tests portasolve_app_tests portasolve_fft_tests portasolve_lorenz05_tests)
start=$SECONDS
scripts/bootstrap.sh --backend openmp > /dev/null
cmake --preset sanitize -B "$build_dir" > /dev/null
cmake --build "$build_dir" --target "${suites[@]}"
built=$((SECONDS - start))

# allocator_may_return_null: tests ask for impossible sizes on purpose and
# expect Kokkos' error, not ASan's abort. lsan.supp: HDF5's own buffer kept
# after a failed close.
export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} OMP_PROC_BIND=false

failed=0
summary=()
for suite in "${suites[@]}"; do
  log="$build_dir/$suite.log"
  status=0
  "$build_dir/bin/$suite" > "$log" 2>&1 || status=$?
  # UBSan reports without halting where a library was built without it.
  if [ $status -ne 0 ] || grep -q "runtime error:\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer" "$log"; then
    failed=1
    summary+=("$suite: FAIL (exit $status), log $log:")
    summary+=("$(grep -m 5 "runtime error:\|ERROR: \|FAILED" "$log" || tail -n 5 "$log")")
  else
    summary+=("$suite: $(grep -o '[0-9]* tests\? from [0-9]* test suites\? ran' "$log" | head -n 1), no sanitizer report")
  fi
done
printf 'check-sanitizers: %s\n' "${summary[@]}"
echo "check-sanitizers: built in $built s, ran in $((SECONDS - start - built)) s"
exit $failed
