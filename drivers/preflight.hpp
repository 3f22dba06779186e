#pragma once
// What a run will need, worked out from the config and the input files'
// headers before anything is generated, read or allocated, so that `run`
// refuses a size that cannot fit at once and `check` reports what `run`
// would refuse (missing input files, memory) without running anything.
#include <cstddef>
#include <string>

#include "app/config.hpp"
#include "app/memory_budget.hpp"

namespace portasolve::drivers {

struct Preflight {
  MemoryNeed memory;
  std::string key;           // the config key a refusal points at
  std::string advice;        // what to change, e.g. "reduce problem.rows/cols or use precision: float"
  std::string subject = {};  // what needs the memory, for the message (default: "this run")
};

// Throws ConfigError at `plan.key` when `plan.memory` does not fit what this
// machine has (memory_capacity(), which honours PORTASOLVE_MEMORY_LIMIT_BYTES).
void check_preflight(const config::Config& config, const Preflight& plan);

// The size of the image <prefix> describes for `source` ("synthetic", "pgm",
// "hdf5"): rows and cols from the config, a PGM's header or an HDF5 dataset's
// shape. Missing files and keys throw what the reader would (IoError,
// ConfigError); a header it cannot make sense of gives 0 x 0 and leaves the
// complaint to the reader.
struct ImageSize {
  double rows = 0, cols = 0;
  double pixels() const { return rows * cols; }
};
ImageSize image_size(const config::Config& config, const std::string& prefix, const std::string& source,
                     const std::string& source_key);

// The key a size refusal for an image input points at: <prefix>.rows for
// synthetic images, <prefix>.file otherwise.
std::string image_size_key(const std::string& prefix, const std::string& source);

// Throws IoError("cannot open PGM image ...") as the reader would when `file` cannot be read.
void require_readable_pgm(const std::string& file);

}  // namespace portasolve::drivers
