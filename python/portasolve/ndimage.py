"""scipy.ndimage's smoothing filters for 2-D float32/float64 images."""
import numbers

import numpy as np

from . import _portasolve
from ._arrays import array_module, image_array, suffix

__all__ = ["correlate", "uniform_filter", "gaussian_filter"]

# SciPy's mode names (its filters' meanings: 'grid-mirror', 'grid-wrap' and
# 'grid-constant' are synonyms there) and the smoothing solver's border mode.
# For a row a b c d, what lies past its ends:
#   reflect  d c b a | a b c d | d c b a      mirror   d c b | a b c d | c b a
#   nearest  a a a a | a b c d | d d d d      wrap     a b c d | a b c d | a b c d
#   constant k k k k | a b c d | k k k k (k = cval)
MODES = {
    "reflect": "reflect",
    "grid-mirror": "reflect",
    "mirror": "mirror",
    "nearest": "nearest",
    "wrap": "wrap",
    "grid-wrap": "wrap",
    "constant": "constant",
    "grid-constant": "constant",
}


def _border(mode):
    if not isinstance(mode, str) or mode not in MODES:
        raise ValueError(f"mode {mode!r} is not supported; allowed: {', '.join(MODES)}")
    return MODES[mode]


def _pair(value, name, kind):
    """A scalar or a 2-sequence as a pair of `kind` (int or float)."""
    values = [value, value] if np.ndim(value) == 0 else list(value)
    if len(values) != 2:
        raise ValueError(f"{name} must be a scalar or a sequence of 2 values (one per axis), got {value!r}")
    if kind is int and not all(isinstance(v, numbers.Integral) for v in values):
        raise TypeError(f"{name} must be integers, got {value!r}")
    return [kind(v) for v in values]


def _is_array(output):
    """An array (NumPy or CuPy) rather than a dtype (np.float32 has .shape and .dtype too)."""
    return not isinstance(output, (type, np.dtype, str)) and hasattr(output, "shape") and hasattr(output, "dtype")


def _output_dtype(image, output):
    if output is None:
        return image.dtype
    dtype = output.dtype if _is_array(output) else np.dtype(output)
    if dtype.type not in (np.float32, np.float64):
        raise TypeError(f"output must be float32 or float64, got {dtype}")
    return dtype


def _store(result, output):
    """SciPy's output rule: an array given as output receives the result and is returned."""
    if _is_array(output):
        if output is result:
            return output
        if output.shape != result.shape:
            raise ValueError(f"output has shape {output.shape}, the image {result.shape}")
        output[...] = result
        return output
    return result


def _target(image, dtype, output):
    """Where the solver writes: output itself when it is an array of the image's
    kind, shape and dtype, C-contiguous (SciPy's output rule without a copy),
    else a new array like the image (NumPy or CuPy)."""
    xp = array_module(image)
    if (_is_array(output) and array_module(output) is xp and output.shape == image.shape
            and output.dtype == dtype and output.flags.c_contiguous and output is not image):
        return output
    return xp.empty(image.shape, dtype=dtype)


def _run(image, dtype, kernel, border, cval, passes, radius=0, sigma=1.0, truncate=4.0, weights=None,
         output=None):
    if int(passes) != passes or passes < 1:
        raise ValueError(f"passes must be an integer >= 1, got {passes!r}")
    image = array_module(image).ascontiguousarray(image, dtype=dtype)
    weights = np.zeros((0, 0)) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    smooth = getattr(_portasolve, "smooth_" + suffix(dtype))
    result = _target(image, dtype, output)
    smooth(image, result, kernel, int(radius), float(sigma), float(truncate), weights, border, float(cval),
           int(passes))
    return result


def _square(weights, origins=(0, 0)):
    """A weights window placed as SciPy places it (per axis of size s, offsets
    -(s//2) - origin .. -(s//2) - origin + s - 1) in a square matrix of odd
    side centred on the output pixel, zeros around it: the solver's weighted kernel."""
    lows = [-(s // 2) - o for s, o in zip(weights.shape, origins)]
    reach = max(max(abs(low), abs(low + s - 1)) for low, s in zip(lows, weights.shape))
    square = np.zeros((2 * reach + 1, 2 * reach + 1))
    square[lows[0] + reach:lows[0] + reach + weights.shape[0],
           lows[1] + reach:lows[1] + reach + weights.shape[1]] = weights
    return square


def _origins(origin, sizes):
    origins = _pair(origin, "origin", int)
    for s, o in zip(sizes, origins):
        if not -(s // 2) <= o <= (s - 1) // 2:
            raise ValueError(f"origin {o} is outside the window of size {s}")
    return origins


def uniform_filter(input, size=3, output=None, mode="reflect", cval=0.0, origin=0, *, passes=1):
    """Mean over a size[0] x size[1] window, as scipy.ndimage.uniform_filter (2-D images).

    size, origin: a scalar or one per axis (even sizes and origins as SciPy
    places them); mode: reflect, mirror, nearest, wrap, constant (and SciPy's
    grid- synonyms); output: None (input's dtype), float32/float64 or an
    array to fill. passes > 1 repeats the filter. The window must fit the image.
    """
    image = image_array(input)
    border = _border(mode)
    sizes = _pair(size, "size", int)
    if min(sizes) < 1:
        raise ValueError(f"size must be >= 1, got {size!r}")
    origins = _origins(origin, sizes)
    dtype = _output_dtype(image, output)
    if sizes[0] == sizes[1] and sizes[0] % 2 == 1 and origins == [0, 0]:
        result = _run(image, dtype, "box", border, cval, passes, radius=sizes[0] // 2, output=output)
    else:
        result = _run(image, dtype, "weighted", border, cval, passes, weights=_square(np.ones(sizes), origins),
                      output=output)
    return _store(result, output)


def _gaussian_taps(sigma, radius):
    """SciPy's 1-D Gaussian (order 0): exp(-x^2 / (2 sigma^2)) on -radius..radius, normalised."""
    if sigma <= 1e-15 or radius == 0:
        return np.ones(1)  # SciPy leaves such an axis unfiltered
    x = np.arange(-radius, radius + 1)
    phi = np.exp(-0.5 / sigma**2 * x**2)
    return phi / phi.sum()


def gaussian_filter(input, sigma, order=0, output=None, mode="reflect", cval=0.0, truncate=4.0, *, radius=None,
                    passes=1):
    """Gaussian smoothing, as scipy.ndimage.gaussian_filter (2-D images, order 0).

    sigma: a scalar or one per axis; the kernel reaches radius =
    int(truncate * sigma + 0.5) pixels (SciPy's rule) unless radius is given.
    mode, cval, output: as in uniform_filter. passes > 1 repeats the filter.
    """
    image = image_array(input)
    border = _border(mode)
    if np.any(np.asarray(order) != 0):
        raise ValueError("only order=0 (smoothing) is supported")
    sigmas = _pair(sigma, "sigma", float)
    if any(s < 0 or not np.isfinite(s) for s in sigmas):
        raise ValueError(f"sigma must be finite and >= 0, got {sigma!r}")
    if radius is None:
        radii = [int(float(truncate) * s + 0.5) for s in sigmas]
    else:
        radii = _pair(radius, "radius", int)
        if any(r < 0 for r in radii):
            raise ValueError(f"radius must be >= 0, got {radius!r}")
    dtype = _output_dtype(image, output)
    if sigmas[0] == sigmas[1] and radius is None and sigmas[0] > 1e-15 and radii[0] > 0:
        result = _run(image, dtype, "gaussian", border, cval, passes, sigma=sigmas[0], truncate=truncate,
                      output=output)
    else:
        rows, cols = (_gaussian_taps(s, r) for s, r in zip(sigmas, radii))
        result = _run(image, dtype, "weighted", border, cval, passes, weights=_square(np.outer(rows, cols)),
                      output=output)
    return _store(result, output)


def correlate(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, passes=1):
    """Weighted sum over a window, as scipy.ndimage.correlate (2-D images).

    weights: a 2-D array of any shape whose sum is positive (the solver's
    smoothing kernels; others raise ValueError), placed as SciPy places it
    (origin a scalar or one per axis). mode, cval, output, passes: as in
    uniform_filter.
    """
    image = image_array(input)
    border = _border(mode)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 2 or weights.size == 0:
        raise ValueError(f"weights must be a non-empty 2-D array, got shape {weights.shape}")
    if not np.all(np.isfinite(weights)) or not weights.sum() > 0:
        raise ValueError("weights must be finite with a positive sum (a smoothing kernel)")
    origins = _origins(origin, weights.shape)
    dtype = _output_dtype(image, output)
    result = _run(image, dtype, "weighted", border, cval, passes, weights=_square(weights, origins), output=output)
    # The solver's passes are weighted means (its weights normalised to sum 1).
    result *= result.dtype.type(weights.sum() ** passes)
    return _store(result, output)
