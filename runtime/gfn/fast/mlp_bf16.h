#pragma once
// Fast path (runtime/gfn/fast/): the bf16 variants of the hand-written MLP forward and
// backward's steps (engine.precision bf16, MlpKernels::bf16): the weights' bf16 copies, the
// Linear layers' forward and their weight- and input-gradient GEMMs with bf16 operands and
// float32 accumulation (bf16_gemm.h), and ReLU's backward on the kept bf16 copy of its
// output. The float32 steps they replace are in mlp_forward.cc and mlp_backward.cc; values
// differ from them by the operands' rounding (tests/runtime/gfn/fast/bf16_gemm_test.cc).
// Internal to the MLP fast path. Each function throws std::invalid_argument like gemm_bf16
// on a dtype, shape or layout mismatch; thread-safe for distinct outputs.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "runtime/gfn/fast/mlp_layout.h"

namespace gfn::core::mlp {

/// The bf16 copies [out, in] of the nets' weights (every Linear layer's W, in parameter
/// order: the copy of net.params[w] is at w / 2 after the earlier nets' copies), made once
/// per forward or recorder. Cost: one pass over the weights.
std::vector<at::Tensor> bf16_weights(const std::vector<Net>& nets);

/// A head: y = x_bf16 W_bf16^T + b in float32 into y float32 [M, out] (contiguous; e.g. a row
/// range of a buffer), for xb bfloat16 [M, in], wb bfloat16 [out, in], b float32 [out]: the
/// bias rows copied first and the GEMM accumulating onto them.
void linear_forward_bf16(const at::Tensor& xb, const at::Tensor& wb, const at::Tensor& b,
                         at::Tensor& y);

/// A trunk layer: ReLU(x_bf16 W_bf16^T + b) computed in float32 (a temporary [M, out]) and
/// rounded into y bfloat16 [M, out] (the next layer's input, kept for the backward).
void linear_relu_forward_bf16(const at::Tensor& xb, const at::Tensor& wb, const at::Tensor& b,
                              at::Tensor& y);

/// d[i] = 0 where out[i] <= 0 for a bfloat16 out (raw bits), n values: ReLU's backward on the
/// bf16 copy of its output. A positive nonzero bfloat16 is a positive nonzero int16; the copy
/// is 0 only where the output was <= 0 or a float32 below bfloat16's smallest subnormal
/// (~9e-41; its gradient is then dropped). One loop (loop_clones.h).
void relu_backward_bf16_in_place(float* __restrict d, const std::int16_t* __restrict out,
                                 std::int64_t n);

/// The weight gradient dy^T x of a Linear layer, float32 [out, in], for dy_op bfloat16
/// [M, out] (the bf16 copy of dy) and x bfloat16 [M, in] (the kept layer input).
at::Tensor weight_grad_bf16(const at::Tensor& dy_op, const at::Tensor& x);

/// g += dy^T x in place (g float32 [out, in], contiguous): weight_grad_bf16 accumulated.
void add_weight_grad_bf16(const at::Tensor& dy_op, const at::Tensor& x, at::Tensor& g);

/// dh (+)= dy W for the Linear layer with bf16 weight copy wb [out, in]: dh float32 [M, in]
/// created if undefined, else accumulated into in place.
void add_grad_input_bf16(at::Tensor& dh, const at::Tensor& dy_op, const at::Tensor& wb);

}  // namespace gfn::core::mlp
