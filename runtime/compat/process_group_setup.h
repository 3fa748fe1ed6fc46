#pragma once
// xffl.distributed (seed 001): setup_distributed_process_group,
// init_distributed_process_group, cleanup_distributed_process_group and the device
// helpers (_get_current_device, _get_init_device, _setup_devices), on the process-wide
// default process group of runtime/compat/process_group.h (either backend).
//
// Devices: gfn-runtime trains on the CPU; the API keeps xffl's device argument and fields
// (c10::Device) so that callers are written for a device, and refuses anything but CPU.

#include <c10/core/Device.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/compat/sharding_topology.h"
#include "runtime/launch/launch_env.h"
#include "transport/transport.h"

namespace gfn::compat {

/// Arguments of setup_distributed_process_group. Every unset value falls back to the
/// resolved launch values (runtime/launch/launch_env.h LaunchEnv, from the variables in
/// brackets; this file reads no environment variable), then to the defaults noted.
struct SetupOptions {
  std::optional<int> rank;        ///< global rank [RANK, or mpirun's, Slurm's, ...]
  std::optional<int> world_size;  ///< number of processes [WORLD_SIZE], else the launcher
  /// Rank among the processes of this node: the launcher's local rank [LOCAL_RANK,
  /// OMPI_COMM_WORLD_LOCAL_RANK, ...] when the launcher's world is this one, else one node
  /// (= rank).
  std::optional<int> group_local_rank;
  /// Processes on this node [LOCAL_WORLD_SIZE], else the launcher's, else world_size.
  std::optional<int> group_local_size;
  /// Index of this node [GROUP_RANK, when the launcher's world is this one], else
  /// rank / group_local_size.
  std::optional<int> group_rank;
  /// Number of nodes [GROUP_WORLD_SIZE, as GROUP_RANK], else world_size / group_local_size.
  std::optional<int> group_world_size;
  /// "mpi", "torch", or "gloo" (= "torch": LibTorch c10d Gloo). Default "torch" (xffl's
  /// CPU default, gloo). "nccl" and anything else are refused (SetupError).
  std::optional<std::string> backend;
  /// TCPStore rendezvous of the torch backend [MASTER_ADDR / MASTER_PORT]. Needed when
  /// the processes were not started by an MPI launcher; under mpirun the torch world is
  /// bootstrapped over MPI when neither is known.
  std::optional<std::string> master_addr;
  std::optional<int> master_port;
  /// Computation device; default CPU. Anything but CPU: SetupError.
  std::optional<c10::Device> device;
  /// HSDP replica size (ranks per model replica); unset: FULL_SHARD.
  std::optional<int> hsdp;
  /// Federated scaling: one size k (world_size / k federations of k ranks) or the size of
  /// every federation [XFFL_FEDERATED_LOCAL_WORLD_SIZE: comma-separated node counts,
  /// multiplied by group_local_size]. Empty: not federated.
  std::vector<int> federated;
  /// Number of CUDA streams in xffl; must be unset or >= 1, unused on the CPU.
  std::optional<int> streams;
  /// Transport message-size cap and default timeout (seconds).
  transport::TransportOptions transport;
};

/// xffl DistributedState: the resolved setup and the groups of this rank.
/// Move-only (owns the groups). Valid until cleanup_distributed_process_group.
struct DistributedState {
  // Global.
  std::string backend;                     ///< "mpi" or "torch"
  std::optional<std::string> master_addr;  ///< unset when bootstrapped over MPI
  std::optional<int> master_port;
  transport::TransportOptions transport;  ///< message-size cap and timeout of init_dist
  int rank = 0;
  int world_size = 1;
  // Node ("group" in xffl's argument names).
  int node_local_rank = 0;
  int node_local_size = 1;
  int node_rank = 0;
  int node_world_size = 1;
  // Devices (xffl _setup_devices): always CPU here.
  c10::Device device_type = c10::Device(c10::kCPU);
  c10::Device current_device = c10::Device(c10::kCPU);
  c10::Device init_device = c10::Device(c10::kCPU);
  bool meta_initialization = false;
  // Topology requested (validated by resolve_distributed_setup).
  std::optional<int> hsdp;     ///< HSDP replica size, if any
  std::vector<int> federated;  ///< xffl `federated` as given (see expand_federated_sizes)
  /// The launch values the process group is built from, resolved once by
  /// resolve_distributed_setup: rank, world size, node-local rank / size and master
  /// address / port as above, with the launcher's MPI flag and each value's origin
  /// (explicit values are named by their SetupOptions fields: "rank=1"). Handed to
  /// init_dist, which reads no environment variable.
  launch::LaunchEnv launch;
  /// Layout and groups (hsdp / federated); null before init_distributed_process_group.
  std::unique_ptr<ShardingTopology> topology;

  bool is_hsdp_setup() const { return topology && topology->is_hsdp(); }
  bool is_federated_scaling_setup() const { return topology && topology->is_federated(); }
};

/// Resolves every value (explicit, then the launch values `launch`, then defaults, as in
/// SetupOptions) and checks it, without any communication. The returned state has no
/// topology yet. Errors: SetupError (unknown backend, non-CPU device, streams < 1, node
/// values inconsistent as in xffl set_node: local rank outside 0..local size-1, world
/// size not local size x node world size, node rank outside 0..node world size-1; master
/// port outside 1..65535; an empty master address counts as unset);
/// TopologyError (invalid hsdp / federated). Pure: reads no environment variable.
DistributedState resolve_distributed_setup(const SetupOptions& options,
                                           const launch::LaunchEnv& launch);
/// As above with setup_launch_env().
DistributedState resolve_distributed_setup(const SetupOptions& options);

/// launch::detect_launch_env() (the launcher's variables, read in runtime/launch), its
/// LaunchError (a non-integer or inconsistent value, naming the variable) rethrown as
/// SetupError.
launch::LaunchEnv setup_launch_env();

/// xffl init_distributed_process_group: initializes the default process group
/// (gfn::compat::init_dist) from the state's backend and resolved launch values
/// (state.launch; no environment variable is read again), then stores the actual rank /
/// world size. Collective and blocking over all processes.
/// Errors: DistInitError (already initialized), transport::TransportError (rendezvous
/// failed; MASTER_ADDR / MASTER_PORT missing where a TCPStore rendezvous needs them:
/// explicit or RANK / WORLD_SIZE of a world > 1 not started by an MPI launcher).
void init_distributed_process_group(DistributedState& state);

/// xffl setup_distributed_process_group: resolve_distributed_setup, then
/// init_distributed_process_group, then the hsdp / federated groups (ShardingTopology
/// on the default transport). To be called by every process, after they were started.
/// Blocking and collective. Errors: those of the three steps; on an error after the
/// process group was initialized, it is shut down again before the error propagates.
DistributedState setup_distributed_process_group(const SetupOptions& options = {});
/// As above from launch values the caller resolved (launch::detect_launch_env).
DistributedState setup_distributed_process_group(const SetupOptions& options,
                                                 const launch::LaunchEnv& launch);

/// xffl cleanup_distributed_process_group: runs `release` callbacks (xffl del_obj: drop
/// objects that hold groups), waits at a WORLD barrier, destroys the state's groups and
/// shuts the default process group down (shutdown_dist). A no-op on the process group
/// when it is not active. Blocking and collective: every process calls it.
void cleanup_distributed_process_group(DistributedState& state,
                                       const std::vector<std::function<void()>>& release = {});

/// Devices of a process (xffl _setup_devices).
struct DeviceSetup {
  c10::Device current_device = c10::Device(c10::kCPU);  ///< computation device
  c10::Device init_device = c10::Device(c10::kCPU);     ///< where the model is first built
  bool meta_initialization = false;  ///< xffl builds on "meta" on some GPU ranks; never here
};

/// xffl _get_current_device: the state's device type (CPU). Throws SetupError otherwise.
c10::Device get_current_device(const DistributedState& state);
/// xffl _get_init_device: (CPU, false); meta initialization is a multi-GPU feature.
DeviceSetup get_init_device(const DistributedState& state);
/// xffl _setup_devices: computation device, initialization device, meta flag.
DeviceSetup setup_devices(const DistributedState& state);

}  // namespace gfn::compat
