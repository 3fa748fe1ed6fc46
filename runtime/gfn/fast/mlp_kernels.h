#pragma once
// Fast path (runtime/gfn/fast/): how the hand-written MLP forward and backward
// (mlp_forward.h, mlp_backward.h; entered through manual_backward.h and forward_recorder.h)
// compute, chosen by the engine plan (runtime/gfn/engine_plan.h). Plain value type, no
// LibTorch.

#include "runtime/gfn/engine_plan.h"

namespace gfn::core {

/// How the hand-written MLP forward and backward compute (engine: options,
/// engine_options.h).
struct MlpKernels {
  /// engine.plain_loops: bias rows, ReLU and column sums as plain loops (plain_loops.h);
  /// false: the ATen ops.
  bool plain_loops = true;
  /// engine.precision bf16: every GEMM with bfloat16 operands, float32 accumulation and
  /// output (bf16_gemm.h); the layer inputs are kept as bf16 copies for the backward, the
  /// weights copied to bf16 once per forward (ForwardRecorder: once per recorder). The
  /// bias rows, ReLU, bias gradients, head outputs and parameter gradients stay float32.
  /// Values differ from float32 by the operands' rounding (relative ~2^-9 per operand);
  /// tests/runtime/gfn/fast/bf16_gemm_test.cc bounds the difference. false: float32 GEMMs
  /// (ATen), bit-identical to model.forward.
  bool bf16 = false;
  /// engine.split_rows with train.num_threads T > 1: T; the rows of every forward and
  /// backward are split into that many contiguous ranges, each run on its own thread
  /// (row_split.h; fewer below 2 x kMinRowsPerPart rows). Values equal the unsplit ones
  /// row by row up to the GEMM's blocking for the row count; the parameter gradients are
  /// sums over the ranges (float summation order). 1: one thread.
  int row_parts = 1;
};

/// The kernels of the engine plan: plan.plain_loops, plan.precision, plan.row_split_threads.
inline MlpKernels mlp_kernels(const EnginePlan& plan) {
  return MlpKernels{plan.plain_loops, plan.precision == Precision::kBf16, plan.row_split_threads};
}

}  // namespace gfn::core
