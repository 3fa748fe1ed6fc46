#pragma once
// The `engine:` section of an experiment: which numerical path of the trainer's engine
// runs (runtime/gfn/learner.h) and how the process is set up for it (BLAS kernels,
// malloc). Every fast path has a reference it can be compared with; the defaults select
// the fast paths, and each option turns one of them off (A/B measurements, tests).
// LibTorch-free: included by runtime/config/options.h and runtime/gfn/learner.h.
//
// The allowed values of each enumerated option are written once, in its *_names table
// below (the config registry, config.yaml and summary.json use them).

#include <cstddef>
#include <string>

namespace gfn::config {

/// An enumerator and its YAML spelling.
template <class E>
struct EnumName {
  E value;
  const char* name;
};

/// engine.state_table: evaluate the networks once per iteration on every state of a small
/// enumerable environment (runtime/gfn/fast/state_table.h).
enum class StateTableMode {
  kAuto,  ///< used when the environment is enumerable with <= kStateTableMaxStates states
  kOff,   ///< never: the generic path (per-step forwards, then the loss' forward)
};
inline constexpr EnumName<StateTableMode> kStateTableModeNames[] = {{StateTableMode::kAuto, "auto"},
                                                                    {StateTableMode::kOff, "off"}};

/// engine.table_backward: the state table's backward (state_table.h evaluate_state_table).
enum class TableBackward {
  kManual,    ///< hand-written MLP backward in one autograd node (fast)
  kAutograd,  ///< model.forward under autograd (the reference)
};
inline constexpr EnumName<TableBackward> kTableBackwardNames[] = {
    {TableBackward::kManual, "manual"}, {TableBackward::kAutograd, "autograd"}};

/// engine.optimizer: the AdamW implementation (the same update).
enum class OptimizerKind {
  kFlat,   ///< FlatAdamW (runtime/gfn/fast/flat_adam.h): parameters in one buffer
  kTorch,  ///< torch::optim::AdamW (the reference)
};
inline constexpr EnumName<OptimizerKind> kOptimizerKindNames[] = {{OptimizerKind::kFlat, "flat"},
                                                                  {OptimizerKind::kTorch, "torch"}};

/// engine.blas_kernels: OpenBLAS's kernel set (runtime/blas_kernels.h).
enum class BlasKernels {
  kAuto,  ///< choose OPENBLAS_CORETYPE from the CPU flags (re-exec at start-up)
  kOff,   ///< let OpenBLAS guess
};
inline constexpr EnumName<BlasKernels> kBlasKernelsNames[] = {{BlasKernels::kAuto, "auto"},
                                                              {BlasKernels::kOff, "off"}};

// enum_names(E{}): the table of an enumeration (found by argument-dependent lookup).
inline constexpr const auto& enum_names(StateTableMode) { return kStateTableModeNames; }
inline constexpr const auto& enum_names(TableBackward) { return kTableBackwardNames; }
inline constexpr const auto& enum_names(OptimizerKind) { return kOptimizerKindNames; }
inline constexpr const auto& enum_names(BlasKernels) { return kBlasKernelsNames; }

/// The YAML spelling of v ("?" for a value outside its table).
template <class E>
const char* enum_name(E v) {
  for (const auto& entry : enum_names(E{})) {
    if (entry.value == v) return entry.name;
  }
  return "?";
}

/// Parses `text` into `out`; false (out unchanged) if it is not one of the names.
template <class E>
bool parse_enum(const std::string& text, E& out) {
  for (const auto& entry : enum_names(E{})) {
    if (text == entry.name) {
      out = entry.value;
      return true;
    }
  }
  return false;
}

/// "a, b, c": the allowed names of E.
template <class E>
std::string enum_choices() {
  std::string out;
  for (const auto& entry : enum_names(E{})) {
    if (!out.empty()) out += ", ";
    out += entry.name;
  }
  return out;
}

/// YAML `engine:`. The defaults are the fast paths (what ran before these options existed,
/// with no GFN_* environment variable set); every other value selects a reference path
/// with the same results up to float rounding (tests/runtime/gfn/*). Parsed once, handed to
/// the Learner's constructor; nothing in runtime/gfn reads the process environment.
struct EngineOptions {
  /// Small enumerable environments evaluate PF/PB/logF once per iteration on all states
  /// (state_table.h); off: the generic path. Cost of off at 2-D h8: ~2x per iteration.
  /// Replaces GFN_STATE_TABLE=0.
  StateTableMode state_table = StateTableMode::kAuto;
  /// State table only: manual (hand-written backward, write into .grad) or autograd.
  /// Replaces GFN_TABLE_MANUAL_BACKWARD=0.
  TableBackward table_backward = TableBackward::kManual;
  /// State table with the manual backward and loss "tb": one fused autograd node for the
  /// whole trajectory balance loss (state_table.h table_trajectory_balance); false: the
  /// table's log-probs node, then losses.h trajectory_balance. Replaces GFN_TABLE_FUSED_TB=0.
  bool fused_tb = true;
  /// flat: FlatAdamW (~20 ATen calls per step); torch: torch::optim::AdamW (~200).
  /// Replaces GFN_FLAT_ADAM=0.
  OptimizerKind optimizer = OptimizerKind::kFlat;
  /// FlatAdamW only: use a fused loop when it rounds like ATen's kernels on this CPU
  /// (detected at construction, flat_adam.h); false: ATen's op sequence on the flat
  /// buffers. Replaces GFN_FUSED_ADAM=0.
  bool fused_adam = true;
  /// Dispatch-free loops for the small ops of the state table's iteration (bias rows,
  /// ReLU, column sums, masked fills, index arithmetic; runtime/gfn/fast/plain_loops.h);
  /// false: the ATen ops. Replaces GFN_PLAIN_LOOPS=0.
  bool plain_loops = true;
  /// On-policy iterations of the generic path reuse the sampling forward in the loss
  /// (learner.h); false: the loss recomputes log PF / log PB. Replaces GFN_REUSE_LOGPROBS=0.
  bool reuse_logprobs = true;
  /// Process start-up (gfn-train, gfn-bench-train): OpenBLAS kernel set. The one option
  /// that still goes through an environment variable, OPENBLAS_CORETYPE, because OpenBLAS
  /// reads it when it is loaded: main() sets it and re-executes itself (blas_kernels.h).
  /// A user-set OPENBLAS_CORETYPE wins. Replaces GFN_BLAS_AUTO=0.
  BlasKernels blas_kernels = BlasKernels::kAuto;
  /// Process start-up: raise glibc's mmap / trim thresholds (runtime/malloc_tuning.h) so
  /// tensor buffers stay in the heap; skipped when GLIBC_TUNABLES is set. Cost: up to
  /// 512 MiB of freed memory may stay mapped. Replaces GFN_MALLOC_TUNE=0.
  bool malloc_tune = true;
};

}  // namespace gfn::config
