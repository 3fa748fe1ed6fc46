#pragma once
// Fast path (runtime/gfn/fast/): how the hand-written MLP forward and backward of
// mlp_backward.h compute, chosen by the `engine:` options. Plain value type, no LibTorch.

#include "runtime/gfn/engine_options.h"

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
};

/// The kernels the engine options select.
inline MlpKernels mlp_kernels(const EngineOptions& engine) {
  return MlpKernels{engine.plain_loops, engine.precision == Precision::kBf16};
}

}  // namespace gfn::core
