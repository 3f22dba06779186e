#include "solvers/lombscargle/periodogram.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/errors.hpp"
#include "core/exec_instance.hpp"
#include "core/host_threads.hpp"
#include "core/profiling.hpp"
#include "core/workspace_cache.hpp"
#include "solvers/lombscargle/detail/multiterm.hpp"
#include "solvers/lombscargle/detail/state.hpp"
#include "solvers/lombscargle/detail/upload.hpp"

namespace portasolve::lombscargle {

using namespace detail;

namespace {

// Host backends on Linux: the power array (series x frequency, written once
// by the kernels, 40 KB per float series of 10^4 frequencies) is first
// touched by the kernels; in 4 KiB pages a survey chunk takes a page fault
// per 1000 values, which on a virtual machine cost more than the NUFFT's
// transforms. Transparent huge pages where the system grants them on
// request (its setting "madvise"): 512 times fewer faults.
void ask_for_huge_pages([[maybe_unused]] void* data, [[maybe_unused]] std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if constexpr (std::is_same<MemSpace, HostSpace>::value) {
    constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + huge - 1) & ~(huge - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(huge - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // a hint: errors ignored
  }
#endif
}

// Below this many series per thread, a host thread costs more than it saves.
constexpr std::size_t series_per_host_thread = 256;

std::string where(std::size_t series, std::size_t count) {
  return count > 1 ? "series " + std::to_string(series) + ": " : std::string();
}

// In page-locked memory on GPUs (kept by HostDataPool): a chunk's uploads
// are DMAs at the bus's rate, not copies staged through the driver's buffer.
template <class Value>
using PinnedVector = std::vector<Value, PinnedAllocator<Value>>;
template <class T>
struct HostData {
  PinnedVector<double> t;
  PinnedVector<T> w, wy;
  PinnedVector<std::int64_t> offsets = PinnedVector<std::int64_t>(1, 0);
  PinnedVector<SeriesConstants<T>> constants;
};

void check_series(const Series& series, std::size_t index, std::size_t count, const Options& options) {
  const std::string prefix = where(index, count);
  const std::size_t n = series.t.size();
  if (series.y.size() != n)
    throw InputError(prefix + "t has " + std::to_string(n) + " samples but y has " + std::to_string(series.y.size()));
  if (!series.dy.empty() && series.dy.size() != n)
    throw InputError(prefix + "t has " + std::to_string(n) + " samples but dy has " + std::to_string(series.dy.size()));
  // At least as many samples as the model has parameters (offset, 2 per term).
  const bool fit_mean = options.form == Form::generalized && options.fit_mean;
  const bool multiterm = options.form == Form::generalized && options.nterms > 1;
  const std::size_t needed = (fit_mean ? 1 : 0) + 2 * static_cast<std::size_t>(multiterm ? options.nterms : 1);
  if (n < needed)
    throw InputError(prefix + "needs at least " + std::to_string(needed) + " samples" +
                     (fit_mean ? " with fit_mean" : "") +
                     (multiterm ? std::string(fit_mean ? " and" : " with") + " nterms " + std::to_string(options.nterms)
                                : std::string()) +
                     ", got " + std::to_string(n));
  const auto check_finite = [&](const std::vector<double>& values, const char* name) {
    for (std::size_t j = 0; j < values.size(); ++j)
      if (!std::isfinite(values[j]))
        throw InputError(prefix + name + "[" + std::to_string(j) + "] is " + std::to_string(values[j]) +
                         " (values must be finite)");
  };
  check_finite(series.t, "t");
  check_finite(series.y, "y");
  check_finite(series.dy, "dy");
  for (std::size_t j = 0; j < series.dy.size(); ++j)
    if (!(series.dy[j] > 0))
      throw InputError(prefix + "dy[" + std::to_string(j) + "] is " + std::to_string(series.dy[j]) +
                       " (uncertainties must be > 0)");
  if (options.form == Form::classic && !series.dy.empty())
    throw InputError(prefix + "the classic form takes no uncertainties dy (use the generalized form, or weights)");
  if (series.weights.empty()) return;
  if (options.form != Form::classic)
    throw InputError(prefix + "weights belong to the classic form; the generalized form weights by 1 / dy^2");
  if (series.weights.size() != n)
    throw InputError(prefix + "t has " + std::to_string(n) + " samples but weights has " +
                     std::to_string(series.weights.size()));
  check_finite(series.weights, "weights");
  double sum = 0;
  for (std::size_t j = 0; j < n; ++j) {
    if (series.weights[j] < 0)
      throw InputError(prefix + "weights[" + std::to_string(j) + "] is " + std::to_string(series.weights[j]) +
                       " (weights must be >= 0, with a positive sum)");
    sum += series.weights[j];
  }
  if (!(sum > 0)) throw InputError(prefix + "the weights sum to 0 (weights must be >= 0, with a positive sum)");
}

// Writes one series' times, weights and weighted centred values into `host`
// from sample `first` on and returns sum w (y - mean), sum w (y - mean)^2
// and sum w, in double.
struct WeightedSums {
  double y_sum = 0, yy = 0, w_sum = 0;
};
// weight(j): sample j's weight, in double.
template <class T, class Weight>
WeightedSums write_series(const Series& series, const Weight& weight, double mean, HostData<T>& host,
                          std::int64_t first) {
  WeightedSums sums;
  for (std::size_t j = 0; j < series.t.size(); ++j) {
    const double centred = series.y[j] - mean, w = weight(j);
    host.t[first + j] = series.t[j];
    host.w[first + j] = static_cast<T>(w);
    host.wy[first + j] = static_cast<T>(w * centred);
    sums.y_sum += w * centred;
    sums.yy += w * centred * centred;
    sums.w_sum += w;
  }
  return sums;
}

// The classic form with SciPy 1.15's weights or floating mean, per series in
// double: weights scaled to sum 1; y less its plain mean with precenter (as
// SciPy does it, before the weights); Y = sum w y; YY = sum w y^2, less Y^2
// with the floating mean; power N / 2 (YC^2 / CC + YS^2 / SS), or that over
// YY with normalize.
template <class T>
SeriesConstants<T> prepare_classic_weighted(const Series& series, const Options& options, HostData<T>& host,
                                            std::int64_t first) {
  const std::size_t n = series.t.size();
  std::vector<double> weight = series.weights.empty() ? std::vector<double>(n, 1.0) : series.weights;
  const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
  for (double& value : weight) value /= total;
  double mean = 0;
  if (options.precenter) mean = std::accumulate(series.y.begin(), series.y.end(), 0.0) / static_cast<double>(n);
  // The floating mean's power does not change when a constant is added to y:
  // centring by the weighted mean (Y = 0, and YY less Y^2 formed here in
  // double) spares float sums the cancellation in YC - Y C_tau.
  if (options.floating_mean) {
    mean = 0;
    for (std::size_t j = 0; j < n; ++j) mean += weight[j] * series.y[j];
  }
  const WeightedSums sums = write_series(
      series, [&](std::size_t j) { return weight[j]; }, mean, host, first);
  double yy = sums.yy;
  if (options.floating_mean) yy -= sums.y_sum * sums.y_sum;  // ~0 after centring; SciPy's YY - Y^2
  const double scale = options.normalize ? 1.0 / yy : 0.5 * static_cast<double>(n);
  return SeriesConstants<T>{static_cast<T>(sums.y_sum), static_cast<T>(yy), static_cast<T>(scale),
                            static_cast<T>(sums.w_sum)};
}

// One series of the generalized form or SciPy 1.10's classic form. The
// weights are formed where used (no array of them a series: a survey chunk
// prepares 10^4-10^5 series at once on every core, where per-series heap
// arrays cost more than the arithmetic).
template <class T>
SeriesConstants<T> prepare_series(const Series& series, const Options& options, HostData<T>& host, std::int64_t first) {
  const std::size_t n = series.t.size();
  const bool generalized = options.form == Form::generalized, inverse_variance = generalized && !series.dy.empty();
  double sum_inverse_variance = static_cast<double>(n);
  if (inverse_variance) {
    sum_inverse_variance = 0;
    for (std::size_t j = 0; j < n; ++j) sum_inverse_variance += 1.0 / (series.dy[j] * series.dy[j]);
  }
  // As a weights array would hold them: 1 / dy^2 (or 1) over their sum in
  // the generalized form, 1 in the classic one.
  const auto weight = [&](std::size_t j) {
    if (!generalized) return 1.0;
    return (inverse_variance ? 1.0 / (series.dy[j] * series.dy[j]) : 1.0) / sum_inverse_variance;
  };
  double mean = 0;
  const bool centre = options.form == Form::classic ? options.precenter : (options.center_data || options.fit_mean);
  if (centre) {
    if (options.form == Form::classic) {
      for (double v : series.y) mean += v;
      mean /= static_cast<double>(n);
    } else {
      for (std::size_t j = 0; j < n; ++j) mean += weight(j) * series.y[j];
    }
  }
  const WeightedSums sums = write_series(series, weight, mean, host, first);
  double raw_yy = 0;
  for (double v : series.y) raw_yy += v * v;
  double scale = 0.5 * sum_inverse_variance;  // psd
  if (options.form == Form::classic) scale = options.normalize ? 1.0 / raw_yy : 0.5;
  return SeriesConstants<T>{static_cast<T>(sums.y_sum), static_cast<T>(sums.yy), static_cast<T>(scale),
                            static_cast<T>(sums.w_sum)};
}

// Weights, centring and the per-series constants, in double; series by
// series on the host's cores (a survey chunk holds 10^4-10^5 of them), each
// into its own range of the arrays.
template <class T>
void prepare(const std::vector<Series>& batch, const Options& options, HostData<T>& host) {
  const bool classic_scipy_weights = classic_weighted(batch, options);
  host.offsets.resize(batch.size() + 1);
  host.offsets[0] = 0;
  for (std::size_t s = 0; s < batch.size(); ++s)
    host.offsets[s + 1] = host.offsets[s] + static_cast<std::int64_t>(batch[s].t.size());
  const auto total = static_cast<std::size_t>(host.offsets.back());
  host.t.resize(total);
  host.w.resize(total);
  host.wy.resize(total);
  host.constants.resize(batch.size());
  for_each_on_host_threads(batch.size(), series_per_host_thread, [&](std::size_t s) {
    host.constants[s] = classic_scipy_weights ? prepare_classic_weighted(batch[s], options, host, host.offsets[s])
                                              : prepare_series(batch[s], options, host, host.offsets[s]);
  });
}

// Host arrays of earlier batches, kept for the next ones: a survey streams
// chunks of one size, and fresh arrays each chunk cost their page faults
// and zero fill (on a virtual machine, more than writing them). Two are
// kept: the pipeline prepares a chunk while the one before is in flight.
template <class T>
class HostDataPool {
 public:
  static std::unique_ptr<HostData<T>> take() {
    std::lock_guard<std::mutex> lock(mutex());
    auto& kept = pool();
    if (kept.empty()) return std::make_unique<HostData<T>>();
    std::unique_ptr<HostData<T>> data = std::move(kept.back());
    kept.pop_back();
    return data;
  }
  static void give_back(std::unique_ptr<HostData<T>> data) {
    std::lock_guard<std::mutex> lock(mutex());
    if (pool().size() < kept_at_most) pool().push_back(std::move(data));
  }

 private:
  static constexpr std::size_t kept_at_most = 2;
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::vector<std::unique_ptr<HostData<T>>>& pool() {
    static std::vector<std::unique_ptr<HostData<T>>> kept;
    // Emptied when Kokkos finalizes, while the GPU runtime that holds the
    // page-locked memory is still up.
    static const bool registered = [] {
      register_workspace_cache(&HostDataPool::clear);
      return true;
    }();
    static_cast<void>(registered);
    release_workspaces_at_finalize();
    return kept;
  }
  static void clear() {
    std::lock_guard<std::mutex> lock(mutex());
    pool().clear();
  }
};

template <class T, bool Weighted, bool FitMean>
void launch(const ExecSpace& exec, Algorithm algorithm, const DeviceData<T>& data, const StepTable<T>& step_cos,
            const StepTable<T>& step_sin, const FrequencyGrid& grid, std::int64_t series_count) {
  const std::int64_t m = static_cast<std::int64_t>(grid.size());
  const int team = team_size_for(128);
  switch (algorithm) {
    case Algorithm::direct:
      launch_direct<T, Weighted, FitMean, 0>(exec, data, m, series_count);
      break;
    case Algorithm::tiled: {
      using Kernel = TiledKernel<T, Weighted, FitMean>;
      const std::int64_t teams = (m + team - 1) / team;
      Kokkos::parallel_for("lombscargle_tiled",
                           TeamPolicy(exec, static_cast<int>(series_count * teams), team)
                               .set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes())),
                           Kernel{data, teams});
      break;
    }
    default: {
      constexpr int steps = recurrence_steps<T>();
      // A range of a larger grid: blocks where that grid's are (kernels.hpp).
      const std::int64_t lead = grid.offset % steps, base = grid.offset - lead;
      if constexpr (std::is_same<MemSpace, HostSpace>::value) {
        const std::int64_t blocks = (lead + m + steps - 1) / steps;
        Kokkos::parallel_for(
            "lombscargle_recurrence",
            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, series_count * blocks),
            RecurrenceKernel<T, Weighted, FitMean, steps>{data, step_cos, step_sin, blocks, grid.first, grid.step, base,
                                                          lead});
      } else {
        using Kernel = RecurrenceTeamKernel<T, Weighted, FitMean, steps>;
        const std::int64_t per_team = static_cast<std::int64_t>(team) * steps;
        const std::int64_t teams = (lead + m + per_team - 1) / per_team;
        Kokkos::parallel_for("lombscargle_recurrence",
                             TeamPolicy(exec, static_cast<int>(series_count * teams), team)
                                 .set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes())),
                             Kernel{data, step_cos, step_sin, teams, grid.first, grid.step, base, lead});
      }
      break;
    }
  }
}

// The batch, after check_batch() (for a constructor's delegation).
const std::vector<Series>& check_before(const std::vector<Series>& batch, const FrequencyGrid& grid,
                                        const Options& options);

}  // namespace

void check_batch(const std::vector<Series>& batch, const Options& options, std::size_t first, std::size_t total) {
  if (total == 0) total = batch.size();
  // On the host's cores; the error reported is the first bad series' in order.
  for_each_on_host_threads(batch.size(), series_per_host_thread,
                           [&](std::size_t s) { check_series(batch[s], first + s, total, options); });
}

namespace {
// In the constructor's order (its own checks of options and frequencies run
// again after this: cheap).
const std::vector<Series>& check_before(const std::vector<Series>& batch, const FrequencyGrid& grid,
                                        const Options& options) {
  if (!batch.empty()) {
    check_options(options);
    check_grid(grid);
    check_batch(batch, options);
  }
  return batch;
}
}  // namespace

bool classic_weighted(const std::vector<Series>& batch, const Options& options) {
  if (options.form != Form::classic) return false;
  return options.floating_mean ||
         std::any_of(batch.begin(), batch.end(), [](const Series& series) { return !series.weights.empty(); });
}

Algorithm resolve_algorithm(Algorithm requested, const FrequencyGrid& grid, int nterms) {
  // Multi-term models have the direct sums and the NUFFT's (multiterm.hpp,
  // nufft.hpp); on hosts auto takes the NUFFT where it does for nterms 1,
  // else direct (there is no multi-term recurrence or tiled kernel). On GPUs
  // auto stays direct: it met issue 24's nterms 3 rate on the H100, and the
  // device NUFFT, whose plans sort the samples once per harmonic, is
  // not timed there yet.
  if (nterms > 1 && (requested == Algorithm::tiled || requested == Algorithm::recurrence))
    throw OptionError(
        "algorithm",
        "the " + name_of(requested) + " algorithm computes nterms = 1 only; nterms > 1 runs direct or nufft (or auto)");
  if ((requested == Algorithm::recurrence || requested == Algorithm::nufft) && !grid.uniform)
    throw InputError("the " + name_of(requested) + " algorithm needs a uniform frequency grid (use direct" +
                     (nterms > 1 ? ")" : " or tiled)"));
  if (requested != Algorithm::automatic) return requested;
  const bool nufft = grid.uniform && grid.size() >= nufft_minimum_frequencies;
  if (nterms > 1) return nufft && host_multiterm_nufft ? Algorithm::nufft : Algorithm::direct;
  if (!grid.uniform) return Algorithm::tiled;
  return nufft ? Algorithm::nufft : Algorithm::recurrence;
}

void check_options(const Options& options) {
  if (options.floating_mean && options.form != Form::classic)
    throw OptionError("floating_mean",
                      "floating_mean belongs to the classic form (SciPy); the generalized form's is fit_mean");
  if (options.nterms < 1 || options.nterms > max_nterms)
    throw OptionError("nterms", "nterms is " + std::to_string(options.nterms) + " (allowed: 1 to " +
                                    std::to_string(max_nterms) + ")");
  if (options.nterms > 1 && options.form != Form::generalized)
    throw OptionError("nterms",
                      "nterms > 1 belongs to the generalized form (astropy); the classic form fits one "
                      "sinusoid (nterms 1)");
}

template <class T>
Periodogram<T>::Periodogram(const std::vector<Series>& batch, const FrequencyGrid& grid, const Options& options)
    : Periodogram(ExecSpace(), batch, grid, options) {}

template <class T>
Periodogram<T>::Periodogram(const std::vector<Series>& batch, const FrequencyGrid& grid, const Options& options,
                            CheckedBatch)
    : Periodogram(ExecSpace(), batch, grid, options, checked_batch) {}

template <class T>
Periodogram<T>::Periodogram(const ExecSpace& exec, const std::vector<Series>& batch, const FrequencyGrid& grid,
                            const Options& options)
    : Periodogram(exec, check_before(batch, grid, options), grid, options, checked_batch) {}

template <class T>
Periodogram<T>::Periodogram(const ExecSpace& exec, const std::vector<Series>& batch, const FrequencyGrid& grid,
                            const Options& options, CheckedBatch)
    : grid_(grid), options_(options), series_count_(static_cast<std::int64_t>(batch.size())) {
  ProfilingRegion region("lombscargle/setup");
  if (batch.empty()) throw InputError("no time series given");
  check_options(options);
  check_grid(grid);
  algorithm_ = resolve_algorithm(options.algorithm, grid, options.nterms);

  state_ = std::make_unique<State>(exec);
  DeviceData<T>& data = state_->data;
  data.frequency =
      upload<Kokkos::View<double*, Kokkos::LayoutRight, MemSpace>>(exec, "lombscargle_frequency", grid.values);
  upload_series(batch);
  data.power = View2D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lombscargle_power")),
                         batch.size(), grid.size());
  ask_for_huge_pages(data.power.data(), data.power.span() * sizeof(T));
  data.kind = FinishKind{options.form == Form::classic, static_cast<int>(options.normalization)};
  if (algorithm_ == Algorithm::nufft)
    state_->nufft = std::make_unique<NufftPlan<T>>(make_nufft_plan(exec, data, grid, options));
}

// The series' arrays on the device (times, weights, weighted values,
// offsets, per-series constants) and the kind of sums they need.
template <class T>
void Periodogram<T>::upload_series(const std::vector<Series>& batch) {
  const ExecSpace& exec = state_->exec;
  DeviceData<T>& data = state_->data;
  std::unique_ptr<HostData<T>> prepared = HostDataPool<T>::take();
  prepare<T>(batch, options_, *prepared);
  const HostData<T>& host = *prepared;
  // update(): into the arrays of the series before where the lengths match.
  upload_into(exec, data.t, "lombscargle_t", host.t);
  upload_into(exec, data.w, "lombscargle_w", host.w);
  upload_into(exec, data.wy, "lombscargle_wy", host.wy);
  upload_into(exec, data.offsets, "lombscargle_offsets", host.offsets);
  upload_into(exec, data.constants, "lombscargle_constants", host.constants);
  if (state_->nufft) {  // update(): the NUFFT plan sorts the new samples, or goes
    const NufftHostSamples<T> samples{
        Kokkos::View<const double*, Kokkos::LayoutRight, HostSpace>(host.t.data(), host.t.size()),
        Kokkos::View<const std::int64_t*, Kokkos::LayoutRight, HostSpace>(host.offsets.data(), host.offsets.size())};
    try {
      if (!refresh_nufft_plan(exec, *state_->nufft, data, samples, grid_.step)) state_->nufft.reset();
    } catch (...) {
      state_->nufft.reset();  // half sorted: made again by the next compute()
      throw;
    }
  }
  exec.fence();  // the copies have read the host arrays, which the pool hands to the next batch
  HostDataPool<T>::give_back(std::move(prepared));
  data.sums = options_.form == Form::classic ? SumsKind{classic_weighted(batch, options_), options_.floating_mean}
                                             : SumsKind{true, options_.fit_mean};
}

template <class T>
void Periodogram<T>::update(const std::vector<Series>& batch) {
  if (static_cast<std::int64_t>(batch.size()) != series_count_)
    throw InputError("update: " + std::to_string(batch.size()) + " series given, the periodogram was made for " +
                     std::to_string(series_count_) + " (make a new Periodogram for another count)");
  check_batch(batch, options_);
  update(batch, checked_batch);
}

template <class T>
void Periodogram<T>::update(const std::vector<Series>& batch, CheckedBatch) {
  ProfilingRegion region("lombscargle/update");
  if (static_cast<std::int64_t>(batch.size()) != series_count_)
    throw InputError("update: " + std::to_string(batch.size()) + " series given, the periodogram was made for " +
                     std::to_string(series_count_) + " (make a new Periodogram for another count)");
  state_->exec.fence();  // earlier work reads the arrays about to be replaced
  // The recurrence's steps depend on the times: built again by the next
  // compute() that needs them (marked first, so a failed upload leaves none current).
  state_->steps_current = false;
  // A NUFFT plan keeps its grids and FFT plan and sorts the new samples
  // (made again where a series' length changed).
  upload_series(batch);
}

template <class T>
Periodogram<T>::~Periodogram() = default;

template <class T>
void Periodogram<T>::compute() {
  compute(algorithm_);
}

template <class T>
void Periodogram<T>::compute(Algorithm algorithm) {
  ProfilingRegion region("lombscargle/compute");
  algorithm = resolve_algorithm(algorithm, grid_, options_.nterms);
  State& state = *state_;
  const ExecSpace& exec = state.exec;
  if (options_.nterms > 1 && algorithm == Algorithm::direct) {
    launch_multiterm(exec, state.data, options_.nterms, options_.fit_mean, series_count_);
    return;
  }
  if (algorithm == Algorithm::nufft) {  // the plan knows nterms
    if (!state.nufft) state.nufft = std::make_unique<NufftPlan<T>>(make_nufft_plan(exec, state.data, grid_, options_));
    run_nufft(exec, *state.nufft, state.data, options_);
    return;
  }
  if (algorithm == Algorithm::recurrence && !state.steps_current) {
    constexpr int steps = recurrence_steps<T>();
    const auto samples = static_cast<std::int64_t>(state.data.t.extent(0));
    if (state.step_cos.extent(0) != static_cast<std::size_t>(samples)) {
      state.step_cos = StepTable<T>();  // the old arrays before the new ones
      state.step_sin = StepTable<T>();
      state.step_cos =
          StepTable<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lombscargle_step_cos")), samples);
      state.step_sin =
          StepTable<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lombscargle_step_sin")), samples);
    }
    Kokkos::parallel_for("lombscargle_step_table",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, samples * steps),
                         StepTableKernel<T, steps>{state.data.t, state.step_cos, state.step_sin, grid_.step});
    state.steps_current = true;
  }
  const auto run = [&](auto weighted, auto fit_mean) {
    launch<T, decltype(weighted)::value, decltype(fit_mean)::value>(exec, algorithm, state.data, state.step_cos,
                                                                    state.step_sin, grid_, series_count_);
  };
  const SumsKind kind = state.data.sums;
  if (!kind.weighted)
    run(std::false_type{}, std::false_type{});
  else if (kind.fit_mean)
    run(std::true_type{}, std::true_type{});
  else
    run(std::true_type{}, std::false_type{});
}

template <class T>
void Periodogram<T>::compute_multiterm() {
  ProfilingRegion region("lombscargle/compute");
  if (options_.form != Form::generalized)
    throw OptionError("form", "the multi-term kernel computes the generalized form (astropy) only");
  launch_multiterm(state_->exec, state_->data, options_.nterms, options_.fit_mean, series_count_);
}

template <class T>
View2D<T> Periodogram<T>::power() const {
  return state_->data.power;
}

template <class T>
const ExecSpace& Periodogram<T>::execution_space() const noexcept {
  return state_->exec;
}

template <class T>
View2D<T> periodogram(const ExecSpace& exec, const std::vector<Series>& batch, const FrequencyGrid& grid,
                      const Options& options) {
  Periodogram<T> periodogram(exec, batch, grid, options);
  periodogram.compute();
  return periodogram.power();
}

template <class T>
View2D<T> periodogram(const std::vector<Series>& batch, const FrequencyGrid& grid, const Options& options) {
  return periodogram<T>(ExecSpace(), batch, grid, options);
}

template class Periodogram<float>;
template class Periodogram<double>;
template View2D<float> periodogram(const ExecSpace&, const std::vector<Series>&, const FrequencyGrid&, const Options&);
template View2D<double> periodogram(const ExecSpace&, const std::vector<Series>&, const FrequencyGrid&, const Options&);
template View2D<float> periodogram(const std::vector<Series>&, const FrequencyGrid&, const Options&);
template View2D<double> periodogram(const std::vector<Series>&, const FrequencyGrid&, const Options&);

}  // namespace portasolve::lombscargle
