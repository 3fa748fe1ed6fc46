#include "runtime/gfn/continuous/loss.h"

#include <stdexcept>
#include <string>

namespace gfn::core {

bool continuous_loss_supported(LossKind kind) {
  return kind == LossKind::kTB || kind == LossKind::kZVar || kind == LossKind::kDB ||
         kind == LossKind::kSubTB;
}

bool continuous_loss_needs_log_flow(LossKind kind) {
  return kind == LossKind::kDB || kind == LossKind::kSubTB;
}

LossValue continuous_loss(const TrainOptions& train, const ContinuousTrajectories& trajs,
                          const TransitionLogProbs& log_probs, const at::Tensor& log_z) {
  if (!continuous_loss_supported(train.loss)) {
    throw std::invalid_argument(std::string("train.loss: \"") + config::enum_name(train.loss) +
                                "\" does not train on continuous environments; use tb, zvar, "
                                "db or subtb");
  }
  if (train.reward_exponent != 1.0) {
    throw std::invalid_argument(
        "train.reward_exponent: not supported on continuous environments yet; use 1");
  }
  switch (train.loss) {
    case LossKind::kTB:
      return {trajectory_balance(trajs, log_probs, log_z), {}};
    case LossKind::kZVar:
      return log_partition_variance(trajs, log_probs);
    case LossKind::kDB:
      return detailed_balance(trajs, log_probs);
    default: {  // kSubTB; the loss's constructor checks its options
      const SubTrajectoryBalanceLoss checked(train.subtb_weighting, train.subtb_lambda);
      (void)checked;
      return sub_trajectory_balance(trajs, log_probs, train.subtb_weighting, train.subtb_lambda);
    }
  }
}

}  // namespace gfn::core
