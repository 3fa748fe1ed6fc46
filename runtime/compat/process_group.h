#pragma once
// The process-wide default process group (docs/seeds.md "Seed libraries → C++"), with the semantics
// of helios.core.distributed: init_dist / shutdown_dist / is_dist_active, is_using_torchrun,
// DistributedInfo and the rank / world-size getters, safe_barrier.
//
// One Transport per process, created by init_dist over either backend ("mpi" Open MPI,
// "torch" LibTorch c10d Gloo) and owned here until shutdown_dist. Every helper of
// runtime/compat/ that takes no explicit group uses world_group().
//
// MPI can be initialized only once per process (MPI standard). When the world was
// built over MPI (backend "mpi", or "torch" bootstrapped over mpirun without
// MASTER_ADDR / MASTER_PORT) and MPI was initialized by init_dist, shutdown_dist
// finalizes MPI and a later init_dist in the same process throws DistInitError saying
// so. A "torch" world with a TCPStore rendezvous (RANK / WORLD_SIZE / MASTER_ADDR /
// MASTER_PORT, explicit or from the environment) can be shut down and re-initialized.
//
// Thread-safety: init_dist / shutdown_dist must not race with each other or with any
// use of default_transport() / world_group(); the getters are safe to call from any
// thread while the state does not change. Collectives on world_group() follow the
// transport rules (one thread per group at a time).

#include <optional>
#include <stdexcept>
#include <string>

#include "runtime/launch/launch_env.h"
#include "transport/backend.h"
#include "transport/transport.h"

namespace gfn::compat {

/// A helper that needs the default process group was called before init_dist (or after
/// shutdown_dist). The message names the helper: "<caller>: called before
/// gfn::compat::init_dist".
class NotInitializedError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// init_dist was called in a state that cannot be initialized: already initialized, or
/// MPI already finalized by an earlier shutdown_dist. (Argument errors are
/// std::invalid_argument; rendezvous / backend failures are transport::TransportError.)
class DistInitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Arguments of init_dist (helios init_dist(backend, rank, world_size), plus the
/// rendezvous of the torch backend and the transport options).
struct InitOptions {
  /// "mpi" (Open MPI) or "torch" (c10d Gloo): a name of transport/backend.h. helios
  /// defaults to "nccl"; CPU-only here.
  std::string backend = "mpi";
  /// Explicit global rank and world size: both or neither (helios rule). When neither
  /// is given they come from the launcher (mpirun, or torchrun's RANK / WORLD_SIZE).
  std::optional<int> rank, world_size;
  /// Explicit local rank / local world size (rank and processes on this node); unset:
  /// the launcher's, or the global values (one node) when rank and world size are explicit.
  std::optional<int> local_rank, local_world_size;
  /// TCPStore host / port of the torch backend; unset: MASTER_ADDR / MASTER_PORT, and
  /// when neither is known under mpirun the torch world is bootstrapped over MPI.
  std::optional<std::string> master_addr;
  std::optional<int> master_port;
  /// Message-size cap and default timeout (seconds) of the transport.
  transport::TransportOptions transport;
};

/// Initializes the default process group (helios init_dist). Collective: every rank of
/// the job calls it. Blocks until all ranks have joined (at most
/// options.transport.timeout for the torch rendezvous).
/// The rendezvous is resolved once (runtime/launch detect_launch_env: the explicit values
/// above, then the launcher's variables) and handed to transport::make_transport; the
/// same values give get_dist_info's local rank and local world size.
/// Errors (checked before any communication, in this order):
///  - std::invalid_argument: exactly one of rank / world_size given (the message names
///    which one is missing), or an unknown backend (the message lists mpi, torch);
///  - DistInitError: already initialized (call shutdown_dist first), or MPI was
///    finalized by an earlier shutdown_dist of an MPI-based world in this process;
///  - launch::LaunchError: inconsistent launcher variables or explicit values (rank
///    outside the world, a port outside 1..65535, ...; runtime/launch/launch_env.h);
///  - transport::TransportError: rendezvous failed, explicit values contradict the
///    launcher's world, missing MASTER_ADDR / MASTER_PORT where a TCPStore is needed.
/// On error nothing is initialized.
void init_dist(const InitOptions& options = {});

/// Initializes the default process group from launch values resolved once by the caller
/// (runtime/launch detect_launch_env, or DistributedState::launch of
/// process_group_setup.h): reads no environment variable. The transport's rendezvous is
/// launch::transport_rendezvous(launch), `options` its message-size cap and timeout;
/// get_dist_info's local rank and local world size
/// are launch's when its world is the transport's. Collective and blocking as above.
/// Errors: DistInitError (already initialized, MPI finalized), transport::TransportError
/// (rendezvous failed, launch values contradict the world the backend formed, no
/// master address / port where a TCPStore is needed). On error nothing is initialized.
void init_dist(transport::Backend backend, const launch::LaunchEnv& launch,
               const transport::TransportOptions& options = {});

/// Destroys the default process group (helios shutdown_dist): groups and transport are
/// released; MPI is finalized if init_dist initialized it (see the file comment).
/// Not collective by itself, but call it on every rank after the last collective.
/// A no-op when not initialized.
void shutdown_dist();

/// True between a successful init_dist and shutdown_dist (helios is_dist_active).
bool is_dist_active();

/// True when torchrun's environment variables are set (helios is_using_torchrun): all
/// of RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, ROLE_RANK,
/// ROLE_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RESTART_COUNT,
/// TORCHELASTIC_MAX_RESTARTS, TORCHELASTIC_RUN_ID (the list in torchrun's docs;
/// runtime/launch torchrun_environment).
bool is_using_torchrun();

/// The default transport (point-to-point messaging, group creation).
/// Throws NotInitializedError("default_transport: called before gfn::compat::init_dist").
transport::Transport& default_transport();

/// The default process group WORLD (all ranks).
/// Throws NotInitializedError("world_group: called before gfn::compat::init_dist").
transport::Group& world_group();

/// `group` if given, else world_group(); `caller` names the helper in the
/// NotInitializedError thrown when `group` is null and nothing is initialized.
transport::Group& group_or_world(transport::Group* group, const char* caller);

/// Throws NotInitializedError("<caller>: called before gfn::compat::init_dist") when the
/// default process group is not active.
void require_dist(const char* caller);

/// helios DistributedInfo. Two nodes with two processes each: local_rank 0/1 on each
/// node, rank 0..3, local_world_size 2, world_size 4.
struct DistributedInfo {
  int local_rank = 0;        ///< rank among the processes of this node
  int rank = 0;              ///< global rank
  int local_world_size = 1;  ///< number of processes on this node
  int world_size = 1;        ///< number of processes in the job
};

/// The distributed state of this process (helios get_dist_info). Without distribution
/// (not initialized): {0, 0, 1, 1}. When active: rank and world size of the default
/// transport; local rank / local world size from the launch values init_dist resolved
/// (runtime/launch detect_launch_env; one node assumed when it gives none). Non-blocking.
DistributedInfo get_dist_info();
/// get_dist_info().local_rank (helios get_local_rank); 0 without distribution.
int get_local_rank();
/// get_dist_info().rank (helios get_global_rank); 0 without distribution.
int get_global_rank();
/// get_dist_info().local_world_size (helios get_local_world_size); 1 without distribution.
int get_local_world_size();
/// get_dist_info().world_size (helios get_world_size); 1 without distribution.
int get_world_size();

/// Barrier over WORLD when active, a no-op otherwise (helios safe_barrier). Blocking.
void safe_barrier();

}  // namespace gfn::compat
