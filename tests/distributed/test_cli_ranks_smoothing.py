"""smoothing under mpirun: the image split into blocks over 2 and 3 ranks
gives the single-process /output/image bit for bit (uneven blocks, wrap
borders across ranks, integer and float pixels, several passes); a split that
leaves a block thinner than the window needs is a config error said once.

Run by ctest (distributed.cli_smoothing) with PORTASOLVE_BIN, MPIEXEC and
PORTASOLVE_SOURCE set."""
import h5py
import numpy as np
import pytest

from mpi_cli import assert_config_error_said_once, portasolve, run_args, write_mode


def output(path):
    with h5py.File(path, "r") as f:
        return f["output/image"][...], dict(f["output"].attrs)


# 61x47 pixels: blocks of 31+30 or 21+20+20 rows, uneven.
SMALL = ["image.rows=61", "image.cols=47", "run.warmup=0", "run.repeats=1", "output.pgm=''"]
CASES = {
    "gaussian_reflect_uint8": ("smoothing_gaussian.yaml", SMALL + ["smoothing.sigma=1.5", "smoothing.passes=2"]),
    "box_wrap_float": ("smoothing_gaussian.yaml",
                       SMALL + ["smoothing.kernel=box", "smoothing.radius=2", "smoothing.border=wrap",
                                "image.pixel_type=float", "smoothing.passes=3"]),
    "box_keep_int32": ("smoothing_box3_int.yaml", SMALL + ["smoothing.passes=2"]),
}


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    folder = tmp_path_factory.mktemp("single")
    runs = {}
    for name, (config, settings) in CASES.items():
        path = folder / f"{name}.h5"
        done = portasolve(run_args(config, path, *settings))
        assert done.returncode == 0, done.stderr
        runs[name] = output(path)
    return runs


@pytest.mark.parametrize("ranks", [2, 3, 4])
@pytest.mark.parametrize("case", sorted(CASES))
def test_smoothing_over_ranks_gives_the_single_process_image(tmp_path, single, case, ranks):
    config, settings = CASES[case]
    path = tmp_path / "ranks.h5"
    done = portasolve(run_args(config, path, *settings), ranks)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("wrote ") == 1  # rank 0 alone prints
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporaries left
    got, attrs = output(path)
    want, want_attrs = single[case]
    assert got.dtype == want.dtype and got.shape == want.shape == (61, 47)
    assert np.array_equal(got, want)  # bit for bit (no NaN in these images)
    assert attrs["ranks"] == ranks
    assert attrs["write"] == write_mode()
    assert attrs["halo_transport"] in ("host memory (no device)", "device-aware MPI", "staged through host buffers",
                                       "device to device (CUDA IPC)",
                                       "device to device within a node (CUDA IPC), staged between nodes")
    assert attrs["process_grid"] in (f"{ranks}x1", f"1x{ranks}", "2x2")
    assert 0 <= attrs["local_arrays_s"] and 0 <= attrs["halo_s"]  # the slowest rank's, recorded beside the halo's
    assert "ranks" not in want_attrs


def test_a_pgm_over_ranks_is_the_single_process_pgm(tmp_path):
    # The PGM needs the whole image on rank 0, also where the ranks write the HDF5 image in blocks.
    config, settings = CASES["gaussian_reflect_uint8"]
    settings = [s for s in settings if not s.startswith("output.pgm")]
    for ranks in (None, 3):
        folder = tmp_path / f"ranks{ranks}"
        folder.mkdir()
        done = portasolve(run_args(config, folder / "out.h5", *settings, f"output.pgm={folder / 'out.pgm'}"), ranks)
        assert done.returncode == 0, done.stderr
    pgm = [(tmp_path / f"ranks{r}" / "out.pgm").read_bytes() for r in (None, 3)]
    assert pgm[0].startswith(b"P5") and pgm[0] == pgm[1]
    image = [output(tmp_path / f"ranks{r}" / "out.h5")[0] for r in (None, 3)]
    assert np.array_equal(image[0], image[1])
    assert np.frombuffer(pgm[0][-image[0].size:], np.uint8).reshape(image[0].shape).tolist() == image[0].tolist()


def test_a_split_too_thin_for_the_window_is_a_config_error_said_once(tmp_path):
    # radius 6, border mirror: 7 rows and columns a block; 13x13 cannot be split.
    done = portasolve(run_args("smoothing_gaussian.yaml", tmp_path / "thin.h5", "image.rows=13", "image.cols=13",
                               "smoothing.sigma=1.5", "smoothing.border=mirror", "output.pgm=''"), 2)
    assert_config_error_said_once(done, "cannot be smoothed over 2 MPI ranks", "image.rows", folder=tmp_path)
