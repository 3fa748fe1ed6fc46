#pragma once
// Fast path (runtime/gfn/fast/): the MLPs of a GFlowNetModel (estimators.h) with a
// hand-written backward. Two users: the state table's forward on every state
// (state_table.h, engine.table_backward manual) and the reuse of the sampling
// forward (saving_sampler.h, engine.reuse_logprobs). The reference is model.forward with
// autograd; tests/runtime/gfn/fast/state_table_test.cc and reuse_logprobs_test.cc compare
// the two.
//
// Not thread-safe: one thread owns the model.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/mlp_kernels.h"
#include "runtime/gfn/fast/row_split.h"

namespace gfn::core {

/// model.forward(x, 0) (PF, PB and logF on all M rows of x float32 [M, input_dim]) with a
/// hand-written backward: the forward runs WITHOUT autograd (bit-identical values to
/// model.forward: the same addmm GEMMs; bias rows and ReLU as plain loops if
/// kernels.plain_loops, plain_loops.h; bf16 GEMMs if kernels.bf16) keeping every layer's
/// activations, and the outputs (pf_logits [M, n_actions], pb_logits [M, n_actions - 1], log_flow
/// [M] if the model has a logF head) come out of ONE autograd node (RecordedMlp in mlp_backward.cc)
/// whose backward runs the MLPs' backward with the minimal GEMMs per Linear layer
/// (grad-weight mm, grad-input mm except for the first layer; bias gradients as column
/// sums in ATen's summation order, add_column_sums in plain_loops.h),
/// instead of ~3 autograd nodes, transposes and one AccumulateGrad per parameter.
/// A uniform PB returns constant zeros (no gradient), as model.forward.
/// kernels.row_parts > 1 (engine.split_rows): the forward's and the backward's rows are split
/// into contiguous ranges, one thread each (row_split.h), and the ranges' parameter
/// gradients summed: outputs equal the unsplit ones up to the GEMM's rounding for another
/// row count, gradients up to summation order (tests/runtime/gfn/fast/row_split_test.cc).
///
/// write_leaf_grads: the backward accumulates the gradient of each leaf parameter (every
/// parameter except NoisyLinear's effective weights, whose mu/sigma get theirs through
/// autograd) IN PLACE into its .grad (with FlatAdamW: the flat gradient buffer) instead of
/// returning it to autograd: same values for loss.backward(), no AccumulateGrad; but
/// tensor hooks on those parameters do not run and torch::autograd::grad() does not
/// return their gradients. Gradients equal autograd's up to GEMM summation order
/// (tests/runtime/gfn/fast/state_table_test.cc). Parameters, noise and mode must not change
/// before the backward (a parameter modified in place makes the backward throw, like
/// autograd's saved-variable check). Used by the state table (state_table.h); not
/// thread-safe.
PolicyOutputs forward_manual_backward(GFlowNetModel& model, const at::Tensor& x,
                                      bool write_leaf_grads, MlpKernels kernels);

/// Untied model only: PB's logits (learned PB) and logF (if the model has a logF head) of
/// the M rows of x float32 [M, input_dim] from their own trunks, by the hand-written
/// forward and backward of forward_manual_backward (PF's trunk is not run): pb_logits
/// [M, n_actions - 1] (undefined for a uniform PB), log_flow [M] (undefined without a
/// logF head), pf_logits undefined. Gradients go back through autograd (no
/// write_leaf_grads). Used by the reuse of the sampling forward for the nets it
/// did not record (saved_outputs_evaluator.h) when engine.precision is bf16. Throws
/// std::logic_error for a tied model. Not thread-safe.
PolicyOutputs pb_and_flow_manual_backward(GFlowNetModel& model, const at::Tensor& x,
                                          MlpKernels kernels);

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
