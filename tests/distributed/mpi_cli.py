"""What the tests of the program under mpirun share: where the program,
the launcher and the sources are (ctest sets PORTASOLVE_BIN, MPIEXEC and
PORTASOLVE_SOURCE), Open MPI's settings for CI (root, oversubscribed cores,
one OpenMP thread a rank), and one call that runs the program with or
without mpirun."""
import functools
import os
import subprocess
from pathlib import Path

import h5py

BIN = os.environ.get("PORTASOLVE_BIN", "portasolve")
MPIEXEC = os.environ.get("MPIEXEC", "mpirun")
SOURCE = Path(os.environ.get("PORTASOLVE_SOURCE", Path(__file__).resolve().parents[2]))
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")


def portasolve(args, ranks=None, timeout=240):
    """Runs `portasolve ARGS`, under `mpirun -np RANKS` when ranks is given."""
    command = ([MPIEXEC, "-np", str(ranks)] if ranks else []) + [BIN] + args
    return subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=timeout)


def run_args(config, path, *settings):
    """`run` of the shipped configs/CONFIG into PATH, quiet, each of `settings` a --set."""
    return ["run", str(SOURCE / "configs" / config), "--quiet", "--output", str(path),
            *[a for s in settings for a in ("--set", s)]]


def assert_config_error_said_once(done, message, *keys, folder=None):
    """`done` (a finished run over ranks) is a config error: exit 2, `message` once on stderr (rank 0 speaks
    for all), each of `keys` named; nothing left in `folder` when one is given."""
    assert done.returncode == 2, done.stderr
    assert done.stderr.count(message) == 1, done.stderr
    for key in keys:
        assert key in done.stderr, done.stderr
    if folder is not None:
        assert not list(folder.iterdir())


@functools.lru_cache(maxsize=None)
def write_mode():
    """The /output attribute `write` a run over ranks of this build records: collective with parallel HDF5
    (`portasolve info` says so on its HDF5 line), else gathered to rank 0."""
    info = subprocess.run([BIN, "info"], capture_output=True, text=True, env=ENV, timeout=120)
    assert info.returncode == 0, info.stderr
    hdf5 = [line for line in info.stdout.splitlines() if line.startswith("HDF5 version:")]
    assert len(hdf5) == 1, info.stdout
    if "(parallel" in hdf5[0]:
        return "collective MPI-IO, each rank its block (parallel HDF5)"
    return "gathered to rank 0, which writes"


def file_contents(path):
    """Every dataset of a result file by name, /output's attributes and /validation's (empty if none)."""
    found = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, item: found.__setitem__(name, item[...]) if isinstance(item, h5py.Dataset)
                     else None)
        validation = dict(f["validation"].attrs) if "validation" in f else {}
        return found, dict(f["output"].attrs), validation
