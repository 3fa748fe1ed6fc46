#pragma once
// The trainer -> buffer-manager pattern of gfn-runtime (roles/trainer/submitter.cc and
// roles/buffer_manager): rank 0 ("trainer") encodes a Submission of `states` terminating
// states (roles/protocol/messages.h, protocol::encode) and sends it on protocol::tags::kData; rank
// 1 ("manager") receives from any source, decodes the envelope and the payload, computes the Score
// (reward_sum = sum of exp(log_reward)), encodes and sends it back; the trainer decodes the Score.
// Collective: both ranks call in the same order.

#include <cstddef>

#include "tools/gfn-transport-bench/sweep.h"
#include "transport/transport.h"

namespace gfn::tbench {

struct SubmissionShape {
  int states = 128;  ///< terminating states per submission
  int ndim = 2;      ///< state dimensions (hypergrid ndim of configs/hypergrid_demo.yaml)
};

/// Encoded sizes (envelope included) of one DATA (Submission) and one SCORE message.
struct SubmissionBytes {
  std::size_t submission = 0;
  std::size_t score = 0;
};

/// Sizes of the messages the pattern exchanges for `shape`.
SubmissionBytes submission_bytes(const SubmissionShape& shape);

/// Runs warmup + iters submissions over `transport`. Rank 0 times from just before
/// encode_message to just after decode_payload<Score>; building the Submission and
/// checking the Score (iteration echo, retained count, reward sum) are untimed. Rank 1
/// checks every decoded Submission (type, iteration, ndim, states and log rewards)
/// after its reply is sent. `wrong` (both ranks) counts failed checks and decode errors.
Measurement measure_submission(transport::Transport& transport, const SubmissionShape& shape,
                               const LoopOptions& options);

}  // namespace gfn::tbench
