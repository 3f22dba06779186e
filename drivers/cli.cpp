#include "drivers/cli.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/build_info.hpp"
#include "app/config.hpp"
#include "app/memory_budget.hpp"
#include "app/result_file.hpp"
#include "app/version.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/kokkos_compat.hpp"
#include "core/kokkos_session.hpp"
#include "drivers/experiment.hpp"
#if PORTASOLVE_HAVE_MPI
#include "distributed/mpi_session.hpp"
#endif

namespace portasolve::drivers {

namespace {

// The MPI ranks of this process (rank 0 of 1 unless an MPI launcher started
// it), set once in main().
Ranks this_run_ranks;
// Over MPI ranks: the result file's temporary (rank 0's), which a rank that
// fails while running removes before stopping every rank.
std::string partial_result_file;
bool running_experiment = false;

std::ostream& rank_out() {
  static std::ostream silent(nullptr);
  return this_run_ranks.rank == 0 ? std::cout : silent;
}

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
    "Under mpirun (MPI builds) every rank runs the command; rank 0 prints and writes the result.\n"
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

  const Ranks& ranks = this_run_ranks;
  if (ranks.size > 1) {
    if (!experiment.check_ranks) {
      std::string over_ranks;  // the experiments that do
      for (const auto& other : experiments())
        if (other.check_ranks) over_ranks += (over_ranks.empty() ? "" : ", ") + other.name;
      throw ConfigError(
          config.where("experiment"), "experiment",
          "'" + loaded.experiment + "' runs on one rank only so far, this run has " + std::to_string(ranks.size),
          over_ranks + " over MPI ranks, or run without mpirun");
    }
    experiment.check_ranks(config, ranks.size);
  }

  KokkosSession kokkos(kokkos_argc, kokkos_argv);
  // GPUs: the device Kokkos chose, now that it has chosen.
  if (!before_kokkos.device_is_host) check_preflight(config, plan);
  {
    const Provenance provenance{loaded.experiment, config.string("precision"), command_line, config.to_yaml()};
    std::optional<ResultFile> result;
    running_experiment = ranks.size > 1;  // from here a failure on one rank stops all (main)
    if (ranks.rank == 0)
      result.emplace(output_path, overwrite, provenance, config.where("output.path"));
    else
      result.emplace(ResultFile::Discarded{}, provenance);
#if PORTASOLVE_HAVE_MPI
    if (ranks.size > 1) partial_result_file = distributed::all_gather_strings(result->temporary_path()).front();
#endif
    RunContext context{config,
                       *result,
                       rank_out(),
                       options.quiet || ranks.rank != 0 ? nullptr : &std::cerr,
                       config.real("run.progress_interval_s"),
                       ranks};
    experiment.run(context);
    throw_if_interrupted();
    result->commit();
    running_experiment = false;
  }
  rank_out() << "wrote " << output_path << '\n';
  return 0;
}

int info_command(int& kokkos_argc, char** kokkos_argv) {
  KokkosSession kokkos(kokkos_argc, kokkos_argv);
  std::ostream& out = rank_out();
  out << "portasolve version: " << version << '\n';
  print_backend_info(out, backend_info());
  out << "HDF5 version:       " << hdf5_version_string() << '\n';
#if PORTASOLVE_HAVE_MPI
  out << "MPI:                "
      << (this_run_ranks.size > 1 || distributed::launched_by_mpi_launcher()
              ? std::to_string(this_run_ranks.size) + " rank(s)"
              : "built in; not started (run under mpirun for ranks)")
      << '\n';
  if (distributed::launched_by_mpi_launcher()) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const std::string mine = "  rank " + std::to_string(this_run_ranks.rank) + " on " + host + " (local rank " +
                             std::to_string(this_run_ranks.local_rank) + "): " + backend_info().device;
    for (const std::string& line : distributed::all_gather_strings(mine)) out << line << '\n';
  }
#endif
  out << "experiments:\n";
  for (const auto& experiment : experiments()) out << "  " << experiment.name << ": " << experiment.summary << '\n';
  return 0;
}

// Over MPI ranks on GPU builds: each rank takes the device of its node-local
// rank (round robin when ranks outnumber devices), unless told otherwise.
void choose_rank_device(std::vector<char*>& kokkos_args) {
  if (this_run_ranks.size <= 1 && this_run_ranks.local_rank == 0) return;
  for (const char* arg : kokkos_args)
    if (arg && std::string(arg).rfind("--kokkos-device-id", 0) == 0) return;
  const int devices = kokkos_compat::visible_device_count();
  if (devices <= 0) return;
  static std::string flag;  // kokkos_args points into it until Kokkos has read it
  flag = "--kokkos-device-id=" + std::to_string(this_run_ranks.local_rank % devices);
  kokkos_args.push_back(&flag[0]);
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
  choose_rank_device(kokkos_args);
  kokkos_args.push_back(nullptr);
  int kokkos_argc = static_cast<int>(kokkos_args.size()) - 1;

  if (args.empty()) {
    std::cerr << main_usage;
    return 2;
  }
  const std::string command = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "-h" || command == "--help") return rank_out() << main_usage, 0;
  if (command == "--version") return rank_out() << "portasolve " << version << '\n', 0;
  if (command == "run") {
    const Options options = parse_options(rest, true, true);
    if (options.help) return rank_out() << run_usage, 0;
    return run_command(options, kokkos_argc, kokkos_args.data(), command_line);
  }
  if (command == "check") {
    const Options options = parse_options(rest, true, false);
    if (options.help) return rank_out() << check_usage, 0;
    const LoadedConfig loaded = load_config(options);
    check_preflight(loaded.config, find_experiment(loaded.experiment).preflight(loaded.config));
    rank_out() << loaded.config.to_yaml();
    return 0;
  }
  if (command == "info") {
    if (parse_options(rest, false, false).help) return rank_out() << info_usage, 0;
    return info_command(kokkos_argc, kokkos_args.data());
  }
  throw usage_error("unknown command '" + command + "'", "run, check, info");
}

}  // namespace

namespace {

constexpr int abort_grace_ms = 500;

// Before the experiment runs, every rank meets the same errors (they read the
// same config and files): each exits with the code, rank 0 alone prints.
// While it runs, a failure may be one rank's alone, with the others waiting
// for it in a collective call: that rank removes the partial result file and
// stops every rank (MPI_Abort) with its message.
int report_failure(const std::string& message, int exit_code) {
#if PORTASOLVE_HAVE_MPI
  if (running_experiment && this_run_ranks.size > 1) {
    if (!partial_result_file.empty()) std::remove(partial_result_file.c_str());
    // Most failures meet every rank at once (a non-finite global residual):
    // rank 0 speaks first and its MPI_Abort ends the others before they
    // repeat it. A rank failing alone still speaks, a moment later.
    if (this_run_ranks.rank != 0) std::this_thread::sleep_for(std::chrono::milliseconds(abort_grace_ms));
    distributed::abort_all(message + "; no result file written", exit_code);
  }
#endif
  if (this_run_ranks.rank == 0) std::cerr << "portasolve: " << message << '\n';
  return exit_code;
}

int guarded_main(int argc, char* argv[]) {
  const KokkosAllocationMessages kokkos_messages;  // Kokkos' raw allocation text, for one clear line instead
  try {
    return dispatch(argc, argv);
  } catch (const Interrupted& error) {
    return report_failure("interrupted; no result file written", error.exit_code());
  } catch (const Error& error) {
    return report_failure(std::string("error: ") + error.what(), error.exit_code());
  } catch (const std::exception& error) {
    if (const auto failure = describe_allocation_failure(error)) return report_failure("error: " + *failure, 1);
    return report_failure(std::string("error while running: ") + error.what(), 1);
  }
}

}  // namespace

int main(int argc, char* argv[]) {
#if PORTASOLVE_HAVE_MPI
  // MPI only when a launcher started us: a plain run is the single-process program.
  std::optional<distributed::MpiSession> mpi;
  if (distributed::launched_by_mpi_launcher()) {
    mpi.emplace(argc, argv);
    const distributed::RankInfo& info = mpi->ranks();
    this_run_ranks = Ranks{info.rank, info.size, info.local_rank};
  }
#endif
  return guarded_main(argc, argv);
}

}  // namespace portasolve::drivers
