#include "roles/trainer/submitter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>

#include "roles/protocol/codec.h"
#include "roles/protocol/replies.h"
#include "roles/protocol/state_payload.h"
#include "roles/protocol/trajectory_payload.h"

namespace gfn::roles {

using protocol::MessageType;

Submitter::Submitter(transport::Transport& transport, int manager, const SubmitterOptions& options)
    : transport_(transport), manager_(manager), options_(options) {
  if (options_.baseline_refresh_after < 1 || options_.max_in_flight < 1 ||
      !(options_.timeout_s > 0)) {
    throw std::invalid_argument(fmt::format(
        "submitter: baseline_refresh_after ({}) and max_in_flight ({}) must be >= 1, timeout_s "
        "({}) > 0",
        options_.baseline_refresh_after, options_.max_in_flight, options_.timeout_s));
  }
}

Submitter::Submitter(transport::Transport& transport, int manager, Mode mode)
    : Submitter(transport, manager, [&] {
        SubmitterOptions o;
        o.mode = mode;
        o.timeout_s = transport.options().timeout.count();
        return o;
      }()) {}

Submitter::~Submitter() {
  if (std::uncaught_exceptions() == 0) return;  // the handles' own destructors wait
  // The rank is failing: waiting again for a send its manager does not receive would
  // only delay the error; keep the handles (and their buffers) until the process ends.
  static auto* abandoned = new std::deque<transport::SendHandle>();  // never freed
  abandoned->push_back(std::move(in_flight_));
  for (auto& h : fired_) abandoned->push_back(std::move(h));
  fired_.clear();
}

void Submitter::wait_data_send(transport::SendHandle& handle, transport::Seconds timeout,
                               const char* when) {
  try {
    handle.wait(timeout);
  } catch (const transport::TimeoutError& e) {
    throw transport::TimeoutError(fmt::format(
        "trainer rank {}: buffer manager rank {} did not receive DATA on tag {} within {:g} s "
        "({}): {}",
        transport_.rank(), manager_, protocol::tags::kData, timeout.count(), when, e.what()));
  }
}

namespace {

/// Appends row i of `in` (row-major [n, ndim]) to `out`; nothing when `in` is empty (the
/// rows of the other state dtype).
template <class T>
void append_row(std::vector<T>& out, const std::vector<T>& in, std::int64_t i, int ndim) {
  if (in.empty()) return;
  out.insert(out.end(), in.begin() + i * ndim, in.begin() + (i + 1) * ndim);
}

}  // namespace

void Submitter::filter(protocol::Submission& batch) {
  if (!options_.baseline_filter) return;
  if (feed_wanted()) poll_baseline();
  if (!state_.baseline) return;
  const float b = *state_.baseline;
  const bool with_trajectories = batch.has_trajectories();
  const buffer::PackedTrajectories& in = batch.trajectories;
  std::vector<std::int64_t> states;
  std::vector<float> float_states;
  buffer::PackedTrajectories trajectories;
  std::vector<float> rewards;
  std::size_t offset = 0;  // start of item i's actions
  for (std::int64_t i = 0; i < batch.size(); ++i) {
    const float lr = batch.log_rewards[i];
    const std::int32_t len = with_trajectories ? in.lengths[static_cast<std::size_t>(i)] : 0;
    const std::int64_t* actions = in.actions.data() + offset;
    offset += static_cast<std::size_t>(len);
    if (!(lr >= b)) continue;  // below the baseline, or NaN
    rewards.push_back(lr);
    append_row(states, batch.states, i, batch.ndim);  // the rows of the batch's dtype
    append_row(float_states, batch.float_states, i, batch.ndim);
    if (with_trajectories) trajectories.append(actions, len);
  }
  if (!rewards.empty()) {
    state_.fully_filtered_in_a_row = 0;
  } else if (++state_.fully_filtered_in_a_row >= options_.baseline_refresh_after) {
    state_.fully_filtered_in_a_row = 0;  // send the whole batch: the baseline may be stale
    return;
  }
  batch.filtered = batch.size() - static_cast<std::int64_t>(rewards.size());
  state_.items_filtered += batch.filtered;
  batch.states = std::move(states);
  batch.float_states = std::move(float_states);
  batch.log_rewards = std::move(rewards);
  batch.trajectories = std::move(trajectories);
}

void Submitter::poll_baseline() {
  for (;;) {
    transport::Received in;
    try {
      in = transport_.recv(manager_, protocol::tags::kBaseline, transport::Seconds(0));
    } catch (const transport::TimeoutError&) {
      return;  // nothing waiting
    }
    if (take_feed_message(in)) {
      throw transport::MessageError(fmt::format(
          "trainer rank {}: buffer manager rank {} ended the baseline feed on tag {} before the "
          "trainer's TRAINER_EXIT",
          transport_.rank(), manager_, protocol::tags::kBaseline));
    }
  }
}

bool Submitter::take_feed_message(const transport::Received& in) {
  const auto m = protocol::decode_message_view(in.bytes, transport_.options().max_message_bytes);
  if (m.type == MessageType::kBaselinePush) {
    const auto push = protocol::decode<protocol::BaselinePush>(m);
    ++state_.baseline_updates;
    if (std::isfinite(push.baseline)) state_.baseline = push.baseline;
    return false;
  }
  if (m.type == MessageType::kBaselineFeedEnd) {
    const auto end = protocol::decode<protocol::BaselineFeedEnd>(m);
    if (end.updates != state_.baseline_updates) {
      throw transport::MessageError(fmt::format(
          "trainer rank {}: buffer manager rank {} pushed {} baseline updates on tag {}, {} "
          "arrived",
          transport_.rank(), manager_, end.updates, protocol::tags::kBaseline,
          state_.baseline_updates));
    }
    return true;
  }
  throw transport::MessageError(
      fmt::format("trainer rank {}: unexpected {} from rank {} on tag {} (expected {})",
                  transport_.rank(), protocol::name(m.type), manager_, protocol::tags::kBaseline,
                  protocol::names_on(protocol::tags::kBaseline, protocol::Role::kManager,
                                     protocol::Role::kTrainer)));
}

bool Submitter::submit(protocol::Submission batch) {
  if (score_pending_) collect_score();  // async: the previous submission's SCORE
  filter(batch);
  if (batch.size() == 0 && batch.filtered > 0) {
    ++state_.batches_skipped;
    return false;
  }
  batch.scoring_only = options_.scoring_only;
  if (batch.scoring_only) {  // scoring-only payloads: terminating states and log rewards only
    batch.trajectories.clear();
  }
  batch.want_score = options_.mode != Mode::kFireAndForget;
  batch.want_baseline = feed_wanted();
  state_.feed_requested = state_.feed_requested || batch.want_baseline;
  pending_iteration_ = batch.iteration;
  const auto n = batch.size();
  auto bytes = protocol::encode(batch);                                  // DATA
  constexpr int tag = protocol::MessageSpec<protocol::Submission>::tag;  // kData
  const transport::Seconds timeout(options_.timeout_s);
  switch (options_.mode) {
    case Mode::kSync:  // an isend waited for at once: bounded, unlike a blocking send
      in_flight_ = transport_.isend(std::move(bytes), manager_, tag);
      wait_data_send(in_flight_, timeout, "sync submission");
      break;
    case Mode::kAsync:
      // complete before its buffer is replaced
      wait_data_send(in_flight_, timeout, "async submission, previous DATA still in flight");
      in_flight_ = transport_.isend(std::move(bytes), manager_, tag);
      break;
    case Mode::kFireAndForget:
      while (!fired_.empty() && fired_.front().is_complete()) fired_.pop_front();
      if (static_cast<int>(fired_.size()) >= options_.max_in_flight) {
        wait_data_send(fired_.front(), timeout, "fire-and-forget window full");
        fired_.pop_front();
      }
      fired_.push_back(transport_.isend(std::move(bytes), manager_, tag));
      break;
  }
  ++state_.submissions;
  state_.items_sent += n;
  score_pending_ = batch.want_score;
  if (options_.mode == Mode::kSync) collect_score();
  return true;
}

void Submitter::drain(double timeout_s) {
  if (score_pending_) collect_score();
  const transport::Seconds timeout(timeout_s);
  wait_data_send(in_flight_, timeout, "draining before TRAINER_EXIT");
  while (!fired_.empty()) {
    wait_data_send(fired_.front(), timeout, "draining before TRAINER_EXIT");
    fired_.pop_front();
  }
}

void Submitter::exit(double timeout_s) {
  drain(timeout_s);
  protocol::send(transport_, manager_,
                 protocol::TrainerExit{state_.submissions, state_.items_sent});
  if (!state_.feed_requested) return;
  for (;;) {
    transport::Received in;
    try {
      in = transport_.recv(manager_, protocol::tags::kBaseline, transport::Seconds(timeout_s));
    } catch (const transport::TimeoutError& e) {
      throw transport::TimeoutError(fmt::format(
          "trainer rank {}: no BASELINE_FEED_END from buffer manager rank {} on tag {} within "
          "{:g} s after sending TRAINER_EXIT ({} BASELINE_PUSH received): {}",
          transport_.rank(), manager_, protocol::tags::kBaseline, timeout_s,
          state_.baseline_updates, e.what()));
    }
    if (take_feed_message(in)) return;
  }
}

void Submitter::collect_score() {
  const auto context = fmt::format(
      "trainer rank {} waiting for SCORE from buffer manager rank {} (submission of "
      "iteration {})",
      transport_.rank(), manager_, pending_iteration_);
  score_pending_ = false;  // an error below leaves nothing to collect twice
  const auto score =
      protocol::await_reply<protocol::Score>(transport_, manager_, options_.timeout_s, context);
  if (score.iteration != pending_iteration_) {
    throw transport::MessageError(
        fmt::format("trainer rank {}: SCORE from rank {} is for iteration {}, expected {}",
                    transport_.rank(), manager_, score.iteration, pending_iteration_));
  }
  ++state_.scores;
  state_.retained += score.retained;
  state_.new_modes += score.new_modes;
  if (score.has_baseline && std::isfinite(score.baseline)) state_.baseline = score.baseline;
  state_.last_score = score;
}

protocol::Metadata Submitter::query_metadata() {
  protocol::Query q;
  q.kind = protocol::Query::kMetadata;
  q.request = ++state_.requests;
  protocol::send(transport_, manager_, q);
  return protocol::await_reply<protocol::Metadata>(
      transport_, manager_, options_.timeout_s,
      fmt::format("trainer rank {}, metadata query", transport_.rank()));
}

protocol::SampleBatch Submitter::request_samples(std::int64_t n, buffer::SamplerKind sampler) {
  protocol::SampleRequest q;
  q.n = n;
  q.sampler = config::enum_name(sampler);  // the wire carries the name
  q.request = ++state_.requests;
  protocol::send(transport_, manager_, q);
  const auto context =
      fmt::format("trainer rank {}, sample request {} ({} items)", transport_.rank(), q.request, n);
  auto batch = protocol::await_reply<protocol::SampleBatch>(transport_, manager_,
                                                            options_.timeout_s, context);
  if (batch.request != q.request) {
    throw transport::MessageError(
        fmt::format("{}: reply is for request {}", context, batch.request));
  }
  protocol::check_states(batch.ndim, batch.state_dtype, batch.states, batch.float_states,
                         batch.size(), context + ": SAMPLE");
  protocol::check_trajectories(batch.trajectories, batch.size(), 0,
                               /*allow_missing=*/true, context + ": SAMPLE");
  return batch;
}

}  // namespace gfn::roles

namespace gfn::roles {

SubmitterOptions submitter_options(const roles::ExperimentConfig& config) {
  SubmitterOptions so;
  so.mode = config.buffer.submit_mode;
  so.scoring_only = config.buffer.payload == roles::Payload::kScoringOnly;
  so.baseline_filter = config.buffer.baseline_filter;
  so.baseline_refresh_after = config.buffer.baseline_refresh_after;
  so.timeout_s = config.transport.timeout_s;
  return so;
}

}  // namespace gfn::roles
