// The config schema: defaults, types, ranges, unknown keys, --set, positions.
#include <gtest/gtest.h>

#include <string>

#include "app/config.hpp"

namespace {

using portasolve::ConfigError;
using portasolve::config::Config;
using portasolve::config::Kind;
using portasolve::config::Schema;

Schema example_schema() {
  Schema schema;
  schema.add("precision", Kind::Choice, "type").choices({"float", "double"}).default_value("double");
  schema.add("solver.tolerance", Kind::Real, "stop").default_value(1e-6).greater_than(0);
  schema.add("solver.max_iterations", Kind::Integer, "cap").default_value(1000).at_least(1);
  schema.add("solver.omega", Kind::Real, "weight").default_value(1.0).greater_than(0).at_most(2);
  schema.add("output.overwrite", Kind::Boolean, "replace").default_value(false);
  schema.add("input.file", Kind::String, "data").optional();
  schema.add("grid.sizes", Kind::IntegerList, "sizes").optional().at_least(2).min_items(2);
  schema.add("grid.weights", Kind::RealList, "w").default_value(std::vector<double>{0.25, 0.5});
  schema.add("name", Kind::String, "required name");
  return schema;
}

Config validate(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return example_schema().validate(YAML::Load(yaml), "test.yaml", overrides);
}

// The error message for `yaml`, or "" if it validates.
std::string error_for(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    validate(yaml, overrides);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(Config, DefaultsFillMissingKeys) {
  const Config config = validate("name: a\nsolver:\n  tolerance: 1e-8\n");
  EXPECT_EQ(config.string("precision"), "double");
  EXPECT_DOUBLE_EQ(config.real("solver.tolerance"), 1e-8);
  EXPECT_EQ(config.integer("solver.max_iterations"), 1000);
  EXPECT_FALSE(config.boolean("output.overwrite"));
  EXPECT_FALSE(config.has("input.file"));
  EXPECT_EQ(config.reals("grid.weights"), (std::vector<double>{0.25, 0.5}));
  EXPECT_EQ(config.where("solver.tolerance").line, 3);
  EXPECT_EQ(config.where("solver.tolerance").column, 14);
  EXPECT_EQ(config.where("precision").line, 0);
}

TEST(Config, IntegersMayBeWrittenInExponentForm) {
  EXPECT_EQ(validate("name: a\nsolver: {max_iterations: 1.5e5}\n").integer("solver.max_iterations"), 150000);
  EXPECT_NE(error_for("name: a\nsolver: {max_iterations: 2.5}\n").find("expected an integer, got '2.5'"),
            std::string::npos);
}

TEST(Config, UnknownKeySuggestsTheClosestKnown) {
  const std::string message = error_for("name: a\nsolver:\n  tolerence: 1e-3\n");
  EXPECT_NE(message.find("test.yaml:3:3: key 'solver.tolerence': unknown key (did you mean 'solver.tolerance'?)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("tolerance, max_iterations, omega"), std::string::npos) << message;
}

TEST(Config, UnknownKeyAtTheWrongLevelSuggestsItsFullPath) {
  const std::string message = error_for("name: a\nmax_iterations: 5\n");
  EXPECT_NE(message.find("did you mean 'solver.max_iterations'?"), std::string::npos) << message;
}

TEST(Config, WrongTypeNamesPositionKeyAndAllowed) {
  EXPECT_EQ(error_for("name: a\nsolver:\n  max_iterations: many\n"),
            "test.yaml:3:19: key 'solver.max_iterations': expected an integer, got 'many' (allowed: an integer >= 1)");
  EXPECT_EQ(error_for("name: a\noutput: {overwrite: maybe}\n"),
            "test.yaml:2:21: key 'output.overwrite': expected true or false, got 'maybe' (allowed: true or false)");
  EXPECT_NE(error_for("name: a\nsolver: 3\n").find("key 'solver': expected a group of keys, got '3'"),
            std::string::npos);
  EXPECT_NE(error_for("name: a\ngrid: {weights: 0.5}\n").find("expected a list, got '0.5'"), std::string::npos);
  EXPECT_NE(error_for("name: [a, b]\n").find("key 'name': expected a string, got a list"), std::string::npos);
}

TEST(Config, OutOfRangeValues) {
  EXPECT_EQ(error_for("name: a\nsolver: {tolerance: 0}\n"),
            "test.yaml:2:21: key 'solver.tolerance': out of range: 0 (allowed: a number > 0)");
  EXPECT_EQ(error_for("name: a\nsolver: {omega: 2.5}\n"),
            "test.yaml:2:17: key 'solver.omega': out of range: 2.5 (allowed: a number > 0 and <= 2)");
  EXPECT_NE(error_for("name: a\nsolver: {omega: .nan}\n").find("expected a finite number"), std::string::npos);
  EXPECT_NE(
      error_for("name: a\ngrid: {sizes: [4, 1]}\n").find("out of range: 1 (allowed: a list of integers, each >= 2"),
      std::string::npos);
  EXPECT_NE(error_for("name: a\ngrid: {sizes: [4]}\n").find("has 1 items"), std::string::npos);
}

TEST(Config, ChoiceSuggestsClosest) {
  EXPECT_EQ(error_for("name: a\nprecision: doubel\n"),
            "test.yaml:2:12: key 'precision': got 'doubel' (did you mean 'double'?) (allowed: one of: float, double)");
}

TEST(Config, MissingRequiredKeyAndEmptyValue) {
  EXPECT_EQ(error_for("precision: float\n"), "test.yaml: key 'name': missing required key (allowed: a string)");
  EXPECT_NE(error_for("name:\n").find("key 'name': no value"), std::string::npos);
}

TEST(Config, DuplicateKeysAreErrors) {
  EXPECT_NE(error_for("name: a\nname: b\n").find("test.yaml:2:1: key 'name': duplicate key"), std::string::npos);
}

TEST(Config, SetOverridesWithTheSameChecks) {
  const Config config = validate("name: a\nsolver: {tolerance: 1e-3}\n", {"solver.tolerance=1e-9", "input.file=x.csv"});
  EXPECT_DOUBLE_EQ(config.real("solver.tolerance"), 1e-9);
  EXPECT_EQ(config.string("input.file"), "x.csv");
  EXPECT_EQ(config.where("solver.tolerance").file, "--set solver.tolerance=1e-9");
  EXPECT_EQ(validate("name: a\n", {"grid.sizes=[8, 16]"}).integers("grid.sizes"), (std::vector<std::int64_t>{8, 16}));

  EXPECT_EQ(error_for("name: a\n", {"solver.tolerance=-1"}),
            "--set solver.tolerance=-1: key 'solver.tolerance': out of range: -1 (allowed: a number > 0)");
  EXPECT_NE(error_for("name: a\n", {"solver.tolerence=1"}).find("did you mean 'solver.tolerance'?"), std::string::npos);
  EXPECT_NE(error_for("name: a\n", {"solver.tolerance"}).find("expected KEY.PATH=VALUE"), std::string::npos);
  EXPECT_NE(error_for("name: a\n", {"name.x=1"}).find("'name' is not a group of keys"), std::string::npos);
  EXPECT_NE(error_for("name: a\n", {"grid.sizes=[1, 2"}).find("malformed value"), std::string::npos);
}

TEST(Config, EffectiveYamlValidatesToTheSameValues) {
  const Config config = validate("name: demo\nsolver: {tolerance: 2.5e-7}\n", {"grid.sizes=[4,8]"});
  const std::string yaml = config.to_yaml();
  const Config again = validate(yaml);
  EXPECT_EQ(again.to_yaml(), yaml);
  EXPECT_DOUBLE_EQ(again.real("solver.tolerance"), 2.5e-7);
  EXPECT_NE(yaml.find("tolerance: 2.5e-07"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("sizes: [4, 8]"), std::string::npos) << yaml;
}

TEST(Config, MissingAndMalformedFiles) {
  try {
    portasolve::config::load_yaml_file("/nonexistent/portasolve.yaml");
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(),
                 "/nonexistent/portasolve.yaml: cannot open the config file (allowed: a readable YAML file)");
    EXPECT_EQ(error.exit_code(), 2);
  }
  const std::string path = ::testing::TempDir() + "malformed.yaml";
  FILE* file = std::fopen(path.c_str(), "w");
  std::fputs("a: 1\nb: [1, 2\nc: 3\n", file);
  std::fclose(file);
  try {
    portasolve::config::load_yaml_file(path);
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find(path + ":3:2: malformed YAML"), std::string::npos) << error.what();
  }
}

// The error load_yaml_file() gives for a file holding `text`, or "" if it loads.
std::string load_error(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  FILE* file = std::fopen(path.c_str(), "w");
  std::fputs(text.c_str(), file);
  std::fclose(file);
  try {
    portasolve::config::load_yaml_file(path);
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.exit_code(), 2);
    return std::string(error.what()).substr(::testing::TempDir().size());
  }
  return "";
}

TEST(Config, SecondDocumentIsAnError) {
  EXPECT_EQ(load_error("two.yaml", "experiment: stream\n---\nexperiment: poisson\n"),
            "two.yaml:3:1: a second YAML document (after '---'); portasolve reads one config per file (allowed: one "
            "document: merge the keys into the first, or use a file per config)");
  // A leading '---', a trailing one with nothing after it, and '...' are one document.
  EXPECT_EQ(load_error("one.yaml", "---\nexperiment: stream\n"), "");
  EXPECT_EQ(load_error("trailing.yaml", "experiment: stream\n---\n"), "");
  EXPECT_EQ(load_error("ended.yaml", "experiment: stream\n...\n"), "");
}

TEST(Config, TagsAreAnError) {
  EXPECT_EQ(load_error("tag.yaml", "experiment: stream\nstream:\n  size: !!float 5\n"),
            "tag.yaml:3:9: YAML tag '!!float' is not supported (allowed: the plain value; the schema decides each "
            "key's type)");
  EXPECT_NE(load_error("custom.yaml", "run: {repeats: [1, !mine 2]}\n").find("custom.yaml:1:20: YAML tag '!mine'"),
            std::string::npos);
  EXPECT_NE(load_error("key.yaml", "!!str seed: 3\n").find("YAML tag '!!str'"), std::string::npos);
  // Quoted and plain values carry no tag.
  EXPECT_EQ(load_error("plain.yaml", "a: 'x'\nb: \"y\"\nc: [1, {d: 2}]\ne: ~\n"), "");
}

// A recursive alias makes an infinite tree: an error, not endless recursion
// (the fuzzer's case 221 crashed with SIGSEGV), while ordinary anchors work.
TEST(Config, RecursiveAliasIsAnError) {
  EXPECT_NE(load_error("loop.yaml", "run:\n  progress_interval_s: &a [*a]\n").find("loop.yaml:2:"), std::string::npos);
  EXPECT_NE(load_error("loop.yaml", "run:\n  progress_interval_s: &a [*a]\n").find("deeper than 32 levels"),
            std::string::npos);
  EXPECT_EQ(load_error("anchor.yaml", "a: &x {b: 1}\nc: *x\n"), "");
}

TEST(Config, ExperimentIsReadFirstAndChecked) {
  using portasolve::config::read_experiment;
  const std::vector<std::string> known{"poisson", "smoothing"};
  EXPECT_EQ(read_experiment(YAML::Load("experiment: poisson\n"), "f.yaml", {}, known), "poisson");
  EXPECT_EQ(read_experiment(YAML::Load("experiment: poisson\n"), "f.yaml", {"experiment=smoothing"}, known),
            "smoothing");
  try {
    read_experiment(YAML::Load("experiment: poison\n"), "f.yaml", {}, known);
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_STREQ(
        error.what(),
        "f.yaml:1:13: key 'experiment': got 'poison' (did you mean 'poisson'?) (allowed: one of: poisson, smoothing)");
  }
  EXPECT_THROW(read_experiment(YAML::Load("seed: 1\n"), "f.yaml", {}, known), ConfigError);
}

TEST(Config, ClosestMatch) {
  using portasolve::config::closest_match;
  EXPECT_EQ(closest_match("tolerence", {"tolerance", "omega"}), "tolerance");
  EXPECT_EQ(closest_match("Precision", {"precision"}), "precision");
  EXPECT_EQ(closest_match("xyz", {"tolerance", "omega"}), "");
}

}  // namespace
