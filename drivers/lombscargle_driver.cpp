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
#include <future>
#include <memory>
#include <numeric>
#include <ostream>
#include <string>
#include <utility>

#include "app/hdf5.hpp"
#include "core/host_threads.hpp"
#include "core/interrupt.hpp"
#include "core/math.hpp"
#include "core/timer.hpp"
#include "drivers/experiment.hpp"
#include "drivers/lombscargle_input.hpp"
#include "drivers/option_keys.hpp"
#include "drivers/rank_blocks.hpp"
#include "solvers/lombscargle/bootstrap.hpp"
#include "solvers/lombscargle/fap.hpp"
#include "solvers/lombscargle/model.hpp"
#include "solvers/lombscargle/peaks.hpp"
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
  schema
      .add("output.input", Kind::Choice,
           "copy: write the series to /input as read; none: only where they came from (large catalogues)")
      .choices({"copy", "none"})
      .default_value("copy");
  schema
      .add("pipeline.memory_mib", Kind::Real,
           "bound on one chunk's working memory on a rank, device and host together, MiB: the catalogue streams "
           "through in chunks of as many series as fit")
      .default_value(4096.0)
      .greater_than(0);
  schema
      .add("pipeline.chunk_series", Kind::Integer,
           "series per chunk (split over the ranks); 0: as many as pipeline.memory_mib allows")
      .default_value(0)
      .at_least(0);
  schema
      .add("peaks.fap_method", Kind::Choice,
           "false-alarm probability (generalized form, nterms 1; standard normalization but for bootstrap)")
      .choices(ls::fap_method_names())
      .default_value("baluev");
  schema
      .add("peaks.bootstrap.resamples", Kind::Integer,
           "fap_method bootstrap: resampled periodograms per series (astropy's n_bootstraps)")
      .default_value(1000)
      .at_least(1);
  schema
      .add("peaks.bootstrap.seed", Kind::Integer,
           "fap_method bootstrap: seed of the draws (with a series' catalogue index, the same on any rank split)")
      .default_value(0)
      .at_least(0);
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

// The grid from the config (automatic grids: from the first series' times,
// as astropy's autofrequency does for one series).
ls::FrequencyGrid grid_from(const config::Config& config, SeriesCatalogue& catalogue) {
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
  const std::vector<double> times = catalogue.read(0, 1).front().t;
  const AutomaticLimits limits = automatic_limits(config);
  // Its size checked against memory before the grid is allocated.
  const double frequencies =
      ls::automatic_grid_size(times, config.real("frequency.samples_per_peak"), config.real("frequency.nyquist_factor"),
                              limits.minimum, limits.maximum);
  const MemoryNeed need = lombscargle_need(config, 1, static_cast<double>(times.size()), frequencies);
  char subject[120];
  std::snprintf(subject, sizeof subject, "a grid of %.4g frequencies", frequencies);
  check_preflight(config, Preflight{need, frequency_key(config), lombscargle_advice(), subject});
  return ls::automatic_grid(times, config.real("frequency.samples_per_peak"), config.real("frequency.nyquist_factor"),
                            limits.minimum, limits.maximum);
}

template <class Matrix>
std::vector<double> flatten(const Matrix& host) {
  std::vector<double> values(host.extent(0) * host.extent(1));
  for (std::size_t s = 0; s < host.extent(0); ++s)
    for (std::size_t k = 0; k < host.extent(1); ++k) values[s * host.extent(1) + k] = static_cast<double>(host(s, k));
  return values;
}

// Per series of `batch`: the highest power on the grid, its frequency (in the
// output's units), its false-alarm probability (when `fap_method` is given)
// and the sinusoid fitted there by weighted least squares (amplitude, phase,
// offset: y ~ offset + amplitude sin(2 pi f t + phase)). `power` holds
// batch's rows (this rank's series over MPI ranks).
struct Summary {
  std::vector<double> frequency, power, fap, amplitude, phase, offset;
};

// Per-series work (false-alarm probabilities, least-squares fits) is
// independent across series: on the host's cores while the device waits.
constexpr std::size_t series_per_host_thread = 256;
template <class F>
void for_each_series(std::size_t n, const F& f) {
  for_each_on_host_threads(n, series_per_host_thread, f);
}

// What a chunk's false-alarm probabilities need per series: the FapContext
// of the formulas (made on the host threads by prepare), or the sorted
// bootstrap maxima (made on the device before).
struct ChunkFap {
  bool defined = false;  // by the form, normalization and nterms
  ls::FapMethod method = ls::FapMethod::baluev;
  std::vector<ls::FapContext> contexts;
  std::vector<std::vector<double>> maxima;

  bool bootstrap() const { return method == ls::FapMethod::bootstrap; }
  // The formulas' contexts, where a series has the 4 samples Baluev's bound needs.
  void prepare(const std::vector<ls::Series>& batch, double maximum_frequency);
  // NaN where not defined.
  double operator()(const std::vector<ls::Series>& batch, std::size_t s, double power) const {
    if (!defined || std::isnan(power)) return NAN;
    if (bootstrap()) return ls::fap_bootstrap(power, maxima[s]);
    if (batch[s].t.size() < 4) return NAN;
    return ls::false_alarm_probability(std::clamp(power, 0.0, 1.0), contexts[s], method);
  }
};

Summary summarize(const std::vector<ls::Series>& batch, const ls::FrequencyGrid& grid,
                  const std::vector<double>& frequency, const ls::PeakTable& table, const ls::Options& options,
                  const ChunkFap& fap) {
  const std::size_t series_count = batch.size();
  Summary summary;
  for (auto* values :
       {&summary.frequency, &summary.power, &summary.fap, &summary.amplitude, &summary.phase, &summary.offset})
    values->assign(series_count, NAN);
  for_each_series(series_count, [&](std::size_t s) {
    const std::int64_t best = table.best[s];
    if (best < 0) return;  // no finite power: NaN throughout
    const double power = table.best_power[s];
    summary.frequency[s] = frequency[best];
    summary.power[s] = power;
    summary.fap[s] = fap(batch, s, power);
    if (options.nterms > 1) return;  // one sinusoid does not describe the model: NaN (write_summary says so)
    const ls::SinusoidFit fit = ls::fit_sinusoid(batch[s], grid.values[best], options);
    summary.amplitude[s] = fit.amplitude;
    summary.phase[s] = fit.phase;
    summary.offset[s] = fit.offset;
  });
  return summary;
}

// Every rank's summaries in series order.
Summary gather_summary(const Ranks& ranks, std::int64_t series_count, const Summary& mine) {
  return Summary{
      gather_rows(ranks, series_count, 1, mine.frequency), gather_rows(ranks, series_count, 1, mine.power),
      gather_rows(ranks, series_count, 1, mine.fap),       gather_rows(ranks, series_count, 1, mine.amplitude),
      gather_rows(ranks, series_count, 1, mine.phase),     gather_rows(ranks, series_count, 1, mine.offset)};
}

void append_summary(Summary& all, const Summary& more) {
  const auto append = [](std::vector<double>& to, const std::vector<double>& from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  append(all.frequency, more.frequency);
  append(all.power, more.power);
  append(all.fap, more.fap);
  append(all.amplitude, more.amplitude);
  append(all.phase, more.phase);
  append(all.offset, more.offset);
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

constexpr double mebibyte = 1048576.0;

// How the catalogue streams: chunks of `series` series (split over the
// ranks, at most `per_rank` on one), each rank's share needing `need`.
struct ChunkPlan {
  std::int64_t series = 0, per_rank = 0;
  MemoryNeed need;
  std::int64_t chunks(std::int64_t series_count) const { return (series_count + series - 1) / series; }
};

// `check_bound` false: one series over pipeline.memory_mib gives chunks of one
// series (for the machine's check to judge first) instead of a ConfigError.
ChunkPlan plan_chunks(const config::Config& config, std::int64_t series_count, double longest, double frequencies,
                      int ranks, bool check_bound) {
  const auto need_of = [&](std::int64_t k) {
    return lombscargle_need(config, static_cast<double>(k), static_cast<double>(k) * longest, frequencies);
  };
  const auto bytes = [](const MemoryNeed& need) { return need.device_bytes + need.host_bytes; };
  const auto per_rank_of = [&](std::int64_t chunk) { return (chunk + ranks - 1) / ranks; };
  std::int64_t chunk = config.integer("pipeline.chunk_series");
  if (chunk == 0) {
    const double limit = config.real("pipeline.memory_mib") * mebibyte;
    const double one = bytes(need_of(1));
    if (one > limit) {
      // What the machine cannot hold is blamed on the grid first (the
      // caller's check_preflight); then on this bound.
      if (!check_bound) return ChunkPlan{std::min<std::int64_t>(ranks, series_count), 1, need_of(1)};
      char text[200];
      std::snprintf(text, sizeof text,
                    "one series of %.4g samples with %.4g frequencies needs %.0f MiB (device and host together), "
                    "more than this bound",
                    longest, frequencies, std::ceil(one / mebibyte));
      char allowed[32];
      std::snprintf(allowed, sizeof allowed, "at least %.0f", std::ceil(one / mebibyte));
      throw ConfigError(config.where("pipeline.memory_mib"), "pipeline.memory_mib", text,
                        std::string(allowed) + ", or " + lombscargle_advice());
    }
    std::int64_t low = 1, high = per_rank_of(series_count);  // the most series per rank within the bound
    while (low < high) {
      const std::int64_t middle = low + (high - low + 1) / 2;
      if (bytes(need_of(middle)) <= limit)
        low = middle;
      else
        high = middle - 1;
    }
    chunk = low * ranks;
  }
  chunk = std::min(std::max<std::int64_t>(chunk, ranks), series_count);  // every rank has series in the first chunk
  return ChunkPlan{chunk, per_rank_of(chunk), need_of(per_rank_of(chunk))};
}

// The result datasets, created whole before the first chunk and written a
// chunk's rows at a time (by rank 0 over MPI ranks: the others' files are
// dropped).
struct ResultRows {
  h5::Group& input;
  h5::Group& output;
  bool writes;
  bool write_input, write_power;
  std::size_t series_count, m, peak_count;
  bool ragged;

  void create(const SeriesCatalogue& catalogue, const std::vector<ls::Series>& first, const h5::Storage& power) {
    if (write_input) {
      const auto samples = static_cast<hsize_t>(catalogue.total_samples());
      const h5::Dims dims = ragged              ? h5::Dims{samples}
                            : series_count == 1 ? h5::Dims{samples}
                                                : h5::Dims{series_count, samples / series_count};
      if (ragged) input.create_dataset<std::int64_t>("count", {series_count});
      input.create_dataset<double>("t", dims);
      input.create_dataset<double>("y", dims);
      if (!first.front().dy.empty()) input.create_dataset<double>("dy", dims);
      if (!first.front().weights.empty()) input.create_dataset<double>("weights", dims);
    }
    if (write_power)
      output.create_dataset<double>("power", series_count == 1 ? h5::Dims{m} : h5::Dims{series_count, m}, power);
    if (peak_count > 0)
      for (const char* name : {"peak_frequency", "peak_power", "peak_fap"})
        output.create_dataset<double>(name, {series_count, peak_count});
  }

  // The series [first, first + chunk.size()) as read; `sample_offset`: the
  // samples before them (the ragged layout's row of the first).
  void write_input_rows(std::int64_t first, std::int64_t sample_offset, const std::vector<ls::Series>& chunk) {
    if (!writes || !write_input) return;
    std::vector<double> t, y, dy, weights;
    std::vector<std::int64_t> count;
    for (const auto& s : chunk) {
      t.insert(t.end(), s.t.begin(), s.t.end());
      y.insert(y.end(), s.y.begin(), s.y.end());
      dy.insert(dy.end(), s.dy.begin(), s.dy.end());
      weights.insert(weights.end(), s.weights.begin(), s.weights.end());
      count.push_back(static_cast<std::int64_t>(s.t.size()));
    }
    const bool by_sample = ragged || series_count == 1;
    const auto row = static_cast<hsize_t>(by_sample ? sample_offset : first);
    const auto rows = static_cast<hsize_t>(by_sample ? t.size() : chunk.size());
    if (ragged) input.write_rows("count", static_cast<hsize_t>(first), count.size(), count.data());
    input.write_rows("t", row, rows, t.data());
    input.write_rows("y", row, rows, y.data());
    if (!dy.empty()) input.write_rows("dy", row, rows, dy.data());
    if (!weights.empty()) input.write_rows("weights", row, rows, weights.data());
  }

  void write_output_rows(std::int64_t first, std::int64_t count, const std::vector<double>& power,
                         const std::vector<double>& peak_frequency, const std::vector<double>& peak_power,
                         const std::vector<double>& peak_fap) {
    if (!writes) return;
    const auto row = static_cast<hsize_t>(first), rows = static_cast<hsize_t>(count);
    if (write_power) {
      if (series_count == 1)
        output.write_rows("power", 0, m, power.data());
      else
        output.write_rows("power", row, rows, power.data());
    }
    if (peak_count > 0) {
      output.write_rows("peak_frequency", row, rows, peak_frequency.data());
      output.write_rows("peak_power", row, rows, peak_power.data());
      output.write_rows("peak_fap", row, rows, peak_fap.data());
    }
  }
};

// Largest error of `power` (rows of `batch`) against the float64 direct
// algorithm: {absolute, relative to each series' peak}.
std::pair<double, double> validate(const std::vector<ls::Series>& batch, const ls::FrequencyGrid& grid,
                                   const ls::Options& options, const std::vector<double>& power) {
  ls::Periodogram<double> reference(batch, grid, options);
  reference.compute(ls::Algorithm::direct);
  const auto ref = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), reference.power());
  const std::size_t m = grid.size();
  double max_abs = 0, max_rel = 0;
  for (std::size_t s = 0; s < batch.size(); ++s) {
    double peak = 0, worst = 0;
    for (std::size_t k = 0; k < m; ++k) {
      peak = std::max(peak, std::fabs(ref(s, k)));
      const double error = std::fabs(power[s * m + k] - ref(s, k));
      worst = std::isnan(error) ? INFINITY : std::max(worst, error);
    }
    max_abs = std::max(max_abs, worst);
    max_rel = std::max(max_rel, worst / peak);
  }
  return {max_abs, max_rel};
}

// The peaks of each series (`count` per series, NaN-padded): frequency and
// power from the device's table, and false-alarm probabilities (NaN where
// not defined).
struct Peaks {
  std::vector<double> frequency, power, fap;
};
Peaks peaks_of(const std::vector<ls::Series>& batch, const ls::PeakTable& table, const std::vector<double>& frequency,
               const ChunkFap& fap) {
  const std::size_t count = table.count;
  Peaks peaks{std::vector<double>(batch.size() * count, NAN), table.peak_power,
              std::vector<double>(batch.size() * count, NAN)};
  for_each_series(batch.size(), [&](std::size_t s) {
    for (std::size_t p = 0; p < count; ++p) {
      const std::int64_t index = table.peaks[s * count + p];
      if (index < 0) continue;
      peaks.frequency[s * count + p] = frequency[index];
      peaks.fap[s * count + p] = fap(batch, s, table.peak_power[s * count + p]);
    }
  });
  return peaks;
}

void ChunkFap::prepare(const std::vector<ls::Series>& batch, double maximum_frequency) {
  contexts.assign(batch.size(), ls::FapContext{});
  if (!defined || bootstrap()) return;
  for_each_series(batch.size(), [&](std::size_t s) {
    if (batch[s].t.size() >= 4) contexts[s] = ls::fap_context(batch[s].t, batch[s].dy, maximum_frequency);
  });
}

// Where a chunked run's wall time goes, summed over chunks (rank 0's).
struct PhaseTimes {
  double read_wait = 0;    // waiting for the chunk's input (what reading ahead did not hide)
  double setup = 0;        // checks, host preparation, upload (Periodogram's constructor)
  double solve = 0;        // the timed computes (repeats and baselines included)
  double peaks = 0;        // peak selection on the device, the power brought back where needed, validation
  double bootstrap = 0;    // the resampled periodograms of fap_method bootstrap (on the device)
  double host = 0;         // false-alarm probabilities, summaries, gathering over ranks (overlapped: one rank)
  double write = 0;        // rows written to the result file (overlapped: one rank)
  double finish_wait = 0;  // waiting for the previous chunk's host side (what overlapping did not hide)
  void record(h5::Group& timing) const {
    const std::pair<const char*, double> parts[] = {
        {"read_wait_s", read_wait}, {"chunk_setup_s", setup}, {"chunk_solve_s", solve}, {"peaks_s", peaks},
        {"bootstrap_s", bootstrap}, {"host_s", host},         {"write_s", write},       {"finish_wait_s", finish_wait}};
    for (const auto& [name, seconds] : parts) timing.set_attribute(name, seconds);
  }
  std::string text() const {
    char line[200];
    std::snprintf(line, sizeof line,
                  "read wait %.3g s, setup %.3g s, solve %.3g s, peaks %.3g s, bootstrap %.3g s, FAP and summaries "
                  "%.3g s and writing %.3g s beside them (waited for: %.3g s)",
                  read_wait, setup, solve, peaks, bootstrap, host, write, finish_wait);
    return line;
  }
};

// The series a rank works on in one chunk: its block, and (rank 0, copying
// the input) the whole chunk as read, `mine` starting at `offset` in it.
struct ChunkInput {
  std::vector<ls::Series> series;
  std::size_t offset = 0, count = 0;
  ItemBlock global;  // the chunk's series in the catalogue
};

// Every series of this rank's block checked (InputError naming a bad one by
// its index in the catalogue); over ranks every rank reports the first bad
// series of the chunk, as one process reports it.
void check_chunk(const Ranks& ranks, const std::vector<ls::Series>& mine, const ls::Options& options,
                 std::int64_t first, std::size_t total) {
  ItemFailure failure;
  try {
    ls::check_batch(mine, options, static_cast<std::size_t>(first), total);
  } catch (const InputError&) {
    for (std::size_t s = 0; s < mine.size() && !failure.failed(); ++s) try {
        ls::check_batch({mine[s]}, options, static_cast<std::size_t>(first) + s, total);
      } catch (const InputError& error) {
        failure = {first + static_cast<std::int64_t>(s), error.what()};
      }
  }
  failure = first_failure(ranks, failure);
  if (failure.failed()) throw InputError(failure.message);
}

template <class T>
void run_typed(RunContext& context) {
  const auto& config = context.config;
  const Ranks& ranks = context.ranks;
  Stopwatch pipeline_watch;  // setup: up to the first chunk; pipeline: to the last rows written
  SeriesCatalogue catalogue(config);
  const auto series_count = static_cast<std::size_t>(catalogue.size());
  if (series_count == 0) throw InputError("no time series given (the input holds no series)");
  const ls::FrequencyGrid grid = grid_from(config, catalogue);  // the same on every rank
  const ls::Options options = options_from(config);
  ls::check_frequencies(grid.values);
  const std::size_t m = grid.size();
  double longest = 0;  // samples of the longest series
  if (catalogue.rectangular())
    longest = static_cast<double>(catalogue.samples(0, 1));
  else
    for (std::int64_t s = 0; s < catalogue.size(); ++s)
      longest = std::max(longest, static_cast<double>(catalogue.samples(s, 1)));
  {
    const ChunkPlan unbounded =
        plan_chunks(config, catalogue.size(), longest, static_cast<double>(m), ranks.size, false);
    char subject[160];
    std::snprintf(subject, sizeof subject, "a chunk of %lld series (%lld on a rank) with %zu frequencies",
                  static_cast<long long>(unbounded.series), static_cast<long long>(unbounded.per_rank), m);
    check_preflight(config, Preflight{unbounded.need, frequency_key(config), lombscargle_advice(), subject});
  }
  const ChunkPlan plan = plan_chunks(config, catalogue.size(), longest, static_cast<double>(m), ranks.size, true);
  const std::int64_t chunks = plan.chunks(catalogue.size());

  const bool copy_input = config.string("output.input") == "copy";
  const bool writes = ranks.rank == 0;
  // One chunk's input: this rank's block (rank 0 copying the input: the whole chunk).
  const auto read_chunk = [&catalogue, &ranks, copy_input, writes, &plan](std::int64_t first) {
    ChunkInput chunk;
    chunk.global = {first, std::min(plan.series, catalogue.size() - first)};
    const ItemBlock block = my_block(ranks, chunk.global.count);
    const bool whole = copy_input && writes;
    chunk.series = whole ? catalogue.read(first, chunk.global.count) : catalogue.read(first + block.first, block.count);
    chunk.offset = whole ? static_cast<std::size_t>(block.first) : 0;
    chunk.count = static_cast<std::size_t>(block.count);
    return chunk;
  };
  const double setup_s = pipeline_watch.seconds();

  const int warmup = static_cast<int>(config.integer("run.warmup"));
  const int repeats = static_cast<int>(config.integer("run.repeats"));
  const std::string baseline = config.string("benchmark.baseline");
  const bool angular = config.boolean("frequency.angular");
  std::vector<double> frequency = grid.values;
  if (angular)
    for (double& f : frequency) f *= math::two_pi<double>();
  const double maximum_frequency = *std::max_element(grid.values.begin(), grid.values.end());
  const auto peak_count = static_cast<std::size_t>(config.integer("peaks.count"));
  // astropy defines none for multiterm periodograms (nterms > 1); its
  // formulas are for the standard normalization, its bootstrap for any.
  const auto fap_method = ls::fap_method_from_name(config.string("peaks.fap_method"));
  const bool fap_defined =
      options.form == ls::Form::generalized && options.nterms == 1 &&
      (options.normalization == ls::Normalization::standard || fap_method == ls::FapMethod::bootstrap);
  const std::string summary_fap = fap_defined ? config.string("peaks.fap_method") : std::string();
  ls::BootstrapOptions bootstrap;
  bootstrap.resamples = static_cast<std::size_t>(config.integer("peaks.bootstrap.resamples"));
  bootstrap.seed = static_cast<std::uint64_t>(config.integer("peaks.bootstrap.seed"));
  // A launch of resampled periodograms holds at most a quarter of the chunk memory bound in power.
  bootstrap.periodograms_per_launch = static_cast<std::size_t>(std::max(
      1.0, std::floor(config.real("pipeline.memory_mib") * 1024 * 1024 / 4 / (static_cast<double>(m) * sizeof(T)))));
  const bool write_power = config.string("output.power") == "all";
  const bool validating = config.string("validation.reference") == "float64";

  auto& result = context.result;
  auto& input = result.input();
  auto& output = result.output();
  ResultRows rows{input, output, writes, copy_input, write_power, series_count, m, peak_count, catalogue.ragged()};

  // One progress line: launches for one chunk (as a single batch always
  // ran), series for a catalogue streaming through several.
  const int launches_per_chunk = (warmup + repeats) * (baseline == "none" ? 1 : 2);
  const std::string label_base = "lombscargle/";
  Progress progress = chunks == 1 ? context.make_progress(label_base + "batch", launches_per_chunk, "launch")
                                  : context.make_progress(label_base + "catalogue", catalogue.size(), "series");
  int launches = 0;
  RepeatTimes solve, baseline_times;
  solve.seconds.assign(static_cast<std::size_t>(repeats), 0.0);
  if (baseline != "none") baseline_times.seconds.assign(static_cast<std::size_t>(repeats), 0.0);
  Summary summary;
  Peaks first_peaks;  // the first chunk's, for the lines printed at the end
  ls::Algorithm algorithm = ls::Algorithm::automatic;
  bool scipy115 = false;
  double max_abs = 0, max_rel = 0;
  std::int64_t sample_offset = 0;

  PhaseTimes phases;
  Kokkos::Timer phase;
  const auto lap = [&phase](double& total) {
    total += phase.seconds();
    phase.reset();
  };
  std::future<ChunkInput> next = std::async(std::launch::deferred, read_chunk, std::int64_t{0});
  std::future<void> finishing;  // the previous chunk's host side
  for (std::int64_t c = 0; c < chunks; ++c) {
    throw_if_interrupted();
    phase.reset();
    ChunkInput chunk = next.get();
    // The next chunk is read while this one is computed.
    if (c + 1 < chunks) next = std::async(std::launch::async, read_chunk, (c + 1) * plan.series);
    std::vector<ls::Series> part;  // this rank's block where the chunk holds more (rank 0 copying the input)
    const bool whole = chunk.offset == 0 && chunk.count == chunk.series.size();
    if (!whole)
      part.assign(chunk.series.begin() + static_cast<std::ptrdiff_t>(chunk.offset),
                  chunk.series.begin() + static_cast<std::ptrdiff_t>(chunk.offset + chunk.count));
    const std::vector<ls::Series>& mine = whole ? chunk.series : part;
    lap(phases.read_wait);
    const ItemBlock global = chunk.global;
    const ItemBlock block = my_block(ranks, global.count);
    check_chunk(ranks, mine, options, global.first + block.first, series_count);
    std::vector<double> my_power;
    ls::PeakTable table;  // empty for a rank without series in this chunk
    table.count = peak_count;
    std::unique_ptr<ls::Periodogram<T>> made;
    if (!mine.empty()) {
      try {
        made = std::make_unique<ls::Periodogram<T>>(mine, grid, options);
      } catch (const OptionError& error) {
        throw config_error_for(config, error, lombscargle_option_keys(), "lombscargle.form",
                               "floating_mean with form: classic; the generalized form's is fit_mean");
      }
      ls::Periodogram<T>& periodogram = *made;
      algorithm = periodogram.algorithm();
      Kokkos::fence();
      lap(phases.setup);
      const auto timed = [&](auto&& launch, int warmups) {
        return time_repeats(warmups, repeats, [&] {
          throw_if_interrupted();
          launch();
          Kokkos::fence();
          if (chunks == 1) progress.update(++launches);
        });
      };
      const int warmups = c == 0 ? warmup : 0;  // the first chunk warms the kernels up
      if (c == 0 && baseline != "none") progress.set_task(label_base + baseline + " (baseline)");
      RepeatTimes chunk_baseline;
      if (baseline == "direct") chunk_baseline = timed([&] { periodogram.compute(ls::Algorithm::direct); }, warmups);
      if (baseline == "direct_fast_math")
        chunk_baseline = timed([&] { periodogram.compute_direct_fast_math(); }, warmups);
      if (c == 0) progress.set_task(label_base + ls::name_of(algorithm));
      // Last, so power() holds its result.
      const RepeatTimes chunk_solve = timed([&] { periodogram.compute(); }, warmups);
      for (int r = 0; r < repeats; ++r) {
        solve.seconds[r] += chunk_solve.seconds[r];
        if (baseline != "none") baseline_times.seconds[r] += chunk_baseline.seconds[r];
      }
      lap(phases.solve);
      table = ls::find_peaks(periodogram.power(), peak_count);
      // The power comes to the host only to be written or checked.
      if (write_power || validating)
        my_power = flatten(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), periodogram.power()));
      lap(phases.peaks);
    }
    ChunkFap fap;
    fap.defined = fap_defined;
    fap.method = fap_method;
    if (fap_defined && fap.bootstrap() && !mine.empty()) {  // device work: here, not beside the next chunk
      made.reset();                                         // its memory
      fap.maxima = ls::bootstrap_maxima<T>(mine, grid, options, bootstrap, global.first + block.first, series_count);
      lap(phases.bootstrap);
    }
    if (c == 0) scipy115 = options.form == ls::Form::classic && ls::classic_weighted(chunk.series, options);

    if (validating && !mine.empty()) {
      const auto [chunk_abs, chunk_rel] = validate(mine, grid, options, my_power);
      max_abs = std::max(max_abs, chunk_abs);
      max_rel = std::max(max_rel, chunk_rel);
    }
    lap(phases.peaks);
    // The chunk's host side (false-alarm probabilities, fits, its rows
    // written) runs while the next chunk is prepared and computed; over MPI
    // ranks (gathers on the main thread) it runs here.
    auto finish = [&, chunk = std::move(chunk), part = std::move(part), table = std::move(table),
                   my_power = std::move(my_power), fap = std::move(fap), c, global, whole,
                   first_sample = sample_offset]() mutable {
      Kokkos::Timer watch;
      const std::vector<ls::Series>& series = whole ? chunk.series : part;
      fap.prepare(series, maximum_frequency);
      const Peaks mine_peaks = peaks_of(series, table, frequency, fap);
      // Every rank's rows of this chunk in series order.
      const auto chunk_series = global.count, per_series = static_cast<std::int64_t>(peak_count);
      const Peaks peaks{gather_rows(ranks, chunk_series, per_series, mine_peaks.frequency),
                        gather_rows(ranks, chunk_series, per_series, mine_peaks.power),
                        gather_rows(ranks, chunk_series, per_series, mine_peaks.fap)};
      const std::vector<double> power =
          write_power ? gather_rows(ranks, chunk_series, static_cast<std::int64_t>(m), my_power) : my_power;
      const Summary chunk_summary =
          gather_summary(ranks, chunk_series, summarize(series, grid, frequency, table, options, fap));
      phases.host += watch.seconds();
      watch.reset();
      if (c == 0) {
        rows.create(catalogue, chunk.series.empty() ? series : chunk.series, power_storage(config, series_count, m));
        first_peaks = peaks;
      }
      rows.write_input_rows(global.first, first_sample, chunk.series);
      rows.write_output_rows(global.first, global.count, power, peaks.frequency, peaks.power, peaks.fap);
      append_summary(summary, chunk_summary);
      phases.write += watch.seconds();
    };
    sample_offset += catalogue.samples(global.first, global.count);
    if (finishing.valid()) finishing.get();  // the previous chunk's, in order
    lap(phases.finish_wait);
    if (ranks.size > 1)
      finish();
    else
      finishing = std::async(std::launch::async, std::move(finish));
    if (chunks > 1) progress.update(global.first + global.count);
  }
  if (finishing.valid()) finishing.get();
  lap(phases.finish_wait);
  progress.finish();
  const double pipeline_s = pipeline_watch.seconds();

  // What was read and how it streamed.
  result.set_timing(setup_s, solve);
  result.timing().set_attribute("pipeline_s", pipeline_s);
  result.timing().set_attribute("description_pipeline_s",
                                "wall time from opening the input to the last chunk's results written (every "
                                "chunk: read, upload, compute, peaks, write)");
  result.timing().set_attribute("series_per_s", static_cast<double>(series_count) / pipeline_s);
  phases.record(result.timing());
  input.set_attribute("source", config.string("input.source"));
  if (config.has("input.file")) input.set_attribute("file", config.string("input.file"));
  input.set_attribute("series", static_cast<std::int64_t>(series_count));
  input.set_attribute("layout", catalogue.ragged() ? "ragged" : "rectangular");
  input.set_attribute("copied", copy_input ? "copy" : "none");
  if (!catalogue.ids().empty()) output.write_dataset("series_id", catalogue.ids());

  output.write_dataset("frequency", frequency);
  output.set_attribute("units", angular ? "radians per unit time" : "cycles per unit time", "frequency");
  output.set_attribute("chunk_series", plan.series);
  output.set_attribute("chunks", chunks);
  output.set_attribute("chunk_memory_bytes", plan.need.device_bytes + plan.need.host_bytes);
  // The scale of the power, for plots' axes: the classic form's normalize flag
  // or the generalized form's normalization.
  const bool classic = config.string("lombscargle.form") == "classic";
  const std::string normalization = classic ? (config.boolean("lombscargle.normalize") ? "normalize" : "none")
                                            : config.string("lombscargle.normalization");
  const std::string power_description =
      classic
          ? "SciPy lombscargle power, " +
                std::string(normalization == "none" ? "not normalized (units of y^2)"
                            : scipy115              ? "normalized by the weighted sum of squares of y (SciPy 1.15)"
                                                    : "normalized by 2 / sum(y^2)") +
                (scipy115 ? std::string(", SciPy 1.15's weights") + (options.floating_mean ? " and floating mean" : "")
                          : std::string())
          : "astropy LombScargle power, normalization " + normalization;
  output.set_attribute("power_written", config.string("output.power"));
  if (write_power) {
    output.set_attribute("description", power_description, "power");
    output.set_attribute("normalization", normalization, "power");
  } else {
    // Without the array its scale stays with the peaks and the summary.
    output.set_attribute("power_description", power_description);
    output.set_attribute("normalization", normalization);
  }
  output.set_attribute("algorithm", ls::name_of(algorithm));
  if (ranks.size > 1) output.set_attribute("ranks", static_cast<std::int64_t>(ranks.size));
  if (algorithm == ls::Algorithm::nufft) output.set_attribute("nufft_tolerance", ls::nufft_tolerance<T>(options));
  if (peak_count > 0)
    output.set_attribute("description",
                         fap_defined ? "false-alarm probability (" + config.string("peaks.fap_method") + ")"
                                     : std::string("not defined for this form/normalization/nterms (NaN)"),
                         "peak_fap");
  write_summary(output, summary, summary_fap, options.nterms);

  const std::size_t samples = static_cast<std::size_t>(catalogue.samples(0, 1));
  context.out << "lombscargle: " << series_count << " series x ";
  if (catalogue.rectangular())
    context.out << samples << " samples";
  else
    context.out << catalogue.total_samples() << " samples in all";
  context.out << " x " << m << " frequencies, " << config.string("precision") << ", " << ls::name_of(algorithm) << ": "
              << solve.median() << " s (median of " << repeats << ")\n";
  if (chunks > 1) {
    char line[200];
    std::snprintf(line, sizeof line,
                  "streamed in %lld chunks of %lld series (%.0f MiB each on a rank): %.3g s end to end, %.4g "
                  "series/s\n",
                  static_cast<long long>(chunks), static_cast<long long>(plan.series),
                  (plan.need.device_bytes + plan.need.host_bytes) / mebibyte, pipeline_s,
                  static_cast<double>(series_count) / pipeline_s);
    context.out << line << "where the time went: " << phases.text() << '\n';
  }
  if (ranks.size > 1)
    context.out << "ranks: " << ranks.size << ", " << plan.series / ranks.size << " to "
                << (plan.series + ranks.size - 1) / ranks.size << " series each per chunk (time: rank 0's)\n";
  if (baseline != "none") {
    context.out << "baseline " << baseline << ": " << baseline_times.median() << " s, speedup "
                << baseline_times.median() / solve.median() << "x\n";
    result.set_baseline(baseline, baseline_times);
  }
  for (std::size_t s = 0; s < std::min<std::size_t>(first_peaks.power.size() / std::max<std::size_t>(peak_count, 1), 3);
       ++s) {
    if (peak_count == 0 || !std::isfinite(first_peaks.power[s * peak_count])) continue;
    char line[160];
    std::snprintf(line, sizeof line, "series %zu: peak at %.6g, power %.6g", s, first_peaks.frequency[s * peak_count],
                  first_peaks.power[s * peak_count]);
    context.out << line;
    if (fap_defined) {
      std::snprintf(line, sizeof line, ", false-alarm probability %.3g", first_peaks.fap[s * peak_count]);
      context.out << line;
    }
    context.out << '\n';
  }

  if (validating) {
#if PORTASOLVE_HAVE_MPI
    if (ranks.size > 1) {  // the largest of every rank's (max is exact in any order)
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
    const bool ragged = !config.string("input.count").empty();
    key = ragged ? "input.count" : "input.y";
    const h5::Dims dims = h5::File::open_read_only(config.string("input.file")).dataset_dims(config.string(key));
    series = ragged && !dims.empty() ? static_cast<std::int64_t>(dims[0])
             : dims.size() == 2      ? static_cast<std::int64_t>(dims[0])
                                     : 1;
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
      const h5::File in = h5::File::open_read_only(file);
      const h5::Dims dims = in.dataset_dims(config.string("input.y"));
      const std::string count = config.string("input.count");
      if (!count.empty()) {  // ragged: 1-D samples, one count per series
        const h5::Dims counts = in.dataset_dims(count);
        series = counts.size() == 1 ? std::max<double>(1, static_cast<double>(counts[0])) : 1;
        samples = dims.size() == 1 ? static_cast<double>(dims[0]) : 0;
      } else if (dims.size() == 1 || dims.size() == 2) {
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
  // What one chunk needs (the catalogue streams through in chunks).
  const ChunkPlan plan =
      plan_chunks(config, static_cast<std::int64_t>(series), samples / series, frequencies, 1, false);
  return Preflight{plan.need, frequency_key(config), lombscargle_advice(), subject};
}

}  // namespace portasolve::drivers
