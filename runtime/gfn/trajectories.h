#pragma once
// A batch of complete trajectories of an Environment (runtime/gfn/env/environment.h) in a compact,
// step-major layout: the (state, action) pairs of all trajectories are stacked so the loss can
// evaluate PF and PB for the whole batch in ONE forward pass (torchgfn's Trajectories,
// gfn/containers/trajectories.py, holds the same information padded per step).
//
// Layout, with B trajectories and N transitions in total (N = sum of lengths):
//   rows [0, B) are step 0 (state s0) of trajectories 0..B-1, then the step-1 rows of
//   the trajectories still running, and so on. Every row i >= B is the state reached
//   by a non-exit action, so it carries a PB term; rows [0, B) never do.

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "runtime/gfn/trajectory_rows.h"

namespace gfn::core {

/// n_trajectories, traj_index, lengths and log_rewards are TrajectoryRows' (trajectory_rows.h).
struct Trajectories : TrajectoryRows {
  at::Tensor states;   ///< int64 [N, state_dim]: the state each action is taken in
  at::Tensor actions;  ///< int64 [N]: forward action (n_actions - 1 = exit)
  /// int64 [N - B]: for row B + k, the forward action that led to states[B + k], which
  /// is also the backward action of PB(s_{t-1} | s_t) (backward action a undoes forward
  /// action a).
  at::Tensor pb_actions;
  at::Tensor terminating_states;  ///< int64 [B, state_dim]

  // Estimator outputs kept by on-policy sampling (fast/saving_sampler.h; torchgfn's
  // save_logprobs / save_estimator_outputs), one row per transition row, computed WITH
  // autograd under the parameters (and NoisyNet noise) of sampling, so the loss can use
  // them instead of a second forward (fast/saved_outputs_evaluator.h).
  // Raw unmasked network outputs, not sampling-rule probabilities. Undefined when not
  // saved; take_trajectories / concat_trajectories keep them only when every part has them.
  at::Tensor saved_pf_logits;  ///< float32 [N, n_actions] or undefined
  at::Tensor saved_pb_logits;  ///< float32 [N, n_actions - 1] or undefined (tied trunk only)
  at::Tensor saved_log_flow;   ///< float32 [N] or undefined (tied trunk with a logF head only)

  std::int64_t n_transitions() const { return states.defined() ? states.size(0) : 0; }
  /// True if the PF logits of every row were kept while sampling.
  bool has_saved_outputs() const { return saved_pf_logits.defined(); }
  /// Drops the saved outputs (and the autograd graph they hold).
  void clear_saved_outputs() {
    saved_pf_logits = at::Tensor();
    saved_pb_logits = at::Tensor();
    saved_log_flow = at::Tensor();
  }
};

}  // namespace gfn::core
