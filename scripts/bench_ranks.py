#!/usr/bin/env python3
"""Benchmark: Poisson Jacobi over MPI ranks (issue 23). Prints a Markdown table.

Runs configs/poisson_ranks.yaml (plain Jacobi, a fixed number of sweeps) under
`mpirun -np R` for each R in --ranks, and once without mpirun as the
single-process baseline in the same run; reports the solve time, the time per
sweep, the speedup over the baseline, the slowest rank's halo time and its
share, and whether the solution equals the baseline's bit for bit.

usage: bench_ranks.py [--bin build/openmp/bin/portasolve] [--ranks 1,2] [--threads N]
                      [--rows N --cols N --sweeps N --precision float|double] [--out results/bench]
On a GPU node each rank takes its own GPU (node-local rank), or shares one.
"""

import argparse
import os
import subprocess
import sys

import numpy as np

from portasolve_results import open_result, print_table


def run(command, env):
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default="build/openmp/bin/portasolve")
    parser.add_argument("--mpirun", default="mpirun")
    parser.add_argument("--config", default=os.path.join(here, "..", "configs", "poisson_ranks.yaml"))
    parser.add_argument("--ranks", default="1,2")
    parser.add_argument("--threads", type=int, default=0, help="OMP_NUM_THREADS per rank (0: cores / ranks)")
    parser.add_argument("--rows", type=int, default=0)
    parser.add_argument("--cols", type=int, default=0)
    parser.add_argument("--sweeps", type=int, default=0)
    parser.add_argument("--precision", default="")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="results/bench")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    settings = [f"run.repeats={args.repeats}", "run.warmup=1"]
    for key, value in (("problem.rows", args.rows), ("problem.cols", args.cols),
                       ("poisson.max_iterations", args.sweeps), ("poisson.check_every", args.sweeps),
                       ("precision", args.precision)):
        if value:
            settings.append(f"{key}={value}")
    flags = [a for s in settings for a in ("--set", s)]
    cores = os.cpu_count() or 1
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")

    def threads_for(ranks):
        return str(args.threads or max(1, cores // ranks))

    baseline_path = os.path.join(args.out, "ranks_baseline.h5")
    run([args.bin, "run", args.config, "--quiet", "--overwrite", "--output", baseline_path, *flags],
        dict(env, OMP_NUM_THREADS=threads_for(1)))
    with open_result(baseline_path) as f:
        baseline_x = f["output/solution"][...]
        baseline_s = float(f["timing"].attrs["solve_s"])
        sweeps = int(f["output"].attrs["iterations"])
        rows, cols = baseline_x.shape
        device = f.attrs["device"]
    table = [["1 process (no MPI)", threads_for(1), f"{baseline_s * 1e3:.1f}", f"{baseline_s / sweeps * 1e6:.1f}",
              "1.00", "-", "-", "-"]]
    for ranks in (int(r) for r in args.ranks.split(",")):
        path = os.path.join(args.out, f"ranks_{ranks}.h5")
        # --bind-to none: Open MPI binds each of 1 or 2 ranks to one core by default, which puts a rank's
        # OpenMP threads on that one core (1 rank of 2 threads ran at half the speed of the plain process).
        run([args.mpirun, "-np", str(ranks), "--bind-to", "none", "-x", "OMP_NUM_THREADS", args.bin, "run",
             args.config, "--quiet",
             "--overwrite", "--output", path, *flags], dict(env, OMP_NUM_THREADS=threads_for(ranks)))
        with open_result(path) as f:
            x = f["output/solution"][...]
            solve_s = float(f["timing"].attrs["solve_s"])
            attrs = f["output"].attrs
            halo_s = float(attrs.get("halo_s", 0.0))
            grid = attrs.get("process_grid", "1x1")
            grid = grid.decode() if isinstance(grid, bytes) else grid
            halo_per_solve = halo_s  # the last repeat's, as solve_s is a repeat's (median)
        table.append([f"{ranks} rank(s), {grid}", threads_for(ranks), f"{solve_s * 1e3:.1f}",
                      f"{solve_s / sweeps * 1e6:.1f}", f"{baseline_s / solve_s:.2f}", f"{halo_per_solve * 1e3:.1f}",
                      f"{halo_per_solve / solve_s:.0%}", "yes" if np.array_equal(x, baseline_x) else "NO"])
    print(f"Poisson jacobi over MPI ranks, {rows}x{cols} {baseline_x.dtype}, {sweeps} sweeps, on {device}\n")
    print_table(["run", "threads/rank", "solve ms", "us/sweep", "speedup", "halo ms", "halo share",
                 "= 1 process bit for bit"], table)


if __name__ == "__main__":
    main()
