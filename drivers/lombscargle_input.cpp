#include "drivers/lombscargle_input.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "app/hdf5.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/math.hpp"

namespace portasolve::drivers {

namespace ls = lombscargle;

void add_lombscargle_input_schema(config::Schema& schema) {
  using config::Kind;
  schema.add("input.source", Kind::Choice, "where the series come from")
      .choices({"synthetic", "csv", "hdf5"})
      .default_value("synthetic");
  schema.add("input.series", Kind::Integer, "synthetic: number of series").default_value(1).at_least(1);
  schema.add("input.samples", Kind::Integer, "synthetic: samples per series").default_value(1024).at_least(2);
  schema.add("input.duration", Kind::Real, "synthetic: times uniform in [0, duration)")
      .default_value(100.0)
      .greater_than(0);
  schema.add("input.shared_times", Kind::Boolean, "synthetic: every series has the same times").default_value(true);
  schema.add("input.signal_frequency", Kind::Real, "synthetic: sinusoid frequency, cycles per unit time")
      .default_value(0.25)
      .greater_than(0);
  schema.add("input.amplitude", Kind::Real, "synthetic: sinusoid amplitude").default_value(1.0).at_least(0);
  schema.add("input.offset", Kind::Real, "synthetic: constant added to y").default_value(0.0);
  schema.add("input.noise", Kind::Real, "synthetic: Gaussian noise sigma").default_value(0.5).at_least(0);
  schema.add("input.uncertainties", Kind::Boolean, "synthetic: give dy (noise sigma times 0.5..1.5)")
      .default_value(false);
  schema.add("input.file", Kind::String, "csv/hdf5: the file").optional();
  schema.add("input.t", Kind::String, "csv: column, hdf5: dataset of the times").default_value("t");
  schema.add("input.y", Kind::String, "csv: column, hdf5: dataset of the values (hdf5: 2-D = series x samples)")
      .default_value("y");
  schema.add("input.dy", Kind::String, "csv: column, hdf5: dataset of the uncertainties; empty: none")
      .default_value("");
  schema
      .add("input.weights", Kind::String,
           "csv: column, hdf5: dataset of the classic form's per-sample weights (SciPy >= 1.15; >= 0, positive "
           "sum); empty: none")
      .default_value("");
}

namespace {

const std::string utf8_bom = "\xEF\xBB\xBF";

std::vector<ls::Series> synthetic(const config::Config& config) {
  const auto series_count = config.integer("input.series");
  const auto samples = static_cast<std::size_t>(config.integer("input.samples"));
  const double duration = config.real("input.duration");
  const double frequency = config.real("input.signal_frequency");
  const double amplitude = config.real("input.amplitude"), offset = config.real("input.offset");
  const double noise = config.real("input.noise");
  const bool shared = config.boolean("input.shared_times"), with_dy = config.boolean("input.uncertainties");
  std::mt19937_64 rng(static_cast<std::uint64_t>(config.integer("seed")));
  std::uniform_real_distribution<double> when(0.0, duration), phase(0.0, math::two_pi<double>()), spread(0.5, 1.5);
  std::normal_distribution<double> gaussian(0.0, 1.0);
  const auto draw_times = [&] {
    std::vector<double> t(samples);
    for (double& v : t) v = when(rng);
    std::sort(t.begin(), t.end());
    return t;
  };
  const std::vector<double> common = draw_times();
  std::vector<ls::Series> batch(static_cast<std::size_t>(series_count));
  for (auto& series : batch) {
    throw_if_interrupted();
    series.t = shared ? common : draw_times();
    const double phi = phase(rng);
    for (double t : series.t) {
      const double sigma = with_dy ? noise * spread(rng) : noise;
      series.y.push_back(offset + amplitude * std::sin(math::two_pi<double>() * frequency * t + phi) +
                         sigma * gaussian(rng));
      if (with_dy) series.dy.push_back(sigma > 0 ? sigma : 1.0);
    }
  }
  return batch;
}

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

std::vector<ls::Series> from_hdf5(const std::string& file, const config::Config& config) {
  const h5::File in = h5::File::open_read_only(file);
  h5::Dims t_dims, y_dims, dy_dims;
  const auto t = in.read_dataset<double>(config.string("input.t"), &t_dims);
  const auto y = in.read_dataset<double>(config.string("input.y"), &y_dims);
  std::vector<double> dy, weights;
  h5::Dims weights_dims;
  if (!config.string("input.dy").empty()) dy = in.read_dataset<double>(config.string("input.dy"), &dy_dims);
  if (!config.string("input.weights").empty())
    weights = in.read_dataset<double>(config.string("input.weights"), &weights_dims);
  if (y_dims.empty() || y_dims.size() > 2) throw InputError(file + ": y must be 1-D or 2-D (series x samples)");
  const std::size_t series_count = y_dims.size() == 2 ? y_dims[0] : 1;
  const std::size_t samples = y_dims.back();
  const auto row_of = [&](const std::vector<double>& values, const h5::Dims& dims, std::size_t s, const char* name) {
    if (dims == h5::Dims{samples}) return values;  // shared by every series
    if (dims == y_dims) return std::vector<double>(values.begin() + s * samples, values.begin() + (s + 1) * samples);
    throw InputError(file + ": " + name + " must have y's shape or one row of " + std::to_string(samples));
  };
  std::vector<ls::Series> batch(series_count);
  for (std::size_t s = 0; s < series_count; ++s) {
    batch[s].t = row_of(t, t_dims, s, "t");
    batch[s].y = std::vector<double>(y.begin() + s * samples, y.begin() + (s + 1) * samples);
    if (!dy.empty()) batch[s].dy = row_of(dy, dy_dims, s, "dy");
    if (!weights.empty()) batch[s].weights = row_of(weights, weights_dims, s, "weights");
  }
  return batch;
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

std::vector<ls::Series> load_lombscargle_input(const config::Config& config) {
  const std::string source = config.string("input.source");
  if (source == "synthetic") return synthetic(config);
  if (!config.has("input.file"))
    throw ConfigError(config.where("input.source"), "input.file", "missing for input.source: " + source,
                      "the path of the " + source + " file");
  const std::string file = config.string("input.file");
  return source == "csv" ? from_csv(file, config) : from_hdf5(file, config);
}

}  // namespace portasolve::drivers
