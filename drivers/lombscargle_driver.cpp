// experiment: lombscargle. Builds the series and the grid from the config,
// times the periodogram (and, if asked, the cuSignal-style direct baseline on
// the same data), checks it against a float64 reference, and writes power
// (unless output.power: none), peaks and their false-alarm probabilities, and
// a per-series summary (the best frequency and the sinusoid fitted there).
// Over MPI ranks every rank reads the whole input and builds the grid from it
// (as one process does), computes the periodograms, peaks and summaries of a
// contiguous block of the series, and the results come back together in
// series order: each series' numbers are those of a single-process run.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <ostream>

#include "app/hdf5.hpp"
#include "core/interrupt.hpp"
#include "core/math.hpp"
#include "core/timer.hpp"
#include "drivers/experiment.hpp"
#include "drivers/lombscargle_input.hpp"
#include "drivers/option_keys.hpp"
#include "drivers/rank_blocks.hpp"
#include "solvers/lombscargle/fap.hpp"
#include "solvers/lombscargle/model.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace portasolve::drivers {

namespace ls = lombscargle;

void add_lombscargle_schema(config::Schema& schema) {
  using config::Kind;
  schema.add("lombscargle.form", Kind::Choice, "classic (SciPy) or generalized (astropy)")
      .choices(ls::form_names())
      .default_value("generalized");
  schema.add("lombscargle.precenter", Kind::Boolean, "classic: subtract the mean first").default_value(false);
  schema.add("lombscargle.normalize", Kind::Boolean, "classic: scale by 2 / sum(y^2)").default_value(false);
  schema
      .add("lombscargle.floating_mean", Kind::Boolean,
           "classic: fit an offset at every frequency (SciPy >= 1.15; with it or input.weights, SciPy 1.15's "
           "weighted formulas)")
      .default_value(false);
  schema.add("lombscargle.center_data", Kind::Boolean, "generalized: centre y first").default_value(true);
  schema.add("lombscargle.fit_mean", Kind::Boolean, "generalized: floating mean").default_value(true);
  schema.add("lombscargle.normalization", Kind::Choice, "generalized: astropy's normalization")
      .choices(ls::normalization_names())
      .default_value("standard");
  schema
      .add("lombscargle.nterms", Kind::Integer,
           "generalized: Fourier terms fitted at each frequency (astropy's nterms, method chi2; > 1: direct "
           "algorithm, no false-alarm probability)")
      .default_value(1)
      .at_least(1)
      .at_most(ls::max_nterms);
  schema
      .add("lombscargle.algorithm", Kind::Choice,
           "kernel (auto: nufft on uniform grids of >= 256 frequencies, recurrence on smaller ones, else tiled)")
      .choices(ls::algorithm_names())
      .default_value("auto");
  schema
      .add("lombscargle.nufft_tolerance", Kind::Real,
           "nufft: error relative to the sums' scale (0: 1e-12 in double, 1e-8 in float)")
      .default_value(0.0)
      .at_least(0)
      .less_than(1);
  schema
      .add("lombscargle.nufft_grid_limit", Kind::Integer,
           "nufft: longest FFT, a power of two >= 64 (0: what the backend's team scratch reaches); "
           "longer grids are cut into segments")
      .default_value(0)
      .at_least(0);
  add_lombscargle_input_schema(schema);
  schema.add("frequency.grid", Kind::Choice, "uniform (minimum, maximum, count), list (values) or auto (astropy)")
      .choices({"uniform", "list", "auto"})
      .default_value("auto");
  schema.add("frequency.angular", Kind::Boolean, "frequencies in radians (not cycles) per unit time")
      .default_value(false);
  schema.add("frequency.minimum", Kind::Real, "uniform/auto: lowest frequency").optional().greater_than(0);
  schema.add("frequency.maximum", Kind::Real, "uniform/auto: highest frequency").optional().greater_than(0);
  schema.add("frequency.count", Kind::Integer, "uniform: number of frequencies").default_value(10000).at_least(1);
  schema.add("frequency.values", Kind::RealList, "list: the frequencies").optional().greater_than(0).min_items(1);
  schema.add("frequency.samples_per_peak", Kind::Real, "auto: grid points per peak width")
      .default_value(5.0)
      .greater_than(0);
  schema.add("frequency.nyquist_factor", Kind::Real, "auto: multiple of the average Nyquist frequency")
      .default_value(5.0)
      .greater_than(0);
  schema.add("peaks.count", Kind::Integer, "highest local maxima reported per series").default_value(3).at_least(0);
  schema
      .add("output.power", Kind::Choice, "all: write /output/power (series x frequency); none: peaks and summary only")
      .choices({"all", "none"})
      .default_value("all");
  schema
      .add("output.compression", Kind::Integer,
           "deflate level of /output/power, 1-9, written in chunks (0: contiguous, not compressed)")
      .default_value(0)
      .at_least(0)
      .at_most(9);
  schema.add("peaks.fap_method", Kind::Choice, "false-alarm probability (generalized, standard only)")
      .choices(ls::fap_method_names())
      .default_value("baluev");
  schema.add("validation.reference", Kind::Choice, "float64: compare with the direct algorithm in double")
      .choices({"none", "float64"})
      .default_value("none");
  schema
      .add("benchmark.baseline", Kind::Choice,
           "time this kernel on the same data in the same run (direct_fast_math: CUDA builds)")
      .choices({"none", "direct", "direct_fast_math"})
      .default_value("none");
}

namespace {

// Options fields the solver may name in an OptionError -> their config keys.
const OptionKeys& lombscargle_option_keys() {
  static const OptionKeys keys{{"floating_mean", "lombscargle.floating_mean"},
                               {"nterms", "lombscargle.nterms"},
                               {"algorithm", "lombscargle.algorithm"}};
  return keys;
}

// Chunks of about a quarter MiB for the power array (series x frequency):
// whole rows where they fit, so a reader of one series decompresses little.
h5::Storage power_storage(const config::Config& config, std::size_t series_count, std::size_t m) {
  const int level = static_cast<int>(config.integer("output.compression"));
  if (level == 0) return h5::Storage{};
  constexpr std::size_t chunk_values = 32768;
  const std::size_t columns = std::min(m, chunk_values);
  const std::size_t rows = std::clamp<std::size_t>(chunk_values / columns, 1, series_count);
  return h5::Storage{series_count == 1 ? h5::Dims{columns} : h5::Dims{rows, columns}, level};
}

// Weights from synthetic input, and the classic form's keys with the
// generalized form: refused before anything is read (so `portasolve check`
// reports them too).
void check_classic_keys(const config::Config& config) {
  if (config.string("input.source") == "synthetic" && !config.string("input.weights").empty())
    throw ConfigError(config.where("input.weights"), "input.weights", "synthetic series have no weights column",
                      "empty, or input.source: csv or hdf5");
  if (config.string("lombscargle.form") == "classic") return;
  if (!config.string("input.weights").empty())
    throw ConfigError(config.where("input.weights"), "input.weights",
                      "per-sample weights belong to the classic form (SciPy 1.15)",
                      "empty with form: generalized (it weights by 1 / dy^2: input.dy), or form: classic");
  if (config.boolean("lombscargle.floating_mean"))
    throw ConfigError(config.where("lombscargle.floating_mean"), "lombscargle.floating_mean",
                      "floating_mean belongs to the classic form (SciPy 1.15)",
                      "false with form: generalized (its offset is lombscargle.fit_mean), or form: classic");
}

// nterms > 1 with what computes one term only: refused before anything is
// read, like the classic keys.
void check_nterms(const config::Config& config) {
  const std::int64_t nterms = config.integer("lombscargle.nterms");
  if (nterms == 1) return;
  if (config.string("lombscargle.form") == "classic")
    throw ConfigError(config.where("lombscargle.nterms"), "lombscargle.nterms",
                      std::to_string(nterms) + " with form: classic (SciPy fits one sinusoid)",
                      "1 with form: classic, or form: generalized");
  const std::string algorithm = config.string("lombscargle.algorithm");
  if (algorithm != "auto" && algorithm != "direct")
    throw ConfigError(config.where("lombscargle.algorithm"), "lombscargle.algorithm",
                      algorithm + " computes nterms 1 only; lombscargle.nterms: " + std::to_string(nterms) +
                          " runs the direct algorithm",
                      "auto or direct with lombscargle.nterms > 1");
  if (config.string("benchmark.baseline") == "direct_fast_math")
    throw ConfigError(config.where("benchmark.baseline"), "benchmark.baseline",
                      "direct_fast_math times the one-term kernel; lombscargle.nterms is " + std::to_string(nterms),
                      "none or direct with lombscargle.nterms > 1");
}

ls::Options options_from(const config::Config& config) {
  ls::Options options;
  options.form = ls::form_from_name(config.string("lombscargle.form"));
  options.precenter = config.boolean("lombscargle.precenter");
  options.normalize = config.boolean("lombscargle.normalize");
  options.floating_mean = config.boolean("lombscargle.floating_mean");
  check_classic_keys(config);
  check_nterms(config);
  options.nterms = static_cast<int>(config.integer("lombscargle.nterms"));
  options.center_data = config.boolean("lombscargle.center_data");
  options.fit_mean = config.boolean("lombscargle.fit_mean");
  options.normalization = ls::normalization_from_name(config.string("lombscargle.normalization"));
  options.algorithm = ls::algorithm_from_name(config.string("lombscargle.algorithm"));
  options.nufft_tolerance = config.real("lombscargle.nufft_tolerance");
  options.nufft_grid_limit = config.integer("lombscargle.nufft_grid_limit");
  if (!ls::valid_nufft_grid_limit(options.nufft_grid_limit))
    throw ConfigError(config.where("lombscargle.nufft_grid_limit"), "lombscargle.nufft_grid_limit",
                      std::to_string(options.nufft_grid_limit) + " is not a power of two >= 64",
                      "0 or a power of two >= 64");
  return options;
}

// What a run allocates for `series` series of `samples` samples in all and
// `frequencies` frequencies (see Periodogram, NufftPlan and run_typed).
MemoryNeed lombscargle_need(const config::Config& config, double series, double samples, double frequencies) {
  const double t = config.string("precision") == "float" ? 4 : 8;
  const double m = frequencies, n = samples;
  std::string algorithm = config.string("lombscargle.algorithm");
  const bool uniform = config.string("frequency.grid") != "list";
  if (algorithm == "auto") algorithm = !uniform ? "tiled" : m >= 256 ? "nufft" : "recurrence";
  if (config.integer("lombscargle.nterms") > 1) algorithm = "direct";
  MemoryNeed need;
  // Device: t, w, w y, the frequencies and the power; the offsets and
  // constants per series.
  need.device(n, 8 + 2 * t);
  need.device(m, 8);
  need.device(series * m, t);
  need.device(series, 64);
  if (algorithm == "recurrence") need.device(2 * n * 64, t);  // step tables (64 steps on hosts, 16 on GPUs)
  if (algorithm == "nufft") {
    const double limit = config.integer("lombscargle.nufft_grid_limit") > 0
                             ? static_cast<double>(config.integer("lombscargle.nufft_grid_limit"))
                             : 4194304.0;  // 2^22: the most team scratch reaches
    const double modes = std::min(m, limit / 2);
    const double segments = std::ceil(m / modes);
    const double fft = std::max(64.0, std::exp2(std::ceil(std::log2(2 * modes))));
    const double complex = 2 * t;
    need.device(3 * segments * n, complex);  // c1, c0, c2
    need.device(2 * n, 40);                  // samples sorted twice, their series
    const double per_series = segments * 3 * fft * complex;
    need.device_bytes += std::max(per_series, std::min(512.0 * 1048576.0, series * per_series));  // grids
    need.device(modes, t);                                                                        // correction
    need.host(n, 8 + 2 * t);                                                                      // its host copy
  }
  if (config.string("validation.reference") == "float64") {
    need.device(n, 24);
    need.device(m, 8);
    need.device(series * m, 8);
    need.host(series * m, 8);  // its power read back
  }
  // Host: the series (t, y, dy) and their weighted copies, the values written
  // to /input, the grid and its written copy, the power read back and in float64.
  need.host(n, 32 + 8 + 2 * t + 32);  // t, y, dy, weights
  need.host(m, 2 * 8);
  need.host(series * m, t + 8);
  return need;
}

std::string lombscargle_advice() {
  return "fewer frequencies (frequency.count, frequency.values; auto grids: frequency.maximum, "
         "frequency.samples_per_peak, frequency.nyquist_factor), fewer series or samples, or precision: float";
}

// The key a grid too large for memory is blamed on.
std::string frequency_key(const config::Config& config) {
  const std::string kind = config.string("frequency.grid");
  if (kind == "uniform") return "frequency.count";
  if (kind == "list") return "frequency.values";
  return config.has("frequency.maximum") ? "frequency.maximum" : "frequency.samples_per_peak";
}

// A uniform or list grid's size, known from the config alone; 0 for an
// automatic grid, whose size depends on the times.
double configured_frequency_count(const config::Config& config) {
  const std::string kind = config.string("frequency.grid");
  if (kind == "uniform") return static_cast<double>(config.integer("frequency.count"));
  if (kind == "list") return config.has("frequency.values") ? config.reals("frequency.values").size() : 0;
  return 0;
}

// An automatic grid's given bounds in cycles per unit time (-1 where not given).
struct AutomaticLimits {
  double minimum, maximum;
};
AutomaticLimits automatic_limits(const config::Config& config) {
  const double scale = config.boolean("frequency.angular") ? 1.0 / math::two_pi<double>() : 1.0;
  return {config.has("frequency.minimum") ? config.real("frequency.minimum") * scale : -1,
          config.has("frequency.maximum") ? config.real("frequency.maximum") * scale : -1};
}

// The auto grid's size for the loaded series, checked against memory with the
// series' real sizes before the grid or anything on the device is allocated.
void check_loaded_sizes(const config::Config& config, const std::vector<ls::Series>& batch) {
  double samples = 0;
  for (const auto& series : batch) samples += static_cast<double>(series.t.size());
  double frequencies = configured_frequency_count(config);
  if (config.string("frequency.grid") == "auto") {
    const AutomaticLimits limits = automatic_limits(config);
    frequencies = ls::automatic_grid_size(batch.front().t, config.real("frequency.samples_per_peak"),
                                          config.real("frequency.nyquist_factor"), limits.minimum, limits.maximum);
  }
  const std::string key = frequency_key(config);
  const MemoryNeed need = lombscargle_need(config, static_cast<double>(batch.size()), samples, frequencies);
  char subject[120];
  std::snprintf(subject, sizeof subject, "a grid of %.4g frequencies", frequencies);
  check_preflight(config, Preflight{need, key, lombscargle_advice(), subject});
}

ls::FrequencyGrid grid_from(const config::Config& config, const std::vector<ls::Series>& batch) {
  const std::string kind = config.string("frequency.grid");
  const bool angular = config.boolean("frequency.angular");
  if (kind == "list") {
    if (!config.has("frequency.values"))
      throw ConfigError(config.where("frequency.grid"), "frequency.values", "missing for frequency.grid: list",
                        "a list of positive frequencies");
    return ls::explicit_grid(config.reals("frequency.values"), angular);
  }
  if (kind == "uniform") {
    for (const char* key : {"frequency.minimum", "frequency.maximum"})
      if (!config.has(key))
        throw ConfigError(config.where("frequency.grid"), key, "missing for frequency.grid: uniform", "a number > 0");
    return ls::uniform_grid(config.real("frequency.minimum"), config.real("frequency.maximum"),
                            static_cast<std::size_t>(config.integer("frequency.count")), angular);
  }
  if (batch.empty()) throw InputError("no time series given (the input holds no series)");
  const AutomaticLimits limits = automatic_limits(config);
  return ls::automatic_grid(batch.front().t, config.real("frequency.samples_per_peak"),
                            config.real("frequency.nyquist_factor"), limits.minimum, limits.maximum);
}

template <class Matrix>
std::vector<double> flatten(const Matrix& host) {
  std::vector<double> values(host.extent(0) * host.extent(1));
  for (std::size_t s = 0; s < host.extent(0); ++s)
    for (std::size_t k = 0; k < host.extent(1); ++k) values[s * host.extent(1) + k] = static_cast<double>(host(s, k));
  return values;
}

// The `count` highest local maxima of one row, highest first.
std::vector<std::size_t> top_peaks(const double* power, std::size_t m, std::size_t count) {
  std::vector<std::size_t> maxima;
  for (std::size_t k = 0; k < m; ++k) {
    const bool left = k == 0 || power[k] >= power[k - 1];
    const bool right = k + 1 == m || power[k] >= power[k + 1];
    if (left && right && std::isfinite(power[k])) maxima.push_back(k);
  }
  const std::size_t keep = std::min(count, maxima.size());
  std::partial_sort(maxima.begin(), maxima.begin() + keep, maxima.end(),
                    [&](std::size_t a, std::size_t b) { return power[a] > power[b]; });
  maxima.resize(keep);
  return maxima;
}

// Per series of `batch`: the highest power on the grid, its frequency (in the
// output's units), its false-alarm probability (when `fap_method` is given)
// and the sinusoid fitted there by weighted least squares (amplitude, phase,
// offset: y ~ offset + amplitude sin(2 pi f t + phase)). `power` holds
// batch's rows (this rank's series over MPI ranks).
struct Summary {
  std::vector<double> frequency, power, fap, amplitude, phase, offset;
};

Summary summarize(const std::vector<ls::Series>& batch, const ls::FrequencyGrid& grid,
                  const std::vector<double>& frequency, const std::vector<double>& power, const ls::Options& options,
                  const std::string& fap_method) {
  const std::size_t series_count = batch.size(), m = grid.size();
  Summary summary;
  for (auto* values :
       {&summary.frequency, &summary.power, &summary.fap, &summary.amplitude, &summary.phase, &summary.offset})
    values->assign(series_count, NAN);
  const double maximum_frequency = *std::max_element(grid.values.begin(), grid.values.end());
  for (std::size_t s = 0; s < series_count; ++s) {
    const double* row = &power[s * m];
    std::size_t best = m;
    for (std::size_t k = 0; k < m; ++k)
      if (std::isfinite(row[k]) && (best == m || row[k] > row[best])) best = k;
    if (best == m) continue;  // no finite power: NaN throughout
    summary.frequency[s] = frequency[best];
    summary.power[s] = row[best];
    if (!fap_method.empty() && batch[s].t.size() >= 4)  // Baluev's bound needs N > 3
      summary.fap[s] = ls::false_alarm_probability(std::clamp(row[best], 0.0, 1.0),
                                                   ls::fap_context(batch[s].t, batch[s].dy, maximum_frequency),
                                                   ls::fap_method_from_name(fap_method));
    if (options.nterms > 1) continue;  // one sinusoid does not describe the model: NaN (write_summary says so)
    const ls::SinusoidFit fit = ls::fit_sinusoid(batch[s], grid.values[best], options);
    summary.amplitude[s] = fit.amplitude;
    summary.phase[s] = fit.phase;
    summary.offset[s] = fit.offset;
  }
  return summary;
}

// Every rank's summaries in series order.
Summary gather_summary(const Ranks& ranks, std::int64_t series_count, const Summary& mine) {
  return Summary{
      gather_rows(ranks, series_count, 1, mine.frequency), gather_rows(ranks, series_count, 1, mine.power),
      gather_rows(ranks, series_count, 1, mine.fap),       gather_rows(ranks, series_count, 1, mine.amplitude),
      gather_rows(ranks, series_count, 1, mine.phase),     gather_rows(ranks, series_count, 1, mine.offset)};
}

// /output/summary. nterms > 1: the sinusoid's fields are NaN.
void write_summary(h5::Group& output, const Summary& all, const std::string& fap_method, int nterms) {
  h5::Group summary = output.create_group("summary");
  summary.set_attribute("description",
                        nterms == 1 ? "per series: the grid's highest power and the least-squares sinusoid there, "
                                      "y ~ offset + amplitude sin(2 pi frequency t + phase)"
                                    : "per series: the grid's highest power; amplitude, phase and offset NaN (the "
                                      "model has " +
                                          std::to_string(nterms) + " Fourier terms, not one sinusoid)");
  summary.write_dataset("frequency", all.frequency);
  summary.set_attribute("description", "frequency of the highest power (the units of /output/frequency)", "frequency");
  summary.write_dataset("power", all.power);
  summary.write_dataset("amplitude", all.amplitude);
  summary.set_attribute("units", "units of y", "amplitude");
  summary.write_dataset("phase", all.phase);
  summary.set_attribute("units", "radians", "phase");
  summary.write_dataset("offset", all.offset);
  summary.set_attribute("units", "units of y", "offset");
  if (!fap_method.empty()) {
    summary.write_dataset("fap", all.fap);
    summary.set_attribute("description", "false-alarm probability (" + fap_method + ") of the highest power", "fap");
  }
}

template <class T>
void run_typed(RunContext& context) {
  const auto& config = context.config;
  Stopwatch setup_watch;
  const std::vector<ls::Series> batch = load_lombscargle_input(config);
  if (!batch.empty() && !batch.front().t.empty()) check_loaded_sizes(config, batch);
  const ls::FrequencyGrid grid = grid_from(config, batch);  // from the whole batch, on every rank
  const ls::Options options = options_from(config);
  // This rank's block of the series (all of them on one rank).
  const ItemBlock block = my_block(context.ranks, static_cast<std::int64_t>(batch.size()));
  std::vector<ls::Series> slice;
  if (context.ranks.size > 1) {
    // Every rank checks every series first: a bad one is reported by its
    // index in the batch, by every rank alike, as one process reports it.
    ls::check_frequencies(grid.values);
    ls::check_batch(batch, options);
    slice.assign(batch.begin() + block.first, batch.begin() + block.first + block.count);
  }
  const std::vector<ls::Series>& mine = context.ranks.size > 1 ? slice : batch;
  std::unique_ptr<ls::Periodogram<T>> made;
  try {
    made = std::make_unique<ls::Periodogram<T>>(mine, grid, options);
  } catch (const OptionError& error) {
    throw config_error_for(config, error, lombscargle_option_keys(), "lombscargle.form",
                           "floating_mean with form: classic; the generalized form's offset is fit_mean");
  }
  ls::Periodogram<T>& periodogram = *made;
  const double setup_s = setup_watch.seconds();

  const int warmup = static_cast<int>(config.integer("run.warmup"));
  const int repeats = static_cast<int>(config.integer("run.repeats"));
  const std::string baseline = config.string("benchmark.baseline");
  const std::string label = "lombscargle/" + ls::name_of(periodogram.algorithm());
  // The baseline runs first, under its own name.
  Progress progress = context.make_progress(baseline == "none" ? label : "lombscargle/" + baseline + " (baseline)",
                                            (warmup + repeats) * (baseline == "none" ? 1 : 2), "launch");
  int launches = 0;
  const auto timed = [&](auto&& launch) {
    return time_repeats(warmup, repeats, [&] {
      throw_if_interrupted();
      launch();
      Kokkos::fence();
      progress.update(++launches);
    });
  };
  RepeatTimes baseline_times;
  if (baseline == "direct") baseline_times = timed([&] { periodogram.compute(ls::Algorithm::direct); });
  if (baseline == "direct_fast_math") baseline_times = timed([&] { periodogram.compute_direct_fast_math(); });
  // Last, so power() holds its result.
  progress.set_task(label);
  const RepeatTimes solve = timed([&] { periodogram.compute(); });
  progress.finish();

  const auto power = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), periodogram.power());
  const std::size_t series_count = batch.size(), m = grid.size(), my_count = mine.size();
  const std::vector<double> my_power = flatten(power);  // this rank's series

  auto& result = context.result;
  result.set_timing(setup_s, solve);
  auto& input = result.input();
  input.set_attribute("source", config.string("input.source"));
  input.set_attribute("series", static_cast<std::int64_t>(series_count));
  const std::size_t samples = batch.front().t.size();
  const bool rectangular =
      std::all_of(batch.begin(), batch.end(), [&](const ls::Series& s) { return s.t.size() == samples; });
  if (rectangular) {
    const h5::Dims dims = series_count == 1 ? h5::Dims{samples} : h5::Dims{series_count, samples};
    std::vector<double> t, y, dy, weights;
    for (const auto& s : batch) {
      t.insert(t.end(), s.t.begin(), s.t.end());
      y.insert(y.end(), s.y.begin(), s.y.end());
      dy.insert(dy.end(), s.dy.begin(), s.dy.end());
      weights.insert(weights.end(), s.weights.begin(), s.weights.end());
    }
    input.write_dataset("t", t.data(), dims);
    input.write_dataset("y", y.data(), dims);
    if (!dy.empty()) input.write_dataset("dy", dy.data(), dims);
    if (weights.size() == t.size()) input.write_dataset("weights", weights.data(), dims);
  }

  const bool angular = config.boolean("frequency.angular");
  std::vector<double> frequency = grid.values;
  if (angular)
    for (double& f : frequency) f *= math::two_pi<double>();
  auto& output = result.output();
  output.write_dataset("frequency", frequency);
  output.set_attribute("units", angular ? "radians per unit time" : "cycles per unit time", "frequency");
  // The scale of the power, for plots' axes: the classic form's normalize flag
  // or the generalized form's normalization.
  const bool classic = config.string("lombscargle.form") == "classic";
  const std::string normalization = classic ? (config.boolean("lombscargle.normalize") ? "normalize" : "none")
                                            : config.string("lombscargle.normalization");
  const bool scipy115 = classic && ls::classic_weighted(batch, options);
  const std::string power_description =
      classic
          ? "SciPy lombscargle power, " +
                std::string(normalization == "none" ? "not normalized (units of y^2)"
                            : scipy115              ? "normalized by the weighted sum of squares of y (SciPy 1.15)"
                                                    : "normalized by 2 / sum(y^2)") +
                (scipy115 ? std::string(", SciPy 1.15's weights") + (options.floating_mean ? " and floating mean" : "")
                          : std::string())
          : "astropy LombScargle power, normalization " + normalization;
  const bool write_power = config.string("output.power") == "all";
  output.set_attribute("power_written", config.string("output.power"));
  if (write_power) {
    std::vector<double> gathered;  // over ranks: every rank's rows in series order
    if (context.ranks.size > 1)
      gathered =
          gather_rows(context.ranks, static_cast<std::int64_t>(series_count), static_cast<std::int64_t>(m), my_power);
    const std::vector<double>& power_values = context.ranks.size > 1 ? gathered : my_power;
    output.write_dataset("power", power_values.data(), series_count == 1 ? h5::Dims{m} : h5::Dims{series_count, m},
                         power_storage(config, series_count, m));
    output.set_attribute("description", power_description, "power");
    output.set_attribute("normalization", normalization, "power");
  } else {
    // Without the array its scale stays with the peaks and the summary.
    output.set_attribute("power_description", power_description);
    output.set_attribute("normalization", normalization);
  }
  output.set_attribute("algorithm", ls::name_of(periodogram.algorithm()));
  if (context.ranks.size > 1) output.set_attribute("ranks", static_cast<std::int64_t>(context.ranks.size));
  if (periodogram.algorithm() == ls::Algorithm::nufft)
    output.set_attribute("nufft_tolerance", ls::nufft_tolerance<T>(options));

  // Peaks and their false-alarm probabilities.
  const auto peak_count = static_cast<std::size_t>(config.integer("peaks.count"));
  // astropy defines none for multiterm periodograms (nterms > 1).
  const bool fap_defined = options.form == ls::Form::generalized &&
                           options.normalization == ls::Normalization::standard && options.nterms == 1;
  const auto fap_method = ls::fap_method_from_name(config.string("peaks.fap_method"));
  std::vector<double> peak_frequency(my_count * peak_count, NAN), peak_power(my_count * peak_count, NAN),
      peak_fap(my_count * peak_count, NAN);
  // The FAP depends on the highest frequency searched; explicit lists need not be sorted.
  const double maximum_frequency = *std::max_element(grid.values.begin(), grid.values.end());
  for (std::size_t s = 0; s < my_count; ++s) {
    const auto peaks = top_peaks(&my_power[s * m], m, peak_count);
    const bool with_fap = fap_defined && mine[s].t.size() >= 4;  // Baluev's bound needs N > 3
    const ls::FapContext fap_context =
        with_fap ? ls::fap_context(mine[s].t, mine[s].dy, maximum_frequency) : ls::FapContext{};
    for (std::size_t p = 0; p < peaks.size(); ++p) {
      peak_frequency[s * peak_count + p] = frequency[peaks[p]];
      peak_power[s * peak_count + p] = my_power[s * m + peaks[p]];
      if (with_fap)
        peak_fap[s * peak_count + p] =
            ls::false_alarm_probability(std::clamp(my_power[s * m + peaks[p]], 0.0, 1.0), fap_context, fap_method);
    }
  }
  // Every rank's peaks in series order.
  const auto all_series = static_cast<std::int64_t>(series_count), per_series = static_cast<std::int64_t>(peak_count);
  peak_frequency = gather_rows(context.ranks, all_series, per_series, peak_frequency);
  peak_power = gather_rows(context.ranks, all_series, per_series, peak_power);
  peak_fap = gather_rows(context.ranks, all_series, per_series, peak_fap);
  if (peak_count > 0) {
    const h5::Dims dims{series_count, peak_count};
    output.write_dataset("peak_frequency", peak_frequency.data(), dims);
    output.write_dataset("peak_power", peak_power.data(), dims);
    output.write_dataset("peak_fap", peak_fap.data(), dims);
    output.set_attribute("description",
                         fap_defined ? "false-alarm probability (" + config.string("peaks.fap_method") + ")"
                                     : std::string("not defined for this form/normalization/nterms (NaN)"),
                         "peak_fap");
  }
  const std::string summary_fap = fap_defined ? config.string("peaks.fap_method") : std::string();
  write_summary(
      output,
      gather_summary(context.ranks, all_series, summarize(mine, grid, frequency, my_power, options, summary_fap)),
      summary_fap, options.nterms);

  context.out << "lombscargle: " << series_count << " series x " << samples << " samples x " << m << " frequencies, "
              << config.string("precision") << ", " << ls::name_of(periodogram.algorithm()) << ": " << solve.median()
              << " s (median of " << repeats << ")\n";
  if (context.ranks.size > 1)
    context.out << "ranks: " << context.ranks.size << ", " << series_count / context.ranks.size << " to "
                << (series_count + context.ranks.size - 1) / context.ranks.size << " series each (time: rank 0's)\n";
  if (baseline != "none") {
    context.out << "baseline " << baseline << ": " << baseline_times.median() << " s, speedup "
                << baseline_times.median() / solve.median() << "x\n";
  }
  if (baseline != "none") result.set_baseline(baseline, baseline_times);
  for (std::size_t s = 0; s < std::min<std::size_t>(series_count, 3); ++s) {
    if (peak_count == 0 || !std::isfinite(peak_power[s * peak_count])) continue;
    char line[160];
    std::snprintf(line, sizeof line, "series %zu: peak at %.6g, power %.6g", s, peak_frequency[s * peak_count],
                  peak_power[s * peak_count]);
    context.out << line;
    if (fap_defined) {
      std::snprintf(line, sizeof line, ", false-alarm probability %.3g", peak_fap[s * peak_count]);
      context.out << line;
    }
    context.out << '\n';
  }

  if (config.string("validation.reference") == "float64") {
    ls::Periodogram<double> reference(mine, grid, options);
    reference.compute(ls::Algorithm::direct);
    const auto ref = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), reference.power());
    double max_abs = 0, max_rel = 0;
    for (std::size_t s = 0; s < my_count; ++s) {
      double peak = 0, worst = 0;
      for (std::size_t k = 0; k < m; ++k) {
        peak = std::max(peak, std::fabs(ref(s, k)));
        const double error = std::fabs(my_power[s * m + k] - ref(s, k));
        worst = std::isnan(error) ? INFINITY : std::max(worst, error);
      }
      max_abs = std::max(max_abs, worst);
      max_rel = std::max(max_rel, worst / peak);
    }
#if PORTASOLVE_HAVE_MPI
    if (context.ranks.size > 1) {  // the largest of every rank's (max is exact in any order)
      MPI_Allreduce(MPI_IN_PLACE, &max_abs, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      MPI_Allreduce(MPI_IN_PLACE, &max_rel, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
#endif
    result.set_validation("float64 direct algorithm; max_rel_err is relative to each series' peak", max_abs, max_rel);
    context.out << "validation against float64: max error " << max_rel << " of the peak\n";
  }
}

}  // namespace

void run_lombscargle(RunContext& context) {
  if (context.config.string("precision") == "float")
    run_typed<float>(context);
  else
    run_typed<double>(context);
}

}  // namespace portasolve::drivers

namespace portasolve::drivers {

void check_lombscargle_ranks(const config::Config& config, int ranks) {
  const std::string source = config.string("input.source");
  std::int64_t series = 1;  // a CSV file holds one series
  std::string key = "input.source";
  if (source == "synthetic") {
    series = config.integer("input.series");
    key = "input.series";
  } else if (source == "hdf5" && config.has("input.file")) {
    const h5::Dims dims = h5::File::open_read_only(config.string("input.file")).dataset_dims(config.string("input.y"));
    series = dims.size() == 2 ? static_cast<std::int64_t>(dims[0]) : 1;
    key = "input.y";
  }
  if (series >= ranks) return;
  if (series == 1)
    throw ConfigError(config.where(key), key,
                      "one series cannot be split over " + std::to_string(ranks) +
                          " ranks: batches are split by series, and splitting one series by frequency ranges is "
                          "not done (the recurrence and NUFFT answers depend on where a range starts)",
                      "a batch of at least " + std::to_string(ranks) + " series, or run one series without mpirun");
  throw ConfigError(config.where(key), key,
                    std::to_string(series) + " series cannot be split over " + std::to_string(ranks) +
                        " ranks (each rank computes a block of at least one series)",
                    "at least " + std::to_string(ranks) + " series, or fewer ranks");
}

Preflight preflight_lombscargle(const config::Config& config) {
  check_classic_keys(config);
  check_nterms(config);
  const std::string source = config.string("input.source");
  double series = 1, samples = 0, baseline = 0;  // baseline: an upper bound on the times' span; 0 unknown
  if (source == "synthetic") {
    series = static_cast<double>(config.integer("input.series"));
    samples = series * static_cast<double>(config.integer("input.samples"));
    baseline = config.real("input.duration");
  } else {
    if (!config.has("input.file"))
      throw ConfigError(config.where("input.source"), "input.file", "missing for input.source: " + source,
                        "the path of the " + source + " file");
    const std::string file = config.string("input.file");
    if (source == "csv")
      samples = csv_rows_estimate(file);
    else {
      const h5::Dims dims = h5::File::open_read_only(file).dataset_dims(config.string("input.y"));
      if (dims.size() == 1 || dims.size() == 2) {
        series = dims.size() == 2 ? static_cast<double>(dims[0]) : 1;
        samples = series * static_cast<double>(dims.back());
      }
    }
  }
  // Frequencies: what the grid will hold; an automatic grid's size depends on
  // the times, known here only for synthetic series (checked again once read).
  double frequencies = configured_frequency_count(config);
  if (config.string("frequency.grid") == "auto" && baseline > 0) {
    // Steps of 1 / (span samples_per_peak) up to nyquist_factor N / (2 span):
    // nyquist_factor N samples_per_peak / 2 whatever the span, or up to the
    // given maximum: at most maximum x duration x samples_per_peak.
    const double per_series = samples / series;
    const double spp = config.real("frequency.samples_per_peak");
    const double maximum = automatic_limits(config).maximum;
    frequencies =
        maximum > 0 ? maximum * baseline * spp : config.real("frequency.nyquist_factor") * 0.5 * per_series * spp;
    frequencies = std::floor(frequencies) + 1;
  }
  char subject[120];
  std::snprintf(subject, sizeof subject, "%.4g series x %.4g samples with %.4g frequencies", series, samples / series,
                frequencies);
  return Preflight{lombscargle_need(config, series, samples, frequencies), frequency_key(config), lombscargle_advice(),
                   subject};
}

}  // namespace portasolve::drivers
