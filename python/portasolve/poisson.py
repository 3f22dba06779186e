"""The 2-D Poisson solver: L x = rhs, L the 5-point Laplacian with unit spacing,
  (L x)[i, j] = x[i-1, j] + x[i+1, j] + x[i, j-1] + x[i, j+1] - 4 x[i, j]
(a grid spacing h: pass h**2 * f as rhs)."""
import numpy as np

from . import _portasolve
from ._arrays import array_module, suffix

__all__ = ["solve", "reconstruct_from_laplacian", "METHODS", "BOUNDARIES"]

METHODS = ("auto", "spectral", "multigrid", "cg", "cg_fused", "jacobi", "jacobi_blocked")
BOUNDARIES = ("dirichlet", "neumann", "periodic")


def _grid(value, name, xp=None):
    """value as a 2-D float array of the module xp (NumPy or CuPy; value's own when None)."""
    xp = array_module(value) if xp is None else xp
    array = xp.asarray(value)
    if array.dtype.type not in (np.float32, np.float64):
        if array.dtype.kind not in "biu":
            raise TypeError(f"{name} must be a real float array, got dtype {array.dtype}")
        array = array.astype(np.float64)
    if array.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {array.shape}")
    if min(array.shape) < 3:
        raise ValueError(f"{name} must be at least 3 x 3, got shape {array.shape}")
    return array


def solve(rhs, boundary=0.0, *, method="auto", tol=None, maxiter=1000, x0=None, check_every=10):
    """Solve L x = rhs; returns (x, report).

    rhs: 2-D float32/float64 (the result has its dtype; other numbers become
    float64); a CuPy array is solved on the GPU in place of a host copy and x
    is a CuPy array (CUDA builds). boundary: a number or an array of rhs's shape whose outer ring
    holds the Dirichlet values (its interior is ignored; L x = rhs on the
    interior, rhs's ring unused); or "neumann" / "periodic": no fixed values,
    L x = rhs at every point with mirrored / wrapped neighbours, rhs summing
    to zero (trapezoid-weighted for neumann) and x the zero-mean solution
    (the spectral and multigrid methods). method: one of METHODS; "auto"
    picks the fastest that applies (spectral, on every backend). tol: the relative
    residual ||rhs - L x|| / ||rhs - L x_start|| to stop at (default 1e-10,
    1e-5 in float32; 0 runs maxiter iterations); x0: the interior to start
    from (default zeros); check_every: iterations between residual checks.
    report: method, boundary, iterations, relative_residual, reference_norm,
    converged, stop_reason, history [(iteration, relative residual), ...].
    Ctrl-C interrupts iterative solves at their next check.
    """
    rhs = _grid(rhs, "rhs")
    xp = array_module(rhs)  # CuPy arrays are solved in place on the GPU, results are CuPy arrays
    dtype = rhs.dtype
    if method not in METHODS:
        raise ValueError(f"method {method!r} is not one of {', '.join(METHODS)}")
    if isinstance(boundary, str):
        if boundary not in ("neumann", "periodic"):
            raise ValueError(f"boundary {boundary!r}: give the Dirichlet values (a number or an array) "
                             f"or 'neumann' or 'periodic'")
        kind = boundary
        x = xp.zeros(rhs.shape, dtype=dtype)
    else:
        kind = "dirichlet"
        if np.ndim(boundary) == 0:
            x = xp.full(rhs.shape, boundary, dtype=dtype)
        else:
            x = xp.array(_grid(boundary, "boundary", xp), dtype=dtype, order="C", copy=True)
            if x.shape != rhs.shape:
                raise ValueError(f"boundary has shape {x.shape}, rhs {rhs.shape}")
        x[1:-1, 1:-1] = 0  # the start, unless x0 gives one
    if x0 is not None:
        start = _grid(x0, "x0", xp)
        if start.shape != rhs.shape:
            raise ValueError(f"x0 has shape {start.shape}, rhs {rhs.shape}")
        if kind == "dirichlet":
            x[1:-1, 1:-1] = start[1:-1, 1:-1]
        else:
            x[...] = start
    if not bool(xp.all(xp.isfinite(x))):
        raise ValueError("boundary / x0 hold non-finite values")
    if tol is None:
        tol = 1e-5 if dtype == np.float32 else 1e-10
    if not (np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be finite and >= 0, got {tol!r}")
    if int(maxiter) != maxiter or maxiter < 1:
        raise ValueError(f"maxiter must be an integer >= 1, got {maxiter!r}")
    if int(check_every) != check_every or check_every < 1:
        raise ValueError(f"check_every must be an integer >= 1, got {check_every!r}")
    rhs = xp.ascontiguousarray(rhs, dtype=dtype)
    if not bool(xp.all(xp.isfinite(rhs))):
        raise ValueError("rhs holds non-finite values")
    run = getattr(_portasolve, "poisson_solve_" + suffix(dtype))
    report = run(x, rhs, method, kind, float(tol), int(maxiter), int(min(check_every, maxiter)))
    return x, report


def reconstruct_from_laplacian(laplacian, ring, **options):
    """The image whose Laplacian (interior) and outer ring are given: solve(laplacian, ring, **options)."""
    return solve(laplacian, ring, **options)
