// BufferManager: everything it sends goes through here — the isend queue (pruned as
// replies complete, waited for at the end), ERROR refusals, the throttled
// BASELINE_REPORTs to the coordinator and the baseline pushes to trainers.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "roles/buffer_manager/manager.h"
#include "roles/protocol/replies.h"

namespace gfn::roles {
namespace {

/// Rethrows the exception being handled (a failed send) with the manager, the message
/// type, its destination and tag prepended, keeping its class (TimeoutError,
/// TransportError). A MessageError passes unchanged (the handlers' callers treat it as a
/// malformed message).
[[noreturn]] void rethrow_send_failure(int me, const char* type, int dst, int tag) {
  const auto context = [&](const std::exception& e) {
    return fmt::format("buffer manager rank {}: a {} send to rank {} on tag {} failed: {}", me,
                       type, dst, tag, e.what());
  };
  try {
    throw;
  } catch (const transport::MessageError&) {
    throw;
  } catch (const transport::TimeoutError& e) {
    throw transport::TimeoutError(context(e));
  } catch (const transport::TransportError& e) {
    throw transport::TransportError(context(e));
  }
}

}  // namespace

void BufferManager::send_bytes(int dst, int tag, const char* type, transport::Bytes bytes) {
  const auto t0 = Clock::now();
  result_.per_sender[dst].bytes_out += static_cast<std::int64_t>(bytes.size());
  transport::SendHandle handle;
  try {
    handle = transport_.isend(std::move(bytes), dst, tag);
  } catch (const transport::TransportError&) {
    rethrow_send_failure(me_, type, dst, tag);
  }
  pending_.push_back({std::move(handle), dst, tag, type});
  if (dst == coordinator_) last_to_coordinator_ = Clock::now();
  prune_completed_sends();
  result_.per_sender[dst].send_s += seconds_since(t0);
}

void BufferManager::keep_alive() {
  if (coordinator_ < 0 || Clock::now() - last_to_coordinator_ < alive_every_) return;
  send(coordinator_, protocol::ManagerAlive{result_.submissions, result_.items_received});
  ++result_.alive_messages;
}

void BufferManager::prune_completed_sends() {
  pending_.remove_if([this](PendingReply& p) {
    try {
      return p.handle.is_complete();
    } catch (const transport::TransportError&) {
      rethrow_send_failure(me_, p.type, p.dst, p.tag);
    }
  });
}

void BufferManager::wait_pending_sends() {
  for (auto& p : pending_) {
    try {
      p.handle.wait(idle_);
    } catch (const transport::TimeoutError& e) {
      throw transport::TimeoutError(fmt::format(
          "buffer manager rank {}: a {} send to rank {} on tag {} did not complete within {:g} s: "
          "{}",
          me_, p.type, p.dst, p.tag, options_.idle_timeout_s, e.what()));
    } catch (const transport::TransportError&) {
      rethrow_send_failure(me_, p.type, p.dst, p.tag);
    }
  }
  pending_.clear();
}

void BufferManager::refuse(int src, std::uint16_t type, const std::string& why) {
  // Strangers are refused as trainers (the coordinator is never answered with ERROR).
  const int reply_tag =
      protocol::error_tag(type, protocol::Role::kManager, protocol::Role::kTrainer);
  ++result_.rejected_messages;
  ++result_.errors_sent;
  ++result_.per_sender[src].errors;
  spdlog::warn(
      "buffer manager rank {}: refused a {} message from rank {} (ERROR sent on tag "
      "{}): {}",
      me_, protocol::name(static_cast<protocol::MessageType>(type)), src, reply_tag, why);
  send_bytes(src, reply_tag, protocol::MessageSpec<protocol::ErrorReply>::name,
             protocol::encode_error(me_, type, protocol::tags::kData, why));
}

void BufferManager::refuse_dropped(const transport::MessageError& e) {
  const int src = e.source();
  if (src >= 0 && src != coordinator_) {
    ++result_.per_sender[src].requests;
    refuse(src, 0, fmt::format("message dropped on receipt: {}", e.what()));
    return;
  }
  ++result_.rejected_messages;
  spdlog::warn("buffer manager rank {}: dropped a message on tag {}: {}", me_,
               protocol::tags::kData, e.what());
}

// Throttled: a change beyond the tolerance AND at least baseline_report_interval DATA
// messages since the last report; `final` (before EXIT): any change at all.
void BufferManager::report_baseline(bool final) {
  if (coordinator_ < 0) return;
  const auto local = baseline_.local(replay_);
  if (!local || (last_reported_ && *last_reported_ == *local)) return;
  if (!final && last_reported_ &&
      (!moved(last_reported_, *local) ||
       result_.submissions - last_report_at_ < options_.baseline_report_interval)) {
    return;
  }
  last_reported_ = local;
  last_report_at_ = result_.submissions;
  protocol::BaselineReport r{*local, replay_.size(), buffer::to_string(baseline_.strategy())};
  ++result_.baseline_reports;
  send(coordinator_, r);
}

// Pushes the baseline in force to the trainers with a feed, when it moved.
void BufferManager::push_baselines() {
  if (feeds_.empty()) return;
  const auto b = baseline_.current(replay_);
  if (!b) return;
  for (auto& [rank, feed] : feeds_) {
    if (!running_.count(rank) || !moved(feed.last, *b)) continue;
    feed.last = b;
    ++feed.updates;
    ++result_.baseline_pushes;
    send(rank, protocol::BaselinePush{*b});
  }
}

}  // namespace gfn::roles
