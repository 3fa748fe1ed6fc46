// Submitter::checkpoint / save_state / restore_state (submitter.h): the submitter's part of a
// checkpoint (docs/checkpoints.md "Checkpoint and resume"), the CHECKPOINT exchange with the
// manager and the counters as cereal portable binary bytes.
#include <fmt/format.h>

#include <cereal/types/optional.hpp>

#include <stdexcept>

#include "roles/protocol/codec.h"
#include "roles/protocol/replies.h"
#include "roles/trainer/submitter.h"
#include "runtime/checkpoint/versioned_state.h"

namespace gfn::roles {
namespace {

constexpr std::uint32_t kFormatVersion = 1;

}  // namespace

protocol::CheckpointDone Submitter::checkpoint(std::int64_t iteration, double timeout_s) {
  drain(timeout_s);
  protocol::send(transport_, manager_,
                 protocol::CheckpointRequest{iteration, state_.submissions, state_.items_sent});
  const auto done = protocol::await_reply<protocol::CheckpointDone>(
      transport_, manager_, timeout_s,
      fmt::format("trainer rank {} waiting for CHECKPOINT_DONE from buffer manager rank {} "
                  "(checkpoint after iteration {})",
                  transport_.rank(), manager_, iteration));
  if (done.iteration != iteration) {
    throw transport::MessageError(fmt::format(
        "trainer rank {}: CHECKPOINT_DONE from rank {} is for iteration {}, expected {}",
        transport_.rank(), manager_, done.iteration, iteration));
  }
  // The feed's pushes the manager sent before saving its state (fire-and-forget filtering).
  while (state_.baseline_updates < done.baseline_pushes) {
    transport::Received in;
    try {
      in = transport_.recv(manager_, protocol::tags::kBaseline, transport::Seconds(timeout_s));
    } catch (const transport::TimeoutError& e) {
      throw transport::TimeoutError(fmt::format(
          "trainer rank {}: {} of {} BASELINE_PUSH from buffer manager rank {} on tag {} within "
          "{:g} s of its CHECKPOINT_DONE: {}",
          transport_.rank(), state_.baseline_updates, done.baseline_pushes, manager_,
          protocol::tags::kBaseline, timeout_s, e.what()));
    }
    if (take_feed_message(in)) {
      throw transport::MessageError(fmt::format(
          "trainer rank {}: buffer manager rank {} ended the baseline feed during a checkpoint",
          transport_.rank(), manager_));
    }
  }
  return done;
}

std::string Submitter::save_state() const {
  if (score_pending_ || !fired_.empty()) {
    throw std::logic_error("Submitter::save_state: a SCORE or a send is still pending (drain)");
  }
  return checkpoint::encode_versioned(kFormatVersion, state_);
}

void Submitter::restore_state(const std::string& bytes) {
  State s;
  checkpoint::decode_versioned(
      bytes, kFormatVersion,
      fmt::format("checkpoint: trainer rank {}'s submitter state", transport_.rank()), s);
  state_ = s;
}

}  // namespace gfn::roles
