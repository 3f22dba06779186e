// The distributed suite runs under mpirun (every rank runs every test; a test
// fails when it fails on any rank) and on its own as one rank. Rank 0 alone
// prints gtest's report; each rank's failures are printed by that rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <optional>

#include "core/kokkos_session.hpp"

namespace {

// A test passes only if it passed on every rank: the ranks' verdicts are
// combined after each test, so rank 0's report is the whole run's.
class AllRanksAgree : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& info) override {
    int failed = info.result()->Failed() ? 1 : 0, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any && !failed) ADD_FAILURE() << "failed on another rank (see its output)";
  }
};

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new AllRanksAgree);
  const bool listing_only = ::testing::GTEST_FLAG(list_tests);
  int status = 0;
  {
    std::optional<portasolve::KokkosSession> kokkos;
    if (!listing_only) kokkos.emplace(argc, argv);
    status = RUN_ALL_TESTS();
  }
  // Every rank's verdict, not just this one's.
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
