#include "solvers/smoothing/detail/taps.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "core/kokkos_compat.hpp"

namespace portasolve::smoothing::detail {

KernelPlan kernel_plan(const SmoothingOptions& options) {
  KernelPlan plan;
  plan.radius = kernel_radius(options);
  const int side = 2 * plan.radius + 1;
  switch (options.kernel) {
    case KernelKind::box:
      plan.separable =
          options.separable == Separable::yes || (options.separable == Separable::automatic && plan.radius >= 3);
      plan.weights.assign(plan.separable ? side : side * side, 1.0);
      break;
    case KernelKind::weighted:
      plan.separable = false;
      plan.weights = options.weights;
      break;
    case KernelKind::gaussian: {
      std::vector<double> axis(side);
      for (int k = -plan.radius; k <= plan.radius; ++k)
        axis[k + plan.radius] = std::exp(-0.5 * (k / options.sigma) * (k / options.sigma));
      plan.separable = options.separable != Separable::no;
      if (plan.separable) {
        plan.weights = axis;
      } else {
        plan.weights.resize(side * side);
        for (int a = 0; a < side; ++a)
          for (int b = 0; b < side; ++b) plan.weights[a * side + b] = axis[a] * axis[b];
      }
      break;
    }
  }
  return plan;
}

namespace {

bool all_integers(const std::vector<double>& weights, double limit) {
  for (double w : weights)
    if (w != std::round(w) || std::fabs(w) > limit) return false;
  return true;
}

}  // namespace

template <class Pixel>
DeviceTaps<Pixel> device_taps(const ExecSpace& exec, const KernelPlan& plan, Rounding rounding) {
  using Weight = typename DeviceTaps<Pixel>::Weight;
  DeviceTaps<Pixel> taps;
  taps.radius = plan.radius;
  taps.side = 2 * plan.radius + 1;
  taps.rounding = rounding;
  double sum = 0;
  for (double w : plan.weights) sum += w;
  std::vector<Weight> typed(plan.weights.size());
  if constexpr (PixelArithmetic<Pixel>::integer) {
    // As fine as 64-bit sums allow for this type's range (with 2^3 to spare
    // for negative weights): uint8 2^50 (2-D) / 2^25 (per axis), uint16
    // 2^42 / 2^21, int32 2^26 / 2^13.
    const double largest_pixel =
        std::max(-double(std::numeric_limits<Pixel>::lowest()), double(std::numeric_limits<Pixel>::max()));
    const int bits = static_cast<int>(std::ceil(std::log2(largest_pixel + 1)));
    const double units = plan.separable ? std::ldexp(1.0, (58 - bits) / 2) : std::ldexp(1.0, 58 - bits);
    const bool exact = all_integers(plan.weights, units);
    std::int64_t total = 0, magnitude = 0;
    for (std::size_t k = 0; k < typed.size(); ++k) {
      typed[k] = static_cast<Weight>(exact ? plan.weights[k] : std::round(plan.weights[k] / sum * units));
      total += typed[k];
      magnitude += typed[k] < 0 ? -typed[k] : typed[k];
    }
    if (total <= 0) throw OptionError("weights", "the kernel's integer weights do not have a positive sum");
    // |sum| <= max|pixel| * (sum |w|)^(passes), and finish() doubles it.
    const double bound = largest_pixel * double(magnitude) * (plan.separable ? double(magnitude) : 1.0) * 2;
    if (bound >= 0x1p62)
      throw OptionError("weights", "the kernel's weights are too large for exact 64-bit sums of these pixels");
    taps.total = plan.separable ? total * total : total;
    taps.scale = 1;
    // The numerators finish() divides: |sum| <= max|pixel| * (sum |w|)^(1 or 2 axes),
    // plus the bias of nearest. Below 2^62 by the bound just checked.
    const std::uint64_t weight_magnitude = static_cast<std::uint64_t>(magnitude);
    const std::uint64_t sums = static_cast<std::uint64_t>(largest_pixel) * weight_magnitude *
                               (plan.separable ? weight_magnitude : std::uint64_t(1));
    taps.bias = rounding == Rounding::nearest ? taps.total / 2 : 0;
    taps.divisor = ExactDivisor::make(static_cast<std::uint64_t>(taps.total),
                                      bit_width(sums + static_cast<std::uint64_t>(taps.bias)));
  } else {
    const bool box = all_integers(plan.weights, 1) && sum == static_cast<double>(plan.weights.size());
    for (std::size_t k = 0; k < typed.size(); ++k) typed[k] = static_cast<Weight>(box ? 1.0 : plan.weights[k] / sum);
    taps.scale = static_cast<Weight>(box ? 1.0 / sum : 1.0);
    taps.total = 1;
  }
  taps.unit_weights = std::all_of(typed.begin(), typed.end(), [](Weight w) { return w == Weight(1); });
  taps.all_inline = typed.size() <= static_cast<std::size_t>(DeviceTaps<Pixel>::inline_taps);
  if (taps.all_inline) {  // no device allocation (and its synchronising free) per call
    std::copy(typed.begin(), typed.end(), taps.near);
    return taps;
  }
  View1D<Weight> weights(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("smoothing_weights")),
                         typed.size());
  const auto host = kokkos_compat::host_mirror_without_init(weights);
  for (std::size_t k = 0; k < typed.size(); ++k) host(k) = typed[k];
  Kokkos::deep_copy(exec, weights, host);
  exec.fence();  // `host` is freed at return
  taps.weights = weights;
  return taps;
}

template <class Pixel>
Pixel constant_pixel(double value) {
  if constexpr (PixelArithmetic<Pixel>::integer) {
    const double lowest = double(std::numeric_limits<Pixel>::lowest()),
                 highest = double(std::numeric_limits<Pixel>::max());
    return static_cast<Pixel>(std::min(highest, std::max(lowest, std::floor(value + 0.5))));
  } else {
    return static_cast<Pixel>(value);
  }
}

#define PORTASOLVE_SMOOTHING_TAPS(Pixel)                                                        \
  template DeviceTaps<Pixel> device_taps<Pixel>(const ExecSpace&, const KernelPlan&, Rounding); \
  template Pixel constant_pixel<Pixel>(double);
PORTASOLVE_SMOOTHING_TAPS(std::uint8_t)
PORTASOLVE_SMOOTHING_TAPS(std::uint16_t)
PORTASOLVE_SMOOTHING_TAPS(std::int32_t)
PORTASOLVE_SMOOTHING_TAPS(float)
PORTASOLVE_SMOOTHING_TAPS(double)

}  // namespace portasolve::smoothing::detail
