#include <gtest/gtest.h>

#include <string>

#include "core/errors.hpp"

namespace {

using portasolve::ConfigError;
using portasolve::SourceLocation;

TEST(Errors, ConfigErrorNamesFileLineColumnKeyAndAllowed) {
  const ConfigError error(SourceLocation{"configs/poisson.yaml", 12, 5}, "solver.tolerance", "got -1", "a number > 0");
  EXPECT_STREQ(error.what(), "configs/poisson.yaml:12:5: key 'solver.tolerance': got -1 (allowed: a number > 0)");
  EXPECT_EQ(error.where().line, 12);
  EXPECT_EQ(error.where().column, 5);
  EXPECT_EQ(error.key_path(), "solver.tolerance");
}

TEST(Errors, ConfigErrorWithoutPositionOrAllowed) {
  const ConfigError error(SourceLocation{"--set", 0, 0}, "precision", "missing value");
  EXPECT_STREQ(error.what(), "--set: key 'precision': missing value");
  const ConfigError anonymous(SourceLocation{}, "", "empty document");
  EXPECT_STREQ(anonymous.what(), "<config>: empty document");
}

TEST(Errors, ExitCodesByCategory) {
  const ConfigError config(SourceLocation{}, "a", "b");
  const portasolve::InputError input("NaN in t at index 3");
  const portasolve::IoError io("cannot open out.h5");
  const portasolve::SolverError solver("diverged");
  const portasolve::Error* errors[] = {&config, &input, &io, &solver};
  const int expected[] = {2, 2, 1, 1};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(errors[i]->exit_code(), expected[i]) << errors[i]->what();
  EXPECT_THROW(throw portasolve::InputError("x"), portasolve::Error);
}

}  // namespace
