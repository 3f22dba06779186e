#!/usr/bin/env python3
"""Input-file fuzzer: small valid CSV, PGM (P2/P5, 8/16-bit) and HDF5 input files for the lombscargle, poisson
and smoothing drivers, then broken: truncated, corrupted or random bytes, NaN / Inf / huge / subnormal values,
wrong shapes, ranks and types, odd headers, missing columns or datasets. Each case runs a tiny config on the
file (sizes of a few hundred points at most, a few iterations) and checks what fuzzlib's docstring lists.

  python3 tests/fuzz/fuzz_inputs.py                        # 300 cases from the fixed seed (what ctest runs)
  python3 tests/fuzz/fuzz_inputs.py --cases 5000 --seed 7  # a longer local run
  python3 tests/fuzz/fuzz_inputs.py --seed 7 --case 123 --keep /tmp/case123   # replay one case, keep its files

Environment: PORTASOLVE_BIN, PORTASOLVE_FUZZ_CASES, PORTASOLVE_FUZZ_SEED, PORTASOLVE_FUZZ_JOBS,
PORTASOLVE_FUZZ_TIMEOUT_S, PORTASOLVE_FUZZ_AS_BYTES. Needs NumPy and h5py. A case depends only on (seed, case
number) and the installed h5py / HDF5 (byte offsets inside HDF5 files follow their layout).
"""

import math
import os
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzzlib  # noqa: E402

POISON = ["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e308", "-1e308", "1e309", "1e-320", "4.9e-324", "",
          " ", "0x1p3", "1e", "+", "-", ".", "\"1\"", "1 2", "0", "-0", "\uff11", "1_0", "1e+", "9" * 400,
          "0." + "0" * 400 + "1", "nan(123)", "\x00", "12.3abc", "1d5", "infinity", "1e-400"]
FLOATS = [np.nan, np.inf, -np.inf, 1e308, -1e308, 5e-324, 0.0, -0.0, 1e-300, 1e300, 3.5, -7.0, 65536.0, 256.0,
          -1.0, 2.0 ** 53, 1e19]


def small_image(rng, rows, cols, top=255):
    grid = np.array([[(17 * i + 5 * j + rng.randrange(7)) % (top + 1) for j in range(cols)] for i in range(rows)])
    return grid.astype(np.int64)


def pgm_bytes(image, top, raw):
    rows, cols = image.shape
    header = f"{'P5' if raw else 'P2'}\n# fuzz\n{cols} {rows}\n{top}\n".encode()
    if raw:
        dtype = ">u2" if top > 255 else "u1"
        return header + image.astype(dtype).tobytes()
    return header + "\n".join(" ".join(str(v) for v in row) for row in image).encode() + b"\n"


def corrupt(rng, data, notes):
    """Byte-level damage of any file."""
    data = bytearray(data)
    op = rng.choice(["truncate", "truncate", "flip", "flip", "insert", "delete", "zero-run", "empty", "garbage",
                     "append", "duplicate"])
    if op == "truncate":
        at = rng.randrange(len(data) + 1)
        data = data[:at]
        op += f" at {at}"
    elif op == "flip":
        for _ in range(rng.randint(1, 6)):
            if data:
                at = rng.randrange(min(len(data), rng.choice([64, 512, len(data)])))
                data[at] ^= 1 << rng.randrange(8)
    elif op == "insert":
        at = rng.randrange(len(data) + 1)
        data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    elif op == "delete":
        at = rng.randrange(len(data) + 1)
        del data[at:at + rng.randint(1, 16)]
    elif op == "zero-run" and data:
        at = rng.randrange(len(data))
        data[at:at + 64] = bytes(len(data[at:at + 64]))
    elif op == "empty":
        data = bytearray()
    elif op == "garbage":
        data = bytearray(rng.randrange(256) for _ in range(rng.choice([1, 7, 100, 3000])))
    elif op == "append":
        data += bytes(rng.randrange(256) for _ in range(rng.randint(1, 100)))
    else:
        at = rng.randrange(len(data) + 1)
        data = data[:at] + data
    notes.append(f"bytes: {op}")
    return bytes(data)


# --- CSV for lombscargle ----------------------------------------------------------------------------------------

def csv_case(rng, notes):
    n = rng.choice([2, 3, 5, 20, 60, 120])
    t = sorted(rng.uniform(0, 30) for _ in range(n))
    rows = [[f"{x!r}", f"{3 + math.sin(2.5 * x) + rng.gauss(0, 0.3)!r}", "0.3"] for x in t]
    header = ["time", "flux", "error"]
    op = rng.random()
    if op < 0.35:  # poison some cells
        for _ in range(rng.randint(1, 4)):
            r, c = rng.randrange(n), rng.randrange(3)
            rows[r][c] = rng.choice(POISON)
            notes.append(f"row {r + 2} {header[c]} = {fuzzlib.shell_word(rows[r][c])[:40]}")
    elif op < 0.6:
        what = rng.choice(["header-only", "no-header", "dup-header", "short-row", "long-row", "blank-lines",
                           "trailing-comma", "spaces", "crlf", "bom", "const-t", "unsorted", "const-y", "dy-zero",
                           "dy-negative", "quoted", "semicolon", "many-rows", "long-cell", "one-row", "tab"])
        notes.append(f"csv: {what}")
        if what == "header-only":
            rows = []
        elif what == "no-header":
            header = rows.pop(0) if rows else header
        elif what == "dup-header":
            header = ["time", "time", "error"]
        elif what == "short-row":
            rows[rng.randrange(n)] = rows[0][:rng.randrange(3)]
        elif what == "long-row":
            rows[rng.randrange(n)] += ["1"] * 5
        elif what == "blank-lines":
            rows.insert(rng.randrange(n + 1), [])
            rows.append([])
        elif what == "trailing-comma":
            rows = [r + [""] for r in rows]
        elif what == "spaces":
            rows = [[f"  {c}  " for c in r] for r in rows]
        elif what == "const-t":
            rows = [["5.0"] + r[1:] for r in rows]
        elif what == "unsorted":
            rng.shuffle(rows)
        elif what == "const-y":
            rows = [[r[0], "1.0", r[2]] for r in rows]
        elif what == "dy-zero":
            rows = [r[:2] + ["0"] for r in rows]
        elif what == "dy-negative":
            rows = [r[:2] + ["-0.3"] for r in rows]
        elif what == "quoted":
            rows = [[f'"{c}"' for c in r] for r in rows]
        elif what == "many-rows":
            rows = [[f"{k * 0.01!r}", f"{math.sin(k * 0.37)!r}", "0.3"] for k in range(3000)]
        elif what == "long-cell":
            rows[0][1] = "1" + "0" * 100000
        elif what == "one-row":
            rows = rows[:1]
    text = ",".join(header) + "\n" + "".join(",".join(r) + "\n" for r in rows)
    if notes and notes[-1] == "csv: crlf":
        text = text.replace("\n", "\r\n")
    if notes and notes[-1] == "csv: bom":
        text = "\ufeff" + text
    if notes and notes[-1] == "csv: semicolon":
        text = text.replace(",", ";")
    if notes and notes[-1] == "csv: tab":
        text = text.replace(",", "\t")
    data = text.encode("utf-8", "surrogatepass")
    if op >= 0.6:
        data = corrupt(rng, data, notes)
    dy = rng.choice(["error", "error", "", "missing"])
    config = "input: {source: csv, file: in.csv, t: time, y: flux" + (f", dy: {dy}" if dy else "") + "}\n"
    return config + lombscargle_options(rng), {"in.csv": data}


def lombscargle_options(rng):
    grid = rng.choice(["uniform", "uniform", "auto", "list"])
    if grid == "uniform":
        frequency = "frequency: {grid: uniform, minimum: 0.05, maximum: 2.0, count: %d}\n" % rng.choice([64, 200, 300])
    elif grid == "auto":
        frequency = "frequency: {grid: auto, samples_per_peak: 2, nyquist_factor: 1}\n"
    else:
        frequency = "frequency: {grid: list, values: [0.1, 0.5, 1.0, 1.5]}\n"
    form = rng.choice(["classic", "generalized"])
    algorithm = rng.choice(["auto", "direct", "tiled", "recurrence", "nufft"]) if grid == "uniform" else "auto"
    extra = rng.choice(["", "validation: {reference: float64}\n", "benchmark: {baseline: direct}\n"])
    return (f"experiment: lombscargle\nprecision: {rng.choice(['float', 'double'])}\n"
            f"lombscargle: {{form: {form}, algorithm: {algorithm}}}\n{frequency}peaks: {{count: 2}}\n{extra}"
            "output: {path: out.h5}\n")


# --- HDF5 --------------------------------------------------------------------------------------------------------

def h5_file(build):
    """Bytes of an HDF5 file made by build(f) (no timestamps: the same bytes every time)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "x.h5")
        with h5py.File(path, "w", libver="earliest", track_order=False) as f:
            build(f)
        with open(path, "rb") as f:
            return f.read()


def dataset(f, name, value, **options):
    f.create_dataset(name, data=value, track_times=False, **options)


def odd_array(rng, shape, base, notes, name):
    """`base` (a float array of `shape`), or a version with odd values, shape, rank or type."""
    op = rng.random()
    if op < 0.3:
        out = base.copy()
        for _ in range(rng.randint(1, 3)):
            if out.size:
                index = tuple(rng.randrange(s) for s in out.shape)
                out[index] = rng.choice(FLOATS)
                notes.append(f"{name}{list(index)} = {out[index]}")
        return out
    if op < 0.5:
        kind = rng.choice(["scalar", "1d", "3d", "empty", "empty-rows", "one", "transpose", "shorter", "longer"])
        notes.append(f"{name}: {kind}")
        if kind == "scalar":
            return np.float64(2.0)
        if kind == "1d":
            return base.reshape(-1)
        if kind == "3d":
            return base.reshape((1,) + base.shape)
        if kind == "empty":
            return np.zeros((0,) * base.ndim)
        if kind == "empty-rows":
            return np.zeros((0,) + base.shape[1:])
        if kind == "one":
            return np.ones((1,) * base.ndim)
        if kind == "transpose":
            return base.T.copy()
        if kind == "shorter":
            return base[..., :max(0, base.shape[-1] - 1)]
        return np.concatenate([base, base], axis=-1)
    if op < 0.75:
        dtype = rng.choice(["i1", "u1", "i8", "u8", "f2", "f4", "c8", "bool", "S8", "vlen-str", "u8-max", "i8-min",
                            "compound", "enum"])
        notes.append(f"{name}: dtype {dtype}")
        if dtype == "vlen-str":
            return np.array(["x"] * base.size, dtype=object).reshape(base.shape).astype(h5py.string_dtype())
        if dtype == "S8":
            return np.full(base.shape, b"1.5", dtype="S8")
        if dtype == "u8-max":
            return np.full(base.shape, np.iinfo(np.uint64).max, dtype="u8")
        if dtype == "i8-min":
            return np.full(base.shape, np.iinfo(np.int64).min, dtype="i8")
        if dtype == "compound":
            out = np.zeros(base.shape, dtype=[("a", "f8"), ("b", "i4")])
            out["a"] = base
            return out
        if dtype == "enum":
            return ("enum", base.astype("u1"))
        if dtype == "c8":
            return base.astype("c8")
        with np.errstate(all="ignore"):
            return np.nan_to_num(base).astype(dtype)
    if op < 0.85:
        kind = rng.choice(["missing", "group", "soft-dangling", "external", "huge-chunked", "gzip", "huge-dims"])
        notes.append(f"{name}: {kind}")
        return (kind, base)
    return base


def write_odd(f, name, value):
    if isinstance(value, tuple):
        kind, base = value
        if kind == "missing":
            dataset(f, name + "_renamed", base)
        elif kind == "group":
            f.create_group(name)
        elif kind == "soft-dangling":
            f[name] = h5py.SoftLink("/nowhere")
        elif kind == "external":
            f[name] = h5py.ExternalLink("absent.h5", "/x")
        elif kind == "huge-chunked":  # 50000 x 50000 doubles (20 GB) declared, nothing written
            shape = (50000, 50000) if base.ndim == 2 else (3_000_000_000,)
            f.create_dataset(name, shape=shape, dtype="f8", chunks=(1,) * (len(shape) - 1) + (1000,),
                             track_times=False)
        elif kind == "gzip":
            dataset(f, name, base, compression="gzip", chunks=True)
        elif kind == "huge-dims":  # extendible, empty now
            f.create_dataset(name, shape=(0,) * base.ndim, maxshape=(None,) * base.ndim, dtype="f8",
                             chunks=(1,) * base.ndim, track_times=False)
        elif kind == "enum":
            f.create_dataset(name, data=base, dtype=h5py.enum_dtype({"A": 0, "B": 1}, basetype="u1"),
                             track_times=False) if base.max() <= 1 else dataset(f, name, base % 2)
        return
    dataset(f, name, value)


def lombscargle_hdf5_case(rng, notes):
    n, series = rng.choice([2, 3, 8, 40, 100]), rng.choice([1, 1, 3])
    t = np.sort(np.array([rng.uniform(0, 30) for _ in range(n)]))
    y = np.array([[math.sin(0.3 * (s + 1) * x) + rng.gauss(0, 0.2) for x in t] for s in range(series)])
    if series == 1 and rng.random() < 0.5:
        y = y[0]
    dy = np.full(y.shape, 0.3)
    t_value = odd_array(rng, t.shape, t, notes, "t") if rng.random() < 0.5 else t
    y_value = odd_array(rng, y.shape, y, notes, "y") if rng.random() < 0.6 else y
    dy_value = odd_array(rng, dy.shape, dy, notes, "dy") if rng.random() < 0.3 else dy

    def build(f):
        write_odd(f, "t", t_value)
        write_odd(f, "y", y_value)
        write_odd(f, "dy", dy_value)
    data = h5_file(build)
    if not notes or rng.random() < 0.3:
        data = corrupt(rng, data, notes)
    dy_key = rng.choice([", dy: dy", ""])
    return f"input: {{source: hdf5, file: in.h5{dy_key}}}\n" + lombscargle_options(rng), {"in.h5": data}


def image_hdf5(rng, notes, rows, cols):
    image = small_image(rng, rows, cols).astype(np.float64)
    value = odd_array(rng, image.shape, image, notes, "image") if rng.random() < 0.75 else image
    data = h5_file(lambda f: write_odd(f, "image", value))
    if not notes or rng.random() < 0.25:
        data = corrupt(rng, data, notes)
    return data


def image_pgm(rng, notes, rows, cols):
    top = rng.choice([255, 255, 65535, 1, 1000])
    raw = rng.random() < 0.6
    image = small_image(rng, rows, cols, top)
    data = pgm_bytes(image, top, raw)
    op = rng.random()
    if op < 0.45:
        what = rng.choice(["width0", "height0", "huge-dims", "1x1", "2x2", "1xN", "Nx1", "maxval0", "maxval65536",
                           "maxval-neg", "no-maxval", "magic", "comment-glued", "no-space-after-maxval",
                           "pixel-above", "p2-letter", "p2-short", "p2-extra", "p5-short", "p5-extra", "const",
                           "zero", "max", "wide-16bit-as-8", "many-comments", "huge-width-small-file",
                           "negative", "plus-sign", "cr-separators"])
        notes.append(f"pgm: {what}")
        header_end = data.index(b"\n", data.index(b"\n", data.index(b"\n") + 1) + 1)
        body = data[header_end + 1:]
        magic = data[:2]

        def header(c, r, m, glue=b"\n"):
            return magic + b"\n" + str(c).encode() + b" " + str(r).encode() + b"\n" + str(m).encode() + glue
        if what == "width0":
            data = header(0, rows, top) + body
        elif what == "height0":
            data = header(cols, 0, top) + body
        elif what == "huge-dims":
            data = header(rng.choice([65536, 999999999, 100000]), rng.choice([65536, 999999999, 100000]), top) + body
        elif what == "huge-width-small-file":
            data = header(1000000, 1, top) + body
        elif what in ("1x1", "2x2", "1xN", "Nx1"):
            shape = {"1x1": (1, 1), "2x2": (2, 2), "1xN": (1, 40), "Nx1": (40, 1)}[what]
            data = pgm_bytes(small_image(rng, *shape, top), top, raw)
        elif what == "maxval0":
            data = header(cols, rows, 0) + body
        elif what == "maxval65536":
            data = header(cols, rows, 65536) + body
        elif what == "maxval-neg":
            data = header(cols, rows, -1) + body
        elif what == "no-maxval":
            data = magic + b"\n" + f"{cols} {rows}\n".encode() + body
        elif what == "magic":
            data = rng.choice([b"P1", b"P3", b"P6", b"p5", b"P7", b"P", b"P52"]) + data[2:]
        elif what == "comment-glued":
            data = magic + b"#c\n" + data[2:]
        elif what == "no-space-after-maxval":
            data = header(cols, rows, top, b"") + body
        elif what == "pixel-above":
            data = pgm_bytes(np.minimum(image + 1, 65535), top, False) if top < 65535 else data
        elif what == "p2-letter":
            data = pgm_bytes(image, top, False)[:-4] + b" x\n"
        elif what == "p2-short":
            data = pgm_bytes(image, top, False).rsplit(b" ", 3)[0]
        elif what == "p2-extra":
            data = pgm_bytes(image, top, False) + b"1 2 3 junk\n"
        elif what == "p5-short":
            data = pgm_bytes(image, top, True)[:-1]
        elif what == "p5-extra":
            data = pgm_bytes(image, top, True) + b"extra"
        elif what == "const":
            data = pgm_bytes(np.full(image.shape, top // 2), top, raw)
        elif what == "zero":
            data = pgm_bytes(np.zeros(image.shape, dtype=np.int64), top, raw)
        elif what == "max":
            data = pgm_bytes(np.full(image.shape, top), top, raw)
        elif what == "wide-16bit-as-8":
            data = header(cols, rows, 255) + pgm_bytes(image, 65535, True)[header_end + 1:]
        elif what == "many-comments":
            data = magic + b"\n" + b"# c\n" * 10000 + data[3:]
        elif what == "negative":
            data = magic + b"\n-" + data[3:]
        elif what == "plus-sign":
            data = magic + b"\n+" + data[3:]
        else:
            data = data[:header_end + 1].replace(b"\n", b"\r") + body
    elif op < 0.75:
        data = corrupt(rng, data, notes)
    else:
        notes.append("pgm: valid")
    return data


def image_source(rng, notes, source, rows, cols, files):
    """A rows x cols image file of `source` (pgm or hdf5) into `files`: the config's keys that read it."""
    if source == "pgm":
        files["in.pgm"] = image_pgm(rng, notes, rows, cols)
        return "source: pgm, file: in.pgm"
    files["in.h5"] = image_hdf5(rng, notes, rows, cols)
    return "source: hdf5, file: in.h5, dataset: image"


def poisson_case(rng, notes):
    rows, cols = rng.choice([(3, 3), (4, 7), (12, 17), (19, 27), (30, 40)])
    source = rng.choice(["pgm", "pgm", "hdf5"])
    solver = rng.choice(["jacobi", "jacobi_blocked", "cg", "cg_fused", "multigrid", "spectral", "auto"])
    files = {}
    problem = "problem: {" + image_source(rng, notes, source, rows, cols, files)
    if rng.random() < 0.25:
        files["init.pgm"] = image_pgm(rng, notes, rows, cols) if rng.random() < 0.7 else pgm_bytes(
            small_image(rng, rows, cols), 255, True)
        problem += ", initial: pgm, initial_file: init.pgm"
    options = f"solver: {solver}, max_iterations: 40, check_every: 10, tolerance: {rng.choice(['0', '1.0e-6'])}"
    if solver == "jacobi_blocked":
        options += f", blocked: {{sweeps_per_launch: {rng.choice([2, 4, 8])}, kernel: {rng.choice(['auto', 'tiles', 'registers', 'resident'])}}}"
    config = (f"experiment: poisson\nprecision: {rng.choice(['float', 'double'])}\n{problem}}}\n"
              f"poisson: {{{options}}}\noutput: {{path: out.h5{', pgm: out.pgm' if rng.random() < 0.4 else ''}}}\n")
    return config, files


def smoothing_case(rng, notes):
    rows, cols = rng.choice([(3, 3), (5, 9), (12, 17), (19, 27), (33, 20)])
    source = rng.choice(["pgm", "pgm", "hdf5"])
    files = {}
    image = "image: {" + image_source(rng, notes, source, rows, cols, files)
    image += f", pixel_type: {rng.choice(['uint8', 'uint16', 'int32', 'float', 'double'])}}}\n"
    kernel = rng.choice(["box", "gaussian", "weighted"])
    smoothing = {"box": f"kernel: box, radius: {rng.choice([1, 1, 2])}",
                 "gaussian": "kernel: gaussian, sigma: 1.0",
                 "weighted": "kernel: weighted, weights: [[1, 2, 1], [2, 4, 2], [1, 2, 1]]"}[kernel]
    smoothing += (f", border: {rng.choice(['keep', 'nearest', 'reflect', 'mirror', 'wrap', 'constant'])}"
                  f", passes: {rng.choice([1, 2, 3])}")
    config = (f"experiment: smoothing\n{image}smoothing: {{{smoothing}}}\n"
              f"output: {{path: out.h5{', pgm: out.pgm' if rng.random() < 0.4 else ''}}}\n")
    return config, files


def make_case(seed, number):
    rng = fuzzlib.case_rng(seed, number, "inputs")
    notes = []
    kind = rng.choice(["csv", "csv", "lombscargle-hdf5", "poisson", "poisson", "smoothing", "smoothing"])
    config, files = {"csv": csv_case, "lombscargle-hdf5": lombscargle_hdf5_case, "poisson": poisson_case,
                     "smoothing": smoothing_case}[kind](rng, notes)
    files = dict(files)
    files["config.yaml"] = config.encode()
    args = ["run", "config.yaml", "--quiet"]
    target = None
    if rng.random() < 0.2:
        target = "out.h5"
        files[target] = b"precious result " + str(number).encode()
    return fuzzlib.Case(number, seed, f"{kind}:{notes[0].split(':')[0] if notes else 'valid'}", args, files, target,
                        False, "; ".join(notes) or "none (a valid file)")


def replay(seed, number):
    return f"python3 tests/fuzz/fuzz_inputs.py --seed {seed} --case {number} --keep /tmp/fuzz-case-{number}"


if __name__ == "__main__":
    sys.exit(fuzzlib.main(__doc__, make_case, replay))
