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
#include "core/unroll.hpp"

namespace portasolve::lombscargle::detail {

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
  KOKKOS_INLINE_FUNCTION std::int64_t position(std::int64_t k) const { return n1 > 1 ? (k % n1) * n2 + k / n1 : k; }
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

  // Scratch slot of element i: one pad slot per 8 elements, so the groups
  // of the first stages (8 elements a thread, 8 apart) fall in distinct banks.
  KOKKOS_INLINE_FUNCTION static int slot(int i) { return i + (i >> 3); }
  KOKKOS_INLINE_FUNCTION static int padded(int length) { return slot(length); }

  // R = 2^r consecutive radix-2 stages (halves h, 2h, .. R h / 2) at once on
  // groups of R elements in registers: the elements that differ only in the
  // bits h .. R h / 2 of their index are closed under those stages, so each
  // thread reads and writes back its own group (in place, one barrier).
  template <int R>
  KOKKOS_INLINE_FUNCTION void stages(const Member& team, const Scratch& x, int count, int length, int h) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count * length / R), [&](const int g) {
      const int p = g % h, base = (g / h) * (R * h) + p;
      Complex<T> v[R];
      PORTASOLVE_UNROLL
      for (int k = 0; k < R; ++k) v[k] = x(slot(base + k * h));
      PORTASOLVE_UNROLL
      for (int q = 1; q < R; q *= 2) {  // the stage of half q h
        const int stride = shape.team_length / (2 * q * h);
        Complex<T> w[R / 2];
        PORTASOLVE_UNROLL
        for (int m = 0; m < q; ++m) w[m] = twiddle((p + m * h) * stride);
        PORTASOLVE_UNROLL
        for (int k = 0; k < R; ++k) {
          if (k & q) continue;
          const Complex<T> u = v[k], t = w[k % q] * v[k + q];
          v[k] = u + t;
          v[k + q] = u - t;
        }
      }
      PORTASOLVE_UNROLL
      for (int k = 0; k < R; ++k) x(slot(base + k * h)) = v[k];
    });
    team.team_barrier();
  }

  // count transforms of `length` back to back in x, input in bit-reversed
  // order: radix-2 decimation in time, three stages per pass.
  KOKKOS_INLINE_FUNCTION void butterflies(const Member& team, const Scratch& x, int count, int length) const {
    int h = 1;
    for (int left = log2_of(length); left > 0;) {
      if (left >= 3) {
        stages<8>(team, x, count, length, h);
        h *= 8, left -= 3;
      } else if (left == 2) {
        stages<4>(team, x, count, length, h);
        h *= 4, left -= 2;
      } else {
        stages<2>(team, x, count, length, h);
        h *= 2, left -= 1;
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(Whole, const Member& team) const {
    Scratch x(team.team_scratch(0), padded(shape.n2));
    const int row = team.league_rank(), bits = log2_of(shape.n2);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, shape.n2),
                         [&](const int j) { x(slot(reverse_bits(j, bits))) = data(row, j); });
    team.team_barrier();
    butterflies(team, x, 1, shape.n2);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, shape.n2), [&](const int k) { data(row, k) = x(slot(k)); });
  }

  // Columns j2 in [first, first + C): x[n2 j1 + j2] over j1, then the
  // twiddle e^{+2 pi i j2 k1 / n}, back in place.
  KOKKOS_INLINE_FUNCTION void operator()(Columns, const Member& team) const {
    const int columns = shape.columns_per_team, groups = shape.n2 / columns;
    const int row = team.league_rank() / groups, first = (team.league_rank() % groups) * columns;
    const int bits = log2_of(shape.n1);
    Scratch x(team.team_scratch(0), padded(columns * shape.n1));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, columns * shape.n1), [&](const int e) {
      const int column = e % columns, j1 = e / columns;
      x(slot(column * shape.n1 + reverse_bits(j1, bits))) =
          data(row, static_cast<std::int64_t>(j1) * shape.n2 + first + column);
    });
    team.team_barrier();
    butterflies(team, x, columns, shape.n1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, columns * shape.n1), [&](const int e) {
      const int column = e % columns, k1 = e / columns;
      const std::int64_t j2 = first + column;
      T s, c;
      math::sincos_turns(static_cast<T>((j2 * k1) % shape.n) / static_cast<T>(shape.n), s, c);
      data(row, k1 * shape.n2 + j2) = x(slot(column * shape.n1 + k1)) * Complex<T>(c, s);
    });
  }

  KOKKOS_INLINE_FUNCTION void operator()(Rows, const Member& team) const {
    const int row = team.league_rank() / shape.n1;
    const std::int64_t base = static_cast<std::int64_t>(team.league_rank() % shape.n1) * shape.n2;
    const int bits = log2_of(shape.n2);
    Scratch x(team.team_scratch(0), padded(shape.n2));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, shape.n2),
                         [&](const int j) { x(slot(reverse_bits(j, bits))) = data(row, base + j); });
    team.team_barrier();
    butterflies(team, x, 1, shape.n2);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, shape.n2),
                         [&](const int k) { data(row, base + k) = x(slot(k)); });
  }
};

// Longest transform a team's scratch holds on this backend (a power of two),
// optionally capped (tests force the two-level path on small lengths).
template <class T>
int fft_team_length(int cap = 0) {
  using Scratch = typename TeamFft<T>::Scratch;
  const std::size_t limit = static_cast<std::size_t>(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
  int length = 2;
  while (Scratch::shmem_size(TeamFft<T>::padded(2 * length)) <= limit && (cap == 0 || 2 * length <= cap)) length *= 2;
  return length;
}

// Longest n the two levels reach with this team length.
inline std::int64_t fft_max_length(int team_length) { return static_cast<std::int64_t>(team_length) * team_length; }

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

// Transforms every row of `data` (length shape.n) in place, on exec; the
// twiddle table must be TwiddleTable of length shape.team_length.
template <class T>
void fft_rows(const ExecSpace& exec, const ComplexRows<T>& data,
              const Kokkos::View<const Complex<T>*, Kokkos::LayoutRight, MemSpace>& twiddle, const FftShape& shape) {
  using Fft = TeamFft<T>;
  const int rows = static_cast<int>(data.extent(0));
  const int team = std::is_same<MemSpace, HostSpace>::value ? 1 : 256;
  const auto scratch = Kokkos::PerTeam(Fft::Scratch::shmem_size(Fft::padded(shape.team_length)));
  const Fft fft{data, twiddle, shape};
  if (!shape.two_level()) {
    Kokkos::parallel_for(
        "lombscargle_fft",
        typename Fft::template Policy<typename Fft::Whole>(exec, rows, team).set_scratch_size(0, scratch), fft);
    return;
  }
  Kokkos::parallel_for(
      "lombscargle_fft_columns",
      typename Fft::template Policy<typename Fft::Columns>(exec, rows * (shape.n2 / shape.columns_per_team), team)
          .set_scratch_size(0, scratch),
      fft);
  Kokkos::parallel_for(
      "lombscargle_fft_rows",
      typename Fft::template Policy<typename Fft::Rows>(exec, rows * shape.n1, team).set_scratch_size(0, scratch), fft);
}

template <class T>
Kokkos::View<Complex<T>*, Kokkos::LayoutRight, MemSpace> twiddle_table(const ExecSpace& exec, int team_length) {
  Kokkos::View<Complex<T>*, Kokkos::LayoutRight, MemSpace> table(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lombscargle_twiddles")), team_length / 2);
  Kokkos::parallel_for("lombscargle_twiddles", Kokkos::RangePolicy<ExecSpace>(exec, 0, team_length / 2),
                       TwiddleTable<T>{table, team_length});
  return table;
}

}  // namespace portasolve::lombscargle::detail
