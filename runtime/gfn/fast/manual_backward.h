#pragma once
// Fast path (runtime/gfn/fast/): the MLPs of a GFlowNetModel (estimators.h) run by hand on a
// batch of inputs, their outputs coming out of one autograd node with a hand-written
// backward: the state table's forward on every state (state_table.h, engine.table_backward
// manual) and, for the reuse of the sampling forward under bf16, the nets it did not record
// (saved_outputs_evaluator.h). The forward is mlp_forward.h, the backward mlp_backward.h;
// ForwardRecorder (forward_recorder.h) runs the same over many sampling steps. The reference
// is model.forward with autograd; tests/runtime/gfn/fast/state_table_test.cc and
// bf16_gemm_test.cc compare the two.
//
// Not thread-safe: one thread owns the model.

#include <ATen/core/Tensor.h>

#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/mlp_kernels.h"

namespace gfn::core {

/// model.forward(x, 0) (PF, PB and logF on all M rows of x float32 [M, input_dim]) with a
/// hand-written backward: the forward runs WITHOUT autograd (bit-identical values to
/// model.forward: the same addmm GEMMs; bias rows and ReLU as plain loops if
/// kernels.plain_loops, plain_loops.h; bf16 GEMMs if kernels.bf16) keeping every layer's
/// activations, and the outputs (pf_logits [M, n_actions], pb_logits [M, n_actions - 1], log_flow
/// [M] if the model has a logF head) come out of ONE autograd node (RecordedMlp, mlp_backward.h)
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

}  // namespace gfn::core
