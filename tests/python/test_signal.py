import numpy as np
import pytest
import scipy.signal

from portasolve.signal import lombscargle


def uneven_series(rng, n=150, m=400):
    x = np.sort(rng.uniform(0.0, 50.0, n))
    y = 1.5 * np.sin(1.3 * x + 0.4) + 0.3 * rng.standard_normal(n) + 2.0
    freqs = np.sort(rng.uniform(0.01, 10.0, m))
    return x, y, freqs


@pytest.mark.parametrize("precenter", [False, True])
@pytest.mark.parametrize("normalize", [False, True])
def test_matches_scipy_in_double(rng, precenter, normalize):
    x, y, freqs = uneven_series(rng)
    expected = scipy.signal.lombscargle(x, y, freqs, precenter=precenter, normalize=normalize)
    power = lombscargle(x, y, freqs, precenter=precenter, normalize=normalize)
    assert power.dtype == np.float64 and power.shape == freqs.shape
    np.testing.assert_allclose(power, expected, rtol=1e-10, atol=1e-10 * expected.max())


def test_positional_arguments_and_uniform_grid(rng):
    x, y, _ = uneven_series(rng, n=64)
    freqs = np.linspace(0.05, 20.0, 1000)
    expected = scipy.signal.lombscargle(x, y, freqs, True, True)
    np.testing.assert_allclose(lombscargle(x, y, freqs, True, True), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("algorithm, rtol", [("auto", 1e-10), ("direct", 1e-10), ("tiled", 1e-10),
                                             ("recurrence", 1e-10), ("nufft", 1e-9)])
@pytest.mark.parametrize("precenter, normalize", [(False, False), (True, True)])
def test_algorithms_on_an_even_grid(rng, algorithm, rtol, precenter, normalize):
    x, y, _ = uneven_series(rng, n=300)
    freqs = np.linspace(0.02, 15.0, 3000)
    expected = scipy.signal.lombscargle(x, y, freqs, precenter=precenter, normalize=normalize)
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
