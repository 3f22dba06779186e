#include "drivers/cli.hpp"

#include <iostream>
#include <string>
#include <vector>

#include "app/build_info.hpp"
#include "app/config.hpp"
#include "app/memory_budget.hpp"
#include "app/result_file.hpp"
#include "app/version.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/kokkos_session.hpp"
#include "drivers/experiment.hpp"

namespace portasolve::drivers {

namespace {

const char* const main_usage =
    "usage: portasolve <command> [options] [--kokkos-...]\n"
    "\n"
    "commands:\n"
    "  run CONFIG.yaml     run an experiment, write its HDF5 result file\n"
    "  check CONFIG.yaml   validate a config and print it with every default filled in\n"
    "  info                versions, backends, execution space, device, experiments\n"
    "\n"
    "  -h, --help          this text (`portasolve <command> --help` for a command)\n"
    "  --version           the portasolve version\n"
    "\n"
    "Kokkos' own flags (--kokkos-threads=N, --kokkos-device-id=N, ...) pass through.\n"
    "Exit status: 0 success, 2 usage or config error (a size that does not fit in memory included),\n"
    "1 failure while running, 130 interrupted.\n";

const char* const run_usage =
    "usage: portasolve run CONFIG.yaml [--set KEY.PATH=VALUE ...] [--output PATH] [--overwrite] [--quiet]\n"
    "\n"
    "  --set KEY.PATH=VALUE  override a config key (same checks as in the file; repeatable)\n"
    "  --output PATH         result file (same as --set output.path=PATH)\n"
    "  --overwrite           replace an existing result file (same as --set output.overwrite=true)\n"
    "  --quiet               no progress lines on stderr\n"
    "\n"
    "The result file is written under a temporary name and moved into place when the\n"
    "run succeeds; a failed or interrupted run (Ctrl-C) leaves no file.\n";

const char* const check_usage =
    "usage: portasolve check CONFIG.yaml [--set KEY.PATH=VALUE ...]\n"
    "\n"
    "Validates CONFIG.yaml and prints the effective config (defaults filled in); runs nothing.\n"
    "Also reports what `run` would refuse before starting: input files that cannot be opened and\n"
    "sizes that do not fit in memory (the host's, or the device's on GPU builds).\n";

const char* const info_usage = "usage: portasolve info [--kokkos-...]\n";

ConfigError usage_error(const std::string& problem, const std::string& allowed = {}) {
  return ConfigError(SourceLocation{"command line"}, "", problem, allowed);
}

struct Options {
  std::string config_file;
  std::vector<std::string> overrides;
  bool quiet = false;
  bool help = false;
};

// Parses the arguments after the command. `run_options` enables run's extras.
Options parse_options(const std::vector<std::string>& args, bool takes_config, bool run_options) {
  Options options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const auto value = [&](const std::string& flag) {
      if (i + 1 >= args.size()) throw usage_error(flag + " needs a value");
      return args[++i];
    };
    if (arg == "-h" || arg == "--help")
      options.help = true;
    else if (takes_config && arg == "--set")
      options.overrides.push_back(value(arg));
    else if (takes_config && arg.rfind("--set=", 0) == 0)
      options.overrides.push_back(arg.substr(6));
    else if (run_options && arg == "--output")
      options.overrides.push_back("output.path=" + value(arg));
    else if (run_options && arg.rfind("--output=", 0) == 0)
      options.overrides.push_back("output.path=" + arg.substr(9));
    else if (run_options && arg == "--overwrite")
      options.overrides.push_back("output.overwrite=true");
    else if (run_options && arg == "--quiet")
      options.quiet = true;
    else if (arg.rfind("-", 0) == 0)
      throw usage_error("unknown option '" + arg + "'", "see --help");
    else if (takes_config && options.config_file.empty())
      options.config_file = arg;
    else
      throw usage_error("unexpected argument '" + arg + "'", "see --help");
  }
  if (takes_config && !options.help && options.config_file.empty())
    throw usage_error("missing CONFIG.yaml", "see --help");
  return options;
}

struct LoadedConfig {
  std::string experiment;
  config::Config config;
};

LoadedConfig load_config(const Options& options) {
  const YAML::Node document = config::load_yaml_file(options.config_file);
  const std::string name =
      config::read_experiment(document, options.config_file, options.overrides, experiment_names());
  config::Schema schema;
  add_common_schema(schema, name);
  find_experiment(name).add_schema(schema);
  return LoadedConfig{name, schema.validate(document, options.config_file, options.overrides)};
}

std::string shell_quoted(const std::string& word) {
  if (!word.empty() && word.find_first_of(" \t\n'\"\\$`*?[]{}()<>|&;#~") == std::string::npos) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

int run_command(const Options& options, int& kokkos_argc, char** kokkos_argv, const std::string& command_line) {
  InterruptHandler interrupts;
  const LoadedConfig loaded = load_config(options);
  const config::Config& config = loaded.config;
  const std::string output_path = config.string("output.path");
  const bool overwrite = config.boolean("output.overwrite");
  // Refuse an existing output before Kokkos starts (seconds on a GPU), not after.
  check_output_target(output_path, overwrite, config.where("output.path"));

  // Inputs that cannot be opened and sizes that cannot fit stop here, before
  // Kokkos starts, so no time goes to a run that cannot finish.
  const Experiment& experiment = find_experiment(loaded.experiment);
  const Preflight plan = experiment.preflight(config);
  const MemoryCapacity before_kokkos = memory_capacity(/*ask_device=*/false);  // GPUs: the host's part only
  check_memory(plan.memory, before_kokkos, config.where(plan.key), plan.key, plan.advice, plan.subject);

  KokkosSession kokkos(kokkos_argc, kokkos_argv);
  // GPUs: the device Kokkos chose, now that it has chosen.
  if (!before_kokkos.device_is_host) check_preflight(config, plan);
  {
    const Provenance provenance{loaded.experiment, config.string("precision"), command_line, config.to_yaml()};
    ResultFile result(output_path, overwrite, provenance, config.where("output.path"));
    RunContext context{config, result, std::cout, options.quiet ? nullptr : &std::cerr,
                       config.real("run.progress_interval_s")};
    experiment.run(context);
    throw_if_interrupted();
    result.commit();
  }
  std::cout << "wrote " << output_path << '\n';
  return 0;
}

int info_command(int& kokkos_argc, char** kokkos_argv) {
  KokkosSession kokkos(kokkos_argc, kokkos_argv);
  std::cout << "portasolve version: " << version << '\n';
  print_backend_info(std::cout, backend_info());
  std::cout << "HDF5 version:       " << hdf5_version_string() << '\n';
  std::cout << "experiments:\n";
  for (const auto& experiment : experiments())
    std::cout << "  " << experiment.name << ": " << experiment.summary << '\n';
  return 0;
}

int dispatch(int argc, char* argv[]) {
  // Kokkos' flags go to Kokkos whatever the command; ours are parsed here.
  std::vector<char*> kokkos_args{argv[0]};
  std::vector<std::string> args;
  std::string command_line = shell_quoted(argv[0]);
  for (int i = 1; i < argc; ++i) {
    command_line += " " + shell_quoted(argv[i]);
    if (std::string(argv[i]).rfind("--kokkos-", 0) == 0)
      kokkos_args.push_back(argv[i]);
    else
      args.emplace_back(argv[i]);
  }
  kokkos_args.push_back(nullptr);
  int kokkos_argc = static_cast<int>(kokkos_args.size()) - 1;

  if (args.empty()) {
    std::cerr << main_usage;
    return 2;
  }
  const std::string command = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "-h" || command == "--help") return std::cout << main_usage, 0;
  if (command == "--version") return std::cout << "portasolve " << version << '\n', 0;
  if (command == "run") {
    const Options options = parse_options(rest, true, true);
    if (options.help) return std::cout << run_usage, 0;
    return run_command(options, kokkos_argc, kokkos_args.data(), command_line);
  }
  if (command == "check") {
    const Options options = parse_options(rest, true, false);
    if (options.help) return std::cout << check_usage, 0;
    const LoadedConfig loaded = load_config(options);
    check_preflight(loaded.config, find_experiment(loaded.experiment).preflight(loaded.config));
    std::cout << loaded.config.to_yaml();
    return 0;
  }
  if (command == "info") {
    if (parse_options(rest, false, false).help) return std::cout << info_usage, 0;
    return info_command(kokkos_argc, kokkos_args.data());
  }
  throw usage_error("unknown command '" + command + "'", "run, check, info");
}

}  // namespace

int main(int argc, char* argv[]) {
  const KokkosAllocationMessages kokkos_messages;  // Kokkos' raw allocation text, for one clear line instead
  try {
    return dispatch(argc, argv);
  } catch (const Interrupted& error) {
    std::cerr << "portasolve: interrupted; no result file written\n";
    return error.exit_code();
  } catch (const Error& error) {
    std::cerr << "portasolve: error: " << error.what() << '\n';
    return error.exit_code();
  } catch (const std::exception& error) {
    if (const auto failure = describe_allocation_failure(error)) {
      std::cerr << "portasolve: error: " << *failure << '\n';
      return 1;
    }
    std::cerr << "portasolve: error while running: " << error.what() << '\n';
    return 1;
  }
}

}  // namespace portasolve::drivers
