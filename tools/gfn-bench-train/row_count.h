#pragma once
// How many rows the network evaluates per iteration, measured (not assumed): the
// Learner runs the MLP once per DISTINCT state (runtime/gfn/sampler.cc model_policy,
// runtime/gfn/losses.cc transition_log_probs, both via Environment::unique), so the row
// count depends on the batch. count_rows samples `n_batches` batches from the Learner's
// current PF with the same sampler and options as train_iteration, through a policy
// wrapper that counts Environment::unique rows of each policy call, and counts the
// distinct states of each batch's transitions (the loss pass). It uses its own
// generator, no autograd and no optimizer step: the Learner's training stream and
// parameters are unchanged. Not thread-safe (uses the Learner's model).
// On the state-table path (EnginePlan::evaluator state_table, runtime/gfn/fast/state_table.h) the
// network runs once per iteration on all states and sampling evaluates nothing, so
// sample_rows = policy_calls = 0 and loss_rows = the number of states; transitions are
// still counted from sampled batches.

#include <cstdint>

namespace gfn::core {
class Learner;
}

namespace gfn::bench {

struct RowCounts {
  double sample_rows = 0;   ///< rows through PF while sampling, per iteration (sum over steps)
  double policy_calls = 0;  ///< sampling steps (policy calls) per iteration
  double loss_rows = 0;     ///< distinct states of the batch: rows through PF and PB in the loss
  double transitions = 0;   ///< N, transitions per iteration (rows without deduplication)
};

/// Averages over n_batches >= 1 batches of batch_size >= 1 trajectories; epsilon and
/// temperature as in train.*. Throws std::invalid_argument for n_batches or batch_size < 1.
RowCounts count_rows(core::Learner& learner, std::int64_t batch_size, double epsilon,
                     double temperature, int n_batches, std::uint64_t seed);

}  // namespace gfn::bench
