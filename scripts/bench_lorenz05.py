#!/usr/bin/env python3
"""Benchmark: Lorenz (2005) ensembles on the configured backend, model III (N = 960) or Lorenz 96.

For each ensemble size the model's config (--model 3: configs/lorenz05_model3_ensemble4096.yaml, N = 960;
--model 1: configs/lorenz96.yaml, Lorenz 96 with N = 40, F = 8) is run with the members set, the chosen
layout (team: a member per team, a whole window per launch; vector: a member per thread, points in SIMD
lanes, the CPUs' layout; resident: several members per team, blocks of points per thread, every row in
team scratch, the GPUs' layout) against the flat one-kernel-per-stage layout timed in the same run. With --jax
(Lorenz 96 only) a plain JAX program is timed in the same run as the peer issue 25 names: jit +
lax.fori_loop over RK4 steps, members as a batch axis, jnp.roll for the neighbours, float64, the time of
a second call (the first compiles), median of 3. Prints member-steps per second as a Markdown table.

usage: bench_lorenz05.py [--bin build/openmp/bin/portasolve] [--model 3|1] [--members 40 4096]
                         [--steps 40:1000 4096:200] [--precision double] [--layout team] [--jax]
                         [--out results/bench]
"""

import argparse
import os
import statistics
import time

import numpy as np

from portasolve_results import print_table, run_experiment, text

CONFIGS = {3: "configs/lorenz05_model3_ensemble4096.yaml", 1: "configs/lorenz96.yaml"}


def jax_lorenz96_rate(members, steps, size=40, forcing=8.0, delta_t=0.05, repeats=3):
    """Member-steps per second of a plain JAX Lorenz 96 ensemble (float64) on JAX's default device."""
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    def tendency(x):  # x: (members, size); dx_i/dt = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F
        return (jnp.roll(x, -1, axis=1) - jnp.roll(x, 2, axis=1)) * jnp.roll(x, 1, axis=1) - x + forcing

    def rk4(_, x):
        k1 = tendency(x)
        k2 = tendency(x + 0.5 * delta_t * k1)
        k3 = tendency(x + 0.5 * delta_t * k2)
        k4 = tendency(x + delta_t * k3)
        return x + delta_t / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)

    run = jax.jit(lambda x: jax.lax.fori_loop(0, steps, rk4, x))
    rng = np.random.default_rng(1)
    state = jnp.asarray(forcing + 0.01 * rng.standard_normal((members, size)), dtype=jnp.float64)
    run(state).block_until_ready()  # compile
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        final = run(state).block_until_ready()
        times.append(time.perf_counter() - start)
    if not bool(jnp.all(jnp.isfinite(final))):
        raise RuntimeError("the JAX peer's ensemble is not finite")
    return members * steps / statistics.median(times), str(jax.devices()[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/openmp/bin/portasolve")
    parser.add_argument("--model", type=int, default=3, choices=sorted(CONFIGS),
                        help="3: model III, N = 960; 1: Lorenz 96, N = 40")
    parser.add_argument("--members", type=int, nargs="+", default=[40, 4096])
    parser.add_argument("--steps", nargs="+", default=["40:1000", "4096:200"],
                        help="steps per ensemble size, E:STEPS (others: 200)")
    parser.add_argument("--precision", default="double")
    parser.add_argument("--layout", default="team", choices=["team", "vector", "resident", "automatic"],
                        help="the layout timed against the flat baseline")
    parser.add_argument("--jax", action="store_true", help="time the JAX Lorenz 96 peer in the same run (--model 1)")
    parser.add_argument("--out", default="results/bench")
    args = parser.parse_args()
    if args.jax and args.model != 1:
        parser.error("--jax: the JAX peer is Lorenz 96 (--model 1)")
    if args.jax and args.precision != "double":
        parser.error("--jax: the JAX peer runs in float64 (--precision double)")
    os.makedirs(args.out, exist_ok=True)
    steps = {int(k): int(v) for k, v in (s.split(":") for s in args.steps)}
    rows = []
    jax_device = None
    for members in args.members:
        count = steps.get(members, 200)
        output = os.path.join(args.out, f"lorenz05_model{args.model}_{members}.h5")
        with run_experiment(args.bin, CONFIGS[args.model], output,
                            f"ensemble.members={members}", f"lorenz05.steps={count}",
                            f"lorenz05.output_every={count}", f"precision={args.precision}",
                            f"lorenz05.layout={args.layout}", "benchmark.baseline=flat") as f:
            timing, out = f["timing"].attrs, f["output"].attrs
            solve, flat = float(timing["solve_s"]), float(timing["baseline_s"])
            device, space = text(f.attrs["device"]), text(f.attrs["execution_space"])
            layout = text(out["layout"])
            row = [str(members), str(count), f"{members * count / solve:.4g}", f"{members * count / flat:.4g}",
                   f"{flat / solve:.2f}", f"{float(out['baseline_max_difference']):.1e}"]
        if args.jax:
            rate, jax_device = jax_lorenz96_rate(members, count)
            row += [f"{rate:.4g}", f"{members * count / solve / rate:.2f}"]
        rows.append(row)
    name = "model III, N = 960" if args.model == 3 else "Lorenz 96 (model I), N = 40, F = 8"
    print(f"Lorenz 2005 {name}, {args.precision}, {space} on {device}"
          + (f"; JAX peer on {jax_device}" if jax_device else "") + "\n")
    header = ["members", "steps", f"{layout} (member-steps/s)", "flat baseline (member-steps/s)", f"{layout} / flat",
              "max difference"]
    if args.jax:
        header += ["JAX (member-steps/s)", f"{layout} / JAX"]
    print_table(header, rows)


if __name__ == "__main__":
    main()
