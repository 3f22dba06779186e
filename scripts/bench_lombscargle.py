#!/usr/bin/env python3
"""Benchmark: the GTC Lomb-Scargle case (N = 2^10 samples, M = 2^20 angular
frequencies, SciPy's classic form) in float and double, against the cuSignal-
style direct kernel timed in the same run, checked against float64; with
--scipy, scipy.signal.lombscargle on the same data on this host; with --batch,
throughput of 1000 series x 1000 samples x 10^4 frequencies.

usage: bench_lombscargle.py [--bin build/openmp/bin/portasolve] [--frequencies M]
                            [--scipy] [--batch] [--out results/bench]
"""

import os
import time

from _bench_common import parse_bench_arguments
from portasolve_results import run_experiment, text


def add_arguments(parser):
    parser.add_argument("--frequencies", type=int, help="override M (default: the config's 2^20)")
    parser.add_argument("--scipy", action="store_true", help="time scipy.signal.lombscargle on the same data")
    parser.add_argument("--batch", action="store_true", help="1000 series x 1000 samples x 10^4 frequencies")
    parser.add_argument("--fast-math", action="store_true", help="CUDA: also the fast-math direct baseline in float")


def main():
    args = parse_bench_arguments(__doc__, "configs/lombscargle_gtc.yaml", add_arguments)
    extra = [f"frequency.count={args.frequencies}"] if args.frequencies else []

    print("| precision | N x M | algorithm | time (ms) | baseline (ms) | speedup | max error / peak |"
          + (" SciPy (ms) | vs SciPy |" if args.scipy else ""))
    print("|---|---|---|---|---|---|---|" + ("---|---|" if args.scipy else ""))
    cases = [("double", "direct"), ("float", "direct")] + [("float", "direct_fast_math")] * args.fast_math
    for precision, baseline in cases:
        path = os.path.join(args.out, f"lombscargle_gtc_{precision}_{baseline}.h5")
        with run_experiment(args.bin, args.config, path, f"precision={precision}", f"benchmark.baseline={baseline}",
                 *extra) as f:
            timing, output = f["timing"].attrs, f["output"]
            n, m = f["input/t"].shape[0], f["output/frequency"].shape[0]
            row = [precision, f"{n} x {m}", text(output.attrs["algorithm"]), f"{1e3 * timing['solve_s']:.3f}",
                   f"{baseline} {1e3 * timing['baseline_s']:.3f}", f"{timing['speedup']:.2f}x",
                   f"{f['validation'].attrs['max_rel_err']:.1e}"]
            device = text(f.attrs["device"])
            if args.scipy:
                from scipy.signal import lombscargle
                t, y, w = f["input/t"][()], f["input/y"][()], f["output/frequency"][()]
                start = time.perf_counter()
                reference = lombscargle(t, y, w)
                scipy_s = time.perf_counter() - start
                ours = f["output/power"][()]
                error = abs(ours - reference).max() / abs(reference).max()
                row += [f"{1e3 * scipy_s:.0f} (ours vs SciPy {error:.1e})", f"{scipy_s / timing['solve_s']:.1f}x"]
        print("| " + " | ".join(row) + " |")
    print(f"\ndevice: {device}")

    if args.batch:
        path = os.path.join(args.out, "lombscargle_batch.h5")
        sets = ["precision=float", "input.series=1000", "input.samples=1000", "frequency.grid=uniform",
                "frequency.angular=false", "frequency.minimum=0.01", "frequency.maximum=5", "frequency.count=10000",
                "lombscargle.form=generalized", "benchmark.baseline=direct", "validation.reference=none",
                "run.repeats=5", "run.warmup=1"]
        for precision in ("float", "double"):
            sets[0] = f"precision={precision}"
            with run_experiment(args.bin, args.config, path, *sets) as f:
                timing = f["timing"].attrs
                pairs = 1000 * 1000 * 10000
                print(f"batch {precision}: 1000 series x 1000 samples x 10^4 frequencies (generalized, standard): "
                      f"{1e3 * timing['solve_s']:.1f} ms = {pairs / timing['solve_s'] / 1e9:.0f} G pairs/s "
                      f"({text(f['output'].attrs['algorithm'])}; direct {1e3 * timing['baseline_s']:.1f} ms)")


if __name__ == "__main__":
    main()
