#pragma once
// E members of one model integrated together by RK4, each row of an E x N
// View a member's state.
//
// Layouts: `team`: one team per member keeps its stage state in team scratch
// and runs many steps per launch, barriers between the RK stages (nothing
// returns to the host between steps); `flat`: one kernel per sub-stage
// (smooth, average, rate) over all members' points, the straightforward GPU
// port and the benchmarks' baseline; `vector`: one thread per member for
// many steps per launch, each sub-stage computing a block of consecutive
// points at once in SIMD lanes (for CPUs, where the others compute a point at
// a time: each point's sums are chains of dependent adds); `resident`: several
// members per team for many steps per launch, a thread per block of 5
// consecutive points whose sums slide along the row, every stage row, the state and the RK increment in
// team scratch for the whole window (the state and increment in device
// memory where they do not fit beside the rows), rows padded with wrapped
// copies of their ends, one barrier per sub-stage (for GPUs). All give the
// same numbers (the same operations in the same order per point, each
// rounded as written: detail/rounding.hpp).
// `automatic` picks vector on host backends; on GPUs resident when a
// member's rows fit the team scratch, else team when its stage state does,
// else flat.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/spaces.hpp"
#include "solvers/lorenz05/parameters.hpp"
#include "solvers/lorenz05/statistics.hpp"  // the ensembles' statistics, declared here before

namespace portasolve::lorenz05 {

enum class Layout { automatic, team, flat, vector, resident };
const std::vector<std::string>& layout_names();  // automatic, team, flat, vector, resident
Layout layout_from_name(const std::string& name);
std::string name_of(Layout layout);

// Execution space instances: each entry point below that touches the device
// has an overload taking `exec` first, whose kernels and copies all run on
// exec, in order after the work already queued there; the caller fences its
// own earlier work on other instances (states written there, say). The
// overloads without `exec` run on ExecSpace(), the default instance. One
// Ensemble's work arrays serve all its advance() calls: calls on different
// instances must not overlap (fence the one before).
template <class T>
class Ensemble {
 public:
  // Throws OptionError (an std::invalid_argument naming the parameter, or
  // "layout") for bad parameters, or `team` (`vector`, `resident`) when a
  // member's stage state (padded rows) does not fit the backend's team
  // (thread, team) scratch. The smoother's
  // weights are copied to the device on exec, which is fenced before return.
  Ensemble(const ExecSpace& exec, const ModelParameters& parameters, Layout layout);
  Ensemble(const ModelParameters& parameters, Layout layout);
  ~Ensemble();
  Ensemble(Ensemble&&) noexcept;

  // Advances every row of `states` (E x N) by `steps` RK4 steps, in place.
  // Asynchronous: it may return before exec has finished, so fence exec (or
  // deep_copy on exec and fence it) before the host reads states. Throws
  // std::invalid_argument when states' rows are not N points long.
  void advance(const ExecSpace& exec, const View2D<T>& states, std::int64_t steps);
  void advance(const View2D<T>& states, std::int64_t steps);

  Layout layout() const;  // the one in use (never automatic)

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace portasolve::lorenz05
