"""The portasolve program under mpirun: the same answers as one process, a
config error reported once with exit status 2, a failure while running
stopping every rank with no result file left behind.

Run by ctest (distributed.cli) with PORTASOLVE_BIN, MPIEXEC and
PORTASOLVE_SOURCE set."""
import h5py
import numpy as np
import pytest

from mpi_cli import SOURCE, assert_config_error_said_once, portasolve, write_mode


def poisson_args(path, *settings):
    return ["run", str(SOURCE / "configs/poisson_image_jacobi.yaml"), "--quiet", "--output", str(path),
            "--set", "poisson.solver=jacobi", "--set", "poisson.max_iterations=400",
            "--set", "poisson.check_every=100", "--set", "benchmark.baseline=none",
            "--set", 'output.pgm=""', *[a for s in settings for a in ("--set", s)]]


def solution(path):
    with h5py.File(path, "r") as f:
        return f["output/solution"][...], f["output/residual_history"][...], dict(f["output"].attrs)


@pytest.fixture(scope="module")
def single_rank(tmp_path_factory):
    folder = tmp_path_factory.mktemp("single")
    runs = {}
    for precision in ("float", "double"):
        path = folder / f"{precision}.h5"
        done = portasolve(poisson_args(path, f"precision={precision}", "problem.rows=45", "problem.cols=38"))
        assert done.returncode == 0, done.stderr
        runs[precision] = solution(path)
    return runs


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
@pytest.mark.parametrize("precision", ["float", "double"])
def test_ranks_give_the_single_process_solution_bit_for_bit(tmp_path, single_rank, ranks, precision):
    path = tmp_path / "ranks.h5"
    done = portasolve(poisson_args(path, f"precision={precision}", "problem.rows=45", "problem.cols=38"), ranks)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("wrote ") == 1  # rank 0 alone prints
    x, history, attrs = solution(path)
    x1, history1, attrs1 = single_rank[precision]
    assert x.dtype == x1.dtype
    assert np.array_equal(x, x1)
    assert np.array_equal(history[:, 0], history1[:, 0])
    np.testing.assert_allclose(history[:, 1], history1[:, 1], rtol=1e-12)
    # The error against the image: the largest exactly, the rms (a sum over ranks in rank order) to rounding.
    assert attrs["error_max_abs"] == attrs1["error_max_abs"] > 0
    np.testing.assert_allclose(attrs["error_rms"], attrs1["error_rms"], rtol=1e-12)
    if ranks > 1:
        assert attrs["write"] == write_mode()
        assert attrs["ranks"] == ranks
        assert attrs["halo_transport"] in ("host memory (no device)", "device-aware MPI",
                                           "staged through host buffers", "device to device (CUDA IPC)",
                                           "device to device within a node (CUDA IPC), staged between nodes")
        rows, cols = (int(v) for v in attrs["process_grid"].split("x"))
        assert rows * cols == ranks
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporaries left


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_jacobi_blocked_over_ranks_gives_the_single_process_jacobi_bit_for_bit(tmp_path, single_rank, ranks):
    # 5 sweeps a launch over a deep halo of 5: 100 sweeps between checks are 20 rounds.
    path = tmp_path / "blocked.h5"
    done = portasolve(poisson_args(path, "precision=float", "problem.rows=45", "problem.cols=38",
                                   "poisson.solver=jacobi_blocked", "poisson.blocked.sweeps_per_launch=5"), ranks)
    assert done.returncode == 0, done.stderr
    x, history, attrs = solution(path)
    x1, history1, _ = single_rank["float"]
    assert attrs["method"] == "jacobi_blocked" and attrs["ranks"] == ranks
    assert np.array_equal(x, x1)
    np.testing.assert_allclose(history[:, 1], history1[:, 1], rtol=1e-12)


def test_jacobi_blocked_with_blocks_thinner_than_its_halo_is_a_config_error_said_once(tmp_path):
    done = portasolve(poisson_args(tmp_path / "b.h5", "problem.rows=45", "problem.cols=38",
                                   "poisson.solver=jacobi_blocked", "poisson.blocked.sweeps_per_launch=30"), 2)
    assert_config_error_said_once(done, "30 sweeps a launch need blocks at least 30 points across",
                                  "poisson.blocked.sweeps_per_launch")
    done = portasolve(poisson_args(tmp_path / "b.h5", "poisson.solver=jacobi_blocked",
                                   "poisson.blocked.kernel=resident"), 2)
    assert done.returncode == 2
    assert "poisson.blocked.kernel" in done.stderr and "runs on one rank only" in done.stderr
    assert not list(tmp_path.iterdir())


def test_a_rank_may_own_a_single_row(tmp_path):
    # 6 x 3: four interior rows of one point over four ranks in a column, one row each.
    one = tmp_path / "one.h5"
    four = tmp_path / "four.h5"
    manufactured = ["problem.source=manufactured", "problem.rows=6", "problem.cols=3", "precision=double"]
    assert portasolve(poisson_args(one, *manufactured)).returncode == 0
    done = portasolve(poisson_args(four, *manufactured), 4)
    assert done.returncode == 0, done.stderr
    assert solution(four)[2]["process_grid"] == "4x1"
    assert np.array_equal(solution(one)[0], solution(four)[0])


def solutions(tmp_path, rank_counts, *settings):
    """solution() of the same run by one process (None) and under each other rank count."""
    runs = {}
    for ranks in rank_counts:
        path = tmp_path / f"run_{ranks}.h5"
        done = portasolve(poisson_args(path, *settings), ranks)
        assert done.returncode == 0, done.stderr
        runs[ranks] = solution(path)
    return runs


def test_cg_over_ranks_reaches_the_single_process_tolerance(tmp_path):
    runs = solutions(tmp_path, (None, 3), "poisson.solver=cg_fused", "poisson.tolerance=1e-9",
                     "poisson.max_iterations=5000", "poisson.check_every=10", "precision=double", "problem.rows=45",
                     "problem.cols=38")
    x1, history1, _ = runs[None]
    x3, history3, attrs = runs[3]
    assert attrs["method"] == "cg" and attrs["ranks"] == 3  # cg_fused runs as cg over ranks
    assert attrs["converged"] == 1 and attrs["relative_residual"] <= 1e-9
    assert abs(history3[-1, 0] - history1[-1, 0]) <= 10
    np.testing.assert_allclose(history3[:3, 1], history1[:3, 1], rtol=1e-9)
    np.testing.assert_allclose(x3, x1, rtol=0, atol=1e-6 * np.abs(x1).max())


@pytest.mark.parametrize("ranks", [2, 4])
def test_multigrid_over_ranks_gives_the_single_process_cycles_bit_for_bit(tmp_path, ranks):
    # 130 x 98 split down to blocks of 4 (gather 1): levels split over the
    # ranks, then the rest gathered onto every rank.
    runs = solutions(tmp_path, (None, ranks), "poisson.solver=multigrid", "poisson.tolerance=1e-6",
                     "poisson.max_iterations=30", "poisson.multigrid.gather=1", "precision=float", "problem.rows=130",
                     "problem.cols=98")
    x1, history1, attrs1 = runs[None]
    x, history, attrs = runs[ranks]
    assert attrs["method"] == "multigrid" and attrs["ranks"] == ranks and attrs["converged"] == 1
    assert np.array_equal(x, x1)
    assert np.array_equal(history[:, 0], history1[:, 0])
    np.testing.assert_allclose(history[:, 1], history1[:, 1], rtol=1e-12)
    assert attrs["halo_exchanges"] > history[-1, 0]  # multigrid's own, beside the checks'


def test_multigrid_preconditioned_cg_over_ranks_reaches_the_single_process_tolerance(tmp_path):
    runs = solutions(tmp_path, (None, 3), "poisson.solver=cg", "poisson.cg.preconditioner=multigrid",
                     "poisson.tolerance=1e-9", "poisson.max_iterations=200", "poisson.check_every=1", "precision=double",
                     "problem.rows=130", "problem.cols=98", "poisson.multigrid.gather=1")
    x1, history1, _ = runs[None]
    x3, history3, attrs = runs[3]
    assert attrs["method"] == "cg" and attrs["converged"] == 1 and attrs["relative_residual"] <= 1e-9
    assert abs(history3[-1, 0] - history1[-1, 0]) <= 1 and history3[-1, 0] <= 30
    np.testing.assert_allclose(history3[:3, 1], history1[:3, 1], rtol=1e-9)
    np.testing.assert_allclose(x3, x1, rtol=0, atol=1e-7 * np.abs(x1).max())


def test_a_solver_that_does_not_run_over_ranks_is_a_config_error_said_once(tmp_path):
    done = portasolve(poisson_args(tmp_path / "sp.h5", "poisson.solver=spectral"), 2)
    assert_config_error_said_once(done, "'spectral' runs on one rank only", "poisson.solver", folder=tmp_path)


def test_an_experiment_that_does_not_run_over_ranks_is_a_config_error(tmp_path):
    done = portasolve(["run", str(SOURCE / "configs/stream.yaml"), "--output", str(tmp_path / "s.h5")], 2)
    assert_config_error_said_once(done, "runs on one rank only", folder=tmp_path)


def test_more_ranks_than_interior_points_is_a_config_error(tmp_path):
    done = portasolve(poisson_args(tmp_path / "tiny.h5", "problem.source=manufactured", "problem.rows=4",
                                   "problem.cols=4"), 4 + 1)
    assert_config_error_said_once(done, "cannot be split over 5 ranks")


def test_a_failure_while_running_stops_every_rank_and_leaves_no_file(tmp_path):
    # A pixel near float's largest value: its Laplacian overflows to inf in
    # float on the device, and the first residual check fails on every rank.
    image = np.full((20, 24), 100.0)
    image[9, 11] = 3e38
    with h5py.File(tmp_path / "image.h5", "w") as f:
        f["image"] = image
    out = tmp_path / "out"
    out.mkdir()
    done = portasolve(poisson_args(out / "overflow.h5", "precision=float", "problem.source=hdf5",
                                   f"problem.file={tmp_path / 'image.h5'}"), 3)
    assert done.returncode != 0
    assert done.stderr.count("not finite") == 1, done.stderr  # rank 0 speaks for all
    assert "no result file written" in done.stderr
    assert not list(out.iterdir())  # neither the file nor its temporary


def test_info_lists_every_rank(tmp_path):
    done = portasolve(["info"], 3)
    assert done.returncode == 0, done.stderr
    assert "3 rank(s)" in done.stdout
    for rank in range(3):
        assert f"rank {rank} on " in done.stdout
    assert done.stdout.count("portasolve version") == 1


def write_pgm(path, pixels):
    """A binary 8-bit PGM of `pixels` (rows x cols)."""
    rows, cols = pixels.shape
    path.write_bytes(b"P5\n%d %d\n255\n" % (cols, rows) + pixels.astype(np.uint8).tobytes())


def run_files(path):
    """/input/rhs, /input/exact, /output/solution, /input's `read` and the PGM beside the file (if any)."""
    with h5py.File(path, "r") as f:
        arrays = [f[name][...] for name in ("input/rhs", "input/exact", "output/solution")]
        read = f["input"].attrs["read"]
    pgm = path.with_suffix(".pgm")
    return arrays, read, pgm.read_bytes() if pgm.exists() else None


# 37 x 29 points: uneven blocks at 2, 3 and 4 ranks.
SOURCES = {
    "hdf5": ["problem.source=hdf5"],
    "noise": ["problem.source=synthetic", "problem.pattern=noise", "problem.rows=37", "problem.cols=29"],
    "shapes": ["problem.source=synthetic", "problem.pattern=shapes", "problem.rows=37", "problem.cols=29"],
    "manufactured": ["problem.source=manufactured", "problem.rows=37", "problem.cols=29", "output.pgm=''"],
    "pgm": ["problem.source=pgm"],
    "pgm_initial": ["problem.source=hdf5", "problem.initial=pgm"],
}


@pytest.mark.parametrize("ranks", [2, 3, 4])
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_each_rank_builds_its_own_window_of_the_problem(tmp_path, source, ranks):
    # Every rank builds B, the start and the known solution on its block and
    # ring only (HDF5: a hyperslab; synthetic and manufactured: drawn there;
    # a PGM is read whole and cut): the files equal one process's bit for bit,
    # /input/rhs and /input/exact put back together from the ranks' parts.
    rng = np.random.default_rng(11)
    image = rng.integers(0, 256, size=(37, 29)).astype(np.float64)
    image[20:, 10:] += 200  # above 8 bits in the later blocks only: the PGM's maxval is the whole image's
    with h5py.File(tmp_path / "image.h5", "w") as f:
        f["image"] = image
    write_pgm(tmp_path / "image.pgm", image[:, :] % 256)
    write_pgm(tmp_path / "initial.pgm", rng.integers(0, 256, size=(37, 29)))
    files = {"problem.file": tmp_path / ("image.pgm" if source == "pgm" else "image.h5"),
             "problem.initial_file": tmp_path / "initial.pgm"}
    runs = {}
    for r in (None, ranks):
        path = tmp_path / f"ranks{r}.h5"
        settings = [*SOURCES[source], f"problem.file={files['problem.file']}",
                    f"problem.initial_file={files['problem.initial_file']}", "precision=double",
                    "output.input_arrays=true"]
        if source != "manufactured":
            settings.append(f"output.pgm={path.with_suffix('.pgm')}")
        done = portasolve(poisson_args(path, *settings), r)
        assert done.returncode == 0, done.stderr
        runs[r] = run_files(path)
    (one, read_one, pgm_one), (split, read_split, pgm_split) = runs[None], runs[ranks]
    for got, want in zip(split, one):
        assert got.shape == want.shape == (37, 29)
        assert np.array_equal(got, want)
    assert read_one == "whole grid"
    assert read_split == ("whole grid" if source == "pgm" else "each rank its block")
    assert pgm_split == pgm_one
    if source in ("hdf5", "pgm_initial"):
        assert np.array_equal(one[1], image)  # the known solution is the image
        assert b"\n65535\n" in pgm_one[:20]
    if source == "pgm_initial":
        # The initial image's interior, not zeros: the first residual differs from a zero start's.
        assert not np.array_equal(one[2][1:-1, 1:-1], 0)


def test_a_non_finite_pixel_in_one_rank_s_window_stops_every_rank_with_no_file(tmp_path):
    image = np.full((30, 40), 7.0)
    image[27, 33] = np.inf  # in the last rank's window only
    with h5py.File(tmp_path / "image.h5", "w") as f:
        f["image"] = image
    out = tmp_path / "out"
    out.mkdir()
    done = portasolve(poisson_args(out / "out.h5", "problem.source=hdf5", f"problem.file={tmp_path / 'image.h5'}"), 3)
    assert done.returncode != 0
    assert "pixel (27, 33) is not finite" in done.stderr, done.stderr
    assert not list(out.iterdir())
