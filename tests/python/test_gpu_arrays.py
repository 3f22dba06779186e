"""GPU arrays (__cuda_array_interface__: CuPy) used in place.

On a CUDA build with CuPy every call gets CuPy arrays and must give the bits
the NumPy path gives (the same kernels on the same device) and SciPy's values
to rounding, returning CuPy arrays. On a host build a GPU array is a
TypeError naming the argument; that part runs everywhere, with a stand-in
object that carries the interface."""
import numpy as np
import pytest
import scipy.ndimage
import scipy.signal

import portasolve
from portasolve import _portasolve, ndimage, poisson, signal, timeseries

try:
    import cupy
except ImportError:  # host builds and machines without a GPU
    cupy = None

gpu = pytest.mark.skipif(cupy is None or not _portasolve.takes_gpu_arrays,
                         reason="needs a CUDA build of portasolve and CuPy")


class StandIn:
    """An object that says it lives on a GPU (no memory behind it)."""

    def __init__(self, shape, typestr="<f4"):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (0, False), "version": 3,
                                         "strides": None, "stream": None}


@pytest.mark.skipif(_portasolve.takes_gpu_arrays, reason="a host build's refusal")
def test_host_build_refuses_gpu_arrays_naming_the_argument():
    out = np.empty((4, 5), np.float32)
    with pytest.raises(TypeError, match="input is a GPU array.*pass a NumPy array"):
        _portasolve.smooth_float32(StandIn((4, 5)), out, "box", 1, 1.0, 4.0, np.zeros((0, 0)), "reflect", 0.0, 1)
    with pytest.raises(TypeError, match="power is a GPU array"):
        _portasolve.lombscargle_classic_float64(np.arange(5.0), np.ones(5), np.array([1.0, 2.0]), StandIn((1, 2), "<f8"),
                                                False, False)
    assert portasolve.info()["gpu_arrays"] is False


def test_info_says_whether_gpu_arrays_are_taken():
    assert portasolve.info()["gpu_arrays"] == _portasolve.takes_gpu_arrays


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["reflect", "mirror", "nearest", "wrap", "constant"])
def test_filters_on_cupy_arrays_match_the_numpy_path_and_scipy(rng, dtype, mode):
    host = rng.uniform(-1.0, 2.0, (61, 47)).astype(dtype)
    device = cupy.asarray(host)
    tolerance = 2e-6 if dtype == np.float32 else 1e-12
    calls = [
        (lambda a: ndimage.uniform_filter(a, 5, mode=mode, cval=0.5),
         lambda a: scipy.ndimage.uniform_filter(a, 5, mode=mode, cval=0.5)),
        (lambda a: ndimage.gaussian_filter(a, 1.5, mode=mode, cval=0.5),
         lambda a: scipy.ndimage.gaussian_filter(a, 1.5, mode=mode, cval=0.5)),
        (lambda a: ndimage.correlate(a, np.arange(1.0, 7.0).reshape(2, 3), mode=mode, cval=0.5),
         lambda a: scipy.ndimage.correlate(a, np.arange(1.0, 7.0).reshape(2, 3), mode=mode, cval=0.5)),
    ]
    for ours, scipys in calls:
        result = ours(device)
        assert isinstance(result, cupy.ndarray) and result.dtype == dtype and result.shape == host.shape
        np.testing.assert_array_equal(cupy.asnumpy(result), ours(host))
        np.testing.assert_allclose(cupy.asnumpy(result), scipys(host), rtol=tolerance, atol=tolerance)


@gpu
def test_filter_writes_into_a_given_cupy_output_and_takes_strided_input(rng):
    host = rng.uniform(0.0, 1.0, (40, 30))
    output = cupy.full(host.shape, np.nan)
    returned = ndimage.uniform_filter(cupy.asarray(host), 3, output=output)
    assert returned is output
    np.testing.assert_allclose(cupy.asnumpy(output), scipy.ndimage.uniform_filter(host, 3), rtol=1e-12, atol=1e-12)
    transposed = cupy.asarray(host).T  # not C-contiguous: copied on the GPU first, as NumPy would
    np.testing.assert_allclose(cupy.asnumpy(ndimage.uniform_filter(transposed, 3)),
                               scipy.ndimage.uniform_filter(host.T, 3), rtol=1e-12, atol=1e-12)


@gpu
def test_extension_checks_gpu_arrays_it_is_handed(rng):
    image = cupy.zeros((8, 9), cupy.float32)
    out = cupy.zeros((8, 9), cupy.float32)
    none = np.zeros((0, 0))
    with pytest.raises(TypeError, match="input has dtype <f8"):
        _portasolve.smooth_float32(image.astype(cupy.float64), out, "box", 1, 1.0, 4.0, none, "reflect", 0.0, 1)
    with pytest.raises(ValueError, match="input must be C-contiguous"):
        _portasolve.smooth_float32(cupy.zeros((9, 8), cupy.float32).T, out, "box", 1, 1.0, 4.0, none, "reflect",
                                   0.0, 1)
    with pytest.raises(ValueError, match="output must have the input's shape"):
        _portasolve.smooth_float32(image, cupy.zeros((8, 5), cupy.float32), "box", 1, 1.0, 4.0, none, "reflect", 0.0, 1)


@gpu
def test_work_on_a_producer_stream_is_waited_for(rng):
    # The image is written on a non-blocking stream; the interface names it
    # and the call waits for it before reading.
    host = rng.uniform(0.0, 1.0, (2048, 2048)).astype(np.float32)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        image = cupy.asarray(host)
        image *= 2
        result = ndimage.uniform_filter(image, 3)
    stream.synchronize()
    np.testing.assert_allclose(cupy.asnumpy(result), scipy.ndimage.uniform_filter(2 * host, 3), rtol=2e-6, atol=2e-6)


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("method", ["spectral", "multigrid", "cg"])
def test_poisson_on_cupy_arrays(rng, dtype, method):
    rows, cols = 33, 50
    rhs = rng.uniform(-1.0, 1.0, (rows, cols)).astype(dtype)
    ring = rng.uniform(0.0, 1.0, (rows, cols)).astype(dtype)
    x_device, report = poisson.solve(cupy.asarray(rhs), cupy.asarray(ring), method=method, maxiter=5000)
    x_host, host_report = poisson.solve(rhs, ring, method=method, maxiter=5000)
    assert isinstance(x_device, cupy.ndarray) and x_device.dtype == dtype
    np.testing.assert_array_equal(cupy.asnumpy(x_device), x_host)
    assert report["iterations"] == host_report["iterations"] and report["converged"]
    # The Laplacian of the solution is rhs on the interior, the ring kept.
    x = cupy.asnumpy(x_device).astype(np.float64)
    laplacian = x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:] - 4 * x[1:-1, 1:-1]
    tolerance = 2e-3 if dtype == np.float32 else 1e-8
    np.testing.assert_allclose(laplacian, rhs[1:-1, 1:-1], atol=tolerance * np.abs(rhs).max())
    np.testing.assert_array_equal(x[0], ring[0].astype(np.float64))


@gpu
@pytest.mark.parametrize("uniform", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lombscargle_on_cupy_arrays(rng, uniform, dtype):
    x = np.sort(rng.uniform(0.0, 50.0, 300)).astype(dtype)
    y = (np.sin(2.1 * x) + rng.normal(0.0, 0.5, x.size)).astype(dtype)
    freqs = np.linspace(0.05, 8.0, 2000) if uniform else np.sort(rng.uniform(0.05, 8.0, 2000))
    freqs = freqs.astype(dtype)
    power = signal.lombscargle(cupy.asarray(x), cupy.asarray(y), cupy.asarray(freqs), normalize=True)
    assert isinstance(power, cupy.ndarray) and power.dtype == dtype and power.shape == freqs.shape
    np.testing.assert_array_equal(cupy.asnumpy(power), signal.lombscargle(x, y, freqs, normalize=True))
    expected = scipy.signal.lombscargle(x.astype(np.float64), y.astype(np.float64), freqs.astype(np.float64),
                                        normalize=True)
    # float32: the inputs are rounded and the sums run in float32 (as test_signal.py allows).
    rtol, atol = (1e-3, 1e-4 * expected.max()) if dtype == np.float32 else (1e-10, 1e-10)
    np.testing.assert_allclose(cupy.asnumpy(power), expected, rtol=rtol, atol=atol)


@gpu
def test_cupy_frequencies_are_checked_where_they_lie(rng):
    # One pass on the GPU (frequency_spacing) decides as the NumPy check does: evenly spaced to the rounding of
    # the dtype given, increasing, finite; the ends come back exactly.
    cases = {"linspace": np.linspace(0.05, 8.0, 3001), "float32 linspace": np.linspace(0.05, 8.0, 3001, dtype=np.float32),
             "three": np.array([1.0, 2.0, 3.0]), "two": np.array([1.0, 2.0]), "decreasing": np.linspace(8.0, 0.05, 500),
             "irregular": np.sort(rng.uniform(0.05, 8.0, 500))}
    nudged = np.linspace(0.05, 8.0, 3001)
    nudged[1234] += 20 * np.finfo(np.float64).eps * 8.0
    cases["nudged"] = nudged
    for bad in (np.nan, np.inf):
        values = np.linspace(0.05, 8.0, 3001)
        values[700] = bad
        cases[f"with {bad}"] = values
        values = np.linspace(0.05, 8.0, 3001)
        values[-1] = bad
        cases[f"ending in {bad}"] = values
    for name, values in cases.items():
        ends, uniform, count = signal.gpu_frequencies(cupy.asarray(values), "freqs")
        eps = np.finfo(values.dtype).eps
        assert uniform == signal._is_uniform(values.astype(np.float64), eps), name
        if uniform:
            assert count == values.size and list(ends) == [float(values[0]), float(values[-1])], name
        else:
            assert count == 0 and np.array_equal(ends, values.astype(np.float64), equal_nan=True), name
    first, last, distance = _portasolve.frequency_spacing(cupy.asarray(nudged))
    assert (first, last) == (nudged[0], nudged[-1])
    assert distance == pytest.approx(20 * np.finfo(np.float64).eps * 8.0, rel=0.3)
    with pytest.raises(ValueError, match="at least two"):
        _portasolve.frequency_spacing(cupy.asarray([1.0]))


@gpu
def test_astropy_style_power_at_cupy_frequencies(rng):
    t = np.sort(rng.uniform(0.0, 100.0, 400))
    y = np.sin(0.7 * t) + rng.normal(0.0, 0.3, t.size)
    dy = rng.uniform(0.2, 0.4, t.size)
    frequency = np.linspace(0.01, 2.0, 5000)
    periodogram = timeseries.LombScargle(cupy.asarray(t), cupy.asarray(y), cupy.asarray(dy))
    on_gpu = periodogram.power(cupy.asarray(frequency))
    assert isinstance(on_gpu, cupy.ndarray) and on_gpu.shape == frequency.shape
    np.testing.assert_array_equal(cupy.asnumpy(on_gpu), timeseries.LombScargle(t, y, dy).power(frequency))
    grid = frequency.reshape(50, 100)  # the power takes the frequencies' shape, as with NumPy
    np.testing.assert_array_equal(cupy.asnumpy(periodogram.power(cupy.asarray(grid))),
                                  timeseries.LombScargle(t, y, dy).power(grid))
    irregular = np.sort(rng.uniform(0.01, 2.0, 700))
    np.testing.assert_array_equal(cupy.asnumpy(periodogram.power(cupy.asarray(irregular))),
                                  timeseries.LombScargle(t, y, dy).power(irregular))
