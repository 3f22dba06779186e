#pragma once
// The periodogram functors. All share the device data below and differ in how
// they obtain cos and sin of each (sample, frequency) phase.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "core/math.hpp"
#include "core/spaces.hpp"
#include "core/unroll.hpp"
#include "solvers/lombscargle/detail/sums.hpp"

namespace portasolve::lombscargle::detail {

// Series stored back to back (ragged); series s owns samples
// [offsets(s), offsets(s + 1)). Times stay in double so phases can be formed
// in double whatever T is.
template <class T>
struct DeviceData {
  Kokkos::View<const double*, Kokkos::LayoutRight, MemSpace> t;
  View1D<const T> w;   // weight per sample (1 for classic without weights)
  View1D<const T> wy;  // weight * centred y
  Kokkos::View<const std::int64_t*, Kokkos::LayoutRight, MemSpace> offsets;
  Kokkos::View<const SeriesConstants<T>*, Kokkos::LayoutRight, MemSpace> constants;
  Kokkos::View<const double*, Kokkos::LayoutRight, MemSpace> frequency;  // cycles per unit time
  View2D<T> power;                                                       // series x frequency
  FinishKind kind;
  SumsKind sums;  // host side: which kernel template to launch
};

using TeamPolicy = Kokkos::TeamPolicy<ExecSpace>;
using Member = TeamPolicy::member_type;

// cuSignal's scheme: one thread per frequency, one sincos per sample of the
// phase w t formed in T. Build tells apart the copy compiled with fast math
// (the float baseline of the benchmarks) from the ordinary one.
template <class T, bool Weighted, bool FitMean, int Build = 0>
struct DirectKernel {
  DeviceData<T> data;
  std::int64_t teams_per_series;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t series = team.league_rank() / teams_per_series;
    const std::int64_t k = (team.league_rank() % teams_per_series) * team.team_size() + team.team_rank();
    if (k >= static_cast<std::int64_t>(data.frequency.extent(0))) return;
    const T omega = static_cast<T>(math::two_pi<double>() * data.frequency(k));
    Sums<T, Weighted, FitMean> sums;
    for (std::int64_t j = data.offsets(series); j < data.offsets(series + 1); ++j) {
      T sine, cosine;
      math::sincos(omega * static_cast<T>(data.t(j)), sine, cosine);
      sums.add(cosine, sine, data.w(j), data.wy(j));
    }
    data.power(series, k) = finish(sums, data.constants(series), data.kind);
  }
};

// Team size: cuSignal's 128 threads on GPUs; what the backend allows on hosts.
inline int team_size_for(int preferred) {
  const int limit =
      TeamPolicy(1, Kokkos::AUTO).team_size_max(DirectKernel<double, true, true>{}, Kokkos::ParallelForTag());
  return preferred < limit ? preferred : limit;
}

template <class T, bool Weighted, bool FitMean, int Build>
void launch_direct(const ExecSpace& exec, const DeviceData<T>& data, std::int64_t frequencies,
                   std::int64_t series_count) {
  const int team = team_size_for(128);
  const std::int64_t teams = (frequencies + team - 1) / team;
  Kokkos::parallel_for(Build == 0 ? "lombscargle_direct" : "lombscargle_direct_fast_math",
                       TeamPolicy(exec, static_cast<int>(series_count * teams), team),
                       DirectKernel<T, Weighted, FitMean, Build>{data, teams});
}

// Samples staged through team scratch in tiles: read from global memory once
// per team instead of once per thread. Same arithmetic, same order as direct.
template <class T, bool Weighted, bool FitMean>
struct TiledKernel {
  static constexpr int tile = 256;
  using ScratchDouble = Kokkos::View<double*, ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using ScratchT = Kokkos::View<T*, ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  DeviceData<T> data;
  std::int64_t teams_per_series;

  static std::size_t scratch_bytes() { return ScratchDouble::shmem_size(tile) + 2 * ScratchT::shmem_size(tile); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    ScratchDouble t(team.team_scratch(0), tile);
    ScratchT w(team.team_scratch(0), tile), wy(team.team_scratch(0), tile);
    const std::int64_t series = team.league_rank() / teams_per_series;
    const std::int64_t k = (team.league_rank() % teams_per_series) * team.team_size() + team.team_rank();
    const bool active = k < static_cast<std::int64_t>(data.frequency.extent(0));
    const T omega = active ? static_cast<T>(math::two_pi<double>() * data.frequency(k)) : T(0);
    Sums<T, Weighted, FitMean> sums;
    const std::int64_t begin = data.offsets(series), end = data.offsets(series + 1);
    for (std::int64_t base = begin; base < end; base += tile) {
      const int count = static_cast<int>(end - base < tile ? end - base : tile);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const int i) {
        t(i) = data.t(base + i);
        w(i) = data.w(base + i);
        wy(i) = data.wy(base + i);
      });
      team.team_barrier();
      if (active) {
        for (int i = 0; i < count; ++i) {
          T sine, cosine;
          math::sincos(omega * static_cast<T>(t(i)), sine, cosine);
          sums.add(cosine, sine, w(i), wy(i));
        }
      }
      team.team_barrier();
    }
    if (active) data.power(series, k) = finish(sums, data.constants(series), data.kind);
  }
};

// cos and sin of 2 pi x (x in turns, formed in double) in T: for float the
// turn is reduced in double and the rest done in float, which keeps the phase
// error near 1e-7 rad without double-precision sin/cos.
template <class T>
KOKKOS_INLINE_FUNCTION void seed_cos_sin(double turns, T& cosine, T& sine) {
  if constexpr (std::is_same<T, float>::value) {
    math::sincos_turns(static_cast<float>(turns - ::rint(turns)), sine, cosine);
  } else {
    math::sincos_turns(turns, sine, cosine);
  }
}

// cos and sin of a + b from those of a and b (angle addition).
template <class T>
KOKKOS_INLINE_FUNCTION void add_angles(T cos_a, T sin_a, T cos_b, T sin_b, T& cosine, T& sine) {
  cosine = cos_a * cos_b - sin_a * sin_b;
  sine = sin_a * cos_b + cos_a * sin_b;
}

// Sums of Steps consecutive frequencies, stored by quantity so the loop over
// the frequencies is a plain vector loop on CPUs.
template <class T, bool Weighted, bool FitMean, int Steps>
struct SumsBlock {
  T c[Steps], s[Steps], cc[Steps], ss[Steps], cs[Steps], yc[Steps], ys[Steps];

  KOKKOS_INLINE_FUNCTION SumsBlock() {
    PORTASOLVE_UNROLL
    for (int r = 0; r < Steps; ++r) c[r] = s[r] = cc[r] = ss[r] = cs[r] = yc[r] = ys[r] = T(0);
  }

  // One sample: seed (cos, sin) of the first frequency's phase, and the
  // tabulated (cos, sin) of r grid steps' phase for this sample.
  KOKKOS_INLINE_FUNCTION void add(T seed_cos, T seed_sin, const T* step_cos, const T* step_sin, T w, T wy) {
    PORTASOLVE_UNROLL
    for (int r = 0; r < Steps; ++r) {
      T cosine, sine;
      add_angles(seed_cos, seed_sin, step_cos[r], step_sin[r], cosine, sine);
      accumulate<T, Weighted, FitMean>(cosine, sine, w, wy, c[r], s[r], cc[r], ss[r], cs[r], yc[r], ys[r]);
    }
  }

  KOKKOS_INLINE_FUNCTION Sums<T, Weighted, FitMean> at(int r) const {
    Sums<T, Weighted, FitMean> sums;
    sums.c = c[r], sums.s = s[r], sums.cc = cc[r], sums.ss = ss[r], sums.cs = cs[r], sums.yc = yc[r], sums.ys = ys[r];
    return sums;
  }
};

// (cos, sin) of 2 pi r df t_j for every sample j and step r < Steps, exactly
// from the phase in double: the angle-addition table the recurrence reads.
template <class T, int Steps>
struct StepTableKernel {
  Kokkos::View<const double*, Kokkos::LayoutRight, MemSpace> t;
  Kokkos::View<T*[Steps], Kokkos::LayoutRight, MemSpace> step_cos, step_sin;
  double step;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    const std::int64_t j = index / Steps;
    const int r = static_cast<int>(index % Steps);
    double s, c;
    math::sincos_turns(static_cast<double>(r) * step * t(j), s, c);
    step_cos(j, r) = static_cast<T>(c);
    step_sin(j, r) = static_cast<T>(s);
  }
};

// Uniform grids: each thread owns Steps consecutive frequencies f0 + r df.
// Per sample it seeds (cos, sin) of 2 pi f0 t exactly (phase in double,
// reduced in turns) and reaches all Steps frequencies by angle addition with
// the tabulated steps: no sin/cos per (sample, frequency), no error carried
// from one frequency to the next, and a plain vector loop over r on CPUs.
// Error of every cos/sin, for eps of T: <= 4 eps (seed and table rounded to
// T, then two products and a sum per component); the phases themselves carry
// the rounding of f t in double, as any evaluation does. (float seeds: the
// reduced turn rounded to float adds at most pi eps_float of phase.)
//
// A range of a larger grid (FrequencyGrid::offset): blocks start where the
// larger grid's do (`base`, the multiple of Steps at or below the offset),
// the first and last only partly inside the range; `lead` = offset - base
// columns of the first block are not written. Offset 0: base and lead 0.
template <class T, bool Weighted, bool FitMean, int Steps>
struct RecurrenceKernel {
  DeviceData<T> data;
  Kokkos::View<const T*[Steps], Kokkos::LayoutRight, MemSpace> step_cos, step_sin;
  std::int64_t blocks_per_series;
  double first;       // grid's first frequency, cycles
  double step;        // grid step, cycles
  std::int64_t base;  // the larger grid's index of block 0's first frequency
  std::int64_t lead;  // the range's offset less base (< Steps)

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    const std::int64_t series = index / blocks_per_series;
    const std::int64_t k0 = (index % blocks_per_series) * Steps - lead;  // column of the block's first frequency
    const std::int64_t frequencies = static_cast<std::int64_t>(data.frequency.extent(0));
    const double first_here = first + static_cast<double>(base + lead + k0) * step;
    SumsBlock<T, Weighted, FitMean, Steps> block;
    for (std::int64_t j = data.offsets(series); j < data.offsets(series + 1); ++j) {
      T seed_cos, seed_sin;
      seed_cos_sin(first_here * data.t(j), seed_cos, seed_sin);
      block.add(seed_cos, seed_sin, &step_cos(j, 0), &step_sin(j, 0), data.w(j), data.wy(j));
    }
    PORTASOLVE_UNROLL
    for (int r = 0; r < Steps; ++r)
      if (k0 + r >= 0 && k0 + r < frequencies)
        data.power(series, k0 + r) = finish(block.at(r), data.constants(series), data.kind);
  }
};

// GPUs: the same recurrence with teams of threads that stage a tile of
// samples (t, w, wy and their table rows) in team scratch first, so every
// thread reads them from on-chip memory.
template <class T, bool Weighted, bool FitMean, int Steps>
struct RecurrenceTeamKernel {
  static constexpr int tile = 128;
  using ScratchDouble = Kokkos::View<double*, ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using ScratchT = Kokkos::View<T*, ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using ScratchTable =
      Kokkos::View<T* [Steps], Kokkos::LayoutRight, ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  DeviceData<T> data;
  Kokkos::View<const T*[Steps], Kokkos::LayoutRight, MemSpace> step_cos, step_sin;
  std::int64_t teams_per_series;
  double first, step;
  std::int64_t base, lead;  // as RecurrenceKernel's

  static std::size_t scratch_bytes() {
    return ScratchDouble::shmem_size(tile) + 2 * ScratchT::shmem_size(tile) + 2 * ScratchTable::shmem_size(tile);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    ScratchDouble t(team.team_scratch(0), tile);
    ScratchT w(team.team_scratch(0), tile), wy(team.team_scratch(0), tile);
    ScratchTable table_cos(team.team_scratch(0), tile), table_sin(team.team_scratch(0), tile);
    const std::int64_t series = team.league_rank() / teams_per_series;
    const std::int64_t k0 =
        ((team.league_rank() % teams_per_series) * team.team_size() + team.team_rank()) * Steps - lead;
    const std::int64_t frequencies = static_cast<std::int64_t>(data.frequency.extent(0));
    const double first_here = first + static_cast<double>(base + lead + k0) * step;
    SumsBlock<T, Weighted, FitMean, Steps> block;
    const std::int64_t begin = data.offsets(series), end = data.offsets(series + 1);
    for (std::int64_t base = begin; base < end; base += tile) {
      const int count = static_cast<int>(end - base < tile ? end - base : tile);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count * Steps), [&](const int index) {
        const int i = index / Steps, r = index % Steps;
        table_cos(i, r) = step_cos(base + i, r);
        table_sin(i, r) = step_sin(base + i, r);
        if (r == 0) {
          t(i) = data.t(base + i);
          w(i) = data.w(base + i);
          wy(i) = data.wy(base + i);
        }
      });
      team.team_barrier();
      if (k0 < frequencies) {
        for (int i = 0; i < count; ++i) {
          T seed_cos, seed_sin;
          seed_cos_sin(first_here * t(i), seed_cos, seed_sin);
          block.add(seed_cos, seed_sin, &table_cos(i, 0), &table_sin(i, 0), w(i), wy(i));
        }
      }
      team.team_barrier();
    }
    PORTASOLVE_UNROLL
    for (int r = 0; r < Steps; ++r)
      if (k0 + r >= 0 && k0 + r < frequencies)
        data.power(series, k0 + r) = finish(block.at(r), data.constants(series), data.kind);
  }
};

}  // namespace portasolve::lombscargle::detail
