// Multi-rank test of the buffer-manager and coordinator protocol, run under
// mpirun -np 4: ranks 0 and 1 play trainers by hand (no learner), rank 2 is the
// buffer manager of trainer 0 only, rank 3 is the coordinator.
//   - DATA is scored (retained, reward sum, new modes) and answered on the DATA tag;
//   - GET_METADATA is answered on the METADATA tag, never confused with a SCORE;
//   - a malformed message and a TRAINER_EXIT from an unassigned rank are refused;
//   - the manager stops after its assigned trainer's TRAINER_EXIT and reports to the
//     coordinator, which counts the modes and stops.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "roles/buffer_manager/buffer_manager.h"
#include "roles/coordinator/coordinator.h"
#include "roles/protocol/codec.h"
#include "roles/protocol/messages.h"
#include "tests/roles/buffer_manager/protocol_test_env.h"
#include "transport/framing/message.h"

namespace gfn::roles {
namespace {

using protocol::MessageType;
constexpr int kSideTag = 9;  // test-only ordering signal between ranks 0 and 1

using testing::toy_modes;
using testing::world_transport;

template <class T>
T expect_reply(transport::Transport& t, int src, int tag, MessageType type) {
  const auto in = t.recv(src, tag);
  const auto m = protocol::decode_message(in.bytes, t.options().max_message_bytes);
  EXPECT_EQ(m.type, type);
  return protocol::decode<T>(m);
}

TEST(ManagerProtocol, ScoresMetadataExitAndModeReports) {
  auto& t = world_transport();
  ASSERT_EQ(t.world_size(), 4) << "run with mpirun -np 4";
  const int manager = 2, coordinator = 3;
  switch (t.rank()) {
    case 0: {  // the assigned trainer
      protocol::Submission sub;
      sub.iteration = 1;
      sub.ndim = 2;
      sub.states = {1, 0, 0, 0, 1, 1};  // two modes (x0 == 1) and one non-mode
      sub.log_rewards = {std::log(2.f), std::log(1.f), std::log(2.f)};
      t.send(protocol::encode_as(MessageType::kData, sub), manager, protocol::tags::kData);
      // A metadata query right behind it: its reply must come on the METADATA tag.
      t.send(protocol::encode_as(MessageType::kGetMetadata, protocol::MetadataRequest{}), manager,
             protocol::tags::kData);
      const auto score =
          expect_reply<protocol::Score>(t, manager, protocol::tags::kData, MessageType::kScore);
      EXPECT_EQ(score.iteration, 1);
      EXPECT_EQ(score.retained, 3);  // scored before the insert: an empty buffer keeps all
      EXPECT_NEAR(score.reward_sum, 5.0, 1e-5);
      EXPECT_EQ(score.new_modes, 2);
      const auto meta = expect_reply<protocol::Metadata>(t, manager, protocol::tags::kMetadata,
                                                         MessageType::kMetadata);
      EXPECT_EQ(meta.submissions, 1);
      EXPECT_EQ(meta.items_received, 3);
      EXPECT_EQ(meta.modes_found, 2);
      // Same modes again: nothing new.
      sub.iteration = 2;
      t.send(protocol::encode_as(MessageType::kData, sub), manager, protocol::tags::kData);
      const auto again =
          expect_reply<protocol::Score>(t, manager, protocol::tags::kData, MessageType::kScore);
      EXPECT_EQ(again.new_modes, 0);
      EXPECT_EQ(again.retained, 2);     // >= the full buffer's lowest (ties count, as torchgfn)
      EXPECT_TRUE(again.has_baseline);  // "min" once full: log 2
      EXPECT_NEAR(again.baseline, std::log(2.f), 1e-6);
      // Garbage is answered with ERROR and does not kill the manager.
      t.send(transport::Bytes{1, 2, 3, 4, 5}, manager, protocol::tags::kData);
      const auto err = t.recv(manager, protocol::tags::kData);
      EXPECT_EQ(protocol::decode_message(err.bytes, 1 << 20).type, MessageType::kError);
      t.recv(1, kSideTag);  // rank 1's stray TRAINER_EXIT went out before ours
      t.send(protocol::encode_as(MessageType::kTrainerExit, protocol::TrainerExit{2, 6}), manager,
             protocol::tags::kData);
      break;
    }
    case 1:  // not assigned to the manager: its TRAINER_EXIT must not end the manager's loop
      t.send(protocol::encode_as(MessageType::kTrainerExit, protocol::TrainerExit{0}), manager,
             protocol::tags::kData);
      {  // answered with an ERROR naming the problem
        const auto err = t.recv(manager, protocol::tags::kData);
        const auto m = protocol::decode_message(err.bytes, 1 << 20);
        ASSERT_EQ(m.type, MessageType::kError);
        const auto e = protocol::decode<protocol::ErrorReply>(m);
        EXPECT_NE(e.what.find("not one of the assigned trainers"), std::string::npos) << e.what;
        EXPECT_EQ(e.refused_type, static_cast<std::uint16_t>(MessageType::kTrainerExit));
      }
      t.send(transport::Bytes{}, 0, kSideTag);
      break;
    case 2: {
      BufferManagerOptions options;
      options.capacity = 2;
      options.coordinator_rank = coordinator;
      options.idle_timeout_s = 60;
      const auto result = run_buffer_manager(t, {0}, options, toy_modes);
      EXPECT_EQ(result.submissions, 2);
      EXPECT_EQ(result.items_received, 6);
      EXPECT_EQ(result.buffer_size, 2);
      EXPECT_EQ(result.modes_found, 2);
      EXPECT_EQ(result.rejected_messages, 2);  // garbage from 0, TRAINER_EXIT from 1
      EXPECT_EQ(result.per_sender.at(0).submissions, 2);
      EXPECT_EQ(result.per_sender.at(0).requests, 5);
      EXPECT_EQ(result.errors_sent, 2);
      EXPECT_EQ(result.exit_mismatches, 0);
      EXPECT_EQ(result.baseline_reports, 1);  // full after the first DATA, then unchanged
      EXPECT_TRUE(result.has_baseline);
      break;
    }
    case 3: {
      CoordinatorOptions options;
      options.idle_timeout_s = 60;
      const auto result = run_coordinator(t, {manager}, options);
      EXPECT_EQ(result.baseline_reports, 1);
      EXPECT_TRUE(result.has_global_baseline);
      EXPECT_EQ(result.discoveries.size(), 2u);
      EXPECT_EQ(result.modes_found, 2);
      EXPECT_EQ(result.mode_reports, 1);
      EXPECT_EQ(result.modes_by_trainer.at(0), 2);
      break;
    }
  }
  t.world().barrier();
}

TEST(ManagerProtocol, SilentTrainersEndInATimeoutNamingThem) {
  auto& t = world_transport();
  if (t.rank() == 2) {
    BufferManagerOptions options;
    options.idle_timeout_s = 0.3;
    try {
      run_buffer_manager(t, {0, 1}, options, toy_modes);
      FAIL() << "expected a timeout";
    } catch (const transport::TimeoutError& e) {
      EXPECT_NE(std::string(e.what()).find("0, 1"), std::string::npos) << e.what();
    }
  }
  t.world().barrier();
}

}  // namespace
}  // namespace gfn::roles
