// xffl setup_distributed_process_group / init_distributed_process_group /
// cleanup_distributed_process_group (seed 001) on both backends: explicit values and
// environment fallbacks, errors, a full setup-use-cleanup cycle with hsdp / federated
// groups, and an explicit TCPStore rendezvous.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <ATen/ATen.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "runtime/compat/process_group.h"
#include "runtime/compat/process_group_setup.h"
#include "runtime/compat/sharding_strategy.h"
#include "runtime/compat/topology_errors.h"
#include "runtime/launch/launch_env.h"
#include "tests/runtime/compat/topology_test_env.h"
#include "transport/errors.h"

namespace gfn::compat {
namespace {

using topology_testing::backend;
using topology_testing::TopologyTest;

// Sets (value) or unsets (nullopt) environment variables; restores them on destruction.
class ScopedEnv {
 public:
  ScopedEnv(std::initializer_list<std::pair<const char*, std::optional<std::string>>> vars) {
    for (const auto& [name, value] : vars) {
      const char* old = std::getenv(name);
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
      if (value) {
        setenv(name, value->c_str(), 1);
      } else {
        unsetenv(name);
      }
    }
  }
  ~ScopedEnv() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

SetupOptions with_backend() {
  SetupOptions o;
  o.backend = backend();
  o.transport.timeout = transport::Seconds(topology_testing::kTestTimeoutS);
  return o;
}

TEST_F(TopologyTest, ResolveChoosesBackendAndDevice) {
  SetupOptions o;
  EXPECT_EQ(resolve_distributed_setup(o).backend, "torch");  // xffl's CPU default: gloo
  o.backend = "gloo";
  EXPECT_EQ(resolve_distributed_setup(o).backend, "torch");
  o.backend = "mpi";
  const DistributedState s = resolve_distributed_setup(o);
  EXPECT_EQ(s.backend, "mpi");
  EXPECT_TRUE(s.device_type.is_cpu());
  EXPECT_TRUE(s.current_device.is_cpu());
  EXPECT_TRUE(s.init_device.is_cpu());
  EXPECT_FALSE(s.meta_initialization);
  EXPECT_EQ(s.rank, rank());  // from the launcher (mpirun)
  EXPECT_EQ(s.world_size, world());
  EXPECT_EQ(s.topology, nullptr);
  const DeviceSetup d = setup_devices(s);
  EXPECT_TRUE(d.current_device.is_cpu());
  EXPECT_TRUE(get_current_device(s).is_cpu());
  EXPECT_TRUE(get_init_device(s).init_device.is_cpu());
  EXPECT_FALSE(get_init_device(s).meta_initialization);
}

TEST_F(TopologyTest, ResolveRefusesBadArguments) {
  auto expect_setup_error = [](SetupOptions o, const std::string& needle) {
    try {
      resolve_distributed_setup(o);
      ADD_FAILURE() << "accepted; expected an error containing '" << needle << "'";
    } catch (const SetupError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  SetupOptions o;
  o.backend = "nccl";
  expect_setup_error(o, "unknown backend 'nccl'");
  o.backend = "carrier-pigeon";
  expect_setup_error(o, "unknown backend 'carrier-pigeon'");
  o = SetupOptions{};
  o.device = c10::Device(c10::kCUDA, 0);
  expect_setup_error(o, "cuda:0");
  o = SetupOptions{};
  o.streams = 0;
  expect_setup_error(o, "streams");
  o = SetupOptions{};
  o.rank = 0;
  expect_setup_error(o, "rank given without a world size");
  o = SetupOptions{};
  o.rank = 2;
  o.world_size = 2;
  expect_setup_error(o, "outside a world of 2");
  o = SetupOptions{};
  o.rank = 0;
  o.world_size = 4;
  o.group_local_size = 3;  // 4 is not a whole number of nodes of 3
  o.group_local_rank = 0;
  expect_setup_error(o, "not 1 nodes of 3");
  o.group_local_size = 2;
  o.group_local_rank = 2;
  expect_setup_error(o, "local rank 2 is outside a node of 2");
  o.group_local_rank = 0;
  o.group_rank = 2;
  expect_setup_error(o, "node rank 2 is outside 2 nodes");
  o.group_rank = 0;
  o.group_world_size = 3;
  expect_setup_error(o, "not 3 nodes of 2");
  {
    // A bad launcher variable is refused where it is read (runtime/launch), as SetupError.
    ScopedEnv env({{"GROUP_RANK", "zero"}});
    expect_setup_error(SetupOptions{}, "GROUP_RANK='zero' is not an integer");
  }
  SetupOptions t;
  t.rank = 0;
  t.world_size = 4;
  t.hsdp = 3;
  EXPECT_THROW(resolve_distributed_setup(t), TopologyError);
  t.hsdp.reset();
  t.federated = {3};
  EXPECT_THROW(resolve_distributed_setup(t), TopologyError);
}

TEST_F(TopologyTest, ResolveUsesExplicitValuesThenTheEnvironment) {
  SetupOptions o;
  o.rank = 3;
  o.world_size = 8;
  o.group_local_rank = 1;
  o.group_local_size = 2;
  o.master_addr = "10.0.0.1";
  o.master_port = 29511;
  o.hsdp = 2;
  o.federated = {4};
  DistributedState s = resolve_distributed_setup(o);
  EXPECT_EQ(s.rank, 3);
  EXPECT_EQ(s.world_size, 8);
  EXPECT_EQ(s.node_local_rank, 1);
  EXPECT_EQ(s.node_local_size, 2);
  EXPECT_EQ(s.node_rank, 1);        // 3 / 2
  EXPECT_EQ(s.node_world_size, 4);  // 8 / 2
  EXPECT_EQ(s.master_addr, "10.0.0.1");
  EXPECT_EQ(s.master_port, 29511);
  EXPECT_EQ(s.hsdp, 2);
  EXPECT_EQ(s.federated, (std::vector<int>{4}));

  ScopedEnv env({{"RANK", "5"},
                 {"WORLD_SIZE", "6"},
                 {"LOCAL_RANK", "2"},
                 {"LOCAL_WORLD_SIZE", "3"},
                 {"GROUP_RANK", "1"},
                 {"GROUP_WORLD_SIZE", "2"},
                 {"MASTER_ADDR", "10.0.0.2"},
                 {"MASTER_PORT", "29512"},
                 {"XFFL_FEDERATED_LOCAL_WORLD_SIZE", "1,1"}});
  s = resolve_distributed_setup(SetupOptions{});
  EXPECT_EQ(s.rank, 5);
  EXPECT_EQ(s.world_size, 6);
  EXPECT_EQ(s.node_local_rank, 2);
  EXPECT_EQ(s.node_local_size, 3);
  EXPECT_EQ(s.node_rank, 1);
  EXPECT_EQ(s.node_world_size, 2);
  EXPECT_EQ(s.master_addr, "10.0.0.2");
  EXPECT_EQ(s.master_port, 29512);
  EXPECT_EQ(s.federated, (std::vector<int>{3, 3}));  // node counts x LOCAL_WORLD_SIZE
  // Explicit values win over the environment.
  SetupOptions e;
  e.rank = 0;
  e.world_size = 3;
  e.group_local_rank = 0;
  e.group_local_size = 3;
  e.group_rank = 0;
  e.group_world_size = 1;
  e.master_addr = "127.0.0.1";
  e.federated = {1};
  s = resolve_distributed_setup(e);
  EXPECT_EQ(s.rank, 0);
  EXPECT_EQ(s.world_size, 3);
  EXPECT_EQ(s.master_addr, "127.0.0.1");
  EXPECT_EQ(s.federated, (std::vector<int>{1}));
}

// The launch values a caller resolved (runtime/launch) are the only source besides the
// explicit options: the process environment is not read, whatever it says.
TEST(ResolveFromLaunchValues, TakesTheGivenValuesNotTheEnvironment) {
  const std::map<std::string, std::string> vars = {{"RANK", "5"},
                                                   {"WORLD_SIZE", "8"},
                                                   {"LOCAL_RANK", "1"},
                                                   {"LOCAL_WORLD_SIZE", "4"},
                                                   {"GROUP_RANK", "1"},
                                                   {"GROUP_WORLD_SIZE", "2"},
                                                   {"MASTER_ADDR", "10.0.0.9"},
                                                   {"MASTER_PORT", "29600"},
                                                   {"XFFL_FEDERATED_LOCAL_WORLD_SIZE", "1,1"}};
  const launch::LaunchEnv given =
      launch::detect_launch_env([&vars](const std::string& name) -> std::optional<std::string> {
        const auto it = vars.find(name);
        return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
      });
  ScopedEnv env({{"RANK", "0"},
                 {"WORLD_SIZE", "1"},
                 {"GROUP_RANK", "7"},
                 {"MASTER_ADDR", "10.0.0.1"},
                 {"XFFL_FEDERATED_LOCAL_WORLD_SIZE", "9"}});
  DistributedState s = resolve_distributed_setup(SetupOptions{}, given);
  EXPECT_EQ(s.rank, 5);
  EXPECT_EQ(s.world_size, 8);
  EXPECT_EQ(s.node_local_rank, 1);
  EXPECT_EQ(s.node_local_size, 4);
  EXPECT_EQ(s.node_rank, 1);
  EXPECT_EQ(s.node_world_size, 2);
  EXPECT_EQ(s.master_addr, "10.0.0.9");
  EXPECT_EQ(s.master_port, 29600);
  EXPECT_EQ(s.federated, (std::vector<int>{4, 4}));  // node counts x local world size
  // The process group's launch values (what init_dist takes): the same, with the origins.
  EXPECT_EQ(s.launch.launcher, "torchrun");
  EXPECT_EQ(s.launch.rank, 5);
  EXPECT_EQ(s.launch.world_size, 8);
  EXPECT_EQ(s.launch.local_rank, 1);
  EXPECT_EQ(s.launch.local_world_size, 4);
  EXPECT_EQ(s.launch.rank_origin, "RANK=5");
  EXPECT_EQ(s.launch.master_addr, "10.0.0.9");
  EXPECT_EQ(s.launch.master_addr_origin, "MASTER_ADDR");
  EXPECT_EQ(s.launch.master_port, 29600);
  // Explicit rank / world size of another world: the launcher's node values do not apply
  // (one node), its rendezvous still does.
  SetupOptions other;
  other.rank = 1;
  other.world_size = 2;
  other.federated = {2};  // the launcher's {1, 1} nodes x 2 would not fit a world of 2
  s = resolve_distributed_setup(other, given);
  EXPECT_EQ(s.node_local_rank, 1);
  EXPECT_EQ(s.node_local_size, 2);
  EXPECT_EQ(s.node_rank, 0);
  EXPECT_EQ(s.node_world_size, 1);
  EXPECT_EQ(s.master_addr, "10.0.0.9");
  EXPECT_EQ(s.launch.launcher, "explicit");
  EXPECT_EQ(s.launch.rank, 1);
  EXPECT_EQ(s.launch.world_size, 2);
  EXPECT_EQ(s.launch.local_world_size, 2);
  EXPECT_EQ(s.launch.rank_origin, "rank=1");
  EXPECT_EQ(s.launch.world_size_origin, "world_size=2");
  other.master_port = 29700;
  other.master_addr = "";  // empty: unset, the launcher's address stays
  s = resolve_distributed_setup(other, given);
  EXPECT_EQ(s.launch.master_port, 29700);
  EXPECT_EQ(s.launch.master_port_origin, "master_port");
  EXPECT_EQ(s.launch.master_addr_origin, "MASTER_ADDR");
  other.master_port = 70000;
  EXPECT_THROW(resolve_distributed_setup(other, given), SetupError);
  // Nothing resolved (a world of one): rank 0 of 1, no rendezvous.
  s = resolve_distributed_setup(SetupOptions{}, launch::LaunchEnv{});
  EXPECT_EQ(s.rank, 0);
  EXPECT_EQ(s.world_size, 1);
  EXPECT_EQ(s.master_addr, std::nullopt);
  EXPECT_EQ(s.master_port, std::nullopt);
  EXPECT_TRUE(s.federated.empty());
  EXPECT_EQ(s.launch.launcher, "explicit");  // rank 0 of 1 handed to the transport as such
  EXPECT_EQ(s.launch.rank_origin, "rank=0");
  EXPECT_EQ(s.launch.master_port, 0);
}

// The launch values are resolved once (resolve_distributed_setup); initializing the
// process group from them reads no environment variable, so variables that would be
// refused where they are read (runtime/launch) do not matter any more.
TEST_F(TopologyTest, InitTakesTheResolvedValuesNotTheEnvironment) {
  shutdown_dist();
  DistributedState state = resolve_distributed_setup(with_backend());
  {
    ScopedEnv env({{"MASTER_PORT", "not-a-port"}, {"GROUP_RANK", "zero"}});
    EXPECT_THROW(setup_launch_env(), SetupError);  // what reading them again would do
    init_distributed_process_group(state);
  }
  ASSERT_TRUE(is_dist_active());
  EXPECT_EQ(default_transport().backend(), backend());
  EXPECT_EQ(state.rank, default_transport().rank());
  EXPECT_EQ(get_dist_info().local_rank, state.node_local_rank);
  EXPECT_EQ(get_dist_info().local_world_size, state.node_local_size);
  world_group().barrier();
}

TEST_F(TopologyTest, SetupRefusesAnActiveProcessGroup) {
  EXPECT_THROW(setup_distributed_process_group(with_backend()), DistInitError);
  EXPECT_TRUE(is_dist_active());
}

TEST_F(TopologyTest, SetupUseCleanupCycle) {
  const int w = world();
  shutdown_dist();
  SetupOptions o = with_backend();
  if (w % 2 == 0) {
    o.hsdp = 1;
    o.federated = {w / 2};
  }
  DistributedState state = setup_distributed_process_group(o);
  ASSERT_TRUE(is_dist_active());
  EXPECT_EQ(default_transport().backend(), backend());
  EXPECT_EQ(state.rank, default_transport().rank());
  EXPECT_EQ(state.world_size, default_transport().world_size());
  ASSERT_NE(state.topology, nullptr);
  EXPECT_EQ(state.is_hsdp_setup(), o.hsdp.has_value());
  EXPECT_EQ(state.is_federated_scaling_setup(), state.world_size > 1 && o.hsdp.has_value());
  // Use the groups: average gradients within the federation.
  at::Tensor p = at::zeros({2}, at::kFloat).requires_grad_(true);
  p.mutable_grad() = at::full({2}, static_cast<float>(state.rank));
  average_gradients({p}, *state.topology);
  const RankList& fed = state.topology->layout().federations[state.topology->place().federation];
  double mean = 0;
  for (int r : fed) mean += r;
  mean /= static_cast<double>(fed.size());
  EXPECT_TRUE(at::allclose(p.grad(), at::full({2}, static_cast<float>(mean))));

  int released = 0;
  cleanup_distributed_process_group(state, {[&] { ++released; }, [&] { ++released; }});
  EXPECT_EQ(released, 2);
  EXPECT_FALSE(is_dist_active());
  EXPECT_EQ(state.topology, nullptr);
}

// Finds a free TCP port on this host (bind to port 0).
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

TEST_F(TopologyTest, ExplicitTcpStoreRendezvous) {
  // Rank 0 picks a port and tells the others over the current world, then every rank sets
  // up a torch world from explicit rank / world size / master address / port.
  int port = rank() == 0 ? free_port() : 0;
  world_group().broadcast(&port, 1, transport::DType::kInt32, 0);
  const int my_rank = rank();
  const int my_world = world();
  shutdown_dist();
  SetupOptions o;
  o.backend = "gloo";
  o.rank = my_rank;
  o.world_size = my_world;
  o.master_addr = "127.0.0.1";
  o.master_port = port;
  o.transport.timeout = transport::Seconds(topology_testing::kTestTimeoutS);
  DistributedState state = setup_distributed_process_group(o);
  EXPECT_EQ(default_transport().backend(), "torch");
  EXPECT_EQ(state.master_addr, "127.0.0.1");
  EXPECT_EQ(state.master_port, port);
  EXPECT_EQ(default_transport().rank(), my_rank);
  double v = 1;
  world_group().all_reduce(&v, 1, transport::DType::kFloat64, transport::ReduceOp::kSum);
  EXPECT_DOUBLE_EQ(v, my_world);
  cleanup_distributed_process_group(state);
  EXPECT_FALSE(is_dist_active());
}

TEST_F(TopologyTest, MissingMasterAddrWhereARendezvousNeedsIt) {
  shutdown_dist();
  // A process not started by an MPI launcher, with rank and world size but no rendezvous.
  ScopedEnv env({{"OMPI_COMM_WORLD_RANK", std::nullopt},
                 {"OMPI_COMM_WORLD_SIZE", std::nullopt},
                 {"OMPI_COMM_WORLD_LOCAL_RANK", std::nullopt},
                 {"OMPI_COMM_WORLD_LOCAL_SIZE", std::nullopt},
                 {"PMIX_RANK", std::nullopt},
                 {"PMI_RANK", std::nullopt},
                 {"PMI_SIZE", std::nullopt},
                 {"MASTER_ADDR", std::nullopt},
                 {"MASTER_PORT", std::nullopt}});
  SetupOptions o;
  o.backend = "torch";
  o.rank = 0;
  o.world_size = 2;
  try {
    setup_distributed_process_group(o);
    ADD_FAILURE() << "a TCPStore rendezvous without MASTER_ADDR / MASTER_PORT was accepted";
  } catch (const transport::TransportError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("MASTER_ADDR and MASTER_PORT"), std::string::npos) << m;
    EXPECT_NE(m.find("not set"), std::string::npos) << m;
  }
  o.master_addr = "127.0.0.1";
  try {
    setup_distributed_process_group(o);
    ADD_FAILURE() << "a TCPStore rendezvous without MASTER_PORT was accepted";
  } catch (const transport::TransportError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find("MASTER_ADDR"), std::string::npos) << m;
    EXPECT_NE(m.find("MASTER_PORT"), std::string::npos) << m;
    EXPECT_NE(m.find("not set"), std::string::npos) << m;
  }
  EXPECT_FALSE(is_dist_active());
}

}  // namespace
}  // namespace gfn::compat
