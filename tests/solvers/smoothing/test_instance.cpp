// smooth(exec, ...) against smooth(...) on the default instance, bit for bit,
// for every kernel path the other tests cover (2-D windows of radius 1 and
// more, weights beyond the inline ones, separable tiles, columns and two
// launches, fused tiles, streamed and register bands, no passes), every pixel
// type, on small odd-sized images. The instance's run queues everything on
// the test's own instance (CUDA: a new non-blocking stream): the input's
// upload, the output's poison, the smoothing and the read back, waited for by
// fencing that instance alone, so a launch or copy the solver left on
// another stream would race with the read.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/grid_range.hpp"
#include "core/kokkos_compat.hpp"
#include "tests/instance.hpp"
#include "tests/solvers/smoothing/reference.hpp"
#include "tests/solvers/smoothing/run.hpp"

namespace portasolve::smoothing {
namespace {

using namespace testing;
using instance_tests::expect_same_bits;
using instance_tests::expect_same_members;
using instance_tests::first_difference;
using instance_tests::OwnInstance;
using instance_tests::poison;
using instance_tests::read_on;

struct Result {
  HostImage image;
  SmoothReport report;
  std::vector<std::int64_t> calls;  // on_launch's arguments
};

template <class Pixel>
HostImage image_of(const Kokkos::View<Pixel**, Kokkos::LayoutRight, Kokkos::HostSpace>& host) {
  HostImage image{static_cast<int>(host.extent(0)), static_cast<int>(host.extent(1)), {}};
  image.values.resize(host.size());
  for (int i = 0; i < image.rows; ++i)
    for (int j = 0; j < image.cols; ++j) image(i, j) = static_cast<double>(host(i, j));
  return image;
}

// The overload without an instance, read back with Kokkos' global fences.
template <class Pixel>
Result run_default(const HostImage& image, const SmoothingOptions& options) {
  const View2D<const Pixel> input = to_device<Pixel>(image);
  View2D<Pixel> output("output", image.rows, image.cols);
  Kokkos::deep_copy(output, poison<Pixel>());
  Result result;
  result.report = smooth<Pixel>(input, output, options, [&](std::int64_t done) { result.calls.push_back(done); });
  result.image = to_host(output);
  return result;
}

// Everything on exec, nothing fenced but exec, after the result is read.
template <class Pixel>
Result run_on(const ExecSpace& exec, const HostImage& image, const SmoothingOptions& options) {
  const View2D<Pixel> input(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("input")), image.rows,
                            image.cols);
  const View2D<Pixel> output(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("output")), image.rows,
                             image.cols);
  const auto host = kokkos_compat::host_mirror_without_init(input);
  for (int i = 0; i < image.rows; ++i)
    for (int j = 0; j < image.cols; ++j) host(i, j) = static_cast<Pixel>(image(i, j));
  Kokkos::deep_copy(exec, input, host);  // queued: smooth() must run after it
  Kokkos::deep_copy(exec, output, poison<Pixel>());
  Result result;
  result.report = smooth<Pixel>(exec, input, output, options, [&](std::int64_t done) { result.calls.push_back(done); });
  result.image = image_of<Pixel>(read_on(exec, output));
  return result;
}

void expect_same(const Result& on_instance, const Result& on_default, const std::string& label) {
  expect_same_bits(on_instance.image.values, on_default.image.values, label + ", pixels");
  std::int64_t poisoned = 0;  // NaN: a pixel nobody wrote (floating-point pixels)
  for (const double v : on_instance.image.values) poisoned += std::isnan(v) ? 1 : 0;
  EXPECT_EQ(poisoned, 0) << label;
  expect_same_members(on_instance.report, on_default.report, label + ", report", &SmoothReport::passes,
                      &SmoothReport::launches, &SmoothReport::radius, &SmoothReport::separable,
                      &SmoothReport::passes_per_launch, &SmoothReport::fused_kernel, &SmoothReport::separable_kernel,
                      &SmoothReport::tile_rows, &SmoothReport::tile_cols);
  EXPECT_EQ(on_instance.calls, on_default.calls) << label;
}

// The path a case must take, so that each covers what its label says.
struct Case {
  std::string label;
  SmoothingOptions options;
  std::int64_t launches;
  bool separable;
  FusedKernel fused;
  SeparableKernel separable_kernel;
};

SmoothingOptions with(SmoothingOptions options, std::int64_t passes, int passes_per_launch) {
  options.passes = passes;
  options.passes_per_launch = passes_per_launch;
  return options;
}

std::vector<Case> cases() {
  const std::vector<double> asymmetric{0.5, 1.25, 0.1, 2.0, 3.0, -0.3, 0.7, 1.1, 0.4};
  const std::vector<double> binomial{1, 2, 1, 2, 4, 2, 1, 2, 1};
  std::vector<double> wide(25);  // 5x5: the general-radius 2-D path
  for (int k = 0; k < 25; ++k) wide[k] = 1 + (k * 7) % 5 + 0.25 * (k % 3);
  const auto fused = [](SmoothingOptions options, FusedKernel kind, int tile_rows, int tile_cols) {
    options = with(options, 7, 3);
    options.fused_kernel = kind;
    options.tile_rows = tile_rows;
    options.tile_cols = tile_cols;
    return options;
  };
  const auto separable = [](SeparableKernel kind, BorderMode mode, int tile_rows, int tile_cols, int strip_rows) {
    SmoothingOptions options = gaussian(1.3, 3, mode);  // radius 4
    options.separable_kernel = kind;
    options.tile_rows = tile_rows;
    options.tile_cols = tile_cols;
    options.strip_rows = strip_rows;
    options.passes = 2;
    return options;
  };
  SmoothingOptions gaussian_2d = gaussian(1.3, 3, BorderMode::reflect);  // 9x9: 81 taps, beyond the inline 49
  gaussian_2d.separable = Separable::no;
  SmoothingOptions constant = box(1, BorderMode::constant);
  constant.constant_value = 3;
  const auto none = FusedKernel::automatic;
  const auto not_separable = SeparableKernel::automatic;
  return {
      {"box 3x3, one pass", box(1, BorderMode::reflect), 1, false, none, not_separable},
      {"box 3x3, constant border, 3 launches", with(constant, 3, 1), 3, false, none, not_separable},
      {"box 5x5 (general radius), 2 launches", box(2, BorderMode::mirror, 2), 2, false, none, not_separable},
      {"weighted 3x3 asymmetric", weighted(asymmetric, BorderMode::nearest), 1, false, none, not_separable},
      {"weighted 5x5", weighted(wide, BorderMode::wrap), 1, false, none, not_separable},
      {"gaussian 9x9 2-D (device weights)", gaussian_2d, 1, false, none, not_separable},
      {"box 7x7, separable automatic", box(3, BorderMode::keep), 1, true, none,
       host_execution ? SeparableKernel::tiles : SeparableKernel::columns},
      {"gaussian separable tiles", separable(SeparableKernel::tiles, BorderMode::wrap, 5, 7, 0), 2, true, none,
       SeparableKernel::tiles},
      {"gaussian separable tiles, automatic size", separable(SeparableKernel::tiles, BorderMode::keep, 0, 0, 0), 2,
       true, none, SeparableKernel::tiles},
      {"gaussian separable columns", separable(SeparableKernel::columns, BorderMode::mirror, 0, 0, 7), 2, true, none,
       SeparableKernel::columns},
      {"gaussian two launches", separable(SeparableKernel::two_launches, BorderMode::reflect, 0, 0, 0), 2, true, none,
       SeparableKernel::two_launches},
      {"fused tiles, box 3x3", fused(box(1, BorderMode::nearest), FusedKernel::tiles, 9, 13), 3, false,
       FusedKernel::tiles, not_separable},
      {"fused tiles, weighted 5x5", fused(weighted(wide, BorderMode::keep), FusedKernel::tiles, 0, 0), 3, false,
       FusedKernel::tiles, not_separable},
      {"fused tiles, separable gaussian", fused(gaussian(0.8, 2.5, BorderMode::constant), FusedKernel::tiles, 4, 6), 3,
       true, FusedKernel::tiles, not_separable},
      {"fused streamed bands", fused(box(1, BorderMode::wrap), FusedKernel::streamed, 8, 7), 3, false,
       FusedKernel::streamed, not_separable},
      {"fused register bands", fused(weighted(binomial, BorderMode::keep), FusedKernel::registers, 6, 0), 3, false,
       FusedKernel::registers, not_separable},
      {"fused register bands, box", fused(box(1, BorderMode::mirror), FusedKernel::registers, 0, 0), 3, false,
       FusedKernel::registers, not_separable},
      {"no passes (a copy)", box(1, BorderMode::reflect, 0), 0, false, none, not_separable},
  };
}

template <class Pixel>
void check_every_path(double low, double high, unsigned seed) {
  const HostImage image = random_image(29, 23, low, high, seed, std::numeric_limits<Pixel>::is_integer);
  const OwnInstance own;
  for (const Case& c : cases()) {
    const std::string label = c.label + " (" + std::to_string(sizeof(Pixel)) + "-byte " +
                              (std::numeric_limits<Pixel>::is_integer ? "integer" : "real") + " pixels)";
    const Result on_instance = run_on<Pixel>(own.exec(), image, c.options);
    const Result on_default = run_default<Pixel>(image, c.options);
    expect_same(on_instance, on_default, label);
    EXPECT_EQ(on_instance.report.launches, c.launches) << label;
    EXPECT_EQ(on_instance.report.separable, c.separable) << label;
    EXPECT_EQ(on_instance.report.fused_kernel, c.fused) << label;
    EXPECT_EQ(on_instance.report.separable_kernel, c.separable_kernel) << label;
    if (c.options.passes == 0) {  // the input, as Pixel holds it
      HostImage input = image;
      for (double& v : input.values) v = static_cast<double>(static_cast<Pixel>(v));
      EXPECT_EQ(first_difference(on_instance.image.values, input.values), -1) << label;
    }
  }
}

TEST(SmoothingInstance, EveryKernelPathEqualsTheDefaultInstanceBitForBit) {
  check_every_path<std::uint8_t>(0, 256, 61);
  check_every_path<std::uint16_t>(0, 65536, 62);
  check_every_path<std::int32_t>(-1e6, 1e6, 63);
  check_every_path<float>(0, 1, 64);
  check_every_path<double>(-1, 1, 65);
}

// Two instances each given a smoothing before either is read (CUDA: two
// streams running at once); each result equals its run on the default instance.
TEST(SmoothingInstance, TwoInstancesAtOnce) {
  const HostImage first = random_image(31, 17, 0, 1, 66, false), second = random_image(19, 27, 0, 1, 67, false);
  SmoothingOptions fused = box(1, BorderMode::reflect, 9);
  fused.passes_per_launch = 4;
  fused.fused_kernel = FusedKernel::registers;
  SmoothingOptions separable = gaussian(1.1, 3, BorderMode::wrap);
  separable.passes = 3;
  const OwnInstance a, b;
  const auto upload = [](const ExecSpace& exec, const HostImage& image) {
    const View2D<float> view(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("input")), image.rows,
                             image.cols);
    const auto host = kokkos_compat::host_mirror_without_init(view);
    for (int i = 0; i < image.rows; ++i)
      for (int j = 0; j < image.cols; ++j) host(i, j) = static_cast<float>(image(i, j));
    Kokkos::deep_copy(exec, view, host);
    exec.fence();  // `host` goes at return
    return view;
  };
  const View2D<float> in_a = upload(a.exec(), first), in_b = upload(b.exec(), second);
  const View2D<float> out_a(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("out_a")), first.rows,
                            first.cols);
  const View2D<float> out_b(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("out_b")), second.rows,
                            second.cols);
  const SmoothReport report_a = smooth<float>(a.exec(), in_a, out_a, fused);
  const SmoothReport report_b = smooth<float>(b.exec(), in_b, out_b, separable);
  const HostImage result_b = image_of<float>(read_on(b.exec(), out_b));
  const HostImage result_a = image_of<float>(read_on(a.exec(), out_a));
  EXPECT_EQ(report_a.fused_kernel, FusedKernel::registers);
  EXPECT_TRUE(report_b.separable);
  EXPECT_EQ(first_difference(result_a.values, run_default<float>(first, fused).image.values), -1);
  EXPECT_EQ(first_difference(result_b.values, run_default<float>(second, separable).image.values), -1);
  // And they did smooth: against the float64 reference.
  HostImage expected = first;
  for (int s = 0; s < 9; ++s) expected = reference_pass(expected, box_weights(1), BorderMode::reflect);
  EXPECT_LT(max_abs_difference(result_a, expected), 1e-5);
}

// Errors come before any work, as on the default instance.
TEST(SmoothingInstance, RefusalsAreTheDefaultOnes) {
  const OwnInstance own;
  const HostImage image = random_image(11, 9, 0, 1, 68, false);
  const View2D<const float> input = to_device<float>(image);
  const View2D<float> output("output", 11, 9), narrow("narrow", 11, 8);
  SmoothingOptions streamed = box(2, BorderMode::reflect, 4);
  streamed.passes_per_launch = 4;
  streamed.fused_kernel = FusedKernel::streamed;
  try {
    smooth<float>(own.exec(), input, output, streamed);
    ADD_FAILURE() << "streamed 5x5 accepted";
  } catch (const OptionError& error) {
    EXPECT_EQ(error.option(), "fused_kernel") << error.what();
  }
  EXPECT_THROW(smooth<float>(own.exec(), input, narrow, box(1, BorderMode::reflect)), std::invalid_argument);
  const View2D<float> same(const_cast<float*>(input.data()), 11, 9);
  EXPECT_THROW(smooth<float>(own.exec(), input, same, box(1, BorderMode::reflect)), std::invalid_argument);
}

}  // namespace
}  // namespace portasolve::smoothing
