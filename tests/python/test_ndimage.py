import numpy as np
import pytest
import scipy.ndimage

from portasolve import ndimage

MODES = ["reflect", "mirror", "nearest", "wrap", "constant", "grid-mirror", "grid-wrap", "grid-constant"]
# float64: the solver's sums and SciPy's running sums round differently; float32:
# the solver sums in float32, SciPy in float64.
TOLERANCE = {np.float64: 1e-12, np.float32: 2e-6}


def image(rng, dtype, shape=(37, 53)):
    return rng.uniform(-1.0, 2.0, shape).astype(dtype)


def assert_close(actual, expected, dtype):
    assert actual.dtype == expected.dtype
    np.testing.assert_allclose(actual, expected, rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("size", [1, 3, 4, 5, 8, (3, 5), (2, 7)])
def test_uniform_filter_matches_scipy(rng, dtype, mode, size):
    img = image(rng, dtype)
    expected = scipy.ndimage.uniform_filter(img, size, mode=mode, cval=0.75)
    assert_close(ndimage.uniform_filter(img, size, mode=mode, cval=0.75), expected, dtype)


@pytest.mark.parametrize("size, origin", [(3, 1), (4, -2), (4, 1), (5, (-1, 2)), ((4, 6), (0, -3))])
def test_uniform_filter_origin(rng, size, origin):
    img = image(rng, np.float64)
    expected = scipy.ndimage.uniform_filter(img, size, mode="mirror", origin=origin)
    assert_close(ndimage.uniform_filter(img, size, mode="mirror", origin=origin), expected, np.float64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sigma, truncate", [(1.0, 4.0), (1.5, 4.0), (2.3, 2.0), (0.8, 3.0)])
def test_gaussian_filter_matches_scipy(rng, dtype, mode, sigma, truncate):
    img = image(rng, dtype)
    expected = scipy.ndimage.gaussian_filter(img, sigma, mode=mode, cval=-0.5, truncate=truncate)
    assert_close(ndimage.gaussian_filter(img, sigma, mode=mode, cval=-0.5, truncate=truncate), expected, dtype)


@pytest.mark.parametrize("sigma, radius", [((1.0, 2.0), None), ((0.0, 1.5), None), ((1.2, 0.7), None),
                                           (1.5, 3), (1.0, (2, 4))])
@pytest.mark.parametrize("mode", ["reflect", "wrap", "constant"])
def test_gaussian_filter_per_axis_and_radius(rng, sigma, radius, mode):
    img = image(rng, np.float64)
    expected = scipy.ndimage.gaussian_filter(img, sigma, mode=mode, radius=radius)
    assert_close(ndimage.gaussian_filter(img, sigma, mode=mode, radius=radius), expected, np.float64)


def test_output_dtype_and_array(rng):
    img = image(rng, np.float32)
    expected = scipy.ndimage.uniform_filter(img, 5, output=np.float64)
    result = ndimage.uniform_filter(img, 5, output=np.float64)
    assert result.dtype == np.float64
    np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-12)
    out = np.empty(img.shape, np.float32)
    assert ndimage.gaussian_filter(img, 1.0, output=out) is out
    assert_close(out, scipy.ndimage.gaussian_filter(img, 1.0), np.float32)


def test_non_contiguous_and_read_only_input(rng):
    img = image(rng, np.float64, (60, 40))
    view = img.T[::2, 1:]
    view.flags.writeable = False
    expected = scipy.ndimage.uniform_filter(view, 3, mode="nearest")
    assert_close(ndimage.uniform_filter(view, 3, mode="nearest"), expected, np.float64)


def test_passes_repeat_the_filter(rng):
    img = image(rng, np.float64)
    once = ndimage.uniform_filter(img, 3, mode="wrap")
    twice = ndimage.uniform_filter(once, 3, mode="wrap")
    np.testing.assert_allclose(ndimage.uniform_filter(img, 3, mode="wrap", passes=2), twice, rtol=1e-13, atol=1e-13)


def test_bad_mode_names_the_allowed_ones(rng):
    with pytest.raises(ValueError, match="allowed: reflect, grid-mirror, mirror, nearest, wrap"):
        ndimage.uniform_filter(image(rng, np.float64), 3, mode="keep")


@pytest.mark.parametrize("call, error, message", [
    (lambda: ndimage.uniform_filter(np.zeros((5, 5), np.int32)), TypeError, "float32 or float64"),
    (lambda: ndimage.uniform_filter(np.zeros((5, 5, 5))), ValueError, "2-D"),
    (lambda: ndimage.uniform_filter(np.zeros((0, 5))), ValueError, "empty"),
    (lambda: ndimage.uniform_filter(np.zeros((5, 5)), 0), ValueError, "size"),
    (lambda: ndimage.uniform_filter(np.zeros((5, 5)), (3, 3, 3)), ValueError, "size"),
    (lambda: ndimage.uniform_filter(np.zeros((5, 5)), 3, origin=2), ValueError, "origin"),
    (lambda: ndimage.uniform_filter(np.zeros((5, 5)), 9), ValueError, ""),
    (lambda: ndimage.gaussian_filter(np.zeros((5, 5)), -1.0), ValueError, "sigma"),
    (lambda: ndimage.gaussian_filter(np.zeros((5, 5)), 1.0, order=1), ValueError, "order"),
    (lambda: ndimage.uniform_filter(np.zeros((5, 5)), 3, passes=0), ValueError, "passes"),
    (lambda: ndimage.uniform_filter(np.zeros((5, 5)), 3, output=np.int16), TypeError, "output"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["reflect", "mirror", "nearest", "wrap", "constant"])
@pytest.mark.parametrize("shape, origin", [((3, 3), 0), ((2, 5), 0), ((4, 4), (1, -2)), ((1, 6), (0, 2))])
def test_correlate_matches_scipy(rng, dtype, mode, shape, origin):
    img = image(rng, dtype)
    weights = rng.uniform(0.1, 1.0, shape)
    expected = scipy.ndimage.correlate(img, weights, mode=mode, cval=0.25, origin=origin)
    assert_close(ndimage.correlate(img, weights, mode=mode, cval=0.25, origin=origin), expected, dtype)


def test_correlate_needs_a_positive_sum(rng):
    with pytest.raises(ValueError, match="positive sum"):
        ndimage.correlate(image(rng, np.float64), [[0, 1, 0], [1, -4, 1], [0, 1, 0]])
