#include "solvers/lorenz05/ensemble.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/grid_range.hpp"
#include "core/kokkos_compat.hpp"
#include "core/names.hpp"
#include "solvers/lorenz05/detail/kernels.hpp"
#include "solvers/lorenz05/detail/resident_steps.hpp"
#include "solvers/lorenz05/detail/tendency.hpp"
#include "solvers/lorenz05/detail/warp_steps.hpp"
#include "solvers/smoothing/running_smoother.hpp"

namespace portasolve::lorenz05 {

using namespace detail;

PORTASOLVE_NAMED_ENUM(Layout, layout_names, layout_from_name, "ensemble layout", "automatic", "team", "flat", "vector",
                      "resident")

template <class T>
struct Ensemble<T>::State {
  ModelParameters parameters;
  Coefficients<T> co;
  Layout layout = Layout::team;
  // Work arrays (members x N), kept between advance() calls: a driver advances
  // once per snapshot, and device allocations synchronise.
  View2D<T> increment, input, next_input, large, average;

  View2D<T> work(View2D<T>& view, const char* label, int members) {
    if (static_cast<int>(view.extent(0)) != members)
      view = View2D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), members, co.n);
    return view;
  }
};

template <class T>
Ensemble<T>::Ensemble(const ModelParameters& parameters, Layout layout) : Ensemble(ExecSpace(), parameters, layout) {}

template <class T>
Ensemble<T>::Ensemble(const ExecSpace& exec, const ModelParameters& parameters, Layout layout)
    : state_(std::make_unique<State>()) {
  check(parameters);
  State& s = *state_;
  s.parameters = parameters;
  Coefficients<T>& co = s.co;
  co.model = parameters.model;
  co.n = parameters.model_size;
  co.k = effective_k(parameters);
  co.primed = co.k % 2 == 0;
  co.half = co.primed ? co.k / 2 : (co.k - 1) / 2;
  co.smooth_steps = parameters.model == 3 ? parameters.smooth_steps : 0;
  co.forcing = static_cast<T>(parameters.forcing);
  co.b = static_cast<T>(parameters.space_time_scale);
  co.c = static_cast<T>(parameters.coupling);
  co.dt = static_cast<T>(parameters.delta_t);
  if ((co.k & (co.k - 1)) == 0) co.power_of_two_reciprocal_k = T(1) / static_cast<T>(co.k);
  const std::vector<double> weights = smoothing::running_smoother_weights(co.smooth_steps);
  View1D<T> smoother(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lorenz05_smoother")), weights.size());
  const auto host = kokkos_compat::host_mirror_without_init(smoother);
  for (std::size_t j = 0; j < weights.size(); ++j) host(j) = static_cast<T>(weights[j]);
  Kokkos::deep_copy(exec, smoother, host);
  exec.fence();  // `host` is freed at return
  co.smoother = smoother;

  const std::size_t limit = static_cast<std::size_t>(TeamSteps<T>::Policy::scratch_size_max(0));
  const bool fits = TeamSteps<T>::scratch_bytes(co) <= limit;
  if (layout == Layout::team && !fits)
    throw OptionError("layout",
                      "layout team: a member's stage state (" + std::to_string(TeamSteps<T>::scratch_bytes(co)) +
                          " bytes for N = " + std::to_string(co.n) + ") exceeds the team scratch of this backend (" +
                          std::to_string(limit) + " bytes); use layout flat");
  const std::size_t vector_limit =
      static_cast<std::size_t>(VectorSteps<T>::Policy::scratch_size_max(VectorSteps<T>::scratch_level));
  const bool vector_fits = VectorSteps<T>::scratch_bytes(co) <= vector_limit;
  if (layout == Layout::vector && !vector_fits)
    throw OptionError("layout",
                      "layout vector: a member's stage state (" + std::to_string(VectorSteps<T>::scratch_bytes(co)) +
                          " bytes for N = " + std::to_string(co.n) + ") exceeds the thread scratch of this backend (" +
                          std::to_string(vector_limit) + " bytes); use layout flat");
  const std::size_t resident_limit = ResidentSteps<T>::scratch_limit();
  const bool resident_fits = ResidentSteps<T>::padded_bytes(co, 1) <= resident_limit;
  if (layout == Layout::resident && !resident_fits)
    throw OptionError("layout", "layout resident: a member's padded stage rows (" +
                                    std::to_string(ResidentSteps<T>::padded_bytes(co, 1)) + " bytes for N = " +
                                    std::to_string(co.n) + ") exceed the team scratch of this backend (" +
                                    std::to_string(resident_limit) + " bytes); use layout flat");
  // Hosts: the vector layout (a member per thread, points in SIMD lanes);
  // GPUs: blocks of points per thread, several members per team where their
  // rows fit.
  if (layout == Layout::automatic)
    s.layout = host_execution ? (vector_fits ? Layout::vector
                                 : fits      ? Layout::team
                                             : Layout::flat)
                              : (resident_fits ? Layout::resident
                                 : fits        ? Layout::team
                                               : Layout::flat);
  else
    s.layout = layout;
}

namespace {
// The resident layout's teams. GPUs: a thread per block of
// ResidentSteps::points consecutive points, up to resident_member_threads
// for a member (a few blocks per thread beyond); then more members per team
// (a power of two up to resident_max_lanes) while the team stays within
// resident_team_threads threads, at least two teams per multiprocessor
// remain and the scratch fits (one member may take more threads than that:
// 192 for N = 960). Hosts: a team of one thread and one member.
constexpr int resident_member_threads = 256;
constexpr int resident_team_threads = 128;
constexpr int resident_max_lanes = 32;  // a warp of one block's members
constexpr int threads_per_multiprocessor = 2048;

template <class T>
ResidentShape resident_shape(const ExecSpace& exec, const Coefficients<T>& co, const int members,
                             const std::size_t limit) {
  ResidentShape shape;
  if (!host_execution) {
    const int block_threads = std::min(ResidentSteps<T>::blocks(co), resident_member_threads);
    const int wanted_teams = std::max(1, 2 * static_cast<int>(exec.concurrency()) / threads_per_multiprocessor);
    while (shape.lanes < resident_max_lanes && block_threads * shape.lanes * 2 <= resident_team_threads &&
           members / (shape.lanes * 2) >= wanted_teams &&
           ResidentSteps<T>::padded_bytes(co, shape.lanes * 2) <= limit) {
      shape.lanes *= 2;
      ++shape.lane_shift;
    }
    shape.threads = block_threads * shape.lanes;
  }
  shape.owned_in_scratch =
      ResidentSteps<T>::padded_bytes(co, shape.lanes) + ResidentSteps<T>::owned_bytes(co, shape.lanes) <= limit;
  return shape;
}

// Launches the resident layout: WarpSteps where it applies (Lorenz 96 on
// GPUs), else ResidentSteps. (State is Ensemble's, deduced.)
template <class T, class State>
void advance_resident(const ExecSpace& exec, State& s, const View2D<T>& states, std::int64_t steps) {
  const int members = static_cast<int>(states.extent(0));
  if (WarpSteps<T>::applies(s.co)) {
    const int shift = WarpSteps<T>::segment_shift_for(s.co);
    Kokkos::parallel_for("lorenz05_warp_steps", WarpSteps<T>::policy(exec, members, shift),
                         WarpSteps<T>{s.co, states, steps, shift});
    return;
  }
  using Policy = typename ResidentSteps<T>::Policy;
  constexpr int level = ResidentSteps<T>::scratch_level;
  ResidentSteps<T> kernel{s.co, states, View2D<T>(), steps,
                          resident_shape(exec, s.co, members, ResidentSteps<T>::scratch_limit())};
  if (!kernel.shape.owned_in_scratch) kernel.increment = s.work(s.increment, "lorenz05_increment", members);
  const int teams = (members + kernel.shape.lanes - 1) / kernel.shape.lanes;
  const int most = Policy(exec, teams, 1).team_size_max(kernel, Kokkos::ParallelForTag());
  const Policy policy =
      Policy(exec, teams, std::min(kernel.shape.threads, most))
          .set_scratch_size(level, Kokkos::PerTeam(ResidentSteps<T>::scratch_bytes(s.co, kernel.shape)));
  Kokkos::parallel_for("lorenz05_resident_steps", policy, kernel);
}
}  // namespace

template <class T>
Ensemble<T>::~Ensemble() = default;
template <class T>
Ensemble<T>::Ensemble(Ensemble&&) noexcept = default;

template <class T>
Layout Ensemble<T>::layout() const {
  return state_->layout;
}

template <class T>
void Ensemble<T>::advance(const View2D<T>& states, std::int64_t steps) {
  advance(ExecSpace(), states, steps);
}

template <class T>
void Ensemble<T>::advance(const ExecSpace& exec, const View2D<T>& states, std::int64_t steps) {
  State& s = *state_;
  const int members = static_cast<int>(states.extent(0));
  if (static_cast<int>(states.extent(1)) != s.co.n)
    throw std::invalid_argument("lorenz05: states have " + std::to_string(states.extent(1)) + " points, the model " +
                                std::to_string(s.co.n));
  if (members == 0 || steps <= 0) return;
  if (s.layout == Layout::vector) {  // its increment stays in thread scratch
    advance_vector(exec, s.co, states, steps);
    return;
  }
  if (s.layout == Layout::resident) {
    advance_resident(exec, s, states, steps);
    return;
  }
  const View2D<T> increment = s.work(s.increment, "lorenz05_increment", members);
  if (s.layout == Layout::team) {
    using Policy = typename TeamSteps<T>::Policy;
    const int team = host_execution ? 1 : std::min(256, ((s.co.n + 31) / 32) * 32);
    const Policy policy =
        Policy(exec, members, team).set_scratch_size(0, Kokkos::PerTeam(TeamSteps<T>::scratch_bytes(s.co)));
    Kokkos::parallel_for("lorenz05_team_steps", policy, TeamSteps<T>{s.co, states, increment, steps});
    return;
  }
  View2D<T> input = s.work(s.input, "lorenz05_input", members);
  View2D<T> next_input = s.work(s.next_input, "lorenz05_next_input", members);
  const View2D<T> large = s.co.two_scale() ? s.work(s.large, "lorenz05_large", members) : View2D<T>();
  const View2D<T> average = s.work(s.average, "lorenz05_average", members);
  Kokkos::deep_copy(exec, input, states);
  const GridRectangle all{0, 0, members, s.co.n};
  for (std::int64_t step = 0; step < steps; ++step)
    for (int stage = 0; stage < 4; ++stage) {
      const FlatStage<T> kernel{s.co, states, input, next_input, large, average, increment, stage};
      if (s.co.two_scale()) for_rectangle(exec, "lorenz05_smooth", all, Tagged<FlatStage<T>, SmoothStage>{kernel});
      for_rectangle(exec, "lorenz05_average", all, Tagged<FlatStage<T>, AverageStage>{kernel});
      for_rectangle(exec, "lorenz05_rate", all, Tagged<FlatStage<T>, RateStage>{kernel});
      std::swap(input, next_input);
    }
}

template class Ensemble<float>;
template class Ensemble<double>;

}  // namespace portasolve::lorenz05
