#pragma once
// The batch of one training iteration, assembled from up to four sources (the Learner,
// learner.h, trains on what assemble() returns):
//  * fresh: trajectories sampled forward from s0 by the evaluator (evaluator.h);
//  * local search (local_search.loops = L > 0; local_search.h, Kim et al. 2024): the fresh
//    trajectories are M = floor(F / (1 + L)) sampled from s0 and searched, then F - M (1 + L)
//    more from s0, then the M proposals of each of the L rounds, accepted or not. All F count
//    as fresh: the budget, the terminating states submitted to a buffer manager and the modes
//    found include every proposal;
//  * local replay buffer (replay.kind != none): a replay table (runtime/buffer/table.h,
//    local_table_options) holding the trajectories packed (pack_trajectories,
//    trajectory_ops.h), torchgfn train_hypergrid semantics: the F fresh trajectories are added
//    FIRST; then, once it holds max(replay.warmup, R) trajectories, R = round(replay.fraction
//    * F) are drawn from it (possibly including the ones just added, as in torchgfn) and
//    replace the last R fresh ones (fraction 1 = torchgfn: the whole batch from the buffer);
//  * remote items (from the trainer's buffer manager): trajectories queued with
//    queue_trajectories (full payloads, trained as given) and terminating states queued with
//    queue_states, each becoming a trajectory sampled BACKWARD from it with PB
//    (sample_backward_actions, sampler.h). Used at the next iteration, trajectories first, at
//    most the batch's size of them; the rest are dropped.
// Batch = [first F - R fresh] + [R replayed] + [remote trajectories] + [remote states].
//
// The size of an iteration's batch and its split over the sources is computed in one place,
// shares(). When the evaluator kept the fresh trajectories' outputs (saved outputs), the
// other parts get theirs from one model pass each (Evaluator::attach_outputs), so the whole
// batch keeps them.
//
// Checkpoints: save_state / load_state (batch_assembly_state.cc) write the counters, the
// local replay buffer and the queued remote items into the Learner's archive.
//
// Not thread-safe: the Learner's thread owns it.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>

#include "runtime/buffer/options.h"
#include "runtime/gfn/local_search_options.h"
#include "runtime/gfn/trajectories.h"

namespace gfn::buffer {
class ReplayTable;
struct PackedTrajectories;
}  // namespace gfn::buffer
namespace torch::serialize {
class OutputArchive;
class InputArchive;
}  // namespace torch::serialize

namespace gfn::core {

class Environment;
class Evaluator;
struct SamplerOptions;

/// How an iteration's batch divides over its sources (before local replay replaces fresh
/// trajectories): total = fresh + remote_trajectories + remote_states.
struct BatchShares {
  std::int64_t total = 0;
  std::int64_t fresh = 0;                ///< sampled forward (and searched) this iteration
  std::int64_t remote_trajectories = 0;  ///< queued remote trajectories, trained as given
  std::int64_t remote_states = 0;        ///< queued remote states, sampled backward
};

/// An assembled batch and its make-up.
struct AssembledBatch {
  Trajectories batch;  ///< every trajectory trained on (saved outputs when the evaluator kept them)
  /// The fresh trajectories (what a trainer submits), saved outputs cleared; their
  /// terminating states int64 [F, state_dim] and log rewards float32 [F] (log R).
  Trajectories fresh;
  std::int64_t n_fresh = 0;     ///< fresh trajectories in the batch (F - R)
  std::int64_t n_replayed = 0;  ///< from the local replay buffer (R)
  std::int64_t n_remote = 0;    ///< remote trajectories and states
};

/// Totals since construction (restored by load_state).
struct BatchCounts {
  std::int64_t sampled = 0;              ///< sampled forward, local search's proposals included
  std::int64_t replayed = 0;             ///< trained on from the local replay buffer
  std::int64_t remote = 0;               ///< remote items trained on (trajectories and states)
  std::int64_t remote_trajectories = 0;  ///< of which remote trajectories trained as given
  std::int64_t local_search_proposals = 0;
  std::int64_t local_search_accepted = 0;  ///< proposals accepted as the next search point
  /// Target evaluations (IterationResult::target_evaluations; continuous agents only).
  std::int64_t target_evaluations = 0;
};

class BatchAssembly {
 public:
  /// The local replay buffer's generator is seeded from `seed`. Throws what
  /// buffer::local_table_options throws for impossible replay options (the replay: section's
  /// rules refuse them first).
  BatchAssembly(const Environment& env, const buffer::ReplayOptions& replay,
                const LocalSearchOptions& local_search, std::uint64_t seed);
  ~BatchAssembly();
  BatchAssembly(const BatchAssembly&) = delete;
  BatchAssembly& operator=(const BatchAssembly&) = delete;

  /// Queues remote terminating states: int64 [n, state_dim] valid terminating states of the
  /// environment; log_rewards (float32 [n], optional) are only checked for shape (the loss
  /// uses the environment's log rewards). Multiple calls accumulate. Throws
  /// std::invalid_argument for bad shapes, invalid states, or states that cannot terminate.
  void queue_states(const at::Tensor& states, const at::Tensor& log_rewards = {});
  /// Queues remote trajectories given as packed forward action sequences (exit last;
  /// runtime/buffer/packed_trajectories.h), rebuilt now by replaying them from s0
  /// (trajectories_from_actions). Throws std::invalid_argument naming the trajectory for an
  /// invalid sequence.
  void queue_trajectories(const buffer::PackedTrajectories& sequences);
  std::int64_t queued_states() const;
  std::int64_t queued_trajectories() const { return queued_trajs_.n_trajectories; }

  /// THE batch size of an iteration and its split: `batch_size` (the trainer's share of
  /// train.batch_size) plus min(queued remote items, extra_remote) (buffer.remote_batch_size:
  /// remote items on top of the share); of the total, the queued remote trajectories first,
  /// then the queued states, at most the total; the rest is fresh. Pure.
  BatchShares shares(std::int64_t batch_size, std::int64_t extra_remote = 0) const;

  /// Assembles the batch `s` describes (see the top), sampling with `evaluator`,
  /// `options` and `generator`; the queued remote items are consumed (the unused rest
  /// dropped). Blocking; cost: the sampling and the replayed / remote parts' model passes.
  AssembledBatch assemble(const BatchShares& s, Evaluator& evaluator, const SamplerOptions& options,
                          at::Generator& generator);
  /// Counts n trajectories sampled forward outside assemble() (engine.split_batch's parts).
  void count_sampled(std::int64_t n) { counts_.sampled += n; }

  const BatchCounts& counts() const { return counts_; }
  /// The local replay buffer; null when replay.kind is "none".
  const buffer::ReplayTable* replay_buffer() const { return replay_.get(); }

  /// Writes the counters, the replay buffer ("replay_table", runtime/buffer/table_state.h
  /// bytes as uint8), the queued states and the queued trajectories (their packed action
  /// sequences: "queued_lengths", "queued_actions", replayed on load).
  void save_state(torch::serialize::OutputArchive& archive) const;
  /// Restores them. Throws std::runtime_error naming the entry when one is missing or damaged.
  void load_state(torch::serialize::InputArchive& archive);

 private:
  const Environment& env_;
  buffer::ReplayOptions replay_options_;
  LocalSearchOptions local_search_;
  std::unique_ptr<buffer::ReplayTable> replay_;
  at::Tensor queued_states_;   ///< int64 [q, state_dim] or undefined
  Trajectories queued_trajs_;  ///< B may be 0
  BatchCounts counts_;

  /// n fresh trajectories: from s0, with local search's proposals when on.
  Trajectories sample_fresh(std::int64_t n, Evaluator& evaluator, const SamplerOptions& options,
                            at::Generator& generator);
  /// Adds the fresh trajectories to the local replay buffer and replaces the last R of them
  /// by trajectories drawn from it, once it is warm.
  void replay(AssembledBatch& a, Evaluator& evaluator, bool attach);
  /// Appends the queued remote items of `s` to the batch and drops the queues.
  void add_remote(const BatchShares& s, AssembledBatch& a, Evaluator& evaluator, bool attach,
                  at::Generator& generator);
};

}  // namespace gfn::core
