#pragma once
// The GFlowNet core's sections (docs/configuration.md): `model:` (the estimators,
// estimators.h), `train:` (the loss, the optimizer, sampling and the budget; learner.h,
// losses.h) and `validation:` (validation.h). The engine's numerical paths are in
// engine_options.h, the environment's options in env/env_options.h. Plain value types,
// no LibTorch.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "runtime/config/enum_names.h"
#include "runtime/gfn/loss_kind.h"

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::core {

struct ModelOptions {
  int hidden_dim = 256;
  int n_hidden = 2;         ///< hidden layers of the MLP
  bool tied = false;        ///< PF and PB share one trunk
  bool uniform_pb = false;  ///< fixed uniform backward policy instead of a learned PB
  /// NoisyNet exploration (noisy_linear.h): the last n Linear layers of PF (output head
  /// first, then hidden layers; never the input layer) are noisy; 0 = off.
  int n_noisy_layers = 0;
  double noisy_std_init = 0.1;  ///< sigma_0 of the factorised Gaussian noise (> 0)
  /// A state dict (torch.load format, torchgfn MLP names: runtime/output/torchgfn_export.h)
  /// the estimators start from instead of a fresh initialisation; "" = off.
  std::string init_from;
};

/// train.average: what an agent group averages (roles/trainer/spawn/).
enum class TrainAverage {
  kModels,     ///< parameters, every train.average_every iterations
  kGradients,  ///< gradients, every iteration (as DDP does)
};
inline constexpr config::EnumName<TrainAverage> kTrainAverageNames[] = {
    {TrainAverage::kModels, "models"}, {TrainAverage::kGradients, "gradients"}};
inline constexpr const auto& enum_names(TrainAverage) { return kTrainAverageNames; }

struct TrainOptions {
  LossKind loss = LossKind::kTB;  ///< losses.h
  SubTrajectoryWeighting subtb_weighting = SubTrajectoryWeighting::kGeometricWithin;
  double subtb_lambda = 0.9;  ///< SubTB lambda (> 0): sub-trajectories weighted lambda^(len-1)
  double fm_alpha = 1.0;      ///< FM weight of the terminating-state reward-matching term
  /// beta > 0: the loss trains PF towards R^beta (log rewards times beta; Bengio et al.
  /// 2021's reward exponent). Rewards reported, submitted and validated stay R.
  double reward_exponent = 1.0;
  int batch_size = 128;                 ///< global trajectories per iteration, split over trainers
  std::int64_t n_trajectories = 32000;  ///< total budget; iterations = ceil(n / batch_size)
  std::int64_t n_iterations = 0;        ///< if > 0, the number of iterations (budget ignored)
  double lr = 1e-3;                     ///< Adam learning rate of PF/PB
  double lr_logz = 0.1;                 ///< Adam learning rate of logZ
  /// Adam learning rate of the log F network (parameters named logF*); 0: train.lr.
  double lr_logf = 0.0;
  /// > 0: every gradient element is clamped to [-c, c] and NaN set to 0 before the optimizer
  /// step (torchgfn's train_box.py: 10); 0: off. Continuous learner only.
  double gradient_clamp = 0.0;
  /// With gradient_clamp: true clamps logZ's gradient too (train_box.py), false leaves it
  /// (train_line.py clamps only the parameters with ndim > 0).
  bool gradient_clamp_log_z = true;
  double weight_decay = 0.0;  ///< decoupled (AdamW) weight decay of PF/PB; 0 = Adam
  int average_every = 5;      ///< iterations between decision points (agent group)
  TrainAverage average = TrainAverage::kModels;
  double epsilon = 0.0;      ///< epsilon-greedy exploration while sampling
  double temperature = 1.0;  ///< PF logits are divided by this while sampling
  /// > 0: the sampling temperature starts here and falls linearly to `temperature` over the
  /// first temperature_anneal_fraction of iterations(), then stays (torchgfn's train_box.py
  /// temperature_start, over the first half); 0: off. Continuous learner only.
  double temperature_start = 0.0;
  /// In (0, 1]: the fraction of iterations() the temperature falls over (train_line.py: 1).
  double temperature_anneal_fraction = 0.5;
  /// true: the loss reads log PF and log PB at the iteration's sampling temperature, as
  /// torchgfn's train_box.py does (save_logprobs under its estimators' temperature, which PB
  /// shares); false: at the policies themselves (temperature 1). Continuous learner only.
  bool loss_at_sampling_temperature = false;
  /// < 1: every learning rate is multiplied by it every lr_decay_every iterations
  /// (torchgfn's train_box.py MultiStepLR, gamma_scheduler 0.5); 1: off. Continuous
  /// learner only.
  double lr_decay = 1.0;
  /// Iterations between two decays; 0: iterations() / 3 (train_box.py scheduler_milestone 0:
  /// three decays spread over the run).
  std::int64_t lr_decay_every = 0;
  std::uint64_t seed = 1;  ///< trainer rank r uses seed + r
  int num_threads = 1;  ///< threads per rank (LibTorch intra-op; engine.split_rows / split_batch)

  /// Iterations to run: n_iterations if > 0, else ceil(n_trajectories / batch_size).
  std::int64_t iterations() const {
    if (n_iterations > 0) return n_iterations;
    return (n_trajectories + batch_size - 1) / batch_size;
  }
  /// The sampling temperature of iteration `iteration` (0-based): `temperature`, or with
  /// temperature_start > 0 start + min(1, iteration / (fraction iterations())) (temperature -
  /// start), fraction = temperature_anneal_fraction.
  double sampling_temperature(std::int64_t iteration) const {
    if (temperature_start <= 0) return temperature;
    const double total = static_cast<double>(iterations() > 0 ? iterations() : 1);
    const double f =
        std::min(1.0, static_cast<double>(iteration) / (temperature_anneal_fraction * total));
    return temperature_start + f * (temperature - temperature_start);
  }
  /// The factor on every learning rate for the optimizer step of iteration `iteration`
  /// (0-based): lr_decay^k with k = the milestones m, 2m, ... <= iteration, at most
  /// iterations() / m of them (m = lr_decay_every, or max(1, iterations() / 3)), as
  /// torch.optim.lr_scheduler.MultiStepLR stepped after every optimizer step.
  double learning_rate_scale(std::int64_t iteration) const {
    if (lr_decay == 1.0) return 1.0;
    const std::int64_t m =
        lr_decay_every > 0 ? lr_decay_every : std::max<std::int64_t>(1, iterations() / 3);
    const std::int64_t k = std::min(iteration / m, iterations() / m);
    return std::pow(lr_decay, static_cast<double>(k));
  }
};

struct ValidationOptions {
  bool enabled = true;
  int interval = 50;  ///< iterations between validations (and at the end)
  /// Fresh samples for the sampled L1, and the window of terminating states visited
  /// during training for l1_visited (torchgfn's validation_samples; validation.h).
  std::int64_t n_samples = 200000;
  /// BitSequence Spearman(log p_theta, log R) (validation.h): test sequences per mode
  /// and backward trajectories per sequence for the log p_theta estimate; 0 in either
  /// disables the metric.
  int test_per_mode = 10;
  int logp_samples = 10;
  /// Fresh on-policy samples of the final PFs, split evenly over the trainers, whose
  /// distinct modes summary.json reports (sampled_modes, validation.h); 0 = off.
  std::int64_t fresh_samples = 0;
};

/// The `model:`, `train:` and `validation:` keys (options.cc).
const config::Fields<ModelOptions>& model_fields();
const config::Fields<TrainOptions>& train_fields();
const config::Fields<ValidationOptions>& validation_fields();

}  // namespace gfn::core
