#pragma once
// YAML configs checked against a typed schema. Every problem is a ConfigError
// naming the file, line and column, the key path and what is allowed; unknown
// keys get a "did you mean". Defaults live in the schema, nowhere else.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/errors.hpp"

namespace portasolve::config {

enum class Kind { Boolean, Integer, Real, String, Choice, RealList, IntegerList, ChoiceList };

class Field {
 public:
  Field(std::string path, Kind kind, std::string description);

  template <class T>
  Field& default_value(const T& value) {
    default_ = YAML::Node(value);
    return *this;
  }
  Field& optional();  // may be absent, with no default
  Field& at_least(double bound);
  Field& greater_than(double bound);
  Field& at_most(double bound);
  Field& less_than(double bound);
  Field& choices(std::vector<std::string> allowed);
  Field& min_items(std::size_t count);

  const std::string& path() const noexcept { return path_; }
  Kind kind() const noexcept { return kind_; }
  const std::string& description() const noexcept { return description_; }
  const std::optional<YAML::Node>& default_node() const noexcept { return default_; }
  bool is_optional() const noexcept { return optional_; }
  std::string allowed() const;  // human-readable description of valid values

  // Checks one value; returns it normalised (numbers as numbers). `where` and
  // `key` go into the error.
  YAML::Node validate(const YAML::Node& value, const SourceLocation& where) const;

 private:
  void check_number(double value, const SourceLocation& where, const std::string& text) const;
  void check_choice(const std::string& value, const SourceLocation& where) const;

  std::string path_;
  Kind kind_;
  std::string description_;
  std::optional<YAML::Node> default_;
  bool optional_ = false;
  std::optional<double> min_, max_;
  bool min_exclusive_ = false, max_exclusive_ = false;
  std::vector<std::string> choices_;
  std::size_t min_items_ = 0;
};

class Config;

class Schema {
 public:
  Field& add(std::string path, Kind kind, std::string description);
  const std::vector<Field>& fields() const noexcept { return fields_; }
  const Field* find(const std::string& path) const;

  // `overrides` are "a.b=value" assignments (--set), applied to `document`
  // itself before checking.
  Config validate(YAML::Node document, const std::string& file, const std::vector<std::string>& overrides = {}) const;

 private:
  std::vector<Field> fields_;
};

class Config {
 public:
  bool has(const std::string& path) const;
  bool boolean(const std::string& path) const;
  std::int64_t integer(const std::string& path) const;
  double real(const std::string& path) const;
  std::string string(const std::string& path) const;
  std::vector<double> reals(const std::string& path) const;
  std::vector<std::int64_t> integers(const std::string& path) const;
  std::vector<std::string> strings(const std::string& path) const;

  // Where a value came from: its file position, "--set ...", or just the file
  // for a default.
  SourceLocation where(const std::string& path) const;
  // The effective config (every key, defaults filled in) as YAML text.
  std::string to_yaml() const;
  const std::string& file() const noexcept { return file_; }

 private:
  friend class Schema;
  const YAML::Node& value(const std::string& path) const;
  std::string file_;
  std::vector<std::string> order_;  // schema order, for printing
  std::map<std::string, YAML::Node> values_;
  std::map<std::string, SourceLocation> origins_;
};

// Reads a YAML file; a missing file or malformed YAML is a ConfigError with the position.
YAML::Node load_yaml_file(const std::string& file);

// The top-level `experiment:` value, checked against `known`, before the rest
// of the schema is known.
std::string read_experiment(const YAML::Node& document, const std::string& file,
                            const std::vector<std::string>& overrides, const std::vector<std::string>& known);

// Closest candidate within a small edit distance, or empty.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace portasolve::config
