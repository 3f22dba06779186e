// Round trips of every attribute and dataset type portasolve writes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "app/hdf5.hpp"
#include "core/errors.hpp"
#include "tests/app/file_size_limit.hpp"

namespace {

using portasolve::IoError;
namespace h5 = portasolve::h5;

std::string temp_path(const std::string& name) {
  const std::string path = ::testing::TempDir() + name;
  std::remove(path.c_str());
  return path;
}

template <class T>
std::vector<T> sample(std::size_t n) {
  std::vector<T> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<T>((i * 37 + 11) % 251);
  values.back() = std::numeric_limits<T>::max();
  return values;
}

template <class T>
void round_trip_dataset(h5::Group& group, const std::string& name, const h5::Dims& dims) {
  std::size_t count = 1;
  for (auto d : dims) count *= d;
  const auto values = sample<T>(count);
  group.write_dataset(name, values.data(), dims);
  h5::Dims read_dims;
  EXPECT_EQ(group.read_dataset<T>(name, &read_dims), values) << name;
  EXPECT_EQ(read_dims, dims) << name;
}

TEST(Hdf5, EveryDatasetTypeRoundTrips) {
  const std::string path = temp_path("datasets.h5");
  {
    h5::File file = h5::File::create(path);
    h5::Group group = file.create_group("data");
    round_trip_dataset<float>(group, "f32", {3, 5});
    round_trip_dataset<double>(group, "f64", {7});
    round_trip_dataset<std::uint8_t>(group, "u8", {4, 4});
    round_trip_dataset<std::uint16_t>(group, "u16", {2, 3, 4});
    round_trip_dataset<std::int32_t>(group, "i32", {9});
    round_trip_dataset<std::int64_t>(group, "i64", {2, 2});
    group.write_strings("names", {"copy", "", "triad ü"});
    file.close();
  }
  const h5::File file = h5::File::open_read_only(path);
  const h5::Group group = file.open_group("data");
  EXPECT_EQ(group.read_dataset<double>("f64"), sample<double>(7));
  EXPECT_EQ(group.read_dataset<std::int64_t>("u16").size(), 24u);  // converted on read
  EXPECT_EQ(group.read_strings("names"), (std::vector<std::string>{"copy", "", "triad ü"}));
  EXPECT_EQ(group.dataset_dims("u16"), (h5::Dims{2, 3, 4}));
}

TEST(Hdf5, ChunkedAndCompressedDatasetsReadBackAsWritten) {
  const std::string path = temp_path("chunked.h5");
  // Smooth values (compressible) with a few exact oddities that must survive.
  std::vector<double> values(300 * 1000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i % 1000) * 0.25;
  values[12345] = -0.0;
  values[777] = std::numeric_limits<double>::denorm_min();
  values[9999] = std::numeric_limits<double>::quiet_NaN();
  std::vector<float> narrow(values.begin(), values.begin() + 4000);
  {
    h5::File file = h5::File::create(path);
    h5::Group group = file.create_group("output");
    group.write_dataset("power", values.data(), h5::Dims{300, 1000}, h5::Storage{{7, 1000}, 6});
    group.write_dataset("chunked_only", narrow.data(), h5::Dims{4000}, h5::Storage{{512}, 0});
    EXPECT_THROW(group.write_dataset("bad", values.data(), h5::Dims{300, 1000}, h5::Storage{{301, 10}, 1}),
                 portasolve::IoError);
    EXPECT_THROW(group.write_dataset("bad2", values.data(), h5::Dims{300, 1000}, h5::Storage{{10}, 1}),
                 portasolve::IoError);
    EXPECT_THROW(group.write_dataset("bad3", values.data(), h5::Dims{300, 1000}, h5::Storage{{10, 10}, 10}),
                 portasolve::IoError);
    file.close();
  }
  const h5::File file = h5::File::open_read_only(path);
  const h5::Group group = file.open_group("output");
  h5::Dims dims;
  const std::vector<double> back = group.read_dataset<double>("power", &dims);
  EXPECT_EQ(dims, (h5::Dims{300, 1000}));
  ASSERT_EQ(back.size(), values.size());
  EXPECT_EQ(std::memcmp(back.data(), values.data(), values.size() * sizeof(double)), 0);  // bit for bit, NaN too
  EXPECT_EQ(group.read_dataset<float>("chunked_only"), narrow);

  // The layout as plain HDF5 sees it: chunks of 7 x 1000, one deflate filter,
  // and fewer bytes on disk than the raw array.
  const hid_t raw = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(raw, 0);
  const hid_t dataset = H5Dopen2(raw, "/output/power", H5P_DEFAULT);
  const hid_t create = H5Dget_create_plist(dataset);
  EXPECT_EQ(H5Pget_layout(create), H5D_CHUNKED);
  hsize_t chunk[2] = {0, 0};
  EXPECT_EQ(H5Pget_chunk(create, 2, chunk), 2);
  EXPECT_EQ(chunk[0], 7u);
  EXPECT_EQ(chunk[1], 1000u);
  ASSERT_EQ(H5Pget_nfilters(create), 1);
  unsigned flags = 0, level[1] = {0};
  std::size_t count = 1;
  EXPECT_EQ(H5Pget_filter2(create, 0, &flags, &count, level, 0, nullptr, nullptr), H5Z_FILTER_DEFLATE);
  EXPECT_EQ(level[0], 6u);
  EXPECT_LT(H5Dget_storage_size(dataset), values.size() * sizeof(double) / 4);
  const hid_t other = H5Dopen2(raw, "/output/chunked_only", H5P_DEFAULT);
  const hid_t other_create = H5Dget_create_plist(other);
  EXPECT_EQ(H5Pget_layout(other_create), H5D_CHUNKED);
  EXPECT_EQ(H5Pget_nfilters(other_create), 0);
  H5Pclose(other_create);
  H5Dclose(other);
  H5Pclose(create);
  H5Dclose(dataset);
  H5Fclose(raw);
}

// A dataset written in row blocks, in any order, reads back as the whole
// array; rows never written read as NaN; read_rows returns any block; rows
// past the end are refused by name.
TEST(Hdf5, DatasetsWrittenAndReadByRowsMatchTheWholeArray) {
  const std::string path = temp_path("rows.h5");
  constexpr std::size_t rows = 11, columns = 7;
  const auto values = sample<double>(rows * columns);
  {
    h5::File file = h5::File::create(path);
    file.create_dataset<double>("whole", {rows, columns}, h5::Storage{{4, columns}, 3});
    file.write_rows("whole", 8, 3, &values[8 * columns]);
    file.write_rows("whole", 0, 5, &values[0]);
    file.write_rows("whole", 5, 3, &values[5 * columns]);
    file.create_dataset<double>("gaps", {rows});
    const std::vector<double> one{2.5, -1.0};
    file.write_rows("gaps", 3, 2, one.data());
    file.create_dataset<std::int64_t>("ids", {rows});
    EXPECT_THROW(file.write_rows("whole", 10, 2, &values[0]), IoError);
    file.close();
  }
  const h5::File file = h5::File::open_read_only(path);
  EXPECT_EQ(file.read_dataset<double>("whole"), values);
  for (std::size_t first = 0; first <= rows; first += 2)
    for (std::size_t count = 0; first + count <= rows; count += 3) {
      const auto block = file.read_rows<double>("whole", first, count);
      ASSERT_EQ(block.size(), count * columns);
      for (std::size_t k = 0; k < block.size(); ++k) EXPECT_EQ(block[k], values[first * columns + k]);
    }
  const auto gaps = file.read_dataset<double>("gaps");
  for (std::size_t r = 0; r < rows; ++r) {
    if (r == 3 || r == 4)
      EXPECT_EQ(gaps[r], r == 3 ? 2.5 : -1.0);
    else
      EXPECT_TRUE(std::isnan(gaps[r])) << r;
  }
  EXPECT_EQ(file.read_rows<std::int64_t>("ids", 2, 3), std::vector<std::int64_t>(3, 0));
  try {
    file.read_rows<double>("whole", 9, 3);
    FAIL() << "rows past the end were read";
  } catch (const IoError& error) {
    EXPECT_NE(std::string(error.what()).find("rows 9 to 12"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("whole"), std::string::npos) << error.what();
  }
}

// read_block returns any box of a 2-D dataset (an MPI rank's block of an
// image): the values of the whole array there; a box past an edge is refused
// with the dataset's name and shape.
TEST(Hdf5, BlocksReadBackTheWholeArraysValues) {
  const std::string path = temp_path("blocks.h5");
  constexpr std::size_t rows = 9, columns = 13;
  const auto values = sample<double>(rows * columns);
  {
    h5::File file = h5::File::create(path);
    file.write_dataset("image", values.data(), {rows, columns});
    file.close();
  }
  const h5::File file = h5::File::open_read_only(path);
  for (std::size_t r0 = 0; r0 <= rows; r0 += 4)
    for (std::size_t c0 = 0; c0 <= columns; c0 += 5)
      for (std::size_t nr = 0; r0 + nr <= rows; nr += 3)
        for (std::size_t nc = 0; c0 + nc <= columns; nc += 4) {
          const auto block = file.read_block<double>("image", {r0, c0}, {nr, nc});
          ASSERT_EQ(block.size(), nr * nc);
          for (std::size_t i = 0; i < nr; ++i)
            for (std::size_t j = 0; j < nc; ++j)
              ASSERT_EQ(block[i * nc + j], values[(r0 + i) * columns + c0 + j])
                  << r0 << " " << c0 << " " << i << " " << j;
        }
  try {
    file.read_block<double>("image", {2, 10}, {3, 4});
    FAIL() << "a block past the last column was read";
  } catch (const IoError& error) {
    EXPECT_NE(std::string(error.what()).find("3 x 4 at 2 x 10"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("9 x 13"), std::string::npos) << error.what();
  }
  EXPECT_THROW(file.read_block<double>("image", {0}, {3}), IoError);  // a 1-D box of a 2-D dataset
}

TEST(Hdf5, EveryAttributeTypeRoundTrips) {
  const std::string path = temp_path("attributes.h5");
  {
    h5::File file = h5::File::create(path);
    file.set_attribute("text", std::string("line one\nline two"));
    file.set_attribute("literal", "portasolve");
    file.set_attribute("count", std::int64_t{-1234567890123});
    file.set_attribute("value", 0.1);
    file.set_attribute("list", std::vector<double>{1.5, -2.0, 1e300});
    h5::Group group = file.create_group("output");
    const std::vector<float> data{1, 2, 3};
    group.write_dataset("power", data);
    group.set_attribute("units", "1", "power");
    group.set_attribute("description", "normalised power", "power");
    file.set_attribute("value", 0.25);  // rewriting replaces
    file.close();
  }
  const h5::File file = h5::File::open_read_only(path);
  EXPECT_EQ(file.string_attribute("text"), "line one\nline two");
  EXPECT_EQ(file.string_attribute("literal"), "portasolve");
  EXPECT_EQ(file.int_attribute("count"), -1234567890123);
  EXPECT_EQ(file.double_attribute("value"), 0.25);
  EXPECT_EQ(file.double_list_attribute("list"), (std::vector<double>{1.5, -2.0, 1e300}));
  EXPECT_EQ(file.attribute_names(), (std::vector<std::string>{"count", "list", "literal", "text", "value"}));
  const h5::Group group = file.open_group("output");
  EXPECT_EQ(group.string_attribute("units", "power"), "1");
  EXPECT_EQ(group.string_attribute("description", "power"), "normalised power");
  EXPECT_TRUE(file.has("output"));
  EXPECT_FALSE(file.has("input"));
}

TEST(Hdf5, ErrorsNameTheFileAndObject) {
  const std::string path = temp_path("errors.h5");
  {
    h5::File file = h5::File::create(path);
    file.set_attribute("number", 1.0);
    file.close();
  }
  EXPECT_THROW(h5::File::create(path), IoError);  // exists
  const h5::File file = h5::File::open_read_only(path);
  try {
    file.read_dataset<double>("missing");
    FAIL() << "no error";
  } catch (const IoError& error) {
    EXPECT_EQ(std::string(error.what()), "no HDF5 dataset " + path + ":/missing");
  }
  EXPECT_THROW(file.string_attribute("number"), IoError);
  EXPECT_THROW(file.open_group("nothing"), IoError);

  const std::string not_hdf5 = temp_path("not_hdf5.h5");
  FILE* text = std::fopen(not_hdf5.c_str(), "w");
  std::fputs("plain text\n", text);
  std::fclose(text);
  EXPECT_THROW(h5::File::open_read_only(not_hdf5), IoError);
  EXPECT_THROW(h5::File::open_read_only(temp_path("absent.h5")), IoError);
}

namespace disk_full {

using portasolve::testing::FileSizeLimit;

std::size_t open_hdf5_files() { return static_cast<std::size_t>(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE)); }

// HDF5 1.10 frees a file whose H5Fclose failed but keeps its ID, which it
// closes again at exit (a crash in H5_term_library): no failed write may
// leave an ID behind.
TEST(Hdf5, WriteFailingForAFullDiskLeavesNoOpenFile) {
  const std::string path = temp_path("full_mid_write.h5");
  const std::size_t before = open_hdf5_files();
  {
    const FileSizeLimit limit(20000);
    h5::File file = h5::File::create(path);
    const std::vector<double> big(100000, 1.0);
    h5::Group group = file.create_group("output");
    try {
      group.write_dataset("state", big);
      ADD_FAILURE() << "a write past the file size limit succeeded";
    } catch (const IoError& error) {
      EXPECT_NE(std::string(error.what()).find("full_mid_write.h5:/output/state"), std::string::npos) << error.what();
    }
    group = h5::Group(h5::Handle(), path, "/output");
    file.abandon();
  }
  EXPECT_EQ(open_hdf5_files(), before);
  std::remove(path.c_str());
}

TEST(Hdf5, CloseFailingForAFullDiskThrowsAndClosesTheFile) {
  const std::string path = temp_path("full_at_close.h5");
  const std::size_t before = open_hdf5_files();
  {
    // Attributes stay in HDF5's cache until the file is closed: the close
    // is the first write, and it fails.
    const FileSizeLimit limit(100);
    h5::File file = h5::File::create(path);
    file.set_attribute("config", std::string(5000, 'x'));
    try {
      file.close();
      ADD_FAILURE() << "closing past the file size limit succeeded";
    } catch (const IoError& error) {
      EXPECT_NE(std::string(error.what()).find("cannot write HDF5 file '" + path + "'"), std::string::npos)
          << error.what();
      EXPECT_NE(std::string(error.what()).find("File too large"), std::string::npos) << error.what();
    }
    EXPECT_EQ(open_hdf5_files(), before);
  }
  {
    // The destructor of a file never closed ignores the failure, and closes.
    const FileSizeLimit limit(100);
    h5::File file = h5::File::create(path, /*replace=*/true);
    file.set_attribute("config", std::string(5000, 'x'));
  }
  EXPECT_EQ(open_hdf5_files(), before);
  std::remove(path.c_str());
}

TEST(Hdf5, FilesWrittenThroughTheDriverReadBackWithHdf5sDefault) {
  const std::string path = temp_path("driver_round_trip.h5");
  const std::vector<double> values = sample<double>(50000);  // past the metadata blocks
  {
    h5::File file = h5::File::create(path);
    h5::Group group = file.create_group("g");
    group.write_dataset("v", values);
    group.set_attribute("note", "kept");
    file.close();
  }
  const h5::File file = h5::File::open_read_only(path);  // HDF5's default driver
  EXPECT_EQ(file.open_group("g").read_dataset<double>("v"), values);
  EXPECT_EQ(file.open_group("g").string_attribute("note"), "kept");
  std::remove(path.c_str());
}

}  // namespace disk_full

}  // namespace

TEST(Hdf5, ThreadsWritingAndReadingAtOnceGetTheirOwnData) {
  // The Lomb-Scargle pipeline reads its next chunk on one thread while the
  // result file is written on another; parallel HDF5 builds are not
  // thread-safe themselves, so the layer serialises its calls (LibraryLock).
  constexpr int threads = 4, datasets = 40;
  std::vector<std::string> failures(threads);
  std::vector<std::thread> workers;
  for (int w = 0; w < threads; ++w)
    workers.emplace_back([w, &failures] {
      try {
        const std::string path = temp_path("thread" + std::to_string(w) + ".h5");
        h5::File file = h5::File::create(path, /*replace=*/true);
        h5::Group group = file.create_group("data");
        for (int d = 0; d < datasets; ++d) {
          std::vector<double> values(257);
          for (std::size_t k = 0; k < values.size(); ++k) values[k] = 1e4 * w + 100.0 * d + double(k);
          const std::string name = "d" + std::to_string(d);
          group.write_dataset(name, values);
          group.set_attribute("index", std::int64_t{d}, name);
          if (group.read_dataset<double>(name) != values || group.int_attribute("index", name) != d)
            throw std::runtime_error("dataset " + name + " read back other values");
        }
        file.close();
        const h5::File again = h5::File::open_read_only(path);
        for (int d = 0; d < datasets; ++d)
          if (again.open_group("data").read_dataset<double>("d" + std::to_string(d)).front() != 1e4 * w + 100.0 * d)
            throw std::runtime_error("reopened dataset d" + std::to_string(d) + " differs");
        std::remove(path.c_str());
      } catch (const std::exception& error) {
        failures[w] = error.what();
      }
    });
  for (auto& worker : workers) worker.join();
  for (int w = 0; w < threads; ++w) EXPECT_EQ(failures[w], "") << "thread " << w;
}
