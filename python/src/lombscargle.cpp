// portasolve.signal.lombscargle: the classic (SciPy) periodogram;
// portasolve.timeseries.LombScargle: the generalized (astropy) one and its
// false-alarm probability.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "core/math.hpp"
#include "solvers/lombscargle/bootstrap.hpp"
#include "solvers/lombscargle/fap.hpp"
#include "solvers/lombscargle/periodogram.hpp"
#include "src/arrays.hpp"
#include "src/bindings.hpp"
#include "src/session.hpp"
#include "src/signals.hpp"

namespace portasolve::python {

namespace {

namespace ls = portasolve::lombscargle;

// The frequencies a call gives: all of them, or (count > 0) the two ends of
// `count` evenly spaced ones (a GPU array of frequencies checked as evenly
// spaced where it lies, so it never comes to the host). frequency_total():
// how many.
std::size_t frequency_total(const std::vector<double>& values, std::int64_t count) {
  return count > 0 ? static_cast<std::size_t>(count) : values.size();
}
// Both grid builders check what they are given (uniform_grid its ends,
// explicit_grid every value).
ls::FrequencyGrid frequency_grid(const std::vector<double>& values, std::int64_t count, bool uniform, bool angular) {
  if (values.empty()) throw py::value_error("no frequencies given");
  const std::size_t frequencies = frequency_total(values, count);
  if (frequencies != values.size() && !(uniform && values.size() == 2))
    throw py::value_error("frequency_count needs uniform frequencies given by their two ends");
  return uniform ? ls::uniform_grid(values.front(), values.back(), frequencies, angular)
                 : ls::explicit_grid(values, angular);
}

// A GPU array of frequencies checked where it lies, in three launches and one
// copy back (CuPy's linspace, subtract, abs, max and two copies of its ends
// were a fixed 0.18 ms of every call): its first and last values and the
// largest distance of a value from the even spacing between them (infinite
// where a value is not finite).
using DeviceFrequencies = Kokkos::View<const double*, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryUnmanaged>;
using SpacingResult = Kokkos::View<double[3], Kokkos::LayoutRight, MemSpace>;  // first, last, largest distance

struct DistanceFromEvenSpacing {
  DeviceFrequencies frequency;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, double& largest) const {
    const std::int64_t last = static_cast<std::int64_t>(frequency.extent(0)) - 1;
    const double step = (frequency(last) - frequency(0)) / static_cast<double>(last);
    const double distance = math::fabs(frequency(i) - (frequency(0) + static_cast<double>(i) * step));
    largest = math::fmax(largest, math::isfinite(distance) ? distance : HUGE_VAL);
  }
};

struct FrequencyEnds {
  DeviceFrequencies frequency;
  SpacingResult result;
  Kokkos::View<const double, MemSpace> largest;
  KOKKOS_INLINE_FUNCTION void operator()(const int) const {
    result(0) = frequency(0);
    result(1) = frequency(frequency.extent(0) - 1);
    result(2) = largest();
  }
};

py::tuple frequency_spacing(const py::object& frequencies) {
  ensure_kokkos();
  const DeviceArray array = device_array(frequencies, "freqs", "<f8", 1);
  if (array.shape[0] < 2) throw py::value_error("freqs: at least two frequencies are needed here");
  const DeviceFrequencies frequency(reinterpret_cast<const double*>(array.address),
                                    static_cast<std::size_t>(array.shape[0]));
  // Kept between calls: a fresh device allocation and its free cost more than the pass.
  static struct KeptSpacing : HoldsDeviceMemory {
    SpacingResult result;
    Kokkos::View<double, MemSpace> largest;
    void release() override {
      result = SpacingResult();
      largest = Kokkos::View<double, MemSpace>();
    }
  } kept;
  if (kept.result.data() == nullptr) {
    kept.result = SpacingResult(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("frequency_spacing")));
    kept.largest = Kokkos::View<double, MemSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("frequency_spacing_largest")));
  }
  const SpacingResult result = kept.result;
  const Kokkos::View<double, MemSpace> largest = kept.largest;
  double host[3];
  const Kokkos::View<double[3], Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host_view(host);
  {
    // The GIL stays held (a few microseconds): it keeps two Python threads
    // from sharing `kept` at once.
    Kokkos::parallel_reduce("frequency_spacing",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, array.shape[0]),
                            DistanceFromEvenSpacing{frequency}, Kokkos::Max<double, MemSpace>(largest));
    Kokkos::parallel_for("frequency_ends", Kokkos::RangePolicy<ExecSpace>(0, 1),
                         FrequencyEnds{frequency, result, largest});
    Kokkos::deep_copy(host_view, result);
  }
  return py::make_tuple(host[0], host[1], host[2]);
}

// power(series, frequency) of a Periodogram into rows [first, first + series)
// of the caller's output (a NumPy or GPU array, arrays.hpp).
template <class T>
void store_rows(const GridArgument<T>& output, const View2D<T>& power, std::size_t first) {
  if (output.on_device()) {
    const View2D<T> target = output.view(/*copy_in=*/false);
    Kokkos::deep_copy(Kokkos::subview(target, std::make_pair(first, first + power.extent(0)), Kokkos::ALL), power);
    Kokkos::fence();
  } else {
    to_host(power, HostArray2D<T>(output.host_data() + first * output.cols(), power.extent(0), power.extent(1)));
  }
}

// The last classic periodogram on a uniform grid, kept for the next call on
// the same grid and options (a script calls signal.lombscargle again and
// again on one grid): that call uploads its series only
// (Periodogram::update), not the grid, and reuses the power array. Taken out
// of here while a call uses it, so calls from two threads never share one;
// released before Kokkos is finalized (HoldsDeviceMemory).
struct ClassicKey {
  double first = 0, last = 0;
  std::size_t count = 0;
  bool precenter = false, normalize = false, floating_mean = false;
  ls::Algorithm algorithm = ls::Algorithm::automatic;
  bool operator==(const ClassicKey& other) const {
    return first == other.first && last == other.last && count == other.count && precenter == other.precenter &&
           normalize == other.normalize && floating_mean == other.floating_mean && algorithm == other.algorithm;
  }
};
// Kept only up to this size of power array: a larger call's setup is small
// beside its sums, and the memory is the caller's again after the call.
constexpr std::size_t most_kept_power_bytes = std::size_t{256} << 20;

template <class T>
struct KeptClassic : HoldsDeviceMemory {
  ClassicKey key;
  std::unique_ptr<ls::Periodogram<T>> periodogram;
  void release() override { periodogram.reset(); }
};
template <class T>
KeptClassic<T>& kept_classic() {
  static KeptClassic<T> kept;
  return kept;
}

// One series at angular frequencies; T is the precision of the sums and the
// result (t and the frequencies stay double, as in the solver). uniform:
// freqs are evenly spaced, and the grid is rebuilt from its ends (with
// frequency_count: freqs holds the ends only) so the recurrence and NUFFT
// algorithms apply. weights empty: none; with weights or floating_mean the
// solver takes SciPy 1.15's weighted formulas. power: 1 x M, written.
template <class T>
void lombscargle_classic(const Array<double>& x, const Array<double>& y, const Array<double>& freqs,
                         const py::object& power, bool precenter, bool normalize, const std::string& algorithm,
                         bool uniform, const Array<double>& weights, bool floating_mean, std::int64_t frequency_count) {
  ensure_kokkos();
  std::vector<ls::Series> batch(1);
  batch[0].t = to_vector(x, "x");
  batch[0].y = to_vector(y, "y");
  batch[0].weights = to_vector(weights, "weights");
  const std::vector<double> angular = to_vector(freqs, "freqs");
  ls::Options options;
  options.form = ls::Form::classic;
  options.precenter = precenter;
  options.normalize = normalize;
  options.floating_mean = floating_mean;
  options.algorithm = ls::algorithm_from_name(algorithm);
  const GridArgument<T> out(power, "power", /*writable=*/true);
  const std::size_t frequencies = frequency_total(angular, frequency_count);
  if (out.rows() != 1 || out.cols() != frequencies)
    throw py::value_error("power must be 1 x (the number of frequencies)");
  const ClassicKey key{angular.front(), angular.back(), frequencies,      precenter,
                       normalize,       floating_mean,  options.algorithm};
  KeptClassic<T>& kept = kept_classic<T>();
  std::unique_ptr<ls::Periodogram<T>> periodogram;
  if (uniform && kept.periodogram && kept.key == key) periodogram = std::move(kept.periodogram);
  {
    py::gil_scoped_release release;
    if (periodogram) {
      periodogram->update(batch);
    } else {
      const ls::FrequencyGrid grid = frequency_grid(angular, frequency_count, uniform, /*angular=*/true);
      periodogram = std::make_unique<ls::Periodogram<T>>(batch, grid, options);
    }
    periodogram->compute();
    store_rows(out, periodogram->power(), 0);
  }
  if (uniform && frequencies * sizeof(T) <= most_kept_power_bytes) {
    kept.key = key;
    kept.periodogram = std::move(periodogram);
  }
}

// A batch of series at ordinary frequencies (astropy's generalized form): the
// series laid end to end in t, y and dy (dy empty: no uncertainties), series
// s at [offsets[s], offsets[s + 1]), so ragged batches need no padding. T is
// the precision of the sums and the result (t and the frequencies stay
// double). uniform: the frequencies are evenly spaced, and the grid is
// rebuilt from its ends so the recurrence and NUFFT algorithms apply.
// The series laid end to end in t, y and dy (dy empty: no uncertainties),
// series s at [offsets[s], offsets[s + 1]): checked shapes, then copied
// into Series (with the GIL released by the caller).
struct PackedSeries {
  const double *t, *y, *dy;
  std::vector<std::int64_t> offsets;

  PackedSeries(const Array<double>& t_array, const Array<double>& y_array, const Array<double>& dy_array,
               const py::array_t<std::int64_t, py::array::c_style>& offsets_array) {
    require_shape(t_array, "t", 1);
    require_shape(y_array, "y", 1);
    require_shape(dy_array, "dy", 1);
    require_shape(offsets_array, "offsets", 1);
    const py::ssize_t total = t_array.size();
    if (y_array.size() != total || (dy_array.size() != 0 && dy_array.size() != total))
      throw py::value_error("t, y and dy (when given) must have the same length");
    if (offsets_array.size() < 2) throw py::value_error("offsets must hold at least two entries (one series)");
    offsets.assign(offsets_array.data(), offsets_array.data() + offsets_array.size());
    if (offsets.front() != 0 || offsets.back() != total)
      throw py::value_error("offsets must start at 0 and end at the length of t");
    for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
      if (offsets[s + 1] < offsets[s]) throw py::value_error("offsets must not decrease");
    t = t_array.data();
    y = y_array.data();
    dy = dy_array.size() != 0 ? dy_array.data() : nullptr;
  }
  std::size_t count() const { return offsets.size() - 1; }
  std::vector<ls::Series> series() const {
    std::vector<ls::Series> batch(count());
    for (std::size_t s = 0; s < batch.size(); ++s) {
      const std::int64_t begin = offsets[s], end = offsets[s + 1];
      batch[s].t.assign(t + begin, t + end);
      batch[s].y.assign(y + begin, y + end);
      if (dy != nullptr) batch[s].dy.assign(dy + begin, dy + end);
    }
    return batch;
  }
};

ls::Options generalized_options(bool fit_mean, bool center_data, const std::string& normalization,
                                const std::string& algorithm) {
  ls::Options options;
  options.form = ls::Form::generalized;
  options.fit_mean = fit_mean;
  options.center_data = center_data;
  options.normalization = ls::normalization_from_name(normalization);
  options.algorithm = ls::algorithm_from_name(algorithm);
  return options;
}

// A long batch runs in blocks of series, each its own Periodogram, so Ctrl-C
// acts between blocks (each series' power does not depend on the others in
// its batch: the same bits either way). A block holds at least
// `pairs_per_block` sample-frequency pairs (a fraction of a second on two CPU
// cores, so short calls stay one block) and a call at most `most_blocks`
// blocks (each pays its setup and upload).
constexpr std::int64_t pairs_per_block = std::int64_t{1} << 28;
constexpr std::int64_t most_blocks = 64;

struct SeriesBlock {
  std::size_t first, count;
};

std::vector<SeriesBlock> series_blocks(const std::vector<std::int64_t>& offsets, std::size_t frequencies) {
  const std::size_t count = offsets.size() - 1;
  const std::int64_t pairs = offsets.back() * static_cast<std::int64_t>(frequencies);
  const std::int64_t wanted = std::clamp<std::int64_t>(pairs / pairs_per_block, 1, most_blocks);
  const std::int64_t per_block = std::max<std::int64_t>(1, pairs / wanted);
  std::vector<SeriesBlock> blocks;
  std::size_t first = 0;
  std::int64_t block_pairs = 0;
  for (std::size_t s = 0; s < count; ++s) {
    block_pairs += (offsets[s + 1] - offsets[s]) * static_cast<std::int64_t>(frequencies);
    if (block_pairs >= per_block || s + 1 == count) {
      blocks.push_back({first, s + 1 - first});
      first = s + 1;
      block_pairs = 0;
    }
  }
  return blocks;
}

// A batch of series at ordinary frequencies (astropy's generalized form),
// laid out as PackedSeries describes, so ragged batches need no padding. T is
// the precision of the sums and the result (t and the frequencies stay
// double). uniform: the frequencies are evenly spaced, and the grid is
// rebuilt from its ends so the recurrence and NUFFT algorithms apply.
template <class T>
void lombscargle_generalized(const Array<double>& t, const Array<double>& y, const Array<double>& dy,
                             const py::array_t<std::int64_t, py::array::c_style>& offsets,
                             const Array<double>& frequency, const py::object& power, bool fit_mean, bool center_data,
                             const std::string& normalization, const std::string& algorithm, bool uniform,
                             double nufft_tolerance, int nterms, std::int64_t frequency_count) {
  ensure_kokkos();
  const PackedSeries packed(t, y, dy, offsets);
  require_shape(frequency, "frequency", 1);
  ls::Options options = generalized_options(fit_mean, center_data, normalization, algorithm);
  options.nufft_tolerance = nufft_tolerance;
  options.nterms = nterms;
  const std::vector<double> values = to_vector(frequency, "frequency");
  const GridArgument<T> out(power, "power", /*writable=*/true);
  if (out.rows() != packed.count() || out.cols() != frequency_total(values, frequency_count))
    throw py::value_error("power must be (series) x (the number of frequencies)");
  {
    py::gil_scoped_release release;
    const ls::FrequencyGrid grid = frequency_grid(values, frequency_count, uniform, /*angular=*/false);
    const std::vector<SeriesBlock> blocks = series_blocks(packed.offsets, grid.size());
    std::vector<ls::Series> all = packed.series();
    // Over several blocks every series is checked before any is computed (a
    // bad one in the last block is an error at once, named by its index in
    // the whole batch); one block's Periodogram checks it.
    if (blocks.size() > 1) {
      ls::check_options(options);
      ls::check_batch(all, options);
    }
    for (const SeriesBlock& block : blocks) {
      if (block.first > 0) throw_if_python_interrupted();
      const auto first = all.begin() + static_cast<std::ptrdiff_t>(block.first);
      const std::vector<ls::Series> series(std::make_move_iterator(first),
                                           std::make_move_iterator(first + static_cast<std::ptrdiff_t>(block.count)));
      ls::Periodogram<T> periodogram(series, grid, options);
      periodogram.compute();
      store_rows(out, periodogram.power(), block.first);
    }
  }
}

// astropy's bootstrap maxima (bootstrap.hpp) of each series of a packed
// batch: [series, resamples], each row sorted ascending.
template <class T>
Array<double> lombscargle_bootstrap_maxima(const Array<double>& t, const Array<double>& y, const Array<double>& dy,
                                           const py::array_t<std::int64_t, py::array::c_style>& offsets,
                                           const Array<double>& frequency, bool fit_mean, bool center_data,
                                           const std::string& normalization, bool uniform, std::size_t resamples,
                                           std::uint64_t seed) {
  ensure_kokkos();
  const PackedSeries packed(t, y, dy, offsets);
  require_shape(frequency, "frequency", 1);
  const ls::Options options = generalized_options(fit_mean, center_data, normalization, "auto");
  ls::BootstrapOptions bootstrap;
  bootstrap.resamples = resamples;
  bootstrap.seed = seed;
  const std::vector<double> values = to_vector(frequency, "frequency");
  std::vector<std::vector<double>> maxima;
  {
    py::gil_scoped_release release;
    maxima = ls::bootstrap_maxima<T>(packed.series(), frequency_grid(values, 0, uniform, /*angular=*/false), options,
                                     bootstrap);
  }
  Array<double> result =
      new_array<double>(static_cast<py::ssize_t>(packed.count()), static_cast<py::ssize_t>(resamples));
  double* out = result.mutable_data();
  for (const auto& row : maxima) out = std::copy(row.begin(), row.end(), out);
  return result;
}

// The false-alarm probability of each standard-normalized peak height in
// `power` for one series (t, dy; dy empty: none) searched up to
// maximum_frequency, as astropy's baluev or naive method gives it.
Array<double> lombscargle_fap(const Array<double>& power, const Array<double>& t, const Array<double>& dy,
                              double maximum_frequency, const std::string& method) {
  const std::vector<double> heights = to_vector(power, "power");
  const std::vector<double> times = to_vector(t, "t");
  const std::vector<double> errors = to_vector(dy, "dy");
  if (!errors.empty() && errors.size() != times.size()) throw py::value_error("dy must have the length of t");
  const ls::FapMethod fap_method = ls::fap_method_from_name(method);
  const ls::FapContext context = ls::fap_context(times, errors, maximum_frequency);
  Array<double> result(static_cast<py::ssize_t>(heights.size()));
  double* out = result.mutable_data();
  for (std::size_t k = 0; k < heights.size(); ++k)
    out[k] = ls::false_alarm_probability(heights[k], context, fap_method);
  return result;
}

// NAME_float64 and NAME_float32, the two precisions of one function, with
// one docstring and argument list.
template <class Double, class Float, class... Extra>
void def_precisions(py::module_& module, const std::string& name, Double* in_double, Float* in_float,
                    const Extra&... extra) {
  module.def((name + "_float64").c_str(), in_double, extra...);
  module.def((name + "_float32").c_str(), in_float, extra...);
}

}  // namespace

void bind_lombscargle(py::module_& module) {
  def_precisions(
      module, "lombscargle_classic", &lombscargle_classic<double>, &lombscargle_classic<float>,
      "lombscargle_classic(x, y, freqs, power, precenter, normalize, algorithm, uniform, weights, floating_mean, "
      "frequency_count): SciPy's periodogram at angular frequencies into power[1, M] (NumPy, or a GPU array in "
      "CUDA builds; float64 1-D inputs, C-contiguous; weights empty: none; frequency_count > 0: freqs holds the "
      "two ends of that many uniform frequencies).",
      py::arg("x"), py::arg("y"), py::arg("freqs"), py::arg("power"), py::arg("precenter"), py::arg("normalize"),
      py::arg("algorithm") = "auto", py::arg("uniform") = false, py::arg("weights") = Array<double>(0),
      py::arg("floating_mean") = false, py::arg("frequency_count") = 0);
  def_precisions(
      module, "lombscargle_generalized", &lombscargle_generalized<double>, &lombscargle_generalized<float>,
      "lombscargle_generalized(t, y, dy, offsets, frequency, power, fit_mean, center_data, normalization, "
      "algorithm, uniform, nufft_tolerance, nterms, frequency_count): astropy's periodogram at ordinary frequencies "
      "of the series laid end to end in t, y, dy (float64, 1-D; dy empty: none), series s at [offsets[s], "
      "offsets[s + 1]), into power[series, M] (NumPy, or a GPU array in CUDA builds); nterms > 1: astropy's "
      "multi-term model (method chi2), direct or nufft algorithm; frequency_count > 0: frequency holds the two ends of "
      "that "
      "many uniform frequencies.",
      py::arg("t"), py::arg("y"), py::arg("dy"), py::arg("offsets"), py::arg("frequency"), py::arg("power"),
      py::arg("fit_mean"), py::arg("center_data"), py::arg("normalization"), py::arg("algorithm") = "auto",
      py::arg("uniform") = false, py::arg("nufft_tolerance") = 0.0, py::arg("nterms") = 1,
      py::arg("frequency_count") = 0);
  module.attr("lombscargle_max_nterms") = ls::max_nterms;
  module.attr("lombscargle_nufft_from") = ls::nufft_minimum_frequencies;
  module.def("frequency_spacing", &frequency_spacing,
             "frequency_spacing(freqs) -> (first, last, largest distance): a GPU array of float64 frequencies "
             "(1-D, C-contiguous, at least two) checked where it lies: its ends and the largest distance of a value "
             "from the even spacing between them (inf where a value is not finite). CUDA and HIP builds only.",
             py::arg("freqs"));
  def_precisions(
      module, "lombscargle_bootstrap_maxima", &lombscargle_bootstrap_maxima<double>,
      &lombscargle_bootstrap_maxima<float>,
      "lombscargle_bootstrap_maxima(t, y, dy, offsets, frequency, fit_mean, center_data, normalization, uniform, "
      "resamples, seed) -> maxima[series, resamples]: the highest power of each periodogram of the series resampled "
      "with replacement (y and dy together, t kept; astropy's bootstrap), each row sorted; the draws depend on seed "
      "and the series' index only.",
      py::arg("t"), py::arg("y"), py::arg("dy"), py::arg("offsets"), py::arg("frequency"), py::arg("fit_mean"),
      py::arg("center_data"), py::arg("normalization"), py::arg("uniform"), py::arg("resamples"), py::arg("seed"));
  module.def("lombscargle_fap", &lombscargle_fap,
             "lombscargle_fap(power, t, dy, maximum_frequency, method) -> fap: the false-alarm probability of each "
             "standard-normalized peak height of one series (method 'baluev', 'davies' or 'naive'; dy empty: none).",
             py::arg("power"), py::arg("t"), py::arg("dy"), py::arg("maximum_frequency"), py::arg("method"));
}

}  // namespace portasolve::python
