#include "solvers/lombscargle/peaks.hpp"

#include <cmath>
#include <limits>
#include <type_traits>

#include "core/profiling.hpp"
#include "solvers/lombscargle/detail/upload.hpp"

namespace portasolve::lombscargle {

using namespace detail;

namespace {

constexpr std::int64_t none = -1;

// One team per series selects the answers one after another: a team-wide
// maximum of the eligible powers, then the lowest index holding it. A
// candidate is eligible when it ranks after the previous answer in the
// order (power descending, index ascending), so each selection is the next
// in that order: the host's sort, with ties broken the same way on every
// backend. Two passes over the row per answer: for a few peaks this reads
// the row a few times from cache, far less than copying it to the host.
template <class T>
struct SelectPeaks {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  View2D<T> power;
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, MemSpace> index;  // series x (1 + count): best, then peaks
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> value;
  std::int64_t count;
  // Set on the host (numeric_limits is not for device code everywhere).
  T lowest, not_a_number;
  std::int64_t no_index;

  KOKKOS_INLINE_FUNCTION bool finite(T v) const { return v == v && v - v == T(0); }

  KOKKOS_INLINE_FUNCTION bool local_maximum(std::int64_t s, std::int64_t k, std::int64_t m) const {
    const T p = power(s, k);
    return finite(p) && (k == 0 || p >= power(s, k - 1)) && (k + 1 == m || p >= power(s, k + 1));
  }

  // The next answer after (previous_value, previous_index) among points that
  // pass `eligible`; none when there is none.
  template <class Eligible>
  KOKKOS_INLINE_FUNCTION void select(const Member& member, std::int64_t s, std::int64_t m, std::int64_t column,
                                     T previous_value, std::int64_t previous_index, const Eligible& eligible) const {
    const auto after = [&](std::int64_t k) {
      const T p = power(s, k);
      return eligible(k) &&
             (previous_index == none || p < previous_value || (p == previous_value && k > previous_index));
    };
    T highest = lowest;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(member, m),
        [&](std::int64_t k, T& local) {
          if (after(k) && power(s, k) > local) local = power(s, k);
        },
        Kokkos::Max<T>(highest));
    std::int64_t where = no_index;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(member, m),
        [&](std::int64_t k, std::int64_t& local) {
          if (after(k) && power(s, k) == highest && k < local) local = k;
        },
        Kokkos::Min<std::int64_t>(where));
    const bool any = where != no_index;
    Kokkos::single(Kokkos::PerTeam(member), [&] {
      index(s, column) = any ? where : none;
      value(s, column) = any ? highest : not_a_number;
    });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const std::int64_t s = member.league_rank(), m = static_cast<std::int64_t>(power.extent(1));
    select(member, s, m, 0, T(0), none, [&](std::int64_t k) { return finite(power(s, k)); });
    T previous_value = T(0);
    std::int64_t previous_index = none;
    for (std::int64_t p = 0; p < count; ++p) {
      member.team_barrier();  // the last answer written before it is read
      select(member, s, m, 1 + p, previous_value, previous_index,
             [&](std::int64_t k) { return local_maximum(s, k, m); });
      member.team_barrier();
      previous_index = index(s, 1 + p);
      if (previous_index == none) {  // no more maxima: pad the row
        Kokkos::single(Kokkos::PerTeam(member), [&] {
          for (std::int64_t q = p + 1; q < count; ++q) {
            index(s, 1 + q) = none;
            value(s, 1 + q) = not_a_number;
          }
        });
        return;
      }
      previous_value = value(s, 1 + p);
    }
  }
};

// Host backends: one pass per series, by one thread, keeping the best point
// and the highest `count` local maxima so far in the same order (power
// descending, index ascending: a later point enters only when strictly
// higher than the one it displaces), which the team kernel's repeated
// selections read the row 2 (1 + count) times for. The same answers.
template <class T>
struct HostPeaks {
  static constexpr std::size_t max_count = 32;
  View2D<T> power;
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, MemSpace> index;
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> value;
  std::int64_t count;
  T not_a_number;

  static bool finite(T v) { return v == v && v - v == T(0); }

  void operator()(const std::int64_t s) const {
    const std::int64_t m = static_cast<std::int64_t>(power.extent(1));
    const T* row = &power(s, 0);
    std::int64_t best = none;
    T best_value = not_a_number;
    T top_value[max_count];
    std::int64_t top_index[max_count];
    std::int64_t found = 0;
    for (std::int64_t k = 0; k < m; ++k) {
      const T p = row[k];
      if (!finite(p)) continue;
      if (best == none || p > best_value) best = k, best_value = p;
      if ((k > 0 && !(p >= row[k - 1])) || (k + 1 < m && !(p >= row[k + 1]))) continue;
      if (found == count && !(p > top_value[count - 1])) continue;
      std::int64_t at = found < count ? found++ : count - 1;
      for (; at > 0 && p > top_value[at - 1]; --at) {
        top_value[at] = top_value[at - 1];
        top_index[at] = top_index[at - 1];
      }
      top_value[at] = p;
      top_index[at] = k;
    }
    index(s, 0) = best;
    value(s, 0) = best_value;
    for (std::int64_t q = 0; q < count; ++q) {
      index(s, 1 + q) = q < found ? top_index[q] : none;
      value(s, 1 + q) = q < found ? top_value[q] : not_a_number;
    }
  }
};

}  // namespace

template <class T>
PeakTable find_peaks(const ExecSpace& exec, const View2D<T>& power, std::size_t count) {
  PeakWorkspace<T> workspace;
  return find_peaks(exec, power, count, workspace);
}

template <class T>
PeakTable find_peaks(const ExecSpace& exec, const View2D<T>& power, std::size_t count, PeakWorkspace<T>& workspace) {
  ProfilingRegion region("lombscargle/peaks");
  const auto series = static_cast<std::int64_t>(power.extent(0));
  const std::size_t columns = 1 + count;
  if (workspace.index.extent(0) != power.extent(0) || workspace.index.extent(1) != columns) {
    workspace = PeakWorkspace<T>();  // the old arrays before the new ones
    workspace.index = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, MemSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "lombscargle_peak_index"), series, columns);
    workspace.value = Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "lombscargle_peak_value"), series, columns);
  }
  SelectPeaks<T> select{power,
                        workspace.index,
                        workspace.value,
                        static_cast<std::int64_t>(count),
                        -std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::quiet_NaN(),
                        std::numeric_limits<std::int64_t>::max()};
  bool on_host = false;
  if constexpr (std::is_same<MemSpace, HostSpace>::value) {
    if (series > 0 && power.extent(1) > 0 && count > 0 && count <= HostPeaks<T>::max_count) {
      Kokkos::parallel_for("lombscargle/peaks",
                           Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, series),
                           HostPeaks<T>{power, select.index, select.value, static_cast<std::int64_t>(count),
                                        std::numeric_limits<T>::quiet_NaN()});
      on_host = true;
    }
  }
  if (!on_host && series > 0 && power.extent(1) > 0)
    Kokkos::parallel_for("lombscargle/peaks", Kokkos::TeamPolicy<ExecSpace>(exec, series, Kokkos::AUTO), select);
  const auto index = download(exec, select.index);
  const auto value = download(exec, select.value);
  PeakTable table;
  table.count = count;
  for (std::int64_t s = 0; s < series; ++s) {
    const bool empty = power.extent(1) == 0;
    table.best.push_back(empty ? none : index(s, 0));
    table.best_power.push_back(empty ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(value(s, 0)));
    for (std::size_t p = 0; p < count; ++p) {
      table.peaks.push_back(empty ? none : index(s, 1 + p));
      table.peak_power.push_back(empty ? std::numeric_limits<double>::quiet_NaN()
                                       : static_cast<double>(value(s, 1 + p)));
    }
  }
  return table;
}

template <class T>
PeakTable find_peaks(const View2D<T>& power, std::size_t count) {
  return find_peaks(ExecSpace(), power, count);
}

template PeakTable find_peaks(const ExecSpace&, const View2D<float>&, std::size_t);
template PeakTable find_peaks(const ExecSpace&, const View2D<double>&, std::size_t);
template PeakTable find_peaks(const View2D<float>&, std::size_t);
template PeakTable find_peaks(const View2D<double>&, std::size_t);
template PeakTable find_peaks(const ExecSpace&, const View2D<float>&, std::size_t, PeakWorkspace<float>&);
template PeakTable find_peaks(const ExecSpace&, const View2D<double>&, std::size_t, PeakWorkspace<double>&);

}  // namespace portasolve::lombscargle
