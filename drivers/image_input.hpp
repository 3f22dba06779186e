#pragma once
// Images for the Poisson and smoothing drivers: a PGM file, a 2-D HDF5
// dataset, or a synthetic picture, under one config prefix (e.g. "problem").
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "app/config.hpp"
#include "app/result_file.hpp"

namespace portasolve::drivers {

struct Image {
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;  // row-major
  unsigned maxval = 255;       // the range for PGM output
  std::string description;     // where it came from, for the result file
};

// Adds <prefix>.file, .dataset, .rows, .cols, .pattern; `source_key` (e.g.
// "problem.source") chooses among "pgm", "hdf5", "synthetic" and the
// caller's own sources.
void add_image_input_schema(config::Schema& schema, const std::string& prefix);

// Loads the image the config describes for `source` ("pgm", "hdf5" or
// "synthetic"); errors name the config key or the file.
Image load_image(const config::Config& config, const std::string& prefix, const std::string& source,
                 const std::string& source_key);

// A rectangle of an image: rows [first_row, first_row + rows) and columns
// [first_col, first_col + cols).
struct ImageWindow {
  std::size_t first_row = 0, rows = 0, first_col = 0, cols = 0;
};

// Over MPI ranks each rank reads only its window of an image whose source
// allows it: "hdf5" (a hyperslab of the dataset) and "synthetic" (drawn
// pixel by pixel); a PGM is read whole.
bool reads_windows(const std::string& source);
// Such an image's rows and cols (errors as load_image's).
std::pair<std::size_t, std::size_t> windowed_image_size(const config::Config& config, const std::string& prefix,
                                                        const std::string& source, const std::string& source_key);
// Its window as an Image of the window's size, the same pixels as load_image's
// there (maxval from the window's own largest value: the caller settles it
// over the ranks; a pixel that is not finite is an InputError naming its place
// in the whole image).
Image load_image_window(const config::Config& config, const std::string& prefix, const std::string& source,
                        const std::string& source_key, const ImageWindow& window);

// Patterns: "shapes" (a lit gradient with discs, bars and a sinusoidal
// texture, 8-bit levels: edges and smooth parts like a photograph), "noise"
// (uniform 0..255), "gradient" (smooth ramp).
const std::vector<std::string>& synthetic_patterns();
Image synthetic_image(std::size_t rows, std::size_t cols, const std::string& pattern, unsigned seed);
// The window of that image, drawn without the rest.
Image synthetic_image_window(std::size_t rows, std::size_t cols, const std::string& pattern, unsigned seed,
                             const ImageWindow& window);

// Writes values as the PGM output.pgm names (rounded, clamped to 0..maxval),
// moved into place with the result file when the run succeeds, under the
// same overwrite rule (ResultFile::add_file).
void write_pgm(const config::Config& config, ResultFile& result, const std::vector<double>& values, std::size_t rows,
               std::size_t cols, unsigned maxval);

}  // namespace portasolve::drivers
