#pragma once
// Batched complex FFTs of power-of-two length, in place, with the sign
// e^{+2 pi i j k / n} (the one the NUFFT needs). A transform that fits a
// team's scratch runs whole in one team; a longer one (n = n1 n2) in Bailey's
// four steps: n2 column transforms of length n1 (strided, several columns a
// team so reads are whole sectors), a twiddle, n1 row transforms of length n2.
// The two-level result is left transposed: X[k] sits at fft_position(k).
#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "core/math.hpp"
#include "core/spaces.hpp"

namespace portasolve::lombscargle {

template <class T>
using Complex = Kokkos::complex<T>;
template <class T>
using ComplexRows = Kokkos::View<Complex<T>**, Kokkos::LayoutRight, MemSpace>;

// How a length n is split: whole (n1 = 1, n2 = n) or n1 x n2 with n2 the
// longest transform a team holds.
struct FftShape {
  std::int64_t n = 0;
  int n1 = 1, n2 = 0;
  int columns_per_team = 1;  // two-level: columns a team transforms at once
  int team_length = 0;       // elements of a team's scratch

  bool two_level() const { return n1 > 1; }
  KOKKOS_INLINE_FUNCTION std::int64_t position(std::int64_t k) const {
    return n1 > 1 ? (k % n1) * n2 + k / n1 : k;
  }
};

KOKKOS_INLINE_FUNCTION int reverse_bits(int value, int bits) {
  int reversed = 0;
  for (int b = 0; b < bits; ++b, value >>= 1) reversed = (reversed << 1) | (value & 1);
  return reversed;
}

KOKKOS_INLINE_FUNCTION int log2_of(std::int64_t power_of_two) {
  int bits = 0;
  while ((std::int64_t(1) << bits) < power_of_two) ++bits;
  return bits;
}

// e^{+2 pi i k / length} for k < length / 2: the butterflies' twiddles.
template <class T>
struct TwiddleTable {
  Kokkos::View<Complex<T>*, Kokkos::LayoutRight, MemSpace> table;
  int length;

  KOKKOS_INLINE_FUNCTION void operator()(const int k) const {
    T s, c;
    math::sincos_turns(static_cast<T>(k) / static_cast<T>(length), s, c);
    table(k) = Complex<T>(c, s);
  }
};

template <class T>
struct TeamFft {
  struct Whole {};
  struct Columns {};
  struct Rows {};
  using Scratch = Kokkos::View<Complex<T>*, ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  template <class Tag>
  using Policy = Kokkos::TeamPolicy<ExecSpace, Tag>;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;

  ComplexRows<T> data;
  Kokkos::View<const Complex<T>*, Kokkos::LayoutRight, MemSpace> twiddle;  // of length shape.team_length
  FftShape shape;

  // count transforms of `length` back to back in x, input in bit-reversed
  // order: radix-2 decimation in time, a barrier per stage.
  KOKKOS_INLINE_FUNCTION void butterflies(const Member& team, const Scratch& x, int count, int length) const {
    for (int half = 1; half < length; half *= 2) {
      const int stride = shape.team_length / (2 * half);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count * length / 2), [&](const int b) {
        const int position = b % half;
        const int top = (b / half) * 2 * half + position;
        const Complex<T> u = x(top), v = twiddle(position * stride) * x(top + half);
        x(top) = u + v;
        x(top + half) = u - v;
      });
      team.team_barrier();
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(Whole, const Member& team) const {
    Scratch x(team.team_scratch(0), shape.n2);
    const int row = team.league_rank(), bits = log2_of(shape.n2);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, shape.n2),
                         [&](const int j) { x(reverse_bits(j, bits)) = data(row, j); });
    team.team_barrier();
    butterflies(team, x, 1, shape.n2);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, shape.n2), [&](const int k) { data(row, k) = x(k); });
  }

  // Columns j2 in [first, first + C): x[n2 j1 + j2] over j1, then the
  // twiddle e^{+2 pi i j2 k1 / n}, back in place.
  KOKKOS_INLINE_FUNCTION void operator()(Columns, const Member& team) const {
    const int columns = shape.columns_per_team, groups = shape.n2 / columns;
    const int row = team.league_rank() / groups, first = (team.league_rank() % groups) * columns;
    const int bits = log2_of(shape.n1);
    Scratch x(team.team_scratch(0), columns * shape.n1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, columns * shape.n1), [&](const int e) {
      const int column = e % columns, j1 = e / columns;
      x(column * shape.n1 + reverse_bits(j1, bits)) =
          data(row, static_cast<std::int64_t>(j1) * shape.n2 + first + column);
    });
    team.team_barrier();
    butterflies(team, x, columns, shape.n1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, columns * shape.n1), [&](const int e) {
      const int column = e % columns, k1 = e / columns;
      const std::int64_t j2 = first + column;
      T s, c;
      math::sincos_turns(static_cast<T>((j2 * k1) % shape.n) / static_cast<T>(shape.n), s, c);
      data(row, k1 * shape.n2 + j2) = x(column * shape.n1 + k1) * Complex<T>(c, s);
    });
  }

  KOKKOS_INLINE_FUNCTION void operator()(Rows, const Member& team) const {
    const int row = team.league_rank() / shape.n1;
    const std::int64_t base = static_cast<std::int64_t>(team.league_rank() % shape.n1) * shape.n2;
    const int bits = log2_of(shape.n2);
    Scratch x(team.team_scratch(0), shape.n2);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, shape.n2),
                         [&](const int j) { x(reverse_bits(j, bits)) = data(row, base + j); });
    team.team_barrier();
    butterflies(team, x, 1, shape.n2);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, shape.n2), [&](const int k) { data(row, base + k) = x(k); });
  }
};

// Longest transform a team's scratch holds on this backend (a power of two),
// optionally capped (tests force the two-level path on small lengths).
template <class T>
int fft_team_length(int cap = 0) {
  using Scratch = typename TeamFft<T>::Scratch;
  const std::size_t limit = static_cast<std::size_t>(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
  int length = 2;
  while (Scratch::shmem_size(2 * length) <= limit && (cap == 0 || 2 * length <= cap)) length *= 2;
  return length;
}

// Longest n the two levels reach with this team length.
inline std::int64_t fft_max_length(int team_length) {
  return static_cast<std::int64_t>(team_length) * team_length;
}

inline FftShape fft_shape(std::int64_t n, int team_length) {
  FftShape shape;
  shape.n = n;
  shape.team_length = team_length;
  if (n <= team_length) {
    shape.n2 = static_cast<int>(n);
  } else {
    shape.n2 = team_length;
    shape.n1 = static_cast<int>(n / team_length);
    shape.columns_per_team = team_length / shape.n1;
  }
  return shape;
}

// Transforms every row of `data` (length shape.n) in place; the twiddle table
// must be TwiddleTable of length shape.team_length.
template <class T>
void fft_rows(const ComplexRows<T>& data, const Kokkos::View<const Complex<T>*, Kokkos::LayoutRight, MemSpace>& twiddle,
              const FftShape& shape) {
  using Fft = TeamFft<T>;
  const int rows = static_cast<int>(data.extent(0));
  const int team = std::is_same<MemSpace, HostSpace>::value ? 1 : 256;
  const auto scratch = Kokkos::PerTeam(Fft::Scratch::shmem_size(shape.team_length));
  const Fft fft{data, twiddle, shape};
  if (!shape.two_level()) {
    Kokkos::parallel_for("lombscargle_fft", typename Fft::template Policy<typename Fft::Whole>(rows, team)
                                                .set_scratch_size(0, scratch), fft);
    return;
  }
  Kokkos::parallel_for("lombscargle_fft_columns",
                       typename Fft::template Policy<typename Fft::Columns>(
                           rows * (shape.n2 / shape.columns_per_team), team).set_scratch_size(0, scratch),
                       fft);
  Kokkos::parallel_for("lombscargle_fft_rows",
                       typename Fft::template Policy<typename Fft::Rows>(rows * shape.n1, team)
                           .set_scratch_size(0, scratch),
                       fft);
}

template <class T>
Kokkos::View<Complex<T>*, Kokkos::LayoutRight, MemSpace> twiddle_table(int team_length) {
  Kokkos::View<Complex<T>*, Kokkos::LayoutRight, MemSpace> table(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lombscargle_twiddles")), team_length / 2);
  Kokkos::parallel_for("lombscargle_twiddles", Kokkos::RangePolicy<ExecSpace>(0, team_length / 2),
                       TwiddleTable<T>{table, team_length});
  return table;
}

}  // namespace portasolve::lombscargle
