#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/host_threads.hpp"
#include "core/profiling.hpp"
#include "core/spaces.hpp"
#include "core/workspace_cache.hpp"
#include "solvers/lombscargle/detail/nufft_plan.hpp"
#include "solvers/lombscargle/detail/upload.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace portasolve::lombscargle::detail {

SpreadingKernel spreading_kernel_for(double tolerance) {
  if (!(tolerance > 0 && tolerance < 1))
    throw InputError("nufft_tolerance must be in (0, 1), got " + std::to_string(tolerance));
  const int width = std::clamp(static_cast<int>(std::ceil(-std::log10(tolerance / 10))), 2, 16);
  return SpreadingKernel{width, 2.30 * width};
}

namespace {

// Gauss-Legendre nodes and weights on [0, 1] (Newton on P_q).
void gauss_legendre(int q, std::vector<double>& nodes, std::vector<double>& weights) {
  nodes.resize(q);
  weights.resize(q);
  for (int i = 0; i < q; ++i) {
    double x = std::cos(M_PI * (i + 0.75) / (q + 0.5)), derivative = 1;
    for (int iteration = 0; iteration < 100; ++iteration) {
      double p0 = 1, p1 = x;
      for (int k = 2; k <= q; ++k) {
        const double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      derivative = q * (x * p1 - p0) / (x * x - 1);
      const double step = p1 / derivative;
      x -= step;
      if (std::fabs(step) < 1e-16) break;
    }
    nodes[i] = 0.5 * (x + 1);
    weights[i] = 1 / ((1 - x * x) * derivative * derivative);  // 2 / (...) on [-1, 1], halved on [0, 1]
  }
}

template <class T>
using HostSamples = NufftHostSamples<T>;

// The offsets on the host; the times too only where a series is too long
// for the device sort (sort_samples reads them back then).
template <class T>
HostSamples<T> to_host(const ExecSpace& exec, const DeviceData<T>& data) {
  return HostSamples<T>{{}, download(exec, data.offsets)};
}

// t, w and wy of the samples in `order` (sample indices), on the device.
template <class T>
struct GatherSamples {
  Kokkos::View<const std::int64_t*, Kokkos::LayoutRight, MemSpace> order;
  Kokkos::View<const double*, Kokkos::LayoutRight, MemSpace> t;
  View1D<const T> w, wy;
  Kokkos::View<double*, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryUnmanaged> sorted_t;
  Kokkos::View<T*, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryUnmanaged> sorted_w, sorted_wy;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t j = order(i);
    sorted_t(i) = t(j);
    sorted_w(i) = w(j);
    sorted_wy(i) = wy(j);
  }
};

// A product and a difference rounded once each, as written: GPU compilers
// would fuse `n * (turns - floor(turns))`'s parts with the multiply that
// made turns into FMAs, and the device's positions must be the host's bits
// (hosts sort series past the device sort's reach, and a series' power must
// not depend on the batch it came in).
KOKKOS_INLINE_FUNCTION double grid_position(const double turns_per_time, const double t, const double n) {
#if defined(__CUDA_ARCH__)
  const double turns = __dmul_rn(turns_per_time, t);
  return __dmul_rn(n, __dsub_rn(turns, math::floor(turns)));
#elif defined(__HIP_DEVICE_COMPILE__)
#pragma clang fp contract(off)
  const double turns = turns_per_time * t;
  return n * (turns - math::floor(turns));
#else
  const double turns = turns_per_time * t;
  return n * (turns - math::floor(turns));
#endif
}

// Series of at most this many samples are sorted on the device, a team per
// series with its (position, index) pairs in team scratch (16 bytes each:
// 32 KiB, within every backend's level-0 scratch); longer ones on the host.
constexpr std::int64_t device_sort_capacity = 2048;

// Each series' samples sorted by (position, index) in a bitonic network over
// `capacity` slots (a power of two; the slots past the series' count hold
// +inf, so they stay last): the order std::stable_sort by position gives,
// since ties go by index. Writes the positions in that order and the order.
struct SortSeriesOnDevice {
  using Keys = Kokkos::View<double*, ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using Indices = Kokkos::View<std::int64_t*, ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  Kokkos::View<const double*, Kokkos::LayoutRight, MemSpace> t;
  Kokkos::View<const std::int64_t*, Kokkos::LayoutRight, MemSpace> offsets;
  Kokkos::View<double*, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryUnmanaged> position;
  Kokkos::View<std::int64_t*, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryUnmanaged> order;
  double turns_per_time, n;
  int capacity;

  static std::size_t scratch_bytes(const int capacity) {
    return Keys::shmem_size(capacity) + Indices::shmem_size(capacity);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const TeamPolicy::member_type& team) const {
    const std::int64_t begin = offsets(team.league_rank()), count = offsets(team.league_rank() + 1) - begin;
    Keys key(team.team_scratch(0), capacity);
    Indices index(team.team_scratch(0), capacity);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, capacity), [&](const int i) {
      key(i) = i < count ? grid_position(turns_per_time, t(begin + i), n) : HUGE_VAL;
      index(i) = begin + i;
    });
    team.team_barrier();
    for (int size = 2; size <= capacity; size *= 2)
      for (int stride = size / 2; stride > 0; stride /= 2) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, capacity / 2), [&](const int pair) {
          // The pair's lower slot i (bit `stride` clear) and its partner i + stride.
          const int i = 2 * pair - (pair & (stride - 1)), j = i + stride;
          const bool ascending = (i & size) == 0;
          const bool later = key(i) > key(j) || (key(i) == key(j) && index(i) > index(j));
          if (later == ascending) {
            const double k = key(i);
            key(i) = key(j);
            key(j) = k;
            const std::int64_t x = index(i);
            index(i) = index(j);
            index(j) = x;
          }
        });
        team.team_barrier();
      }
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const int i) {
      position(begin + i) = key(i);
      order(begin + i) = index(i);
    });
  }
};

// sort_samples' host side, for series too long for the device sort.
template <class T>
void sort_on_host(const ExecSpace& exec, const HostSamples<T>& host, double step, int multiple, std::int64_t n,
                  const std::string& name, SortedSamples<T>& sorted,
                  Kokkos::View<const std::int64_t*, Kokkos::LayoutRight, MemSpace>& order_view,
                  NufftSortScratch& scratch) {
  const auto& t = host.t;
  const auto& offsets = host.offsets;
  const std::size_t total = t.extent(0);
  // Resized only when the sample count grows: every entry is written below.
  scratch.position.resize(total);
  scratch.sorted_position.resize(total);
  scratch.order.resize(total);
  std::vector<double>& position = scratch.position;
  std::vector<double>& sorted_position = scratch.sorted_position;
  std::vector<std::int64_t>& order = scratch.order;
  constexpr std::size_t series_per_thread = 64;
  for_each_on_host_threads(offsets.extent(0) - 1, series_per_thread, [&](std::size_t s) {
    const std::int64_t begin = offsets(s), end = offsets(s + 1);
    for (std::int64_t j = begin; j < end; ++j)
      position[j] = grid_position(multiple * step, t(j), static_cast<double>(n));
    const auto first = order.begin() + begin, last = order.begin() + end;
    std::iota(first, last, begin);
    std::stable_sort(first, last, [&](std::int64_t a, std::int64_t b) { return position[a] < position[b]; });
    for (std::int64_t i = begin; i < end; ++i) sorted_position[i] = position[order[i]];
  });
  upload_into(exec, sorted.position, name + "_position", sorted_position);
  upload_into(exec, order_view, name + "_order", order);
  exec.fence();  // before the host arrays change
}

// Samples of every series sorted by n frac(multiple * df * t), into
// `sorted` on exec: positions and order by a team per series on the device
// (SortSeriesOnDevice), or for series past its reach on the host's cores and
// uploaded (sort_on_host; host.t may be empty: read back then); then
// t, w and wy gathered from `data` on the device, and exec fenced. `order`
// holds the order (kept by the plan: a refresh reuses it).
template <class T>
void sort_samples(const ExecSpace& exec, const DeviceData<T>& data, const HostSamples<T>& host, double step,
                  int multiple, std::int64_t n, const char* label, SortedSamples<T>& sorted,
                  Kokkos::View<const std::int64_t*, Kokkos::LayoutRight, MemSpace>& order_view,
                  NufftSortScratch& scratch) {
  const auto& offsets = host.offsets;
  const std::size_t total = data.t.extent(0);
  const std::string name(label);
  std::int64_t longest = 0;
  for (std::size_t s = 0; s + 1 < offsets.extent(0); ++s) longest = std::max(longest, offsets(s + 1) - offsets(s));
  if (longest <= device_sort_capacity) {
    int capacity = 2;
    while (capacity < longest) capacity *= 2;
    const int series_count = static_cast<int>(offsets.extent(0) - 1);
    Kokkos::parallel_for("lombscargle_nufft_sort",
                         TeamPolicy(exec, series_count, team_size_for(std::min(capacity / 2, 256)))
                             .set_scratch_size(0, Kokkos::PerTeam(SortSeriesOnDevice::scratch_bytes(capacity))),
                         SortSeriesOnDevice{data.t, data.offsets, sized(sorted.position, total, name + "_position"),
                                            sized(order_view, total, name + "_order"), multiple * step,
                                            static_cast<double>(n), capacity});
  } else {
    const HostSamples<T> with_times =
        host.t.extent(0) == total ? host : HostSamples<T>{download(exec, data.t), host.offsets};
    sort_on_host(exec, with_times, step, multiple, n, name, sorted, order_view, scratch);
  }
  const GatherSamples<T> gather{order_view,
                                data.t,
                                data.w,
                                data.wy,
                                sized(sorted.t, total, name + "_t"),
                                sized(sorted.w, total, name + "_w"),
                                sized(sorted.wy, total, name + "_wy")};
  Kokkos::parallel_for("lombscargle_nufft_gather",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, total), gather);
  exec.fence();
}

template <class T>
SortedSamples<T> sort_samples(const ExecSpace& exec, const DeviceData<T>& data, const HostSamples<T>& host, double step,
                              int multiple, std::int64_t n, const char* label,
                              Kokkos::View<const std::int64_t*, Kokkos::LayoutRight, MemSpace>& order,
                              NufftSortScratch& scratch) {
  SortedSamples<T> sorted;
  sort_samples(exec, data, host, step, multiple, n, label, sorted, order, scratch);
  return sorted;
}

// The per-series host path (NufftPlan::host_workers): series are handed out
// one at a time to the host threads; each spreads its series' samples onto
// its own grids by scatter (a thread owns its grids whole: no atomics, no
// sort), transforms them with its own plan and finishes every frequency.
constexpr bool host_path_available = std::is_same<MemSpace, HostSpace>::value && fft::library_available;

// Above this many bytes of grids per series the host path is not taken:
// such grids go through the chunked path, whose FFT uses every core on one
// transform. The choice depends on the grid only, never on how many series
// come together, so a series' power is the same alone and in any batch.
constexpr std::size_t host_worker_grid_bytes = std::size_t(8) << 20;

// Smallest even length >= minimum of the form 2^a 3^b 5^c: FFTW transforms
// them about as fast per point as powers of two, so the grid holds close to
// twice the modes instead of up to four times.
[[maybe_unused]] std::int64_t smooth_length(std::int64_t minimum) {
  std::int64_t best = 2;
  while (best < minimum) best *= 2;
  for (std::int64_t p5 = 1; p5 < best; p5 *= 5)
    for (std::int64_t p3 = p5; p3 < best; p3 *= 3) {
      std::int64_t length = 2 * p3;
      while (length < minimum) length *= 2;
      best = std::min(best, length);
    }
  return best;
}

// The host path's upsampling: grids of 1.5 (not 2) times the modes, with
// the wider kernel that keeps the tolerance (FINUFFT's rule for an
// upsampling sigma: w = ceil(ln(1 / tol) / (pi sqrt(1 - 1 / sigma))), beta =
// 0.97 pi (1 - 1 / (2 sigma)) w). The transforms, most of a short series'
// cost, shrink by about 40% (20480 -> 15360 points at M = 10^4); spreading
// grows with w (11 instead of 9 points at float's 1e-8). Where w would pass
// 16 the host path keeps sigma = 2.
constexpr double host_upsampling = 1.5;

[[maybe_unused]] SpreadingKernel host_spreading_kernel(double tolerance) {
  const double sigma = host_upsampling;
  const int width =
      std::max(2, static_cast<int>(std::ceil(std::log(1 / tolerance) / (M_PI * std::sqrt(1 - 1 / sigma)))));
  return SpreadingKernel{width, 0.97 * M_PI * (1 - 0.5 / sigma) * width};
}

// Window point i of a sample at `position` is first + i, first =
// floor(position - w/2) + 1, at distance w/2 - 1 - i + xi from it, xi the
// fraction of position - w/2: its weight phi((w/2 - 1 - i + xi) 2 / w) is a
// smooth function of xi in [0, 1), which FINUFFT evaluates as a polynomial
// (Horner, vectorised over the points) instead of an exp and a sqrt per
// point. Here: degree w + 3 in s = 2 xi - 1, interpolated at Chebyshev nodes
// in long double; kept only if, with coefficients rounded to T, it is within
// max(tolerance / 10, 4 eps_T) of phi on a fine sampling.
[[maybe_unused]] constexpr int kernel_points = 16;  // host path only

template <class T>
void host_kernel_polynomials(NufftPlan<T>& plan, double tolerance) {
  const int width = plan.kernel.width, degree = width + 3, count = degree + 1;
  const long double beta = plan.kernel.beta;
  const auto phi = [&](long double z) { return std::exp(beta * (std::sqrt(std::max(0.0L, 1 - z * z)) - 1)); };
  const auto weight = [&](int i, long double s) { return phi((0.5L * width - 1 - i + 0.5L * (s + 1)) * 2 / width); };
  std::vector<T> coefficients(static_cast<std::size_t>(count * kernel_points), T(0));
  for (int i = 0; i < width; ++i) {
    // Vandermonde system at the Chebyshev nodes, by elimination with pivoting.
    std::vector<std::vector<long double>> a(count, std::vector<long double>(count + 1));
    for (int j = 0; j < count; ++j) {
      const long double s = std::cos(3.14159265358979323846264338327950288L * (j + 0.5L) / count);
      long double power = 1;
      for (int k = 0; k < count; ++k, power *= s) a[j][k] = power;
      a[j][count] = weight(i, s);
    }
    for (int c = 0; c < count; ++c) {
      int pivot = c;
      for (int r = c + 1; r < count; ++r)
        if (std::fabs(a[r][c]) > std::fabs(a[pivot][c])) pivot = r;
      std::swap(a[c], a[pivot]);
      for (int r = 0; r < count; ++r) {
        if (r == c) continue;
        const long double factor = a[r][c] / a[c][c];
        for (int k = c; k <= count; ++k) a[r][k] -= factor * a[c][k];
      }
    }
    for (int k = 0; k < count; ++k)
      coefficients[static_cast<std::size_t>(k * kernel_points + i)] = static_cast<T>(a[k][count] / a[k][k]);
  }
  const double allowed = std::max(0.1 * tolerance, 4.0 * std::numeric_limits<T>::epsilon());
  for (int i = 0; i < width; ++i)
    for (int q = 0; q <= 1000; ++q) {
      const long double s = -1 + 2.0L * q / 1000;
      long double value = 0;
      for (int k = degree; k >= 0; --k)
        value = value * s + static_cast<long double>(coefficients[static_cast<std::size_t>(k * kernel_points + i)]);
      if (!(std::fabs(value - weight(i, s)) <= allowed)) return;  // evaluated exactly instead
    }
  plan.kernel_polynomials = std::move(coefficients);
  plan.kernel_degree = degree;
}

// Adds value x phi((position - l) / (width / 2)) to row[l mod n] for the
// width grid points l around position (in [0, n)); the weights from the
// polynomials where there are (degree >= 0), else exactly.
template <class T>
inline void scatter(Complex<T>* row, Complex<T>* second, std::int64_t n, double position, int width, T beta,
                    const T* polynomials, int degree, Complex<T> value, Complex<T> second_value) {
  const double half = 0.5 * width;
  const double left = std::floor(position - half);
  const std::int64_t first = static_cast<std::int64_t>(left) + 1;
  T weight[kernel_points];
  if (degree >= 0) {
    const T s = static_cast<T>(2 * (position - half - left) - 1);
    for (int i = 0; i < kernel_points; ++i) weight[i] = polynomials[degree * kernel_points + i];
    for (int k = degree - 1; k >= 0; --k)
      for (int i = 0; i < kernel_points; ++i) weight[i] = weight[i] * s + polynomials[k * kernel_points + i];
  } else {
    const T inverse_half = T(2) / static_cast<T>(width);
    for (int i = 0; i < width; ++i) {
      const T z = static_cast<T>(position - static_cast<double>(first + i)) * inverse_half;
      weight[i] = semicircle_exp(z, beta);
    }
  }
  if (first >= 0 && first + width <= n) {
    for (int i = 0; i < width; ++i) row[first + i] += weight[i] * value;
    if (second)
      for (int i = 0; i < width; ++i) second[first + i] += weight[i] * second_value;
    return;
  }
  for (int i = 0; i < width; ++i) {
    std::int64_t l = first + i;
    l = l < 0 ? l + n : (l >= n ? l - n : l);
    row[l] += weight[i] * value;
    if (second) second[l] += weight[i] * second_value;
  }
}

// The generalized form's finish of one series on the host path. The power
// is the model's chi^2 reduction, the quadratic form of the centred sums
// (YC', YS') = (YC - Y C, YS - Y S) in the inverse of the 2 x 2 matrix
// M = [[CC - C^2, CS - C S], [CS - C S, SS - S^2]]:
//   p = (SS' YC'^2 - 2 CS' YC' YS' + CC' YS'^2) / det M,
// what rotating by tau and summing YC_tau^2 / CC_tau + YS_tau^2 / SS_tau
// computes (CC_tau, SS_tau are M's eigenvalues), with one division and no
// trigonometry. The conditioning guard is the same: both eigenvalues >= g =
// 1% of sum w, i.e. trace >= 2 g and det >= g (trace - g); other frequencies
// are summed directly (NufftFinish's fallback).
template <class T, bool Weighted, bool FitMean>
void finish_generalized_on_host(const NufftFinish<T, Weighted, FitMean>& finish, std::int64_t series) {
  const NufftLayout& layout = finish.layout;
  const SeriesConstants<T> constants = finish.data.constants(series);
  const T guard = NufftFinish<T, Weighted, FitMean>::conditioning_guard * constants.w_sum;
  const T half_w = T(0.5) * constants.w_sum;
  const std::int64_t n = layout.fft.n;
  T* power = &finish.data.power(series, 0);
  const T* correction = finish.correction.data();
  for (std::int64_t segment = 0; segment < layout.segments; ++segment) {
    const std::int64_t row = finish.rows.first(0, segment, layout.segments);
    const Complex<T>* z1_row = &finish.grid(row + SumRows::z1, 0);
    const Complex<T>* z2_row = &finish.grid(row + SumRows::z2, 0);
    const Complex<T>* z0_row = FitMean ? &finish.grid(row + SumRows::z0, 0) : nullptr;
    const std::int64_t first_k = segment * layout.modes;
    const std::int64_t last_k = std::min(first_k + layout.modes, layout.frequencies);
    for (std::int64_t k = first_k; k < last_k; ++k) {
      const std::int64_t m = k - first_k - layout.modes / 2;
      const std::int64_t position = m < 0 ? m + n : m;
      const T scale = correction[m < 0 ? -m : m];
      const Complex<T> z1 = z1_row[position], z2 = z2_row[position];
      T yc = z1.real() * scale, ys = z1.imag() * scale;
      T cc = half_w + T(0.5) * scale * z2.real(), ss = half_w - T(0.5) * scale * z2.real();
      T cs = T(0.5) * scale * z2.imag();
      if constexpr (FitMean) {
        const Complex<T> z0 = z0_row[position];
        const T c = z0.real() * scale, s = z0.imag() * scale;
        cc -= c * c;
        ss -= s * s;
        cs -= c * s;
        yc -= constants.y_sum * c;
        ys -= constants.y_sum * s;
      }
      const T trace = cc + ss, det = cc * ss - cs * cs;
      if (trace >= 2 * guard && det >= guard * (trace - guard)) {
        const T p = (ss * yc * yc - 2 * cs * yc * ys + cc * ys * ys) / det;
        power[k] = generalized_normalization(p, constants, finish.data.kind);
      } else {
        finish((series - finish.first_series) * layout.frequencies + k);
      }
    }
  }
}

// The host path's spreading onto one fine grid of n points: the plan's
// kernel at n frac(turns), as scatter() adds it.
template <class T>
struct HostSpreading {
  std::int64_t n;
  int width;
  T beta;
  const T* polynomials;
  int degree;
  explicit HostSpreading(const NufftPlan<T>& plan)
      : n(plan.layout.fft.n),
        width(plan.kernel.width),
        beta(static_cast<T>(plan.kernel.beta)),
        polynomials(plan.kernel_polynomials.data()),
        degree(plan.kernel_degree) {}
  // value into `row` (and second_value into `second`, unless null) around
  // the phase `turns` (in cycles).
  void add(Complex<T>* row, Complex<T>* second, double turns, Complex<T> value, Complex<T> second_value) const {
    scatter<T>(row, second, n, static_cast<double>(n) * (turns - std::floor(turns)), width, beta, polynomials, degree,
               value, second_value);
  }
};

// On host backends only, where ExecSpace is the host's execution space:
// each host thread takes whole series through its own grids (zeroed here),
// per_series(own, series) the rest; exec fenced on return.
template <class T, class PerSeries>
void for_each_series_on_host(const ExecSpace& exec, NufftPlan<T>& plan, std::int64_t series_count, const char* name,
                             const PerSeries& per_series) {
  std::atomic<std::int64_t> next{0};
  const int workers = static_cast<int>(plan.host_workers.size());
  Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecSpace>(exec, 0, workers), [&](const int worker) {
    const typename NufftPlan<T>::HostWorker& own = plan.host_workers[static_cast<std::size_t>(worker)];
    for (std::int64_t series; (series = next.fetch_add(1, std::memory_order_relaxed)) < series_count;) {
      std::fill(own.grid.data(), own.grid.data() + own.grid.size(), Complex<T>(0));
      per_series(own, series);
    }
  });
  exec.fence();
}

template <class T, bool Weighted, bool FitMean>
void run_on_host(const ExecSpace& exec, NufftPlan<T>& plan, const DeviceData<T>& data) {
  const NufftLayout& layout = plan.layout;
  const std::int64_t series_count = static_cast<std::int64_t>(data.offsets.extent(0)) - 1;
  const HostSpreading<T> spreading(plan);
  for_each_series_on_host(
      exec, plan, series_count, "lombscargle_nufft_series",
      [&](const typename NufftPlan<T>::HostWorker& own, const std::int64_t series) {
        const std::int64_t begin = data.offsets(series), end = data.offsets(series + 1);
        for (std::int64_t segment = 0; segment < layout.segments; ++segment) {
          const std::int64_t row = plan.rows.first(0, segment, layout.segments);
          Complex<T>* z1 = &own.grid(row + SumRows::z1, 0);
          Complex<T>* z2 = &own.grid(row + SumRows::z2, 0);
          Complex<T>* z0 = FitMean ? &own.grid(row + SumRows::z0, 0) : nullptr;
          const double centre = layout.centre(segment);
          for (std::int64_t j = begin; j < end; ++j) {
            const double t = data.t(j);
            T c, s;
            seed_cos_sin(centre * t, c, s);
            const T w = data.w(j), wy = data.wy(j);
            spreading.add(z1, z0, layout.step * t, Complex<T>(wy * c, wy * s), Complex<T>(w * c, w * s));
            seed_cos_sin(2 * centre * t, c, s);
            spreading.add(z2, nullptr, 2 * layout.step * t, Complex<T>(w * c, w * s), Complex<T>(0));
          }
        }
        own.fft->execute(exec, own.grid, own.spectra);
        const NufftFinish<T, Weighted, FitMean> finish{data, own.spectra, plan.correction, layout, plan.rows, series};
        if (data.kind.classic)
          for (std::int64_t k = 0; k < layout.frequencies; ++k) finish(k);
        else
          finish_generalized_on_host(finish, series);
      });
}

constexpr std::size_t grid_budget_bytes = std::size_t(512) << 20;

template <class T, bool Weighted, bool FitMean>
void run(const ExecSpace& exec, NufftPlan<T>& plan, const DeviceData<T>& data) {
  if constexpr (host_path_available) {
    if (!plan.host_workers.empty()) {
      run_on_host<T, Weighted, FitMean>(exec, plan, data);
      return;
    }
  }
  const NufftLayout& layout = plan.layout;
  const std::int64_t samples = static_cast<std::int64_t>(data.t.extent(0));
  const std::int64_t series_count = static_cast<std::int64_t>(data.offsets.extent(0)) - 1;
  using Coefficients = NufftCoefficients<T, FitMean>;
  const Coefficients coefficients{plan.once, plan.twice, layout, plan.c1, plan.c0, plan.c2};
  using Index = Kokkos::IndexType<std::int64_t>;
  Kokkos::parallel_for(
      "lombscargle_nufft_coefficients",
      Kokkos::RangePolicy<ExecSpace, typename Coefficients::Once, Index>(exec, 0, layout.segments * samples),
      coefficients);
  Kokkos::parallel_for(
      "lombscargle_nufft_coefficients",
      Kokkos::RangePolicy<ExecSpace, typename Coefficients::Twice, Index>(exec, 0, layout.segments * samples),
      coefficients);
  for (std::int64_t first = 0; first < series_count; first += plan.chunk_series) {
    const std::int64_t chunk = std::min(plan.chunk_series, series_count - first);
    const std::int64_t first_sample = plan.offsets[first], chunk_samples = plan.offsets[first + chunk] - first_sample;
    const auto rows = Kokkos::subview(
        plan.grid, std::make_pair(std::int64_t(0), chunk * layout.segments * plan.rows.per_unit), Kokkos::ALL);
    zero_on(exec, rows);
    using Spread = NufftSpread<T, FitMean>;
    const Spread spread{plan.once,
                        plan.twice,
                        data.offsets,
                        plan.series_of,
                        plan.c1,
                        plan.c0,
                        plan.c2,
                        plan.grid,
                        layout,
                        plan.rows,
                        first,
                        first_sample,
                        chunk_samples,
                        plan.kernel.width,
                        static_cast<T>(plan.kernel.beta)};
    const std::int64_t threads = layout.segments * chunk_samples * 3 * plan.kernel.width;
    Kokkos::parallel_for("lombscargle_nufft_spread",
                         Kokkos::RangePolicy<ExecSpace, typename Spread::Once, Index>(exec, 0, threads), spread);
    Kokkos::parallel_for("lombscargle_nufft_spread",
                         Kokkos::RangePolicy<ExecSpace, typename Spread::Twice, Index>(exec, 0, threads), spread);
    // The library's plan covers every row of the grid: a last, shorter
    // chunk transforms a few stale rows that nothing reads.
    if (plan.library_fft)
      plan.library_fft->execute(exec, plan.grid, plan.spectra);
    else
      fft_rows<T>(exec, rows, plan.twiddle, layout.fft);
    Kokkos::parallel_for("lombscargle_nufft_finish",
                         Kokkos::RangePolicy<ExecSpace, Index>(exec, 0, chunk * layout.frequencies),
                         NufftFinish<T, Weighted, FitMean>{data, plan.library_fft ? plan.spectra : plan.grid,
                                                           plan.correction, layout, plan.rows, first});
  }
}

// Multi-term models (nterms > 1) on the host path: as run_on_host, each
// host thread takes whole series through its own grids, one row pair per
// harmonic (w and, for k <= nterms, w y at the same positions n frac(k df t)),
// then the direct path's normal equations per frequency.
template <class T, int NTerms, bool FitMean>
void run_multiterm_on_host(const ExecSpace& exec, NufftPlan<T>& plan, const DeviceData<T>& data) {
  const NufftLayout& layout = plan.layout;
  const std::int64_t series_count = static_cast<std::int64_t>(data.offsets.extent(0)) - 1;
  const HostSpreading<T> spreading(plan);
  for_each_series_on_host(exec, plan, series_count, "lombscargle_nufft_multiterm_series",
                          [&](const typename NufftPlan<T>::HostWorker& own, const std::int64_t series) {
                            const std::int64_t begin = data.offsets(series), end = data.offsets(series + 1);
                            for (std::int64_t segment = 0; segment < layout.segments; ++segment) {
                              const std::int64_t row = plan.rows.first(0, segment, layout.segments);
                              const double centre = layout.centre(segment);
                              for (int h = 1; h <= 2 * NTerms; ++h) {
                                Complex<T>* zw = &own.grid(row + plan.rows.harmonic_w(h), 0);
                                Complex<T>* zwy = h <= NTerms ? &own.grid(row + plan.rows.harmonic_wy(h), 0) : nullptr;
                                for (std::int64_t j = begin; j < end; ++j) {
                                  const double t = data.t(j);
                                  T c, s;
                                  seed_cos_sin(static_cast<double>(h) * centre * t, c, s);
                                  const T w = data.w(j), wy = data.wy(j);
                                  spreading.add(zw, zwy, static_cast<double>(h) * layout.step * t,
                                                Complex<T>(w * c, w * s), Complex<T>(wy * c, wy * s));
                                }
                              }
                            }
                            own.fft->execute(exec, own.grid, own.spectra);
                            const NufftMultitermFinish<T, NTerms, FitMean> finish{data,   own.spectra, plan.correction,
                                                                                  layout, plan.rows,   series};
                            for (std::int64_t k = 0; k < layout.frequencies; ++k) finish(k);
                          });
}

// Multi-term models on the chunked path: as run, one coefficient and one
// spreading launch per harmonic.
template <class T, int NTerms, bool FitMean>
void run_multiterm(const ExecSpace& exec, NufftPlan<T>& plan, const DeviceData<T>& data) {
  if constexpr (host_path_available) {
    if (!plan.host_workers.empty()) {
      run_multiterm_on_host<T, NTerms, FitMean>(exec, plan, data);
      return;
    }
  }
  const NufftLayout& layout = plan.layout;
  const std::int64_t samples = static_cast<std::int64_t>(data.t.extent(0));
  const std::int64_t series_count = static_cast<std::int64_t>(data.offsets.extent(0)) - 1;
  using Index = Kokkos::IndexType<std::int64_t>;
  for (int h = 1; h <= 2 * NTerms; ++h) {
    const auto i = static_cast<std::size_t>(h - 1);
    Kokkos::parallel_for(
        "lombscargle_nufft_coefficients", Kokkos::RangePolicy<ExecSpace, Index>(exec, 0, layout.segments * samples),
        NufftHarmonicCoefficients<T>{plan.harmonic_samples[i], layout, h, h <= NTerms, plan.harmonic_w[i],
                                     h <= NTerms ? plan.harmonic_wy[i] : plan.harmonic_w[i]});
  }
  for (std::int64_t first = 0; first < series_count; first += plan.chunk_series) {
    const std::int64_t chunk = std::min(plan.chunk_series, series_count - first);
    const std::int64_t first_sample = plan.offsets[first], chunk_samples = plan.offsets[first + chunk] - first_sample;
    const auto rows = Kokkos::subview(
        plan.grid, std::make_pair(std::int64_t(0), chunk * layout.segments * plan.rows.per_unit), Kokkos::ALL);
    zero_on(exec, rows);
    const std::int64_t threads = layout.segments * chunk_samples * 3 * plan.kernel.width;
    for (int h = 1; h <= 2 * NTerms; ++h) {
      const auto i = static_cast<std::size_t>(h - 1);
      Kokkos::parallel_for(
          "lombscargle_nufft_spread", Kokkos::RangePolicy<ExecSpace, Index>(exec, 0, threads),
          NufftHarmonicSpread<T>{plan.harmonic_samples[i], data.offsets, plan.series_of, plan.harmonic_w[i],
                                 h <= NTerms ? plan.harmonic_wy[i] : plan.harmonic_w[i], plan.grid, layout, plan.rows,
                                 h, h <= NTerms, first, first_sample, chunk_samples, plan.kernel.width,
                                 static_cast<T>(plan.kernel.beta)});
    }
    // As in run: a last, shorter chunk transforms stale rows nothing reads.
    if (plan.library_fft)
      plan.library_fft->execute(exec, plan.grid, plan.spectra);
    else
      fft_rows<T>(exec, rows, plan.twiddle, layout.fft);
    Kokkos::parallel_for("lombscargle_nufft_finish",
                         Kokkos::RangePolicy<ExecSpace, Index>(exec, 0, chunk * layout.frequencies),
                         NufftMultitermFinish<T, NTerms, FitMean>{data, plan.library_fft ? plan.spectra : plan.grid,
                                                                  plan.correction, layout, plan.rows, first});
  }
}

// nterms and fit_mean (runtime) to run_multiterm's template arguments.
template <class T, int... NTerms>
void dispatch_multiterm(const ExecSpace& exec, NufftPlan<T>& plan, const DeviceData<T>& data,
                        std::integer_sequence<int, NTerms...>) {
  const auto one = [&](auto fixed) {
    constexpr int n = decltype(fixed)::value;
    if (plan.rows.nterms != n) return;
    if (data.sums.fit_mean)
      run_multiterm<T, n, true>(exec, plan, data);
    else
      run_multiterm<T, n, false>(exec, plan, data);
  };
  (one(std::integral_constant<int, NTerms + 2>{}), ...);  // 2 .. max_nterms
}

// The kernel's Fourier transform's reciprocal for `modes` modes of a grid of
// n, on exec (fenced before the quadrature's nodes and weights go).
template <class T>
Kokkos::View<T*, Kokkos::LayoutRight, MemSpace> correction_table(const ExecSpace& exec, const SpreadingKernel& kernel,
                                                                 std::int64_t modes, std::int64_t n) {
  std::vector<double> nodes, weights;
  gauss_legendre(2 * kernel.width + 4, nodes, weights);
  Kokkos::View<T*, Kokkos::LayoutRight, MemSpace> table(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lombscargle_nufft_correction")), modes / 2 + 1);
  const View1D<T> node_view = upload<View1D<T>>(exec, "lombscargle_nufft_nodes", nodes);
  const View1D<T> weighted(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lombscargle_nufft_weighted")),
                           nodes.size());
  Kokkos::parallel_for(
      "lombscargle_nufft_kernel_at_nodes", Kokkos::RangePolicy<ExecSpace>(exec, 0, static_cast<int>(nodes.size())),
      NufftKernelAtNodes<T>{weighted, node_view, upload<View1D<T>>(exec, "lombscargle_nufft_weights", weights),
                            static_cast<T>(kernel.beta)});
  Kokkos::parallel_for("lombscargle_nufft_correction",
                       Kokkos::RangePolicy<ExecSpace>(exec, 0, static_cast<int>(table.extent(0))),
                       NufftCorrection<T>{table, node_view, weighted,
                                          static_cast<T>(M_PI * kernel.width / static_cast<double>(n)), kernel.width});
  exec.fence();
  return table;
}

// A correction table kept for the next plan of the same modes, grid and
// kernel (core/workspace_cache.hpp): calls from Python on one frequency grid
// spent a third of their time re-forming it.
template <class T>
struct KeptCorrection {
  using Key = std::tuple<std::int64_t, std::int64_t, int, double>;  // modes, n, kernel width and beta
  Kokkos::View<T*, Kokkos::LayoutRight, MemSpace> table;
};

// The plan's correction for a grid of n: kept, or made on exec (and fenced).
template <class T>
void make_correction(const ExecSpace& exec, NufftPlan<T>& plan, std::int64_t n) {
  const typename KeptCorrection<T>::Key key{plan.layout.modes, n, plan.kernel.width, plan.kernel.beta};
  const BorrowedWorkspace<KeptCorrection<T>> kept(
      key, [&] { return KeptCorrection<T>{correction_table<T>(exec, plan.kernel, plan.layout.modes, n)}; });
  plan.correction = kept->table;  // read only from here on: plans share it
}

}  // namespace

template <class T>
NufftPlan<T> make_nufft_plan(const ExecSpace& exec, const DeviceData<T>& data, const FrequencyGrid& grid,
                             const Options& options) {
  ProfilingRegion region("lombscargle/nufft_plan");
  NufftPlan<T> plan;
  plan.kernel = spreading_kernel_for(nufft_tolerance<T>(options));
  const int team_length = fft_team_length<T>();
  std::int64_t limit = fft_max_length(team_length);
  if (options.nufft_grid_limit != 0) {
    if (!valid_nufft_grid_limit(options.nufft_grid_limit))
      throw InputError("nufft_grid_limit must be a power of two >= 64, got " +
                       std::to_string(options.nufft_grid_limit));
    limit = std::min<std::int64_t>(limit, options.nufft_grid_limit);
  }
  NufftLayout& layout = plan.layout;
  layout.frequencies = static_cast<std::int64_t>(grid.size());
  layout.first = grid.first + static_cast<double>(grid.offset) * grid.step;  // a range's first frequency
  layout.step = grid.step;
  layout.modes = std::min(layout.frequencies, limit / 2);
  layout.segments = (layout.frequencies + layout.modes - 1) / layout.modes;
  std::int64_t n = 64;
  while (n < 2 * layout.modes || n < 4 * plan.kernel.width) n *= 2;
  const bool fit_mean = data.sums.fit_mean;
  const int nterms = options.form == Form::generalized ? options.nterms : 1;
  plan.rows.per_unit = nterms > 1 ? 3 * nterms : fit_mean ? 3 : 2;
  plan.rows.nterms = nterms;
  const std::int64_t series_count = static_cast<std::int64_t>(data.offsets.extent(0)) - 1;
  if constexpr (host_path_available) {
    const std::int64_t threads = HostExecSpace().concurrency();
    const SpreadingKernel kernel = host_spreading_kernel(nufft_tolerance<T>(options));
    const bool upsampled_less = kernel.width <= 16;
    const SpreadingKernel host_kernel = upsampled_less ? kernel : plan.kernel;
    const auto least_n = static_cast<std::int64_t>(
        std::ceil((upsampled_less ? host_upsampling : 2.0) * static_cast<double>(layout.modes)));
    const std::int64_t host_n = smooth_length(std::max<std::int64_t>(least_n, 4 * host_kernel.width));
    const std::int64_t rows = layout.segments * plan.rows.per_unit;
    const auto allocate = [&](const char* label) {
      return ComplexRows<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), rows, host_n);
    };
    const auto aligned = [](const ComplexRows<T>& view) {
      return reinterpret_cast<std::uintptr_t>(view.data()) % fft::caller_alignment == 0;
    };
    std::vector<typename NufftPlan<T>::HostWorker> workers;
    if (static_cast<std::size_t>(rows * host_n) * sizeof(Complex<T>) <= host_worker_grid_bytes)
      for (std::int64_t k = 0; k < std::min(threads, series_count); ++k) {
        workers.push_back({allocate("lombscargle_nufft_grid"), allocate("lombscargle_nufft_spectra"), nullptr});
        // The one-threaded plans need aligned Views (Kokkos' allocations are);
        // else the chunked path below, whose plan takes any.
        if (!aligned(workers.back().grid) || !aligned(workers.back().spectra)) {
          workers.clear();
          break;
        }
      }
    if (!workers.empty()) {
      layout.fft = fft_shape(host_n, static_cast<int>(host_n));
      plan.kernel = host_kernel;
      for (auto& worker : workers)
        worker.fft = std::make_shared<const fft::Plan<T>>(fft::Kind::complex_backward, host_n, rows,
                                                          fft::Planning::estimate, fft::Threading::caller);
      plan.host_workers = std::move(workers);
      plan.chunk_series = 1;
      make_correction(exec, plan, host_n);
      host_kernel_polynomials(plan, nufft_tolerance<T>(options));
      return plan;
    }
  }
  // The library's spectra come in natural order: one level, no transposed positions.
  layout.fft = fft::library_available ? fft_shape(n, static_cast<int>(n)) : fft_shape(n, team_length);

  const HostSamples<T> host = to_host(exec, data);
  const std::int64_t samples = static_cast<std::int64_t>(data.t.extent(0));
  using Coefficients = Kokkos::View<Complex<T>**, Kokkos::LayoutRight, MemSpace>;
  const auto allocate = [&](const char* label, std::int64_t rows) {
    return Coefficients(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), rows, samples);
  };
  if (nterms > 1) {
    for (int h = 1; h <= 2 * nterms; ++h) {
      plan.harmonic_samples.push_back(
          sort_samples(exec, data, host, grid.step, h, n, "lombscargle_nufft_harmonic", plan.order, plan.sort_scratch));
      plan.harmonic_w.push_back(allocate("lombscargle_nufft_cw", layout.segments));
      if (h <= nterms) plan.harmonic_wy.push_back(allocate("lombscargle_nufft_cwy", layout.segments));
    }
  } else {
    plan.once =
        sort_samples(exec, data, host, grid.step, 1, n, "lombscargle_nufft_once", plan.order, plan.sort_scratch);
    plan.twice =
        sort_samples(exec, data, host, grid.step, 2, n, "lombscargle_nufft_twice", plan.order, plan.sort_scratch);
    plan.c1 = allocate("lombscargle_nufft_c1", layout.segments);
    plan.c0 = allocate("lombscargle_nufft_c0", fit_mean ? layout.segments : 0);
    plan.c2 = allocate("lombscargle_nufft_c2", layout.segments);
  }

  const std::size_t per_series =
      static_cast<std::size_t>(layout.segments * plan.rows.per_unit * n) * sizeof(Complex<T>);
  // The library transforms out of place: the budget holds the grids and their spectra.
  const std::size_t budget = fft::library_available ? grid_budget_bytes / 2 : grid_budget_bytes;
  plan.chunk_series = std::clamp<std::int64_t>(static_cast<std::int64_t>(budget / per_series), 1, series_count);
  const std::int64_t grid_rows = plan.chunk_series * layout.segments * plan.rows.per_unit;
  plan.grid = ComplexRows<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lombscargle_nufft_grid")),
                             grid_rows, n);
  if (fft::library_available) {
    // e^{+2 pi i j k / n}: the library's backward transform.
    plan.library_fft = std::make_shared<const fft::Plan<T>>(fft::Kind::complex_backward, n, grid_rows);
    plan.spectra = ComplexRows<T>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("lombscargle_nufft_spectra")), grid_rows, n);
  }
  plan.offsets.assign(host.offsets.data(), host.offsets.data() + host.offsets.extent(0));
  std::vector<int> series_of(static_cast<std::size_t>(samples));
  for (std::int64_t s = 0; s < series_count; ++s)
    std::fill(series_of.begin() + plan.offsets[s], series_of.begin() + plan.offsets[s + 1], static_cast<int>(s));
  plan.series_of =
      upload<Kokkos::View<int*, Kokkos::LayoutRight, MemSpace>>(exec, "lombscargle_nufft_series", series_of);

  make_correction(exec, plan, n);  // fences exec: series_of's host array may go
  plan.twiddle = twiddle_table<T>(exec, team_length);
  return plan;
}

template <class T>
bool refresh_nufft_plan(const ExecSpace& exec, NufftPlan<T>& plan, const DeviceData<T>& data,
                        const NufftHostSamples<T>& host, double step) {
  ProfilingRegion region("lombscargle/nufft_refresh");
  const std::size_t series_count = host.offsets.extent(0) - 1;
  if (!plan.host_workers.empty())  // the host path reads the samples as they are
    return plan.host_workers.size() <= series_count;
  if (plan.offsets.size() != host.offsets.extent(0) ||
      !std::equal(plan.offsets.begin(), plan.offsets.end(), host.offsets.data()))
    return false;
  const std::int64_t n = plan.layout.fft.n;
  if (plan.rows.nterms > 1) {
    for (std::size_t h = 1; h <= plan.harmonic_samples.size(); ++h)
      sort_samples(exec, data, host, step, static_cast<int>(h), n, "lombscargle_nufft_harmonic",
                   plan.harmonic_samples[h - 1], plan.order, plan.sort_scratch);
  } else {
    sort_samples(exec, data, host, step, 1, n, "lombscargle_nufft_once", plan.once, plan.order, plan.sort_scratch);
    sort_samples(exec, data, host, step, 2, n, "lombscargle_nufft_twice", plan.twice, plan.order, plan.sort_scratch);
  }
  return true;
}

template <class T>
void run_nufft(const ExecSpace& exec, NufftPlan<T>& plan, const DeviceData<T>& data, const Options&) {
  if (plan.rows.nterms > 1)
    dispatch_multiterm(exec, plan, data, std::make_integer_sequence<int, max_nterms - 1>{});
  else if (!data.sums.weighted)
    run<T, false, false>(exec, plan, data);
  else if (data.sums.fit_mean)
    run<T, true, true>(exec, plan, data);
  else
    run<T, true, false>(exec, plan, data);
}

template NufftPlan<float> make_nufft_plan(const ExecSpace&, const DeviceData<float>&, const FrequencyGrid&,
                                          const Options&);
template NufftPlan<double> make_nufft_plan(const ExecSpace&, const DeviceData<double>&, const FrequencyGrid&,
                                           const Options&);
template bool refresh_nufft_plan(const ExecSpace&, NufftPlan<float>&, const DeviceData<float>&,
                                 const NufftHostSamples<float>&, double);
template bool refresh_nufft_plan(const ExecSpace&, NufftPlan<double>&, const DeviceData<double>&,
                                 const NufftHostSamples<double>&, double);
template void run_nufft(const ExecSpace&, NufftPlan<float>&, const DeviceData<float>&, const Options&);
template void run_nufft(const ExecSpace&, NufftPlan<double>&, const DeviceData<double>&, const Options&);

}  // namespace portasolve::lombscargle::detail
