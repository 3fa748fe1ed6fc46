// runtime/launch: explicit launch values (the YAML `launch:` section) come before the
// launcher's environment variables; inconsistent values are refused naming the keys.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "runtime/launch/explicit_launch.h"
#include "runtime/launch/launch_env.h"

namespace gfn::launch {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using Env = std::map<std::string, std::string>;

EnvLookup lookup(const Env& env) {
  return [env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
}

std::string error_of(const ExplicitLaunch& x, const Env& env = {}) {
  try {
    detect_launch_env(x, lookup(env));
  } catch (const LaunchError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no LaunchError";
  return "";
}

const Env kTorchrun = {{"RANK", "1"},
                       {"WORLD_SIZE", "4"},
                       {"LOCAL_RANK", "1"},
                       {"LOCAL_WORLD_SIZE", "2"},
                       {"MASTER_ADDR", "node0"},
                       {"MASTER_PORT", "29500"}};

TEST(ExplicitLaunch, NothingSetIsTheEnvironment) {
  const LaunchEnv e = detect_launch_env(ExplicitLaunch{}, lookup(kTorchrun));
  EXPECT_EQ(e.launcher, "torchrun");
  EXPECT_EQ(e.rank, 1);
  EXPECT_EQ(e.world_size, 4);
  EXPECT_EQ(e.local_rank, 1);
  EXPECT_EQ(e.local_world_size, 2);
  EXPECT_EQ(e.master_addr, "node0");
  EXPECT_EQ(e.master_port, 29500);
  EXPECT_TRUE(ExplicitLaunch{}.empty());
}

TEST(ExplicitLaunch, ExplicitRankAndWorldSizeWinOverEveryLauncher) {
  ExplicitLaunch x;
  x.rank = 2;
  x.world_size = 3;
  for (const Env& env :
       {kTorchrun, Env{{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "8"}},
        Env{{"PMI_RANK", "5"}, {"PMI_SIZE", "6"}},
        Env{{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}}, Env{}}) {
    const LaunchEnv e = detect_launch_env(x, lookup(env));
    EXPECT_EQ(e.launcher, "explicit");
    EXPECT_EQ(e.rank, 2);
    EXPECT_EQ(e.world_size, 3);
    // The launcher's local values belong to its own numbering: not used; one node.
    EXPECT_EQ(e.local_rank, 2);
    EXPECT_EQ(e.local_world_size, 3);
  }
  // An inconsistent environment is not read when the explicit values replace it.
  EXPECT_EQ(detect_launch_env(x, lookup({{"RANK", "7"}})).rank, 2);
}

TEST(ExplicitLaunch, EachFieldFallsBackToTheEnvironmentOnItsOwn) {
  ExplicitLaunch x;
  x.local_rank = 0;
  x.master_port = 31000;
  const LaunchEnv e = detect_launch_env(x, lookup(kTorchrun));
  EXPECT_EQ(e.launcher, "torchrun");
  EXPECT_EQ(e.rank, 1);               // RANK
  EXPECT_EQ(e.local_rank, 0);         // explicit
  EXPECT_EQ(e.local_world_size, 2);   // LOCAL_WORLD_SIZE
  EXPECT_EQ(e.master_addr, "node0");  // MASTER_ADDR
  EXPECT_EQ(e.master_port, 31000);    // explicit
  ExplicitLaunch addr;
  addr.master_addr = "10.0.0.7";
  addr.local_world_size = 4;
  const LaunchEnv f = detect_launch_env(addr, lookup(kTorchrun));
  EXPECT_EQ(f.master_addr, "10.0.0.7");
  EXPECT_EQ(f.master_port, 29500);
  EXPECT_EQ(f.local_world_size, 4);
  EXPECT_EQ(f.local_rank, 1);
  // Explicit local world size skips Slurm's per-node task list (even a malformed one).
  ExplicitLaunch slurm_local;
  slurm_local.local_world_size = 2;
  const LaunchEnv s = detect_launch_env(slurm_local, lookup({{"SLURM_PROCID", "3"},
                                                             {"SLURM_NTASKS", "4"},
                                                             {"SLURM_LOCALID", "1"},
                                                             {"SLURM_TASKS_PER_NODE", "bad"},
                                                             {"SLURM_NODEID", "1"}}));
  EXPECT_EQ(s.launcher, "slurm");
  EXPECT_EQ(s.local_world_size, 2);
  // No launcher at all: explicit values of a world of one.
  ExplicitLaunch one;
  one.rank = 0;
  one.world_size = 1;
  one.master_addr = "127.0.0.1";
  one.master_port = 1234;
  const LaunchEnv o = detect_launch_env(one, lookup({}));
  EXPECT_EQ(o.launcher, "explicit");
  EXPECT_EQ(o.master_addr, "127.0.0.1");
  EXPECT_EQ(o.master_port, 1234);
}

TEST(ExplicitLaunch, InconsistentValuesNameTheConfigKeys) {
  ExplicitLaunch only_rank;
  only_rank.rank = 1;
  EXPECT_THAT(error_of(only_rank, kTorchrun),
              AllOf(HasSubstr("launch.rank=1"), HasSubstr("launch.world_size is not")));
  ExplicitLaunch only_size;
  only_size.world_size = 4;
  EXPECT_THAT(error_of(only_size),
              AllOf(HasSubstr("launch.world_size=4"), HasSubstr("launch.rank is not")));
  ExplicitLaunch too_big;
  too_big.rank = 4;
  too_big.world_size = 4;
  EXPECT_THAT(error_of(too_big),
              AllOf(HasSubstr("launch.rank=4"), HasSubstr("launch.world_size=4")));
  ExplicitLaunch negative = too_big;
  negative.rank = -2;
  EXPECT_THAT(error_of(negative), HasSubstr("launch.rank=-2"));
  ExplicitLaunch zero_world;
  zero_world.rank = 0;
  zero_world.world_size = 0;
  EXPECT_THAT(error_of(zero_world), HasSubstr("launch.world_size=0"));
  ExplicitLaunch local;
  local.rank = 1;
  local.world_size = 4;
  local.local_rank = 2;
  local.local_world_size = 2;
  EXPECT_THAT(error_of(local), AllOf(HasSubstr("local rank 2"), HasSubstr("launch.local_rank"),
                                     HasSubstr("launch.local_world_size")));
  ExplicitLaunch local_size;
  local_size.local_world_size = 8;
  EXPECT_THAT(error_of(local_size, kTorchrun),
              AllOf(HasSubstr("local world size 8"), HasSubstr("launch.local_world_size"),
                    HasSubstr("WORLD_SIZE=4")));
  // An explicit local rank checked against the launcher's local world size.
  ExplicitLaunch local_rank;
  local_rank.local_rank = 3;
  EXPECT_THAT(error_of(local_rank, kTorchrun),
              AllOf(HasSubstr("launch.local_rank"), HasSubstr("LOCAL_WORLD_SIZE")));
  ExplicitLaunch port;
  port.master_port = 70000;
  EXPECT_THAT(error_of(port), HasSubstr("launch.master_port=70000"));
  ExplicitLaunch addr;
  addr.master_addr = "";
  EXPECT_THAT(error_of(addr), HasSubstr("launch.master_addr is empty"));
  // The environment's own inconsistencies still name its variables.
  ExplicitLaunch nothing;
  EXPECT_THAT(error_of(nothing, {{"RANK", "0"}}), HasSubstr("RANK=0"));
}

TEST(ExplicitLaunch, FromTheConfigSection) {
  launch::LaunchOptions options;  // all unset
  EXPECT_TRUE(explicit_launch(options).empty());
  options.rank = 0;
  options.world_size = 2;
  options.local_rank = 0;
  options.local_world_size = 1;
  options.master_addr = "127.0.0.1";
  options.master_port = 29511;
  options.restart_count = 2;
  options.restart_reason = "rank 1 killed";
  const ExplicitLaunch x = explicit_launch(options);
  EXPECT_EQ(x.restart_count, 2);
  EXPECT_EQ(x.restart_reason, "rank 1 killed");
  EXPECT_EQ(x.rank, 0);
  EXPECT_EQ(x.world_size, 2);
  EXPECT_EQ(x.local_rank, 0);
  EXPECT_EQ(x.local_world_size, 1);
  EXPECT_EQ(x.master_addr, "127.0.0.1");
  EXPECT_EQ(x.master_port, 29511);
  const LaunchEnv e = detect_launch_env(options, lookup(kTorchrun));
  EXPECT_EQ(e.launcher, "explicit");
  EXPECT_EQ(e.rank, 0);
  EXPECT_EQ(e.world_size, 2);
  EXPECT_EQ(e.local_world_size, 1);
  EXPECT_EQ(e.master_port, 29511);
  EXPECT_EQ(e.restart_count, 2);
  EXPECT_EQ(e.restart_reason, "rank 1 killed");
  launch::LaunchOptions half;
  half.world_size = 2;
  EXPECT_THROW(detect_launch_env(half, lookup({})), LaunchError);
}

}  // namespace
}  // namespace gfn::launch
