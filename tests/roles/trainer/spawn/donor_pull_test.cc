// roles/trainer/spawn/donor_pull.h and transport/parameter_window.h under mpirun. mpi backend:
// donors keep "training" (a recognisable pattern written and exposed every iteration, each
// rank at its own pace) while rank 0, dying at every decision point, pulls k of them without
// their participation: its parameters then equal the mean of the donors' patterns of the
// iterations it read (one whole refresh each, never a mix), and a donor's iterations only
// move forward from one pull to the next. The
// window is freed while ranks finish at different times, and is unusable after close().
// torch backend: a parameter window is refused with an error naming the backend.

#include "roles/trainer/spawn/donor_pull.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "roles/trainer/spawn/average_all.h"
#include "roles/trainer/spawn/make_spawn_policy.h"
#include "roles/trainer/spawn/spawn_state.h"
#include "runtime/compat/process_group.h"
#include "tests/roles/trainer/spawn/parameter_pattern.h"
#include "tests/runtime/compat/dist_test_env.h"
#include "transport/errors.h"
#include "transport/parameter_window.h"
#include "transport/transport.h"

namespace gfn::roles {
namespace {

using compat::testing::DistTest;
using spawn_test::pattern;
using spawn_test::read_flat;
using spawn_test::write_pattern;

TEST_F(DistTest, DonorPullReadsWholeRecentRefreshesWhileDonorsTrain) {
  auto& group = compat::world_group();
  if (compat::testing::backend() != "mpi") {
    EXPECT_THROW(
        {
          try {
            transport::make_parameter_window(group, 4);
          } catch (const transport::TransportError& e) {
            EXPECT_NE(std::string(e.what()).find("transport.backend mpi"), std::string::npos);
            throw;
          }
        },
        transport::TransportError);
    return;
  }
  const int me = group.rank();
  const int n = group.size();
  dist::spawn::SpawnOptions options;
  options.policy = dist::spawn::SpawnPolicy::kDonorPull;
  options.replacement_mode = dist::spawn::SpawnReplacementMode::kThreshold;
  options.threshold = 0.5;  // metric = rank: only rank 0 is dying
  options.num_donors = 2;
  std::vector<at::Tensor> params = {at::zeros({5}, at::kFloat), at::zeros({3, 2}, at::kFloat)};
  std::int64_t resets = 0;
  roles::ExperimentConfig config;
  config.spawn = options;
  SpawnAgent agent;
  agent.parameters = params;
  agent.hooks.after_replace = [&] { ++resets; };
  agent.agents = &group;
  agent.seed = 11 + static_cast<std::uint64_t>(me);
  DonorPullPolicy puller(config, agent);

  constexpr std::int64_t kIterations = 30;
  constexpr std::int64_t kEvery = 3;
  for (std::int64_t it = 1; it <= kIterations; ++it) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + 2 * ((me + it) % 3)));
    write_pattern(params, me, it);
    if (it % kEvery == 0 && puller.step(it, static_cast<double>(me))) {
      const SpawnEvent& e = puller.events().back();
      ASSERT_EQ(e.donors.size(), static_cast<std::size_t>(std::min(2, n - 1)));
      const std::vector<float> got = read_flat(params);
      for (std::size_t k = 0; k < e.donors.size(); ++k) {
        EXPECT_NE(e.donors[k], me);
        EXPECT_GE(e.donor_iterations[k], 0);
        EXPECT_LE(e.donor_iterations[k], kIterations);
      }
      for (std::size_t i = 0; i < got.size(); ++i) {
        double mean = 0.0;
        for (std::size_t k = 0; k < e.donors.size(); ++k) {
          // Iteration 0 is the initial exposure (zeros here, before any pattern).
          mean += e.donor_iterations[k] == 0
                      ? 0.0
                      : pattern(e.donors[k], e.donor_iterations[k], static_cast<int>(i));
        }
        mean /= static_cast<double>(e.donors.size());
        EXPECT_NEAR(got[i], mean, 1e-3 * std::max(1.0, std::abs(mean)))
            << "decision " << it << " element " << i;
      }
    }
    puller.expose(it, static_cast<double>(me));
  }
  // Rank 0 was dying at every decision point, the others never.
  const std::int64_t points = kIterations / kEvery;
  EXPECT_EQ(puller.events().size(), static_cast<std::size_t>(points));
  EXPECT_EQ(puller.times_replaced(), n > 1 && me == 0 ? points : 0);
  EXPECT_EQ(resets, puller.times_replaced());
  // A donor's window only moves forward: per donor, later pulls read iterations at least as
  // recent as earlier ones (each a whole refresh, checked above).
  std::map<int, std::int64_t> latest;
  for (const auto& e : puller.events()) {
    for (std::size_t k = 0; k < e.donors.size(); ++k) {
      auto [it, fresh] = latest.try_emplace(e.donors[k], e.donor_iterations[k]);
      if (!fresh) {
        EXPECT_GE(e.donor_iterations[k], it->second) << "donor " << e.donors[k];
        it->second = e.donor_iterations[k];
      }
    }
  }
  // Ranks reach close() at different times; it returns on each once all have called it.
  std::this_thread::sleep_for(std::chrono::milliseconds(20 * me));
  puller.close();
  puller.close();  // idempotent
}

// make_spawn_policy for spawn.policy donor_pull: DonorPullPolicy on the mpi backend (after_step
// runs every iteration, the state is saved, finish frees the window on every member),
// refused by the window on the torch backend, average_all (doing nothing) in a group of one.
TEST_F(DistTest, FactoryBuildsDonorPullOnTheMpiBackend) {
  auto& group = compat::world_group();
  roles::ExperimentConfig config;
  config.spawn.policy = dist::spawn::SpawnPolicy::kDonorPull;
  config.spawn.metric = dist::spawn::SpawnMetric::kNegLoss;
  config.train.average_every = 2;
  std::vector<at::Tensor> params = {at::zeros({4}, at::kFloat)};
  SpawnAgent agent;
  agent.parameters = params;
  agent.agents = &group;
  agent.seed = 3;
  agent.metric = [] { return 0.5; };
  if (group.size() == 1) {
    const auto alone = make_spawn_policy(config, agent);
    ASSERT_NE(dynamic_cast<AverageAllPolicy*>(alone.get()), nullptr);
    EXPECT_FALSE(alone->after_step(2));
    return;
  }
  if (compat::testing::backend() != "mpi") {
    EXPECT_THROW(make_spawn_policy(config, agent), transport::TransportError);
    return;
  }
  const auto policy = make_spawn_policy(config, agent);
  ASSERT_NE(dynamic_cast<DonorPullPolicy*>(policy.get()), nullptr);
  for (std::int64_t it = 1; it <= 4; ++it) {
    write_pattern(params, group.rank(), it);
    EXPECT_TRUE(policy->after_step(it));  // the window is refreshed every iteration
  }
  // Age mode, ages of at least 100: nobody is dying yet; two decision points recorded.
  const SpawnState saved = decode_spawn_state(policy->save_state(4));
  EXPECT_EQ(saved.times_replaced, 0);
  EXPECT_EQ(saved.events.size(), 2u);
  EXPECT_EQ(saved.last_replacement, 0);
  policy->finish(4);
}

TEST_F(DistTest, ParameterWindowRefusesBadReadsAndUseAfterClose) {
  if (compat::testing::backend() != "mpi") return;  // refused above on the torch backend
  auto& group = compat::world_group();
  auto window = transport::make_parameter_window(group, 3);
  const float mine[3] = {1.f * group.rank(), 2.f, 3.f};
  window->expose(mine);
  group.barrier();
  float got[3] = {};
  const int peer = (group.rank() + 1) % group.size();
  window->read(peer, 0, 3, got);
  EXPECT_EQ(got[0], 1.f * peer);
  EXPECT_EQ(got[2], 3.f);
  EXPECT_THROW(window->read(group.size(), 0, 1, got), transport::TransportError);
  EXPECT_THROW(window->read(peer, 2, 2, got), transport::TransportError);
  group.barrier();  // nobody reads after this point
  window->close();
  EXPECT_THROW(window->read(peer, 0, 1, got), transport::TransportError);
  EXPECT_THROW(window->expose(mine), transport::TransportError);
}

}  // namespace
}  // namespace gfn::roles
