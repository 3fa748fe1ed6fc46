// A message of the wrong type for its tag (a type the receiver does not take there, or
// a type of another meaning with the same payload layout) is refused with an error
// that names what arrived and what was expected, and the receiver keeps working:
// the buffer manager and the coordinator answer ERROR on the table's error tag and keep
// serving; a trainer's Submitter throws transport::MessageError and stays usable.
// One process, the loopback transport (tests/support/loopback_transport.h).
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "roles/buffer_manager/manager.h"
#include "roles/coordinator/coordinator.h"
#include "roles/protocol/codec.h"
#include "roles/protocol/replies.h"
#include "roles/trainer/submitter.h"
#include "tests/support/error_text.h"
#include "tests/support/loopback_transport.h"

namespace gfn::roles {
namespace {

using gfn::testing::what_of;
using protocol::MessageType;
namespace tags = protocol::tags;

constexpr transport::Seconds kWait{2.0};

protocol::Submission batch(std::int64_t iteration) {
  protocol::Submission s;
  s.iteration = iteration;
  s.ndim = 1;
  s.states = {1, 2};
  s.log_rewards = {-1.f, 0.5f};
  return s;
}

protocol::ErrorReply error_from(transport::Transport& me, int peer, int tag) {
  const auto got = me.recv(peer, tag, kWait);
  return protocol::decode<protocol::ErrorReply>(protocol::decode_message(got.bytes, 1 << 20));
}

std::vector<bool> no_modes(const std::vector<std::int64_t>& states, int) {
  return std::vector<bool>(states.size(), false);
}

TEST(WrongType, TheManagerRefusesOtherRolesTypesOnItsTagAndKeepsServing) {
  constexpr int kTrainer = 0, kManager = 1, kCoordinator = 2;
  gfn::testing::LoopbackWorld world(3);
  BufferManagerOptions options;
  options.capacity = 8;
  options.idle_timeout_s = 5;
  options.coordinator_rank = kCoordinator;
  BufferManager manager(world.rank(kManager), {kTrainer}, options, no_modes);
  auto& trainer = world.rank(kTrainer);

  // A trainer sending the coordinator's or the manager's own messages on kData.
  trainer.send(protocol::encode(protocol::ManagerExit{}), kManager, tags::kData);  // not kControl
  trainer.send(protocol::encode(protocol::BaselineSync{1.f}), kManager, tags::kData);
  trainer.send(protocol::encode(protocol::BaselinePush{1.f}), kManager, tags::kData);
  for (int i = 0; i < 3; ++i) manager.serve_one();
  for (const char* type : {"MANAGER_EXIT", "BASELINE_SYNC", "BASELINE_PUSH"}) {
    const auto err = error_from(trainer, kManager, tags::kData);
    EXPECT_EQ(err.what, std::string("unexpected ") + type +
                            " message on the DATA tag (a buffer manager takes DATA, GET_METADATA, "
                            "TRAINER_EXIT, GET_SAMPLE or CHECKPOINT from a trainer there)");
    EXPECT_EQ(err.from_rank, kManager);
    EXPECT_EQ(err.tag, tags::kData);
  }
  // The coordinator's messages of another meaning are dropped, not answered.
  world.rank(kCoordinator)
      .send(protocol::encode(protocol::BaselinePush{3.f}), kManager, tags::kData);
  manager.serve_one();
  EXPECT_EQ(manager.result().baseline_syncs, 0);
  EXPECT_EQ(world.queued(kCoordinator, tags::kData), 0u);

  // Still serving: DATA gets its SCORE, TRAINER_EXIT counts.
  protocol::send(trainer, kManager, batch(4));
  manager.serve_one();
  const auto score = protocol::await_reply<protocol::Score>(trainer, kManager, 2.0, "test");
  EXPECT_EQ(score.iteration, 4);
  EXPECT_EQ(manager.result().rejected_messages, 4);
  EXPECT_EQ(manager.result().errors_sent, 3);
  protocol::send(trainer, kManager, protocol::TrainerExit{1, 2});
  manager.serve_one();
  EXPECT_FALSE(manager.serving());
  EXPECT_EQ(manager.result().exit_mismatches, 0);
}

TEST(WrongType, TheCoordinatorRefusesATrainerExitAndStillAcknowledgesManagerExit) {
  constexpr int kTrainer = 0, kManager = 1, kCoordinator = 2;
  gfn::testing::LoopbackWorld world(3);
  CoordinatorOptions options;
  options.idle_timeout_s = 5;
  CoordinatorResult result;
  std::string failure;
  std::thread coordinator([&] {
    try {
      result = run_coordinator(world.rank(kCoordinator), {kManager}, options);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  auto& manager = world.rank(kManager);
  // A manager sending TRAINER_EXIT (its trainers' message) instead of MANAGER_EXIT.
  manager.send(protocol::encode(protocol::TrainerExit{}), kCoordinator, tags::kControl);
  const auto err = error_from(manager, kCoordinator, tags::kData);
  EXPECT_EQ(err.refused_type, static_cast<std::uint16_t>(MessageType::kTrainerExit));
  EXPECT_EQ(err.what,
            "unexpected TRAINER_EXIT message on the control tag (the coordinator takes "
            "MODE_REPORT, BASELINE_REPORT, MANAGER_EXIT, MANAGER_ALIVE or MANAGER_CHECKPOINT "
            "from a buffer manager "
            "there)");
  // A trainer sending a manager's message: refused on the trainer's channel (kPopulation).
  world.rank(kTrainer).send(protocol::encode(protocol::ManagerExit{}), kCoordinator,
                            tags::kControl);
  const auto refused = error_from(world.rank(kTrainer), kCoordinator, tags::kPopulation);
  EXPECT_NE(refused.what.find("MANAGER_EXIT from rank 0, which is not a buffer manager"),
            std::string::npos)
      << refused.what;
  // The real MANAGER_EXIT is acknowledged with MANAGER_EXIT_ACK on kData.
  protocol::send(manager, kCoordinator, protocol::ManagerExit{});
  const auto ack = manager.recv(kCoordinator, tags::kData, kWait);
  EXPECT_NO_THROW(
      protocol::decode<protocol::ManagerExitAck>(protocol::decode_message(ack.bytes, 1 << 20)));
  coordinator.join();
  EXPECT_EQ(failure, "");
  EXPECT_EQ(result.rejected_messages, 2);
}

TEST(WrongType, ASubmitterRefusesABaselineSyncOnItsFeedAndStaysUsable) {
  constexpr int kTrainer = 0, kManager = 1;
  gfn::testing::LoopbackWorld world(2);
  SubmitterOptions options;
  options.mode = SubmitterOptions::Mode::kFireAndForget;
  options.baseline_filter = true;
  options.timeout_s = 2;
  Submitter submitter(world.rank(kTrainer), kManager, options);
  auto& manager = world.rank(kManager);
  // BASELINE_SYNC is the coordinator's message to managers; on kBaseline it is wrong.
  manager.send(protocol::encode(protocol::BaselineSync{0.f}), kTrainer, tags::kBaseline);
  EXPECT_EQ(what_of([&] { submitter.submit(batch(1)); }),
            "trainer rank 0: unexpected BASELINE_SYNC from rank 1 on tag 5 (expected "
            "BASELINE_PUSH or BASELINE_FEED_END)");
  EXPECT_EQ(submitter.submissions(), 0);
  EXPECT_EQ(submitter.baseline_updates(), 0);
  // The right message on the same tag is taken, and the submitter filters with it.
  protocol::send(manager, kTrainer, protocol::BaselinePush{0.f});
  EXPECT_TRUE(submitter.submit(batch(2)));
  EXPECT_EQ(submitter.baseline_updates(), 1);
  EXPECT_EQ(submitter.items_filtered(), 1);  // log reward -1 < 0
  const auto data = manager.recv(kTrainer, tags::kData, kWait);
  EXPECT_EQ(
      protocol::decode<protocol::Submission>(protocol::decode_message(data.bytes, 1 << 20)).size(),
      1);
}

TEST(WrongType, ASyncSubmitterRefusesAReplyOfTheWrongTypeOnTheDataTag) {
  constexpr int kTrainer = 0, kManager = 1;
  gfn::testing::LoopbackWorld world(2);
  SubmitterOptions options;
  options.timeout_s = 2;
  Submitter submitter(world.rank(kTrainer), kManager, options);
  // The manager's answer on kData is a METADATA (whose tag is kMetadata), not a SCORE.
  world.rank(kManager).send(protocol::encode(protocol::Metadata{}), kTrainer, tags::kData);
  const std::string what = what_of([&] { submitter.submit(batch(1)); });
  EXPECT_NE(what.find("expected SCORE from rank 1 on tag 0, got METADATA"), std::string::npos)
      << what;
}

}  // namespace
}  // namespace gfn::roles
