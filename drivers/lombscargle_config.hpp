#pragma once
// What a lombscargle config asks for, read and checked before anything runs:
// the solver's options, the frequency grid, the memory a chunk of series
// needs and how the catalogue streams through in chunks (see
// lombscargle_driver.cpp). The experiment's schema, preflight and rank check
// are here for lombscargle_experiment(); what else the driver shares with
// them lives in lombscargle_detail.
#include <cstdint>
#include <string>

#include "app/config.hpp"
#include "app/memory_budget.hpp"
#include "drivers/lombscargle_input.hpp"
#include "drivers/option_keys.hpp"
#include "drivers/preflight.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace portasolve::drivers {

void add_lombscargle_schema(config::Schema& schema);
Preflight preflight_lombscargle(const config::Config& config);

}  // namespace portasolve::drivers

namespace portasolve::drivers::lombscargle_detail {

// Options fields the solver may name in an OptionError -> their config keys.
const OptionKeys& lombscargle_option_keys();

// The solver's options from lombscargle.*, after the checks of the classic
// form's keys and of nterms (ConfigError).
lombscargle::Options options_from(const config::Config& config);

// What to change when a run does not fit in memory.
std::string lombscargle_advice();

// The key a grid too large for memory is blamed on.
std::string frequency_key(const config::Config& config);

// The grid from the config (automatic grids: from the first series' times,
// as astropy's autofrequency does for one series).
lombscargle::FrequencyGrid grid_from(const config::Config& config, SeriesCatalogue& catalogue);

constexpr double mebibyte = 1048576.0;

// How the catalogue streams: chunks of `series` series (split over the
// ranks, at most `per_rank` on one). What a rank holds at once, `need`
// (what pipeline.memory_mib bounds and the machine must hold), is the sum of
// `chunk`, the chunk being computed (device and host), `overlap`, with more
// than one chunk the next chunk read ahead and the one before still finishing
// on a host thread (host) and, with two chunks in flight, the chunk before's
// periodogram (device and host), and `catalogue`, what is kept for every series
// until the end (the summary rows, the catalogue's per-series arrays; host).
struct ChunkPlan {
  std::int64_t series = 0, per_rank = 0;
  int in_flight = 1;  // chunks on the device at once (chunks_in_flight; 1 for a single chunk)
  MemoryNeed need, chunk, overlap, catalogue;
  std::int64_t chunks(std::int64_t series_count) const { return (series_count + series - 1) / series; }
};

// pipeline.in_flight resolved for a run over `ranks` ranks: 1 or 2 (see its
// schema entry); ConfigError where 2 is asked for with what it cannot run
// with.
int chunks_in_flight(const config::Config& config, int ranks);

// `check_bound` false: one series over pipeline.memory_mib gives chunks of one
// series (for the machine's check to judge first) instead of a ConfigError;
// true: ConfigError at pipeline.memory_mib when not even that fits (naming
// the catalogue's summary when that alone does not).
ChunkPlan plan_chunks(const config::Config& config, std::int64_t series_count, double longest, double frequencies,
                      int ranks, bool check_bound);

}  // namespace portasolve::drivers::lombscargle_detail
