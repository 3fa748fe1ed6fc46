// The coordinator's part of a checkpoint (roles/coordinator/coordinator.cc,
// coordinator_state.h): it writes its rank file only once every running manager sent
// MANAGER_CHECKPOINT, answers each with the file's size and CRC-32 and the BASELINE_SYNCs it
// sent that manager, and a coordinator started from that file continues its counts (modes,
// reports). One process, the loopback transport.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <string>
#include <thread>

#include "roles/coordinator/coordinator.h"
#include "roles/coordinator/coordinator_state.h"
#include "roles/protocol/codec.h"
#include "roles/protocol/messages.h"
#include "runtime/checkpoint/atomic_file.h"
#include "runtime/checkpoint/checksum.h"
#include "runtime/checkpoint/store.h"
#include "tests/support/loopback_transport.h"

namespace gfn::roles {
namespace {

namespace fs = std::filesystem;
namespace tags = protocol::tags;
constexpr int kManagerA = 0, kManagerB = 1, kCoordinator = 2;
const transport::Seconds kWait(5);

protocol::ModeReport mode(std::int64_t x, int trainer) {
  protocol::ModeReport r;
  r.ndim = 2;
  r.states = {x, 7};
  r.trainer_ranks = {trainer};
  return r;
}

template <class T>
T next(gfn::testing::LoopbackWorld& world, int to, int tag) {
  const auto got = world.rank(to).recv(kCoordinator, tag, kWait);
  return protocol::decode<T>(protocol::decode_message(got.bytes, 1 << 20));
}

TEST(CoordinatorCheckpoint, WrittenOnceEveryManagerAskedAndRestoredCountsContinue) {
  const fs::path dir = fs::temp_directory_path() / ("gfn_coord_ckpt_" + std::to_string(getpid()));
  fs::remove_all(dir);
  CoordinatorOptions options;
  options.idle_timeout_s = 5;
  options.checkpoint_root = (dir / "checkpoints").string();
  const std::string file = options.checkpoint_root + "/" + checkpoint::checkpoint_dir_name(5) +
                           "/" + checkpoint::rank_file_name(kCoordinator);
  std::string state;
  {
    gfn::testing::LoopbackWorld world(3);
    CoordinatorResult result;
    std::thread coordinator([&] {
      result = run_coordinator(world.rank(kCoordinator), {kManagerA, kManagerB}, options);
    });
    auto& a = world.rank(kManagerA);
    auto& b = world.rank(kManagerB);
    protocol::send(a, kCoordinator, mode(1, 10));
    protocol::send(b, kCoordinator, mode(2, 11));
    protocol::send(a, kCoordinator, protocol::BaselineReport{-1.f});  // a BASELINE_SYNC to each
    protocol::send(a, kCoordinator, protocol::ManagerCheckpoint{5});
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(world.queued(kManagerA, tags::kCheckpoint), 0u) << "answered before B asked";
    EXPECT_FALSE(fs::exists(file));
    protocol::send(b, kCoordinator, protocol::ManagerCheckpoint{5});
    const auto done_a =
        next<protocol::CoordinatorCheckpointDone>(world, kManagerA, tags::kCheckpoint);
    const auto done_b =
        next<protocol::CoordinatorCheckpointDone>(world, kManagerB, tags::kCheckpoint);
    ASSERT_TRUE(fs::exists(file));
    state = checkpoint::read_whole_file(file);
    for (const auto& done : {done_a, done_b}) {
      EXPECT_EQ(done.iteration, 5);
      EXPECT_EQ(done.bytes, state.size());
      EXPECT_EQ(done.crc32, checkpoint::crc32_of(state));
      EXPECT_EQ(done.baseline_syncs, 1);
    }
    for (int m : {kManagerA, kManagerB}) {
      (void)next<protocol::BaselineSync>(world, m, tags::kData);
      protocol::send(world.rank(m), kCoordinator, protocol::ManagerExit{});
      (void)next<protocol::ManagerExitAck>(world, m, tags::kData);
    }
    coordinator.join();
    EXPECT_EQ(result.modes_found, 2);
  }
  const auto saved = decode_coordinator_state(state, kCoordinator);
  EXPECT_EQ(saved.modes.size(), 2u);
  EXPECT_EQ(saved.result.mode_reports, 2);
  EXPECT_EQ(saved.syncs_to.at(kManagerA), 1);

  // Resumed: a third mode and a repeated one count on top of the saved ones.
  gfn::testing::LoopbackWorld world(3);
  CoordinatorResult result;
  std::thread coordinator([&] {
    result = run_coordinator(world.rank(kCoordinator), {kManagerA, kManagerB}, options, &state);
  });
  protocol::send(world.rank(kManagerA), kCoordinator, mode(3, 10));
  protocol::send(world.rank(kManagerB), kCoordinator, mode(1, 11));
  for (int m : {kManagerA, kManagerB}) {
    protocol::send(world.rank(m), kCoordinator, protocol::ManagerExit{});
    (void)next<protocol::ManagerExitAck>(world, m, tags::kData);
  }
  coordinator.join();
  EXPECT_EQ(result.modes_found, 3);
  EXPECT_EQ(result.mode_reports, 4);
  EXPECT_EQ(result.modes_by_trainer.at(10), 2);
  EXPECT_THROW(decode_coordinator_state(state.substr(0, state.size() / 2), kCoordinator),
               std::runtime_error);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gfn::roles
