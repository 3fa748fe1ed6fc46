// BufferManager::on_checkpoint / write_checkpoint (manager.h): the manager's part of a
// checkpoint at the iteration boundary the trainers agreed on (README "Checkpoint and
// resume", docs/architecture.md "Shutdown"). Each trainer drains its submissions, then sends
// CHECKPOINT on kData, after all of its DATA (messages of one sender on one tag arrive in
// order); once every running trainer's CHECKPOINT is here, nothing of theirs is in flight, so
// the saved state is the one the resumed manager must start from.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "roles/buffer_manager/manager.h"
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

void BufferManager::write_checkpoint(std::int64_t iteration) {
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
    send(trainer, done);
  }
  checkpoint_requests_.clear();
  spdlog::info("buffer manager rank {}: checkpoint after iteration {} ({} bytes)", me_, iteration,
               entry.bytes);
}

}  // namespace gfn::roles
