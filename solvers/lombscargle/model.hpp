#pragma once
// The best-fit sinusoid at one frequency: the weighted least-squares model
// whose reduction of chi^2 the periodogram measures, as astropy's
// LombScargle.model_parameters (nterms = 1) and SciPy 1.15 define it.
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

}  // namespace portasolve::lombscargle
