#pragma once
// The Learner's optimizer: AdamW (Loshchilov & Hutter 2019) with two parameter groups,
// PF / PB / logF at train.lr with decoupled weight decay train.weight_decay (0: plain Adam,
// the default) and logZ at train.lr_logz without weight decay, like torchgfn's
// train_hypergrid.py (_make_optimizer_for). One interface, two implementations of the same
// update, chosen by the engine plan (engine.optimizer; fast/make_optimizer.h):
//   TorchAdamW   torch::optim::AdamW (the reference; ~200 ATen calls per step);
//   FlatAdamW    runtime/gfn/fast/flat_adam.h: the parameters become views of one buffer
//                per group (~20 ATen calls per step; the same values, tested against this).
// Not thread-safe: one thread owns an optimizer and its parameters.

#include <ATen/core/Tensor.h>

#include <memory>
#include <vector>

#include "runtime/gfn/options.h"

namespace torch::nn {
class Module;
}
namespace torch::optim {
class AdamW;
}
namespace torch::serialize {
class OutputArchive;
class InputArchive;
}  // namespace torch::serialize

namespace gfn::core {

/// The parameter groups and their hyperparameters (train.lr, train.lr_logz,
/// train.weight_decay, train.lr_logf; each >= 0, checked by the train: section's rules):
/// the network and logZ, and log F's own group when train.lr_logf > 0.
struct AdamWGroups {
  std::vector<at::Tensor> network;  ///< PF / PB (and logF unless below) parameters
  at::Tensor log_z;                 ///< logZ, float32 []
  double lr = 1e-3;
  double lr_log_z = 0.1;
  double weight_decay = 0.0;
  /// The log F parameters when train.lr_logf > 0 (a third group at lr_log_flow, with
  /// weight_decay), else empty.
  std::vector<at::Tensor> log_flow;
  double lr_log_flow = 0.0;
};

/// The groups of a model (the Learner's GFlowNetModel, the ContinuousModel): its parameter
/// named "logZ" (logZ, at train.lr_logz) and every other one in named order (PF / PB / log F,
/// at train.lr with train.weight_decay). Throws std::invalid_argument if no parameter is named
/// "logZ".
AdamWGroups adamw_groups(torch::nn::Module& model, const TrainOptions& train);

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  /// Sets every parameter's gradient to zero.
  virtual void zero_grad() = 0;
  /// One AdamW step on both groups.
  virtual void step() = 0;
  /// Forgets the moments and the step count, as if just built (a respawned agent,
  /// runtime/distributed/spawn/); the parameters are untouched.
  virtual void reset_state() = 0;
  /// Writes the moments and the step count into `archive` (a checkpoint's "optimizer").
  virtual void save_state(torch::serialize::OutputArchive& archive) const = 0;
  /// Restores what save_state wrote. Throws std::runtime_error naming the entry when the
  /// archive lacks one or a shape differs (another model).
  virtual void load_state(torch::serialize::InputArchive& archive) = 0;
  /// Sets every group's learning rate to the one it was built with times `scale` (> 0): a
  /// learning-rate schedule (TrainOptions::learning_rate_scale) set before each step, so a
  /// resumed run needs no schedule state. O(groups).
  virtual void set_learning_rate_scale(double scale) = 0;
};

/// The reference implementation: torch::optim::AdamW with `groups`.
class TorchAdamW final : public Optimizer {
 public:
  explicit TorchAdamW(const AdamWGroups& groups);
  ~TorchAdamW() override;
  void zero_grad() override;
  void step() override;
  void reset_state() override;
  /// torch::optim::AdamW::save's entries.
  void save_state(torch::serialize::OutputArchive& archive) const override;
  void load_state(torch::serialize::InputArchive& archive) override;
  void set_learning_rate_scale(double scale) override;

 private:
  std::unique_ptr<torch::optim::AdamW> adam_;
  std::vector<double> base_lr_;  ///< each param group's learning rate as built
};

}  // namespace gfn::core
