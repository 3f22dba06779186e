#pragma once
// The best-fit sinusoid at one frequency: the weighted least-squares model
// whose reduction of chi^2 the periodogram measures, as astropy's
// LombScargle.model_parameters (nterms = 1) and SciPy 1.15 define it; and
// astropy's multi-term model's parameters (fit_model).
#include <vector>

#include "solvers/lombscargle/options.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace portasolve::lombscargle {

// y(t) ~ offset + amplitude sin(2 pi frequency t + phase), amplitude >= 0,
// phase in (-pi, pi].
struct SinusoidFit {
  double amplitude, phase, offset;
};

// The fit of one series at `frequency` (cycles per unit time), on the host in
// double, with the form's weights and mean: generalized: weights 1 / dy^2 (1
// without dy), y less its weighted mean when center_data or fit_mean, an
// offset fitted with fit_mean (the mean added back); classic: SciPy 1.15's
// weights (1 without), y less its plain mean with precenter, an offset
// fitted with floating_mean. Without a fitted offset, offset is the mean
// removed (0 when none was). The series must be valid for a periodogram
// (Periodogram's checks); a singular system (e.g. all samples at the same
// phase) gives NaN.
// The overload with an execution space instance is the same host
// arithmetic: nothing runs on exec, nor waits for it (the series is on the
// host); it is there so that every entry point takes an instance.
SinusoidFit fit_sinusoid(const Series& series, double frequency, const Options& options);
SinusoidFit fit_sinusoid(const ExecSpace& exec, const Series& series, double frequency, const Options& options);

// The generalized form's best-fit model of options.nterms Fourier terms, as
// astropy 5.2's LombScargle(t, y, dy, fit_mean, center_data,
// nterms).model_parameters(frequency) defines it: `parameters` are the
// weighted (1 / dy^2, 1 without dy) least-squares coefficients of the columns
// [1 (with fit_mean)], sin(2 pi k frequency t), cos(2 pi k frequency t) for k =
// 1..nterms in that order, at the times as given, fitted to y less `mean`
// (its weighted mean with center_data, as astropy's offset(); else 0), which
// is not among them. `offset` is the model's constant, `mean` plus the fitted
// one: y(t) ~ offset + sum_k a_k sin(2 pi k f t) + b_k cos(2 pi k f t), the
// summary's offset for every nterms. On the host in double, by Householder QR
// of the weighted design matrix (astropy solves the normal equations: the
// same fit, to their rounding); a column dependent on the others to rounding
// (e.g. every k f t an integer) is left out, as the periodogram leaves it
// out: its coefficient 0, the others the least-squares fit without it. The
// series must be valid for a periodogram; the classic form is an OptionError
// at "form".
// The instance overload, as fit_sinusoid's, runs nothing on exec.
struct ModelFit {
  std::vector<double> parameters;  // (fit_mean) + 2 nterms
  double mean, offset;
};
ModelFit fit_model(const Series& series, double frequency, const Options& options);
ModelFit fit_model(const ExecSpace& exec, const Series& series, double frequency, const Options& options);

}  // namespace portasolve::lombscargle
