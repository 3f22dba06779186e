#!/usr/bin/env python3
"""Benchmark: Lorenz (2005) model III ensembles, N = 960, on the configured backend.

For each ensemble size (E = 40 and E = 4096 by default) the config
configs/lorenz05_model3_ensemble4096.yaml is run with the members set, the team
layout (a member per team, a whole window per launch; --layout vector: a member
per thread, points in SIMD lanes, the CPUs' layout) against the flat
one-kernel-per-stage layout timed in the same run. Prints member-steps per
second as a Markdown table; run it on the GPU and on the CPU and compare.

usage: bench_lorenz05.py [--bin build/openmp/bin/portasolve] [--members 40 4096]
                         [--steps 40:1000 4096:200] [--precision double] [--layout team]
                         [--out results/bench]
"""

import argparse
import os

from portasolve_results import print_table, run_experiment, text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/openmp/bin/portasolve")
    parser.add_argument("--members", type=int, nargs="+", default=[40, 4096])
    parser.add_argument("--steps", nargs="+", default=["40:1000", "4096:200"],
                        help="steps per ensemble size, E:STEPS (others: 200)")
    parser.add_argument("--precision", default="double")
    parser.add_argument("--layout", default="team", choices=["team", "vector", "automatic"],
                        help="the layout timed against the flat baseline")
    parser.add_argument("--out", default="results/bench")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    steps = {int(k): int(v) for k, v in (s.split(":") for s in args.steps)}
    rows = []
    for members in args.members:
        count = steps.get(members, 200)
        output = os.path.join(args.out, f"lorenz05_{members}.h5")
        with run_experiment(args.bin, "configs/lorenz05_model3_ensemble4096.yaml", output,
                            f"ensemble.members={members}", f"lorenz05.steps={count}",
                            f"lorenz05.output_every={count}", f"precision={args.precision}",
                            f"lorenz05.layout={args.layout}") as f:
            timing, out = f["timing"].attrs, f["output"].attrs
            solve, flat = float(timing["solve_s"]), float(timing["baseline_s"])
            device, space = text(f.attrs["device"]), text(f.attrs["execution_space"])
            layout = text(out["layout"])
            rows.append([str(members), str(count), f"{members * count / solve:.4g}", f"{members * count / flat:.4g}",
                         f"{flat / solve:.2f}", f"{float(out['baseline_max_difference']):.1e}"])
    print(f"Lorenz 2005 model III, N = 960, {args.precision}, {space} on {device}\n")
    print_table(["members", "steps", f"{layout} (member-steps/s)", "flat baseline (member-steps/s)", f"{layout} / flat",
                 "max difference"], rows)


if __name__ == "__main__":
    main()
