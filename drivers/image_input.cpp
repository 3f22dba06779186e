#include "drivers/image_input.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "app/hdf5.hpp"
#include "app/pgm.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/math.hpp"
#include "drivers/schema_keys.hpp"

namespace portasolve::drivers {

void add_image_input_schema(config::Schema& schema, const std::string& prefix) {
  using config::Kind;
  schema.add(prefix + ".file", Kind::String, "pgm/hdf5: the image file").optional();
  schema.add(prefix + ".dataset", Kind::String, "hdf5: the 2-D dataset (rows x cols)").default_value("image");
  add_integer(schema, prefix + ".rows", "synthetic: image height in pixels", 266).at_least(1);
  add_integer(schema, prefix + ".cols", "synthetic: image width in pixels", 400).at_least(1);
  add_choice(schema, prefix + ".pattern", "synthetic: what the picture shows", synthetic_patterns(), "shapes");
}

const std::vector<std::string>& synthetic_patterns() {
  static const std::vector<std::string> names{"shapes", "noise", "gradient"};
  return names;
}

Image synthetic_image(std::size_t rows, std::size_t cols, const std::string& pattern, unsigned seed) {
  return synthetic_image_window(rows, cols, pattern, seed, ImageWindow{0, rows, 0, cols});
}

Image synthetic_image_window(std::size_t rows, std::size_t cols, const std::string& pattern, unsigned seed,
                             const ImageWindow& window) {
  if (window.first_row + window.rows > rows || window.first_col + window.cols > cols)
    throw std::invalid_argument("synthetic_image_window: the window reaches past the " + std::to_string(rows) + "x" +
                                std::to_string(cols) + " image");
  Image image{window.rows, window.cols, std::vector<double>(window.rows * window.cols), 255,
              "synthetic " + pattern + " image, seed " + std::to_string(seed)};
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<double> uniform(0, 1);
  if (pattern == "noise") {
    // Pixel k of the whole image is the k-th draw: a window skips the draws
    // of the pixels outside it (one draw a pixel, which the test of windows
    // against the whole image checks).
    std::size_t drawn = 0;  // pixels of the whole image drawn or skipped so far
    for (std::size_t i = 0; i < window.rows; ++i) {
      throw_if_interrupted();  // a large image takes seconds
      const std::size_t first = (window.first_row + i) * cols + window.first_col;
      generator.discard(first - drawn);
      for (std::size_t j = 0; j < window.cols; ++j)
        image.values[i * window.cols + j] = std::floor(256 * uniform(generator));
      drawn = first + window.cols;
    }
    return image;
  }
  const double two_pi = math::two_pi<double>();
  struct Disc {
    double x, y, radius, level;
  };
  struct Bar {
    double x0, x1, y0, y1, level;
  };
  std::vector<Disc> discs(6);
  for (auto& d : discs)
    d = {uniform(generator), uniform(generator), 0.05 + 0.15 * uniform(generator), 255 * uniform(generator)};
  std::vector<Bar> bars(3);
  for (auto& b : bars) {
    const double x = uniform(generator), y = uniform(generator);
    b = {x, x + 0.05 + 0.2 * uniform(generator), y, y + 0.1 + 0.4 * uniform(generator), 255 * uniform(generator)};
  }
  const double texture_angle = two_pi * uniform(generator);
  for (std::size_t wi = 0; wi < window.rows; ++wi) {
    throw_if_interrupted();  // a 16384^2 picture takes seconds: Ctrl-C acts within a row
    const std::size_t i = window.first_row + wi;
    for (std::size_t wj = 0; wj < window.cols; ++wj) {
      const std::size_t j = window.first_col + wj;
      const double y = (i + 0.5) / static_cast<double>(rows), x = (j + 0.5) / static_cast<double>(cols);
      double v = 40 + 120 * x + 60 * y * y;  // lighting
      if (pattern == "shapes") {
        for (const auto& b : bars)
          if (x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1) v = b.level;
        for (const auto& d : discs) {
          const double r = std::hypot(x - d.x, y - d.y);
          if (r < d.radius) v = d.level + 20 * (1 - r / d.radius);  // shaded
        }
        const double along = x * std::cos(texture_angle) + y * std::sin(texture_angle);
        v += 12 * std::sin(two_pi * 23 * along);
      }
      image.values[wi * window.cols + wj] = std::clamp(std::round(v), 0.0, 255.0);
    }
  }
  return image;
}

namespace {

// The file an image source names (pgm, hdf5).
std::string image_file(const config::Config& config, const std::string& prefix, const std::string& source,
                       const std::string& source_key) {
  const std::string file_key = prefix + ".file";
  if (!config.has(file_key))
    throw ConfigError(config.where(source_key), file_key, "missing for " + source_key + ": " + source,
                      "the path of the " + source + " file");
  return config.string(file_key);
}

// Pixel k of `values`, a block whose first pixel is (first_row, first_col)
// of the image: an InputError unless finite.
void check_finite(const std::vector<double>& values, std::size_t cols, std::size_t first_row, std::size_t first_col,
                  const std::string& file) {
  for (std::size_t k = 0; k < values.size(); ++k)
    if (!std::isfinite(values[k]))
      throw InputError(file + ": pixel (" + std::to_string(first_row + k / cols) + ", " +
                       std::to_string(first_col + k % cols) + ") is not finite");
}

// Images above 8 bits take 16-bit PGM output.
unsigned maxval_for(double largest) { return largest > 255 ? 65535u : 255u; }

}  // namespace

bool reads_windows(const std::string& source) { return source == "hdf5" || source == "synthetic"; }

std::pair<std::size_t, std::size_t> windowed_image_size(const config::Config& config, const std::string& prefix,
                                                        const std::string& source, const std::string& source_key) {
  if (source == "synthetic")
    return {static_cast<std::size_t>(config.integer(prefix + ".rows")),
            static_cast<std::size_t>(config.integer(prefix + ".cols"))};
  if (source != "hdf5")
    throw std::invalid_argument("windowed_image_size: a " + source + " image is read whole (reads_windows)");
  const std::string file = image_file(config, prefix, "hdf5", source_key);
  const std::string dataset = config.string(prefix + ".dataset");
  const h5::Dims dims = h5::File::open_read_only(file).dataset_dims(dataset);
  if (dims.size() != 2)
    throw InputError(file + ": dataset '" + dataset + "' has " + std::to_string(dims.size()) +
                     " dimensions; an image is 2-D (rows x cols)");
  return {dims[0], dims[1]};
}

Image load_image_window(const config::Config& config, const std::string& prefix, const std::string& source,
                        const std::string& source_key, const ImageWindow& window) {
  if (source == "synthetic") {
    const auto [rows, cols] = windowed_image_size(config, prefix, source, source_key);
    return synthetic_image_window(rows, cols, config.string(prefix + ".pattern"),
                                  static_cast<unsigned>(config.integer("seed")), window);
  }
  if (source != "hdf5")
    throw std::invalid_argument("load_image_window: a " + source + " image is read whole (reads_windows)");
  const std::string file = image_file(config, prefix, "hdf5", source_key);
  const std::string dataset = config.string(prefix + ".dataset");
  std::vector<double> values = h5::File::open_read_only(file).read_block<double>(
      dataset, {window.first_row, window.first_col}, {window.rows, window.cols});
  check_finite(values, window.cols, window.first_row, window.first_col, file);
  const double top = values.empty() ? 0 : *std::max_element(values.begin(), values.end());
  return Image{window.rows, window.cols, std::move(values), maxval_for(top), "HDF5 dataset " + file + ":" + dataset};
}

Image load_image(const config::Config& config, const std::string& prefix, const std::string& source,
                 const std::string& source_key) {
  if (source == "synthetic")
    return synthetic_image(static_cast<std::size_t>(config.integer(prefix + ".rows")),
                           static_cast<std::size_t>(config.integer(prefix + ".cols")),
                           config.string(prefix + ".pattern"), static_cast<unsigned>(config.integer("seed")));
  const std::string file = image_file(config, prefix, source, source_key);
  Image image;
  if (source == "pgm") {
    const pgm::Image pgm_image = pgm::read(file);
    image = Image{pgm_image.rows, pgm_image.cols, std::vector<double>(pgm_image.pixels.begin(), pgm_image.pixels.end()),
                  pgm_image.maxval, "PGM image " + file};
  } else {
    const std::string dataset = config.string(prefix + ".dataset");
    h5::Dims dims;
    std::vector<double> values = h5::File::open_read_only(file).read_dataset<double>(dataset, &dims);
    if (dims.size() != 2)
      throw InputError(file + ": dataset '" + dataset + "' has " + std::to_string(dims.size()) +
                       " dimensions; an image is 2-D (rows x cols)");
    const double top = values.empty() ? 0 : *std::max_element(values.begin(), values.end());
    image = Image{dims[0], dims[1], std::move(values), maxval_for(top), "HDF5 dataset " + file + ":" + dataset};
  }
  check_finite(image.values, image.cols, 0, 0, file);
  return image;
}

void write_pgm(const config::Config& config, ResultFile& result, const std::vector<double>& values, std::size_t rows,
               std::size_t cols, unsigned maxval) {
  const std::string path = config.string("output.pgm");
  result.add_file(path, pgm::format(pgm::from_values(values, rows, cols, maxval), pgm::Encoding::raw), "output.pgm",
                  config.where("output.pgm"), "PGM image");
}

}  // namespace portasolve::drivers
