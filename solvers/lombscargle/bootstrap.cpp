#include "solvers/lombscargle/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "core/errors.hpp"
#include "solvers/lombscargle/peaks.hpp"

namespace portasolve::lombscargle {

namespace {

// Power-array bytes one launch of resampled periodograms may hold.
constexpr double launch_power_bytes = 256.0 * 1024 * 1024;

std::mt19937_64 series_generator(const BootstrapOptions& bootstrap, std::size_t series) {
  const auto index = static_cast<std::uint64_t>(series);
  std::seed_seq seeds{static_cast<std::uint32_t>(bootstrap.seed), static_cast<std::uint32_t>(bootstrap.seed >> 32),
                      static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32)};
  return std::mt19937_64(seeds);
}

// A uniform draw from [0, n): rejection of the top partial block keeps it
// unbiased (std::uniform_int_distribution's algorithm is the library's own).
std::size_t draw_below(std::mt19937_64& generator, std::uint64_t n) {
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
  std::uint64_t value = generator();
  while (value >= limit) value = generator();
  return static_cast<std::size_t>(value % n);
}

// Every resample of one series: draws in resample order from its generator.
void draw_all(const BootstrapOptions& bootstrap, std::size_t series, std::size_t samples,
              std::vector<std::size_t>& draws) {
  std::mt19937_64 generator = series_generator(bootstrap, series);
  draws.resize(bootstrap.resamples * samples);
  for (std::size_t& d : draws) d = draw_below(generator, samples);
}

Series resampled(const Series& series, const std::size_t* draws) {
  Series copy;
  const std::size_t n = series.t.size();
  copy.t = series.t;
  copy.y.resize(n);
  if (!series.dy.empty()) copy.dy.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    copy.y[j] = series.y[draws[j]];
    if (!series.dy.empty()) copy.dy[j] = series.dy[draws[j]];
  }
  return copy;
}

void check_bootstrap(const Options& options, const BootstrapOptions& bootstrap) {
  if (options.form != Form::generalized)
    throw OptionError("form", "bootstrap false-alarm probabilities: the generalized form only (astropy's)");
  if (options.nterms != 1)
    throw OptionError("nterms", "bootstrap false-alarm probabilities: nterms 1 only (astropy defines none beyond)");
  if (bootstrap.resamples == 0) throw OptionError("resamples", "bootstrap: resamples must be at least 1");
}

}  // namespace

std::vector<std::size_t> bootstrap_draws(const BootstrapOptions& bootstrap, std::size_t series, std::size_t resample,
                                         std::size_t samples) {
  if (resample >= bootstrap.resamples)
    throw OptionError("resamples", "bootstrap_draws: resample " + std::to_string(resample) + " of " +
                                       std::to_string(bootstrap.resamples));
  std::vector<std::size_t> all;
  draw_all(bootstrap, series, samples, all);
  return {all.begin() + static_cast<std::ptrdiff_t>(resample * samples),
          all.begin() + static_cast<std::ptrdiff_t>((resample + 1) * samples)};
}

template <class T>
std::vector<std::vector<double>> bootstrap_resample_maxima(const ExecSpace& exec, const std::vector<Series>& batch,
                                                           const FrequencyGrid& grid, const Options& options,
                                                           const BootstrapOptions& bootstrap, std::size_t first,
                                                           std::size_t total) {
  check_bootstrap(options, bootstrap);
  check_batch(batch, options, first, total == 0 ? first + batch.size() : total);
  std::size_t periodograms_per_launch = bootstrap.periodograms_per_launch;
  if (periodograms_per_launch == 0)
    periodograms_per_launch = static_cast<std::size_t>(
        std::max(1.0, std::floor(launch_power_bytes / (static_cast<double>(grid.size()) * sizeof(T)))));
  std::vector<std::vector<double>> maxima(batch.size(), std::vector<double>(bootstrap.resamples));
  // Launches walk the (series, resample) pairs in order; each series' draws
  // are made once, when its first resample enters a launch.
  std::vector<std::vector<std::size_t>> draws(batch.size());
  const std::size_t pairs = batch.size() * bootstrap.resamples;
  for (std::size_t begin = 0; begin < pairs; begin += periodograms_per_launch) {
    const std::size_t end = std::min(pairs, begin + periodograms_per_launch);
    std::vector<Series> copies;
    copies.reserve(end - begin);
    for (std::size_t k = begin; k < end; ++k) {
      const std::size_t s = k / bootstrap.resamples, r = k % bootstrap.resamples;
      const std::size_t n = batch[s].t.size();
      if (draws[s].empty()) draw_all(bootstrap, first + s, n, draws[s]);
      copies.push_back(resampled(batch[s], draws[s].data() + r * n));
      if (r + 1 == bootstrap.resamples) std::vector<std::size_t>().swap(draws[s]);
    }
    Periodogram<T> periodogram(exec, copies, grid, options);
    periodogram.compute();
    const PeakTable table = find_peaks(exec, periodogram.power(), 1);
    for (std::size_t k = begin; k < end; ++k) {
      const double best = table.best_power[k - begin];
      maxima[k / bootstrap.resamples][k % bootstrap.resamples] = std::isfinite(best) ? best : -INFINITY;
    }
  }
  return maxima;
}

void finish_bootstrap_maxima(std::vector<std::vector<double>>& maxima) {
  for (auto& row : maxima) {
    for (double& best : row)
      if (best == -INFINITY) best = 0.0;  // no finite power: counts as 0
    std::sort(row.begin(), row.end());
  }
}

template <class T>
std::vector<std::vector<double>> bootstrap_maxima(const ExecSpace& exec, const std::vector<Series>& batch,
                                                  const FrequencyGrid& grid, const Options& options,
                                                  const BootstrapOptions& bootstrap, std::size_t first,
                                                  std::size_t total) {
  std::vector<std::vector<double>> maxima =
      bootstrap_resample_maxima<T>(exec, batch, grid, options, bootstrap, first, total);
  finish_bootstrap_maxima(maxima);
  return maxima;
}

template <class T>
std::vector<std::vector<double>> bootstrap_maxima(const std::vector<Series>& batch, const FrequencyGrid& grid,
                                                  const Options& options, const BootstrapOptions& bootstrap,
                                                  std::size_t first, std::size_t total) {
  return bootstrap_maxima<T>(ExecSpace(), batch, grid, options, bootstrap, first, total);
}

double fap_bootstrap(double power, const std::vector<double>& sorted_maxima) {
  if (sorted_maxima.empty()) throw OptionError("resamples", "fap_bootstrap: no bootstrap maxima");
  const auto below = std::lower_bound(sorted_maxima.begin(), sorted_maxima.end(), power) - sorted_maxima.begin();
  return 1.0 - static_cast<double>(below) / static_cast<double>(sorted_maxima.size());
}

template std::vector<std::vector<double>> bootstrap_resample_maxima<float>(const ExecSpace&, const std::vector<Series>&,
                                                                           const FrequencyGrid&, const Options&,
                                                                           const BootstrapOptions&, std::size_t,
                                                                           std::size_t);
template std::vector<std::vector<double>> bootstrap_resample_maxima<double>(const ExecSpace&,
                                                                            const std::vector<Series>&,
                                                                            const FrequencyGrid&, const Options&,
                                                                            const BootstrapOptions&, std::size_t,
                                                                            std::size_t);
template std::vector<std::vector<double>> bootstrap_maxima<float>(const ExecSpace&, const std::vector<Series>&,
                                                                  const FrequencyGrid&, const Options&,
                                                                  const BootstrapOptions&, std::size_t, std::size_t);
template std::vector<std::vector<double>> bootstrap_maxima<double>(const ExecSpace&, const std::vector<Series>&,
                                                                   const FrequencyGrid&, const Options&,
                                                                   const BootstrapOptions&, std::size_t, std::size_t);
template std::vector<std::vector<double>> bootstrap_maxima<float>(const std::vector<Series>&, const FrequencyGrid&,
                                                                  const Options&, const BootstrapOptions&, std::size_t,
                                                                  std::size_t);
template std::vector<std::vector<double>> bootstrap_maxima<double>(const std::vector<Series>&, const FrequencyGrid&,
                                                                   const Options&, const BootstrapOptions&, std::size_t,
                                                                   std::size_t);

}  // namespace portasolve::lombscargle
