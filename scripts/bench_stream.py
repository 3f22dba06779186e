#!/usr/bin/env python3
"""Benchmark: STREAM on the configured backend, float and double, against the
vendor copy (Kokkos::deep_copy: cudaMemcpy / parallel memcpy) timed in the same
run and, with --numpy, against NumPy on this host. Prints a Markdown table.

usage: bench_stream.py [--bin build/openmp/bin/portasolve] [--config configs/stream.yaml]
                       [--size N] [--numpy] [--out results/bench]
"""

import os
import time

import numpy as np

from _bench_common import parse_bench_arguments
from portasolve_results import run_experiment, strings, text


def numpy_bandwidth(n, dtype, repeats):
    """Best GB/s of NumPy's STREAM equivalents, written without temporaries."""
    a = np.full(n, 1.0, dtype)
    b = np.full(n, 2.0, dtype)
    c = np.zeros(n, dtype)
    s = dtype(3.0)
    item = np.dtype(dtype).itemsize
    operations = {
        "copy": (lambda: np.copyto(c, a), 2),
        "scale": (lambda: np.multiply(c, s, out=b), 2),
        "add": (lambda: np.add(a, b, out=c), 3),
        "triad": (lambda: (np.multiply(c, s, out=a), np.add(a, b, out=a)), 3),  # two passes, as NumPy must
    }
    result = {}
    for name, (work, arrays) in operations.items():
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            work()
            best = min(best, time.perf_counter() - start)
        result[name] = arrays * n * item / best / 1e9
    return result


def add_arguments(parser):
    parser.add_argument("--size", type=int, help="elements per array (default: the config's)")
    parser.add_argument("--numpy", action="store_true", help="also time NumPy on this host (CPU baseline)")


def main():
    args = parse_bench_arguments(__doc__, "configs/stream.yaml", add_arguments)

    rows = []
    for precision in ("float", "double"):
        output = os.path.join(args.out, f"stream_{precision}.h5")
        sets = [f"precision={precision}"] + ([f"stream.size={args.size}"] if args.size else [])
        with run_experiment(args.bin, args.config, output, *sets) as f:
            names = strings(f["output/operation"])
            bandwidth = dict(zip(names, f["output/bandwidth"][()]))
            n = int(f["input"].attrs["size"])
            device = text(f.attrs["device"])
            space = text(f.attrs["execution_space"])
        baseline = numpy_bandwidth(n, np.float32 if precision == "float" else np.float64, 10) if args.numpy else {}
        vendor = bandwidth.get("deep_copy")
        for name in names:
            row = [precision, name, f"{bandwidth[name]:.1f}"]
            row.append(f"{bandwidth[name] / vendor:.2f}" if vendor else "-")
            if args.numpy:
                row.append(f"{baseline[name]:.1f}" if name in baseline else "-")
                row.append(f"{bandwidth[name] / baseline[name]:.1f}x" if name in baseline else "-")
            rows.append(row)

    print(f"STREAM, {n} elements per array, {space} on {device}\n")
    header = ["precision", "operation", "GB/s", "/ deep_copy"] + (["NumPy GB/s", "vs NumPy"] if args.numpy else [])
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
