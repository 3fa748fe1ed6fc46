// Coordinator: one handler per message type it takes on tag kControl
// (roles/coordinator/coordinator.h). serve_one() (coordinator.cc) routes each message here.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "roles/coordinator/coordinator.h"
#include "roles/coordinator/coordinator_state.h"
#include "roles/protocol/codec.h"
#include "roles/protocol/messages.h"
#include "runtime/checkpoint/store.h"

namespace gfn::roles {
namespace {

float aggregate(const std::map<int, float>& values, roles::BaselineAggregate how) {
  using roles::BaselineAggregate;
  float out = values.begin()->second;
  double sum = 0;
  for (const auto& [rank, v] : values) {
    sum += v;
    if (how == BaselineAggregate::kMin) out = std::min(out, v);
    if (how == BaselineAggregate::kMax) out = std::max(out, v);
  }
  if (how == BaselineAggregate::kMean) out = static_cast<float>(sum / values.size());
  return out;
}

}  // namespace

void Coordinator::on_get_population_stats(int src, const transport::MessageView& message) {
  (void)protocol::decode<protocol::PopulationStatsRequest>(message);
  protocol::PopulationStats stats;
  stats.modes_found = modes_found();
  stats.mode_reports = result_.mode_reports;
  stats.managers_running = static_cast<std::int32_t>(running_.size());
  stats.has_baseline = result_.has_global_baseline;
  stats.global_baseline = result_.global_baseline;
  for (const auto& [rank, n] : result_.modes_by_manager) {
    stats.manager_ranks.push_back(rank);
    stats.modes_by_manager.push_back(n);
  }
  ++result_.population_queries;
  send(src, stats);
}

void Coordinator::on_mode_report(int src, const transport::MessageView& message) {
  const auto report = protocol::decode<protocol::ModeReport>(message);
  const auto n = report.trainer_ranks.size();
  if (report.ndim < 1 || report.states.size() != n * report.ndim) {
    throw transport::MessageError("MODE_REPORT with inconsistent sizes");
  }
  ++result_.mode_reports;
  const double t = std::chrono::duration<double>(Clock::now() - started_).count();
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::int64_t> s(report.states.begin() + i * report.ndim,
                                report.states.begin() + (i + 1) * report.ndim);
    if (modes_.insert(std::move(s)).second) {
      ++result_.modes_by_manager[src];
      ++result_.modes_by_trainer[report.trainer_ranks[i]];
      result_.discoveries.push_back({t, src, report.trainer_ranks[i]});
    }
  }
}

void Coordinator::on_baseline_report(int src, const transport::MessageView& message) {
  const auto report = protocol::decode<protocol::BaselineReport>(message);
  ++result_.baseline_reports;
  result_.manager_baselines[src] = report.baseline;
  const float global = aggregate(result_.manager_baselines, options_.baseline_aggregate);
  result_.has_global_baseline = true;
  result_.global_baseline = global;
  const bool moved = !last_synced_ || std::abs(static_cast<double>(global) - *last_synced_) >
                                          options_.baseline_tolerance;
  if (!moved) return;
  last_synced_ = global;
  if (!options_.sync_baselines) return;
  for (int m : running_) {
    send(m, protocol::BaselineSync{global});
    ++result_.baseline_syncs_sent;
    ++syncs_to_[m];
  }
}

void Coordinator::on_manager_alive(int, const transport::MessageView& message) {
  (void)protocol::decode<protocol::ManagerAlive>(message);
  ++result_.alive_messages;
}

void Coordinator::on_manager_checkpoint(int src, const transport::MessageView& message) {
  const auto request = protocol::decode<protocol::ManagerCheckpoint>(message);
  if (options_.checkpoint_root.empty()) {
    throw transport::MessageError(
        fmt::format("MANAGER_CHECKPOINT after iteration {}: the coordinator rank {} has no "
                    "checkpoint directory",
                    request.iteration, me_));
  }
  if (!checkpoint_requests_.empty() && checkpoint_requests_.begin()->second != request.iteration) {
    throw transport::MessageError(
        fmt::format("MANAGER_CHECKPOINT after iteration {} from buffer manager rank {}, while "
                    "rank {} asked for one after iteration {}",
                    request.iteration, src, checkpoint_requests_.begin()->first,
                    checkpoint_requests_.begin()->second));
  }
  checkpoint_requests_[src] = request.iteration;
  if (!std::all_of(running_.begin(), running_.end(),
                   [&](int m) { return checkpoint_requests_.count(m) > 0; })) {
    return;
  }
  // Every manager waits for the answer: nothing of theirs is in flight.
  result_.modes_found = modes_found();
  const checkpoint::CheckpointStore store(options_.checkpoint_root, /*keep=*/1);
  const auto entry = store.write_rank_file(
      request.iteration, me_, encode_coordinator_state({modes_, result_, last_synced_, syncs_to_}));
  for (const auto& [m, at] : checkpoint_requests_) {
    send(m, protocol::CoordinatorCheckpointDone{at, entry.bytes, entry.crc32, syncs_to_[m]});
  }
  checkpoint_requests_.clear();
  spdlog::info("coordinator rank {}: checkpoint after iteration {} ({} bytes)", me_,
               request.iteration, entry.bytes);
}

void Coordinator::on_manager_exit(int src, const transport::MessageView& message) {
  (void)protocol::decode<protocol::ManagerExit>(message);
  if (running_.erase(src)) send(src, protocol::ManagerExitAck{});
}

}  // namespace gfn::roles
