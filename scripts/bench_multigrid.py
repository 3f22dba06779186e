#!/usr/bin/env python3
"""Benchmark: geometric multigrid's cycles to a tolerance as the grid grows. Prints a Markdown table.

For each size N, the talk's synthetic image on an N x N grid
(configs/poisson_image_multigrid.yaml's problem) solved to --tolerance by each
--variant (CYCLE:SMOOTHER, e.g. v:rbgs w:chebyshev): cycles, the average
convergence factor per cycle, the worst ratio of consecutive residuals, and the
solve time (median over run.repeats). Multigrid's cycle count should not grow with N.

usage: bench_multigrid.py [--bin build/openmp/bin/portasolve] [--sizes 257 513 ... 4097]
                          [--variant v:rbgs ...] [--precision double] [--tolerance 1e-8] [--out results/bench]
"""

import argparse
import os

from portasolve_results import print_table, run_experiment, text


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default="build/openmp/bin/portasolve")
    parser.add_argument("--sizes", type=int, nargs="+", default=[257, 513, 1025, 2049, 4097])
    parser.add_argument("--variant", nargs="+", default=["v:rbgs", "w:rbgs", "f:rbgs", "v:jacobi", "v:chebyshev"])
    parser.add_argument("--precision", choices=["float", "double"], default="double")
    parser.add_argument("--tolerance", type=float, default=1e-8)
    parser.add_argument("--out", default="results/bench")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    output = os.path.join(args.out, "multigrid.h5")

    rows = []
    for variant in args.variant:
        cycle, smoother = variant.split(":")
        for n in args.sizes:
            with run_experiment(args.bin, "configs/poisson_image_multigrid.yaml", output,
                                f"precision={args.precision}", f"problem.rows={n}", f"problem.cols={n}",
                                f"poisson.tolerance={args.tolerance}", "poisson.max_iterations=100",
                                f"poisson.multigrid.cycle={cycle}", f"poisson.multigrid.smoother={smoother}",
                                "output.input_arrays=false", "output.pgm=" + os.path.join(args.out, "multigrid.pgm")) as f:
                attrs = f["output"].attrs
                history = f["output/residual_history"][()]
                ratios = [history[k, 1] / history[k - 1, 1] for k in range(1, len(history))]
                rows.append([f"{cycle.upper()}(2,2) {smoother}", f"{n}^2", str(int(attrs["iterations"])),
                             f"{attrs['convergence_factor']:.3f}", f"{max(ratios) if ratios else 0:.3f}",
                             f"{f['timing'].attrs['solve_s']:.4g}", text(attrs["stop_reason"])])
    print_table(["variant", "grid", "cycles", "mean factor", "worst factor", "solve s", "stop"], rows)


if __name__ == "__main__":
    main()
