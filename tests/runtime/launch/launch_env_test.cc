#include "runtime/launch/launch_env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <string>
#include <vector>

#include "runtime/launch/hostname.h"

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

std::string error_of(const Env& env) {
  try {
    detect_launch_env(lookup(env));
  } catch (const LaunchError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no LaunchError";
  return "";
}

TEST(LaunchEnv, NoLauncherIsAWorldOfOne) {
  const LaunchEnv e = detect_launch_env(lookup({{"HOME", "/root"}}));
  EXPECT_EQ(e.rank, 0);
  EXPECT_EQ(e.world_size, 1);
  EXPECT_EQ(e.local_rank, 0);
  EXPECT_EQ(e.local_world_size, 1);
  EXPECT_EQ(e.launcher, "none");
  EXPECT_EQ(e.master_addr, "");
  EXPECT_EQ(e.master_port, 0);
}

TEST(LaunchEnv, Torchrun) {
  const LaunchEnv e = detect_launch_env(lookup({{"RANK", "5"},
                                                {"WORLD_SIZE", "8"},
                                                {"LOCAL_RANK", "1"},
                                                {"LOCAL_WORLD_SIZE", "4"},
                                                {"MASTER_ADDR", "node0"},
                                                {"MASTER_PORT", "29500"}}));
  EXPECT_EQ(e.launcher, "torchrun");
  EXPECT_EQ(e.rank, 5);
  EXPECT_EQ(e.world_size, 8);
  EXPECT_EQ(e.local_rank, 1);
  EXPECT_EQ(e.local_world_size, 4);
  EXPECT_EQ(e.master_addr, "node0");
  EXPECT_EQ(e.master_port, 29500);
}

TEST(LaunchEnv, FirstSourceWins) {
  // torchrun variables shadow Open MPI's; Open MPI shadows Slurm.
  const Env both = {{"RANK", "1"},
                    {"WORLD_SIZE", "2"},
                    {"OMPI_COMM_WORLD_RANK", "3"},
                    {"OMPI_COMM_WORLD_SIZE", "4"}};
  EXPECT_EQ(detect_launch_env(lookup(both)).launcher, "torchrun");
  EXPECT_EQ(detect_launch_env(lookup(both)).rank, 1);
  const LaunchEnv e = detect_launch_env(lookup({{"OMPI_COMM_WORLD_RANK", "3"},
                                                {"OMPI_COMM_WORLD_SIZE", "4"},
                                                {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                                {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                                                {"SLURM_PROCID", "0"},
                                                {"SLURM_NTASKS", "1"}}));
  EXPECT_EQ(e.launcher, "openmpi");
  EXPECT_EQ(e.rank, 3);
  EXPECT_EQ(e.world_size, 4);
  EXPECT_EQ(e.local_rank, 1);
  EXPECT_EQ(e.local_world_size, 2);
}

TEST(LaunchEnv, PmiMvapichAndSlurm) {
  LaunchEnv pmi = detect_launch_env(lookup(
      {{"PMI_RANK", "2"}, {"PMI_SIZE", "6"}, {"MPI_LOCALRANKID", "0"}, {"MPI_LOCALNRANKS", "3"}}));
  EXPECT_EQ(pmi.launcher, "pmi");
  EXPECT_EQ(pmi.rank, 2);
  EXPECT_EQ(pmi.world_size, 6);
  EXPECT_EQ(pmi.local_world_size, 3);
  // PMIX_RANK stands in for PMI_RANK next to PMI_SIZE; without local variables the
  // job is taken as one node.
  pmi = detect_launch_env(lookup({{"PMIX_RANK", "4"}, {"PMI_SIZE", "6"}}));
  EXPECT_EQ(pmi.rank, 4);
  EXPECT_EQ(pmi.local_rank, 4);
  EXPECT_EQ(pmi.local_world_size, 6);
  // PMIX_RANK alone is not a source: Slurm's variables are used.
  const LaunchEnv pmix_slurm = detect_launch_env(lookup(
      {{"PMIX_RANK", "1"}, {"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}, {"SLURM_LOCALID", "1"}}));
  EXPECT_EQ(pmix_slurm.launcher, "slurm");

  const LaunchEnv mv2 = detect_launch_env(lookup({{"MV2_COMM_WORLD_RANK", "7"},
                                                  {"MV2_COMM_WORLD_SIZE", "8"},
                                                  {"MV2_COMM_WORLD_LOCAL_RANK", "3"},
                                                  {"MV2_COMM_WORLD_LOCAL_SIZE", "4"}}));
  EXPECT_EQ(mv2.launcher, "mvapich");
  EXPECT_EQ(mv2.rank, 7);
  EXPECT_EQ(mv2.local_rank, 3);

  const LaunchEnv slurm = detect_launch_env(lookup({{"SLURM_PROCID", "9"},
                                                    {"SLURM_NTASKS", "11"},
                                                    {"SLURM_LOCALID", "1"},
                                                    {"SLURM_NTASKS_PER_NODE", "4"}}));
  EXPECT_EQ(slurm.launcher, "slurm");
  EXPECT_EQ(slurm.rank, 9);
  EXPECT_EQ(slurm.world_size, 11);
  EXPECT_EQ(slurm.local_world_size, 4);
  // Heterogeneous nodes: SLURM_TASKS_PER_NODE "4(x2),3" -> node 2 runs 3 tasks.
  const LaunchEnv hetero = detect_launch_env(lookup({{"SLURM_PROCID", "9"},
                                                     {"SLURM_NPROCS", "11"},
                                                     {"SLURM_LOCALID", "1"},
                                                     {"SLURM_TASKS_PER_NODE", "4(x2),3"},
                                                     {"SLURM_NODEID", "2"}}));
  EXPECT_EQ(hetero.world_size, 11);
  EXPECT_EQ(hetero.local_world_size, 3);
  EXPECT_EQ(detect_launch_env(lookup({{"SLURM_PROCID", "0"},
                                      {"SLURM_NTASKS", "11"},
                                      {"SLURM_LOCALID", "0"},
                                      {"SLURM_TASKS_PER_NODE", "4(x2),3"},
                                      {"SLURM_NODEID", "1"}}))
                .local_world_size,
            4);
}

TEST(LaunchEnv, InconsistentValuesNameTheVariables) {
  EXPECT_THAT(error_of({{"RANK", "0"}}), AllOf(HasSubstr("RANK=0"), HasSubstr("WORLD_SIZE")));
  EXPECT_THAT(error_of({{"OMPI_COMM_WORLD_SIZE", "4"}}),
              AllOf(HasSubstr("OMPI_COMM_WORLD_SIZE=4"), HasSubstr("OMPI_COMM_WORLD_RANK")));
  EXPECT_THAT(error_of({{"RANK", "4"}, {"WORLD_SIZE", "4"}}),
              AllOf(HasSubstr("RANK=4"), HasSubstr("WORLD_SIZE=4")));
  EXPECT_THAT(error_of({{"RANK", "-1"}, {"WORLD_SIZE", "4"}}), HasSubstr("RANK=-1"));
  EXPECT_THAT(error_of({{"RANK", "one"}, {"WORLD_SIZE", "4"}}),
              AllOf(HasSubstr("RANK='one'"), HasSubstr("not an integer")));
  EXPECT_THAT(error_of({{"RANK", "1"}, {"WORLD_SIZE", "4x"}}), HasSubstr("WORLD_SIZE='4x'"));
  EXPECT_THAT(
      error_of(
          {{"RANK", "1"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "2"}, {"LOCAL_WORLD_SIZE", "2"}}),
      AllOf(HasSubstr("LOCAL_RANK"), HasSubstr("local rank 2")));
  EXPECT_THAT(
      error_of(
          {{"RANK", "1"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "0"}, {"LOCAL_WORLD_SIZE", "8"}}),
      AllOf(HasSubstr("LOCAL_WORLD_SIZE"), HasSubstr("local world size 8")));
  EXPECT_THAT(error_of({{"MASTER_PORT", "70000"}}), HasSubstr("MASTER_PORT=70000"));
  EXPECT_THAT(error_of({{"MASTER_PORT", "http"}}), HasSubstr("MASTER_PORT='http'"));
  EXPECT_THAT(error_of({{"SLURM_PROCID", "0"},
                        {"SLURM_NTASKS", "4"},
                        {"SLURM_LOCALID", "0"},
                        {"SLURM_TASKS_PER_NODE", "2(x2)"},
                        {"SLURM_NODEID", "5"}}),
              AllOf(HasSubstr("SLURM_NODEID=5"), HasSubstr("2(x2)")));
}

// torchrun's node values and xffl's federation sizes, read with the others so that no other
// folder reads a launcher variable (runtime/compat/process_group_setup.cc takes them).
TEST(LaunchEnv, NodeValuesAndFederationsWhateverTheSource) {
  const LaunchEnv none = detect_launch_env(lookup({}));
  EXPECT_EQ(none.node_rank, std::nullopt);
  EXPECT_EQ(none.num_nodes, std::nullopt);
  EXPECT_TRUE(none.federated_nodes.empty());
  const LaunchEnv e = detect_launch_env(lookup({{"OMPI_COMM_WORLD_RANK", "3"},
                                                {"OMPI_COMM_WORLD_SIZE", "8"},
                                                {"GROUP_RANK", "1"},
                                                {"GROUP_WORLD_SIZE", "2"},
                                                {"XFFL_FEDERATED_LOCAL_WORLD_SIZE", "1,3"}}));
  EXPECT_EQ(e.launcher, "openmpi");
  EXPECT_EQ(e.node_rank, 1);
  EXPECT_EQ(e.num_nodes, 2);
  EXPECT_EQ(e.federated_nodes, (std::vector<int>{1, 3}));
  EXPECT_EQ(detect_launch_env(lookup({{"XFFL_FEDERATED_LOCAL_WORLD_SIZE", "4"}})).federated_nodes,
            (std::vector<int>{4}));
  EXPECT_THAT(error_of({{"GROUP_RANK", "first"}}), HasSubstr("GROUP_RANK='first'"));
  EXPECT_THAT(error_of({{"GROUP_WORLD_SIZE", "2.5"}}), HasSubstr("GROUP_WORLD_SIZE='2.5'"));
  for (const char* bad : {"1,,2", "1,x", "2,", "two"}) {
    EXPECT_THAT(error_of({{"XFFL_FEDERATED_LOCAL_WORLD_SIZE", bad}}),
                AllOf(HasSubstr(std::string("XFFL_FEDERATED_LOCAL_WORLD_SIZE='") + bad + "'"),
                      HasSubstr("comma-separated list of integers")))
        << bad;
  }
}

// Automatic restart (docs/checkpoints.md "Automatic restart"): torchrun's and gfn-launch's
// TORCHELASTIC_RESTART_COUNT first, then a requeued Slurm job's SLURM_RESTART_COUNT.
TEST(LaunchEnv, RestartCountFromTorchrunThenSlurm) {
  const LaunchEnv none = detect_launch_env(lookup({}));
  EXPECT_EQ(none.restart_count, 0);
  EXPECT_EQ(none.restart_count_origin, "");
  EXPECT_EQ(none.restart_reason, "");
  const LaunchEnv torchrun = detect_launch_env(lookup({{"TORCHELASTIC_RESTART_COUNT", "2"},
                                                       {"SLURM_RESTART_COUNT", "5"},
                                                       {"GFN_RESTART_REASON", "rank 1 died"}}));
  EXPECT_EQ(torchrun.restart_count, 2);
  EXPECT_EQ(torchrun.restart_count_origin, "TORCHELASTIC_RESTART_COUNT");
  EXPECT_EQ(torchrun.restart_reason, "rank 1 died");
  const LaunchEnv slurm = detect_launch_env(lookup({{"SLURM_RESTART_COUNT", "5"}}));
  EXPECT_EQ(slurm.restart_count, 5);
  EXPECT_EQ(slurm.restart_count_origin, "SLURM_RESTART_COUNT");
  EXPECT_THAT(error_of({{"TORCHELASTIC_RESTART_COUNT", "-1"}}),
              HasSubstr("TORCHELASTIC_RESTART_COUNT=-1 must be >= 0"));
  EXPECT_THAT(error_of({{"SLURM_RESTART_COUNT", "x"}}), HasSubstr("SLURM_RESTART_COUNT='x'"));
  ExplicitLaunch x;
  x.restart_count = 1;
  x.restart_reason = "preempted";
  const LaunchEnv given = detect_launch_env(x, lookup({{"TORCHELASTIC_RESTART_COUNT", "3"}}));
  EXPECT_EQ(given.restart_count, 1);
  EXPECT_EQ(given.restart_count_origin, "launch.restart_count");
  EXPECT_EQ(given.restart_reason, "preempted");
  x.restart_count = -2;
  EXPECT_THROW(detect_launch_env(x, lookup({})), LaunchError);
}

// The job token (docs/security.md): launch.job_token, else gfn-launch's GFN_JOB_TOKEN.
TEST(LaunchEnv, JobTokenFromTheConfigThenGfnLaunch) {
  EXPECT_EQ(detect_launch_env(lookup({})).job_token, "");
  EXPECT_EQ(detect_launch_env(lookup({{"GFN_JOB_TOKEN", "abc"}})).job_token, "abc");
  ExplicitLaunch x;
  x.job_token = "mine";
  EXPECT_EQ(detect_launch_env(x, lookup({{"GFN_JOB_TOKEN", "abc"}})).job_token, "mine");
}

TEST(FirstEnv, ReturnsFirstNonEmptyValue) {
  const auto env = lookup({{"A", ""}, {"B", "b"}, {"C", "c"}});
  EXPECT_EQ(first_env({"A", "B", "C"}, env), "b");
  EXPECT_EQ(first_env({"C", "B"}, env), "c");
  EXPECT_EQ(first_env({"A", "Z"}, env), std::nullopt);
  EXPECT_EQ(first_env({}, env), std::nullopt);
}

TEST(LocalHostname, GfnHostnameOverridesTheRealName) {
  ::unsetenv("GFN_HOSTNAME");
  const std::string real = local_hostname();
  EXPECT_FALSE(real.empty());
  ::setenv("GFN_HOSTNAME", "fake-node-3", 1);
  EXPECT_EQ(local_hostname(), "fake-node-3");
  ::setenv("GFN_HOSTNAME", "", 1);
  EXPECT_EQ(local_hostname(), real);
  ::unsetenv("GFN_HOSTNAME");
  // The real environment is read by default.
  ::setenv("GFN_TEST_FIRST_ENV", "x", 1);
  EXPECT_EQ(first_env({"GFN_TEST_FIRST_ENV_UNSET", "GFN_TEST_FIRST_ENV"}), "x");
  ::unsetenv("GFN_TEST_FIRST_ENV");
}

}  // namespace
}  // namespace gfn::launch
