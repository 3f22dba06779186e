// The ensemble statistics' sums over members (statistics.hpp): the device's
// partial sums and their completion against a float64 host sum of the same
// pairwise tree written here, bit for bit; members split into blocks at any
// points give the bits of one block; the mean and spread against a plain
// two-pass float64 host loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "solvers/lorenz05/statistics.hpp"
#include "tests/solvers/lorenz05/reference.hpp"

namespace portasolve::lorenz05 {
namespace {

using Members = std::vector<std::vector<double>>;  // member x point

template <class T>
View2D<T> to_device(const Members& members, std::size_t first, std::size_t count, std::size_t n) {
  View2D<T> states("states", count, n);
  auto host = Kokkos::create_mirror_view(states);
  for (std::size_t e = 0; e < count; ++e)
    for (std::size_t i = 0; i < n; ++i) host(e, i) = static_cast<T>(members[first + e][i]);
  Kokkos::deep_copy(states, host);
  return states;
}

template <class T>
View2D<T> to_device(const Members& members) {
  return to_device<T>(members, 0, members.size(), members.empty() ? 1 : members[0].size());
}

// Values spread over 2^-30..2^30 with both signs: every order of adding them
// rounds differently.
Members rough_members(std::int64_t count, int n, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-30, 30);
  Members members(static_cast<std::size_t>(count), std::vector<double>(n));
  for (auto& member : members)
    for (double& v : member) v = std::ldexp(mantissa(generator), exponent(generator));
  return members;
}

// Leaf values at point i as the sums take them: T's value in double.
template <class T>
std::vector<double> column(const Members& members, int i) {
  std::vector<double> values;
  for (const auto& member : members) values.push_back(static_cast<double>(static_cast<T>(member[i])));
  return values;
}

// The tree of statistics.hpp, written from its definition: node (level,
// index) is its left half plus its right half, a half starting at or past
// the end absent.
double tree(const std::vector<double>& leaves, int level, std::int64_t index) {
  if (level == 0) return leaves[static_cast<std::size_t>(index)];
  const double left = tree(leaves, level - 1, 2 * index);
  if (((2 * index + 1) << (level - 1)) >= static_cast<std::int64_t>(leaves.size())) return left;
  return left + tree(leaves, level - 1, 2 * index + 1);
}
int root_level(std::size_t members) {
  int level = 0;
  while ((std::size_t{1} << level) < members) ++level;
  return level;
}
double tree_sum(const std::vector<double>& leaves) { return tree(leaves, root_level(leaves.size()), 0); }

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Index of the first value whose bits differ, -1 when none.
std::int64_t first_difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (!same_bits(a[k], b[k])) return static_cast<std::int64_t>(k);
  return -1;
}

TEST(Lorenz05Statistics, SumNodesTileTheBlockWithTheLargestNodesInsideIt) {
  const auto check = [](const MemberBlock& block) {
    const std::string label = "members " + std::to_string(block.first) + " + " + std::to_string(block.count) + " of " +
                              std::to_string(block.members);
    const int top = root_level(static_cast<std::size_t>(block.members));
    const std::int64_t end = block.first + block.count;
    const auto inside = [&](int level, std::int64_t index) {  // every member of the node in the block
      const std::int64_t first = index << level;
      return first >= block.first && first < block.members &&
             std::min(first + (std::int64_t{1} << level), block.members) <= end;
    };
    std::vector<int> per_level(40, 0);
    std::int64_t next = block.first;
    for (const SumNode& node : sum_nodes(block)) {
      ASSERT_EQ(node.index << node.level, next) << label;
      ASSERT_TRUE(inside(node.level, node.index)) << label << ", level " << node.level;
      // The largest: the parent reaches outside the block, or it is the root.
      EXPECT_TRUE(node.level == top || !inside(node.level + 1, node.index / 2)) << label << ", level " << node.level;
      EXPECT_LE(++per_level[node.level], 2) << label;
      next = std::min((node.index + 1) << node.level, block.members);
    }
    EXPECT_EQ(next, end) << label;
  };
  for (std::int64_t members = 0; members <= 70; ++members)
    for (std::int64_t first = 0; first <= members; ++first)
      for (std::int64_t count = 0; first + count <= members; ++count) check({first, count, members});
  std::mt19937_64 generator(5);
  for (const std::int64_t members : {1000, 4097, 1000000, 2147483647}) {
    check({0, members, members});
    for (int k = 0; k < 200; ++k) {
      std::uniform_int_distribution<std::int64_t> point(0, members);
      std::int64_t a = point(generator), b = point(generator);
      if (a > b) std::swap(a, b);
      check({a, b - a, members});
    }
  }
  EXPECT_THROW(sum_nodes({3, 5, 7}), std::invalid_argument);
  EXPECT_THROW(sum_nodes({-1, 1, 7}), std::invalid_argument);
}

// Every node's partial sum and the completed sum against the host's tree, for
// ensembles of one pass level (up to 16 members), two (to 256) and three
// (4097, 5000), in double and float; and the order matters for these values.
template <class T>
void expect_the_tree(std::int64_t members, int n) {
  const std::string label = std::to_string(members) + " members" + (sizeof(T) == 4 ? " (float)" : " (double)");
  const Members values = rough_members(members, n, 11 + static_cast<std::uint64_t>(members));
  const View2D<T> states = to_device<T>(values);
  const MemberBlock all{0, members, members};
  const PartialSums sums = partial_sums(states, all);
  const std::vector<SumNode> nodes = sum_nodes(all);
  ASSERT_EQ(sums.sums.size(), nodes.size() * static_cast<std::size_t>(n)) << label;
  EXPECT_EQ(sums.points, n);
  std::vector<double> total(n), mean(n);
  for (int i = 0; i < n; ++i) {
    const std::vector<double> leaves = column<T>(values, i);
    for (std::size_t c = 0; c < nodes.size(); ++c)
      EXPECT_TRUE(same_bits(sums.sums[c * n + i], tree(leaves, nodes[c].level, nodes[c].index)))
          << label << ", node " << c << ", point " << i;
    total[i] = tree_sum(leaves);
    mean[i] = total[i] / static_cast<double>(members) * 0.75;  // any mean will do
  }
  EXPECT_EQ(first_difference(complete_sums({sums}), total), -1) << label;
  // The squared deviations: the same tree over (x - mean)^2 in double.
  const PartialSums squares = partial_squares(states, all, mean);
  std::vector<double> expected(n);
  for (int i = 0; i < n; ++i) {
    std::vector<double> leaves = column<T>(values, i);
    for (double& v : leaves) v = (v - mean[i]) * (v - mean[i]);
    expected[i] = tree_sum(leaves);
  }
  EXPECT_EQ(first_difference(complete_sums({squares}), expected), -1) << label;
}

TEST(Lorenz05Statistics, SumsAreThePairwiseTreeOverMembersBitForBit) {
  for (const std::int64_t members : {1, 2, 3, 5, 8, 15, 16, 17, 31, 100, 255, 256, 257, 4097, 5000}) {
    expect_the_tree<double>(members, 3);
    expect_the_tree<float>(members, 2);
  }
  // A sum in member order gives other bits for these values (so the checks
  // above see the order).
  const Members values = rough_members(257, 3, 11 + 257);
  int differ = 0;
  for (int i = 0; i < 3; ++i) {
    double in_order = 0;
    for (const double v : column<double>(values, i)) in_order += v;
    differ += same_bits(in_order, tree_sum(column<double>(values, i))) ? 0 : 1;
  }
  EXPECT_GT(differ, 0);
}

// Members split into consecutive blocks at `cuts` (0 < cut < members, in
// order; repeats give empty blocks): each block's partial sums from a View of
// its own members, completed together.
template <class T>
std::vector<double> split_sums(const Members& values, const std::vector<std::int64_t>& cuts, bool squares,
                               const std::vector<double>& mean) {
  const auto members = static_cast<std::int64_t>(values.size());
  const std::size_t n = values[0].size();
  std::vector<std::int64_t> ends = cuts;
  ends.push_back(members);
  std::vector<PartialSums> blocks;
  std::int64_t first = 0;
  for (const std::int64_t end : ends) {
    const MemberBlock block{first, end - first, members};
    const View2D<T> states = to_device<T>(values, first, end - first, n);
    blocks.push_back(squares ? partial_squares(states, block, mean) : partial_sums(states, block));
    first = end;
  }
  return complete_sums(blocks);
}

template <class T>
void expect_splits_give_one_blocks_bits(std::int64_t members, const std::vector<std::vector<std::int64_t>>& splits) {
  const int n = 3;
  const Members values = rough_members(members, n, 23 + static_cast<std::uint64_t>(members));
  const View2D<T> states = to_device<T>(values);
  const MemberBlock all{0, members, members};
  const std::vector<double> sums = complete_sums({partial_sums(states, all)});
  const std::vector<double> mean = ensemble_mean(sums, members);
  const std::vector<double> squares = complete_sums({partial_squares(states, all, mean)});
  for (int i = 0; i < n; ++i) ASSERT_TRUE(same_bits(sums[i], tree_sum(column<T>(values, i))));
  for (const auto& cuts : splits) {
    std::string label = std::to_string(members) + " members cut at";
    for (const std::int64_t cut : cuts) label += " " + std::to_string(cut);
    label += sizeof(T) == 4 ? " (float)" : " (double)";
    EXPECT_EQ(first_difference(split_sums<T>(values, cuts, false, mean), sums), -1) << label;
    EXPECT_EQ(first_difference(split_sums<T>(values, cuts, true, mean), squares), -1) << label;
  }
}

TEST(Lorenz05Statistics, MembersSplitAnywhereGiveTheBitsOfOneBlock) {
  // Every single cut and every pair of cuts of 37 members.
  std::vector<std::vector<std::int64_t>> splits;
  for (std::int64_t a = 1; a < 37; ++a) {
    splits.push_back({a});
    for (std::int64_t b = a; b < 37; ++b) splits.push_back({a, b});
  }
  expect_splits_give_one_blocks_bits<double>(37, splits);
  expect_splits_give_one_blocks_bits<float>(37, splits);
  // 5000 members (three pass levels): blocks of one member at either end or
  // beside a 4096 boundary, blocks of MPI ranks' sizes, and random cuts.
  splits = {{1},    {4999},       {1, 2, 3},          {4095, 4096, 4097}, {16, 17, 256, 257},
            {2500}, {1667, 3334}, {1250, 2500, 3750}, {1, 4998, 4999},    {7, 7, 4000}};
  std::mt19937_64 generator(3);
  std::uniform_int_distribution<std::int64_t> point(1, 4999);
  for (int k = 0; k < 30; ++k) {
    std::vector<std::int64_t> cuts(1 + k % 7);
    for (auto& cut : cuts) cut = point(generator);
    std::sort(cuts.begin(), cuts.end());
    splits.push_back(cuts);
  }
  expect_splits_give_one_blocks_bits<double>(5000, splits);
  expect_splits_give_one_blocks_bits<float>(5000, {{1, 2, 3}, {4095, 4097}, {1667, 3334}});
}

// Against the textbook: the mean, then the sample standard deviation from
// the squared deviations, summed in member order in float64.
TEST(Lorenz05Statistics, MeanAndSpreadAreTheTwoPassFloat64Ones) {
  const ModelParameters p = testing::model(3, 24, 4, 2, 0.002, 15);
  for (const int count : {1, 2, 7, 40, 1000}) {
    Members members;
    for (int e = 0; e < count; ++e) members.push_back(testing::noisy_state(p, 100 + e, 0.3));
    const int n = p.model_size;
    std::vector<double> mean(n, 0.0), spread(n, 0.0);
    for (int i = 0; i < n; ++i) {
      for (const auto& m : members) mean[i] += m[i];
      mean[i] /= count;
      for (const auto& m : members) spread[i] += (m[i] - mean[i]) * (m[i] - mean[i]);
      spread[i] = count > 1 ? std::sqrt(spread[i] / (count - 1)) : 0.0;
    }
    const EnsembleStatistics got = ensemble_statistics(to_device<double>(members));
    ASSERT_EQ(got.mean.size(), static_cast<std::size_t>(n));
    ASSERT_EQ(got.spread.size(), static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      EXPECT_NEAR(got.mean[i], mean[i], 1e-14 * std::fabs(mean[i])) << count << " members, point " << i;
      EXPECT_NEAR(got.spread[i], spread[i], 1e-14 * spread[i]) << count << " members, point " << i;
      if (count == 1) {
        EXPECT_TRUE(same_bits(got.mean[i], members[0][i]));
        EXPECT_EQ(got.spread[i], 0.0);
      }
    }
  }
  // No members: the mean of nothing, no spread.
  const EnsembleStatistics none = ensemble_statistics(View2D<double>("none", 0, 3));
  ASSERT_EQ(none.mean.size(), 3u);
  EXPECT_TRUE(std::isnan(none.mean[0]));
  EXPECT_EQ(none.spread[0], 0.0);
}

TEST(Lorenz05Statistics, RefusesBlocksThatAreNotTheStatesOrDoNotTileTheEnsemble) {
  const Members values = rough_members(10, 2, 1);
  const View2D<double> states = to_device<double>(values);
  EXPECT_THROW(partial_sums(states, MemberBlock{0, 9, 10}), std::invalid_argument);             // 10 rows
  EXPECT_THROW(partial_sums(states, MemberBlock{5, 10, 12}), std::invalid_argument);            // past the end
  EXPECT_THROW(partial_squares(states, MemberBlock{0, 10, 10}, {0.0}), std::invalid_argument);  // N 2
  const View2D<double> head = to_device<double>(values, 0, 4, 2), tail = to_device<double>(values, 4, 6, 2);
  const PartialSums a = partial_sums(head, MemberBlock{0, 4, 10}), b = partial_sums(tail, MemberBlock{4, 6, 10});
  EXPECT_NO_THROW(complete_sums({a, b}));
  EXPECT_THROW(complete_sums({}), std::invalid_argument);
  EXPECT_THROW(complete_sums({b, a}), std::invalid_argument);  // out of order
  EXPECT_THROW(complete_sums({a}), std::invalid_argument);     // members 4..9 missing
  EXPECT_THROW(complete_sums({b}), std::invalid_argument);     // 0..3 missing
  PartialSums short_of_values = b;
  short_of_values.sums.pop_back();
  EXPECT_THROW(complete_sums({a, short_of_values}), std::invalid_argument);
  PartialSums other_n = b;
  other_n.points = 3;
  EXPECT_THROW(complete_sums({a, other_n}), std::invalid_argument);
}

}  // namespace
}  // namespace portasolve::lorenz05
