"""The command line that the benchmark scripts of one config share (bench_lombscargle.py, bench_stream.py)."""

import argparse
import os


def parse_bench_arguments(doc, config, add_arguments):
    """--bin, --config (default `config`), the script's own options from `add_arguments(parser)`, --out; the
    parsed arguments, with the --out folder created."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--bin", default="build/openmp/bin/portasolve")
    parser.add_argument("--config", default=config)
    add_arguments(parser)
    parser.add_argument("--out", default="results/bench")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    return args
