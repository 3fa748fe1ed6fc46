#include "runtime/gfn/fast/mlp_layout.h"

#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include <utility>

namespace gfn::core {
namespace mlp {

PolicyOutputs outputs_of(const std::vector<Head>& heads, const std::vector<at::Tensor>& values) {
  PolicyOutputs out;
  for (std::size_t k = 0; k < heads.size(); ++k) {
    switch (heads[k]) {
      case kPfHead:
        out.pf_logits = values[k];
        break;
      case kPbHead:
        out.pb_logits = values[k];
        break;
      case kLogFlowHead:
        out.log_flow = values[k].squeeze(1);
        break;
    }
  }
  return out;
}

}  // namespace mlp

namespace {

using mlp::Head;
using mlp::Net;

// The Linear layers (plain or NoisyLinear, each followed by ReLU) of a trunk, as
// weight/bias pairs in the current grad mode (NoisyLinear: effective weights).
void append_trunk(const torch::nn::Sequential& trunk, std::vector<at::Tensor>& out) {
  for (const auto& m : trunk->children()) {
    if (auto* lin = m->as<torch::nn::Linear>()) {
      out.push_back(lin->weight);
      out.push_back(lin->bias);
    } else if (auto* noisy = m->as<NoisyLinear>()) {
      out.push_back(noisy->weight());
      out.push_back(noisy->bias());
    }
  }
}

void add_net(std::vector<Net>& nets, const torch::nn::Sequential& trunk) {
  Net net;
  append_trunk(trunk, net.params);
  net.n_trunk = static_cast<std::int64_t>(net.params.size() / 2);
  nets.push_back(std::move(net));
}

void add_head(std::vector<Net>& nets, Head head, const at::Tensor& w, const at::Tensor& b) {
  nets.back().params.push_back(w);
  nets.back().params.push_back(b);
  nets.back().heads.push_back(head);
}

}  // namespace

std::vector<Net> ModelLayout::nets(GFlowNetModel& m, bool pf_only) {
  std::vector<Net> nets = pf_net(m);
  const bool learned_pb = !m.uniform_pb_;
  if (m.tied_ || !pf_only) {
    if (learned_pb) {
      if (!m.tied_) add_net(nets, m.pb_trunk_);
      add_head(nets, mlp::kPbHead, m.pb_head_->weight, m.pb_head_->bias);
    }
    if (m.has_log_flow()) {
      if (!m.tied_) add_net(nets, m.log_flow_trunk_);
      add_head(nets, mlp::kLogFlowHead, m.log_flow_head_->weight, m.log_flow_head_->bias);
    }
  }
  return nets;
}

std::vector<Net> ModelLayout::pb_and_flow_nets(GFlowNetModel& m) {
  std::vector<Net> nets;
  if (!m.uniform_pb_) {
    add_net(nets, m.pb_trunk_);
    add_head(nets, mlp::kPbHead, m.pb_head_->weight, m.pb_head_->bias);
  }
  if (m.has_log_flow()) {
    add_net(nets, m.log_flow_trunk_);
    add_head(nets, mlp::kLogFlowHead, m.log_flow_head_->weight, m.log_flow_head_->bias);
  }
  return nets;
}

std::vector<Net> ModelLayout::pf_net(GFlowNetModel& m) {
  std::vector<Net> nets;
  add_net(nets, m.pf_trunk_);
  if (m.pf_noisy_head_) {
    add_head(nets, mlp::kPfHead, m.pf_noisy_head_->weight(), m.pf_noisy_head_->bias());
  } else {
    add_head(nets, mlp::kPfHead, m.pf_head_->weight, m.pf_head_->bias);
  }
  return nets;
}

}  // namespace gfn::core
