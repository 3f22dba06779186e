"""End-to-end tests of the portasolve command line, its result files and the
post-processing scripts. Run by ctest with PORTASOLVE_BIN and PORTASOLVE_SCRIPTS set."""

import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from interrupts import interrupt_after  # noqa: E402

BIN = os.environ["PORTASOLVE_BIN"]
SCRIPTS = os.environ["PORTASOLVE_SCRIPTS"]
ENV = dict(os.environ, OMP_PROC_BIND="false")

SMALL_STREAM = """experiment: stream
precision: float
stream:
  size: 20000
  operations: [copy, scale, add, triad, deep_copy]
run: {repeats: 3, warmup: 1}
"""


def portasolve(*args, cwd=None):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=cwd, env=ENV, timeout=120)


def set_arguments(sets):
    """--set KEY=VALUE for each of `sets`."""
    return [item for key_value in sets for item in ("--set", key_value)]


def script(name, *args):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, name), *args], capture_output=True, text=True,
                          env=ENV, timeout=120)


class Folder(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, name, content):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(content)
        return path

    def series_input(self, name, t, y, dy):
        """Writes t, y and dy (series x samples) to the HDF5 file `name`: the config's input line that reads them."""
        path = os.path.join(self.dir, name)
        with h5py.File(path, "w") as f:
            f["t"], f["y"], f["dy"] = t, y, dy
        return f"input: {{source: hdf5, file: {path}, dy: dy}}\n"

    def expect_errors(self, cases, command="run"):
        """Runs `command` on each (config text, exit code, message): that code, the message on stderr, no result
        file; `check` prints nothing on stdout."""
        output = os.path.join(self.dir, "x.h5")
        for text_, code, message in cases:
            config = self.write("e.yaml", text_)
            result = portasolve(command, config, *(["--output", output, "--quiet"] if command == "run" else []))
            self.assertEqual(result.returncode, code, (text_, result.stderr))
            self.assertIn(message, result.stderr, text_)
            self.assertFalse(os.path.exists(output))
            if command == "check":
                self.assertEqual(result.stdout, "", text_)

    def expect_check_and_run_refuse(self, name, cases):
        """Writes each config text of `cases` (text: message) to `name`: check and run exit 2 with the message on
        stderr and leave nothing but the config."""
        for content, message in cases.items():
            config = self.write(name, content)
            for command in ("check", "run"):
                result = portasolve(command, config, cwd=self.dir)
                self.assertEqual(result.returncode, 2, (content, result.stderr))
                self.assertIn(message, result.stderr)
            self.assertEqual(self.files(), [name])

    def files(self):
        return sorted(os.listdir(self.dir))

    def run_ok(self, config, out, *sets, options=(), says=()):
        """`portasolve run config --output out --quiet`, each of `sets` a --set, then `options`: exit 0, each of
        `says` on stdout."""
        result = portasolve("run", config, "--output", out, "--quiet", *set_arguments(sets), *options)
        self.assertEqual(result.returncode, 0, result.stderr)
        for text_ in says:
            self.assertIn(text_, result.stdout)
        return result

    def run_text(self, config_text, name, *sets, options=(), says=()):
        """run_ok of `config_text` written to name.yaml, into name.h5: that path and the run."""
        out = os.path.join(self.dir, name + ".h5")
        return out, self.run_ok(self.write(name + ".yaml", config_text), out, *sets, options=options, says=says)

    def start(self, *args):
        return subprocess.Popen([BIN, *args], cwd=self.dir, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)

    def assert_interrupted(self, process, stderr, config):
        """Exit 130, "interrupted" said, nothing left in the folder but the config."""
        self.assertEqual(process.returncode, 130, stderr)
        self.assertIn("interrupted", stderr)
        self.assertEqual(self.files(), [os.path.basename(config)])

    def expect_ctrl_c_acts(self, config, still_running):
        """Runs `config`, sends Ctrl-C after 2 s (the handler is installed by then): exit 130 within 10 s,
        "interrupted" said, nothing left in the folder but the config."""
        process = self.start("run", config)

        def wait():
            time.sleep(2)
            self.assertIsNone(process.poll(), still_running)
        _, stderr, seconds = interrupt_after(process, wait)
        self.assert_interrupted(process, stderr, config)
        self.assertLess(seconds, 10)

    def expect_signal_stops_a_stream_run(self, signal_number):
        """A long stream run sent `signal_number` inside its repeat loop: assert_interrupted."""
        config = self.write("s.yaml", SMALL_STREAM)
        process = self.start("run", config, "--set", "run.repeats=100000000", "--set", "run.progress_interval_s=0.01")

        def wait():
            deadline = time.time() + 60
            while time.time() < deadline:  # until it is inside the repeat loop
                if "stream: repeat" in process.stderr.readline():
                    break
        _, stderr, _ = interrupt_after(process, wait, signal_number)
        self.assert_interrupted(process, stderr, config)


class ExitCodes(Folder):
    def test_help_and_version(self):
        for args in (["--help"], ["run", "--help"], ["check", "--help"], ["info", "--help"]):
            result = portasolve(*args)
            self.assertEqual(result.returncode, 0, args)
            self.assertIn("usage: portasolve", result.stdout)
        result = portasolve("--version")
        self.assertEqual(result.returncode, 0)
        self.assertRegex(result.stdout, r"^portasolve \d+\.\d+\.\d+\n$")

    def test_usage_errors_exit_2(self):
        config = self.write("s.yaml", SMALL_STREAM)
        for args in ([], ["frobnicate"], ["run"], ["run", config, "--bogus"], ["run", config, "--set"],
                     ["check", config, "extra.yaml"]):
            result = portasolve(*args)
            self.assertEqual(result.returncode, 2, (args, result.stderr))
            self.assertNotIn("internal", result.stderr)

    def test_config_errors_exit_2_and_name_position(self):
        cases = {
            "stream:\n  size: 5\n": "key 'experiment': missing required key",
            "experiment: stream\nstream:\n  sise: 5\n": "bad.yaml:3:3: key 'stream.sise': unknown key (did you mean 'stream.size'?)",
            "experiment: stream\nstream:\n  size: many\n": "bad.yaml:3:9: key 'stream.size': expected an integer",
            "experiment: stream\nrun: {repeats: 0}\n": "bad.yaml:2:16: key 'run.repeats': out of range: 0",
            "experiment: stream\nstream: [1, 2\n": "bad.yaml:3:1: malformed YAML",
        }
        self.expect_check_and_run_refuse("bad.yaml", cases)
        result = portasolve("check", os.path.join(self.dir, "missing.yaml"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("missing.yaml: cannot open the config file", result.stderr)
        self.assertEqual(self.files(), ["bad.yaml"])  # nothing written

    def test_set_is_checked_like_the_file(self):
        config = self.write("s.yaml", SMALL_STREAM)
        result = portasolve("check", config, "--set", "stream.scalar=abc")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--set stream.scalar=abc: key 'stream.scalar': expected a finite number", result.stderr)


class Check(Folder):
    def test_prints_effective_config_with_defaults(self):
        config = self.write("s.yaml", SMALL_STREAM)
        result = portasolve("check", config, "--set", "seed=7")
        self.assertEqual(result.returncode, 0, result.stderr)
        for line in ("experiment: stream", "precision: float", "  path: stream.h5", "  overwrite: false",
                     "  repeats: 3", "seed: 7", "  scalar: 3", "  operations: [copy, scale, add, triad, deep_copy]"):
            self.assertIn(line + "\n", result.stdout)
        again = self.write("again.yaml", result.stdout)
        self.assertEqual(portasolve("check", again).stdout, result.stdout)


class Run(Folder):
    def run_small(self, *extra):
        config = self.write("s.yaml", SMALL_STREAM)
        return portasolve("run", config, "--output", os.path.join(self.dir, "out.h5"), *extra, cwd=self.dir)

    def test_result_file_is_self_describing(self):
        result = self.run_small("--quiet")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("wrote ", result.stdout)
        self.assertEqual(self.files(), ["out.h5", "s.yaml"])
        checked = portasolve("check", os.path.join(self.dir, "s.yaml"), "--set",
                             "output.path=" + os.path.join(self.dir, "out.h5"))
        with h5py.File(os.path.join(self.dir, "out.h5"), "r") as f:
            for name in ("portasolve_version", "experiment", "created", "command_line", "host", "kokkos_version",
                         "execution_space", "device", "precision", "config"):
                self.assertIn(name, f.attrs)
            self.assertEqual(f.attrs["experiment"], "stream")
            self.assertEqual(f.attrs["precision"], "float")
            self.assertEqual(f.attrs["config"], checked.stdout)
            self.assertIn("--quiet", f.attrs["command_line"])
            self.assertEqual(set(f.keys()), {"input", "output", "timing", "validation"})
            self.assertEqual(f["timing/solve_s_per_repeat"].shape, (3,))
            self.assertGreater(f["timing"].attrs["solve_s"], 0)
            self.assertEqual(f["validation"].attrs["max_rel_err"], 0.0)
            self.assertEqual([s.decode() for s in f["output/operation"][()]], ["copy", "scale", "add", "triad", "deep_copy"])
            self.assertEqual(f["output/bytes"][()].tolist(), [160000, 160000, 240000, 240000, 160000])
            self.assertEqual(f["output/bandwidth"].attrs["units"], "GB/s")
            self.assertEqual(f["output/time"].shape, (3, 5))

    def test_existing_file_kept_unless_overwrite(self):
        self.assertEqual(self.run_small("--quiet").returncode, 0)
        path = os.path.join(self.dir, "out.h5")
        before = open(path, "rb").read()
        result = self.run_small("--quiet")
        self.assertEqual(result.returncode, 2)
        self.assertIn("exists", result.stderr)
        self.assertEqual(open(path, "rb").read(), before)
        result = self.run_small("--quiet", "--overwrite", "--set", "seed=99")
        self.assertEqual(result.returncode, 0, result.stderr)
        with h5py.File(path, "r") as f:
            self.assertIn("seed: 99", f.attrs["config"])
        self.assertEqual(self.files(), ["out.h5", "s.yaml"])

    def test_failure_while_running_exits_1_and_leaves_no_file(self):
        # Sizes that cannot fit are refused up front (exit 2, MemoryLimits below); with the estimate's
        # limit lifted the allocation itself fails while running.
        config = self.write("s.yaml", SMALL_STREAM)
        result = subprocess.run([BIN, "run", config, "--output", os.path.join(self.dir, "out.h5"), "--quiet", "--set",
                                 "stream.size=1e15"], capture_output=True, text=True, cwd=self.dir, timeout=120,
                                env=dict(ENV, PORTASOLVE_MEMORY_LIMIT_BYTES=str(2 ** 63)))
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("error", result.stderr)
        self.assertEqual(self.files(), ["s.yaml"])

    def test_progress_on_stderr_unless_quiet(self):
        args = ("--set", "run.repeats=20", "--set", "run.progress_interval_s=1e-9")
        loud = self.run_small(*args)
        self.assertEqual(loud.returncode, 0, loud.stderr)
        self.assertRegex(loud.stderr, r"stream: repeat \d+/21 \(\d+%\), elapsed [0-9.]+ s")
        self.assertIn("ETA", loud.stderr)
        quiet = self.run_small("--overwrite", "--quiet", *args)
        self.assertEqual(quiet.returncode, 0, quiet.stderr)
        self.assertNotIn("stream: repeat", quiet.stderr)

    def test_ctrl_c_stops_cleanly_without_output(self):
        self.expect_signal_stops_a_stream_run(signal.SIGINT)

    def test_no_openmp_binding_warning_without_omp_variables(self):
        # A new user sets neither OMP_PROC_BIND nor OMP_PLACES: Kokkos' four-line
        # OMP_PROC_BIND warning (stdout in Kokkos 3.4, stderr in 4.x) must not appear.
        env = {k: v for k, v in os.environ.items() if k not in ("OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY")}
        config = self.write("s.yaml", SMALL_STREAM)
        for args in (["info"], ["run", config, "--output", os.path.join(self.dir, "out.h5")]):
            result = subprocess.run([BIN, *args], capture_output=True, text=True, cwd=self.dir, env=env, timeout=120)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertNotIn("OMP_PROC_BIND", result.stdout + result.stderr, args)
        # A user's own setting is kept (Kokkos does not warn either).
        result = subprocess.run([BIN, "info"], capture_output=True, text=True, env=dict(env, OMP_PROC_BIND="spread"),
                                timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("OMP_PROC_BIND", result.stdout + result.stderr)

    def test_kokkos_flags_pass_through(self):
        info = portasolve("info", "--kokkos-threads=1")
        self.assertEqual(info.returncode, 0, info.stderr)
        if "execution space:    OpenMP" in info.stdout:
            self.assertIn("concurrency:        1\n", info.stdout)
        self.assertIn("stream:", info.stdout)
        result = self.run_small("--quiet", "--kokkos-threads=1")
        self.assertEqual(result.returncode, 0, result.stderr)


class Scripts(Folder):
    def setUp(self):
        super().setUp()
        self.result = os.path.join(self.dir, "out.h5")
        self.run_ok(self.write("s.yaml", SMALL_STREAM), self.result)

    def test_summary_prints_provenance_timing_validation(self):
        result = script("summary.py", self.result, "--config")
        self.assertEqual(result.returncode, 0, result.stderr)
        for text in ("experiment          stream", "precision           float", "solve_s", "repeats            3",
                     "max_rel_err  0", "output/bandwidth  float64 [5] GB/s", "  stream:"):
            self.assertIn(text, result.stdout)

    def test_plot_writes_a_png(self):
        image = os.path.join(self.dir, "picture.png")
        result = script("plot.py", self.result, "-o", image)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(image, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        default = script("plot.py", self.result)
        self.assertEqual(default.returncode, 0, default.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "out.png")))

    def test_scripts_reject_other_files(self):
        not_result = self.write("plain.h5", "not hdf5")
        other = os.path.join(self.dir, "other.h5")
        with h5py.File(other, "w") as f:
            f.attrs["x"] = 1
        for name in ("plot.py", "summary.py"):
            for path in (not_result, other):
                result = script(name, path)
                self.assertEqual(result.returncode, 2, (name, path, result.stderr))
                self.assertIn("error", result.stderr)


class LombScargle(Folder):
    def test_csv_input_peak_fap_and_plot(self):
        import math
        import random
        rng = random.Random(5)
        rows = ["time,flux,error"]
        for _ in range(120):
            t = rng.uniform(0, 30)
            rows.append(f"{t},{3 + math.sin(2 * math.pi * 0.4 * t) + rng.gauss(0, 0.3)},0.3")
        data = self.write("curve.csv", "\n".join(rows) + "\n")
        out, _ = self.run_text(f"""experiment: lombscargle
input: {{source: csv, file: {data}, t: time, y: flux, dy: error}}
frequency: {{grid: uniform, minimum: 0.05, maximum: 2.0, count: 1000}}
peaks: {{count: 2}}
validation: {{reference: float64}}
""", "ls")
        with h5py.File(out, "r") as f:
            self.assertEqual(f.attrs["experiment"], "lombscargle")
            self.assertEqual(f["output/power"].shape, (1000,))
            self.assertEqual(f["output/frequency"].attrs["units"], "cycles per unit time")
            self.assertEqual(f["input/t"].shape, (120,))
            self.assertEqual(f["input/dy"].shape, (120,))
            self.assertAlmostEqual(f["output/peak_frequency"][0, 0], 0.4, delta=0.01)
            self.assertLess(f["output/peak_fap"][0, 0], 1e-6)
            self.assertEqual(f["output/power"].attrs["normalization"], "standard")
            self.assertLess(f["validation"].attrs["max_rel_err"], 1e-12)
        plot = script("plot.py", out)
        self.assertEqual(plot.returncode, 0, plot.stderr)

    def test_hdf5_batch_input(self):
        import numpy as np
        rng = np.random.default_rng(3)
        t = np.sort(rng.uniform(0, 20, 80))
        y = np.sin(2 * np.pi * np.array([[0.3], [0.7], [1.1]]) * t) + rng.normal(0, 0.2, (3, 80))
        data = os.path.join(self.dir, "series.h5")
        with h5py.File(data, "w") as f:
            f["times"] = t
            f["values"] = y
        out, _ = self.run_text(f"""experiment: lombscargle
input: {{source: hdf5, file: {data}, t: times, y: values}}
frequency: {{grid: uniform, minimum: 0.05, maximum: 2.0, count: 2000}}
peaks: {{count: 1}}
""", "batch")
        with h5py.File(out, "r") as f:
            self.assertEqual(f["output/power"].shape, (3, 2000))
            peaks = f["output/peak_frequency"][:, 0]
            for found, expected in zip(peaks, (0.3, 0.7, 1.1)):
                self.assertAlmostEqual(found, expected, delta=0.01)

    def test_nufft_matches_direct_and_records_its_tolerance(self):
        # 3 segments of a 64-point grid limit each, float: the result file says
        # which algorithm ran at which tolerance; power within it of direct.
        out, _ = self.run_text("""experiment: lombscargle
precision: float
input: {source: synthetic, samples: 300, duration: 40.0}
frequency: {grid: uniform, minimum: 0.01, maximum: 3.0, count: 90}
lombscargle: {algorithm: nufft, nufft_tolerance: 1.0e-6, nufft_grid_limit: 64}
validation: {reference: float64}
""", "ls")
        with h5py.File(out, "r") as f:
            self.assertEqual(f["output"].attrs["algorithm"], "nufft")
            self.assertEqual(f["output"].attrs["nufft_tolerance"], 1e-6)
            self.assertLess(f["validation"].attrs["max_rel_err"], 2e-5)
            self.assertGreater(f["validation"].attrs["max_rel_err"], 0)

    def test_progress_names_the_baseline_and_prints_the_last_line_once(self):
        config = self.write("ls.yaml", """experiment: lombscargle
input: {source: synthetic, samples: 200, duration: 40.0}
frequency: {grid: uniform, minimum: 0.01, maximum: 3.0, count: 300}
lombscargle: {algorithm: nufft}
benchmark: {baseline: direct}
run: {repeats: 2, progress_interval_s: 1.0e-9}
""")
        result = portasolve("run", config, "--output", os.path.join(self.dir, "ls.h5"))
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = [line for line in result.stderr.splitlines() if line.startswith("lombscargle/")]
        self.assertTrue(lines[0].startswith("lombscargle/direct (baseline): launch 1/4"), lines)
        self.assertTrue(lines[1].startswith("lombscargle/direct (baseline): launch 2/4"), lines)
        self.assertTrue(lines[2].startswith("lombscargle/nufft: launch 3/4"), lines)
        self.assertTrue(lines[-1].startswith("lombscargle/nufft: launch 4/4 (100%)"), lines)
        self.assertEqual(len(lines), 4, lines)  # the last line once

    def test_fap_does_not_depend_on_the_order_of_a_frequency_list(self):
        import numpy as np
        rng = np.random.default_rng(8)
        t = np.sort(rng.uniform(0, 20, 60))
        y = np.sin(2 * np.pi * 0.45 * t) + rng.normal(0, 0.8, 60)
        data = os.path.join(self.dir, "series.h5")
        with h5py.File(data, "w") as f:
            f["t"] = t
            f["y"] = y
        values = [round(0.05 + 0.01 * k, 2) for k in range(200)]
        faps = []
        for order in (values, values[::-1]):
            out, _ = self.run_text(f"""experiment: lombscargle
input: {{source: hdf5, file: {data}}}
frequency: {{grid: list, values: {order}}}
peaks: {{count: 1}}
""", "ls", options=["--overwrite"])
            with h5py.File(out, "r") as f:
                faps.append(f["output/peak_fap"][0, 0])
        self.assertTrue(0 < faps[0] < 1)
        self.assertEqual(faps[0], faps[1])

    def test_input_errors(self):
        data = self.write("bad.csv", "time,flux\n1,2\n2,x\n")
        cases = [
            ("input: {source: csv}", 2, "key 'input.file': missing for input.source: csv"),
            (f"input: {{source: csv, file: {data}, t: when}}", 2, "key 'input.t': no column 'when'"),
            (f"input: {{source: csv, file: {data}, t: time, y: flux}}", 2, "bad.csv:3: 'x' in column flux is not a number"),
            ("frequency: {grid: list}", 2, "key 'frequency.values': missing for frequency.grid: list"),
            ("frequency: {grid: list, values: [1, -1]}", 2, "out of range: -1"),
            ("lombscargle: {algorithm: recurrence}\nfrequency: {grid: list, values: [1, 2]}", 2,
             "needs a uniform frequency grid"),
            ("input: {source: hdf5, file: /nonexistent.h5}", 1, "cannot open '/nonexistent.h5' as an HDF5 file"),
            ("lombscargle: {algorithm: nufft}\nfrequency: {grid: list, values: [1, 2]}", 2,
             "the nufft algorithm needs a uniform frequency grid"),
            ("lombscargle: {nufft_grid_limit: 1000}", 2,
             "key 'lombscargle.nufft_grid_limit': 1000 is not a power of two >= 64"),
            ("lombscargle: {nufft_tolerance: 1.5}", 2, "key 'lombscargle.nufft_tolerance'"),
        ]
        self.expect_errors([("experiment: lombscargle\n" + body + "\n", code, message)
                            for body, code, message in cases])



def scipy115_lombscargle(x, y, freqs, normalize, weights, floating_mean):
    """SciPy 1.15's classic periodogram with weights and floating_mean, float64, at angular frequencies
    (written from its formulas: Debian's SciPy 1.10 has neither option)."""
    w = weights / weights.sum()
    phase = np.outer(x, freqs)
    c, s = np.cos(phase), np.sin(phase)
    Y = w @ y
    CC, CS = w @ (c * c), w @ (c * s)
    SS = 1.0 - CC
    if floating_mean:
        C, S = w @ c, w @ s
        CC, SS, CS = CC - C * C, SS - S * S, CS - C * S
    tau = 0.5 * np.arctan2(2.0 * CS, CC - SS)
    c, s = np.cos(phase - tau), np.sin(phase - tau)
    YC, YS, CC = (w * y) @ c, (w * y) @ s, w @ (c * c)
    SS = 1.0 - CC
    if floating_mean:
        C, S = w @ c, w @ s
        YC, YS, CC, SS = YC - Y * C, YS - Y * S, CC - C * C, SS - S * S
    eps = np.finfo(np.float64).epsneg
    pgram = 2.0 * (YC ** 2 / np.maximum(CC, eps) + YS ** 2 / np.maximum(SS, eps))
    if normalize:
        return pgram * 0.5 / ((w * y) @ y - (Y * Y if floating_mean else 0.0))
    return pgram * x.size / 4.0


def lstsq_sinusoid(t, y, frequency, weights, offset):
    """amplitude, phase, offset of y ~ offset + amplitude sin(2 pi f t + phase) by numpy.linalg.lstsq."""
    columns = [np.sin(2 * np.pi * frequency * t), np.cos(2 * np.pi * frequency * t)]
    if offset:
        columns.append(np.ones_like(t))
    root = np.sqrt(weights)
    coefficients = np.linalg.lstsq(np.array(columns).T * root[:, None], y * root, rcond=None)[0]
    return (np.hypot(coefficients[0], coefficients[1]), np.arctan2(coefficients[1], coefficients[0]),
            coefficients[2] if offset else 0.0)


class LombScargleOutput(Folder):
    def test_classic_weights_floating_mean_compressed_power_and_summary(self):
        rng = np.random.default_rng(12)
        t = np.sort(rng.uniform(0, 40, (2, 90)), axis=1)
        y = 4.0 + np.array([[1.2], [0.7]]) * np.sin(np.array([[0.9], [2.3]]) * t + 0.4) + rng.normal(0, 0.3, (2, 90))
        weights = rng.uniform(0.2, 2.0, (2, 90))
        weights[:, ::11] = 0.0
        data = os.path.join(self.dir, "series.h5")
        with h5py.File(data, "w") as f:
            f["t"], f["y"], f["w"] = t, y, weights
        freqs = np.linspace(0.1, 4.0, 3000)
        out, _ = self.run_text(f"""experiment: lombscargle
lombscargle: {{form: classic, floating_mean: true, normalize: true}}
input: {{source: hdf5, file: {data}, weights: w}}
frequency: {{grid: uniform, angular: true, minimum: 0.1, maximum: 4.0, count: 3000}}
output: {{compression: 5}}
peaks: {{count: 3}}
""", "ls")
        with h5py.File(out, "r") as f:
            power = f["output/power"]
            self.assertEqual(power.compression, "gzip")
            self.assertEqual(power.compression_opts, 5)
            self.assertEqual(power.chunks, (2, 3000))
            self.assertIn("SciPy 1.15", f["output/power"].attrs["description"])
            np.testing.assert_array_equal(f["input/weights"][()], weights)
            for s in range(2):
                expected = scipy115_lombscargle(t[s], y[s], freqs, True, weights[s], True)
                np.testing.assert_allclose(power[s], expected, rtol=1e-9, atol=1e-10 * expected.max())
                best = int(np.argmax(expected))
                summary = f["output/summary"]
                self.assertAlmostEqual(summary["frequency"][s], freqs[best], delta=1e-12)
                self.assertAlmostEqual(summary["power"][s], expected[best], delta=1e-9)
                self.assertEqual(summary["frequency"][s], f["output/peak_frequency"][s, 0])
                self.assertNotIn("fap", summary)  # not defined for the classic form
                amplitude, phase, offset = lstsq_sinusoid(t[s], y[s], freqs[best] / (2 * np.pi), weights[s], True)
                self.assertAlmostEqual(summary["amplitude"][s], amplitude, delta=1e-9)
                self.assertAlmostEqual(summary["phase"][s], phase, delta=1e-9)
                self.assertAlmostEqual(summary["offset"][s], offset, delta=1e-9)

    def test_compression_chunks_power_peaks_and_summary_along_series(self):
        from astropy.timeseries import LombScargle as AstropyLombScargle
        from astropy.timeseries.periodograms.lombscargle._statistics import false_alarm_probability
        rng = np.random.default_rng(31)
        series, samples = 40, 60
        t = np.sort(rng.uniform(0, 30, (series, samples)), axis=1)
        dy = rng.uniform(0.2, 0.5, (series, samples))
        y = (2.0 + rng.uniform(0.3, 1.0, (series, 1)) * np.sin(2 * np.pi * rng.uniform(0.1, 1.5, (series, 1)) * t)
             + dy * rng.standard_normal((series, samples)))
        peak_count = 3
        text = f"""experiment: lombscargle
{self.series_input("c.h5", t, y, dy)}lombscargle: {{algorithm: direct}}
frequency: {{grid: uniform, minimum: 0.02, maximum: 2.0, count: 500}}
peaks: {{count: {peak_count}}}
pipeline: {{chunk_series: 16}}
"""
        compressed, _ = self.run_text(text, "compressed", "output.compression=4")
        plain, _ = self.run_text(text, "plain")
        datasets = ["power", "peak_frequency", "peak_power", "peak_fap"]
        datasets += ["summary/" + name for name in ("frequency", "power", "fap", "amplitude", "phase", "offset")]
        with h5py.File(compressed, "r") as f, h5py.File(plain, "r") as g:
            for name in datasets:
                stored, contiguous = f["output/" + name], g["output/" + name]
                self.assertEqual(stored.compression, "gzip", name)
                self.assertEqual(stored.compression_opts, 4, name)
                # chunked along the series: every series of a chunk's row whole (all of them fit one chunk here)
                self.assertEqual(stored.chunks, stored.shape, name)
                self.assertEqual(stored.shape[0], series, name)
                self.assertIsNone(contiguous.chunks, name)
                self.assertIsNone(contiguous.compression, name)
                np.testing.assert_array_equal(stored[()], contiguous[()], err_msg=name)
            output = f["output"]
            frequency = output["frequency"][()]
            np.testing.assert_allclose(frequency, np.linspace(0.02, 2.0, 500), rtol=1e-14)
            for s in range(series):
                expected = AstropyLombScargle(t[s], y[s], dy[s]).power(frequency, method="cython")
                np.testing.assert_allclose(output["power"][s], expected, rtol=1e-9, atol=1e-12)
                # the highest local maxima of the reference (>= each neighbour), highest first
                peak = np.flatnonzero(np.r_[True, expected[1:] >= expected[:-1]] &
                                      np.r_[expected[:-1] >= expected[1:], True])
                peak = peak[np.argsort(-expected[peak], kind="stable")][:peak_count]
                np.testing.assert_array_equal(output["peak_frequency"][s], frequency[peak])
                np.testing.assert_allclose(output["peak_power"][s], expected[peak], rtol=1e-9)
                fap = false_alarm_probability(expected[peak], 2.0, t[s], y[s], dy[s], normalization="standard",
                                              method="baluev")
                np.testing.assert_allclose(output["peak_fap"][s], fap, rtol=1e-6, atol=1e-300)
                best = int(np.argmax(expected))
                summary = output["summary"]
                self.assertEqual(summary["frequency"][s], frequency[best])
                self.assertAlmostEqual(summary["power"][s], expected[best], delta=1e-9)
                self.assertEqual(summary["fap"][s], output["peak_fap"][s, 0])
                amplitude, phase, offset = lstsq_sinusoid(t[s], y[s], frequency[best], 1 / dy[s] ** 2, True)
                self.assertAlmostEqual(summary["amplitude"][s], amplitude, delta=1e-9)
                self.assertAlmostEqual(summary["phase"][s], phase, delta=1e-9)
                self.assertAlmostEqual(summary["offset"][s], offset, delta=1e-9)

    def test_power_none_writes_peaks_fap_and_summary_and_plots(self):
        rng = np.random.default_rng(13)
        t = np.sort(rng.uniform(0, 30, 150))
        dy = rng.uniform(0.2, 0.6, 150)
        y = 12.0 + 0.8 * np.sin(2 * np.pi * 0.37 * t + 1.0) + dy * rng.normal(0, 1, 150)
        rows = ["time,flux,error"] + [f"{a!r},{b!r},{c!r}" for a, b, c in zip(t, y, dy)]
        data = self.write("curve.csv", "\n".join(rows) + "\n")
        out, _ = self.run_text(f"""experiment: lombscargle
input: {{source: csv, file: {data}, t: time, y: flux, dy: error}}
frequency: {{grid: uniform, minimum: 0.05, maximum: 2.0, count: 2000}}
output: {{power: none}}
peaks: {{count: 4}}
""", "ls")
        with h5py.File(out, "r") as f:
            output = f["output"]
            self.assertNotIn("power", output)
            self.assertEqual(output.attrs["power_written"], "none")
            self.assertEqual(output.attrs["normalization"], "standard")
            self.assertEqual(output["peak_frequency"].shape, (1, 4))
            summary = output["summary"]
            self.assertEqual(summary["frequency"][0], output["peak_frequency"][0, 0])
            self.assertEqual(summary["power"][0], output["peak_power"][0, 0])
            self.assertEqual(summary["fap"][0], output["peak_fap"][0, 0])
            self.assertLess(summary["fap"][0], 1e-10)
            frequency = summary["frequency"][0]
            self.assertAlmostEqual(frequency, 0.37, delta=0.005)
            amplitude, phase, offset = lstsq_sinusoid(t, y, frequency, 1 / dy ** 2, True)
            self.assertAlmostEqual(summary["amplitude"][0], amplitude, delta=1e-9)
            self.assertAlmostEqual(summary["phase"][0], phase, delta=1e-9)
            self.assertAlmostEqual(summary["offset"][0], offset, delta=1e-9)
            self.assertAlmostEqual(summary["amplitude"][0], 0.8, delta=0.15)
            self.assertAlmostEqual(summary["offset"][0], 12.0, delta=0.1)
        plot = script("plot.py", out)
        self.assertEqual(plot.returncode, 0, plot.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "ls.png")))
        summary_script = script("summary.py", out)
        self.assertEqual(summary_script.returncode, 0, summary_script.stderr)
        self.assertIn("output/summary/amplitude", summary_script.stdout)

    def test_nterms_matches_astropy_chi2(self):
        try:
            from astropy.timeseries import LombScargle as AstropyLombScargle
        except ImportError:
            self.skipTest("needs astropy (Debian's python3-astropy)")
        rng = np.random.default_rng(17)
        t = np.sort(rng.uniform(0, 25, (3, 90)), axis=1)
        f0 = np.array([[0.3], [0.55], [0.8]])
        y = (2.0 + np.sin(2 * np.pi * f0 * t) + 0.7 * np.cos(4 * np.pi * f0 * t + 0.4)
             + rng.normal(0, 0.3, t.shape))
        dy = rng.uniform(0.2, 0.6, t.shape)
        data = os.path.join(self.dir, "series.h5")
        with h5py.File(data, "w") as f:
            f["times"], f["values"], f["errors"] = t, y, dy
        text = f"""experiment: lombscargle
input: {{source: hdf5, file: {data}, t: times, y: values, dy: errors}}
frequency: {{grid: uniform, minimum: 0.05, maximum: 2.0, count: 400}}
peaks: {{count: 2}}
"""
        # auto: the NUFFT's harmonic sums on this uniform grid, as for nterms 1
        cases = [(nterms, normalization, fit_mean, algorithm, resolved)
                 for nterms, normalization, fit_mean in ((2, "standard", "true"), (3, "psd", "false"))
                 for algorithm, resolved in (("direct", "direct"), ("auto", "nufft"))]
        for nterms, normalization, fit_mean, algorithm, resolved in cases:
            out, _ = self.run_text(text, f"nterms{nterms}{algorithm}", f"lombscargle.nterms={nterms}",
                                   f"lombscargle.normalization={normalization}", f"lombscargle.fit_mean={fit_mean}",
                                   f"lombscargle.algorithm={algorithm}")
            with h5py.File(out, "r") as f:
                output = f["output"]
                self.assertEqual(output.attrs["algorithm"], resolved)
                frequency = output["frequency"][:]
                for s in range(3):
                    expected = AstropyLombScargle(t[s], y[s], dy[s], nterms=nterms, fit_mean=fit_mean == "true",
                                                  normalization=normalization).power(frequency, method="chi2")
                    np.testing.assert_allclose(output["power"][s], expected, rtol=1e-9,
                                               atol=1e-10 * np.abs(expected).max())
                # no false-alarm probability nor sinusoid for a multi-term model
                self.assertTrue(np.all(np.isnan(output["peak_fap"][:])))
                self.assertIn("nterms", output["peak_fap"].attrs["description"])
                self.assertNotIn("fap", output["summary"])
                self.assertTrue(np.all(np.isnan(output["summary/amplitude"][:])))
                self.assertIn(f"{nterms} Fourier terms", output["summary"].attrs["description"])

    def test_summary_model_parameters_are_astropys(self):
        from astropy.timeseries import LombScargle as AstropyLombScargle
        rng = np.random.default_rng(23)
        series = 5
        t = np.sort(rng.uniform(0, 25, (series, 80)), axis=1)
        f0 = rng.uniform(0.2, 0.9, (series, 1))
        y = (5.0 + np.sin(2 * np.pi * f0 * t) + 0.6 * np.cos(4 * np.pi * f0 * t + 0.4)
             + 0.3 * np.sin(6 * np.pi * f0 * t + 1.1) + rng.normal(0, 0.3, t.shape))
        dy = rng.uniform(0.2, 0.6, t.shape)
        text = f"""experiment: lombscargle
{self.series_input("series.h5", t, y, dy)}frequency: {{grid: uniform, minimum: 0.05, maximum: 2.0, count: 400}}
peaks: {{count: 1}}
pipeline: {{chunk_series: 2}}
output: {{compression: 3}}
"""
        cases = ((2, True, True, True), (3, True, False, True), (2, False, True, False), (3, False, False, True),
                 (3, True, True, False), (1, True, True, True), (1, False, True, True))
        for nterms, fit_mean, center_data, with_dy in cases:
            case = f"nterms {nterms}, fit_mean {fit_mean}, center_data {center_data}, dy {with_dy}"
            out, _ = self.run_text(text if with_dy else text.replace(", dy: dy", ""), "model",
                                   f"lombscargle.nterms={nterms}", f"lombscargle.fit_mean={str(fit_mean).lower()}",
                                   f"lombscargle.center_data={str(center_data).lower()}", options=["--overwrite"])
            with h5py.File(out, "r") as f:
                summary = f["output/summary"]
                parameters = summary["model_parameters"]
                width = int(fit_mean) + 2 * nterms
                self.assertEqual(parameters.shape, (series, width), case)
                self.assertEqual(parameters.compression, "gzip", case)
                self.assertEqual(parameters.chunks, (series, width), case)
                self.assertTrue(parameters.attrs["columns"].startswith("offset, sin" if fit_mean else "sin"), case)
                frequency = f["output/frequency"][()]
                for s in range(series):
                    model = AstropyLombScargle(t[s], y[s], dy[s] if with_dy else None, nterms=nterms,
                                               fit_mean=fit_mean, center_data=center_data)
                    best = int(np.argmax(model.power(frequency, method="chi2" if nterms > 1 else "cython")))
                    self.assertEqual(summary["frequency"][s], frequency[best], case)
                    expected = model.model_parameters(frequency[best])
                    np.testing.assert_allclose(parameters[s], expected, rtol=1e-10,
                                               atol=1e-10 * np.abs(expected).max(), err_msg=case)
                    # offset: the model's constant (astropy's offset() plus its fitted one), for every nterms
                    constant = model.offset() + (expected[0] if fit_mean else 0.0)
                    self.assertAlmostEqual(summary["offset"][s], constant, delta=1e-9, msg=case)
                    if nterms == 1:  # the sinusoid is the same fit
                        sine, cosine = expected[int(fit_mean):]
                        self.assertAlmostEqual(summary["amplitude"][s], np.hypot(sine, cosine), delta=1e-9, msg=case)
                        self.assertAlmostEqual(summary["phase"][s], np.arctan2(cosine, sine), delta=1e-9, msg=case)
                    else:
                        self.assertTrue(np.isnan(summary["amplitude"][s]) and np.isnan(summary["phase"][s]), case)
        # The classic form has no astropy model: the sinusoid only.
        out, _ = self.run_text(text.replace(", dy: dy", ""), "classic", "lombscargle.form=classic")
        with h5py.File(out, "r") as f:
            self.assertNotIn("model_parameters", f["output/summary"])
        # Integer times at f = 0.5: every sin(2 pi k f t) is 0 and cos(2 pi 2 f t) is the offset's column: they
        # are left out (coefficients 0), as the periodogram leaves them out, and the rest is the least-squares
        # fit on 1 and cos(2 pi f t).
        grid = "frequency: {grid: uniform, minimum: 0.05, maximum: 2.0, count: 400}"
        data = os.path.join(self.dir, "series.h5")  # the file the config reads, rewritten
        with h5py.File(data, "w") as f:
            f["t"], f["y"] = np.arange(40.0), np.cos(np.pi * np.arange(40.0)) + rng.normal(0, 0.1, 40)
        out, _ = self.run_text(text.replace(", dy: dy", "").replace(grid, "frequency: {grid: list, values: [0.5]}"),
                               "dependent", "lombscargle.nterms=2")
        with h5py.File(out, "r") as f, h5py.File(data, "r") as g:
            self.assertEqual(f["output/summary/frequency"][0], 0.5)
            parameters = f["output/summary/model_parameters"][0]
            times, values = g["t"][()], g["y"][()]
            kept = np.linalg.lstsq(np.array([np.ones_like(times), np.cos(np.pi * times)]).T, values - values.mean(),
                                   rcond=None)[0]
            np.testing.assert_allclose(parameters[[0, 2]], kept, rtol=1e-12, atol=1e-14)
            np.testing.assert_array_equal(parameters[[1, 3, 4]], 0.0)
            self.assertAlmostEqual(f["output/summary/offset"][0], values.mean() + kept[0], delta=1e-12)

    def test_option_errors(self):
        data = self.write("w.csv", "time,flux,w\n0,1,1\n1,2,-1\n2,0.5,1\n3,1,1\n")
        data_nan = self.write("n.csv", "time,flux,w\n0,1,1\n1,2,nan\n2,0.5,1\n3,1,1\n")
        self.expect_errors([
            ("experiment: lombscargle\nlombscargle: {floating_mean: true}\n", 2,
             "key 'lombscargle.floating_mean': floating_mean belongs to the classic form"),
            ("experiment: lombscargle\ninput: {weights: w}\n", 2,
             "key 'input.weights': synthetic series have no weights column"),
            (f"experiment: lombscargle\ninput: {{source: csv, file: {data}, t: time, y: flux, weights: w}}\n", 2,
             "key 'input.weights': per-sample weights belong to the classic form"),
            (f"experiment: lombscargle\nlombscargle: {{form: classic}}\n"
             f"input: {{source: csv, file: {data}, t: time, y: flux, weights: w}}\n", 2,
             "weights[1] is -1.000000 (weights must be >= 0, with a positive sum)"),
            (f"experiment: lombscargle\nlombscargle: {{form: classic}}\n"
             f"input: {{source: csv, file: {data_nan}, t: time, y: flux, weights: w}}\n", 2, "weights[1] is nan"),
            (f"experiment: lombscargle\nlombscargle: {{form: classic}}\n"
             f"input: {{source: csv, file: {data}, t: time, y: flux, weights: weight}}\n", 2,
             "key 'input.weights': no column 'weight'"),
            ("experiment: lombscargle\noutput: {compression: 10}\n", 2, "key 'output.compression'"),
            ("experiment: lombscargle\noutput: {power: some}\n", 2, "key 'output.power'"),
            ("experiment: lombscargle\nlombscargle: {nterms: 7}\n", 2, "key 'lombscargle.nterms'"),
            ("experiment: lombscargle\nlombscargle: {nterms: 0}\n", 2, "key 'lombscargle.nterms'"),
            ("experiment: lombscargle\nlombscargle: {form: classic, nterms: 2}\n", 2,
             "key 'lombscargle.nterms': 2 with form: classic"),
            ("experiment: lombscargle\nlombscargle: {nterms: 2, algorithm: tiled}\n", 2,
             "key 'lombscargle.algorithm': tiled computes nterms 1 only"),
            ("experiment: lombscargle\nlombscargle: {nterms: 2}\nbenchmark: {baseline: direct_fast_math}\n", 2,
             "key 'benchmark.baseline': direct_fast_math times the one-term kernel"),
        ])
        # portasolve check reports the classic form's keys with the generalized form without running.
        config = self.write("c.yaml", "experiment: lombscargle\nlombscargle: {floating_mean: true}\n")
        result = portasolve("check", config)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("key 'lombscargle.floating_mean'", result.stderr)

class LombScargleCatalogue(Folder):
    """Catalogues streaming through in chunks: the same numbers as one batch, ragged layouts, bad catalogues."""

    def assert_same_results(self, a, b, input_too=True, power_too=True):
        with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
            names = ["output/frequency", "output/peak_frequency", "output/peak_power", "output/peak_fap"]
            names += ["output/summary/" + k for k in fb["output/summary"]]
            if power_too and "power" in fb["output"]:
                names.append("output/power")
            if input_too:
                names += ["input/" + k for k in fb["input"]]
            for name in names:
                np.testing.assert_array_equal(fa[name][()], fb[name][()], err_msg=name)

    def test_chunks_give_the_one_batch_numbers_bit_for_bit(self):
        for algorithm, count in (("nufft", 600), ("tiled", 90)):
            text = f"""experiment: lombscargle
precision: float
input: {{source: synthetic, series: 23, samples: 70, shared_times: false, uncertainties: true}}
lombscargle: {{algorithm: {algorithm}}}
frequency: {{grid: uniform, minimum: 0.05, maximum: 1.5, count: {count}}}
peaks: {{count: 2}}
"""
            whole, _ = self.run_text(text, "whole_" + algorithm)
            chunked, result = self.run_text(text, "chunked_" + algorithm, "pipeline.chunk_series=5")
            self.assert_same_results(chunked, whole)
            with h5py.File(chunked, "r") as f, h5py.File(whole, "r") as g:
                self.assertEqual(f["output"].attrs["chunks"], 5)
                self.assertEqual(f["output"].attrs["chunk_series"], 5)
                self.assertEqual(g["output"].attrs["chunks"], 1)
                self.assertGreater(f["timing"].attrs["series_per_s"], 0)
            # Two chunks in flight (two streams on GPUs; the same loop in order on hosts), the power written, two
            # repeats: the same numbers, the last chunk (3 series) in a slot whose periodogram held 5.
            for power in ("all", "none"):
                paired, _ = self.run_text(text, f"paired_{algorithm}_{power}", "pipeline.chunk_series=5",
                                          "pipeline.in_flight=2", f"output.power={power}", "run.repeats=2")
                self.assert_same_results(paired, whole, power_too=power == "all")
                with h5py.File(paired, "r") as f:
                    self.assertEqual(f["output"].attrs["chunks_in_flight"], 2)
                    per_repeat = f["timing/solve_s_per_repeat"][()]
                    self.assertEqual(per_repeat.size, 2)
                    self.assertTrue(np.all(per_repeat > 0))
        # A memory bound small enough for a few series per chunk: the same numbers again.
        bounded, result = self.run_text(text, "bounded", "pipeline.memory_mib=0.05")
        with h5py.File(bounded, "r") as f:
            chunks = f["output"].attrs["chunks"]
            self.assertGreater(chunks, 1)
            self.assertLessEqual(f["output"].attrs["chunk_memory_bytes"], 0.05 * 1048576)
            self.assertLessEqual(f["output"].attrs["memory_bytes"], 0.05 * 1048576)
        self.assert_same_results(bounded, whole)

    def test_catalogues_stream_in_chunks_even_where_the_whole_fits(self):
        # More than 1024 series: min(8, series / 1024 rounded up) chunks of equal size, the numbers of one batch
        # bit for bit.
        for series, chunk_series, chunks in ((2100, 700, 3), (9000, 1125, 8), (1025, 513, 2), (1024, 1024, 1)):
            text = f"""experiment: lombscargle
precision: float
input: {{source: synthetic, series: {series}, samples: 24, shared_times: false, uncertainties: true}}
frequency: {{grid: uniform, minimum: 0.05, maximum: 1.5, count: 40}}
peaks: {{count: 1}}
output: {{power: none}}
"""
            streamed, _ = self.run_text(text, f"streamed{series}")
            whole, _ = self.run_text(text, f"whole{series}", f"pipeline.chunk_series={series}")
            with h5py.File(streamed, "r") as f, h5py.File(whole, "r") as g:
                self.assertEqual(f["output"].attrs["chunk_series"], chunk_series)
                self.assertEqual(f["output"].attrs["chunks"], chunks)
                self.assertEqual(g["output"].attrs["chunks"], 1)
            self.assert_same_results(streamed, whole)

    def test_memory_bound_covers_read_ahead_finishing_and_summary(self):
        samples, frequencies = 70, 600
        text = f"""experiment: lombscargle
input: {{source: synthetic, series: 40, samples: {samples}, shared_times: false, uncertainties: true}}
frequency: {{grid: uniform, minimum: 0.05, maximum: 1.5, count: {frequencies}}}
peaks: {{count: 2}}
"""
        bound = 0.5  # MiB: a few series per chunk
        bounded, _ = self.run_text(text, "bounded", f"pipeline.memory_mib={bound}")
        with h5py.File(bounded, "r") as f:
            output = f["output"]
            chunk_series, chunks = output.attrs["chunk_series"], output.attrs["chunks"]
            self.assertGreater(chunks, 2)
            total, chunk = output.attrs["memory_bytes"], output.attrs["chunk_memory_bytes"]
            overlap, catalogue = output.attrs["overlap_memory_bytes"], output.attrs["catalogue_memory_bytes"]
            self.assertLessEqual(total, bound * 1048576)
            self.assertEqual(total, chunk + overlap + catalogue)
            # At least what the pipeline evidently holds beside the chunk computed: the next chunk's series read
            # ahead and the previous one's still being written (t, y, dy: 8 bytes a sample each), that chunk's
            # power as written and its peak rows; and every series' summary row until the end (the datasets
            # the file holds).
            series_bytes = chunk_series * samples * 3 * 8
            written_rows = sum(output[name][:chunk_series].size * 8 for name in
                               ("power", "peak_frequency", "peak_power", "peak_fap"))
            self.assertGreaterEqual(overlap, 2 * series_bytes + written_rows)
            summary = sum(dataset.size * 8 for dataset in output["summary"].values())
            self.assertGreaterEqual(catalogue, summary)
            one_in_flight = (chunk_series, chunk, overlap)
        # Two chunks in flight: the chunk before's periodogram counted beside this one's, in smaller chunks.
        paired, _ = self.run_text(text, "paired", f"pipeline.memory_mib={bound}", "pipeline.in_flight=2")
        with h5py.File(paired, "r") as f:
            output = f["output"]
            self.assertEqual(output.attrs["chunks_in_flight"], 2)
            self.assertLessEqual(output.attrs["memory_bytes"], bound * 1048576)
            self.assertLess(output.attrs["chunk_series"], one_in_flight[0])
            series_bytes = output.attrs["chunk_series"] * samples * 3 * 8
            self.assertGreaterEqual(output.attrs["overlap_memory_bytes"],
                                    output.attrs["chunk_memory_bytes"] + 2 * series_bytes)
        # One chunk: nothing read ahead nor finishing beside it.
        whole, _ = self.run_text(text, "whole")
        with h5py.File(whole, "r") as f:
            self.assertEqual(f["output"].attrs["chunks"], 1)
            self.assertEqual(f["output"].attrs["overlap_memory_bytes"], 0)
            self.assertEqual(f["output"].attrs["chunks_in_flight"], 1)
        self.assert_same_results(bounded, whole)
        self.assert_same_results(paired, whole)
        # A catalogue whose summary alone passes the bound: an error at the key naming it, before any work.
        self.expect_errors([
            ("experiment: lombscargle\ninput: {series: 20000, samples: 8}\n"
             "frequency: {grid: uniform, minimum: 0.1, maximum: 1.0, count: 10}\npipeline: {memory_mib: 0.5}\n", 2,
             "key 'pipeline.memory_mib': the summary of 20000 series, kept until the end of the run, needs"),
            # Two chunks in flight with what runs its own device work between chunks.
            (text.replace("peaks: {count: 2}", "peaks: {count: 2, fap_method: bootstrap}") +
             "pipeline: {in_flight: 2}\n", 2,
             "key 'pipeline.in_flight': 2 chunks in flight cannot run with peaks.fap_method: bootstrap"),
            (text + "pipeline: {in_flight: 3}\n", 2, "pipeline.in_flight"),
        ])

    def write_ragged(self, lengths, seed=5, nan_at=None):
        rng = np.random.default_rng(seed)
        t, y, dy = [], [], []
        for n in lengths:
            times = np.sort(rng.uniform(0, 50, n))
            errors = rng.uniform(0.1, 0.4, n)
            t.append(times)
            dy.append(errors)
            y.append(3.0 + np.sin(2 * np.pi * rng.uniform(0.2, 0.8) * times) + errors * rng.normal(0, 1, n))
        if nan_at is not None:
            y[nan_at[0]][nan_at[1]] = np.nan
        path = os.path.join(self.dir, "ragged.h5")
        with h5py.File(path, "w") as f:
            f["t"], f["y"], f["dy"] = np.concatenate(t), np.concatenate(y), np.concatenate(dy)
            f["count"] = np.asarray(lengths, dtype=np.int32)
            f["first"] = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)  # each series' start
            f["id"] = np.arange(len(lengths), dtype=np.int64) * 7 + 1000
        return path, t, y, dy

    def test_ragged_catalogue_round_trips_and_matches_astropy(self):
        from astropy.timeseries import LombScargle
        lengths = [40, 75, 12, 130, 58, 9, 77]
        path, t, y, dy = self.write_ragged(lengths)
        freqs = np.linspace(0.02, 1.2, 400)
        text = f"""experiment: lombscargle
input: {{source: hdf5, file: {path}, count: count, ids: id, dy: dy}}
lombscargle: {{algorithm: direct}}
frequency: {{grid: list, values: [{", ".join(repr(v) for v in freqs)}]}}
peaks: {{count: 1}}
"""
        whole, _ = self.run_text(text, "ragged_whole")
        chunked, _ = self.run_text(text, "ragged_chunked", "pipeline.chunk_series=3")
        self.assert_same_results(chunked, whole)
        with h5py.File(whole, "r") as f:
            self.assertEqual(f["input"].attrs["layout"], "ragged")
            np.testing.assert_array_equal(f["input/count"][()], lengths)
            np.testing.assert_array_equal(f["input/t"][()], np.concatenate(t))
            np.testing.assert_array_equal(f["input/y"][()], np.concatenate(y))
            np.testing.assert_array_equal(f["output/series_id"][()], np.arange(7) * 7 + 1000)
            power = f["output/power"][()]
            self.assertEqual(power.shape, (7, 400))
            for s in range(7):
                expected = LombScargle(t[s], y[s], dy[s]).power(freqs, method="cython")
                np.testing.assert_allclose(power[s], expected, rtol=1e-9, atol=1e-12)
        # Equal lengths in the ragged layout: the 2-D layout's numbers bit for bit.
        path, t, y, dy = self.write_ragged([50] * 6, seed=8)
        rect = os.path.join(self.dir, "rect_input.h5")
        with h5py.File(rect, "w") as f:
            f["t"], f["y"], f["dy"] = np.stack(t), np.stack(y), np.stack(dy)
        ragged, _ = self.run_text(text, "equal", "pipeline.chunk_series=4")
        rectangular, _ = self.run_text(text.replace(f"file: {path}, count: count, ids: id", f"file: {rect}"), "rect")
        self.assert_same_results(ragged, rectangular, input_too=False)

    def test_start_index_form_gives_the_count_forms_numbers_bit_for_bit(self):
        lengths = [40, 75, 12, 130, 58, 9, 77]
        path, t, *_ = self.write_ragged(lengths, seed=9)
        with h5py.File(path, "r") as f:  # the starts as the count form implies them, independently
            starts = f["first"][()]
            for s in range(len(lengths)):
                np.testing.assert_array_equal(f["t"][starts[s]:starts[s] + lengths[s]], t[s])
        text = f"""experiment: lombscargle
input: {{source: hdf5, file: {path}, count: count, ids: id, dy: dy}}
frequency: {{grid: uniform, minimum: 0.02, maximum: 1.2, count: 300}}
peaks: {{count: 2}}
"""
        by_count, _ = self.run_text(text, "by_count")
        by_start = text.replace("count: count", "start: first")
        for chunk in (0, 3):
            out, _ = self.run_text(by_start, f"by_start{chunk}", f"pipeline.chunk_series={chunk}")
            self.assert_same_results(out, by_count)  # /input too: the counts written either way
            with h5py.File(out, "r") as f:
                self.assertEqual(f["input"].attrs["layout"], "ragged")
                np.testing.assert_array_equal(f["input/count"][()], lengths)
                np.testing.assert_array_equal(f["output/series_id"][()], np.arange(7) * 7 + 1000)
        # check reads the series count from the start indices too
        result = portasolve("check", self.write("o.yaml", by_start))
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_bad_start_indices_are_errors_naming_the_key_and_series(self):
        path, *_ = self.write_ragged([30, 40, 35, 20])
        base = f"experiment: lombscargle\ninput: {{source: hdf5, file: {path}, start: begin, dy: dy}}\n"
        frequency = "frequency: {grid: uniform, minimum: 0.1, maximum: 1.0, count: 50}\n"
        cases = {"late": [3, 30, 70, 105], "back": [0, 30, 25, 105], "past": [0, 30, 70, 126],
                 "flat": [[0, 30], [70, 105]]}
        files = {}
        with h5py.File(path, "r") as f:
            for name, starts in cases.items():
                files[name] = os.path.join(self.dir, name + ".h5")
                with h5py.File(files[name], "w") as g:
                    for column in ("t", "y", "dy"):
                        g[column] = f[column][()]
                    g["begin"] = np.array(starts)
        short_t = os.path.join(self.dir, "short_t.h5")
        with h5py.File(path, "r") as f, h5py.File(short_t, "w") as g:
            g["t"], g["y"], g["dy"], g["begin"] = f["t"][:-1], f["y"][()], f["dy"][()], [0, 30, 70, 105]
        where = " (input.start): series "
        self.expect_errors([
            (base.replace(path, files["late"]) + frequency, 2, "begin" + where + "0 starts at sample 3, not 0"),
            (base.replace(path, files["back"]) + frequency, 2,
             "begin" + where + "2 starts at sample 25, before series 1 (at 30): the start indices must not decrease"),
            (base.replace(path, short_t) + frequency, 2, "t holds 124 samples but y holds 125"),
            (base.replace(path, files["flat"]) + frequency, 2, "begin (input.start) must be 1-D"),
            (base.replace(path, files["past"]) + frequency, 2,
             "begin" + where + "3 starts at sample 126, past the end of y (125 samples)"),
            (base.replace("start: begin", "start: first, count: count") + frequency, 2,
             "key 'input.start': given with input.count"),
            ("experiment: lombscargle\ninput: {start: s}\n", 2,
             "key 'input.start': only HDF5 catalogues have this dataset"),
        ])

    def test_bad_catalogues_are_errors_naming_the_series(self):
        path, *_ = self.write_ragged([30, 40, 35, 20], nan_at=(2, 11))
        base = f"experiment: lombscargle\ninput: {{source: hdf5, file: {path}, count: count, dy: dy}}\n"
        frequency = "frequency: {grid: uniform, minimum: 0.1, maximum: 1.0, count: 50}\n"
        negative = os.path.join(self.dir, "negative.h5")
        short = os.path.join(self.dir, "short.h5")
        with h5py.File(path, "r") as f, h5py.File(negative, "w") as g, h5py.File(short, "w") as h:
            for name in ("t", "y", "dy"):
                g[name] = f[name][()]
                h[name] = f[name][()]
            g["count"] = np.array([30, 50, -5, 50])
            h["count"] = np.array([30, 40, 35, 21])
        self.expect_errors([
            (base + frequency, 2, "series 2: y[11] is nan"),
            (base + frequency + "pipeline: {chunk_series: 1}\n", 2, "series 2: y[11] is nan"),
            (base.replace(path, negative) + frequency, 2, "count: series 2 has a negative count (-5)"),
            (base.replace(path, short) + frequency, 2, "the counts in count add up to 126 samples but t holds 125"),
            ("experiment: lombscargle\ninput: {count: c}\n", 2,
             "key 'input.count': only HDF5 catalogues have this dataset"),
            ("experiment: lombscargle\ninput: {series: 4, samples: 500}\n" + frequency.replace("50}", "2000}") +
             "pipeline: {memory_mib: 0.001}\n", 2, "key 'pipeline.memory_mib': one series of 500 samples"),
        ])

    def test_davies_and_baluev_faps_match_astropy(self):
        from astropy.timeseries.periodograms.lombscargle._statistics import false_alarm_probability
        rng = np.random.default_rng(21)
        t = np.sort(rng.uniform(0, 40, (3, 120)), axis=1)
        dy = rng.uniform(0.2, 0.5, (3, 120))
        y = 0.4 * np.sin(2 * np.pi * 0.31 * t) + dy * rng.standard_normal((3, 120))
        text = f"""experiment: lombscargle
{self.series_input("f.h5", t, y, dy)}frequency: {{grid: uniform, minimum: 0.02, maximum: 2.0, count: 3000}}
peaks: {{count: 3}}
pipeline: {{chunk_series: 2}}
"""
        for method in ("davies", "baluev", "naive"):
            out, _ = self.run_text(text, "fap_" + method, f"peaks.fap_method={method}")
            with h5py.File(out, "r") as f:
                self.assertEqual(f["output/summary/fap"].shape, (3,))
                for s in range(3):
                    # astropy's statistics at the grid's exact highest frequency (its LombScargle method
                    # takes that from an automatic grid of its own).
                    expected = false_alarm_probability(f["output/peak_power"][s], 2.0, t[s], y[s], dy[s],
                                                       normalization="standard", method=method)
                    np.testing.assert_allclose(f["output/peak_fap"][s], expected, rtol=1e-9, err_msg=method)
                    self.assertEqual(f["output/summary/fap"][s], f["output/peak_fap"][s, 0])

    def test_bootstrap_faps_are_astropys_within_sampling_error_and_do_not_depend_on_chunks(self):
        from astropy.timeseries.periodograms.lombscargle._statistics import fap_bootstrap
        rng = np.random.default_rng(8)
        t = np.sort(rng.uniform(0, 30, (3, 60)), axis=1)
        y = rng.standard_normal((3, 60))
        y[0] += 1.2 * np.sin(2 * np.pi * 0.4 * t[0])
        data = os.path.join(self.dir, "b.h5")
        with h5py.File(data, "w") as f:
            f["t"], f["y"] = t, y
        resamples = 400
        text = f"""experiment: lombscargle
input: {{source: hdf5, file: {data}}}
frequency: {{grid: uniform, minimum: 0.02, maximum: 3.0, count: 600}}
peaks: {{count: 2, fap_method: bootstrap, bootstrap: {{resamples: {resamples}, seed: 4}}}}
"""
        faps = []
        for chunk in (1, 3):
            out, _ = self.run_text(text, f"boot{chunk}", f"pipeline.chunk_series={chunk}")
            with h5py.File(out, "r") as f:
                faps.append(f["output/peak_fap"][()])
                peak_power = f["output/peak_power"][()]
                np.testing.assert_array_equal(f["output/summary/fap"], f["output/peak_fap"][:, 0])
                self.assertIn("bootstrap", f["output/summary/fap"].attrs["description"])
                self.assertGreater(f["timing"].attrs["bootstrap_s"], 0)
        np.testing.assert_array_equal(faps[0], faps[1])
        for s in range(3):
            # astropy's resamples run on its own automatic grid up to the maximum frequency.
            expected = np.array([fap_bootstrap(z, 3.0, t[s], y[s], None, n_bootstraps=resamples, random_seed=s)
                                 for z in peak_power[s]])
            sd = np.sqrt(2 * expected * (1 - expected) / resamples)
            self.assertTrue(np.all(np.abs(faps[0][s] - expected) <= 4 * sd + 0.02), (s, faps[0][s], expected))
        # The highest peak of the series with a signal is far beyond the noise's maxima.
        self.assertLess(faps[0][0, 0], 0.01)
        out, _ = self.run_text(text, "boot_psd", "lombscargle.normalization=psd")  # any normalization
        with h5py.File(out, "r") as f:
            self.assertTrue(np.all((f["output/summary/fap"][()] >= 0) & (f["output/summary/fap"][()] <= 1)))

    def test_input_none_keeps_only_where_the_series_came_from(self):
        rng = np.random.default_rng(3)
        data = os.path.join(self.dir, "c.h5")
        with h5py.File(data, "w") as f:
            f["t"] = np.sort(rng.uniform(0, 10, (5, 40)), axis=1)
            f["y"] = rng.normal(0, 1, (5, 40))
        text = f"experiment: lombscargle\ninput: {{source: hdf5, file: {data}}}\noutput: {{input: none}}\n"
        out, _ = self.run_text(text, "none")
        with h5py.File(out, "r") as f:
            self.assertEqual(list(f["input"]), [])
            self.assertEqual(f["input"].attrs["file"], data)
            self.assertEqual(f["input"].attrs["series"], 5)
            self.assertEqual(f["output/power"].shape[0], 5)


def write_pgm_p2(path, rows):
    with open(path, "w") as f:
        f.write(f"P2\n# test image\n{len(rows[0])} {len(rows)}\n255\n")
        for row in rows:
            f.write(" ".join(str(v) for v in row) + "\n")


def read_pgm(path):
    with open(path, "rb") as f:
        data = f.read()
    header = data.split(maxsplit=4)
    assert header[0] == b"P5", header[0]
    cols, rows = int(header[1]), int(header[2])
    return [list(data[-rows * cols:][i * cols:(i + 1) * cols]) for i in range(rows)]


class Poisson(Folder):
    SYNTHETIC = "problem: {source: synthetic, rows: 40, cols: 70}\n"

    def image_rows(self):
        return [[(17 * i + 5 * j + (60 if (i - 8) ** 2 + (j - 12) ** 2 < 30 else 0)) % 256 for j in range(27)]
                for i in range(19)]

    def test_pgm_reconstruction_round_trips_the_image(self):
        source = os.path.join(self.dir, "in.pgm")
        write_pgm_p2(source, self.image_rows())
        out, pgm_out = os.path.join(self.dir, "p.h5"), os.path.join(self.dir, "out.pgm")
        config = self.write("p.yaml", f"experiment: poisson\nproblem: {{source: pgm, file: {source}}}\n"
                                      "poisson: {solver: cg_fused, tolerance: 1.0e-10, check_every: 10}\n")
        for kernel in ("launches", "resident"):
            with self.subTest(kernel=kernel):
                if os.path.exists(pgm_out):
                    os.remove(pgm_out)
                self.run_ok(config, out, f"output.pgm={pgm_out}", f"poisson.cg.kernel={kernel}",
                            options=["--overwrite"])
                self.assertEqual(read_pgm(pgm_out), self.image_rows())
                with h5py.File(out, "r") as f:
                    output = f["output"].attrs
                    self.assertEqual(output["cg_kernel"], kernel)
                    self.assertEqual(output["converged"], 1)
                    self.assertLessEqual(output["relative_residual"], 1e-10)
                    self.assertLess(output["error_max_abs"], 1e-6)
                    history = f["output/residual_history"][()]
                    self.assertEqual(history.shape[1], 2)
                    self.assertEqual(history[0, 0], 0)
                    self.assertEqual(history[0, 1], 1.0)
                    self.assertEqual(history[-1, 0], output["iterations"])
                    self.assertEqual(f["output/solution"].shape, (19, 27))
                    self.assertEqual(f["input/exact"][3, 4], self.image_rows()[3][4])
        plot = script("plot.py", out, "-o", os.path.join(self.dir, "p.png"))
        self.assertEqual(plot.returncode, 0, plot.stderr)
        self.assertGreater(os.path.getsize(os.path.join(self.dir, "p.png")), 10000)

    def test_multigrid_records_cycles_and_the_convergence_factor(self):
        out, _ = self.run_text("experiment: poisson\n" + self.SYNTHETIC +
                               "poisson: {solver: multigrid, tolerance: 1.0e-10, max_iterations: 30,"
                               " multigrid: {cycle: w, smoother: chebyshev, pre_sweeps: 3, fmg: true}}\n", "m",
                               says=["cycles"])
        config = os.path.join(self.dir, "m.yaml")
        with h5py.File(out, "r") as f:
            output = f["output"].attrs
            self.assertEqual(output["converged"], 1)
            self.assertEqual(output["multigrid_cycle"], "w")
            self.assertEqual(output["multigrid_smoother"], "chebyshev")
            history = f["output/residual_history"][()]
            cycles = output["iterations"]
            self.assertLessEqual(cycles, 15)
            self.assertEqual(list(history[:, 0]), list(range(cycles + 1)))  # a check every cycle
            factor = (history[-1, 1] / history[0, 1]) ** (1 / cycles)
            self.assertAlmostEqual(output["convergence_factor"], factor, delta=1e-9)
            self.assertLess(output["convergence_factor"], 0.2)
            self.assertLess(output["error_max_abs"], 1e-6)
        bad = portasolve("run", config, "--output", out, "--quiet", "--overwrite",
                         "--set", "poisson.multigrid.cycle=x")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("poisson.multigrid.cycle", bad.stderr)
        # The same hierarchy as cg's preconditioner: a few steps.
        self.run_ok(config, out, "poisson.solver=cg", "poisson.cg.preconditioner=multigrid",
                    "poisson.multigrid.pre_sweeps=2", "poisson.check_every=1", options=["--overwrite"])
        with h5py.File(out, "r") as f:
            output = f["output"].attrs
            self.assertEqual(output["cg_preconditioner"], "multigrid")
            self.assertEqual(output["converged"], 1)
            self.assertLessEqual(output["iterations"], 12)

    def test_blocked_matches_its_baseline_and_starting_from_the_answer_converges_at_once(self):
        out, _ = self.run_text("experiment: poisson\nprecision: float\n" + self.SYNTHETIC +
                               "poisson: {solver: jacobi_blocked, max_iterations: 300, check_every: 100,"
                               " blocked: {sweeps_per_launch: 7, tile_rows: 9, tile_cols: 20}}\n"
                               "benchmark: {baseline: jacobi}\n", "b", says=["baseline jacobi"])
        config = os.path.join(self.dir, "b.yaml")
        with h5py.File(out, "r") as f:
            output = f["output"].attrs
            self.assertEqual(output["iterations"], 300)
            self.assertEqual(output["baseline_iterations"], 300)
            self.assertAlmostEqual(output["baseline_relative_residual"] / output["relative_residual"], 1, delta=1e-4)
            self.assertEqual(list(f["output/residual_history"][:, 0]), [0, 100, 200, 300])
            self.assertIn("baseline_s", f["timing"].attrs)
            self.assertEqual(output["blocked_kernel"], "tiles")
            tiles = f["output/solution"][()]
        # Register bands and resident tiles (one launch per check; two tiles on a two-thread host): the same
        # sweeps, bit for bit (and the same as the tiles here to rounding).
        for kernel, strip_rows in (("registers", 11), ("resident", 0)):
            self.run_ok(config, out, f"poisson.blocked.kernel={kernel}", "poisson.blocked.tile_cols=0",
                        "poisson.blocked.sweeps_per_launch=8", f"poisson.blocked.tile_rows={strip_rows}",
                        options=["--overwrite"])
            with h5py.File(out, "r") as f:
                output = f["output"].attrs
                self.assertEqual(output["blocked_kernel"], kernel)
                self.assertEqual(output["iterations"], 300)
                self.assertEqual(output["baseline_relative_residual"], output["relative_residual"])
                self.assertLess(abs(f["output/solution"][()] - tiles).max(), 1e-4)
        # The true image as the initial guess: already a solution.
        source = os.path.join(self.dir, "in.pgm")
        write_pgm_p2(source, self.image_rows())
        out, _ = self.run_text(f"experiment: poisson\nproblem: {{source: pgm, file: {source},"
                               f" initial: pgm, initial_file: {source}}}\n"
                               "poisson: {tolerance: 1.0e-12, max_iterations: 50}\n", "s")
        with h5py.File(out, "r") as f:
            self.assertEqual(f["output"].attrs["iterations"], 0)
            self.assertEqual(f["output"].attrs["relative_residual"], 0)

    def test_spectral_rebuilds_the_image_in_one_direct_solve(self):
        source = os.path.join(self.dir, "in.pgm")
        write_pgm_p2(source, self.image_rows())
        out, pgm_out = os.path.join(self.dir, "p.h5"), os.path.join(self.dir, "out.pgm")
        config = os.path.join(CONFIGS, "poisson_image_spectral.yaml")
        self.run_ok(config, out, f"output.pgm={pgm_out}", "problem.source=pgm", f"problem.file={source}")
        self.assertEqual(read_pgm(pgm_out), self.image_rows())
        with h5py.File(out, "r") as f:
            output = f["output"].attrs
            self.assertEqual(output["iterations"], 1)
            self.assertEqual(output["stop_reason"], "direct")
            self.assertLessEqual(output["relative_residual"], 1e-12)
            self.assertLess(output["error_max_abs"], 1e-9)

    def test_spectral_on_the_portable_fft_gives_the_librarys_solution(self):
        # poisson.spectral.fft: portable runs what a HIP build runs; the result file names the FFT.
        config = os.path.join(CONFIGS, "poisson_image_spectral.yaml")
        solutions = {}
        for fft in ("library", "portable"):
            out = os.path.join(self.dir, f"{fft}.h5")
            self.run_ok(config, out, f"poisson.spectral.fft={fft}", f"output.pgm={os.path.join(self.dir, fft + '.pgm')}")
            with h5py.File(out, "r") as f:
                output = f["output"].attrs
                if fft == "portable":
                    self.assertEqual(output["fft"], "portable")
                else:
                    self.assertIn(output["fft"], ("FFTW3", "cuFFT", "portable"))  # portable: a HIP build's library
                self.assertLess(output["error_max_abs"], 1e-8)
                solutions[fft] = f["output/solution"][()]
        difference = max(abs(float(a) - float(b)) for ra, rb in zip(solutions["library"], solutions["portable"])
                         for a, b in zip(ra, rb))
        self.assertLess(difference, 1e-8)

    def test_spectral_rows_of_a_fast_length_give_the_exact_lengths_solution(self):
        # 212 columns: n + 1 = 211 is prime; fast runs the rows at 215 (216 = 2^3 3^3) with the capacitance
        # correction, exact at 210. The result file records the length; the solutions agree to rounding.
        config = os.path.join(CONFIGS, "poisson_image_spectral.yaml")
        solutions, lengths = {}, {}
        for length in ("fast", "exact"):
            out = os.path.join(self.dir, f"{length}.h5")
            self.run_ok(config, out, f"poisson.spectral.length={length}", "problem.source=synthetic",
                        "problem.rows=40", "problem.cols=212", "output.pgm=''")
            with h5py.File(out, "r") as f:
                output = f["output"].attrs
                lengths[length] = int(output["spectral_row_length"])
                portable = output["fft"] == "portable"  # a HIP build: power-of-two lengths
                self.assertLessEqual(output["relative_residual"], 1e-12)
                solutions[length] = f["output/solution"][()]
        self.assertEqual(lengths, {"fast": 255 if portable else 215, "exact": 210})
        difference = max(abs(float(a) - float(b)) for ra, rb in zip(solutions["fast"], solutions["exact"])
                         for a, b in zip(ra, rb))
        self.assertLess(difference, 1e-9)

    def test_gradient_domain_rebuild_with_neumann_edges(self):
        # B = the image's Laplacian with mirrored edges on the whole grid: the answer is the image up to a
        # constant; the solver returns the zero-mean one, the PGM adds the mean back.
        source = os.path.join(self.dir, "in.pgm")
        write_pgm_p2(source, self.image_rows())
        out, pgm_out = os.path.join(self.dir, "n.h5"), os.path.join(self.dir, "n.pgm")
        config = os.path.join(CONFIGS, "poisson_gradient_neumann.yaml")
        for boundary, solver in (("neumann", "spectral"), ("periodic", "spectral"), ("neumann", "multigrid"),
                                 ("periodic", "multigrid")):
            self.run_ok(config, out, f"output.pgm={pgm_out}", "problem.source=pgm", f"problem.file={source}",
                        f"poisson.boundary={boundary}", f"poisson.solver={solver}", "poisson.tolerance=1e-13",
                        "poisson.max_iterations=60", options=["--overwrite"])
            self.assertEqual(read_pgm(pgm_out), self.image_rows(), boundary)
            with h5py.File(out, "r") as f:
                output = f["output"].attrs
                self.assertEqual(output["method"], solver)
                self.assertLess(output["error_max_abs"], 1e-9, boundary)
                solution = f["output/solution"][()]
            image = [[float(v) for v in row] for row in self.image_rows()]
            rows, cols = len(image), len(image[0])
            weight = lambda i, j: 1.0 if boundary == "periodic" else (
                (0.5 if i in (0, rows - 1) else 1.0) * (0.5 if j in (0, cols - 1) else 1.0))
            mean = sum(weight(i, j) * image[i][j] for i in range(rows) for j in range(cols)) / sum(
                weight(i, j) for i in range(rows) for j in range(cols))
            self.assertAlmostEqual(float(solution[1][2]), image[1][2] - mean, delta=1e-9)

    def test_input_errors(self):
        not_pgm = self.write("photo.pgm", "\x89PNG not really")
        small = os.path.join(self.dir, "small.pgm")
        write_pgm_p2(small, [[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        nan_file = os.path.join(self.dir, "nan.h5")
        with h5py.File(nan_file, "w") as f:
            f["image"] = [[1.0, 2.0, 3.0], [4.0, float("nan"), 6.0], [7.0, 8.0, 9.0]]
        cases = [
            ("problem: {source: pgm}", 2, "key 'problem.file': missing for problem.source: pgm"),
            ("problem: {source: pgm, file: /nonexistent.pgm}", 1, "cannot open PGM image '/nonexistent.pgm'"),
            (f"problem: {{source: pgm, file: {not_pgm}}}", 2, "photo.pgm: not a valid PGM image"),
            (f"problem: {{source: hdf5, file: {nan_file}}}", 2, "pixel (1, 1) is not finite"),
            ("problem: {source: synthetic, rows: 2, cols: 10}", 2, "at least 3x3 points"),
            (f"problem: {{initial: pgm, initial_file: {small}}}", 2, "the initial image is 3x3"),
            ("poisson: {solver: jacobi_blocked, blocked: {sweeps_per_launch: 200}}", 2,
             "key 'poisson.blocked.sweeps_per_launch': jacobi_blocked: a "),
            ("poisson: {solver: jacobi_blocked, blocked: {kernel: registers, sweeps_per_launch: 9}}", 2,
             "key 'poisson.blocked.kernel': Poisson solver options: blocked kernel registers runs at most 8"),
            ("poisson: {solver: jacobi_blocked, blocked: {kernel: resident, tile_rows: 8}}", 2,
             "key 'poisson.blocked.kernel': Poisson solver options: blocked kernel resident sizes its own tiles"),
            ("poisson: {solver: jacobi_blocked, blocked: {kernel: resident, sweeps_per_launch: 4}}\n"
             "problem: {source: synthetic, rows: 40, cols: 20000}", 2,
             "key 'poisson.blocked.kernel': jacobi_blocked: blocked kernel resident runs one tile per multiprocessor"),
            ("poisson: {omega: 1.5}", 2, "poisson.omega"),
            ("poisson: {solver: cg, boundary: periodic}", 2,
             "key 'poisson.boundary': Poisson solver options: poisson.boundary periodic is solved by the spectral"),
            ("poisson: {solver: spectral, boundary: neumann}\nproblem: {source: manufactured}", 2,
             "key 'poisson.boundary': the manufactured problem has Dirichlet values"),
            ("problem: {source: manufactured}\noutput: {pgm: x.pgm}", 2, "a PGM needs an image source"),
        ]
        self.expect_errors([("experiment: poisson\n" + ("" if body.startswith("poisson") else
                                                           "poisson: {max_iterations: 10}\n") + body + "\n", code, message)
                            for body, code, message in cases])

    def test_ctrl_c_during_a_large_synthetic_setup(self):
        # Drawing a 16384^2 synthetic picture took 24.6 s on one core before setup polled the interrupt;
        # 12288^2 (about 2 GiB in all) still takes seconds: Ctrl-C in the middle must end the run within
        # seconds, with no file left.
        config = self.write("p.yaml", "experiment: poisson\nprecision: float\n"
                                      "problem: {source: synthetic, rows: 12288, cols: 12288, pattern: shapes}\n"
                                      "poisson: {solver: jacobi, max_iterations: 100000}\n"
                                      "output: {path: p.h5, input_arrays: false}\n")
        self.expect_ctrl_c_acts(config, "setup and 100000 sweeps of 12288^2 cannot have finished")


class Smoothing(Folder):
    rows = [[(17 * i + 5 * j + (90 if (i - 8) ** 2 + (j - 12) ** 2 < 30 else 0)) % 256 for j in range(27)]
            for i in range(19)]

    def run_config(self, body, *sets):
        if os.path.exists(os.path.join(self.dir, "s.h5")):
            os.remove(os.path.join(self.dir, "s.h5"))
        return self.run_text("experiment: smoothing\n" + body, "s", *sets)

    def test_numba_example_on_a_pgm_matches_numpy_and_plots(self):
        import numpy as np
        source, pgm_out = os.path.join(self.dir, "in.pgm"), os.path.join(self.dir, "out.pgm")
        write_pgm_p2(source, self.rows)
        out, result = self.run_config(f"image: {{source: pgm, file: {source}, pixel_type: int32}}\n"
                                      "smoothing: {kernel: box, radius: 1, border: keep, rounding: floor}\n",
                                      f"output.pgm={pgm_out}")
        self.assertIn("effective", result.stdout)
        self.assertIn(": 1 pass, 1 per launch", result.stdout)  # not "1 passes"
        image = np.array(self.rows, dtype=np.int64)
        expected = image.copy()
        window = sum(image[1 + a:image.shape[0] - 1 + a, 1 + b:image.shape[1] - 1 + b]
                     for a in (-1, 0, 1) for b in (-1, 0, 1))
        expected[1:-1, 1:-1] = window // 9
        with h5py.File(out, "r") as f:
            self.assertEqual(f["output/image"].dtype, np.int32)
            np.testing.assert_array_equal(f["output/image"][()], expected)
            np.testing.assert_array_equal(f["input/image"][()], image)
            self.assertEqual(f["output"].attrs["border"], "keep")
            self.assertEqual(f["output"].attrs["passes"], 1)
        self.assertEqual(read_pgm(pgm_out), expected.tolist())
        plot = script("plot.py", out, "-o", os.path.join(self.dir, "s.png"))
        self.assertEqual(plot.returncode, 0, plot.stderr)
        self.assertGreater(os.path.getsize(os.path.join(self.dir, "s.png")), 10000)
        # Results that keep only the output image (configs/smoothing_box3_int.yaml) or no image at all (the
        # bandwidth configs) plot too: the result alone, or the times.
        for kept in ("output.input_image=false", "output.image=false"):
            out, _ = self.run_config(f"image: {{source: pgm, file: {source}, pixel_type: int32}}\n",
                                     "output.input_image=false", kept)
            plot = script("plot.py", out, "-o", os.path.join(self.dir, "s.png"))
            self.assertEqual(plot.returncode, 0, (kept, plot.stderr))

    def test_weighted_matrix_from_hdf5_matches_numpy_reflect(self):
        import numpy as np
        source = os.path.join(self.dir, "in.h5")
        image = (np.arange(23 * 31).reshape(23, 31) * 2654435761 % 65536).astype(np.uint16)
        with h5py.File(source, "w") as f:
            f["pixels"] = image
        out, _ = self.run_config(f"image: {{source: hdf5, file: {source}, dataset: pixels, pixel_type: uint16}}\n"
                                 "smoothing: {kernel: weighted, weights: [[1, 2, 1], [2, 4, 2], [1, 2, 1]],"
                                 " border: reflect, passes: 2}\n")
        expected = image.astype(np.int64)
        for _ in range(2):
            padded = np.pad(expected, 1, mode="symmetric")  # SciPy's reflect
            weights = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]])
            total = sum(weights[a, b] * padded[a:a + 23, b:b + 31] for a in range(3) for b in range(3))
            expected = (2 * total + 16) // 32  # to nearest, halves up
        with h5py.File(out, "r") as f:
            np.testing.assert_array_equal(f["output/image"][()], expected)

    def test_fused_passes_equal_separate_launches_and_baseline_is_timed(self):
        body = ("image: {source: synthetic, rows: 70, cols: 53, pattern: noise}\n"
                "smoothing: {kernel: box, border: mirror, passes: 10, passes_per_launch: 4, tile_rows: 16,"
                " tile_cols: 12}\nbenchmark: {baseline: separate_launches}\n")
        out, result = self.run_config(body)
        self.assertIn("baseline, one launch per pass", result.stdout)
        with h5py.File(out, "r") as f:
            fused = f["output/image"][()]
            self.assertEqual(f["output"].attrs["passes_per_launch"], 4)
            self.assertEqual(f["output"].attrs["launches"], 3)
            self.assertEqual(f["output"].attrs["fused_kernel"], "streamed")
            self.assertIn("baseline_s", f["timing"].attrs)
        out, _ = self.run_config(body, "smoothing.passes_per_launch=1")
        with h5py.File(out, "r") as f:
            self.assertEqual(f["output"].attrs["launches"], 10)
            self.assertEqual(f["output"].attrs["fused_kernel"], "none")
            self.assertTrue((f["output/image"][()] == fused).all())
        out, _ = self.run_config(body, "smoothing.fused_kernel=tiles")
        with h5py.File(out, "r") as f:
            self.assertEqual(f["output"].attrs["fused_kernel"], "tiles")
            self.assertTrue((f["output/image"][()] == fused).all())

    def test_input_errors(self):
        fractional = os.path.join(self.dir, "frac.h5")
        with h5py.File(fractional, "w") as f:
            f["image"] = [[1.0, 2.5, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
        cases = [
            ("smoothing: {kernel: weighted}", "key 'smoothing.weights': missing for kernel: weighted"),
            ("smoothing: {kernel: weighted, weights: [[1, 1], [1, 1]]}", "not a square with an odd side"),
            ("smoothing: {kernel: weighted, weights: [[1, -1, 0], [0, 0, 0], [0, 0, 0]]}",
             "key 'smoothing.weights': the weights must have a positive sum"),
            ("smoothing: {kernel: gaussian, sigma: 0}", "smoothing.sigma"),
            ("smoothing: {radius: -1}", "smoothing.radius"),
            ("image: {rows: 10, cols: 40}\nsmoothing: {radius: 5}", "key 'smoothing.radius': the 11x11 kernel is larger"),
            (f"image: {{source: hdf5, file: {fractional}, pixel_type: uint8}}", "is not a uint8 value"),
            ("image: {source: pgm, file: /nonexistent.pgm}", "cannot open PGM image"),
            ("smoothing: {passes: 3, passes_per_launch: 3, tile_rows: 3000, tile_cols: 3000}",
             "key 'smoothing.passes_per_launch': fused smoothing:"),
            ("smoothing: {radius: 2, passes: 3, passes_per_launch: 3, fused_kernel: streamed}",
             "key 'smoothing.fused_kernel': fused_kernel streamed needs a 2-D window of radius 1"),
            ("smoothing: {fused_kernel: fast}", "smoothing.fused_kernel"),
        ]
        self.expect_errors([("experiment: smoothing\n" + body + "\n", 1 if "cannot open" in message else 2, message)
                            for body, message in cases])


class Lorenz05(Folder):
    def test_lorenz96_ensemble_snapshots_statistics_and_plot(self):
        import numpy as np
        out, _ = self.run_text("experiment: lorenz05\nlorenz05: {model: 1, model_size: 40, forcing: 8.0,"
                               " delta_t: 0.05, K: 1, smooth_steps: 0, steps: 60, output_every: 20}\n"
                               "ensemble: {members: 6, perturbation: 0.1, spinup_steps: 200}\n"
                               "benchmark: {baseline: flat}\n", "l", says=["member-steps/s"])
        with h5py.File(out, "r") as f:
            state = f["output/state"][()]
            self.assertEqual(state.shape, (4, 6, 40))
            np.testing.assert_allclose(f["output/time"][()], [0, 1, 2, 3])
            np.testing.assert_array_equal(state[0], f["input/start"][()])
            np.testing.assert_allclose(f["output/mean"][()], state.mean(axis=1), rtol=0, atol=1e-12)
            np.testing.assert_allclose(f["output/spread"][()], state.std(axis=1, ddof=1), rtol=0, atol=1e-12)
            np.testing.assert_allclose(f["output/spread_rms"][()],
                                       np.sqrt((state.std(axis=1, ddof=1) ** 2).mean(axis=1)), atol=1e-12)
            self.assertLessEqual(f["output"].attrs["baseline_max_difference"], 1e-12)
            # One RK4 step of Lorenz 96 by hand for member 0 from the start.
            z = f["input/start"][0]
        one, _ = self.run_text("experiment: lorenz05\nlorenz05: {model: 1, model_size: 40, forcing: 8.0,"
                               " delta_t: 0.05, K: 1, smooth_steps: 0, steps: 1, output_every: 1}\n"
                               "ensemble: {members: 6, perturbation: 0.1, spinup_steps: 200}\n", "one")

        def rate(x):
            return (np.roll(x, -1) - np.roll(x, 2)) * np.roll(x, 1) - x + 8.0
        k1 = 0.05 * rate(z)
        k2 = 0.05 * rate(z + k1 / 2)
        k3 = 0.05 * rate(z + k2 / 2)
        k4 = 0.05 * rate(z + k3)
        with h5py.File(one, "r") as f:
            np.testing.assert_allclose(f["output/state"][1, 0], z + k1 / 6 + k2 / 3 + k3 / 3 + k4 / 6, atol=1e-12)
        plot = script("plot.py", out, "-o", os.path.join(self.dir, "l.png"))
        self.assertEqual(plot.returncode, 0, plot.stderr)
        self.assertGreater(os.path.getsize(os.path.join(self.dir, "l.png")), 10000)

    def test_bad_parameters(self):
        cases = [
            ("lorenz05: {K: 1000}", "lorenz05.K"),
            ("lorenz05: {smooth_steps: 480}", "lorenz05.smooth_steps"),
            ("lorenz05: {delta_t: 0}", "lorenz05.delta_t"),
            ("ensemble: {members: 0}", "ensemble.members"),
            ("lorenz05: {model: 4}", "lorenz05.model"),
            ("lorenz05: {model_size: 100000, layout: team, steps: 1}", "key 'lorenz05.layout': layout team:"),
        ]
        self.expect_errors([("experiment: lorenz05\n" + body + "\n", 2, message) for body, message in cases])

    def test_ctrl_c_during_a_long_lorenz05_spin_up(self):
        # The team layout would run the whole spin-up in one launch; the driver must poll between launches.
        config = self.write("l.yaml", "experiment: lorenz05\nlorenz05: {model: 1, model_size: 40, layout: team}\n"
                                      "ensemble: {members: 8, spinup_steps: 2000000000}\n")
        self.expect_ctrl_c_acts(config, "the spin-up of 2e9 steps cannot have finished")


def run_with_file_size_limit(limit, *args, cwd=None):
    """portasolve with writes past `limit` bytes failing (EFBIG), as on a full disk: no root, no mount."""
    import resource

    def limit_file_size():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=cwd, env=ENV, timeout=120,
                          preexec_fn=limit_file_size)


class OutputFaults(Folder):
    """Full disks, signals, and outputs that must not be replaced (issue 19)."""

    SMOOTHING = ("experiment: smoothing\nimage: {source: synthetic, rows: 200, cols: 200, pixel_type: uint8}\n"
                 "smoothing: {kernel: box, radius: 1}\n")

    def assert_failed_cleanly(self, result, code, message):
        self.assertNotIn(result.returncode, (-11, -6, 134, 139), result.stderr)  # no crash
        self.assertEqual(result.returncode, code, result.stderr)
        self.assertIn(message, result.stderr)

    def test_full_disk_while_writing_the_result_file(self):
        config = os.path.join(os.path.dirname(SCRIPTS), "configs", "lorenz96.yaml")
        out = os.path.join(self.dir, "l.h5")
        for limit in (0, 2000, 100000):  # at creation, at the first writes, in the middle of /output/state
            with self.subTest(limit=limit):
                result = run_with_file_size_limit(limit, "run", config, "--output", out, "--quiet")
                self.assert_failed_cleanly(result, 1, "portasolve: error: cannot ")
                self.assertRegex(result.stderr, r"cannot (create|write) HDF5 (file|dataset) '?\S*l\.h5")
                self.assertEqual(self.files(), [])  # no .l.h5.partial-* either
                with open(out, "wb") as f:
                    f.write(b"precious")
                result = run_with_file_size_limit(limit, "run", config, "--output", out, "--overwrite", "--quiet")
                self.assert_failed_cleanly(result, 1, "portasolve: error: cannot ")
                self.assertIn("HDF5", result.stderr)
                self.assertEqual(self.files(), ["l.h5"])
                with open(out, "rb") as f:
                    self.assertEqual(f.read(), b"precious")
                os.remove(out)
        self.run_ok(config, out)  # and without the limit it runs

    def test_full_disk_while_writing_the_pgm(self):
        config = self.write("s.yaml", self.SMOOTHING + "output: {image: false, input_image: false}\n")
        out, pgm = os.path.join(self.dir, "s.h5"), os.path.join(self.dir, "out.pgm")
        with open(pgm, "wb") as f:
            f.write(b"old image")
        # 40000 bytes of pixels, a result file of a few thousand: only the PGM goes past the limit.
        result = run_with_file_size_limit(30000, "run", config, "--output", out, "--set", f"output.pgm={pgm}",
                                          "--overwrite", "--quiet")
        self.assert_failed_cleanly(result, 1, f"cannot write PGM image '{pgm}'")
        self.assertEqual(self.files(), ["out.pgm", "s.yaml"])  # no result file, no partials
        with open(pgm, "rb") as f:
            self.assertEqual(f.read(), b"old image")

    def test_existing_pgm_kept_unless_overwrite(self):
        config = self.write("s.yaml", self.SMOOTHING)
        out, pgm = os.path.join(self.dir, "s.h5"), os.path.join(self.dir, "out.pgm")
        with open(pgm, "wb") as f:
            f.write(b"old image")
        result = portasolve("run", config, "--output", out, "--set", f"output.pgm={pgm}", "--quiet")
        self.assert_failed_cleanly(result, 2, "output.pgm")
        self.assertIn("exists", result.stderr)
        self.assertEqual(self.files(), ["out.pgm", "s.yaml"])
        with open(pgm, "rb") as f:
            self.assertEqual(f.read(), b"old image")
        self.run_ok(config, out, f"output.pgm={pgm}", options=["--overwrite"])
        self.assertEqual(len(read_pgm(pgm)), 200)
        self.assertEqual(self.files(), ["out.pgm", "s.h5", "s.yaml"])

    def test_pgm_at_the_result_path_is_a_config_error(self):
        config = self.write("s.yaml", self.SMOOTHING)
        out = os.path.join(self.dir, "s.h5")
        for pgm in (out, os.path.join(self.dir, ".", "s.h5")):
            result = portasolve("run", config, "--output", out, "--set", f"output.pgm={pgm}", "--quiet")
            self.assert_failed_cleanly(result, 2, "output.pgm")
            self.assertIn("output.path", result.stderr)
            self.assertEqual(self.files(), ["s.yaml"])

    def test_output_that_is_not_a_regular_file_is_never_replaced(self):
        config = self.write("s.yaml", SMALL_STREAM)
        device = "/dev/full" if os.path.exists("/dev/full") else "/dev/null"
        result = portasolve("run", config, "--output", device, "--overwrite", "--quiet")
        self.assert_failed_cleanly(result, 2, f"'{device}' is a character device, not a regular file")
        import stat
        self.assertTrue(stat.S_ISCHR(os.stat(device).st_mode))
        self.assertFalse([name for name in os.listdir(os.path.dirname(device)) if ".partial-" in name])
        os.mkdir(os.path.join(self.dir, "folder.h5"))
        result = portasolve("run", config, "--output", os.path.join(self.dir, "folder.h5"), "--overwrite", "--quiet")
        self.assert_failed_cleanly(result, 2, "is a directory")

    def test_hangup_stops_cleanly_without_output(self):
        self.expect_signal_stops_a_stream_run(signal.SIGHUP)

    def test_pgm_whose_header_claims_more_than_the_file_holds(self):
        source = os.path.join(self.dir, "huge.pgm")
        with open(source, "wb") as f:
            f.write(b"P5\n50000 50000\n255\n" + bytes(range(94)))  # 113 bytes
        self.assertEqual(os.path.getsize(source), 113)
        config = self.write("p.yaml", f"experiment: poisson\nproblem: {{source: pgm, file: {source}}}\n")
        # A machine with the memory for such a grid gets past the estimate: the reader must refuse at once.
        result = portasolve_with({"PORTASOLVE_MEMORY_LIMIT_BYTES": str(2 ** 50)}, "run", config, "--output",
                                 os.path.join(self.dir, "p.h5"), "--quiet")
        self.assert_failed_cleanly(result, 2, source)
        self.assertIn("50000x50000", result.stderr)
        self.assertIn("2500000000 bytes, 94 present", result.stderr)
        with open(source, "wb") as f:
            f.write(b"P5\n1000000000 1000000000\n255\n" + bytes(10))
        result = portasolve("run", config, "--output", os.path.join(self.dir, "p.h5"), "--quiet")
        # Refused by the memory estimate from the header, or by the reader: either way at once, naming the file.
        self.assert_failed_cleanly(result, 2, "problem.file")
        self.assertNotIn("bad_alloc", result.stderr)
        self.assertEqual(self.files(), ["huge.pgm", "p.yaml"])


CONFIGS = os.path.join(os.path.dirname(SCRIPTS), "configs")
GIB = 1024 ** 3


def portasolve_with(env, *args):
    """portasolve with extra environment variables (e.g. PORTASOLVE_MEMORY_LIMIT_BYTES)."""
    return subprocess.run([BIN, *args], capture_output=True, text=True, env=dict(ENV, **env), timeout=120)


class MemoryLimits(Folder):
    """Sizes that cannot fit are refused before anything is generated or allocated (issue 19)."""

    def refused(self, result, key):
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(f"key '{key}'", result.stderr)
        self.assertRegex(result.stderr, r"needs [0-9.e+]+ [KMGTPE]iB of (host|device) memory, the (host|device) has ")
        for raw in ("Traceback", "Kokkos failed", "_M_default_append", "bad_alloc"):
            self.assertNotIn(raw, result.stderr)
        self.assertFalse(any(name.endswith(".h5") or ".partial" in name for name in self.files()), self.files())

    def out(self):
        return os.path.join(self.dir, "x.h5")

    def test_issue_examples_are_refused(self):
        cases = [
            ("poisson_large.yaml", ["problem.rows=100000", "problem.cols=100000"], "problem.rows",
             "reduce problem.rows/cols"),
            ("poisson_large.yaml", ["problem.rows=1000000", "problem.cols=1000000"], "problem.rows", "precision: float"),
            ("lombscargle_gtc.yaml", ["frequency.count=4000000000"], "frequency.count", "frequency.count"),
            ("lorenz05_model3_ensemble40.yaml", ["lorenz05.model_size=1000000000"], "lorenz05.model_size",
             "ensemble.members"),
            ("smoothing_box3_int.yaml", ["image.rows=1000000", "image.cols=1000000"], "image.rows", "pixel_type"),
            ("stream.yaml", ["stream.size=100000000000000"], "stream.size", "stream.size"),
        ]
        for config, sets, key, advice in cases:
            args = [a for s in sets for a in ("--set", s)]
            result = portasolve("run", os.path.join(CONFIGS, config), *args, "--output", self.out(), "--quiet")
            self.refused(result, key)
            self.assertIn(advice, result.stderr)

    def test_override_decides_deterministically(self):
        # 3 arrays of 10^6 doubles on the device, their mirrors on the host: 45.8 MiB in all.
        args = ["run", os.path.join(CONFIGS, "stream.yaml"), "--set", "stream.size=1000000", "--set",
                "stream.operations=[copy]", "--output", self.out(), "--quiet"]
        small = portasolve_with({"PORTASOLVE_MEMORY_LIMIT_BYTES": str(40 * 1024 ** 2)}, *args)
        self.refused(small, "stream.size")
        self.assertIn("the host has 40.0 MiB (PORTASOLVE_MEMORY_LIMIT_BYTES)", small.stderr)
        roomy = portasolve_with({"PORTASOLVE_MEMORY_LIMIT_BYTES": str(GIB)}, *args)
        self.assertEqual(roomy.returncode, 0, roomy.stderr)
        self.assertTrue(os.path.exists(self.out()))
        bad = portasolve_with({"PORTASOLVE_MEMORY_LIMIT_BYTES": "lots"}, *args[:-3], "--output",
                              os.path.join(self.dir, "y.h5"))
        self.assertEqual(bad.returncode, 2, bad.stderr)
        self.assertIn("PORTASOLVE_MEMORY_LIMIT_BYTES", bad.stderr)

    def test_poisson_and_smoothing_count_their_grids(self):
        # float Jacobi on 1000 x 1000: 44 bytes of host and 16 of device memory a point, about 57 MiB.
        poisson = ["run", os.path.join(CONFIGS, "poisson_large.yaml"), "--set", "problem.rows=1000", "--set",
                   "problem.cols=1000", "--output", self.out(), "--quiet"]
        self.refused(portasolve_with({"PORTASOLVE_MEMORY_LIMIT_BYTES": str(40 * 1024 ** 2)}, *poisson),
                     "problem.rows")
        smoothing = ["run", os.path.join(CONFIGS, "smoothing_box3_int.yaml"), "--set", "image.rows=1000", "--set",
                     "image.cols=1000", "--output", self.out(), "--quiet"]
        self.refused(portasolve_with({"PORTASOLVE_MEMORY_LIMIT_BYTES": str(16 * 1024 ** 2)}, *smoothing),
                     "image.rows")

    def test_automatic_grid_bounds(self):
        base = "experiment: lombscargle\ninput: {samples: 64, duration: 10}\nfrequency: {grid: auto, %s}\n"
        config = self.write("big.yaml", base % "maximum: 1.0e300")
        self.refused(portasolve("run", config, "--output", self.out(), "--quiet"), "frequency.maximum")
        config = self.write("spp.yaml", base % "samples_per_peak: 1.0e6")
        result = portasolve_with({"PORTASOLVE_MEMORY_LIMIT_BYTES": str(GIB)}, "run", config, "--output",
                                 self.out(), "--quiet")
        self.refused(result, "frequency.samples_per_peak")
        self.assertIn("with 1.6e+08 frequencies needs", result.stderr)
        # Series from a file: the grid is known once the times are read, and checked before it is built.
        data = self.write("d.csv", "t,y\n" + "".join(f"{0.5 * k},{k % 3}\n" for k in range(50)))
        config = self.write("csv.yaml", "experiment: lombscargle\n"
                            f"input: {{source: csv, file: {data}}}\nfrequency: {{grid: auto, maximum: 1.0e300}}\n")
        result = portasolve("run", config, "--output", self.out(), "--quiet")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertRegex(result.stderr, r"key 'frequency.maximum': a grid of [0-9.]+e\+30[0-9] frequencies needs")
        self.assertNotIn("_M_default_append", result.stderr)

    def test_allocation_failures_are_one_line(self):
        # Past the estimate (the override claims 8 EiB), the allocation itself fails: one line, exit 1.
        result = portasolve_with({"PORTASOLVE_MEMORY_LIMIT_BYTES": str(8 * 1024 ** 6)}, "run",
                                 os.path.join(CONFIGS, "stream.yaml"), "--set", "stream.size=1000000000000000",
                                 "--set", "precision=float", "--output", self.out(), "--quiet")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("portasolve: error: could not allocate ", result.stderr)
        self.assertIn("for 'stream_a' (out of memory)", result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        self.assertNotIn("Kokkos failed", result.stderr)
        self.assertEqual(self.files(), [])


class CheckReportsRefusals(Folder):
    """`check` reports what `run` would refuse, without running it."""

    def test_missing_input_files(self):
        cases = [
            ("experiment: poisson\nproblem: {source: pgm, file: /nonexistent.pgm}\n", 1,
             "cannot open PGM image '/nonexistent.pgm'"),
            ("experiment: poisson\nproblem: {initial: pgm, initial_file: /nonexistent.pgm}\n", 1,
             "cannot open PGM image '/nonexistent.pgm'"),
            ("experiment: smoothing\nimage: {source: hdf5, file: /nonexistent.h5}\n", 1,
             "cannot open '/nonexistent.h5' as an HDF5 file"),
            ("experiment: lombscargle\ninput: {source: csv, file: /nonexistent.csv}\n", 1,
             "cannot open CSV file '/nonexistent.csv'"),
            ("experiment: lombscargle\ninput: {source: csv}\n", 2, "key 'input.file': missing for input.source: csv"),
        ]
        self.expect_errors(cases, command="check")

    def test_sizes_that_do_not_fit(self):
        config = self.write("c.yaml", "experiment: poisson\nproblem: {rows: 1000000, cols: 1000000}\n")
        result = portasolve("check", config)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("c.yaml:2:17: key 'problem.rows': this run needs", result.stderr)
        self.assertEqual(result.stdout, "")
        # The same config at a size that fits still prints.
        fits = portasolve("check", config, "--set", "problem.rows=100", "--set", "problem.cols=100")
        self.assertEqual(fits.returncode, 0, fits.stderr)
        self.assertIn("rows: 100", fits.stdout)

    def test_image_headers_give_the_size(self):
        # A 2 x 3 PGM header claiming 200000 x 300000 pixels: refused from the header alone.
        pgm = os.path.join(self.dir, "big.pgm")
        with open(pgm, "wb") as f:
            f.write(b"P5\n# huge\n300000 200000\n255\n" + bytes(6))
        config = self.write("c.yaml", f"experiment: smoothing\nimage: {{source: pgm, file: {pgm}}}\n")
        result = portasolve_with({"PORTASOLVE_MEMORY_LIMIT_BYTES": str(GIB)}, "check", config)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("key 'image.file': this run needs", result.stderr)


class ReaderAndConfigStrictness(Folder):
    def lombscargle_csv(self, content):
        data = os.path.join(self.dir, "d.csv")
        with open(data, "w", encoding="utf-8", newline="") as f:
            f.write(content)
        config = self.write("ls.yaml", "experiment: lombscargle\n"
                            f"input: {{source: csv, file: {data}, t: time, y: flux}}\n"
                            "frequency: {grid: uniform, minimum: 0.1, maximum: 1, count: 16}\n")
        return portasolve("run", config, "--output", os.path.join(self.dir, "x.h5"), "--quiet")

    def test_csv_cells_must_be_whole_numbers(self):
        rows = "".join(f"{k},{k % 3}\n" for k in range(8))
        for cell in ("12.3abc", "--1", "0x"):
            result = self.lombscargle_csv("time,flux\n" + rows + f"9,{cell}\n")
            self.assertEqual(result.returncode, 2, (cell, result.stderr))
            self.assertIn(f"d.csv:10: '{cell}' in column flux is not a number", result.stderr)
        # Blanks around a number are fine.
        result = self.lombscargle_csv("time, flux\n" + rows + "9, 2.5 \r\n")
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_csv_header_with_byte_order_mark(self):
        rows = "".join(f"{k},{k % 3}\n" for k in range(8))
        result = self.lombscargle_csv("\ufefftime,flux\n" + rows)
        self.assertEqual(result.returncode, 0, result.stderr)
        with h5py.File(os.path.join(self.dir, "x.h5"), "r") as f:
            self.assertEqual(list(f["input/t"][:]), list(range(8)))

    def test_yaml_second_document_and_tags(self):
        cases = {
            SMALL_STREAM + "---\nexperiment: poisson\n": "c.yaml:8:1: a second YAML document",
            "experiment: stream\nstream: {size: !!float 2000}\n": "c.yaml:2:16: YAML tag '!!float' is not supported",
            "experiment: !lang stream\n": "c.yaml:1:13: YAML tag '!lang' is not supported",
        }
        self.expect_check_and_run_refuse("c.yaml", cases)


class FuzzFindings(Folder):
    """Inputs the fuzzers (tests/fuzz) found crashing or misreported, kept as regression tests."""

    def test_automatic_grid_without_series_or_with_infinite_times(self):
        with h5py.File(os.path.join(self.dir, "e.h5"), "w") as f:
            f["t"] = [0.0, 2.5, 5.0, 7.5, 10.0]
            f["y"] = np.zeros((0, 5))
        config = self.write("c.yaml", "experiment: lombscargle\ninput: {source: hdf5, file: e.h5}\n"
                                      "frequency: {grid: auto}\n")
        result = portasolve("run", config, "--output", os.path.join(self.dir, "o.h5"), "--quiet", cwd=self.dir)
        self.assertEqual(result.returncode, 2, result.stderr)  # was a segmentation fault
        self.assertIn("no time series", result.stderr)
        self.write("inf.csv", "time,flux\n0,1\n1,2\n2,3\ninf,4\n")
        config = self.write("c.yaml", "experiment: lombscargle\ninput: {source: csv, file: inf.csv, t: time, y: flux}\n"
                                      "frequency: {grid: auto}\n")
        result = portasolve("run", config, "--output", os.path.join(self.dir, "o.h5"), "--quiet", cwd=self.dir)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("must be finite", result.stderr)
        self.assertEqual(self.files(), ["c.yaml", "e.h5", "inf.csv"])

if __name__ == "__main__":
    unittest.main(verbosity=2)
