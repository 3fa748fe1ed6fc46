#include "roles/coordinator/coordinator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <list>
#include <map>
#include <optional>
#include <set>
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

CoordinatorResult run_coordinator(transport::Transport& transport, const std::vector<int>& managers,
                                  const CoordinatorOptions& options, const std::string* state) {
  if (!(options.baseline_tolerance >= 0)) {
    throw std::invalid_argument("coordinator baseline_tolerance must be >= 0, got " +
                                std::to_string(options.baseline_tolerance));
  }
  std::optional<float> last_synced;
  CoordinatorResult result;
  const std::set<int> known(managers.begin(), managers.end());
  std::set<int> running = known;
  std::set<std::vector<std::int64_t>> modes;
  std::list<transport::SendHandle> pending;
  std::map<int, std::int64_t> syncs_to;             // BASELINE_SYNCs sent, per manager
  std::map<int, std::int64_t> checkpoint_requests;  // MANAGER_CHECKPOINT not answered yet
  if (state) {
    auto restored = decode_coordinator_state(*state, transport.rank());
    modes = std::move(restored.modes);
    result = std::move(restored.result);
    last_synced = restored.last_synced;
    syncs_to = std::move(restored.syncs_to);
  }
  const auto cap = transport.options().max_message_bytes;
  const int me = transport.rank();
  const auto t0 = std::chrono::steady_clock::now();
  const auto keep = [&](transport::SendHandle handle) {
    pending.push_back(std::move(handle));
    pending.remove_if([](transport::SendHandle& h) { return h.is_complete(); });
  };
  const auto send = [&](int dst, const auto& payload) {
    keep(protocol::isend(transport, dst, payload));
  };

  using Clock = std::chrono::steady_clock;
  const auto idle =
      std::chrono::duration_cast<Clock::duration>(transport::Seconds(options.idle_timeout_s));
  std::map<int, Clock::time_point> last_heard;  // per manager: its last message (or the start)
  for (int m : managers) last_heard[m] = Clock::now();
  while (!running.empty()) {
    // Each running manager must be heard from within idle_timeout_s (a serving manager
    // sends MANAGER_ALIVE every quarter of it): wait until the earliest deadline.
    auto oldest = Clock::time_point::max();
    for (int m : running) oldest = std::min(oldest, last_heard[m]);
    transport::Received in;
    try {
      in = transport.recv(
          transport::kAnySource, protocol::tags::kControl,
          std::max(transport::Seconds(oldest + idle - Clock::now()), transport::Seconds(0)));
    } catch (const transport::TimeoutError&) {
      std::vector<int> silent;
      for (int m : running) {
        if (Clock::now() - last_heard[m] >= idle) silent.push_back(m);
      }
      if (silent.empty()) continue;
      throw transport::TimeoutError(fmt::format(
          "coordinator rank {}: no message for {:g} s on tag {} from buffer manager rank(s) {} "
          "(a serving manager sends MANAGER_ALIVE every {:g} s) while waiting for MANAGER_EXIT "
          "from buffer manager rank(s) {}",
          me, options.idle_timeout_s, protocol::tags::kControl, fmt::join(silent, ", "),
          options.idle_timeout_s / 4, fmt::join(running, ", ")));
    }
    if (last_heard.count(in.src)) last_heard[in.src] = Clock::now();
    const bool from_manager = known.count(in.src) > 0;
    std::uint16_t type = 0;
    try {
      const auto message = protocol::decode_message_view(in.bytes, cap);
      type = static_cast<std::uint16_t>(message.type);
      if (message.type == MessageType::kGetPopulationStats) {
        (void)protocol::decode<protocol::PopulationStatsRequest>(message);
        protocol::PopulationStats stats;
        stats.modes_found = static_cast<std::int64_t>(modes.size());
        stats.mode_reports = result.mode_reports;
        stats.managers_running = static_cast<std::int32_t>(running.size());
        stats.has_baseline = result.has_global_baseline;
        stats.global_baseline = result.global_baseline;
        for (const auto& [rank, n] : result.modes_by_manager) {
          stats.manager_ranks.push_back(rank);
          stats.modes_by_manager.push_back(n);
        }
        ++result.population_queries;
        send(in.src, stats);
        continue;
      }
      if (!from_manager) {
        throw transport::MessageError(fmt::format("{} from rank {}, which is not a buffer manager",
                                                  protocol::name(message.type), in.src));
      }
      switch (protocol::message_type(message.type)) {
        case MessageType::kModeReport: {
          const auto report = protocol::decode<protocol::ModeReport>(message);
          const auto n = report.trainer_ranks.size();
          if (report.ndim < 1 || report.states.size() != n * report.ndim) {
            throw transport::MessageError("MODE_REPORT with inconsistent sizes");
          }
          ++result.mode_reports;
          const double t =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          for (std::size_t i = 0; i < n; ++i) {
            std::vector<std::int64_t> s(report.states.begin() + i * report.ndim,
                                        report.states.begin() + (i + 1) * report.ndim);
            if (modes.insert(std::move(s)).second) {
              ++result.modes_by_manager[in.src];
              ++result.modes_by_trainer[report.trainer_ranks[i]];
              result.discoveries.push_back({t, in.src, report.trainer_ranks[i]});
            }
          }
          break;
        }
        case MessageType::kBaselineReport: {
          const auto report = protocol::decode<protocol::BaselineReport>(message);
          ++result.baseline_reports;
          result.manager_baselines[in.src] = report.baseline;
          const float global = aggregate(result.manager_baselines, options.baseline_aggregate);
          result.has_global_baseline = true;
          result.global_baseline = global;
          const bool moved = !last_synced || std::abs(static_cast<double>(global) - *last_synced) >
                                                 options.baseline_tolerance;
          if (moved) {
            last_synced = global;
            if (options.sync_baselines) {
              for (int m : running) {
                send(m, protocol::BaselineSync{global});
                ++result.baseline_syncs_sent;
                ++syncs_to[m];
              }
            }
          }
          break;
        }
        case MessageType::kManagerAlive:  // liveness only: last_heard is updated above
          (void)protocol::decode<protocol::ManagerAlive>(message);
          ++result.alive_messages;
          break;
        case MessageType::kManagerCheckpoint: {
          const auto request = protocol::decode<protocol::ManagerCheckpoint>(message);
          if (options.checkpoint_root.empty()) {
            throw transport::MessageError(
                fmt::format("MANAGER_CHECKPOINT after iteration {}: the coordinator rank {} has no "
                            "checkpoint directory",
                            request.iteration, me));
          }
          if (!checkpoint_requests.empty() &&
              checkpoint_requests.begin()->second != request.iteration) {
            throw transport::MessageError(fmt::format(
                "MANAGER_CHECKPOINT after iteration {} from buffer manager rank {}, while rank "
                "{} asked for one after iteration {}",
                request.iteration, in.src, checkpoint_requests.begin()->first,
                checkpoint_requests.begin()->second));
          }
          checkpoint_requests[in.src] = request.iteration;
          if (std::all_of(running.begin(), running.end(),
                          [&](int m) { return checkpoint_requests.count(m) > 0; })) {
            // Every manager waits for the answer: nothing of theirs is in flight.
            result.modes_found = static_cast<std::int64_t>(modes.size());
            const checkpoint::CheckpointStore store(options.checkpoint_root, /*keep=*/1);
            const auto entry = store.write_rank_file(
                request.iteration, me,
                encode_coordinator_state({modes, result, last_synced, syncs_to}));
            for (const auto& [m, at] : checkpoint_requests) {
              send(m,
                   protocol::CoordinatorCheckpointDone{at, entry.bytes, entry.crc32, syncs_to[m]});
            }
            checkpoint_requests.clear();
            spdlog::info("coordinator rank {}: checkpoint after iteration {} ({} bytes)", me,
                         request.iteration, entry.bytes);
          }
          break;
        }
        case MessageType::kManagerExit:
          (void)protocol::decode<protocol::ManagerExit>(message);
          if (running.erase(in.src)) send(in.src, protocol::ManagerExitAck{});
          break;
        default:
          throw transport::MessageError(fmt::format(
              "unexpected {} message on the control tag (the coordinator takes {} from a "
              "buffer manager there)",
              protocol::name(message.type),
              protocol::names_on(protocol::tags::kControl, Role::kManager, Role::kCoordinator)));
      }
    } catch (const transport::MessageError& e) {
      ++result.rejected_messages;
      spdlog::warn("coordinator rank {}: refused a message from rank {}: {}", me, in.src, e.what());
      // On the table's error tag: managers wait on kData, trainers (population stats) on
      // kPopulation. A manager that already exited is not answered (it no longer receives).
      const int tag = protocol::error_tag(type, Role::kCoordinator,
                                          from_manager ? Role::kManager : Role::kTrainer);
      if (tag >= 0 && (!from_manager || running.count(in.src))) {
        keep(transport.isend(protocol::encode_error(me, type, protocol::tags::kControl, e.what()),
                             in.src, tag));
      }
    }
  }
  result.modes_found = static_cast<std::int64_t>(modes.size());
  for (auto& h : pending) h.wait(transport::Seconds(options.idle_timeout_s));
  return result;
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
