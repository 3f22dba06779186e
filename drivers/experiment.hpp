#pragma once
// What each driver contributes: its schema (on top of the common keys) and a
// run function that builds inputs, calls its solver and fills the result file.
#include <iosfwd>
#include <string>
#include <vector>

#include "app/config.hpp"
#include "app/progress.hpp"
#include "app/result_file.hpp"
#include "drivers/preflight.hpp"
#include "drivers/schema_keys.hpp"

namespace portasolve::drivers {

// The MPI ranks a run spans: rank 0 of 1 without MPI. Every rank runs the
// same driver code; rank 0 writes the result file and prints, the others'
// result files are Discarded and their output streams silent.
struct Ranks {
  int rank = 0, size = 1;
  int local_rank = 0;  // on this node: picks the GPU
};

struct RunContext {
  const config::Config& config;
  ResultFile& result;
  std::ostream& out;       // results summary (stdout)
  std::ostream* progress;  // null with --quiet
  double progress_interval_s;
  Ranks ranks{};

  Progress make_progress(const std::string& task, std::int64_t total, const std::string& unit) const {
    return Progress(task, total, unit, progress, progress_interval_s);
  }
};

struct Experiment {
  std::string name;
  std::string summary;
  void (*add_schema)(config::Schema& schema);
  void (*run)(RunContext& context);
  // The memory a run of this config needs, and the checks of its input files
  // that need no reading of the data (see preflight.hpp); runs before Kokkos
  // allocates anything, for both `run` and `check`.
  Preflight (*preflight)(const config::Config& config);
  // Throws ConfigError when this config cannot run over `ranks` MPI ranks;
  // null: the experiment runs on one rank only.
  void (*check_ranks)(const config::Config& config, int ranks) = nullptr;
};

// Calls run(T()) with T the config's precision, float or double.
template <class Run>
void with_precision(const config::Config& config, Run&& run) {
  if (config.string("precision") == "float")
    run(float());
  else
    run(double());
}

// Bytes of a value in the config's precision.
inline double precision_bytes(const config::Config& config) { return config.string("precision") == "float" ? 4 : 8; }

const std::vector<Experiment>& experiments();
const Experiment& find_experiment(const std::string& name);
std::vector<std::string> experiment_names();

// The keys every experiment has: experiment, precision, output, run, seed.
void add_common_schema(config::Schema& schema, const std::string& experiment);

// Each driver's experiment: its name, summary and functions, from its own file.
Experiment lombscargle_experiment();
Experiment lorenz05_experiment();
Experiment poisson_experiment();
Experiment smoothing_experiment();
Experiment stream_experiment();

}  // namespace portasolve::drivers
