// Parallel HDF5: every rank writes its block of datasets rank 0 declared, and
// the file reads back (serially, on rank 0) as the whole arrays, whatever the
// rank count; a rank with nothing to write still takes part; a block outside
// its dataset is an IoError on every rank that names the dataset.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "app/hdf5.hpp"
#include "app/parallel_hdf5.hpp"
#include "core/errors.hpp"
#include "distributed/grid_decomposition.hpp"
#include "ranks.hpp"

namespace h5 = portasolve::h5;
namespace pd = portasolve::distributed;
using portasolve::distributed::testing::world_size;

namespace {

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// One name for every rank: rank 0's, in this process's temporary folder.
std::string shared_file_name(const char* stem) {
  char name[256] = {};
  if (world_rank() == 0) std::snprintf(name, sizeof name, "/tmp/portasolve-%s-%ld.h5", stem, long(getpid()));
  MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
  return name;
}

template <class T>
T value_at(hsize_t i, hsize_t j) {
  return static_cast<T>(1000 * i + j);
}

// Rank 0 builds the file with the datasets declared, unwritten, and closes it.
void declare(const std::string& path, hsize_t rows, hsize_t cols) {
  if (world_rank() == 0) {
    h5::File file = h5::File::create(path, /*replace=*/true);
    h5::Group out = file.create_group("output");
    out.create_unwritten_dataset<double>("solution", {rows, cols});
    out.create_unwritten_dataset<std::int32_t>("image", {rows, cols});
    file.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace

TEST(ParallelHdf5, EveryRanksBlockLandsWhereItBelongs) {
  // Uneven blocks over a process grid, as the drivers split a grid.
  for (const auto& [rows, cols] : std::vector<std::pair<hsize_t, hsize_t>>{{13, 9}, {5, 31}}) {
    const std::string path = shared_file_name("blocks");
    declare(path, rows, cols);
    const pd::GridDecomposition grid(MPI_COMM_WORLD, std::int64_t(rows) + 2, std::int64_t(cols) + 2);
    const pd::Span r = grid.rows_owned(), c = grid.cols_owned();
    std::vector<double> solution;
    std::vector<std::int32_t> image;
    for (std::int64_t i = r.first - 1; i < r.first - 1 + r.count; ++i)
      for (std::int64_t j = c.first - 1; j < c.first - 1 + c.count; ++j) {
        solution.push_back(value_at<double>(i, j) + 0.25);
        image.push_back(value_at<std::int32_t>(i, j));
      }
    const h5::Dims start{hsize_t(r.first - 1), hsize_t(c.first - 1)}, count{hsize_t(r.count), hsize_t(c.count)};
    h5::write_blocks_collectively(MPI_COMM_WORLD, path,
                                  {h5::block_part("/output/solution", solution.data(), start, count),
                                   h5::block_part("/output/image", image.data(), start, count)});
    if (world_rank() == 0) {
      const h5::File file = h5::File::open_read_only(path);
      h5::Dims dims;
      const std::vector<double> got = file.open_group("output").read_dataset<double>("solution", &dims);
      const std::vector<std::int32_t> pixels = file.open_group("output").read_dataset<std::int32_t>("image");
      ASSERT_EQ(dims, (h5::Dims{rows, cols}));
      for (hsize_t i = 0; i < rows; ++i)
        for (hsize_t j = 0; j < cols; ++j) {
          EXPECT_EQ(got[i * cols + j], value_at<double>(i, j) + 0.25) << i << " " << j;
          EXPECT_EQ(pixels[i * cols + j], value_at<std::int32_t>(i, j)) << i << " " << j;
        }
      std::remove(path.c_str());
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

TEST(ParallelHdf5, ARankWithAnEmptyBlockStillTakesPart) {
  // Rank 0 writes every row; the others pass blocks with no rows.
  const hsize_t rows = 4, cols = 3;
  const std::string path = shared_file_name("empty");
  declare(path, rows, cols);
  std::vector<double> all;
  for (hsize_t i = 0; i < rows; ++i)
    for (hsize_t j = 0; j < cols; ++j) all.push_back(value_at<double>(i, j));
  const bool writes = world_rank() == 0;
  h5::write_blocks_collectively(MPI_COMM_WORLD, path,
                                {h5::block_part("/output/solution", all.data(), {0, 0}, {writes ? rows : 0, cols})});
  if (writes) {
    EXPECT_EQ(h5::File::open_read_only(path).open_group("output").read_dataset<double>("solution"), all);
    std::remove(path.c_str());
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(ParallelHdf5, ABlockOutsideItsDatasetIsAnErrorNamingIt) {
  const std::string path = shared_file_name("outside");
  declare(path, 4, 3);
  const std::vector<double> values(6, 1.0);
  try {
    h5::write_blocks_collectively(MPI_COMM_WORLD, path,
                                  {h5::block_part("/output/solution", values.data(), {3, 0}, {2, 3})});
    ADD_FAILURE() << "no error for rows 3-4 of a 4-row dataset";
  } catch (const portasolve::IoError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("/output/solution"), std::string::npos) << message;
    EXPECT_NE(message.find("outside its extent 4"), std::string::npos) << message;
  }
  try {
    h5::write_blocks_collectively(MPI_COMM_WORLD, path,
                                  {h5::block_part("/output/missing", values.data(), {0, 0}, {1, 1})});
    ADD_FAILURE() << "no error for a dataset that is not there";
  } catch (const portasolve::IoError& error) {
    EXPECT_NE(std::string(error.what()).find("/output/missing': no such dataset"), std::string::npos) << error.what();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::remove(path.c_str());
}
