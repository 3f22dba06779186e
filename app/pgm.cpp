#include "app/pgm.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "app/result_file.hpp"
#include "core/errors.hpp"

namespace portasolve::pgm {

namespace {

class Reader {
 public:
  Reader(const std::string& bytes, const std::string& origin) : bytes_(bytes), origin_(origin) {}

  [[noreturn]] void fail(const std::string& problem) const {
    throw InputError(origin_ + ": not a valid PGM image: " + problem);
  }

  // Whitespace and '#' comments, which may appear anywhere in the header.
  void skip_separators() {
    while (at_ < bytes_.size()) {
      const auto c = static_cast<unsigned char>(bytes_[at_]);
      if (c == '#') {
        while (at_ < bytes_.size() && bytes_[at_] != '\n' && bytes_[at_] != '\r') ++at_;
      } else if (std::isspace(c)) {
        ++at_;
      } else {
        break;
      }
    }
  }

  unsigned long number(const char* what) {
    skip_separators();
    if (at_ >= bytes_.size()) fail(std::string("the file ends before the ") + what);
    if (!std::isdigit(static_cast<unsigned char>(bytes_[at_])))
      fail(std::string("expected the ") + what + " (a decimal number) at byte " + std::to_string(at_) + ", found '" +
           printable(bytes_[at_]) + "'");
    unsigned long value = 0;
    while (at_ < bytes_.size() && std::isdigit(static_cast<unsigned char>(bytes_[at_]))) {
      value = value * 10 + static_cast<unsigned long>(bytes_[at_++] - '0');
      if (value > 1000000000UL) fail(std::string("the ") + what + " is too large");
    }
    return value;
  }

  std::size_t& at() { return at_; }
  const std::string& bytes() const { return bytes_; }

 private:
  static std::string printable(char c) {
    return std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c)
                                                       : "\\x" + std::to_string(int(static_cast<unsigned char>(c)));
  }
  const std::string& bytes_;
  const std::string& origin_;
  std::size_t at_ = 0;
};

}  // namespace

Image parse(const std::string& bytes, const std::string& origin) {
  Reader reader(bytes, origin);
  if (bytes.size() < 2 || bytes[0] != 'P' || (bytes[1] != '2' && bytes[1] != '5'))
    reader.fail("it does not start with P2 or P5 (the PGM magic numbers)");
  const bool raw = bytes[1] == '5';
  reader.at() = 2;
  Image image;
  image.cols = reader.number("width");
  image.rows = reader.number("height");
  const unsigned long maxval = reader.number("maxval");
  if (image.cols == 0 || image.rows == 0) reader.fail("width and height must be positive");
  if (maxval == 0 || maxval > 65535) reader.fail("maxval " + std::to_string(maxval) + " is outside 1..65535");
  image.maxval = static_cast<unsigned>(maxval);
  // The header's size against the bytes there are, before allocating: a
  // small file must not claim gigabytes.
  const std::size_t width = maxval > 255 ? 2 : 1;
  const std::size_t remaining = [&] {
    std::size_t at = reader.at();
    if (raw && at < bytes.size()) ++at;  // the whitespace after maxval
    return bytes.size() - std::min(at, bytes.size());
  }();
  const std::string size = std::to_string(image.cols) + "x" + std::to_string(image.rows);
  if (image.rows > std::numeric_limits<std::size_t>::max() / 2 / image.cols / width)
    reader.fail("the header's size " + size + " is too large to address");
  const std::size_t count = image.rows * image.cols;
  if (raw) {
    if (remaining < count * width)
      reader.fail("the pixel data is truncated: the header's " + size + " needs " + std::to_string(count * width) +
                  " bytes, " + std::to_string(remaining) + " present");
  } else if (remaining < 2 * count) {
    // Each plain sample takes at least a separator and a digit.
    reader.fail("the file ends before the pixel data does: the header's " + size + " needs at least " +
                std::to_string(2 * count) + " bytes, " + std::to_string(remaining) + " present");
  }
  image.pixels.resize(count);
  if (raw) {
    auto& at = reader.at();
    if (at >= bytes.size() || !std::isspace(static_cast<unsigned char>(bytes[at])))
      reader.fail("expected one whitespace character after maxval");
    ++at;
    for (std::size_t k = 0; k < count; ++k) {
      const auto byte = [&](std::size_t offset) {
        return static_cast<unsigned>(static_cast<unsigned char>(bytes[at + offset]));
      };
      const unsigned value = width == 2 ? (byte(2 * k) << 8 | byte(2 * k + 1)) : byte(k);
      if (value > maxval)
        reader.fail("pixel " + std::to_string(k) + " is " + std::to_string(value) + ", above maxval " +
                    std::to_string(maxval));
      image.pixels[k] = static_cast<std::uint16_t>(value);
    }
  } else {
    for (std::size_t k = 0; k < count; ++k) {
      const unsigned long value = reader.number("pixel value");
      if (value > maxval)
        reader.fail("pixel " + std::to_string(k) + " is " + std::to_string(value) + ", above maxval " +
                    std::to_string(maxval));
      image.pixels[k] = static_cast<std::uint16_t>(value);
    }
  }
  return image;
}

Image read(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw IoError("cannot open PGM image '" + path + "' for reading");
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) throw IoError("error reading PGM image '" + path + "'");
  return parse(contents.str(), path);
}

std::string format(const Image& image, Encoding encoding) {
  if (image.pixels.size() != image.rows * image.cols || image.rows == 0 || image.cols == 0)
    throw std::invalid_argument("PGM image of " + std::to_string(image.rows) + "x" + std::to_string(image.cols) +
                                " with " + std::to_string(image.pixels.size()) + " pixels");
  if (image.maxval == 0 || image.maxval > 65535) throw std::invalid_argument("PGM maxval outside 1..65535");
  for (const auto pixel : image.pixels)
    if (pixel > image.maxval) throw std::invalid_argument("PGM pixel above maxval");
  std::string out = (encoding == Encoding::raw ? "P5\n" : "P2\n") + std::to_string(image.cols) + " " +
                    std::to_string(image.rows) + "\n" + std::to_string(image.maxval) + "\n";
  if (encoding == Encoding::raw) {
    const bool wide = image.maxval > 255;
    for (const auto pixel : image.pixels) {
      if (wide) out.push_back(static_cast<char>(pixel >> 8));
      out.push_back(static_cast<char>(pixel & 0xff));
    }
  } else {
    for (std::size_t i = 0; i < image.rows; ++i) {
      // Lines of at most 70 characters, as the format asks.
      std::string line;
      for (std::size_t j = 0; j < image.cols; ++j) {
        const std::string value = std::to_string(image.pixels[i * image.cols + j]);
        if (!line.empty() && line.size() + 1 + value.size() > 70) {
          out += line + "\n";
          line.clear();
        }
        line += (line.empty() ? "" : " ") + value;
      }
      out += line + "\n";
    }
  }
  return out;
}

void write(const std::string& path, const Image& image, Encoding encoding) {
  const std::string bytes = format(image, encoding);
  StagedFile staged(path, /*overwrite=*/true, /*create_folders=*/false);
  staged.write(bytes, "PGM image");
  staged.commit();
}

Image from_values(const std::vector<double>& values, std::size_t rows, std::size_t cols, unsigned maxval) {
  if (values.size() != rows * cols) throw std::invalid_argument("PGM from_values: size mismatch");
  Image image{rows, cols, maxval, std::vector<std::uint16_t>(values.size())};
  for (std::size_t k = 0; k < values.size(); ++k) {
    const double v = std::isfinite(values[k]) ? std::nearbyint(values[k]) : 0.0;
    image.pixels[k] = static_cast<std::uint16_t>(std::clamp(v, 0.0, static_cast<double>(maxval)));
  }
  return image;
}

}  // namespace portasolve::pgm
