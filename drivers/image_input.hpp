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

// Over MPI ranks, where each rank reads only its block of an HDF5 image:
// the image's rows and cols (errors as load_image's), and the block
// [first_row, first_row + rows) x [first_col, first_col + cols) as an Image
// of the block's size (maxval from the block's own largest value: the
// caller settles it over the ranks; a pixel that is not finite is an
// InputError naming its place in the whole image).
std::pair<std::size_t, std::size_t> hdf5_image_size(const config::Config& config, const std::string& prefix,
                                                    const std::string& source_key);
Image load_hdf5_image_block(const config::Config& config, const std::string& prefix, const std::string& source_key,
                            std::size_t first_row, std::size_t rows, std::size_t first_col, std::size_t cols);

// Patterns: "shapes" (a lit gradient with discs, bars and a sinusoidal
// texture, 8-bit levels: edges and smooth parts like a photograph), "noise"
// (uniform 0..255), "gradient" (smooth ramp).
const std::vector<std::string>& synthetic_patterns();
Image synthetic_image(std::size_t rows, std::size_t cols, const std::string& pattern, unsigned seed);

// Writes values as the PGM output.pgm names (rounded, clamped to 0..maxval),
// moved into place with the result file when the run succeeds, under the
// same overwrite rule (ResultFile::add_file).
void write_pgm(const config::Config& config, ResultFile& result, const std::vector<double>& values, std::size_t rows,
               std::size_t cols, unsigned maxval);

}  // namespace portasolve::drivers
