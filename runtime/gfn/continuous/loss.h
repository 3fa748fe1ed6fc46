#pragma once
// The training objectives on continuous trajectories: the balance losses of
// runtime/gfn/losses.h (one implementation for discrete and continuous batches, on the
// TrajectoryRows of trajectory_rows.h) applied to the log-densities of continuous_log_probs
// (sampler.h). Thread-safety: stateless.

#include <ATen/core/Tensor.h>

#include "runtime/gfn/continuous/trajectories.h"
#include "runtime/gfn/losses.h"
#include "runtime/gfn/options.h"

namespace gfn::core {

/// True for the losses that train on continuous trajectories: "tb", "zvar", "db", "subtb"
/// ("modified_db" needs exit from every state and "fm" sums flows over enumerated parents).
bool continuous_loss_supported(LossKind kind);

/// True if the loss reads log F (a ContinuousModel with_log_flow): "db", "subtb".
bool continuous_loss_needs_log_flow(LossKind kind);

/// The loss train.loss selects: "tb" with the learned log_z (float32 []), "zvar", "db",
/// "subtb" (train.subtb_weighting, train.subtb_lambda). Throws std::invalid_argument naming
/// train.loss for a loss continuous_loss_supported refuses, train.reward_exponent unless it is
/// 1, or the option of an invalid value; the shared functions' errors otherwise.
LossValue continuous_loss(const TrainOptions& train, const ContinuousTrajectories& trajs,
                          const TransitionLogProbs& log_probs, const at::Tensor& log_z);

}  // namespace gfn::core
