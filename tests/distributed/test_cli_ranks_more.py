"""lombscargle and lorenz05 under mpirun: batches split by series and
ensembles split by members give the single-process results bit for bit
(Lorenz: the states, and the mean and spread, summed in one tree of the
members' indices however they are split), ranks owning a single series or
member included; more ranks than members is a config error said once (more
ranks than series: lombscargle splits by frequency, test_cli_ranks_frequency.py;
the NUFFT keeps the series split with ranks idle, tested here).

Run by ctest (distributed.cli_more) with PORTASOLVE_BIN, MPIEXEC and
PORTASOLVE_SOURCE set."""
import h5py
import numpy as np
import pytest

from mpi_cli import assert_config_error_said_once, file_contents, portasolve, run_args


def datasets(path):
    """Every dataset of /output (and /input) by name, and /output's attributes."""
    found, attrs, _ = file_contents(path)
    return found, attrs


# Five series: at 2, 3, 4 ranks blocks of 3+2, 2+2+1, 2+1+1+1 (ranks with one
# series). Unshared times: the automatic grid comes from the first series,
# which most ranks do not hold.
LOMBSCARGLE = {
    # generalized form, dy, automatic grid of 2501 frequencies (NUFFT), Baluev FAPs
    "nufft": ("lombscargle_lightcurve.yaml",
              ["input.series=5", "input.samples=100", "input.shared_times=false", "peaks.count=3"]),
    # classic form, 200 frequencies by the recurrence (auto takes the NUFFT there on hosts), checked
    # against float64
    "recurrence": ("lombscargle_gtc.yaml",
                   ["input.series=5", "input.samples=64", "frequency.count=200", "benchmark.baseline=none",
                    "run.warmup=0", "run.repeats=1", "lombscargle.floating_mean=true",
                    "lombscargle.algorithm=recurrence"]),
}

LORENZ = ("lorenz96.yaml", ["ensemble.members=5", "ensemble.perturbation=0.1", "ensemble.spinup_steps=100",
                            "lorenz05.steps=40", "lorenz05.output_every=10"])


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    folder = tmp_path_factory.mktemp("single")
    runs = {}
    for name, (config, settings) in list(LOMBSCARGLE.items()) + [("lorenz", LORENZ)]:
        path = folder / f"{name}.h5"
        done = portasolve(run_args(config, path, *settings))
        assert done.returncode == 0, done.stderr
        runs[name] = datasets(path)
    return runs


def check_one_writer(done, folder):
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("wrote ") == 1  # rank 0 alone prints
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no temporaries left


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
@pytest.mark.parametrize("case", sorted(LOMBSCARGLE))
def test_lombscargle_series_split_over_ranks_give_the_single_process_bits(tmp_path, single, case, ranks):
    config, settings = LOMBSCARGLE[case]
    path = tmp_path / "ranks.h5"
    done = portasolve(run_args(config, path, *settings), ranks)
    check_one_writer(done, tmp_path)
    got, attrs = datasets(path)
    want, want_attrs = single[case]
    assert attrs["algorithm"] == want_attrs["algorithm"] == ("nufft" if case == "nufft" else "recurrence")
    assert got["output/power"].shape == (5, len(got["output/frequency"]))
    compared = [k for k in want if k.startswith(("output/", "input/"))]
    assert {"output/power", "output/peak_fap", "output/summary/amplitude", "output/summary/power"} <= set(compared)
    assert sorted(got) == sorted(want)
    for key in compared:
        assert got[key].dtype == want[key].dtype, key
        assert np.array_equal(got[key], want[key], equal_nan=True), key
    if case == "nufft":  # FAPs defined (generalized, standard) and finite
        assert np.isfinite(got["output/summary/fap"]).all()
    assert attrs.get("ranks", 1) == ranks
    assert attrs.get("rank_split", "series") == "series"  # 5 series: at least one a rank
    if ranks > 1:
        assert f"ranks: {ranks}, split by series" in done.stdout
    if case == "recurrence":
        with h5py.File(path, "r") as f:
            assert f["validation"].attrs["max_rel_err"] < 1e-10


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_lorenz05_members_split_over_ranks_give_the_single_process_states(tmp_path, single, ranks):
    config, settings = LORENZ
    path = tmp_path / "ranks.h5"
    done = portasolve(run_args(config, path, *settings), ranks)
    check_one_writer(done, tmp_path)
    got, attrs = datasets(path)
    want, _ = single["lorenz"]
    assert got["output/state"].shape == (5, 5, 40)  # snapshots x members x N
    for key in ("input/start", "output/state", "output/time"):
        assert got[key].dtype == want[key].dtype
        assert np.array_equal(got[key], want[key]), key
    for key in ("output/mean", "output/spread", "output/spread_rms"):
        assert got[key].dtype == want[key].dtype
        assert np.array_equal(got[key], want[key]), key
    # The statistics really are the members' mean and sample standard deviation.
    scale = np.abs(got["output/state"]).max()
    np.testing.assert_allclose(got["output/mean"], got["output/state"].mean(axis=1), rtol=0, atol=1e-14 * scale)
    np.testing.assert_allclose(got["output/spread"], got["output/state"].std(axis=1, ddof=1), rtol=1e-12)
    assert attrs.get("ranks", 1) == ranks
    if ranks == 3:  # a rerun gives the same bits
        again = tmp_path / "again.h5"
        assert portasolve(run_args(config, again, *settings), ranks).returncode == 0
        repeated, _ = datasets(again)
        for key in ("output/mean", "output/spread", "output/spread_rms"):
            assert np.array_equal(repeated[key], got[key]), key


def test_lorenz05_in_float_over_four_ranks_gives_the_single_process_states(tmp_path):
    config, settings = LORENZ
    one, four = tmp_path / "one.h5", tmp_path / "four.h5"
    assert portasolve(run_args(config, one, *settings, "precision=float")).returncode == 0
    done = portasolve(run_args(config, four, *settings, "precision=float"), 4)
    check_one_writer(done, tmp_path)
    got, want = datasets(four)[0], datasets(one)[0]
    assert got["output/state"].dtype == np.float32
    assert np.array_equal(got["output/state"], want["output/state"])
    for key in ("output/mean", "output/spread", "output/spread_rms"):  # statistics in double
        assert np.array_equal(got[key], want[key]), key


# 37 members: blocks of 19+18, 13+12+12 and 10+9+9+9 cut the summation tree's
# nodes of 2..32 members at uneven places (5 members only reach 4).
@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_lorenz05_statistics_of_37_members_over_ranks_are_the_single_process_bits(tmp_path, ranks):
    config, settings = LORENZ
    settings = [s for s in settings if not s.startswith("ensemble.members=")] + [
        "ensemble.members=37", "lorenz05.model_size=12", "output.state=false"]
    one, many = tmp_path / "one.h5", tmp_path / "many.h5"
    assert portasolve(run_args(config, one, *settings)).returncode == 0
    done = portasolve(run_args(config, many, *settings), ranks)
    check_one_writer(done, tmp_path)
    got, want = datasets(many)[0], datasets(one)[0]
    assert got["output/mean"].shape == (5, 12)
    for key in ("output/mean", "output/spread", "output/spread_rms"):
        assert np.array_equal(got[key], want[key]), key


def test_lombscargle_hdf5_batch_without_power_over_ranks(tmp_path):
    # Three series of an HDF5 file (shared times), peaks and summary only: 3
    # ranks of one series each give the single-process numbers; so do 4 ranks
    # (fewer series than ranks: the automatic grid's NUFFT keeps the series
    # split, a rank idle).
    rng = np.random.default_rng(7)
    t = np.sort(rng.uniform(0, 20, 80))
    y = np.sin(2 * np.pi * np.array([[0.3], [0.7], [1.1]]) * t) + 0.3 * rng.standard_normal((3, 80))
    with h5py.File(tmp_path / "series.h5", "w") as f:
        f["t"], f["y"] = t, y
    settings = ["input.source=hdf5", f"input.file={tmp_path / 'series.h5'}", "output.power=none",
                "lombscargle.normalization=standard"]
    out = tmp_path / "out"
    out.mkdir()
    assert portasolve(run_args("lombscargle_lightcurve.yaml", out / "one.h5", *settings)).returncode == 0
    done = portasolve(run_args("lombscargle_lightcurve.yaml", out / "three.h5", *settings), 3)
    check_one_writer(done, out)
    got, attrs = datasets(out / "three.h5")
    want, _ = datasets(out / "one.h5")
    assert "output/power" not in got and attrs["ranks"] == 3
    np.testing.assert_allclose(got["output/summary/frequency"], [0.3, 0.7, 1.1], rtol=0.02)
    assert sorted(got) == sorted(want)
    for key in [k for k in want if k.startswith(("output/", "input/"))]:
        assert np.array_equal(got[key], want[key], equal_nan=True), key
    assert np.all(np.isfinite(got["output/summary/fap"])), got["output/summary/fap"]
    done = portasolve(run_args("lombscargle_lightcurve.yaml", out / "four.h5", *settings), 4)
    check_one_writer(done, out)
    four, four_attrs = datasets(out / "four.h5")
    assert four_attrs["ranks"] == 4 and four_attrs["rank_split"] == "series" and four_attrs["algorithm"] == "nufft"
    assert "the NUFFT is not split by frequency" in done.stdout
    for key in [k for k in want if k.startswith(("output/", "input/"))]:
        assert np.array_equal(four[key], want[key], equal_nan=True), key


def test_a_bad_series_is_named_by_its_batch_index_once_and_no_file_is_left(tmp_path):
    # The last of five series holds a NaN: the rank that owns it would call it
    # its series 0; ranks agree on the first bad series of the catalogue and
    # every rank names it series 4.
    rng = np.random.default_rng(3)
    y = rng.standard_normal((5, 40))
    y[4, 17] = np.nan
    with h5py.File(tmp_path / "series.h5", "w") as f:
        f["t"], f["y"] = np.linspace(0, 10, 40), y
    out = tmp_path / "out"
    out.mkdir()
    settings = ["input.source=hdf5", f"input.file={tmp_path / 'series.h5'}"]
    single = portasolve(run_args("lombscargle_lightcurve.yaml", out / "one.h5", *settings))
    assert single.returncode == 2 and "series 4: y[17]" in single.stderr, single.stderr
    done = portasolve(run_args("lombscargle_lightcurve.yaml", out / "three.h5", *settings), 3)
    assert done.returncode != 0
    # Rank 0 speaks for all; another rank may repeat it while MPI_Abort
    # spreads on a loaded machine, but none names the series otherwise.
    assert done.stderr.count("rank 0: error: series 4: y[17]") == 1, done.stderr
    assert "series 0" not in done.stderr and "series 1" not in done.stderr
    assert not list(out.iterdir())


@pytest.mark.parametrize("config, settings, ranks, message, keys", [
    ("lorenz96.yaml", ["ensemble.members=3"], 4, "3 members cannot be split over 4 ranks", ["ensemble.members"]),
], ids=["more_ranks_than_members"])
def test_too_little_to_split_over_the_ranks_is_a_config_error_said_once(tmp_path, config, settings, ranks, message,
                                                                       keys):
    done = portasolve(run_args(config, tmp_path / "out.h5", *settings), ranks)
    assert_config_error_said_once(done, message, *keys, folder=tmp_path)


@pytest.mark.parametrize("ranks, fap_method", [(2, "baluev"), (3, "bootstrap")])
def test_a_ragged_catalogue_streamed_in_chunks_over_ranks_gives_the_single_process_bits(tmp_path, ranks, fap_method):
    # Nine series of uneven lengths in chunks of 4: at 3 ranks blocks of
    # 2+1+1, then a last chunk of one series that two ranks sit out.
    rng = np.random.default_rng(11)
    lengths = [35, 80, 12, 60, 44, 90, 20, 51, 66]
    t = np.concatenate([np.sort(rng.uniform(0, 30, n)) for n in lengths])
    y = np.sin(2 * np.pi * 0.4 * t) + 0.5 * rng.standard_normal(t.size)
    with h5py.File(tmp_path / "catalogue.h5", "w") as f:
        f["t"], f["y"], f["n"] = t, y, lengths
        f["id"] = np.arange(9, dtype=np.int64) + 500
    settings = ["input.source=hdf5", f"input.file={tmp_path / 'catalogue.h5'}", "input.count=n", "input.ids=id",
                "frequency.grid=uniform", "frequency.minimum=0.05", "frequency.maximum=1.5",
                "frequency.count=700", "pipeline.chunk_series=4", f"peaks.fap_method={fap_method}",
                "peaks.bootstrap.resamples=40"]
    out = tmp_path / "out"
    out.mkdir()
    assert portasolve(run_args("lombscargle_lightcurve.yaml", out / "one.h5", *settings)).returncode == 0
    done = portasolve(run_args("lombscargle_lightcurve.yaml", out / "ranks.h5", *settings), ranks)
    check_one_writer(done, out)
    got, attrs = datasets(out / "ranks.h5")
    want, want_attrs = datasets(out / "one.h5")
    assert attrs["chunks"] == want_attrs["chunks"] == 3 and attrs["ranks"] == ranks
    assert np.array_equal(got["output/series_id"], np.arange(9) + 500)
    assert np.array_equal(got["input/count"], lengths)
    assert sorted(got) == sorted(want)
    for key in [k for k in want if k.startswith(("output/", "input/"))]:
        assert np.array_equal(got[key], want[key], equal_nan=True), key
    assert np.all(np.isfinite(got["output/summary/fap"])), got["output/summary/fap"]
