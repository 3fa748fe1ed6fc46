// roles/buffer_manager/handlers.cc: each handler of BufferManager alone, in one process
// over the loopback transport (tests/support/loopback_transport.h), no mpirun.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "runtime/timing/timing_table.h"
#include "tests/roles/buffer_manager/manager_unit_env.h"
#include "tests/support/error_text.h"

namespace gfn::roles::testing {
namespace {

using protocol::MessageType;
namespace tags = protocol::tags;

TEST_F(ManagerUnitTest, DataGetsScoreWithTheRightFieldsAndIsStored) {
  data(kTrainer, submission(7, 4));  // states (0,0) (1,1) (2,2) (0,3); (1,1) is a mode
  const auto score = reply<protocol::Score>(kTrainer, tags::kData, MessageType::kScore);
  EXPECT_EQ(score.iteration, 7);
  EXPECT_EQ(score.retained, 4);
  EXPECT_EQ(score.new_modes, 1);
  EXPECT_EQ(score.buffer_size, 4);
  EXPECT_DOUBLE_EQ(score.novelty_sum, 4.0);  // empty buffer: the batch size
  EXPECT_NEAR(score.reward_sum, 1.0 + std::exp(0.5) + std::exp(1.0) + std::exp(1.5), 1e-5);
  // w_retained * 4 + w_novelty * 4 + w_mode_bonus * 1 (ModesScorer defaults 1, 1, 10).
  EXPECT_DOUBLE_EQ(score.score_before_ema, 18.0);
  EXPECT_DOUBLE_EQ(score.score, 18.0);
  EXPECT_FALSE(score.has_baseline);  // "min" needs a full buffer (capacity 16)

  const auto& replay = manager().replay();
  ASSERT_EQ(replay.size(), 4);
  EXPECT_EQ(replay.ndim(), 2);
  EXPECT_FLOAT_EQ(replay.max_log_reward(), 1.5f);
  EXPECT_FLOAT_EQ(replay.min_log_reward(), 0.f);
  const auto best = replay.slots_by_reward().front();
  EXPECT_EQ(std::vector<std::int64_t>(replay.state(best), replay.state(best) + 2),
            (std::vector<std::int64_t>{0, 3}));
  const auto& r = manager().result();
  EXPECT_EQ(r.submissions, 1);
  EXPECT_EQ(r.items_received, 4);
  EXPECT_EQ(r.per_sender.at(kTrainer).submissions, 1);
  EXPECT_EQ(r.per_sender.at(kTrainer).items, 4);
  EXPECT_GT(r.per_sender.at(kTrainer).bytes_out, 0);
  EXPECT_EQ(r.errors_sent, 0);

  // The same states again: nothing new, the score is the EMA (decay 0.9).
  data(kTrainer, submission(8, 4));
  const auto again = reply<protocol::Score>(kTrainer, tags::kData, MessageType::kScore);
  EXPECT_EQ(again.iteration, 8);
  EXPECT_EQ(again.new_modes, 0);
  EXPECT_DOUBLE_EQ(again.novelty_sum, 0.0);
  EXPECT_DOUBLE_EQ(again.score_before_ema, 4.0);
  EXPECT_NEAR(again.score, 0.9 * 18.0 + 0.1 * 4.0, 1e-12);
  EXPECT_EQ(again.buffer_size, 8);
  EXPECT_EQ(manager().result().submissions, 2);
}

TEST_F(ManagerUnitTest, ScoreCarriesTheBaselineOnceTheBufferIsFull) {
  options_.capacity = 4;
  data(kTrainer, submission(1, 4));
  const auto score = reply<protocol::Score>(kTrainer, tags::kData, MessageType::kScore);
  EXPECT_TRUE(score.has_baseline);
  EXPECT_FLOAT_EQ(score.baseline, 0.f);  // "min" of the full buffer
}

TEST_F(ManagerUnitTest, FireAndForgetGetsNoScoreAndScoringOnlyIsNotStored) {
  auto quiet = submission(1, 3);
  quiet.want_score = false;
  data(kTrainer, quiet);
  EXPECT_EQ(waiting(kTrainer, tags::kData), 0u);
  EXPECT_EQ(manager().replay().size(), 3);

  auto scoring_only = submission(2, 5);
  scoring_only.scoring_only = true;
  scoring_only.filtered = 6;
  data(kTrainer, scoring_only);
  const auto score = reply<protocol::Score>(kTrainer, tags::kData, MessageType::kScore);
  EXPECT_EQ(score.buffer_size, 3);
  EXPECT_EQ(manager().replay().size(), 3);
  EXPECT_EQ(manager().result().items_received, 8);
  EXPECT_EQ(manager().result().items_filtered_by_trainers, 6);
}

TEST_F(ManagerUnitTest, DataReportsEachNewModeToTheCoordinatorOnce) {
  options_.coordinator_rank = kCoordinator;
  data(kTrainer2, submission(1, 5));  // modes: (1,1) and (1,4)
  const auto report =
      reply<protocol::ModeReport>(kCoordinator, tags::kControl, MessageType::kModeReport);
  EXPECT_EQ(report.ndim, 2);
  EXPECT_EQ(report.states, (std::vector<std::int64_t>{1, 1, 1, 4}));
  EXPECT_EQ(report.trainer_ranks, (std::vector<std::int32_t>{kTrainer2, kTrainer2}));
  reply<protocol::Score>(kTrainer2, tags::kData, MessageType::kScore);
  data(kTrainer, submission(2, 5));  // the same modes: no report
  EXPECT_EQ(waiting(kCoordinator, tags::kControl), 0u);
  EXPECT_EQ(reply<protocol::Score>(kTrainer, tags::kData, MessageType::kScore).new_modes, 0);
}

TEST_F(ManagerUnitTest, MalformedDataThrowsMessageErrorAndChangesNothing) {
  options_.n_actions = 5;
  auto inconsistent = submission(3, 4);
  inconsistent.states.pop_back();
  try {
    data(kTrainer, inconsistent);
    ADD_FAILURE() << "expected a MessageError";
  } catch (const transport::MessageError& e) {
    EXPECT_NE(
        std::string(e.what()).find(
            "DATA of iteration 3: 7 int64 state entries and 0 of the other dtype for 4 items"),
        std::string::npos)
        << e.what();
  }
  auto bad_exit = submission(4, 2);
  add_trajectories(bad_exit, 5);
  bad_exit.trajectories.actions.back() =
      0;  // the last trajectory does not end with the exit action
  EXPECT_THROW(data(kTrainer, bad_exit), transport::MessageError);
  EXPECT_EQ(manager().replay().size(), 0);
  EXPECT_EQ(manager().result().submissions, 0);
  EXPECT_EQ(waiting(kTrainer, tags::kData), 0u);  // the caller (serve_one) answers
}

TEST_F(ManagerUnitTest, TrajectoriesAreStoredAndSampledBack) {
  options_.n_actions = 4;
  auto s = submission(1, 3);
  add_trajectories(s, 4);
  data(kTrainer, s);
  reply<protocol::Score>(kTrainer, tags::kData, MessageType::kScore);
  EXPECT_EQ(manager().result().trajectories_received, 3);

  protocol::SampleRequest q;
  q.n = 6;
  q.request = 41;
  handle([](BufferManager& m, int src, const auto& v) { m.on_get_sample(src, v); }, kTrainer,
         MessageType::kGetSample, q);
  const auto batch = reply<protocol::SampleBatch>(kTrainer, tags::kSample, MessageType::kSample);
  ASSERT_TRUE(batch.granted) << batch.reason;
  EXPECT_EQ(batch.request, 41);
  EXPECT_EQ(batch.ndim, 2);
  ASSERT_EQ(batch.size(), 6);
  ASSERT_EQ(batch.states.size(), 12u);
  ASSERT_EQ(batch.trajectories.lengths.size(), 6u);
  // Every sampled item is one of the submitted ones, with its own trajectory.
  std::size_t at = 0;
  for (std::int64_t i = 0; i < batch.size(); ++i) {
    const int item = static_cast<int>(batch.states[2 * i + 1]);  // states are (i % 3, i)
    ASSERT_GE(item, 0);
    ASSERT_LT(item, 3);
    EXPECT_EQ(batch.states[2 * i], item % 3);
    EXPECT_FLOAT_EQ(batch.log_rewards[i], 0.5f * item);
    ASSERT_EQ(batch.trajectories.lengths[i], item % 2 + 2);
    EXPECT_EQ(batch.trajectories.actions[at + batch.trajectories.lengths[i] - 1], 3);  // exit last
    at += static_cast<std::size_t>(batch.trajectories.lengths[i]);
  }
  EXPECT_EQ(at, batch.trajectories.actions.size());
  const auto& r = manager().result();
  EXPECT_EQ(r.sample_requests, 1);
  EXPECT_EQ(r.samples_served, 6);
  EXPECT_EQ(r.trajectories_served, 6);
  EXPECT_EQ(r.per_sender.at(kTrainer).samples, 6);
}

TEST_F(ManagerUnitTest, GetMetadataGetsMetadata) {
  data(kTrainer, submission(1, 4));
  reply<protocol::Score>(kTrainer, tags::kData, MessageType::kScore);
  protocol::Query q;
  q.request = 5;
  handle([](BufferManager& m, int src, const auto& v) { m.on_get_metadata(src, v); }, kTrainer2,
         MessageType::kGetMetadata, q);
  const auto meta = reply<protocol::Metadata>(kTrainer2, tags::kMetadata, MessageType::kMetadata);
  EXPECT_EQ(meta.buffer_size, 4);
  EXPECT_EQ(meta.capacity, 16);
  EXPECT_EQ(meta.submissions, 1);
  EXPECT_EQ(meta.items_received, 4);
  EXPECT_EQ(meta.modes_found, 1);
  EXPECT_FLOAT_EQ(meta.min_log_reward, 0.f);
  EXPECT_FLOAT_EQ(meta.max_log_reward, 1.5f);
  EXPECT_FALSE(meta.has_baseline);
  EXPECT_EQ(waiting(kTrainer2, tags::kData), 0u);  // nothing on the DATA tag
}

TEST_F(ManagerUnitTest, GetMetadataOfUnknownKindIsRefusedOnTheMetadataTag) {
  protocol::Query q;
  q.kind = 7;
  handle([](BufferManager& m, int src, const auto& v) { m.on_get_metadata(src, v); }, kTrainer,
         MessageType::kGetMetadata, q);
  const auto err = error_reply(kTrainer, tags::kMetadata);
  EXPECT_EQ(err.from_rank, kManager);
  EXPECT_EQ(err.refused_type, static_cast<std::uint16_t>(MessageType::kGetMetadata));
  EXPECT_NE(err.what.find("unknown kind 7"), std::string::npos) << err.what;
  EXPECT_EQ(manager().result().errors_sent, 1);
  EXPECT_EQ(manager().result().rejected_messages, 1);
  EXPECT_EQ(manager().result().per_sender.at(kTrainer).errors, 1);
}

TEST_F(ManagerUnitTest, GetSampleIsRefusedByTheRateLimiterThenGranted) {
  options_.rate_limiter.min_size_to_sample = 5;
  const auto ask = [&](std::int64_t n, std::int64_t request) {
    protocol::SampleRequest q;
    q.n = n;
    q.request = request;
    q.sampler = "uniform";
    handle([](BufferManager& m, int src, const auto& v) { m.on_get_sample(src, v); }, kTrainer,
           MessageType::kGetSample, q);
    return reply<protocol::SampleBatch>(kTrainer, tags::kSample, MessageType::kSample);
  };
  data(kTrainer, submission(1, 4));
  reply<protocol::Score>(kTrainer, tags::kData, MessageType::kScore);
  const auto refused = ask(2, 1);
  EXPECT_FALSE(refused.granted);
  EXPECT_EQ(refused.request, 1);
  EXPECT_FALSE(refused.reason.empty());
  EXPECT_EQ(refused.size(), 0);
  data(kTrainer, submission(2, 1));  // 5 items now
  reply<protocol::Score>(kTrainer, tags::kData, MessageType::kScore);
  const auto granted = ask(3, 2);
  EXPECT_TRUE(granted.granted) << granted.reason;
  EXPECT_EQ(granted.request, 2);
  EXPECT_EQ(granted.size(), 3);
  EXPECT_TRUE(granted.trajectories.lengths.empty());  // submitted without trajectories
  const auto& r = manager().result();
  EXPECT_EQ(r.sample_requests, 2);
  EXPECT_EQ(r.sample_requests_refused, 1);
  EXPECT_EQ(r.samples_served, 3);
}

// buffer.priority_exponent reaches the manager's table: prioritized draws ∝ R^a.
TEST_F(ManagerUnitTest, PrioritizedSamplesFollowThePriorityExponent) {
  const auto top_share = [&](double exponent) {
    options_.priority_exponent = exponent;
    manager_.reset();                  // a new manager with these options
    data(kTrainer, submission(1, 4));  // log rewards 0, 0.5, 1, 1.5
    reply<protocol::Score>(kTrainer, tags::kData, MessageType::kScore);
    protocol::SampleRequest q;
    q.n = 4000;
    q.sampler = "prioritized";
    handle([](BufferManager& m, int src, const auto& v) { m.on_get_sample(src, v); }, kTrainer,
           MessageType::kGetSample, q);
    const auto batch = reply<protocol::SampleBatch>(kTrainer, tags::kSample, MessageType::kSample);
    EXPECT_EQ(batch.size(), 4000);
    int top = 0;
    for (float lr : batch.log_rewards) top += lr == 1.5f;
    return top / 4000.0;
  };
  const auto expected = [](double a) {
    return std::exp(1.5 * a) / (1 + std::exp(0.5 * a) + std::exp(a) + std::exp(1.5 * a));
  };
  EXPECT_NEAR(top_share(1.0), expected(1.0), 0.03);  // 0.455
  EXPECT_NEAR(top_share(4.0), expected(4.0), 0.03);  // 0.865
}

TEST_F(ManagerUnitTest, GetSampleOfAnEmptyBufferIsRefusedAndNegativeNIsAnError) {
  protocol::SampleRequest q;
  q.n = 1;
  handle([](BufferManager& m, int src, const auto& v) { m.on_get_sample(src, v); }, kTrainer,
         MessageType::kGetSample, q);
  const auto empty = reply<protocol::SampleBatch>(kTrainer, tags::kSample, MessageType::kSample);
  EXPECT_FALSE(empty.granted);
  EXPECT_EQ(empty.reason, "buffer holds 0 items, min_size_to_sample is 1");  // the limiter's
  q.n = -2;
  handle([](BufferManager& m, int src, const auto& v) { m.on_get_sample(src, v); }, kTrainer,
         MessageType::kGetSample, q);
  const auto err = error_reply(kTrainer, tags::kSample);
  EXPECT_NE(err.what.find("GET_SAMPLE for n = -2 items"), std::string::npos) << err.what;
  EXPECT_EQ(manager().result().sample_requests, 1);  // the bad one is not counted
  EXPECT_EQ(manager().result().sample_requests_refused, 1);
  // The wire names a selector of the manager's table; an unknown name gets ERROR too.
  q.n = 1;
  q.sampler = "fifo";
  handle([](BufferManager& m, int src, const auto& v) { m.on_get_sample(src, v); }, kTrainer,
         MessageType::kGetSample, q);
  const auto unknown = error_reply(kTrainer, tags::kSample);
  EXPECT_NE(unknown.what.find("unknown sampler 'fifo' (known: prioritized, uniform)"),
            std::string::npos)
      << unknown.what;
  // The rank sampler is kept only when buffer.remote_sampler is rank (rank_weight given).
  q.sampler = "rank";
  handle([](BufferManager& m, int src, const auto& v) { m.on_get_sample(src, v); }, kTrainer,
         MessageType::kGetSample, q);
  const auto no_rank = error_reply(kTrainer, tags::kSample);
  EXPECT_NE(no_rank.what.find("unknown sampler 'rank'"), std::string::npos) << no_rank.what;
  EXPECT_EQ(manager().result().sample_requests, 1);
}

TEST_F(ManagerUnitTest, ExitIsCountedAndMismatchesAreFlagged) {
  const auto exit = [&](int from, std::int64_t submissions, std::int64_t items) {
    handle([](BufferManager& m, int src, const auto& v) { m.on_exit(src, v); }, from,
           MessageType::kTrainerExit, protocol::TrainerExit{submissions, items});
  };
  data(kTrainer, submission(1, 3));
  data(kTrainer, submission(2, 2));
  EXPECT_EQ(manager().running(), (std::set<int>{kTrainer, kTrainer2}));
  exit(kTrainer, 2, 5);  // what arrived
  EXPECT_EQ(manager().running(), std::set<int>{kTrainer2});
  EXPECT_EQ(manager().result().exit_mismatches, 0);
  EXPECT_TRUE(manager().serving());
  exit(kTrainer2, 1, 4);  // claims a submission that never arrived
  EXPECT_EQ(manager().result().exit_mismatches, 1);
  EXPECT_FALSE(manager().serving());
  exit(kTrainer, 2, 5);  // twice: logged, still not running, counts still agree
  EXPECT_EQ(manager().result().exit_mismatches, 1);
  EXPECT_FALSE(manager().serving());
  EXPECT_EQ(waiting(kTrainer, tags::kBaseline), 0u);  // no baseline feed, no feed end
}

TEST_F(ManagerUnitTest, ExitEndsTheBaselineFeedOfAFireAndForgetTrainer) {
  options_.capacity = 4;
  auto s = submission(1, 4);
  s.want_score = false;
  s.want_baseline = true;
  data(kTrainer, s);  // full: the baseline (min = 0) is pushed
  const auto push =
      reply<protocol::BaselinePush>(kTrainer, tags::kBaseline, MessageType::kBaselinePush);
  EXPECT_FLOAT_EQ(push.baseline, 0.f);
  auto scored_only = s;
  scored_only.scoring_only = true;
  data(kTrainer, scored_only);  // not stored: the baseline is unchanged, no push
  EXPECT_EQ(waiting(kTrainer, tags::kBaseline), 0u);
  handle([](BufferManager& m, int src, const auto& v) { m.on_exit(src, v); }, kTrainer,
         MessageType::kTrainerExit, protocol::TrainerExit{2, 8});
  const auto end =
      reply<protocol::BaselineFeedEnd>(kTrainer, tags::kBaseline, MessageType::kBaselineFeedEnd);
  EXPECT_EQ(end.updates, 1);
  EXPECT_EQ(manager().result().baseline_pushes, 1);
  EXPECT_EQ(manager().result().exit_mismatches, 0);
}

TEST_F(ManagerUnitTest, BaselineSyncIsAdoptedAndPushedToFeeds) {
  options_.coordinator_rank = kCoordinator;
  auto s = submission(1, 2);
  s.want_score = false;
  s.want_baseline = true;
  data(kTrainer, s);  // a feed, but no baseline yet (capacity 16, "min")
  EXPECT_EQ(waiting(kTrainer, tags::kBaseline), 0u);
  handle([](BufferManager& m, int, const auto& v) { m.on_baseline_sync(v); }, kCoordinator,
         MessageType::kBaselineSync, protocol::BaselineSync{2.5f});
  EXPECT_EQ(manager().result().baseline_syncs, 1);
  const auto push =
      reply<protocol::BaselinePush>(kTrainer, tags::kBaseline, MessageType::kBaselinePush);
  EXPECT_FLOAT_EQ(push.baseline, 2.5f);
  // The global baseline is now in force: METADATA says so.
  handle([](BufferManager& m, int src, const auto& v) { m.on_get_metadata(src, v); }, kTrainer,
         MessageType::kGetMetadata, protocol::Query{});
  const auto meta = reply<protocol::Metadata>(kTrainer, tags::kMetadata, MessageType::kMetadata);
  EXPECT_TRUE(meta.has_baseline);
  EXPECT_FLOAT_EQ(meta.baseline, 2.5f);
  EXPECT_THROW(handle([](BufferManager& m, int, const auto& v) { m.on_baseline_sync(v); },
                      kCoordinator, MessageType::kBaselineSync, protocol::Score{}),
               transport::MessageError);
  // The manager's own push is another message type: not taken for a sync.
  const std::string what = gfn::testing::what_of([&] {
    handle([](BufferManager& m, int, const auto& v) { m.on_baseline_sync(v); }, kCoordinator,
           MessageType::kBaselinePush, protocol::BaselinePush{7.f});
  });
  EXPECT_EQ(what, "expected BASELINE_SYNC, got BASELINE_PUSH message");
  EXPECT_EQ(manager().result().baseline_syncs, 1);
}

TEST_F(ManagerUnitTest, DataRecordsOneTimingIterationOfFourSteps) {
  timing::TimingTable table;
  manager(&table);
  handle([](BufferManager& m, int src, const auto& v) { m.on_data(src, v, 0.25); }, kTrainer,
         MessageType::kData, submission(1, 3));
  data(kTrainer, submission(2, 3));
  EXPECT_EQ(table.num_iterations(), 2);
  EXPECT_EQ(table.steps(), (std::vector<std::string>{"recv", "add", "score", "reply"}));
  EXPECT_DOUBLE_EQ(table.durations("recv")[0], 0.25);
  EXPECT_DOUBLE_EQ(table.durations("recv")[1], 0.0);
}

}  // namespace
}  // namespace gfn::roles::testing
