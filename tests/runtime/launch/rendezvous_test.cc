// runtime/launch/rendezvous.h: the transport's rendezvous built from the launch values
// resolved once (detect_launch_env), with each value's origin and the MPI-launcher flag.
// The environment-based cases that tests/transport/factory_test.cc ran through the
// transport's own variable reading (precedence, the launchers' variables, MASTER_PORT)
// are here: the transport now receives the resolved value.

#include "runtime/launch/rendezvous.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "runtime/launch/explicit_launch.h"

namespace gfn::launch {
namespace {

using Env = std::map<std::string, std::string>;

EnvLookup lookup(const Env& env) {
  return [env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
}

TEST(Rendezvous, NoLauncherGivesNoRankAndNoAddress) {
  const transport::Rendezvous r = transport_rendezvous(detect_launch_env(lookup({})));
  EXPECT_FALSE(r.rank.has_value());
  EXPECT_FALSE(r.world_size.has_value());
  EXPECT_FALSE(r.master_addr.has_value());
  EXPECT_FALSE(r.master_port.has_value());
  EXPECT_FALSE(r.mpi_launcher);
}

TEST(Rendezvous, TorchrunValuesAndTheirOrigins) {
  const LaunchEnv env = detect_launch_env(lookup(
      {{"RANK", "1"}, {"WORLD_SIZE", "3"}, {"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29500"}}));
  const transport::Rendezvous r = transport_rendezvous(env);
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.world_size, 3);
  EXPECT_EQ(r.rank_origin, "RANK=1");
  EXPECT_EQ(r.world_size_origin, "WORLD_SIZE=3");
  EXPECT_EQ(r.master_addr, "10.0.0.1");
  EXPECT_EQ(r.master_port, 29500);
  EXPECT_EQ(r.master_addr_origin, "MASTER_ADDR");
  EXPECT_EQ(r.master_port_origin, "MASTER_PORT");
  EXPECT_FALSE(r.mpi_launcher);
}

// Every MPI launcher's marker makes the torch backend bootstrap over MPI when no address
// is given; Slurm alone (srun without PMI) does not.
TEST(Rendezvous, MpiLauncherFlag) {
  for (const Env& env : {Env{{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}},
                         Env{{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}}, Env{{"PMIX_RANK", "0"}},
                         Env{{"MV2_COMM_WORLD_RANK", "0"}, {"MV2_COMM_WORLD_SIZE", "2"}}}) {
    EXPECT_TRUE(transport_rendezvous(detect_launch_env(lookup(env))).mpi_launcher)
        << env.begin()->first;
  }
  const auto slurm = transport_rendezvous(
      detect_launch_env(lookup({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}})));
  EXPECT_FALSE(slurm.mpi_launcher);
  EXPECT_EQ(slurm.rank, 1);
  EXPECT_EQ(slurm.rank_origin, "SLURM_PROCID=1");
  // An explicit rank under mpirun still knows the process came from an MPI launcher.
  ExplicitLaunch x;
  x.rank = 0;
  x.world_size = 2;
  const auto under_mpirun = transport_rendezvous(
      detect_launch_env(x, lookup({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}})));
  EXPECT_TRUE(under_mpirun.mpi_launcher);
  EXPECT_EQ(under_mpirun.rank_origin, "launch.rank=0");
}

// Explicit values win over the environment (a world of two at an unreachable address).
TEST(Rendezvous, ExplicitValuesWinOverTheEnvironment) {
  ExplicitLaunch x;
  x.rank = 0;
  x.world_size = 1;
  x.master_addr = "127.0.0.1";
  x.master_port = 12345;
  const auto r = transport_rendezvous(detect_launch_env(x, lookup({{"RANK", "1"},
                                                                   {"WORLD_SIZE", "2"},
                                                                   {"MASTER_ADDR", "192.0.2.1"},
                                                                   {"MASTER_PORT", "9"}})));
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.world_size, 1);
  EXPECT_EQ(r.world_size_origin, "launch.world_size=1");
  EXPECT_EQ(r.master_addr, "127.0.0.1");
  EXPECT_EQ(r.master_port, 12345);
  EXPECT_EQ(r.master_addr_origin, "launch.master_addr");
  EXPECT_EQ(r.master_port_origin, "launch.master_port");
}

// MASTER_PORT=0 counts as unset; the transport's checks then name the missing port.
TEST(Rendezvous, PortZeroIsUnset) {
  const auto r = transport_rendezvous(detect_launch_env(lookup({{"MASTER_PORT", "0"}})));
  EXPECT_FALSE(r.master_port.has_value());
}

// The environment errors the transport used to report itself: now refused when the
// launch values are resolved, naming the variables.
TEST(Rendezvous, InconsistentVariablesAreRefusedWhenResolved) {
  EXPECT_THROW(detect_launch_env(lookup({{"RANK", "1"}})), LaunchError);
  EXPECT_THROW(detect_launch_env(lookup({{"SLURM_NTASKS", "4"}})), LaunchError);
  EXPECT_THROW(detect_launch_env(lookup({{"RANK", "3"}, {"WORLD_SIZE", "2"}})), LaunchError);
  EXPECT_THROW(detect_launch_env(lookup({{"RANK", "x"}, {"WORLD_SIZE", "2"}})), LaunchError);
  EXPECT_THROW(detect_launch_env(lookup({{"MASTER_PORT", "70000"}})), LaunchError);
}

// helios is_using_torchrun: every torchrun variable set (empty counts as set).
TEST(Rendezvous, TorchrunEnvironmentNeedsEveryVariable) {
  Env all;
  for (const char* v :
       {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "ROLE_RANK",
        "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RESTART_COUNT",
        "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_RUN_ID"}) {
    all[v] = "0";
  }
  all["TORCHELASTIC_RUN_ID"] = "";
  EXPECT_TRUE(torchrun_environment(lookup(all)));
  all.erase("ROLE_RANK");
  EXPECT_FALSE(torchrun_environment(lookup(all)));
  EXPECT_FALSE(torchrun_environment(lookup({{"RANK", "0"}, {"WORLD_SIZE", "1"}})));
}

}  // namespace
}  // namespace gfn::launch
