#pragma once
// STREAM's four memory-bandwidth kernels (McCalpin) as Kokkos functors: the
// measured device bandwidth every portasolve benchmark states its floor in.
//   copy  c = a        scale b = s c        add c = a + b        triad a = b + s c
// plus deep_copy (c = a by Kokkos::deep_copy: cudaMemcpy / hipMemcpy / a
// parallel memcpy), the vendor's copy as the baseline in the same run.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/spaces.hpp"

namespace portasolve::stream {

enum class Operation { copy, scale, add, triad, deep_copy };

const std::vector<std::string>& operation_names();  // "copy", "scale", "add", "triad", "deep_copy"
Operation operation_from_name(const std::string& name);
// Bytes each operation reads plus writes over n elements of `element_bytes`.
std::size_t bytes_moved(Operation operation, std::size_t n, std::size_t element_bytes);

template <class T>
struct Arrays {
  View1D<T> a, b, c;
};

template <class T>
struct StreamKernels {
  struct Copy {};
  struct Scale {};
  struct Add {};
  struct Triad {};

  View1D<T> a, b, c;
  T scalar;

  KOKKOS_INLINE_FUNCTION void operator()(Copy, const std::int64_t i) const { c(i) = a(i); }
  KOKKOS_INLINE_FUNCTION void operator()(Scale, const std::int64_t i) const { b(i) = scalar * c(i); }
  KOKKOS_INLINE_FUNCTION void operator()(Add, const std::int64_t i) const { c(i) = a(i) + b(i); }
  KOKKOS_INLINE_FUNCTION void operator()(Triad, const std::int64_t i) const { a(i) = b(i) + scalar * c(i); }
};

template <class T>
Arrays<T> allocate(std::size_t n) {
  return Arrays<T>{View1D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "stream_a"), n),
                   View1D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "stream_b"), n),
                   View1D<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "stream_c"), n)};
}

// One launch of `operation`; asynchronous like every Kokkos launch.
template <class T>
void apply(Operation operation, const Arrays<T>& arrays, T scalar) {
  using Kernels = StreamKernels<T>;
  const Kernels kernels{arrays.a, arrays.b, arrays.c, scalar};
  const auto n = static_cast<std::int64_t>(arrays.a.extent(0));
  const auto launch = [&](auto tag, const char* name) {
    using Tag = decltype(tag);
    Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecSpace, Tag, Kokkos::IndexType<std::int64_t>>(0, n), kernels);
  };
  switch (operation) {
    case Operation::copy:
      launch(typename Kernels::Copy{}, "stream_copy");
      break;
    case Operation::scale:
      launch(typename Kernels::Scale{}, "stream_scale");
      break;
    case Operation::add:
      launch(typename Kernels::Add{}, "stream_add");
      break;
    case Operation::triad:
      launch(typename Kernels::Triad{}, "stream_triad");
      break;
    case Operation::deep_copy:
      Kokkos::deep_copy(ExecSpace(), arrays.c, arrays.a);
      break;
  }
}

}  // namespace portasolve::stream
