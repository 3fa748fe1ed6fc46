#include "runtime/gfn/fast/forward_recorder.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "runtime/gfn/fast/bf16_gemm.h"
#include "runtime/gfn/fast/mlp_backward.h"
#include "runtime/gfn/fast/mlp_forward.h"
#include "runtime/gfn/fast/mlp_layout.h"

namespace gfn::core {

namespace {

using mlp::Net;
using mlp::NetsForward;

// The layer-input buffers of a ForwardRecorder (one per layer input of each net, [capacity,
// width]) with room for x's rows after the `rows` written: grown past capacity_hint by
// doubling, the rows so far copied over.
void reserve_layer_inputs(const std::vector<Net>& nets, const at::Tensor& x, bool bf16,
                          std::int64_t rows, std::int64_t capacity_hint,
                          std::vector<at::Tensor>& layer_inputs, std::int64_t& capacity) {
  const std::int64_t need = rows + x.size(0);
  if (need <= capacity) return;
  const std::int64_t grown_capacity = std::max({need, 2 * capacity, capacity_hint});
  const auto type = bf16 ? at::kBFloat16 : at::kFloat;
  std::vector<at::Tensor> grown;
  std::size_t j = 0;
  for (const Net& net : nets) {
    for (std::int64_t i = 0; i <= net.n_trunk; ++i, ++j) {
      const std::int64_t width = i == 0 ? x.size(1) : net.params[2 * (i - 1)].size(0);
      at::Tensor buffer = at::empty({grown_capacity, width}, type);
      if (rows > 0) buffer.narrow(0, 0, rows).copy_(layer_inputs[j].narrow(0, 0, rows));
      grown.push_back(std::move(buffer));
    }
  }
  layer_inputs = std::move(grown);
  capacity = grown_capacity;
}

// A record's buffers: rows [rows, rows + M) of the layer inputs (x copied in; bf16 copies with
// bf16) and fresh head outputs [M, out].
NetsForward record_buffers(const std::vector<Net>& nets, const at::Tensor& x, bool bf16,
                           std::int64_t rows, const std::vector<at::Tensor>& layer_inputs) {
  const std::int64_t m = x.size(0);
  NetsForward out;
  std::size_t j = 0;
  for (const Net& net : nets) {
    at::Tensor input = layer_inputs[j++].narrow(0, rows, m);
    if (bf16) {
      to_bf16_out(x.contiguous(), input);  // rounded straight into the buffer's rows
    } else {
      input.copy_(x);
    }
    out.acts.push_back(std::move(input));
    for (std::int64_t i = 0; i < net.n_trunk; ++i) {
      out.acts.push_back(layer_inputs[j++].narrow(0, rows, m));
    }
    for (std::size_t k = 0; k < net.heads.size(); ++k) {
      out.heads.push_back(at::empty({m, net.params[2 * net.n_trunk + 2 * k].size(0)}, at::kFloat));
    }
  }
  return out;
}

}  // namespace

ForwardRecorder::ForwardRecorder(GFlowNetModel& model, MlpKernels kernels,
                                 std::int64_t capacity_hint)
    : model_(model), kernels_(kernels), capacity_hint_(capacity_hint) {}

PolicyOutputs ForwardRecorder::record(const at::Tensor& x, const RowsComputed& computed) {
  if (done_) throw std::logic_error("ForwardRecorder::record: outputs() was already called");
  std::vector<Net> nets;
  {
    at::NoGradGuard no_grad;
    nets = ModelLayout::nets(model_, /*pf_only=*/true);
  }
  NetsForward fwd;
  {
    at::NoGradGuard no_grad;
    reserve_layer_inputs(nets, x, kernels_.bf16, rows_, capacity_hint_, layer_inputs_, capacity_);
    fwd = record_buffers(nets, x, kernels_.bf16, rows_, layer_inputs_);
  }
  // The parameters do not change until outputs(): one bf16 copy of the weights.
  std::function<void(RowRange)> after;
  if (computed) {
    after = [&](RowRange r) { computed(r, mlp::outputs_of(nets[0].heads, fwd.heads)); };
  }
  mlp::run_nets_in(nets, x, kernels_, weights_bf16_, fwd, after);
  PolicyOutputs out = mlp::outputs_of(nets[0].heads, fwd.heads);
  rows_ += x.size(0);
  heads_.push_back(std::move(fwd.heads));
  return out;
}

PolicyOutputs ForwardRecorder::outputs() {
  if (done_ || heads_.empty()) {
    throw std::logic_error("ForwardRecorder::outputs: nothing recorded, or called twice");
  }
  done_ = true;
  // The layer inputs are one block already (each backward row range reads its rows without a
  // copy); the head outputs are concatenated.
  std::vector<at::Tensor> acts, heads;
  for (const at::Tensor& t : layer_inputs_) acts.push_back(t.narrow(0, 0, rows_));
  const std::vector<std::int64_t> block_rows{rows_};
  for (std::size_t j = 0; j < heads_[0].size(); ++j) {
    std::vector<at::Tensor> column;
    for (const auto& record : heads_) column.push_back(record[j]);
    heads.push_back(column.size() == 1 ? column[0] : at::cat(column));
  }
  layer_inputs_.clear();
  heads_.clear();
  // The parameters with autograd (NoisyLinear: mu + sigma * eps builds its graph here).
  return mlp::recorded_outputs(ModelLayout::nets(model_, /*pf_only=*/true), std::move(acts),
                               block_rows, std::move(heads), /*write_leaf_grads=*/false, kernels_,
                               std::move(weights_bf16_));
}

}  // namespace gfn::core
