#include "roles/context/distributed_context.h"

#include <spdlog/spdlog.h>

#include "runtime/launch/hostname.h"
#include "runtime/launch/rendezvous.h"
#include "transport/factory.h"
#include "transport/gather.h"

namespace gfn::roles {

RankLayout plan_from_config(const roles::ExperimentConfig& config, int world_size,
                            const std::vector<std::string>& hostnames) {
  LayoutRequest request;
  request.world_size = world_size;
  request.num_buffers = config.layout.num_buffers;
  request.num_agent_groups = config.layout.num_agent_groups;
  request.coordinator = config.layout.coordinator;
  request.placement = config.layout.placement;
  request.hostnames = hostnames;
  // Before the hostnames are gathered (no communication yet), "hostname" placement
  // can only be checked for its counts: plan arithmetically for that check.
  if (hostnames.empty() && request.placement == roles::Placement::kHostname && world_size > 1) {
    request.placement = roles::Placement::kArithmetic;
  }
  return plan_layout(request);
}

bool plan_uses_hostnames(const roles::ExperimentConfig& config, int world_size) {
  return world_size > 1 && config.layout.num_buffers > 0 &&
         config.layout.placement != roles::Placement::kArithmetic;
}

DistributedContext::DistributedContext(const roles::ExperimentConfig& config,
                                       const launch::LaunchEnv& launch)
    : rank_(launch.rank),
      world_size_(launch.world_size),
      layout_(plan_from_config(config, world_size_)) {
  transport::TransportOptions options;
  options.max_message_bytes = config.transport.max_message_bytes;
  options.timeout = transport::Seconds(config.transport.timeout_s);
  options.rendezvous_timeout = transport::Seconds(config.transport.rendezvous_timeout_s);
  options.interface = config.transport.interface;
  options.job_token = launch.job_token;
  // The transport checks the launch values it is given against the world it forms;
  // without a launcher (a world of one) it is given none, hence the check below.
  transport_ = transport::make_transport(config.transport.backend, options,
                                         launch::transport_rendezvous(launch));
  if (transport_->world_size() != world_size_ || transport_->rank() != rank_) {
    throw transport::TransportError(
        "launch environment says rank " + std::to_string(rank_) + " of " +
        std::to_string(world_size_) + ", the " + transport_->backend() + " transport says rank " +
        std::to_string(transport_->rank()) + " of " + std::to_string(transport_->world_size()));
  }

  if (plan_uses_hostnames(config, world_size_)) {
    const std::string mine = launch::local_hostname();
    const auto all =
        transport::all_gather_bytes(world(), transport::Bytes(mine.begin(), mine.end()));
    std::vector<std::string> hostnames;
    for (const auto& b : all) hostnames.emplace_back(b.begin(), b.end());
    layout_ = plan_from_config(config, world_size_, hostnames);
  }

  // Group creation is collective over WORLD: every rank creates every group, in order.
  trainer_group_ = transport_->new_group(layout_.trainer_ranks());
  for (const auto& members : layout_.agent_groups()) {
    agent_groups_.push_back(transport_->new_group(members));
  }
}

DistributedContext::~DistributedContext() {
  try {
    cleanup();
  } catch (const std::exception& e) {
    spdlog::error("distributed context cleanup failed: {}", e.what());
  }
}

void DistributedContext::cleanup() {
  agent_groups_.clear();
  trainer_group_.reset();
  transport_.reset();
}

}  // namespace gfn::roles
