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
// a time: each point's sums are chains of dependent adds). All give the same
// numbers (the same operations in the same order per point). `automatic`
// picks vector on host backends, team on GPUs when the scratch fits, else flat.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/spaces.hpp"
#include "solvers/lorenz05/parameters.hpp"

namespace portasolve::lorenz05 {

enum class Layout { automatic, team, flat, vector };
const std::vector<std::string>& layout_names();  // automatic, team, flat, vector
Layout layout_from_name(const std::string& name);
std::string name_of(Layout layout);

template <class T>
class Ensemble {
 public:
  // Throws std::invalid_argument for bad parameters, or `team` (`vector`)
  // when a member's stage state does not fit the backend's team (thread) scratch.
  Ensemble(const ModelParameters& parameters, Layout layout);
  ~Ensemble();
  Ensemble(Ensemble&&) noexcept;

  // Advances every row of `states` (E x N) by `steps` RK4 steps, in place.
  void advance(const View2D<T>& states, std::int64_t steps);

  Layout layout() const;  // the one in use (never automatic)

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Per point over the members: mean and spread (sample standard deviation,
// 0 for one member), summed in double.
struct EnsembleStatistics {
  std::vector<double> mean, spread;  // N each
};
template <class T>
EnsembleStatistics ensemble_statistics(const View2D<T>& states);

// The same for members held apart (blocks on MPI ranks): each block's count,
// mean and sum of squared deviations per point (partial_statistics), merged
// block after block in a fixed order by Chan et al.'s pairwise formula, then
// finished into mean and spread. The result matches ensemble_statistics of
// all members to rounding, not bit for bit.
struct PartialStatistics {
  std::int64_t members = 0;
  std::vector<double> mean, squares;  // N each
};
template <class T>
PartialStatistics partial_statistics(const View2D<T>& states);
// `into` becomes the statistics of its members and `next`'s together.
void merge_statistics(PartialStatistics& into, const PartialStatistics& next);
EnsembleStatistics finish_statistics(const PartialStatistics& all);

}  // namespace portasolve::lorenz05
