#!/usr/bin/env bash
# Checks a bundle (scripts/bundle.sh) on a GPU node: the test binaries, then
# NVIDIA's compute-sanitizer (memcheck, racecheck, synccheck) on small runs of
# every experiment and kernel choice. Each sanitized run's /output is compared
# with the same run without a sanitizer (the kernels are deterministic: equal
# bit for bit, or the documented stall error), and the resident kernels'
# results with the launched kernels' (Jacobi: bit for bit; CG: the same
# residual to 1e-3). Prints one summary line per run; exit status 0 only if
# every line passes.
#
#   scripts/gpu-check.sh [--bundle DIR] [--out DIR] [--tools "memcheck racecheck synccheck"]
#                        [--only REGEX] [--no-tests] [--stress]
#
# Run from the repository root (the configs are read from configs/). --stress
# also runs scripts/gpu-stress-resident.sh (resident kernels on a busy GPU).
# Needs compute-sanitizer on PATH (or in /usr/local/cuda/bin) and Python 3
# with NumPy and h5py.
set -uo pipefail

script_name=gpu-check help_lines=2,19
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

bundle=build/bundle-cuda-bundle
out=""
tools="memcheck racecheck synccheck"
only=""
run_tests=1
stress=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) bundle=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --tools) tools=${2:?}; shift 2 ;;
    --only) only=${2:?}; shift 2 ;;
    --no-tests) run_tests=0; shift ;;
    --stress) stress=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) fail "unknown argument '$1'" ;;
  esac
done
bundle_binary " (build it with scripts/bundle.sh)"
# cuFFT is the node's (CUDA toolkit): its usual folder when the loader lacks it.
if ldd "$bin" | grep -q 'libcufft.*not found'; then
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$sanitizer" ] || fail "compute-sanitizer not found"
out=${out:-$(mktemp -d /tmp/gpu-check.XXXXXX)}
mkdir -p "$out/runs"
export OMP_PROC_BIND=false

summary=()
failed=0
note() { summary+=("$1"); echo "$1"; }

if [ "$run_tests" -eq 1 ]; then
  "$bundle/run_tests.sh" > "$out/tests.log" 2>&1
  status=$?
  line=$(tail -n 1 "$out/tests.log")
  [ $status -eq 0 ] || failed=1
  note "$(printf '%-9s %-34s %s' tests "$bundle" "$([ $status -eq 0 ] && echo PASS || echo FAIL): $line")"
fi

# name | config | --set arguments. Small sizes: racecheck runs a kernel ~100x slower.
poisson_small="--set problem.rows=266 --set problem.cols=400 --set output.pgm=\"\" --set benchmark.baseline=none"
runs=(
  "jacobi|poisson_image_jacobi|$poisson_small --set poisson.solver=jacobi --set poisson.max_iterations=26 --set poisson.check_every=13"
  "jacobi_32|poisson_image_jacobi|$poisson_small --set poisson.solver=jacobi --set poisson.max_iterations=32 --set poisson.check_every=16"
  "jacobi_tiles|poisson_image_jacobi|$poisson_small --set poisson.blocked.kernel=tiles --set poisson.blocked.sweeps_per_launch=8 --set poisson.max_iterations=32 --set poisson.check_every=16"
  "jacobi_registers|poisson_image_jacobi|$poisson_small --set poisson.blocked.kernel=registers --set poisson.blocked.sweeps_per_launch=8 --set poisson.max_iterations=32 --set poisson.check_every=16"
  "jacobi_resident_k8|poisson_image_jacobi|$poisson_small --set poisson.blocked.kernel=resident --set poisson.blocked.sweeps_per_launch=8 --set poisson.max_iterations=32 --set poisson.check_every=16"
  "jacobi_resident_f|poisson_image_jacobi|$poisson_small --set poisson.blocked.kernel=resident --set poisson.max_iterations=26 --set poisson.check_every=13"
  "jacobi_resident_d|poisson_image_jacobi|$poisson_small --set precision=double --set poisson.blocked.kernel=resident --set poisson.blocked.sweeps_per_launch=8 --set poisson.max_iterations=32 --set poisson.check_every=16"
  "jacobi_launched_d|poisson_image_jacobi|$poisson_small --set precision=double --set poisson.solver=jacobi --set poisson.max_iterations=32 --set poisson.check_every=16"
  "cg_kk|poisson_image_cg|$poisson_small --set poisson.solver=cg --set poisson.max_iterations=50 --set poisson.tolerance=0"
  "cg_crs|poisson_image_cg|$poisson_small --set poisson.solver=cg --set poisson.cg.operator=crs --set poisson.max_iterations=50 --set poisson.tolerance=0"
  "cg_launches|poisson_image_cg|$poisson_small --set poisson.cg.kernel=launches --set poisson.max_iterations=50 --set poisson.tolerance=0"
  "cg_resident_f|poisson_image_cg|$poisson_small --set poisson.cg.kernel=resident --set poisson.max_iterations=50 --set poisson.tolerance=0"
  "cg_resident_d|poisson_image_cg|$poisson_small --set precision=double --set poisson.cg.kernel=resident --set poisson.max_iterations=50 --set poisson.tolerance=0"
  "cg_launches_d|poisson_image_cg|$poisson_small --set precision=double --set poisson.cg.kernel=launches --set poisson.max_iterations=50 --set poisson.tolerance=0"
  "multigrid_v|poisson_image_multigrid|$poisson_small --set poisson.max_iterations=3 --set poisson.tolerance=0"
  "multigrid_w_cheb_d|poisson_image_multigrid|$poisson_small --set precision=double --set poisson.multigrid.cycle=w --set poisson.multigrid.smoother=chebyshev --set poisson.max_iterations=2 --set poisson.tolerance=0"
  "cg_multigrid|poisson_image_cg|$poisson_small --set poisson.solver=cg --set poisson.cg.preconditioner=multigrid --set poisson.max_iterations=4 --set poisson.tolerance=0"
  "multigrid_f_jacobi|poisson_image_multigrid|$poisson_small --set poisson.multigrid.cycle=f --set poisson.multigrid.smoother=jacobi --set poisson.max_iterations=2 --set poisson.tolerance=0"
  "multigrid_fmg_d|poisson_image_multigrid|$poisson_small --set precision=double --set poisson.multigrid.fmg=true --set poisson.max_iterations=2 --set poisson.tolerance=0"
  "cg_jacobi_precond|poisson_image_cg|$poisson_small --set poisson.solver=cg --set poisson.cg.preconditioner=jacobi --set poisson.max_iterations=30 --set poisson.tolerance=0"
  "poisson_auto|poisson_image_spectral|$poisson_small --set poisson.solver=auto --set poisson.tolerance=1e-6"
  "spectral_f|poisson_image_spectral|$poisson_small --set precision=float --set poisson.tolerance=1e-6"
  "spectral_neumann|poisson_gradient_neumann|--set problem.rows=200 --set problem.cols=300 --set output.pgm=\"\""
  "spectral_periodic_f|poisson_gradient_neumann|--set problem.rows=200 --set problem.cols=301 --set output.pgm=\"\" --set precision=float --set poisson.boundary=periodic"
  "smooth_box_fused|smoothing_100_passes|--set output.image=true --set image.rows=300 --set image.cols=500 --set smoothing.passes=10 --set run.warmup=0 --set run.repeats=1 --set benchmark.baseline=none"
  "smooth_box_int|smoothing_box3_int|--set image.rows=300 --set image.cols=500 --set run.warmup=0 --set run.repeats=1"
  "smooth_gauss_u8|smoothing_gaussian|--set image.rows=200 --set image.cols=300 --set output.pgm=\"\""
  "smooth_gauss_sep|smoothing_gaussian|--set image.rows=200 --set image.cols=300 --set output.pgm=\"\" --set image.pixel_type=float --set smoothing.separable=yes --set smoothing.passes=3"
  "smooth_gauss_two|smoothing_gaussian|--set image.rows=200 --set image.cols=300 --set output.pgm=\"\" --set image.pixel_type=float --set smoothing.separable_kernel=two_launches --set smoothing.passes=2"
  "smooth_gauss_tiles_wrap|smoothing_gaussian|--set image.rows=37 --set image.cols=301 --set output.pgm=\"\" --set image.pixel_type=uint16 --set smoothing.sigma=3 --set smoothing.border=wrap --set smoothing.separable_kernel=tiles --set smoothing.tile_rows=5 --set smoothing.tile_cols=40"
  "smooth_gauss_columns|smoothing_gaussian|--set image.rows=200 --set image.cols=300 --set output.pgm=\"\" --set image.pixel_type=float --set smoothing.separable_kernel=columns --set smoothing.border=mirror --set smoothing.passes=2"
  "smooth_fused_registers|smoothing_100_passes|--set output.image=true --set image.rows=300 --set image.cols=500 --set smoothing.passes=10 --set smoothing.fused_kernel=registers --set run.warmup=0 --set run.repeats=1 --set benchmark.baseline=none"
  "smooth_fused_streamed|smoothing_100_passes|--set output.image=true --set image.rows=300 --set image.cols=500 --set smoothing.passes=10 --set smoothing.fused_kernel=streamed --set run.warmup=0 --set run.repeats=1 --set benchmark.baseline=none"
  "smooth_weighted|smoothing_box3_int|--set image.rows=300 --set image.cols=500 --set smoothing.kernel=weighted --set smoothing.weights=[[1,2,1],[2,4,2],[1,2,1]] --set run.warmup=0 --set run.repeats=1"
  "ls_direct|lombscargle_gtc|--set frequency.count=4096 --set input.samples=256 --set lombscargle.algorithm=direct --set run.warmup=0 --set run.repeats=1 --set benchmark.baseline=none"
  "ls_tiled|lombscargle_gtc|--set frequency.count=4096 --set input.samples=256 --set lombscargle.algorithm=tiled --set run.warmup=0 --set run.repeats=1 --set benchmark.baseline=none"
  "ls_recurrence|lombscargle_gtc|--set frequency.count=4096 --set input.samples=256 --set lombscargle.algorithm=recurrence --set run.warmup=0 --set run.repeats=1 --set benchmark.baseline=none"
  "ls_nufft|lombscargle_gtc|--set frequency.count=4096 --set input.samples=256 --set lombscargle.algorithm=nufft --set run.warmup=0 --set run.repeats=1 --set benchmark.baseline=none"
  "ls_generalized|lombscargle_lightcurve|"
  "ls_nterms3|lombscargle_lightcurve|--set lombscargle.nterms=3 --set lombscargle.algorithm=direct"
  "ls_nterms3_nufft|lombscargle_lightcurve|--set lombscargle.nterms=3 --set lombscargle.algorithm=nufft"
  "ls_bootstrap|lombscargle_lightcurve|--set peaks.fap_method=bootstrap --set peaks.bootstrap.resamples=64"
  "ls_catalogue|lombscargle_catalogue|--set input.series=300 --set frequency.count=2000 --set pipeline.chunk_series=128"
  "lorenz96_team|lorenz96|--set lorenz05.steps=40 --set lorenz05.layout=team"
  "lorenz96_flat|lorenz96|--set lorenz05.steps=40 --set lorenz05.layout=flat"
  "lorenz3_team|lorenz05_model3_ensemble40|--set lorenz05.steps=20 --set ensemble.spinup_steps=10 --set ensemble.members=8 --set lorenz05.layout=team"
  "lorenz3_flat|lorenz05_model3_ensemble40|--set lorenz05.steps=20 --set ensemble.spinup_steps=10 --set ensemble.members=8 --set lorenz05.layout=flat"
  "lorenz96_vector|lorenz96|--set lorenz05.steps=40 --set lorenz05.layout=vector"
  "lorenz3_vector|lorenz05_model3_ensemble40|--set lorenz05.steps=20 --set ensemble.spinup_steps=10 --set ensemble.members=8 --set lorenz05.layout=vector"
  "stream|stream|--set stream.size=100000 --set run.repeats=1 --set run.warmup=0"
)

compare() {  # compare.py NAME A.h5 B.h5 [MODE]: prints one word and a detail
  python3 - "$@" <<'EOF'
import sys
import h5py
import numpy as np

_, a_path, b_path, mode = sys.argv
with h5py.File(a_path, "r") as a, h5py.File(b_path, "r") as b:
    if mode == "residual":
        ra = float(a["output"].attrs["relative_residual"])
        rb = float(b["output"].attrs["relative_residual"])
        same = abs(ra - rb) <= 1e-3 * max(abs(ra), abs(rb)) and np.isfinite(ra) and np.isfinite(rb)
        print(("same" if same else "DIFFERS") + f" residual {ra:.6e} vs {rb:.6e}")
        sys.exit(0)
    names = []
    a["output"].visit(lambda n: names.append(n) if isinstance(a["output"][n], h5py.Dataset) else None)
    worst = 0.0
    for n in names:
        x, y = a["output"][n][()], b["output"][n][()]
        if x.dtype.kind not in "iuf":
            continue
        if x.shape != y.shape:
            print(f"DIFFERS shape of {n}: {x.shape} vs {y.shape}")
            sys.exit(0)
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if not np.array_equal(x, y, equal_nan=True):
            scale = max(np.nanmax(np.abs(x)) if x.size else 0, 1e-300)
            worst = max(worst, float(np.nanmax(np.abs(x - y)) / scale))
    print(("same" if worst == 0 else "DIFFERS") + f" max rel diff {worst:.3e} over {len(names)} datasets")
EOF
}

for run in "${runs[@]}"; do
  IFS='|' read -r name config sets <<< "$run"
  [ -n "$only" ] && ! [[ "$name" =~ $only ]] && continue
  reference="$out/runs/$name.plain.h5"
  # shellcheck disable=SC2086
  "$bin" run "configs/$config.yaml" $sets --output "$reference" --overwrite --quiet > "$out/runs/$name.plain.log" 2>&1
  status=$?
  if [ $status -ne 0 ]; then
    failed=1
    note "$(printf '%-9s %-18s FAIL: exit %d without a sanitizer: %s' plain "$name" $status "$(tail -n 1 "$out/runs/$name.plain.log")")"
    continue
  fi
  for tool in $tools; do
    result="$out/runs/$name.$tool.h5"
    log="$out/runs/$name.$tool.log"
    extra=()
    [ "$tool" = racecheck ] && extra=(--racecheck-report all)
    # shellcheck disable=SC2086
    "$sanitizer" --tool "$tool" "${extra[@]}" --print-limit 50 "$bin" run "configs/$config.yaml" $sets \
      --output "$result" --overwrite --quiet > "$log" 2>&1
    status=$?
    if [ "$tool" = racecheck ]; then
      counts=$(grep -o 'RACECHECK SUMMARY: .*' "$log" | tail -n 1)
      errors=$(sed -n 's/.*(\([0-9]*\) error.*/\1/p' <<< "$counts")
      warnings=$(sed -n 's/.* \([0-9]*\) warning.*/\1/p' <<< "$counts")
      counts="${errors:-0} errors, ${warnings:-0} warnings"
    else
      errors=$(grep -o 'ERROR SUMMARY: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$')
      counts="${errors:-?} errors"
    fi
    if [ $status -ne 0 ]; then
      if grep -q "did not all run at once" "$log"; then
        verdict="stall error (documented), exit $status"
      else
        verdict="FAIL exit $status: $(grep 'portasolve: error' "$log" | head -n 1)"
        failed=1
      fi
    elif [ "$config" = stream ]; then
      verdict="ran (timings only)"
    else
      verdict=$(compare "$reference" "$result" exact)
      [[ "$verdict" == same* ]] || failed=1
    fi
    [ "${errors:-1}" = 0 ] || failed=1
    note "$(printf '%-9s %-18s %-26s %s' "$tool" "$name" "$counts" "$verdict")"
  done
done

# The resident kernels against the launched ones, from the plain runs.
pair() {
  local a=$1 b=$2 mode=$3
  [ -f "$out/runs/$a.plain.h5" ] && [ -f "$out/runs/$b.plain.h5" ] || return 0
  local verdict
  verdict=$(compare "$out/runs/$a.plain.h5" "$out/runs/$b.plain.h5" "$mode")
  [[ "$verdict" == same* ]] || failed=1
  note "$(printf '%-9s %-18s %-26s %s' kernels "$a" "vs $b" "$verdict")"
}
pair jacobi_resident_f jacobi exact
pair jacobi_resident_k8 jacobi_32 exact
pair jacobi_tiles jacobi_32 exact
pair jacobi_registers jacobi_32 exact
pair jacobi_resident_d jacobi_launched_d exact
pair cg_resident_f cg_launches residual
pair cg_resident_d cg_launches_d residual

if [ "$stress" -eq 1 ]; then
  scripts/gpu-stress-resident.sh --bundle "$bundle" > "$out/stress.log" 2>&1
  status=$?
  [ $status -eq 0 ] || failed=1
  note "$(printf '%-9s %-18s %s' stress resident "$(tail -n 1 "$out/stress.log")")"
fi

echo
echo "== gpu-check summary ($(date -u +%Y-%m-%dT%H:%M:%SZ), logs in $out)"
printf '%s\n' "${summary[@]}"
echo "gpu-check: $([ $failed -eq 0 ] && echo PASS || echo FAIL)"
exit $failed
