#pragma once
// Netpbm greymaps (PGM), plain (P2) and raw (P5), maxval 1..65535 (two bytes,
// most significant first, above 255): the image format of the Poisson and
// smoothing drivers. Several images in one file are not supported.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace portasolve::pgm {

struct Image {
  std::size_t rows = 0, cols = 0;  // height, width
  unsigned maxval = 255;
  std::vector<std::uint16_t> pixels;  // row-major, top row first
};

enum class Encoding { plain, raw };  // P2, P5

// Throws IoError if the file cannot be opened, InputError (naming the file
// and what is wrong) if it is not a valid PGM; a header whose size the data
// cannot hold fails before anything is allocated for it.
Image read(const std::string& path);
Image parse(const std::string& bytes, const std::string& origin);

// Written under a temporary name beside `path` and renamed over it when
// complete (a failed write leaves `path` as it was and no temporary); refuses
// to replace what is not a regular file. Throws IoError naming the file and
// the reason if it cannot be written; std::invalid_argument if a pixel
// exceeds maxval or the sizes disagree.
void write(const std::string& path, const Image& image, Encoding encoding = Encoding::raw);
std::string format(const Image& image, Encoding encoding);

// Values rounded to the nearest integer and clamped to 0..maxval.
Image from_values(const std::vector<double>& values, std::size_t rows, std::size_t cols, unsigned maxval);

}  // namespace portasolve::pgm
