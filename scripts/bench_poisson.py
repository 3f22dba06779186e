#!/usr/bin/env python3
"""Benchmark: the Poisson solvers on the configured backend. Prints Markdown tables.

  1. the talk's case (configs/poisson_image_jacobi.yaml): 150000 float32 sweeps on
     a 400x266 image, jacobi_blocked for each --blocked setting, plain jacobi (one
     launch per sweep) as the baseline in the same run;
  2. time to the relative residual those 150000 sweeps reached (and to 1.6e-6),
     by cg_fused (resident and two launches a step) and Kokkos Kernels cg
     (configs/poisson_image_cg.yaml);
  3. the large grid (configs/poisson_large.yaml, 8192x8192): plain and blocked
     sweeps as effective bandwidth against the STREAM copy measured in the same run.
With --numpy, NumPy slicing Jacobi on this host is timed per sweep on both grids.

usage: bench_poisson.py [--bin build/openmp/bin/portasolve] [--sweeps N] [--large-sweeps N]
                        [--blocked K:ROWS:COLS ...] [--numpy] [--skip-large] [--out results/bench]
"""

import argparse
import os
import time

import numpy as np

from portasolve_results import copy_bandwidth, poisson_summary, print_table, run_experiment, text


def numpy_sweep_seconds(rows, cols, sweeps):
    """Seconds per sweep of the usual NumPy slicing Jacobi, ping-pong buffers, float32."""
    rng = np.random.default_rng(1)
    x = rng.random((rows, cols), dtype=np.float32)
    b = rng.random((rows, cols), dtype=np.float32)
    y = x.copy()
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(sweeps):
            y[1:-1, 1:-1] = (x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:] - b[1:-1, 1:-1]) * np.float32(0.25)
            x, y = y, x
        best = min(best, (time.perf_counter() - start) / sweeps)
    return best


def solve(binary, config, output, *sets):
    with run_experiment(binary, config, output, *sets) as f:
        out, timing = f["output"].attrs, f["timing"].attrs
        row = poisson_summary(f)
        row["kernel"] = text(out["blocked_kernel"]) if "blocked_kernel" in out else "-"
        if "baseline_s" in timing:
            row["baseline_seconds"] = float(timing["baseline_s"])
            row["baseline_residual"] = float(out["baseline_relative_residual"])
            row["baseline_iterations"] = int(out["baseline_iterations"])
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/openmp/bin/portasolve")
    parser.add_argument("--sweeps", type=int, default=150000, help="sweeps of the talk's case")
    parser.add_argument("--large-sweeps", type=int, default=1000)
    parser.add_argument("--blocked", nargs="+", default=["13:0:0"],
                        help="jacobi_blocked settings K:TILE_ROWS:TILE_COLS[:TEAM_ROWS[:KERNEL]] (0: automatic; "
                             "KERNEL auto|registers|tiles|resident; register bands: TILE_ROWS = rows a band writes)")
    parser.add_argument("--large-blocked", nargs="+", default=["8:0:0"])
    parser.add_argument("--numpy", action="store_true", help="time NumPy slicing Jacobi on this host")
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument("--out", default="results/bench")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    def blocked_sets(setting):
        k, tile_rows, tile_cols, *rest = setting.split(":")
        return ["poisson.solver=jacobi_blocked", f"poisson.blocked.sweeps_per_launch={k}",
                f"poisson.blocked.tile_rows={tile_rows}", f"poisson.blocked.tile_cols={tile_cols}",
                f"poisson.blocked.team_rows={rest[0] if rest else 0}",
                f"poisson.blocked.kernel={rest[1] if len(rest) > 1 else 'auto'}"]

    # 1. The talk's case.
    talk = "configs/poisson_image_jacobi.yaml"
    # One warm-up solve first, as for CG below: the first launches load the kernels and raise the clocks.
    common = [f"poisson.max_iterations={args.sweeps}", f"poisson.check_every={args.sweeps}", "output.pgm=''",
              "run.warmup=1", "run.repeats=3"]
    rows, baseline = [], None
    for n, setting in enumerate(args.blocked):
        extra = ["benchmark.baseline=jacobi"] if n == 0 else ["benchmark.baseline=none"]
        r = solve(args.bin, talk, os.path.join(args.out, f"poisson_talk_{n}.h5"), *common, *blocked_sets(setting), *extra)
        if n == 0:
            baseline = r
            rows.append(["jacobi (baseline)", "-", f"{r['baseline_seconds'] * 1e3:.1f}",
                         f"{r['baseline_seconds'] / args.sweeps * 1e6:.2f}", f"{r['baseline_residual']:.3e}", "1.00"])
        rows.append([f"jacobi_blocked ({r['kernel']})", setting, f"{r['seconds'] * 1e3:.1f}",
                     f"{r['seconds'] / args.sweeps * 1e6:.2f}",
                     f"{r['residual']:.3e}", f"{baseline['baseline_seconds'] / r['seconds']:.2f}"])
    print(f"Poisson, talk's case: {baseline['rows']}x{baseline['cols']} (rows x cols) float32, {args.sweeps} sweeps, "
          f"{baseline['space']} on {baseline['device']}\n")
    print_table(["solver", "k:tile", "time (ms)", "us/sweep", "relative residual", "speedup"], rows)

    # 2. Time to the residual the sweeps reached.
    reached = baseline["baseline_residual"]
    rows = []
    for tolerance in sorted({reached, 1.6e-6}, reverse=True):
        for solver, extra in (("cg_fused", ["poisson.cg.kernel=resident"]),
                              ("cg_fused", ["poisson.cg.kernel=launches"]),
                              ("cg", ["poisson.cg.operator=matrix_free"]), ("cg", ["poisson.cg.operator=crs"])):
            r = solve(args.bin, "configs/poisson_image_cg.yaml", os.path.join(args.out, "poisson_cg.h5"),
                      f"poisson.solver={solver}", f"poisson.tolerance={tolerance:.6g}", "output.pgm=''",
                      "run.repeats=3", "run.warmup=1", *extra)
            name = solver + (f" ({extra[0].split('=')[1]})" if extra else "")
            rows.append([f"{tolerance:.3g}", name, str(r["iterations"]), f"{r['seconds'] * 1e3:.2f}",
                         f"{r['residual']:.3e}", f"{baseline['baseline_seconds'] / r['seconds']:.1f}"])
    print("Time to tolerance (same problem; speedup against the baseline's 150000 sweeps)\n")
    print_table(["tolerance", "solver", "steps", "time (ms)", "relative residual", "vs baseline"], rows)

    if args.numpy:
        seconds = numpy_sweep_seconds(baseline["rows"], baseline["cols"], 200)
        print(f"NumPy slicing Jacobi, {baseline['rows']}x{baseline['cols']} (rows x cols) float32: {seconds * 1e6:.1f} us/sweep; "
              f"plain jacobi here {baseline['baseline_seconds'] / args.sweeps * 1e6:.2f} us/sweep "
              f"({seconds / (baseline['baseline_seconds'] / args.sweeps):.1f}x)\n")

    if args.skip_large:
        return
    # 3. The large grid against the copy bandwidth.
    large = "configs/poisson_large.yaml"
    copy = copy_bandwidth(args.bin, os.path.join(args.out, "poisson_stream.h5"), 1 << 26)
    rows = []
    common = [f"poisson.max_iterations={args.large_sweeps}", f"poisson.check_every={args.large_sweeps}"]
    for n, setting in enumerate(args.large_blocked):
        extra = ["benchmark.baseline=jacobi"] if n == 0 else ["benchmark.baseline=none"]
        r = solve(args.bin, large, os.path.join(args.out, f"poisson_large_{n}.h5"), *common, *blocked_sets(setting),
                  *extra)
        points = (r["rows"] - 2) * (r["cols"] - 2)
        bytes_per_sweep = 12 * points  # read X and B, write X'
        if n == 0:
            plain = r["baseline_seconds"] / args.large_sweeps
            rows.append(["jacobi", "-", f"{plain * 1e3:.3f}", f"{bytes_per_sweep / plain / 1e9:.0f}",
                         f"{bytes_per_sweep / plain / 1e9 / copy:.2f}", "1.00", f"{r['baseline_residual']:.6e}"])
        per_sweep = r["seconds"] / args.large_sweeps
        rows.append([f"jacobi_blocked ({r['kernel']})", setting, f"{per_sweep * 1e3:.3f}",
                     f"{bytes_per_sweep / per_sweep / 1e9:.0f}", f"{bytes_per_sweep / per_sweep / 1e9 / copy:.2f}",
                     f"{plain / per_sweep:.2f}", f"{r['residual']:.6e}"])
    print(f"Poisson, {r['rows']}x{r['cols']} (rows x cols) float32, {args.large_sweeps} sweeps; STREAM copy in the same run: "
          f"{copy:.0f} GB/s. Effective bandwidth = 12 bytes per interior point per sweep / time.\n")
    print_table(["solver", "k:tile", "ms/sweep", "effective GB/s", "/ copy", "vs plain", "relative residual"], rows)
    if args.numpy:
        seconds = numpy_sweep_seconds(r["rows"], r["cols"], 3)
        print(f"NumPy slicing Jacobi, {r['rows']}x{r['cols']} (rows x cols) float32: {seconds * 1e3:.1f} ms/sweep "
              f"(plain jacobi here {plain / seconds:.3f}x of it, i.e. {seconds / plain:.1f}x faster)\n")


if __name__ == "__main__":
    main()
