#include "roles/context/initialize.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

#include "runtime/launch/launch_env.h"
#include "transport/backend.h"

namespace gfn::roles {

std::unique_ptr<DistributedContext> initialize_distributed_compute(
    const std::string& backend, int num_remote_buffers, int num_agent_groups, bool use_coordinator,
    const transport::TransportOptions& options) {
  const auto known = transport::parse_backend_or_gloo(backend);
  if (!known) {
    throw std::invalid_argument("initialize_distributed_compute: unknown backend '" + backend +
                                "' (available: " + transport::backend_choices() +
                                "; gloo is the torch backend)");
  }
  const launch::LaunchEnv env = launch::detect_launch_env();
  roles::ExperimentConfig config;
  if (env.world_size > 1) {
    config.layout.num_buffers = num_remote_buffers;
    config.layout.num_agent_groups = num_agent_groups;
    config.layout.coordinator = use_coordinator;
  } else {
    // The seed's single-process mode: one trainer, no buffer, no coordinator.
    spdlog::info("initialize_distributed_compute: world of one, running as a single trainer");
  }
  config.layout.placement = roles::Placement::kArithmetic;
  config.transport.backend = *known;
  config.transport.max_message_bytes = options.max_message_bytes;
  config.transport.timeout_s = options.timeout.count();
  config.transport.rendezvous_timeout_s = options.rendezvous_timeout.count();
  return std::make_unique<DistributedContext>(config, env);
}

std::unique_ptr<DistributedContext> initialize_distributed_compute_mpi(
    int num_remote_buffers, int num_agent_groups, int num_coordinators,
    const transport::TransportOptions& options) {
  if (num_coordinators != 0 && num_coordinators != 1) {
    throw std::invalid_argument("initialize_distributed_compute_mpi: num_coordinators is " +
                                std::to_string(num_coordinators) + ", must be 0 or 1");
  }
  return initialize_distributed_compute(transport::backend_name(transport::Backend::kMpi),
                                        num_remote_buffers, num_agent_groups, num_coordinators == 1,
                                        options);
}

}  // namespace gfn::roles
