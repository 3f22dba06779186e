"""portasolve.timeseries.LombScargle and portasolve.astropy against astropy 5.2 itself."""
import numpy as np
import pytest

astropy_ls = pytest.importorskip("astropy.timeseries.periodograms.lombscargle")
from astropy.timeseries import LombScargle as AstropyLombScargle  # noqa: E402

import portasolve  # noqa: E402
import portasolve.astropy  # noqa: E402
from portasolve.timeseries import LombScargle  # noqa: E402

NORMALIZATIONS = ["standard", "model", "log", "psd"]


def light_curve(rng, n=120, dtype=np.float64, offset=0.0):
    t = np.sort(rng.uniform(0.0, 30.0, n)) + offset
    y = 1.2 * np.sin(2 * np.pi * 0.37 * t + 0.3) + 0.5 * rng.standard_normal(n) + 3.0
    dy = rng.uniform(0.2, 0.8, n)
    return t.astype(dtype), y.astype(dtype), dy.astype(dtype)


def reference(t, y, dy, frequency, **kwargs):
    """astropy's exact O(N M) sums (cython), every argument in float64."""
    dy = None if dy is None else np.asarray(dy, dtype=np.float64)
    normalization = kwargs.pop("normalization", "standard")
    ls = AstropyLombScargle(np.asarray(t, np.float64), np.asarray(y, np.float64), dy, **kwargs)
    return ls.power(frequency, normalization=normalization, method="cython", assume_regular_frequency=False)


def assert_close(power, expected, rtol):
    np.testing.assert_allclose(power, expected, rtol=rtol, atol=rtol * np.abs(expected).max())


@pytest.mark.parametrize("normalization", NORMALIZATIONS)
@pytest.mark.parametrize("fit_mean, center_data", [(True, True), (True, False), (False, True), (False, False)])
@pytest.mark.parametrize("with_dy", [False, True])
def test_power_matches_astropy_in_double(rng, normalization, fit_mean, center_data, with_dy):
    t, y, dy = light_curve(rng)
    dy = dy if with_dy else None
    frequency = np.sort(rng.uniform(0.01, 2.0, 300))
    expected = reference(t, y, dy, frequency, fit_mean=fit_mean, center_data=center_data,
                         normalization=normalization)
    ls = LombScargle(t, y, dy, fit_mean=fit_mean, center_data=center_data, normalization=normalization)
    power = ls.power(frequency)
    assert power.dtype == np.float64 and power.shape == frequency.shape
    assert_close(power, expected, 1e-10)


# ids without the word "slow": a plugin of Debian's pytest-astropy skips tests keyed so
@pytest.mark.parametrize("method", ["auto", "direct", "tiled", "recurrence", "slow", "cython"],
                         ids=["auto", "direct", "tiled", "recurrence", "astropy_s", "astropy_c"])
def test_methods_on_an_even_grid(rng, method):
    t, y, dy = light_curve(rng, n=200, offset=5000.0)
    frequency = np.linspace(0.02, 3.0, 1500)
    expected = reference(t, y, dy, frequency)
    assert_close(LombScargle(t, y, dy).power(frequency, method=method), expected, 1e-10)


def test_nufft_method(rng):
    t, y, dy = light_curve(rng, n=200)
    frequency = np.linspace(0.02, 3.0, 1500)
    expected = reference(t, y, dy, frequency)
    for method in ("nufft", "fast"):
        assert_close(LombScargle(t, y, dy).power(frequency, method=method), expected, 1e-9)


@pytest.mark.parametrize("normalization", NORMALIZATIONS)
def test_float32(rng, normalization):
    t, y, dy = light_curve(rng, dtype=np.float32)
    frequency = np.linspace(0.02, 2.0, 400)
    expected = reference(t, y, dy, frequency, normalization=normalization)
    power = LombScargle(t, y, dy, normalization=normalization).power(frequency)
    assert power.dtype == np.float32
    assert_close(power, expected, 1e-4)
    power = LombScargle(t, y, np.float64(0.5), normalization=normalization).power(frequency)
    assert power.dtype == np.float32
    assert_close(power, reference(t, y, 0.5, frequency, normalization=normalization), 1e-4)


def test_scalar_dy_and_frequency_shape(rng):
    t, y, _ = light_curve(rng)
    frequency = np.linspace(0.05, 1.5, 60).reshape(3, 20)
    expected = AstropyLombScargle(t, y, 0.4).power(frequency, method="slow")
    power = LombScargle(t, y, 0.4).power(frequency)
    assert power.shape == (3, 20)
    assert_close(power, expected, 1e-10)


@pytest.mark.parametrize("shared_t", [True, False])
def test_batches_of_equal_length(rng, shared_t):
    series = [light_curve(rng, n=90) for _ in range(4)]
    t = series[0][0] if shared_t else np.stack([s[0] for s in series])
    y = np.stack([s[1] for s in series])
    dy = np.stack([s[2] for s in series])
    frequency = np.linspace(0.02, 2.0, 300)
    power = LombScargle(t, y, dy, normalization="model").power(frequency)
    assert power.shape == (4, 300)
    for s in range(4):
        ts = t if shared_t else t[s]
        assert_close(power[s], reference(ts, y[s], dy[s], frequency, normalization="model"), 1e-10)


@pytest.mark.parametrize("method", ["auto", "fast"])
def test_a_long_batch_runs_in_blocks_with_the_bits_of_single_calls(rng, method):
    # 40 series x 1000 samples x 20000 frequencies: 8e8 sample-frequency pairs, two blocks of 20 series (the
    # module splits calls past 2^28 pairs so Ctrl-C can act between blocks); each series' power must be the
    # same bits as its own call's, at the blocks' edges (19, 20) too.
    t = np.sort(rng.uniform(0, 100, (40, 1000)), axis=1)
    y = np.sin(0.9 * t) + rng.normal(0, 0.3, t.shape)
    dy = rng.uniform(0.2, 0.4, t.shape)
    frequency = np.linspace(0.01, 5.0, 20000)
    power = LombScargle(t, y, dy).power(frequency, method=method)
    assert power.shape == (40, 20000)
    for s in (0, 7, 19, 20, 33, 39):
        np.testing.assert_array_equal(power[s], LombScargle(t[s], y[s], dy[s]).power(frequency, method=method))


def test_a_bad_series_in_the_last_block_is_named_by_its_index_in_the_whole_batch(rng):
    # Two blocks of series (as above); the last series is too short for the model, which the library finds:
    # checked before any block runs, and named as series 39 of the batch, not of its block.
    t = [np.sort(rng.uniform(0, 100, 1000)) for _ in range(39)] + [np.array([1.0])]
    y = [rng.normal(0, 1, len(ts)) for ts in t]
    with pytest.raises(ValueError, match="series 39"):
        LombScargle(t, y).power(np.linspace(0.01, 5.0, 20000))


def test_ragged_batch(rng):
    series = [light_curve(rng, n=n) for n in (40, 150, 77)]
    frequency = np.sort(rng.uniform(0.01, 2.0, 250))
    ls = LombScargle([s[0] for s in series], [s[1] for s in series], [s[2] for s in series])
    power = ls.power(frequency)
    assert power.shape == (3, 250)
    for s, (t, y, dy) in enumerate(series):
        assert_close(power[s], reference(t, y, dy, frequency), 1e-10)
    # autopower gives each series its own astropy grid
    frequencies, powers = ls.autopower(maximum_frequency=1.0)
    for s, (t, y, dy) in enumerate(series):
        f_ref, p_ref = AstropyLombScargle(t, y, dy).autopower(maximum_frequency=1.0, method="cython")
        np.testing.assert_array_equal(frequencies[s], f_ref)
        assert_close(powers[s], p_ref, 1e-10)


@pytest.mark.parametrize("kwargs", [{}, {"samples_per_peak": 10, "nyquist_factor": 2},
                                    {"minimum_frequency": 0.1, "maximum_frequency": 1.7},
                                    {"samples_per_peak": 3.3, "maximum_frequency": 0.91}])
def test_autofrequency_equals_astropy(rng, kwargs):
    t, y, dy = light_curve(rng, n=73)
    ours, theirs = LombScargle(t, y, dy), AstropyLombScargle(t, y, dy)
    np.testing.assert_array_equal(ours.autofrequency(**kwargs), theirs.autofrequency(**kwargs))
    assert ours.autofrequency(return_freq_limits=True, **kwargs) == theirs.autofrequency(return_freq_limits=True,
                                                                                         **kwargs)
    frequency, power = ours.autopower(**kwargs)
    f_ref, p_ref = theirs.autopower(method="cython", **kwargs)
    np.testing.assert_array_equal(frequency, f_ref)
    assert_close(power, p_ref, 1e-10)


def test_autopower_shared_grid_for_a_batch(rng):
    t, y, dy = light_curve(rng)
    y2 = np.stack([y, y[::-1]])
    frequency, power = LombScargle(t, y2).autopower(nyquist_factor=2)
    f_ref, p_ref = AstropyLombScargle(t, y[::-1]).autopower(nyquist_factor=2, method="cython")
    np.testing.assert_array_equal(frequency, f_ref)
    assert power.shape == (2, frequency.size)
    assert_close(power[1], p_ref, 1e-10)


@pytest.mark.parametrize("normalization", NORMALIZATIONS)
@pytest.mark.parametrize("method", ["baluev", "davies", "naive"])
@pytest.mark.parametrize("with_dy", [False, True])
def test_false_alarm_probability_equals_astropy(rng, normalization, method, with_dy):
    t, y, dy = light_curve(rng, n=60)
    dy = dy if with_dy else None
    ours = LombScargle(t, y, dy, normalization=normalization)
    theirs = AstropyLombScargle(t, y, dy, normalization=normalization)
    _, power = theirs.autopower(method="cython")
    heights = np.array([power.max(), np.median(power), 0.5 * power.max()])
    for kwargs in ({}, {"maximum_frequency": 1.3, "samples_per_peak": 7}):
        expected = theirs.false_alarm_probability(heights, method=method, **kwargs)
        np.testing.assert_allclose(ours.false_alarm_probability(heights, method=method, **kwargs), expected,
                                   rtol=1e-10, atol=1e-300)
    assert np.isscalar(float(ours.false_alarm_probability(heights[0], method=method)))


@pytest.mark.parametrize("normalization", NORMALIZATIONS)
@pytest.mark.parametrize("method", ["baluev", "davies", "naive"])
def test_false_alarm_level(rng, normalization, method):
    t, y, dy = light_curve(rng, n=60)
    ours = LombScargle(t, y, dy, normalization=normalization)
    theirs = AstropyLombScargle(t, y, dy, normalization=normalization)
    p = np.array([0.5, 0.01, 1e-4])
    level = ours.false_alarm_level(p, method=method)
    np.testing.assert_allclose(ours.false_alarm_probability(level, method=method), p, rtol=1e-9)
    np.testing.assert_allclose(level, np.ravel(theirs.false_alarm_level(p, method=method)), rtol=1e-6)


def test_false_alarm_probability_of_a_batch(rng):
    series = [light_curve(rng, n=n) for n in (50, 80)]
    ls = LombScargle([s[0] for s in series], [s[1] for s in series], [s[2] for s in series])
    heights = np.array([[0.2, 0.3], [0.25, 0.1]])
    fap = ls.false_alarm_probability(heights)
    assert fap.shape == (2, 2)
    for s, (t, y, dy) in enumerate(series):
        np.testing.assert_allclose(fap[s], AstropyLombScargle(t, y, dy).false_alarm_probability(heights[s]),
                                   rtol=1e-10)
    ragged = ls.false_alarm_probability([heights[0], heights[1, :1]], method="naive")
    assert isinstance(ragged, list) and ragged[1].shape == (1,)
    np.testing.assert_allclose(ragged[1], AstropyLombScargle(*series[1]).false_alarm_probability(
        heights[1, :1], method="naive"), rtol=1e-10)
    level = ls.false_alarm_level(np.array([[0.1], [0.01]]))
    np.testing.assert_allclose(ls.false_alarm_probability(level), [[0.1], [0.01]], rtol=1e-9)


@pytest.mark.parametrize("signal, with_dy", [(0.0, False), (0.3, True)])
def test_bootstrap_within_sampling_error_of_astropy(rng, signal, with_dy):
    n = 60
    t = np.sort(rng.uniform(0.0, 30.0, n))
    y = signal * np.sin(2 * np.pi * 0.37 * t) + rng.standard_normal(n)
    dy = rng.uniform(0.5, 1.5, n) if with_dy else None
    theirs = AstropyLombScargle(t, y, dy)
    ours = LombScargle(t, y, dy)
    resamples = 500
    kwds = {"n_bootstraps": resamples, "random_seed": 7}
    # Heights where the probability is about 0.9, 0.5, 0.1, and the highest power.
    levels = ours.false_alarm_level([0.9, 0.5, 0.1], method="bootstrap", method_kwds={"n_bootstraps": resamples, "random_seed": 5})
    heights = np.append(levels, theirs.autopower()[1].max())
    expected = theirs.false_alarm_probability(heights, method="bootstrap",
                                              method_kwds={"n_bootstraps": resamples, "random_seed": 2})
    fap = ours.false_alarm_probability(heights, method="bootstrap", method_kwds=kwds)
    # Two independent estimates of p from 500 draws each: sd sqrt(2 p (1 - p) / 500) <= 0.032; 4 sd
    # plus 0.01 for astropy's resamples running its approximate fast method.
    sd = np.sqrt(2 * expected * (1 - expected) / resamples)
    assert np.all(np.abs(fap - expected) <= 4 * sd + 0.01), (fap, expected)
    np.testing.assert_array_equal(fap, ours.false_alarm_probability(heights, method="bootstrap", method_kwds=kwds))
    assert not np.array_equal(fap[:3], ours.false_alarm_probability(
        heights[:3], method="bootstrap", method_kwds={"n_bootstraps": resamples, "random_seed": 8}))
    level = ours.false_alarm_level([0.5, 0.1], method="bootstrap", method_kwds=kwds)
    np.testing.assert_allclose(ours.false_alarm_probability(level, method="bootstrap", method_kwds=kwds),
                               [0.5, 0.1], atol=1.0 / resamples)


def test_bootstrap_of_a_batch_is_series_by_series(rng):
    series = [light_curve(rng, n=n) for n in (40, 45)]
    batch = LombScargle([s[0] for s in series], [s[1] for s in series], [s[2] for s in series])
    kwds = {"n_bootstraps": 200, "random_seed": 3}
    heights = np.array([[0.2, 0.3], [0.25, 0.1]])
    fap = batch.false_alarm_probability(heights, method="bootstrap", method_kwds=kwds)
    assert fap.shape == (2, 2) and np.all((fap >= 0) & (fap <= 1))
    # Series 0's draws are those of a catalogue's first series, alone or in a batch.
    np.testing.assert_array_equal(fap[0], LombScargle(*series[0]).false_alarm_probability(
        heights[0], method="bootstrap", method_kwds=kwds))


@pytest.mark.parametrize("normalization", NORMALIZATIONS)
@pytest.mark.parametrize("with_dy", [False, True])
def test_register_round_trip(rng, normalization, with_dy):
    t, y, dy = light_curve(rng)
    dy = dy if with_dy else None
    frequency = np.linspace(0.02, 2.0, 500)
    portasolve.astropy.register()
    try:
        assert "portasolve" in AstropyLombScargle.available_methods
        for fit_mean, center_data in ((True, True), (False, False)):
            ls = AstropyLombScargle(t, y, dy, fit_mean=fit_mean, center_data=center_data,
                                    normalization=normalization)
            power = ls.power(frequency, method="portasolve")
            assert_close(power, ls.power(frequency, method="cython"), 1e-10)
        frequency, power = ls.autopower(method="portasolve", method_kwds={"algorithm": "nufft"})
        assert_close(power, ls.autopower(method="cython")[1], 1e-9)
    finally:
        portasolve.astropy.unregister()
    assert "portasolve" not in AstropyLombScargle.available_methods
    with pytest.raises(ValueError, match="invalid method"):
        AstropyLombScargle(t, y).power(frequency, method="portasolve")


def test_errors(rng):
    t, y, dy = light_curve(rng, n=30)
    f = np.linspace(0.1, 1.0, 10)
    with pytest.raises(ValueError, match="does not match"):
        LombScargle(t[:-1], y)
    with pytest.raises(ValueError, match="broadcast"):
        LombScargle(t, y, dy[:-1])
    with pytest.raises(ValueError, match="series 1: t has"):
        LombScargle([t, t], [y, y[:-2]])
    y_nan = y.copy()
    y_nan[4] = np.nan
    with pytest.raises(ValueError, match=r"y\[4\] is nan"):
        LombScargle(t, y_nan)
    with pytest.raises(ValueError, match="dy must be > 0"):
        LombScargle(t, y, np.zeros_like(y))
    with pytest.raises(ValueError, match="normalization"):
        LombScargle(t, y, normalization="power")
    ls = LombScargle(t, y, dy)
    with pytest.raises(ValueError, match="frequency must be > 0"):
        ls.power(np.array([0.0, 0.5]))
    with pytest.raises(ValueError, match="frequency"):
        ls.power(np.array([0.5, np.inf]))
    with pytest.raises(ValueError, match="evenly spaced"):
        ls.power(np.array([0.1, 0.2, 0.5]), method="recurrence")
    with pytest.raises(ValueError, match="method 'scipy'"):
        ls.power(f, method="scipy")
    with pytest.raises(ValueError, match="method 'bootstrap2'"):
        ls.false_alarm_probability(0.3, method="bootstrap2")
    with pytest.raises(TypeError, match="n_resamples"):
        ls.false_alarm_probability(0.3, method="bootstrap", method_kwds={"n_resamples": 10})
    with pytest.raises(TypeError, match="takes no method_kwds"):
        ls.false_alarm_probability(0.3, method="baluev", method_kwds={"n_bootstraps": 10})
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ls.false_alarm_probability(1.5)
    with pytest.raises(NotImplementedError):
        LombScargle(t, y, fit_mean=False, center_data=False).false_alarm_probability(0.3)


def test_units_are_a_type_error(rng):
    import astropy.units as u
    t, y, dy = light_curve(rng, n=30)
    with pytest.raises(TypeError, match="Quantity"):
        LombScargle(t * u.day, y)
    with pytest.raises(TypeError, match="Quantity"):
        LombScargle(t, y, dy * u.mag)
    with pytest.raises(TypeError, match="Quantity"):
        LombScargle(t, y).power(np.linspace(0.1, 1, 5) / u.day)


def test_registered_method_with_units_and_the_function_form(rng):
    """astropy strips units and Time before calling a method: register() serves Quantities too."""
    import astropy.units as u
    from astropy.timeseries.periodograms.lombscargle.implementations import lombscargle
    t, y, _ = light_curve(rng, n=80)
    frequency = np.linspace(0.05, 1.5, 200)
    portasolve.astropy.register()
    try:
        ls = AstropyLombScargle(t * u.day, y * u.mag, 0.3 * u.mag, normalization="psd")
        power = ls.power(frequency / u.day, method="portasolve")
        expected = ls.power(frequency / u.day, method="cython")
        assert power.unit == expected.unit
        assert_close(power.value, expected.value, 1e-10)
        direct = lombscargle(t, y, 0.3, frequency=frequency, method="portasolve", fit_mean=False)
        assert_close(direct, lombscargle(t, y, 0.3, frequency=frequency, method="cython", fit_mean=False), 1e-10)
        with pytest.raises(ValueError, match="nterms"):
            lombscargle(t, y, frequency=frequency, method="portasolve", nterms=2)
    finally:
        portasolve.astropy.unregister()


@pytest.mark.parametrize("normalization", NORMALIZATIONS)
@pytest.mark.parametrize("fit_mean, center_data", [(True, True), (False, False)])
def test_distribution_equals_astropy(rng, normalization, fit_mean, center_data):
    t, y, dy = light_curve(rng, n=40)
    z = np.array([0.01, 0.1, 0.3])
    ours = LombScargle(t, y, dy, fit_mean=fit_mean, center_data=center_data, normalization=normalization)
    theirs = AstropyLombScargle(t, y, dy, fit_mean=fit_mean, center_data=center_data, normalization=normalization)
    for cumulative in (False, True):
        np.testing.assert_allclose(ours.distribution(z, cumulative), theirs.distribution(z, cumulative),
                                   rtol=1e-12)


# Multi-term models against astropy's method="chi2" ---------------------------

def two_harmonic_curve(rng, n=90, span=25.0):
    t = np.sort(rng.uniform(0.0, span, n))
    y = (1.2 * np.sin(2 * np.pi * 0.37 * t + 0.3) + 0.8 * np.cos(4 * np.pi * 0.37 * t - 0.6)
         + 0.4 * rng.standard_normal(n) + 3.0)
    return t, y, rng.uniform(0.2, 0.8, n)


@pytest.mark.parametrize("nterms", [2, 3])
@pytest.mark.parametrize("normalization", NORMALIZATIONS)
@pytest.mark.parametrize("fit_mean, center_data", [(True, True), (True, False), (False, True), (False, False)])
@pytest.mark.parametrize("with_dy", [False, True])
def test_multiterm_matches_astropy_chi2(rng, nterms, normalization, fit_mean, center_data, with_dy):
    t, y, dy = two_harmonic_curve(rng)
    dy = dy if with_dy else None
    frequency = np.linspace(0.05, 2.0, 157)
    kwargs = dict(fit_mean=fit_mean, center_data=center_data, nterms=nterms, normalization=normalization)
    expected = AstropyLombScargle(t, y, dy, **kwargs).power(frequency, method="chi2")
    for method in ("auto", "chi2", "fastchi2", "direct", "nufft"):  # fastchi2 and nufft: the NUFFT's sums
        assert_close(LombScargle(t, y, dy, **kwargs).power(frequency, method=method), expected, 1e-9)
    # float32 NUFFT sums as well
    power = LombScargle(t, y.astype(np.float32), None if dy is None else dy.astype(np.float32), **kwargs).power(
        frequency, method="fastchi2")
    assert power.dtype == np.float32
    assert np.abs(power - expected).max() < 1e-4 * np.abs(expected).max()
    # float32 sums: near float's rounding relative to the peak
    power = LombScargle(t, y.astype(np.float32), None if dy is None else dy.astype(np.float32), **kwargs).power(
        frequency)
    assert power.dtype == np.float32
    assert np.abs(power - expected).max() < 1e-4 * np.abs(expected).max()


def test_chi2_with_one_term_runs_the_direct_sums(rng):
    t, y, dy = two_harmonic_curve(rng)
    frequency = np.linspace(0.05, 2.0, 157)
    expected = AstropyLombScargle(t, y, dy).power(frequency, method="chi2")
    assert_close(LombScargle(t, y, dy).power(frequency, method="chi2"), expected, 1e-10)


def test_multiterm_ragged_batch_matches_astropy_per_series(rng):
    series = [two_harmonic_curve(rng, n, span) for n, span in ((40, 10.0), (131, 30.0), (77, 20.0))]
    frequency = np.linspace(0.1, 3.0, 200)
    ls = LombScargle([s[0] for s in series], [s[1] for s in series], [s[2] for s in series], nterms=3)
    power = ls.power(frequency)
    for s, (t, y, dy) in enumerate(series):
        expected = AstropyLombScargle(t, y, dy, nterms=3).power(frequency, method="chi2")
        assert_close(power[s], expected, 1e-9)


def test_multiterm_distribution_is_refused_as_astropy_refuses_it(rng):
    t, y, dy = two_harmonic_curve(rng)
    for ls in (LombScargle(t, y, dy, nterms=2), AstropyLombScargle(t, y, dy, nterms=2)):
        with pytest.raises(NotImplementedError):
            ls.distribution(0.3)


def test_multiterm_refusals(rng):
    t, y, dy = two_harmonic_curve(rng)
    for nterms in (0, 7, 2.5, True):
        with pytest.raises(ValueError, match="nterms must be an integer from 1 to 6"):
            LombScargle(t, y, dy, nterms=nterms)
    ls = LombScargle(t, y, dy, nterms=2)
    for method in ("fast", "cython", "recurrence"):
        with pytest.raises(ValueError, match="computes nterms=1 only"):
            ls.power(np.linspace(0.1, 1.0, 10), method=method)
    with pytest.raises(ValueError, match="evenly spaced"):  # the NUFFT's sums need a uniform grid
        ls.power(np.array([0.1, 0.2, 0.4]), method="fastchi2")
    with pytest.raises(NotImplementedError, match="multiterm"):
        ls.false_alarm_probability(0.5)
    with pytest.raises(ValueError, match="needs at least 7 samples with fit_mean and nterms 3, got 6"):
        LombScargle(t[:6], y[:6], dy[:6], nterms=3)
