#pragma once
// What the device engines (cuFFT, the portable kernels) share: rows of raw
// default-memory-space arrays as Views, a flat walk over rows, and DST-I and
// DCT-I as real FFTs of the input's odd or even extension:
//   dst1, length n: z of length N = 2(n+1), z_0 = z_{n+1} = 0, z_{m} = x_{m-1}
//     and z_{N-m} = -x_{m-1} for m = 1..n; then Z_k = -i Y_{k-1}, Y_k = -Im Z_{k+1}.
//   dct1, length n: z of length N = 2(n-1), z_m = x_m (m < n), z_{N-m} = x_m;
//     Z is real and Y_k = Re Z_k.
#include <Kokkos_Complex.hpp>
#include <cstdint>

#include "fft/fft.hpp"

namespace portasolve::fft::detail {

template <class T>
using Rows = Kokkos::View<T**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// The real FFT length a DST-I or DCT-I of `length` runs at (others: length).
inline std::int64_t extended_length(Kind kind, std::int64_t length) {
  if (kind == Kind::dst1) return 2 * (length + 1);
  if (kind == Kind::dct1) return 2 * (length - 1);
  return length;
}

// The odd extension of each row (dst1), length 2(n+1).
template <class T>
struct ExtendOdd {
  Rows<const T> x;
  Rows<T> z;
  KOKKOS_INLINE_FUNCTION void operator()(const int b, const int m) const {
    const int n = int(x.extent(1)), half = n + 1;
    if (m == 0 || m == half)
      z(b, m) = T(0);
    else if (m < half)
      z(b, m) = x(b, m - 1);
    else
      z(b, m) = -x(b, 2 * half - m - 1);
  }
};

// The even extension of each row (dct1), length 2(n-1).
template <class T>
struct ExtendEven {
  Rows<const T> x;
  Rows<T> z;
  KOKKOS_INLINE_FUNCTION void operator()(const int b, const int m) const {
    const int n = int(x.extent(1)), period = 2 * (n - 1);
    z(b, m) = m < n ? x(b, m) : x(b, period - m);
  }
};

template <class T>
struct SineCoefficients {
  Rows<const Kokkos::complex<T>> spectrum;
  Rows<T> y;
  KOKKOS_INLINE_FUNCTION void operator()(const int b, const int k) const { y(b, k) = -spectrum(b, k + 1).imag(); }
};

template <class T>
struct CosineCoefficients {
  Rows<const Kokkos::complex<T>> spectrum;
  Rows<T> y;
  KOKKOS_INLINE_FUNCTION void operator()(const int b, const int k) const { y(b, k) = spectrum(b, k).real(); }
};

// Row kernels over a flat range, consecutive threads on consecutive values
// of a row: Kokkos 3.4's default MDRange tiles run them at a fraction of
// the memory bandwidth (DEVELOPERS.md).
template <class Functor>
struct OverRows {
  Functor row_functor;
  std::int64_t cols;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const { row_functor(int(k / cols), int(k % cols)); }
};

template <class Functor>
void for_rows(const ExecSpace& exec, const char* name, std::int64_t rows, std::int64_t cols, const Functor& functor) {
  Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, rows * cols),
                       OverRows<Functor>{functor, cols});
}

// A DST-I or DCT-I of `batch` rows of `length` through `real_forward`, a
// callable running the real FFT of the extended rows (extended_length
// values each) into their half spectra: the extension, the FFT, the
// coefficients, all on exec.
template <class T, class RealForward>
void real_to_real_by_extension(const ExecSpace& exec, Kind kind, std::int64_t length, std::int64_t batch, const T* in,
                               T* out, const Rows<T>& extended, const Rows<Kokkos::complex<T>>& spectrum,
                               RealForward real_forward) {
  const Rows<const T> x(in, batch, length);
  const Rows<T> y(out, batch, length);
  const std::int64_t extended_cols = extended.extent(1);
  if (kind == Kind::dst1)
    for_rows(exec, "fft_dst1_extend", batch, extended_cols, ExtendOdd<T>{x, extended});
  else
    for_rows(exec, "fft_dct1_extend", batch, extended_cols, ExtendEven<T>{x, extended});
  real_forward();
  if (kind == Kind::dst1)
    for_rows(exec, "fft_dst1_coefficients", batch, length, SineCoefficients<T>{spectrum, y});
  else
    for_rows(exec, "fft_dct1_coefficients", batch, length, CosineCoefficients<T>{spectrum, y});
}

}  // namespace portasolve::fft::detail
