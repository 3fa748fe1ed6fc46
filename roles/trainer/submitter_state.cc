// Submitter::checkpoint / save_state / restore_state (submitter.h): the submitter's part of a
// checkpoint (README "Checkpoint and resume"), the CHECKPOINT exchange with the manager and
// the counters as cereal portable binary bytes.
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

/// The submitter's state; the field order is the byte format.
struct SubmitterState {
  std::int64_t submissions = 0, items_sent = 0, items_filtered = 0, batches_skipped = 0;
  std::int64_t scores = 0, retained = 0, new_modes = 0, requests = 0;
  int fully_filtered_in_a_row = 0;
  bool feed_requested = false;
  std::int64_t baseline_updates = 0;
  std::optional<float> baseline;
  protocol::Score last_score;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(submissions, items_sent, items_filtered, batches_skipped, scores, retained, new_modes,
       requests, fully_filtered_in_a_row, feed_requested, baseline_updates, baseline, last_score);
  }
};

}  // namespace

protocol::CheckpointDone Submitter::checkpoint(std::int64_t iteration, double timeout_s) {
  drain(timeout_s);
  protocol::send(transport_, manager_,
                 protocol::CheckpointRequest{iteration, submissions_, items_sent_});
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
  while (baseline_updates_ < done.baseline_pushes) {
    transport::Received in;
    try {
      in = transport_.recv(manager_, protocol::tags::kBaseline, transport::Seconds(timeout_s));
    } catch (const transport::TimeoutError& e) {
      throw transport::TimeoutError(fmt::format(
          "trainer rank {}: {} of {} BASELINE_PUSH from buffer manager rank {} on tag {} within "
          "{:g} s of its CHECKPOINT_DONE: {}",
          transport_.rank(), baseline_updates_, done.baseline_pushes, manager_,
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
  const SubmitterState s{
      submissions_,      items_sent_, items_filtered_, batches_skipped_,         scores_,
      retained_,         new_modes_,  requests_,       fully_filtered_in_a_row_, feed_requested_,
      baseline_updates_, baseline_,   last_score_};
  return checkpoint::encode_versioned(kFormatVersion, s);
}

void Submitter::restore_state(const std::string& bytes) {
  SubmitterState s;
  checkpoint::decode_versioned(
      bytes, kFormatVersion,
      fmt::format("checkpoint: trainer rank {}'s submitter state", transport_.rank()), s);
  submissions_ = s.submissions;
  items_sent_ = s.items_sent;
  items_filtered_ = s.items_filtered;
  batches_skipped_ = s.batches_skipped;
  scores_ = s.scores;
  retained_ = s.retained;
  new_modes_ = s.new_modes;
  requests_ = s.requests;
  fully_filtered_in_a_row_ = s.fully_filtered_in_a_row;
  feed_requested_ = s.feed_requested;
  baseline_updates_ = s.baseline_updates;
  baseline_ = s.baseline;
  last_score_ = s.last_score;
}

}  // namespace gfn::roles
