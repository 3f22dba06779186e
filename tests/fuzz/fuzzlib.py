"""Shared machinery of the portasolve fuzzers (fuzz_configs.py, fuzz_inputs.py).

A case is a function of (base seed, case number) only: `case_rng(seed, number)` gives its random generator, so
any case can be replayed alone (`--seed S --case N`) whatever ran before it. Each case runs the portasolve
binary in a fresh folder with a capped address space and a wall-clock limit and checks the invariants every run
must keep, whatever its input:

- no signal (a negative return code, or 128 + n), no hang (the time limit is a failure);
- an exit code in {0, 1, 2}, and a message on stderr when it is not 0;
- no std::exception that escaped portasolve's own errors ("error while running: std::bad_alloc", ...) and no
  memory exhaustion under the address-space cap (a run that needs more should say so before allocating);
- when the exit code is not 0, no new file (result, PGM, or hidden `.NAME.partial-*`) in the folder;
- never a `.partial-*` file left after a run; an existing result file untouched unless the run asked to
  overwrite it and succeeded; input files never modified.
"""

import argparse
import concurrent.futures
import hashlib
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ADDRESS_SPACE_LIMIT = int(os.environ.get("PORTASOLVE_FUZZ_AS_BYTES", 4 << 30))
TIMEOUT_S = float(os.environ.get("PORTASOLVE_FUZZ_TIMEOUT_S", 20))
DEFAULT_SEED = 20240519

# What a run prints when memory ran out or a std::exception escaped: not one of portasolve's errors.
MEMORY_PATTERNS = ("bad_alloc", "requested allocation size", "failed to allocate", "Cannot allocate memory", "out of memory",
                   "Kokkos::OpenMP::allocate", "insufficient memory")
STD_EXCEPTION_PATTERNS = ("error while running:", "terminate called")


def binary():
    path = os.environ.get("PORTASOLVE_BIN")
    if not path:
        here = os.path.dirname(os.path.abspath(__file__))
        path = os.path.join(here, "..", "..", "build", "openmp", "bin", "portasolve")
    if not os.access(path, os.X_OK):
        sys.exit(f"portasolve binary not found at {path}: set PORTASOLVE_BIN")
    return os.path.abspath(path)


def case_rng(seed, number, salt):
    """The random generator of case `number` of the run with base `seed` (independent of other cases)."""
    digest = hashlib.sha256(f"{salt}:{seed}:{number}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "little"))


_SANITIZED = None


def sanitized():
    """Whether the binary is built with AddressSanitizer (the asan preset): its shadow memory needs terabytes of
    address space, so the cap is ASan's own largest allocation instead of RLIMIT_AS."""
    global _SANITIZED
    if _SANITIZED is None:
        try:
            linked = subprocess.run(["ldd", binary()], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            linked = ""
        _SANITIZED = "libasan" in linked
    return _SANITIZED


def _limits():
    if not _SANITIZED:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))  # a runaway writer gets SIGXFSZ
    os.setsid()


def child_env(threads=1):
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="false", OMP_WAIT_POLICY="passive")
    env.pop("OMP_PLACES", None)
    if sanitized():
        # A sanitizer's report exits 86 / 87 (not 1, which would pass for a clean error).
        env["ASAN_OPTIONS"] = (f"max_allocation_size_mb={ADDRESS_SPACE_LIMIT >> 20}:exitcode=86:detect_leaks=0:" +
                               env.get("ASAN_OPTIONS", ""))
        env["UBSAN_OPTIONS"] = "exitcode=87:print_stacktrace=1:" + env.get("UBSAN_OPTIONS", "")
    return env


def run_binary(args, cwd, timeout=TIMEOUT_S, threads=1):
    """Runs portasolve; returns (return code or None on timeout, stdout, stderr, seconds)."""
    start = time.monotonic()
    process = subprocess.Popen([binary(), *args], cwd=cwd, env=child_env(threads), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_limits)
    note = ""
    try:
        out, err = process.communicate(timeout=timeout)
        code = process.returncode
    except subprocess.TimeoutExpired:
        # Ctrl-C first: the run should stop at its next safe point and leave nothing; then SIGKILL.
        os.killpg(process.pid, signal.SIGINT)
        try:
            out, err = process.communicate(timeout=5)
            note = f"; stopped by SIGINT with exit code {process.returncode}"
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            note = "; ignored SIGINT for 5 s, killed"
        code = None
    err = err.decode("utf-8", "replace") + (f"\n[fuzz: timed out after {timeout:g} s{note}]" if code is None else "")
    return code, out.decode("utf-8", "replace"), err, time.monotonic() - start


def snapshot(folder):
    """{relative path: sha256} of every file under folder (hidden ones included)."""
    files = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, folder)
            try:
                with open(path, "rb") as f:
                    files[rel] = hashlib.sha256(f.read()).hexdigest()
            except OSError:
                files[rel] = "unreadable"
    return files


class Case:
    """One fuzz case: files to write into a fresh folder, the arguments, and what it may change."""

    def __init__(self, number, seed, label, args, files, target=None, overwrite=False, note=""):
        self.number, self.seed, self.label = number, seed, label
        self.args = args                # portasolve arguments (run/check CONFIG ...)
        self.files = files              # {name: bytes}: the config, inputs, a pre-existing target
        self.target = target            # name of a pre-existing result file, if any
        self.overwrite = overwrite      # whether the run may replace it (--overwrite or overwrite in the config)
        self.note = note                # the mutations, in words
        self.followup = None            # optional f(folder, outcome) -> [(kind, detail)], run after the checks


class Outcome:
    def __init__(self, case, code, stdout, stderr, seconds, problems):
        self.case, self.code, self.stdout, self.stderr, self.seconds = case, code, stdout, stderr, seconds
        self.problems = problems        # [(kind, detail)]; empty: the case passed


def classify(case, code, stderr, before, after):
    problems = []
    if code is None:
        problems.append(("hang", last_error_line(stderr).strip("[]")))
    elif code < 0:
        problems.append(("signal", f"killed by {signal.Signals(-code).name}"))
    elif code >= 128:
        problems.append(("signal", f"exit code {code} (128 + {code - 128})"))
    elif code not in (0, 1, 2):
        problems.append(("exit-code", f"exit code {code}"))
    if code is not None and code > 0 and not stderr.strip():
        problems.append(("silent-error", f"exit code {code} with nothing on stderr"))
    # portasolve's own errors print "portasolve: error: ..." (a clean "needs more memory than ..." included);
    # anything else that escaped is a finding, a failed allocation under the cap reported as such.
    if code is not None and code > 0 and any(p in stderr for p in STD_EXCEPTION_PATTERNS):
        if any(p in stderr for p in MEMORY_PATTERNS):
            problems.append(("memory", "ran out of memory under the address-space cap: " + last_error_line(stderr)))
        else:
            problems.append(("std-exception", "not one of portasolve's errors: " + last_error_line(stderr)))
    new = sorted(set(after) - set(before))
    killed = code is None and "killed]" in stderr
    partial = [name for name in after if ".partial-" in name]
    if partial and not killed:  # SIGKILL may leave one (README); anything else may not
        problems.append(("leftover", "hidden partial file(s) left: " + ", ".join(sorted(partial))))
    if code != 0 and not killed:
        others = [name for name in new if ".partial-" not in name]
        if others:
            problems.append(("leftover", f"exit code {code} but new file(s) left: " + ", ".join(others)))
    for name, digest in before.items():
        if name == case.target and (code == 0 or killed) and case.overwrite:
            continue
        if after.get(name) != digest:
            what = "existing result file" if name == case.target else "input file"
            problems.append(("modified", f"{what} '{name}' changed or removed (exit code {code})"))
    return problems


def last_error_line(stderr):
    lines = [line for line in stderr.splitlines() if line.strip() and "Traceback functionality" not in line]
    return (lines[-1] if lines else "")[:300]


def execute(case, keep_folder=None):
    folder = keep_folder or tempfile.mkdtemp(prefix="portasolve-fuzz-")
    try:
        for name, data in case.files.items():
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)
        before = snapshot(folder)
        code, out, err, seconds = run_binary(case.args, folder)
        after = snapshot(folder)
        outcome = Outcome(case, code, out, err, seconds, classify(case, code, err, before, after))
        if case.followup and not outcome.problems:
            outcome.problems += case.followup(folder, outcome)
        return outcome
    finally:
        if not keep_folder:
            shutil.rmtree(folder, ignore_errors=True)


def describe(outcome, replay):
    case = outcome.case
    lines = [f"FAIL case {case.number} (seed {case.seed}) [{case.label}]: " +
             "; ".join(f"{kind}: {detail}" for kind, detail in outcome.problems),
             f"  mutations: {case.note}",
             f"  exit code: {outcome.code}, {outcome.seconds:.1f} s",
             f"  command: portasolve {' '.join(shell_word(a) for a in case.args)}",
             f"  replay:  {replay}"]
    for name, data in case.files.items():
        if name.endswith(".yaml"):
            lines.append(f"  --- {name} ---")
            text = data.decode("utf-8", "backslashreplace")
            if len(text) > 3000:
                text = text[:3000] + f"... ({len(data)} bytes)"
            lines.extend("  | " + line for line in text.splitlines())
    tail = outcome.stderr.strip().splitlines()[-6:]
    lines.extend("  stderr: " + line[:400] for line in tail)
    return "\n".join(lines)


def shell_word(word):
    return word if re.fullmatch(r"[A-Za-z0-9_.,:=+@%/-]+", word) else "'" + word.replace("'", "'\\''") + "'"


def signature(outcome):
    """A short key that groups failures of the same kind and place."""
    kinds = ",".join(sorted({kind for kind, _ in outcome.problems}))
    message = re.sub(r"[0-9]+", "N", last_error_line(outcome.stderr))
    message = re.sub(r"'[^']*'", "'S'", message)[:120]
    return f"{kinds} | {outcome.case.label.split(':')[0]} | {message}"


def main(doc, make_case, replay_command):
    """A fuzzer's command line (its help text is `doc`): --cases, --seed, --case (replay), --jobs, --keep; env
    PORTASOLVE_FUZZ_CASES/SEED. `make_case(seed, number)` gives a Case, `replay_command(seed, number)` the command
    that replays one. Returns the exit status."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=int(os.environ.get("PORTASOLVE_FUZZ_CASES", 300)))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("PORTASOLVE_FUZZ_SEED", DEFAULT_SEED)))
    parser.add_argument("--case", type=int, action="append", help="replay these case numbers only")
    parser.add_argument("--first", type=int, default=0, help="number of the first case")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("PORTASOLVE_FUZZ_JOBS", 2)))
    parser.add_argument("--keep", metavar="FOLDER", help="replay one case in FOLDER and keep it")
    parser.add_argument("--print", action="store_true", help="print the cases' files and commands, run nothing")
    parser.add_argument("--summary", action="store_true", help="group failures by kind at the end")
    options = parser.parse_args()
    numbers = options.case or list(range(options.first, options.first + options.cases))
    cases = (make_case(options.seed, n) for n in numbers)
    if options.print:
        for case in cases:
            print(f"case {case.number} [{case.label}] {case.note}\n  portasolve {' '.join(map(shell_word, case.args))}")
            for name, data in case.files.items():
                print(f"  --- {name} ({len(data)} bytes) ---")
                if name.endswith((".yaml", ".csv")):
                    print(data.decode("utf-8", "backslashreplace")[:4000])
        return 0
    if options.keep:
        os.makedirs(options.keep, exist_ok=True)
    start = time.monotonic()
    failures, count, slowest, codes = [], 0, (0.0, None), {}
    with concurrent.futures.ThreadPoolExecutor(max(1, options.jobs)) as pool:
        for outcome in pool.map(lambda c: execute(c, options.keep), cases):
            count += 1
            codes[outcome.code] = codes.get(outcome.code, 0) + 1
            slowest = max(slowest, (outcome.seconds, outcome.case.number), key=lambda s: s[0])
            if outcome.problems:
                failures.append(outcome)
                print(describe(outcome, replay_command(options.seed, outcome.case.number)), flush=True)
    elapsed = time.monotonic() - start
    print(f"{count} cases (seed {options.seed}) in {elapsed:.1f} s, slowest case {slowest[1]} at {slowest[0]:.1f} s; "
          f"{len(failures)} failed; exit codes: " +
          ", ".join(f"{'timeout' if k is None else k}: {v}" for k, v in sorted(codes.items(), key=lambda kv: str(kv[0]))),
          flush=True)
    if options.summary or failures:
        groups = {}
        for outcome in failures:
            groups.setdefault(signature(outcome), []).append(outcome.case.number)
        for key, numbers_ in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            print(f"  {len(numbers_):4d} x {key}  (cases {', '.join(map(str, numbers_[:8]))}"
                  f"{' ...' if len(numbers_) > 8 else ''})")
    return 1 if failures else 0
