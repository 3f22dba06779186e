#include "solvers/smoothing/smooth.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/errors.hpp"
#include "core/grid_range.hpp"
#include "solvers/smoothing/detail/launchers.hpp"
#include "solvers/smoothing/detail/packed_strips.hpp"
#include "solvers/smoothing/detail/register_bands.hpp"
#include "solvers/smoothing/detail/separable_columns.hpp"
#include "solvers/smoothing/detail/separable_tiles.hpp"
#include "solvers/smoothing/detail/single_pass.hpp"
#include "solvers/smoothing/detail/taps.hpp"

namespace portasolve::smoothing {

using namespace detail;

namespace {

// Fused passes per launch when the options leave it to us. Measured
// (BENCHMARKS.md): on an H100, 8 3x3 passes in register bands cost 0.21 ms a
// pass against 1.01 ms for separate launches (which already run at the copy
// bandwidth);
// other kernels are not measured yet and launch every pass, as hosts do
// (their caches already hold a pass's rows).
int automatic_passes_per_launch(int radius, bool separable) {
  return !host_execution && radius == 1 && !separable ? 8 : 1;
}

// Separable windows, one pass a launch: both 1-D passes in one launch
// (separable_tiles.hpp) when a tile of at least this many rows fits the team
// scratch (wide double windows may not), else two launches. On GPUs the
// two-launch path's full-size image of partial sums and its strided column
// pass cost most (issue 25: a Gaussian of sigma 1 at 0.17 of the copy
// bandwidth on an H100). On 2 loaded cores of an AMD EPYC (OpenMP, 4096^2,
// sigma 1 and 2, float, double and uint8) the tiles took 0.3 to 0.9 of the
// two launches' time (the driver, float: 177 against 388 ms at sigma 1, 349
// against 388 ms at sigma 2); at 1024^2, in cache, one run had them slower.
constexpr int least_automatic_tile_rows = 8;
// On GPUs the columns kernel (separable_columns.hpp) goes first: see BENCHMARKS.md (issue 25).
template <class Pixel>
SeparableKernel separable_kernel_for(const SmoothingOptions& options, int radius, std::int64_t rows,
                                     std::int64_t cols) {
  if (options.separable_kernel != SeparableKernel::automatic) return options.separable_kernel;
  if (!host_execution && SeparableColumnLauncher<Pixel>::applicable(radius)) return SeparableKernel::columns;
  return SeparableTileLauncher<Pixel>::automatic_geometry(radius, rows, cols).tile_rows >=
                 std::min<std::int64_t>(least_automatic_tile_rows, rows)
             ? SeparableKernel::tiles
             : SeparableKernel::two_launches;
}

int passes_per_launch_for(const SmoothingOptions& options, const KernelPlan& plan) {
  if (plan.radius == 0) return 1;
  return options.passes_per_launch > 0 ? options.passes_per_launch
                                       : automatic_passes_per_launch(plan.radius, plan.separable);
}

// Rows per GPU thread of a single 2-D pass (hosts walk rows, vectorised
// along them).
constexpr int column_strip_rows = 16;

// Integer pixels' strips (64-bit sums, the exact division) take many
// registers; left to itself the compiler keeps so few warps on a
// multiprocessor that the loads' latency goes uncovered (BENCHMARKS.md, the
// integer passes): bounded to strip_min_blocks blocks of strip_block_threads
// threads a multiprocessor.
constexpr int strip_block_threads = 256, strip_min_blocks = 4;

template <class Pixel, int R>
void launch_strips(const ExecSpace& exec, const GridRectangle& strips, const Smooth2DStrips<Pixel, R>& kernel) {
  if constexpr (std::is_integral<Pixel>::value) {
    using Bounded = Kokkos::RangePolicy<ExecSpace, Kokkos::LaunchBounds<strip_block_threads, strip_min_blocks>,
                                        Kokkos::IndexType<int>>;
    if (rows_pack_aligned<const Pixel>(kernel.pass.in) && rows_pack_aligned<Pixel>(kernel.pass.out)) {
      using Packed = Smooth2DPackedStrips<Pixel, R>;
      const GridRectangle packs{0, 0, strips.rows, strips.cols / Packed::lanes};
      Kokkos::parallel_for("smoothing_2d_packed_strips", Bounded(exec, 0, packs.rows * packs.cols),
                           RectanglePoints<Packed>{Packed{kernel.pass, kernel.strip}, packs});
      return;
    }
    Kokkos::parallel_for("smoothing_2d_strips", Bounded(exec, 0, strips.rows * strips.cols),
                         RectanglePoints<Smooth2DStrips<Pixel, R>>{kernel, strips});
  } else {
    for_rectangle(exec, "smoothing_2d_strips", strips, kernel);
  }
}

// Launch i of n writes to `output` when n - 1 - i is even, so the last does.
template <class Pixel>
struct PingPong {
  View2D<const Pixel> input;
  View2D<Pixel> output, spare;
  std::int64_t launches;
  View2D<const Pixel> source(std::int64_t i) const { return i == 0 ? input : View2D<const Pixel>(target(i - 1)); }
  View2D<Pixel> target(std::int64_t i) const { return (launches - 1 - i) % 2 == 0 ? output : spare; }
};

// Fences exec before the work arrays its launches read are freed (they are
// declared before it, so go after it): explicitly at the end of a run
// (where an error would reach the caller), else while an exception from
// on_launch or a launch unwinds (where it cannot be thrown on).
class FenceBeforeRelease {
 public:
  FenceBeforeRelease(const ExecSpace& exec, bool needed) : exec_(exec), needed_(needed) {}
  FenceBeforeRelease(const FenceBeforeRelease&) = delete;
  FenceBeforeRelease& operator=(const FenceBeforeRelease&) = delete;
  ~FenceBeforeRelease() {
    try {
      now();
    } catch (...) {  // unwinding already: the first error is the one to report
    }
  }
  void now() {
    if (!needed_) return;
    needed_ = false;
    exec_.fence();
  }

 private:
  ExecSpace exec_;
  bool needed_;
};

template <class Pixel, int FixedRadius>
SmoothReport run(const ExecSpace& exec, const View2D<const Pixel>& input, const View2D<Pixel>& output,
                 const SmoothingOptions& options, const KernelPlan& plan, const DeviceTaps<Pixel>& taps,
                 const PassCallback& on_launch) {
  const std::int64_t rows = input.extent(0), cols = input.extent(1);
  const Border<Pixel> border{options.border, constant_pixel<Pixel>(options.constant_value)};
  SmoothReport report;
  report.passes = options.passes;
  report.radius = plan.radius;
  report.separable = plan.separable;
  int k = passes_per_launch_for(options, plan);
  k = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(k, options.passes)));
  report.passes_per_launch = k;
  report.launches = (options.passes + k - 1) / k;
  if (options.passes == 0) {
    Kokkos::deep_copy(exec, output, input);
    return report;
  }
  using Sum = typename DeviceTaps<Pixel>::Sum;
  View2D<Sum> partial;
  std::optional<SeparableTileLauncher<Pixel>> separable_tiles;
  std::optional<SeparableColumnLauncher<Pixel>> separable_columns;
  if (plan.separable && k == 1) {
    const SeparableKernel chosen = separable_kernel_for<Pixel>(options, plan.radius, rows, cols);
    if (chosen == SeparableKernel::columns) {
      separable_columns.emplace(exec, taps, border, plan.radius, rows, cols, options.strip_rows, options.tile_cols);
      report.separable_kernel = SeparableKernel::columns;
      report.tile_rows = separable_columns->geometry().strip_rows;
      report.tile_cols = separable_columns->geometry().columns;
    } else if (chosen == SeparableKernel::tiles) {
      SeparableTiles<Pixel> kernel;
      kernel.taps = taps;
      kernel.border = border;
      separable_tiles.emplace(exec, kernel, plan.radius, rows, cols, options.tile_rows, options.tile_cols);
      report.separable_kernel = SeparableKernel::tiles;
      report.tile_rows = separable_tiles->geometry().tile_rows;
      report.tile_cols = separable_tiles->geometry().tile_cols;
    } else {
      partial =
          View2D<Sum>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("smoothing_partial")), rows, cols);
      report.separable_kernel = SeparableKernel::two_launches;
    }
  }
  View2D<Pixel> spare;
  if (report.launches > 1)
    spare = View2D<Pixel>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("smoothing_spare")), rows, cols);
  const PingPong<Pixel> buffers{input, output, spare, report.launches};
  // The taps' device weights (beyond the inline ones) are freed when smooth() returns.
  FenceBeforeRelease fence_before_release(exec, spare.data() || partial.data() || !taps.all_inline);

  // Fused launches: register bands, else streamed bands, for fixed-radius
  // 2-D windows where the image is tall enough; tiles otherwise.
  constexpr int StreamRadius = FixedRadius > 0 ? FixedRadius : 1;
  std::optional<FusedLauncher<Pixel, FixedRadius>> fused;
  std::optional<StreamingLauncher<Pixel, StreamRadius>> streamed;
  std::optional<RegisterBandLauncher<Pixel>> registers;
  if (k > 1) {
    FusedSmoothing<Pixel, FixedRadius> tiles;
    tiles.taps = taps;
    tiles.border = border;
    tiles.separable = plan.separable;
    const FusedKernel wanted = options.fused_kernel;
    const bool can_stream = FixedRadius > 0 && StreamingLauncher<Pixel, StreamRadius>::applicable(rows, k);
    const bool can_register = FixedRadius == 1 && RegisterBandLauncher<Pixel>::applicable(rows, k, options.border);
    if (wanted == FusedKernel::streamed && !can_stream)
      throw OptionError(
          "fused_kernel",
          "fused_kernel streamed needs a 2-D window of radius 1, at most " + std::to_string(streamed_levels) +
              " passes per launch and an image taller than 2 x passes per launch rows; use tiles or auto");
    if (wanted == FusedKernel::registers && (!can_register || options.tile_cols > 0))
      throw OptionError(
          "fused_kernel",
          "fused_kernel registers needs a 2-D window of radius 1, at most " + std::to_string(streamed_levels) +
              " passes per launch, an image taller than 2 x passes per launch rows, a border other than wrap and "
              "tile_cols 0 (its bands are as wide as the hardware's warps); use streamed, tiles or auto");
    if constexpr (FixedRadius == 1) {
      if (can_register &&
          (wanted == FusedKernel::registers || (wanted == FusedKernel::automatic && options.tile_cols == 0))) {
        RegisterBandSmoothing<Pixel, streamed_levels> kernel;
        kernel.taps = taps;
        kernel.border = border;
        registers.emplace(exec, kernel, tiles, rows, cols, options, k);
        report.fused_kernel = FusedKernel::registers;
        report.tile_rows = registers->geometry().strip_rows;
        report.tile_cols = registers->geometry().output_cols();
      }
    }
    if constexpr (FixedRadius > 0) {
      if (!registers && can_stream && wanted != FusedKernel::tiles) {
        StreamingSmoothing<Pixel, StreamRadius, streamed_levels> kernel;
        kernel.taps = taps;
        kernel.border = border;
        streamed.emplace(exec, kernel, tiles, rows, cols, options, k);
        report.fused_kernel = FusedKernel::streamed;
        report.tile_rows = streamed->geometry().strip_rows;
        report.tile_cols = streamed->geometry().output_cols();
      }
    }
    if (!registers && !streamed) {
      fused.emplace(exec, tiles, cols, options.tile_rows, options.tile_cols, k, 0, static_cast<int>(rows));
      report.fused_kernel = FusedKernel::tiles;
      report.tile_rows = fused->geometry().tile_rows;
      report.tile_cols = fused->geometry().tile_cols;
    }
  }
  const GridRectangle image{0, 0, static_cast<int>(rows), static_cast<int>(cols)};
  const int r = plan.radius;
  // keep: the pass along rows only where a window fits (the rest is copied).
  const GridRectangle row_pass = options.border == BorderMode::keep
                                     ? GridRectangle{0, r, static_cast<int>(rows), static_cast<int>(cols) - 2 * r}
                                     : image;
  std::int64_t done = 0;
  for (std::int64_t launch = 0; launch < report.launches; ++launch) {
    const View2D<const Pixel> from = buffers.source(launch);
    const View2D<Pixel> to = buffers.target(launch);
    const int passes = static_cast<int>(std::min<std::int64_t>(k, options.passes - done));
    if (registers) {
      registers->launch(from, to, passes);
    } else if (streamed) {
      streamed->launch(from, to, passes);
    } else if (fused) {
      fused->launch(from, to, passes);
    } else if (separable_tiles) {
      separable_tiles->launch(from, to);
    } else if (separable_columns) {
      separable_columns->launch(from, to);
    } else if (plan.separable) {
      const SmoothSeparable<Pixel> kernel{from, partial, to, taps, border};
      if constexpr (host_execution) {
        const SeparableRows<Pixel> by_rows{kernel};
        Kokkos::parallel_for(
            "smoothing_along_rows",
            Kokkos::RangePolicy<ExecSpace, AlongRows, Kokkos::IndexType<int>>(exec, 0, static_cast<int>(rows)),
            by_rows);
        Kokkos::parallel_for(
            "smoothing_along_columns",
            Kokkos::RangePolicy<ExecSpace, AlongColumns, Kokkos::IndexType<int>>(exec, 0, static_cast<int>(rows)),
            by_rows);
      } else {
        for_rectangle(exec, "smoothing_along_rows", row_pass, WithTag<SmoothSeparable<Pixel>, AlongRows>{kernel});
        for_rectangle(exec, "smoothing_along_columns", image, WithTag<SmoothSeparable<Pixel>, AlongColumns>{kernel});
      }
    } else {
      const Smooth2D<Pixel, FixedRadius> pass{from, to, taps, border};
      if constexpr (FixedRadius > 0 && !host_execution) {
        const int strip = options.strip_rows > 0 ? options.strip_rows : column_strip_rows;
        const GridRectangle strips{0, 0, static_cast<int>((rows + strip - 1) / strip), static_cast<int>(cols)};
        launch_strips(exec, strips, Smooth2DStrips<Pixel, FixedRadius>{pass, strip});
      } else if constexpr (FixedRadius > 0) {
        Kokkos::parallel_for("smoothing_2d_rows", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(exec, 0, rows),
                             Smooth2DRows<Pixel, FixedRadius>{pass});
      } else {
        for_rectangle(exec, "smoothing_2d", image, pass);
      }
    }
    done += passes;
    if (on_launch) on_launch(done);
  }
  fence_before_release.now();
  return report;
}

}  // namespace

int fused_passes_per_launch(const SmoothingOptions& options) {
  return passes_per_launch_for(options, kernel_plan(options));
}

template <class Pixel>
SmoothReport smooth(const ExecSpace& exec, const View2D<const Pixel>& input, const View2D<Pixel>& output,
                    const SmoothingOptions& options, const PassCallback& on_launch) {
  const std::int64_t rows = input.extent(0), cols = input.extent(1);
  check(options, rows, cols);
  if (output.extent(0) != input.extent(0) || output.extent(1) != input.extent(1))
    throw std::invalid_argument("smoothing: the output's extents differ from the input's");
  if (output.data() == input.data()) throw std::invalid_argument("smoothing: the output must not alias the input");
  const KernelPlan plan = kernel_plan(options);
  const DeviceTaps<Pixel> taps = device_taps<Pixel>(exec, plan, options.rounding);
  if (plan.radius == 1 && !plan.separable) return run<Pixel, 1>(exec, input, output, options, plan, taps, on_launch);
  return run<Pixel, 0>(exec, input, output, options, plan, taps, on_launch);
}

template <class Pixel>
SmoothReport smooth(const View2D<const Pixel>& input, const View2D<Pixel>& output, const SmoothingOptions& options,
                    const PassCallback& on_launch) {
  return smooth<Pixel>(ExecSpace(), input, output, options, on_launch);
}

#define PORTASOLVE_SMOOTH(Pixel)                                                                                 \
  template SmoothReport smooth<Pixel>(const ExecSpace&, const View2D<const Pixel>&, const View2D<Pixel>&,        \
                                      const SmoothingOptions&, const PassCallback&);                             \
  template SmoothReport smooth<Pixel>(const View2D<const Pixel>&, const View2D<Pixel>&, const SmoothingOptions&, \
                                      const PassCallback&);
PORTASOLVE_SMOOTH(std::uint8_t)
PORTASOLVE_SMOOTH(std::uint16_t)
PORTASOLVE_SMOOTH(std::int32_t)
PORTASOLVE_SMOOTH(float)
PORTASOLVE_SMOOTH(double)

}  // namespace portasolve::smoothing
