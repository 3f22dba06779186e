"""portasolve's solvers on NumPy arrays, with SciPy's names and arguments.

    import portasolve
    portasolve.info()                                  # backend, device, versions
    portasolve.signal.lombscargle(x, y, freqs)         # scipy.signal.lombscargle
    portasolve.timeseries.LombScargle(t, y, dy).power(f)  # astropy.timeseries.LombScargle
    portasolve.astropy.register()                      # astropy's LombScargle(...).power(f, method="portasolve")
    portasolve.ndimage.uniform_filter(img, 5)          # scipy.ndimage.uniform_filter
    portasolve.ndimage.gaussian_filter(img, 2.0)       # scipy.ndimage.gaussian_filter
    portasolve.ndimage.correlate(img, weights)         # scipy.ndimage.correlate (positive sums)
    portasolve.poisson.solve(rhs, boundary)            # 5-point Laplacian L x = rhs
    portasolve.lorenz05.Ensemble(model=3, members=40)  # Lorenz 2005 ensembles, .advance(steps)

Kokkos starts on the first call that needs it and is finalized when the
interpreter exits. An unset OMP_PROC_BIND is stated as the binding the OpenMP
runtime chose, as the command line does (set OMP_PROC_BIND=spread
OMP_PLACES=threads before importing for the fastest solves).
"""
import atexit as _atexit

from . import _portasolve
from . import astropy, lorenz05, ndimage, poisson, signal, timeseries

__version__ = _portasolve.__version__
__all__ = ["astropy", "info", "lorenz05", "ndimage", "poisson", "signal", "timeseries", "__version__"]

_atexit.register(_portasolve.finalize)


class Info(dict):
    """The build's backend, device and versions: a dict that prints as a table."""

    def __repr__(self):
        width = max(len(key) for key in self)
        return "\n".join(f"{key + ':':<{width + 1}} {value}" for key, value in self.items())

    __str__ = __repr__


def info():
    """Backend, device and versions (Kokkos, portasolve) of this build, and whether it takes GPU arrays, as a dict."""
    return Info(_portasolve.info())
