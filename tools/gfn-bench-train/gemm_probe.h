#pragma once
// GEMM probes: the rate LibTorch's CPU BLAS reaches, in this process and with the current
// LibTorch thread count, to compare the trainer's achieved GFLOP/s against.
//  - probe_gemm: ONE shape, the hidden layer's forward, at::addmm(b [out], x [rows, in],
//    W [out, in]^T) -- what torch::nn::Linear::forward computes.
//  - probe_gemm_calls: the SAME SHAPES as an iteration (flop_model.h GemmCall: every
//    forward addmm and backward grad-input / grad-weight mm of every Linear layer, with
//    the operand layouts autograd uses), each weighted by its calls per iteration: the
//    rate is sum(count * FLOPs) / sum(count * seconds per call).
//  - record_gemm_calls: the GEMM calls a piece of code really runs (aten::addmm,
//    aten::addmm_ and aten::mm seen by an ATen RecordFunction callback), to check the
//    shape list against and to probe exactly those calls.
// All float32. Timings repeat a call in blocks of at least `min_block_s` seconds and take
// the median over `n_blocks` blocks (harness::seconds_per_call,
// tools/common/harness/timing.h). Blocking. Not thread-safe with other LibTorch work in
// the process (shares the BLAS pool; record_gemm_calls installs a global callback).

#include <cstdint>
#include <functional>
#include <vector>

#include "tools/gfn-bench-train/flop_model.h"

namespace gfn::bench {

struct GemmProbe {
  std::int64_t rows = 0, in = 0, out = 0;
  double seconds_per_gemm = 0;  ///< median over blocks
  double gflops = 0;            ///< 2 * rows * in * out / seconds_per_gemm / 1e9
};

/// Throws std::invalid_argument if a dimension is < 1, n_blocks < 1 or min_block_s <= 0.
GemmProbe probe_gemm(std::int64_t rows, std::int64_t in, std::int64_t out, int n_blocks = 5,
                     double min_block_s = 0.05);

struct TimedGemmCall {
  GemmCall call;
  double seconds = 0;  ///< per call, median over blocks
  double gflops = 0;   ///< call.flops() / seconds / 1e9
};

struct SameShapesProbe {
  std::vector<TimedGemmCall> calls;
  double flops = 0;    ///< sum of count * FLOPs: GEMM FLOPs per iteration
  double seconds = 0;  ///< sum of count * seconds: GEMM time per iteration
  double gflops = 0;   ///< flops / seconds / 1e9
};

/// Times each call (at::addmm / at::mm on random operands of its shape and layout, the
/// result allocated per call as in the iteration; "addmm_" accumulates into one result).
/// Throws std::invalid_argument for an empty list, a dimension < 1, an op other than
/// "addmm"/"addmm_"/"mm", a count <= 0,
/// n_blocks < 1 or min_block_s <= 0.
SameShapesProbe probe_gemm_calls(const std::vector<GemmCall>& calls, int n_blocks = 5,
                                 double min_block_s = 0.01);

/// Runs `body` `iterations` times (>= 1, else std::invalid_argument) and returns the
/// distinct float32 2-D aten::addmm / addmm_ / mm calls it made on this thread
/// (first-seen order; op "addmm", "addmm_", "mm"), count = occurrences / iterations,
/// `what` inferred from the layout: "forward" for addmm; "grad-weight" for an mm or addmm_
/// whose first operand is a transposed view (dy^T [out x r] x x [r x in], the hand-written
/// backward accumulates weight gradients with addmm_ into the flat gradient buffer);
/// "accumulate" for any other addmm_; "grad-input" otherwise. Calls from other threads are
/// not recorded.
std::vector<GemmCall> record_gemm_calls(const std::function<void()>& body, int iterations);

}  // namespace gfn::bench
