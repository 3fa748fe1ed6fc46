// BufferManager::on_checkpoint / write_checkpoint (manager.h): the manager's part of a
// checkpoint at the iteration boundary the trainers agreed on (README "Checkpoint and
// resume", docs/architecture.md "Shutdown"). Each trainer drains its submissions, then sends
// CHECKPOINT on kData, after all of its DATA (messages of one sender on one tag arrive in
// order); once every running trainer's CHECKPOINT is here, nothing of theirs is in flight, so
// the saved state is the one the resumed manager must start from.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "roles/buffer_manager/manager.h"
#include "roles/protocol/replies.h"
#include "runtime/checkpoint/store.h"

namespace gfn::roles {

void BufferManager::on_checkpoint(int src, const transport::MessageView& message) {
  const auto request = protocol::decode<protocol::CheckpointRequest>(message);
  if (options_.checkpoint_root.empty()) {
    throw transport::MessageError(fmt::format(
        "CHECKPOINT after iteration {}: buffer manager rank {} has no checkpoint directory",
        request.iteration, me_));
  }
  const auto& sender = result_.per_sender[src];
  if (request.submissions != sender.submissions || request.items != sender.items) {
    throw transport::MessageError(fmt::format(
        "CHECKPOINT after iteration {}: trainer rank {} says it sent {} submissions ({} items), "
        "{} ({} items) arrived",
        request.iteration, src, request.submissions, request.items, sender.submissions,
        sender.items));
  }
  if (!checkpoint_requests_.empty() && checkpoint_requests_.begin()->second != request.iteration) {
    throw transport::MessageError(fmt::format(
        "CHECKPOINT after iteration {} from trainer rank {}, while trainer rank {} asked for one "
        "after iteration {}",
        request.iteration, src, checkpoint_requests_.begin()->first,
        checkpoint_requests_.begin()->second));
  }
  checkpoint_requests_[src] = request.iteration;
  for (int r : running_) {
    if (!checkpoint_requests_.count(r)) return;  // the others' CHECKPOINT is still to come
  }
  write_checkpoint(request.iteration);
}

protocol::CoordinatorCheckpointDone BufferManager::coordinator_checkpoint(std::int64_t iteration) {
  // After every MODE_REPORT / BASELINE_REPORT this manager sent (same tag, in order).
  send(coordinator_, protocol::ManagerCheckpoint{iteration});
  const auto done = protocol::await_reply<protocol::CoordinatorCheckpointDone>(
      transport_, coordinator_, options_.idle_timeout_s,
      fmt::format("buffer manager rank {} waiting for COORDINATOR_CHECKPOINT_DONE from the "
                  "coordinator rank {} (checkpoint after iteration {})",
                  me_, coordinator_, iteration));
  if (done.iteration != iteration) {
    throw transport::MessageError(fmt::format(
        "buffer manager rank {}: COORDINATOR_CHECKPOINT_DONE is for iteration {}, expected {}", me_,
        done.iteration, iteration));
  }
  // The BASELINE_SYNCs the coordinator sent before saving its state, adopted before this
  // manager saves its own.
  while (result_.baseline_syncs < done.baseline_syncs) {
    try {
      transport_.recv_into(coordinator_, protocol::tags::kData, idle_, inbox_);
    } catch (const transport::TimeoutError& e) {
      throw transport::TimeoutError(fmt::format(
          "buffer manager rank {}: {} of {} BASELINE_SYNC from the coordinator rank {} on tag {} "
          "within {:g} s of its COORDINATOR_CHECKPOINT_DONE: {}",
          me_, result_.baseline_syncs, done.baseline_syncs, coordinator_, protocol::tags::kData,
          options_.idle_timeout_s, e.what()));
    }
    from_coordinator(protocol::decode_message_view(inbox_, cap_));
  }
  return done;
}

void BufferManager::write_checkpoint(std::int64_t iteration) {
  protocol::CoordinatorCheckpointDone coordinator;
  if (coordinator_ >= 0) coordinator = coordinator_checkpoint(iteration);
  // Only a rank file: the manifest and the rotation (checkpoint.keep) are trainer rank 0's.
  const checkpoint::CheckpointStore store(options_.checkpoint_root, /*keep=*/1);
  const auto entry = store.write_rank_file(iteration, me_, save_state());
  for (const auto& [trainer, at] : checkpoint_requests_) {
    protocol::CheckpointDone done;
    done.iteration = at;
    done.bytes = entry.bytes;
    done.crc32 = entry.crc32;
    if (const auto feed = feeds_.find(trainer); feed != feeds_.end()) {
      done.baseline_pushes = feed->second.updates;
    }
    if (coordinator_ >= 0) {
      done.coordinator_rank = coordinator_;
      done.coordinator_bytes = coordinator.bytes;
      done.coordinator_crc32 = coordinator.crc32;
    }
    send(trainer, done);
  }
  checkpoint_requests_.clear();
  spdlog::info("buffer manager rank {}: checkpoint after iteration {} ({} bytes)", me_, iteration,
               entry.bytes);
}

}  // namespace gfn::roles
