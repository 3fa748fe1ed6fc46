#include "runtime/gfn/fast/mlp_backward.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "runtime/gfn/fast/bf16_gemm.h"
#include "runtime/gfn/fast/loop_clones.h"
#include "runtime/gfn/fast/mlp_bf16.h"
#include "runtime/gfn/fast/plain_loops.h"
#include "runtime/gfn/fast/row_split.h"

namespace gfn::core::mlp {

namespace {

// d[i] = 0 where out[i] <= 0: at::threshold_backward(d, out, 0)'s values, in place.
GFN_LOOP_CLONES void relu_backward_in_place(float* __restrict d, const float* __restrict out,
                                            std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) d[i] = out[i] <= 0.0f ? 0.0f : d[i];
}

// ReLU's backward, in place on dh (a tensor of this backward): at::threshold_backward's
// values (0 where the ReLU output is <= 0) without allocating (one loop, vectorized);
// out may be the bf16 copy of the output (engine.precision bf16).
at::Tensor relu_backward_(at::Tensor& dh, const at::Tensor& out) {
  if (dh.is_contiguous() && out.is_contiguous() && dh.scalar_type() == at::kFloat &&
      out.scalar_type() == at::kBFloat16) {
    relu_backward_bf16_in_place(dh.data_ptr<float>(),
                                reinterpret_cast<const std::int16_t*>(out.data_ptr()), dh.numel());
    return dh;
  }
  if (!dh.is_contiguous() || !out.is_contiguous() || dh.scalar_type() != at::kFloat ||
      out.scalar_type() != at::kFloat) {
    return at::threshold_backward(dh, out.to(at::kFloat), 0);
  }
  relu_backward_in_place(dh.data_ptr<float>(), out.data_ptr<float>(), dh.numel());
  return dh;
}

// The GEMMs of the Linear layers' backward and where their gradients go.
struct Backward {
  std::vector<at::Tensor> params, weights_bf16;
  std::vector<std::int64_t> var_of_param, versions;
  bool loops;
  torch::autograd::variable_list grads;
  /// A row range's backward (row_split.h): every parameter's gradient accumulates here
  /// (created as zeros), to be summed over the ranges; null: into sink() / give().
  std::vector<at::Tensor>* part_grads = nullptr;

  bool bf16() const { return !weights_bf16.empty(); }

  // dy as the GEMMs read it: its bf16 copy (engine.precision bf16) or itself.
  at::Tensor gemm_operand(const at::Tensor& dy) const {
    return bf16() ? to_bf16(dy.contiguous()) : dy;
  }

  // The .grad to accumulate parameter i's gradient into, or nullptr (return it).
  at::Tensor* sink(std::size_t i) {
    if (part_grads != nullptr) {
      at::Tensor& g = (*part_grads)[i];
      if (!g.defined()) g = at::zeros(params[i].sizes(), at::kFloat);
      return &g;
    }
    if (var_of_param[i] >= 0) return nullptr;
    if (static_cast<std::int64_t>(params[i]._version()) != versions[i]) {
      throw std::logic_error(
          "RecordedMlp: a parameter was modified in place between the forward and the "
          "backward");
    }
    at::Tensor& g = params[i].mutable_grad();
    if (!g.defined()) g = at::zeros_like(params[i]);
    return &g;
  }

  void give(std::size_t i, at::Tensor value) {
    grads[static_cast<std::size_t>(var_of_param[i])] = std::move(value);
  }

  // Gradients of Linear(in -> out) with parameters (W, b) at index w, given dy [M, out]
  // (dy_op: gemm_operand(dy)) and its input x [M, in] (bf16: the kept bf16 copy).
  void linear_grads(std::size_t w, const at::Tensor& dy, const at::Tensor& dy_op,
                    const at::Tensor& x) {
    if (bf16()) {
      if (at::Tensor* g = sink(w)) {
        add_weight_grad_bf16(dy_op, x, *g);
      } else {
        give(w, weight_grad_bf16(dy_op, x));
      }
    } else if (at::Tensor* g = sink(w)) {
      // dy^T without dispatch (transposed_view: m.t() without loops), same GEMM.
      g->addmm_(transposed_view(dy, loops), x);
    } else {
      give(w, transposed_view(dy, loops).mm(x));
    }
    if (at::Tensor* g = sink(w + 1)) {
      if (!loops || !add_column_sums(*g, dy)) g->add_(dy.sum(0));
    } else {
      at::Tensor db = at::zeros({dy.size(1)}, at::kFloat);
      give(w + 1, loops && add_column_sums(db, dy) ? db : dy.sum(0));
    }
  }

  // dh (+)= dy W for the Linear layer whose weight is params[w] (dy_op: gemm_operand(dy)).
  void add_grad_input(at::Tensor& dh, const at::Tensor& dy_op, std::size_t w) const {
    if (bf16()) {
      add_grad_input_bf16(dh, dy_op, weights_bf16[w / 2]);
      return;
    }
    dh = dh.defined() ? dh.addmm_(dy_op, params[w]) : dy_op.mm(params[w]);
  }
};

// The saved layer inputs, in blocks of rows (see RecordedMlp::forward), and the nets' layout.
struct Rows {
  std::vector<at::Tensor> acts;
  std::vector<std::int64_t> block_rows, layout;

  std::int64_t total() const {
    std::int64_t m = 0;
    for (std::int64_t r : block_rows) m += r;
    return m;
  }

  // Layer input j (net-order index) on rows r: a view of one block, or the blocks' pieces
  // concatenated.
  at::Tensor act(std::size_t j, RowRange r) const {
    const std::size_t per_block = acts.size() / block_rows.size();
    std::vector<at::Tensor> pieces;
    std::int64_t first = 0;  // the block's first row
    for (std::size_t blk = 0; blk < block_rows.size(); ++blk) {
      const std::int64_t begin = std::max(first, r.begin);
      const std::int64_t end = std::min(first + block_rows[blk], r.end);
      if (begin < end) {
        const at::Tensor& t = acts[blk * per_block + j];
        pieces.push_back(begin == first && end - begin == t.size(0)
                             ? t
                             : t.narrow(0, begin - first, end - begin));
      }
      first += block_rows[blk];
    }
    return pieces.size() == 1 ? pieces[0] : at::cat(pieces);
  }
};

// The nets' backward on rows r (gradients into b).
void backward_rows(Backward& b, const Rows& rows, const torch::autograd::variable_list& grad_out,
                   RowRange r) {
  const std::int64_t m = rows.total();
  std::size_t p = 0, a = 0, k = 0;  // first parameter, layer input, head output of the net
  for (std::size_t net = 0; net < rows.layout.size(); net += 2) {
    const auto n_trunk = static_cast<std::size_t>(rows.layout[net]);
    const auto n_heads = static_cast<std::size_t>(rows.layout[net + 1]);
    std::vector<at::Tensor> acts;
    for (std::size_t i = 0; i <= n_trunk; ++i) acts.push_back(rows.act(a + i, r));
    at::Tensor dh;
    for (std::size_t j = 0; j < n_heads; ++j) {
      const at::Tensor& out = grad_out[k + j];
      if (!out.defined()) continue;
      const at::Tensor g = r.size() == m ? out : out.narrow(0, r.begin, r.size());
      const std::size_t w = p + 2 * n_trunk + 2 * j;
      const at::Tensor g_op = b.gemm_operand(g);
      b.linear_grads(w, g, g_op, acts[n_trunk]);
      b.add_grad_input(dh, g_op, w);
    }
    for (std::size_t i = n_trunk; i-- > 0 && dh.defined();) {
      const std::size_t w = p + 2 * i;
      const at::Tensor dz = relu_backward_(dh, acts[i + 1]);
      const at::Tensor dz_op = b.gemm_operand(dz);
      b.linear_grads(w, dz, dz_op, acts[i]);
      at::Tensor next;
      if (i > 0) b.add_grad_input(next, dz_op, w);
      dh = next;
    }
    p += 2 * (n_trunk + n_heads);
    a += n_trunk + 1;
    k += n_heads;
  }
}

// The nets' backward with its rows split over `ranges` (row_split.h, one thread each): each
// range accumulates its parameters' gradients into its own tensors, summed after in range
// order and then handed to b's sinks or returned.
void backward_row_parts(Backward& b, const Rows& rows,
                        const torch::autograd::variable_list& grad_out,
                        const std::vector<RowRange>& ranges) {
  std::vector<std::vector<at::Tensor>> part_grads(ranges.size(),
                                                  std::vector<at::Tensor>(b.params.size()));
  run_row_parts(ranges, [&](std::size_t k, RowRange r) {
    Backward part{b.params, b.weights_bf16, b.var_of_param, b.versions, b.loops, {}};
    part.part_grads = &part_grads[k];
    backward_rows(part, rows, grad_out, r);
  });
  for (std::size_t i = 0; i < b.params.size(); ++i) {
    at::Tensor sum;
    for (auto& g : part_grads) {
      if (g[i].defined()) sum = sum.defined() ? sum.add_(g[i]) : g[i];
    }
    if (!sum.defined()) continue;
    if (at::Tensor* g = b.sink(i)) {
      g->add_(sum);
    } else {
      b.give(i, std::move(sum));
    }
  }
}

// One autograd node for MLP forwards done earlier without autograd (mlp_forward.h). params:
// the parameters of every net, concatenated in net order (Net::params; NoisyLinear:
// effective weights with their own graph); the layer inputs, head outputs and the layout
// (n_trunk, n_heads per net) come as non-differentiable arguments. Its outputs are the
// head outputs. backward() is the nets' backward on all rows at once (backward_rows).
//
// Gradients go either back to autograd (the node's differentiable inputs `vars`) or, for
// the parameters with var_of_param -1 (write_leaf_grads, recorded_outputs), straight into
// the parameter's .grad (Backward::sink), their versions checked against `versions`.
struct RecordedMlp : public torch::autograd::Function<RecordedMlp> {
  // acts: the layer inputs of every net (x, h_1, ..., h_L per net, in net order), for each
  // block of rows in turn (a forward: one block; a ForwardRecorder: one per record), the
  // blocks' row counts in block_rows; head_outputs: all rows'. weights_bf16: empty (float32
  // GEMMs), or the bf16 copies of the weights (bf16_weights; engine.precision bf16) with
  // which the forward ran; acts are then bf16 copies too. row_parts: the backward's rows
  // split over that many threads (row_split.h).
  static torch::autograd::variable_list forward(
      torch::autograd::AutogradContext* ctx, at::TensorList vars, std::vector<at::Tensor> params,
      std::vector<at::Tensor> acts, std::vector<std::int64_t> block_rows,
      std::vector<at::Tensor> head_outputs, std::vector<std::int64_t> layout,
      std::vector<std::int64_t> var_of_param, bool loops, std::vector<at::Tensor> weights_bf16,
      std::int64_t row_parts) {
    std::vector<std::int64_t> versions;
    for (std::size_t i = 0; i < params.size(); ++i) {
      versions.push_back(var_of_param[i] < 0 ? static_cast<std::int64_t>(params[i]._version()) : 0);
    }
    ctx->save_for_backward(vars.vec());
    ctx->saved_data["n_vars"] = static_cast<std::int64_t>(vars.size());
    ctx->saved_data["params"] = std::move(params);
    ctx->saved_data["acts"] = std::move(acts);
    ctx->saved_data["block_rows"] = std::move(block_rows);
    ctx->saved_data["layout"] = std::move(layout);
    ctx->saved_data["var_of_param"] = std::move(var_of_param);
    ctx->saved_data["versions"] = std::move(versions);
    ctx->saved_data["loops"] = loops;
    ctx->saved_data["weights_bf16"] = std::move(weights_bf16);
    ctx->saved_data["row_parts"] = row_parts;
    return head_outputs;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    ctx->get_saved_variables();  // autograd's version check of the vars
    Backward b{ctx->saved_data["params"].toTensorVector(),
               ctx->saved_data["weights_bf16"].toTensorVector(),
               ctx->saved_data["var_of_param"].toIntVector(),
               ctx->saved_data["versions"].toIntVector(), ctx->saved_data["loops"].toBool(),
               // One gradient per forward argument: vars, then params, acts, block_rows,
               // head_outputs, layout, var_of_param, loops, weights_bf16, row_parts.
               torch::autograd::variable_list(
                   static_cast<std::size_t>(ctx->saved_data["n_vars"].toInt()) + 9)};
    const Rows rows{ctx->saved_data["acts"].toTensorVector(),
                    ctx->saved_data["block_rows"].toIntVector(),
                    ctx->saved_data["layout"].toIntVector()};
    const auto ranges =
        row_ranges(rows.total(), static_cast<int>(ctx->saved_data["row_parts"].toInt()));
    if (ranges.size() == 1) {
      backward_rows(b, rows, grad_out, ranges[0]);
    } else {
      backward_row_parts(b, rows, grad_out, ranges);
    }
    return std::move(b.grads);
  }
};

}  // namespace

PolicyOutputs recorded_outputs(const std::vector<Net>& nets, std::vector<at::Tensor> acts,
                               std::vector<std::int64_t> block_rows,
                               std::vector<at::Tensor> heads_out, bool write_leaf_grads,
                               MlpKernels kernels, std::vector<at::Tensor> weights_bf16) {
  std::vector<at::Tensor> params, vars;
  std::vector<std::int64_t> layout, var_of_param;
  std::vector<Head> heads;
  for (const Net& net : nets) {
    params.insert(params.end(), net.params.begin(), net.params.end());
    layout.push_back(net.n_trunk);
    layout.push_back(static_cast<std::int64_t>(net.heads.size()));
    heads.insert(heads.end(), net.heads.begin(), net.heads.end());
  }
  bool written = false;
  for (const auto& p : params) {
    if (write_leaf_grads && p.requires_grad() && p.is_leaf() && at::GradMode::is_enabled()) {
      var_of_param.push_back(-1);
      written = true;
    } else {
      var_of_param.push_back(static_cast<std::int64_t>(vars.size()));
      vars.push_back(p);
    }
  }
  if (written) {
    // Keeps the node in the graph (a leaf that requires grad; never gets a gradient).
    thread_local const at::Tensor anchor = at::zeros({}, at::kFloat).requires_grad_(true);
    vars.push_back(anchor);
  }
  const auto out = RecordedMlp::apply(
      at::TensorList(vars), std::move(params), std::move(acts), std::move(block_rows),
      std::move(heads_out), std::move(layout), std::move(var_of_param), kernels.plain_loops,
      std::move(weights_bf16), static_cast<std::int64_t>(kernels.row_parts));
  return outputs_of(heads, out);
}

}  // namespace gfn::core::mlp
