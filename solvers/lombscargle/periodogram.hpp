#pragma once
// Public entry points of the Lomb-Scargle solver.
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/spaces.hpp"
#include "solvers/lombscargle/grid.hpp"
#include "solvers/lombscargle/options.hpp"

namespace portasolve::lombscargle {

// One time series on the host; dy empty means no uncertainties (generalized
// form). weights: the classic form's per-sample weights as SciPy >= 1.15
// takes them (>= 0, positive sum); empty means equal weights.
struct Series {
  std::vector<double> t, y, dy, weights;
};

// Whether the classic form runs SciPy 1.15's weighted formulas for this
// batch: with floating_mean, or when any series has weights.
bool classic_weighted(const std::vector<Series>& batch, const Options& options);

// The checks Periodogram's constructor makes of every series (InputError
// naming a series by its index in `batch`): for callers that compute a part
// of a batch (a block of series on an MPI rank, a chunk of a catalogue) and
// want the whole batch's errors as one process reports them: `batch` is then
// series [first, first + batch.size()) of `total`, named by that index.
void check_batch(const std::vector<Series>& batch, const Options& options, std::size_t first = 0,
                 std::size_t total = 0);

// Frequencies each recurrence thread owns (one exact seed per sample serves
// them all). GPUs: 16 keeps the sums in registers; CPUs: 64 amortises the
// seed's libm call, and the sums stay in L1.
template <class T>
constexpr int recurrence_steps() {
  return std::is_same<ExecSpace::memory_space, HostSpace>::value ? 64 : 16;
}

// Uniform grids from this many frequencies on go to the NUFFT under `auto`:
// below, its fixed costs (a grid of >= 64 points, N w spreading work) are
// not paid back against the recurrence's N M. On host backends the NUFFT
// runs series by series in cache (nufft.cpp) while the recurrence tabulates
// recurrence_steps (64) double sincos per sample whatever M: at N = 300 on 2
// cores, 4000 curves took 0.14 s against 3.1 s at M = 32 and 0.27 s against
// 5.7 s at M = 256 (2026-11-25), hence 32 there.
constexpr std::size_t nufft_minimum_frequencies = std::is_same<ExecSpace::memory_space, HostSpace>::value ? 32 : 256;
// Whether auto runs nterms > 1 on the NUFFT (hosts) or the direct sums (GPUs).
constexpr bool host_multiterm_nufft = std::is_same<ExecSpace::memory_space, HostSpace>::value;

// The NUFFT's tolerance with the options' default (0) resolved for T.
template <class T>
double nufft_tolerance(const Options& options) {
  return options.nufft_tolerance != 0 ? options.nufft_tolerance : (std::is_same<T, float>::value ? 1e-8 : 1e-12);
}

// The algorithm `automatic` resolves to for this grid and backend. nterms > 1
// runs the direct or the NUFFT algorithm: automatic resolves, on hosts
// (host_multiterm_nufft), to the NUFFT where it would for nterms 1 (uniform
// grids from nufft_minimum_frequencies on), else and on GPUs to direct;
// tiled and recurrence are an OptionError("algorithm").
Algorithm resolve_algorithm(Algorithm requested, const FrequencyGrid& grid, int nterms = 1);

// The checks of Options on their own (OptionError naming the field):
// floating_mean with the generalized form, nterms out of [1, max_nterms] or
// above 1 with the classic form.
void check_options(const Options& options);

// Periodograms of every series on one grid: power(series, frequency).
// The constructor checks the input (InputError on NaN/Inf, dy <= 0, too few
// samples, mismatched lengths, bad grids: never a silent wrong answer) and
// uploads it; compute() launches the kernel (asynchronously).
//
// On an execution space instance (a CUDA stream, say): the constructor's
// uploads and setup kernels, every compute() and the copies they make run on
// `exec`, kept for the object's life, in order after the work already queued
// there; the caller fences its own earlier work on other instances. The
// constructor returns with its uploads done (it fences exec: its host
// staging arrays are reused); compute() is asynchronous (the NUFFT's host
// path excepted: it returns done): fence exec, or deep_copy on exec and fence
// it, before the host reads power(). The destructor fences exec (the work
// reads the object's arrays). Objects on different instances share nothing
// on the device and may compute at once. Without `exec`: ExecSpace(), the
// default instance.

// Says that the caller has run check_batch() on the batch with the same
// options already (a pipeline checking chunks beside the device): the
// constructor then skips that check.
struct CheckedBatch {};
inline constexpr CheckedBatch checked_batch{};

template <class T>
class Periodogram;

namespace baselines {
template <class T>
void compute_direct_fast_math(Periodogram<T>& periodogram);  // baseline_fast_math.hpp
}

template <class T>
class Periodogram {
 public:
  Periodogram(const ExecSpace& exec, const std::vector<Series>& batch, const FrequencyGrid& grid,
              const Options& options);
  Periodogram(const ExecSpace& exec, const std::vector<Series>& batch, const FrequencyGrid& grid,
              const Options& options, CheckedBatch);
  Periodogram(const std::vector<Series>& batch, const FrequencyGrid& grid, const Options& options);
  Periodogram(const std::vector<Series>& batch, const FrequencyGrid& grid, const Options& options, CheckedBatch);
  ~Periodogram();
  Periodogram(const Periodogram&) = delete;
  Periodogram& operator=(const Periodogram&) = delete;

  // New series of the same count on the same grid and options: the grid,
  // the power array and the options' checks are kept, the series checked
  // and uploaded on the periodogram's instance (InputError for another
  // count or bad series), so a caller computing many batches at one grid
  // pays the grid once. Same results as a new Periodogram of the batch.
  void update(const std::vector<Series>& batch);
  // The same for a batch already checked (check_batch; CheckedBatch above).
  void update(const std::vector<Series>& batch, CheckedBatch);
  std::int64_t series_count() const noexcept { return series_count_; }
  void compute();                     // with the options' algorithm
  void compute(Algorithm algorithm);  // e.g. direct, as a baseline
  // The direct multi-term kernel (normal equations, multiterm.hpp) whatever
  // nterms: what compute() runs for nterms > 1 with the direct algorithm;
  // with nterms = 1 a check of the
  // closed forms the other kernels use. Generalized form only (OptionError).
  void compute_multiterm();
  Algorithm algorithm() const noexcept { return algorithm_; }
  View2D<T> power() const;
  // The instance everything of this object runs on.
  const ExecSpace& execution_space() const noexcept;

 private:
  // A benchmark baseline (not part of the interface) launching the direct
  // kernel on this object's data.
  template <class U>
  friend void baselines::compute_direct_fast_math(Periodogram<U>& periodogram);

  struct State;  // the instance, device data, and the recurrence's step table once built
  void upload_series(const std::vector<Series>& batch);

  FrequencyGrid grid_;
  Options options_;
  Algorithm algorithm_;
  std::int64_t series_count_;
  std::unique_ptr<State> state_;
};

// One call: construct, compute, return the power. On exec as Periodogram
// runs, and returns once exec has computed it (the Periodogram it makes
// fences exec before its arrays go).
template <class T>
View2D<T> periodogram(const ExecSpace& exec, const std::vector<Series>& batch, const FrequencyGrid& grid,
                      const Options& options);
template <class T>
View2D<T> periodogram(const std::vector<Series>& batch, const FrequencyGrid& grid, const Options& options);

extern template class Periodogram<float>;
extern template class Periodogram<double>;
extern template View2D<float> periodogram(const ExecSpace&, const std::vector<Series>&, const FrequencyGrid&,
                                          const Options&);
extern template View2D<double> periodogram(const ExecSpace&, const std::vector<Series>&, const FrequencyGrid&,
                                           const Options&);
extern template View2D<float> periodogram(const std::vector<Series>&, const FrequencyGrid&, const Options&);
extern template View2D<double> periodogram(const std::vector<Series>&, const FrequencyGrid&, const Options&);

}  // namespace portasolve::lombscargle
