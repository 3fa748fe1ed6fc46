// roles/coordinator/handlers.cc and the dispatch of coordinator.cc: each handler of the
// Coordinator alone, then serve_one's routing and refusals, in one process over the
// loopback transport (tests/support/loopback_transport.h), no mpirun.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "roles/coordinator/coordinator.h"
#include "roles/protocol/codec.h"
#include "roles/protocol/messages.h"
#include "tests/support/loopback_transport.h"
#include "transport/framing/message.h"

namespace gfn::roles {
namespace {

using protocol::MessageType;
namespace tags = protocol::tags;

constexpr int kManagerA = 0, kManagerB = 1, kTrainer = 2, kCoordinator = 3;
const transport::Seconds kWait(2);

protocol::ModeReport modes(std::vector<std::int64_t> xs, int trainer) {
  protocol::ModeReport r;
  r.ndim = 2;
  for (auto x : xs) {
    r.states.insert(r.states.end(), {x, 7});
    r.trainer_ranks.push_back(trainer);
  }
  return r;
}

class CoordinatorHandlers : public ::testing::Test {
 protected:
  CoordinatorHandlers() : world_(4) { options_.idle_timeout_s = 5; }

  /// The coordinator under test, of managers A and B, with options_.
  Coordinator& coordinator() {
    if (!coordinator_) {
      coordinator_ = std::make_unique<Coordinator>(
          world_.rank(kCoordinator), std::vector<int>{kManagerA, kManagerB}, options_);
    }
    return *coordinator_;
  }

  /// Runs `handler` on a message of `type` carrying `payload`, as if from `from`.
  template <class T, class Handler>
  void handle(Handler handler, int from, MessageType type, const T& payload) {
    const transport::Bytes wire = protocol::encode_as(type, payload);
    handler(coordinator(), from, protocol::decode_message_view(wire, 1 << 20));
  }
  void mode_report(int from, const protocol::ModeReport& r) {
    handle([](Coordinator& c, int s, const auto& v) { c.on_mode_report(s, v); }, from,
           MessageType::kModeReport, r);
  }
  void baseline_report(int from, float b) {
    protocol::BaselineReport report;
    report.baseline = b;
    handle([](Coordinator& c, int s, const auto& v) { c.on_baseline_report(s, v); }, from,
           MessageType::kBaselineReport, report);
  }
  /// Sends `payload` as a message of `type` from `from` to the coordinator on kControl.
  template <class T>
  void send(int from, MessageType type, const T& payload) {
    world_.rank(from).send(protocol::encode_as(type, payload), kCoordinator, tags::kControl);
  }

  /// The next message from the coordinator to `to` on `tag`, which must be of `type`.
  template <class T>
  T reply(int to, int tag, MessageType type) {
    const auto got = world_.rank(to).recv(kCoordinator, tag, kWait);
    const auto m = protocol::decode_message(got.bytes, 1 << 20);
    EXPECT_EQ(m.type, type) << "got " << protocol::name(m.type);
    if (m.type != type) return T{};
    return protocol::decode<T>(m);
  }
  std::size_t waiting(int to, int tag) const { return world_.queued(to, tag); }

  gfn::testing::LoopbackWorld world_;
  CoordinatorOptions options_;
  std::unique_ptr<Coordinator> coordinator_;
};

TEST_F(CoordinatorHandlers, ModeReportsCountEachModeOnceAndCreditTheFirstFinder) {
  mode_report(kManagerA, modes({1, 2}, 10));
  mode_report(kManagerB, modes({2, 3}, 11));  // 2 already found by A's trainer 10
  const auto& r = coordinator().result();
  EXPECT_EQ(coordinator().modes_found(), 3);
  EXPECT_EQ(r.mode_reports, 2);
  EXPECT_EQ(r.modes_by_manager.at(kManagerA), 2);
  EXPECT_EQ(r.modes_by_manager.at(kManagerB), 1);
  EXPECT_EQ(r.modes_by_trainer.at(10), 2);
  EXPECT_EQ(r.modes_by_trainer.at(11), 1);
  ASSERT_EQ(r.discoveries.size(), 3u);
  EXPECT_EQ(r.discoveries[2].manager, kManagerB);
  EXPECT_EQ(r.discoveries[2].trainer, 11);

  auto bad = modes({4}, 10);
  bad.states.pop_back();
  EXPECT_THROW(mode_report(kManagerA, bad), transport::MessageError);
  EXPECT_EQ(coordinator().result().mode_reports, 2) << "a refused report changes nothing";
  EXPECT_EQ(coordinator().modes_found(), 3);
}

TEST_F(CoordinatorHandlers, PopulationStatsAnswerWithTheCounts) {
  mode_report(kManagerA, modes({1, 2}, 10));
  baseline_report(kManagerA, -2.f);
  handle([](Coordinator& c, int s, const auto& v) { c.on_get_population_stats(s, v); }, kTrainer,
         MessageType::kGetPopulationStats, protocol::PopulationStatsRequest{9});
  const auto stats =
      reply<protocol::PopulationStats>(kTrainer, tags::kPopulation, MessageType::kPopulationStats);
  EXPECT_EQ(stats.modes_found, 2);
  EXPECT_EQ(stats.mode_reports, 1);
  EXPECT_EQ(stats.managers_running, 2);
  EXPECT_TRUE(stats.has_baseline);
  EXPECT_FLOAT_EQ(stats.global_baseline, -2.f);
  EXPECT_EQ(stats.manager_ranks, (std::vector<std::int32_t>{kManagerA}));
  EXPECT_EQ(stats.modes_by_manager, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(coordinator().result().population_queries, 1);
}

TEST_F(CoordinatorHandlers, BaselineSyncOnlyWhenTheGlobalBaselineMovesBeyondTheTolerance) {
  options_.baseline_aggregate = roles::BaselineAggregate::kMean;
  options_.baseline_tolerance = 0.5;
  baseline_report(kManagerA, -2.f);  // first report: synced to both managers
  for (int m : {kManagerA, kManagerB}) {
    EXPECT_FLOAT_EQ(
        reply<protocol::BaselineSync>(m, tags::kData, MessageType::kBaselineSync).baseline, -2.f);
  }
  baseline_report(kManagerB, -2.6f);  // mean -2.3: moved by 0.3, not synced
  EXPECT_EQ(waiting(kManagerA, tags::kData), 0u);
  EXPECT_FLOAT_EQ(coordinator().result().global_baseline, -2.3f);
  baseline_report(kManagerB, -4.f);  // mean -3: moved by 1 since the last sync
  EXPECT_FLOAT_EQ(
      reply<protocol::BaselineSync>(kManagerB, tags::kData, MessageType::kBaselineSync).baseline,
      -3.f);
  const auto& r = coordinator().result();
  EXPECT_EQ(r.baseline_reports, 3);
  EXPECT_EQ(r.baseline_syncs_sent, 4);
  EXPECT_FLOAT_EQ(r.manager_baselines.at(kManagerB), -4.f);
}

TEST_F(CoordinatorHandlers, WithoutSyncTheBaselineIsOnlyAggregated) {
  options_.sync_baselines = false;
  options_.baseline_aggregate = roles::BaselineAggregate::kMax;
  baseline_report(kManagerA, -2.f);
  baseline_report(kManagerB, -1.f);
  EXPECT_EQ(waiting(kManagerA, tags::kData) + waiting(kManagerB, tags::kData), 0u);
  EXPECT_FLOAT_EQ(coordinator().result().global_baseline, -1.f);
  EXPECT_EQ(coordinator().result().baseline_syncs_sent, 0);
}

TEST_F(CoordinatorHandlers, ManagerExitIsAcknowledgedOnceAndEndsServing) {
  const auto exit = [&](int m) {
    handle([](Coordinator& c, int s, const auto& v) { c.on_manager_exit(s, v); }, m,
           MessageType::kManagerExit, protocol::ManagerExit{});
  };
  exit(kManagerA);
  reply<protocol::ManagerExitAck>(kManagerA, tags::kData, MessageType::kManagerExitAck);
  exit(kManagerA);  // again: no second ACK
  EXPECT_EQ(waiting(kManagerA, tags::kData), 0u);
  EXPECT_TRUE(coordinator().serving());
  EXPECT_EQ(coordinator().running(), (std::set<int>{kManagerB}));
  baseline_report(kManagerB, -1.f);  // synced to the running manager only
  EXPECT_EQ(waiting(kManagerA, tags::kData), 0u);
  EXPECT_EQ(waiting(kManagerB, tags::kData), 1u);
  exit(kManagerB);
  EXPECT_FALSE(coordinator().serving());
}

TEST_F(CoordinatorHandlers, ManagerAliveIsCounted) {
  handle([](Coordinator& c, int s, const auto& v) { c.on_manager_alive(s, v); }, kManagerB,
         MessageType::kManagerAlive, protocol::ManagerAlive{3, 4});
  EXPECT_EQ(coordinator().result().alive_messages, 1);
  EXPECT_EQ(waiting(kManagerB, tags::kData), 0u);
}

TEST_F(CoordinatorHandlers, ManagerCheckpointIsRefusedWithoutADirectoryOrForAnotherIteration) {
  const auto ask = [&](int m, std::int64_t at) {
    handle([](Coordinator& c, int s, const auto& v) { c.on_manager_checkpoint(s, v); }, m,
           MessageType::kManagerCheckpoint, protocol::ManagerCheckpoint{at});
  };
  EXPECT_THROW(ask(kManagerA, 5), transport::MessageError);  // no checkpoint_root
  coordinator_.reset();
  options_.checkpoint_root = ::testing::TempDir() + "gfn_coordinator_handlers_test";
  ask(kManagerA, 5);  // B has not asked yet: nothing written, nothing answered
  EXPECT_EQ(waiting(kManagerA, tags::kCheckpoint), 0u);
  try {
    ask(kManagerB, 6);
    ADD_FAILURE() << "a request for another iteration was accepted";
  } catch (const transport::MessageError& e) {
    EXPECT_NE(std::string(e.what()).find("while rank 0 asked for one after iteration 5"),
              std::string::npos)
        << e.what();
  }
}

// serve_one: population stats from anyone; from a rank that is not a manager, anything else
// is refused with ERROR on kPopulation; an unexpected type from a manager with ERROR on
// kData; an exited manager is not answered.
TEST_F(CoordinatorHandlers, ServeOneRoutesByTypeAndRefusesWhatDoesNotBelong) {
  send(kTrainer, MessageType::kGetPopulationStats, protocol::PopulationStatsRequest{1});
  coordinator().serve_one();
  reply<protocol::PopulationStats>(kTrainer, tags::kPopulation, MessageType::kPopulationStats);

  send(kTrainer, MessageType::kModeReport, modes({1}, 2));
  coordinator().serve_one();
  const auto not_manager =
      reply<protocol::ErrorReply>(kTrainer, tags::kPopulation, MessageType::kError);
  EXPECT_NE(not_manager.what.find("from rank 2, which is not a buffer manager"), std::string::npos)
      << not_manager.what;
  EXPECT_EQ(coordinator().modes_found(), 0);

  send(kManagerA, MessageType::kData, protocol::Submission{});
  coordinator().serve_one();
  const auto unexpected = reply<protocol::ErrorReply>(kManagerA, tags::kData, MessageType::kError);
  EXPECT_EQ(unexpected.refused_type, static_cast<std::uint16_t>(MessageType::kData));
  EXPECT_EQ(unexpected.tag, tags::kControl);

  send(kManagerA, MessageType::kManagerExit, protocol::ManagerExit{});
  coordinator().serve_one();
  reply<protocol::ManagerExitAck>(kManagerA, tags::kData, MessageType::kManagerExitAck);
  send(kManagerA, MessageType::kData, protocol::Submission{});
  coordinator().serve_one();
  EXPECT_EQ(waiting(kManagerA, tags::kData), 0u) << "an exited manager no longer receives";
  EXPECT_EQ(coordinator().result().rejected_messages, 3);

  send(kManagerB, MessageType::kModeReport, modes({4}, 11));
  coordinator().serve_one();
  EXPECT_EQ(coordinator().modes_found(), 1);
  send(kManagerB, MessageType::kManagerExit, protocol::ManagerExit{});
  const auto result = coordinator().run();  // serves the exit, then finishes
  EXPECT_EQ(result.modes_found, 1);
  EXPECT_EQ(coordinator().pending_sends(), 0u);
}

}  // namespace
}  // namespace gfn::roles
