#include "runtime/gfn/continuous/log_z_bounds.h"

#include <ATen/ATen.h>

#include <cmath>

namespace gfn::core {

at::Tensor log_importance_weights(const ContinuousGFlowNet& gfn,
                                  const ContinuousTrajectories& trajs) {
  at::NoGradGuard no_grad;
  const std::int64_t b = trajs.n_trajectories;
  const std::int64_t n = trajs.n_transitions();
  const TransitionLogProbs lp = continuous_log_probs(gfn, trajs, 1.0);
  at::Tensor w = trajs.log_rewards.to(at::kDouble).clone();
  w.index_add_(0, trajs.traj_index, -lp.log_pf.to(at::kDouble));
  w.index_add_(0, trajs.traj_index.narrow(0, b, n - b), lp.log_pb.to(at::kDouble));
  return w;
}

LogZBounds log_z_bounds(const ContinuousGFlowNet& gfn, const ContinuousTrajectories& forward) {
  const at::Tensor w = log_importance_weights(gfn, forward);
  LogZBounds out;
  out.elbo = w.mean().item<double>();
  out.iw_elbo = w.logsumexp(0).item<double>() - std::log(static_cast<double>(w.size(0)));
  return out;
}

double eubo(const ContinuousGFlowNet& gfn, const at::Tensor& targets, at::Generator& generator) {
  const ContinuousTrajectories back =
      sample_backward_continuous_trajectories(gfn, targets, {}, generator);
  return log_importance_weights(gfn, back).mean().item<double>();
}

}  // namespace gfn::core
