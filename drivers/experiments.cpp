#include <stdexcept>

#include "drivers/experiment.hpp"

namespace portasolve::drivers {

const std::vector<Experiment>& experiments() {
  static const std::vector<Experiment> all{lombscargle_experiment(), lorenz05_experiment(), poisson_experiment(),
                                           smoothing_experiment(), stream_experiment()};
  return all;
}

std::vector<std::string> experiment_names() {
  std::vector<std::string> names;
  for (const auto& experiment : experiments()) names.push_back(experiment.name);
  return names;
}

const Experiment& find_experiment(const std::string& name) {
  for (const auto& experiment : experiments())
    if (experiment.name == name) return experiment;
  throw std::logic_error("no experiment '" + name + "'");
}

void add_common_schema(config::Schema& schema, const std::string& experiment) {
  using config::Kind;
  schema.add("experiment", Kind::Choice, "which driver runs this config").choices(experiment_names());
  add_choice(schema, "precision", "floating-point type of the computation", {"float", "double"}, "double");
  schema.add("output.path", Kind::String, "HDF5 result file").default_value(experiment + ".h5");
  add_boolean(schema, "output.overwrite", "replace an existing result file", false);
  add_integer(schema, "run.repeats", "timed repetitions of the solve", 1).at_least(1);
  add_integer(schema, "run.warmup", "untimed repetitions before timing", 0).at_least(0);
  add_real(schema, "run.progress_interval_s", "seconds between progress lines on stderr", 2.0).greater_than(0);
  add_integer(schema, "seed", "seed of every random generator", 12345).at_least(0);
}

}  // namespace portasolve::drivers
