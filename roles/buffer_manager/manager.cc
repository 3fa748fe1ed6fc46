// BufferManager: construction, the receive loop and its dispatch, and the end (final
// BASELINE_REPORT, MANAGER_EXIT handshake with the coordinator, pending sends).
#include "roles/buffer_manager/manager.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "roles/protocol/codec.h"

namespace gfn::roles {
namespace {

using protocol::MessageType;

std::string rank_list(const std::set<int>& ranks) {
  return fmt::format("{}", fmt::join(ranks, ", "));
}

/// "last message from trainer rank 1 12.3 s ago, from rank 0 5.0 s ago": the `ranks`,
/// silent longest first, from their entries in `last_heard`.
template <class TimePoint>
std::string silence_report(const std::set<int>& ranks, const std::map<int, TimePoint>& last_heard,
                           TimePoint now) {
  std::vector<std::pair<double, int>> silent;  // (seconds, rank)
  for (int r : ranks) {
    const auto it = last_heard.find(r);
    if (it == last_heard.end()) continue;
    silent.emplace_back(std::chrono::duration<double>(now - it->second).count(), r);
  }
  std::sort(silent.begin(), silent.end(), std::greater<>());
  std::string out = "last message";
  for (std::size_t i = 0; i < silent.size(); ++i) {
    out += fmt::format("{} {} {:.1f} s ago", i == 0 ? " from trainer rank" : ", from rank",
                       silent[i].second, silent[i].first);
  }
  return out;
}

/// The type field of a raw envelope (0 if too short to hold one), for ERROR replies.
std::uint16_t raw_type(const transport::Bytes& bytes) {
  if (bytes.size() < 8) return 0;
  return static_cast<std::uint16_t>(bytes[6] | (bytes[7] << 8));
}

}  // namespace

double BufferManager::seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

const BufferManagerOptions& BufferManager::checked(const BufferManagerOptions& options) {
  if (options.baseline_report_interval < 1 || !(options.baseline_tolerance >= 0) ||
      options.n_actions < 0) {
    throw std::invalid_argument(fmt::format(
        "buffer manager: baseline_report_interval ({}) must be >= 1, baseline_tolerance ({}) "
        ">= 0, n_actions ({}) >= 0",
        options.baseline_report_interval, options.baseline_tolerance, options.n_actions));
  }
  return options;
}

BufferManager::BufferManager(transport::Transport& transport,
                             const std::vector<int>& assigned_trainers,
                             const BufferManagerOptions& options, ModePredicate is_mode,
                             timing::TimingTable* timing)
    : transport_(transport),
      options_(checked(options)),
      is_mode_(std::move(is_mode)),
      timing_(timing),
      assigned_(assigned_trainers.begin(), assigned_trainers.end()),
      me_(transport.rank()),
      coordinator_(options.coordinator_rank),
      cap_(transport.options().max_message_bytes),
      idle_(options.idle_timeout_s),
      replay_(manager_table(options)),
      baseline_(options.baseline),
      limiter_(options.rate_limiter),
      scorer_(options.scorer ? options.scorer : std::make_shared<buffer::ModesScorer>()),
      running_(assigned_),
      alive_every_(options.idle_timeout_s / 4),
      last_to_coordinator_(Clock::now()),
      started_(Clock::now()) {
  for (int r : assigned_) last_heard_[r] = Clock::now();
}

BufferManager::~BufferManager() = default;

buffer::TableOptions BufferManager::manager_table(const BufferManagerOptions& options) {
  auto table = buffer::manager_table_options(options.capacity, options.seed,
                                             options.priority_exponent, options.rank_weight);
  table.state_dtype = options.state_dtype;
  return table;
}

BufferManagerResult BufferManager::run() {
  while (serving()) serve_one();
  return finish();
}

transport::RecvInfo BufferManager::receive() {
  const auto idle = std::chrono::duration_cast<Clock::duration>(idle_);
  for (;;) {
    keep_alive();
    // Each running trainer must be heard from within idle_: wait until the earliest deadline
    // (or a MANAGER_ALIVE is due).
    auto deadline = Clock::now() + idle;
    for (int r : running_) deadline = std::min(deadline, last_heard_[r] + idle);
    auto wait = std::chrono::duration_cast<transport::Seconds>(deadline - Clock::now());
    if (coordinator_ >= 0) {
      wait = std::min(wait, std::chrono::duration_cast<transport::Seconds>(
                                last_to_coordinator_ + alive_every_ - Clock::now()));
    }
    try {
      return transport_.recv_into(transport::kAnySource, protocol::tags::kData,
                                  std::max(wait, transport::Seconds(0)), inbox_);
    } catch (const transport::TimeoutError&) {
      const auto now = Clock::now();
      std::set<int> silent;
      for (int r : running_) {
        if (now - last_heard_[r] >= idle) silent.insert(r);
      }
      if (silent.empty() && !(running_.empty() && now >= deadline)) continue;  // ALIVE due
      throw transport::TimeoutError(fmt::format(
          "buffer manager rank {}: no message for {:g} s on tag {} from trainer rank(s) {} while "
          "waiting for TRAINER_EXIT from trainer rank(s) {} ({})",
          me_, options_.idle_timeout_s, protocol::tags::kData, rank_list(silent),
          rank_list(running_), silence_report(running_, last_heard_, now)));
    }
  }
}

bool BufferManager::moved(const std::optional<float>& last, float now) const {
  return !last || std::abs(static_cast<double>(now) - *last) > options_.baseline_tolerance;
}

void BufferManager::serve_one() {
  const auto t_recv = Clock::now();
  transport::RecvInfo in;
  try {
    in = receive();
  } catch (const transport::MessageError& e) {
    refuse_dropped(e);
    return;
  }
  const double recv_s = seconds_since(t_recv);
  if (const auto it = last_heard_.find(in.src); it != last_heard_.end()) {
    it->second = Clock::now();
  }
  auto& sender = result_.per_sender[in.src];
  sender.requests += 1;
  sender.bytes_in += static_cast<std::int64_t>(in.size);
  sender.recv_s += recv_s;

  transport::MessageView message;
  try {
    message = protocol::decode_message_view(inbox_, cap_);
  } catch (const transport::MessageError& e) {
    refuse(in.src, raw_type(inbox_),
           fmt::format("malformed message ({} bytes) on tag {}: {}", in.size, protocol::tags::kData,
                       e.what()));
    return;
  }
  dispatch(in.src, message, recv_s);
}

void BufferManager::dispatch(int src, const transport::MessageView& message, double recv_s) {
  if (src == coordinator_) {
    from_coordinator(message);
    return;
  }
  if (!assigned_.count(src)) {
    refuse(src, static_cast<std::uint16_t>(message.type),
           fmt::format("rank {} is not one of the assigned trainers ({}) of buffer manager {}", src,
                       rank_list(assigned_), me_));
    return;
  }
  try {
    switch (protocol::message_type(message.type)) {
      case MessageType::kData:
        on_data(src, message, recv_s);
        break;
      case MessageType::kGetMetadata:
        on_get_metadata(src, message);
        break;
      case MessageType::kGetSample:
        on_get_sample(src, message);
        break;
      case MessageType::kTrainerExit:
        on_exit(src, message);
        break;
      case MessageType::kCheckpoint:
        on_checkpoint(src, message);
        break;
      default:
        throw transport::MessageError(fmt::format(
            "unexpected {} message on the DATA tag (a buffer manager takes {} from a trainer "
            "there)",
            protocol::name(message.type),
            protocol::names_on(protocol::tags::kData, protocol::Role::kTrainer,
                               protocol::Role::kManager)));
    }
  } catch (const transport::MessageError& e) {
    refuse(src, static_cast<std::uint16_t>(message.type), e.what());
  }
}

void BufferManager::from_coordinator(const transport::MessageView& message) {
  try {
    if (message.type != MessageType::kBaselineSync) {
      throw transport::MessageError(
          fmt::format("unexpected {} from the coordinator (expected BASELINE_SYNC)",
                      protocol::name(message.type)));
    }
    on_baseline_sync(message);
  } catch (const transport::MessageError& e) {
    ++result_.rejected_messages;
    spdlog::warn("buffer manager rank {}: dropped a message from the coordinator: {}", me_,
                 e.what());
  }
}

void BufferManager::adopt_sync(const transport::MessageView& message) {
  const auto sync = protocol::decode<protocol::BaselineSync>(message);
  baseline_.set_global(sync.baseline);
  ++result_.baseline_syncs;
}

BufferManagerResult BufferManager::finish() {
  result_.buffer_size = replay_.size();
  result_.modes_found = static_cast<std::int64_t>(modes_seen_.size());
  report_baseline(true);  // the final one, if the local baseline changed at all
  if (coordinator_ >= 0) exit_handshake();
  const auto b = baseline_.current(replay_);
  result_.has_baseline = b.has_value();
  result_.baseline = b.value_or(0.f);
  wait_pending_sends();
  return result_;
}

void BufferManager::exit_handshake() {
  send(coordinator_,
       protocol::ManagerExit{result_.submissions, result_.items_received, result_.modes_found});
  // The coordinator answers MANAGER_EXIT after any BASELINE_SYNC it sent us: receive them
  // all, up to its MANAGER_EXIT_ACK.
  for (;;) {
    try {
      transport_.recv_into(coordinator_, protocol::tags::kData, idle_, inbox_);
    } catch (const transport::TimeoutError& e) {
      throw transport::TimeoutError(fmt::format(
          "buffer manager rank {}: no MANAGER_EXIT_ACK from the coordinator rank {} on tag {} "
          "within {:g} s after sending it MANAGER_EXIT: {}",
          me_, coordinator_, protocol::tags::kData, options_.idle_timeout_s, e.what()));
    }
    try {
      const auto m = protocol::decode_message_view(inbox_, cap_);
      if (m.type == MessageType::kManagerExitAck) {
        (void)protocol::decode<protocol::ManagerExitAck>(m);
        break;
      }
      if (m.type == MessageType::kBaselineSync) {
        adopt_sync(m);
        continue;
      }
      throw transport::MessageError(fmt::format(
          "unexpected {} while waiting for MANAGER_EXIT_ACK (expected {})", protocol::name(m.type),
          protocol::names_on(protocol::tags::kData, protocol::Role::kCoordinator,
                             protocol::Role::kManager)));
    } catch (const transport::MessageError& e) {
      ++result_.rejected_messages;
      spdlog::warn("buffer manager rank {}: dropped a message from the coordinator: {}", me_,
                   e.what());
    }
  }
}

}  // namespace gfn::roles
