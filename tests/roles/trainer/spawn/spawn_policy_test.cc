// The SpawnPolicy interface (roles/trainer/spawn/spawn_policy.h) in one process: members as
// threads over an in-process group (thread_group.h) for average_all and selective sync, and
// over the loopback transport (tests/support/loopback_transport.h) for selective async.
// Each member writes a recognisable pattern into its parameters every iteration
// (parameter_pattern.h), so the values after after_step say whose parameters were
// combined; the tests check when after_step runs (its return value, the collectives), what
// it does to the parameters and hooks, the events, and save_state / restore_state.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "roles/trainer/spawn/average_all.h"
#include "roles/trainer/spawn/selective_async.h"
#include "roles/trainer/spawn/selective_sync.h"
#include "roles/trainer/spawn/spawn_state.h"
#include "tests/roles/trainer/spawn/parameter_pattern.h"
#include "tests/roles/trainer/spawn/thread_group.h"
#include "tests/support/loopback_transport.h"

namespace gfn::roles {
namespace {

using spawn_test::pattern;
using spawn_test::read_flat;
using spawn_test::ThreadWorld;
using spawn_test::write_pattern;

std::vector<at::Tensor> make_parameters() {
  return {at::zeros({3}, at::kFloat), at::zeros({2, 2}, at::kFloat)};
}
constexpr int kValues = 7;  // elements of make_parameters()

/// What one member's hooks saw.
struct HookLog {
  std::vector<std::int64_t> respawns;  // on_respawn's counts
  std::int64_t replaced = 0;           // after_replace calls
  std::vector<std::int64_t> restores;  // on_restore's counts
};

SpawnAgent make_agent(std::vector<at::Tensor> params, transport::Group& group, HookLog& log,
                      double metric, transport::Transport* transport = nullptr) {
  SpawnAgent agent;
  agent.parameters = std::move(params);
  agent.agents = &group;
  agent.transport = transport;
  agent.seed = 7;
  agent.metric = [metric] { return metric; };
  agent.hooks.on_respawn = [&log](std::int64_t k) { log.respawns.push_back(k); };
  agent.hooks.after_replace = [&log] { ++log.replaced; };
  agent.hooks.on_restore = [&log](std::int64_t k) { log.restores.push_back(k); };
  return agent;
}

roles::ExperimentConfig config_with(dist::spawn::SpawnPolicy policy, int every, std::int64_t n) {
  roles::ExperimentConfig config;
  config.spawn.policy = policy;
  config.train.average_every = every;
  config.train.n_iterations = n;
  config.transport.timeout_s = 10;
  return config;
}

void expect_same_events(const std::vector<SpawnEvent>& a, const std::vector<SpawnEvent>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].iteration, b[i].iteration);
    EXPECT_EQ(a[i].metrics, b[i].metrics);
    EXPECT_EQ(a[i].replaced, b[i].replaced);
    EXPECT_EQ(a[i].donors, b[i].donors);
    EXPECT_EQ(a[i].weights, b[i].weights);
    EXPECT_EQ(a[i].skipped, b[i].skipped);
  }
}

// average_all: every 4 iterations and at the last one (10), the mean of the members'
// parameters; nothing in between; no state, no events.
TEST(AverageAllPolicy, AveragesEveryAverageEveryIterationsAndAtTheLast) {
  constexpr int kMembers = 3;
  const auto config = config_with(dist::spawn::SpawnPolicy::kAverageAll, 4, 10);
  ThreadWorld world(kMembers);
  std::vector<std::vector<std::int64_t>> ran(kMembers);
  world.run([&](int r) {
    HookLog log;
    auto params = make_parameters();
    AverageAllPolicy policy(config, make_agent(params, world.member(r), log, 0.0));
    EXPECT_TRUE(policy.averaging());
    for (std::int64_t it = 1; it <= 10; ++it) {
      write_pattern(params, r, it);
      if (!policy.after_step(it)) {
        EXPECT_EQ(read_flat(params)[0], pattern(r, it, 0)) << "changed at iteration " << it;
        continue;
      }
      ran[static_cast<std::size_t>(r)].push_back(it);
      const auto got = read_flat(params);
      for (int i = 0; i < kValues; ++i) {
        float mean = 0.f;
        for (int g = 0; g < kMembers; ++g) mean += pattern(g, it, i);
        EXPECT_FLOAT_EQ(got[static_cast<std::size_t>(i)], mean / kMembers);
      }
    }
    EXPECT_EQ(policy.save_state(10), "");
    EXPECT_TRUE(policy.events().empty());
    policy.finish(10);
    EXPECT_TRUE(log.respawns.empty());
  });
  for (const auto& its : ran) EXPECT_EQ(its, (std::vector<std::int64_t>{4, 8, 10}));
  EXPECT_EQ(world.collectives(), 3);
}

// train.average gradients (the trainer averages inside the training step) and a group of
// one: average_all does nothing at all.
TEST(AverageAllPolicy, DoesNothingWithGradientAveragingOrAlone) {
  auto gradients = config_with(dist::spawn::SpawnPolicy::kAverageAll, 2, 6);
  gradients.train.average = core::TrainAverage::kGradients;
  for (int members : {1, 3}) {
    const auto& config =
        members == 1 ? config_with(dist::spawn::SpawnPolicy::kAverageAll, 2, 6) : gradients;
    ThreadWorld world(members);
    world.run([&](int r) {
      HookLog log;
      auto params = make_parameters();
      AverageAllPolicy policy(config, make_agent(params, world.member(r), log, 0.0));
      EXPECT_FALSE(policy.averaging());
      for (std::int64_t it = 1; it <= 6; ++it) {
        write_pattern(params, r, it);
        EXPECT_FALSE(policy.after_step(it));
        EXPECT_EQ(read_flat(params)[1], pattern(r, it, 1));
      }
    });
    EXPECT_EQ(world.collectives(), 0) << members << " member(s)";
  }
}

// selective sync: at every decision point (2, 4, 6) the group gathers the metrics (group
// rank r's is r: rank 0 the worst), replaces rank 0 by the mean of the others, calls its
// hooks; every member records the same events in global ranks; the state restores into a
// new policy, with on_restore given the replacement count.
TEST(SelectiveSyncPolicy, ReplacesTheWorstAtDecisionPointsAndRestoresItsState) {
  constexpr int kMembers = 4;
  auto config = config_with(dist::spawn::SpawnPolicy::kSelective, 2, 6);
  config.spawn.replacement_ratio = 0.25;  // one of four
  const std::vector<int> global = {10, 11, 12, 13};
  ThreadWorld world(kMembers, global);
  std::vector<std::vector<SpawnEvent>> events(kMembers);
  std::vector<HookLog> logs(kMembers);
  std::vector<std::string> saved(kMembers);
  world.run([&](int r) {
    auto& log = logs[static_cast<std::size_t>(r)];
    auto params = make_parameters();
    SelectiveSyncPolicy policy(config, make_agent(params, world.member(r), log, r));
    for (std::int64_t it = 1; it <= 6; ++it) {
      write_pattern(params, r, it);
      EXPECT_EQ(policy.after_step(it), it % 2 == 0) << "iteration " << it;
      const auto got = read_flat(params);
      for (int i = 0; i < kValues; ++i) {
        const float donors_mean = (pattern(1, it, i) + pattern(2, it, i) + pattern(3, it, i)) / 3;
        const float expected = r == 0 && it % 2 == 0 ? donors_mean : pattern(r, it, i);
        EXPECT_NEAR(got[static_cast<std::size_t>(i)], expected, 1e-3 * std::abs(expected))
            << "iteration " << it;
      }
    }
    events[static_cast<std::size_t>(r)] = policy.events();
    saved[static_cast<std::size_t>(r)] = policy.save_state(6);
    policy.finish(6);
  });
  for (int r = 0; r < kMembers; ++r) {
    const auto& e = events[static_cast<std::size_t>(r)];
    ASSERT_EQ(e.size(), 3u);
    for (const auto& point : e) {
      EXPECT_TRUE(point.replaced_any);
      EXPECT_EQ(point.replaced, (std::vector<int>{10}));
      EXPECT_EQ(point.donors, (std::vector<int>{11, 12, 13}));
      EXPECT_EQ(point.metrics, (std::vector<double>{0, 1, 2, 3}));
    }
    expect_same_events(e, events[0]);
    const auto& log = logs[static_cast<std::size_t>(r)];
    const std::vector<std::int64_t> respawns =
        r == 0 ? std::vector<std::int64_t>{1, 2, 3} : std::vector<std::int64_t>{};
    EXPECT_EQ(log.respawns, respawns);
    EXPECT_EQ(log.replaced, r == 0 ? 3 : 0);
  }
  // Resume: a new policy from the saved bytes (no collective).
  HookLog log;
  auto params = make_parameters();
  SelectiveSyncPolicy resumed(config, make_agent(params, world.member(0), log, 0.0));
  resumed.restore_state(saved[0], 6);
  EXPECT_EQ(resumed.times_replaced(), 3);
  EXPECT_EQ(log.restores, (std::vector<std::int64_t>{3}));
  expect_same_events(resumed.events(), events[0]);
  EXPECT_THROW(resumed.restore_state("", 6), std::runtime_error) << "no state in the checkpoint";
}

// selective async over the loopback transport: after_step never blocks and always runs;
// save_state drains the decisions in flight itself (a member may call it right after its
// last after_step); every member ends with the same decisions, rank 0 replaced at each.
TEST(SelectiveAsyncPolicy, SaveStateDrainsAndEveryMemberTakesTheSameDecisions) {
  constexpr int kMembers = 3;
  auto config = config_with(dist::spawn::SpawnPolicy::kSelective, 2, 8);
  config.spawn.mode = dist::spawn::SpawnMode::kAsync;
  config.spawn.replacement_ratio = 0.34;  // one of three
  gfn::testing::LoopbackWorld loopback(kMembers);
  ThreadWorld threads(kMembers);  // only for its run()
  std::vector<std::vector<SpawnEvent>> events(kMembers);
  std::vector<HookLog> logs(kMembers);
  std::vector<SpawnState> states(kMembers);
  threads.run([&](int r) {
    auto& transport = loopback.rank(r);
    auto params = make_parameters();
    SelectiveAsyncPolicy policy(
        config,
        make_agent(params, transport.world(), logs[static_cast<std::size_t>(r)], r, &transport));
    for (std::int64_t it = 1; it <= 8; ++it) {
      write_pattern(params, r, it);
      EXPECT_TRUE(policy.after_step(it));
    }
    states[static_cast<std::size_t>(r)] = decode_spawn_state(policy.save_state(8));
    events[static_cast<std::size_t>(r)] = policy.events();
    policy.finish(8);
  });
  for (int r = 0; r < kMembers; ++r) {
    const auto& e = events[static_cast<std::size_t>(r)];
    ASSERT_EQ(e.size(), 4u) << "rank " << r;
    for (const auto& point : e) EXPECT_EQ(point.replaced, (std::vector<int>{0}));
    expect_same_events(e, events[0]);
    EXPECT_EQ(states[static_cast<std::size_t>(r)].times_replaced, r == 0 ? 4 : 0);
    EXPECT_EQ(logs[static_cast<std::size_t>(r)].replaced, r == 0 ? 4 : 0);
  }
  for (int r = 0; r < kMembers; ++r) {
    for (int tag = 0; tag < 16; ++tag) EXPECT_EQ(loopback.queued(r, tag), 0u) << r << " " << tag;
  }
}

}  // namespace
}  // namespace gfn::roles
