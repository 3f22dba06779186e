"""astropy.timeseries' calls: LombScargle (nterms up to 6, no units)."""
import math

import numpy as np

from . import _portasolve
from ._arrays import array_module, host_copy, is_gpu_array, suffix
from .signal import _is_uniform, gpu_frequencies

__all__ = ["LombScargle"]

NORMALIZATIONS = ("standard", "model", "log", "psd")
ALGORITHMS = ("auto", "direct", "tiled", "recurrence", "nufft")
# astropy's method names run on the nearest portasolve algorithm: the exact
# O(N M) sums for slow / cython / chi2, the NUFFT (to 1e-12 of the sums' scale
# in double) for fast / fastchi2.
ASTROPY_METHODS = {"slow": "tiled", "cython": "tiled", "fast": "nufft", "chi2": "direct", "fastchi2": "nufft"}
# Multi-term models (nterms > 1) run the direct algorithm (auto, chi2) or the
# NUFFT (fastchi2, as for nterms 1; evenly spaced only): the harmonic sums as
# NUFFTs, then the direct path's solve. The one-term algorithms are refused.
MULTITERM_METHODS = ("auto", "direct", "chi2", "fastchi2", "nufft")
FAP_METHODS = ("baluev", "davies", "naive", "bootstrap")
BOOTSTRAP_KWDS = ("n_bootstraps", "random_seed")


def _reject_units(value, name):
    """astropy Quantities, Time and TimeDelta are a TypeError (portasolve takes plain numbers)."""
    if hasattr(value, "unit") or type(value).__module__.startswith("astropy."):
        raise TypeError(f"{name} is an astropy {type(value).__name__}: portasolve.timeseries takes plain numbers "
                        f"(pass {name}.value in consistent units, or use astropy.timeseries.LombScargle)")


def _real_array(value, name):
    _reject_units(value, name)
    array = np.asarray(host_copy(value))  # the series are read on the host (CuPy arrays too)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a real numeric array, got dtype {array.dtype}")
    return array


def _is_list_of_series(value):
    """A list or tuple whose items are themselves 1-D arrays (a ragged batch)."""
    return isinstance(value, (list, tuple)) and len(value) > 0 and all(np.ndim(item) == 1 for item in value)


def _series_arrays(value, name, count):
    """The arrays of `name`, a list of series, which must hold as many as y (`count`)."""
    arrays = [_real_array(item, f"{name}[{s}]") for s, item in enumerate(value)]
    if len(arrays) != count:
        raise ValueError(f"{name} holds {len(arrays)} series but y holds {count}")
    return arrays


def _check_finite(values, name):
    if not np.all(np.isfinite(values)):
        index = np.argwhere(~np.isfinite(values))[0]
        where = ", ".join(str(i) for i in index)
        raise ValueError(f"{name}[{where}] is {values[tuple(index)]} (values must be finite)")


class LombScargle:
    """The generalized Lomb-Scargle periodogram, as astropy.timeseries.LombScargle.

    t, y, dy: sample times, values and uncertainties (dy None: none; a number
    applies to every sample). One series: 1-D arrays of one length. A batch of
    series on one grid of frequencies: y 2-D (series, samples) with t 1-D
    (shared) or 2-D, and dy None, a number, 1-D or 2-D (broadcast against y);
    or lists of 1-D arrays of any lengths (a ragged batch: t, y and dy lists
    of one length, or t one array shared by series of its length). Batches
    run in one call to the library, which keeps every series at its own
    length (no padding). fit_mean, center_data, normalization ("standard",
    "model", "log", "psd"): astropy's. nterms (1 to 6): astropy's multi-term
    model, the power from the normal equations as astropy's method="chi2"
    (direct algorithm; no false-alarm probability, as astropy). The power is float32 (sums in float32)
    when y, and dy if it is an array, are float32; float64 otherwise. Units (astropy
    Quantity, Time) are a TypeError; NaN or infinite values, dy <= 0 and
    mismatched shapes a ValueError.
    """

    def __init__(self, t, y, dy=None, fit_mean=True, center_data=True, nterms=1, normalization="standard"):
        for value, name in ((t, "t"), (y, "y"), (dy, "dy")):
            _reject_units(value, name)
        if normalization not in NORMALIZATIONS:
            raise ValueError(f"normalization {normalization!r} is not one of {', '.join(NORMALIZATIONS)}")
        maximum = _portasolve.lombscargle_max_nterms
        if isinstance(nterms, bool) or not isinstance(nterms, (int, np.integer)) or not 1 <= nterms <= maximum:
            raise ValueError(f"nterms must be an integer from 1 to {maximum}, got {nterms!r}")
        self.fit_mean = bool(fit_mean)
        self.center_data = bool(center_data)
        self.normalization = normalization
        self.nterms = int(nterms)
        if _is_list_of_series(y):
            self._ragged = True
            ys = [_real_array(item, f"y[{s}]") for s, item in enumerate(y)]
            count = len(ys)
            if _is_list_of_series(t):
                ts = _series_arrays(t, "t", count)
            else:
                shared = _real_array(t, "t")
                if shared.ndim != 1:
                    raise ValueError(f"t must be a list of 1-D arrays or one 1-D array with y a list, "
                                     f"got shape {shared.shape}")
                ts = [shared] * count
            if dy is None:
                dys = [None] * count
            elif _is_list_of_series(dy):
                dys = _series_arrays(dy, "dy", count)
            else:
                scalar = _real_array(dy, "dy")
                if scalar.ndim != 0:
                    raise ValueError("dy must be None, a number or a list of 1-D arrays when y is a list")
                dys = [np.full(item.shape, float(scalar)) for item in ys]
            for s in range(count):
                if ts[s].shape != ys[s].shape:
                    raise ValueError(f"series {s}: t has {ts[s].size} samples but y has {ys[s].size}")
                if dys[s] is not None and dys[s].shape != ys[s].shape:
                    raise ValueError(f"series {s}: y has {ys[s].size} samples but dy has {dys[s].size}")
            self._shape = None
        else:
            self._ragged = False
            y_array = _real_array(y, "y")
            t_array = _real_array(t, "t")
            if y_array.ndim not in (1, 2):
                raise ValueError(f"y must be 1-D (one series) or 2-D (series, samples), got shape {y_array.shape}")
            if t_array.shape != y_array.shape and not (t_array.ndim == 1 and t_array.shape == y_array.shape[-1:]):
                raise ValueError(f"t of shape {t_array.shape} does not match y of shape {y_array.shape} "
                                 f"(t is y's shape, or 1-D of y's last length)")
            dy_array = None
            if dy is not None:
                dy_array = _real_array(dy, "dy")
                try:
                    dy_array = np.broadcast_to(dy_array, y_array.shape)
                except ValueError:
                    raise ValueError(f"dy of shape {dy_array.shape} does not broadcast to y's shape "
                                     f"{y_array.shape}") from None
            rows = y_array.reshape(-1, y_array.shape[-1])
            ys = list(rows)
            ts = [t_array] * len(ys) if t_array.ndim == 1 else list(t_array.reshape(rows.shape))
            dys = [None] * len(ys) if dy_array is None else list(dy_array.reshape(rows.shape))
            self._shape = y_array.shape
        # float32 sums when y is float32 and dy, unless None or one number, is too
        scalar_dy = dy is not None and not _is_list_of_series(dy) and np.ndim(dy) == 0
        self._single = all(item.dtype == np.float32 for item in ys) and (
            scalar_dy or all(item is None or item.dtype == np.float32 for item in dys))
        self._t = [np.ascontiguousarray(item, dtype=np.float64) for item in ts]
        self._y = [np.ascontiguousarray(item, dtype=np.float64) for item in ys]
        self._dy = None if dys[0] is None else [np.ascontiguousarray(item, dtype=np.float64) for item in dys]
        self.t, self.y, self.dy = t, y, dy
        needed = (1 if self.fit_mean else 0) + 2 * self.nterms  # the model's parameters
        for s in range(len(self._y)):
            prefix = f"series {s}: " if self._batched else ""
            if self._y[s].size < needed:
                raise ValueError(f"{prefix}needs at least {needed} samples"
                                 f"{' with fit_mean' if self.fit_mean else ''}"
                                 f"{f' and nterms {self.nterms}' if self.nterms > 1 else ''}, got {self._y[s].size}")
            _check_finite(self._t[s], prefix + "t")
            _check_finite(self._y[s], prefix + "y")
            if self._dy is not None:
                _check_finite(self._dy[s], prefix + "dy")
                if not np.all(self._dy[s] > 0):
                    raise ValueError(f"{prefix}dy must be > 0 (uncertainties), got {self._dy[s].min()}")

    @property
    def _batched(self):
        return self._ragged or len(self._shape) == 2

    # Frequencies --------------------------------------------------------

    @staticmethod
    def _grid_rule(t, samples_per_peak, nyquist_factor, minimum_frequency, maximum_frequency):
        """astropy 5.2's autofrequency for one series: (first, step, count)."""
        baseline = t.max() - t.min()
        if not baseline > 0:
            raise ValueError("autofrequency: the times span no interval (max(t) == min(t))")
        df = 1.0 / baseline / samples_per_peak
        first = 0.5 * df if minimum_frequency is None else minimum_frequency
        if maximum_frequency is None:
            maximum_frequency = nyquist_factor * (0.5 * t.size / baseline)
        count = 1 + int(np.round((maximum_frequency - first) / df))
        return first, df, count

    def _grids(self, samples_per_peak, nyquist_factor, minimum_frequency, maximum_frequency):
        for value, name in ((minimum_frequency, "minimum_frequency"), (maximum_frequency, "maximum_frequency")):
            _reject_units(value, name)
        rules = []
        for t in self._t:
            rules.append(self._grid_rule(t, samples_per_peak, nyquist_factor, minimum_frequency, maximum_frequency))
        return rules

    def _shared(self, rules):
        return all(rule == rules[0] for rule in rules)

    def autofrequency(self, samples_per_peak=5, nyquist_factor=5, minimum_frequency=None, maximum_frequency=None,
                      return_freq_limits=False):
        """astropy's frequency grid: df = 1 / (baseline samples_per_peak), from
        minimum_frequency (df / 2) to maximum_frequency (nyquist_factor times
        the average Nyquist frequency N / (2 baseline)) rounded to whole steps.
        A batch whose series all give one grid returns it; otherwise a list,
        one grid (or pair of limits) per series."""
        rules = self._grids(samples_per_peak, nyquist_factor, minimum_frequency, maximum_frequency)

        def make(rule):
            first, df, count = rule
            if count < 1:
                raise ValueError(f"autofrequency: maximum_frequency is below minimum_frequency ({first})")
            if return_freq_limits:
                return first, first + df * (count - 1)
            return first + df * np.arange(count)

        if self._shared(rules):
            return make(rules[0])
        return [make(rule) for rule in rules]

    # Power -----------------------------------------------------------------

    def _compute(self, series, frequency, normalization, algorithm, uniform, nufft_tolerance, count=0, xp=np):
        """power[series, M] (NumPy, or CuPy for xp=cupy: computed into GPU memory);
        count > 0: frequency holds the two ends of count uniform frequencies."""
        t = np.concatenate([self._t[s] for s in series])
        y = np.concatenate([self._y[s] for s in series])
        dy = np.empty(0) if self._dy is None else np.concatenate([self._dy[s] for s in series])
        offsets = np.zeros(len(series) + 1, dtype=np.int64)
        np.cumsum([self._y[s].size for s in series], out=offsets[1:])
        compute = getattr(_portasolve, "lombscargle_generalized_" +
                          suffix(np.float32 if self._single else np.float64))
        power = xp.empty((len(series), count or frequency.size), dtype=np.float32 if self._single else np.float64)
        compute(t, y, dy, offsets, frequency, power, self.fit_mean, self.center_data, normalization, algorithm,
                uniform, float(nufft_tolerance), self.nterms, count)
        return power

    def _prepare(self, frequency, normalization, method, assume_regular_frequency, method_kwds):
        _reject_units(frequency, "frequency")
        if normalization is None:
            normalization = self.normalization
        if normalization not in NORMALIZATIONS:
            raise ValueError(f"normalization {normalization!r} is not one of {', '.join(NORMALIZATIONS)}")
        shape = np.shape(frequency)  # the power's shape (a GPU array's too)
        count = 0
        if is_gpu_array(frequency):  # checked on the GPU; evenly spaced ones pass as their ends and count
            frequency, uniform, count = gpu_frequencies(array_module(frequency).ravel(frequency), "frequency")
        frequency = np.asarray(frequency)
        if frequency.dtype.kind not in "biuf":
            raise TypeError(f"frequency must be a real numeric array, got dtype {frequency.dtype}")
        frequency = np.ascontiguousarray(frequency.ravel(), dtype=np.float64)
        if frequency.size == 0:
            raise ValueError("frequency is empty")
        _check_finite(frequency, "frequency")
        if not np.all(frequency > 0):
            raise ValueError("frequency must be > 0 (ordinary frequencies, cycles per unit of t)")
        kwds = dict(method_kwds or {})
        nufft_tolerance = kwds.pop("nufft_tolerance", 0.0)
        if kwds:
            raise TypeError(f"unknown method_kwds {sorted(kwds)} (portasolve takes nufft_tolerance)")
        if self.nterms > 1:
            if method not in MULTITERM_METHODS:
                raise ValueError(f"method {method!r} computes nterms=1 only; nterms={self.nterms} runs one of "
                                 f"{', '.join(MULTITERM_METHODS)} (the direct or nufft algorithm)")
            method = "nufft" if method in ("fastchi2", "nufft") else "direct"
        algorithm = ASTROPY_METHODS.get(method, method)
        if algorithm not in ALGORITHMS:
            raise ValueError(f"method {method!r} is not one of {', '.join(ALGORITHMS + tuple(ASTROPY_METHODS))}")
        if count:
            pass  # uniform, from the GPU check
        elif assume_regular_frequency and frequency.size >= 2:
            uniform = bool(frequency[-1] > frequency[0])
        else:
            uniform = _is_uniform(frequency)
        if algorithm == "auto":
            algorithm = "recurrence" if uniform else "tiled"
        elif algorithm in ("recurrence", "nufft") and not uniform:
            raise ValueError(f"method {method!r} needs evenly spaced increasing frequencies")
        return frequency, shape, normalization, algorithm, uniform, nufft_tolerance, count

    def power(self, frequency, normalization=None, method="auto", assume_regular_frequency=False,
              method_kwds=None):
        """The power at ordinary frequencies (any shape, > 0), as astropy's
        LombScargle.power. One series: frequency's shape; a batch: (series,) +
        frequency's shape, every series on the same frequencies.

        method: "auto" runs evenly spaced frequencies through the angle-addition
        recurrence and others through the direct sums, both exact to rounding;
        "direct", "tiled", "recurrence", "nufft" choose one; astropy's "slow"
        and "cython" run "tiled", "fast" and "fastchi2" run "nufft" (evenly spaced only; to
        1e-12 of the sums' scale in double, method_kwds={"nufft_tolerance": e}
        changes that), "chi2" runs "direct". nterms > 1: "auto", "direct" and
        "chi2" run the direct multi-term sums, "fastchi2" and "nufft" the
        NUFFT's (evenly spaced only), others are a ValueError. assume_regular_frequency: take the frequencies as evenly
        spaced without checking (from their ends and count). A CuPy frequency
        array (CUDA builds): the power is computed into a CuPy array on the
        GPU (the series' t, y, dy are read on the host)."""
        xp = array_module(frequency)  # a CuPy frequency array: the power is a CuPy array
        frequency, shape, normalization, algorithm, uniform, tolerance, count = self._prepare(
            frequency, normalization, method, assume_regular_frequency, method_kwds)
        power = self._compute(range(len(self._y)), frequency, normalization, algorithm, uniform, tolerance, count, xp)
        if not self._batched:
            return power[0].reshape(shape)
        return power.reshape((len(self._y),) + shape)

    def autopower(self, method="auto", method_kwds=None, normalization=None, samples_per_peak=5, nyquist_factor=5,
                  minimum_frequency=None, maximum_frequency=None):
        """(frequency, power) on autofrequency's grid, as astropy's
        LombScargle.autopower. A batch whose series give different grids (their
        own t) returns lists: each series' grid and its power."""
        frequency = self.autofrequency(samples_per_peak, nyquist_factor, minimum_frequency, maximum_frequency)
        if not isinstance(frequency, list):
            return frequency, self.power(frequency, normalization, method, True, method_kwds)
        powers = []
        for s, grid in enumerate(frequency):
            grid, _, norm, algorithm, uniform, tolerance, _ = self._prepare(grid, normalization, method, True,
                                                                            method_kwds)
            powers.append(self._compute([s], grid, norm, algorithm, uniform, tolerance)[0])
        return frequency, powers

    # False-alarm probability -----------------------------------------------

    def _fap_setup(self, method, samples_per_peak, nyquist_factor, minimum_frequency, maximum_frequency,
                   method_kwds):
        """Each series' highest frequency searched and, for the bootstrap, its
        sorted resampled maxima (else None)."""
        if self.nterms != 1:
            raise NotImplementedError("false alarm probability is not implemented for multiterm periodograms "
                                      "(nterms > 1), as in astropy")
        if not (self.fit_mean or self.center_data):
            raise NotImplementedError("false alarm probability is implemented only for periodograms of centered "
                                      "data (fit_mean or center_data)")
        if method not in FAP_METHODS:
            raise ValueError(f"method {method!r} is not one of {', '.join(FAP_METHODS)}")
        kwds = dict(method_kwds or {})
        if method != "bootstrap" and kwds:
            raise TypeError(f"the {method} method takes no method_kwds, got {sorted(kwds)}")
        unknown = sorted(set(kwds) - set(BOOTSTRAP_KWDS))
        if unknown:
            raise TypeError(f"unknown method_kwds {unknown} (bootstrap takes {', '.join(BOOTSTRAP_KWDS)})")
        rules = self._grids(samples_per_peak, nyquist_factor, minimum_frequency, maximum_frequency)
        fmax = [first + df * (count - 1) for first, df, count in rules]
        if method != "bootstrap":
            return fmax, None
        return fmax, self._bootstrap_maxima(fmax, int(kwds.get("n_bootstraps", 1000)), kwds.get("random_seed"))

    def _bootstrap_maxima(self, fmax, resamples, random_seed):
        """astropy's _bootstrap_max for every series, as device batches: the
        highest power on autofrequency's default grid up to fmax of
        `resamples` copies of the series drawn with replacement (y and dy
        together), fit_mean and center_data as astropy's resamples have them.
        random_seed (None, an int or a NumPy seed) fixes the draws; they are
        not NumPy's, so they differ from astropy's for the same seed."""
        if resamples < 1:
            raise ValueError(f"n_bootstraps must be >= 1, got {resamples}")
        seed = int(np.random.default_rng(random_seed).integers(0, 2**63))
        maxima = [None] * len(self._y)
        groups = {}
        for s, top in enumerate(fmax):  # series with one grid go together
            groups.setdefault(self._grid_rule(self._t[s], 5, 5, None, top), []).append(s)
        compute = getattr(_portasolve, "lombscargle_bootstrap_maxima_" +
                          suffix(np.float32 if self._single else np.float64))
        for (first, df, count), series in groups.items():
            if count < 1:
                raise ValueError(f"bootstrap: maximum_frequency is below the grid's first frequency ({first})")
            t = np.concatenate([self._t[s] for s in series])
            y = np.concatenate([self._y[s] for s in series])
            dy = np.empty(0) if self._dy is None else np.concatenate([self._dy[s] for s in series])
            offsets = np.zeros(len(series) + 1, dtype=np.int64)
            np.cumsum([self._y[s].size for s in series], out=offsets[1:])
            grid = first + df * np.arange(count)
            rows = compute(t, y, dy, offsets, grid, True, True, self.normalization, True, resamples, seed)
            for row, s in zip(rows, series):
                maxima[s] = row
        return maxima

    def _per_series(self, values, name):
        """values split by series: the whole array for one series, rows of a batch."""
        if not self._batched:
            return [np.asarray(values, dtype=np.float64)]
        if self._ragged and isinstance(values, (list, tuple)):
            split = [np.asarray(item, dtype=np.float64) for item in values]
        else:
            split = list(np.asarray(values, dtype=np.float64))
        if len(split) != len(self._y):
            raise ValueError(f"{name} must hold one entry (or row) per series ({len(self._y)}), got {len(split)}")
        return split

    def _null(self, s):
        return _NullModel(self._t[s], None if self._dy is None else self._dy[s])

    def false_alarm_probability(self, power, method="baluev", samples_per_peak=5, nyquist_factor=5,
                                minimum_frequency=None, maximum_frequency=None, method_kwds=None):
        """The probability that noise alone gives a highest peak this high,
        as astropy's LombScargle.false_alarm_probability (methods "baluev",
        "davies", "naive", and "bootstrap" with method_kwds n_bootstraps
        (1000) and random_seed; the maximum frequency searched is
        autofrequency's with the same arguments). A batch takes one power (or
        a row of powers) per series and gives the same shape back. The
        bootstrap's resampled periodograms run as one batch on the device."""
        _reject_units(power, "power")
        fmax, maxima = self._fap_setup(method, samples_per_peak, nyquist_factor, minimum_frequency,
                                       maximum_frequency, method_kwds)
        results = []
        for s, heights in enumerate(self._per_series(power, "power")):
            null = self._null(s)
            if method == "bootstrap":  # astropy's fap_bootstrap: the share of maxima >= the height
                fap = 1 - np.searchsorted(maxima[s], heights) / maxima[s].size
            elif self.normalization == "standard":
                flat = np.ascontiguousarray(heights.ravel())
                dy = np.empty(0) if null.dy is None else null.dy
                fap = _portasolve.lombscargle_fap(flat, null.t, dy, float(fmax[s]), method).reshape(heights.shape)
            else:
                fap = null.fap(heights, fmax[s], self.normalization, method)
            results.append(fap)
        return self._assemble(results, power)

    def false_alarm_level(self, false_alarm_probability, method="baluev", samples_per_peak=5, nyquist_factor=5,
                          minimum_frequency=None, maximum_frequency=None, method_kwds=None):
        """The peak height whose false-alarm probability is the given one (0 < p
        < 1), as astropy's LombScargle.false_alarm_level: closed form for
        "naive", a bracketed root of the "baluev" or "davies" probability (to
        float64 rounding of the height), the (1 - p) quantile of the resampled
        maxima for "bootstrap"."""
        fmax, maxima = self._fap_setup(method, samples_per_peak, nyquist_factor, minimum_frequency,
                                       maximum_frequency, method_kwds)
        results = []
        for s, probability in enumerate(self._per_series(false_alarm_probability, "false_alarm_probability")):
            if not np.all((probability > 0) & (probability < 1)):
                raise ValueError("false_alarm_probability must lie in (0, 1)")
            if method == "bootstrap":  # astropy's inv_fap_bootstrap
                index = np.clip(np.floor((1 - probability) * maxima[s].size).astype(int), 0, maxima[s].size - 1)
                results.append(maxima[s][index])
            else:
                results.append(self._null(s).level(probability, fmax[s], self.normalization, method))
        return self._assemble(results, false_alarm_probability)

    def _assemble(self, results, like):
        if not self._batched:
            return results[0]
        if self._ragged and isinstance(like, (list, tuple)):
            return results
        return np.stack(results)

    def distribution(self, power, cumulative=False):
        """astropy's single-frequency null distribution of the power (density,
        or cumulative), for one series."""
        if self._batched:
            raise ValueError("distribution() takes one series (make a LombScargle of that series)")
        if self.nterms != 1:  # astropy's: 2 nterms degrees of freedom have no closed form there
            raise NotImplementedError("distribution is implemented for nterms=1 only (degrees of freedom != 2), "
                                      "as in astropy")
        n_model = self._y[0].size - 3 if (self.fit_mean or self.center_data) else self._y[0].size - 2
        z = np.asarray(power, dtype=np.float64)
        if cumulative:
            return 1 - _fap_single(z, n_model, self.normalization)
        if self.normalization == "psd":
            return np.exp(-z)
        if self.normalization == "standard":
            return 0.5 * n_model * (1 - z) ** (0.5 * n_model - 1)
        if self.normalization == "model":
            return 0.5 * n_model * (1 + z) ** (-0.5 * n_model - 1)
        return 0.5 * n_model * np.exp(-0.5 * n_model * z)


# Baluev (2008, MNRAS 385, 1279), Table 1 and eqs. 5-6, as astropy writes
# them: the standard normalization's probability runs in the library
# (solvers/lombscargle/fap.cpp); the other normalizations and the inverse here.

def _gamma_factor(n):
    return math.sqrt(2 / n) * math.exp(math.lgamma(n / 2) - math.lgamma((n - 1) / 2))


def _fap_single(z, n_model, normalization):
    if normalization == "psd":
        return np.exp(-z)
    if normalization == "standard":
        return (1 - z) ** (0.5 * n_model)
    if normalization == "model":
        return (1 + z) ** (-0.5 * n_model)
    return np.exp(-0.5 * n_model * z)


class _NullModel:
    """What a series' false-alarm probability depends on: N, the baseline and
    the (1 / dy^2 weighted) variance of t."""

    def __init__(self, t, dy):
        self.t, self.dy = t, dy
        self.n = t.size
        self.baseline = t.max() - t.min()
        if dy is None:
            self.variance = np.mean(t ** 2) - np.mean(t) ** 2
        else:
            w = dy ** -2.0
            self.variance = (t ** 2 * w).sum() / w.sum() - ((t * w).sum() / w.sum()) ** 2

    def tau(self, z, fmax, normalization):
        n_null, n_model = self.n - 1, self.n - 3
        width = fmax * np.sqrt(4 * np.pi * self.variance)
        if normalization == "psd":
            return width * np.exp(-z) * np.sqrt(z)
        if normalization == "standard":
            return _gamma_factor(n_null) * width * (1 - z) ** (0.5 * (n_model - 1)) * np.sqrt(0.5 * n_null * z)
        if normalization == "model":
            return _gamma_factor(n_model) * width * (1 + z) ** (-0.5 * n_model) * np.sqrt(0.5 * n_model * z)
        return _gamma_factor(n_model) * width * np.exp(-0.5 * z * (n_model - 0.5)) * np.sqrt(
            n_model * np.sinh(0.5 * z))

    def fap(self, z, fmax, normalization, method):
        z = np.asarray(z, dtype=np.float64)
        single = _fap_single(z, self.n - 3, normalization)
        if method == "naive":
            with np.errstate(divide="ignore"):
                return -np.expm1(fmax * self.baseline * np.log1p(-single))
        tau = self.tau(z, fmax, normalization)
        if method == "davies":  # the upper bound Baluev's tightens (may exceed 1)
            return single + tau
        return -np.expm1(-tau) + single * np.exp(-tau)

    def level(self, p, fmax, normalization, method):
        p = np.asarray(p, dtype=np.float64)
        n_model = self.n - 3
        single = -np.expm1(np.log(1 - p) / (fmax * self.baseline))
        if normalization == "psd":
            naive = -np.log(single)
        elif normalization == "standard":
            naive = 1 - single ** (2 / n_model)
        elif normalization == "model":
            naive = -1 + single ** (-2 / n_model)
        else:
            naive = -2 / n_model * np.log(single)
        if method == "naive":
            return naive
        return np.vectorize(lambda target: self._solve(target, fmax, normalization, method))(p)

    def _solve(self, target, fmax, normalization, method):
        """The height z where the method's probability is target, by bisection (the probability falls with z
        above the heights the levels of 0 < p < 1 lie at)."""
        f = lambda z: float(self.fap(z, fmax, normalization, method)) - target  # noqa: E731
        lo, hi = 0.0, 1.0
        if normalization != "standard":
            while f(hi) > 0:
                lo, hi = hi, 2 * hi
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi):
                break
            if f(mid) > 0:
                lo = mid
            else:
                hi = mid
        return 0.5 * (lo + hi)
