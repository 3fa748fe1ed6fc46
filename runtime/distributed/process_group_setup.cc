#include "runtime/distributed/process_group_setup.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>

#include "runtime/distributed/process_group.h"
#include "runtime/distributed/topology_errors.h"
#include "runtime/launch/launch_env.h"
#include "transport/backend.h"

namespace gfn::dist {
namespace {

// The explicit value, else the integer in environment variable `var`, else nullopt.
std::optional<int> int_or_env(const std::optional<int>& value, const char* var) {
  if (value) return value;
  const auto text = launch::first_env({var});
  if (!text) return std::nullopt;
  try {
    std::size_t used = 0;
    const int v = std::stoi(*text, &used);
    if (used == text->size()) return v;
  } catch (const std::exception&) {
  }
  throw SetupError(
      fmt::format("setup_distributed_process_group: {}='{}' is not an integer", var, *text));
}

std::string resolve_backend(const std::optional<std::string>& backend) {
  const std::string b = backend.value_or("torch");
  if (const auto known = transport::parse_backend_or_gloo(b))
    return transport::backend_name(*known);
  throw SetupError(
      fmt::format("setup_distributed_process_group: unknown backend '{}' (available: {}, gloo = "
                  "torch{})",
                  b, transport::backend_choices(),
                  b == "nccl" ? "; nccl needs GPUs, gfn-runtime runs on the CPU" : ""));
}

void require_cpu(const c10::Device& device, const char* caller) {
  if (!device.is_cpu()) {
    throw SetupError(fmt::format("{}: device '{}' is not supported; gfn-runtime runs on the CPU",
                                 caller, device.str()));
  }
}

// XFFL_FEDERATED_LOCAL_WORLD_SIZE: comma-separated node counts per federation.
std::vector<int> federated_from_env(int node_local_size) {
  const auto text = launch::first_env({"XFFL_FEDERATED_LOCAL_WORLD_SIZE"});
  if (!text) return {};
  std::vector<int> sizes;
  std::stringstream in(*text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      std::size_t used = 0;
      const int nodes = std::stoi(item, &used);
      if (used != item.size()) throw std::invalid_argument(item);
      sizes.push_back(nodes * node_local_size);
    } catch (const std::exception&) {
      throw SetupError(fmt::format(
          "setup_distributed_process_group: XFFL_FEDERATED_LOCAL_WORLD_SIZE='{}' is not a "
          "comma-separated list of integers",
          *text));
    }
  }
  return sizes;
}

}  // namespace

DistributedState resolve_distributed_setup(const SetupOptions& options) {
  DistributedState state;
  state.backend = resolve_backend(options.backend);
  state.device_type = options.device.value_or(c10::Device(c10::kCPU));
  require_cpu(state.device_type, "setup_distributed_process_group");
  state.current_device = state.device_type;
  if (options.streams && *options.streams < 1) {
    throw SetupError(fmt::format("setup_distributed_process_group: streams {} is not positive",
                                 *options.streams));
  }

  const auto rank = int_or_env(options.rank, "RANK");
  const auto world = int_or_env(options.world_size, "WORLD_SIZE");
  if (rank.has_value() != world.has_value()) {
    throw SetupError(fmt::format(
        "setup_distributed_process_group: {} (give both rank and world size, or neither to "
        "take them from the launcher)",
        rank ? "rank given without a world size" : "world size given without a rank"));
  }
  launch::LaunchEnv launcher;
  try {
    launcher = launch::detect_launch_env();
  } catch (const launch::LaunchError& e) {
    throw SetupError(fmt::format("setup_distributed_process_group: {}", e.what()));
  }
  state.rank = rank.value_or(launcher.rank);
  state.world_size = world.value_or(launcher.world_size);
  if (state.world_size < 1 || state.rank < 0 || state.rank >= state.world_size) {
    throw SetupError(
        fmt::format("setup_distributed_process_group: rank {} is outside a world of {} processes",
                    state.rank, state.world_size));
  }
  state.master_addr = options.master_addr;
  if (!state.master_addr) {
    if (const auto a = launch::first_env({"MASTER_ADDR"})) state.master_addr = *a;
  }
  state.master_port = int_or_env(options.master_port, "MASTER_PORT");
  state.transport = options.transport;

  // Node values: explicit, torchrun's variables, the launcher's local rank, one node.
  const bool launcher_matches =
      launcher.rank == state.rank && launcher.world_size == state.world_size;
  state.node_local_rank = int_or_env(options.group_local_rank, "LOCAL_RANK")
                              .value_or(launcher_matches ? launcher.local_rank : state.rank);
  state.node_local_size =
      int_or_env(options.group_local_size, "LOCAL_WORLD_SIZE")
          .value_or(launcher_matches ? launcher.local_world_size : state.world_size);
  if (state.node_local_size < 1 || state.node_local_rank < 0 ||
      state.node_local_rank >= state.node_local_size) {
    throw SetupError(fmt::format(
        "setup_distributed_process_group: local rank {} is outside a node of {} processes",
        state.node_local_rank, state.node_local_size));
  }
  state.node_rank =
      int_or_env(options.group_rank, "GROUP_RANK").value_or(state.rank / state.node_local_size);
  state.node_world_size = int_or_env(options.group_world_size, "GROUP_WORLD_SIZE")
                              .value_or(state.world_size / state.node_local_size);
  if (state.world_size % state.node_local_size != 0 ||
      state.world_size / state.node_local_size != state.node_world_size) {
    throw SetupError(fmt::format(
        "setup_distributed_process_group: the world size {} is not {} nodes of {} processes",
        state.world_size, state.node_world_size, state.node_local_size));
  }
  if (state.node_rank < 0 || state.node_rank >= state.node_world_size) {
    throw SetupError(
        fmt::format("setup_distributed_process_group: node rank {} is outside {} nodes",
                    state.node_rank, state.node_world_size));
  }

  state.hsdp = options.hsdp;
  state.federated =
      options.federated.empty() ? federated_from_env(state.node_local_size) : options.federated;
  plan_topology(state.world_size, state.hsdp, state.federated);  // throws TopologyError
  const DeviceSetup devices = setup_devices(state);
  state.current_device = devices.current_device;
  state.init_device = devices.init_device;
  state.meta_initialization = devices.meta_initialization;
  return state;
}

void init_distributed_process_group(DistributedState& state) {
  InitOptions init;
  init.backend = state.backend;
  init.rank = state.rank;
  init.world_size = state.world_size;
  init.local_rank = state.node_local_rank;
  init.local_world_size = state.node_local_size;
  init.master_addr = state.master_addr;
  init.master_port = state.master_port;
  init.transport = state.transport;
  init_dist(init);
  state.rank = default_transport().rank();
  state.world_size = default_transport().world_size();
}

DistributedState setup_distributed_process_group(const SetupOptions& options) {
  DistributedState state = resolve_distributed_setup(options);
  if (is_dist_active()) {
    throw DistInitError(
        "setup_distributed_process_group: the default process group is already initialized; "
        "call cleanup_distributed_process_group (or shutdown_dist) first");
  }
  init_distributed_process_group(state);
  try {
    state.rank = default_transport().rank();
    state.world_size = default_transport().world_size();
    state.topology = std::make_unique<ShardingTopology>(
        default_transport(), plan_topology(state.world_size, state.hsdp, state.federated));
  } catch (...) {
    shutdown_dist();
    throw;
  }
  return state;
}

void cleanup_distributed_process_group(DistributedState& state,
                                       const std::vector<std::function<void()>>& release) {
  for (const auto& fn : release) {
    if (fn) fn();
  }
  if (is_dist_active()) world_group().barrier();
  state.topology.reset();
  shutdown_dist();
}

c10::Device get_current_device(const DistributedState& state) {
  require_cpu(state.device_type, "get_current_device");
  return state.device_type;
}

DeviceSetup get_init_device(const DistributedState& state) {
  require_cpu(state.device_type, "get_init_device");
  return DeviceSetup{state.device_type, c10::Device(c10::kCPU), false};
}

DeviceSetup setup_devices(const DistributedState& state) {
  DeviceSetup d = get_init_device(state);
  d.current_device = get_current_device(state);
  return d;
}

}  // namespace gfn::dist
