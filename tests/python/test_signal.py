import numpy as np
import pytest
import scipy.signal

from portasolve.signal import lombscargle


SCIPY_CENTRED_NORMALIZE = tuple(int(part) for part in scipy.__version__.split(".")[:2]) >= (1, 15)


def scipy_110(x, y, freqs, precenter=False, normalize=False):
    """scipy.signal.lombscargle as SciPy 1.10 defines it (the package's reference). SciPy >= 1.15 divides
    precenter + normalize by the sum of squares of the centred y, 1.10 by that of y itself: the ratio of the two
    sums turns one into the other."""
    power = scipy.signal.lombscargle(x, y, freqs, precenter=precenter, normalize=normalize)
    if precenter and normalize and SCIPY_CENTRED_NORMALIZE:
        power = power * (np.sum((y - y.mean()) ** 2) / np.sum(y ** 2))
    return power


def uneven_series(rng, n=150, m=400):
    x = np.sort(rng.uniform(0.0, 50.0, n))
    y = 1.5 * np.sin(1.3 * x + 0.4) + 0.3 * rng.standard_normal(n) + 2.0
    freqs = np.sort(rng.uniform(0.01, 10.0, m))
    return x, y, freqs


@pytest.mark.parametrize("precenter", [False, True])
@pytest.mark.parametrize("normalize", [False, True])
def test_matches_scipy_in_double(rng, precenter, normalize):
    x, y, freqs = uneven_series(rng)
    expected = scipy_110(x, y, freqs, precenter=precenter, normalize=normalize)
    power = lombscargle(x, y, freqs, precenter=precenter, normalize=normalize)
    assert power.dtype == np.float64 and power.shape == freqs.shape
    np.testing.assert_allclose(power, expected, rtol=1e-10, atol=1e-10 * expected.max())


def test_positional_arguments_and_uniform_grid(rng):
    x, y, _ = uneven_series(rng, n=64)
    freqs = np.linspace(0.05, 20.0, 1000)
    expected = scipy_110(x, y, freqs, True, True)
    np.testing.assert_allclose(lombscargle(x, y, freqs, True, True), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("algorithm, rtol", [("auto", 1e-10), ("direct", 1e-10), ("tiled", 1e-10),
                                             ("recurrence", 1e-10), ("nufft", 1e-9)])
@pytest.mark.parametrize("precenter, normalize", [(False, False), (True, True)])
def test_algorithms_on_an_even_grid(rng, algorithm, rtol, precenter, normalize):
    x, y, _ = uneven_series(rng, n=300)
    freqs = np.linspace(0.02, 15.0, 3000)
    expected = scipy_110(x, y, freqs, precenter=precenter, normalize=normalize)
    power = lombscargle(x, y, freqs, precenter=precenter, normalize=normalize, algorithm=algorithm)
    np.testing.assert_allclose(power, expected, rtol=rtol, atol=rtol * expected.max())


def test_even_grid_algorithms_need_an_even_grid(rng):
    x, y, freqs = uneven_series(rng, n=20, m=20)
    with pytest.raises(ValueError, match="evenly spaced"):
        lombscargle(x, y, freqs, algorithm="recurrence")
    with pytest.raises(ValueError, match="algorithm 'fast' is not one of"):
        lombscargle(x, y, freqs, algorithm="fast")


@pytest.mark.parametrize("precenter", [False, True])
def test_float32_stays_float32(rng, precenter):
    x, y, freqs = uneven_series(rng, n=100, m=200)
    expected = scipy.signal.lombscargle(x, y, freqs, precenter=precenter)
    power = lombscargle(x.astype(np.float32), y.astype(np.float32), freqs.astype(np.float32), precenter=precenter)
    assert power.dtype == np.float32
    # float32 inputs are rounded, and the sums run in float32.
    reference = scipy.signal.lombscargle(*(a.astype(np.float32).astype(np.float64) for a in (x, y, freqs)),
                                         precenter=precenter)
    np.testing.assert_allclose(power, reference, rtol=1e-3, atol=1e-4 * expected.max())


def test_float32_even_grid(rng):
    x, y, _ = uneven_series(rng, n=100)
    freqs = np.linspace(0.1, 10.0, 500, dtype=np.float32)
    reference = scipy.signal.lombscargle(x.astype(np.float32).astype(np.float64),
                                         y.astype(np.float32).astype(np.float64), freqs.astype(np.float64))
    power = lombscargle(x.astype(np.float32), y.astype(np.float32), freqs)
    assert power.dtype == np.float32
    np.testing.assert_allclose(power, reference, rtol=1e-3, atol=1e-4 * reference.max())


def test_mixed_precision_computes_in_double(rng):
    x, y, freqs = uneven_series(rng, n=50, m=30)
    power = lombscargle(x.astype(np.float32), y, freqs)
    assert power.dtype == np.float64


def test_lists_and_integers(rng):
    x = [0, 1, 3, 4, 7, 9, 12]
    y = [1, 0, 2, 1, 0, 2, 1]
    freqs = [0.5, 1.0, 1.5]
    np.testing.assert_allclose(lombscargle(x, y, freqs), scipy.signal.lombscargle(np.array(x, float),
                                                                                  np.array(y, float), freqs),
                               rtol=1e-12)


def test_strided_input(rng):
    x, y, freqs = uneven_series(rng, n=200, m=50)
    expected = scipy.signal.lombscargle(x[::2], y[::2], freqs[::-1])
    np.testing.assert_allclose(lombscargle(x[::2], y[::2], freqs[::-1]), expected, rtol=1e-10,
                               atol=1e-10 * expected.max())


@pytest.mark.parametrize("x, y, freqs, message", [
    ([0.0, 1.0, 2.0], [1.0, 2.0], [1.0], "same length"),
    ([], [], [1.0], "empty"),
    ([0.0, 1.0, 2.0], [1.0, 2.0, 3.0], [], "freqs is empty"),
    ([0.0, 1.0, 2.0], [1.0, np.nan, 3.0], [1.0], "finite"),
    ([0.0, np.inf, 2.0], [1.0, 2.0, 3.0], [1.0], "finite"),
    ([0.0, 1.0, 2.0], [1.0, 2.0, 3.0], [1.0, np.nan], "positive and finite|finite"),
    ([0.0, 1.0, 2.0], [1.0, 2.0, 3.0], [0.0, 1.0], "positive"),
    ([[0.0, 1.0]], [[1.0, 2.0]], [1.0], "1-D"),
])
def test_bad_input_raises_value_error(x, y, freqs, message):
    with pytest.raises(ValueError, match=message):
        lombscargle(x, y, freqs)


def test_complex_input_raises_type_error():
    with pytest.raises(TypeError, match="y"):
        lombscargle([0.0, 1.0, 2.0], [1j, 2.0, 3.0], [1.0])


def test_many_small_calls_keep_their_inputs(rng):
    x, y, freqs = uneven_series(rng, n=100, m=100)
    refs = [__import__("sys").getrefcount(a) for a in (x, y, freqs)]
    first = lombscargle(x, y, freqs)
    for _ in range(500):
        power = lombscargle(x, y, freqs)
    np.testing.assert_array_equal(power, first)
    assert [__import__("sys").getrefcount(a) for a in (x, y, freqs)] == refs


def scipy115_lombscargle(x, y, freqs, precenter=False, normalize=False, weights=None, floating_mean=False):
    """scipy.signal.lombscargle of SciPy 1.15 (weights, floating_mean) in float64, written out from its
    formulas: Debian's SciPy is 1.10, which has neither option."""
    x, y, freqs = (np.asarray(a, dtype=np.float64) for a in (x, y, freqs))
    w = np.ones_like(y) if weights is None else np.asarray(weights, dtype=np.float64)
    w = w / w.sum()
    if precenter:
        y = y - y.mean()
    phase = np.outer(x, freqs)
    c, s = np.cos(phase), np.sin(phase)
    Y = w @ y
    CC = w @ (c * c)
    SS = 1.0 - CC
    CS = w @ (c * s)
    if floating_mean:
        C, S = w @ c, w @ s
        CC, SS, CS = CC - C * C, SS - S * S, CS - C * S
    tau = 0.5 * np.arctan2(2.0 * CS, CC - SS)
    c, s = np.cos(phase - tau), np.sin(phase - tau)
    YC, YS = (w * y) @ c, (w * y) @ s
    CC = w @ (c * c)
    SS = 1.0 - CC
    if floating_mean:
        C, S = w @ c, w @ s
        YC, YS, CC, SS = YC - Y * C, YS - Y * S, CC - C * C, SS - S * S
    eps = np.finfo(np.float64).epsneg
    CC, SS = np.maximum(CC, eps), np.maximum(SS, eps)
    pgram = 2.0 * (YC * YC / CC + YS * YS / SS)
    if normalize:
        YY = (w * y) @ y - (Y * Y if floating_mean else 0.0)
        return pgram * 0.5 / YY
    return pgram * x.size / 4.0


def test_scipy115_reference_is_scipy_without_the_new_options(rng):
    # The test's reference, checked where SciPy 1.10 can check it.
    x, y, freqs = uneven_series(rng, n=80, m=60)
    for normalize in (False, True):
        np.testing.assert_allclose(scipy115_lombscargle(x, y, freqs, normalize=normalize),
                                   scipy.signal.lombscargle(x, y, freqs, normalize=normalize), rtol=1e-10)


@pytest.mark.parametrize("floating_mean", [False, True])
@pytest.mark.parametrize("with_weights", [False, True])
@pytest.mark.parametrize("precenter, normalize", [(False, False), (False, True), (True, False), (True, True),
                                                  (False, "power"), (True, "normalize")])
def test_weights_and_floating_mean_match_scipy115(rng, floating_mean, with_weights, precenter, normalize):
    x, y, freqs = uneven_series(rng, n=200, m=300)
    weights = rng.uniform(0.0, 2.0, x.size) if with_weights else None
    if with_weights:
        weights[::9] = 0.0
    norm = normalize in (True, "normalize")
    if not with_weights and not floating_mean and precenter and norm:
        pytest.skip("SciPy 1.10's form, which divides by the original y's sum of squares "
                    "(test_matches_scipy_in_double)")
    expected = scipy115_lombscargle(x, y, freqs, precenter, norm, weights, floating_mean)
    power = lombscargle(x, y, freqs, precenter, normalize, weights=weights, floating_mean=floating_mean)
    assert power.dtype == np.float64
    np.testing.assert_allclose(power, expected, rtol=1e-9, atol=1e-10 * expected.max())


@pytest.mark.parametrize("algorithm, rtol", [("direct", 1e-9), ("tiled", 1e-9), ("recurrence", 1e-9),
                                             ("nufft", 1e-8)])
@pytest.mark.parametrize("floating_mean", [False, True])
def test_weights_on_every_algorithm(rng, algorithm, rtol, floating_mean):
    x, y, _ = uneven_series(rng, n=300)
    freqs = np.linspace(0.2, 15.0, 2000)
    weights = 1.0 / rng.uniform(0.2, 0.6, x.size) ** 2
    expected = scipy115_lombscargle(x, y, freqs, False, True, weights, floating_mean)
    power = lombscargle(x, y, freqs, normalize=True, weights=weights, floating_mean=floating_mean,
                        algorithm=algorithm)
    np.testing.assert_allclose(power, expected, rtol=rtol, atol=rtol * expected.max())


def test_float32_weights(rng):
    x, y, _ = uneven_series(rng, n=150)
    freqs = np.linspace(0.5, 10.0, 400)
    weights = rng.uniform(0.5, 1.5, x.size)
    x32, y32, f32, w32 = (a.astype(np.float32) for a in (x, y, freqs, weights))
    expected = scipy115_lombscargle(*(a.astype(np.float64) for a in (x32, y32, f32)), False, False,
                                    w32.astype(np.float64), True)
    power = lombscargle(x32, y32, f32, weights=w32, floating_mean=True)
    assert power.dtype == np.float32
    np.testing.assert_allclose(power, expected, rtol=1e-3, atol=1e-4 * expected.max())
    # float64 weights with float32 data compute in double.
    assert lombscargle(x32, y32, f32, weights=weights).dtype == np.float64


def test_floating_mean_fits_the_offset(rng):
    # With the floating mean, a constant added to y changes nothing; without it, the offset leaks in.
    x, y, freqs = uneven_series(rng, n=120, m=200)
    base = lombscargle(x, y, freqs, floating_mean=True)
    np.testing.assert_allclose(lombscargle(x, y + 25.0, freqs, floating_mean=True), base, rtol=1e-8,
                               atol=1e-10 * base.max())
    assert not np.allclose(lombscargle(x, y + 25.0, freqs), lombscargle(x, y, freqs), rtol=1e-3)


@pytest.mark.parametrize("weights, message", [
    ([1.0, 2.0], "weights must have the length of x and y"),
    ([1.0, -1.0, 2.0], "weights must be finite and >= 0 with a positive sum"),
    ([0.0, 0.0, 0.0], "positive sum"),
    ([1.0, np.nan, 2.0], "finite"),
    ([1.0, np.inf, 2.0], "finite"),
    ([[1.0, 1.0, 1.0]], "weights must be 1-D"),
])
def test_bad_weights_raise_value_error(weights, message):
    with pytest.raises(ValueError, match=message):
        lombscargle([0.0, 1.0, 2.0], [1.0, 2.0, 0.5], [1.0], weights=weights)


def test_bad_normalize_raises_value_error():
    with pytest.raises(ValueError, match="not supported"):
        lombscargle([0.0, 1.0, 2.0], [1.0, 2.0, 0.5], [1.0], normalize="amplitude")
    with pytest.raises(ValueError, match="normalize must be"):
        lombscargle([0.0, 1.0, 2.0], [1.0, 2.0, 0.5], [1.0], normalize="psd")
    with pytest.raises(TypeError, match="weights"):
        lombscargle([0.0, 1.0, 2.0], [1.0, 2.0, 0.5], [1.0], weights=["a", "b", "c"])


def test_float32_linspace_counts_as_evenly_spaced(rng):
    # np.linspace in float32 is evenly spaced to float32's rounding: the recurrence and the NUFFT take it
    # (from its ends, in double), within float32's tolerance of SciPy at the rounded frequencies.
    x, y, _ = uneven_series(rng, n=200)
    freqs = np.linspace(0.1, 10.0, 3000, dtype=np.float32)
    reference = scipy.signal.lombscargle(x.astype(np.float32).astype(np.float64),
                                         y.astype(np.float32).astype(np.float64), freqs.astype(np.float64))
    for algorithm in ("recurrence", "nufft"):
        power = lombscargle(x.astype(np.float32), y.astype(np.float32), freqs, algorithm=algorithm)
        assert power.dtype == np.float32
        np.testing.assert_allclose(power, reference, rtol=1e-3, atol=1e-4 * reference.max())
    with pytest.raises(ValueError, match="evenly spaced"):
        lombscargle(x, y, np.sort(rng.uniform(0.1, 10.0, 100)), algorithm="nufft")


@pytest.mark.parametrize("algorithm", ["auto", "direct", "recurrence", "nufft"])
def test_repeated_calls_on_one_grid_equal_fresh_ones(rng, algorithm):
    # A call on the grid and options of the call before reuses that call's setup (its grid and power array,
    # new series uploaded): the same bits as a fresh call, made after a call on another grid. Weights come and
    # go between the calls, and the series' lengths change or stay (the NUFFT then keeps its plan and sorts the new
    # samples).
    freqs, other = np.linspace(0.05, 12.0, 2500), np.linspace(0.05, 11.0, 2500)
    calls = []
    for n, weighted in ((90, False), (90, True), (140, True), (140, False), (60, False), (75, True)):
        x, y, _ = uneven_series(rng, n=n)
        calls.append((x, y, rng.uniform(0.5, 2.0, n) if weighted else None))
    kept = [lombscargle(x, y, freqs, algorithm=algorithm, weights=w) for x, y, w in calls]
    for (x, y, w), power in zip(calls, kept):
        lombscargle(x, y, other, algorithm=algorithm, weights=w)
        np.testing.assert_array_equal(power, lombscargle(x, y, freqs, algorithm=algorithm, weights=w))
    x, y, _ = calls[0]
    tolerance = 1e-9 if algorithm == "nufft" else 1e-10
    np.testing.assert_allclose(kept[0], scipy.signal.lombscargle(x, y, freqs), rtol=tolerance,
                               atol=tolerance * kept[0].max())
