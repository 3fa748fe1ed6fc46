#pragma once
// A batch of complete trajectories of a ContinuousEnvironment
// (runtime/gfn/env/continuous_environment.h) in the step-major layout of discrete
// Trajectories (runtime/gfn/trajectories.h; TrajectoryRows, trajectory_rows.h): rows
// [0, B) are the s0 rows of trajectories 0..B-1, then the rows of step 1 of the trajectories
// still running, and so on; every row i >= B is the state reached by a non-exit action, so it
// carries a PB term. The losses of runtime/gfn/losses.h read the TrajectoryRows part.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>

#include "runtime/gfn/env/continuous_environment.h"
#include "runtime/gfn/trajectory_rows.h"

namespace gfn::core {

struct PisActivations;

struct ContinuousTrajectories : TrajectoryRows {
  at::Tensor states;      ///< float32 [N, d]: the state each action is taken in
  at::Tensor increments;  ///< float32 [N, d]: the forward increment taken (0 on exit rows)
  at::Tensor is_exit;     ///< bool [N]: the row exits (each trajectory's last row)
  /// float32 [N - B, d]: for row B + k, the forward increment that led to states[B + k],
  /// which is also the backward action of PB(parent | states[B + k]).
  at::Tensor pb_increments;
  at::Tensor terminating_states;  ///< float32 [B, d]
  /// Set by sample_continuous_trajectories (sampler.h) only: the batch was sampled forward
  /// from s0 in this process by the environment's own policy and step, so every row is a
  /// valid state and action by construction and continuous_log_probs need not re-check it
  /// (its trusted path). Backward walks from given states, concatenations and anything
  /// received or replayed leave it false: those rows are checked.
  bool trusted = false;
  /// With ContinuousSamplerOptions::save_pf_activations on diffusion's fused sampler: PF's
  /// PISGradNet activations of the T B move rows (pis_network.h), which continuous_log_probs'
  /// trusted path reuses instead of a second forward; null otherwise (and after any operation
  /// that builds new trajectories). Valid while the parameters are unchanged.
  std::shared_ptr<const PisActivations> pf_activations;

  std::int64_t n_transitions() const { return states.defined() ? states.size(0) : 0; }
  /// The forward actions of all N rows.
  ContinuousActions actions() const { return {increments, is_exit}; }
};

}  // namespace gfn::core
