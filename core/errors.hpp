#pragma once
// The few categories of error portasolve reports. Each knows the process exit
// code the command line turns it into: 2 for what the user gave us (usage,
// config, input data), 1 for what went wrong while running.
#include <stdexcept>
#include <string>
#include <utility>

namespace portasolve {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  virtual int exit_code() const noexcept { return 1; }
};

// Where in a config file a problem sits; line and column are 1-based, 0 when
// unknown (e.g. a --set override from the command line).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

// A bad command line or config: names the file, line, column and key path,
// what was found and what is allowed.
class ConfigError : public Error {
 public:
  ConfigError(SourceLocation where, std::string key_path, std::string problem, std::string allowed = {});
  int exit_code() const noexcept override { return 2; }

  const SourceLocation& where() const noexcept { return where_; }
  const std::string& key_path() const noexcept { return key_path_; }

 private:
  SourceLocation where_;
  std::string key_path_;
};

// Input data that cannot give a meaningful answer (NaN, mismatched sizes, ...).
class InputError : public Error {
 public:
  using Error::Error;
  int exit_code() const noexcept override { return 2; }
};

// Files that cannot be read or written (HDF5, PGM, CSV, ...).
class IoError : public Error {
 public:
  using Error::Error;
};

// An option a solver cannot run with: a value out of range, or a combination
// this backend cannot do (e.g. a tile larger than its team scratch). option()
// names the field of the solver's options struct ("sweeps_per_launch",
// "multigrid.pre_sweeps", "K"), so a caller maps it to its own name for it
// (drivers: the config key) without reading the message. It is an
// std::invalid_argument, as the standard library reports bad arguments.
class OptionError : public std::invalid_argument {
 public:
  OptionError(std::string option, const std::string& message)
      : std::invalid_argument(message), option_(std::move(option)) {}
  const std::string& option() const noexcept { return option_; }

 private:
  std::string option_;
};

// A solver or backend failure while running (divergence, device error, ...).
class SolverError : public Error {
 public:
  using Error::Error;
};

}  // namespace portasolve
