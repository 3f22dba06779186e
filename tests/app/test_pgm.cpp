// PGM: round trips in both encodings and both sample widths, header comments,
// and every malformed input as an InputError naming the file.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>

#include "app/pgm.hpp"
#include "core/errors.hpp"
#include "tests/app/file_size_limit.hpp"

namespace portasolve {
namespace {

pgm::Image random_image(std::size_t rows, std::size_t cols, unsigned maxval, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<unsigned> pixel(0, maxval);
  pgm::Image image{rows, cols, maxval, std::vector<std::uint16_t>(rows * cols)};
  for (auto& p : image.pixels) p = static_cast<std::uint16_t>(pixel(generator));
  image.pixels.front() = static_cast<std::uint16_t>(maxval);  // the extremes are present
  image.pixels.back() = 0;
  return image;
}

std::string temporary_path(const char* name) { return ::testing::TempDir() + name; }

TEST(Pgm, RoundTripsBothEncodingsAndWidths) {
  for (const unsigned maxval : {1u, 255u, 256u, 4095u, 65535u})
    for (const auto encoding : {pgm::Encoding::plain, pgm::Encoding::raw}) {
      const pgm::Image image = random_image(7, 45, maxval, maxval);
      const std::string path = temporary_path("round_trip.pgm");
      pgm::write(path, image, encoding);
      const pgm::Image back = pgm::read(path);
      EXPECT_EQ(back.rows, 7u);
      EXPECT_EQ(back.cols, 45u);
      EXPECT_EQ(back.maxval, maxval);
      EXPECT_EQ(back.pixels, image.pixels) << "maxval " << maxval;
      std::remove(path.c_str());
    }
}

TEST(Pgm, RawSamplesAboveMaxval255AreTwoBytesBigEndian) {
  const pgm::Image image{1, 2, 1000, {0x0102, 999}};
  const std::string bytes = pgm::format(image, pgm::Encoding::raw);
  EXPECT_EQ(bytes, std::string("P5\n2 1\n1000\n") + "\x01\x02\x03\xe7");
}

TEST(Pgm, HeaderCommentsAndArbitraryWhitespace) {
  const pgm::Image image =
      pgm::parse("P2 # a comment\n# another\n3\t2\n  # width 3 height 2\n9\n0 1 2\n3 4\n9\n", "inline");
  EXPECT_EQ(image.cols, 3u);
  EXPECT_EQ(image.rows, 2u);
  EXPECT_EQ(image.maxval, 9u);
  EXPECT_EQ(image.pixels, (std::vector<std::uint16_t>{0, 1, 2, 3, 4, 9}));
}

TEST(Pgm, MalformedInputsAreInputErrorsNamingTheFile) {
  const auto message_of = [](const std::string& bytes) -> std::string {
    try {
      pgm::parse(bytes, "broken.pgm");
    } catch (const InputError& error) {
      return error.what();
    }
    return "no error";
  };
  EXPECT_NE(message_of("P6\n1 1\n255\nabc").find("P2 or P5"), std::string::npos);
  EXPECT_NE(message_of("\x89PNG\r\n").find("broken.pgm"), std::string::npos);
  EXPECT_NE(message_of("P5\n4 4\n255\nabc").find("truncated"), std::string::npos);
  EXPECT_NE(message_of("P2\n2 1\n10\n3 11\n").find("above maxval"), std::string::npos);
  EXPECT_NE(message_of("P2\n2 1\n70000\n3 1\n").find("maxval"), std::string::npos);
  EXPECT_NE(message_of("P2\n0 1\n10\n").find("positive"), std::string::npos);
  EXPECT_NE(message_of("P2\n2 x\n10\n").find("height"), std::string::npos);
  EXPECT_NE(message_of("P2\n2 2\n10\n1 2 3").find("ends before"), std::string::npos);
}

TEST(Pgm, FileProblemsAreIoErrors) {
  EXPECT_THROW(pgm::read(temporary_path("does_not_exist.pgm")), IoError);
  EXPECT_THROW(pgm::write(temporary_path("no_such_dir/x.pgm"), random_image(2, 2, 255, 1)), IoError);
  pgm::Image bad = random_image(2, 2, 10, 1);
  bad.pixels[0] = 11;
  EXPECT_THROW(pgm::format(bad, pgm::Encoding::raw), std::invalid_argument);
}

TEST(Pgm, FromValuesRoundsAndClamps) {
  const pgm::Image image = pgm::from_values({-3.0, 0.49, 0.5, 1.5, 254.6, 300.0}, 2, 3, 255);
  EXPECT_EQ(image.pixels, (std::vector<std::uint16_t>{0, 0, 0, 2, 255, 255}));
}

std::string message_of_parse(const std::string& bytes) {
  try {
    pgm::parse(bytes, "claims.pgm");
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

// A small file whose header claims a huge image fails before anything is
// allocated for it (not after allocating gigabytes, not with bad_alloc).
TEST(Pgm, HeaderSizeIsCheckedAgainstTheBytesPresentBeforeAllocating) {
  const std::string raw = "P5\n50000 50000\n255\n" + std::string(100, '\x01');
  const std::string message = message_of_parse(raw);
  EXPECT_NE(message.find("claims.pgm"), std::string::npos) << message;
  EXPECT_NE(message.find("50000x50000"), std::string::npos) << message;
  EXPECT_NE(message.find("2500000000 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("100 present"), std::string::npos) << message;
  const std::string wide = message_of_parse("P5\n1000000000 1000000000\n65535\n\x01\x02");
  EXPECT_NE(wide.find("1000000000x1000000000"), std::string::npos) << wide;
  EXPECT_NE(wide.find("2 present"), std::string::npos) << wide;
  const std::string plain = message_of_parse("P2\n1000000000 1000000000\n255\n1 2 3\n");
  EXPECT_NE(plain.find("1000000000x1000000000"), std::string::npos) << plain;
  EXPECT_NE(plain.find("7 present"), std::string::npos) << plain;  // "\n1 2 3\n"
  // Exactly enough bytes still parse, in both encodings.
  EXPECT_EQ(pgm::parse("P5\n2 1\n255\n\x01\x02", "x").pixels, (std::vector<std::uint16_t>{1, 2}));
  EXPECT_EQ(pgm::parse("P2\n2 1\n255\n1 2", "x").pixels, (std::vector<std::uint16_t>{1, 2}));
}

std::string file_contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::size_t files_in(const std::filesystem::path& folder) {
  return static_cast<std::size_t>(
      std::distance(std::filesystem::directory_iterator(folder), std::filesystem::directory_iterator()));
}

// Disk full while writing: an IoError naming the file and the reason, the old
// image untouched, no truncated image and no temporary left.
TEST(Pgm, FullDiskWhileWritingKeepsTheOldImageAndLeavesNoPartial) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(::testing::TempDir()) / "pgm_full";
  fs::remove_all(folder);
  fs::create_directories(folder);
  const std::string path = (folder / "out.pgm").string();
  std::ofstream(path) << "old image";
  try {
    const portasolve::testing::FileSizeLimit limit(1000);
    pgm::write(path, random_image(100, 100, 255, 3));
    ADD_FAILURE() << "a PGM past the file size limit was written";
  } catch (const IoError& error) {
    EXPECT_NE(std::string(error.what()).find("'" + path + "'"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("File too large"), std::string::npos) << error.what();
  }
  EXPECT_EQ(file_contents(path), "old image");
  EXPECT_EQ(files_in(folder), 1u);
  pgm::write(path, random_image(100, 100, 255, 3));  // without the limit it replaces the old image
  EXPECT_EQ(pgm::read(path).pixels, random_image(100, 100, 255, 3).pixels);
  EXPECT_EQ(files_in(folder), 1u);
  EXPECT_THROW(pgm::write("/dev/null", random_image(2, 2, 255, 1)), IoError);  // not a regular file
}

}  // namespace
}  // namespace portasolve
