#pragma once
// portasolve's Lomb-Scargle periodograms of unevenly sampled time series,
// one series or batches, classic and generalised forms, direct, recurrence
// and NUFFT algorithms, float or double.
//
//   lombscargle::periodogram<T>([exec,] batch, grid, options) -> View2D<T>
//       exec:    the ExecSpace instance (a CUDA stream, say) every upload,
//                kernel, FFT and copy runs on, in order after its earlier
//                work; the caller fences its own earlier work on other
//                instances. Without it: ExecSpace(), the default one;
//       batch:   std::vector<Series> (t, y, optional dy or classic weights, on the host);
//       grid:    FrequencyGrid (uniform or explicit frequencies);
//       options: Options (form, normalization, centering, nterms, algorithm);
//       returns power(series, frequency) in the default memory space, computed
//       (it waits for exec before freeing its inputs).
//   lombscargle::Periodogram<T>([exec,] batch, grid, options[, checked_batch]):
//       the same in two steps (construct = check and upload, on exec, done on
//       return; compute() launches on exec asynchronously: fence exec, or
//       deep_copy on exec and fence it, before the host reads power(); the
//       instance is kept for every later compute(), execution_space() returns
//       it; the destructor fences it).
//   lombscargle::find_peaks([exec,] power, count) -> PeakTable: the highest
//       peaks of each row, selected on the device (peaks.hpp); on the host on
//       return.
//   lombscargle false-alarm probabilities: fap.hpp (baluev, davies, naive:
//       host formulas, no instance), bootstrap.hpp (bootstrap_maxima([exec,]
//       ...): resampled periodograms on the device, on the host on return).
//   lombscargle::fit_sinusoid([exec,] series, frequency, options) -> SinusoidFit:
//       the best-fit sinusoid's amplitude, phase and offset (model.hpp), host
//       arithmetic: nothing runs on exec.
//   Options::nterms > 1: astropy's multi-term model (method="chi2"), direct
//       or (uniform grids) NUFFT algorithm (multiterm.hpp, nufft.hpp).
//   Instances: objects and calls on different instances share nothing on the
//   device and may run at once. Host-only helpers (grids, check_batch,
//   check_options, resolve_algorithm, fap.hpp) take no instance.
// Errors (core/errors.hpp): InputError for an empty batch, NaN/Inf, dy <= 0,
// dy with the classic form, bad weights (negative, summing to 0, with the
// generalized form), too few samples, mismatched lengths, bad grids (empty,
// frequencies not positive and finite, a maximum below the minimum;
// recurrence or nufft on an explicit grid), nufft_tolerance outside (0, 1),
// nufft_grid_limit not a power of two >= 64, fap.hpp's inputs (fewer than 4 samples, a standard power
// outside [0, 1]); OptionError (an std::invalid_argument naming the field of
// Options, BootstrapOptions or the fap method) for options that do not go
// together: floating_mean with the generalized form, nterms outside [1,
// max_nterms], nterms > 1 with the classic form or a one-term algorithm,
// compute_multiterm with the classic form, bootstrap with the classic form,
// nterms > 1 or no resamples, a formula false-alarm probability asked for
// bootstrap; std::invalid_argument for an unknown fap method name; Kokkos'
// own (std::runtime_error when memory runs out).
#include "solvers/lombscargle/bootstrap.hpp"
#include "solvers/lombscargle/fap.hpp"
#include "solvers/lombscargle/grid.hpp"
#include "solvers/lombscargle/model.hpp"
#include "solvers/lombscargle/options.hpp"
#include "solvers/lombscargle/peaks.hpp"
#include "solvers/lombscargle/periodogram.hpp"
