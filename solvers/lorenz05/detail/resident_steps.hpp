#pragma once
// The resident layout's kernel: several members per team for a whole window
// of steps, every stage array of each member in team scratch for the window
// (nothing but the start and the end goes through device memory), rows padded
// with wrapped copies of their ends so the sums index without wrapping.
#include <cstdint>

#include "core/grid_range.hpp"
#include "core/spaces.hpp"
#include "solvers/lorenz05/detail/kernels.hpp"
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

// A team's scratch holds each array as (points) x (lanes): value (i, v) of
// member lane v at [i * lanes + v], so a warp's neighbouring threads, which
// own the same point of neighbouring members, touch neighbouring words.
template <class T>
struct Column {
  T* origin;  // point 0
  int stride;
  KOKKOS_INLINE_FUNCTION T& operator[](const int q) const { return origin[q * stride]; }
  KOKKOS_INLINE_FUNCTION T operator()(const int q) const { return origin[q * stride]; }
};

// W at a point computed where it is read, from X: for K = 1 it is one term,
// cheaper than a stored row and the barrier after it. The same function as
// the stored W, so the same value.
template <class T>
struct AverageWhereRead {
  Coefficients<T> co;
  Column<T> x;
  KOKKOS_INLINE_FUNCTION T operator()(const int q) const { return average_w(co, PaddedIndex{}, q, x); }
};

// Per RK stage: the large scale (model III), W (unless K = 1) and the rate
// fused with the stage's end, which writes the next stage's input into the
// other of two input rows, so that one barrier follows each sub-stage. The
// per-point code is the other layouts' (tendency.hpp, RungeKutta), so the
// numbers are theirs.
template <class T>
struct ResidentSteps {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = Policy::member_type;
  using Scratch = Kokkos::View<T*, ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  // GPUs: shared memory. Hosts: level 1, whose limit fits DART's N = 960 in
  // double (level 0 is L1-sized there).
  static constexpr int scratch_level = host_execution ? 1 : 0;

  Coefficients<T> co;
  View2D<T> z;          // E x N states, advanced in place
  View2D<T> increment;  // E x N, used only when !shape.owned_in_scratch
  std::int64_t steps;
  ResidentShape shape;

  KOKKOS_INLINE_FUNCTION static bool average_where_read(const Coefficients<T>& co) { return co.k == 1; }
  static int padded_arrays(const Coefficients<T>& co) {  // two inputs, the large scale, W
    return 2 + (co.two_scale() ? 1 : 0) + (average_where_read(co) ? 0 : 1);
  }
  static std::size_t padded_bytes(const Coefficients<T>& co, const int lanes) {
    return static_cast<std::size_t>(padded_arrays(co)) * Scratch::shmem_size((co.n + 2 * row_halo(co)) * lanes);
  }
  static std::size_t owned_bytes(const Coefficients<T>& co, const int lanes) {  // state, increment
    return 2 * Scratch::shmem_size(co.n * lanes);
  }
  static std::size_t scratch_bytes(const Coefficients<T>& co, const ResidentShape& shape) {
    return padded_bytes(co, shape.lanes) + (shape.owned_in_scratch ? owned_bytes(co, shape.lanes) : 0);
  }

  // Writes point i of a padded row and its wrapped copies (h may exceed n).
  KOKKOS_INLINE_FUNCTION void write_padded(const Column<T>& row, const int i, const T value) const {
    const int n = co.n, h = row_halo(co);
    row[i] = value;
    for (int m = i - n; m >= -h; m -= n) row[m] = value;
    for (int m = i + n; m < n + h; m += n) row[m] = value;
  }

  // Calls f(i, v) for each (point, member lane) this thread owns: slots
  // i * lanes + v dealt out by team rank, the same ones in every sub-stage.
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_owned(const Member& team, const int members, const F& f) const {
    const int slots = co.n * shape.lanes;
    for (int slot = team.team_rank(); slot < slots; slot += team.team_size()) {
      const int v = slot & (shape.lanes - 1);
      if (v < members) f(slot >> shape.lane_shift, v);
    }
  }

  struct Rows {
    T *input, *next_input, *large, *average, *state, *increment;  // padded rows at their point 0
  };

  template <class ReadW>
  KOKKOS_INLINE_FUNCTION void rate_and_finish(const Member& team, const int members, const int stage, const Rows& r,
                                              const int first, const ReadW& read_w) const {
    const int lanes = shape.lanes;
    for_owned(team, members, [&](const int i, const int v) {
      const Column<T> input{r.input + v, lanes}, large{r.large + v, lanes};
      T& state = shape.owned_in_scratch ? r.state[i * lanes + v] : z(first + v, i);
      T& increment_i = shape.owned_in_scratch ? r.increment[i * lanes + v] : increment(first + v, i);
      const T k = co.dt * tendency(co, PaddedIndex{}, i, input, large, read_w(v));
      write_padded(Column<T>{r.next_input + v, lanes}, i, RungeKutta<T>::finish_stage(stage, k, increment_i, state));
    });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int n = co.n, h = row_halo(co), lanes = shape.lanes, padded = (n + 2 * h) * lanes;
    const int first = team.league_rank() * lanes, total = static_cast<int>(z.extent(0));
    const int members = total - first < lanes ? total - first : lanes;
    const auto& scratch = team.team_scratch(int(scratch_level));  // a copy: see VectorSteps
    const Scratch input_a(scratch, padded), input_b(scratch, padded);
    const Scratch large_row = co.two_scale() ? Scratch(scratch, padded) : Scratch();
    const Scratch average_row = average_where_read(co) ? Scratch() : Scratch(scratch, padded);
    const Scratch state_row = shape.owned_in_scratch ? Scratch(scratch, n * lanes) : Scratch();
    const Scratch increment_row = shape.owned_in_scratch ? Scratch(scratch, n * lanes) : Scratch();
    const int offset = h * lanes;
    Rows r{input_a.data() + offset, input_b.data() + offset, nullptr, nullptr, state_row.data(), increment_row.data()};

    for_owned(team, members, [&](const int i, const int v) {
      const T value = z(first + v, i);
      write_padded(Column<T>{r.input + v, lanes}, i, value);
      if (shape.owned_in_scratch) r.state[i * lanes + v] = value;
    });
    team.team_barrier();
    for (std::int64_t step = 0; step < steps; ++step) {
      for (int stage = 0; stage < 4; ++stage) {
        r.large = co.two_scale() ? large_row.data() + offset : r.input;
        if (co.two_scale()) {
          for_owned(team, members, [&](const int i, const int v) {
            write_padded(Column<T>{r.large + v, lanes}, i,
                         large_scale(co, PaddedIndex{}, i, Column<T>{r.input + v, lanes}));
          });
          team.team_barrier();
        }
        if (average_where_read(co)) {
          rate_and_finish(team, members, stage, r, first, [&](const int v) {
            return AverageWhereRead<T>{co, Column<T>{r.large + v, lanes}};
          });
        } else {
          r.average = average_row.data() + offset;
          for_owned(team, members, [&](const int i, const int v) {
            write_padded(Column<T>{r.average + v, lanes}, i,
                         average_w(co, PaddedIndex{}, i, Column<T>{r.large + v, lanes}));
          });
          team.team_barrier();
          rate_and_finish(team, members, stage, r, first, [&](const int v) { return Column<T>{r.average + v, lanes}; });
        }
        team.team_barrier();
        T* const done = r.input;
        r.input = r.next_input;
        r.next_input = done;
      }
    }
    if (shape.owned_in_scratch)
      for_owned(team, members, [&](const int i, const int v) { z(first + v, i) = r.state[i * lanes + v]; });
  }
};

}  // namespace portasolve::lorenz05::detail
