#pragma once
// The hand-written MLP forward and backward (runtime/gfn/fast/manual_backward.h,
// forward_recorder.h) run through each of their paths with a loss on their outputs, and
// comparisons of the resulting tensors; shared by bf16_gemm_test.cc and row_split_test.cc.
// Header-only test code, not thread-safe.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/forward_recorder.h"
#include "runtime/gfn/fast/manual_backward.h"
#include "runtime/gfn/fast/mlp_kernels.h"

namespace gfn::core {

// max |a - b| <= rel * max |b|.
inline ::testing::AssertionResult near_relative(const at::Tensor& a, const at::Tensor& b,
                                                double rel) {
  const double scale = b.abs().max().item<double>();
  const double diff = (a - b).abs().max().item<double>();
  if (diff <= rel * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "max diff " << diff << " > " << rel << " * " << scale;
}

// Cosine of the angle between two gradients, flattened.
inline double cosine(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor x = a.flatten().to(at::kDouble), y = b.flatten().to(at::kDouble);
  return (x.dot(y) / (x.norm() * y.norm() + 1e-300)).item<double>();
}

struct MlpResult {
  std::vector<at::Tensor> outputs, grads;
};

// Which hand-written MLP path run_mlp takes.
enum class MlpPath { kTable, kRecorder, kPbAndFlow, kAutograd };

// The outputs and parameter gradients of a loss on the MLP's outputs: the state table's
// forward_manual_backward, a ForwardRecorder over three record() calls, the untied
// pb_and_flow_manual_backward, or model.forward under autograd (the reference).
inline MlpResult run_mlp(GFlowNetModel& model, const at::Tensor& x, MlpPath path,
                         MlpKernels kernels) {
  model.zero_grad();
  PolicyOutputs out;
  if (path == MlpPath::kAutograd) {
    out = model.forward(x, 0);
  } else if (path == MlpPath::kPbAndFlow) {
    out = pb_and_flow_manual_backward(model, x, kernels);
  } else if (path == MlpPath::kRecorder) {
    ForwardRecorder rec(model, kernels);
    const std::int64_t third = x.size(0) / 3;
    rec.record(x.slice(0, 0, third).contiguous());
    rec.record(x.slice(0, third, 2 * third).contiguous());
    rec.record(x.slice(0, 2 * third).contiguous());
    out = rec.outputs();
  } else {
    out = forward_manual_backward(model, x, /*write_leaf_grads=*/true, kernels);
  }
  MlpResult r;
  at::Tensor loss = torch::zeros({});
  if (path != MlpPath::kPbAndFlow) {
    loss = loss + out.pf_logits.log_softmax(1).select(1, 0).sum();
    r.outputs.push_back(out.pf_logits.detach().clone());
  }
  if (out.log_flow.defined() && out.log_flow.requires_grad()) {
    loss = loss + out.log_flow.sin().sum();
    r.outputs.push_back(out.log_flow.detach().clone());
  }
  if (out.pb_logits.defined() && out.pb_logits.requires_grad()) {
    loss = loss + out.pb_logits.log_softmax(1).select(1, 0).sum();
    r.outputs.push_back(out.pb_logits.detach().clone());
  }
  loss.backward();
  for (const auto& p : model.parameters()) {
    r.grads.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
  }
  return r;
}

}  // namespace gfn::core
