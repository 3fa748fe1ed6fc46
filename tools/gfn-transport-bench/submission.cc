#include "tools/gfn-transport-bench/submission.h"

#include <mpi.h>
#include <spdlog/spdlog.h>

#include <cmath>

#include "roles/protocol/codec.h"  // header-only parts: encode, MessageSpec, type comparison
#include "roles/protocol/messages.h"
#include "tools/common/harness/timing.h"
#include "tools/gfn-transport-bench/method.h"
#include "transport/framing/message.h"

namespace gfn::tbench {

namespace {

using protocol::MessageType;

// The batch of iteration `it`: coordinates in 0..7 and log rewards depending on both.
protocol::Submission make_batch(const SubmissionShape& shape, std::int64_t it) {
  protocol::Submission sub;
  sub.iteration = it;
  sub.ndim = shape.ndim;
  const auto n = static_cast<std::size_t>(shape.states);
  sub.states.resize(n * static_cast<std::size_t>(shape.ndim));
  for (std::size_t k = 0; k < sub.states.size(); ++k) {
    sub.states[k] = static_cast<std::int64_t>((k * 7 + static_cast<std::size_t>(it + 1000)) % 8);
  }
  sub.log_rewards.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    sub.log_rewards[i] = -0.25f * static_cast<float>(i % 13) - 1e-3f * static_cast<float>(it);
  }
  return sub;
}

double reward_sum(const protocol::Submission& sub) {
  double sum = 0;
  for (float lr : sub.log_rewards) sum += std::exp(static_cast<double>(lr));
  return sum;
}

bool same_batch(const protocol::Submission& got, const protocol::Submission& want) {
  return got.iteration == want.iteration && got.ndim == want.ndim && got.states == want.states &&
         got.log_rewards == want.log_rewards;
}

}  // namespace

SubmissionBytes submission_bytes(const SubmissionShape& shape) {
  SubmissionBytes b;
  b.submission = protocol::encode(make_batch(shape, 0)).size();
  b.score = protocol::encode(protocol::Score{}).size();
  return b;
}

Measurement measure_submission(transport::Transport& transport, const SubmissionShape& shape,
                               const LoopOptions& options) {
  const int tag = protocol::MessageSpec<protocol::Submission>::tag;  // DATA and SCORE: kData
  const std::size_t cap = transport.options().max_message_bytes;
  const auto sizes = submission_bytes(shape);
  Measurement m;
  m.ping_bytes = sizes.submission;
  m.pong_bytes = sizes.score;
  std::vector<double> seconds;
  std::int64_t wrong = 0;
  std::int64_t checked = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (std::int64_t it = -options.warmup; it < options.iters; ++it) {
    const protocol::Submission want = make_batch(shape, it);
    if (transport.rank() == kInitiator) {
      protocol::Score score;
      bool decoded = true;
      const harness::Stopwatch watch;
      transport.send(protocol::encode(want), kResponder, tag);
      const auto in = transport.recv(kResponder, tag);
      try {
        const auto message = transport::decode_envelope(in.bytes, cap);
        decoded = message.type == MessageType::kScore;
        if (decoded) score = transport::decode_payload<protocol::Score>(message);
      } catch (const transport::MessageError& e) {
        spdlog::error("trainer: bad SCORE at iteration {}: {}", it, e.what());
        decoded = false;
      }
      const double elapsed = watch.seconds();
      if (it >= 0) seconds.push_back(elapsed);
      ++checked;
      const bool ok = decoded && score.iteration == it && score.retained == shape.states &&
                      score.reward_sum == reward_sum(want);
      if (!ok) ++wrong;
    } else {
      const auto in = transport.recv(transport::kAnySource, tag);
      protocol::Submission got;
      bool decoded = true;
      try {
        const auto message = transport::decode_envelope(in.bytes, cap);
        decoded = message.type == MessageType::kData;
        if (decoded) got = transport::decode_payload<protocol::Submission>(message);
      } catch (const transport::MessageError& e) {
        spdlog::error("manager: bad DATA at iteration {}: {}", it, e.what());
        decoded = false;
      }
      protocol::Score score;
      score.iteration = got.iteration;
      score.retained = got.size();
      score.reward_sum = reward_sum(got);
      score.buffer_size = got.size();
      transport.send(protocol::encode(score), in.src, tag);
      ++checked;
      if (!decoded || !same_batch(got, want)) ++wrong;
    }
  }
  MPI_Allreduce(&wrong, &m.wrong, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&checked, &m.checked, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (transport.rank() == kInitiator) m.rtt = harness::summarize(std::move(seconds)).scaled(1e6);
  return m;
}

}  // namespace gfn::tbench
