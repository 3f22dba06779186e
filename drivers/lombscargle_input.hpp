#pragma once
// The time series a lombscargle config asks for: generated, or read from CSV
// or HDF5 (2-D series x samples, or the contiguous ragged layout: 1-D
// concatenated samples plus a per-series count, as the CF conventions define
// it, or a per-series start index), read a block of series at a time so a catalogue of any size streams
// through bounded memory.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/config.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace portasolve::drivers {

void add_lombscargle_input_schema(config::Schema& schema);

// The key that sets the ragged layout's per-series dataset: "input.count",
// "input.start", or empty (2-D series x samples); ConfigError at
// input.start when both are given.
std::string ragged_key(const config::Config& config);

class SeriesCatalogue {
 public:
  // Opens the input and checks its layout (shapes; ragged counts >= 0 and
  // summing to the data's length, or start indices from 0, never decreasing,
  // within the data): InputError naming the file, dataset and
  // series; ConfigError for missing keys. Reads no series yet (CSV: its one
  // series).
  explicit SeriesCatalogue(const config::Config& config);
  ~SeriesCatalogue();
  SeriesCatalogue(SeriesCatalogue&&) noexcept;
  SeriesCatalogue& operator=(SeriesCatalogue&&) = delete;

  std::int64_t size() const;  // series
  // Samples of series [first, first + count) together.
  std::int64_t samples(std::int64_t first, std::int64_t count) const;
  std::int64_t total_samples() const { return samples(0, size()); }
  // Every series has the same number of samples (`samples(0, 1)`).
  bool rectangular() const;
  bool ragged() const;  // read from the ragged layout
  // Series [first, first + count). Synthetic series are drawn in order from
  // one seeded stream: reading a later block draws (and drops) the series
  // before it, so any block is the one a whole read gives.
  std::vector<lombscargle::Series> read(std::int64_t first, std::int64_t count);
  // Per-series ids from input.ids (empty when not given).
  const std::vector<std::int64_t>& ids() const;

 private:
  struct Source;
  std::unique_ptr<Source> source_;
};

// Every series at once (small inputs; the Python tests' and tools' path).
std::vector<lombscargle::Series> load_lombscargle_input(const config::Config& config);

// About how many data rows a CSV file holds, from its size and its shortest
// of the first rows (errs high), without reading it all; IoError if it
// cannot be opened.
double csv_rows_estimate(const std::string& file);

}  // namespace portasolve::drivers
