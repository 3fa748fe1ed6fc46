#include "roles/trainer/trainer.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <torch/nn/module.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <set>
#include <thread>

#include <unistd.h>

#include "roles/protocol/messages.h"
#include "roles/protocol/replies.h"
#include "roles/trainer/async_spawner.h"
#include "roles/trainer/donor_puller.h"
#include "roles/trainer/final_model.h"
#include "roles/trainer/model_export.h"
#include "roles/trainer/payload.h"
#include "roles/trainer/spawn_state.h"
#include "roles/trainer/spawner.h"
#include "roles/trainer/submitter.h"
#include "roles/trainer/trainer_checkpoint.h"
#include "runtime/checkpoint/store.h"
#include "runtime/distributed/model_averaging.h"
#include "runtime/distributed/spawn/strategy.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/trajectories.h"
#include "runtime/gfn/trajectory_ops.h"
#include "runtime/gfn/validation.h"
#include "runtime/gfn/visited_states.h"
#include "runtime/output/distribution_csv.h"
#include "runtime/output/logp_logr_csv.h"
#include "runtime/output/progress.h"
#include "runtime/output/run_output.h"
#include "runtime/signals/stop_signal.h"
#include "runtime/timing/timing_table.h"
#include "transport/gather.h"

namespace gfn::roles {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void add_time(timing::TimingTable* table, const char* step, double seconds) {
  if (table) table->add(step, seconds);
}

/// Terminating states, log rewards and (full payloads) trajectories accumulated
/// between two submissions.
struct PendingBatch {
  std::vector<std::int64_t> states;
  std::vector<float> log_rewards;
  buffer::PackedTrajectories trajectories;  // full payloads (packed_trajectories.h)
  bool empty() const { return log_rewards.empty(); }
  /// The DATA payload for iteration `iteration`; leaves the batch empty.
  protocol::Submission take(std::int64_t iteration, int ndim) {
    protocol::Submission sub;
    sub.iteration = iteration;
    sub.ndim = ndim;
    sub.states = std::move(states);
    sub.log_rewards = std::move(log_rewards);
    sub.trajectories = std::move(trajectories);
    states.clear();
    log_rewards.clear();
    trajectories.clear();
    return sub;
  }
  void append(const at::Tensor& terminating_states, const at::Tensor& log_rewards_t) {
    roles::append_terminating_states(terminating_states, log_rewards_t, states, log_rewards);
  }
  /// Full payloads: the trajectories of the same items, packed (the one packer,
  /// core::pack_trajectories: Trajectories -> packed, the only layout change before the wire).
  void append_trajectories(const core::Trajectories& trajs) {
    core::pack_trajectories(trajs, trajectories);
  }
};

/// Union over the trainer group of every trainer's discovered modes (state indices).
std::int64_t global_modes_found(transport::Group& trainers, const core::ModeTracker* tracker) {
  const auto mine = tracker ? tracker->found() : std::vector<std::int64_t>{};
  transport::Bytes bytes(mine.size() * sizeof(std::int64_t));
  std::copy_n(reinterpret_cast<const std::uint8_t*>(mine.data()), bytes.size(), bytes.data());
  std::set<std::int64_t> all;
  for (const auto& b : transport::all_gather_bytes(trainers, bytes)) {
    const auto* p = reinterpret_cast<const std::int64_t*>(b.data());
    all.insert(p, p + b.size() / sizeof(std::int64_t));
  }
  return static_cast<std::int64_t>(all.size());
}

/// True when the trainers agree to stop before iteration `it`. A lone trainer
/// checks its signal every iteration; several trainers agree (all-reduce MAX over
/// the trainer group) at averaging iterations only, so that every trainer stops at
/// the same iteration and no collective is left unmatched.
bool stop_agreed(const TrainerSetup& setup, transport::Group& trainers, std::int64_t it,
                 int average_every) {
  if (!setup.stop) return false;
  if (trainers.size() == 1) return setup.stop->stop_requested();
  if ((it - 1) % average_every != 0 || it == 1) return false;
  std::int32_t flag = setup.stop->stop_requested() ? 1 : 0;
  trainers.all_reduce(&flag, 1, transport::DType::kInt32, transport::ReduceOp::kMax);
  return flag != 0;
}

/// Remote sampling: asks the manager for `n` replayed items; a refusal by its rate
/// limiter is retried every 20 ms for up to remote_sample_wait_s, then the trainer
/// proceeds with fresh data only.
using ReplayConsumer = std::function<void(const protocol::SampleBatch&)>;

/// The default consumer: items with a trajectory are trained on as given (replayed
/// in the environment, Learner::queue_replayed_trajectories), the others as backward
/// trajectories sampled with PB from their terminating states.
void queue_remote(core::Learner& learner, int ndim, const protocol::SampleBatch& batch) {
  const buffer::PackedTrajectories& all = batch.trajectories;
  buffer::PackedTrajectories seqs;  // the items that have a trajectory
  std::vector<std::int64_t> states;
  std::vector<float> rewards;
  std::size_t offset = 0;
  for (std::int64_t i = 0; i < batch.size(); ++i) {
    const std::int32_t len = all.empty() ? 0 : all.lengths[static_cast<std::size_t>(i)];
    if (len > 0) {
      seqs.append(all.actions.data() + offset, len);
      offset += static_cast<std::size_t>(len);
      continue;
    }
    states.insert(states.end(), batch.states.begin() + i * ndim,
                  batch.states.begin() + (i + 1) * ndim);
    rewards.push_back(batch.log_rewards[i]);
  }
  learner.queue_replayed_trajectories(seqs);
  if (!rewards.empty()) {
    const auto n = static_cast<std::int64_t>(rewards.size());
    learner.queue_replayed_states(at::tensor(states, at::kLong).view({n, ndim}),
                                  at::tensor(rewards, at::kFloat));
  }
}

void fetch_remote(Submitter& submitter, std::int64_t n, const roles::BufferOptions& options,
                  const ReplayConsumer& consumer, TrainerResult& result) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(options.remote_sample_wait_s);
  for (;;) {
    const auto batch = submitter.request_samples(n, options.remote_sampler);
    if (batch.granted) {
      result.remote_items += batch.size();
      consumer(batch);
      return;
    }
    if (Clock::now() >= deadline) {
      ++result.remote_refused;
      spdlog::debug("remote sampling refused ({}); proceeding with fresh data", batch.reason);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

/// GET_POPULATION_STATS to the coordinator, POPULATION_STATS back on tag kPopulation
/// (bounded wait); logged.
void log_population_stats(transport::Transport& transport, int coordinator, std::int64_t it,
                          double timeout_s) {
  protocol::send(transport, coordinator, protocol::PopulationStatsRequest{it});
  const auto stats = protocol::await_reply<protocol::PopulationStats>(
      transport, coordinator, timeout_s,
      fmt::format("trainer rank {}, population stats at iteration {}", transport.rank(), it));
  spdlog::info(
      "population stats at iteration {}: {} modes over all managers ({} reports, {} "
      "managers running), global baseline {}",
      it, stats.modes_found, stats.mode_reports, stats.managers_running,
      stats.has_baseline ? fmt::format("{:.4f}", stats.global_baseline) : "(none)");
}

/// This trainer's local metric for the spawn policy (spawn.metric; higher is better).
double local_metric(dist::spawn::SpawnMetric metric, const Submitter* submitter, double last_loss,
                    const core::Learner& learner) {
  switch (metric) {
    case dist::spawn::SpawnMetric::kScore:
      return submitter ? submitter->last_score().score : 0.0;
    case dist::spawn::SpawnMetric::kNegLoss:
      return -last_loss;
    case dist::spawn::SpawnMetric::kModesFound:
      return learner.mode_tracker() ? static_cast<double>(learner.mode_tracker()->n_found()) : 0.0;
  }
  return 0.0;
}

/// distribution.csv (runtime/output/distribution_csv.h): the exact terminating-state
/// distribution of the final PF beside the true one, for tools/gfn-plot.
void write_distribution(core::Learner& learner, const std::string& path) {
  at::NoGradGuard no_grad;
  const auto& env = learner.env();
  auto& module = learner.model();
  const bool was_training = module.is_training();
  module.eval();  // NoisyNet: the mean policy, as validation uses
  const auto learned =
      core::exact_terminating_distribution(learner.gflownet(), learner.preprocessor(), env);
  module.train(was_training);
  output::write_distribution_csv(path, env.terminating_states(), learned, env.true_distribution());
}

}  // namespace

TrainerResult run_trainer(const roles::ExperimentConfig& config, const TrainerSetup& setup) {
  auto& transport = *setup.transport;
  auto& trainers = *setup.trainer_group;
  auto& agents = *setup.agent_group;
  const bool leader = trainers.rank() == 0;
  const int num_trainers = trainers.size();
  const std::int64_t local_batch = config.train.batch_size / num_trainers;
  const std::int64_t iterations = config.iterations();
  // spawn.random_strategies: this agent's exploration drawn around the configured values
  // (runtime/distributed/spawn/strategy.h), redrawn when it is replaced.
  const std::uint64_t agent_seed = config.train.seed + static_cast<std::uint64_t>(transport.rank());
  dist::spawn::AgentStrategy strategy =
      config.spawn.random_strategies
          ? dist::spawn::draw_strategy(config.spawn, config.train, config.model, agent_seed, 0)
          : dist::spawn::configured_strategy(config.train, config.model);
  core::TrainOptions train_options = config.train;
  core::ModelOptions model_options = config.model;
  train_options.epsilon = strategy.epsilon;
  train_options.temperature = strategy.temperature;
  model_options.noisy_std_init = strategy.noisy_std_init;
  // ... and its agent group's number of noisy layers, the same for every member so that
  // their parameters combine (drawn once per group from train.seed + the group's first rank).
  const int n_noisy_layers =
      config.spawn.random_strategies
          ? dist::spawn::draw_group_noisy_layers(
                config.model,
                config.train.seed + static_cast<std::uint64_t>(agents.global_ranks().front()))
          : config.model.n_noisy_layers;
  model_options.n_noisy_layers = n_noisy_layers;
  core::Learner learner(config.env, model_options, train_options, agent_seed, config.replay,
                        config.engine);
  if (leader && !config.model.init_from.empty()) {
    spdlog::info("model.init_from: every trainer starts from {}", config.model.init_from);
  }
  if (config.spawn.random_strategies) {
    spdlog::info(
        "trainer rank {} strategy: epsilon {:.4f}, temperature {:.4f}, noisy sigma_0 {:.4f}, "
        "{} noisy layer(s) (its agent group's)",
        transport.rank(), strategy.epsilon, strategy.temperature, strategy.noisy_std_init,
        n_noisy_layers);
  }
  // Width of a state row (HyperGrid: env.ndim; BitSequence: seq_size / word_size).
  const int ndim = static_cast<int>(learner.env().state_dim());
  // torchgfn's l1_dist: the last validation.n_samples terminating states this (leader)
  // trainer sampled during training (runtime/gfn/visited_states.h).
  std::optional<core::VisitedTerminatingStates> visited;
  if (leader && config.validation.enabled && learner.env().enumerable()) {
    visited.emplace(learner.env(), config.validation.n_samples);
  }

  std::optional<output::CsvWriter> metrics;
  std::optional<output::CsvWriter> training;         // every output.log_every iterations (gfn-plot)
  std::optional<output::ProgressReporter> progress;  // output.progress (progress.h)
  const bool resumed = setup.resume != nullptr;
  if (leader) {
    output::ensure_directory(config.output.dir);
    if (resumed) {  // rows written after the checkpoint are written again
      drop_csv_rows_after(config.output.dir + "/metrics.csv", setup.resume->manifest.iteration);
      drop_csv_rows_after(config.output.dir + "/training.csv", setup.resume->manifest.iteration);
    }
    metrics.emplace(
        config.output.dir + "/metrics.csv",
        std::vector<std::string>{"iteration", "trajectories", "loss", "logz", "l1_exact", "jsd",
                                 "logz_error", "l1_sampled", "modes_found", "elapsed_s",
                                 "l1_visited", "spearman_logp_logr", "n_visited"},
        resumed);
    progress.emplace(
        output::resolve_progress_mode(config.output.progress, isatty(fileno(stderr)) != 0),
        config.output.progress_every_s);
    training.emplace(config.output.dir + "/training.csv",
                     std::vector<std::string>{"iteration", "trajectories", "elapsed_s", "loss",
                                              "logz", "modes_found"},
                     resumed);
  }

  // train.average: "models" averages parameters every average_every iterations;
  // "gradients" makes the members' models identical once, then averages gradients
  // every iteration between backward and the optimizer step (as DDP does). With the flat
  // optimizer (runtime/gfn/fast/flat_adam.h) both all-reduce its one parameter / gradient
  // buffer in place (runtime/distributed/model_averaging.h).
  const bool average_gradients =
      config.train.average == core::TrainAverage::kGradients && agents.size() > 1;
  if (average_gradients) {
    dist::average_models(learner.model(), agents);
    learner.set_gradient_hook([&] { dist::average_gradients(learner.model(), agents); });
  }

  // spawn.policy selective: at every average_every iteration the agent group replaces its
  // worst agents instead of averaging everyone (roles/trainer/spawner.h).
  const bool selective = config.spawn.policy == dist::spawn::SpawnPolicy::kSelective &&
                         !average_gradients && agents.size() > 1;
  // spawn.mode async: the same decisions without a barrier (roles/trainer/async_spawner.h).
  const bool async_spawn = selective && config.spawn.mode == dist::spawn::SpawnMode::kAsync;
  // spawn.policy donor_pull: one-sided windows; a dying agent pulls k random donors
  // (roles/trainer/donor_puller.h; mpi backend, checked by the configuration).
  const bool donor_pull = config.spawn.policy == dist::spawn::SpawnPolicy::kDonorPull &&
                          !average_gradients && agents.size() > 1;
  std::optional<Spawner> spawner;
  std::optional<AsyncSpawner> async_spawner;
  std::optional<DonorPuller> puller;
  if (selective || donor_pull) {
    std::function<void(std::int64_t)> redraw;
    if (config.spawn.random_strategies) {
      redraw = [&](std::int64_t draw) {
        strategy =
            dist::spawn::draw_strategy(config.spawn, config.train, config.model, agent_seed, draw);
        learner.set_exploration(strategy.epsilon, strategy.temperature);
        learner.set_noisy_std_init(strategy.noisy_std_init);
      };
    }
    if (async_spawn || donor_pull) {
      AsyncSpawnHooks hooks;
      hooks.on_respawn = std::move(redraw);
      hooks.reinitialize = [&](std::uint64_t seed) {
        learner.reinitialize_parameters(seed, config.spawn.momentum);
      };
      hooks.after_replace = [&] { learner.reset_optimizer_state(); };
      if (donor_pull) {
        puller.emplace(config.spawn, learner.model().parameters(), agents, agent_seed,
                       std::move(hooks));
      } else {
        async_spawner.emplace(config.spawn, learner.model().parameters(), transport, agents,
                              agent_seed, config.transport.timeout_s, std::move(hooks));
      }
    } else {
      spawner.emplace(config.spawn, learner, agents, agent_seed, std::move(redraw));
    }
  }

  TrainerResult result;
  result.engine = learner.engine_paths();
  ModeTimeline timeline;
  PendingBatch pending;
  std::optional<Submitter> submitter;
  if (setup.assigned_buffer >= 0) {
    submitter.emplace(transport, setup.assigned_buffer, submitter_options(config));
  }
  const std::int64_t remote_n =
      static_cast<std::int64_t>(config.buffer.remote_sample_fraction * local_batch + 0.5);
  // Remote sampling: replayed terminating states join the next iteration's batch as
  // backward trajectories (Learner::queue_replayed_states), unless the setup diverts them.
  const ReplayConsumer consumer =
      setup.replay_consumer ? setup.replay_consumer
                            : ReplayConsumer([&learner, ndim](const protocol::SampleBatch& b) {
                                queue_remote(learner, ndim, b);
                              });
  const bool full_payload = config.buffer.payload == roles::Payload::kFull;
  std::int64_t pending_iterations = 0;
  auto t_start = Clock::now();
  double last_loss = 0.0;
  std::int64_t first_it = 1;
  if (resumed) {  // after every set-up step that draws from LibTorch's default generator
    const auto loop =
        decode_trainer_state(checkpoint::read_rank_file(*setup.resume, transport.rank()), learner,
                             visited ? &*visited : nullptr);
    first_it = loop.iteration + 1;
    result.trajectories = loop.trajectories;
    result.iterations = loop.iteration;
    result.remote_items = loop.remote_items;
    result.remote_refused = loop.remote_refused;
    last_loss = loop.last_loss;
    if (submitter) {  // the manager restores its side from its own file (roles/run_job.cc)
      if (loop.submitter.empty()) {
        throw std::runtime_error("checkpoint: the trainer's state has no submitter state");
      }
      submitter->restore_state(loop.submitter);
      pending.states = loop.pending_states;
      pending.log_rewards = loop.pending_log_rewards;
      pending.trajectories = loop.pending_trajectories;
      pending_iterations = loop.pending_iterations;
    }
    timeline.restore(loop.firsts);
    if (spawner || async_spawner || puller) {  // the spawn policy (roles/trainer/spawn_state.h)
      if (loop.spawn.empty()) {
        throw std::runtime_error("checkpoint: the trainer's state has no spawn policy state");
      }
      SpawnState spawn = decode_spawn_state(loop.spawn);
      if (config.spawn.random_strategies) {  // the draw it had (the Learner restored its values)
        strategy = dist::spawn::draw_strategy(config.spawn, config.train, config.model, agent_seed,
                                              spawn.times_replaced);
      }
      if (spawner) spawner->restore_state(std::move(spawn));
      if (async_spawner) async_spawner->restore_state(std::move(spawn));
      if (puller) {
        const double metric = local_metric(config.spawn.metric, submitter ? &*submitter : nullptr,
                                           last_loss, learner);
        puller->restore_state(std::move(spawn), loop.iteration, metric);
      }
    }
    t_start -=
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(loop.elapsed_s));
    if (leader) {
      spdlog::info("resumed from '{}' after iteration {}", setup.resume->directory, loop.iteration);
    }
  }
  std::int64_t last_checkpoint = first_it - 1;
  // Collective over the trainers: every trainer saves its state at iteration `at`; with a
  // buffer manager, after the manager has saved its own (Submitter::checkpoint).
  const auto take_checkpoint = [&](std::int64_t at) {
    const auto t0 = Clock::now();
    std::vector<checkpoint::FileEntry> manager_file;
    TrainerLoopState loop;
    loop.iteration = at;
    loop.trajectories = result.trajectories;
    loop.last_loss = last_loss;
    loop.elapsed_s = seconds_since(t_start);
    loop.firsts = timeline.firsts();
    loop.remote_items = result.remote_items;
    loop.remote_refused = result.remote_refused;
    if (submitter) {
      const auto done = submitter->checkpoint(at, config.transport.timeout_s);
      manager_file.push_back({setup.assigned_buffer,
                              checkpoint::rank_file_name(setup.assigned_buffer), done.bytes,
                              done.crc32});
      if (done.coordinator_rank >= 0) {  // the coordinator's file, through the manager
        manager_file.push_back({done.coordinator_rank,
                                checkpoint::rank_file_name(done.coordinator_rank),
                                done.coordinator_bytes, done.coordinator_crc32});
      }
      loop.submitter = submitter->save_state();
      loop.pending_states = pending.states;
      loop.pending_log_rewards = pending.log_rewards;
      loop.pending_trajectories = pending.trajectories;
      loop.pending_iterations = pending_iterations;
    }
    if (async_spawner) async_spawner->finish(at);  // nothing in flight in the saved state
    if (spawner) loop.spawn = encode_spawn_state(spawner->save_state());
    if (async_spawner) loop.spawn = encode_spawn_state(async_spawner->save_state(at));
    if (puller) loop.spawn = encode_spawn_state(puller->save_state());
    const auto dir = write_trainer_checkpoint(
        config, setup, at, encode_trainer_state(learner, loop, visited ? &*visited : nullptr),
        manager_file);
    last_checkpoint = at;
    add_time(setup.timing, "checkpoint", seconds_since(t0));
    if (leader) spdlog::info("checkpoint after iteration {}: {}", at, dir);
  };

  for (std::int64_t it = first_it; it <= iterations; ++it) {
    if (stop_agreed(setup, trainers, it, config.train.average_every)) {
      result.stopped_by_signal = true;
      spdlog::warn("stop requested ({}): stopping after iteration {}",
                   setup.stop->signal_name().empty() ? "stop" : setup.stop->signal_name(), it - 1);
      if (config.checkpoint.on_signal && it - 1 > last_checkpoint) take_checkpoint(it - 1);
      break;
    }
    const auto t_iter = Clock::now();
    if (setup.timing) setup.timing->begin_iteration();

    const auto step = learner.train_iteration(local_batch);
    add_time(setup.timing, "sample", step.seconds.sample);
    add_time(setup.timing, "loss", step.seconds.loss);
    add_time(setup.timing, "backward", step.seconds.backward);
    add_time(setup.timing, "optimizer", step.seconds.optimizer);
    if (average_gradients) add_time(setup.timing, "average", step.seconds.gradient_hook);
    last_loss = step.loss;
    result.trajectories += local_batch;
    if (visited) visited->add(step.terminating_states);
    timeline.observe(learner.mode_tracker(), it, seconds_since(t_start));

    if (setup.assigned_buffer >= 0) {
      const auto t0 = Clock::now();
      pending.append(step.terminating_states, step.log_rewards);
      if (full_payload) pending.append_trajectories(step.fresh);
      if (++pending_iterations == config.buffer.remote_buffer_freq || it == iterations) {
        submitter->submit(pending.take(it, ndim));
        pending_iterations = 0;
      }
      add_time(setup.timing, "submit", seconds_since(t0));
      if (remote_n > 0) {
        const auto t1 = Clock::now();
        fetch_remote(*submitter, remote_n, config.buffer, consumer, result);
        add_time(setup.timing, "remote_sample", seconds_since(t1));
      }
    }
    if (setup.coordinator >= 0 && setup.assigned_buffer >= 0 &&
        config.buffer.population_stats_every > 0 &&
        it % config.buffer.population_stats_every == 0) {
      log_population_stats(transport, setup.coordinator, it, config.transport.timeout_s);
    }

    if (donor_pull) {
      // Every iteration: refresh the window; at decision points, pull if dying.
      const auto t0 = Clock::now();
      const double metric =
          local_metric(config.spawn.metric, submitter ? &*submitter : nullptr, last_loss, learner);
      if (it % config.train.average_every == 0) puller->step(it, metric);
      puller->expose(it, metric);
      add_time(setup.timing, "average", seconds_since(t0));
    } else if (async_spawn) {
      // No barrier: post this decision point's metric, then take in whatever has arrived.
      const auto t0 = Clock::now();
      if (it % config.train.average_every == 0) {
        async_spawner->post(it, local_metric(config.spawn.metric, submitter ? &*submitter : nullptr,
                                             last_loss, learner));
      }
      async_spawner->progress(it);
      add_time(setup.timing, "average", seconds_since(t0));
    } else if (selective && it % config.train.average_every == 0) {
      const auto t0 = Clock::now();
      const auto& event = spawner->step(
          it,
          local_metric(config.spawn.metric, submitter ? &*submitter : nullptr, last_loss, learner));
      if (event.replaced_any && agents.rank() == 0) {
        spdlog::info(
            "spawn at iteration {}: agents {} replaced by {} (weights {:.3f}), metrics {:.4g}", it,
            fmt::join(event.replaced, ","), fmt::join(event.donors, ","),
            fmt::join(event.weights, ","), fmt::join(event.metrics, ","));
      }
      add_time(setup.timing, "average", seconds_since(t0));
    } else if (!selective && !average_gradients && agents.size() > 1 &&
               (it % config.train.average_every == 0 || it == iterations)) {
      const auto t0 = Clock::now();
      dist::average_models(learner.model(), agents);
      add_time(setup.timing, "average", seconds_since(t0));
    }

    const bool last = it == iterations;
    const bool validate_now =
        config.validation.enabled &&
        (last || (config.validation.interval > 0 && it % config.validation.interval == 0));
    // Only the leader validates; the others record 0 s so that the time spent
    // waiting for it shows up in the load-imbalance report.
    if (validate_now && !leader) add_time(setup.timing, "validate", 0.0);
    if (validate_now && leader) {
      const auto t0 = Clock::now();
      const auto v = learner.validate(config.validation, visited ? &*visited : nullptr);
      add_time(setup.timing, "validate", seconds_since(t0));
      metrics->append({std::to_string(it), std::to_string(it * config.train.batch_size),
                       fmt::format("{:.6g}", step.loss), fmt::format("{:.6g}", step.log_z),
                       fmt::format("{:.6g}", v.l1_exact), fmt::format("{:.6g}", v.jsd),
                       fmt::format("{:.6g}", v.log_z_error), fmt::format("{:.6g}", v.l1_sampled),
                       std::to_string(v.n_modes_found),
                       fmt::format("{:.3f}", seconds_since(t_start)),
                       fmt::format("{:.6g}", v.l1_visited),
                       fmt::format("{:.6g}", v.spearman_logp_logr), std::to_string(v.n_visited)});
      progress->clear_line();
      spdlog::info("validation at iteration {}: {} ({:.2f} s)", it, core::describe(v), v.seconds);
      if (last) {
        FinalMetrics f;
        f.l1_exact = v.l1_exact;
        f.l1_sampled = v.l1_sampled;
        f.l1_visited = v.l1_visited;
        f.spearman_logp_logr = v.spearman_logp_logr;
        f.jsd = v.jsd;
        f.logz_error = v.log_z_error;
        f.logz = v.log_z;
        f.n_modes = learner.env().n_modes();
        if (v.test_log_p.defined()) {
          output::write_logp_logr_csv(config.output.dir + "/logp_logr.csv", v.test_log_p,
                                      v.test_log_r);
        }
        result.final_metrics = f;
        result.has_final_metrics = true;
      }
    }
    if (leader && config.output.log_every > 0 && (it % config.output.log_every == 0 || last)) {
      const auto* modes = learner.mode_tracker();
      training->append({std::to_string(it), std::to_string(it * config.train.batch_size),
                        fmt::format("{:.3f}", seconds_since(t_start)),
                        fmt::format("{:.6g}", last_loss), fmt::format("{:.6g}", learner.log_z()),
                        std::to_string(modes ? modes->n_found() : 0)});
    }
    if (leader && config.output.log_every > 0 && it % config.output.log_every == 0) {
      const auto* modes = learner.mode_tracker();
      progress->clear_line();
      spdlog::info("iteration {}/{}: loss {:.4f}, logZ {:.4f}, modes found (this trainer) {}/{}",
                   it, iterations, last_loss, learner.log_z(), modes ? modes->n_found() : 0,
                   learner.env().n_modes());
    }
    result.iteration_ms.add(1e3 * seconds_since(t_iter));
    result.iterations = it;
    if (config.checkpoint.every > 0 && it % config.checkpoint.every == 0) take_checkpoint(it);
    if (progress) {
      const auto* modes = learner.mode_tracker();
      progress->update({it, iterations, it * config.train.batch_size, seconds_since(t_start),
                        last_loss, modes ? modes->n_found() : 0, learner.env().n_modes()});
    }
  }
  if (progress) progress->finish();

  // The asynchronous spawn policy's last decisions and replacements (every trainer of the
  // group stops after the same iteration, so every posted metric arrives).
  if (async_spawner) async_spawner->finish(result.iterations);
  // donor_pull: free the window (collective over the agent group: every member has stopped
  // reading, so no MPI_Get targets a freed window).
  if (puller) puller->close();

  // Drain: anything accumulated but not yet submitted (a stop between submissions),
  // and the SCORE still outstanding in async mode; then TRAINER_EXIT.
  if (submitter) {
    if (!pending.empty()) submitter->submit(pending.take(result.iterations, ndim));
    submitter->exit(config.buffer.drain_timeout_s);  // drain, TRAINER_EXIT, feed drained
    result.submissions = submitter->submissions();
    result.items_retained = submitter->items_retained();
    result.items_sent = submitter->items_sent();
    result.items_filtered = submitter->items_filtered();
    result.batches_skipped = submitter->batches_skipped();
    result.baseline_updates = submitter->baseline_updates();
  }

  if (leader && config.validation.enabled && learner.env().enumerable()) {
    write_distribution(learner, config.output.dir + "/distribution.csv");
  }
  if (leader) write_final_model(learner, config.output.dir + "/" + kFinalModelFile);
  if (leader && config.output.export_model) export_model(learner, config);
  result.remote_trained = learner.remote_trained();
  result.remote_trajectories_trained = learner.remote_trajectories_trained();
  const auto found = global_modes_found(trainers, learner.mode_tracker());
  result.final_metrics.modes_found = found;
  result.final_metrics.n_modes = learner.env().n_modes();

  AgentReport mine;
  mine.rank = transport.rank();
  mine.firsts = timeline.firsts();
  const nlohmann::json strategy_json = {{"epsilon", strategy.epsilon},
                                        {"temperature", strategy.temperature},
                                        {"n_noisy_layers", n_noisy_layers},
                                        {"noisy_std_init", strategy.noisy_std_init},
                                        {"random", config.spawn.random_strategies}};
  mine.spawn_json = agent_spawn_json(transport.rank(),
                                     spawner         ? spawner->events()
                                     : async_spawner ? async_spawner->events()
                                     : puller        ? puller->events()
                                                     : std::vector<SpawnEvent>{},
                                     agents.rank(),
                                     learner.mode_tracker() ? learner.mode_tracker()->n_found() : 0,
                                     strategy_json.dump());
  result.agent_reports = gather_agent_reports(trainers, mine);
  return result;
}

}  // namespace gfn::roles
