// The result-file layout and the atomic-write rules.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "app/result_file.hpp"
#include "app/version.hpp"
#include "core/kokkos_session.hpp"
#include "tests/app/file_size_limit.hpp"

namespace {

namespace fs = std::filesystem;
using portasolve::ConfigError;
using portasolve::Provenance;
using portasolve::ResultFile;
namespace h5 = portasolve::h5;

fs::path fresh_folder(const std::string& name) {
  const fs::path folder = fs::path(::testing::TempDir()) / name;
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

const Provenance provenance{"stream", "float", "portasolve run x.yaml", "experiment: stream\n"};

std::size_t files_in(const fs::path& folder) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(folder), fs::directory_iterator()));
}

TEST(ResultFile, CommittedFileHasTheStandardLayout) {
  const fs::path folder = fresh_folder("result_layout");
  const std::string path = (folder / "sub" / "out.h5").string();  // missing folders are created
  {
    ResultFile result(path, false, provenance);
    const std::vector<double> power{1, 2};
    result.output().write_dataset("power", power);
    result.input().set_attribute("size", std::int64_t{2});
    portasolve::RepeatTimes times;
    times.seconds = {0.3, 0.1, 0.2};
    result.set_timing(0.5, times);
    result.set_validation("float64 host loop", 1e-12, 2e-9);
    EXPECT_FALSE(fs::exists(path));  // nothing at the target before commit
    result.commit();
  }
  ASSERT_TRUE(fs::exists(path));
  EXPECT_EQ(files_in(folder / "sub"), 1u);
  const h5::File file = h5::File::open_read_only(path);
  const auto backend = portasolve::backend_info();
  EXPECT_EQ(file.string_attribute("portasolve_version"), portasolve::version);
  EXPECT_EQ(file.string_attribute("experiment"), "stream");
  EXPECT_EQ(file.string_attribute("precision"), "float");
  EXPECT_EQ(file.string_attribute("command_line"), "portasolve run x.yaml");
  EXPECT_EQ(file.string_attribute("config"), "experiment: stream\n");
  EXPECT_EQ(file.string_attribute("kokkos_version"), backend.kokkos_version);
  EXPECT_EQ(file.string_attribute("execution_space"), backend.execution_space);
  EXPECT_EQ(file.string_attribute("device"), backend.device);
  EXPECT_FALSE(file.string_attribute("host").empty());
  const std::string created = file.string_attribute("created");  // e.g. 2026-11-21T20:43:00Z
  ASSERT_EQ(created.size(), 20u) << created;
  const std::string separators{created[4], created[7], created[10], created[13], created[16], created[19]};
  EXPECT_EQ(separators, "--T::Z") << created;
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u, 11u, 12u, 14u, 15u, 17u, 18u})
    EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(created[i]))) << created;
  EXPECT_EQ(file.open_group("output").read_dataset<double>("power"), (std::vector<double>{1, 2}));
  EXPECT_EQ(file.open_group("input").int_attribute("size"), 2);
  const h5::Group timing = file.open_group("timing");
  EXPECT_EQ(timing.double_attribute("setup_s"), 0.5);
  EXPECT_EQ(timing.double_attribute("solve_s"), 0.2);  // median
  EXPECT_EQ(timing.read_dataset<double>("solve_s_per_repeat"), (std::vector<double>{0.3, 0.1, 0.2}));
  const h5::Group validation = file.open_group("validation");
  EXPECT_EQ(validation.string_attribute("reference"), "float64 host loop");
  EXPECT_EQ(validation.double_attribute("max_abs_err"), 1e-12);
  EXPECT_EQ(validation.double_attribute("max_rel_err"), 2e-9);
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::others_read, fs::perms::others_read);
}

TEST(ResultFile, ExistingFileIsKeptWithoutOverwrite) {
  const fs::path folder = fresh_folder("result_existing");
  const std::string path = (folder / "out.h5").string();
  std::ofstream(path) << "precious";
  EXPECT_THROW(ResultFile(path, false, provenance), ConfigError);
  EXPECT_THROW(portasolve::check_output_target(path, false, {}), ConfigError);
  std::ifstream in(path);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "precious");
  EXPECT_EQ(files_in(folder), 1u);
}

TEST(ResultFile, OverwriteReplacesOnlyAtCommit) {
  const fs::path folder = fresh_folder("result_overwrite");
  const std::string path = (folder / "out.h5").string();
  std::ofstream(path) << "old";
  {
    ResultFile result(path, true, provenance);
    EXPECT_EQ(fs::file_size(path), 3u);  // still the old file while running
    result.commit();
  }
  EXPECT_EQ(h5::File::open_read_only(path).string_attribute("experiment"), "stream");
  EXPECT_EQ(files_in(folder), 1u);
}

TEST(ResultFile, FailedRunLeavesNoFile) {
  const fs::path folder = fresh_folder("result_failed");
  const std::string path = (folder / "out.h5").string();
  try {
    ResultFile result(path, false, provenance);
    result.output().write_dataset("partial", std::vector<float>{1, 2, 3});
    throw std::runtime_error("solver failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(files_in(folder), 0u);  // no temporary left either
}

TEST(ResultFile, FileAppearingMeanwhileIsNotReplaced) {
  const fs::path folder = fresh_folder("result_race");
  const std::string path = (folder / "out.h5").string();
  ResultFile result(path, false, provenance);
  std::ofstream(path) << "other";
  EXPECT_THROW(result.commit(), portasolve::IoError);
  EXPECT_EQ(fs::file_size(path), 5u);
}

std::string contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Disk full (writes past the limit fail with EFBIG): an IoError naming the
// file, no file and no hidden partial left, an existing target untouched.
TEST(ResultFile, FullDiskWhileWritingLeavesNothingAndKeepsTheTarget) {
  using portasolve::testing::FileSizeLimit;
  const fs::path folder = fresh_folder("result_full");
  const std::string path = (folder / "out.h5").string();
  std::ofstream(path) << "precious";
  for (const rlim_t bytes : {rlim_t{0}, rlim_t{1000}, rlim_t{20000}}) {  // at creation, attributes, a dataset
    try {
      const FileSizeLimit limit(bytes);
      ResultFile result(path, true, provenance);
      result.output().write_dataset("state", std::vector<double>(100000, 1.0));
      result.commit();
      ADD_FAILURE() << "a result file past a limit of " << bytes << " bytes was written";
    } catch (const portasolve::IoError& error) {
      EXPECT_NE(std::string(error.what()).find("out.h5"), std::string::npos) << error.what();
    }
    EXPECT_EQ(contents(path), "precious") << bytes;
    EXPECT_EQ(files_in(folder), 1u) << bytes;  // no .out.h5.partial-*
    EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE), 0) << bytes;
  }
}

TEST(ResultFile, AddedFileIsMovedInPlaceWithTheResultOnly) {
  const fs::path folder = fresh_folder("result_added");
  const std::string path = (folder / "out.h5").string(), image = (folder / "out.pgm").string();
  {
    ResultFile result(path, false, provenance);
    result.add_file(image, "P5\n1 1\n255\n\x07", "output.pgm", {"x.yaml", 3, 5});
    EXPECT_FALSE(fs::exists(image));
  }
  EXPECT_EQ(files_in(folder), 0u);  // not committed: neither file, no temporaries
  {
    ResultFile result(path, false, provenance);
    result.add_file(image, "P5\n1 1\n255\n\x07", "output.pgm", {"x.yaml", 3, 5});
    result.commit();
  }
  EXPECT_EQ(contents(image), "P5\n1 1\n255\n\x07");
  EXPECT_EQ(files_in(folder), 2u);
}

TEST(ResultFile, AddedFileRefusesTheResultPathAndAnExistingFile) {
  const fs::path folder = fresh_folder("result_added_refused");
  const std::string path = (folder / "out.h5").string(), image = (folder / "out.pgm").string();
  std::ofstream(image) << "old image";
  ResultFile result(path, false, provenance);
  try {
    result.add_file((folder / "." / "out.h5").string(), "P5\n1 1\n255\n\x07", "output.pgm", {"x.yaml", 3, 5});
    ADD_FAILURE() << "an added file replaced the result file";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.key_path(), "output.pgm");
    EXPECT_NE(std::string(error.what()).find("output.path"), std::string::npos) << error.what();
  }
  EXPECT_THROW(result.add_file(image, "P5\n1 1\n255\n\x07", "output.pgm", {}), ConfigError);  // no overwrite
  EXPECT_EQ(contents(image), "old image");
}

TEST(ResultFile, FullDiskWhileWritingAnAddedFileKeepsTheOldOne) {
  using portasolve::testing::FileSizeLimit;
  const fs::path folder = fresh_folder("result_added_full");
  const std::string path = (folder / "out.h5").string(), image = (folder / "out.pgm").string();
  std::ofstream(image) << "old image";
  {
    ResultFile result(path, true, provenance);
    const FileSizeLimit limit(1000);
    try {
      result.add_file(image, std::string(5000, 'x'), "output.pgm", {}, "PGM image");
      ADD_FAILURE() << "an added file past the limit was written";
    } catch (const portasolve::IoError& error) {
      EXPECT_NE(std::string(error.what()).find("cannot write PGM image '" + image + "'"), std::string::npos)
          << error.what();
      EXPECT_NE(std::string(error.what()).find("File too large"), std::string::npos) << error.what();
    }
  }
  EXPECT_EQ(contents(image), "old image");
  EXPECT_EQ(files_in(folder), 1u);
}

TEST(ResultFile, NeverReplacesWhatIsNotARegularFile) {
  for (const bool overwrite : {false, true}) {
    try {
      portasolve::check_output_target("/dev/null", overwrite, {"x.yaml", 2, 3});
      ADD_FAILURE() << "/dev/null accepted as an output";
    } catch (const ConfigError& error) {
      if (overwrite) {
        EXPECT_NE(std::string(error.what()).find("'/dev/null' is a character device"), std::string::npos)
            << error.what();
      }
    }
  }
  const fs::path folder = fresh_folder("result_not_regular");
  fs::create_directories(folder / "out.h5");
  EXPECT_THROW(ResultFile((folder / "out.h5").string(), true, provenance), ConfigError);
  // A target that turned into something else while the run went on.
  const std::string path = (folder / "late.h5").string();
  ResultFile result(path, true, provenance);
  fs::create_directories(path);
  EXPECT_THROW(result.commit(), portasolve::IoError);
  EXPECT_TRUE(fs::is_directory(path));
}

}  // namespace
