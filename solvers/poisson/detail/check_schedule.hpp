#pragma once
// When a solve measures its residual, what it records and when it stops:
// shared by every method so they report alike.
#include <cstdint>

#include "solvers/poisson/solver.hpp"

namespace portasolve::poisson::detail {

class CheckSchedule {
 public:
  CheckSchedule(const SolverOptions& options, double reference_norm, const CheckCallback& on_check);

  // Iterations after which the next check falls, given `done` so far.
  std::int64_t next_check(std::int64_t done) const;
  // Records the residual norm after `done` iterations; true means stop.
  bool record(std::int64_t done, double residual_norm);
  // Whether record(done, residual_norm) would stop (or throw), recording nothing.
  bool would_stop(std::int64_t done, double residual_norm) const;
  // Ends the solve early (e.g. CG breakdown) after `done` iterations.
  void stop(std::int64_t done, double residual_norm, const char* reason);

  SolveReport& report() { return report_; }

 private:
  SolverOptions options_;
  const CheckCallback& on_check_;
  SolveReport report_;
};

}  // namespace portasolve::poisson::detail
