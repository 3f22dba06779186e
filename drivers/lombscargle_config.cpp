// The lombscargle config read and checked: its schema, the checks refused
// before anything is read (so `portasolve check` reports them too), the
// solver's options, the frequency grid, the memory a chunk needs and the chunk
// plan, and the preflight and rank checks that run before Kokkos allocates.
#include "drivers/lombscargle_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>

#include "app/hdf5.hpp"
#include "core/errors.hpp"
#include "core/math.hpp"
#include "core/spaces.hpp"
#include "drivers/experiment.hpp"
#include "drivers/option_table.hpp"
#include "solvers/lombscargle/fap.hpp"

namespace portasolve::drivers {

namespace ls = lombscargle;

void add_lombscargle_schema(config::Schema& schema) {
  using config::Kind;
  add_choice(schema, "lombscargle.form", "classic (SciPy) or generalized (astropy)", ls::form_names(), "generalized");
  add_boolean(schema, "lombscargle.precenter", "classic: subtract the mean first", false);
  add_boolean(schema, "lombscargle.normalize", "classic: scale by 2 / sum(y^2)", false);
  add_boolean(schema, "lombscargle.floating_mean",
              "classic: fit an offset at every frequency (SciPy >= 1.15; with it or input.weights, SciPy 1.15's "
              "weighted formulas)",
              false);
  add_boolean(schema, "lombscargle.center_data", "generalized: centre y first", true);
  add_boolean(schema, "lombscargle.fit_mean", "generalized: floating mean", true);
  add_choice(schema, "lombscargle.normalization", "generalized: astropy's normalization", ls::normalization_names(),
             "standard");
  add_integer(schema, "lombscargle.nterms",
              "generalized: Fourier terms fitted at each frequency (astropy's nterms, method chi2; > 1: direct or "
              "nufft algorithm, no false-alarm probability)",
              1)
      .at_least(1)
      .at_most(ls::max_nterms);
  add_choice(schema, "lombscargle.algorithm",
             "kernel (auto: nufft on uniform grids of >= 256 frequencies, recurrence on smaller ones, else tiled; "
             "nterms > 1: nufft there, else direct)",
             ls::algorithm_names(), "auto");
  add_real(schema, "lombscargle.nufft_tolerance",
           "nufft: error relative to the sums' scale (0: 1e-12 in double, 1e-8 in float)", 0.0)
      .at_least(0)
      .less_than(1);
  add_integer(schema, "lombscargle.nufft_grid_limit",
              "nufft: longest FFT, a power of two >= 64 (0: what the backend's team scratch reaches); "
              "longer grids are cut into segments",
              0)
      .at_least(0);
  add_lombscargle_input_schema(schema);
  add_choice(schema, "frequency.grid", "uniform (minimum, maximum, count), list (values) or auto (astropy)",
             {"uniform", "list", "auto"}, "auto");
  add_boolean(schema, "frequency.angular", "frequencies in radians (not cycles) per unit time", false);
  schema.add("frequency.minimum", Kind::Real, "uniform/auto: lowest frequency").optional().greater_than(0);
  schema.add("frequency.maximum", Kind::Real, "uniform/auto: highest frequency").optional().greater_than(0);
  add_integer(schema, "frequency.count", "uniform: number of frequencies", 10000).at_least(1);
  schema.add("frequency.values", Kind::RealList, "list: the frequencies").optional().greater_than(0).min_items(1);
  add_real(schema, "frequency.samples_per_peak", "auto: grid points per peak width", 5.0).greater_than(0);
  add_real(schema, "frequency.nyquist_factor", "auto: multiple of the average Nyquist frequency", 5.0).greater_than(0);
  add_integer(schema, "peaks.count", "highest local maxima reported per series", 3).at_least(0);
  add_choice(schema, "output.power", "all: write /output/power (series x frequency); none: peaks and summary only",
             {"all", "none"}, "all");
  add_integer(schema, "output.compression",
              "deflate level of /output/power, the peaks and /output/summary, 1-9, written in chunks along the "
              "series (0: contiguous, not compressed)",
              0)
      .at_least(0)
      .at_most(9);
  add_choice(schema, "output.input",
             "copy: write the series to /input as read; none: only where they came from (large catalogues)",
             {"copy", "none"}, "copy");
  add_real(schema, "pipeline.memory_mib",
           "bound on a rank's working memory, device and host together, MiB: the chunk computed, the next one read "
           "ahead, the one before finishing and the summary kept for every series; the catalogue streams through in "
           "chunks of as many series as fit",
           4096.0)
      .greater_than(0);
  add_integer(schema, "pipeline.chunk_series",
              "series per chunk (split over the ranks); 0: as many as pipeline.memory_mib allows", 0)
      .at_least(0);
  add_integer(schema, "pipeline.in_flight",
              "chunks on the device at once: 2 uploads a chunk on one stream while the one before computes on "
              "another and finds its peaks while this one computes (two chunks' memory within pipeline.memory_mib); "
              "1: one chunk at a time; 0: 2 on GPUs, 1 on hosts (no device to overlap). 2 needs one rank, no "
              "bootstrap false-alarm probabilities and no benchmark.baseline",
              0)
      .at_least(0)
      .at_most(2);
  add_choice(schema, "peaks.fap_method",
             "false-alarm probability (generalized form, nterms 1; standard normalization but for bootstrap)",
             ls::fap_method_names(), "baluev");
  add_integer(schema, "peaks.bootstrap.resamples",
              "fap_method bootstrap: resampled periodograms per series (astropy's n_bootstraps)", 1000)
      .at_least(1);
  add_integer(schema, "peaks.bootstrap.seed",
              "fap_method bootstrap: seed of the draws (with a series' catalogue index, the same on any rank split)", 0)
      .at_least(0);
  add_choice(schema, "validation.reference", "float64: compare with the direct algorithm in double",
             {"none", "float64"}, "none");
  add_choice(schema, "benchmark.baseline",
             "time this kernel on the same data in the same run (direct_fast_math: CUDA builds)",
             {"none", "direct", "direct_fast_math"}, "none");
}

namespace {

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
  if (algorithm != "auto" && algorithm != "direct" && algorithm != "nufft")
    throw ConfigError(config.where("lombscargle.algorithm"), "lombscargle.algorithm",
                      algorithm + " computes nterms 1 only; lombscargle.nterms: " + std::to_string(nterms) +
                          " runs the direct or the nufft algorithm",
                      "auto, direct or nufft with lombscargle.nterms > 1");
  if (config.string("benchmark.baseline") == "direct_fast_math")
    throw ConfigError(config.where("benchmark.baseline"), "benchmark.baseline",
                      "direct_fast_math times the one-term kernel; lombscargle.nterms is " + std::to_string(nterms),
                      "none or direct with lombscargle.nterms > 1");
}

// What a run allocates for `series` series of `samples` samples in all and
// `frequencies` frequencies (see Periodogram, NufftPlan and run_typed).
MemoryNeed lombscargle_need(const config::Config& config, double series, double samples, double frequencies) {
  const double t = precision_bytes(config);
  const double m = frequencies, n = samples;
  std::string algorithm = config.string("lombscargle.algorithm");
  const bool uniform = config.string("frequency.grid") != "list";
  if (algorithm == "auto") algorithm = !uniform ? "tiled" : m >= 256 ? "nufft" : "recurrence";
  const double nterms = static_cast<double>(config.integer("lombscargle.nterms"));
  if (nterms > 1 && algorithm != "nufft") algorithm = "direct";  // no multi-term tiled or recurrence
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
    // Multi-term models: 3 nterms sums and coefficients, the samples sorted for each of 2 nterms harmonics.
    const double sums = nterms > 1 ? 3 * nterms : 3, sorts = nterms > 1 ? 2 * nterms : 2;
    need.device(sums * segments * n, complex);  // c1, c0, c2 (or per harmonic)
    need.device(sorts * n, 40);                 // samples sorted twice (per harmonic), their series
    const double per_series = segments * sums * fft * complex;
    need.device_bytes += std::max(per_series, std::min(512.0 * 1048576.0, series * per_series));  // grids
    need.device(modes, t);                                                                        // correction
    need.host(n, 8 + 2 * t);                                                                      // its host copy
    need.host(n, 24);  // the sort's positions and order, kept by the plan
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

// Doubles per series in the summary: frequency, power, fap, amplitude, phase,
// offset, and the generalized form's model parameters.
double summary_values(const config::Config& config) {
  const bool generalized = config.string("lombscargle.form") == "generalized";
  const double model =
      generalized ? (config.boolean("lombscargle.fit_mean") ? 1.0 : 0.0) + 2.0 * config.integer("lombscargle.nterms")
                  : 0.0;
  return 6 + model;
}

// What the host holds besides the chunk being computed, per rank, with
// chunks of `chunk` series (`per_rank` on this rank, `longest` samples at
// most each) streaming through (see run_typed): the next chunk read ahead
// and the one before finishing. Rank 0 copying the input reads and keeps the
// whole chunk's series (and, in the finish, their concatenated copy for
// /input); every rank gathers the whole chunk's result rows.
MemoryNeed overlap_need(const config::Config& config, double chunk, double per_rank, double longest,
                        double frequencies) {
  const bool copy_input = config.string("output.input") == "copy";
  const bool write_power = config.string("output.power") == "all";
  const bool validating = config.string("validation.reference") == "float64";
  const double read_series = copy_input ? chunk : per_rank;  // the series a rank reads (rank 0's)
  const double m = frequencies, peaks = static_cast<double>(config.integer("peaks.count"));
  MemoryNeed need;
  // Read ahead: the next chunk's series (t, y, dy, weights) and the columns as read (up to four).
  need.host(read_series * longest, 4 * 8 + 4 * 8);
  // Finishing: the chunk's series, their copy written to /input, its power on
  // the host (this rank's rows, and the chunk's gathered where written), the
  // peak table and its rows (this rank's and the chunk's), the FAP contexts
  // or bootstrap maxima, and the summary rows (this rank's and the chunk's).
  need.host(read_series * longest, 4 * 8 + (copy_input ? 4 * 8 : 0));
  if (write_power || validating) need.host(per_rank * m, 8);
  if (write_power) need.host(chunk * m, 8);
  need.host(per_rank * peaks, 2 * 8 + 3 * 8);
  need.host(chunk * peaks, 3 * 8);
  if (config.string("peaks.fap_method") == "bootstrap")
    need.host(per_rank, 8 * static_cast<double>(config.integer("peaks.bootstrap.resamples")));
  else
    need.host(per_rank, sizeof(ls::FapContext));
  need.host(per_rank + chunk, 8 * summary_values(config) + 2 * 8);  // the summary rows, the peak table's best
  return need;
}

// What is kept for every series of the catalogue until the end, on every
// rank: the summary rows (gathered), and the catalogue's per-series arrays
// (the ragged layout's sample offsets, series ids).
MemoryNeed catalogue_need(const config::Config& config, double series_count) {
  MemoryNeed need;
  need.host(series_count, 8 * summary_values(config));
  if (!config.string("input.count").empty() || !config.string("input.start").empty()) need.host(series_count + 1, 8);
  if (!config.string("input.ids").empty()) need.host(series_count, 8);
  return need;
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

}  // namespace

namespace lombscargle_detail {

namespace {

// nterms, after the classic keys and nterms are checked against the rest.
void read_nterms(const config::Config& config, const std::string& key, ls::Options& options) {
  check_classic_keys(config);
  check_nterms(config);
  options.nterms = static_cast<int>(config.integer(key));
}

void read_nufft_grid_limit(const config::Config& config, const std::string& key, ls::Options& options) {
  options.nufft_grid_limit = config.integer(key);
  if (!ls::valid_nufft_grid_limit(options.nufft_grid_limit))
    throw ConfigError(config.where(key), key, std::to_string(options.nufft_grid_limit) + " is not a power of two >= 64",
                      "0 or a power of two >= 64");
}

// Every Options field: the config key that sets it (the key an OptionError
// naming the field points at) and how it is read.
const OptionTable<ls::Options>& lombscargle_option_table() {
  using O = ls::Options;
  static const OptionTable<O> table{"lombscargle.",
                                    {{"form", choice(ls::form_from_name, &O::form)},
                                     {"precenter", value(&O::precenter)},
                                     {"normalize", value(&O::normalize)},
                                     {"floating_mean", value(&O::floating_mean)},
                                     {"nterms", read_nterms},
                                     {"center_data", value(&O::center_data)},
                                     {"fit_mean", value(&O::fit_mean)},
                                     {"normalization", choice(ls::normalization_from_name, &O::normalization)},
                                     {"algorithm", choice(ls::algorithm_from_name, &O::algorithm)},
                                     {"nufft_tolerance", value(&O::nufft_tolerance)},
                                     {"nufft_grid_limit", read_nufft_grid_limit}}};
  return table;
}

}  // namespace

const OptionKeys& lombscargle_option_keys() { return lombscargle_option_table().keys(); }

ls::Options options_from(const config::Config& config) { return lombscargle_option_table().read(config); }

std::string lombscargle_advice() {
  return "fewer frequencies (frequency.count, frequency.values; auto grids: frequency.maximum, "
         "frequency.samples_per_peak, frequency.nyquist_factor), fewer series or samples, or precision: float";
}

std::string frequency_key(const config::Config& config) {
  const std::string kind = config.string("frequency.grid");
  if (kind == "uniform") return "frequency.count";
  if (kind == "list") return "frequency.values";
  return config.has("frequency.maximum") ? "frequency.maximum" : "frequency.samples_per_peak";
}

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

// A catalogue streams in chunks of about this many series where it holds
// more, in up to this many chunks (plan_chunks).
constexpr std::int64_t fewest_chunks = 8;
constexpr std::int64_t smallest_streamed_chunk = 1024;

int chunks_in_flight(const config::Config& config, int ranks) {
  const std::int64_t asked = config.integer("pipeline.in_flight");
  const char* conflict = ranks > 1                                          ? "more than one rank"
                         : config.string("peaks.fap_method") == "bootstrap" ? "peaks.fap_method: bootstrap"
                         : config.string("benchmark.baseline") != "none"    ? "a benchmark.baseline"
                                                                            : nullptr;
  if (asked == 2 && conflict != nullptr)
    throw ConfigError(config.where("pipeline.in_flight"), "pipeline.in_flight",
                      std::string("2 chunks in flight cannot run with ") + conflict, "0 or 1 there");
  if (asked != 0) return static_cast<int>(asked);
  return conflict == nullptr && !std::is_same<MemSpace, HostSpace>::value ? 2 : 1;
}

ChunkPlan plan_chunks(const config::Config& config, std::int64_t series_count, double longest, double frequencies,
                      int ranks, bool check_bound) {
  const int in_flight = chunks_in_flight(config, ranks);
  const auto bytes = [](const MemoryNeed& need) { return need.device_bytes + need.host_bytes; };
  const auto per_rank_of = [&](std::int64_t chunk) { return (chunk + ranks - 1) / ranks; };
  // The plan of chunks of `chunk` series: the overlap only where more than one chunk streams through.
  const auto plan_of = [&](std::int64_t chunk) {
    ChunkPlan plan;
    plan.series = chunk;
    plan.per_rank = per_rank_of(chunk);
    const auto k = static_cast<double>(plan.per_rank);
    plan.chunk = lombscargle_need(config, k, k * longest, frequencies);
    if (chunk < series_count) {
      plan.in_flight = in_flight;
      plan.overlap = overlap_need(config, static_cast<double>(chunk), k, longest, frequencies);
      if (in_flight == 2) {  // the chunk before, its periodogram on the device beside this one's
        plan.overlap.device_bytes += plan.chunk.device_bytes;
        plan.overlap.host_bytes += plan.chunk.host_bytes;
      }
    }
    plan.catalogue = catalogue_need(config, static_cast<double>(series_count));
    for (const MemoryNeed* part : {&plan.chunk, &plan.overlap, &plan.catalogue}) {
      plan.need.device_bytes += part->device_bytes;
      plan.need.host_bytes += part->host_bytes;
    }
    return plan;
  };
  // Every rank has series in the first chunk.
  const auto clamped = [&](std::int64_t chunk) { return std::min(std::max<std::int64_t>(chunk, ranks), series_count); };
  const std::int64_t given = config.integer("pipeline.chunk_series");
  if (given > 0) return plan_of(clamped(given));
  const double limit = config.real("pipeline.memory_mib") * mebibyte;
  // A catalogue of more than smallest_streamed_chunk series streams in
  // series / smallest_streamed_chunk chunks (rounded up), at most
  // fewest_chunks, of equal size, even where the whole would fit: reading,
  // the host side and (two in flight) uploads then overlap the computes, and
  // a chunk's arrays stay in cache (10^4 curves on 2 CPU cores: 1.65-1.83 s
  // in one chunk, 1.39-1.46 s in 4 to 16; BENCHMARKS.md).
  const std::int64_t streamed_chunks = std::clamp<std::int64_t>(
      (series_count + smallest_streamed_chunk - 1) / smallest_streamed_chunk, 1, fewest_chunks);
  const std::int64_t wanted = (series_count + streamed_chunks - 1) / streamed_chunks;
  if (wanted >= series_count) {
    const ChunkPlan whole = plan_of(series_count);  // one chunk: nothing read ahead nor finishing beside it
    if (bytes(whole.need) <= limit) return whole;
  } else {
    const ChunkPlan streamed = plan_of(clamped(wanted));
    if (bytes(streamed.need) <= limit) return streamed;
  }
  const ChunkPlan one = plan_of(clamped(ranks));  // a series per rank
  if (bytes(one.need) > limit) {
    // What the machine cannot hold is blamed on the grid first (the
    // caller's check_preflight); then on this bound.
    if (!check_bound) return one;
    const double catalogue = bytes(one.catalogue);
    char text[300];
    if (catalogue > limit)
      std::snprintf(text, sizeof text,
                    "the summary of %lld series, kept until the end of the run, needs %.0f MiB, more than this bound",
                    static_cast<long long>(series_count), std::ceil(catalogue / mebibyte));
    else
      std::snprintf(text, sizeof text,
                    "one series of %.4g samples with %.4g frequencies needs %.0f MiB (device and host together, "
                    "with the series read ahead, the one finishing and the catalogue's summary), more than this "
                    "bound",
                    longest, frequencies, std::ceil(bytes(one.need) / mebibyte));
    char allowed[32];
    std::snprintf(allowed, sizeof allowed, "at least %.0f", std::ceil(bytes(one.need) / mebibyte));
    throw ConfigError(
        config.where("pipeline.memory_mib"), "pipeline.memory_mib", text,
        std::string(allowed) + (catalogue > limit ? ", or fewer series" : ", or " + lombscargle_advice()));
  }
  // The most series per rank within the bound, streaming (the need grows with the chunk).
  std::int64_t low = 1, high = per_rank_of(series_count) - 1;
  while (low < high) {
    const std::int64_t middle = low + (high - low + 1) / 2;
    if (bytes(plan_of(clamped(middle * ranks)).need) <= limit)
      low = middle;
    else
      high = middle - 1;
  }
  return plan_of(clamped(low * ranks));
}

}  // namespace lombscargle_detail

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
      const std::string ragged_by = ragged_key(config);
      if (!ragged_by.empty()) {  // ragged: 1-D samples, one count or start index per series
        const h5::Dims counts = in.dataset_dims(config.string(ragged_by));
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
  const lombscargle_detail::ChunkPlan plan = lombscargle_detail::plan_chunks(config, static_cast<std::int64_t>(series),
                                                                             samples / series, frequencies, 1, false);
  return Preflight{plan.need, lombscargle_detail::frequency_key(config), lombscargle_detail::lombscargle_advice(),
                   subject};
}

}  // namespace portasolve::drivers
