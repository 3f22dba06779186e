// experiment: lombscargle. Builds the series and the grid from the config,
// times the periodogram (and, if asked, the cuSignal-style direct baseline on
// the same data), checks it against a float64 reference, and writes power
// (unless output.power: none), peaks and their false-alarm probabilities, and
// a per-series summary (the best frequency and the model fitted there).
// Over MPI ranks every rank reads the whole input and builds the grid from it
// (as one process does) and shares each chunk's work one of two ways (one
// rule for the run, /output's attribute rank_split and the ranks line say
// which):
// - "series" (the chunks hold at least as many series as there are ranks, or
//   the NUFFT runs): every rank computes the periodograms, peaks and
//   summaries of a contiguous block of the series, and the results come back
//   together in series order;
// - "frequency" (fewer series than ranks, one chunk, any algorithm but the
//   NUFFT): every rank computes the chunk's series on a contiguous range of
//   the grid (block_span: uneven splits, and ranks without frequencies when
//   there are fewer frequencies than ranks); the ranges' power comes back
//   together into whole rows on every rank, where the peaks, FAPs, summaries
//   and writing run as in one process. Bootstrap FAPs: every rank computes
//   the resampled periodograms on its range, each resample's maximum taken
//   over the ranks. The direct, tiled and multi-term algorithms compute each
//   frequency on its own, and the recurrence a range from the whole grid's
//   seeds (FrequencyGrid::offset), so a frequency's power has the same bits
//   whichever rank computes it. The NUFFT's does not: its transform's size
//   and points depend on the whole grid, so a range's power differs in the
//   last bits, and matching them would take every rank the whole transform;
//   it keeps the series split (ranks without series idle).
// Either way each series' numbers are those of a single-process run, bit for
// bit.
// The config's keys, checks and chunk plan are in lombscargle_config.hpp,
// the per-series results and their datasets in lombscargle_results.hpp; this
// file is the streaming pipeline itself.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <future>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include "app/hdf5.hpp"
#include "core/exec_instance.hpp"
#include "core/interrupt.hpp"
#include "core/math.hpp"
#include "core/timer.hpp"
#include "drivers/experiment.hpp"
#include "drivers/lombscargle_config.hpp"
#include "drivers/lombscargle_input.hpp"
#include "drivers/lombscargle_results.hpp"
#include "drivers/option_keys.hpp"
#include "drivers/rank_blocks.hpp"
#include "drivers/repeat_loop.hpp"
#include "solvers/lombscargle/baseline_fast_math.hpp"
#include "solvers/lombscargle/bootstrap.hpp"
#include "solvers/lombscargle/fap.hpp"
#include "solvers/lombscargle/peaks.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace portasolve::drivers {

namespace ls = lombscargle;
using namespace lombscargle_detail;

namespace {

template <class Matrix>
std::vector<double> flatten(const Matrix& host) {
  std::vector<double> values(host.extent(0) * host.extent(1));
  for (std::size_t s = 0; s < host.extent(0); ++s)
    for (std::size_t k = 0; k < host.extent(1); ++k) values[s * host.extent(1) + k] = static_cast<double>(host(s, k));
  return values;
}

// Per series of `batch`, the largest error of `power` (rows of `batch` on
// `grid`) against the float64 direct algorithm, and the reference's peak
// (largest |power|): maxima, so a grid split into ranges gives the whole
// grid's by max_over_ranks.
struct SeriesErrors {
  std::vector<double> worst, peak;
};
SeriesErrors series_errors(const std::vector<ls::Series>& batch, const ls::FrequencyGrid& grid,
                           const ls::Options& options, const std::vector<double>& power) {
  ls::Options direct = options;
  direct.algorithm = ls::Algorithm::direct;  // what it computes: no other algorithm's setup
  ls::Periodogram<double> reference(batch, grid, direct);
  reference.compute(ls::Algorithm::direct);
  const auto ref = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), reference.power());
  const std::size_t m = grid.size();
  SeriesErrors errors{std::vector<double>(batch.size(), 0.0), std::vector<double>(batch.size(), 0.0)};
  for (std::size_t s = 0; s < batch.size(); ++s) {
    double peak = 0, worst = 0;
    for (std::size_t k = 0; k < m; ++k) {
      peak = std::max(peak, std::fabs(ref(s, k)));
      const double error = std::fabs(power[s * m + k] - ref(s, k));
      worst = std::isnan(error) ? INFINITY : std::max(worst, error);
    }
    errors.worst[s] = worst;
    errors.peak[s] = peak;
  }
  return errors;
}

// The largest error: {absolute, relative to each series' peak}.
std::pair<double, double> largest_error(const SeriesErrors& errors) {
  double max_abs = 0, max_rel = 0;
  for (std::size_t s = 0; s < errors.worst.size(); ++s) {
    max_abs = std::max(max_abs, errors.worst[s]);
    max_rel = std::max(max_rel, errors.worst[s] / errors.peak[s]);
  }
  return {max_abs, max_rel};
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
// the input) the whole chunk as read, its block copied into `part`. The
// block is checked where it is read (beside the device's work on the chunk
// before), the ranks' failures brought together on the main thread.
struct ChunkInput {
  std::vector<ls::Series> series;
  std::vector<ls::Series> part;  // this rank's block where `series` holds more
  bool in_part = false;          // whether the block is `part` (it may be empty)
  ItemBlock global;              // the chunk's series in the catalogue
  ItemFailure failure;           // this rank's first bad series, if any
  const std::vector<ls::Series>& mine() const { return in_part ? part : series; }
};

// This rank's first bad series of the block (InputError's message naming it
// by its index in the catalogue), or none.
ItemFailure first_bad_series(const std::vector<ls::Series>& mine, const ls::Options& options, std::int64_t first,
                             std::size_t total) {
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
  return failure;
}

// Over ranks every rank reports the first bad series of the chunk, as one
// process reports it. Collective.
void throw_first_bad_series(const Ranks& ranks, const ItemFailure& mine) {
  const ItemFailure failure = first_failure(ranks, mine);
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

  // How the ranks share a chunk (the file's comment): by frequency where the
  // chunk holds fewer series than there are ranks (plan_chunks gives every
  // rank a series otherwise: then the catalogue is one chunk) and the
  // algorithm, resolved on the whole grid, is not the NUFFT. A bad
  // algorithm request keeps the series split, to be reported by the
  // periodogram as one process reports it.
  bool by_frequency = false;
  ls::Options range_options = options;  // the algorithm fixed: a range would resolve `auto` by its own size
  const bool fewer_series = ranks.size > 1 && std::min(plan.series, catalogue.size()) < ranks.size;
  if (fewer_series) try {
      range_options.algorithm = ls::resolve_algorithm(options.algorithm, grid, options.nterms);
      by_frequency = range_options.algorithm != ls::Algorithm::nufft;
    } catch (const std::exception&) {
    }
  // This rank's range of the grid (the whole of it under the series split).
  const ItemBlock columns =
      by_frequency ? my_block(ranks, static_cast<std::int64_t>(m)) : ItemBlock{0, static_cast<std::int64_t>(m)};
  const ls::FrequencyGrid range =
      by_frequency && columns.count > 0
          ? ls::frequency_range(grid, static_cast<std::size_t>(columns.first), static_cast<std::size_t>(columns.count))
          : grid;
  // This rank's block of a chunk's series (all of them under the frequency split).
  const auto series_block = [&ranks, by_frequency](std::int64_t count) {
    return by_frequency ? ItemBlock{0, count} : my_block(ranks, count);
  };
  // The gathers of per-series results: over the ranks under the series
  // split; none under the frequency split (every rank holds every row).
  const Ranks one_rank{};
  const Ranks& gather_over = by_frequency ? one_rank : ranks;

  const bool copy_input = config.string("output.input") == "copy";
  const bool writes = ranks.rank == 0;
  // One chunk's input: this rank's block (rank 0 copying the input: the whole chunk).
  const auto read_chunk = [&catalogue, &series_block, &options, copy_input, writes, &plan,
                           series_count](std::int64_t first) {
    ChunkInput chunk;
    chunk.global = {first, std::min(plan.series, catalogue.size() - first)};
    const ItemBlock block = series_block(chunk.global.count);
    const bool whole = copy_input && writes;
    chunk.series = whole ? catalogue.read(first, chunk.global.count) : catalogue.read(first + block.first, block.count);
    chunk.in_part = whole && block.count != chunk.global.count;
    if (chunk.in_part)
      chunk.part.assign(chunk.series.begin() + block.first, chunk.series.begin() + block.first + block.count);
    chunk.failure = first_bad_series(chunk.mine(), options, first + block.first, series_count);
    return chunk;
  };
  const double setup_s = pipeline_watch.seconds();

  const RepeatCount counts(config);
  const int warmup = counts.warmup, repeats = counts.repeats;
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
  const int compression = static_cast<int>(config.integer("output.compression"));
  ResultRows rows{input,        output, writes,     copy_input,         write_power,
                  series_count, m,      peak_count, catalogue.ragged(), compression};

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
  // Chunks in flight on the device (plan.in_flight): one, on the default
  // instance; or two, alternating between two slots with a stream each, so
  // chunk c's series are prepared and uploaded while chunk c - 1 computes,
  // and c - 1's peaks are found while c computes. Each slot keeps its last
  // periodogram, updated with its next chunk's series where it holds as
  // many: its power array and, for series of the same lengths, the NUFFT's
  // grids and FFT plan are kept (a new plan per chunk cost more than the
  // NUFFT's solve).
  struct Slot {
    std::unique_ptr<OwnedInstance> instance;  // none: the default instance
    ExecSpace exec;
    std::unique_ptr<ls::Periodogram<T>> periodogram;
    ls::PeakWorkspace<T> peaks;
    std::vector<ExecInterval> computes;  // the timed computes of the chunk in flight, on the device's clock
    Slot() = default;
    Slot(Slot&&) noexcept = default;
    Slot& operator=(Slot&&) noexcept = default;
    // A run that stops (an error, Ctrl-C) with a chunk in flight: its work
    // finishes before the arrays it uses go.
    ~Slot() {
      try {
        exec.fence();
      } catch (...) {
      }
    }
  };
  const int in_flight = plan.in_flight;
  std::vector<Slot> slots(static_cast<std::size_t>(in_flight));
  if (in_flight > 1)
    for (Slot& slot : slots) {
      slot.instance = std::make_unique<OwnedInstance>();
      slot.exec = slot.instance->exec();
    }
  // A chunk whose periodogram computes (or has computed) on its slot.
  struct Launched {
    ChunkInput chunk;
    std::int64_t index = 0;
    Slot* slot = nullptr;
    bool computes = false;         // this rank has series and frequencies in it
    bool on_device_clock = false;  // its computes timed by slot->computes, added to `solve` when done
  };

  // Read (waiting for what reading ahead has not done), check, upload and
  // launch chunk c; with one chunk in flight, or for the first (its warm-ups
  // and repeats), the computes are timed to their end here.
  const auto launch_chunk = [&](std::int64_t c) {
    throw_if_interrupted();
    phase.reset();
    Launched launched;
    launched.chunk = next.get();
    launched.index = c;
    launched.slot = &slots[static_cast<std::size_t>(c % in_flight)];
    // The next chunk is read while this one is computed.
    if (c + 1 < chunks) next = std::async(std::launch::async, read_chunk, (c + 1) * plan.series);
    const std::vector<ls::Series>& mine = launched.chunk.mine();
    lap(phases.read_wait);
    throw_first_bad_series(ranks, launched.chunk.failure);
    Slot& slot = *launched.slot;
    launched.computes = !mine.empty() && columns.count > 0;  // a rank may have no series, or no frequencies
    if (!launched.computes) return launched;
    try {
      if (slot.periodogram && !by_frequency &&
          slot.periodogram->series_count() == static_cast<std::int64_t>(mine.size())) {
        slot.periodogram->update(mine, ls::checked_batch);
      } else {
        slot.periodogram.reset();  // its memory, before the new one's
        slot.periodogram =
            by_frequency
                ? std::make_unique<ls::Periodogram<T>>(slot.exec, mine, range, range_options, ls::checked_batch)
                : std::make_unique<ls::Periodogram<T>>(slot.exec, mine, grid, options, ls::checked_batch);
      }
    } catch (const OptionError& error) {
      throw config_error_for(config, error, lombscargle_option_keys(), "lombscargle.form",
                             "floating_mean with form: classic; the generalized form's is fit_mean");
    }
    ls::Periodogram<T>& periodogram = *slot.periodogram;
    algorithm = periodogram.algorithm();
    slot.exec.fence();
    lap(phases.setup);
    if (in_flight > 1 && c > 0) {  // queued behind the upload on this slot's stream, timed there
      // After the chunk before's computes on the other slot (its peak search
      // still runs beside these): the summed intervals never overlap.
      const Slot& other = slots[static_cast<std::size_t>((c - 1) % in_flight)];
      const ExecInterval* after = c > 1 && !other.computes.empty() ? &other.computes.back() : nullptr;
      slot.computes.resize(static_cast<std::size_t>(repeats));
      each_repeat(RepeatCount{0, repeats}, [&](const Repeat& repeat) {
        ExecInterval& interval = slot.computes[static_cast<std::size_t>(repeat.index)];
        interval.start(slot.exec, repeat.index == 0 ? after : nullptr);
        periodogram.compute();
        interval.stop(slot.exec);
        return 0.0;
      });
      launched.on_device_clock = true;
      lap(phases.solve);  // the launches
      return launched;
    }
    const RepeatCount count{c == 0 ? warmup : 0, repeats};  // the first chunk warms the kernels up
    const auto timed = [&](auto&& launch) {
      return each_repeat(count, [&](const Repeat&) {
        const double seconds = fenced_seconds(launch);
        if (chunks == 1) progress.update(++launches);
        return seconds;
      });
    };
    if (c == 0 && baseline != "none") progress.set_task(label_base + baseline + " (baseline)");
    RepeatTimes chunk_baseline;
    if (baseline == "direct") chunk_baseline = timed([&] { periodogram.compute(ls::Algorithm::direct); });
    if (baseline == "direct_fast_math")
      chunk_baseline = timed([&] { lombscargle::baselines::compute_direct_fast_math(periodogram); });
    if (c == 0) progress.set_task(label_base + ls::name_of(algorithm));
    // Last, so power() holds its result.
    const RepeatTimes chunk_solve = timed([&] { periodogram.compute(); });
    for (int r = 0; r < repeats; ++r) {
      solve.seconds[r] += chunk_solve.seconds[r];
      if (baseline != "none") baseline_times.seconds[r] += chunk_baseline.seconds[r];
    }
    lap(phases.solve);
    return launched;
  };

  // Once chunk `launched` has computed: its peaks, false-alarm probabilities
  // and validation, then its host side handed to a thread.
  const auto complete_chunk = [&](Launched launched) {
    phase.reset();
    Slot& slot = *launched.slot;
    const std::vector<ls::Series>& mine = launched.chunk.mine();
    const std::int64_t c = launched.index;
    const ItemBlock global = launched.chunk.global;
    const ItemBlock block = series_block(global.count);
    std::vector<double> my_power;
    ls::PeakTable table;  // empty for a rank without series in this chunk
    table.count = peak_count;
    if (launched.computes) {
      const View2D<T> power = slot.periodogram->power();
      if (launched.on_device_clock) {
        slot.exec.fence();
        for (int r = 0; r < repeats; ++r) solve.seconds[r] += slot.computes[static_cast<std::size_t>(r)].seconds();
        lap(phases.solve);  // waiting for the device
      }
      if (!by_frequency) table = ls::find_peaks(slot.exec, power, peak_count, slot.peaks);
      // The power comes to the host only to be written or checked (the
      // frequency split: always, to be gathered).
      if (write_power || validating || by_frequency) {
        const auto host = Kokkos::create_mirror_view(power);
        Kokkos::deep_copy(slot.exec, host, power);
        slot.exec.fence();
        my_power = flatten(host);
      }
      lap(phases.peaks);
    }
    // The frequency split: every rank's range put together into whole rows,
    // whose peaks are found as one process finds them (the same search on
    // the same values: T to double and back is exact).
    std::vector<double> range_power;  // this rank's range, for the validation
    if (by_frequency) {
      range_power = std::move(my_power);
      std::vector<double> whole = gather_columns(ranks, global.count, static_cast<std::int64_t>(m), range_power);
      View2D<T> rows_power(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lombscargle_power_gathered")),
                           static_cast<std::size_t>(global.count), m);
      const auto host_rows = Kokkos::create_mirror_view(rows_power);
      for (std::size_t s = 0; s < host_rows.extent(0); ++s)
        for (std::size_t k = 0; k < m; ++k) host_rows(s, k) = static_cast<T>(whole[s * m + k]);
      Kokkos::deep_copy(rows_power, host_rows);
      table = ls::find_peaks(rows_power, peak_count);
      if (write_power) my_power = std::move(whole);
      lap(phases.host);
    }
    ChunkFap fap;
    fap.defined = fap_defined;
    fap.method = fap_method;
    if (fap_defined && fap.bootstrap() && by_frequency) {
      // Each resample's maximum over the ranks' ranges: the whole grid's.
      slot.periodogram.reset();
      std::vector<std::vector<double>> maxima =
          launched.computes
              ? ls::bootstrap_resample_maxima<T>(ExecSpace(), mine, range, range_options, bootstrap, global.first,
                                                 series_count)
              : std::vector<std::vector<double>>(mine.size(), std::vector<double>(bootstrap.resamples, -INFINITY));
      std::vector<double> flat;
      for (const auto& row : maxima) flat.insert(flat.end(), row.begin(), row.end());
      max_over_ranks(ranks, flat);
      for (std::size_t s = 0; s < maxima.size(); ++s)
        std::copy_n(flat.begin() + static_cast<std::ptrdiff_t>(s * bootstrap.resamples), bootstrap.resamples,
                    maxima[s].begin());
      ls::finish_bootstrap_maxima(maxima);
      fap.maxima = std::move(maxima);
      lap(phases.bootstrap);
    } else if (fap_defined && fap.bootstrap() && !mine.empty()) {  // device work: here, not beside the next chunk
      slot.periodogram.reset();                                    // its memory
      fap.maxima = ls::bootstrap_maxima<T>(mine, grid, options, bootstrap, global.first + block.first, series_count);
      lap(phases.bootstrap);
    }
    if (c == 0) scipy115 = options.form == ls::Form::classic && ls::classic_weighted(launched.chunk.series, options);

    if (validating && by_frequency) {  // per series over the ranks' ranges, then as one process
      SeriesErrors errors = launched.computes ? series_errors(mine, range, options, range_power)
                                              : SeriesErrors{std::vector<double>(mine.size(), 0.0),
                                                             std::vector<double>(mine.size(), 0.0)};
      max_over_ranks(ranks, errors.worst);
      max_over_ranks(ranks, errors.peak);
      const auto [chunk_abs, chunk_rel] = largest_error(errors);
      max_abs = std::max(max_abs, chunk_abs);
      max_rel = std::max(max_rel, chunk_rel);
    } else if (validating && !mine.empty()) {
      const auto [chunk_abs, chunk_rel] = largest_error(series_errors(mine, grid, options, my_power));
      max_abs = std::max(max_abs, chunk_abs);
      max_rel = std::max(max_rel, chunk_rel);
    }
    lap(phases.peaks);
    // The chunk's host side (false-alarm probabilities, fits, its rows
    // written) runs while the next chunk is prepared and computed; over MPI
    // ranks (gathers on the main thread) it runs here.
    auto finish = [&, chunk = std::move(launched.chunk), table = std::move(table), my_power = std::move(my_power),
                   fap = std::move(fap), c, global, first_sample = sample_offset]() mutable {
      Kokkos::Timer watch;
      const std::vector<ls::Series>& series = chunk.mine();
      fap.prepare(series, maximum_frequency);
      const Peaks mine_peaks = peaks_of(series, table, frequency, fap);
      // Every rank's rows of this chunk in series order.
      const auto chunk_series = global.count, per_series = static_cast<std::int64_t>(peak_count);
      const Peaks peaks{gather_rows(gather_over, chunk_series, per_series, mine_peaks.frequency),
                        gather_rows(gather_over, chunk_series, per_series, mine_peaks.power),
                        gather_rows(gather_over, chunk_series, per_series, mine_peaks.fap)};
      const std::vector<double> power =
          write_power ? gather_rows(gather_over, chunk_series, static_cast<std::int64_t>(m), my_power) : my_power;
      const Summary chunk_summary =
          gather_summary(gather_over, chunk_series, summarize(series, grid, frequency, table, options, fap));
      phases.host += watch.seconds();
      watch.reset();
      if (c == 0) {
        rows.create(catalogue, chunk.series.empty() ? series : chunk.series);
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
  };

  std::optional<Launched> previous;  // with two in flight: launched, not yet completed
  for (std::int64_t c = 0; c < chunks; ++c) {
    Launched launched = launch_chunk(c);
    if (in_flight == 1) {
      complete_chunk(std::move(launched));
      continue;
    }
    if (previous) complete_chunk(std::move(*previous));
    previous = std::move(launched);
  }
  if (previous) complete_chunk(std::move(*previous));
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
  output.set_attribute("chunks_in_flight", static_cast<std::int64_t>(in_flight));
  // What a rank holds at once, as pipeline.memory_mib bounds it, and its parts.
  const auto bytes = [](const MemoryNeed& need) { return need.device_bytes + need.host_bytes; };
  output.set_attribute("memory_bytes", bytes(plan.need));
  output.set_attribute("chunk_memory_bytes", bytes(plan.chunk));
  output.set_attribute("overlap_memory_bytes", bytes(plan.overlap));
  output.set_attribute("catalogue_memory_bytes", bytes(plan.catalogue));
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
  if (ranks.size > 1) {
    output.set_attribute("ranks", static_cast<std::int64_t>(ranks.size));
    output.set_attribute("rank_split", by_frequency ? "frequency" : "series");
  }
  if (algorithm == ls::Algorithm::nufft) output.set_attribute("nufft_tolerance", ls::nufft_tolerance<T>(options));
  if (peak_count > 0)
    output.set_attribute("description",
                         fap_defined ? "false-alarm probability (" + config.string("peaks.fap_method") + ")"
                                     : std::string("not defined for this form/normalization/nterms (NaN)"),
                         "peak_fap");
  write_summary(output, summary, summary_fap, options.nterms, compression);

  const std::size_t samples = static_cast<std::size_t>(catalogue.samples(0, 1));
  context.out << "lombscargle: " << series_count << " series x ";
  if (catalogue.rectangular())
    context.out << samples << " samples";
  else
    context.out << catalogue.total_samples() << " samples in all";
  context.out << " x " << m << " frequencies, " << config.string("precision") << ", " << ls::name_of(algorithm) << ": "
              << solve.median() << " s (median of " << repeats << ")\n";
  if (chunks > 1) {
    char line[320];
    std::snprintf(line, sizeof line,
                  "streamed in %lld chunks of %lld series, %d on the device at once (%.3g MiB each on a rank, %.3g "
                  "MiB with the chunks read ahead, in flight and finishing and the summary): %.3g s end to end, %.4g "
                  "series/s\n",
                  static_cast<long long>(chunks), static_cast<long long>(plan.series), in_flight,
                  bytes(plan.chunk) / mebibyte, bytes(plan.need) / mebibyte, pipeline_s,
                  static_cast<double>(series_count) / pipeline_s);
    context.out << line << "where the time went: " << phases.text() << '\n';
  }
  if (ranks.size > 1 && by_frequency)
    context.out << "ranks: " << ranks.size << ", split by frequency: " << m / ranks.size << " to "
                << (m + ranks.size - 1) / ranks.size << " of the " << m << " frequencies each, for all " << series_count
                << " series (time: rank 0's)\n";
  else if (ranks.size > 1)
    context.out << "ranks: " << ranks.size << ", split by series: " << plan.series / ranks.size << " to "
                << (plan.series + ranks.size - 1) / ranks.size << " series each per chunk"
                << (fewer_series ? " (the NUFFT is not split by frequency: its bits depend on the whole grid)" : "")
                << " (time: rank 0's)\n";
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
  with_precision(context.config, [&](auto zero) { run_typed<decltype(zero)>(context); });
}

namespace {
// Any rank count runs: fewer series than ranks split by frequency, or (the
// NUFFT) by series with ranks idle (the file's comment).
void accept_any_ranks(const config::Config&, int) {}
}  // namespace

Experiment lombscargle_experiment() {
  const char* summary = "Lomb-Scargle periodograms (SciPy classic, astropy generalized), peaks and FAP";
  return {"lombscargle", summary, add_lombscargle_schema, run_lombscargle, preflight_lombscargle, accept_any_ranks};
}

}  // namespace portasolve::drivers
