// make_spawn_policy (roles/trainer/spawn/make_spawn_policy.h): each configuration gives its
// policy's class, a group of one gets average_all (which then does nothing), and the
// combinations it refuses are refused before any communication, naming what is wrong. One
// process: in-process groups (thread_group.h, the loopback transport); donor_pull's window
// needs the mpi backend, so on these groups it is refused by the window (its mpirun test:
// donor_pull_test.cc).

#include "roles/trainer/spawn/make_spawn_policy.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "roles/trainer/spawn/average_all.h"
#include "roles/trainer/spawn/selective_async.h"
#include "roles/trainer/spawn/selective_sync.h"
#include "tests/roles/trainer/spawn/thread_group.h"
#include "tests/support/loopback_transport.h"
#include "transport/errors.h"

namespace gfn::roles {
namespace {

using dist::spawn::SpawnMode;
using dist::spawn::SpawnPolicy;

roles::ExperimentConfig config_of(SpawnPolicy policy, SpawnMode mode = SpawnMode::kSync) {
  roles::ExperimentConfig config;
  config.spawn.policy = policy;
  config.spawn.mode = mode;
  config.spawn.metric = dist::spawn::SpawnMetric::kNegLoss;
  return config;
}

/// An agent of `group` (and `transport`, if given) with a metric.
SpawnAgent agent_of(transport::Group& group, transport::Transport* transport = nullptr) {
  SpawnAgent agent;
  agent.parameters = {at::zeros({4}, at::kFloat)};
  agent.agents = &group;
  agent.transport = transport;
  agent.metric = [] { return 1.0; };
  return agent;
}

/// The message of the std::invalid_argument make_spawn_policy throws ("" if none).
std::string refusal(const roles::ExperimentConfig& config, SpawnAgent agent) {
  try {
    make_spawn_policy(config, std::move(agent));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

class MakeSpawnPolicy : public ::testing::Test {
 protected:
  MakeSpawnPolicy() : loopback_(3), alone_(1) {}
  transport::Transport& transport() { return loopback_.rank(0); }
  transport::Group& group() { return transport().world(); }  // 3 members, this one rank 0

  gfn::testing::LoopbackWorld loopback_;
  spawn_test::ThreadWorld alone_;
};

TEST_F(MakeSpawnPolicy, EachConfigurationGivesItsPolicy) {
  const auto average = make_spawn_policy(config_of(SpawnPolicy::kAverageAll), agent_of(group()));
  ASSERT_NE(dynamic_cast<AverageAllPolicy*>(average.get()), nullptr);
  EXPECT_TRUE(static_cast<AverageAllPolicy&>(*average).averaging());

  auto gradients = config_of(SpawnPolicy::kAverageAll);
  gradients.train.average = core::TrainAverage::kGradients;
  const auto by_gradients = make_spawn_policy(gradients, agent_of(group()));
  ASSERT_NE(dynamic_cast<AverageAllPolicy*>(by_gradients.get()), nullptr);
  EXPECT_FALSE(static_cast<AverageAllPolicy&>(*by_gradients).averaging());

  const auto sync = make_spawn_policy(config_of(SpawnPolicy::kSelective), agent_of(group()));
  EXPECT_NE(dynamic_cast<SelectiveSyncPolicy*>(sync.get()), nullptr);

  const auto async = make_spawn_policy(config_of(SpawnPolicy::kSelective, SpawnMode::kAsync),
                                       agent_of(group(), &transport()));
  EXPECT_NE(dynamic_cast<SelectiveAsyncPolicy*>(async.get()), nullptr);
}

TEST_F(MakeSpawnPolicy, AGroupOfOneGetsAverageAllWhichDoesNothing) {
  for (auto policy : {SpawnPolicy::kAverageAll, SpawnPolicy::kSelective, SpawnPolicy::kDonorPull}) {
    for (auto mode : {SpawnMode::kSync, SpawnMode::kAsync}) {
      const auto made = make_spawn_policy(config_of(policy, mode), agent_of(alone_.member(0)));
      const auto* average = dynamic_cast<AverageAllPolicy*>(made.get());
      ASSERT_NE(average, nullptr) << config::enum_name(policy);
      EXPECT_FALSE(average->averaging());
      EXPECT_EQ(made->save_state(5), "") << "no spawn state in the checkpoint";
    }
  }
  EXPECT_EQ(alone_.collectives(), 0);
}

TEST_F(MakeSpawnPolicy, RefusesReplacingPoliciesWithGradientAveraging) {
  for (auto policy : {SpawnPolicy::kSelective, SpawnPolicy::kDonorPull}) {
    auto config = config_of(policy);
    config.train.average = core::TrainAverage::kGradients;
    const std::string why = refusal(config, agent_of(group(), &transport()));
    EXPECT_NE(why.find(std::string("spawn.policy = ") + config::enum_name(policy) +
                       " needs train.average = models"),
              std::string::npos)
        << why;
    // Also alone: the combination is wrong whatever the group.
    EXPECT_FALSE(refusal(config, agent_of(alone_.member(0))).empty());
  }
}

TEST_F(MakeSpawnPolicy, RefusesAnAgentWithoutWhatItsPolicyNeeds) {
  SpawnAgent no_group = agent_of(group());
  no_group.agents = nullptr;
  EXPECT_NE(refusal(config_of(SpawnPolicy::kAverageAll), no_group).find("no agent group"),
            std::string::npos);

  for (auto policy : {SpawnPolicy::kSelective, SpawnPolicy::kDonorPull}) {
    SpawnAgent no_metric = agent_of(group(), &transport());
    no_metric.metric = nullptr;
    EXPECT_NE(refusal(config_of(policy), no_metric).find("needs the agent's metric"),
              std::string::npos)
        << config::enum_name(policy);
  }
  EXPECT_NE(refusal(config_of(SpawnPolicy::kSelective, SpawnMode::kAsync), agent_of(group()))
                .find("needs the agent's transport"),
            std::string::npos);
}

TEST_F(MakeSpawnPolicy, DonorPullOnAGroupWithoutOneSidedWindowsIsRefusedByTheWindow) {
  spawn_test::ThreadWorld threads(2);
  try {
    make_spawn_policy(config_of(SpawnPolicy::kDonorPull), agent_of(threads.member(0)));
    FAIL() << "donor_pull built on a group without MPI windows";
  } catch (const transport::TransportError& e) {
    EXPECT_NE(std::string(e.what()).find("transport.backend mpi"), std::string::npos) << e.what();
  }
  EXPECT_EQ(threads.collectives(), 0) << "refused before any collective";
}

}  // namespace
}  // namespace gfn::roles
