// Lomb-Scargle split by frequency over MPI ranks (the lombscargle driver's
// "frequency" split): the power of a range of the grid (frequency_range) has
// the bits of the whole grid's power there, for the direct, tiled, multi-term
// and recurrence algorithms, float and double, every form; ranges cut where
// block_span cuts for this run's ranks and at every other place a small grid
// allows (the recurrence's seeds are the whole grid's, wherever a range
// starts), and the bootstrap's per-resample maxima over the ranges are the
// whole grid's. The NUFFT is not split (its bits depend on the whole grid):
// shown here, so a change that makes it split knows to claim it.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/spaces.hpp"
#include "distributed/grid_decomposition.hpp"
#include "solvers/lombscargle/bootstrap.hpp"
#include "solvers/lombscargle/grid.hpp"
#include "solvers/lombscargle/periodogram.hpp"
#include "tests/distributed/ranks.hpp"

namespace ls = portasolve::lombscargle;
namespace pd = portasolve::distributed;
using pd::testing::world_size;

namespace {

// Two series of uneven lengths, times unsorted, with uncertainties for the
// generalized form (the same on every rank).
std::vector<ls::Series> test_batch(bool with_dy) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> time(0.0, 40.0), noise(-0.4, 0.4), sigma(0.2, 0.6);
  std::vector<ls::Series> batch(2);
  const std::size_t lengths[] = {97, 150};
  for (std::size_t s = 0; s < batch.size(); ++s)
    for (std::size_t j = 0; j < lengths[s]; ++j) {
      const double t = time(rng);
      batch[s].t.push_back(t);
      batch[s].y.push_back(3.0 + std::sin(2 * M_PI * (0.3 + 0.2 * static_cast<double>(s)) * t) + noise(rng));
      if (with_dy) batch[s].dy.push_back(sigma(rng));
    }
  return batch;
}

template <class T>
std::vector<T> power_of(const std::vector<ls::Series>& batch, const ls::FrequencyGrid& grid,
                        const ls::Options& options) {
  const auto power = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ls::periodogram<T>(batch, grid, options));
  std::vector<T> values;
  for (std::size_t s = 0; s < power.extent(0); ++s)
    for (std::size_t k = 0; k < power.extent(1); ++k) values.push_back(power(s, k));
  return values;
}

// Whether the range [first, first + count) of `whole` (rows of m) has the bits of `part`.
template <class T>
bool same_bits(const std::vector<T>& whole, std::size_t m, const std::vector<T>& part, std::size_t first,
               std::size_t count) {
  for (std::size_t s = 0; s < whole.size() / m; ++s)
    if (std::memcmp(&whole[s * m + first], &part[s * count], count * sizeof(T)) != 0) return false;
  return true;
}

struct Case {
  const char* name;
  ls::Form form;
  ls::Algorithm algorithm;
  int nterms;
};

const Case cases[] = {
    {"direct", ls::Form::generalized, ls::Algorithm::direct, 1},
    {"tiled", ls::Form::generalized, ls::Algorithm::tiled, 1},
    {"recurrence", ls::Form::generalized, ls::Algorithm::recurrence, 1},
    {"multiterm", ls::Form::generalized, ls::Algorithm::direct, 3},
    {"classic_recurrence", ls::Form::classic, ls::Algorithm::recurrence, 1},
    {"classic_direct", ls::Form::classic, ls::Algorithm::direct, 1},
};

ls::Options options_of(const Case& c) {
  ls::Options options;
  options.form = c.form;
  options.algorithm = c.algorithm;
  options.nterms = c.nterms;
  if (c.form == ls::Form::classic) options.floating_mean = true;
  return options;
}

// This run's block_span cuts of m frequencies over the ranks, and more.
template <class T>
void expect_ranges_give_the_whole_grids_bits() {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const ls::Options options = options_of(c);
    const auto batch = test_batch(c.form == ls::Form::generalized);
    // 1001 frequencies: not a multiple of 2, 3, 4 or of the recurrence's 16 or 64.
    const ls::FrequencyGrid grid = ls::uniform_grid(0.02, 2.5, 1001, false);
    const std::size_t m = grid.size();
    const std::vector<T> whole = power_of<T>(batch, grid, options);
    const int ranks = world_size();
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int parts : {ranks, ranks + 1, 7}) {
      const pd::Span span = pd::block_span(static_cast<std::int64_t>(m), parts, rank % parts);
      const ls::FrequencyGrid range = ls::frequency_range(grid, span.first, span.count);
      EXPECT_EQ(range.offset, span.first);
      EXPECT_TRUE(same_bits(whole, m, power_of<T>(batch, range, options), span.first, span.count))
          << "block " << rank % parts << " of " << parts << ": [" << span.first << ", +" << span.count << ")";
    }
    // Every start and length on a small grid (the recurrence's blocks cut anywhere).
    const ls::FrequencyGrid small = ls::uniform_grid(0.05, 1.5, 70, false);
    const std::vector<T> small_whole = power_of<T>(batch, small, options);
    for (std::size_t first = static_cast<std::size_t>(rank); first < small.size(); first += 5)
      for (std::size_t count : {std::size_t{1}, std::size_t{2}, std::size_t{17}, small.size() - first})
        if (first + count <= small.size()) {
          EXPECT_TRUE(same_bits(small_whole, small.size(),
                                power_of<T>(batch, ls::frequency_range(small, first, count), options), first, count))
              << "[" << first << ", +" << count << ")";
        }
  }
}

}  // namespace

TEST(LombScargleRanges, RangesOfTheGridGiveTheWholeGridsBitsInDouble) {
  expect_ranges_give_the_whole_grids_bits<double>();
}

TEST(LombScargleRanges, RangesOfTheGridGiveTheWholeGridsBitsInFloat) {
  expect_ranges_give_the_whole_grids_bits<float>();
}

TEST(LombScargleRanges, ListGridsSplitToo) {
  // An explicit (non-uniform) grid: tiled under auto, each value on its own.
  const auto batch = test_batch(true);
  std::vector<double> values;
  for (int k = 0; k < 301; ++k) values.push_back(0.03 + 0.004 * k + 0.001 * std::sin(k));
  const ls::FrequencyGrid grid = ls::explicit_grid(values, false);
  ls::Options options;
  options.algorithm = ls::resolve_algorithm(ls::Algorithm::automatic, grid);
  EXPECT_EQ(options.algorithm, ls::Algorithm::tiled);
  const std::vector<double> whole = power_of<double>(batch, grid, options);
  for (int parts = 1; parts <= 5; ++parts)
    for (int index = 0; index < parts; ++index) {
      const pd::Span span = pd::block_span(static_cast<std::int64_t>(grid.size()), parts, index);
      EXPECT_TRUE(same_bits(whole, grid.size(),
                            power_of<double>(batch, ls::frequency_range(grid, span.first, span.count), options),
                            span.first, span.count));
    }
}

TEST(LombScargleRanges, BootstrapMaximaOverRangesAreTheWholeGrids) {
  const auto batch = test_batch(true);
  const ls::FrequencyGrid grid = ls::uniform_grid(0.02, 2.0, 333, false);
  ls::Options options;
  options.algorithm = ls::Algorithm::recurrence;
  ls::BootstrapOptions bootstrap;
  bootstrap.resamples = 25;
  bootstrap.seed = 5;
  const auto want = ls::bootstrap_maxima<double>(batch, grid, options, bootstrap);
  for (int parts : {2, 3, 5}) {
    std::vector<std::vector<double>> maxima(batch.size(), std::vector<double>(bootstrap.resamples, -INFINITY));
    for (int index = 0; index < parts; ++index) {
      const pd::Span span = pd::block_span(static_cast<std::int64_t>(grid.size()), parts, index);
      const auto part = ls::bootstrap_resample_maxima<double>(
          portasolve::ExecSpace(), batch, ls::frequency_range(grid, span.first, span.count), options, bootstrap);
      for (std::size_t s = 0; s < batch.size(); ++s)
        for (std::size_t r = 0; r < bootstrap.resamples; ++r) maxima[s][r] = std::max(maxima[s][r], part[s][r]);
    }
    ls::finish_bootstrap_maxima(maxima);
    EXPECT_EQ(maxima, want) << parts << " ranges";
  }
}

TEST(LombScargleRanges, TheNufftOfARangeIsNotTheWholeGridsBits) {
  // Why the driver keeps the series split for the NUFFT: close, not equal.
  const auto batch = test_batch(true);
  const ls::FrequencyGrid grid = ls::uniform_grid(0.02, 2.5, 1001, false);
  ls::Options options;
  options.algorithm = ls::Algorithm::nufft;
  const std::vector<double> whole = power_of<double>(batch, grid, options);
  const ls::FrequencyGrid range = ls::frequency_range(grid, 400, 301);
  const std::vector<double> part = power_of<double>(batch, range, options);
  EXPECT_FALSE(same_bits(whole, grid.size(), part, 400, 301));
  for (std::size_t s = 0; s < batch.size(); ++s)
    for (std::size_t k = 0; k < 301; ++k) EXPECT_NEAR(part[s * 301 + k], whole[s * 1001 + 400 + k], 1e-9);
}

TEST(LombScargleRanges, RangesOutsideTheGridAreRefused) {
  const ls::FrequencyGrid grid = ls::uniform_grid(0.1, 1.0, 10, false);
  EXPECT_THROW(ls::frequency_range(grid, 0, 0), portasolve::InputError);
  EXPECT_THROW(ls::frequency_range(grid, 5, 6), portasolve::InputError);
  EXPECT_THROW(ls::frequency_range(grid, 11, 1), portasolve::InputError);
  EXPECT_EQ(ls::frequency_range(grid, 9, 1).values, std::vector<double>{grid.values[9]});
}
