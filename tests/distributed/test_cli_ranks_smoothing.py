"""smoothing under mpirun: the image split into blocks over 2 and 3 ranks
gives the single-process /output/image bit for bit (uneven blocks, wrap
borders across ranks, integer and float pixels, several passes); an HDF5
image read a block per rank gives the same files; a split that leaves a block
thinner than the window needs is a config error said once.

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


def write_image(path, values):
    with h5py.File(path, "w") as f:
        f["image"] = values


@pytest.mark.parametrize("ranks", [2, 4])
def test_an_hdf5_image_is_read_a_block_per_rank(tmp_path, ranks):
    # Levels above 8 bits in some blocks only (the PGM's maxval is the whole image's), uneven blocks,
    # /input/image written back from the blocks.
    rng = np.random.default_rng(7)
    image = rng.integers(0, 300, size=(61, 47)).astype(np.float64)
    image[:40] = np.minimum(image[:40], 255)  # rank 0's block (rows 0-30) stays within 8 bits
    write_image(tmp_path / "in.h5", image)
    settings = ["image.source=hdf5", f"image.file={tmp_path / 'in.h5'}", "image.pixel_type=int32",
                "output.input_image=true", "smoothing.passes=2", "run.warmup=0", "run.repeats=1"]
    runs = {}
    for r in (None, ranks):
        folder = tmp_path / f"ranks{r}"
        folder.mkdir()
        done = portasolve(run_args("smoothing_box3_int.yaml", folder / "out.h5", *settings,
                                   f"output.pgm={folder / 'out.pgm'}"), r)
        assert done.returncode == 0, done.stderr
        with h5py.File(folder / "out.h5", "r") as f:
            runs[r] = (f["output/image"][...], f["input/image"][...], f["input"].attrs["read"],
                       (folder / "out.pgm").read_bytes())
    one, split = runs[None], runs[ranks]
    assert one[2] == "whole image" and split[2] == "each rank its block"
    assert np.array_equal(split[0], one[0])
    assert np.array_equal(split[1], one[1]) and np.array_equal(split[1], image.astype(np.int32))
    assert split[3] == one[3] and b"\n65535\n" in split[3][:20]


def test_a_non_finite_pixel_in_one_rank_s_block_stops_every_rank_with_no_file(tmp_path):
    image = np.full((30, 40), 7.0)
    image[25, 33] = np.nan  # in the last rank's block
    write_image(tmp_path / "in.h5", image)
    out = tmp_path / "out"
    out.mkdir()
    done = portasolve(run_args("smoothing_gaussian.yaml", out / "out.h5", "image.source=hdf5",
                               f"image.file={tmp_path / 'in.h5'}", "image.pixel_type=float", "output.pgm=''"), 3)
    assert done.returncode != 0
    assert "pixel (25, 33) is not finite" in done.stderr, done.stderr
    assert not list(out.iterdir())


@pytest.mark.parametrize("pattern", ["noise", "shapes"])
def test_a_synthetic_image_is_drawn_a_block_per_rank(tmp_path, pattern):
    # Each rank draws only its block's pixels (noise: the random stream skipped to them): the same
    # /input/image and /output/image as one process.
    settings = [*SMALL, f"image.pattern={pattern}", "output.input_image=true"]
    runs = {}
    for r in (None, 3):
        path = tmp_path / f"ranks{r}.h5"
        done = portasolve(run_args("smoothing_gaussian.yaml", path, *settings), r)
        assert done.returncode == 0, done.stderr
        with h5py.File(path, "r") as f:
            runs[r] = f["input/image"][...], f["output/image"][...], f["input"].attrs["read"]
    assert runs[None][2] == "whole image" and runs[3][2] == "each rank its block"
    assert np.array_equal(runs[3][0], runs[None][0]) and np.array_equal(runs[3][1], runs[None][1])
    assert len(np.unique(runs[None][0])) > 50  # a real picture, not a constant
