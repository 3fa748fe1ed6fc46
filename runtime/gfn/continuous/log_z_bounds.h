#pragma once
// The log Z estimates diffusion-sampler papers report (torchgfn's DiffusionSampling.
// density_metrics, src/gfn/gym/diffusion_sampling.py; Sendera et al. 2024, "Improved off-policy
// training of diffusion samplers"), for any continuous GFlowNet (sampler.h). For a trajectory
// tau ending in x, log w(tau) = log R(x) + sum log PB(tau | x) - sum log PF(tau):
//   ELBO     = mean of log w over trajectories sampled forward by PF (a lower bound on log Z in
//              expectation, Jensen);
//   IW ELBO  = logsumexp(log w) - log N over the same trajectories (the importance-weighted
//              bound, log Z^RW);
//   EUBO     = mean of log w over trajectories sampled BACKWARD by PB from exact samples of
//              R / Z (an upper bound in expectation), where the target can be sampled.
// Log-densities come from continuous_log_probs (one forward pass, temperature 1, no autograd);
// sums and means in float64.
//
// Cost: one model forward pass over the trajectories' rows (plus the backward sampling for the
// EUBO). Not thread-safe (the model). Errors: what continuous_log_probs throws.

#include <ATen/core/Tensor.h>

#include "runtime/gfn/continuous/sampler.h"
#include "runtime/gfn/continuous/trajectories.h"

namespace gfn::core {

/// log w of every trajectory, float64 [B] (above).
at::Tensor log_importance_weights(const ContinuousGFlowNet& gfn,
                                  const ContinuousTrajectories& trajs);

struct LogZBounds {
  double elbo = 0;     ///< mean log w, forward trajectories
  double iw_elbo = 0;  ///< logsumexp(log w) - log B, forward trajectories
};

/// ELBO and IW ELBO of forward trajectories (B >= 1).
LogZBounds log_z_bounds(const ContinuousGFlowNet& gfn, const ContinuousTrajectories& forward);

/// EUBO: mean log w of trajectories sampled backward (temperature 1) by PB from `targets`,
/// exact samples of R / Z float32 [n >= 1, d], with `generator`.
double eubo(const ContinuousGFlowNet& gfn, const at::Tensor& targets, at::Generator& generator);

}  // namespace gfn::core
