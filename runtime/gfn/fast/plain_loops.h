#pragma once
// Plain-loop fast paths of the state table's iteration (docs/performance.md "Trainer throughput"):
// small steps on [64 x 256]-sized float32 buffers (bias rows and ReLU of the MLP forward,
// bias gradients of the hand-written backward in mlp_backward.cc, the mean of the fused TB
// node in state_table.cc) written as loops over contiguous buffers instead of ATen ops,
// whose dispatch, TensorIterator setup and allocations cost more than their arithmetic at
// these sizes. The GEMMs stay ATen calls (the bench's GEMM probe records them). Each fast
// path documents how its values relate to the ATen ops it replaces.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace gfn::core {

// Each helper below takes `loops`: engine.plain_loops (runtime/gfn/engine_options.h),
// carried by the object that runs the iteration (GFlowNetModel, StateSpace, FlatAdamW,
// Learner). false: the ATen op it replaces (the reference, for A/B measurements).

/// acc += dy.sum(0) for dy float32 [M, n] and acc float32 [n] (both contiguous, CPU), in
/// place, without allocating a tensor: the bias gradient of a Linear layer. BIT-IDENTICAL
/// to acc.add_(dy.sum(0)) in LibTorch 1.13: the column sums follow ATen's summation order
/// (SumKernel.cpp cascade_sum, see plain_loops.cc), which depends on the vector width of
/// ATen's active CPU kernels; that width is found once by comparing with ATen's own sum
/// on a probe table (thread-safe). Returns false and does nothing when it cannot match
/// ATen's order: other dtypes/layouts/shapes, n < 2, M * n >= 32768 with more than one
/// LibTorch thread, or an undetected vector width (the caller then uses ATen). Bumps acc's
/// version counter like an in-place ATen op. Not thread-safe for the same acc.
bool add_column_sums(at::Tensor& acc, const at::Tensor& dy);

/// The transpose of a 2-D tensor m [r, c] as a view [c, r] (m.t()'s sizes, strides, storage
/// offset and storage), built directly (at::native::as_strided_tensorimpl) instead of
/// through aten::t -> aten::transpose -> aten::as_strided: 3 dispatches less per GEMM
/// operand (12 W^T / dy^T views per iteration at 2-D h8). The view has NO autograd history
/// and does not share m's version counter: only for tensors read without autograd (no-grad
/// forwards, hand-written backwards). A GEMM on it reads the same memory with the same
/// strides as on m.t(), so results are bit-identical. Falls back to m.t() when
/// !loops or m is not a 2-D strided CPU tensor. Thread-safe (no shared state).
at::Tensor transposed_view(const at::Tensor& m, bool loops);

/// x.masked_fill(mask, value)'s values in a new contiguous tensor, for x float32 and mask
/// bool of the same shape (both contiguous, CPU): one copy loop instead of masked_fill's
/// clone (empty_like, copy_) and masked_fill_ (5 dispatches, a TensorIterator each). Same
/// bits (unmasked entries copied, masked ones set to value, NaN and -0.0 included). Falls
/// back to x.detach().masked_fill(mask, value) otherwise or when !loops. The
/// result has no autograd history in both cases (for no-grad forwards: the masked logit
/// tables of state_table.cc). Thread-safe.
at::Tensor masked_fill_copy(const at::Tensor& x, const at::Tensor& mask, float value, bool loops);

/// at::zeros({rows, cols}, float32) without its zero_ dispatch (at::empty + memset) when
/// loops; at::zeros otherwise. Same values. Thread-safe.
at::Tensor zeros_float(std::int64_t rows, std::int64_t cols, bool loops);

/// The value of a one-element float32 or float64 CPU tensor as double, read from its data
/// (what t.item<double>() returns, without the aten::item / _local_scalar_dense dispatches);
/// t.item<double>() for other tensors or when !loops. Throws like item() for a
/// tensor with more than one element. Thread-safe for concurrent readers.
double scalar_value(const at::Tensor& t, bool loops);

/// A copy of `values` as int64 [values.size()] (cols == 0) or [values.size() / cols, cols]
/// (cols > 0; values.size() must be a multiple): one allocation and a memcpy, no dispatch.
/// How the samplers that build their batch in vectors (fast/state_table.h,
/// fast/fused_sampler.h) hand it over. Pure; thread-safe.
at::Tensor long_tensor(const std::vector<std::int64_t>& values, std::int64_t cols = 0);

}  // namespace gfn::core
