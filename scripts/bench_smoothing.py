#!/usr/bin/env python3
"""Benchmark: image smoothing on the configured backend. Prints Markdown tables.

  1. one 3x3 box pass over a SIZE x SIZE float32 image (configs/smoothing_box3_large.yaml)
     as effective bandwidth (read + write the image) against the STREAM copy measured
     in the same run;
  2. 100 passes (configs/smoothing_100_passes.yaml) fused per launch (register bands, streamed
     bands or tiles), for each --fused setting, against 100 separate one-pass launches
     timed in the same run;
  3. the Numba example (configs/smoothing_box3_int.yaml): 10000x10000 int32, 3x3 sum // 9,
     borders kept;
  4. Gaussian sigma 1 and 2 (configs/smoothing_gaussian_large.yaml, SIZE x SIZE float32, reflect), both 1-D
     passes in one launch (separable_kernel columns and tiles) and one launch per axis (two_launches), against the copy
     bandwidth and against CuPy's cupyx.scipy.ndimage.gaussian_filter on an array of the same shape and type
     (timed here with CUDA events when CuPy imports; skipped with a note otherwise; our result is compared
     with CuPy's on a smaller image first), plus 3x3 integer box passes (exact division by multiply and
     shift) against the copy bandwidth.
With --numpy, NumPy slicing (nine shifted slices) is timed on this host for cases 1 and 3.
--only gaussian runs case 4 alone (with its own copy measurement).

usage: bench_smoothing.py [--bin build/openmp/bin/portasolve] [--size 16384] [--int-size 10000]
                          [--passes 100] [--fused K:ROWS:COLS[:KERNEL] ...] [--numpy] [--sigmas 1 2]
                          [--only all|gaussian] [--out results/bench]
"""

import argparse
import os
import sys
import time

import numpy as np

from portasolve_results import copy_bandwidth, print_table, run_experiment, text

# The repository root: configs are found there, so the script runs from any folder (e.g. a build directory).
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = os.path.join(ROOT, "configs")


def config(name):
    return os.path.join(CONFIGS, name)


def numpy_box3_seconds(size, dtype, integer, repeats=3):
    """Seconds per pass of the usual NumPy 3x3 box: nine slices summed, interior only."""
    rng = np.random.default_rng(1)
    image = (rng.integers(0, 256, (size, size)) if integer else rng.random((size, size))).astype(dtype)
    out = image.copy()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        total = image[:-2, :-2].copy()
        for a, b in ((0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2)):
            total += image[a:size - 2 + a, b:size - 2 + b]
        out[1:-1, 1:-1] = total // 9 if integer else total * dtype(1.0 / 9.0)
        best = min(best, time.perf_counter() - start)
    return best


def fused_equals_single(binary, out_dir, k, tile_rows, tile_cols, kernel):
    """Whether a fused setting reproduces separate passes bit for bit on a smaller, odd-sized image
    (21 passes: full launches and a shorter last one), so each timed setting is also checked."""
    images = []
    for sets in ([f"smoothing.passes_per_launch={k}", f"smoothing.tile_rows={tile_rows}",
                  f"smoothing.tile_cols={tile_cols}", f"smoothing.fused_kernel={kernel}"],
                 ["smoothing.passes_per_launch=1"]):
        with run_experiment(binary, config("smoothing_100_passes.yaml"), os.path.join(out_dir, "smoothing_check.h5"),
                            "image.rows=1500", "image.cols=1531", "smoothing.passes=21", "output.image=true",
                            "benchmark.baseline=none", "run.warmup=0", "run.repeats=1", *sets) as f:
            images.append(f["output/image"][()])
    return bool(np.array_equal(images[0], images[1]))


def smooth(binary, config, output, *sets):
    with run_experiment(binary, config, output, *sets) as f:
        out, timing, inp = f["output"].attrs, f["timing"].attrs, f["input"].attrs
        row = {
            "seconds": float(timing["solve_s"]),
            "passes": int(out["passes"]),
            "per_launch": int(out["passes_per_launch"]),
            "tile": f"{int(out['tile_rows'])}x{int(out['tile_cols'])}",
            "fused_kernel": text(out["fused_kernel"]),
            "radius": int(out["radius"]),
            "separable_kernel": text(out["separable_kernel"]) if "separable_kernel" in out else "none",
            "rows": int(inp["rows"]),
            "cols": int(inp["cols"]),
            "type": text(inp["pixel_type"]),
            "device": text(f.attrs["device"]),
            "space": text(f.attrs["execution_space"]),
        }
        if "baseline_s" in timing:
            row["baseline_seconds"] = float(timing["baseline_s"])
    return row




def import_cupy():
    """CuPy and cupyx.scipy.ndimage, or None with the reason (CuPy exists on GPU machines only)."""
    try:
        import cupy
        import cupyx.scipy.ndimage
        cupy.cuda.runtime.getDeviceCount()
        return cupy, cupyx.scipy.ndimage, None
    except Exception as error:  # ImportError, or no usable device / driver
        return None, None, f"{type(error).__name__}: {error}"


def cupy_gaussian_seconds(cupy, ndimage, size, sigma, repeats=10, warmup=2):
    """Median seconds of cupyx.scipy.ndimage.gaussian_filter(image, sigma) (mode reflect, truncate 4: SciPy's
    defaults, ours in configs/smoothing_gaussian_large.yaml) on a size x size float32 array, by CUDA events."""
    image = cupy.random.default_rng(1).random((size, size), dtype=cupy.float32)
    out = cupy.empty_like(image)
    times = []
    for r in range(warmup + repeats):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        ndimage.gaussian_filter(image, sigma, output=out, mode="reflect", truncate=4.0)
        stop.record()
        stop.synchronize()
        if r >= warmup:
            times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
    del image, out
    cupy.get_default_memory_pool().free_all_blocks()
    return float(np.median(times))


# One launch: a thread per column down strips (GPUs' default), tiles (hosts'); one launch per axis.
SEPARABLE_KERNELS = ("columns", "tiles", "two_launches")


def cupy_agrees(binary, out_dir, cupy, ndimage, sigma):
    """Max |ours - CuPy| on a 1000x1031 float32 noise image (every kernel of ours), and the image's scale."""
    worst = 0.0
    for kernel in SEPARABLE_KERNELS:
        with run_experiment(binary, config("smoothing_gaussian_large.yaml"), os.path.join(out_dir, "gauss_check.h5"),
                            "image.rows=1000", "image.cols=1031", f"smoothing.sigma={sigma}",
                            f"smoothing.separable_kernel={kernel}", "output.image=true", "output.input_image=true",
                            "run.warmup=0", "run.repeats=1") as f:
            image, ours = f["input/image"][()], f["output/image"][()]
        theirs = cupy.asnumpy(ndimage.gaussian_filter(cupy.asarray(image), sigma, mode="reflect", truncate=4.0))
        worst = max(worst, float(np.max(np.abs(ours.astype(np.float64) - theirs))))
    return worst, float(np.max(np.abs(image)))


def gaussian_and_integer(args, copy):
    """Case 4: the table of Gaussians (ours, both kernels, and CuPy) and integer 3x3 passes against copy."""
    size = [f"image.rows={args.size}", f"image.cols={args.size}"]
    cupy, ndimage, why = (None, None, "--no-cupy") if args.no_cupy else import_cupy()
    if cupy is None:
        print(f"CuPy not available ({why}): its column is skipped.\n")
    rows = []
    pass_bytes = 8 * args.size * args.size
    for sigma in args.sigmas:
        peer = cupy_gaussian_seconds(cupy, ndimage, args.size, sigma) if cupy is not None else None
        agreement = ""
        if cupy is not None:
            worst, scale = cupy_agrees(args.bin, args.out, cupy, ndimage, sigma)
            agreement = f"{worst:.1e} (image max {scale:.2g})"
        for kernel in SEPARABLE_KERNELS:
            r = smooth(args.bin, config("smoothing_gaussian_large.yaml"), os.path.join(args.out, "smoothing_gauss.h5"),
                       *size, f"smoothing.sigma={sigma}", f"smoothing.separable_kernel={kernel}")
            if r["separable_kernel"] != kernel:
                sys.exit(f"asked for separable_kernel {kernel}, the run reports {r['separable_kernel']}")
            gbps = pass_bytes / r["seconds"] / 1e9
            rows.append([f"gaussian sigma {sigma:g} (r {r['radius']})", kernel, r["tile"] if kernel != "two_launches" else "-",
                         f"{r['seconds'] * 1e3:.3f}", f"{gbps:.0f}", f"{gbps / copy:.2f}",
                         f"{peer / r['seconds']:.2f}" if peer else "-", agreement])
        if peer:
            rows.append([f"gaussian sigma {sigma:g}", "CuPy gaussian_filter", "-", f"{peer * 1e3:.3f}",
                         f"{pass_bytes / peer / 1e9:.0f}", f"{pass_bytes / peer / 1e9 / copy:.2f}", "1.00", ""])
    for pixel_type, nbytes, border, rounding in (("int32", 4, "keep", "floor"), ("int32", 4, "reflect", "nearest"),
                                                 ("uint16", 2, "reflect", "nearest"), ("uint8", 1, "reflect", "floor")):
        r = smooth(args.bin, config("smoothing_box3_int.yaml"), os.path.join(args.out, "smoothing_int3.h5"), *size,
                   f"image.pixel_type={pixel_type}", f"smoothing.border={border}", f"smoothing.rounding={rounding}",
                   "output.image=false")
        gbps = 2 * nbytes * args.size * args.size / r["seconds"] / 1e9
        rows.append([f"box 3x3 {pixel_type}, {rounding}, border {border}", "2-D", "-", f"{r['seconds'] * 1e3:.3f}",
                     f"{gbps:.0f}", f"{gbps / copy:.2f}", "-", ""])
    print(f"Gaussian and integer smoothing, one pass, {args.size}x{args.size}, {r['space']} on {r['device']}; "
          f"STREAM copy (float) in the same run: {copy:.0f} GB/s. Effective bandwidth = (read + write of the image) "
          f"/ time; / CuPy = CuPy's time / ours; max abs(ours - CuPy) on a 1000x1031 float32 image.\n")
    print_table(["case", "kernel", "tile", "ms", "effective GB/s", "/ copy", "/ CuPy", "max abs(ours - CuPy)"], rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/openmp/bin/portasolve")
    parser.add_argument("--size", type=int, default=16384, help="side of the float32 image (cases 1 and 2)")
    parser.add_argument("--int-size", type=int, default=10000, help="side of the int32 image (case 3)")
    parser.add_argument("--passes", type=int, default=100)
    parser.add_argument("--fused", nargs="+", default=["0:0:0"],
                        help="fused settings K:ROWS:COLS[:KERNEL] (0: automatic; KERNEL auto|registers|streamed|tiles)")
    parser.add_argument("--numpy", action="store_true", help="time NumPy slicing on this host")
    parser.add_argument("--sigmas", type=float, nargs="+", default=[1.0, 2.0], help="Gaussians of case 4")
    parser.add_argument("--no-cupy", action="store_true", help="case 4 without the CuPy peer")
    parser.add_argument("--only", choices=["all", "gaussian"], default="all", help="gaussian: case 4 alone")
    parser.add_argument("--out", default="results/bench")
    args = parser.parse_args()
    # Paths as given, then the repository root as working folder (portasolve_results' configs/stream.yaml).
    args.bin, args.out = os.path.abspath(args.bin), os.path.abspath(args.out)
    os.chdir(ROOT)
    os.makedirs(args.out, exist_ok=True)
    size = [f"image.rows={args.size}", f"image.cols={args.size}"]

    # 1. One pass against the copy bandwidth.
    copy = copy_bandwidth(args.bin, os.path.join(args.out, "smoothing_stream.h5"), args.size * args.size)
    if args.only == "gaussian":
        gaussian_and_integer(args, copy)
        return
    rows = []
    pass_bytes = 8 * args.size * args.size
    for name, extra in (("box 3x3", []), ("box 3x3, border keep", ["smoothing.border=keep"]),
                        ("gaussian sigma 1 (r 4, separable)", ["smoothing.kernel=gaussian", "smoothing.sigma=1"])):
        r = smooth(args.bin, config("smoothing_box3_large.yaml"), os.path.join(args.out, "smoothing_one.h5"), *size,
                   *extra)
        rows.append([name, f"{r['seconds'] * 1e3:.3f}", f"{pass_bytes / r['seconds'] / 1e9:.0f}",
                     f"{pass_bytes / r['seconds'] / 1e9 / copy:.2f}"])
        if name == "box 3x3":
            one_pass = r
    print(f"Smoothing, one pass, {args.size}x{args.size} float32, {one_pass['space']} on {one_pass['device']}; "
          f"STREAM copy in the same run: {copy:.0f} GB/s. Effective bandwidth = 8 bytes per pixel / time.\n")
    print_table(["kernel", "ms", "effective GB/s", "/ copy"], rows)
    if args.numpy:
        seconds = numpy_box3_seconds(args.size, np.float32, False)
        print(f"NumPy slicing 3x3 box, {args.size}x{args.size} float32: {seconds * 1e3:.1f} ms "
              f"({seconds / one_pass['seconds']:.1f}x the time of ours)\n")

    # 2. Many passes, fused against separate launches.
    rows = []
    for n, setting in enumerate(args.fused):
        k, tile_rows, tile_cols, *kernel = setting.split(":")
        extra = ["benchmark.baseline=separate_launches"] if n == 0 else ["benchmark.baseline=none"]
        r = smooth(args.bin, config("smoothing_100_passes.yaml"), os.path.join(args.out, "smoothing_passes.h5"),
                   *size, f"smoothing.passes={args.passes}", f"smoothing.passes_per_launch={k}",
                   f"smoothing.tile_rows={tile_rows}", f"smoothing.tile_cols={tile_cols}",
                   f"smoothing.fused_kernel={kernel[0] if kernel else 'auto'}", *extra)
        if n == 0:
            separate = r["baseline_seconds"]
            rows.append(["separate launches (baseline)", "1", "-", "-", f"{separate * 1e3:.1f}",
                         f"{separate / args.passes * 1e3:.3f}", "1.00", "-"])
        same = fused_equals_single(args.bin, args.out, k, tile_rows, tile_cols, kernel[0] if kernel else "auto")
        rows.append(["fused", str(r["per_launch"]), r["fused_kernel"], r["tile"], f"{r['seconds'] * 1e3:.1f}",
                     f"{r['seconds'] / args.passes * 1e3:.3f}", f"{separate / r['seconds']:.2f}",
                     "yes" if same else "**NO**"])
    print(f"Smoothing, {args.passes} passes of a 3x3 box, {args.size}x{args.size} float32\n")
    print_table(["launches", "passes/launch", "kernel", "rows x cols a team writes", "ms", "ms/pass", "speedup",
                 "= separate passes (1500x1531, 21 passes)"], rows)

    # 3. The Numba example.
    r = smooth(args.bin, config("smoothing_box3_int.yaml"), os.path.join(args.out, "smoothing_int.h5"),
               f"image.rows={args.int_size}", f"image.cols={args.int_size}")
    int_bytes = 8 * args.int_size * args.int_size
    line = (f"Numba example, {args.int_size}x{args.int_size} int32, 3x3 sum // 9, border keep: "
            f"{r['seconds'] * 1e3:.3f} ms ({int_bytes / r['seconds'] / 1e9:.0f} GB/s effective)")
    if args.numpy:
        seconds = numpy_box3_seconds(args.int_size, np.int32, True)
        line += f"; NumPy slicing {seconds * 1e3:.1f} ms ({seconds / r['seconds']:.1f}x the time of ours)"
    print(line + "\n")

    # 4. Gaussians in one launch against two, the copy bandwidth and CuPy; integer passes against copy.
    gaussian_and_integer(args, copy)


if __name__ == "__main__":
    main()
