// experiment: smoothing. Loads or draws an image, converts it to the pixel
// type, runs the passes (and, if asked, the same passes one launch each as
// the baseline) and writes the smoothed image. Over MPI ranks each rank
// smooths its block of the image (solvers/smoothing/distributed.hpp) and
// rank 0 writes the gathered image.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <ostream>
#include <stdexcept>

#include "core/interrupt.hpp"
#include "core/profiling.hpp"
#include "core/timer.hpp"
#include "drivers/collective_output.hpp"
#include "drivers/experiment.hpp"
#include "drivers/halo_report.hpp"
#include "drivers/image_input.hpp"
#include "drivers/option_keys.hpp"
#include "drivers/option_table.hpp"
#include "drivers/repeat_loop.hpp"
#include "solvers/smoothing/smooth.hpp"
#if PORTASOLVE_HAVE_MPI
#include <mpi.h>

#include "core/grid_range.hpp"
#include "distributed/grid_decomposition.hpp"
#include "distributed/mpi_session.hpp"
#include "solvers/smoothing/distributed.hpp"
#endif

namespace portasolve::drivers {

namespace sm = smoothing;

void add_smoothing_schema(config::Schema& schema) {
  using config::Kind;
  add_choice(schema, "smoothing.kernel", "box, weighted (a matrix) or gaussian (two 1-D passes)", sm::kernel_names(),
             "box");
  add_integer(schema, "smoothing.radius", "box: r, a (2r+1)x(2r+1) window", 1).at_least(0);
  schema.add("smoothing.weights", Kind::RealList, "weighted: a square matrix with an odd side, as a list of rows")
      .optional();
  add_real(schema, "smoothing.sigma", "gaussian: standard deviation in pixels", 1.0).greater_than(0);
  add_real(schema, "smoothing.truncate", "gaussian: radius = round(truncate * sigma) (SciPy's rule)", 4.0)
      .greater_than(0);
  add_choice(schema, "smoothing.border", "past the edges: SciPy ndimage's modes, or keep (copy border pixels)",
             sm::border_names(), "reflect");
  add_real(schema, "smoothing.constant_value", "border: constant: the value past the edges", 0.0);
  add_choice(schema, "smoothing.rounding", "integer pixels: floor (Python's //) or nearest (halves up)",
             sm::rounding_names(), "nearest");
  add_choice(schema, "smoothing.separable", "two 1-D passes: auto (gaussian, box r >= 3), yes or no",
             sm::separable_names(), "auto");
  add_choice(schema, "smoothing.separable_kernel",
             "separable windows, one pass a launch: columns or tiles (both 1-D passes in one launch) or two_launches; "
             "auto: columns on GPUs (radius <= 12), else tiles where a tile of 8 rows fits the team scratch",
             sm::separable_kernel_names(), "auto");
  add_integer(schema, "smoothing.passes", "times the smoothing is applied", 1).at_least(0);
  add_integer(schema, "smoothing.passes_per_launch",
              "passes fused per launch in team scratch (0: GPUs 8 for 3x3 windows, else 1)", 0)
      .at_least(0);
  add_choice(
      schema, "smoothing.fused_kernel",
      "fused launches, 3x3 windows, <= 8 per launch: register bands (no wrap border) or streamed bands; tiles (any "
      "window); auto: the first that applies",
      sm::fused_kernel_names(), "auto");
  add_integer(schema, "smoothing.tile_rows", "fused launches: rows a team writes (0: automatic)", 0).at_least(0);
  add_integer(schema, "smoothing.tile_cols", "fused launches: columns a team writes (0: automatic)", 0).at_least(0);
  add_integer(schema, "smoothing.strip_rows",
              "GPU single 3x3-class passes: rows per thread; separable columns: rows per strip (0: automatic)", 0)
      .at_least(0);
  add_choice(schema, "image.source", "where the image comes from", {"synthetic", "pgm", "hdf5"}, "synthetic");
  add_image_input_schema(schema, "image");
  add_choice(schema, "image.pixel_type", "pixel type of the computation (precision is not used)",
             {"uint8", "uint16", "int32", "float", "double"}, "float");
  add_boolean(schema, "output.image", "write /output/image (large images: off for benchmarks)", true);
  add_boolean(schema, "output.input_image", "write /input/image", true);
  schema.add("output.pgm", Kind::String, "also write the result as this PGM (empty: none)").optional();
  add_choice(schema, "benchmark.baseline", "also time the same passes one launch each, in the same run",
             {"none", "separate_launches"}, "none");
}

namespace {

// kernel: weighted: the weights, a square matrix with an odd side.
void read_weights(const config::Config& config, const std::string& key, sm::SmoothingOptions& options) {
  if (options.kernel != sm::KernelKind::weighted) return;
  if (!config.has(key))
    throw ConfigError(config.where("smoothing.kernel"), key, "missing for kernel: weighted",
                      "a square matrix with an odd side, e.g. [[1, 2, 1], [2, 4, 2], [1, 2, 1]]");
  options.weights = config.reals(key);
  const auto side = static_cast<int>(std::lround(std::sqrt(static_cast<double>(options.weights.size()))));
  if (static_cast<std::size_t>(side) * side != options.weights.size() || side % 2 == 0)
    throw ConfigError(config.where(key), key,
                      "has " + std::to_string(options.weights.size()) + " entries, not a square with an odd side",
                      "a list of rows, 1x1, 3x3, 5x5, ...");
  options.weights_size = side;
}

// Every SmoothingOptions field: the config key that sets it (the key an
// OptionError naming the field points at) and how it is read.
const OptionTable<sm::SmoothingOptions>& smoothing_option_table() {
  using O = sm::SmoothingOptions;
  static const OptionTable<O> table{
      "smoothing.",
      {
          {"kernel", choice(sm::kernel_from_name, &O::kernel)},
          {"radius", value(&O::radius)},
          {"weights", read_weights},
          {"sigma", value(&O::sigma)},
          {"truncate", value(&O::truncate)},
          {"border", choice(sm::border_from_name, &O::border)},
          {"constant_value", value(&O::constant_value)},
          {"rounding", choice(sm::rounding_from_name, &O::rounding)},
          {"separable", choice(sm::separable_from_name, &O::separable)},
          {"separable_kernel", choice(sm::separable_kernel_from_name, &O::separable_kernel)},
          {"passes", value(&O::passes)},
          {"passes_per_launch", value(&O::passes_per_launch)},
          {"fused_kernel", choice(sm::fused_kernel_from_name, &O::fused_kernel)},
          {"tile_rows", value(&O::tile_rows)},
          {"tile_cols", value(&O::tile_cols)},
          {"strip_rows", value(&O::strip_rows)},
      }};
  return table;
}

sm::SmoothingOptions smoothing_options(const config::Config& config) { return smoothing_option_table().read(config); }

const OptionKeys& smoothing_option_keys() { return smoothing_option_table().keys(); }

// `image` (a rank's block of the whole image when first_row, first_col say
// where it starts: pixels are named by their place in the whole image).
template <class Pixel>
HostView2D<Pixel> to_pixels(const Image& image, const std::string& type_name, std::size_t first_row = 0,
                            std::size_t first_col = 0) {
  HostView2D<Pixel> pixels(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("smoothing_host_image")),
                           image.rows, image.cols);
  const double lowest = static_cast<double>(std::numeric_limits<Pixel>::lowest());
  const double highest = static_cast<double>(std::numeric_limits<Pixel>::max());
  for (std::size_t i = 0; i < image.rows; ++i) {
    throw_if_interrupted();  // setup of large images takes seconds
    for (std::size_t j = 0; j < image.cols; ++j) {
      const double v = image.values[i * image.cols + j];
      if constexpr (std::numeric_limits<Pixel>::is_integer) {
        if (v < lowest || v > highest || v != std::floor(v))
          throw InputError(image.description + ": pixel (" + std::to_string(first_row + i) + ", " +
                           std::to_string(first_col + j) + ") = " + std::to_string(v) + " is not a " + type_name +
                           " value (integers " + std::to_string(static_cast<long long>(lowest)) + ".." +
                           std::to_string(static_cast<long long>(highest)) + ")");
      }
      pixels(i, j) = static_cast<Pixel>(v);
    }
  }
  return pixels;
}

using TimedSmooth = TimedRun<sm::SmoothReport>;

// How a repeat smooths: sm::smooth on the whole image, or over MPI ranks in
// place on this rank's block. `prepare` (before the timed smooth) and
// `finish` (after it) move the block into and out of the ranks' local
// arrays, as loading the input and reading the result are outside the time
// on one process; absent on one process.
template <class Pixel>
struct Smoother {
  std::function<sm::SmoothReport(const View2D<const Pixel>&, const View2D<Pixel>&, const sm::SmoothingOptions&,
                                 const sm::PassCallback&)>
      smooth;
  std::function<void(const View2D<const Pixel>&, const sm::SmoothingOptions&)> prepare;
  std::function<void(const View2D<Pixel>&, const sm::SmoothingOptions&)> finish;
};

template <class Pixel>
TimedSmooth timed_smooth(RunContext& context, const View2D<const Pixel>& input, const View2D<Pixel>& output,
                         const sm::SmoothingOptions& options, const std::string& label,
                         const Smoother<Pixel>& smoother) {
  TimedSmooth result;
  const auto call = [&](auto&& work) {
    call_solver(context.config, smoothing_option_keys(), "smoothing.kernel", work);
  };
  result.times = repeat_with_progress(
      context, RepeatTask{"smoothing/" + label, options.passes, "pass"}, [] {},
      [&](const Repeat&, Progress& progress) {
        if (smoother.prepare) call([&] { smoother.prepare(input, options); });
        const double seconds = fenced_seconds([&] {
          call([&] {
            result.report = smoother.smooth(input, output, options, [&](std::int64_t done) {
              throw_if_interrupted();
              progress.update(done);
            });
          });
        });
        if (smoother.finish) smoother.finish(output, options);
        return RepeatResult{seconds, std::nullopt};
      });
  return result;
}

template <class Pixel>
void run_typed(RunContext& context, const std::string& type_name) {
  const auto& config = context.config;
  Stopwatch setup_watch;
  const std::string source = config.string("image.source");
  const sm::SmoothingOptions options = smoothing_options(config);
  Image image;
  HostView2D<Pixel> host_input;  // the whole image, or over ranks reading blocks this rank's block
  View2D<Pixel> input;
  Smoother<Pixel> smoother;
  smoother.smooth = [](const View2D<const Pixel>& in, const View2D<Pixel>& out, const sm::SmoothingOptions& o,
                       const sm::PassCallback& on_launch) { return sm::smooth<Pixel>(in, out, o, on_launch); };
#if PORTASOLVE_HAVE_MPI
  // Over MPI ranks each rank holds its block of the image on its device.
  std::unique_ptr<distributed::GridDecomposition> decomposition;
  const auto decompose = [&](std::size_t rows, std::size_t cols) {  // check_smoothing_ranks saw the split first
    decomposition = call_solver(config, smoothing_option_keys(), "smoothing.kernel", [&] {
      return sm::decompose_image(MPI_COMM_WORLD, static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols),
                                 options);
    });
  };
  // An HDF5 or synthetic image over ranks: each rank reads (draws) its own block, no rank the whole image.
  const bool read_blocks = context.ranks.size > 1 && reads_windows(source);
  if (read_blocks) {
    const auto [rows, cols] = windowed_image_size(config, "image", source, "image.source");
    decompose(rows, cols);
    const sm::ImageBlock b = sm::image_block(*decomposition);
    const auto size = [](std::int64_t v) { return static_cast<std::size_t>(v); };
    Image block = load_image_window(config, "image", source, "image.source",
                                    ImageWindow{size(b.first_row), size(b.rows), size(b.first_col), size(b.cols)});
    unsigned maxval = block.maxval;  // the whole image's: 16-bit PGM output if any block needs it
    MPI_Allreduce(MPI_IN_PLACE, &maxval, 1, MPI_UNSIGNED, MPI_MAX, MPI_COMM_WORLD);
    image = Image{rows, cols, {}, maxval, block.description};
    host_input = to_pixels<Pixel>(block, type_name, size(b.first_row), size(b.first_col));
    input = View2D<Pixel>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("smoothing_block")), block.rows,
                          block.cols);
    Kokkos::deep_copy(input, host_input);
  }
#else
  const bool read_blocks = false;
#endif
  if (!read_blocks) {
    image = load_image(config, "image", source, "image.source");
    throw_if_interrupted();
    host_input = to_pixels<Pixel>(image, type_name);
    image.values = {};  // the double copy is no longer needed
  }
#if PORTASOLVE_HAVE_MPI
  sm::HaloStatistics halo;
  sm::SmoothWorkspace<Pixel> workspace;  // the local arrays, kept over the repeats
  double untimed_arrays_s = 0;           // copies into and out of them, outside the timed smooth
  if (context.ranks.size > 1) {
    if (!decomposition) {
      decompose(image.rows, image.cols);
      input = sm::block_to_device<Pixel>(*decomposition, host_input);
    }
    smoother.prepare = [&](const View2D<const Pixel>& in, const sm::SmoothingOptions& o) {
      Stopwatch watch;
      copy_grid("smoothing_block_in", sm::local_block<Pixel>(*decomposition, o, workspace), in);
      Kokkos::fence();
      untimed_arrays_s = watch.seconds();
    };
    smoother.smooth = [&](const View2D<const Pixel>&, const View2D<Pixel>&, const sm::SmoothingOptions& o,
                          const sm::PassCallback& on_pass) {
      return sm::smooth_in_place<Pixel>(*decomposition, o, workspace, on_pass, &halo);
    };
    smoother.finish = [&](const View2D<Pixel>& out, const sm::SmoothingOptions& o) {
      Stopwatch watch;
      copy_grid("smoothing_block_out", out, sm::local_block<Pixel>(*decomposition, o, workspace));
      Kokkos::fence();
      halo.arrays_seconds = untimed_arrays_s + watch.seconds();
    };
  }
#endif
  if (!input.data()) {
    input = View2D<Pixel>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("smoothing_input")), image.rows,
                          image.cols);
    Kokkos::deep_copy(input, host_input);
  }
  throw_if_interrupted();
  const View2D<Pixel> output(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("smoothing_output")),
                             input.extent(0), input.extent(1));
  const double setup_s = setup_watch.seconds();

  TimedSmooth baseline;
  const bool with_baseline = config.string("benchmark.baseline") == "separate_launches";
  if (with_baseline) {
    sm::SmoothingOptions separate = options;
    separate.passes_per_launch = 1;
    baseline = timed_smooth<Pixel>(context, input, output, separate, "separate launches (baseline)", smoother);
  }
  const TimedSmooth smoothed =
      timed_smooth<Pixel>(context, input, output, options, config.string("smoothing.kernel"), smoother);
  const sm::SmoothReport& report = smoothed.report;

  auto& result = context.result;
  result.set_timing(setup_s, smoothed.times);
  if (with_baseline) result.set_baseline("separate_launches", baseline.times);

  auto& in = result.input();
  in.set_attribute("source", source);
  in.set_attribute("description", image.description);
  in.set_attribute("rows", static_cast<std::int64_t>(image.rows));
  in.set_attribute("cols", static_cast<std::int64_t>(image.cols));
  in.set_attribute("pixel_type", type_name);
  in.set_attribute("read", read_blocks ? "each rank its block" : "whole image");
  const h5::Dims dims{image.rows, image.cols};
  const bool collective = writes_collectively(context);
  const bool input_image = config.boolean("output.input_image");
  if (input_image && !read_blocks) in.write_dataset("image", host_input.data(), dims);
#if PORTASOLVE_HAVE_MPI
  if (input_image && read_blocks) {
    if (collective) {
      in.create_unwritten_dataset<Pixel>("image", dims);  // each rank writes its block at the end
    } else {
      std::vector<Pixel> whole = sm::gather_image<Pixel>(*decomposition, input, 0);
      if (whole.empty()) whole.assign(image.rows * image.cols, Pixel(0));  // not rank 0: its file is discarded
      in.write_dataset("image", whole.data(), dims);
    }
  }
#endif

  auto& out = result.output();
  const bool wants_pgm = config.has("output.pgm") && !config.string("output.pgm").empty();
  // Over ranks with parallel HDF5 each rank writes its own block of the
  // image at the end; the whole image is gathered only for a PGM.
  // The whole smoothed image on the host (over ranks: gathered on rank 0; the
  // other ranks' files are discarded, so they write zeros).
  HostView2D<Pixel> host_output;
  std::vector<Pixel> gathered;
  const Pixel* output_pixels = nullptr;
#if PORTASOLVE_HAVE_MPI
  if (decomposition) {
    if (!collective || wants_pgm) {
      gathered = sm::gather_image<Pixel>(*decomposition, output, 0);
      if (gathered.empty()) gathered.assign(image.rows * image.cols, Pixel(0));
      output_pixels = gathered.data();
    }
    report_ranks(context, *decomposition, halo);
  }
#endif
  if (!output_pixels && !collective) {
    host_output = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), output);
    output_pixels = host_output.data();
  }
  if (config.boolean("output.image")) {
    if (collective)
      out.create_unwritten_dataset<Pixel>("image", dims);
    else
      out.write_dataset("image", output_pixels, dims);
    out.set_attribute("description", "the image after all passes, the input's pixel type", "image");
  }
  record_write_mode(context, out);
  out.set_attribute("kernel", config.string("smoothing.kernel"));
  out.set_attribute("radius", static_cast<std::int64_t>(report.radius));
  out.set_attribute("separable", static_cast<std::int64_t>(report.separable));
  out.set_attribute("border", sm::name_of(options.border));
  out.set_attribute("rounding", std::numeric_limits<Pixel>::is_integer ? sm::name_of(options.rounding) : "none");
  out.set_attribute("passes", report.passes);
  out.set_attribute("passes_per_launch", static_cast<std::int64_t>(report.passes_per_launch));
  out.set_attribute("launches", report.launches);
  out.set_attribute("fused_kernel",
                    report.passes_per_launch == 1 ? std::string("none") : sm::name_of(report.fused_kernel));
  out.set_attribute("separable_kernel", report.separable_kernel == sm::SeparableKernel::automatic
                                            ? std::string("none")
                                            : sm::name_of(report.separable_kernel));
  out.set_attribute("tile_rows", static_cast<std::int64_t>(report.tile_rows));
  out.set_attribute("tile_cols", static_cast<std::int64_t>(report.tile_cols));
  // Each pass reads and writes the image once at best.
  const double pass_bytes = 2.0 * static_cast<double>(image.rows * image.cols * sizeof(Pixel));
  const double seconds = smoothed.times.median();
  const double bandwidth = seconds > 0 ? pass_bytes * static_cast<double>(report.passes) / seconds / 1e9 : 0.0;
  out.set_attribute("effective_bandwidth_GBps", bandwidth);

  char line[240];
  std::snprintf(line, sizeof line, "smoothing: %zux%zu %s, %s r=%d%s, border %s: %lld pass%s, %d per launch\n",
                image.rows, image.cols, type_name.c_str(), config.string("smoothing.kernel").c_str(), report.radius,
                report.separable ? " (separable)" : "", sm::name_of(options.border).c_str(),
                static_cast<long long>(report.passes), report.passes == 1 ? "" : "es", report.passes_per_launch);
  context.out << line;
  std::snprintf(line, sizeof line,
                "time: %.6g s (median of %zu), %.4g ms per pass, %.1f GB/s effective (2 x image per pass)\n", seconds,
                smoothed.times.seconds.size(),
                report.passes > 0 ? 1e3 * seconds / static_cast<double>(report.passes) : 0.0, bandwidth);
  context.out << line;
  if (with_baseline) {
    std::snprintf(line, sizeof line, "baseline, one launch per pass: %.6g s; speedup %.2fx\n", baseline.times.median(),
                  baseline.times.median() / seconds);
    context.out << line;
  }
  if (wants_pgm) {
    std::vector<double> values(output_pixels, output_pixels + image.rows * image.cols);
    const unsigned maxval = std::is_same<Pixel, std::uint16_t>::value ? 65535u : image.maxval;
    write_pgm(config, result, values, image.rows, image.cols, maxval);
  }
#if PORTASOLVE_HAVE_PARALLEL_HDF5
  if (collective) {
    std::vector<h5::BlockPart> parts;
    const auto block = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), output);
    const sm::ImageBlock b = sm::image_block(*decomposition);
    const auto part = [&](const char* name, const Pixel* values) {
      parts.push_back(h5::block_part(name, values,
                                     {static_cast<hsize_t>(b.first_row), static_cast<hsize_t>(b.first_col)},
                                     {static_cast<hsize_t>(b.rows), static_cast<hsize_t>(b.cols)}));
    };
    if (config.boolean("output.image")) part("/output/image", block.data());
    if (input_image && read_blocks) part("/input/image", host_input.data());
    write_blocks_and_close(context, parts);
  }
#endif
}

}  // namespace

void run_smoothing(RunContext& context) {
  const std::string type = context.config.string("image.pixel_type");
  if (type == "uint8")
    run_typed<std::uint8_t>(context, type);
  else if (type == "uint16")
    run_typed<std::uint16_t>(context, type);
  else if (type == "int32")
    run_typed<std::int32_t>(context, type);
  else if (type == "float")
    run_typed<float>(context, type);
  else
    run_typed<double>(context, type);
}

}  // namespace portasolve::drivers

namespace portasolve::drivers {

void check_smoothing_ranks(const config::Config& config, int ranks) {
#if PORTASOLVE_HAVE_MPI
  const sm::SmoothingOptions options = smoothing_options(config);
  const std::string source = config.string("image.source");
  const ImageSize size = image_size(config, "image", source, "image.source");
  try {
    sm::smoothing_process_grid(ranks, static_cast<std::int64_t>(size.rows), static_cast<std::int64_t>(size.cols),
                               options);
  } catch (const OptionError& error) {
    throw config_error_for(config, error, smoothing_option_keys(), "smoothing.kernel");
  } catch (const std::invalid_argument& error) {
    const std::string key = image_size_key("image", source);
    throw ConfigError(config.where(key), key, error.what(), "a larger image, a smaller window or fewer ranks");
  }
#else
  (void)config, (void)ranks;
#endif
}

Preflight preflight_smoothing(const config::Config& config) {
  const std::string source = config.string("image.source");
  const ImageSize size = image_size(config, "image", source, "image.source");
  const double n = size.pixels();
  const std::string type = config.string("image.pixel_type");
  const double pixel = type == "uint8" ? 1 : type == "uint16" ? 2 : type == "double" ? 8 : 4;
  Preflight plan{
      {}, image_size_key("image", source), "reduce image.rows/cols (or the image) or use a smaller image.pixel_type"};
  // Device: input, output, the spare of several launches and the 64-bit
  // partial sums of separable passes.
  plan.memory.device(n, 3 * pixel + 8);
  // Host: the image in float64 while it is converted, the pixels, the result
  // read back, and the PGM's float64 copy.
  const bool pgm = config.has("output.pgm") && !config.string("output.pgm").empty();
  plan.memory.host(n, 8 + 2 * pixel + (pgm ? 8 : 0));
  return plan;
}

Experiment smoothing_experiment() {
  const char* summary = "image smoothing: box, weighted and gaussian stencils, border modes, fused repeated passes";
  return {"smoothing", summary, add_smoothing_schema, run_smoothing, preflight_smoothing, check_smoothing_ranks};
}

}  // namespace portasolve::drivers
