#pragma once
// What each driver contributes: its schema (on top of the common keys) and a
// run function that builds inputs, calls its solver and fills the result file.
#include <iosfwd>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/progress.hpp"
#include "core/result_file.hpp"

namespace portasolve::drivers {

struct RunContext {
  const config::Config& config;
  ResultFile& result;
  std::ostream& out;        // results summary (stdout)
  std::ostream* progress;   // null with --quiet
  double progress_interval_s;

  Progress make_progress(const std::string& task, std::int64_t total, const std::string& unit) const {
    return Progress(task, total, unit, progress, progress_interval_s);
  }
};

struct Experiment {
  std::string name;
  std::string summary;
  void (*add_schema)(config::Schema& schema);
  void (*run)(RunContext& context);
};

const std::vector<Experiment>& experiments();
const Experiment& find_experiment(const std::string& name);
std::vector<std::string> experiment_names();

// The keys every experiment has: experiment, precision, output, run, seed.
void add_common_schema(config::Schema& schema, const std::string& experiment);

// Drivers' own experiments.
void add_stream_schema(config::Schema& schema);
void run_stream(RunContext& context);
void add_lombscargle_schema(config::Schema& schema);
void run_lombscargle(RunContext& context);
void add_poisson_schema(config::Schema& schema);
void run_poisson(RunContext& context);
void add_smoothing_schema(config::Schema& schema);
void run_smoothing(RunContext& context);
void add_lorenz05_schema(config::Schema& schema);
void run_lorenz05(RunContext& context);

}  // namespace portasolve::drivers
