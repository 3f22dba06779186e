"""Argument checks shared by the submodules: NumPy arrays of a dtype the
solvers take, C-contiguous (copied as NumPy would), errors naming the argument.
GPU arrays (CuPy, or anything with __cuda_array_interface__) stay on the GPU:
array_module() gives the module (NumPy or CuPy) that makes arrays like them."""
import numpy as np

FLOAT_TYPES = (np.float32, np.float64)


def is_gpu_array(value):
    """Whether value is a GPU array (it has __cuda_array_interface__)."""
    return hasattr(value, "__cuda_array_interface__")


def array_module(value):
    """numpy for host arrays (and anything NumPy converts), cupy for GPU arrays."""
    if not is_gpu_array(value):
        return np
    try:
        import cupy
    except ImportError as error:  # a Numba or PyTorch array without CuPy
        raise TypeError("GPU arrays are taken and returned as CuPy arrays: install CuPy, or pass a NumPy "
                        "array") from error
    return cupy


def host_copy(value):
    """A GPU array's values as a NumPy array (other values as they are)."""
    return array_module(value).asnumpy(value) if is_gpu_array(value) else value


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
    """A 2-D float32 or float64 image (NumPy, or CuPy for GPU arrays), C-contiguous;
    other dtypes are a TypeError."""
    xp = array_module(value)
    array = xp.asarray(value)
    if array.dtype.type not in FLOAT_TYPES:
        raise TypeError(f"{name} must be float32 or float64, got dtype {array.dtype} "
                        f"(convert it, e.g. {name}.astype(np.float32))")
    if array.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} is empty (shape {array.shape})")
    return xp.ascontiguousarray(array)


def suffix(dtype):
    """The extension's name suffix for a float dtype."""
    return "float32" if np.dtype(dtype) == np.float32 else "float64"
