"""lombscargle under mpirun with fewer series than ranks (one long series, or
two series on three ranks): each rank computes a range of the frequency grid
(uneven ranges; ranks without frequencies when there are fewer frequencies
than ranks), the ranges come back together into whole rows, and the file is
the single-process file bit for bit: power, peaks, FAPs (Baluev and
bootstrap), summary, validation; float and double; the direct, tiled,
multi-term and recurrence algorithms. The NUFFT keeps the series split (its
bits depend on the whole grid): the same bits with ranks idle.

Run by ctest (distributed.cli_frequency) with PORTASOLVE_BIN, MPIEXEC and
PORTASOLVE_SOURCE set."""
import numpy as np
import pytest

from mpi_cli import file_contents as contents, portasolve, run_args


# One series of 120 samples (generalized form, dy) on a uniform grid of 1001
# frequencies: 501+500, 334+334+333, 251+250+250+250 over 2, 3, 4 ranks, no
# range starting at a multiple of the recurrence's 64.
BASE = ("lombscargle_lightcurve.yaml",
        ["input.series=1", "input.samples=120", "frequency.grid=uniform", "frequency.minimum=0.02",
         "frequency.maximum=2.5", "frequency.count=1001", "peaks.count=4", "validation.reference=float64"])

CASES = {
    "direct": ["lombscargle.algorithm=direct"],
    "tiled": ["lombscargle.algorithm=tiled"],
    "recurrence": ["lombscargle.algorithm=recurrence"],
    "multiterm": ["lombscargle.nterms=2", "lombscargle.algorithm=direct"],  # no FAP defined (NaN)
    "bootstrap": ["lombscargle.algorithm=recurrence", "peaks.fap_method=bootstrap", "peaks.bootstrap.resamples=24"],
    # the classic form (SciPy 1.15's floating mean), timed against the direct baseline
    "classic": ["lombscargle.form=classic", "input.uncertainties=false", "lombscargle.floating_mean=true", "lombscargle.algorithm=recurrence",
                "benchmark.baseline=direct", "run.warmup=0", "run.repeats=1"],
    "nufft": ["lombscargle.algorithm=nufft"],
}
ALGORITHM = {"multiterm": "direct", "bootstrap": "recurrence", "classic": "recurrence"}


def settings_of(case, precision, *more):
    config, base = BASE
    return config, base + CASES[case] + [f"precision={precision}", *more]


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    """The single-process files, made once a (case, precision, extra settings)."""
    folder = tmp_path_factory.mktemp("single")
    made = {}

    def get(case, precision, *more):
        key = (case, precision, more)
        if key not in made:
            config, settings = settings_of(case, precision, *more)
            path = folder / f"{len(made)}.h5"
            done = portasolve(run_args(config, path, *settings))
            assert done.returncode == 0, done.stderr
            made[key] = contents(path)
        return made[key]

    return get


def check_same_file(got, want, ranks, split):
    (got_sets, got_attrs, got_validation), (want_sets, want_attrs, want_validation) = got, want
    assert sorted(got_sets) == sorted(want_sets)
    compared = [k for k in want_sets if k.startswith(("output/", "input/"))]
    for key in compared:
        assert got_sets[key].dtype == want_sets[key].dtype, key
        assert np.array_equal(got_sets[key], want_sets[key], equal_nan=True), key
    assert got_attrs["algorithm"] == want_attrs["algorithm"]
    for key in ("max_abs_err", "max_rel_err"):
        if key in want_validation:
            assert got_validation[key] == want_validation[key], key
    if ranks > 1:
        assert got_attrs["ranks"] == ranks and got_attrs["rank_split"] == split
    else:
        assert "rank_split" not in got_attrs
    return compared


def run_over_ranks(tmp_path, ranks, case, precision, *more):
    config, settings = settings_of(case, precision, *more)
    path = tmp_path / "ranks.h5"
    done = portasolve(run_args(config, path, *settings), ranks)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("wrote ") == 1  # rank 0 alone prints
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporaries left
    return done, contents(path)


@pytest.mark.parametrize("precision", ["double", "float"])
@pytest.mark.parametrize("case, ranks", [(case, ranks) for case in ("direct", "recurrence") for ranks in (1, 2, 3, 4)]
                         + [(case, 3) for case in ("tiled", "multiterm", "bootstrap", "classic")])
def test_one_series_split_by_frequency_gives_the_single_process_bits(tmp_path, single, case, ranks, precision):
    done, got = run_over_ranks(tmp_path, ranks, case, precision)
    want = single(case, precision)
    compared = check_same_file(got, want, ranks, "frequency")
    assert {"output/power", "output/peak_power", "output/peak_fap", "output/summary/power"} <= set(compared)
    assert got[1]["algorithm"] == ALGORITHM.get(case, case)
    power = got[0]["output/power"]
    assert power.shape == (1001,)  # one series: a row
    if precision == "float":  # float's power, written as double
        assert np.array_equal(power.astype(np.float32).astype(np.float64), power)
    if case not in ("multiterm", "classic"):
        assert np.isfinite(got[0]["output/summary/fap"]).all()
    if ranks > 1:
        assert f"ranks: {ranks}, split by frequency: {1001 // ranks} to {-(-1001 // ranks)} of the 1001" in done.stdout


@pytest.mark.parametrize("precision", ["double", "float"])
@pytest.mark.parametrize("case", ["direct", "recurrence", "bootstrap"])
def test_two_series_on_three_ranks_split_by_frequency(tmp_path, single, case, precision):
    more = ("input.series=2", "input.shared_times=false")
    _, got = run_over_ranks(tmp_path, 3, case, precision, *more)
    check_same_file(got, single(case, precision, *more), 3, "frequency")
    assert got[0]["output/power"].shape == (2, 1001)
    assert got[0]["output/summary/power"].shape == (2,)


@pytest.mark.parametrize("count, ranks", [(3, 4), (1, 2), (5, 4)])
@pytest.mark.parametrize("case", ["direct", "recurrence"])
def test_fewer_frequencies_than_ranks_leaves_ranks_without_frequencies(tmp_path, single, case, count, ranks):
    # 3 frequencies on 4 ranks: 1+1+1+0; 1 on 2: 1+0; 5 on 4: 2+1+1+1.
    more = (f"frequency.count={count}", "peaks.count=2")
    _, got = run_over_ranks(tmp_path, ranks, case, "double", *more)
    check_same_file(got, single(case, "double", *more), ranks, "frequency")
    assert got[0]["output/power"].shape == (count,)


@pytest.mark.parametrize("precision", ["double", "float"])
def test_the_nufft_keeps_the_series_split_with_ranks_idle(tmp_path, single, precision):
    done, got = run_over_ranks(tmp_path, 3, "nufft", precision)
    check_same_file(got, single("nufft", precision), 3, "series")
    assert "split by series" in done.stdout and "the NUFFT is not split by frequency" in done.stdout


@pytest.mark.parametrize("ranks", [2, 4])
def test_peaks_and_summary_without_the_power_array_or_the_input_copy(tmp_path, single, ranks):
    # The ranges are gathered for the peaks even where no power is written.
    more = ("output.power=none", "output.input=none", "validation.reference=none")
    _, got = run_over_ranks(tmp_path, ranks, "recurrence", "float", *more)
    check_same_file(got, single("recurrence", "float", *more), ranks, "frequency")
    assert "output/power" not in got[0] and "output/peak_power" in got[0]
