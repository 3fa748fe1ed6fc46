// BufferClient (roles/trainer/buffer_client.h).
#include "roles/trainer/buffer_client.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "roles/protocol/codec.h"
#include "roles/protocol/replies.h"
#include "roles/trainer/payload.h"
#include "roles/trainer/step_timer.h"
#include "roles/trainer/trainer_checkpoint.h"
#include "runtime/checkpoint/store.h"
#include "runtime/gfn/agent.h"
#include "runtime/gfn/continuous/learner.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/trajectory_ops.h"

namespace gfn::roles {

void queue_remote_items(core::Learner& learner, int ndim, bool backward,
                        const protocol::SampleBatch& batch) {
  const buffer::PackedTrajectories& all = batch.trajectories;
  buffer::PackedTrajectories seqs;  // the items that have a trajectory
  std::vector<std::int64_t> states;
  std::vector<float> rewards;
  std::size_t offset = 0;
  for (std::int64_t i = 0; i < batch.size(); ++i) {
    const std::int32_t len = all.empty() ? 0 : all.lengths[static_cast<std::size_t>(i)];
    if (len > 0 && !backward) {
      seqs.append(all.actions.data() + offset, len);
      offset += static_cast<std::size_t>(len);
      continue;
    }
    offset += static_cast<std::size_t>(len);
    states.insert(states.end(), batch.states.begin() + i * ndim,
                  batch.states.begin() + (i + 1) * ndim);
    rewards.push_back(batch.log_rewards[i]);
  }
  learner.batches().queue_trajectories(seqs);
  if (!rewards.empty()) {
    const auto n = static_cast<std::int64_t>(rewards.size());
    learner.batches().queue_states(at::tensor(states, at::kLong).view({n, ndim}),
                                   at::tensor(rewards, at::kFloat));
  }
}

void queue_remote_states(core::ContinuousLearner& learner, const protocol::SampleBatch& batch) {
  if (batch.size() == 0) return;
  if (batch.state_dtype != buffer::StateDtype::kFloat32 || batch.ndim != learner.env().dim() ||
      batch.float_states.size() != static_cast<std::size_t>(batch.size() * batch.ndim)) {
    throw std::invalid_argument(fmt::format(
        "remote items for a continuous agent: need float32 states of width {}, got {} of width {}",
        learner.env().dim(),
        batch.state_dtype == buffer::StateDtype::kFloat32 ? "float32" : "int64", batch.ndim));
  }
  // A copy: the learner keeps the rows, the batch's vector is the reply's.
  learner.queue_states(at::tensor(batch.float_states, at::kFloat).view({batch.size(), batch.ndim}));
}

namespace {

using ReplayConsumer = std::function<void(const protocol::SampleBatch&)>;

ReplayConsumer consumer_of(const TrainerSetup& setup, core::Agent& agent, int ndim, bool backward) {
  if (setup.replay_consumer) return setup.replay_consumer;
  core::Learner* learner = agent.discrete();
  if (!learner) {
    core::ContinuousLearner* continuous = agent.continuous();
    return [continuous](const protocol::SampleBatch& b) { queue_remote_states(*continuous, b); };
  }
  return [learner, ndim, backward](const protocol::SampleBatch& b) {
    queue_remote_items(*learner, ndim, backward, b);
  };
}

/// A discrete agent's state width (HyperGrid: env.ndim; BitSequence: seq_size / word_size);
/// 0 for a continuous agent (taken from its first batch).
int state_width(const core::Learner* learner) {
  return learner ? static_cast<int>(learner->env().state_dim()) : 0;
}

std::int64_t remote_items_per_iteration(const BufferOptions& options, std::int64_t local_batch) {
  return options.remote_batch_size > 0
             ? options.remote_batch_size
             : static_cast<std::int64_t>(options.remote_sample_fraction * local_batch + 0.5);
}

}  // namespace

BufferClient::BufferClient(const roles::ExperimentConfig& config, const TrainerSetup& setup,
                           core::Agent& agent, std::int64_t local_batch, std::int64_t iterations)
    : config_(config),
      setup_(setup),
      learner_(agent.discrete()),
      iterations_(iterations),
      ndim_(state_width(learner_)),
      remote_n_(remote_items_per_iteration(config.buffer, local_batch)),
      consumer_(
          consumer_of(setup, agent, ndim_, config.buffer.remote_paths == RemotePaths::kBackward)),
      submitter_(*setup.transport, setup.assigned_buffer, submitter_options(config)) {}

void BufferClient::after_step(std::int64_t iteration, const core::IterationResult& step,
                              TrainerResult& result) {
  const auto t0 = TrainerClock::now();
  submit_when_due(iteration, step);
  add_time(setup_.timing, "submit", seconds_since(t0));
  if (remote_n_ > 0) {
    const auto t1 = TrainerClock::now();
    fetch_remote(result);
    add_time(setup_.timing, "remote_sample", seconds_since(t1));
  }
  const int every = config_.buffer.population_stats_every;
  if (setup_.coordinator >= 0 && every > 0 && iteration % every == 0) {
    log_population_stats(iteration);
  }
}

void BufferClient::submit_when_due(std::int64_t iteration, const core::IterationResult& step) {
  if (!learner_) {  // a continuous agent: float32 [F, d] states, no trajectories
    ndim_ = static_cast<int>(step.terminating_states.size(1));
    append_float_terminating_states(step.terminating_states, step.log_rewards,
                                    pending_.float_states, pending_.log_rewards);
  } else {
    append_terminating_states(step.terminating_states, step.log_rewards, pending_.states,
                              pending_.log_rewards);
    // Full payloads: the trajectories of the same items, packed (the one packer,
    // core::pack_trajectories: Trajectories -> packed, the only layout change before the wire).
    if (config_.buffer.payload == roles::Payload::kFull) {
      core::pack_trajectories(step.fresh, pending_.trajectories);
    }
  }
  if (++pending_.iterations == config_.buffer.remote_buffer_freq || iteration == iterations_) {
    submitter_.submit(take_pending(iteration));
    pending_.iterations = 0;
  }
}

protocol::Submission BufferClient::take_pending(std::int64_t iteration) {
  protocol::Submission sub;
  sub.iteration = iteration;
  sub.ndim = ndim_;
  sub.state_dtype = learner_ ? buffer::StateDtype::kInt64 : buffer::StateDtype::kFloat32;
  sub.states = std::move(pending_.states);
  sub.float_states = std::move(pending_.float_states);
  sub.log_rewards = std::move(pending_.log_rewards);
  sub.trajectories = std::move(pending_.trajectories);
  pending_.states.clear();
  pending_.float_states.clear();
  pending_.log_rewards.clear();
  pending_.trajectories.clear();
  return sub;
}

/// Remote sampling: asks the manager for remote_n_ replayed items; a refusal by its rate
/// limiter is retried every 20 ms for up to buffer.remote_sample_wait_s, then the trainer
/// proceeds with fresh data only.
void BufferClient::fetch_remote(TrainerResult& result) {
  const auto& options = config_.buffer;
  const auto deadline =
      TrainerClock::now() + std::chrono::duration<double>(options.remote_sample_wait_s);
  for (;;) {
    const auto batch = submitter_.request_samples(remote_n_, options.remote_sampler);
    if (batch.granted) {
      result.remote_items += batch.size();
      consumer_(batch);
      return;
    }
    if (TrainerClock::now() >= deadline) {
      ++result.remote_refused;
      spdlog::debug("remote sampling refused ({}); proceeding with fresh data", batch.reason);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

/// GET_POPULATION_STATS to the coordinator, POPULATION_STATS back on tag kPopulation
/// (bounded wait); logged.
void BufferClient::log_population_stats(std::int64_t iteration) {
  auto& transport = *setup_.transport;
  const int coordinator = setup_.coordinator;
  protocol::send(transport, coordinator, protocol::PopulationStatsRequest{iteration});
  const auto stats = protocol::await_reply<protocol::PopulationStats>(
      transport, coordinator, config_.transport.timeout_s,
      fmt::format("trainer rank {}, population stats at iteration {}", transport.rank(),
                  iteration));
  spdlog::info(
      "population stats at iteration {}: {} modes over all managers ({} reports, {} "
      "managers running), global baseline {}",
      iteration, stats.modes_found, stats.mode_reports, stats.managers_running,
      stats.has_baseline ? fmt::format("{:.4f}", stats.global_baseline) : "(none)");
}

std::vector<checkpoint::FileEntry> BufferClient::checkpoint(std::int64_t iteration,
                                                            TrainerLoopState& loop) {
  const int manager = setup_.assigned_buffer;
  const auto done = submitter_.checkpoint(iteration, config_.transport.timeout_s);
  std::vector<checkpoint::FileEntry> files;
  files.push_back({manager, checkpoint::rank_file_name(manager), done.bytes, done.crc32});
  if (done.coordinator_rank >= 0) {  // the coordinator's file, through the manager
    files.push_back({done.coordinator_rank, checkpoint::rank_file_name(done.coordinator_rank),
                     done.coordinator_bytes, done.coordinator_crc32});
  }
  loop.submitter = submitter_.save_state();
  loop.pending_states = pending_.states;
  loop.pending_float_states = pending_.float_states;
  loop.pending_log_rewards = pending_.log_rewards;
  loop.pending_trajectories = pending_.trajectories;
  loop.pending_iterations = pending_.iterations;
  return files;
}

void BufferClient::restore(const TrainerLoopState& loop) {
  // The manager restores its side from its own file (roles/run_job.cc).
  if (loop.submitter.empty()) {
    throw std::runtime_error("checkpoint: the trainer's state has no submitter state");
  }
  submitter_.restore_state(loop.submitter);
  pending_.states = loop.pending_states;
  pending_.float_states = loop.pending_float_states;
  if (!learner_ && !loop.pending_log_rewards.empty()) {
    ndim_ = static_cast<int>(loop.pending_float_states.size() / loop.pending_log_rewards.size());
  }
  pending_.log_rewards = loop.pending_log_rewards;
  pending_.trajectories = loop.pending_trajectories;
  pending_.iterations = loop.pending_iterations;
}

void BufferClient::finish(std::int64_t iteration, TrainerResult& result) {
  // Anything accumulated but not yet submitted (a stop between submissions), and the SCORE
  // still outstanding in async mode; then TRAINER_EXIT.
  if (!pending_.empty()) submitter_.submit(take_pending(iteration));
  submitter_.exit(config_.buffer.drain_timeout_s);  // drain, TRAINER_EXIT, feed drained
  result.submissions = submitter_.submissions();
  result.items_retained = submitter_.items_retained();
  result.items_sent = submitter_.items_sent();
  result.items_filtered = submitter_.items_filtered();
  result.batches_skipped = submitter_.batches_skipped();
  result.baseline_updates = submitter_.baseline_updates();
}

}  // namespace gfn::roles
