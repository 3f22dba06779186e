#include "solvers/poisson/options.hpp"

#include <stdexcept>

#include "core/names.hpp"

namespace portasolve::poisson {

namespace {

void require(bool condition, const std::string& message) {
  if (!condition) throw std::invalid_argument("Poisson solver options: " + message);
}

}  // namespace

const std::vector<std::string>& method_names() {
  static const std::vector<std::string> names{"jacobi", "jacobi_blocked", "cg", "cg_fused"};
  return names;
}
const std::vector<std::string>& cg_operator_names() {
  static const std::vector<std::string> names{"matrix_free", "crs"};
  return names;
}
Method method_from_name(const std::string& name) {
  return enum_from_name<Method>(method_names(), name, "Poisson method");
}
CgOperator cg_operator_from_name(const std::string& name) {
  return enum_from_name<CgOperator>(cg_operator_names(), name, "Poisson CG operator");
}
std::string name_of(Method method) { return method_names()[static_cast<std::size_t>(method)]; }
std::string name_of(CgOperator cg_operator) { return cg_operator_names()[static_cast<std::size_t>(cg_operator)]; }

void check(const SolverOptions& options) {
  require(options.max_iterations >= 0, "max_iterations must be >= 0");
  require(options.tolerance >= 0, "tolerance must be >= 0");
  require(options.check_every >= 1, "check_every must be >= 1");
  // Weighted Jacobi for this operator converges for 0 < omega <= 1 only.
  require(options.omega > 0 && options.omega <= 1, "omega must be in (0, 1]");
  require(options.sweeps_per_launch >= 1, "sweeps_per_launch must be >= 1");
  require(options.team_rows >= 0, "team_rows must be >= 0 (0: automatic)");
  require(options.tile_rows >= 0 && options.tile_cols >= 0, "tile sizes must be >= 1 (0: automatic)");
}

}  // namespace portasolve::poisson
