#include "runtime/gfn/fast/manual_backward.h"

#include <ATen/ATen.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "runtime/gfn/fast/mlp_backward.h"
#include "runtime/gfn/fast/mlp_forward.h"
#include "runtime/gfn/fast/mlp_layout.h"

namespace gfn::core {

namespace {

// The hand-written forward of the nets select(model) on x, and their RecordedMlp node.
template <class Select>
PolicyOutputs manual_forward(GFlowNetModel& model, Select select, const at::Tensor& x,
                             bool write_leaf_grads, MlpKernels kernels) {
  std::vector<mlp::Net> nets;
  {
    at::NoGradGuard no_grad;
    nets = select(model);
  }
  if (nets.empty()) return PolicyOutputs{};
  mlp::NetsForward fwd;
  std::vector<at::Tensor> weights_bf16;
  mlp::run_nets_in(nets, x, kernels, weights_bf16, fwd);
  // The parameters with autograd (NoisyLinear: mu + sigma * eps builds its graph here).
  return mlp::recorded_outputs(select(model), std::move(fwd.acts), {x.size(0)},
                               std::move(fwd.heads), write_leaf_grads, kernels,
                               std::move(weights_bf16));
}

}  // namespace

PolicyOutputs forward_manual_backward(GFlowNetModel& model, const at::Tensor& x,
                                      bool write_leaf_grads, MlpKernels kernels) {
  PolicyOutputs out = manual_forward(
      model, [](GFlowNetModel& m) { return ModelLayout::nets(m, /*pf_only=*/false); }, x,
      write_leaf_grads, kernels);
  if (model.uniform_pb()) out.pb_logits = at::zeros({x.size(0), model.n_actions() - 1}, at::kFloat);
  return out;
}

PolicyOutputs pb_and_flow_manual_backward(GFlowNetModel& model, const at::Tensor& x,
                                          MlpKernels kernels) {
  if (model.tied()) {
    throw std::logic_error(
        "pb_and_flow_manual_backward: the model is tied (PB and logF share PF's trunk: use "
        "forward_manual_backward or a ForwardRecorder)");
  }
  return manual_forward(model, ModelLayout::pb_and_flow_nets, x, /*write_leaf_grads=*/false,
                        kernels);
}

}  // namespace gfn::core
