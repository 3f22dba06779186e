#!/usr/bin/env python3
"""Benchmark: a survey catalogue from an HDF5 file on disk to peaks + false-
alarm probabilities written (configs/lombscargle_catalogue.yaml): light curves
per second end to end, the solve-only rate beside it, and the disk's read rate
of the same file as the I/O floor; with --astropy, astropy's `fast` method on
the same light curves in the same run, and both against astropy's exact
(`cython`) periodogram on the first curves.

usage: bench_catalogue.py [--bin build/openmp/bin/portasolve] [--series 1000000]
                          [--samples 300] [--astropy K] [--out results/bench] [--set KEY=VALUE]
"""

import argparse
import os
import time

import h5py
import numpy as np

from portasolve_results import run_experiment, text

CONFIG = "configs/lombscargle_catalogue.yaml"
BLOCK = 20000  # light curves generated and written at a time


def make_catalogue(path, series, samples, seed=1):
    """Times in [0, 100) (float64), a sinusoid of random frequency in [0.05, 4.5]
    and amplitude plus Gaussian noise of known sigma (float32 values and sigmas)."""
    rng = np.random.default_rng(seed)
    with h5py.File(path, "w") as f:
        t = f.create_dataset("t", (series, samples), dtype="f8")
        y = f.create_dataset("y", (series, samples), dtype="f4")
        dy = f.create_dataset("dy", (series, samples), dtype="f4")
        f["signal_frequency"] = np.empty(0)
        frequencies = []
        for first in range(0, series, BLOCK):
            n = min(BLOCK, series - first)
            times = np.sort(rng.uniform(0, 100, (n, samples)), axis=1)
            frequency = rng.uniform(0.05, 4.5, (n, 1))
            sigma = rng.uniform(0.1, 0.5, (n, samples))
            values = 10 + rng.uniform(0.2, 1.0, (n, 1)) * np.sin(2 * np.pi * frequency * times + rng.uniform(
                0, 2 * np.pi, (n, 1))) + sigma * rng.standard_normal((n, samples))
            t[first:first + n], y[first:first + n], dy[first:first + n] = times, values, sigma
            frequencies.append(frequency[:, 0])
        del f["signal_frequency"]
        f["signal_frequency"] = np.concatenate(frequencies)


def read_rate(path):
    """Bytes per second of reading the catalogue's datasets back once (the page
    cache as the machine has it: a file just written may be served from memory)."""
    start, size = time.perf_counter(), 0
    with h5py.File(path, "r") as f:
        for name in ("t", "y", "dy"):
            for first in range(0, f[name].shape[0], BLOCK):
                size += f[name][first:first + BLOCK].nbytes
    return size / (time.perf_counter() - start), size


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/openmp/bin/portasolve")
    parser.add_argument("--series", type=int, default=1000000)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--precision", default="float")
    parser.add_argument("--astropy", type=int, default=0, metavar="K",
                        help="time astropy's fast method on the first K curves (per curve against ours)")
    parser.add_argument("--check", type=int, default=20, help="curves compared with astropy's exact periodogram")
    parser.add_argument("--out", default="results/bench")
    parser.add_argument("--set", action="append", default=[], help="more config settings (KEY=VALUE)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    catalogue = os.path.join(args.out, f"catalogue_{args.series}x{args.samples}.h5")
    if not os.path.exists(catalogue):
        start = time.perf_counter()
        make_catalogue(catalogue, args.series, args.samples)
        print(f"made {catalogue} in {time.perf_counter() - start:.1f} s")
    rate, size = read_rate(catalogue)
    print(f"catalogue: {args.series} curves x {args.samples} samples, {size / 1e9:.2f} GB; "
          f"read back by h5py at {rate / 1e9:.2f} GB/s = {rate / (size / args.series):.3g} curves/s (I/O floor)")

    path = os.path.join(args.out, "catalogue_result.h5")
    with run_experiment(args.bin, CONFIG, path, "input.source=hdf5", f"input.file={catalogue}",
                        f"precision={args.precision}", *args.set) as f:
        timing, output = f["timing"].attrs, f["output"].attrs
        pipeline_s, solve_s = float(timing["pipeline_s"]), float(timing["solve_s"])
        found = f["output/summary/frequency"][()]
        device = text(f.attrs["device"])
        print(f"portasolve ({device}, {args.precision}, {text(output['algorithm'])}): {pipeline_s:.2f} s end to end "
              f"= {args.series / pipeline_s:.4g} curves/s; solve only {solve_s:.3f} s = {args.series / solve_s:.4g} "
              f"curves/s; {int(output['chunks'])} chunks of {int(output['chunk_series'])}, "
              f"{int(output.get('chunks_in_flight', 1))} in flight "
              f"({float(output['chunk_memory_bytes']) / 2**20:.0f} MiB a chunk, "
              f"{float(output['memory_bytes']) / 2**20:.0f} MiB held at most)")
        split = {name[:-2]: value for name, value in timing.items() if name.endswith("_s") and name != "series_per_s" and np.isscalar(value)
                 and np.issubdtype(np.asarray(value).dtype, np.number)}
        print("the driver's time split (s): " + ", ".join(f"{name} {float(value):.3f}" for name, value in split.items()))
    with h5py.File(catalogue, "r") as c:
        truth = c["signal_frequency"][()]
    recovered = np.mean(np.abs(found - truth) < 0.01)
    print(f"best frequency within 0.01 of the injected one: {100 * recovered:.1f}% of the curves")

    if args.astropy:
        from astropy.timeseries import LombScargle
        count = min(args.astropy, args.series)
        with h5py.File(catalogue, "r") as c:
            t, y, dy = c["t"][:count], c["y"][:count].astype(np.float64), c["dy"][:count].astype(np.float64)
        grid = np.linspace(0.01, 5.0, 10000)
        start = time.perf_counter()
        for s in range(count):
            LombScargle(t[s], y[s], dy[s]).power(grid, method="fast")
        astropy_rate = count / (time.perf_counter() - start)
        ours_rate = args.series / pipeline_s
        print(f"astropy fast on {count} curves: {astropy_rate:.4g} curves/s (power only, in memory); portasolve end "
              f"to end {ours_rate / astropy_rate:.1f}x faster per curve")
        # Accuracy on the first curves: ours (power written) and astropy's fast, against its exact method.
        check = os.path.join(args.out, "catalogue_check.h5")
        with h5py.File(check, "w") as small:
            small["t"], small["y"], small["dy"] = t[:args.check], y[:args.check], dy[:args.check]
        with run_experiment(args.bin, CONFIG, os.path.join(args.out, "catalogue_check_result.h5"),
                            "input.source=hdf5", f"input.file={check}", f"precision={args.precision}",
                            "output.power=all") as f:
            ours = f["output/power"][()]
        ours_error = fast_error = 0.0
        for s in range(min(args.check, count)):
            exact = LombScargle(t[s], y[s], dy[s]).power(grid, method="cython")
            fast = LombScargle(t[s], y[s], dy[s]).power(grid, method="fast")
            ours_error = max(ours_error, np.abs(ours[s] - exact).max() / exact.max())
            fast_error = max(fast_error, np.abs(fast - exact).max() / exact.max())
        print(f"max error / peak against astropy's exact method on {args.check} curves: portasolve "
              f"{ours_error:.1e}, astropy fast {fast_error:.1e}")


if __name__ == "__main__":
    main()
