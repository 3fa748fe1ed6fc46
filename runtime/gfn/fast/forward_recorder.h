#pragma once
// Fast path (runtime/gfn/fast/): ForwardRecorder, the forward of a model's MLPs recorded over
// the steps of on-policy sampling without autograd, and afterwards differentiated by ONE
// hand-written backward on all recorded rows (mlp_backward.h). Its user is the reuse of the
// sampling forward (saving_sampler.h, engine.reuse_logprobs); the reference is the loss'
// recomputation with autograd, which tests/runtime/gfn/fast/reuse_logprobs_test.cc and
// evaluator_equivalence_test.cc compare with.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/mlp_kernels.h"
#include "runtime/gfn/fast/row_split.h"

namespace gfn::core {

/// Records forward passes of a model WITHOUT autograd (on-policy sampling, one record per
/// sampling step; sampler.h) and afterwards gives the outputs of all recorded rows ONE
/// autograd node, whose backward is the MLP's backward on all rows at once (a few large
/// GEMMs per layer, like autograd's on one batched forward) from the recorded activations.
/// This is how the loss reuses the sampling forward (torchgfn's save_logprobs) without
/// paying a per-step backward (~27 small GEMM chains at 4-D h8, batch 128).
///
/// Records PF's trunk and head; for a tied model also the PB head (learned PB) and the
/// logF head (if any), which share that trunk pass. Each record writes its layer inputs into one
/// growing buffer per layer, after the earlier records' rows, so the backward reads every layer's
/// rows as one block without concatenating the records (per row range with kernels.row_parts > 1:
/// each range its own rows, on its own thread). The parameters, the
/// NoisyNet noise and the mode (train / eval) must not change between record() and outputs(). Not
/// thread-safe; single use (outputs() once).
class ForwardRecorder {
 public:
  /// Told of each row range of a record as soon as its rows of `outputs` (the whole [M, ...]
  /// tensors; other rows may still be in progress) are final, on the thread that computed them:
  /// with kernels.row_parts > 1, several ranges at once on different threads (row_split.h).
  /// Must only read its own rows and write what it owns; may throw (record rethrows).
  using RowsComputed = std::function<void(RowRange rows, const PolicyOutputs& outputs)>;

  /// capacity_hint: rows to make room for at the first record (e.g. the previous batch's
  /// rows()); the layer-input buffers grow by doubling past it (one copy of the rows so far).
  ForwardRecorder(GFlowNetModel& model, MlpKernels kernels, std::int64_t capacity_hint = 0);
  /// x float32 [M, input_dim] -> detached outputs of model.forward(x, 0) (same ops, same
  /// values): pf_logits [M, n_actions]; tied only: pb_logits [M, n_actions - 1] (learned
  /// PB) and log_flow [M] (logF head); undefined otherwise. Keeps the layer inputs. If
  /// `computed` is set, it is called once for each row range (ranges covering all M rows) inside
  /// the forward's own parallel region, so per-row work that follows the forward (the fused
  /// sampler's probabilities, fused_sampler.h) runs on the same threads without another
  /// hand-over.
  PolicyOutputs record(const at::Tensor& x, const RowsComputed& computed = {});
  /// The outputs of every recorded row, concatenated in record order, differentiable
  /// w.r.t. the model's parameters. Throws std::logic_error if nothing was recorded or
  /// outputs() was already called.
  PolicyOutputs outputs();
  /// Rows recorded so far.
  std::int64_t rows() const { return rows_; }

 private:
  GFlowNetModel& model_;
  MlpKernels kernels_;
  std::int64_t capacity_hint_;
  std::vector<at::Tensor> weights_bf16_;  ///< kernels_.bf16: the weights' bf16 copies
  /// Every record's layer inputs (x, h_1, ..., h_L per net) one after the other: [capacity_, width]
  /// each (bf16 with kernels_.bf16), rows [0, rows_) written. One block for the backward: no
  /// concatenation of the records (at 8-D batch 1024, ~1.7 ms per iteration on one thread).
  std::vector<at::Tensor> layer_inputs_;
  std::int64_t capacity_ = 0;
  std::vector<std::vector<at::Tensor>> heads_;  ///< per record: head outputs [M, out]
  std::int64_t rows_ = 0;
  bool done_ = false;
};

}  // namespace gfn::core
