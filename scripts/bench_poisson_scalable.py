#!/usr/bin/env python3
"""Benchmark: the Poisson solvers that scale (spectral, multigrid, MG-preconditioned CG). Prints Markdown tables.

  1. the talk's case (configs/poisson_image_cg.yaml, 400x266 float32) to a relative residual of 1.6e-6:
     spectral (on the build's FFT library and on portasolve's portable FFT kernels, what HIP builds run),
     multigrid, cg with a multigrid preconditioner and cg_fused, with SciPy's DST-I solve of the
     same discrete problem on this host and, where CuPy works, a CuPy DST-I solve on the GPU (both peers
     are written below, timed in the same run);
  2. one large grid (--large, default 8192^2): spectral (both FFTs) and multigrid in float to 1e-6, spectral
     (both FFTs) in double to 1e-10, spectral and multigrid on the neumann boundary in float to 1e-6, the peers again, and the STREAM copy bandwidth measured in the same run for multigrid's floor;
  3. multigrid cycles and time against the grid size (--sizes), to 1e-8 in double;
  4. with --plot DIR: residual against time for every solver of table 1 on one axis, and cycles against size.

The time of a solve is the driver's solve_s (median of the repeats): everything from the initial guess to the
answer, plans and hierarchy set-up included. A residual check's time is placed at iteration * solve_s /
iterations, which assumes equal iterations (true of cycles and steps; stated on the plot).

usage: bench_poisson_scalable.py [--bin build/openmp/bin/portasolve] [--large 8192] [--sizes 257 513 1025 2049]
                                 [--skip-large] [--cpu-checks] [--plot DIR] [--out results/bench-scalable]
"""

import argparse
import os
import time

import numpy as np

from portasolve_results import copy_bandwidth, poisson_summary, print_table, run_experiment

TALK = "configs/poisson_image_cg.yaml"
# Grid accesses (reads and writes of one value) per fine interior point that a V(2,2) cycle with red-black
# Gauss-Seidel makes, counted from the kernels (multigrid.cpp, multigrid_kernels.hpp): each of the 4 sweeps is
# two half sweeps over the whole level that read u and f and write half of u (whole cache lines: 3 each);
# residual + restriction reads u and f and writes a quarter-size coarse u and f (2.5); prolongation +
# correction reads a quarter-size coarse u and reads and writes u (2.25); the coarser levels add a third;
# the residual check after every cycle reads u and f on the fine level (2).
ACCESSES_PER_POINT_PER_CYCLE = (4 * 6 + 2.5 + 2.25) * 4 / 3 + 2


def solve(binary, config, output, *sets):
    with run_experiment(binary, config, output, *sets) as f:
        return dict(poisson_summary(f), history=f["output/residual_history"][()])


def eigenvalues(n, dtype):
    """Eigenvalues of the 1-D second difference with Dirichlet ends, on n interior points."""
    k = np.arange(1, n + 1, dtype=np.float64)
    return (2 * np.cos(np.pi * k / (n + 1)) - 2).astype(dtype)


def folded_rhs(rows, cols, dtype, seed=1):
    """A random interior right-hand side with the boundary already folded in (the peers' input)."""
    return np.random.default_rng(seed).standard_normal((rows - 2, cols - 2)).astype(dtype)


def residual_5point(u, f):
    """||f - L u|| / ||f|| for the interior u with zero Dirichlet ends, in float64."""
    p = np.pad(u.astype(np.float64), 1)
    lu = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * p[1:-1, 1:-1]
    return np.linalg.norm(f - lu) / np.linalg.norm(f)


def scipy_dst_solve_seconds(rows, cols, dtype, repeats=3):
    """SciPy's straightforward fast Poisson solve: dstn type 1, divide, idstn. Returns (seconds, residual)."""
    import scipy.fft
    f = folded_rhs(rows, cols, dtype)
    denominator = eigenvalues(rows - 2, dtype)[:, None] + eigenvalues(cols - 2, dtype)[None, :]
    best, u = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        u = scipy.fft.idstn(scipy.fft.dstn(f, type=1, workers=-1) / denominator, type=1, workers=-1)
        best = min(best, time.perf_counter() - start)
    return best, residual_5point(u, f)


def cupy_dst_solve_seconds(rows, cols, dtype, repeats=5):
    """A CuPy DST-I solve written as a CuPy user would: odd extension through cupy.fft.rfft along each axis
    (cupyx.scipy.fft has no DST-I). Returns (seconds, residual) or None without CuPy or a GPU."""
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception:
        return None

    def dst1(a, axis):
        # DST-I of length n: -Im(rfft) of [0, a, 0, -reversed a], the terms 1..n, along `axis`.
        a = cp.moveaxis(a, axis, -1)
        zero = cp.zeros(a.shape[:-1] + (1,), a.dtype)
        extended = cp.concatenate([zero, a, zero, -a[..., ::-1]], axis=-1)
        out = -cp.fft.rfft(extended, axis=-1).imag[..., 1:a.shape[-1] + 1]
        return cp.moveaxis(out, -1, axis)

    f_host = folded_rhs(rows, cols, dtype)
    f = cp.asarray(f_host)
    denominator = cp.asarray(eigenvalues(rows - 2, dtype)[:, None] + eigenvalues(cols - 2, dtype)[None, :])
    scale = dtype(1.0 / (4 * (rows - 1) * (cols - 1)))  # DST-I is its own inverse up to 2(n+1) per axis
    best, u = float("inf"), None
    for _ in range(repeats + 1):  # the first call builds cuFFT plans
        cp.cuda.Device().synchronize()
        start = time.perf_counter()
        u = dst1(dst1(dst1(dst1(f, 0), 1) / denominator, 0), 1) * scale
        cp.cuda.Device().synchronize()
        best = min(best, time.perf_counter() - start)
    return best, residual_5point(cp.asnumpy(u), f_host)


def peer_rows(rows, cols, dtypes):
    out = []
    for dtype in dtypes:
        name = np.dtype(dtype).name
        seconds, residual = scipy_dst_solve_seconds(rows, cols, dtype)
        out.append([f"SciPy dstn type 1 (host, {name})", f"{seconds * 1e3:.2f}", f"{residual:.2e}"])
        gpu = cupy_dst_solve_seconds(rows, cols, dtype)
        if gpu:
            out.append([f"CuPy DST-I via rfft (GPU, {name})", f"{gpu[0] * 1e3:.2f}", f"{gpu[1]:.2e}"])
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/openmp/bin/portasolve")
    parser.add_argument("--large", type=int, default=8192, help="side of the large grid")
    parser.add_argument("--sizes", type=int, nargs="+", default=[257, 513, 1025, 2049],
                        help="grid sides for multigrid's cycles against size")
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument("--cpu-checks", action="store_true",
                        help="2048^2: spectral against SciPy, multigrid cycles against plain Jacobi sweeps")
    parser.add_argument("--plot", help="folder for the PNG plots")
    parser.add_argument("--out", default="results/bench-scalable")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    repeat = ["run.warmup=1", "run.repeats=3", "output.pgm=''"]

    # 1. The talk's case to 1.6e-6.
    # A check every step would dominate cg_fused's time: it keeps the config's 100.
    solvers = [("spectral", "spectral", ["poisson.check_every=1"]),
               ("spectral (portable FFT)", "spectral", ["poisson.check_every=1", "poisson.spectral.fft=portable"]),
               ("multigrid", "multigrid", ["poisson.check_every=1"]),
               ("cg + multigrid", "cg", ["poisson.cg.preconditioner=multigrid", "poisson.check_every=1"]),
               ("cg + multigrid V(1,1)", "cg", ["poisson.cg.preconditioner=multigrid", "poisson.check_every=1",
                                                "poisson.multigrid.pre_sweeps=1", "poisson.multigrid.post_sweeps=1"]),
               ("cg_fused", "cg_fused", [])]
    results, rows = {}, []
    for name, solver, extra in solvers:
        label = name.split(" ")[0] + ("_portable" if "portable" in name else "") + ("_v11" if "V(1,1)" in name else "")
        r = solve(args.bin, TALK, os.path.join(args.out, f"talk_{label}.h5"), f"poisson.solver={solver}",
                  "poisson.tolerance=1.6e-6", *repeat, *extra)
        results[name] = r
        rows.append([name, str(r["iterations"]), f"{r['seconds'] * 1e3:.3f}", f"{r['residual']:.2e}",
                     f"{r['error']:.2e}"])
    first = next(iter(results.values()))
    print(f"Poisson, talk's case {first['rows']}x{first['cols']} (rows x cols) float32 to 1.6e-6, {first['space']} on "
          f"{first['device']}\n")
    print_table(["solver", "iterations", "time (ms)", "relative residual", "max error against the image"], rows)
    print("Peers, the same discrete problem (random data, boundary folded in), timed in this run:\n")
    print_table(["peer", "time (ms)", "relative residual"], peer_rows(first["rows"], first["cols"], [np.float64]))

    # 2. The large grid.
    if not args.skip_large:
        n = args.large
        grid = [f"problem.rows={n}", f"problem.cols={n}", "problem.source=synthetic", "output.input_arrays=false",
                "run.warmup=1", "run.repeats=3", "output.pgm=''", "poisson.check_every=1",
                "poisson.max_iterations=100"]
        copy = copy_bandwidth(args.bin, os.path.join(args.out, "stream.h5"), 1 << 26)
        rows = []
        for solver, precision, tolerance in (("spectral", "float", 1e-6), ("spectral_exact", "float", 1e-6),
                                             ("spectral_portable", "float", 1e-6),
                                             ("multigrid", "float", 1e-6), ("spectral", "double", 1e-10), ("spectral_exact", "double", 1e-10),
                                             ("spectral_portable", "double", 1e-10), ("multigrid", "double", 1e-10),
                                             ("spectral_neumann", "float", 1e-6), ("multigrid_neumann", "float", 1e-6)):
            extra = {"spectral_portable": ["poisson.spectral.fft=portable"],
                     "spectral_exact": ["poisson.spectral.length=exact"],
                     "spectral_neumann": ["poisson.boundary=neumann"],
                     "multigrid_neumann": ["poisson.boundary=neumann"]}.get(solver, [])
            r = solve(args.bin, TALK, os.path.join(args.out, f"large_{solver}_{precision}.h5"), *grid,
                      f"poisson.solver={solver.split('_')[0]}", f"precision={precision}",
                      f"poisson.tolerance={tolerance}", *extra)
            floor = ""
            if solver.startswith("multigrid"):
                size = 4 if precision == "float" else 8
                floor_s = ACCESSES_PER_POINT_PER_CYCLE * size * (n - 2) ** 2 / (copy * 1e9)
                floor = f"{floor_s * 1e3:.2f} ms/cycle; {r['seconds'] / r['iterations'] / floor_s:.2f}x of it"
            rows.append([solver.replace("_portable", " (portable FFT)").replace("_neumann", " (neumann)")
                         .replace("_exact", " (exact row length)"), precision,
                         f"{tolerance:g}", str(r["iterations"]), f"{r['seconds'] * 1e3:.2f}",
                         f"{r['residual']:.2e}", floor])
        print(f"Poisson {n}x{n}; STREAM copy in this run {copy:.0f} GB/s; multigrid floor = "
              f"{ACCESSES_PER_POINT_PER_CYCLE:.1f} accesses per point per cycle at that bandwidth\n")
        print_table(["solver", "precision", "tolerance", "iterations", "time (ms)", "relative residual",
                     "floor"], rows)
        print(f"Peers on {n}x{n}, timed in this run:\n")
        print_table(["peer", "time (ms)", "relative residual"], peer_rows(n, n, [np.float32, np.float64]))

    # 3. Cycles against grid size.
    rows, scaling = [], []
    for n in args.sizes:
        r = solve(args.bin, TALK, os.path.join(args.out, f"size_{n}.h5"), f"problem.rows={n}", f"problem.cols={n}",
                  "precision=double", "poisson.solver=multigrid", "poisson.tolerance=1e-8",
                  "poisson.check_every=1", "poisson.max_iterations=100", "output.input_arrays=false",
                  "run.warmup=0", "run.repeats=1", "output.pgm=''")
        scaling.append((n, r["iterations"], r["seconds"]))
        rows.append([f"{n}x{n}", str(r["iterations"]), f"{r['seconds'] * 1e3:.1f}", f"{r['residual']:.2e}"])
    print("Multigrid V(2,2), red-black Gauss-Seidel, double, to 1e-8: cycles against size\n")
    print_table(["grid", "cycles", "time (ms)", "relative residual"], rows)

    if args.cpu_checks:
        cpu_checks(args)
    if args.plot:
        plot(args.plot, results, scaling)


def cpu_checks(args):
    """The CPU targets: spectral against SciPy's dstn on 2048^2; multigrid cycles to 1e-6, each against
    plain Jacobi sweeps timed in the same run. A cycle's and a sweep's costs are marginal: the time of 12
    cycles (60 sweeps) less that of 2 (10), so the solve's fixed costs (the first residuals, the final
    re-check) are not spread over them."""
    n = 2048
    grid = [f"problem.rows={n}", f"problem.cols={n}", "problem.source=synthetic", "output.input_arrays=false",
            "output.pgm=''", "run.warmup=1", "run.repeats=3"]
    one_solve = ["poisson.solver=spectral", "poisson.tolerance=0", "poisson.max_iterations=1"]
    rows = []
    for precision, dtype in (("float", np.float32), ("double", np.float64)):
        scipy_s, _ = scipy_dst_solve_seconds(n, n, dtype)
        for length in ("fast", "exact"):
            spectral = solve(args.bin, TALK, os.path.join(args.out, f"cpu_spectral_{precision}_{length}.h5"), *grid,
                             *one_solve, f"precision={precision}", f"poisson.spectral.length={length}")
            rows.append([f"spectral ({length} row length, {precision}) vs SciPy dstn ({np.dtype(dtype).name})",
                         f"{spectral['seconds'] * 1e3:.1f} ms vs {scipy_s * 1e3:.1f} ms = "
                         f"{scipy_s / spectral['seconds']:.2f}x", ">= 3x" if length == "fast" else ""])

    grid.append("precision=double")  # multigrid against Jacobi sweeps, in double

    def seconds(name, *settings):
        return solve(args.bin, TALK, os.path.join(args.out, f"cpu_{name}.h5"), *grid, *settings)["seconds"]

    jacobi = [seconds(f"jacobi_{k}", "poisson.solver=jacobi", f"poisson.max_iterations={k}",
                      f"poisson.check_every={k}") for k in (10, 60)]
    sweep = (jacobi[1] - jacobi[0]) / 50
    for s in (1, 2):
        sweeps = [f"poisson.multigrid.pre_sweeps={s}", f"poisson.multigrid.post_sweeps={s}"]
        mg = solve(args.bin, TALK, os.path.join(args.out, f"cpu_mg_v{s}.h5"), *grid, "poisson.solver=multigrid",
                   "poisson.tolerance=1e-6", "poisson.check_every=1", "poisson.max_iterations=100", *sweeps)
        cycles = [seconds(f"mg_v{s}_{k}", "poisson.solver=multigrid", "poisson.tolerance=0",
                          f"poisson.max_iterations={k}", *sweeps) for k in (2, 12)]
        cycle = (cycles[1] - cycles[0]) / 10
        rows += [[f"V({s},{s}) cycles to 1e-6", f"{mg['iterations']} ({mg['seconds'] * 1e3:.0f} ms)", "<= 12"],
                 [f"V({s},{s}) cycle / plain Jacobi sweep", f"{cycle * 1e3:.1f} / {sweep * 1e3:.2f} ms = "
                  f"{cycle / sweep:.1f}", "<= 8"]]
    print(f"CPU checks on {n}x{n} (multigrid in double), {spectral['space']}:\n")
    print_table(["check", "measured", "target"], rows)


def plot(folder, results, scaling):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(folder, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for name, r in results.items():
        history = r["history"]
        per_iteration = r["seconds"] / max(r["iterations"], 1)
        ax.semilogy(history[:, 0] * per_iteration * 1e3, history[:, 1], marker=".", label=f"{name} ({r['iterations']})")
    ax.set_xlabel("time (ms; check k at k x solve time / iterations)")
    ax.set_ylabel("relative residual")
    ax.set_title(f"Talk's case {r['rows']}x{r['cols']} (rows x cols) float32, {r['space']}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "poisson_residual_vs_time.png"), dpi=120)
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    sides = [s for s, _, _ in scaling]
    ax.plot(sides, [c for _, c, _ in scaling], marker="o")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("grid side n (n x n)")
    ax.set_ylabel("V(2,2) cycles to 1e-8")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "multigrid_cycles_vs_size.png"), dpi=120)
    print(f"plots in {folder}")


if __name__ == "__main__":
    main()
