#pragma once
// YAML `engine:` (docs/configuration.md): which numerical path of the trainer's engine runs
// (learner.h, fast/) and how the process is set up for it (BLAS kernels, malloc). Every
// fast path has a reference it is tested against (tests/runtime/gfn/fast/); the defaults
// select the fast paths and each option turns one of them off (A/B measurements, tests).
// The options are resolved once, with the run's other facts, into the engine plan
// (engine_plan.h), which everything downstream reads; nothing in runtime/gfn reads the
// process environment. Plain value types, no LibTorch.

#include "runtime/config/enum_names.h"

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::core {

/// engine.state_table: evaluate the networks once per iteration on every state of a small
/// enumerable environment (fast/state_table.h).
enum class StateTableMode {
  kAuto,  ///< used when the environment is enumerable with <= kStateTableMaxStates states
  kOff,   ///< never: the generic path (per-step forwards, then the loss' forward)
};
inline constexpr config::EnumName<StateTableMode> kStateTableModeNames[] = {
    {StateTableMode::kAuto, "auto"}, {StateTableMode::kOff, "off"}};

/// engine.table_backward: the state table's backward (fast/state_table.h).
enum class TableBackward {
  kManual,    ///< hand-written MLP backward in one autograd node (fast)
  kAutograd,  ///< model.forward under autograd (the reference)
};
inline constexpr config::EnumName<TableBackward> kTableBackwardNames[] = {
    {TableBackward::kManual, "manual"}, {TableBackward::kAutograd, "autograd"}};

/// engine.optimizer: the AdamW implementation (the same update).
enum class OptimizerKind {
  kFlat,   ///< FlatAdamW (fast/flat_adam.h): parameters in one buffer
  kTorch,  ///< torch::optim::AdamW (the reference)
};
inline constexpr config::EnumName<OptimizerKind> kOptimizerKindNames[] = {
    {OptimizerKind::kFlat, "flat"}, {OptimizerKind::kTorch, "torch"}};

/// engine.blas_kernels: OpenBLAS's kernel set (runtime/process/blas_kernels.h).
enum class BlasKernels {
  kAuto,  ///< choose OPENBLAS_CORETYPE from the CPU flags (re-exec at start-up)
  kOff,   ///< let OpenBLAS guess
};
inline constexpr config::EnumName<BlasKernels> kBlasKernelsNames[] = {{BlasKernels::kAuto, "auto"},
                                                                      {BlasKernels::kOff, "off"}};

/// engine.precision: the arithmetic of the fast path's MLP GEMMs (fast/mlp_kernels.h).
enum class Precision {
  kFp32,  ///< float32 GEMMs (OpenBLAS through ATen): the reference
  kBf16,  ///< bfloat16 operands, float32 accumulation and output (fast/bf16_gemm.h)
};
inline constexpr config::EnumName<Precision> kPrecisionNames[] = {{Precision::kFp32, "fp32"},
                                                                  {Precision::kBf16, "bf16"}};

inline constexpr const auto& enum_names(StateTableMode) { return kStateTableModeNames; }
inline constexpr const auto& enum_names(Precision) { return kPrecisionNames; }
inline constexpr const auto& enum_names(TableBackward) { return kTableBackwardNames; }
inline constexpr const auto& enum_names(OptimizerKind) { return kOptimizerKindNames; }
inline constexpr const auto& enum_names(BlasKernels) { return kBlasKernelsNames; }

/// Every non-default value except precision: bf16 selects a reference path with the same
/// results up to float rounding (tests/runtime/gfn/fast/evaluator_equivalence_test.cc and
/// the other tests there).
struct EngineOptions {
  /// Small enumerable environments evaluate PF/PB/logF once per iteration on all states
  /// (fast/state_table.h); off: the generic path. Cost of off at 2-D h8: ~2x per iteration.
  StateTableMode state_table = StateTableMode::kAuto;
  /// State table only: manual (hand-written backward, write into .grad) or autograd.
  TableBackward table_backward = TableBackward::kManual;
  /// State table with the manual backward and loss "tb": one fused autograd node for the
  /// whole trajectory balance loss; false: the table's log-probs node, then losses.h.
  bool fused_tb = true;
  /// flat: FlatAdamW (~20 ATen calls per step); torch: torch::optim::AdamW (~200).
  OptimizerKind optimizer = OptimizerKind::kFlat;
  /// FlatAdamW only: a fused loop when it rounds like ATen's kernels on this CPU (detected
  /// at construction, fast/flat_adam.h); false: ATen's op sequence on the flat buffers.
  bool fused_adam = true;
  /// Dispatch-free loops for the small ops of the state table's iteration
  /// (fast/plain_loops.h); false: the ATen ops.
  bool plain_loops = true;
  /// Iterations of the generic path (exploring ones too) reuse the sampling forward in the loss
  /// (fast/saved_outputs_evaluator.h); false: the loss recomputes log PF / log PB.
  bool reuse_logprobs = true;
  /// The sampler of those iterations runs each step's bookkeeping as loops over the running
  /// rows (fast/fused_sampler.h; environments with row dynamics, e.g. HyperGrid): the same
  /// trajectories and draws; false: the reference sampler's batched ATen calls.
  bool fused_sampler = true;
  /// fp32, or bf16: the GEMMs of the hand-written MLP forward and backward (the sampling
  /// forward reused by the loss, the state table) with bfloat16 operands and float32
  /// accumulation (fast/bf16_gemm.h; ~2x the float32 GEMM rate on AVX512_BF16 CPUs). The
  /// parameters, gradients, optimizer, loss, validation and the reference path stay
  /// float32. NOT a reference-equivalent option: values change by bf16 rounding. Refused
  /// at start-up on a CPU without bf16 instructions (the engine plan, engine_plan.h).
  Precision precision = Precision::kFp32;
  /// With train.num_threads T > 1: each on-policy iteration's batch is split into T parts,
  /// each sampled, evaluated and differentiated by its own copy of the model on its own
  /// thread (one intra-op thread each), the gradients summed before the one optimizer step
  /// (fast/batch_split.h). false: T intra-op threads per op. Loss tb only, without noisy
  /// layers, local search or a local replay buffer (refused by the engine plan); iterations
  /// with replayed or remote items, and the state table, run unsplit. The draws differ
  /// from T = 1's (deterministic for a seed and T); the gradients of the same trajectories
  /// are the same up to float summation order.
  bool split_batch = false;
  /// With train.num_threads T > 1 (and split_batch false): the rows of the hand-written
  /// MLP's forward and backward (the sampling forward reused by the loss, its backward, the
  /// untied PB / logF pass of the loss) are split into T ranges run on T threads with a
  /// one-thread BLAS, their parameter gradients summed (fast/row_split.h); every other op
  /// runs with T intra-op threads. Same trajectories as one thread up to the GEMM's float
  /// rounding for another row count. Only the saved-outputs evaluator splits rows; with
  /// another (reference, state table) the BLAS gets T threads and ATen 1 (the start-up chose
  /// libgomp's spin count, runtime/process/blas_kernels.h, and spinning OpenMP threads would
  /// take the BLAS threads' cores). false: T intra-op and T BLAS threads per op.
  bool split_rows = true;
  /// Process start-up (gfn-train, gfn-bench-train): OpenBLAS kernel set, passed to OpenBLAS
  /// through OPENBLAS_CORETYPE, which it reads when it is loaded: main() sets it and
  /// re-executes itself (runtime/process/blas_kernels.h). A user-set OPENBLAS_CORETYPE wins.
  BlasKernels blas_kernels = BlasKernels::kAuto;
  /// Process start-up: raise glibc's mmap / trim thresholds (runtime/process/malloc_tuning.h)
  /// so tensor buffers stay in the heap; skipped when GLIBC_TUNABLES is set. Cost: up to
  /// 512 MiB of freed memory may stay mapped.
  bool malloc_tune = true;
};

/// Whether an on-policy trainer with train.num_threads threads splits the rows of its MLP
/// over them (engine.split_rows, fast/row_split.h): split_rows, not split_batch, and
/// num_threads > 1. Pure.
bool splits_rows(const EngineOptions& engine, int num_threads);

/// Whether the fast path's GEMMs run on OpenMP's (LibTorch's intra-op) threads: bf16
/// (oneDNN) or splits_rows. Chooses libgomp's wait policy at start-up
/// (runtime/process/blas_kernels.h). Pure.
bool gemms_on_openmp_threads(const EngineOptions& engine, int num_threads);

/// The `engine:` keys (engine_options.cc).
const config::Fields<EngineOptions>& engine_fields();

}  // namespace gfn::core
