// roles/trainer/spawn/selective_async.h under mpirun (both backends, 2 and 4 ranks): members that
// train at different speeds (each rank sleeps its own time per iteration) and write a
// recognisable pattern into their parameters every iteration; after an asynchronous
// replacement the replaced member's parameters equal momentum * its own + (1 - momentum) *
// the donors' weighted combination of the patterns of the iterations they sent, every
// member took the same decisions, and finish() leaves nothing in flight.

#include "roles/trainer/spawn/selective_async.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "roles/trainer/spawn/spawn_state.h"
#include "runtime/compat/process_group.h"
#include "tests/roles/trainer/spawn/parameter_pattern.h"
#include "tests/runtime/compat/dist_test_env.h"
#include "transport/transport.h"

namespace gfn::roles {
namespace {

using compat::testing::DistTest;
using spawn_test::pattern;
using spawn_test::read_flat;
using spawn_test::write_pattern;

/// Two parameter tensors (5 and 2 x 3 values): the flat layout spans both.
std::vector<at::Tensor> make_parameters() {
  return {at::zeros({5}, at::kFloat), at::zeros({2, 3}, at::kFloat)};
}

/// The experiment of these tests: `options`, finish() bounded by the tests' timeout.
roles::ExperimentConfig experiment(const dist::spawn::SpawnOptions& options) {
  roles::ExperimentConfig config;
  config.spawn = options;
  config.transport.timeout_s = compat::testing::kTestTimeoutS;
  return config;
}

/// This rank's member over the default transport and `group`, seed 7.
SpawnAgent member(const std::vector<at::Tensor>& params, transport::Group& group,
                  SpawnHooks hooks = {}) {
  SpawnAgent agent;
  agent.parameters = params;
  agent.hooks = std::move(hooks);
  agent.transport = &compat::default_transport();
  agent.agents = &group;
  agent.seed = 7;
  return agent;
}

class AsyncSpawn : public DistTest, public ::testing::WithParamInterface<double> {};

TEST_P(AsyncSpawn, ReplacedMembersTakeTheDonorsParametersOfTheIterationTheySent) {
  const double momentum = GetParam();
  auto& group = compat::world_group();
  const int me = group.rank();
  const int n = group.size();
  dist::spawn::SpawnOptions options;
  options.policy = dist::spawn::SpawnPolicy::kSelective;
  options.mode = dist::spawn::SpawnMode::kAsync;
  options.replacement_ratio = 0.5;
  options.strategy = dist::spawn::SpawnStrategy::kWeightedMean;
  options.momentum = momentum;
  auto params = make_parameters();
  // Every application, wherever it happens (progress() or finish()): the parameters just
  // before it (`before`, maintained by the loop and by the previous application) and after.
  std::vector<float> before;
  std::vector<std::pair<std::vector<float>, std::vector<float>>> applications;
  SpawnHooks hooks;
  hooks.after_replace = [&] {
    applications.emplace_back(before, read_flat(params));
    before = read_flat(params);
  };
  SelectiveAsyncPolicy spawner(experiment(options), member(params, group, hooks));

  constexpr std::int64_t kIterations = 24;
  constexpr std::int64_t kEvery = 4;
  for (std::int64_t it = 1; it <= kIterations; ++it) {
    // "Training": a per-rank pace so that members reach decision points at other times.
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + 3 * ((me + it) % n)));
    write_pattern(params, me, it);
    before = read_flat(params);
    if (it % kEvery == 0) spawner.post(it, static_cast<double>(me));  // rank 0 is the worst
    spawner.progress(it);
  }
  spawner.finish(kIterations);
  EXPECT_TRUE(spawner.idle());

  // Each application equals momentum * own + (1 - momentum) * the donors' weighted patterns
  // of the iterations they sent; applications come in decision order.
  std::size_t k_app = 0;
  for (const SpawnEvent& e : spawner.events()) {
    if (e.applied_at < 0) continue;  // this member was not replaced
    ASSERT_LT(k_app, applications.size());
    const auto& [own, got] = applications[k_app++];
    ASSERT_EQ(e.donor_iterations.size(), e.donors.size());
    EXPECT_GE(e.applied_at, e.iteration);
    for (std::size_t k = 0; k < e.donors.size(); ++k) {
      EXPECT_GE(e.donor_iterations[k], e.iteration) << "a donor sent parameters too old";
      // Donors run at their own pace: they may be ahead of the replacer.
      EXPECT_LE(e.donor_iterations[k], kIterations);
    }
    for (std::size_t i = 0; i < got.size(); ++i) {
      double combined = 0.0;
      for (std::size_t k = 0; k < e.donors.size(); ++k) {
        combined += e.weights[k] * pattern(e.donors[k], e.donor_iterations[k], static_cast<int>(i));
      }
      const double expected = momentum * own[i] + (1.0 - momentum) * combined;
      EXPECT_NEAR(got[i], expected, 1e-3 * std::max(1.0, std::abs(expected)))
          << "rank " << me << " decision " << e.iteration << " element " << i;
    }
  }
  EXPECT_EQ(k_app, applications.size());

  const auto& events = spawner.events();
  if (n == 1) {
    EXPECT_TRUE(events.empty());  // a group of one sends and decides nothing
    EXPECT_EQ(read_flat(params), read_flat([&] {
                auto p = make_parameters();
                write_pattern(p, me, kIterations);
                return p;
              }()));
    return;
  }
  // Every decision point decided, the same way on every member.
  ASSERT_EQ(events.size(), static_cast<std::size_t>(kIterations / kEvery));
  const int n_replaced = n / 2;
  for (const auto& e : events) {
    EXPECT_TRUE(e.replaced_any);
    ASSERT_EQ(e.replaced.size(), static_cast<std::size_t>(n_replaced));
    for (int r = 0; r < n_replaced; ++r) EXPECT_EQ(e.replaced[static_cast<std::size_t>(r)], r);
    EXPECT_EQ(e.donors.size(), static_cast<std::size_t>(n - n_replaced));
    double sum = 0.0;
    for (double w : e.weights) sum += w;
    EXPECT_NEAR(sum, 1.0, 1e-12);
    const bool replaced = me < n_replaced;
    EXPECT_EQ(e.applied_at >= e.iteration, replaced) << "decision " << e.iteration;
  }
  const std::int64_t expected_replacements = me < n_replaced ? kIterations / kEvery : 0;
  EXPECT_EQ(spawner.times_replaced(), expected_replacements);
  EXPECT_EQ(static_cast<std::int64_t>(applications.size()), expected_replacements);
}

INSTANTIATE_TEST_SUITE_P(Momentum, AsyncSpawn, ::testing::Values(0.0, 0.5));

/// The cooldown tests' options: async selective, half the group replaced (the lowest
/// metrics: a member's metric is its group rank), no new replacement within 8 iterations.
/// Decision points 2, 4, ..., 20 then replace at 2, 10 and 18.
dist::spawn::SpawnOptions cooldown_options() {
  dist::spawn::SpawnOptions options;
  options.policy = dist::spawn::SpawnPolicy::kSelective;
  options.mode = dist::spawn::SpawnMode::kAsync;
  options.replacement_ratio = 0.5;
  options.cooldown = 8;
  return options;
}

/// Iterations [first, last] of a member: its pattern, its metric (its group rank) posted at
/// every even iteration, then progress (none after `last`: the caller finishes).
void train(SelectiveAsyncPolicy& spawner, std::vector<at::Tensor>& params, transport::Group& group,
           std::int64_t first, std::int64_t last) {
  for (std::int64_t it = first; it <= last; ++it) {
    write_pattern(params, group.rank(), it);
    if (it % 2 == 0) spawner.post(it, static_cast<double>(group.rank()));
    if (it < last) spawner.progress(it);
  }
}

std::vector<std::int64_t> replaced_iterations(const SelectiveAsyncPolicy& spawner) {
  std::vector<std::int64_t> at;
  for (const auto& e : spawner.events()) {
    if (e.replaced_any) at.push_back(e.iteration);
  }
  return at;
}

const std::vector<std::int64_t> kCooldownReplacements{2, 10, 18};

TEST_F(DistTest, AsyncCooldownAndThresholdKeepEveryMemberInStep) {
  auto& group = compat::world_group();
  dist::spawn::SpawnOptions options = cooldown_options();
  options.threshold = 5.0;  // every point has rank 0's metric below it
  auto params = make_parameters();
  SelectiveAsyncPolicy spawner(experiment(options), member(params, group));
  train(spawner, params, group, 1, 20);
  spawner.finish(20);
  for (const auto& e : spawner.events()) {
    if (!e.replaced_any) {
      EXPECT_EQ(e.skipped, group.size() == 1 ? "single agent" : "cooldown");
    }
  }
  if (group.size() == 1) {
    EXPECT_TRUE(spawner.events().empty());  // a group of one sends and decides nothing
  } else {
    EXPECT_EQ(replaced_iterations(spawner), kCooldownReplacements);
  }
}

// Checkpoints: a spawner drained at iteration 10 (finish), saved and restored into a new
// one, as a resumed run does (roles/trainer/trainer_resume.cc), keeps the group's cooldown clock:
// the replacements happen at the iterations of the run without a checkpoint. Saving with
// a metric in flight is refused.
TEST_F(DistTest, AsyncStateSavedAfterFinishContinuesTheCooldown) {
  auto& group = compat::world_group();
  auto params = make_parameters();
  std::string saved;
  {
    SelectiveAsyncPolicy first(experiment(cooldown_options()), member(params, group));
    train(first, params, group, 1, 10);
    if (group.size() > 1) {
      EXPECT_THROW(first.state(10), std::logic_error) << "a metric is in flight";
    }
    first.finish(10);
    saved = first.save_state(10);
    group.barrier();  // a new process: no member's metric of 12 reaches the old spawner
  }
  SelectiveAsyncPolicy resumed(experiment(cooldown_options()), member(params, group));
  resumed.restore_state(saved, 10);
  train(resumed, params, group, 11, 20);
  resumed.finish(20);
  if (group.size() == 1) {
    EXPECT_TRUE(resumed.events().empty());
  } else {
    EXPECT_EQ(resumed.events().size(), 10u) << "the first half's decision points are kept";
    EXPECT_EQ(replaced_iterations(resumed), kCooldownReplacements);
    EXPECT_EQ(resumed.times_replaced(), group.rank() < group.size() / 2 ? 3 : 0);
  }
}

// A checkpoint in a run that goes on: rank 0 reaches finish(10) late, after the others have
// drained, saved and posted their metrics of iteration 12. Its drain must stop at iteration
// 10 (those later metrics stay for the next progress), and the decisions stay those of a
// run without a checkpoint.
TEST_F(DistTest, AsyncFinishAtACheckpointLetsFasterMembersGoOn) {
  auto& group = compat::world_group();
  auto params = make_parameters();
  SelectiveAsyncPolicy spawner(experiment(cooldown_options()), member(params, group));
  train(spawner, params, group, 1, 10);
  if (group.rank() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  spawner.finish(10);
  EXPECT_NO_THROW(spawner.state(10));
  train(spawner, params, group, 11, 20);
  spawner.finish(20);
  if (group.size() > 1) {
    EXPECT_EQ(replaced_iterations(spawner), kCooldownReplacements);
  }
}

}  // namespace
}  // namespace gfn::roles
