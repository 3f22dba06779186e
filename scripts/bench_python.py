#!/usr/bin/env python3
"""Benchmark: the Python package against the Python libraries its users call today (issue 22). Prints Markdown.

Same process, same arrays, timed back to back (median of --repeats runs after one warm-up):
  overhead     per-call time of portasolve.signal.lombscargle on a tiny problem (N = 100 samples, M = 1000
               frequencies) and on an almost empty one (N = 2, M = 1: the call's host overhead), against
               scipy.signal.lombscargle on the same arrays; the same for ndimage.uniform_filter on 8x8
  astropy      portasolve.timeseries.LombScargle(t, y, dy).power(f) (method auto: exact sums; and method
               "fast": the NUFFT) against astropy's method="fast" (approximate) and method="cython" (exact)
               on N = 1024 samples, M = 2^16 frequencies; errors of each against astropy's cython result
  ndimage      portasolve.ndimage.uniform_filter / gaussian_filter on a 4096^2 float32 image against
               scipy.ndimage's, and the largest difference
  gpu          (CUDA build, CuPy) the same calls on CuPy arrays, used in place on the GPU, against cupyx.scipy
               on the same arrays: the GTC case (N = 2^10, M = 2^20, angular, float32 and float64) against
               cupyx.scipy.signal.lombscargle, uniform_filter / gaussian_filter on 16384^2 float32 against
               cupyx.scipy.ndimage, and the per-call time on a tiny problem (NumPy and CuPy arrays)
  gpu_setup    (CUDA build, CuPy) what a Lomb-Scargle call costs besides its sums: N = 2 samples at M = 2^10,
               2^16, 2^20 frequencies, through the package and through the extension directly (uniform
               frequencies as their ends or all values; NumPy or CuPy output), and the GPU check of the frequencies

usage: PYTHONPATH=build/openmp/python python3 scripts/bench_python.py [--only overhead,astropy,ndimage,gpu]
       [--repeats 5] [--cli BUILD/bin/portasolve (the gpu case: the program's solve time on the GTC case)]
(on the CPU build set OMP_NUM_THREADS, OMP_PROC_BIND=spread OMP_PLACES=threads as for the other benchmarks)
"""

import argparse
import statistics
import sys
import time

import numpy as np

import portasolve


def median_seconds(call, repeats, inner=1):
    """Median over `repeats` of the time of `inner` calls, divided by `inner`, after one warm-up."""
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            call()
        times.append((time.perf_counter() - start) / inner)
    return statistics.median(times)


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(cell) for cell in row) + " |")
    print()


def overhead(args):
    import scipy.ndimage
    import scipy.signal

    rng = np.random.default_rng(1)
    rows = []
    for n, m in ((100, 1000), (2, 1)):
        x = np.sort(rng.uniform(0, 100, n))
        y = np.sin(0.7 * x) + rng.normal(0, 0.3, n)
        w = np.linspace(0.01, 3, m) if m > 1 else np.array([0.7])
        ours = median_seconds(lambda: portasolve.signal.lombscargle(x, y, w), args.repeats, inner=200)
        scipy_s = median_seconds(lambda: scipy.signal.lombscargle(x, y, w), args.repeats, inner=200)
        rows.append([f"signal.lombscargle, N = {n}, M = {m}", f"{ours * 1e6:.1f}", f"{scipy_s * 1e6:.1f}",
                     f"{scipy_s / ours:.2f}"])
    img = rng.random((8, 8)).astype(np.float32)
    ours = median_seconds(lambda: portasolve.ndimage.uniform_filter(img, 3), args.repeats, inner=200)
    scipy_s = median_seconds(lambda: scipy.ndimage.uniform_filter(img, 3), args.repeats, inner=200)
    rows.append(["ndimage.uniform_filter, 8x8 float32, size 3", f"{ours * 1e6:.1f}", f"{scipy_s * 1e6:.1f}",
                 f"{scipy_s / ours:.2f}"])
    print("Per-call time on tiny problems (us per call, median of runs of 200 calls)\n")
    table(["call", "portasolve us", "SciPy us", "SciPy / portasolve"], rows)


def astropy_case(args):
    from astropy.timeseries import LombScargle as AstropyLombScargle

    rng = np.random.default_rng(2)
    n, m = 1024, 2 ** 16
    t = np.sort(rng.uniform(0, 100, n))
    dy = rng.uniform(0.1, 0.3, n)
    y = np.sin(2 * np.pi * 0.4 * t) + rng.normal(0, 1, n) * dy
    f = np.linspace(0.001, 5, m)
    theirs = AstropyLombScargle(t, y, dy)
    ours = portasolve.timeseries.LombScargle(t, y, dy)
    reference = theirs.power(f, method="cython")
    scale = np.max(np.abs(reference))
    runs = {
        "astropy cython (exact)": lambda: theirs.power(f, method="cython"),
        "astropy fast (approximate)": lambda: theirs.power(f, method="fast"),
        "portasolve auto (exact sums)": lambda: ours.power(f),
        "portasolve fast (NUFFT)": lambda: ours.power(f, method="fast"),
    }
    seconds = {name: median_seconds(run, args.repeats) for name, run in runs.items()}
    fast = seconds["astropy fast (approximate)"]
    rows = []
    for name, run in runs.items():
        error = np.max(np.abs(run() - reference)) / scale
        rows.append([name, f"{seconds[name] * 1e3:.2f}", f"{fast / seconds[name]:.2f}", f"{error:.1e}"])
    print(f"astropy LombScargle(t, y, dy).power(f), N = {n}, M = 2^16, float64\n")
    table(["method", "ms", "astropy fast / this", "max error / peak (vs astropy cython)"], rows)


def ndimage_case(args):
    import scipy.ndimage

    rng = np.random.default_rng(3)
    img = rng.random((4096, 4096)).astype(np.float32)
    cases = {
        "uniform_filter size 3, reflect": (lambda: portasolve.ndimage.uniform_filter(img, 3),
                                           lambda: scipy.ndimage.uniform_filter(img, 3)),
        "gaussian_filter sigma 2, reflect": (lambda: portasolve.ndimage.gaussian_filter(img, 2.0),
                                             lambda: scipy.ndimage.gaussian_filter(img, 2.0)),
    }
    rows = []
    for name, (ours, theirs) in cases.items():
        ours_s = median_seconds(ours, args.repeats)
        theirs_s = median_seconds(theirs, args.repeats)
        difference = float(np.max(np.abs(ours().astype(np.float64) - theirs().astype(np.float64))))
        rows.append([name, f"{ours_s * 1e3:.1f}", f"{theirs_s * 1e3:.1f}", f"{theirs_s / ours_s:.2f}",
                     f"{difference:.1e}"])
    print("scipy.ndimage on a 4096^2 float32 image\n")
    table(["call", "portasolve ms", "SciPy ms", "SciPy / portasolve", "max difference"], rows)


def gpu_case(args):
    import cupy
    import cupyx.scipy.ndimage
    import cupyx.scipy.signal

    def synced(call):
        def run():
            call()
            cupy.cuda.Device().synchronize()
        return run

    rng = np.random.default_rng(4)
    rows = []
    # The GTC talk's case (configs/lombscargle_gtc.yaml): N = 2^10 samples over 100 time units, 2^20 angular
    # frequencies from 0.01 to 10.
    n, m = 1024, 2 ** 20
    x = np.sort(rng.uniform(0, 100, n))
    y = np.sin(2 * np.pi * 0.25 * x) + rng.normal(0, 0.5, n)
    w = np.linspace(0.01, 10.0, m)
    cli = {}
    if args.cli:  # the program's solve time on the same case (its own synthetic series of the same size)
        for dtype in (np.float64, np.float32):
            for algorithm in ("auto", "nufft", "direct"):
                cli[(np.dtype(dtype).name, algorithm)] = cli_solve_ms(
                    args.cli, "double" if dtype == np.float64 else "float", algorithm)
    for dtype in (np.float64, np.float32):
        xd, yd, wd = (cupy.asarray(a.astype(dtype)) for a in (x, y, w))
        theirs = synced(lambda: cupyx.scipy.signal.lombscargle(xd, yd, wd))
        reference = cupy.asnumpy(cupyx.scipy.signal.lombscargle(*(cupy.asarray(a) for a in (x, y, w))))
        theirs_s = median_seconds(theirs, args.repeats)
        for algorithm in ("auto", "nufft", "direct"):
            ours = synced(lambda: portasolve.signal.lombscargle(xd, yd, wd, algorithm=algorithm))
            ours_s = median_seconds(ours, args.repeats)
            power = cupy.asnumpy(portasolve.signal.lombscargle(xd, yd, wd, algorithm=algorithm))
            error = float(np.max(np.abs(power - reference)) / np.max(reference))
            solve = cli.get((np.dtype(dtype).name, algorithm))
            versus_cli = f"; CLI solve {solve:.3f} ms, package / CLI {ours_s * 1e3 / solve:.2f}" if solve else ""
            rows.append([f"signal.lombscargle GTC {np.dtype(dtype).name}, {algorithm}", f"{ours_s * 1e3:.3f}",
                         f"{theirs_s * 1e3:.3f} (cupyx)", f"{theirs_s / ours_s:.1f}", f"{error:.1e}{versus_cli}"])
    image = cupy.asarray(rng.random((16384, 16384)).astype(np.float32))
    for name, ours, theirs in (
            ("ndimage.uniform_filter 16384^2 float32, size 3", lambda: portasolve.ndimage.uniform_filter(image, 3),
             lambda: cupyx.scipy.ndimage.uniform_filter(image, 3)),
            ("ndimage.gaussian_filter 16384^2 float32, sigma 2",
             lambda: portasolve.ndimage.gaussian_filter(image, 2.0),
             lambda: cupyx.scipy.ndimage.gaussian_filter(image, 2.0))):
        ours_s = median_seconds(synced(ours), args.repeats)
        theirs_s = median_seconds(synced(theirs), args.repeats)
        difference = float(cupy.max(cupy.abs(ours() - theirs())))
        rows.append([name, f"{ours_s * 1e3:.3f}", f"{theirs_s * 1e3:.3f} (cupyx)", f"{theirs_s / ours_s:.1f}",
                     f"{difference:.1e}"])
    del image
    xs = np.sort(rng.uniform(0, 100, 100))
    ys = np.sin(0.7 * xs)
    ws = np.linspace(0.01, 3, 1000)
    xsd, ysd, wsd = (cupy.asarray(a) for a in (xs, ys, ws))
    for label, arrays in (("NumPy", (xs, ys, ws)), ("CuPy", (xsd, ysd, wsd))):
        ours_s = median_seconds(synced(lambda: portasolve.signal.lombscargle(*arrays)), args.repeats, inner=200)
        theirs_s = median_seconds(synced(lambda: cupyx.scipy.signal.lombscargle(xsd, ysd, wsd)), args.repeats,
                                  inner=200)
        rows.append([f"signal.lombscargle N = 100, M = 1000, {label} arrays (per call)", f"{ours_s * 1e3:.3f}",
                     f"{theirs_s * 1e3:.3f} (cupyx)", f"{theirs_s / ours_s:.1f}", "(tests)"])
    print("CuPy arrays on the GPU against cupyx.scipy in the same run (median ms, after a warm-up)\n")
    table(["call", "portasolve ms", "peer ms", "peer / portasolve", "max difference (LS: / peak, vs cupyx f64)"],
          rows)


def cli_solve_ms(program, precision, algorithm):
    """The solve time (ms, median of 10) the program reports for configs/lombscargle_gtc.yaml."""
    import os
    import re
    import subprocess
    import tempfile
    config = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "configs", "lombscargle_gtc.yaml")
    with tempfile.TemporaryDirectory() as folder:
        text = subprocess.run([program, "run", config, "--set", f"precision={precision}", "--set",
                               f"lombscargle.algorithm={algorithm}", "--set", "benchmark.baseline=none", "--set",
                               "run.repeats=10", "--set", f"output.path={folder}/gtc.h5"],
                              check=True, capture_output=True, text=True).stdout
    return 1e3 * float(re.search(r": ([0-9.e+-]+) s \(median of", text).group(1))


def gpu_setup_case(args):
    import cupy

    def best(call):
        call()
        cupy.cuda.Device().synchronize()
        times = []
        for _ in range(max(args.repeats, 5)):
            start = time.perf_counter()
            call()
            cupy.cuda.Device().synchronize()
            times.append(time.perf_counter() - start)
        return min(times) * 1e3

    extension = portasolve._portasolve
    x, y, none = np.array([0.0, 1.0]), np.array([1.0, -1.0]), np.empty(0)
    rows = []
    for m in (2 ** 10, 2 ** 16, 2 ** 20):
        w = np.linspace(0.01, 10.0, m)
        wd, ends = cupy.asarray(w), np.array([0.01, 10.0])
        out_d, out_h = cupy.empty((1, m)), np.empty((1, m))
        calls = {
            "signal.lombscargle, CuPy arrays": lambda: portasolve.signal.lombscargle(cupy.asarray(x), cupy.asarray(y), wd,
                                                                                    algorithm="direct"),
            "signal.lombscargle, NumPy arrays": lambda: portasolve.signal.lombscargle(x, y, w, algorithm="direct"),
            "extension, uniform ends, CuPy output": lambda: extension.lombscargle_classic_float64(
                x, y, ends, out_d, False, False, "direct", True, none, False, m),
            "extension, uniform ends, NumPy output": lambda: extension.lombscargle_classic_float64(
                x, y, ends, out_h, False, False, "direct", True, none, False, m),
            "extension, all M values, CuPy output": lambda: extension.lombscargle_classic_float64(
                x, y, w, out_d, False, False, "direct", False, none, False, 0),
            "GPU check of the frequencies": lambda: portasolve.signal.gpu_frequencies(wd, "freqs"),
        }
        for name, call in calls.items():
            rows.append([f"M = 2^{m.bit_length() - 1}", name, f"{best(call):.3f}"])
    print("A Lomb-Scargle call's cost besides its sums (N = 2, direct; best of runs, ms)\n")
    table(["M", "call", "ms"], rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="overhead,astropy,ndimage")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cli", help="the portasolve program of the same build: the gpu case adds its solve time")
    args = parser.parse_args()
    print("portasolve.info():\n\n```\n" + str(portasolve.info()).strip() + "\n```\n")
    sys.stdout.flush()
    cases = {"overhead": overhead, "astropy": astropy_case, "ndimage": ndimage_case, "gpu": gpu_case, "gpu_setup": gpu_setup_case}
    for name in args.only.split(","):
        cases[name](args)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
