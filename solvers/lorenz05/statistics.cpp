#include "solvers/lorenz05/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "core/grid_range.hpp"
#include "core/kokkos_compat.hpp"
#include "solvers/lorenz05/detail/member_sums.hpp"

namespace portasolve::lorenz05 {

using namespace detail;

namespace {

// The root's level: the least with 2^level >= members.
int root_level(const std::int64_t members) {
  int level = 0;
  while ((std::int64_t{1} << level) < members) ++level;
  return level;
}

void check_block(const MemberBlock& block, const char* where) {
  if (block.first < 0 || block.count < 0 || block.members < 0 || block.first + block.count > block.members) {
    throw std::invalid_argument(std::string(where) + ": members " + std::to_string(block.first) + " to " +
                                std::to_string(block.first + block.count) + " are not within an ensemble of " +
                                std::to_string(block.members));
  }
}

// The nodes at pass level `level` (a multiple of pass_shift) whose members
// all lie in the block: [low, high). At the ensemble's end a node reaching
// past it counts (its missing members are absent, not elsewhere).
struct LevelRange {
  std::int64_t low, high;
  std::int64_t rows() const { return high - low; }
};
LevelRange level_range(const MemberBlock& block, const int level) {
  const std::int64_t size = std::int64_t{1} << level, end = block.first + block.count;
  const std::int64_t low = (block.first + size - 1) / size;
  const std::int64_t high = end == block.members ? (end + size - 1) / size : end / size;
  return {low, std::max(low, high)};
}

// The flat walks count points in an int.
GridRectangle rows_of(const std::int64_t rows, const std::int64_t points) {
  if (static_cast<double>(rows) * static_cast<double>(points) > std::numeric_limits<int>::max()) {
    throw SolverError("lorenz05 statistics: " + std::to_string(rows) + " x " + std::to_string(points) +
                      " partial sums are more than a launch walks (2^31 - 1)");
  }
  return GridRectangle{0, 0, static_cast<int>(rows), static_cast<int>(points)};
}

// Launches NodeSums for `wanted` (indices into nodes, all of one pass level
// whose nodes start at `low`), node_capacity at a time.
template <class Children>
void sum_wanted(const ExecSpace& exec, const Children& children, const View2D<double>& out,
                const std::vector<SumNode>& nodes, const std::vector<int>& wanted, const int pass_level,
                const LevelRange& range) {
  for (std::size_t next = 0; next < wanted.size(); next += node_capacity) {
    NodeSums<Children> kernel{children, out, {}, {}, {}};
    const int launch = static_cast<int>(std::min<std::size_t>(node_capacity, wanted.size() - next));
    for (int c = 0; c < launch; ++c) {
      const SumNode& node = nodes[wanted[next + c]];
      const int below = node.level - pass_level;  // < pass_shift
      const std::int64_t first = node.index << below;
      kernel.first[c] = first - range.low;
      kernel.count[c] = static_cast<int>(std::min<std::int64_t>(std::int64_t{1} << below, range.high - first));
      kernel.row[c] = wanted[next + c];
    }
    for_rectangle(exec, "lorenz05_node_sums", rows_of(launch, out.extent(1)), kernel);
  }
}

// The block's partial sums of `leaves` (its members' values or squared
// deviations) at sum_nodes(block).
template <class Leaves>
PartialSums block_sums(const ExecSpace& exec, const Leaves& leaves, const MemberBlock& block, const int n) {
  PartialSums result{block, n, {}};
  const std::vector<SumNode> nodes = sum_nodes(block);
  if (nodes.empty() || n == 0) {
    result.sums.assign(nodes.size() * static_cast<std::size_t>(n), 0.0);
    return result;
  }
  int top_pass = 0;
  for (const SumNode& node : nodes) top_pass = std::max(top_pass, node.level / pass_shift);
  // Pass levels 1..top_pass, each every complete node of its level.
  std::vector<View2D<double>> levels(static_cast<std::size_t>(top_pass) + 1);
  for (int j = 1; j <= top_pass; ++j) {
    const LevelRange below = level_range(block, (j - 1) * pass_shift), range = level_range(block, j * pass_shift);
    levels[j] = View2D<double>(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string("lorenz05_sums")),
                               range.rows(), n);
    const std::int64_t first_child = range.low * pass_fan - below.low;
    if (j == 1) {
      for_rectangle(exec, "lorenz05_climb_sums", rows_of(range.rows(), n),
                    ClimbPass<Leaves>{leaves, levels[j], first_child, below.rows()});
    } else {
      for_rectangle(exec, "lorenz05_climb_sums", rows_of(range.rows(), n),
                    ClimbPass<LevelSums>{LevelSums{levels[j - 1]}, levels[j], first_child, below.rows()});
    }
  }
  const View2D<double> out(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string("lorenz05_node_sums")),
                           nodes.size(), n);
  for (int j = 0; j <= top_pass; ++j) {
    std::vector<int> wanted;
    for (std::size_t c = 0; c < nodes.size(); ++c)
      if (nodes[c].level / pass_shift == j) wanted.push_back(static_cast<int>(c));
    if (wanted.empty()) continue;
    const LevelRange range = level_range(block, j * pass_shift);
    if (j == 0) {
      sum_wanted(exec, leaves, out, nodes, wanted, 0, range);
    } else {
      sum_wanted(exec, LevelSums{levels[j]}, out, nodes, wanted, j * pass_shift, range);
    }
  }
  const auto host = kokkos_compat::host_mirror_without_init(out);
  Kokkos::deep_copy(exec, host, out);
  exec.fence();
  result.sums.assign(host.data(), host.data() + host.size());
  return result;
}

template <class T>
void check_states(const View2D<T>& states, const MemberBlock& block, const char* where) {
  check_block(block, where);
  if (static_cast<std::int64_t>(states.extent(0)) != block.count) {
    throw std::invalid_argument(std::string(where) + ": states have " + std::to_string(states.extent(0)) +
                                " members, the block " + std::to_string(block.count));
  }
}

}  // namespace

std::vector<SumNode> sum_nodes(const MemberBlock& block) {
  check_block(block, "sum_nodes");
  const int top = root_level(block.members);
  const std::int64_t end = block.first + block.count;
  const bool to_the_end = end == block.members;
  std::vector<SumNode> nodes;
  // From the left, the largest node starting here that lies in the block:
  // its parent starts earlier or reaches past the block (or it is the root).
  for (std::int64_t p = block.first; p < end;) {
    int level = 0;
    while (level < top && p % (std::int64_t{2} << level) == 0 && (to_the_end || p + (std::int64_t{2} << level) <= end))
      ++level;
    nodes.push_back({level, p >> level});
    p = std::min(p + (std::int64_t{1} << level), block.members);
  }
  return nodes;
}

template <class T>
PartialSums partial_sums(const ExecSpace& exec, const View2D<T>& states, const MemberBlock& block) {
  check_states(states, block, "partial_sums");
  return block_sums(exec, MemberValues<T>{states}, block, static_cast<int>(states.extent(1)));
}

template <class T>
PartialSums partial_sums(const View2D<T>& states, const MemberBlock& block) {
  return partial_sums(ExecSpace(), states, block);
}

template <class T>
PartialSums partial_squares(const ExecSpace& exec, const View2D<T>& states, const MemberBlock& block,
                            const std::vector<double>& mean) {
  check_states(states, block, "partial_squares");
  const int n = static_cast<int>(states.extent(1));
  if (mean.size() != static_cast<std::size_t>(n)) {
    throw std::invalid_argument("partial_squares: a mean of " + std::to_string(mean.size()) + " points for states of " +
                                std::to_string(n));
  }
  const View1D<double> device_mean(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string("lorenz05_mean")),
                                   n);
  Kokkos::deep_copy(exec, device_mean,
                    Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(mean.data(), n));
  // block_sums fences exec before returning, so `mean` is read by then.
  return block_sums(exec, MemberDeviations<T>{states, device_mean}, block, n);
}

template <class T>
PartialSums partial_squares(const View2D<T>& states, const MemberBlock& block, const std::vector<double>& mean) {
  return partial_squares(ExecSpace(), states, block, mean);
}

std::vector<double> complete_sums(const std::vector<PartialSums>& blocks) {
  if (blocks.empty()) throw std::invalid_argument("complete_sums: no blocks");
  const std::int64_t members = blocks[0].block.members, n = blocks[0].points;
  // The nodes in member order on a stack, a node and the one below it
  // replaced by their parent when they are its two halves (binary carries):
  // the stack holds the largest nodes of the members so far, largest first.
  struct Pending {
    SumNode node;
    std::vector<double> sums;
  };
  std::vector<Pending> stack;
  std::int64_t next = 0;
  for (const PartialSums& part : blocks) {
    if (part.block.members != members || part.points != n)
      throw std::invalid_argument("complete_sums: blocks of different ensembles or N");
    if (part.block.first != next) {
      throw std::invalid_argument("complete_sums: a block starts at member " + std::to_string(part.block.first) +
                                  ", not " + std::to_string(next) + " where the blocks before end");
    }
    const std::vector<SumNode> nodes = sum_nodes(part.block);
    if (part.sums.size() != nodes.size() * static_cast<std::size_t>(n)) {
      throw std::invalid_argument("complete_sums: a block holds " + std::to_string(part.sums.size()) +
                                  " sums, its nodes " + std::to_string(nodes.size() * static_cast<std::size_t>(n)));
    }
    for (std::size_t c = 0; c < nodes.size(); ++c) {
      const auto first = part.sums.begin() + static_cast<std::ptrdiff_t>(c * static_cast<std::size_t>(n));
      stack.push_back({nodes[c], std::vector<double>(first, first + n)});
      while (stack.size() >= 2) {
        Pending& left = stack[stack.size() - 2];
        const Pending& right = stack.back();
        if (left.node.level != right.node.level || left.node.index % 2 != 0 || left.node.index + 1 != right.node.index)
          break;
        for (std::int64_t i = 0; i < n; ++i) left.sums[i] = left.sums[i] + right.sums[i];
        left.node = {left.node.level + 1, left.node.index / 2};
        stack.pop_back();
      }
    }
    next = part.block.first + part.block.count;
  }
  if (next != members) {
    throw std::invalid_argument("complete_sums: the blocks end at member " + std::to_string(next) + " of " +
                                std::to_string(members));
  }
  if (stack.empty()) return std::vector<double>(static_cast<std::size_t>(n), 0.0);
  // At the end the nodes left decrease in size: each is the left half of an
  // ancestor whose right half holds the nodes after it, so they add from the
  // right.
  std::vector<double> total = std::move(stack.back().sums);
  for (std::size_t k = stack.size() - 1; k-- > 0;)
    for (std::int64_t i = 0; i < n; ++i) total[i] = stack[k].sums[i] + total[i];
  return total;
}

std::vector<double> ensemble_mean(const std::vector<double>& sums, const std::int64_t members) {
  std::vector<double> mean(sums.size());
  for (std::size_t i = 0; i < sums.size(); ++i) mean[i] = sums[i] / static_cast<double>(members);
  return mean;
}

std::vector<double> ensemble_spread(const std::vector<double>& squares, const std::int64_t members) {
  std::vector<double> spread(squares.size(), 0.0);
  if (members > 1) {
    for (std::size_t i = 0; i < squares.size(); ++i)
      spread[i] = std::sqrt(squares[i] / static_cast<double>(members - 1));
  }
  return spread;
}

// One block of all members: the same partial sums and completion as over
// ranks, so the same bits.
template <class T>
EnsembleStatistics ensemble_statistics(const ExecSpace& exec, const View2D<T>& states) {
  const auto members = static_cast<std::int64_t>(states.extent(0));
  const MemberBlock all{0, members, members};
  EnsembleStatistics result;
  result.mean = ensemble_mean(complete_sums({partial_sums(exec, states, all)}), members);
  result.spread = ensemble_spread(complete_sums({partial_squares(exec, states, all, result.mean)}), members);
  return result;
}

template <class T>
EnsembleStatistics ensemble_statistics(const View2D<T>& states) {
  return ensemble_statistics(ExecSpace(), states);
}

#define PORTASOLVE_LORENZ05_STATISTICS(T)                                                         \
  template EnsembleStatistics ensemble_statistics<T>(const ExecSpace&, const View2D<T>&);         \
  template EnsembleStatistics ensemble_statistics<T>(const View2D<T>&);                           \
  template PartialSums partial_sums<T>(const ExecSpace&, const View2D<T>&, const MemberBlock&);   \
  template PartialSums partial_sums<T>(const View2D<T>&, const MemberBlock&);                     \
  template PartialSums partial_squares<T>(const ExecSpace&, const View2D<T>&, const MemberBlock&, \
                                          const std::vector<double>&);                            \
  template PartialSums partial_squares<T>(const View2D<T>&, const MemberBlock&, const std::vector<double>&);
PORTASOLVE_LORENZ05_STATISTICS(float)
PORTASOLVE_LORENZ05_STATISTICS(double)
#undef PORTASOLVE_LORENZ05_STATISTICS

}  // namespace portasolve::lorenz05
