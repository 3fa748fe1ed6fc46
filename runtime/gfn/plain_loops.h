#pragma once
// Plain-loop fast paths of the state table's iteration (README "Trainer throughput"):
// small steps on [64 x 256]-sized float32 buffers (bias rows and ReLU of the MLP forward,
// bias gradients of the hand-written backward in estimators.cc, the mean of the fused TB
// node in state_table.cc) written as loops over contiguous buffers instead of ATen ops,
// whose dispatch, TensorIterator setup and allocations cost more than their arithmetic at
// these sizes. The GEMMs stay ATen calls (the bench's GEMM probe records them). Each fast
// path documents how its values relate to the ATen ops it replaces.

#include <ATen/core/Tensor.h>

namespace gfn::core {

/// False if the environment variable GFN_PLAIN_LOOPS is "0" (the ATen ops, for A/B
/// measurements), true otherwise. Read on every call (getenv), so tests can switch it.
/// Thread-safe as long as nobody modifies the environment concurrently.
bool plain_loops_enabled();

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

}  // namespace gfn::core
