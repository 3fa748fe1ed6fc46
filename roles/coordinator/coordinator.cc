// Coordinator: construction, the receive loop and its dispatch, refusals, the end
// (roles/coordinator/coordinator.h); the handlers are in handlers.cc.
#include "roles/coordinator/coordinator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>

#include "roles/coordinator/coordinator_state.h"
#include "roles/protocol/codec.h"
#include "roles/protocol/messages.h"
#include "roles/protocol/replies.h"
#include "runtime/checkpoint/store.h"

namespace gfn::roles {
namespace {

using protocol::MessageType;
using protocol::Role;

}  // namespace

std::string CoordinatorResult::summary() const {
  std::string out = fmt::format(
      "{} modes found over {} MODE_REPORTs; global baseline {}\n", modes_found, mode_reports,
      has_global_baseline ? fmt::format("{:.4f}", global_baseline) : std::string("(none)"));
  std::map<int, std::vector<std::string>> timeline;
  std::map<int, std::int64_t> cumulative;
  for (const auto& d : discoveries) {
    timeline[d.manager].push_back(fmt::format("{:.2f}s:{}", d.t_s, ++cumulative[d.manager]));
  }
  for (const auto& [manager, n] : modes_by_manager) {
    auto& points = timeline[manager];
    // Keep the line short: the first 8 and the last 4 points.
    if (points.size() > 12) {
      points.erase(points.begin() + 8, points.end() - 4);
      points.insert(points.begin() + 8, "...");
    }
    const auto b = manager_baselines.find(manager);
    out += fmt::format(
        "  manager {}: {} modes, baseline {}; modes over time (t:cumulative) {}\n", manager, n,
        b == manager_baselines.end() ? std::string("(none)") : fmt::format("{:.4f}", b->second),
        fmt::join(points, " "));
  }
  for (const auto& [trainer, n] : modes_by_trainer) {
    out += fmt::format("  trainer {}: {} first discoveries\n", trainer, n);
  }
  return out;
}

const CoordinatorOptions& Coordinator::checked(const CoordinatorOptions& options) {
  if (!(options.baseline_tolerance >= 0)) {
    throw std::invalid_argument("coordinator baseline_tolerance must be >= 0, got " +
                                std::to_string(options.baseline_tolerance));
  }
  return options;
}

Coordinator::Coordinator(transport::Transport& transport, const std::vector<int>& managers,
                         const CoordinatorOptions& options, const std::string* state)
    : transport_(transport),
      options_(checked(options)),
      me_(transport.rank()),
      cap_(transport.options().max_message_bytes),
      idle_(
          std::chrono::duration_cast<Clock::duration>(transport::Seconds(options.idle_timeout_s))),
      started_(Clock::now()),
      known_(managers.begin(), managers.end()),
      running_(known_) {
  if (state) {
    auto restored = decode_coordinator_state(*state, me_);
    modes_ = std::move(restored.modes);
    result_ = std::move(restored.result);
    last_synced_ = restored.last_synced;
    syncs_to_ = std::move(restored.syncs_to);
  }
  for (int m : managers) last_heard_[m] = Clock::now();
}

CoordinatorResult Coordinator::run() {
  while (serving()) serve_one();
  return finish();
}

std::optional<transport::Received> Coordinator::receive() {
  // Each running manager must be heard from within idle_timeout_s (a serving manager sends
  // MANAGER_ALIVE every quarter of it): wait until the earliest deadline.
  auto oldest = Clock::time_point::max();
  for (int m : running_) oldest = std::min(oldest, last_heard_[m]);
  try {
    return transport_.recv(
        transport::kAnySource, protocol::tags::kControl,
        std::max(transport::Seconds(oldest + idle_ - Clock::now()), transport::Seconds(0)));
  } catch (const transport::TimeoutError&) {
    std::vector<int> silent;
    for (int m : running_) {
      if (Clock::now() - last_heard_[m] >= idle_) silent.push_back(m);
    }
    if (silent.empty()) return std::nullopt;
    throw transport::TimeoutError(fmt::format(
        "coordinator rank {}: no message for {:g} s on tag {} from buffer manager rank(s) {} "
        "(a serving manager sends MANAGER_ALIVE every {:g} s) while waiting for MANAGER_EXIT "
        "from buffer manager rank(s) {}",
        me_, options_.idle_timeout_s, protocol::tags::kControl, fmt::join(silent, ", "),
        options_.idle_timeout_s / 4, fmt::join(running_, ", ")));
  }
}

void Coordinator::serve_one() {
  const auto in = receive();
  if (!in) return;
  if (last_heard_.count(in->src)) last_heard_[in->src] = Clock::now();
  std::uint16_t type = 0;
  try {
    const auto message = protocol::decode_message_view(in->bytes, cap_);
    type = static_cast<std::uint16_t>(message.type);
    dispatch(in->src, message);
  } catch (const transport::MessageError& e) {
    refuse(in->src, type, e.what());
  }
}

void Coordinator::dispatch(int src, const transport::MessageView& message) {
  const auto type = protocol::message_type(message.type);
  if (type == MessageType::kGetPopulationStats) return on_get_population_stats(src, message);
  if (!from_manager(src)) {
    throw transport::MessageError(fmt::format("{} from rank {}, which is not a buffer manager",
                                              protocol::name(message.type), src));
  }
  switch (type) {
    case MessageType::kModeReport:
      return on_mode_report(src, message);
    case MessageType::kBaselineReport:
      return on_baseline_report(src, message);
    case MessageType::kManagerAlive:
      return on_manager_alive(src, message);
    case MessageType::kManagerCheckpoint:
      return on_manager_checkpoint(src, message);
    case MessageType::kManagerExit:
      return on_manager_exit(src, message);
    default:
      throw transport::MessageError(fmt::format(
          "unexpected {} message on the control tag (the coordinator takes {} from a "
          "buffer manager there)",
          protocol::name(message.type),
          protocol::names_on(protocol::tags::kControl, Role::kManager, Role::kCoordinator)));
  }
}

void Coordinator::refuse(int src, std::uint16_t type, const std::string& why) {
  ++result_.rejected_messages;
  spdlog::warn("coordinator rank {}: refused a message from rank {}: {}", me_, src, why);
  // On the table's error tag: managers wait on kData, trainers (population stats) on
  // kPopulation. A manager that already exited is not answered (it no longer receives).
  const bool manager = from_manager(src);
  const int tag =
      protocol::error_tag(type, Role::kCoordinator, manager ? Role::kManager : Role::kTrainer);
  if (tag >= 0 && (!manager || running_.count(src))) {
    keep(transport_.isend(protocol::encode_error(me_, type, protocol::tags::kControl, why), src,
                          tag));
  }
}

void Coordinator::keep(transport::SendHandle handle) {
  pending_.push_back(std::move(handle));
  pending_.remove_if([](transport::SendHandle& h) { return h.is_complete(); });
}

CoordinatorResult Coordinator::finish() {
  result_.modes_found = modes_found();
  for (auto& h : pending_) h.wait(transport::Seconds(options_.idle_timeout_s));
  return result_;
}

CoordinatorResult run_coordinator(transport::Transport& transport, const std::vector<int>& managers,
                                  const CoordinatorOptions& options, const std::string* state) {
  return Coordinator(transport, managers, options, state).run();
}

}  // namespace gfn::roles

namespace gfn::roles {

CoordinatorOptions coordinator_options(const roles::ExperimentConfig& config) {
  CoordinatorOptions options;
  options.idle_timeout_s = config.transport.timeout_s;
  options.baseline_aggregate = config.buffer.baseline_aggregate;
  options.sync_baselines = config.buffer.baseline_sync;
  options.baseline_tolerance = config.buffer.baseline_tolerance;
  options.checkpoint_root = checkpoint::checkpoints_root(config.output.dir);
  return options;
}

}  // namespace gfn::roles
