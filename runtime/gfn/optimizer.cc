#include "runtime/gfn/optimizer.h"

#include <torch/optim/adamw.h>
#include <torch/serialize/archive.h>

#include <utility>

namespace gfn::core {

TorchAdamW::TorchAdamW(const AdamWGroups& g) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(g.network,
                      std::make_unique<torch::optim::AdamWOptions>(
                          torch::optim::AdamWOptions(g.lr).weight_decay(g.weight_decay)));
  groups.emplace_back(std::vector<at::Tensor>{g.log_z},
                      std::make_unique<torch::optim::AdamWOptions>(
                          torch::optim::AdamWOptions(g.lr_log_z).weight_decay(0.0)));
  adam_ = std::make_unique<torch::optim::AdamW>(std::move(groups));
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
