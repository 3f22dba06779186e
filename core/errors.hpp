#pragma once
// The few categories of error portasolve reports. Each knows the process exit
// code the command line turns it into: 2 for what the user gave us (usage,
// config, input data), 1 for what went wrong while running.
#include <stdexcept>
#include <string>

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

// A solver or backend failure while running (divergence, device error, ...).
class SolverError : public Error {
 public:
  using Error::Error;
};

}  // namespace portasolve
