#include "roles/buffer_manager/buffer_options.h"

#include "runtime/config/fields.h"

namespace gfn::roles {
namespace {

using B = BufferOptions;
using config::AsInvalid;
using config::at_least;
using config::non_negative;

/// What a manager keeps and how trainers submit.
void add_submission_fields(config::Fields<B>& f) {
  f.add("capacity", &B::capacity,
        "Items a manager keeps (its replay table keeps the highest rewards).", at_least(1),
        {"items"})
      .add("remote_buffer_freq", &B::remote_buffer_freq,
           "A trainer accumulates this many iterations' terminating states, then submits.",
           at_least(1), {"iterations"})
      .add("submit_mode", &B::submit_mode,
           "sync (wait for each SCORE), async (collect it at the next submission), "
           "fire_and_forget (no SCORE).",
           AsInvalid{})
      .add("payload", &B::payload,
           "full (terminating states, log rewards and trajectories: the manager may store "
           "them; a continuous environment's float32 states come without trajectories) or "
           "scoring_only (states and rewards, scored, never stored).",
           AsInvalid{})
      .add("store", &B::store, "The manager keeps submitted items (false: score only).")
      .add("baseline_filter", &B::baseline_filter,
           "Trainers send only items whose log reward is >= the manager's baseline.")
      .add("baseline_refresh_after", &B::baseline_refresh_after,
           "Fully filtered batches after which a trainer sends anyway, so the baseline can "
           "refresh.",
           at_least(1), {"batches"});
}

/// Baselines of the managers and the coordinator.
void add_baseline_fields(config::Fields<B>& f) {
  f.add("baseline", &B::baseline,
        "A manager's reward baseline: min, percentile (buffer.baseline_percentile of the "
        "buffer once full), ema (of incoming batch minima); non-finite rewards excluded.",
        AsInvalid{})
      .add("baseline_percentile", &B::baseline_percentile, "baseline: percentile's percentile.",
           config::in_range(0.0, 100.0))
      .add("baseline_ema_decay", &B::baseline_ema_decay, "baseline: ema's decay.",
           config::in_range_open(0.0, 1.0))
      .add("baseline_aggregate", &B::baseline_aggregate,
           "How the coordinator combines the managers' baselines.", AsInvalid{})
      .add("baseline_sync", &B::baseline_sync,
           "The coordinator sends the global baseline back to every manager (BASELINE_SYNC).")
      .add("baseline_report_interval", &B::baseline_report_interval,
           "A manager reports its baseline at most once per this many DATA messages.", at_least(1),
           {"messages"})
      .add("baseline_tolerance", &B::baseline_tolerance,
           "Log-reward change below which a baseline counts as unchanged (reports, syncs, "
           "pushes).",
           non_negative());
}

/// The manager's scorer (torchgfn ModesReplayBufferManager).
void add_score_fields(config::Fields<B>& f) {
  f.add("score_w_retained", &B::score_w_retained, "Score weight of the retained count.",
        non_negative())
      .add("score_w_novelty", &B::score_w_novelty,
           "Score weight of the novelty (distance to the nearest stored state).", non_negative())
      .add("score_w_reward", &B::score_w_reward, "Score weight of the reward sum.", non_negative())
      .add("score_w_mode_bonus", &B::score_w_mode_bonus, "Score weight of new modes.",
           non_negative())
      .add("score_p_norm", &B::score_p_norm, "Minkowski p of the novelty distances.",
           config::positive())
      .add("score_novelty", &B::score_novelty,
           "index (nearest-neighbour index, O(batch log n)) or brute_force (the reference, "
           "O(batch n)); the same score.",
           AsInvalid{})
      .add("score_cdist_max_bytes", &B::score_cdist_max_bytes,
           "brute_force: memory cap of one batch x buffer distance block.",
           at_least(std::int64_t{1}), {"bytes"})
      .add("score_ema_decay", &B::score_ema_decay, "Decay of the score's moving average.",
           config::in_range_open(0.0, 1.0));
}

/// Waits, remote sampling and the rate limiter.
void add_service_fields(config::Fields<B>& f) {
  f.add("drain_timeout_s", &B::drain_timeout_s,
        "Bound of a trainer's drain of pending sends and SCOREs before TRAINER_EXIT.",
        config::positive(), {"s"})
      .add("receive_wait", &B::receive_wait,
           "How a manager waits for its next message (mpi backend): spin (lowest latency) or "
           "sleep (less CPU, slower sync and async submitters).",
           AsInvalid{})
      .add("population_stats_every", &B::population_stats_every,
           "Iterations between the trainers' population statistics queries to the "
           "coordinator (0: never).",
           at_least(0), {"iterations"})
      .add("remote_sample_fraction", &B::remote_sample_fraction,
           "Share of a trainer's batch asked from its manager as replayed items.",
           config::in_unit_interval())
      .add("remote_batch_size", &B::remote_batch_size,
           "Replayed items each trainer asks from its manager per iteration on top of its "
           "share of train.batch_size, which is then all sampled forward (0: "
           "remote_sample_fraction decides). Each agent's own: more agents train on more "
           "replayed items for the same number of sampled trajectories.",
           at_least(std::int64_t{0}), {"items"})
      .add("remote_sampler", &B::remote_sampler,
           "The manager's sampler for remote samples: prioritized (proportional to R), "
           "uniform, or rank (proportional to 1 / (rank_weight * N + rank of R), rank 0 the "
           "highest of the N items held; gfn-diffusion's prioritized='rank').",
           AsInvalid{})
      .add("priority_exponent", &B::priority_exponent,
           "Exponent a of the manager's prioritized sampler: items are drawn in proportion to "
           "R^a (Reverb's priority_exponent; 1: proportional to R, > 1 favours the highest "
           "rewards, e.g. the modes over the states around them).",
           config::in_range(0.01, 100.0))
      .add("rank_weight", &B::rank_weight,
           "Weight k of the manager's rank sampler (remote_sampler: rank): item of rank r "
           "(0: the highest reward) among N is drawn in proportion to 1 / (k N + r); small k "
           "concentrates on the best items, large k approaches uniform (gfn-diffusion: 0.01).",
           config::in_range(1e-6, 1e6))
      .add("remote_paths", &B::remote_paths,
           "How a replayed item that came with its trajectory is trained on: submitted (that "
           "trajectory) or backward (a trajectory sampled back from its terminating state with "
           "the trainer's PB, as items without one always are).",
           AsInvalid{})
      .add("remote_sample_wait_s", &B::remote_sample_wait_s,
           "A refused sample request is retried this long, then the trainer goes on with "
           "fresh data.",
           non_negative(), {"s"})
      .add("samples_per_insert", &B::samples_per_insert,
           "Rate limiter (Reverb): sampled items per inserted item; 0: no ratio.", non_negative())
      .add("min_size_to_sample", &B::min_size_to_sample,
           "Rate limiter: items the table must hold before sampling.", at_least(std::int64_t{1}),
           {"items"})
      .add("rate_error_buffer", &B::rate_error_buffer,
           "Rate limiter: allowed deviation from samples_per_insert.", non_negative(), {"items"});
}

config::Fields<B> make_buffer_fields() {
  config::Fields<B> f;
  add_submission_fields(f);
  add_baseline_fields(f);
  add_score_fields(f);
  add_service_fields(f);
  return std::move(f).renamed(
      "remote_sample_prioritized",
      "buffer.remote_sampler: prioritized | uniform | rank (true was prioritized, false uniform)");
}

}  // namespace

const config::Fields<BufferOptions>& buffer_fields() {
  static const auto fields = make_buffer_fields();
  return fields;
}

}  // namespace gfn::roles
