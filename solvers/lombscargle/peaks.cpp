#include "solvers/lombscargle/peaks.hpp"

#include <cmath>
#include <limits>

#include "core/profiling.hpp"

namespace portasolve::lombscargle {

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

}  // namespace

template <class T>
PeakTable find_peaks(const View2D<T>& power, std::size_t count) {
  ProfilingRegion region("lombscargle/peaks");
  const auto series = static_cast<std::int64_t>(power.extent(0));
  const std::size_t columns = 1 + count;
  SelectPeaks<T> select{power,
                        Kokkos::View<std::int64_t**, Kokkos::LayoutRight, MemSpace>(
                            Kokkos::view_alloc(Kokkos::WithoutInitializing, "lombscargle_peak_index"), series, columns),
                        Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>(
                            Kokkos::view_alloc(Kokkos::WithoutInitializing, "lombscargle_peak_value"), series, columns),
                        static_cast<std::int64_t>(count),
                        -std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::quiet_NaN(),
                        std::numeric_limits<std::int64_t>::max()};
  if (series > 0 && power.extent(1) > 0)
    Kokkos::parallel_for("lombscargle/peaks", Kokkos::TeamPolicy<ExecSpace>(series, Kokkos::AUTO), select);
  const auto index = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), select.index);
  const auto value = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), select.value);
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

template PeakTable find_peaks(const View2D<float>&, std::size_t);
template PeakTable find_peaks(const View2D<double>&, std::size_t);

}  // namespace portasolve::lombscargle
