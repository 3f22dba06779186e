#pragma once
// Uniform grids in O(M log M): the sums of every form are three complex sums
//   Z1(f) = sum wy e^{2 pi i f t}, Z0(f) = sum w e^{2 pi i f t}, Z2(f) = sum w e^{4 pi i f t}
// (YC + i YS = Z1, C + i S = Z0, CC - SS + 2i CS = Z2, CC + SS = sum w),
// and on f = fc + m df each is a type-1 non-uniform FFT in m: with
// c_j = wy_j e^{2 pi i fc t_j} and x_j = 2 pi frac(df t_j),
//   Z1(fc + m df) = sum_j c_j e^{i m x_j}.
// The c_j are spread onto a grid of n >= 2 M points with the "exponential of
// semicircle" kernel phi(z) = exp(beta (sqrt(1 - z^2) - 1)) of width w points
// (Barnett, Magland & af Klinteberg 2019: error ~ 10^(1-w) at beta = 2.3 w),
// the grid is transformed, and mode m divided by the kernel's Fourier
// transform. Long grids are cut into segments, each with its own fc.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "solvers/lombscargle/detail/fft.hpp"
#include "solvers/lombscargle/detail/kernels.hpp"
#include "solvers/lombscargle/detail/multiterm.hpp"

namespace portasolve::lombscargle::detail {

// Spreading kernel: width in grid points and shape.
struct SpreadingKernel {
  int width;
  double beta;
};

// Width for a relative tolerance (FINUFFT's rule for an upsampling of 2).
SpreadingKernel spreading_kernel_for(double tolerance);

template <class T>
KOKKOS_INLINE_FUNCTION T semicircle_exp(T z, T beta) {
  return math::exp(beta * (math::sqrt(1 - z * z) - 1));
}

// How the frequencies are cut: segment g holds frequencies
// [g * modes, (g + 1) * modes) of the grid, its centre fc at offset modes / 2.
struct NufftLayout {
  std::int64_t frequencies, modes, segments;
  double first, step;  // grid's first frequency and step, cycles
  FftShape fft;

  KOKKOS_INLINE_FUNCTION double centre(std::int64_t segment) const {
    return first + static_cast<double>(segment * modes + modes / 2) * step;
  }
};

// Samples sorted by their grid position (n frac(df t), or n frac(2 df t)):
// t, w, wy and the position, per series over [offsets(s), offsets(s + 1)).
template <class T>
struct SortedSamples {
  Kokkos::View<const double*, Kokkos::LayoutRight, MemSpace> position, t;
  View1D<const T> w, wy;
};

// The three sums' rows in the grid array, per (series in chunk, segment).
// Multi-term models (nterms > 1, multiterm.hpp) have 3 nterms instead: the
// sums of w e^{2 pi i k f t} for harmonics k = 1 .. 2 nterms (C_k + i S_k),
// then those of w y e^{2 pi i k f t} for k = 1 .. nterms (YC_k + i YS_k). On
// f = fc + m df harmonic k is k fc + m (k df): again a type-1 NUFFT in m,
// with c_j = e^{2 pi i k fc t_j} and x_j = 2 pi frac(k df t_j), so the same
// modes and the same correction serve every harmonic.
struct SumRows {
  int per_unit;  // 2 or 3; 3 nterms for nterms > 1
  int nterms = 1;
  static constexpr int z1 = 0, z2 = 1, z0 = 2;
  KOKKOS_INLINE_FUNCTION int harmonic_w(const int k) const { return k - 1; }
  KOKKOS_INLINE_FUNCTION int harmonic_wy(const int k) const { return 2 * nterms + k - 1; }
  // The first of them for a series (counted from the chunk's first) and segment.
  KOKKOS_INLINE_FUNCTION std::int64_t first(const std::int64_t series_in_chunk, const std::int64_t segment,
                                            const std::int64_t segments) const {
    return (series_in_chunk * segments + segment) * per_unit;
  }
};

// c_j for every (segment, sorted sample): Once = wy and w times
// e^{2 pi i fc t}; Twice = w times e^{4 pi i fc t}.
template <class T, bool FitMean>
struct NufftCoefficients {
  struct Once {};
  struct Twice {};
  SortedSamples<T> once, twice;
  NufftLayout layout;
  Kokkos::View<Complex<T>**, Kokkos::LayoutRight, MemSpace> c1, c0, c2;  // (segment, sample)

  KOKKOS_INLINE_FUNCTION void operator()(Once, const std::int64_t index) const {
    const std::int64_t samples = static_cast<std::int64_t>(once.t.extent(0));
    const std::int64_t segment = index / samples, j = index % samples;
    T c, s;
    seed_cos_sin(layout.centre(segment) * once.t(j), c, s);
    c1(segment, j) = Complex<T>(once.wy(j) * c, once.wy(j) * s);
    if constexpr (FitMean) c0(segment, j) = Complex<T>(once.w(j) * c, once.w(j) * s);
  }

  KOKKOS_INLINE_FUNCTION void operator()(Twice, const std::int64_t index) const {
    const std::int64_t samples = static_cast<std::int64_t>(twice.t.extent(0));
    const std::int64_t segment = index / samples, j = index % samples;
    T c, s;
    seed_cos_sin(2 * layout.centre(segment) * twice.t(j), c, s);
    c2(segment, j) = Complex<T>(twice.w(j) * c, twice.w(j) * s);
  }
};

// Spreading as a gather, so no atomics and the same sums in the same order
// on every backend. The grid is zeroed first; then only the points some
// sample's window reaches are written, each by one thread: the one of the
// first sample, in position order, whose window holds it. That thread sums
// the window's samples in order. A series' samples are read as a periodic
// sequence (position - n, position, position + n: e in [0, 3 count)) so
// windows crossing the grid's ends need no special case. Threads: (segment,
// sample of the chunk, copy of the sequence, point of the window).
template <class T, bool FitMean>
struct NufftSpread {
  struct Once {};
  struct Twice {};
  SortedSamples<T> once, twice;
  Kokkos::View<const std::int64_t*, Kokkos::LayoutRight, MemSpace> offsets;
  Kokkos::View<const int*, Kokkos::LayoutRight, MemSpace> series_of;  // per sample
  Kokkos::View<const Complex<T>**, Kokkos::LayoutRight, MemSpace> c1, c0, c2;
  ComplexRows<T> grid;
  NufftLayout layout;
  SumRows rows;
  std::int64_t first_series, first_sample, chunk_samples;  // of this chunk
  int width;
  T beta;

  template <class Tag>
  KOKKOS_INLINE_FUNCTION void operator()(Tag, const std::int64_t index) const {
    constexpr bool once_kind = std::is_same<Tag, Once>::value;
    const SortedSamples<T>& samples = once_kind ? once : twice;
    const int offset = static_cast<int>(index % width);
    std::int64_t rest = index / width;
    const int copy = static_cast<int>(rest % 3);
    rest /= 3;
    const std::int64_t sample = first_sample + rest % chunk_samples, segment = rest / chunk_samples;
    const int series = series_of(sample);
    const std::int64_t begin = offsets(series), count = offsets(series + 1) - begin;
    const double n = static_cast<double>(layout.fft.n), half = 0.5 * width;
    const auto position = [&](std::int64_t e) {
      const int block = (e >= count) + (e >= 2 * count);
      return samples.position(begin + e - block * count) + (block - 1) * n;
    };
    const std::int64_t e = copy * count + (sample - begin);
    const double x = position(e);
    const double l = math::floor(x - half) + 1 + offset;  // the window's offset-th point
    if (l >= x + half || l < 0 || l >= n) return;
    if (e > 0 && l < position(e - 1) + half) return;  // an earlier sample owns it
    const T inverse_half = T(2) / static_cast<T>(width);
    Complex<T> sum(0), sum0(0);
    for (std::int64_t f = e; f < 3 * count; ++f) {
      const double distance = position(f) - l;
      if (distance >= half) break;
      const T weight = semicircle_exp(static_cast<T>(distance) * inverse_half, beta);
      const std::int64_t block = (f >= count) + (f >= 2 * count), j = begin + f - block * count;
      if constexpr (once_kind) {
        sum += weight * c1(segment, j);
        if constexpr (FitMean) sum0 += weight * c0(segment, j);
      } else {
        sum += weight * c2(segment, j);
      }
    }
    const std::int64_t row = rows.first(series - first_series, segment, layout.segments);
    const std::int64_t point = static_cast<std::int64_t>(l);
    if constexpr (once_kind) {
      grid(row + SumRows::z1, point) = sum;
      if constexpr (FitMean) grid(row + SumRows::z0, point) = sum0;
    } else {
      grid(row + SumRows::z2, point) = sum;
    }
  }
};

// 1 / (w integral_0^1 phi(s) cos(m alpha s) ds), alpha = pi w / n, for
// m = 0 .. table size - 1, by Gauss-Legendre quadrature: what turns a
// transformed mode back into the sum (the kernel's Fourier transform).
// The quadrature's weights times the kernel phi at its nodes, formed once
// (not once per mode: the exponentials were half the correction's time).
template <class T>
struct NufftKernelAtNodes {
  Kokkos::View<T*, Kokkos::LayoutRight, MemSpace> weighted;
  Kokkos::View<const T*, Kokkos::LayoutRight, MemSpace> nodes, weights;  // on [0, 1]
  T beta;
  KOKKOS_INLINE_FUNCTION void operator()(const int q) const {
    weighted(q) = weights(q) * semicircle_exp(nodes(q), beta);
  }
};

template <class T>
struct NufftCorrection {
  Kokkos::View<T*, Kokkos::LayoutRight, MemSpace> correction;
  Kokkos::View<const T*, Kokkos::LayoutRight, MemSpace> nodes, weighted;  // NufftKernelAtNodes's
  T alpha;
  int width;

  KOKKOS_INLINE_FUNCTION void operator()(const int m) const {
    T integral = 0;
    for (int q = 0; q < static_cast<int>(nodes.extent(0)); ++q)
      integral += weighted(q) * math::cos(static_cast<T>(m) * alpha * nodes(q));
    correction(m) = 1 / (static_cast<T>(width) * integral);
  }
};

// Power at frequency k of each series in the chunk from its three modes.
// The sums come with an absolute error ~ tolerance x (sum |w y|, sum w), so
// where the model's norms CC_tau, SS_tau fall below 1% of sum w (frequencies
// far below 1 / baseline with a floating mean, degenerate samplings) the
// relative error would grow past 100 x tolerance: those frequencies are
// summed directly instead (phases in double, as the recurrence seeds them).
template <class T, bool Weighted, bool FitMean>
struct NufftFinish {
  DeviceData<T> data;
  ComplexRows<T> grid;
  Kokkos::View<const T*, Kokkos::LayoutRight, MemSpace> correction;
  NufftLayout layout;
  SumRows rows;
  std::int64_t first_series;

  static constexpr T conditioning_guard = T(0.01);

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    const std::int64_t series = first_series + index / layout.frequencies, k = index % layout.frequencies;
    const std::int64_t segment = k / layout.modes, m = k - segment * layout.modes - layout.modes / 2;
    const std::int64_t position = layout.fft.position(m < 0 ? m + layout.fft.n : m);
    const std::int64_t row = rows.first(series - first_series, segment, layout.segments);
    const T scale = correction(m < 0 ? -m : m);
    const Complex<T> z1 = grid(row + SumRows::z1, position) * scale, z2 = grid(row + SumRows::z2, position) * scale;
    const SeriesConstants<T>& constants = data.constants(series);
    Sums<T, Weighted, FitMean> sums;
    sums.yc = z1.real();
    sums.ys = z1.imag();
    sums.cc = T(0.5) * (constants.w_sum + z2.real());
    sums.ss = T(0.5) * (constants.w_sum - z2.real());
    sums.cs = T(0.5) * z2.imag();
    if constexpr (FitMean) {
      const Complex<T> z0 = grid(row + SumRows::z0, position) * scale;
      sums.c = z0.real();
      sums.s = z0.imag();
    }
    RotatedSums<T> rotated = rotate(sums, constants);
    if (!(rotated.cc >= conditioning_guard * constants.w_sum && rotated.ss >= conditioning_guard * constants.w_sum)) {
      const double frequency = layout.first + static_cast<double>(k) * layout.step;
      Sums<T, Weighted, FitMean> direct;
      for (std::int64_t j = data.offsets(series); j < data.offsets(series + 1); ++j) {
        T cosine, sine;
        seed_cos_sin(frequency * data.t(j), cosine, sine);
        direct.add(cosine, sine, data.w(j), data.wy(j));
      }
      rotated = rotate(direct, constants);
    }
    data.power(series, k) = normalized_power(rotated, constants, data.kind);
  }
};

// Multi-term models: c_j of one harmonic k for every (segment, sample
// sorted by n frac(k df t)): w and (k <= nterms) w y times e^{2 pi i k fc t},
// the phase k fc t in double.
template <class T>
struct NufftHarmonicCoefficients {
  SortedSamples<T> samples;
  NufftLayout layout;
  int harmonic;
  bool with_wy;
  Kokkos::View<Complex<T>**, Kokkos::LayoutRight, MemSpace> cw, cwy;  // (segment, sample)

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    const std::int64_t count = static_cast<std::int64_t>(samples.t.extent(0));
    const std::int64_t segment = index / count, j = index % count;
    T c, s;
    seed_cos_sin(static_cast<double>(harmonic) * layout.centre(segment) * samples.t(j), c, s);
    cw(segment, j) = Complex<T>(samples.w(j) * c, samples.w(j) * s);
    if (with_wy) cwy(segment, j) = Complex<T>(samples.wy(j) * c, samples.wy(j) * s);
  }
};

// Multi-term models: one harmonic's rows spread as NufftSpread spreads the
// one-term sums (a gather over the sorted samples, each grid point written
// by one thread, no atomics): its w row and, with_wy, its w y row.
template <class T>
struct NufftHarmonicSpread {
  SortedSamples<T> samples;
  Kokkos::View<const std::int64_t*, Kokkos::LayoutRight, MemSpace> offsets;
  Kokkos::View<const int*, Kokkos::LayoutRight, MemSpace> series_of;  // per sample
  Kokkos::View<const Complex<T>**, Kokkos::LayoutRight, MemSpace> cw, cwy;
  ComplexRows<T> grid;
  NufftLayout layout;
  SumRows rows;
  int harmonic;
  bool with_wy;
  std::int64_t first_series, first_sample, chunk_samples;  // of this chunk
  int width;
  T beta;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    const int offset = static_cast<int>(index % width);
    std::int64_t rest = index / width;
    const int copy = static_cast<int>(rest % 3);
    rest /= 3;
    const std::int64_t sample = first_sample + rest % chunk_samples, segment = rest / chunk_samples;
    const int series = series_of(sample);
    const std::int64_t begin = offsets(series), count = offsets(series + 1) - begin;
    const double n = static_cast<double>(layout.fft.n), half = 0.5 * width;
    const auto position = [&](std::int64_t e) {
      const int block = (e >= count) + (e >= 2 * count);
      return samples.position(begin + e - block * count) + (block - 1) * n;
    };
    const std::int64_t e = copy * count + (sample - begin);
    const double x = position(e);
    const double l = math::floor(x - half) + 1 + offset;  // the window's offset-th point
    if (l >= x + half || l < 0 || l >= n) return;
    if (e > 0 && l < position(e - 1) + half) return;  // an earlier sample owns it
    const T inverse_half = T(2) / static_cast<T>(width);
    Complex<T> sum_w(0), sum_wy(0);
    for (std::int64_t f = e; f < 3 * count; ++f) {
      const double distance = position(f) - l;
      if (distance >= half) break;
      const T weight = semicircle_exp(static_cast<T>(distance) * inverse_half, beta);
      const std::int64_t block = (f >= count) + (f >= 2 * count), j = begin + f - block * count;
      sum_w += weight * cw(segment, j);
      if (with_wy) sum_wy += weight * cwy(segment, j);
    }
    const std::int64_t row = rows.first(series - first_series, segment, layout.segments);
    const std::int64_t point = static_cast<std::int64_t>(l);
    grid(row + rows.harmonic_w(harmonic), point) = sum_w;
    if (with_wy) grid(row + rows.harmonic_wy(harmonic), point) = sum_wy;
  }
};

// Multi-term power at frequency k of each series in the chunk: the harmonic
// sums from the modes (SumRows), then the direct path's normal equations
// (multiterm.hpp). As NufftFinish guards the one-term model, frequencies
// where a column keeps less than 1% of sum w of its norm beyond the columns
// before it (the Cholesky pivot; far below 1 / baseline, or columns
// dependent on each other) would amplify the sums' absolute error past 100 x
// tolerance: they are summed directly, exactly as the direct path sums them.
template <class T, int NTerms, bool FitMean>
struct NufftMultitermFinish {
  DeviceData<T> data;
  ComplexRows<T> grid;
  Kokkos::View<const T*, Kokkos::LayoutRight, MemSpace> correction;
  NufftLayout layout;
  SumRows rows;
  std::int64_t first_series;

  static constexpr T conditioning_guard = T(0.01);

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    const std::int64_t series = first_series + index / layout.frequencies, k = index % layout.frequencies;
    const std::int64_t segment = k / layout.modes, m = k - segment * layout.modes - layout.modes / 2;
    const std::int64_t position = layout.fft.position(m < 0 ? m + layout.fft.n : m);
    const std::int64_t row = rows.first(series - first_series, segment, layout.segments);
    const T scale = correction(m < 0 ? -m : m);
    HarmonicSums<T, NTerms> sums;
    PORTASOLVE_UNROLL
    for (int h = 1; h <= 2 * NTerms; ++h) {
      const Complex<T> z = grid(row + rows.harmonic_w(h), position);
      sums.c[h - 1] = z.real() * scale;
      sums.s[h - 1] = z.imag() * scale;
      if (h <= NTerms) {
        const Complex<T> zy = grid(row + rows.harmonic_wy(h), position);
        sums.yc[h - 1] = zy.real() * scale;
        sums.ys[h - 1] = zy.imag() * scale;
      }
    }
    const SeriesConstants<T> constants = data.constants(series);
    T smallest_pivot;
    T p = NormalEquations<T, NTerms, FitMean>{sums, constants}.reduction(smallest_pivot);
    if (!(smallest_pivot >= conditioning_guard * constants.w_sum)) {
      const HarmonicSums<T, NTerms> direct = direct_harmonic_sums<T, NTerms>(data, series, data.frequency(k));
      p = NormalEquations<T, NTerms, FitMean>{direct, constants}.reduction();
    }
    data.power(series, k) = generalized_normalization(p, constants, data.kind);
  }
};

}  // namespace portasolve::lombscargle::detail
