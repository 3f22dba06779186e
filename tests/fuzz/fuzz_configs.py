#!/usr/bin/env python3
"""Config fuzzer: random mutations of every shipped config in configs/, run by the portasolve binary.

Each config is first shrunk to a tiny problem (SHRINK below: a few hundred points, a few steps, one repeat), so a
case takes well under a second; then 1 to 3 mutations are applied: deleted keys, wrong types, huge / negative /
zero / NaN numbers, other valid choices, unknown keys, long strings, unicode, duplicate keys, YAML oddities
(anchors, flow styles, tabs, a second document, tags), random bytes, truncation, or the same through --set.
Only a mutation that asks for a huge number makes a run large; the child's address space and time are capped
(fuzzlib). See fuzzlib's docstring for what every case checks.

  python3 tests/fuzz/fuzz_configs.py                       # 300 cases from the fixed seed (what ctest runs)
  python3 tests/fuzz/fuzz_configs.py --cases 5000 --seed 7 # a longer local run
  python3 tests/fuzz/fuzz_configs.py --seed 7 --case 123   # replay one case (add --keep DIR to keep its folder)
  python3 tests/fuzz/fuzz_configs.py --seed 7 --case 123 --print  # show its config and command, run nothing

Environment: PORTASOLVE_BIN (the binary), PORTASOLVE_CONFIGS (the configs folder), PORTASOLVE_FUZZ_CASES,
PORTASOLVE_FUZZ_SEED, PORTASOLVE_FUZZ_JOBS, PORTASOLVE_FUZZ_TIMEOUT_S, PORTASOLVE_FUZZ_AS_BYTES.
A case depends only on (seed, case number) and the files in configs/.
"""

import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzzlib  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.environ.get("PORTASOLVE_CONFIGS", os.path.join(HERE, "..", "..", "configs"))

# Tiny sizes for the seeds, applied to the keys a shipped config has (and to the sizes every config of the
# experiment falls back to when a mutation deletes them, through ADDED_SIZES).
SHRINK = {
    "input.samples": "48", "input.series": "2", "frequency.count": "200", "frequency.samples_per_peak": "3",
    "frequency.nyquist_factor": "2", "run.warmup": "0", "run.repeats": "1",
    "lorenz05.steps": "20", "lorenz05.output_every": "10", "ensemble.members": "3", "ensemble.spinup_steps": "20",
    "problem.rows": "24", "problem.cols": "30", "poisson.max_iterations": "60", "poisson.check_every": "20",
    "image.rows": "24", "image.cols": "30", "smoothing.passes": "3", "stream.size": "4096",
}
# Sizes whose defaults are large: kept in every seed so that deleting a section does not bring them back.
ADDED_SIZES = {
    "lombscargle": ["input.samples", "frequency.count"],
    "lorenz05": ["lorenz05.steps", "lorenz05.output_every", "ensemble.members", "ensemble.spinup_steps"],
    "poisson": ["problem.rows", "problem.cols", "poisson.max_iterations", "poisson.check_every"],
    "smoothing": ["image.rows", "image.cols"],
    "stream": ["stream.size"],
}
PROTECTED = set(SHRINK)  # never deleted (their defaults are large), only mutated

# Numbers. Middle values (1e4 .. 1e11) are left out on purpose: as a size or an iteration count they make a valid
# run that is merely long, which would read as a hang. Huge sizes are >= 1e12 elements, beyond any machine's
# memory, so a correct run stops at once with an error; iteration counts only get values a correct config
# check rejects (beyond int64, fractions, NaN) or small ones.
SIZE_NAMES = {"rows", "cols", "samples", "series", "count", "size", "members", "model_size"}
WORK_NAMES = {"repeats", "warmup", "steps", "spinup_steps", "max_iterations", "passes"}
SMALL_INTEGERS = ["0", "-1", "1", "2", "3", "-0", "1.5", "3.0", "0x10", "0o17", "1_000", "+5", "007", ".nan", ".inf",
                  "-.inf", "1e-320", "-2147483649", "9223372036854775808", "-9223372036854775808",
                  "18446744073709551616", "99999999999999999999999", "1e300", "-1e300", "1e19"]
HUGE_INTEGERS = ["1e12", "1e15", "1e18", "1000000000000", "9223372036854775807", "4611686018427387904"]
PROBE_INTEGERS = ["127", "128", "255", "256", "32767", "32768", "65535", "65536", "2147483647", "2147483648",
                  "4294967295", "4294967296"]
INTEGERS = SMALL_INTEGERS + HUGE_INTEGERS
REALS = ["0", "-0.0", "-1", "1e-300", "5e-324", "1e300", "1.7976931348623157e308", "1e309", ".nan", ".NaN", "nan",
         ".inf", "-.inf", "inf", "1e-9", "0.5", "1,5", "1..2", "1e", "-1e300", "2", "1e15", "0x1p3", "-1e-300"]
DUPLICATE_VALUES = ["0", "-1", "abc", "1.5", "[1]", ".nan", "99999999999999999999999", "\u00e9", "{}", "~", "1e300"]
WRONG_TYPES = ["[1, 2]", "{a: 1}", "[]", "{}", "", "~", "null", "true", "false", "yes", "'5'", "\"5\"", "abc",
               "[[[1]]]", "[1, [2, 3]]", "{x: [1, {y: 2}]}", "- 1", "? a", "| \n  block", ">", "'' ", "\"\"",
               "[.nan, .inf]", "[1, -1, 0]", "[a, b]", "[" + ", ".join(["1"] * 2000) + "]"]
STRINGS = ["x" * 300, "x" * 5000, "y" * 70000, "é", "日本語の値", "\U0001F600", "\u202etxt.exe", "a\u0301",
           "\u200b", "Ω≈ç√∫", "\U0001F4A9" * 200, "\"\\0\"", "\"a\\x00b\"", "\"\\uD800\"", "\"\\U0010FFFF\"",
           "\"line\\nbreak\"", "' leading space'", ".", "..", "-", "'*'", "'%'", "'@'", "'`'", "'#'", "\"\\t\"",
           "'a: b'", "'[x'", "\"\\e\\a\\b\"", "'\u00ff\u00fe'", "\\", "CON", "nul", "'\u0085'", "'\u2028'"]
YAML_ODDITIES = ["&anchor {a: 1}", "*undefined_alias", "!!str 5", "!custom 5", "!!binary aGVsbG8=", "!!float 1",
                 "!!int 3", "!!null ''", "!!map {}", "<<: x", "%YAML 1.2", "'unterminated", "\"unterminated",
                 "[unterminated", "{unterminated", "]", "}", "@", "`", "a: b: c", "- - -", "&a [*a]"]
BYTES = [bytes([b]) for b in range(256) if b != ord("/")]


# --- a minimal YAML reader for the shipped configs (block mappings of scalars and flow lists), no PyYAML ------

def parse(text):
    """Nested dicts of raw scalar texts: {'a': {'b': '1'}}; comments dropped."""
    root, stack = {}, [(-1, None)]
    stack[0] = (-1, root)
    for raw in text.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", raw).rstrip()
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        key, _, value = line.strip().partition(":")
        while stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        if value.strip():
            parent[key] = value.strip()
        else:
            parent[key] = {}
            stack.append((indent, parent[key]))
    return root


def emit(tree, indent=0):
    out = []
    for key, value in tree.items():
        if isinstance(value, dict):
            out.append(" " * indent + f"{key}:" + ("" if value else " {}"))
            out.extend(emit(value, indent + 2).splitlines())
        else:
            out.append(" " * indent + f"{key}: {value}".rstrip())
    return "\n".join(out) + "\n"


def leaves(tree, prefix=""):
    for key, value in tree.items():
        path = prefix + key
        if isinstance(value, dict):
            yield from leaves(value, path + ".")
        else:
            yield path


def sections(tree, prefix=""):
    for key, value in tree.items():
        if isinstance(value, dict):
            yield prefix + key
            yield from sections(value, prefix + key + ".")


def get(tree, path):
    for part in path.split("."):
        tree = tree[part]
    return tree


def put(tree, path, value):
    parts = path.split(".")
    for part in parts[:-1]:
        if not isinstance(tree.get(part), dict):
            tree[part] = {}
        tree = tree[part]
    tree[parts[-1]] = value


def remove(tree, path):
    parts = path.split(".")
    for part in parts[:-1]:
        tree = tree[part]
    del tree[parts[-1]]


def copy(tree):
    return {k: copy(v) if isinstance(v, dict) else v for k, v in tree.items()}


# --- the schema, from the binary's own messages (cached per experiment) --------------------------------------

KNOWN_KEYS = {}  # experiment -> {path: default raw text} from `portasolve check`
CHOICES = {}     # path -> [valid values] from the errors of `portasolve check --set path=...`


def seeds():
    """[(name, tree)]: every shipped config, shrunk, outputs renamed into the case folder."""
    found = []
    for path in sorted(glob.glob(os.path.join(CONFIGS, "*.yaml"))):
        with open(path, encoding="utf-8") as f:
            tree = parse(f.read())
        experiment = tree.get("experiment", "")
        for key in ADDED_SIZES.get(experiment, []):
            put(tree, key, SHRINK[key])
        for key in list(leaves(tree)):
            if key in SHRINK:
                put(tree, key, SHRINK[key])
        put(tree, "output.path", "out.h5")
        if "pgm" in tree.get("output", {}):
            put(tree, "output.pgm", "out.pgm")
        if experiment == "poisson" and "blocked" in tree.get("poisson", {}):
            put(tree, "poisson.blocked.sweeps_per_launch", "4")
        found.append((os.path.basename(path), tree))
    if not found:
        sys.exit(f"no configs in {CONFIGS}")
    return found


def schema(name, tree):
    """The seed's keys with their defaults, from `portasolve check` (runs nothing); valid choices per key."""
    if name not in KNOWN_KEYS:
        import tempfile
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "c.yaml"), "w") as f:
                f.write(emit(tree))
            code, out, err, _ = fuzzlib.run_binary(["check", "c.yaml"], folder, timeout=30)
            if code != 0:
                sys.exit(f"the shrunk seed {name} fails `check`:\n{emit(tree)}\n{err}")
            full = parse(out)
            KNOWN_KEYS[name] = {path: get(full, path) for path in leaves(full)}
            for path in KNOWN_KEYS[name]:
                if path in CHOICES:
                    continue
                code, _, err, _ = fuzzlib.run_binary(["check", "c.yaml", "--set", path + "=[not, a, choice]"],
                                                     folder, timeout=30)
                match = re.search(r"(?:choice|choices|one of)[^:]*: ([A-Za-z0-9_, ]+?)\)?$", err.strip())
                CHOICES[path] = [c.strip() for c in match.group(1).split(",")
                                 if c.strip() and " " not in c.strip()] if match else []
    return KNOWN_KEYS[name]


# --- mutations ---------------------------------------------------------------------------------------------------

def integers_for(path):
    name = path.rsplit(".", 1)[-1]
    if name in WORK_NAMES:
        return SMALL_INTEGERS
    if name in SIZE_NAMES:
        return INTEGERS
    return INTEGERS + PROBE_INTEGERS


def any_value(rng, path, original):
    """A replacement value for `path`: mostly aimed at its type, sometimes anything."""
    kind = rng.random()
    if CHOICES.get(path) and kind < 0.3:
        return rng.choice(CHOICES[path])
    if re.fullmatch(r"[-+]?[0-9]+", original or ""):
        if kind < 0.55:
            return rng.choice(integers_for(path))
        if kind < 0.7:  # near the original, still small
            n = int(original)
            if path.rsplit(".", 1)[-1] in WORK_NAMES:  # counts of repeats, steps, passes: a long run is no bug
                return str(rng.choice([n + 1, n - 1, -n, 0, 1, 2, 3, 5, 8]))
            return str(rng.choice([n + 1, n - 1, n * 2, n // 2, -n, 1, 3, 7, 64, 127, 128, 255, 256]))
    elif re.fullmatch(r"[-+]?[0-9.]+(e[-+]?[0-9]+)?", original or ""):
        if kind < 0.6:
            return rng.choice(REALS)
    reals = [r for r in REALS if r != "1e15"] if path.rsplit(".", 1)[-1] in WORK_NAMES else REALS
    pools = [integers_for(path), reals, WRONG_TYPES, STRINGS, YAML_ODDITIES]
    return rng.choice(rng.choice(pools))


VALID_INTEGERS = ["0", "1", "2", "3", "4", "5", "7", "8", "9", "13", "16", "20", "31", "32", "33", "64", "100"]
VALID_REALS = ["0", "1e-12", "0.001", "0.1", "0.5", "1", "1.5", "2", "2.5", "10", "100"]


def plausible_value(rng, path, default):
    """A value of the key's own kind, mostly valid: other choices, small counts, flipped flags."""
    if CHOICES.get(path):
        return rng.choice(CHOICES[path])
    if default in ("true", "false"):
        return "false" if default == "true" else "true"
    if re.fullmatch(r"[-+]?[0-9]+", default):
        if path.rsplit(".", 1)[-1] in WORK_NAMES:
            return rng.choice(VALID_INTEGERS[:8])
        return rng.choice(VALID_INTEGERS)
    if re.fullmatch(r"[-+]?[0-9.]+(e[-+]?[0-9]+)?", default):
        return rng.choice(VALID_REALS)
    return None


def mutate_tree(rng, tree, keys, notes, sets):
    present = list(leaves(tree))
    choice = rng.random()
    if rng.random() < 0.3:  # a plausible, mostly valid change: reaches the solvers' less travelled paths
        path = rng.choice(sorted(keys))
        value = plausible_value(rng, path, keys[path])
        if value is not None:
            put(tree, path, value)
            notes.append(f"set {path} = {value}")
            return
    if choice < 0.12:  # delete a key or a section (sizes stay: their defaults are large)
        candidates = [p for p in present if p not in PROTECTED and p != "output.path"] + list(sections(tree))
        if not candidates:
            return
        path = rng.choice(candidates)
        node = get(tree, path)
        if isinstance(node, dict):
            for leaf in [path + "." + l for l in leaves(node)]:
                if leaf not in PROTECTED:
                    remove(tree, leaf)
            if not get(tree, path):
                remove(tree, path)
        else:
            remove(tree, path)
        notes.append(f"delete {path}")
    elif choice < 0.55:  # replace a present leaf's value
        path = rng.choice(present)
        value = any_value(rng, path, get(tree, path))
        put(tree, path, value)
        notes.append(f"{path} = {short(value)}")
    elif choice < 0.72:  # set a key the config does not have (default elsewhere) to something
        path = rng.choice(sorted(keys))
        value = any_value(rng, path, keys[path] if isinstance(keys[path], str) else "")
        put(tree, path, value)
        notes.append(f"add {path} = {short(value)}")
    elif choice < 0.8:  # unknown or misspelt keys, a section made a scalar or a scalar a section
        what = rng.random()
        if what < 0.4:
            path = rng.choice(present)
            put(tree, path[:-1] + path[-1].upper() if path[-1].islower() else path + "x", "1")
            notes.append(f"misspelt key near {path}")
        elif what < 0.7 and list(sections(tree)):
            path = rng.choice(list(sections(tree)))
            put(tree, path, rng.choice(["1", "[]", "abc", "~", ""]))
            notes.append(f"section {path} made a scalar")
        else:
            path = rng.choice(present)
            put(tree, path, {"nested": "1"})
            notes.append(f"scalar {path} made a section")
    elif choice < 0.9:  # the same, through --set
        path = rng.choice(sorted(set(keys) | set(present)))
        value = any_value(rng, path, keys.get(path, "") if isinstance(keys.get(path, ""), str) else "")
        assignment = rng.choice([f"{path}={value}"] * 6 + [path, "=" + value, f"{path}.x={value}", f".{path}={value}",
                                                              f"{path}..={value}", f"{path}=", f"{path}=={value}"])
        sets.append(assignment.replace("/", "_"))
        notes.append(f"--set {short(assignment)}")
    else:  # the experiment itself
        value = rng.choice(["stream", "poisson", "smoothing", "lombscargle", "lorenz05", "Stream", "", "[stream]",
                            "nonexistent", "stream\u0000", "'poisson '"])
        tree["experiment"] = value
        notes.append(f"experiment = {short(value)}")


def mutate_text(rng, text, notes):
    choice = rng.random()
    lines = text.splitlines(keepends=True)
    data = text.encode("utf-8")
    if choice < 0.15:  # duplicate a key with another value (same level)
        i = rng.randrange(len(lines))
        line = lines[i]
        key = line.split(":")[0]
        lines.insert(rng.randrange(i, len(lines) + 1), f"{key}: {rng.choice(DUPLICATE_VALUES)}\n")
        notes.append(f"duplicate key {key.strip()}")
        return "".join(lines).encode("utf-8")
    if choice < 0.3:  # random bytes replaced, inserted or deleted
        data = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(data) + 1)
            op = rng.random()
            if op < 0.4 and at < len(data):
                data[at:at + 1] = rng.choice(BYTES)
            elif op < 0.8:
                data[at:at] = b"".join(rng.choice(BYTES) for _ in range(rng.randint(1, 8)))
            else:
                del data[at:at + rng.randint(1, 10)]
        notes.append("random bytes")
        return bytes(data)
    if choice < 0.4:  # truncated
        at = rng.randrange(len(data) + 1)
        notes.append(f"truncated at byte {at}")
        return data[:at]
    if choice < 0.5:  # line structure
        op = rng.choice(["crlf", "cr", "tabs", "no-newline", "indent+1", "dedent", "shuffle", "swap-lines", "blank"])
        if op == "crlf":
            text = text.replace("\n", "\r\n")
        elif op == "cr":
            text = text.replace("\n", "\r")
        elif op == "tabs":
            text = text.replace("  ", "\t")
        elif op == "no-newline":
            text = text.rstrip("\n")
        elif op == "indent+1":
            i = rng.randrange(len(lines))
            lines[i] = " " + lines[i]
            text = "".join(lines)
        elif op == "dedent":
            i = rng.randrange(len(lines))
            lines[i] = lines[i].lstrip()
            text = "".join(lines)
        elif op == "shuffle":
            rng.shuffle(lines)
            text = "".join(lines)
        elif op == "swap-lines":
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            text = "".join(lines)
        else:
            text = ""
        notes.append(f"lines: {op}")
        return text.encode("utf-8")
    if choice < 0.62:  # YAML document-level oddities
        op = rng.choice(["bom", "second-doc", "doc-end", "directive", "tag-top", "flow-top", "anchor-merge",
                         "deep-flow", "deep-block", "comment-flood", "huge-line", "list-top", "scalar-top",
                         "alias-bomb", "nul", "latin1", "utf16"])
        if op == "bom":
            data = b"\xef\xbb\xbf" + data
        elif op == "second-doc":
            data += b"---\nexperiment: stream\n"
        elif op == "doc-end":
            data = b"---\n" + data + b"...\n"
        elif op == "directive":
            data = b"%YAML 1.2\n---\n" + data
        elif op == "tag-top":
            data = b"--- !!map\n" + data
        elif op == "flow-top":
            data = b"{experiment: stream, stream: {size: 1000}, run: {repeats: 1}, output: {path: out.h5}}\n"
        elif op == "anchor-merge":
            data = data.replace(b"run:", b"run: &r", 1) + b"extra:\n  <<: *r\n"
        elif op == "deep-flow":
            depth = rng.choice([100, 1000, 10000, 100000])
            data += b"deep: " + b"[" * depth + b"]" * depth + b"\n"
        elif op == "deep-block":
            depth = rng.choice([50, 500])
            data += b"".join(b" " * i + b"k:\n" for i in range(depth)) + b" " * depth + b"k: 1\n"
        elif op == "comment-flood":
            data = b"# " + b"c" * 100000 + b"\n" + data
        elif op == "huge-line":
            data += b"seed: " + b"9" * 200000 + b"\n"
        elif op == "list-top":
            data = b"- experiment: stream\n"
        elif op == "scalar-top":
            data = b"experiment\n"
        elif op == "alias-bomb":
            data = (b"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                    b"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                    b"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n" + data)
        elif op == "nul":
            at = rng.randrange(len(data) + 1)
            data = data[:at] + b"\x00" + data[at:]
        elif op == "latin1":
            data = data.replace(b"out.h5", "r\u00e9sultat.h5".encode("latin-1"))
        else:
            data = text.encode("utf-16")
        notes.append(f"yaml: {op}")
        return data
    # a comment or unicode in odd places
    i = rng.randrange(len(lines))
    insert = rng.choice(["# é 日本 \U0001F600\n", "\u00a0\n", "\u2028\n", "#\n", "   # indented comment\n",
                         "k\u00e9y: 1\n", "\U0001F600: 1\n", "'quoted key': 1\n", "? complex\n: key\n",
                         "[1, 2]: list key\n", "{a: 1}: map key\n", "~: null key\n", ": empty key\n"])
    lines.insert(i, insert)
    notes.append(f"insert line {short(insert.strip())}")
    return "".join(lines).encode("utf-8")


def short(text, limit=60):
    text = repr(text)[1:-1] if not isinstance(text, str) else text.encode("unicode_escape").decode()
    return text if len(text) <= limit else text[:limit] + f"...({len(text)} chars)"


SEEDS = None


def make_case(seed, number):
    global SEEDS
    if SEEDS is None:
        SEEDS = seeds()
    rng = fuzzlib.case_rng(seed, number, "configs")
    name, base = SEEDS[rng.randrange(len(SEEDS))]
    tree = copy(base)
    experiment = tree.get("experiment", "")
    notes, sets = [], []
    mutations = rng.choice([0, 1, 1, 1, 2, 2, 3]) if number >= len(SEEDS) else 0
    if number < len(SEEDS):  # the first cases run every seed unchanged: each must succeed
        name, base = SEEDS[number]
        tree = copy(base)
        experiment = tree.get("experiment", "")
    text_mutation = mutations > 0 and rng.random() < 0.35
    keys = schema(name, base)
    for _ in range(mutations - (1 if text_mutation else 0)):
        mutate_tree(rng, tree, keys, notes, sets)
    text = emit(tree)
    data = mutate_text(rng, text, notes) if text_mutation else text.encode("utf-8")
    data = data.replace(b"/", b"_")  # every path stays inside the case's folder
    files = {"config.yaml": data}
    command = "check" if number >= len(SEEDS) and rng.random() < 0.2 else "run"
    args = [command, "config.yaml"]
    if text_mutation:  # a damaged file that still parses may have lost its sizes: keep them small
        for key in ADDED_SIZES.get(experiment, []) + ["run.repeats", "run.warmup"]:
            args += ["--set", f"{key}={SHRINK[key]}"]
    for assignment in sets:
        args += ["--set", assignment]
    target, overwrite = None, False
    if command == "run":
        args.append("--quiet")
        roll = rng.random()
        if roll < 0.25:  # an existing result file must survive
            target = "out.h5"
            files[target] = b"precious result " + str(number).encode()
            if rng.random() < 0.3:
                args.append("--overwrite")
        overwrite = "--overwrite" in args or b"overwrite" in data or any("overwrite" in s for s in sets)
    if rng.random() < 0.05 and command == "run":
        args.append(rng.choice(["--output", "--output=", "--set", "--bogus", "--kokkos-threads=1", "--help"]))
        notes.append(f"extra argument {args[-1]}")
    label = f"{name}:{'+'.join(n.split(' ')[0] for n in notes) or 'seed'}"
    case = fuzzlib.Case(number, seed, label, args, files, target, overwrite, "; ".join(notes) or "none (the seed)")
    if command == "check":
        case.followup = check_round_trip
    return case


def check_round_trip(folder, outcome):
    """`check` prints the effective config: checking that text again must succeed and print the same."""
    if outcome.code != 0:
        return []
    with open(os.path.join(folder, "effective.yaml"), "w", encoding="utf-8") as f:
        f.write(outcome.stdout)
    code, out, err, _ = fuzzlib.run_binary(["check", "effective.yaml"], folder, timeout=fuzzlib.TIMEOUT_S)
    os.remove(os.path.join(folder, "effective.yaml"))
    if code != 0:
        return [("round-trip", f"`check` of the printed effective config exits {code}: " + fuzzlib.last_error_line(err))]
    if out != outcome.stdout:
        return [("round-trip", "`check` of the printed effective config prints something else")]
    return []


def replay(seed, number):
    return f"python3 tests/fuzz/fuzz_configs.py --seed {seed} --case {number}"


if __name__ == "__main__":
    sys.exit(fuzzlib.main(__doc__, make_case, replay))
