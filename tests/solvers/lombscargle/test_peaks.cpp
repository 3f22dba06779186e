// Peaks found on the device against a plain host selection: local maxima
// (>= each neighbour, finite), highest first, equal powers in index order;
// the best finite power; NaN neighbours, plateaus, ends, fewer maxima than
// asked for, and rows with no finite value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "solvers/lombscargle/peaks.hpp"

namespace {

namespace ls = portasolve::lombscargle;

struct Expected {
  std::int64_t best;
  std::vector<std::int64_t> peaks;
};

Expected host_reference(const std::vector<double>& row, std::size_t count) {
  const auto m = static_cast<std::int64_t>(row.size());
  Expected expected{-1, {}};
  for (std::int64_t k = 0; k < m; ++k)
    if (std::isfinite(row[k]) && (expected.best < 0 || row[k] > row[expected.best])) expected.best = k;
  std::vector<std::int64_t> maxima;
  for (std::int64_t k = 0; k < m; ++k)
    if (std::isfinite(row[k]) && (k == 0 || row[k] >= row[k - 1]) && (k + 1 == m || row[k] >= row[k + 1]))
      maxima.push_back(k);
  std::stable_sort(maxima.begin(), maxima.end(), [&](std::int64_t a, std::int64_t b) { return row[a] > row[b]; });
  maxima.resize(std::min(count, maxima.size()));
  maxima.resize(count, -1);
  expected.peaks = maxima;
  return expected;
}

template <class T>
void check_rows(const std::vector<std::vector<double>>& rows, std::size_t count) {
  const std::size_t m = rows.front().size();
  portasolve::View2D<T> power("power", rows.size(), m);
  auto host = Kokkos::create_mirror_view(power);
  for (std::size_t s = 0; s < rows.size(); ++s)
    for (std::size_t k = 0; k < m; ++k) host(s, k) = static_cast<T>(rows[s][k]);
  Kokkos::deep_copy(power, host);
  const ls::PeakTable table = ls::find_peaks(power, count);
  ASSERT_EQ(table.best.size(), rows.size());
  ASSERT_EQ(table.peaks.size(), rows.size() * count);
  for (std::size_t s = 0; s < rows.size(); ++s) {
    std::vector<double> row(m);
    for (std::size_t k = 0; k < m; ++k) row[k] = static_cast<double>(host(s, k));
    const Expected expected = host_reference(row, count);
    EXPECT_EQ(table.best[s], expected.best) << "series " << s;
    if (expected.best >= 0)
      EXPECT_EQ(table.best_power[s], row[expected.best]);
    else
      EXPECT_TRUE(std::isnan(table.best_power[s]));
    for (std::size_t p = 0; p < count; ++p) {
      const std::int64_t want = expected.peaks[p];
      EXPECT_EQ(table.peaks[s * count + p], want) << "series " << s << " peak " << p;
      if (want >= 0)
        EXPECT_EQ(table.peak_power[s * count + p], row[want]);
      else
        EXPECT_TRUE(std::isnan(table.peak_power[s * count + p]));
    }
  }
}

std::vector<std::vector<double>> random_rows(std::size_t series, std::size_t m, unsigned seed) {
  std::mt19937 rng(seed);
  // Few distinct levels: many ties and plateaus.
  std::uniform_int_distribution<int> level(0, 6), special(0, 40);
  std::vector<std::vector<double>> rows(series, std::vector<double>(m));
  for (auto& row : rows)
    for (double& v : row) {
      const int kind = special(rng);
      v = kind == 0 ? NAN : kind == 1 ? INFINITY : 0.125 * level(rng);
    }
  return rows;
}

TEST(LombScarglePeaks, MatchTheHostSelectionWithTiesNansAndEnds) {
  for (const std::size_t count : {0, 1, 3, 7}) {
    check_rows<double>(random_rows(37, 101, 1 + count), count);
    check_rows<float>(random_rows(19, 2000, 11 + count), count);
  }
}

TEST(LombScarglePeaks, EdgeRows) {
  const double nan = NAN;
  check_rows<double>({{1, 2, 3, 4, 5},            // rising: the last point only
                      {5, 4, 3, 2, 1},            // falling: the first
                      {2, 2, 2, 2, 2},            // a plateau: every point, in index order
                      {nan, nan, nan, nan, nan},  // nothing finite
                      {nan, 5, 3, 4, nan},        // a NaN neighbour is no maximum: none but best 1
                      {1, 3, 1, 3, 1}},           // a tie: the lower index first
                     4);
  check_rows<double>({{7.0}}, 2);  // one frequency: itself
}

}  // namespace
