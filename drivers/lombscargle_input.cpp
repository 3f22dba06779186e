#include "drivers/lombscargle_input.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "app/hdf5.hpp"
#include "core/errors.hpp"
#include "core/host_threads.hpp"
#include "core/interrupt.hpp"
#include "core/math.hpp"
#include "drivers/schema_keys.hpp"

namespace portasolve::drivers {

namespace ls = lombscargle;

void add_lombscargle_input_schema(config::Schema& schema) {
  using config::Kind;
  add_choice(schema, "input.source", "where the series come from", {"synthetic", "csv", "hdf5"}, "synthetic");
  add_integer(schema, "input.series", "synthetic: number of series", 1).at_least(1);
  add_integer(schema, "input.samples", "synthetic: samples per series", 1024).at_least(2);
  add_real(schema, "input.duration", "synthetic: times uniform in [0, duration)", 100.0).greater_than(0);
  add_boolean(schema, "input.shared_times", "synthetic: every series has the same times", true);
  add_real(schema, "input.signal_frequency", "synthetic: sinusoid frequency, cycles per unit time", 0.25)
      .greater_than(0);
  add_real(schema, "input.amplitude", "synthetic: sinusoid amplitude", 1.0).at_least(0);
  add_real(schema, "input.offset", "synthetic: constant added to y", 0.0);
  add_real(schema, "input.noise", "synthetic: Gaussian noise sigma", 0.5).at_least(0);
  add_boolean(schema, "input.uncertainties", "synthetic: give dy (noise sigma times 0.5..1.5)", false);
  schema.add("input.file", Kind::String, "csv/hdf5: the file").optional();
  schema.add("input.t", Kind::String, "csv: column, hdf5: dataset of the times").default_value("t");
  schema
      .add("input.y", Kind::String,
           "csv: column, hdf5: dataset of the values (2-D = series x samples; 1-D with input.count or input.start: "
           "ragged)")
      .default_value("y");
  schema.add("input.dy", Kind::String, "csv: column, hdf5: dataset of the uncertainties; empty: none")
      .default_value("");
  schema
      .add("input.weights", Kind::String,
           "csv: column, hdf5: dataset of the classic form's per-sample weights (SciPy >= 1.15; >= 0, positive "
           "sum); empty: none")
      .default_value("");
  schema
      .add("input.count", Kind::String,
           "hdf5: dataset of each series' sample count for the contiguous ragged layout (t, y, dy, weights 1-D, "
           "the series one after another, as CF conventions define it); empty: 2-D series x samples")
      .default_value("");
  schema
      .add("input.start", Kind::String,
           "hdf5: dataset of each series' first sample (index into t, y, dy, weights), one per series, for the "
           "contiguous ragged layout instead of input.count: starting at 0, never decreasing, the last series "
           "running to the end of the data; empty: none")
      .default_value("");
  schema
      .add("input.ids", Kind::String, "hdf5: dataset of integer series ids, written as /output/series_id; empty: none")
      .default_value("");
}

std::string ragged_key(const config::Config& config) {
  const bool count = !config.string("input.count").empty(), start = !config.string("input.start").empty();
  if (count && start)
    throw ConfigError(config.where("input.start"), "input.start",
                      "given with input.count: the ragged layout takes one of them",
                      "empty with input.count, or input.count empty");
  return count ? "input.count" : start ? "input.start" : "";
}

namespace {

const std::string utf8_bom = "\xEF\xBB\xBF";

std::vector<ls::Series> from_csv(const std::string& file, const config::Config& config) {
  std::ifstream in(file);
  if (!in) throw IoError("cannot open CSV file '" + file + "'");
  std::string line;
  if (!std::getline(in, line)) throw InputError(file + ": empty CSV file");
  if (line.rfind(utf8_bom, 0) == 0) line.erase(0, utf8_bom.size());  // spreadsheets save one
  std::vector<std::string> header;
  {
    std::stringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) {
      cell.erase(0, cell.find_first_not_of(" \t\r"));
      cell.erase(cell.find_last_not_of(" \t\r") + 1);
      header.push_back(cell);
    }
  }
  const auto column = [&](const std::string& key) -> int {
    const std::string name = config.string(key);
    if (name.empty()) return -1;
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end())
      throw ConfigError(config.where(key), key, "no column '" + name + "' in " + file,
                        "one of the header's columns: " + line);
    return static_cast<int>(it - header.begin());
  };
  const int t_column = column("input.t"), y_column = column("input.y"), dy_column = column("input.dy"),
            weights_column = column("input.weights");
  ls::Series series;
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::vector<std::string> cells;
    std::stringstream row(line);
    std::string cell;
    while (std::getline(row, cell, ',')) cells.push_back(cell);
    const auto value = [&](int index) {
      if (index >= static_cast<int>(cells.size()))
        throw InputError(file + ":" + std::to_string(number) + ": missing column " + header[index]);
      // The whole cell, blanks around it aside, must be the number: "12.3abc" is not 12.3.
      const std::string& text = cells[index];
      const char* begin = text.c_str();
      char* end = nullptr;
      const double v = std::strtod(begin, &end);
      const bool rest_blank = end != begin && std::string(end).find_first_not_of(" \t\r") == std::string::npos;
      if (!rest_blank)
        throw InputError(file + ":" + std::to_string(number) + ": '" + text + "' in column " + header[index] +
                         " is not a number");
      return v;
    };
    series.t.push_back(value(t_column));
    series.y.push_back(value(y_column));
    if (dy_column >= 0) series.dy.push_back(value(dy_column));
    if (weights_column >= 0) series.weights.push_back(value(weights_column));
  }
  return {series};
}

}  // namespace

double csv_rows_estimate(const std::string& file) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) throw IoError("cannot open CSV file '" + file + "'");
  const auto size = static_cast<double>(in.tellg());
  in.seekg(0);
  std::string line;
  std::getline(in, line);  // the header
  std::size_t shortest = 0;
  for (int k = 0; k < 64 && std::getline(in, line); ++k)
    if (line.find_first_not_of(" \t\r") != std::string::npos && (shortest == 0 || line.size() < shortest))
      shortest = line.size();
  return shortest == 0 ? 0 : std::ceil(size / static_cast<double>(shortest + 1));
}

namespace {

// Synthetic series: a sinusoid of random phase plus Gaussian noise at
// random (or shared) times, drawn from one stream seeded by `seed`.
// Synthetic light curves. Each series draws from its own stream, seeded by
// (seed, series index), so any block of a catalogue is made without drawing
// the series before it (a rank's block, a later chunk) and the series of a
// block are made on the host's cores. The shared times have a stream of their
// own.
class SyntheticSeries {
 public:
  explicit SyntheticSeries(const config::Config& config)
      : count_(config.integer("input.series")),
        samples_(static_cast<std::size_t>(config.integer("input.samples"))),
        frequency_(config.real("input.signal_frequency")),
        amplitude_(config.real("input.amplitude")),
        offset_(config.real("input.offset")),
        noise_(config.real("input.noise")),
        duration_(config.real("input.duration")),
        shared_(config.boolean("input.shared_times")),
        with_dy_(config.boolean("input.uncertainties")),
        seed_(static_cast<std::uint64_t>(config.integer("seed"))) {
    if (shared_) {
      std::mt19937_64 rng = stream(shared_times_stream);
      common_ = draw_times(rng);
    }
  }
  std::int64_t size() const { return count_; }
  std::size_t samples() const { return samples_; }

  std::vector<ls::Series> read(std::int64_t first, std::int64_t count) const {
    std::vector<ls::Series> block(static_cast<std::size_t>(count));
    // Below a few series a thread costs more than it saves.
    constexpr std::size_t series_per_thread = 16;
    for_each_on_host_threads(block.size(), series_per_thread, [&](const std::size_t k) {
      if (k % series_per_thread == 0) throw_if_interrupted();
      block[k] = draw(static_cast<std::uint64_t>(first) + k);
    });
    return block;
  }

 private:
  // The shared times' stream index: past any series index.
  static constexpr std::uint64_t shared_times_stream = ~std::uint64_t{0};

  // A generator for stream `index`: seed and index mixed by a seed sequence,
  // so neighbouring indices start far apart in the generator's state.
  std::mt19937_64 stream(const std::uint64_t index) const {
    std::seed_seq sequence{static_cast<std::uint32_t>(seed_), static_cast<std::uint32_t>(seed_ >> 32),
                           static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32)};
    return std::mt19937_64(sequence);
  }
  std::vector<double> draw_times(std::mt19937_64& rng) const {
    std::uniform_real_distribution<double> when(0.0, duration_);
    std::vector<double> t(samples_);
    for (double& v : t) v = when(rng);
    std::sort(t.begin(), t.end());
    return t;
  }
  ls::Series draw(const std::uint64_t index) const {
    std::mt19937_64 rng = stream(index);
    std::uniform_real_distribution<double> phase(0.0, math::two_pi<double>()), spread(0.5, 1.5);
    std::normal_distribution<double> gaussian(0.0, 1.0);
    ls::Series series;
    series.t = shared_ ? common_ : draw_times(rng);
    const double phi = phase(rng);
    series.y.reserve(samples_);
    for (double t : series.t) {
      const double sigma = with_dy_ ? noise_ * spread(rng) : noise_;
      series.y.push_back(offset_ + amplitude_ * std::sin(math::two_pi<double>() * frequency_ * t + phi) +
                         sigma * gaussian(rng));
      if (with_dy_) series.dy.push_back(sigma > 0 ? sigma : 1.0);
    }
    return series;
  }

  std::int64_t count_;
  std::size_t samples_;
  double frequency_, amplitude_, offset_, noise_, duration_;
  bool shared_, with_dy_;
  std::uint64_t seed_;
  std::vector<double> common_;
};

// Series a thread copies at least, reading a chunk (a few microseconds each).
constexpr std::size_t series_per_copy_thread = 512;

// An HDF5 catalogue: y 2-D (series x samples) or 1-D (one series), t, dy and
// weights of y's shape or one shared row; or, with input.count or
// input.start, the ragged layout: every array 1-D, the series one after
// another.
class Hdf5Catalogue {
 public:
  Hdf5Catalogue(const std::string& file, const config::Config& config)
      : file_(file), in_(h5::File::open_read_only(file)) {
    for (const char* key : {"input.t", "input.y", "input.dy", "input.weights"}) names_.push_back(config.string(key));
    y_dims_ = in_.dataset_dims(names_[y]);
    const std::string ragged_by = ragged_key(config);
    if (ragged_by.empty()) {
      if (y_dims_.empty() || y_dims_.size() > 2)
        throw InputError(file + ": " + names_[y] + " must be 1-D or 2-D (series x samples)");
      series_ = y_dims_.size() == 2 ? static_cast<std::int64_t>(y_dims_[0]) : 1;
      row_ = static_cast<std::int64_t>(y_dims_.back());
      for (int column : {t, dy, weights}) {
        if (names_[column].empty()) continue;
        const h5::Dims dims = in_.dataset_dims(names_[column]);
        if (dims == h5::Dims{y_dims_.back()} && y_dims_.size() == 2) {
          shared_[column] = in_.read_dataset<double>(names_[column]);  // one row for every series
        } else if (dims != y_dims_) {
          throw InputError(file + ": " + names_[column] + " must have " + names_[y] + "'s shape or one row of " +
                           std::to_string(row_));
        }
      }
    } else if (ragged_by == "input.count") {
      read_counts(config.string(ragged_by));
    } else {
      read_starts(config.string(ragged_by));
    }
    for (int column : {t, y, dy, weights})
      if (!names_[column].empty() && shared_[column].empty())
        columns_[column].single = in_.holds_single_precision(names_[column]);
    const std::string ids_name = config.string("input.ids");
    if (!ids_name.empty()) {
      const h5::Dims dims = in_.dataset_dims(ids_name);
      if (dims != h5::Dims{static_cast<hsize_t>(series_)})
        throw InputError(file + ": " + ids_name + " must be 1-D with one id per series (" + std::to_string(series_) +
                         ")");
      ids_ = in_.read_dataset<std::int64_t>(ids_name);
    }
  }

  std::int64_t size() const { return series_; }
  bool ragged() const { return !offsets_.empty(); }
  std::int64_t samples(std::int64_t first, std::int64_t count) const {
    return ragged() ? offsets_[first + count] - offsets_[first] : count * row_;
  }
  bool rectangular() const {
    if (!ragged()) return true;
    for (std::int64_t s = 1; s < series_; ++s)
      if (offsets_[s + 1] - offsets_[s] != offsets_[1]) return false;
    return true;
  }
  const std::vector<std::int64_t>& ids() const { return ids_; }

  std::vector<ls::Series> read(std::int64_t first, std::int64_t count) {
    std::vector<ls::Series> block(static_cast<std::size_t>(count));
    // 1-D datasets (the ragged layout, or one series) are read by sample, 2-D ones by series.
    const bool by_sample = y_dims_.size() == 1;
    const auto start = static_cast<hsize_t>(ragged() ? offsets_[first] : by_sample ? 0 : first);
    const auto rows = static_cast<hsize_t>(by_sample ? samples(first, count) : count);
    for (int column : {t, y, dy, weights})
      if (!names_[column].empty() && shared_[column].empty()) columns_[column].read(in_, names_[column], start, rows);
    // Into the series on the host's cores: the copies into a chunk's fresh
    // per-series arrays took as long as reading the file on one thread.
    for_each_on_host_threads(block.size(), series_per_copy_thread, [&](std::size_t s) {
      const std::int64_t at = samples(first, static_cast<std::int64_t>(s));  // the series' first sample in `values`
      const std::int64_t n = samples(first + static_cast<std::int64_t>(s), 1);
      for (int column : {t, y, dy, weights}) {
        if (names_[column].empty()) continue;
        std::vector<double>& field = block[s].*member[column];
        if (!shared_[column].empty())
          field = shared_[column];
        else
          columns_[column].copy(at, n, field);
      }
    });
    return block;
  }

 private:
  enum Column { t, y, dy, weights };
  using SeriesField = std::vector<double> ls::Series::*;
  static constexpr SeriesField member[4] = {&ls::Series::t, &ls::Series::y, &ls::Series::dy, &ls::Series::weights};

  // The ragged layout's per-series dataset `name` (set by `key`, holding
  // `what`) and y: both 1-D.
  void check_ragged_dims(const std::string& name, const std::string& key, const std::string& what) const {
    if (in_.dataset_dims(name).size() != 1)
      throw InputError(file_ + ": " + name + " (" + key + ") must be 1-D: " + what);
    if (y_dims_.size() != 1)
      throw InputError(file_ + ": with " + key + " (ragged layout) " + names_[y] +
                       " must be 1-D, the series' samples one after another");
  }

  void read_counts(const std::string& count_name) {
    check_ragged_dims(count_name, "input.count", "one sample count per series");
    const auto counts = in_.read_dataset<std::int64_t>(count_name);
    series_ = static_cast<std::int64_t>(counts.size());
    offsets_.assign(1, 0);
    for (std::size_t s = 0; s < counts.size(); ++s) {
      if (counts[s] < 0)
        throw InputError(file_ + ": " + count_name + ": series " + std::to_string(s) + " has a negative count (" +
                         std::to_string(counts[s]) + ")");
      offsets_.push_back(offsets_.back() + counts[s]);
    }
    for (int column : {t, y, dy, weights}) {
      if (names_[column].empty()) continue;
      const h5::Dims dims = in_.dataset_dims(names_[column]);
      if (dims != h5::Dims{static_cast<hsize_t>(offsets_.back())})
        throw InputError(file_ + ": the counts in " + count_name + " add up to " + std::to_string(offsets_.back()) +
                         " samples but " + names_[column] + " holds " + described(dims) +
                         " (ragged layout: 1-D, every series' samples one after another)");
    }
  }

  // Series s is [starts[s], starts[s + 1]), the last one to the end of y:
  // the starts begin at 0, never decrease and stay within y.
  void read_starts(const std::string& start_name) {
    check_ragged_dims(start_name, "input.start", "one start index per series");
    const auto starts = in_.read_dataset<std::int64_t>(start_name);
    const auto total = static_cast<std::int64_t>(y_dims_[0]);
    series_ = static_cast<std::int64_t>(starts.size());
    for (std::size_t s = 0; s < starts.size(); ++s) {
      const std::string series = file_ + ": " + start_name + " (input.start): series " + std::to_string(s) +
                                 " starts at sample " + std::to_string(starts[s]);
      if (s == 0 && starts[s] != 0)
        throw InputError(series + ", not 0 (each series' first sample: the first series starts at 0)");
      if (s > 0 && starts[s] < starts[s - 1])
        throw InputError(series + ", before series " + std::to_string(s - 1) + " (at " + std::to_string(starts[s - 1]) +
                         "): the start indices must not decrease");
      if (starts[s] > total)
        throw InputError(series + ", past the end of " + names_[y] + " (" + std::to_string(total) + " samples)");
    }
    offsets_ = starts;
    offsets_.push_back(total);
    for (int column : {t, dy, weights}) {
      if (names_[column].empty()) continue;
      const h5::Dims dims = in_.dataset_dims(names_[column]);
      if (dims != y_dims_)
        throw InputError(file_ + ": " + names_[column] + " holds " + described(dims) + " samples but " + names_[y] +
                         " holds " + std::to_string(total) +
                         " (ragged layout: 1-D, every series' samples one after another)");
    }
  }

  static std::string described(const h5::Dims& dims) {
    return dims.size() == 1 ? std::to_string(dims[0]) : std::to_string(dims.size()) + "-D data";
  }

  std::string file_;
  h5::File in_;
  std::vector<std::string> names_;
  h5::Dims y_dims_;
  std::int64_t series_ = 0, row_ = 0;
  std::vector<double> shared_[4];
  std::vector<std::int64_t> offsets_, ids_;
  // A column of the last block read, in the dataset's precision (float
  // read as such: half the bytes and no conversion in HDF5; widened to
  // double, exactly, where the series take their values), its memory kept
  // for the next block (the catalogue is read one block at a time).
  struct ReadColumn {
    std::vector<double> wide;
    std::vector<float> narrow;
    bool single = false;  // the dataset's precision, found when the catalogue is opened
    void read(const h5::File& file, const std::string& name, hsize_t start, hsize_t rows) {
      if (single)
        file.read_rows_into(name, start, rows, narrow);
      else
        file.read_rows_into(name, start, rows, wide);
    }
    void copy(std::int64_t at, std::int64_t n, std::vector<double>& to) const {
      if (single)
        to.assign(narrow.begin() + at, narrow.begin() + at + n);
      else
        to.assign(wide.begin() + at, wide.begin() + at + n);
    }
  };
  ReadColumn columns_[4];
};

}  // namespace

struct SeriesCatalogue::Source {
  std::unique_ptr<SyntheticSeries> synthetic;
  std::unique_ptr<Hdf5Catalogue> hdf5;
  std::vector<ls::Series> csv;  // its one series
  std::vector<std::int64_t> no_ids;
};

SeriesCatalogue::SeriesCatalogue(const config::Config& config) : source_(std::make_unique<Source>()) {
  const std::string source = config.string("input.source");
  if (source != "hdf5")
    for (const char* key : {"input.count", "input.start", "input.ids"})
      if (!config.string(key).empty())
        throw ConfigError(config.where(key), key, "only HDF5 catalogues have this dataset",
                          "empty, or input.source: hdf5");
  if (source == "synthetic") {
    source_->synthetic = std::make_unique<SyntheticSeries>(config);
    return;
  }
  if (!config.has("input.file"))
    throw ConfigError(config.where("input.source"), "input.file", "missing for input.source: " + source,
                      "the path of the " + source + " file");
  const std::string file = config.string("input.file");
  if (source == "csv")
    source_->csv = from_csv(file, config);
  else
    source_->hdf5 = std::make_unique<Hdf5Catalogue>(file, config);
}

SeriesCatalogue::~SeriesCatalogue() = default;
SeriesCatalogue::SeriesCatalogue(SeriesCatalogue&&) noexcept = default;

std::int64_t SeriesCatalogue::size() const {
  if (source_->synthetic) return source_->synthetic->size();
  if (source_->hdf5) return source_->hdf5->size();
  return 1;
}

std::int64_t SeriesCatalogue::samples(std::int64_t first, std::int64_t count) const {
  if (source_->synthetic) return count * static_cast<std::int64_t>(source_->synthetic->samples());
  if (source_->hdf5) return source_->hdf5->samples(first, count);
  return count * static_cast<std::int64_t>(source_->csv.front().t.size());
}

bool SeriesCatalogue::rectangular() const { return !source_->hdf5 || source_->hdf5->rectangular(); }
bool SeriesCatalogue::ragged() const { return source_->hdf5 && source_->hdf5->ragged(); }

std::vector<ls::Series> SeriesCatalogue::read(std::int64_t first, std::int64_t count) {
  if (source_->synthetic) return source_->synthetic->read(first, count);
  if (source_->hdf5) return source_->hdf5->read(first, count);
  return count == 0 ? std::vector<ls::Series>{} : source_->csv;
}

const std::vector<std::int64_t>& SeriesCatalogue::ids() const {
  return source_->hdf5 ? source_->hdf5->ids() : source_->no_ids;
}

std::vector<ls::Series> load_lombscargle_input(const config::Config& config) {
  SeriesCatalogue catalogue(config);
  return catalogue.read(0, catalogue.size());
}

}  // namespace portasolve::drivers
