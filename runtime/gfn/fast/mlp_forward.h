#pragma once
// Fast path (runtime/gfn/fast/): the forward of a model's MLPs (mlp_layout.h) WITHOUT
// autograd, keeping every layer's input for the hand-written backward (mlp_backward.h):
// Linear layers as addmm (bit-identical to model.forward; bias rows and ReLU as plain loops
// with kernels.plain_loops), in bf16 with kernels.bf16 (mlp_bf16.h), the rows split over
// threads with kernels.row_parts > 1 (row_split.h). Internal to the MLP fast path; its users
// are manual_backward.cc and forward_recorder.cc.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/gfn/fast/mlp_kernels.h"
#include "runtime/gfn/fast/mlp_layout.h"
#include "runtime/gfn/fast/row_split.h"

namespace gfn::core::mlp {

/// A forward of some nets without autograd: per net its layer inputs x, h_1, ..., h_L
/// (float32 [M, width]; bf16 copies with kernels.bf16) and its head outputs float32 [M, out].
struct NetsForward {
  std::vector<at::Tensor> acts, heads;
};

/// The forward of the nets on x float32 [M, input_dim] without autograd, in the kernels'
/// precision (bf16: with the weights' bf16 copies, made here by bf16_weights if weights_bf16
/// is empty), its rows split over kernels.row_parts threads (row_split.h); after(r), if set,
/// once each range r is done, on its thread (may throw: rethrown here after every range).
/// out: allocated here if it has no layer inputs yet, else the caller's buffers for x's rows
/// (ForwardRecorder's, forward_recorder.h), of which only x's rows are written. Blocking; not
/// thread-safe for the same out.
void run_nets_in(const std::vector<Net>& nets, const at::Tensor& x, MlpKernels kernels,
                 std::vector<at::Tensor>& weights_bf16, NetsForward& out,
                 const std::function<void(RowRange)>& after = {});

/// y[i] = max(y[i], 0) in place for n floats: clamp_min(0)'s values (NaN stays NaN; -0.0 may
/// keep its sign, an equal value). One loop (loop_clones.h). Thread-safe for distinct y.
void relu_in_place(float* __restrict y, std::int64_t n);

}  // namespace gfn::core::mlp
