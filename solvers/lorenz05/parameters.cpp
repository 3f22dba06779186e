#include "solvers/lorenz05/parameters.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"

namespace portasolve::lorenz05 {

ModelParameters model_three_defaults() { return ModelParameters{}; }

ModelParameters lorenz96_defaults() {
  ModelParameters p;
  p.model = 1;
  p.model_size = 40;
  p.forcing = 8;
  p.delta_t = 0.05;
  p.K = 1;
  p.smooth_steps = 0;
  return p;
}

int effective_k(const ModelParameters& parameters) { return parameters.model == 1 ? 1 : parameters.K; }

namespace {
// option: the ModelParameters field at fault (OptionError::option()).
void require(bool condition, const char* option, const std::string& message) {
  if (!condition) throw OptionError(option, message);
}
}  // namespace

void check(const ModelParameters& p) {
  require(p.model >= 1 && p.model <= 3, "model", "model must be 1, 2 or 3, got " + std::to_string(p.model));
  require(p.model_size >= 4, "model_size", "model_size N must be >= 4, got " + std::to_string(p.model_size));
  require(std::isfinite(p.delta_t) && p.delta_t > 0, "delta_t",
          "delta_t must be > 0, got " + std::to_string(p.delta_t));
  require(std::isfinite(p.forcing), "forcing", "forcing must be finite");
  if (p.model >= 2) {
    require(p.K >= 1, "K", "K must be >= 1, got " + std::to_string(p.K));
    require(p.K <= p.model_size, "K",
            "K = " + std::to_string(p.K) + " exceeds model_size N = " + std::to_string(p.model_size));
  }
  if (p.model == 3) {
    require(std::isfinite(p.space_time_scale) && std::isfinite(p.coupling),
            std::isfinite(p.space_time_scale) ? "coupling" : "space_time_scale",
            "space_time_scale and coupling must be finite");
    require(p.smooth_steps >= 0, "smooth_steps", "smooth_steps I must be >= 0, got " + std::to_string(p.smooth_steps));
    require(2 * p.smooth_steps < p.model_size, "smooth_steps",
            "smooth_steps I = " + std::to_string(p.smooth_steps) +
                " must be < model_size / 2 = " + std::to_string(p.model_size / 2.0));
  }
}

}  // namespace portasolve::lorenz05
