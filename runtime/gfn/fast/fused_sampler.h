#pragma once
// Fast path (runtime/gfn/fast/): sample_trajectories (sampler.h) with the bookkeeping of each
// step as plain loops over the running rows (engine.fused_sampler). The reference sampler makes
// ~25 ATen calls per step besides the network (unique, masks, index_select, nonzero, the step,
// the recording), each costing ~5-30 us whatever the row count, ~40-60 steps per batch on
// HyperGrid 8-D: a fixed cost that does not shrink when the batch is split over threads
// (batch_split.h). Here a step is: the distinct running states by their RowDynamics key
// (sorted, as Environment::unique), ONE policy call on them, action_probabilities on those
// distinct rows (the same ATen function, so the same probabilities), and one loop that draws,
// records and steps every running row (RowDynamics::step). What remains per step is the
// network and ~5 small ATen calls.
//
// Same trajectories, draw for draw, and the generator left in the same state as
// sample_trajectories with a policy returning the same logits per row
// (tests/runtime/gfn/fast/fused_sampler_test.cc). Randomness comes only from the generator.
// Not thread-safe for the same generator.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/gfn/fast/row_split.h"
#include "runtime/gfn/sampler.h"
#include "runtime/gfn/trajectories.h"

namespace gfn::core {

class Environment;
class RowDynamics;

/// How a policy hands over rows [rows.begin, rows.end) of its logits (float32 [U, n_actions],
/// the whole tensor; only those rows need be final) as soon as it has written them, on the
/// thread that wrote them: the sampler computes those rows' probabilities there. Several
/// ranges may be handed over at once from different threads. Throws what the probabilities
/// throw (the policy passes it on).
using LogitsReady = std::function<void(RowRange rows, const at::Tensor& logits)>;

/// Unmasked PF logits of DISTINCT states in increasing RowDynamics::key order:
/// int64 [U, state_dim] -> float32 [U, n_actions]. The policy may hand over row ranges that
/// together cover all U rows through `ready` (each once) while it computes them, or none
/// (the sampler then computes all probabilities after the call).
using DistinctPolicy =
    std::function<at::Tensor(const at::Tensor& distinct_states, const LogitsReady& ready)>;

/// sample_trajectories(env, policy, n, options, generator) for an environment with
/// per-row dynamics (env.row_dynamics() == &dynamics), calling `policy` once per step on the
/// distinct running states. distinct_rows (if not null; needs options.record_transitions):
/// for every transition row, the row of its state among all the policy calls' rows
/// concatenated in call order (what ForwardRecorder's outputs are indexed by,
/// saving_sampler.h). Throws like sample_trajectories: std::invalid_argument for n < 0, bad
/// options, a policy returning other than float32 [U, n_actions], or logits whose
/// probabilities are NaN, infinite or all 0 on a row. Cost per step: the policy, ~5 ATen
/// calls, and O(running rows * (state_dim + n_actions)) plus a sort of the running keys.
/// threads > 1 (engine.split_rows, row_split.h): the probabilities of the row ranges the
/// policy hands over are computed on the policy's threads; each step's Exp(1) draws take the
/// generator's words on the calling thread (ExponentialDraws::next_words, categorical.h), and
/// the running rows are split into that many ranges, each drawn (the words' logs: the same
/// draws), raced, recorded and stepped on its own thread into its own buffers, joined in row
/// order: the same trajectories as one thread.
Trajectories sample_trajectories_fused(const Environment& env, const RowDynamics& dynamics,
                                       const DistinctPolicy& policy, std::int64_t n,
                                       const SamplerOptions& options, at::Generator& generator,
                                       std::vector<std::int64_t>* distinct_rows = nullptr,
                                       int threads = 1);

}  // namespace gfn::core
