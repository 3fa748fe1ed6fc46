// roles/buffer_manager/manager.cc and outbox.cc: the receive loop and its dispatch
// (malformed messages, unassigned ranks, the coordinator), the end (MANAGER_EXIT handshake,
// pending sends), failing sends, and run_buffer_manager end to end, in one process over
// the loopback transport (tests/support/loopback_transport.h), no mpirun.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <regex>
#include <string>
#include <thread>

#include "roles/buffer_manager/buffer_manager.h"
#include "roles/protocol/codec.h"
#include "tests/roles/buffer_manager/manager_unit_env.h"
#include "tests/support/error_text.h"
#include "transport/framing/envelope.h"

namespace gfn::roles::testing {
namespace {

using protocol::MessageType;
namespace tags = protocol::tags;

using gfn::testing::what_of;

TEST_F(ManagerUnitTest, ServeOneRoutesEachTypeToItsHandler) {
  send_to_manager(kTrainer, MessageType::kData, submission(3, 2));
  send_to_manager(kTrainer, MessageType::kGetMetadata, protocol::Query{});
  protocol::SampleRequest q;
  q.n = 1;
  send_to_manager(kTrainer, MessageType::kGetSample, q);
  send_to_manager(kTrainer, MessageType::kTrainerExit, protocol::TrainerExit{1, 2});
  for (int i = 0; i < 4; ++i) manager().serve_one();
  EXPECT_EQ(reply<protocol::Score>(kTrainer, tags::kData, MessageType::kScore).iteration, 3);
  EXPECT_EQ(
      reply<protocol::Metadata>(kTrainer, tags::kMetadata, MessageType::kMetadata).buffer_size, 2);
  EXPECT_TRUE(reply<protocol::SampleBatch>(kTrainer, tags::kSample, MessageType::kSample).granted);
  EXPECT_EQ(manager().running(), std::set<int>{kTrainer2});
  const auto& sender = manager().result().per_sender.at(kTrainer);
  EXPECT_EQ(sender.requests, 4);
  EXPECT_GT(sender.bytes_in, 0);
  EXPECT_EQ(manager().result().exit_mismatches, 0);
}

// A message above max_message_bytes is dropped by the transport before the manager reads
// it: its sender gets ERROR (it may be waiting for a SCORE) and the manager keeps serving.
TEST(ManagerOversized, OversizedMessageGetsErrorAndTheManagerKeepsServing) {
  transport::TransportOptions small;
  small.max_message_bytes = 512;
  gfn::testing::LoopbackWorld world(5, small);
  BufferManagerOptions options;
  options.capacity = 16;
  options.idle_timeout_s = 5;
  BufferManager manager(world.rank(kManager), {kTrainer, kTrainer2}, options, toy_modes);

  // A peer whose messages grow beyond the cap on the way (a hostile or misconfigured
  // sender: ranks of one job share the cap, and senders refuse to send above it).
  world.corrupt_next(kManager, tags::kData, [](transport::Bytes& b) { b.resize(4096); });
  world.rank(kTrainer).send(protocol::encode(submission(1, 2)), kManager, tags::kData);
  manager.serve_one();
  const auto got = world.rank(kTrainer).recv(kManager, tags::kData, transport::Seconds(kWait));
  const auto m = protocol::decode_message(got.bytes, 1 << 20);
  ASSERT_EQ(m.type, MessageType::kError);
  const auto err = protocol::decode<protocol::ErrorReply>(m);
  EXPECT_EQ(err.from_rank, kManager);
  EXPECT_NE(err.what.find("message of 4096 bytes from rank 0"), std::string::npos) << err.what;
  EXPECT_NE(err.what.find("exceeds max_message_bytes = 512"), std::string::npos) << err.what;
  EXPECT_EQ(manager.result().rejected_messages, 1);
  EXPECT_EQ(manager.result().per_sender.at(kTrainer).errors, 1);

  // The next (small) submission is served normally.
  world.rank(kTrainer).send(protocol::encode(submission(2, 2)), kManager, tags::kData);
  manager.serve_one();
  const auto next = world.rank(kTrainer).recv(kManager, tags::kData, transport::Seconds(kWait));
  EXPECT_EQ(protocol::decode_message(next.bytes, 1 << 20).type, MessageType::kScore);
  EXPECT_EQ(manager.replay().size(), 2);
}

TEST_F(ManagerUnitTest, MalformedMessagesGetErrorOnTheDataTagAndTheManagerKeepsServing) {
  // Garbage bytes.
  rank(kTrainer).send(transport::Bytes{0xde, 0xad, 0xbe, 0xef, 1, 2, 3}, kManager, tags::kData);
  manager().serve_one();
  auto err = error_reply(kTrainer, tags::kData);
  EXPECT_EQ(err.from_rank, kManager);
  EXPECT_EQ(err.refused_type, 0);  // too short to hold a type
  EXPECT_EQ(err.tag, tags::kData);
  EXPECT_NE(err.what.find("malformed message (7 bytes) on tag 0"), std::string::npos) << err.what;

  // A truncated DATA payload (a consistent envelope around it).
  auto truncated = protocol::encode_as(MessageType::kData, submission(1, 4));
  truncated.resize(truncated.size() - 5);
  transport::write_envelope_header(truncated.data(), protocol::envelope_type(MessageType::kData),
                                   truncated.size() - transport::kEnvelopeHeaderBytes);
  rank(kTrainer).send(truncated, kManager, tags::kData);
  manager().serve_one();
  err = error_reply(kTrainer, tags::kData);
  EXPECT_EQ(err.refused_type, static_cast<std::uint16_t>(MessageType::kData));
  EXPECT_NE(err.what.find("bad DATA payload"), std::string::npos) << err.what;

  // Inconsistent sizes, and a type the manager does not take.
  auto inconsistent = submission(2, 4);
  inconsistent.states.pop_back();
  send_to_manager(kTrainer, MessageType::kData, inconsistent);
  send_to_manager(kTrainer, MessageType::kScore, protocol::Score{});
  manager().serve_one();
  manager().serve_one();
  EXPECT_NE(error_reply(kTrainer, tags::kData).what.find("state entries"), std::string::npos);
  EXPECT_NE(
      error_reply(kTrainer, tags::kData).what.find("unexpected SCORE message on the DATA tag"),
      std::string::npos);

  // Still served.
  send_to_manager(kTrainer, MessageType::kData, submission(5, 3));
  manager().serve_one();
  EXPECT_EQ(reply<protocol::Score>(kTrainer, tags::kData, MessageType::kScore).iteration, 5);
  const auto& r = manager().result();
  EXPECT_EQ(r.rejected_messages, 4);
  EXPECT_EQ(r.errors_sent, 4);
  EXPECT_EQ(r.per_sender.at(kTrainer).errors, 4);
  EXPECT_EQ(r.per_sender.at(kTrainer).submissions, 1);
  EXPECT_EQ(manager().replay().size(), 3);
}

TEST_F(ManagerUnitTest, AMessageCorruptedInTransitIsRefused) {
  world_.corrupt_next(kManager, tags::kData, [](transport::Bytes& b) { b[0] = 'X'; });
  send_to_manager(kTrainer, MessageType::kData, submission(1, 2));
  manager().serve_one();
  const auto err = error_reply(kTrainer, tags::kData);
  EXPECT_EQ(err.refused_type, static_cast<std::uint16_t>(MessageType::kData));
  EXPECT_NE(err.what.find("wrong magic"), std::string::npos) << err.what;
  EXPECT_EQ(manager().replay().size(), 0);
}

TEST_F(ManagerUnitTest, AMessageFromAnUnassignedRankIsRefusedOnItsReplyTag) {
  send_to_manager(kStranger, MessageType::kData, submission(1, 2));
  send_to_manager(kStranger, MessageType::kGetMetadata, protocol::Query{});
  send_to_manager(kStranger, MessageType::kGetSample, protocol::SampleRequest{});
  send_to_manager(kStranger, MessageType::kTrainerExit, protocol::TrainerExit{});
  for (int i = 0; i < 4; ++i) manager().serve_one();
  const auto data_err = error_reply(kStranger, tags::kData);
  EXPECT_EQ(data_err.refused_type, static_cast<std::uint16_t>(MessageType::kData));
  EXPECT_NE(data_err.what.find("rank 2 is not one of the assigned trainers (0, 1) of buffer "
                               "manager 3"),
            std::string::npos)
      << data_err.what;
  EXPECT_EQ(error_reply(kStranger, tags::kMetadata).refused_type,
            static_cast<std::uint16_t>(MessageType::kGetMetadata));
  EXPECT_EQ(error_reply(kStranger, tags::kSample).refused_type,
            static_cast<std::uint16_t>(MessageType::kGetSample));
  EXPECT_EQ(error_reply(kStranger, tags::kData).refused_type,
            static_cast<std::uint16_t>(MessageType::kTrainerExit));
  EXPECT_EQ(manager().replay().size(), 0);
  EXPECT_EQ(manager().result().submissions, 0);
  EXPECT_EQ(manager().result().rejected_messages, 4);
  EXPECT_EQ(manager().running(), (std::set<int>{kTrainer, kTrainer2}));  // not counted
}

TEST_F(ManagerUnitTest, TheCoordinatorSyncsAndAnythingElseFromItIsDropped) {
  options_.coordinator_rank = kCoordinator;
  rank(kCoordinator)
      .send(protocol::encode_as(MessageType::kBaselineSync, protocol::BaselineSync{1.25f}),
            kManager, tags::kData);
  rank(kCoordinator)
      .send(protocol::encode_as(MessageType::kScore, protocol::Score{}), kManager, tags::kData);
  manager().serve_one();
  manager().serve_one();
  EXPECT_EQ(manager().result().baseline_syncs, 1);
  EXPECT_EQ(manager().result().rejected_messages, 1);
  EXPECT_EQ(manager().result().errors_sent, 0);  // no ERROR to the coordinator
  EXPECT_EQ(waiting(kCoordinator, tags::kData), 0u);
}

TEST_F(ManagerUnitTest, IdleTimeoutNamesTheTrainersStillExpected) {
  options_.idle_timeout_s = 0.05;
  send_to_manager(kTrainer, MessageType::kTrainerExit, protocol::TrainerExit{});
  manager().serve_one();
  try {
    manager().serve_one();
    ADD_FAILURE() << "expected a TimeoutError";
  } catch (const transport::TimeoutError& e) {
    EXPECT_TRUE(std::regex_match(
        e.what(), std::regex("buffer manager rank 3: no message for 0.05 s on tag 0 from trainer "
                             "rank\\(s\\) 1 while waiting for TRAINER_EXIT from trainer "
                             "rank\\(s\\) 1 \\(last message from trainer rank 1 [0-9.]+ s "
                             "ago\\)")))
        << e.what();
  }
}

// Liveness (docs/protocol.md "Shutdown and failures"): a manager waiting for its trainers sends its
// coordinator MANAGER_ALIVE every idle_timeout_s / 4, so the coordinator's bounded wait does
// not take a quiet manager for a stopped one; a busy exchange with the coordinator needs none.
TEST_F(ManagerUnitTest, AWaitingManagerSendsManagerAliveEveryQuarterOfTheTimeout) {
  options_.idle_timeout_s = 0.4;
  options_.coordinator_rank = kCoordinator;
  manager();
  EXPECT_THROW(manager().serve_one(), transport::TimeoutError);  // no trainer says anything
  // Due at 0.1, 0.2 and 0.3 s (later under load, then fewer), never more than 4.
  const auto n = waiting(kCoordinator, protocol::tags::kControl);
  EXPECT_GE(n, 2u);
  EXPECT_LE(n, 4u);
  for (std::size_t i = 0; i < n; ++i) {
    const auto alive = reply<protocol::ManagerAlive>(kCoordinator, protocol::tags::kControl,
                                                     MessageType::kManagerAlive);
    EXPECT_EQ(alive.submissions, 0);
  }
  EXPECT_EQ(manager().result().alive_messages, static_cast<std::int64_t>(n));
}

TEST_F(ManagerUnitTest, NoManagerAliveWithoutACoordinator) {
  options_.idle_timeout_s = 0.2;
  EXPECT_THROW(manager().serve_one(), transport::TimeoutError);
  EXPECT_EQ(manager().result().alive_messages, 0);
  EXPECT_EQ(waiting(kCoordinator, protocol::tags::kControl), 0u);
}

// A stopped trainer (docs/protocol.md "Shutdown and failures"): each running trainer has its own
// deadline, so a silent one is named while the others keep talking; the error lists the
// running trainers by silence, longest first.
TEST_F(ManagerUnitTest, IdleTimeoutNamesTheTrainerSilentLongestFirst) {
  options_.idle_timeout_s = 0.05;
  manager();  // both trainers' silence starts now
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  send_to_manager(kTrainer, MessageType::kGetMetadata, protocol::Query{});
  manager().serve_one();  // kTrainer was heard just now, kTrainer2 never
  try {
    manager().serve_one();
    ADD_FAILURE() << "expected a TimeoutError";
  } catch (const transport::TimeoutError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("from trainer rank(s) 1 while waiting for TRAINER_EXIT from trainer "
                        "rank(s) 0, 1"),
              std::string::npos)
        << what;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        what, m,
        std::regex("last message from trainer rank ([0-9]+) ([0-9.]+) s ago, from rank ([0-9]+) "
                   "([0-9.]+) s ago\\)$")))
        << what;
    EXPECT_EQ(std::stoi(m[1]), kTrainer2) << what;
    EXPECT_EQ(std::stoi(m[3]), kTrainer) << what;
    EXPECT_GE(std::stod(m[2]), 0.3) << what;
    EXPECT_LT(std::stod(m[4]), std::stod(m[2])) << what;
  }
}

TEST_F(ManagerUnitTest, ASendThatFailsSurfacesAsAClearError) {
  world_.fail_next_send(kTrainer, tags::kData, "link to rank 0 down");
  send_to_manager(kTrainer, MessageType::kData, submission(1, 2));
  try {
    manager().serve_one();
    ADD_FAILURE() << "expected a TransportError";
  } catch (const transport::MessageError& e) {
    ADD_FAILURE() << "a failed send is not a malformed message: " << e.what();
  } catch (const transport::TransportError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("buffer manager rank 3: a SCORE send to rank 0 on tag 0 failed: ", 0), 0u)
        << what;
    EXPECT_NE(what.find("link to rank 0 down"), std::string::npos) << what;
  }
  EXPECT_EQ(manager().result().errors_sent, 0);  // not answered as a malformed message
}

TEST_F(ManagerUnitTest, ASendThatFailsAfterItWasPostedIsNamed) {
  world_.fail_next_completion(kTrainer, tags::kMetadata, "peer vanished");
  send_to_manager(kTrainer, MessageType::kGetMetadata, protocol::Query{});
  send_to_manager(kTrainer, MessageType::kTrainerExit, protocol::TrainerExit{});
  send_to_manager(kTrainer2, MessageType::kTrainerExit, protocol::TrainerExit{});
  const std::string what = what_of([&] {
    while (manager().serving()) manager().serve_one();
    manager().finish();
  });
  EXPECT_NE(what.find("buffer manager rank 3: a METADATA send to rank 0 on tag 1 failed: "),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("peer vanished"), std::string::npos) << what;
  manager_.reset();  // the failed handle logs its error once more when destroyed
}

TEST_F(ManagerUnitTest, FinishRunsTheExitHandshakeWithTheCoordinator) {
  options_.coordinator_rank = kCoordinator;
  options_.capacity = 4;
  send_to_manager(kTrainer, MessageType::kData, submission(1, 4));
  send_to_manager(kTrainer, MessageType::kTrainerExit, protocol::TrainerExit{1, 4});
  send_to_manager(kTrainer2, MessageType::kTrainerExit, protocol::TrainerExit{});
  while (manager().serving()) manager().serve_one();
  // The coordinator's answer is queued before the manager asks: a late BASELINE_SYNC,
  // a stray SCORE (dropped) and its MANAGER_EXIT_ACK.
  auto& coordinator = rank(kCoordinator);
  coordinator.send(protocol::encode_as(MessageType::kBaselineSync, protocol::BaselineSync{-1.f}),
                   kManager, tags::kData);
  coordinator.send(protocol::encode_as(MessageType::kScore, protocol::Score{}), kManager,
                   tags::kData);
  coordinator.send(protocol::encode_as(MessageType::kManagerExitAck, protocol::ManagerExitAck{}),
                   kManager, tags::kData);
  const auto r = manager().finish();
  EXPECT_EQ(r.buffer_size, 4);
  EXPECT_EQ(r.modes_found, 1);
  EXPECT_EQ(r.baseline_syncs, 1);
  EXPECT_TRUE(r.has_baseline);
  EXPECT_FLOAT_EQ(r.baseline, -1.f);  // the global one overrides the local minimum
  EXPECT_EQ(r.rejected_messages, 1);
  // At the coordinator on kControl: MODE_REPORT, BASELINE_REPORT (the buffer filled up),
  // then MANAGER_EXIT with the manager's counts.
  std::vector<MessageType> types;
  protocol::ManagerExit bye;
  while (waiting(kCoordinator, tags::kControl) > 0) {
    const auto got = coordinator.recv(kManager, tags::kControl, transport::Seconds(kWait));
    const auto m = protocol::decode_message(got.bytes, 1 << 20);
    types.push_back(protocol::message_type(m.type));
    if (m.type == MessageType::kManagerExit) bye = protocol::decode<protocol::ManagerExit>(m);
  }
  EXPECT_EQ(types, (std::vector<MessageType>{MessageType::kModeReport, MessageType::kBaselineReport,
                                             MessageType::kManagerExit}));
  EXPECT_EQ(bye.submissions, 1);
  EXPECT_EQ(bye.items_received, 4);
  EXPECT_EQ(bye.modes_found, 1);
  EXPECT_EQ(manager().pending_sends(), 0u);
}

// A point of the manager's modes timeline after each DATA that brought new modes only
// (toy_modes: first coordinate 1), with the items received so far.
TEST_F(ManagerUnitTest, ModesTimelineHasAPointPerDataWithNewModes) {
  send_to_manager(kTrainer, MessageType::kData, submission(1, 2));   // (1, 1): mode 1
  send_to_manager(kTrainer2, MessageType::kData, submission(1, 5));  // (1, 4): mode 2
  send_to_manager(kTrainer, MessageType::kData, submission(2, 2));   // nothing new
  send_to_manager(kTrainer, MessageType::kTrainerExit, protocol::TrainerExit{2, 4});
  send_to_manager(kTrainer2, MessageType::kTrainerExit, protocol::TrainerExit{1, 5});
  while (manager().serving()) manager().serve_one();
  const auto r = manager().finish();
  ASSERT_EQ(r.modes_timeline.size(), 2u);
  EXPECT_EQ(r.modes_timeline[0].items_received, 2);
  EXPECT_EQ(r.modes_timeline[0].modes_found, 1);
  EXPECT_EQ(r.modes_timeline[1].items_received, 7);
  EXPECT_EQ(r.modes_timeline[1].modes_found, 2);
  EXPECT_GE(r.modes_timeline[0].elapsed_s, 0.0);
  EXPECT_LE(r.modes_timeline[0].elapsed_s, r.modes_timeline[1].elapsed_s);
  EXPECT_EQ(r.modes_found, 2);
  EXPECT_EQ(r.exit_mismatches, 0);
}

TEST_F(ManagerUnitTest, NoManagerExitAckFromTheCoordinatorIsATimeout) {
  options_.coordinator_rank = kCoordinator;
  options_.idle_timeout_s = 0.05;
  send_to_manager(kTrainer, MessageType::kTrainerExit, protocol::TrainerExit{});
  send_to_manager(kTrainer2, MessageType::kTrainerExit, protocol::TrainerExit{});
  const std::string what = what_of([&] { manager().run(); });
  EXPECT_NE(what.find("buffer manager rank 3: no MANAGER_EXIT_ACK from the coordinator rank 4 "
                      "on tag 0 within 0.05 s after sending it MANAGER_EXIT"),
            std::string::npos)
      << what;
}

TEST_F(ManagerUnitTest, BadOptionsAreRefused) {
  options_.baseline_report_interval = 0;
  EXPECT_THROW(manager(), std::invalid_argument);
  options_.baseline_report_interval = 1;
  options_.baseline_tolerance = std::nan("");
  EXPECT_THROW(manager(), std::invalid_argument);
  options_.baseline_tolerance = 0;
  options_.n_actions = -1;
  EXPECT_THROW(manager(), std::invalid_argument);
  options_.n_actions = 0;
  options_.capacity = 0;
  EXPECT_THROW(manager(), std::invalid_argument);
}

// The public entry point, its manager on its own thread, trainers and a coordinator
// played by the test thread.
TEST(RunBufferManager, ServesTrainersUntilEveryExitThenShakesHandsWithTheCoordinator) {
  gfn::testing::LoopbackWorld world(5);
  BufferManagerOptions options;
  options.capacity = 8;
  options.coordinator_rank = kCoordinator;
  options.idle_timeout_s = 10;
  BufferManagerResult result;
  std::string failure;
  std::thread manager([&] {
    try {
      result = run_buffer_manager(world.rank(kManager), {kTrainer, kTrainer2}, options, toy_modes);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  const auto await_type = [&](int me, int tag, MessageType type) {
    const auto got = world.rank(me).recv(kManager, tag, transport::Seconds(10));
    return protocol::decode_message(got.bytes, 1 << 20).type == type;
  };
  std::int64_t items[2] = {0, 0};
  for (int it = 1; it <= 5; ++it) {
    for (int trainer : {kTrainer, kTrainer2}) {
      const auto s = submission(it * 10 + trainer, 3);
      world.rank(trainer).send(protocol::encode_as(MessageType::kData, s), kManager, tags::kData);
      items[trainer] += s.size();
      EXPECT_TRUE(await_type(trainer, tags::kData, MessageType::kScore));
    }
  }
  for (int trainer : {kTrainer, kTrainer2}) {
    world.rank(trainer).send(
        protocol::encode_as(MessageType::kTrainerExit, protocol::TrainerExit{5, items[trainer]}),
        kManager, tags::kData);
  }
  // The coordinator: every report until MANAGER_EXIT, then MANAGER_EXIT_ACK.
  int reports = 0;
  for (;;) {
    const auto got =
        world.rank(kCoordinator).recv(kManager, tags::kControl, transport::Seconds(10));
    const auto m = protocol::decode_message(got.bytes, 1 << 20);
    if (m.type == MessageType::kManagerExit) break;
    ++reports;
  }
  world.rank(kCoordinator)
      .send(protocol::encode_as(MessageType::kManagerExitAck, protocol::ManagerExitAck{}), kManager,
            tags::kData);
  manager.join();
  ASSERT_EQ(failure, "");
  EXPECT_GE(reports, 1);  // at least the MODE_REPORT of (1, 1)
  EXPECT_EQ(result.submissions, 10);
  EXPECT_EQ(result.items_received, 30);
  EXPECT_EQ(result.exit_mismatches, 0);
  EXPECT_EQ(result.rejected_messages, 0);
  EXPECT_EQ(result.buffer_size, 8);
  EXPECT_EQ(result.modes_found, 1);
  EXPECT_EQ(result.per_sender.at(kTrainer).submissions, 5);
  EXPECT_EQ(result.per_sender.at(kTrainer2).items, 15);
  EXPECT_TRUE(result.has_baseline);
  EXPECT_NE(result.stats_table().find("requests"), std::string::npos);
}

}  // namespace
}  // namespace gfn::roles::testing
