"""scipy.signal's calls: lombscargle."""
import numpy as np

from . import _portasolve
from ._arrays import float_array, suffix

__all__ = ["lombscargle"]


ALGORITHMS = ("auto", "direct", "tiled", "recurrence", "nufft")


def _is_uniform(freqs):
    """Whether freqs are evenly spaced and increasing to rounding (as np.linspace makes them)."""
    if freqs.size < 3 or not freqs[-1] > freqs[0]:
        return False
    rebuilt = np.linspace(freqs[0], freqs[-1], freqs.size)
    return bool(np.max(np.abs(freqs - rebuilt)) <= 4 * np.finfo(np.float64).eps * abs(freqs[-1]))


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

    algorithm (portasolve's, keyword only): "auto" runs evenly spaced
    frequencies (np.linspace) through the angle-addition recurrence and any
    others through the direct kernel, both to SciPy's results within 1e-10;
    "direct", "tiled", "recurrence" and "nufft" (evenly spaced only; an
    approximation to 1e-12 of the sums' scale) choose one.
    """
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
    single = x.dtype == y.dtype == freqs.dtype == np.float32 and (weights is None or weights.dtype == np.float32)
    compute = getattr(_portasolve, "lombscargle_classic_" + suffix(np.float32 if single else np.float64))
    x, y, freqs = (np.ascontiguousarray(a, dtype=np.float64) for a in (x, y, freqs))
    weights = np.empty(0) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    uniform = _is_uniform(freqs)
    if algorithm == "auto":
        algorithm = "recurrence" if uniform else "tiled"
    elif algorithm in ("recurrence", "nufft") and not uniform:
        raise ValueError(f"the {algorithm} algorithm needs evenly spaced increasing frequencies (np.linspace)")
    return compute(x, y, freqs, bool(precenter), normalize, algorithm, uniform, weights, bool(floating_mean))[0]
