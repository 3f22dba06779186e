"""scipy.signal's calls: lombscargle."""
import numpy as np

from . import _portasolve
from ._arrays import float_array, suffix

__all__ = ["lombscargle"]


def lombscargle(x, y, freqs, precenter=False, normalize=False):
    """Lomb-Scargle periodogram, as scipy.signal.lombscargle (SciPy 1.10).

    x, y: sample times and values (1-D, same length, finite); freqs: angular
    frequencies (1-D, positive, finite); precenter: subtract y's mean first;
    normalize: divide by sum(y**2) / 2. Returns the power at each frequency,
    float32 when x, y and freqs are all float32 (sums in float32), float64
    otherwise. Bad input (lengths, empty, NaN, frequencies <= 0) raises
    ValueError.
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
    single = x.dtype == y.dtype == freqs.dtype == np.float32
    compute = getattr(_portasolve, "lombscargle_classic_" + suffix(np.float32 if single else np.float64))
    as_double = [np.ascontiguousarray(a, dtype=np.float64) for a in (x, y, freqs)]
    return compute(*as_double, bool(precenter), bool(normalize))[0]
