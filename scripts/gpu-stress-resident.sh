#!/usr/bin/env bash
# Runs the resident Poisson kernels (Jacobi tiles, CG) while another process
# keeps the same GPU busy, and checks every result: each run must give the
# answer of the same run on an idle GPU bit for bit, or end in the documented
# stall error ("did not all run at once"), never another number. A second
# pass lowers the waits' patience (PORTASOLVE_RESIDENT_PATIENCE) so that the
# stall path itself is driven under load.
#
#   scripts/gpu-stress-resident.sh [--bundle DIR] [--repeats N] [--out DIR]
#
# Run from the repository root on a GPU node. Last line: the counts.
set -uo pipefail

script_name=gpu-stress-resident help_lines=2,11
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

bundle=build/bundle-cuda-bundle
repeats=5
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) bundle=${2:?}; shift 2 ;;
    --repeats) repeats=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) fail "unknown argument '$1'" ;;
  esac
done
bundle_binary
out=${out:-$(mktemp -d /tmp/gpu-stress.XXXXXX)}
mkdir -p "$out"

small="--set problem.rows=266 --set problem.cols=400 --set output.pgm=\"\" --set benchmark.baseline=none --quiet"
cases=(
  "jacobi_f|poisson_image_jacobi|--set poisson.blocked.kernel=resident --set poisson.max_iterations=2600 --set poisson.check_every=1300"
  "jacobi_d|poisson_image_jacobi|--set precision=double --set poisson.blocked.kernel=resident --set poisson.blocked.sweeps_per_launch=8 --set poisson.max_iterations=2000 --set poisson.check_every=1000"
  "cg_f|poisson_image_cg|--set poisson.cg.kernel=resident --set poisson.max_iterations=600 --set poisson.tolerance=0"
  "cg_d|poisson_image_cg|--set precision=double --set poisson.cg.kernel=resident --set poisson.max_iterations=600 --set poisson.tolerance=0"
)

same_output() {
  python3 - "$1" "$2" <<'EOF'
import sys
import h5py
import numpy as np
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    x, y = a["output/solution"][()], b["output/solution"][()]
    sys.exit(0 if np.array_equal(x, y) else 1)
EOF
}

# References on the idle GPU.
for c in "${cases[@]}"; do
  IFS='|' read -r name config sets <<< "$c"
  # shellcheck disable=SC2086
  "$bin" run "configs/$config.yaml" $small $sets --output "$out/$name.ref.h5" --overwrite > "$out/$name.ref.log" 2>&1 ||
    { echo "gpu-stress-resident: the idle reference $name failed: $(tail -n 1 "$out/$name.ref.log")"; exit 1; }
done

# The load: large smoothing passes in a loop, another process on the same GPU
# (200 repeats of 100 passes, a few seconds of kernels per run after ~1 s of setup).
(
  while :; do
    "$bin" run configs/smoothing_100_passes.yaml --set image.rows=8192 --set image.cols=8192 \
      --set run.repeats=200 --set benchmark.baseline=none --output "$out/load.h5" --overwrite --quiet || sleep 1
  done
) > "$out/load.log" 2>&1 &
load=$!
trap 'kill $load 2> /dev/null; pkill -P $load 2> /dev/null' EXIT
sleep 3

right=0 stalled=0 wrong=0 failed=0
for patience in default 4096; do
  for c in "${cases[@]}"; do
    IFS='|' read -r name config sets <<< "$c"
    for ((i = 0; i < repeats; i++)); do
      result="$out/$name.$patience.$i.h5"
      log="$out/$name.$patience.$i.log"
      if [ "$patience" = default ]; then
        # shellcheck disable=SC2086
        "$bin" run "configs/$config.yaml" $small $sets --output "$result" --overwrite > "$log" 2>&1
      else
        # shellcheck disable=SC2086
        PORTASOLVE_RESIDENT_PATIENCE=$patience "$bin" run "configs/$config.yaml" $small $sets --output "$result" \
          --overwrite > "$log" 2>&1
      fi
      status=$?
      if [ $status -eq 0 ] && same_output "$out/$name.ref.h5" "$result"; then
        right=$((right + 1)); verdict=right
      elif [ $status -eq 0 ]; then
        wrong=$((wrong + 1)); verdict=WRONG
      elif grep -q "did not all run at once" "$log" && [ ! -e "$result" ]; then
        stalled=$((stalled + 1)); verdict="stall error"
      else
        failed=$((failed + 1)); verdict="FAILED exit $status: $(tail -n 1 "$log")"
      fi
      echo "$name patience=$patience run $i: $verdict"
    done
  done
done
echo "resident under load: $right right, $stalled stall errors, $wrong wrong, $failed other failures" \
  "($repeats runs a case and patience; meanwhile $(grep -c '^wrote' "$out/load.log" || true) load runs completed)"
[ $wrong -eq 0 ] && [ $failed -eq 0 ]
