"""scipy.signal's calls: lombscargle."""
import numpy as np

from . import _portasolve
from ._arrays import array_module, float_array, host_copy, is_gpu_array, suffix

__all__ = ["lombscargle"]


ALGORITHMS = ("auto", "direct", "tiled", "recurrence", "nufft")


def _is_uniform(freqs, eps=np.finfo(np.float64).eps):
    """Whether freqs (NumPy or CuPy, float64) are evenly spaced and increasing to
    rounding (as np.linspace makes them; eps: the machine epsilon of the dtype the
    caller gave them in, so float32 linspaces count); a CuPy array is checked
    where it lies."""
    first, last = _ends(freqs) if freqs.size else (0.0, 0.0)
    return _is_uniform_between(freqs, first, last, eps)


def _ends(freqs):
    """freqs' first and last values as floats (one copy from a GPU)."""
    ends = freqs[::max(freqs.size - 1, 1)]
    ends = array_module(freqs).asnumpy(ends) if is_gpu_array(freqs) else ends
    return float(ends[0]), float(ends[-1])


def _is_uniform_between(freqs, first, last, eps):
    if freqs.size < 3 or not last > first:
        return False
    xp = array_module(freqs)
    rebuilt = xp.linspace(first, last, freqs.size)
    return bool(xp.max(xp.abs(freqs - rebuilt)) <= 4 * eps * abs(last))


def gpu_frequencies(freqs, name):
    """A CuPy array of frequencies (1-D, finite) checked on the GPU: (values to
    pass, uniform, count). Evenly spaced ones travel as their two ends and count,
    others come to the host (the solver's explicit grids are built there)."""
    xp = array_module(freqs)
    if freqs.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {freqs.shape}")
    if freqs.size == 0:
        raise ValueError(f"{name} is empty")
    if freqs.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a real numeric array, got dtype {freqs.dtype}")
    eps = np.finfo(freqs.dtype).eps if freqs.dtype.kind == "f" else np.finfo(np.float64).eps
    values = xp.ascontiguousarray(freqs, dtype=xp.float64)
    if values.size >= 3:
        # One pass where the array lies: its ends and the largest distance from their even spacing.
        first, last, distance = _portasolve.frequency_spacing(values)
        if np.isfinite(last) and last > first and distance <= 4 * eps * abs(last):
            return np.array([first, last]), True, int(values.size)
    return xp.asnumpy(values), False, 0


# Evenly spaced grids of at least this many frequencies run through the NUFFT under algorithm "auto" (the
# solvers' own threshold, lower on hosts, whose NUFFT transforms each series in cache).
NUFFT_FROM = _portasolve.lombscargle_nufft_from

NORMALIZE = {False: False, True: True, "power": False, "normalize": True}


def lombscargle(x, y, freqs, precenter=False, normalize=False, *, weights=None, floating_mean=False,
                algorithm="auto"):
    """Lomb-Scargle periodogram, as scipy.signal.lombscargle.

    x, y: sample times and values (1-D, same length, finite); freqs: angular
    frequencies (1-D, positive, finite); precenter: subtract y's mean first;
    normalize: False (or "power") for the unnormalized power, True (or
    "normalize") for the power over the sum of squares of y. Returns the
    power at each frequency, float32 when x, y and freqs (and weights, if
    given) are all float32 (sums in float32), float64 otherwise. Bad input
    (lengths, empty, NaN, frequencies <= 0) raises ValueError.

    weights, floating_mean (keyword only): SciPy >= 1.15's per-sample weights
    (1-D, x's length, >= 0 with a positive sum; scaled to sum 1) and its
    floating mean (an offset fitted with the sinusoid at every frequency).
    Given either, the result is SciPy 1.15's: there, precenter with normalize
    divides by the sum of squares of the centred y (SciPy 1.10, which has
    neither option, divides by that of the original y, as this function does
    without them). normalize="amplitude" (SciPy 1.15's complex amplitudes) is
    not supported.

    CuPy arrays (CUDA builds): the power is computed into a CuPy array on
    the GPU; x and y come to the host (N values), evenly spaced freqs are
    checked on the GPU and pass as their ends, others come to the host.

    algorithm (portasolve's, keyword only): "auto" runs evenly spaced
    frequencies (np.linspace, evenly spaced to the rounding of their dtype,
    float64 or float32) through the NUFFT where there are NUFFT_FROM or more
    of them (as the program's auto: 256 on GPUs, 32 on hosts), else through
    the angle-addition recurrence, and any others through the tiled direct
    kernel; all to SciPy's results within 1e-10 of the peak in double.
    "direct", "tiled", "recurrence" and "nufft" (evenly spaced only; an
    approximation to 1e-12 of the sums' scale in double, 1e-8 in float)
    choose one.
    """
    on_gpu = any(is_gpu_array(a) for a in (x, y, freqs))
    if on_gpu:  # the result is a CuPy array; x and y (N values) are read on the host
        xp = array_module(next(a for a in (x, y, freqs) if is_gpu_array(a)))
        gpu_freqs = xp.asarray(freqs)
        dtypes = [np.dtype(getattr(a, "dtype", np.float64)) for a in (x, y, gpu_freqs)]
        if weights is not None:
            dtypes.append(np.dtype(getattr(weights, "dtype", np.float64)))
        single = all(d == np.float32 for d in dtypes)
        freqs, uniform, count = gpu_frequencies(gpu_freqs, "freqs")
        if is_gpu_array(x) and is_gpu_array(y) and x.shape == y.shape and x.dtype == y.dtype:
            x, y = xp.asnumpy(xp.stack((x, y)))  # one copy to the host
        else:
            x, y = host_copy(x), host_copy(y)
        weights = None if weights is None else host_copy(weights)
    x = float_array(x, "x", 1)
    y = float_array(y, "y", 1)
    freqs = float_array(freqs, "freqs", 1)
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same length, got {x.shape[0]} and {y.shape[0]}")
    if x.size == 0:
        raise ValueError("x and y are empty")
    if freqs.size == 0:
        raise ValueError("freqs is empty")
    if weights is not None:
        weights = float_array(weights, "weights", 1)
        if weights.shape != x.shape:
            raise ValueError(f"weights must have the length of x and y ({x.shape[0]}), got {weights.shape[0]}")
        if not (np.all(np.isfinite(weights)) and np.all(weights >= 0) and np.sum(weights) > 0):
            raise ValueError("weights must be finite and >= 0 with a positive sum (as SciPy 1.15 requires)")
    if isinstance(normalize, str):
        if normalize == "amplitude":
            raise ValueError("normalize='amplitude' (SciPy 1.15's complex amplitudes) is not supported; "
                             "use False/'power' or True/'normalize'")
        if normalize not in NORMALIZE:
            raise ValueError(f"normalize must be False (or 'power') or True (or 'normalize'), got {normalize!r}")
    normalize = NORMALIZE.get(normalize, bool(normalize))
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm {algorithm!r} is not one of {', '.join(ALGORITHMS)}")
    if not on_gpu:
        single = x.dtype == y.dtype == freqs.dtype == np.float32 and (weights is None or weights.dtype == np.float32)
        freqs_eps = np.finfo(freqs.dtype).eps
    dtype = np.float32 if single else np.float64
    compute = getattr(_portasolve, "lombscargle_classic_" + suffix(dtype))
    x, y, freqs = (np.ascontiguousarray(a, dtype=np.float64) for a in (x, y, freqs))
    weights = np.empty(0) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    if not on_gpu:
        uniform, count = _is_uniform(freqs, freqs_eps), 0
    if algorithm == "auto":
        # As the program's auto: the NUFFT on evenly spaced grids of portasolve.signal.NUFFT_FROM frequencies
        # or more (to 1e-12 of the sums' scale in double), the recurrence on shorter ones.
        algorithm = ("nufft" if (count or freqs.size) >= NUFFT_FROM else "recurrence") if uniform else "tiled"
    elif algorithm in ("recurrence", "nufft") and not uniform:
        raise ValueError(f"the {algorithm} algorithm needs evenly spaced increasing frequencies (np.linspace)")
    power = (xp if on_gpu else np).empty((1, count or freqs.size), dtype=dtype)
    compute(x, y, freqs, power, bool(precenter), normalize, algorithm, uniform, weights, bool(floating_mean), count)
    return power[0]
