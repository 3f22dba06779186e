"""Reading portasolve result files (HDF5) for the post-processing scripts."""

import argparse
import subprocess
import sys

import h5py
import numpy as np

ROOT_ATTRIBUTES = (
    "portasolve_version", "experiment", "created", "command_line", "host",
    "kokkos_version", "execution_space", "device", "precision", "config",
)


class ResultError(Exception):
    """A file that is not a readable portasolve result."""


def open_result(path):
    try:
        f = h5py.File(path, "r")
    except (OSError, FileNotFoundError) as error:
        raise ResultError(f"{path}: cannot open as HDF5 ({error})") from None
    if "experiment" not in f.attrs or "portasolve_version" not in f.attrs:
        f.close()
        raise ResultError(f"{path}: not a portasolve result file (no 'experiment' attribute)")
    return f


def text(value):
    """HDF5 strings arrive as str or bytes depending on how they were stored."""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, np.ndarray) and value.dtype.kind in "OS":
        return [text(v) for v in value]
    return value


def strings(dataset):
    return [text(v) for v in dataset[()]]


def parse_arguments_and_open(doc, add_arguments=None):
    """The scripts' shared command line: RESULT.h5 plus their own options.
    Returns (args, open h5py.File); exits with status 2 on a file that is not a result."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("result", help="a portasolve HDF5 result file")
    if add_arguments:
        add_arguments(parser)
    args = parser.parse_args()
    try:
        return args, open_result(args.result)
    except ResultError as error:
        fail(str(error))


def run_experiment(binary, config, output, *assignments):
    """Runs `portasolve run CONFIG --set ...` into `output` (overwriting) and
    opens the result; exits with the command's error if it fails."""
    command = [binary, "run", config, "--quiet", "--overwrite", "--output", output]
    for assignment in assignments:
        command += ["--set", assignment]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}")
    return open_result(output)


def poisson_summary(f):
    """The numbers a Poisson benchmark reads from an open result file: solver, iterations, final residual,
    solve seconds (median of the repeats), grid, device, and the max error when the solution is known."""
    out, timing = f["output"].attrs, f["timing"].attrs
    return {
        "solver": text(out["solver"]),
        "iterations": int(out["iterations"]),
        "residual": float(out["relative_residual"]),
        "seconds": float(timing["solve_s"]),
        "rows": int(f["input"].attrs["rows"]),
        "cols": int(f["input"].attrs["cols"]),
        "device": text(f.attrs["device"]),
        "space": text(f.attrs["execution_space"]),
        "error": float(out["error_max_abs"]) if "error_max_abs" in out else float("nan"),
    }


def fail(message, code=2):
    print(f"{sys.argv[0]}: error: {message}", file=sys.stderr)
    sys.exit(code)


def copy_bandwidth(binary, output, elements):
    """GB/s of the STREAM copy of `elements` floats (configs/stream.yaml), for benchmarks' floors."""
    with run_experiment(binary, "configs/stream.yaml", output, "precision=float", f"stream.size={elements}",
                        "stream.operations=[copy]", "run.repeats=10") as f:
        return dict(zip(strings(f["output/operation"]), f["output/bandwidth"][()]))["copy"]


def print_table(header, rows):
    """A Markdown table and a blank line."""
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
