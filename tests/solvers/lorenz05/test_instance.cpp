// The overloads taking an execution space instance against those on the
// default instance, bit for bit: Ensemble(exec, ...) and advance(exec, ...)
// for models I-III and each layout, ensemble_statistics(exec, ...),
// partial_sums(exec, ...) and partial_squares(exec, ...), on small odd-sized
// problems. The instance's runs queue everything on the test's own instance
// (CUDA: a new non-blocking stream): the states' upload, the steps, the
// statistics and the read back,
// waited for by fencing that instance alone, so a launch or copy the solver
// left on another stream would race with the read.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/kokkos_compat.hpp"
#include "solvers/lorenz05/ensemble.hpp"
#include "tests/instance.hpp"
#include "tests/solvers/lorenz05/reference.hpp"

namespace portasolve::lorenz05 {
namespace {

using instance_tests::OwnInstance;
using instance_tests::read_on;
using testing::host_step;
using testing::model;
using testing::noisy_state;

using Members = std::vector<std::vector<double>>;

Members start_of(const ModelParameters& p, int members) {
  Members start;
  for (int e = 0; e < members; ++e) start.push_back(noisy_state(p, 70 + e));
  return start;
}

// Index (member * N + point) of the first value whose bits differ, -1 when none.
std::int64_t first_difference(const Members& a, const Members& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t e = 0; e < a.size(); ++e) {
    if (a[e].size() != b[e].size()) return static_cast<std::int64_t>(e * a[0].size());
    for (std::size_t i = 0; i < a[e].size(); ++i)
      if (std::memcmp(&a[e][i], &b[e][i], sizeof(double)) != 0) return static_cast<std::int64_t>(e * a[e].size() + i);
  }
  return -1;
}
std::int64_t first_difference(const std::vector<double>& a, const std::vector<double>& b) {
  return first_difference(Members{a}, Members{b});
}

template <class T>
Members members_of(const Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace>& host) {
  Members members(host.extent(0), std::vector<double>(host.extent(1)));
  for (std::size_t e = 0; e < members.size(); ++e)
    for (std::size_t i = 0; i < members[e].size(); ++i) members[e][i] = host(e, i);
  return members;
}

struct Run {
  Members states;  // after both advances
  EnsembleStatistics statistics;
  PartialSums sums, squares;  // a block of members 1 to the end
};

// The default instance, with Kokkos' global fences around the copies.
template <class T>
Run run_default(const ModelParameters& p, Layout layout, const Members& start, std::int64_t steps) {
  const View2D<T> states("states", start.size(), start[0].size());
  const auto host = Kokkos::create_mirror_view(states);
  for (std::size_t e = 0; e < start.size(); ++e)
    for (std::size_t i = 0; i < start[e].size(); ++i) host(e, i) = static_cast<T>(start[e][i]);
  Kokkos::deep_copy(states, host);
  Ensemble<T> ensemble(p, layout);
  EXPECT_EQ(ensemble.layout(), layout);
  ensemble.advance(states, steps);
  ensemble.advance(states, steps + 1);  // the work arrays again
  Run run;
  run.statistics = ensemble_statistics(states);
  const auto members = static_cast<std::int64_t>(states.extent(0));
  const auto tail = Kokkos::subview(states, std::make_pair(std::int64_t{1}, members), Kokkos::ALL);
  run.sums = partial_sums(View2D<T>(tail), MemberBlock{1, members - 1, members});
  run.squares = partial_squares(View2D<T>(tail), MemberBlock{1, members - 1, members}, run.statistics.mean);
  run.states = members_of<T>(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), states));
  return run;
}

// Everything on exec, nothing fenced but exec.
template <class T>
Run run_on(const ExecSpace& exec, const ModelParameters& p, Layout layout, const Members& start, std::int64_t steps) {
  const View2D<T> states(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("states")), start.size(),
                         start[0].size());
  const auto host = kokkos_compat::host_mirror_without_init(states);
  for (std::size_t e = 0; e < start.size(); ++e)
    for (std::size_t i = 0; i < start[e].size(); ++i) host(e, i) = static_cast<T>(start[e][i]);
  Kokkos::deep_copy(exec, states, host);  // queued: the steps must run after it
  Ensemble<T> ensemble(exec, p, layout);
  EXPECT_EQ(ensemble.layout(), layout);
  ensemble.advance(exec, states, steps);
  ensemble.advance(exec, states, steps + 1);
  Run run;
  run.statistics = ensemble_statistics(exec, states);  // ordered after the steps on exec
  const auto members = static_cast<std::int64_t>(states.extent(0));
  const auto tail = Kokkos::subview(states, std::make_pair(std::int64_t{1}, members), Kokkos::ALL);
  run.sums = partial_sums(exec, View2D<T>(tail), MemberBlock{1, members - 1, members});
  run.squares = partial_squares(exec, View2D<T>(tail), MemberBlock{1, members - 1, members}, run.statistics.mean);
  run.states = members_of<T>(read_on(exec, states));
  return run;
}

template <class T>
void expect_same(const ModelParameters& p, Layout layout, const Members& start, std::int64_t steps,
                 const ExecSpace& exec) {
  const std::string label = "model " + std::to_string(p.model) + " N " + std::to_string(p.model_size) + " K " +
                            std::to_string(p.K) + " I " + std::to_string(p.smooth_steps) + ", " + name_of(layout) +
                            (sizeof(T) == 4 ? " (float)" : " (double)");
  const Run on_instance = run_on<T>(exec, p, layout, start, steps);
  const Run on_default = run_default<T>(p, layout, start, steps);
  EXPECT_EQ(first_difference(on_instance.states, on_default.states), -1) << label;
  EXPECT_EQ(first_difference(on_instance.statistics.mean, on_default.statistics.mean), -1) << label;
  EXPECT_EQ(first_difference(on_instance.statistics.spread, on_default.statistics.spread), -1) << label;
  EXPECT_EQ(on_instance.sums.sums.size(), sum_nodes(on_instance.sums.block).size() * p.model_size) << label;
  EXPECT_EQ(first_difference(on_instance.sums.sums, on_default.sums.sums), -1) << label;
  EXPECT_EQ(first_difference(on_instance.squares.sums, on_default.squares.sums), -1) << label;
  // And the steps were taken: against the float64 host reference.
  Members expected = start;
  double scale = 0;
  for (auto& member : expected) {
    for (std::int64_t s = 0; s < 2 * steps + 1; ++s) host_step(p, member);
    for (const double v : member) scale = std::max(scale, std::fabs(v));
  }
  double worst = 0;
  for (std::size_t e = 0; e < expected.size(); ++e)
    for (std::size_t i = 0; i < expected[e].size(); ++i) {
      const double d = std::fabs(on_instance.states[e][i] - expected[e][i]);
      worst = std::isnan(d) ? INFINITY : std::max(worst, d);
    }
  EXPECT_LT(worst, (sizeof(T) == 4 ? 2e-4 : 1e-11) * scale) << label;
  // The statistics are of the advanced states: against a host loop, in double.
  const std::size_t members = on_instance.states.size();
  for (std::size_t i = 0; i < on_instance.states[0].size(); ++i) {
    double sum = 0;
    for (const auto& member : on_instance.states) sum += member[i];
    EXPECT_NEAR(on_instance.statistics.mean[i], sum / members, 1e-12 * scale) << label << ", point " << i;
  }
}

TEST(Lorenz05Instance, EveryModelAndLayoutEqualsTheDefaultInstanceBitForBit) {
  const std::vector<ModelParameters> models{model(1, 41, 1, 0, 0.05, 8), model(2, 45, 7, 0, 0.01, 12),
                                            model(2, 51, 8, 0, 0.01, 12), model(3, 75, 6, 4, 0.002, 15),
                                            model(3, 63, 5, 3, 0.002, 15)};
  const OwnInstance own;
  for (const ModelParameters& p : models) {
    const Members start = start_of(p, 3);
    for (const Layout layout : {Layout::team, Layout::flat, Layout::vector, Layout::resident}) {
      expect_same<double>(p, layout, start, 7, own.exec());
      expect_same<float>(p, layout, start, 7, own.exec());
    }
  }
}

// Two ensembles on two instances, each advanced before either is read (CUDA:
// two streams running at once).
TEST(Lorenz05Instance, TwoInstancesAtOnce) {
  const ModelParameters three = model(3, 75, 6, 4, 0.002, 15), one = model(1, 41, 1, 0, 0.05, 8);
  const Members start_three = start_of(three, 5), start_one = start_of(one, 4);
  const OwnInstance a, b;
  const auto upload = [](const ExecSpace& exec, const Members& start) {
    const View2D<double> states(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("states")), start.size(),
                                start[0].size());
    const auto host = kokkos_compat::host_mirror_without_init(states);
    for (std::size_t e = 0; e < start.size(); ++e)
      for (std::size_t i = 0; i < start[e].size(); ++i) host(e, i) = start[e][i];
    Kokkos::deep_copy(exec, states, host);
    exec.fence();  // `host` goes at return
    return states;
  };
  const View2D<double> states_three = upload(a.exec(), start_three), states_one = upload(b.exec(), start_one);
  Ensemble<double> flat(a.exec(), three, Layout::flat), team(b.exec(), one, Layout::team);
  flat.advance(a.exec(), states_three, 30);
  team.advance(b.exec(), states_one, 30);
  const Members result_one = members_of<double>(read_on(b.exec(), states_one));
  const Members result_three = members_of<double>(read_on(a.exec(), states_three));
  const auto on_default = [](const ModelParameters& p, Layout layout, const Members& start) {
    const View2D<double> states("states", start.size(), start[0].size());
    const auto host = Kokkos::create_mirror_view(states);
    for (std::size_t e = 0; e < start.size(); ++e)
      for (std::size_t i = 0; i < start[e].size(); ++i) host(e, i) = start[e][i];
    Kokkos::deep_copy(states, host);
    Ensemble<double>(p, layout).advance(states, 30);
    return members_of<double>(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), states));
  };
  EXPECT_EQ(first_difference(result_three, on_default(three, Layout::flat, start_three)), -1);
  EXPECT_EQ(first_difference(result_one, on_default(one, Layout::team, start_one)), -1);
  EXPECT_NE(first_difference(result_one, start_one), -1);  // it moved
}

TEST(Lorenz05Instance, RefusalsAreTheDefaultOnes) {
  const OwnInstance own;
  ModelParameters p = model(3, 75, 6, 4, 0.002, 15);
  p.K = 76;
  try {
    Ensemble<double> ensemble(own.exec(), p, Layout::flat);
    ADD_FAILURE() << "K > N accepted";
  } catch (const OptionError& error) {
    EXPECT_EQ(error.option(), "K") << error.what();
  }
  p.K = 6;
  Ensemble<double> ensemble(own.exec(), p, Layout::flat);
  const View2D<double> wrong("wrong", 2, 74), none("none", 0, 75);
  EXPECT_THROW(ensemble.advance(own.exec(), wrong, 1), std::invalid_argument);
  EXPECT_THROW(partial_sums(own.exec(), none, MemberBlock{0, 1, 1}), std::invalid_argument);  // no rows for it
}

}  // namespace
}  // namespace portasolve::lorenz05
