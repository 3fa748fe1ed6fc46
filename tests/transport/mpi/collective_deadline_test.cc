// The deadline of the mpi backend's collectives (transport/mpi/collective_deadline.h),
// under mpirun -np 2: a member that enters the all-reduce late (after the bound) makes the
// waiting member's watchdog fire once, naming the operation, the group and the bound; a
// collective both members enter at once does not fire; and no deadline, no watchdog.
// The expiry action here records instead of ending the rank; the default action is
// tested end to end (tools.gfn_train.failure_stop_trainer_average_mpirun_mpi).

#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "transport/mpi/mpi_group.h"

namespace gfn::transport::mpi_detail {
namespace {

struct Recorder {
  std::mutex mutex;
  std::vector<std::string> messages;
  CollectiveDeadline::Expiry action() {
    return [this](const std::string& m) {
      std::lock_guard<std::mutex> lock(mutex);
      messages.push_back(m);
    };
  }
  std::vector<std::string> taken() {
    std::lock_guard<std::mutex> lock(mutex);
    return messages;
  }
};

std::unique_ptr<MpiGroup> world_group(double timeout_s, Recorder& recorder) {
  auto session = std::make_shared<MpiSession>();
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<int> ranks;
  for (int r = 0; r < size; ++r) ranks.push_back(r);
  return std::make_unique<MpiGroup>(session, comm, /*owns_comm=*/true, ranks, rank, timeout_s,
                                    recorder.action());
}

TEST(CollectiveDeadline, ALateMemberMakesTheWaitingOneFireOnce) {
  Recorder recorder;
  auto group = world_group(0.3, recorder);
  ASSERT_EQ(group->size(), 2) << "run under mpirun -np 2";
  double value = group->rank() + 1.0;
  if (group->rank() == 1) std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  group->all_reduce(&value, 1, DType::kFloat64, ReduceOp::kSum);
  EXPECT_EQ(value, 3.0);  // the collective itself is unaffected
  const auto messages = recorder.taken();
  if (group->rank() == 0) {
    ASSERT_EQ(messages.size(), 1u);
    EXPECT_NE(messages[0].find("rank 0: MPI_Allreduce on group [0, 1] did not complete within "
                               "0.3 s: a member is stopped"),
              std::string::npos)
        << messages[0];
  } else {
    EXPECT_TRUE(messages.empty()) << messages[0];  // it entered last: no wait
  }
}

TEST(CollectiveDeadline, PromptCollectivesDoNotFire) {
  Recorder recorder;
  auto group = world_group(2.0, recorder);  // a wide bound: a loaded machine may stall a rank
  for (int i = 0; i < 200; ++i) {
    int v = 1;
    group->all_reduce(&v, 1, DType::kInt32, ReduceOp::kSum);
    ASSERT_EQ(v, group->size());
    group->barrier();
    group->broadcast(&v, 1, DType::kInt32, 0);
    std::vector<int> all(static_cast<std::size_t>(group->size()));
    group->all_gather(&v, 1, DType::kInt32, all.data());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // past the bound, disarmed
  EXPECT_TRUE(recorder.taken().empty());
}

TEST(CollectiveDeadline, EveryCollectiveIsBounded) {
  Recorder recorder;
  auto group = world_group(0.2, recorder);
  const auto late = [&] {
    // 1.3 s of margin for the watchdog to wake up after its 0.2-s deadline on a loaded machine
    if (group->rank() == 1) std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  };
  int v = 1;
  late();
  group->barrier();
  late();
  group->broadcast(&v, 1, DType::kInt32, 1);
  std::vector<int> all(static_cast<std::size_t>(group->size()));
  late();
  group->all_gather(&v, 1, DType::kInt32, all.data());
  const auto messages = recorder.taken();
  if (group->rank() == 0) {
    ASSERT_EQ(messages.size(), 3u);
    EXPECT_NE(messages[0].find("MPI_Barrier"), std::string::npos);
    EXPECT_NE(messages[1].find("MPI_Bcast"), std::string::npos);
    EXPECT_NE(messages[2].find("MPI_Allgather"), std::string::npos);
  }
}

TEST(CollectiveDeadline, NoBoundNoWatchdog) {
  std::atomic<int> fired{0};
  CollectiveDeadline none(0.0, 0, [&](const std::string&) { ++fired; });
  EXPECT_EQ(none.timeout_s(), 0.0);
  { const auto armed = none.arm("MPI_Barrier", "group [0]"); }
  CollectiveDeadline infinite(1.0 / 0.0, 0, [&](const std::string&) { ++fired; });
  EXPECT_EQ(infinite.timeout_s(), 0.0);
  EXPECT_EQ(fired.load(), 0);
}

}  // namespace
}  // namespace gfn::transport::mpi_detail

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
