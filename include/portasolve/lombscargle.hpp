#pragma once
// portasolve's Lomb-Scargle periodograms of unevenly sampled time series,
// one series or batches, classic and generalised forms, direct, recurrence
// and NUFFT algorithms, float or double.
//
//   lombscargle::periodogram<T>(batch, grid, options) -> View2D<T>
//       batch:   std::vector<Series> (t, y, optional dy or classic weights, on the host);
//       grid:    FrequencyGrid (uniform or explicit frequencies);
//       options: Options (form, normalization, centering, nterms, algorithm);
//       returns power(series, frequency) in the default memory space.
//   lombscargle::Periodogram<T>: the same in two steps (construct = check and
//       upload; compute() launches asynchronously; power()).
//   lombscargle false-alarm probabilities: fap.hpp (baluev, davies, naive),
//       bootstrap.hpp (bootstrap_maxima: resampled periodograms on the device).
//   lombscargle::fit_sinusoid(series, frequency, options) -> SinusoidFit: the
//       best-fit sinusoid's amplitude, phase and offset (model.hpp).
//   Options::nterms > 1: astropy's multi-term model (method="chi2"), direct
//       algorithm (multiterm.hpp).
// Errors: InputError (core/errors.hpp) for NaN/Inf, dy <= 0, too few samples,
// mismatched lengths or bad grids; OptionError for options that do not go
// together (nterms > 1 with the classic form or a one-term algorithm).
#include "solvers/lombscargle/bootstrap.hpp"
#include "solvers/lombscargle/fap.hpp"
#include "solvers/lombscargle/grid.hpp"
#include "solvers/lombscargle/model.hpp"
#include "solvers/lombscargle/options.hpp"
#include "solvers/lombscargle/periodogram.hpp"
