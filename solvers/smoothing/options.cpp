#include "solvers/smoothing/options.hpp"

#include <cmath>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/names.hpp"

namespace portasolve::smoothing {

namespace {

// option: the SmoothingOptions field at fault (OptionError::option()).
void require(bool condition, const char* option, const std::string& message) {
  if (!condition) throw OptionError(option, message);
}

// The field that sets the window's size for this kernel.
const char* window_option(KernelKind kernel) {
  return kernel == KernelKind::box ? "radius" : kernel == KernelKind::weighted ? "weights" : "sigma";
}

}  // namespace

PORTASOLVE_NAMED_ENUM(KernelKind, kernel_names, kernel_from_name, "smoothing kernel", "box", "weighted", "gaussian")
PORTASOLVE_NAMED_ENUM(BorderMode, border_names, border_from_name, "smoothing border", "keep", "nearest", "reflect",
                      "mirror", "wrap", "constant")
PORTASOLVE_NAMED_ENUM(Rounding, rounding_names, rounding_from_name, "smoothing rounding", "floor", "nearest")
PORTASOLVE_NAMED_ENUM(Separable, separable_names, separable_from_name, "smoothing separable choice", "auto", "yes",
                      "no")
PORTASOLVE_NAMED_ENUM(FusedKernel, fused_kernel_names, fused_kernel_from_name, "smoothing fused kernel", "auto",
                      "streamed", "tiles", "registers")
PORTASOLVE_NAMED_ENUM(SeparableKernel, separable_kernel_names, separable_kernel_from_name, "smoothing separable kernel",
                      "auto", "tiles", "two_launches", "columns")

int kernel_radius(const SmoothingOptions& options) {
  switch (options.kernel) {
    case KernelKind::box:
      return options.radius;
    case KernelKind::weighted:
      return (options.weights_size - 1) / 2;
    case KernelKind::gaussian:
      return static_cast<int>(std::floor(options.truncate * options.sigma + 0.5));
  }
  return 0;
}

void check(const SmoothingOptions& options, std::int64_t rows, std::int64_t cols) {
  switch (options.kernel) {
    case KernelKind::box:
      require(options.radius >= 0, "radius", "box radius must be >= 0, got " + std::to_string(options.radius));
      break;
    case KernelKind::weighted: {
      const int size = options.weights_size;
      require(size >= 1 && size % 2 == 1, "weights",
              "the weights matrix must be square with an odd side, got side " + std::to_string(size));
      require(options.weights.size() == static_cast<std::size_t>(size) * size, "weights",
              "the weights matrix must have side x side entries");
      double sum = 0;
      for (double w : options.weights) {
        require(std::isfinite(w), "weights", "the weights must be finite numbers");
        sum += w;
      }
      require(sum > 0, "weights",
              "the weights must have a positive sum (a smoothing kernel), got " + std::to_string(sum));
      require(options.separable != Separable::yes, "separable",
              "a weights matrix is applied in one 2-D pass (separable: yes "
              "is for box and gaussian)");
      break;
    }
    case KernelKind::gaussian:
      require(std::isfinite(options.sigma) && options.sigma > 0, "sigma",
              "sigma must be > 0, got " + std::to_string(options.sigma));
      require(std::isfinite(options.truncate) && options.truncate > 0, "truncate", "truncate must be > 0");
      require(options.truncate * options.sigma < 1e6, "truncate", "truncate * sigma is far too large");
      break;
  }
  require(std::isfinite(options.constant_value), "constant_value", "the constant border value must be finite");
  require(options.passes >= 0, "passes", "passes must be >= 0");
  require(options.passes_per_launch >= 0, "passes_per_launch", "passes_per_launch must be >= 0 (0: automatic)");
  require(options.tile_rows >= 0 && options.tile_cols >= 0, options.tile_rows < 0 ? "tile_rows" : "tile_cols",
          "tile sizes must be >= 1 (0: automatic)");
  require(options.strip_rows >= 0, "strip_rows", "strip_rows must be >= 1 (0: automatic)");
  // The image's extents are arguments, not options.
  if (rows < 1 || cols < 1) throw std::invalid_argument("the image is empty");
  const std::int64_t side = 2 * static_cast<std::int64_t>(kernel_radius(options)) + 1;
  require(side <= rows && side <= cols, window_option(options.kernel),
          "the " + std::to_string(side) + "x" + std::to_string(side) + " kernel is larger than the " +
              std::to_string(rows) + "x" + std::to_string(cols) + " (rows x cols) image");
  if (rows * cols > (std::int64_t(1) << 31) - 1) throw std::invalid_argument("images are limited to 2^31 - 1 pixels");
}

}  // namespace portasolve::smoothing
