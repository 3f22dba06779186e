#include "drivers/preflight.hpp"

#include <cctype>
#include <fstream>

#include "app/hdf5.hpp"
#include "core/errors.hpp"

namespace portasolve::drivers {

namespace {

// Width and height from a P2/P5 header (comments allowed); 0 x 0 when it is not one.
ImageSize pgm_header_size(std::ifstream& in) {
  char magic[2] = {0, 0};
  if (!in.read(magic, 2) || magic[0] != 'P' || (magic[1] != '2' && magic[1] != '5')) return {};
  double numbers[2] = {0, 0};
  for (double& number : numbers) {
    int c = in.get();
    while (c != EOF && (std::isspace(c) || c == '#')) {
      if (c == '#')
        while (c != EOF && c != '\n') c = in.get();
      c = in.get();
    }
    if (c == EOF || !std::isdigit(c)) return {};
    while (c != EOF && std::isdigit(c)) {
      number = number * 10 + (c - '0');
      c = in.get();
    }
  }
  return ImageSize{numbers[1], numbers[0]};
}

}  // namespace

void check_preflight(const config::Config& config, const Preflight& plan) {
  check_memory(plan.memory, memory_capacity(), config.where(plan.key), plan.key, plan.advice, plan.subject);
}

void require_readable_pgm(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw IoError("cannot open PGM image '" + file + "' for reading");
}

std::string image_size_key(const std::string& prefix, const std::string& source) {
  return prefix + (source == "synthetic" ? ".rows" : ".file");
}

ImageSize image_size(const config::Config& config, const std::string& prefix, const std::string& source,
                     const std::string& source_key) {
  if (source == "synthetic")
    return ImageSize{static_cast<double>(config.integer(prefix + ".rows")),
                     static_cast<double>(config.integer(prefix + ".cols"))};
  const std::string file_key = prefix + ".file";
  if (!config.has(file_key))
    throw ConfigError(config.where(source_key), file_key, "missing for " + source_key + ": " + source,
                      "the path of the " + source + " file");
  const std::string file = config.string(file_key);
  if (source == "pgm") {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw IoError("cannot open PGM image '" + file + "' for reading");
    return pgm_header_size(in);
  }
  const std::string dataset = config.string(prefix + ".dataset");
  const h5::File in = h5::File::open_read_only(file);
  const h5::Dims dims = in.dataset_dims(dataset);
  if (dims.size() != 2) return {};  // the reader names the problem
  return ImageSize{static_cast<double>(dims[0]), static_cast<double>(dims[1])};
}

}  // namespace portasolve::drivers
