#include "runtime/gfn/optimizer.h"

#include <torch/nn/module.h>
#include <torch/optim/adamw.h>
#include <torch/serialize/archive.h>

#include <stdexcept>
#include <utility>

namespace gfn::core {

AdamWGroups adamw_groups(torch::nn::Module& model, const TrainOptions& train) {
  AdamWGroups g;
  for (const auto& kv : model.named_parameters()) {
    if (kv.key() == "logZ") {
      g.log_z = kv.value();
    } else if (train.lr_logf > 0 && kv.key().rfind("logF", 0) == 0) {
      g.log_flow.push_back(kv.value());
    } else {
      g.network.push_back(kv.value());
    }
  }
  if (!g.log_z.defined()) throw std::invalid_argument("adamw_groups: the model has no logZ");
  g.lr = train.lr;
  g.lr_log_z = train.lr_logz;
  g.lr_log_flow = train.lr_logf;
  g.weight_decay = train.weight_decay;
  return g;
}

TorchAdamW::TorchAdamW(const AdamWGroups& g) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(g.network,
                      std::make_unique<torch::optim::AdamWOptions>(
                          torch::optim::AdamWOptions(g.lr).weight_decay(g.weight_decay)));
  if (!g.log_flow.empty()) {
    groups.emplace_back(
        g.log_flow, std::make_unique<torch::optim::AdamWOptions>(
                        torch::optim::AdamWOptions(g.lr_log_flow).weight_decay(g.weight_decay)));
  }
  groups.emplace_back(std::vector<at::Tensor>{g.log_z},
                      std::make_unique<torch::optim::AdamWOptions>(
                          torch::optim::AdamWOptions(g.lr_log_z).weight_decay(0.0)));
  for (const auto& group : groups) base_lr_.push_back(group.options().get_lr());
  adam_ = std::make_unique<torch::optim::AdamW>(std::move(groups));
}

void TorchAdamW::set_learning_rate_scale(double scale) {
  auto& groups = adam_->param_groups();
  for (std::size_t i = 0; i < groups.size(); ++i) {
    static_cast<torch::optim::AdamWOptions&>(groups[i].options()).lr(base_lr_[i] * scale);
  }
}

TorchAdamW::~TorchAdamW() = default;

void TorchAdamW::zero_grad() { adam_->zero_grad(); }

void TorchAdamW::step() { adam_->step(); }  // returns the (unused) closure loss

void TorchAdamW::reset_state() { adam_->state().clear(); }  // rebuilt lazily, step 0

void TorchAdamW::save_state(torch::serialize::OutputArchive& archive) const {
  adam_->save(archive);
}

void TorchAdamW::load_state(torch::serialize::InputArchive& archive) { adam_->load(archive); }

}  // namespace gfn::core
