#!/usr/bin/env python3
"""Benchmark: strong scaling over MPI ranks, one GPU per rank (issue 26). Prints a Markdown table.

Runs each workload under `mpirun -np R` for every R in --ranks (on a GPU node each rank takes the GPU of its
node-local rank), all with the same bundle in one run, and reports per workload: the time each rank count took,
the speedup over the first rank count, the slowest rank's halo time and its share of the solve, which halo
transport ran (device-aware MPI or staged through host memory), and whether the result equals the first rank
count's bit for bit (or to rounding where the issue promises only that: CG residuals, Lorenz mean/spread).

Workloads (issue 26's sizes by default; --scale shrinks every size for a quick run on a CPU):
  poisson     plain Jacobi, 16384^2 float, --poisson-sweeps sweeps (halo of 1 exchanged every sweep)
  poisson_blocked  the same with jacobi_blocked, 8 sweeps a launch (a deep halo of 8 exchanged every 8 sweeps)
  poisson_multigrid  V(2,2) multigrid cycles to a relative residual of 1e-6, 16384^2 float (levels split over
              the ranks down to poisson.multigrid.gather points, the rest gathered onto every rank)
  smoothing   3x3 box, 32768^2 float, 100 passes (fused k passes a launch on one rank and over ranks, where a
              ring k deep is exchanged once a launch)
  lombscargle 10^6 synthetic series x 300 samples x 10^4 frequencies, peaks only, split by series; time is the
              whole pipeline (generation, setup, solve, peaks, FAPs, writing)
  lorenz05    model III (N = 960), 10^6 members, --lorenz-steps RK4 steps, split by members

usage: bench_scaling.py --bin B/bin/portasolve --mpirun B/mpirun [--ranks 1,2] [--only poisson,smoothing]
                        [--scale 1.0] [--out results/scaling]
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np

from portasolve_results import open_result, print_table

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "configs")


def workloads(args):
    """Each: config, --set overrides, datasets that must match bit for bit, datasets that must match to
    rounding (relative tolerance), the timing attribute that is the workload's time."""
    side = lambda n: max(64, int(n * args.scale))  # noqa: E731

    def jacobi(solver, sweeps_per_launch):
        return dict(
            title=f"Poisson {solver} {side(16384)}^2 float, {args.poisson_sweeps} sweeps, {sweeps_per_launch} a launch",
            config="poisson_ranks.yaml",
            sets={"problem.rows": side(16384), "problem.cols": side(16384), "poisson.solver": solver,
                  "poisson.blocked.sweeps_per_launch": sweeps_per_launch,
                  "poisson.max_iterations": args.poisson_sweeps, "poisson.check_every": args.poisson_sweeps,
                  "run.warmup": 1, "run.repeats": 3},
            exact=["output/solution"], close=[], clock="solve_s")

    return {
        "poisson": jacobi("jacobi", 1),
        "poisson_blocked": jacobi("jacobi_blocked", 8),
        "poisson_multigrid": dict(
            title=f"Poisson multigrid V(2,2) {side(16384)}^2 float to 1e-6",
            config="poisson_large_multigrid.yaml",
            sets={"problem.rows": side(16384), "problem.cols": side(16384), "run.warmup": 1, "run.repeats": 3},
            exact=["output/solution"], close=[], clock="solve_s"),
        "smoothing": dict(
            title=f"smoothing box 3x3 {side(32768)}^2 float, 100 passes",
            config="smoothing_100_passes.yaml",
            sets={"image.rows": side(32768), "image.cols": side(32768), "benchmark.baseline": "none",
                  "output.image": "true", "run.warmup": 1, "run.repeats": 2},
            exact=["output/image"], close=[], clock="solve_s"),
        "lombscargle": dict(
            title=f"Lomb-Scargle {side(1000000)} series x 300 x 10^4 frequencies, peaks only",
            config="lombscargle_catalogue.yaml",
            sets={"input.series": side(1000000)},
            exact=["output/peak_frequency", "output/peak_power", "output/peak_fap"], close=[],
            clock="pipeline_s"),
        "lorenz05": dict(
            title=f"Lorenz 2005 model III, {side(1000000)} members, {args.lorenz_steps} steps",
            config="lorenz05_model3_ensemble4096.yaml",
            sets={"ensemble.members": side(1000000), "lorenz05.steps": args.lorenz_steps,
                  "lorenz05.output_every": args.lorenz_steps, "ensemble.spinup_steps": 100,
                  "benchmark.baseline": "none", "output.state": "false", "run.warmup": 1, "run.repeats": 2},
            exact=[], close=["output/mean", "output/spread"], clock="solve_s"),
    }


def run(command, env, log):
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    log.write(f"$ {' '.join(command)}\n{done.stdout}{done.stderr}(exit {done.returncode}, "
              f"{time.monotonic() - start:.1f} s)\n\n")
    log.flush()
    return done


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default="build/openmp/bin/portasolve")
    parser.add_argument("--mpirun", default="mpirun")
    parser.add_argument("--ranks", default="1,2")
    parser.add_argument("--only", default="poisson,poisson_blocked,poisson_multigrid,smoothing,lombscargle,lorenz05")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every size (1: issue 26's sizes)")
    parser.add_argument("--poisson-sweeps", type=int, default=1000)
    parser.add_argument("--lorenz-steps", type=int, default=10)
    parser.add_argument("--threads", type=int, default=0, help="OMP_NUM_THREADS per rank (0: cores / ranks)")
    parser.add_argument("--out", default="results/scaling")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rank_counts = [int(r) for r in args.ranks.split(",")]
    cases = workloads(args)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    cores = os.cpu_count() or 1
    failed = False
    with open(os.path.join(args.out, "scaling.log"), "w") as log:
        for name in args.only.split(","):
            case = cases[name]
            flags = [a for key, value in case["sets"].items() for a in ("--set", f"{key}={value}")]
            rows, first = [], None
            for ranks in rank_counts:
                threads = str(args.threads or max(1, cores // ranks))
                path = os.path.abspath(os.path.join(args.out, f"{name}_{ranks}.h5"))
                done = run([args.mpirun, "-np", str(ranks), "-x", "OMP_NUM_THREADS", "--bind-to", "none", args.bin,
                            "run", os.path.join(CONFIGS, case["config"]), "--quiet", "--overwrite", "--output", path,
                            *flags], dict(env, OMP_NUM_THREADS=threads), log)
                if done.returncode != 0:
                    why = [line for line in done.stderr.splitlines() if "error" in line][:1] or ["(no message)"]
                    rows.append([f"{ranks}", "failed", "", "", "", "", "", "", "", why[0][:160]])
                    failed = True
                    continue
                with open_result(path) as f:
                    seconds = float(f["timing"].attrs[case["clock"]])
                    # halo_s is the last solve's: its share is of the last repeat, not of the median.
                    last = f["timing"]["solve_s_per_repeat"][-1] if "solve_s_per_repeat" in f["timing"] else seconds
                    attrs = f["output"].attrs
                    halo_s = float(attrs.get("halo_s", float("nan")))
                    arrays_s = float(attrs.get("local_arrays_s", float("nan")))
                    transport = text(attrs.get("halo_transport", "-"))
                    device = text(f.attrs.get("device", "?"))
                    data = {d: f[d][...] for d in case["exact"] + case["close"]}
                if first is None:
                    first = (seconds, data)
                    same = "(reference)"
                else:
                    exact = all(np.array_equal(data[d], first[1][d], equal_nan=True) for d in case["exact"])
                    close = all(np.allclose(data[d], first[1][d], rtol=1e-12, atol=0) for d in case["close"])
                    same = ("bit for bit" if case["exact"] else "to 1e-12") if exact and close else "NO"
                    failed |= same == "NO"
                share = f"{halo_s / last:.0%}" if halo_s == halo_s else "-"
                halo = f"{halo_s * 1e3:.1f}" if halo_s == halo_s else "-"
                # Time beyond a perfect split of the first run's: what the exchanges and the split cost. (halo_s
                # is host time inside exchanges, which on the staged path includes waiting for the kernels
                # queued before them, so it overstates the exchange.)
                excess = seconds - first[0] * rank_counts[0] / ranks
                rows.append([f"{ranks}", f"{seconds * 1e3:.1f}", f"{first[0] / seconds:.2f}", f"{excess * 1e3:.1f}",
                             halo, share, f"{arrays_s * 1e3:.1f}" if arrays_s == arrays_s else "-", transport,
                             device.split(";")[0], same])
            print(f"\n{case['title']} ({case['clock']})\n")
            print_table(["ranks", "time ms", "speedup", "ms over t1/R", "halo ms", "halo share", "local arrays ms",
                         "halo transport",
                         "device (rank 0)", "= first rank count"], rows)
            sys.stdout.flush()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
