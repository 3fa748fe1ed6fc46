// Protocol under mpirun -np 4 (either backend, --backend=mpi|torch): ranks 0 and 1 are
// scripted trainers, rank 2 the buffer manager, rank 3 the coordinator.
//   - full payloads carry trajectories; a SAMPLE returns each stored trajectory
//     byte-identical (items submitted without one come back with length 0); malformed
//     trajectories, bad queries and an unknown message type get an ERROR and the manager
//     keeps serving; GET_SAMPLE is answered by SAMPLE on tag kSample;
//   - BASELINE_REPORT / BASELINE_SYNC are throttled: a constant baseline is reported and
//     synced exactly once, a moving one at most once per baseline_report_interval DATA
//     messages (plus the final one);
//   - fire-and-forget trainers filter with the baseline the manager pushes on kBaseline,
//     (BASELINE_PUSH) and drain that feed up to BASELINE_FEED_END at TRAINER_EXIT.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <thread>
#include <vector>

#include "roles/buffer_manager/buffer_manager.h"
#include "roles/coordinator/coordinator.h"
#include "roles/protocol/codec.h"
#include "roles/protocol/messages.h"
#include "roles/protocol/replies.h"
#include "roles/trainer/submitter.h"
#include "tests/roles/buffer_manager/protocol_test_env.h"
#include "transport/framing/envelope.h"
#include "transport/framing/message.h"

namespace gfn::roles {
namespace {

using protocol::MessageType;
using testing::toy_modes;
using testing::world_transport;
constexpr int kManager = 2, kCoordinator = 3;
// HyperGrid 2-D actions: 0 = x0 + 1, 1 = x1 + 1, 2 = exit.
constexpr std::int64_t kActions = 3;

/// Item i of batch `tag`: a distinct state (a, b) reached by an interleaved sequence.
void add_item(protocol::Submission& s, std::int64_t a, std::int64_t b, float log_reward) {
  s.states.insert(s.states.end(), {a, b});
  s.log_rewards.push_back(log_reward);
  std::int32_t len = 0;
  for (std::int64_t k = 0; k < std::max(a, b); ++k) {  // 1, 0, 1, 0, ... (b first)
    if (k < b) s.trajectories.actions.push_back(1), ++len;
    if (k < a) s.trajectories.actions.push_back(0), ++len;
  }
  s.trajectories.actions.push_back(2);
  s.trajectories.lengths.push_back(len + 1);
}

protocol::Submission full_batch(std::int64_t iteration) {
  protocol::Submission s;
  s.iteration = iteration;
  s.ndim = 2;
  for (std::int64_t i = 0; i < 6; ++i) add_item(s, i % 4, (i * 3 + iteration) % 5, 0.1f * i);
  return s;
}

void expect_error(transport::Transport& t, const transport::Bytes& bytes, int reply_tag,
                  const std::string& needle) {
  t.send(bytes, kManager, protocol::tags::kData);
  try {
    protocol::await_reply(t, kManager, reply_tag, MessageType::kScore, 30, "scripted trainer");
    ADD_FAILURE() << "expected an ERROR containing '" << needle << "'";
  } catch (const protocol::RemoteError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(TrajectoryPayload, FullTrajectoriesComeBackByteIdenticalMalformedOnesAreRefused) {
  auto& t = world_transport();
  ASSERT_EQ(t.world_size(), 4) << "run with mpirun -np 4";
  if (t.rank() == 0) {
    SubmitterOptions o;
    o.timeout_s = 30;
    Submitter sub(t, kManager, o);
    // What was submitted: state -> action sequence (empty = sent without trajectory).
    std::map<std::vector<std::int64_t>, std::vector<std::int64_t>> sent;
    for (int it = 1; it <= 2; ++it) {
      const auto batch = full_batch(it);
      std::size_t off = 0;
      for (std::int64_t i = 0; i < batch.size(); ++i) {
        const auto len = static_cast<std::size_t>(batch.trajectories.lengths[i]);
        sent[{batch.states[2 * i], batch.states[2 * i + 1]}] =
            std::vector<std::int64_t>(batch.trajectories.actions.begin() + off,
                                      batch.trajectories.actions.begin() + off + len);
        off += len;
      }
      sub.submit(batch);
    }
    protocol::Submission bare;  // a full payload without trajectories
    bare.iteration = 3;
    bare.ndim = 2;
    bare.states = {7, 7, 8, 8};
    bare.log_rewards = {0.2f, 0.3f};
    sent[{7, 7}] = {};
    sent[{8, 8}] = {};
    sub.submit(bare);
    // Scoring-only payloads never carry trajectories (the Submitter strips them).
    SubmitterOptions so = o;
    so.scoring_only = true;
    Submitter scorer(t, kManager, so);
    ASSERT_TRUE(scorer.submit(full_batch(4)));

    int with = 0, without = 0;
    for (int round = 0; round < 4; ++round) {
      const auto s = sub.request_samples(
          32, round % 2 == 0 ? buffer::SamplerKind::kPrioritized : buffer::SamplerKind::kUniform);
      ASSERT_TRUE(s.granted) << s.reason;
      ASSERT_EQ(s.trajectories.lengths.size(), static_cast<std::size_t>(s.size()));
      std::size_t off = 0;
      for (std::int64_t i = 0; i < s.size(); ++i) {
        const std::vector<std::int64_t> state{s.states[2 * i], s.states[2 * i + 1]};
        const auto want = sent.find(state);
        ASSERT_NE(want, sent.end()) << "sampled a state that was never stored";
        const auto len = static_cast<std::size_t>(s.trajectories.lengths[i]);
        const std::vector<std::int64_t> got(s.trajectories.actions.begin() + off,
                                            s.trajectories.actions.begin() + off + len);
        off += len;
        EXPECT_EQ(got, want->second) << "item " << i;  // byte-identical (or both empty)
        (len > 0 ? with : without) += 1;
      }
      EXPECT_EQ(off, s.trajectories.actions.size());
    }
    EXPECT_GT(with, 0);
    EXPECT_GT(without, 0);

    // A raw GET_SAMPLE is answered by a SAMPLE envelope on tag kSample.
    t.send(protocol::encode_as(MessageType::kGetSample, protocol::SampleRequest{3, "uniform", 77}),
           kManager, protocol::tags::kData);
    const auto raw = protocol::await_reply(t, kManager, protocol::tags::kSample,
                                           MessageType::kSample, 30, "raw GET_SAMPLE");
    EXPECT_EQ(protocol::decode<protocol::SampleBatch>(raw).request, 77);

    // Malformed full payloads and bad requests: ERROR, and the manager keeps serving.
    auto bad = full_batch(5);
    bad.trajectories.actions[0] = 5;
    expect_error(t, protocol::encode_as(MessageType::kData, bad), protocol::tags::kData,
                 "outside [0, 3)");
    bad = full_batch(6);
    bad.trajectories.actions.push_back(2);
    expect_error(t, protocol::encode_as(MessageType::kData, bad), protocol::tags::kData, "add up");
    bad = full_batch(7);
    bad.trajectories.lengths.pop_back();
    expect_error(t, protocol::encode_as(MessageType::kData, bad), protocol::tags::kData,
                 "trajectory lengths for 6 items");
    bad = protocol::Submission{};
    bad.iteration = 8;
    bad.ndim = 2;
    add_item(bad, 1, 1, 0.f);
    bad.trajectories.actions = {2, 0, 1};  // exit first
    expect_error(t, protocol::encode_as(MessageType::kData, bad), protocol::tags::kData, "exit");
    expect_error(
        t,
        protocol::encode_as(MessageType::kGetSample, protocol::SampleRequest{-1, "prioritized", 1}),
        protocol::tags::kSample, "n = -1");
    protocol::Query q;
    q.kind = 1;  // the old "sample" kind of GET_METADATA is gone
    expect_error(t, protocol::encode_as(MessageType::kGetMetadata, q), protocol::tags::kMetadata,
                 "unknown kind");
    auto unknown =
        transport::encode_envelope(protocol::envelope_type(MessageType::kData), nullptr, 0);
    unknown[6] = 99;  // a type value that is not in the protocol table
    expect_error(t, unknown, protocol::tags::kData, "malformed");

    sub.submit(full_batch(9));
    EXPECT_EQ(sub.scores_received(), 4);
    t.send(protocol::encode_as(MessageType::kTrainerExit,
                               protocol::TrainerExit{sub.submissions() + scorer.submissions(),
                                                     sub.items_sent() + scorer.items_sent()}),
           kManager, protocol::tags::kData);
  } else if (t.rank() == kManager) {
    BufferManagerOptions options;
    options.capacity = 100;
    options.coordinator_rank = kCoordinator;
    options.idle_timeout_s = 60;
    options.n_actions = kActions;
    const auto r = run_buffer_manager(t, {0}, options, toy_modes);
    EXPECT_EQ(r.rejected_messages, 7);
    EXPECT_EQ(r.exit_mismatches, 0);
    EXPECT_EQ(r.submissions, 5);
    EXPECT_EQ(r.trajectories_received, 3 * 6);  // 3 full batches; scoring-only: stripped
    EXPECT_GT(r.trajectories_served, 0);
    EXPECT_EQ(r.sample_requests, 5);
  } else if (t.rank() == kCoordinator) {
    CoordinatorOptions options;
    options.idle_timeout_s = 60;
    run_coordinator(t, {kManager}, options);
  }
  t.world().barrier();
}

/// Both trainers submit `n` sync batches; log rewards from `reward(it, i)`.
template <class Reward>
void submit_batches(transport::Transport& t, int n, Reward reward) {
  SubmitterOptions o;
  o.timeout_s = 30;
  Submitter sub(t, kManager, o);
  for (int it = 1; it <= n; ++it) {
    protocol::Submission s;
    s.iteration = it;
    s.ndim = 2;
    for (int i = 0; i < 4; ++i) {
      s.states.insert(s.states.end(), {(i + it) % 5, t.rank()});
      s.log_rewards.push_back(reward(it, i));
    }
    sub.submit(std::move(s));
  }
  sub.exit(30);
}

TEST(BaselineThrottle, ConstantBaselineIsReportedAndSyncedExactlyOnce) {
  auto& t = world_transport();
  ASSERT_EQ(t.world_size(), 4);
  if (t.rank() < 2) {
    submit_batches(t, 30, [](int, int) { return 1.5f; });
  } else if (t.rank() == kManager) {
    BufferManagerOptions options;
    options.capacity = 1000;
    options.coordinator_rank = kCoordinator;
    options.idle_timeout_s = 60;
    options.baseline.strategy = buffer::BaselineStrategy::kEma;  // of batch minima: constant 1.5
    options.baseline_report_interval = 1;
    options.baseline_tolerance = 0.0;
    const auto r = run_buffer_manager(t, {0, 1}, options, toy_modes);
    EXPECT_EQ(r.submissions, 60);
    EXPECT_EQ(r.baseline_reports, 1);
    EXPECT_EQ(r.baseline_syncs, 1);
  } else {
    CoordinatorOptions options;
    options.idle_timeout_s = 60;
    const auto r = run_coordinator(t, {kManager}, options);
    EXPECT_EQ(r.baseline_reports, 1);
    EXPECT_EQ(r.baseline_syncs_sent, 1);
    EXPECT_FLOAT_EQ(r.global_baseline, 1.5f);
  }
  t.world().barrier();
}

TEST(BaselineThrottle, MovingBaselineIsReportedAtMostOncePerInterval) {
  auto& t = world_transport();
  ASSERT_EQ(t.world_size(), 4);
  constexpr int kBatches = 40, kInterval = 7;
  std::int64_t counts[2] = {0, 0};  // reports sent by the manager, received by the coordinator
  if (t.rank() < 2) {
    submit_batches(t, kBatches, [&](int it, int i) { return 0.25f * it + 0.1f * i; });
  } else if (t.rank() == kManager) {
    BufferManagerOptions options;
    options.capacity = 1000;
    options.coordinator_rank = kCoordinator;
    options.idle_timeout_s = 60;
    options.baseline.strategy = buffer::BaselineStrategy::kEma;
    options.baseline.ema_decay = 0.5;
    options.baseline_report_interval = kInterval;
    const auto r = run_buffer_manager(t, {0, 1}, options, toy_modes);
    EXPECT_EQ(r.submissions, 2 * kBatches);
    // First report at once, then at most one per interval, plus the final one.
    EXPECT_LE(r.baseline_reports, 1 + (2 * kBatches) / kInterval + 1);
    EXPECT_GE(r.baseline_reports, 3);
    // Each report but possibly the final one (any change) moved the global baseline.
    EXPECT_GE(r.baseline_syncs, r.baseline_reports - 1);
    EXPECT_LE(r.baseline_syncs, r.baseline_reports);
    counts[0] = r.baseline_reports;
  } else {
    CoordinatorOptions options;
    options.idle_timeout_s = 60;
    const auto r = run_coordinator(t, {kManager}, options);
    counts[1] = r.baseline_reports;
    EXPECT_LE(r.baseline_syncs_sent, r.baseline_reports);  // only when the global one moved
  }
  t.world().all_reduce(counts, 2, transport::DType::kInt64, transport::ReduceOp::kSum);
  EXPECT_EQ(counts[0], counts[1]);
  t.world().barrier();
}

TEST(FireAndForgetFilter, TheManagerPushesItsBaselineAndTheTrainerFilters) {
  auto& t = world_transport();
  ASSERT_EQ(t.world_size(), 4);
  std::int64_t updates = 0;
  if (t.rank() == 0) {
    SubmitterOptions o;
    o.mode = SubmitterOptions::Mode::kFireAndForget;
    o.baseline_filter = true;
    o.baseline_refresh_after = 3;
    o.timeout_s = 30;
    Submitter sub(t, kManager, o);
    // Keep submitting (never blocking on the manager) until filtering has happened.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (int it = 1; sub.items_filtered() == 0 || it <= 10; ++it) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "no item was ever filtered";
      protocol::Submission s;
      s.iteration = it;
      s.ndim = 2;
      for (int i = 0; i < 8; ++i) {
        add_item(s, i % 4, it % 5, static_cast<float>((i * 5 + it) % 9) / 3.f);
      }
      sub.submit(std::move(s));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(sub.scores_received(), 0);  // fire-and-forget: no SCORE ever
    EXPECT_GT(sub.baseline_updates(), 0);
    EXPECT_TRUE(sub.baseline().has_value());
    sub.exit(30);  // drains the feed: throws if an update were missing
    updates = sub.baseline_updates();
  } else if (t.rank() == kManager) {
    BufferManagerOptions options;
    options.capacity = 16;  // "min" baseline once full
    options.coordinator_rank = kCoordinator;
    options.idle_timeout_s = 60;
    options.n_actions = kActions;
    options.baseline_tolerance = 0.0;
    const auto r = run_buffer_manager(t, {0}, options, toy_modes);
    EXPECT_GT(r.items_filtered_by_trainers, 0);
    EXPECT_GT(r.baseline_pushes, 0);
    EXPECT_EQ(r.exit_mismatches, 0);
    EXPECT_EQ(r.rejected_messages, 0);
    updates = -r.baseline_pushes;
  } else if (t.rank() == kCoordinator) {
    CoordinatorOptions options;
    options.idle_timeout_s = 60;
    run_coordinator(t, {kManager}, options);
  }
  // Every push the manager made was received by the trainer.
  t.world().all_reduce(&updates, 1, transport::DType::kInt64, transport::ReduceOp::kSum);
  EXPECT_EQ(updates, 0);
  t.world().barrier();
}

}  // namespace
}  // namespace gfn::roles
