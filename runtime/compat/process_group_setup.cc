#include "runtime/compat/process_group_setup.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runtime/compat/process_group.h"
#include "runtime/compat/topology_errors.h"
#include "runtime/launch/launch_env.h"
#include "transport/backend.h"

namespace gfn::compat {
namespace {

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

// Federation sizes in ranks: the launcher's node counts times the processes per node.
std::vector<int> federated_from_launch(const launch::LaunchEnv& launch, int node_local_size) {
  std::vector<int> sizes;
  for (const int nodes : launch.federated_nodes) sizes.push_back(nodes * node_local_size);
  return sizes;
}

// The launch values of the process group: the resolved state's rank, world size, node-local
// values and rendezvous, over the launcher's (its MPI flag, node values and origins).
launch::LaunchEnv process_group_launch(const SetupOptions& options,
                                       const launch::LaunchEnv& launcher,
                                       const DistributedState& state) {
  launch::LaunchEnv out = launcher;
  if (options.rank || launcher.launcher == "none") {
    out.launcher = "explicit";
    out.rank_origin = fmt::format("rank={}", state.rank);
    out.world_size_origin = fmt::format("world_size={}", state.world_size);
  }
  out.rank = state.rank;
  out.world_size = state.world_size;
  out.local_rank = state.node_local_rank;
  out.local_world_size = state.node_local_size;
  out.master_addr = state.master_addr.value_or("");
  out.master_addr_origin = !state.master_addr ? ""
                           : options.master_addr && !options.master_addr->empty()
                               ? "master_addr"
                               : launcher.master_addr_origin;
  out.master_port = state.master_port.value_or(0);
  out.master_port_origin = !state.master_port    ? ""
                           : options.master_port ? "master_port"
                                                 : launcher.master_port_origin;
  return out;
}

}  // namespace

launch::LaunchEnv setup_launch_env() {
  try {
    return launch::detect_launch_env();
  } catch (const launch::LaunchError& e) {
    throw SetupError(fmt::format("setup_distributed_process_group: {}", e.what()));
  }
}

DistributedState resolve_distributed_setup(const SetupOptions& options) {
  return resolve_distributed_setup(options, setup_launch_env());
}

DistributedState resolve_distributed_setup(const SetupOptions& options,
                                           const launch::LaunchEnv& launcher) {
  DistributedState state;
  state.backend = resolve_backend(options.backend);
  state.device_type = options.device.value_or(c10::Device(c10::kCPU));
  require_cpu(state.device_type, "setup_distributed_process_group");
  state.current_device = state.device_type;
  if (options.streams && *options.streams < 1) {
    throw SetupError(fmt::format("setup_distributed_process_group: streams {} is not positive",
                                 *options.streams));
  }

  const auto& rank = options.rank;
  const auto& world = options.world_size;
  if (rank.has_value() != world.has_value()) {
    throw SetupError(fmt::format(
        "setup_distributed_process_group: {} (give both rank and world size, or neither to "
        "take them from the launcher)",
        rank ? "rank given without a world size" : "world size given without a rank"));
  }
  state.rank = rank.value_or(launcher.rank);
  state.world_size = world.value_or(launcher.world_size);
  if (state.world_size < 1 || state.rank < 0 || state.rank >= state.world_size) {
    throw SetupError(
        fmt::format("setup_distributed_process_group: rank {} is outside a world of {} processes",
                    state.rank, state.world_size));
  }
  if (options.master_addr && !options.master_addr->empty()) state.master_addr = options.master_addr;
  if (!state.master_addr && !launcher.master_addr.empty()) state.master_addr = launcher.master_addr;
  if (options.master_port && (*options.master_port < 1 || *options.master_port > 65535)) {
    throw SetupError(
        fmt::format("setup_distributed_process_group: master port {} is not a TCP port (1..65535)",
                    *options.master_port));
  }
  state.master_port = options.master_port;
  if (!state.master_port && launcher.master_port != 0) state.master_port = launcher.master_port;
  state.transport = options.transport;

  // Node values: explicit, else the launcher's when its world is this one (torchrun's
  // LOCAL_RANK / GROUP_RANK, Open MPI's local rank, ...), else one node.
  const bool launcher_matches =
      launcher.rank == state.rank && launcher.world_size == state.world_size;
  state.node_local_rank =
      options.group_local_rank.value_or(launcher_matches ? launcher.local_rank : state.rank);
  state.node_local_size = options.group_local_size.value_or(
      launcher_matches ? launcher.local_world_size : state.world_size);
  if (state.node_local_size < 1 || state.node_local_rank < 0 ||
      state.node_local_rank >= state.node_local_size) {
    throw SetupError(fmt::format(
        "setup_distributed_process_group: local rank {} is outside a node of {} processes",
        state.node_local_rank, state.node_local_size));
  }
  const auto launcher_node_rank = launcher_matches ? launcher.node_rank : std::nullopt;
  const auto launcher_num_nodes = launcher_matches ? launcher.num_nodes : std::nullopt;
  state.node_rank =
      options.group_rank.value_or(launcher_node_rank.value_or(state.rank / state.node_local_size));
  state.node_world_size = options.group_world_size.value_or(
      launcher_num_nodes.value_or(state.world_size / state.node_local_size));
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

  state.launch = process_group_launch(options, launcher, state);
  state.hsdp = options.hsdp;
  state.federated = options.federated.empty()
                        ? federated_from_launch(launcher, state.node_local_size)
                        : options.federated;
  plan_topology(state.world_size, state.hsdp, state.federated);  // throws TopologyError
  const DeviceSetup devices = setup_devices(state);
  state.current_device = devices.current_device;
  state.init_device = devices.init_device;
  state.meta_initialization = devices.meta_initialization;
  return state;
}

void init_distributed_process_group(DistributedState& state) {
  const auto backend = transport::parse_backend(state.backend);
  if (!backend) {
    throw SetupError(fmt::format("init_distributed_process_group: unknown backend '{}' ({})",
                                 state.backend, transport::backend_choices()));
  }
  init_dist(*backend, state.launch, state.transport);
  state.rank = default_transport().rank();
  state.world_size = default_transport().world_size();
}

DistributedState setup_distributed_process_group(const SetupOptions& options) {
  return setup_distributed_process_group(options, setup_launch_env());
}

DistributedState setup_distributed_process_group(const SetupOptions& options,
                                                 const launch::LaunchEnv& launch) {
  DistributedState state = resolve_distributed_setup(options, launch);
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

}  // namespace gfn::compat
