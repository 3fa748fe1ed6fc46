// BufferManager: one handler per message type a trainer (or the coordinator) sends on
// tag kData. serve_one() (manager.cc) routes each received message here.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <utility>

#include "roles/buffer_manager/manager.h"
#include "roles/protocol/state_payload.h"
#include "roles/protocol/trajectory_payload.h"
#include "runtime/timing/timing_table.h"

namespace gfn::roles {

void BufferManager::on_data(int src, const transport::MessageView& message, double recv_s) {
  auto& sender = result_.per_sender[src];
  if (timing_) timing_->begin_iteration();
  if (timing_) timing_->add("recv", recv_s);
  auto t0 = Clock::now();
  // Decoded straight from the received bytes into the reused submission_ (one copy).
  protocol::decode_into(message, submission_);
  const protocol::Submission& sub = submission_;
  check_submission(sub);
  const bool floats = sub.state_dtype == buffer::StateDtype::kFloat32;
  // Modes first (the mode bonus needs them), then the score against the pre-insert buffer.
  protocol::ModeReport report;
  const std::int64_t new_modes = collect_new_modes(src, sub, report);
  const auto breakdown = scorer_->score(buffer::BatchView{sub.states, sub.log_rewards, sub.ndim,
                                                          floats ? &sub.float_states : nullptr},
                                        replay_, new_modes);
  const double score_s = seconds_since(t0);
  t0 = Clock::now();
  baseline_.observe_batch(sub.log_rewards);
  if (options_.store && !sub.scoring_only && sub.size() > 0) {
    if (floats) {
      replay_.add_float(sub.float_states, sub.log_rewards, sub.ndim);
    } else {
      replay_.add(sub.states, sub.log_rewards, sub.ndim, sub.trajectories);
    }
    limiter_.record_insert(sub.size());
  }
  const double add_s = seconds_since(t0);
  if (timing_) timing_->add("add", add_s);
  if (timing_) timing_->add("score", score_s);
  sender.add_s += add_s;
  sender.score_s += score_s;

  t0 = Clock::now();
  if (sub.want_score) {
    protocol::Score score;
    score.iteration = sub.iteration;
    score.retained = breakdown.retained;
    score.reward_sum = breakdown.reward_sum;
    score.new_modes = breakdown.new_modes;
    score.buffer_size = replay_.size();
    score.novelty_sum = breakdown.novelty_sum;
    score.score_before_ema = breakdown.score_before_ema;
    score.score = breakdown.score;
    if (const auto b = baseline_.current(replay_)) {
      score.has_baseline = true;
      score.baseline = *b;
    }
    send(src, score);
  }
  if (coordinator_ >= 0 && !report.trainer_ranks.empty()) {
    send(coordinator_, report);
  }
  ++result_.submissions;
  result_.items_received += sub.size();
  result_.items_filtered_by_trainers += sub.filtered;
  if (sub.has_trajectories()) result_.trajectories_received += sub.size();
  if (new_modes > 0) {
    result_.modes_timeline.push_back({elapsed_before_ + seconds_since(started_),
                                      result_.items_received,
                                      static_cast<std::int64_t>(modes_seen_.size())});
  }
  sender.items += sub.size();
  sender.submissions += 1;
  report_baseline(false);
  if (sub.want_baseline) feeds_.try_emplace(src);
  push_baselines();
  if (timing_) timing_->add("reply", seconds_since(t0));
}

std::int64_t BufferManager::collect_new_modes(int src, const protocol::Submission& sub,
                                              protocol::ModeReport& report) {
  std::int64_t new_modes = 0;
  if (sub.size() == 0) return 0;
  if (sub.state_dtype == buffer::StateDtype::kFloat32) {
    // A continuous environment's modes are regions: a row of the report is a mode id.
    report.ndim = 1;
    if (!options_.float_mode_hits) return 0;
    for (const std::int64_t id : options_.float_mode_hits(sub.float_states, sub.ndim)) {
      if (modes_seen_.insert({id}).second) {
        ++new_modes;
        report.states.push_back(id);
        report.trainer_ranks.push_back(src);
      }
    }
    return new_modes;
  }
  report.ndim = sub.ndim;
  const auto flags = is_mode_(sub.states, sub.ndim);
  for (std::int64_t i = 0; i < sub.size(); ++i) {
    if (!flags[i]) continue;
    std::vector<std::int64_t> s(sub.states.begin() + i * sub.ndim,
                                sub.states.begin() + (i + 1) * sub.ndim);
    if (modes_seen_.insert(s).second) {
      ++new_modes;
      report.states.insert(report.states.end(), s.begin(), s.end());
      report.trainer_ranks.push_back(src);
    }
  }
  return new_modes;
}

void BufferManager::check_submission(const protocol::Submission& sub) const {
  const std::string what = fmt::format("DATA of iteration {}", sub.iteration);
  protocol::check_states(sub.ndim, sub.state_dtype, sub.states, sub.float_states, sub.size(), what);
  const bool stored = replay_.ndim() != 0 || options_.state_dtype.has_value();
  if (sub.ndim < 1 || (replay_.ndim() != 0 && sub.size() > 0 && sub.ndim != replay_.ndim()) ||
      (stored && sub.size() > 0 && sub.state_dtype != replay_.state_dtype())) {
    throw transport::MessageError(
        fmt::format("{}: {} items of {} states of ndim {}, the buffer holds {} states of ndim {}",
                    what, sub.size(), config::enum_name(sub.state_dtype), sub.ndim,
                    config::enum_name(replay_.state_dtype()), replay_.ndim()));
  }
  if (sub.state_dtype == buffer::StateDtype::kFloat32 && !sub.trajectories.empty()) {
    throw transport::MessageError(what + ": float32 states come without trajectories");
  }
  protocol::check_trajectories(sub.trajectories, sub.size(), options_.n_actions,
                               /*allow_missing=*/false, what);
}

void BufferManager::on_get_metadata(int src, const transport::MessageView& message) {
  protocol::Query q;
  try {
    q = protocol::decode<protocol::Query>(message);
  } catch (const transport::MessageError& e) {
    refuse(src, static_cast<std::uint16_t>(message.type), e.what());
    return;
  }
  if (q.kind != protocol::Query::kMetadata) {
    refuse(src, static_cast<std::uint16_t>(message.type),
           fmt::format("GET_METADATA query of unknown kind {} (samples: GET_SAMPLE)", int(q.kind)));
    return;
  }
  protocol::Metadata meta;
  meta.buffer_size = replay_.size();
  meta.capacity = replay_.capacity();
  meta.submissions = result_.submissions;
  meta.items_received = result_.items_received;
  meta.modes_found = static_cast<std::int64_t>(modes_seen_.size());
  meta.min_log_reward = replay_.min_log_reward();
  meta.max_log_reward = replay_.max_log_reward();
  if (const auto b = baseline_.current(replay_)) {
    meta.has_baseline = true;
    meta.baseline = *b;
  }
  send(src, meta);
}

void BufferManager::on_get_sample(int src, const transport::MessageView& message) {
  protocol::SampleRequest q;
  buffer::SamplerKind sampler{};
  try {
    q = protocol::decode<protocol::SampleRequest>(message);
    if (q.n < 0) {
      throw transport::MessageError(fmt::format("GET_SAMPLE for n = {} items (must be >= 0)", q.n));
    }
    // The wire names the sampler (buffer::kSamplerKindNames); an unknown name is an ERROR.
    if (!config::parse_enum(q.sampler, sampler) || !replay_.has_sampler(sampler)) {
      throw transport::MessageError(fmt::format("GET_SAMPLE with unknown sampler '{}' (known: {})",
                                                q.sampler,
                                                fmt::join(replay_.sampler_names(), ", ")));
    }
  } catch (const transport::MessageError& e) {
    refuse(src, static_cast<std::uint16_t>(message.type), e.what());
    return;
  }
  ++result_.sample_requests;
  protocol::SampleBatch out;
  out.request = q.request;
  out.ndim = replay_.ndim();
  out.state_dtype = replay_.state_dtype();
  const auto decision = limiter_.can_sample(q.n, replay_.size());
  out.granted = decision.allowed && replay_.size() > 0;
  if (!out.granted) {
    ++result_.sample_requests_refused;
    out.reason = decision.allowed ? "the buffer is empty" : decision.reason;
  } else {
    auto items = replay_.sample(q.n, sampler);
    out.states = std::move(items.states);
    out.float_states = std::move(items.float_states);
    out.log_rewards = std::move(items.log_rewards);
    out.trajectories = std::move(items.trajectories);
    for (const std::int32_t len : out.trajectories.lengths) {
      if (len > 0) ++result_.trajectories_served;
    }
    limiter_.record_sample(out.size());
    result_.samples_served += out.size();
    result_.per_sender[src].samples += out.size();
  }
  send(src, out);
}

void BufferManager::on_exit(int src, const transport::MessageView& message) {
  const auto bye = protocol::decode<protocol::TrainerExit>(message);
  const auto& sender = result_.per_sender[src];
  if (running_.erase(src) == 0) {
    spdlog::warn("buffer manager rank {}: trainer rank {} sent TRAINER_EXIT twice", me_, src);
  } else if (const auto feed = feeds_.find(src); feed != feeds_.end()) {
    // The end of its baseline feed: the trainer drains kBaseline up to BASELINE_FEED_END.
    send(src, protocol::BaselineFeedEnd{feed->second.updates});
  }
  if (bye.submissions != sender.submissions || bye.items != sender.items) {
    ++result_.exit_mismatches;
    spdlog::warn(
        "buffer manager rank {}: trainer rank {} says it sent {} submissions ({} items), "
        "{} ({} items) arrived",
        me_, src, bye.submissions, bye.items, sender.submissions, sender.items);
  }
}

void BufferManager::on_baseline_sync(const transport::MessageView& message) {
  adopt_sync(message);
  push_baselines();
}

}  // namespace gfn::roles
