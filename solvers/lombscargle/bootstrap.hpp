#pragma once
// Bootstrap false-alarm probabilities, as astropy's method="bootstrap"
// defines them: the periodogram's highest power is recomputed for many
// copies of the series resampled with replacement (y and dy drawn together,
// t kept), and the probability of a peak z is the fraction of those maxima
// at or above z. The resampled periodograms run as batches on the device.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "solvers/lombscargle/grid.hpp"
#include "solvers/lombscargle/options.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace portasolve::lombscargle {

struct BootstrapOptions {
  std::size_t resamples = 1000;  // astropy's n_bootstraps
  std::uint64_t seed = 0;        // the draws are a function of (seed, series index) only
  // Resampled periodograms computed together (0: as many as keep one
  // launch's power array within 256 MiB). Bounds memory; results do not
  // depend on it.
  std::size_t periodograms_per_launch = 0;
};

// The sample indices of resample `resample` of series `series` (its index
// in the whole catalogue) with `samples` samples: `samples` draws from
// [0, samples) with replacement. The same on every backend, rank split and
// chunking (one 64-bit Mersenne twister per series, seeded by the seed and
// the series index; unbiased draws by rejection).
std::vector<std::size_t> bootstrap_draws(const BootstrapOptions& bootstrap, std::size_t series, std::size_t resample,
                                         std::size_t samples);

// Per series of `batch` (series first + s of a catalogue of `total`; 0:
// the batch is the catalogue), the highest finite power of each resampled
// periodogram on `grid` with `options`, sorted ascending (a resample whose
// periodogram has no finite power, such as all-equal values, counts as 0).
// InputError as Periodogram's for bad series, naming them by catalogue
// index; OptionError for the classic form, nterms > 1, or resamples = 0.
// On exec: every upload, periodogram and peak search runs there, in order
// after the work already queued (the caller fences its own earlier work on
// other instances); it returns with the maxima on the host (exec fenced, no
// other instance). Without `exec`: ExecSpace(), the default one.
template <class T>
std::vector<std::vector<double>> bootstrap_maxima(const ExecSpace& exec, const std::vector<Series>& batch,
                                                  const FrequencyGrid& grid, const Options& options,
                                                  const BootstrapOptions& bootstrap, std::size_t first = 0,
                                                  std::size_t total = 0);
template <class T>
std::vector<std::vector<double>> bootstrap_maxima(const std::vector<Series>& batch, const FrequencyGrid& grid,
                                                  const Options& options, const BootstrapOptions& bootstrap,
                                                  std::size_t first = 0, std::size_t total = 0);

// bootstrap_maxima in two steps, for a grid split into ranges
// (frequency_range; over MPI ranks): the first gives each resample's highest
// finite power on `grid`, in resample order, -inf where there is none; the
// maximum over the ranges, resample by resample, is the whole grid's (for an
// algorithm that gives a range the whole grid's bits, options.algorithm
// resolved on the whole grid); the second turns the rows into
// bootstrap_maxima's answer (-inf counted as 0, sorted).
template <class T>
std::vector<std::vector<double>> bootstrap_resample_maxima(const ExecSpace& exec, const std::vector<Series>& batch,
                                                           const FrequencyGrid& grid, const Options& options,
                                                           const BootstrapOptions& bootstrap, std::size_t first = 0,
                                                           std::size_t total = 0);
void finish_bootstrap_maxima(std::vector<std::vector<double>>& maxima);

// astropy's fap_bootstrap: the fraction of `sorted_maxima` >= power.
double fap_bootstrap(double power, const std::vector<double>& sorted_maxima);

extern template std::vector<std::vector<double>> bootstrap_resample_maxima<float>(const ExecSpace&,
                                                                                  const std::vector<Series>&,
                                                                                  const FrequencyGrid&, const Options&,
                                                                                  const BootstrapOptions&, std::size_t,
                                                                                  std::size_t);
extern template std::vector<std::vector<double>> bootstrap_resample_maxima<double>(const ExecSpace&,
                                                                                   const std::vector<Series>&,
                                                                                   const FrequencyGrid&, const Options&,
                                                                                   const BootstrapOptions&, std::size_t,
                                                                                   std::size_t);
extern template std::vector<std::vector<double>> bootstrap_maxima<float>(const ExecSpace&, const std::vector<Series>&,
                                                                         const FrequencyGrid&, const Options&,
                                                                         const BootstrapOptions&, std::size_t,
                                                                         std::size_t);
extern template std::vector<std::vector<double>> bootstrap_maxima<double>(const ExecSpace&, const std::vector<Series>&,
                                                                          const FrequencyGrid&, const Options&,
                                                                          const BootstrapOptions&, std::size_t,
                                                                          std::size_t);
extern template std::vector<std::vector<double>> bootstrap_maxima<float>(const std::vector<Series>&,
                                                                         const FrequencyGrid&, const Options&,
                                                                         const BootstrapOptions&, std::size_t,
                                                                         std::size_t);
extern template std::vector<std::vector<double>> bootstrap_maxima<double>(const std::vector<Series>&,
                                                                          const FrequencyGrid&, const Options&,
                                                                          const BootstrapOptions&, std::size_t,
                                                                          std::size_t);

}  // namespace portasolve::lombscargle
