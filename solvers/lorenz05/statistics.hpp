#pragma once
// Ensemble statistics per point over the members: mean and spread (sample
// standard deviation), summed in double in one fixed order that does not
// depend on how the members are split into blocks (MPI ranks), so every
// split gives the bits of one block of all members.
//
// The order: a pairwise sum over the members' indices. The tree's leaves are
// members 0..E-1; node (level l, index k) is the sum of members
// [k 2^l, (k + 1) 2^l), its left half plus its right half; a half starting at
// or past E is absent and the node is its left half alone; the root is the
// node of level ceil(log2 E) (index 0). The spread takes two passes, each
// such a sum: the mean first, then the squared deviations from it.
//
// Blocks held apart: a block of consecutive members holds every node whose
// members all lie inside it; its partial sums are the sums of the largest of
// those (sum_nodes: at most two per level, so O(log E)). The partial sums of
// every block, taken in member order, complete the tree with the same
// additions as those of one block of all members (complete_sums).
#include <cstdint>
#include <vector>

#include "core/spaces.hpp"

namespace portasolve::lorenz05 {

struct EnsembleStatistics {
  std::vector<double> mean, spread;  // N each; spread 0 for one member
};

// Computed on exec, which is fenced before return (the result is on the
// host). No members: mean NaN, spread 0.
template <class T>
EnsembleStatistics ensemble_statistics(const ExecSpace& exec, const View2D<T>& states);
template <class T>
EnsembleStatistics ensemble_statistics(const View2D<T>& states);

// Members [first, first + count) of an ensemble of `members`.
struct MemberBlock {
  std::int64_t first = 0, count = 0, members = 0;
};

// A node of the tree: members [index 2^level, (index + 1) 2^level), those
// past the ensemble's end left out.
struct SumNode {
  int level = 0;
  std::int64_t index = 0;
};

// The largest nodes inside `block`, in member order, together covering it
// (none for an empty block). Throws std::invalid_argument for a block
// outside 0..members.
std::vector<SumNode> sum_nodes(const MemberBlock& block);

struct PartialSums {
  MemberBlock block;
  std::int64_t points = 0;   // N
  std::vector<double> sums;  // sum_nodes(block).size() x N, node after node
};

// The sums of `states` (the block's members, block.count x N) at
// sum_nodes(block), in double. Computed on exec, fenced before return;
// throws std::invalid_argument when states do not have block.count rows or
// the block is outside 0..members.
template <class T>
PartialSums partial_sums(const ExecSpace& exec, const View2D<T>& states, const MemberBlock& block);
template <class T>
PartialSums partial_sums(const View2D<T>& states, const MemberBlock& block);
// The same for the squared deviations (x - mean)^2, `mean` (N) the whole
// ensemble's (ensemble_mean): the spread's second pass.
template <class T>
PartialSums partial_squares(const ExecSpace& exec, const View2D<T>& states, const MemberBlock& block,
                            const std::vector<double>& mean);
template <class T>
PartialSums partial_squares(const View2D<T>& states, const MemberBlock& block, const std::vector<double>& mean);

// The sums over all members (N): `blocks` are every block's partial sums in
// member order, the first starting at member 0, each the next where the one
// before ends, the last at the end. Host only. Throws std::invalid_argument
// for blocks that do not tile the ensemble so, or of different N or
// ensembles, or no blocks. Zeros for an ensemble of no members.
std::vector<double> complete_sums(const std::vector<PartialSums>& blocks);

// sums / E, and sqrt(squares / (E - 1)) (0 for one member).
std::vector<double> ensemble_mean(const std::vector<double>& sums, std::int64_t members);
std::vector<double> ensemble_spread(const std::vector<double>& squares, std::int64_t members);

}  // namespace portasolve::lorenz05
