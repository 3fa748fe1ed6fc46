// Stress test of the protocol: 7 trainers : 1 buffer manager + coordinator
// (mpirun -np 9, oversubscribed), async submission of full payloads (with trajectories)
// with metadata queries, remote sample requests (GET_SAMPLE, rate limited; each sampled
// trajectory must match its state) and population-stats queries interleaved. Every
// submitted item must be counted exactly once by the manager, and no reply may be
// taken for another (the Submitter checks SCORE iterations and request ids).
#include <gtest/gtest.h>

#include "roles/buffer_manager/buffer_manager.h"
#include "roles/coordinator/coordinator.h"
#include "roles/protocol/codec.h"
#include "roles/protocol/messages.h"
#include "roles/protocol/replies.h"
#include "roles/trainer/submitter.h"
#include "tests/roles/buffer_manager/protocol_test_env.h"
#include "transport/framing/message.h"

namespace gfn::roles {
namespace {

using protocol::MessageType;
using testing::toy_modes;
using testing::world_transport;

TEST(ProtocolStress, SevenAsyncTrainersOneManagerEveryItemCountedOnce) {
  auto& t = world_transport();
  if (t.world_size() != 9) GTEST_SKIP() << "needs mpirun -np 9";
  const int manager = 7, coordinator = 8;
  constexpr int kSubmissions = 40;
  std::int64_t sent[2] = {0, 0};  // items, submissions
  if (t.rank() < manager) {
    SubmitterOptions o;
    o.mode = SubmitterOptions::Mode::kAsync;
    o.timeout_s = 50;
    Submitter sub(t, manager, o);
    std::int64_t sampled = 0, refused = 0, last_request_size = 0;
    for (int it = 1; it <= kSubmissions; ++it) {
      protocol::Submission s;
      s.iteration = it;
      s.ndim = 3;
      const int n = 1 + (it * 7 + t.rank() * 3) % 17;
      for (int i = 0; i < n; ++i) {
        const std::int64_t x[3] = {(i + t.rank()) % 4, it % 6, i % 3};
        s.states.insert(s.states.end(), x, x + 3);
        s.log_rewards.push_back(static_cast<float>((i * 13 + it + t.rank()) % 23) / 5.f);
        // A trajectory that encodes its state: x0 times action 0, x1 times 1, x2 times 2, exit 3.
        std::int32_t len = 1;
        for (int d = 0; d < 3; ++d) {
          for (std::int64_t k = 0; k < x[d]; ++k, ++len) s.trajectories.actions.push_back(d);
        }
        s.trajectories.actions.push_back(3);
        s.trajectories.lengths.push_back(len);
      }
      sub.submit(std::move(s));
      if (it % 3 == 0) {
        const auto meta = sub.query_metadata();
        EXPECT_GE(meta.submissions, 1);
        EXPECT_LE(meta.buffer_size, meta.capacity);
      }
      if (it % 4 == 0) {
        last_request_size = 5;
        const auto samples =
            sub.request_samples(last_request_size, it % 8 == 0 ? buffer::SamplerKind::kPrioritized
                                                               : buffer::SamplerKind::kUniform);
        if (samples.granted) {
          EXPECT_EQ(samples.size(), last_request_size);
          EXPECT_EQ(samples.states.size(), static_cast<std::size_t>(samples.size() * 3));
          ASSERT_EQ(samples.trajectories.lengths.size(), static_cast<std::size_t>(samples.size()));
          std::size_t off = 0;
          for (std::int64_t i = 0; i < samples.size(); ++i) {
            std::int64_t count[4] = {0, 0, 0, 0};
            for (std::int32_t k = 0; k < samples.trajectories.lengths[i]; ++k)
              ++count[samples.trajectories.actions[off + k]];
            off += static_cast<std::size_t>(samples.trajectories.lengths[i]);
            for (int d = 0; d < 3; ++d) EXPECT_EQ(count[d], samples.states[3 * i + d]);
            EXPECT_EQ(count[3], 1);
          }
          sampled += samples.size();
        } else {
          EXPECT_FALSE(samples.reason.empty());
          ++refused;
        }
      }
      if (it % 10 == 0) {
        t.send(protocol::encode_as(MessageType::kGetPopulationStats,
                                   protocol::PopulationStatsRequest{it}),
               coordinator, protocol::tags::kControl);
        const auto m = protocol::await_reply(t, coordinator, protocol::tags::kPopulation,
                                             MessageType::kPopulationStats, 50, "stress trainer");
        const auto stats = protocol::decode<protocol::PopulationStats>(m);
        EXPECT_EQ(stats.managers_running, 1);
      }
    }
    sub.drain(50);
    EXPECT_EQ(sub.scores_received(), kSubmissions);
    EXPECT_GT(sampled + refused, 0);
    sent[0] = sub.items_sent();
    sent[1] = sub.submissions();
    t.send(protocol::encode_as(MessageType::kTrainerExit, protocol::TrainerExit{sent[1], sent[0]}),
           manager, protocol::tags::kData);
  }
  BufferManagerResult mr;
  if (t.rank() == manager) {
    BufferManagerOptions options;
    options.capacity = 200;
    options.coordinator_rank = coordinator;
    options.idle_timeout_s = 50;
    options.baseline.strategy = buffer::BaselineStrategy::kEma;
    options.rate_limiter = {0.1, 20, 0.0};  // tight: some requests are refused
    options.n_actions = 4;                  // actions of the encoded trajectories are checked
    mr = run_buffer_manager(t, {0, 1, 2, 3, 4, 5, 6}, options, toy_modes);
  }
  if (t.rank() == coordinator) {
    CoordinatorOptions options;
    options.idle_timeout_s = 50;
    const auto r = run_coordinator(t, {manager}, options);
    EXPECT_EQ(r.population_queries, 7 * (kSubmissions / 10));
    EXPECT_EQ(r.rejected_messages, 0);
    EXPECT_GE(r.baseline_reports, 1);
  }
  // Totals over the trainers, to every rank.
  t.world().all_reduce(sent, 2, transport::DType::kInt64, transport::ReduceOp::kSum);
  if (t.rank() == manager) {
    EXPECT_EQ(mr.items_received, sent[0]);
    EXPECT_EQ(mr.submissions, sent[1]);
    EXPECT_EQ(mr.submissions, 7 * kSubmissions);
    EXPECT_EQ(mr.exit_mismatches, 0);
    EXPECT_EQ(mr.rejected_messages, 0);
    EXPECT_EQ(mr.per_sender.size(), 8u);  // 7 trainers + the coordinator's BASELINE_SYNCs
    for (int r = 0; r < manager; ++r) EXPECT_EQ(mr.per_sender.at(r).submissions, kSubmissions);
    EXPECT_EQ(mr.sample_requests, 7 * (kSubmissions / 4));
    EXPECT_GT(mr.sample_requests_refused, 0);
    EXPECT_GT(mr.samples_served, 0);
    EXPECT_EQ(mr.trajectories_received, mr.items_received);
    EXPECT_EQ(mr.trajectories_served, mr.samples_served);
    // Reverb bound: samples never exceed inserts * samples_per_insert - min_diff (2 items).
    EXPECT_LE(mr.samples_served, static_cast<std::int64_t>(0.1 * mr.items_received) - 2 + 5);
    std::printf(
        "stress: %lld items in %lld submissions counted once; %lld sample requests "
        "(%lld refused); per sender:\n%s",
        static_cast<long long>(mr.items_received), static_cast<long long>(mr.submissions),
        static_cast<long long>(mr.sample_requests),
        static_cast<long long>(mr.sample_requests_refused), mr.stats_table().c_str());
  }
  t.world().barrier();
}

}  // namespace
}  // namespace gfn::roles
