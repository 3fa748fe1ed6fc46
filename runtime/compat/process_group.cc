#include "runtime/compat/process_group.h"

#include <mpi.h>

#include <memory>
#include <string>

#include "runtime/launch/launch_env.h"
#include "runtime/launch/rendezvous.h"
#include "transport/backend.h"
#include "transport/factory.h"

namespace gfn::compat {
namespace {

struct State {
  std::unique_ptr<transport::Transport> transport;
  DistributedInfo info;
};

State& state() {
  static State s;
  return s;
}

// Rank and world size of the transport; local values from the resolved launch values
// when their world is the transport's, else all ranks are assumed to be on one node.
DistributedInfo info_of(const transport::Transport& t, const launch::LaunchEnv& env) {
  DistributedInfo info;
  info.rank = t.rank();
  info.world_size = t.world_size();
  info.local_rank = info.rank;
  info.local_world_size = info.world_size;
  if (env.rank == info.rank && env.world_size == info.world_size) {
    info.local_rank = env.local_rank;
    info.local_world_size = env.local_world_size;
  }
  return info;
}

// The explicit values of init_dist as explicit launch values (an empty address is unset).
launch::ExplicitLaunch explicit_values(const InitOptions& o) {
  launch::ExplicitLaunch x;
  x.rank = o.rank;
  x.world_size = o.world_size;
  x.local_rank = o.local_rank;
  x.local_world_size = o.local_world_size;
  if (o.master_addr && !o.master_addr->empty()) x.master_addr = o.master_addr;
  x.master_port = o.master_port;
  return x;
}

std::string not_initialized(const char* caller) {
  return std::string(caller) + ": called before gfn::compat::init_dist";
}

// DistInitError unless a process group can be initialized now.
void require_can_initialize() {
  if (state().transport) {
    throw DistInitError("init_dist: already initialized (backend '" + state().transport->backend() +
                        "'); call shutdown_dist first");
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) {
    throw DistInitError(
        "init_dist: MPI was finalized by an earlier shutdown_dist in this process and can be "
        "initialized only once per process (MPI standard); keep one init_dist / shutdown_dist "
        "per process, or use backend 'torch' with MASTER_ADDR / MASTER_PORT");
  }
}

}  // namespace

void init_dist(const InitOptions& options) {
  if (options.rank.has_value() != options.world_size.has_value()) {
    throw std::invalid_argument(
        std::string("init_dist: ") +
        (options.rank ? "rank given without world_size" : "world_size given without rank") +
        " (give both rank and world_size, or neither to take them from the launcher)");
  }
  const auto backend = transport::parse_backend(options.backend);
  if (!backend) {
    throw std::invalid_argument("init_dist: unknown backend '" + options.backend +
                                "' (available: " + transport::backend_choices() + ")");
  }
  require_can_initialize();
  // The rendezvous, resolved once: explicit values first, then the launcher's variables.
  init_dist(*backend, launch::detect_launch_env(explicit_values(options)), options.transport);
}

void init_dist(transport::Backend backend, const launch::LaunchEnv& launch,
               const transport::TransportOptions& options) {
  require_can_initialize();
  auto t = transport::make_transport(backend, options, launch::transport_rendezvous(launch));
  state().info = info_of(*t, launch);
  state().transport = std::move(t);
}

void shutdown_dist() {
  state().transport.reset();
  state().info = DistributedInfo{};
}

bool is_dist_active() { return state().transport != nullptr; }

bool is_using_torchrun() { return launch::torchrun_environment(); }

void require_dist(const char* caller) {
  if (!state().transport) throw NotInitializedError(not_initialized(caller));
}

transport::Transport& default_transport() {
  require_dist("default_transport");
  return *state().transport;
}

transport::Group& world_group() {
  require_dist("world_group");
  return state().transport->world();
}

transport::Group& group_or_world(transport::Group* group, const char* caller) {
  if (group != nullptr) return *group;
  require_dist(caller);
  return state().transport->world();
}

DistributedInfo get_dist_info() { return state().info; }
int get_local_rank() { return state().info.local_rank; }
int get_global_rank() { return state().info.rank; }
int get_local_world_size() { return state().info.local_world_size; }
int get_world_size() { return state().info.world_size; }

void safe_barrier() {
  if (state().transport) state().transport->world().barrier();
}

}  // namespace gfn::compat
