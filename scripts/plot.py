#!/usr/bin/env python3
"""Draw the picture that fits a portasolve result file's experiment.

usage: plot.py RESULT.h5 [-o OUT.png] [--with OTHER.h5 ...]

--with: more results of the same experiment drawn alongside (poisson: their
residual histories on the same axes, one line per solver).
"""

import os

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from portasolve_results import ResultError, fail, open_result, parse_arguments_and_open, strings, text  # noqa: E402


def plot_stream(f, figure):
    names = strings(f["output/operation"])
    bandwidth = f["output/bandwidth"][()]
    axes = figure.add_subplot(1, 1, 1)
    bars = axes.bar(names, bandwidth, color="tab:blue")
    axes.bar_label(bars, fmt="%.0f")
    axes.set_ylabel(f"bandwidth ({text(f['output/bandwidth'].attrs.get('units', 'GB/s'))})")
    size = f["input"].attrs["size"]
    axes.set_title(f"STREAM, {size} elements ({text(f.attrs['precision'])}) on {text(f.attrs['device'])}")


def plot_lombscargle(f, figure):
    frequency = f["output/frequency"][()]
    power = f["output/power"][()]
    units = text(f["output/frequency"].attrs.get("units", ""))
    peaks_f = f["output/peak_frequency"][()] if "peak_frequency" in f["output"] else None
    peaks_p = f["output/peak_power"][()] if "peak_power" in f["output"] else None
    faps = f["output/peak_fap"][()] if "peak_fap" in f["output"] else None
    title = f"Lomb-Scargle ({text(f['output'].attrs.get('algorithm', ''))}, {text(f.attrs['precision'])})"
    if power.ndim == 1:
        axes = figure.add_subplot(1, 1, 1)
        axes.plot(frequency, power, lw=0.8, color="tab:blue")
        if peaks_f is not None:
            axes.plot(peaks_f[0], peaks_p[0], "v", color="tab:red", label="highest peaks")
            for x, y, fap in zip(peaks_f[0], peaks_p[0], faps[0] if faps is not None else [None] * len(peaks_f[0])):
                if fap is not None and np.isfinite(fap):
                    axes.annotate(f"FAP {fap:.2g}", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
            axes.legend(loc="upper right")
        axes.set_ylabel("power")
        axes.set_title(title)
    else:
        shown = min(3, power.shape[0])
        heat = figure.add_subplot(2, 1, 1)
        image = heat.imshow(power, aspect="auto", origin="lower", interpolation="nearest",
                            extent=[frequency[0], frequency[-1], -0.5, power.shape[0] - 0.5])
        figure.colorbar(image, ax=heat, label="power")
        heat.set_ylabel("series")
        heat.set_title(f"{title}, {power.shape[0]} series")
        axes = figure.add_subplot(2, 1, 2)
        for s in range(shown):
            axes.plot(frequency, power[s], lw=0.7, label=f"series {s}")
        axes.legend(loc="upper right", fontsize=7)
        axes.set_ylabel("power")
    axes.set_xlabel(f"frequency ({units})")


def plot_poisson(f, figure, others=()):
    solution = f["output/solution"][()]
    exact = f["input/exact"][()] if "input/exact" in f else None
    panels = [("reconstruction" if exact is not None else "solution", solution)]
    if exact is not None:
        panels = [("input (true image)", exact)] + panels + [("error", solution - exact)]
    grid = figure.add_gridspec(2, len(panels))
    for k, (title, image) in enumerate(panels):
        axes = figure.add_subplot(grid[0, k])
        if title == "error":
            limit = float(np.max(np.abs(image))) or 1.0
            shown = axes.imshow(image, cmap="RdBu_r", vmin=-limit, vmax=limit)
            figure.colorbar(shown, ax=axes, shrink=0.8)
        else:
            axes.imshow(image, cmap="gray", vmin=float(np.min(exact if exact is not None else image)),
                        vmax=float(np.max(exact if exact is not None else image)))
        axes.set_title(title, fontsize=9)
        axes.set_xticks([])
        axes.set_yticks([])
    axes = figure.add_subplot(grid[1, :])
    for result in (f, *others):
        history = result["output/residual_history"][()]
        out = result["output"].attrs
        label = f"{text(out['solver'])} ({text(result.attrs['precision'])}, {text(result.attrs['execution_space'])})"
        axes.semilogy(history[:, 0], history[:, 1], marker=".", label=label)
    axes.set_xlabel("iteration (sweep or CG step)")
    axes.set_ylabel("relative residual")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    rows, cols = solution.shape
    figure.suptitle(f"Poisson {cols}x{rows}: {text(f['output'].attrs['solver'])}, "
                    f"{int(f['output'].attrs['iterations'])} iterations", fontsize=10)


def plot_smoothing(f, figure):
    if "output/image" not in f or "input/image" not in f:
        fail("smoothing: the result holds no images (output.image / output.input_image were off)")
    before = f["input/image"][()].astype(np.float64)
    after = f["output/image"][()].astype(np.float64)
    # Large images: every k-th pixel, so the figure stays light.
    step = max(1, max(before.shape) // 2048)
    before, after = before[::step, ::step], after[::step, ::step]
    low, high = float(before.min()), float(before.max())
    difference = after - before
    limit = float(np.max(np.abs(difference))) or 1.0
    panels = [("before", before, "gray", low, high), ("after", after, "gray", low, high),
              ("after - before", difference, "RdBu_r", -limit, limit)]
    for k, (title, image, cmap, vmin, vmax) in enumerate(panels):
        axes = figure.add_subplot(1, 3, k + 1)
        shown = axes.imshow(image, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
        if k == 2:
            figure.colorbar(shown, ax=axes, shrink=0.6)
        axes.set_title(title + (f" (every {step}th pixel)" if step > 1 and k == 0 else ""), fontsize=9)
        axes.set_xticks([])
        axes.set_yticks([])
    out, inp = f["output"].attrs, f["input"].attrs
    rows, cols = int(inp["rows"]), int(inp["cols"])
    figure.suptitle(f"smoothing {cols}x{rows} {text(inp['pixel_type'])}: {text(out['kernel'])} r={int(out['radius'])}, "
                    f"border {text(out['border'])}, {int(out['passes'])} passes", fontsize=10)


def plot_lorenz05(f, figure):
    time = f["output/time"][()]
    mean = f["output/mean"][()]
    out, inp = f["output"].attrs, f["input"].attrs
    n = int(inp["model_size"])
    panels = []
    if "output/state" in f:
        panels.append(("member 0", f["output/state"][:, 0, :]))
    panels.append(("ensemble mean", mean))
    grid = figure.add_gridspec(2, len(panels))
    low = min(float(np.min(p[1])) for p in panels)
    high = max(float(np.max(p[1])) for p in panels)
    for k, (title, values) in enumerate(panels):
        axes = figure.add_subplot(grid[0, k])
        shown = axes.imshow(values, aspect="auto", origin="lower", cmap="RdBu_r", vmin=low, vmax=high,
                            extent=[-0.5, n - 0.5, time[0], time[-1]], interpolation="nearest")
        axes.set_title(f"{title} (Hovmoller)", fontsize=9)
        axes.set_xlabel("point")
        axes.set_ylabel("time")
        figure.colorbar(shown, ax=axes, shrink=0.8)
    axes = figure.add_subplot(grid[1, :])
    axes.semilogy(time, np.maximum(f["output/spread_rms"][()], 1e-300), marker=".")
    axes.set_xlabel("time")
    axes.set_ylabel("ensemble spread (rms over points)")
    axes.grid(True, which="both", alpha=0.3)
    figure.suptitle(f"Lorenz 2005 model {int(inp['model'])}, N={n}, {int(inp['members'])} members, "
                    f"layout {text(out['layout'])}", fontsize=10)


# experiment name -> function(h5py.File, matplotlib Figure[, others]); each solver adds its own.
PLOTTERS = {
    "lombscargle": plot_lombscargle,
    "lorenz05": plot_lorenz05,
    "poisson": plot_poisson,
    "smoothing": plot_smoothing,
    "stream": plot_stream,
}


def main():
    def add_arguments(parser):
        parser.add_argument("-o", "--output", help="image file (default: RESULT with .png)")
        parser.add_argument("--with", dest="others", nargs="*", default=[], help="more results drawn alongside")

    args, f = parse_arguments_and_open(__doc__, add_arguments)
    others = []
    for path in args.others:
        try:
            others.append(open_result(path))
        except ResultError as error:
            fail(str(error))
    with f:
        experiment = text(f.attrs["experiment"])
        if experiment not in PLOTTERS:
            fail(f"{args.result}: no plot for experiment '{experiment}' (known: {', '.join(sorted(PLOTTERS))})")
        if any(text(o.attrs["experiment"]) != experiment for o in others):
            fail(f"--with: every result must come from experiment '{experiment}'")
        figure = plt.figure(figsize={"poisson": (10, 7), "smoothing": (12, 4.5), "lorenz05": (10, 7)}.get(experiment, (8, 5)))
        if others:
            PLOTTERS[experiment](f, figure, others)
        else:
            PLOTTERS[experiment](f, figure)
        figure.text(0.99, 0.01, f"portasolve {text(f.attrs['portasolve_version'])}, {text(f.attrs['created'])}",
                    ha="right", va="bottom", fontsize=7, color="gray")
        figure.tight_layout()
        output = args.output or os.path.splitext(args.result)[0] + ".png"
        figure.savefig(output, dpi=120)
        print(f"wrote {output}")


if __name__ == "__main__":
    main()
