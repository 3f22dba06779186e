#pragma once
// The resident layout's kernel: several members per team for a whole window
// of steps, each thread blocks of a few consecutive points of one member,
// every stage array of each member in team scratch for the window (nothing
// but the start and the end goes through device memory), rows padded with
// wrapped copies of their ends so the sums index without wrapping.
#include <cstdint>

#include "core/spaces.hpp"
#include "solvers/lorenz05/detail/kernels.hpp"
#include "solvers/lorenz05/detail/sliding_sums.hpp"
#include "solvers/lorenz05/detail/tendency.hpp"

namespace portasolve::lorenz05::detail {

// How a launch of ResidentSteps is shaped: `lanes` members per team (a power
// of two), `threads` per team, and whether each member's state and RK
// increment fit the team scratch beside its padded rows (else they stay in
// device memory, each value touched only by the thread that owns its point).
struct ResidentShape {
  int lanes = 1, lane_shift = 0;
  int threads = 1;
  bool owned_in_scratch = true;
};

// W computed where read, from X: for K = 1 it is one term, cheaper than a
// stored row and the barrier after it. The same operations as the stored W,
// so the same values.
template <class T, int P>
struct AverageWhereRead {
  Coefficients<T> co;
  StoredRow<T, P> x;
  KOKKOS_INLINE_FUNCTION Lanes<T, P> block(const int q) const { return sliding_average_w<T, P>(co, q, x); }
  KOKKOS_INLINE_FUNCTION T point(const int q) const { return average_w(co, PaddedIndex{}, q, x.row); }
};

// A source's P-point blocks as the reader rate_from_advection takes.
template <class Source>
struct BlockReader {
  const Source& source;
  KOKKOS_INLINE_FUNCTION auto operator()(const int q) const { return source.block(q); }
};

// Per RK stage: the large scale (model III), W (unless K = 1) and the rate
// fused with the stage's end, which writes the next stage's input into the
// other of two input rows, so that one barrier follows each sub-stage. Each
// thread computes blocks of `points` consecutive points of one member, its
// sums from sliding windows (sliding_sums.hpp); the rest of the per-point
// code is the other layouts' (tendency.hpp, RungeKutta), so the numbers are
// theirs.
template <class T>
struct ResidentSteps {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = Policy::member_type;
  using Scratch = Kokkos::View<T*, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  // Consecutive points per thread: odd, so that the first points of
  // neighbouring threads' blocks (i * points) fall in distinct shared-memory
  // banks; 5 divides DART's N = 960 and Lorenz 96's N = 40.
  static constexpr int points = 5;
  using Block = Lanes<T, points>;
  using Row = StoredRow<T, points>;

  // GPUs: shared memory. Hosts: level 1, whose limit fits DART's N = 960 in
  // double (level 0 is L1-sized there).
  static constexpr int scratch_level = host_execution ? 1 : 0;

  Coefficients<T> co;
  View2D<T> z;          // E x N states, advanced in place
  View2D<T> increment;  // E x N, used only when !shape.owned_in_scratch
  std::int64_t steps;
  ResidentShape shape;

  KOKKOS_INLINE_FUNCTION static bool average_where_read(const Coefficients<T>& co) { return co.k == 1; }
  static int blocks(const Coefficients<T>& co) { return (co.n + points - 1) / points; }
  // Padded rows: row_halo wrapped copies before point 0, as many plus
  // points - 1 after the last point (a last partial block's windows reach
  // that far; its extra lanes compute values nobody keeps).
  KOKKOS_INLINE_FUNCTION static int halo_after(const Coefficients<T>& co) { return row_halo(co) + points - 1; }
  KOKKOS_INLINE_FUNCTION static int padded_length(const Coefficients<T>& co) {
    return co.n + row_halo(co) + halo_after(co);
  }
  static int padded_arrays(const Coefficients<T>& co) {  // two inputs, the large scale, W
    return 2 + (co.two_scale() ? 1 : 0) + (average_where_read(co) ? 0 : 1);
  }
  static std::size_t padded_bytes(const Coefficients<T>& co, const int lanes) {
    return static_cast<std::size_t>(padded_arrays(co)) * Scratch::shmem_size(padded_length(co) * lanes);
  }
  static std::size_t owned_bytes(const Coefficients<T>& co, const int lanes) {  // state, increment
    return 2 * Scratch::shmem_size(co.n * lanes);
  }
  static std::size_t scratch_limit() { return static_cast<std::size_t>(Policy::scratch_size_max(scratch_level)); }
  static std::size_t scratch_bytes(const Coefficients<T>& co, const ResidentShape& shape) {
    return padded_bytes(co, shape.lanes) + (shape.owned_in_scratch ? owned_bytes(co, shape.lanes) : 0);
  }

  // Writes point i of a padded row and its wrapped copies (the halos may
  // exceed n).
  KOKKOS_INLINE_FUNCTION void write_padded(const Column<T>& row, const int i, const T value) const {
    const int n = co.n, before = row_halo(co), after = halo_after(co);
    row[i] = value;
    for (int m = i - n; m >= -before; m -= n) row[m] = value;
    for (int m = i + n; m < n + after; m += n) row[m] = value;
  }
  // The first `count` lanes of a block at points i..
  KOKKOS_INLINE_FUNCTION void write_padded(const Column<T>& row, const int i, const int count,
                                           const Block& value) const {
    for (int b = 0; b < count; ++b) write_padded(row, i + b, value.lane[b]);
  }

  // Calls f(i, count, v) for each block this thread owns: points i..i+count-1
  // of member lane v, slots block * lanes + v dealt out by team rank, the same
  // ones in every sub-stage.
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_owned(const Member& team, const int members, const F& f) const {
    const int slots = ((co.n + points - 1) / points) * shape.lanes;
    for (int slot = team.team_rank(); slot < slots; slot += team.team_size()) {
      const int v = slot & (shape.lanes - 1);
      const int i = (slot >> shape.lane_shift) * points;
      if (v < members) f(i, co.n - i < points ? co.n - i : points, v);
    }
  }

  struct Rows {
    T *input, *next_input, *large, *average, *state, *increment;  // padded rows at their point 0
  };
  KOKKOS_INLINE_FUNCTION Row row(T* origin, const int v) const { return Row{Column<T>{origin + v, shape.lanes}}; }

  template <class SourceW>
  KOKKOS_INLINE_FUNCTION void rate_and_finish(const int stage, const Rows& r, const int first, const int i,
                                              const int count, const int v, const SourceW& w) const {
    const int lanes = shape.lanes;
    const Row input = row(r.input, v), large = row(r.large, v);
    const Block advection_sum = sliding_advection<T, points>(co, i, large, w);
    const Block k = mul(co.dt, rate_from_advection(co, PaddedIndex{}, i, BlockReader<Row>{input},
                                                   BlockReader<Row>{large}, BlockReader<SourceW>{w}, advection_sum));
    const Column<T> next{r.next_input + v, lanes};
    for (int b = 0; b < count; ++b) {
      const int q = i + b;
      T& state = shape.owned_in_scratch ? r.state[q * lanes + v] : z(first + v, q);
      T& increment_q = shape.owned_in_scratch ? r.increment[q * lanes + v] : increment(first + v, q);
      write_padded(next, q, RungeKutta<T>::finish_stage(stage, k.lane[b], increment_q, state));
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int n = co.n, lanes = shape.lanes, padded = padded_length(co) * lanes;
    const int first = team.league_rank() * lanes, total = static_cast<int>(z.extent(0));
    const int members = total - first < lanes ? total - first : lanes;
    const auto& scratch = team.team_scratch(int(scratch_level));  // a copy: see VectorSteps
    const Scratch input_a(scratch, padded), input_b(scratch, padded);
    const Scratch large_row = co.two_scale() ? Scratch(scratch, padded) : Scratch();
    const Scratch average_row = average_where_read(co) ? Scratch() : Scratch(scratch, padded);
    const Scratch state_row = shape.owned_in_scratch ? Scratch(scratch, n * lanes) : Scratch();
    const Scratch increment_row = shape.owned_in_scratch ? Scratch(scratch, n * lanes) : Scratch();
    const int offset = row_halo(co) * lanes;
    Rows r{input_a.data() + offset, input_b.data() + offset, nullptr, nullptr, state_row.data(), increment_row.data()};

    for_owned(team, members, [&](const int i, const int count, const int v) {
      for (int q = i; q < i + count; ++q) {
        const T value = z(first + v, q);
        write_padded(Column<T>{r.input + v, lanes}, q, value);
        if (shape.owned_in_scratch) r.state[q * lanes + v] = value;
      }
    });
    team.team_barrier();
    for (std::int64_t step = 0; step < steps; ++step) {
      for (int stage = 0; stage < 4; ++stage) {
        r.large = co.two_scale() ? large_row.data() + offset : r.input;
        if (co.two_scale()) {
          for_owned(team, members, [&](const int i, const int count, const int v) {
            write_padded(Column<T>{r.large + v, lanes}, i, count,
                         sliding_large_scale<T, points>(co, i, row(r.input, v)));
          });
          team.team_barrier();
        }
        if (average_where_read(co)) {
          for_owned(team, members, [&](const int i, const int count, const int v) {
            rate_and_finish(stage, r, first, i, count, v, AverageWhereRead<T, points>{co, row(r.large, v)});
          });
        } else {
          r.average = average_row.data() + offset;
          for_owned(team, members, [&](const int i, const int count, const int v) {
            write_padded(Column<T>{r.average + v, lanes}, i, count,
                         sliding_average_w<T, points>(co, i, row(r.large, v)));
          });
          team.team_barrier();
          for_owned(team, members, [&](const int i, const int count, const int v) {
            rate_and_finish(stage, r, first, i, count, v, row(r.average, v));
          });
        }
        team.team_barrier();
        T* const done = r.input;
        r.input = r.next_input;
        r.next_input = done;
      }
    }
    if (shape.owned_in_scratch)
      for_owned(team, members, [&](const int i, const int count, const int v) {
        for (int q = i; q < i + count; ++q) z(first + v, q) = r.state[q * lanes + v];
      });
  }
};

}  // namespace portasolve::lorenz05::detail
