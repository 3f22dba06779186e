// The models against the serial host reference, the smoother's identities,
// Lorenz 96's climate and the paper's reductions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/grid_range.hpp"
#include "solvers/lorenz05/ensemble.hpp"
#include "solvers/smoothing/running_smoother.hpp"
#include "tests/solvers/lorenz05/reference.hpp"

namespace portasolve::lorenz05 {
namespace {

using testing::host_step;
using testing::model;
using testing::noisy_state;

template <class T>
View2D<T> to_device(const std::vector<std::vector<double>>& members) {
  View2D<T> states("states", members.size(), members[0].size());
  auto host = Kokkos::create_mirror_view(states);
  for (std::size_t e = 0; e < members.size(); ++e)
    for (std::size_t i = 0; i < members[e].size(); ++i) host(e, i) = static_cast<T>(members[e][i]);
  Kokkos::deep_copy(states, host);
  return states;
}

template <class T>
std::vector<std::vector<double>> to_host(const View2D<T>& states) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), states);
  std::vector<std::vector<double>> members(states.extent(0), std::vector<double>(states.extent(1)));
  for (std::size_t e = 0; e < members.size(); ++e)
    for (std::size_t i = 0; i < members[e].size(); ++i) members[e][i] = host(e, i);
  return members;
}

double max_difference(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
  double worst = 0;
  for (std::size_t e = 0; e < a.size(); ++e)
    for (std::size_t i = 0; i < a[e].size(); ++i) {
      const double d = std::fabs(a[e][i] - b[e][i]);
      worst = std::isnan(d) ? INFINITY : std::max(worst, d);
    }
  return worst;
}

template <class T>
std::vector<std::vector<double>> run(const ModelParameters& p, const std::vector<std::vector<double>>& start,
                                     std::int64_t steps, Layout layout) {
  const View2D<T> states = to_device<T>(start);
  Ensemble<T> ensemble(p, layout);
  EXPECT_EQ(ensemble.layout(), layout);
  ensemble.advance(states, steps);
  return to_host(states);
}

struct Quadratic {
  KOKKOS_INLINE_FUNCTION double operator()(const int m) const { return 0.3 + 0.01 * m - 0.0002 * m * m; }
};

TEST(Lorenz05Smoother, WeightsSumToOneAndReproduceQuadratics) {
  for (const int I : {1, 5, 12}) {
    const std::vector<double> a = smoothing::running_smoother_weights(I);
    double sum = 0, second = 0;
    for (int j = -I; j <= I; ++j) {
      sum += a[j + I];
      second += double(j) * j * a[j + I];
    }
    EXPECT_NEAR(sum, 1, 1e-14) << I;
    EXPECT_NEAR(second, 0, 1e-12) << I;
    const int n = 200;
    const Quadratic z;
    for (int i = I; i < n - I; i += 7) {  // windows that do not wrap
      const double x = smoothing::cyclic_running_smoother<double>(a.data(), I, n, i, z);
      EXPECT_NEAR(x, z(i), 1e-13) << "I " << I << ", i " << i;
    }
  }
  EXPECT_EQ(smoothing::running_smoother_weights(0), std::vector<double>{1.0});
}

TEST(Lorenz05Model, EveryModelAndLayoutMatchesHostReference) {
  const std::vector<ModelParameters> models{model(1, 40, 1, 0, 0.05, 8), model(2, 120, 8, 0, 0.01, 12),
                                            model(2, 90, 7, 0, 0.01, 12), model(3, 240, 8, 6, 0.002, 15),
                                            model(3, 150, 5, 4, 0.002, 15)};
  for (const ModelParameters& p : models) {
    std::vector<std::vector<double>> start{noisy_state(p, 1), noisy_state(p, 2), noisy_state(p, 3)};
    auto expected = start;
    for (auto& member : expected)
      for (int s = 0; s < 30; ++s) host_step(p, member);
    double scale = 0;
    for (const auto& member : expected)
      for (double v : member) scale = std::max(scale, std::fabs(v));
    for (const Layout layout : {Layout::team, Layout::flat, Layout::vector, Layout::resident}) {
      EXPECT_LT(max_difference(run<double>(p, start, 30, layout), expected), 1e-11 * scale)
          << "model " << p.model << " K " << p.K << " " << name_of(layout);
      EXPECT_LT(max_difference(run<float>(p, start, 30, layout), expected), 2e-4 * scale)
          << "model " << p.model << " K " << p.K << " " << name_of(layout) << " (float)";
    }
  }
}

TEST(Lorenz05Model, LayoutsAgreeAndMembersEqualSingleRuns) {
  ModelParameters p = model(3, 180, 6, 5, 0.002, 15);
  std::vector<std::vector<double>> start;
  for (unsigned e = 0; e < 5; ++e) start.push_back(noisy_state(p, 10 + e));
  const auto team = run<double>(p, start, 120, Layout::team);
  EXPECT_LT(max_difference(team, run<double>(p, start, 120, Layout::flat)), 1e-12);
  for (std::size_t e = 0; e < start.size(); ++e) {
    const auto single = run<double>(p, {start[e]}, 120, Layout::team);
    EXPECT_EQ(max_difference({team[e]}, single), 0) << "member " << e;
  }
}

bool same_bits(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
  bool same = a.size() == b.size();
  for (std::size_t e = 0; same && e < a.size(); ++e)
    same = a[e].size() == b[e].size() && std::memcmp(a[e].data(), b[e].data(), a[e].size() * sizeof(double)) == 0;
  return same;
}

// The vector layout (blocks of points in SIMD lanes, rows with wrapped ends)
// against the team and flat layouts: the same numbers bit for bit on every
// backend, as all three run the same operations in the same order per point,
// each rounded as written (rounding.hpp: GPU compilers would otherwise fuse
// multiply-adds differently per kernel). Sizes with and without a partial
// last block (8 points), K odd and even, the halo longer than the row
// (K = N), model III at DART's N = 960.
template <class T>
void expect_vector_layout_matches(const ModelParameters& p, int members, std::int64_t steps) {
  std::vector<std::vector<double>> start;
  for (int e = 0; e < members; ++e) start.push_back(noisy_state(p, 40 + e));
  const auto vector = run<T>(p, start, steps, Layout::vector);
  for (const Layout layout : {Layout::team, Layout::flat}) {
    const auto other = run<T>(p, start, steps, layout);
    EXPECT_TRUE(same_bits(vector, other))
        << "model " << p.model << " N " << p.model_size << " K " << p.K << " I " << p.smooth_steps << " vs "
        << name_of(layout) << (sizeof(T) == 4 ? " (float)" : "") << ", max difference "
        << max_difference(vector, other);
  }
}

TEST(Lorenz05Model, VectorLayoutMatchesTeamAndFlatBitForBit) {
  const std::vector<ModelParameters> models{
      lorenz96_defaults(),          model(1, 37, 1, 0, 0.05, 8),    model(2, 120, 8, 0, 0.01, 12),
      model(2, 91, 7, 0, 0.01, 12), model(3, 150, 5, 4, 0.002, 15), model(3, 61, 4, 3, 0.002, 15),
      model(2, 12, 12, 0, 0.01, 8), model(3, 243, 10, 7, 0.002, 15)};
  for (const ModelParameters& p : models) {
    expect_vector_layout_matches<double>(p, 3, 40);
    expect_vector_layout_matches<float>(p, 3, 40);
  }
  const ModelParameters three = model_three_defaults();  // N = 960, K = 32, I = 12
  expect_vector_layout_matches<double>(three, 5, 20);
  expect_vector_layout_matches<float>(three, 5, 20);
  expect_vector_layout_matches<double>(lorenz96_defaults(), 7, 500);
  expect_vector_layout_matches<float>(lorenz96_defaults(), 7, 500);
}

// The resident layout (several members per team, blocks of 5 points per
// thread with sums from sliding windows, rows padded with wrapped copies, the
// stage's end fused into the rate, W computed where read for K = 1) against
// the team layout, bit for bit on every backend: the same operations in the
// same order per point, rounded as written. Member counts that give GPU teams of 1 to 32
// members and a last team only partly filled; the models of the vector
// layout's test (halo longer than the row included) and DART's N = 960,
// whose state and increment stay in device memory in double on CUDA.
template <class T>
void expect_resident_layout_matches(const ModelParameters& p, int members, std::int64_t steps) {
  std::vector<std::vector<double>> start;
  for (int e = 0; e < members; ++e) start.push_back(noisy_state(p, 70 + e));
  const auto resident = run<T>(p, start, steps, Layout::resident);
  const auto team = run<T>(p, start, steps, Layout::team);
  EXPECT_TRUE(same_bits(resident, team)) << "model " << p.model << " N " << p.model_size << " K " << p.K << " I "
                                         << p.smooth_steps << ", " << members << " members"
                                         << (sizeof(T) == 4 ? " (float)" : "") << ", max difference "
                                         << max_difference(resident, team);
}

TEST(Lorenz05Model, ResidentLayoutMatchesTeamBitForBit) {
  const std::vector<ModelParameters> models{
      lorenz96_defaults(),          model(1, 37, 1, 0, 0.05, 8),     model(2, 120, 8, 0, 0.01, 12),
      model(2, 91, 7, 0, 0.01, 12), model(3, 150, 5, 4, 0.002, 15),  model(3, 61, 4, 3, 0.002, 15),
      model(2, 12, 12, 0, 0.01, 8), model(3, 243, 10, 7, 0.002, 15), model(3, 40, 1, 2, 0.002, 15)};
  for (const ModelParameters& p : models) {
    expect_resident_layout_matches<double>(p, 3, 40);
    expect_resident_layout_matches<float>(p, 3, 40);
  }
  // On GPUs one-scale models with K = 1 and N a multiple of 5 up to 160 run
  // the warp kernel (WarpSteps: blocks of 5 points a lane, a member a segment
  // of 1 to 32 lanes): N = 5 (one lane, its own neighbour), 30 (6 lanes of a
  // segment of 8), 45 with model II (9 of 16), 160 (a whole warp); 165 is one
  // lane too many for a 32-lane warp and takes the general kernel there (on
  // 64-lane wavefronts it runs the warp kernel too).
  for (const ModelParameters& p : {model(1, 5, 1, 0, 0.05, 8), model(1, 30, 1, 0, 0.05, 8), model(2, 45, 1, 0, 0.05, 8),
                                   model(1, 160, 1, 0, 0.05, 8), model(1, 165, 1, 0, 0.05, 8)})
    for (const int members : {1, 3, 7, 70}) {
      expect_resident_layout_matches<double>(p, members, 30);
      expect_resident_layout_matches<float>(p, members, 30);
    }
  for (const int members : {1, 37, 600, 2100}) {
    expect_resident_layout_matches<double>(lorenz96_defaults(), members, 60);
    expect_resident_layout_matches<float>(lorenz96_defaults(), members, 60);
  }
  // Teams of 8 and 16 members on a 132-multiprocessor GPU (the benchmarks
  // E = 4096 and 65536 shapes), each with a last team of one to three.
  for (const int members : {4099, 4225}) {
    expect_resident_layout_matches<double>(lorenz96_defaults(), members, 3);
    expect_resident_layout_matches<float>(lorenz96_defaults(), members, 3);
  }
  const ModelParameters three = model_three_defaults();  // N = 960, K = 32, I = 12
  expect_resident_layout_matches<double>(three, 5, 20);
  expect_resident_layout_matches<float>(three, 5, 20);
}

// No small scale (I = 0: X = Z, Y = 0) and no coupling: model III is model II.
TEST(Lorenz05Model, ModelThreeWithoutSmallScaleIsModelTwo) {
  ModelParameters three = model(3, 120, 8, 0, 0.005, 15);
  three.coupling = 0;
  ModelParameters two = three;
  two.model = 2;
  const std::vector<std::vector<double>> start{noisy_state(two, 4), noisy_state(two, 5)};
  for (const Layout layout : {Layout::team, Layout::flat, Layout::vector, Layout::resident})
    EXPECT_EQ(max_difference(run<double>(three, start, 200, layout), run<double>(two, start, 200, layout)), 0);
}

// Lorenz 96, N = 40, F = 8: the long-run mean of x is about 2.3 and its
// standard deviation about 3.6.
TEST(Lorenz05Model, Lorenz96Climate) {
  const ModelParameters p = lorenz96_defaults();
  std::vector<std::vector<double>> start;
  for (unsigned e = 0; e < 16; ++e) start.push_back(noisy_state(p, 20 + e));
  const View2D<double> states = to_device<double>(start);
  Ensemble<double> ensemble(p, Layout::automatic);
  ensemble.advance(states, 2000);  // onto the attractor
  double sum = 0, squares = 0;
  std::int64_t count = 0;
  for (int sample = 0; sample < 400; ++sample) {
    ensemble.advance(states, 10);
    for (const auto& member : to_host(states))
      for (double v : member) {
        sum += v;
        squares += v * v;
        ++count;
      }
  }
  const double mean = sum / count, deviation = std::sqrt(squares / count - mean * mean);
  EXPECT_NEAR(mean, 2.3, 0.15);
  EXPECT_NEAR(deviation, 3.6, 0.15);
}

TEST(Lorenz05Model, BadParametersAreRefused) {
  // Refused with an OptionError naming `option` (the field) and saying `words`.
  const auto refused = [](ModelParameters p, const std::string& option, const std::string& words,
                          Layout layout = Layout::automatic) {
    try {
      Ensemble<double> ensemble(p, layout);
      ADD_FAILURE() << "accepted; expected an error about '" << words << "'";
    } catch (const OptionError& error) {
      EXPECT_EQ(error.option(), option) << error.what();
      EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
    }
  };
  // One changed field of model III's defaults.
  struct Change {
    void (*apply)(ModelParameters&);
    const char* option;
    const char* words;
  };
  for (const Change& change :
       {Change{[](ModelParameters& p) { p.K = 961; }, "K", "exceeds model_size"},
        Change{[](ModelParameters& p) { p.smooth_steps = 480; }, "smooth_steps", "must be < model_size / 2"},
        Change{[](ModelParameters& p) { p.delta_t = 0; }, "delta_t", "delta_t must be > 0"},
        Change{[](ModelParameters& p) { p.delta_t = -0.1; }, "delta_t", "delta_t must be > 0"},
        Change{[](ModelParameters& p) { p.model = 4; }, "model", "model must be 1, 2 or 3"}}) {
    ModelParameters p = model_three_defaults();
    change.apply(p);
    refused(p, change.option, change.words);
  }
  ModelParameters p = model_three_defaults();
  p.model_size = 100000;
  p.smooth_steps = 12;
  refused(p, "layout", "use layout flat", Layout::team);  // a 100000-point member does not fit the team scratch
  EXPECT_EQ(Ensemble<double>(p, Layout::automatic).layout(), host_execution ? Layout::vector : Layout::flat);
  p.model_size = 2000000;  // 64 MB of rows: more than any backend's thread scratch
  refused(p, "layout", "use layout flat", Layout::vector);
  refused(p, "layout", "use layout flat", Layout::resident);
  EXPECT_EQ(Ensemble<double>(p, Layout::automatic).layout(), Layout::flat);
}

}  // namespace
}  // namespace portasolve::lorenz05
