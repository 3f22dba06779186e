"""portasolve as a method of astropy's LombScargle.

    import portasolve.astropy
    portasolve.astropy.register()
    astropy.timeseries.LombScargle(t, y, dy).power(frequency, method="portasolve")

register() adds "portasolve" to astropy's method table
(astropy.timeseries.periodograms.lombscargle.implementations.main.METHODS,
through which lombscargle(..., method=...) dispatches) and to
LombScargle.available_methods; unregister() takes it out again. astropy
hands the method t, y and dy with units stripped (dy None, a number or an
array), the frequencies as a 1-D array, and fit_mean, center_data,
normalization and any method_kwds (portasolve takes "algorithm" and
"nufft_tolerance"); nterms must be 1 (astropy refuses other values for
methods not named *chi2), and assume_regular_frequency only steers astropy's
"auto". The power is float64.
"""
import numpy as np

from . import timeseries

__all__ = ["register", "unregister", "lombscargle_portasolve", "METHOD"]

METHOD = "portasolve"


def lombscargle_portasolve(t, y, dy=None, frequency=None, normalization="standard", fit_mean=True,
                           center_data=True, algorithm="auto", nufft_tolerance=0.0):
    """astropy's implementation interface (as lombscargle_slow / lombscargle_cython) run on portasolve."""
    if frequency is None:
        raise ValueError("frequency must be given")
    t = np.asarray(t, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if dy is not None:
        dy = np.asarray(dy, dtype=np.float64)
        t, y, dy = np.broadcast_arrays(t, y, dy)
    else:
        t, y = np.broadcast_arrays(t, y)
    if t.ndim != 1:
        raise ValueError("t, y, dy should be one dimensional")
    frequency = np.asarray(frequency)
    if frequency.ndim != 1:
        raise ValueError("frequency should be one-dimensional")
    periodogram = timeseries.LombScargle(t, y, dy, fit_mean=fit_mean, center_data=center_data,
                                         normalization=normalization)
    kwds = {"nufft_tolerance": nufft_tolerance} if nufft_tolerance else None
    return periodogram.power(frequency, method=algorithm, method_kwds=kwds)


def _tables():
    from astropy.timeseries.periodograms.lombscargle import core
    from astropy.timeseries.periodograms.lombscargle.implementations import main
    return main.METHODS, core.LombScargle.available_methods


def register():
    """Makes method="portasolve" run astropy's LombScargle.power / autopower on portasolve."""
    methods, available = _tables()
    methods[METHOD] = lombscargle_portasolve
    if METHOD not in available:
        available.append(METHOD)


def unregister():
    """Takes the "portasolve" method out of astropy's tables again."""
    methods, available = _tables()
    methods.pop(METHOD, None)
    while METHOD in available:
        available.remove(METHOD)
