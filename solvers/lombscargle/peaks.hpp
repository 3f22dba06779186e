#pragma once
// The highest peaks of each periodogram of a batch, found where the power
// lives (on the device), so a survey run that keeps peaks only never moves
// the series x frequency power array to the host.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/spaces.hpp"

namespace portasolve::lombscargle {

// Per series (row of `power`): `best`, the index of the highest finite power
// (the lowest such index on ties; -1 when no power is finite), and `peaks`,
// `count` indices of the highest local maxima, highest first (a point is a
// local maximum when finite and >= each neighbour it has; equal powers in
// index order), -1 past the last one found; with the powers there in `best_power`
// and `peak_power` (NaN where the index is -1). Row-major: peaks[s * count + p].
struct PeakTable {
  std::size_t count = 0;
  std::vector<std::int64_t> best, peaks;
  std::vector<double> best_power, peak_power;
};

// On exec: the selection runs there after the work already queued (the
// power's kernels, when they ran on exec); the caller fences its own earlier
// work on other instances. Returns with the table on the host (exec is
// fenced, no other instance). Without `exec`: ExecSpace(), the default one.
template <class T>
PeakTable find_peaks(const ExecSpace& exec, const View2D<T>& power, std::size_t count);
template <class T>
PeakTable find_peaks(const View2D<T>& power, std::size_t count);

// The device arrays find_peaks fills, kept by a caller that searches batches
// of one shape again and again (a pipeline's chunks): made where their shape
// changes only, since freeing device memory waits for the work of every
// stream, which would hold up the instance computing the next batch.
template <class T>
struct PeakWorkspace {
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, MemSpace> index;  // series x (1 + count)
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> value;
};
template <class T>
PeakTable find_peaks(const ExecSpace& exec, const View2D<T>& power, std::size_t count, PeakWorkspace<T>& workspace);

extern template PeakTable find_peaks(const ExecSpace&, const View2D<float>&, std::size_t);
extern template PeakTable find_peaks(const ExecSpace&, const View2D<double>&, std::size_t);
extern template PeakTable find_peaks(const View2D<float>&, std::size_t);
extern template PeakTable find_peaks(const View2D<double>&, std::size_t);
extern template PeakTable find_peaks(const ExecSpace&, const View2D<float>&, std::size_t, PeakWorkspace<float>&);
extern template PeakTable find_peaks(const ExecSpace&, const View2D<double>&, std::size_t, PeakWorkspace<double>&);

}  // namespace portasolve::lombscargle
