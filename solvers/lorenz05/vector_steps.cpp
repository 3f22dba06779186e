// The vector layout's launch, apart from ensemble.cpp so that only its
// kernel gets the compile options CMakeLists.txt gives this file.
#include "solvers/lorenz05/detail/kernels.hpp"

namespace portasolve::lorenz05::detail {

template <class T>
void advance_vector(const ExecSpace& exec, const Coefficients<T>& co, const View2D<T>& states,
                    const std::int64_t steps) {
  using Policy = typename VectorSteps<T>::Policy;
  const int members = static_cast<int>(states.extent(0));
  const Policy policy =
      Policy(exec, members, 1)
          .set_scratch_size(VectorSteps<T>::scratch_level, Kokkos::PerTeam(VectorSteps<T>::scratch_bytes(co)));
  if (is_one_scale_k1(co))
    Kokkos::parallel_for("lorenz05_vector_steps", policy, VectorSteps<T, true>{co, states, steps});
  else
    Kokkos::parallel_for("lorenz05_vector_steps", policy, VectorSteps<T>{co, states, steps});
}

template void advance_vector<float>(const ExecSpace&, const Coefficients<float>&, const View2D<float>&, std::int64_t);
template void advance_vector<double>(const ExecSpace&, const Coefficients<double>&, const View2D<double>&,
                                     std::int64_t);

}  // namespace portasolve::lorenz05::detail
