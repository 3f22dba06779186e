"""Argument checks shared by the submodules: NumPy arrays of a dtype the
solvers take, C-contiguous (copied as NumPy would), errors naming the argument."""
import numpy as np

FLOAT_TYPES = (np.float32, np.float64)


def float_array(value, name, ndim, dtype=None):
    """value as a C-contiguous float32/float64 array of `ndim` dimensions.

    dtype None keeps float32 and float64 and turns anything else numeric
    (ints, bools) into float64; complex values and objects are a TypeError.
    """
    array = np.asarray(value)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a real numeric array, got dtype {array.dtype}")
    if dtype is None:
        dtype = array.dtype if array.dtype.type in FLOAT_TYPES else np.float64
    if array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {array.shape}")
    return np.ascontiguousarray(array, dtype=dtype)


def image_array(value, name="input"):
    """A 2-D float32 or float64 image, C-contiguous; other dtypes are a TypeError."""
    array = np.asarray(value)
    if array.dtype.type not in FLOAT_TYPES:
        raise TypeError(f"{name} must be float32 or float64, got dtype {array.dtype} "
                        f"(convert it, e.g. {name}.astype(np.float32))")
    if array.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} is empty (shape {array.shape})")
    return np.ascontiguousarray(array)


def suffix(dtype):
    """The extension's name suffix for a float dtype."""
    return "float32" if np.dtype(dtype) == np.float32 else "float64"
