#pragma once
// Fast path (runtime/gfn/fast/): the hand-written backward of a model's MLPs, as ONE autograd
// node (RecordedMlp in mlp_backward.cc) over forwards done earlier without autograd
// (mlp_forward.h): the node's outputs are the nets' head outputs, and its backward runs the
// nets' backward on all rows at once with the minimal GEMMs per Linear layer: grad-weight
// mm(dy^T, x), grad-input mm(dy, W) except for the first layer (the inputs need no gradient),
// bias gradients as column sums in ATen's summation order (add_column_sums, plain_loops.h),
// instead of ~3 autograd nodes, transposes and one AccumulateGrad per parameter. With
// kernels.bf16 its GEMMs are bf16 (mlp_bf16.h); with kernels.row_parts > 1 its rows are split
// over threads (row_split.h) and the ranges' parameter gradients summed. Internal to the MLP
// fast path; its users are manual_backward.cc and forward_recorder.cc.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/mlp_kernels.h"
#include "runtime/gfn/fast/mlp_layout.h"

namespace gfn::core::mlp {

/// The outputs of the nets' heads (PolicyOutputs, outputs_of) as the outputs of one
/// RecordedMlp node, differentiable w.r.t. the nets' parameters. nets: the parameters WITH
/// autograd (NoisyLinear: mu + sigma * eps with its graph). acts: the layer inputs of every
/// net (x, h_1, ..., h_L per net, in net order; NetsForward::acts) for each block of rows in
/// turn, block_rows the blocks' row counts; heads_out: every row's head outputs [M, out], in
/// net and head order. weights_bf16: empty (float32 GEMMs), or the bf16 copies of the weights
/// (bf16_weights) with which the forward ran, acts then being bf16 copies too.
///
/// write_leaf_grads: the gradients of the leaf parameters that require grad (when grad mode is
/// on) are accumulated IN PLACE into their .grad (created as zeros if undefined; with FlatAdamW
/// a view of the flat gradient buffer) instead of being returned to autograd: such a parameter
/// is NOT an input of the node, so autograd has no edge to its AccumulateGrad (13 engine calls
/// saved at 2-D h8); a constant anchor leaf keeps the node in the graph when no other input
/// needs a gradient (it never receives one). Their versions are checked instead of autograd's
/// saved-variable check: the backward throws std::logic_error if one was modified in place
/// after this call. Not thread-safe.
PolicyOutputs recorded_outputs(const std::vector<Net>& nets, std::vector<at::Tensor> acts,
                               std::vector<std::int64_t> block_rows,
                               std::vector<at::Tensor> heads_out, bool write_leaf_grads,
                               MlpKernels kernels, std::vector<at::Tensor> weights_bf16);

}  // namespace gfn::core::mlp
