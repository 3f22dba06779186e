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

from matplotlib.ticker import MaxNLocator  # noqa: E402
from portasolve_results import ResultError, fail, open_result, parse_arguments_and_open, strings, text  # noqa: E402


def plot_stream(f, figure):
    names = strings(f["output/operation"])
    bandwidth = f["output/bandwidth"][()]
    axes = figure.add_subplot(1, 1, 1)
    bars = axes.bar(names, bandwidth, color="tab:blue")
    axes.bar_label(bars, fmt="%.3g")
    axes.set_ylabel(f"bandwidth ({text(f['output/bandwidth'].attrs.get('units', 'GB/s'))})")
    size = f["input"].attrs["size"]
    axes.set_title(f"STREAM, {size} elements ({text(f.attrs['precision'])}) on {text(f.attrs['device'])}")


def plural(count, word):
    """'1 pass', '3 passes', '1 iteration', '40 members'."""
    count = int(count)
    if count == 1:
        return f"{count} {word}"
    return f"{count} {word}es" if word.endswith(("s", "sh", "ch", "x")) else f"{count} {word}s"


def size_text(rows, cols):
    """Sizes as the command line prints them: rows x cols."""
    return f"{int(rows)}x{int(cols)} (rows x cols)"


def image_colorbar(figure, axes, shown, image, label, compact=False):
    """A labelled colour bar as tall as the image beside it; `compact`: tick labels like 4e-13 instead of a
    scale written above the bar, where the panel's title is."""
    rows, cols = image.shape[:2]
    figure.colorbar(shown, ax=axes, fraction=0.046 * min(max(rows / cols, 0.2), 5.0), pad=0.04, label=label,
                    format="%.2g" if compact else None)


def show_every(image, limit=2048):
    """Every k-th pixel of a large image, so the figure stays light: (image, k)."""
    step = max(1, -(-max(image.shape) // limit))
    return image[::step, ::step], step


def power_label(f):
    """The power axis' name with the normalization it was computed in (from the result's attributes)."""
    if "power" in f["output"]:
        attrs = f["output/power"].attrs
        normalization = text(attrs.get("normalization", ""))
        description = text(attrs.get("description", ""))
    else:  # output.power: none keeps the scale on /output
        attrs = f["output"].attrs
        normalization = text(attrs.get("normalization", ""))
        description = text(attrs.get("power_description", ""))
    if description.startswith("SciPy"):
        return {"none": "power (SciPy, not normalized: units of y$^2$)",
                "normalize": "power (SciPy, normalized by 2 / $\\Sigma y^2$)"}.get(normalization, "power (SciPy)")
    if not normalization and "normalization " in description:  # files from before the attribute
        normalization = description.rsplit("normalization ", 1)[1]
    return f"power (normalization: {normalization})" if normalization else "power"


def label_peaks(axes, xs, ys, faps):
    """Numbers the peaks at their markers (stacked where peaks lie close, so no two labels overlap) and
    lists frequency, power and false-alarm probability in a box."""
    lines = []
    for rank, (x, y) in enumerate(zip(xs, ys)):
        line = f"{rank + 1}: f {x:.4g}, power {y:.3g}"
        if faps is not None and np.isfinite(faps[rank]):
            line += f", FAP {faps[rank]:.2g}"
        lines.append(line)
    placed = []  # (x in display units, lift in points) of the labels drawn
    for index in np.argsort(xs):
        x, y = xs[index], ys[index]
        px = axes.transData.transform((x, y))[0]
        lift = 4
        while any(abs(px - qx) < 14 and lift == q for qx, q in placed):
            lift += 10
        placed.append((px, lift))
        axes.annotate(str(index + 1), (x, y), textcoords="offset points", xytext=(0, lift), ha="center",
                      va="bottom", fontsize=7, color="tab:red",
                      arrowprops=dict(arrowstyle="-", color="tab:red", lw=0.5) if lift > 4 else None)
    axes.text(0.99, 0.84, "\n".join(lines), transform=axes.transAxes, ha="right", va="top", fontsize=7, ma="left",
              family="monospace", bbox=dict(boxstyle="round", facecolor="white", alpha=0.85, edgecolor="0.7"))


def plot_lombscargle_peaks(f, figure, title, ylabel, units):
    """Results written with output.power: none: the peaks of one series as stems, or for a batch every
    series' best frequency (the summary) against its index, coloured by its power."""
    output = f["output"]
    note = "(power array not written: output.power none)"
    axes = figure.add_subplot(1, 1, 1)
    if "peak_frequency" in output and output["peak_frequency"].shape[0] == 1:
        peaks_f, peaks_p = output["peak_frequency"][0], output["peak_power"][0]
        faps = output["peak_fap"][0] if "peak_fap" in output else None
        keep = np.isfinite(peaks_p)
        axes.vlines(peaks_f[keep], 0, peaks_p[keep], color="tab:red", lw=1.0)
        axes.plot(peaks_f[keep], peaks_p[keep], "v", color="tab:red", ms=5, label="highest peaks")
        if keep.any():
            axes.set_ylim(bottom=0, top=float(np.nanmax(peaks_p)) * 1.3)
            figure.canvas.draw()  # data -> display coordinates for the label spacing
            label_peaks(axes, peaks_f[keep], peaks_p[keep], faps[keep] if faps is not None else None)
        axes.legend(loc="upper right", fontsize=8)
        axes.set_ylabel(ylabel)
        axes.set_xlabel(f"frequency ({units})")
    elif "summary" in output:
        best_f, best_p = output["summary/frequency"][()], output["summary/power"][()]
        points = axes.scatter(np.arange(best_f.size), best_f, c=best_p, s=8, cmap="viridis")
        figure.colorbar(points, ax=axes, label=ylabel)
        axes.set_xlabel("series")
        axes.set_ylabel(f"best frequency ({units})")
    else:
        axes.text(0.5, 0.5, "nothing to plot: no power array, peaks or summary", ha="center", va="center")
    axes.set_title(f"{title}\n{note}", fontsize=10)


def plot_lombscargle(f, figure):
    frequency = f["output/frequency"][()]
    if "power" not in f["output"]:
        title = f"Lomb-Scargle ({text(f['output'].attrs.get('algorithm', ''))}, {text(f.attrs['precision'])})"
        units = text(f["output/frequency"].attrs.get("units", ""))
        plot_lombscargle_peaks(f, figure, title, power_label(f), units)
        return
    power = f["output/power"][()]
    units = text(f["output/frequency"].attrs.get("units", ""))
    peaks_f = f["output/peak_frequency"][()] if "peak_frequency" in f["output"] else None
    peaks_p = f["output/peak_power"][()] if "peak_power" in f["output"] else None
    faps = f["output/peak_fap"][()] if "peak_fap" in f["output"] else None
    title = f"Lomb-Scargle ({text(f['output'].attrs.get('algorithm', ''))}, {text(f.attrs['precision'])})"
    ylabel = power_label(f)
    if power.ndim == 1:
        axes = figure.add_subplot(1, 1, 1)
        axes.plot(frequency, power, lw=0.8, color="tab:blue", label="periodogram")
        if peaks_f is not None:
            keep = np.isfinite(peaks_p[0])
            axes.plot(peaks_f[0][keep], peaks_p[0][keep], "v", color="tab:red", ms=5, label="highest peaks")
            axes.set_ylim(bottom=0, top=float(np.nanmax(power)) * 1.3)  # room above the peaks for their numbers
            figure.canvas.draw()  # data -> display coordinates for the label spacing
            label_peaks(axes, peaks_f[0][keep], peaks_p[0][keep], faps[0][keep] if faps is not None else None)
        axes.legend(loc="upper right", fontsize=8)
        axes.set_ylabel(ylabel)
        samples = f["input/t"].shape[-1] if "input/t" in f else None
        axes.set_title(title + (f", {samples} samples, {frequency.size} frequencies" if samples else ""))
    else:
        shown = min(3, power.shape[0])
        heat = figure.add_subplot(2, 1, 1)
        image = heat.imshow(power, aspect="auto", origin="lower", interpolation="nearest",
                            extent=[frequency[0], frequency[-1], -0.5, power.shape[0] - 0.5])
        figure.colorbar(image, ax=heat, label=ylabel)
        heat.set_ylabel("series")
        heat.set_title(f"{title}, {power.shape[0]} series")
        axes = figure.add_subplot(2, 1, 2)
        for s in range(shown):
            axes.plot(frequency, power[s], lw=0.7, label=f"series {s}")
        axes.legend(loc="upper right", fontsize=7)
        axes.set_ylabel(ylabel)
    axes.set_xlabel(f"frequency ({units})")


# What one iteration of each solver is.
ITERATION_NAMES = {"jacobi": "sweep", "jacobi_blocked": "sweep", "cg": "CG step", "cg_fused": "CG step",
                   "multigrid": "cycle", "spectral": "direct solve"}


def plot_poisson(f, figure, others=()):
    rows, cols = f["output/solution"].shape
    solution, step = show_every(f["output/solution"][()])
    exact = show_every(f["input/exact"][()])[0] if "input/exact" in f else None
    panels = [("reconstruction" if exact is not None else "solution", solution)]
    if exact is not None:
        panels = [("input (true image)", exact)] + panels + [("error (reconstruction - input)", solution - exact)]
    if exact is None:  # output.input_arrays: false: the solution beside its residual history
        figure.set_size_inches(12, 4.8)
        grid = figure.add_gridspec(1, 2, width_ratios=[1, 1.4])
        places, history_place = [grid[0, 0]], grid[0, 1]
    else:
        grid = figure.add_gridspec(2, len(panels))
        places, history_place = [grid[0, k] for k in range(len(panels))], grid[1, :]
    reference = exact if exact is not None else solution
    for k, (title, image) in enumerate(panels):
        axes = figure.add_subplot(places[k])
        if title.startswith("error"):
            limit = float(np.max(np.abs(image))) or 1.0
            shown = axes.imshow(image, cmap="RdBu_r", vmin=-limit, vmax=limit, interpolation="nearest")
            image_colorbar(figure, axes, shown, image, "error (units of X)", compact=True)
        else:
            shown = axes.imshow(image, cmap="gray", vmin=float(np.min(reference)), vmax=float(np.max(reference)),
                                interpolation="nearest")
            image_colorbar(figure, axes, shown, image, "X (pixel value)")
        axes.set_title(title + (f", every {step}th pixel" if step > 1 else ""), fontsize=9)
        axes.set_xticks([])
        axes.set_yticks([])
    axes = figure.add_subplot(history_place)
    names = set()
    for result in (f, *others):
        history = result["output/residual_history"][()]
        out = result["output"].attrs
        names.add(ITERATION_NAMES.get(text(out["solver"]), "iteration"))
        label = f"{text(out['solver'])} ({text(result.attrs['precision'])}, {text(result.attrs['execution_space'])})"
        axes.semilogy(history[:, 0], history[:, 1], marker=".", label=label)
    axes.set_xlabel(f"iterations ({names.pop()}s)" if len(names) == 1 else "iterations (sweeps, CG steps or cycles)")
    axes.set_ylabel("relative residual")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    out = f["output"].attrs
    solver = text(out["solver"])
    method = text(out.get("method", solver))
    figure.suptitle(f"Poisson {size_text(rows, cols)}: {solver}" + (f" ({method})" if method != solver else "")
                    + f", {plural(out['iterations'], ITERATION_NAMES.get(solver, 'iteration'))}, "
                    f"relative residual {float(out['relative_residual']):.2g}", fontsize=10)


def plot_timing(f, figure, title):
    """Results that keep no arrays (the benchmark configs): the median time of the solve and of its baseline,
    each repeat a dot."""
    figure.set_size_inches(8, 5)
    timing = f["timing"]
    series = [("this run's kernel", timing["solve_s_per_repeat"][()])]
    if "baseline_s_per_repeat" in timing:
        series.append((f"baseline:\n{text(timing.attrs['baseline'])}", timing["baseline_s_per_repeat"][()]))
    axes = figure.add_subplot(1, 1, 1)
    medians = [float(np.median(seconds)) for _, seconds in series]
    bars = axes.bar([name for name, _ in series], medians, color=["tab:blue", "tab:gray"][:len(series)], width=0.5)
    axes.bar_label(bars, labels=[f"{m:.3g} s" for m in medians], label_type="center", color="white")
    for k, (_, seconds) in enumerate(series):
        axes.plot(np.full(len(seconds), k), seconds, "o", color="black", ms=3,
                  label="one repeat" if k == 0 else None)
    axes.set_ylabel("time (s, median of the repeats)")
    axes.set_ylim(0, max(max(float(np.max(s)) for _, s in series), max(medians)) * 1.15)
    axes.legend(fontsize=8, loc="upper left")
    if len(series) > 1:
        title += f", speedup {medians[1] / medians[0]:.2f}x"
    axes.set_title(title + "\n(no images in the result: output.image and output.input_image were off)", fontsize=9)


def plot_smoothing(f, figure):
    out, inp = f["output"].attrs, f["input"].attrs
    rows, cols = int(inp["rows"]), int(inp["cols"])
    pixel = text(inp["pixel_type"])
    title = (f"smoothing {size_text(rows, cols)} {pixel}: {text(out['kernel'])} r={int(out['radius'])}, "
             f"border {text(out['border'])}, {plural(out['passes'], 'pass')}")
    if "output/image" not in f:
        plot_timing(f, figure, title + f", {float(out['effective_bandwidth_GBps']):.3g} GB/s")
        return
    after, step = show_every(f["output/image"][()].astype(np.float64))
    value = f"pixel value ({pixel})"
    if "input/image" in f:
        before = show_every(f["input/image"][()].astype(np.float64))[0]
        low, high = float(before.min()), float(before.max())
        difference = after - before
        limit = float(np.max(np.abs(difference))) or 1.0
        panels = [("before", before, "gray", low, high, value), ("after", after, "gray", low, high, value),
                  ("after - before", difference, "RdBu_r", -limit, limit, f"change of the {value}")]
    else:  # output.input_image: false
        figure.set_size_inches(7, 5.5)
        panels = [("after (the input image was not kept)", after, "gray", float(after.min()), float(after.max()),
                   value)]
    for k, (name, image, cmap, vmin, vmax, label) in enumerate(panels):
        axes = figure.add_subplot(1, len(panels), k + 1)
        shown = axes.imshow(image, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
        image_colorbar(figure, axes, shown, image, label)
        axes.set_title(name + (f", every {step}th pixel" if step > 1 else ""), fontsize=9)
        axes.set_xticks([])
        axes.set_yticks([])
    figure.suptitle(title, fontsize=10)


def plot_lorenz05(f, figure):
    time = f["output/time"][()]
    mean = f["output/mean"][()]
    out, inp = f["output"].attrs, f["input"].attrs
    n = int(inp["model_size"])
    model = int(inp["model"])
    variable = "Z" if model == 3 else "X"  # model III integrates Z = X + Y
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
        axes.set_ylabel("time (model units)")
        figure.colorbar(shown, ax=axes, shrink=0.8, label=f"{variable} (nondimensional)")
    axes = figure.add_subplot(grid[1, :])
    axes.semilogy(time, np.maximum(f["output/spread_rms"][()], 1e-300), marker=".")
    axes.set_xlabel("time (model units)")
    axes.set_ylabel(f"ensemble spread of {variable}\n(rms over points)")
    axes.grid(True, which="both", alpha=0.3)
    figure.suptitle(f"Lorenz 2005 model {model}, N={n}, {plural(inp['members'], 'member')}, "
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
        figure = plt.figure(figsize={"poisson": (10, 7), "smoothing": (12, 4), "lorenz05": (10, 7)}.get(experiment, (8, 5)))
        if others:
            PLOTTERS[experiment](f, figure, others)
        else:
            PLOTTERS[experiment](f, figure)
        figure.text(0.99, 0.01, f"portasolve {text(f.attrs['portasolve_version'])}, {text(f.attrs['created'])}",
                    ha="right", va="bottom", fontsize=7, color="gray")
        figure.tight_layout(rect=(0, 0.025, 1, 1))  # room for the footer
        output = args.output or os.path.splitext(args.result)[0] + ".png"
        figure.savefig(output, dpi=120)
        print(f"wrote {output}")


if __name__ == "__main__":
    main()
