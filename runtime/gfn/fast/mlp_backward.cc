#include "runtime/gfn/fast/mlp_backward.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>
#include <torch/nn/modules/activation.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/gfn/fast/bf16_gemm.h"
#include "runtime/gfn/fast/plain_loops.h"
#include "runtime/gfn/fast/row_split.h"

namespace gfn::core {

namespace {

// The Linear layers (plain or NoisyLinear, each followed by ReLU) of a trunk, as
// weight/bias pairs in the current grad mode (NoisyLinear: effective weights).
void append_trunk(const torch::nn::Sequential& trunk, std::vector<at::Tensor>& out) {
  for (const auto& m : trunk->children()) {
    if (auto* lin = m->as<torch::nn::Linear>()) {
      out.push_back(lin->weight);
      out.push_back(lin->bias);
    } else if (auto* noisy = m->as<NoisyLinear>()) {
      out.push_back(noisy->weight());
      out.push_back(noisy->bias());
    }
  }
}

// Which PolicyOutputs field a head produces.
enum Head : std::int64_t { kPfHead = 0, kPbHead = 1, kLogFlowHead = 2 };

// One MLP of a model: a trunk of Linear + ReLU layers and the Linear heads that read its
// last hidden layer.
struct Net {
  std::vector<at::Tensor> params;  ///< W_0, b_0, ..., W_{L-1}, b_{L-1}, then W, b per head
  std::int64_t n_trunk = 0;        ///< L
  std::vector<Head> heads;
};

// A forward of some nets without autograd: per net its layer inputs x, h_1, ..., h_L and
// its head outputs [M, out].
struct NetsForward {
  std::vector<at::Tensor> acts, heads;
};

// The plain loops of the MLP forward and backward below, compiled for AVX2 as well as the
// baseline (GCC function multiversioning: the loader picks the clone the CPU supports).
// Why: this library is built for baseline x86-64 (SSE2), where the compiler vectorizes
// these loops 4 floats wide and spilled a register inside the ReLU-backward loop; the
// AVX2 clone halves the instructions. Every clone computes the same values (selects,
// copies and float additions in the same order: no FMA involved).
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define GFN_LOOP_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GFN_LOOP_CLONES
#endif

// y[i] = max(y[i], 0) in place: clamp_min(0)'s values (NaN stays NaN; -0.0 may keep its
// sign, an equal value).
GFN_LOOP_CLONES void relu_in_place(float* __restrict y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = y[i] < 0.0f ? 0.0f : y[i];
}

// d[i] = 0 where out[i] <= 0: at::threshold_backward(d, out, 0)'s values, in place.
GFN_LOOP_CLONES void relu_backward_in_place(float* __restrict d, const float* __restrict out,
                                            std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) d[i] = out[i] <= 0.0f ? 0.0f : d[i];
}

// d[i] = 0 where out[i] <= 0 for a bfloat16 out (raw bits): relu_backward_in_place on the
// bf16 copy of the ReLU output that engine.precision bf16 keeps. A positive nonzero
// bfloat16 is a positive nonzero int16; the copy is 0 only where the output was <= 0 or
// a float32 below bfloat16's smallest subnormal (~9e-41; its gradient is then dropped).
GFN_LOOP_CLONES void relu_backward_bf16_in_place(float* __restrict d,
                                                 const std::int16_t* __restrict out,
                                                 std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) d[i] = out[i] <= 0 ? 0.0f : d[i];
}

bool is_plain_float(const at::Tensor& t) {
  return t.defined() && t.scalar_type() == at::kFloat && t.is_contiguous() && t.device().is_cpu();
}

// y = at::linear(x, w, b) (then ReLU if relu), same values, written into y [M, out] (a
// contiguous row range of a layer's output buffer). With loops (engine.plain_loops) and
// contiguous float32 CPU tensors, the bias is copied into the output rows by memcpy and the
// GEMM accumulates onto it with addmm_out(y, y, x, w^T): the same GEMM call (beta = 1 on
// the same C) as addmm's, so bit-identical, and still recorded as aten::addmm (the GEMM
// probe of tools/gfn-bench-train); ReLU is one loop in place. Why: at 2-D h8 the table's
// forward runs on 64 rows, where at::linear's broadcast copy of the bias (a TensorIterator)
// and relu_'s dispatch cost more than their arithmetic. Otherwise addmm_out(y, b, x, w^T),
// which is what at::linear runs on 2-D inputs.
void linear_forward(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, bool relu,
                    bool loops, at::Tensor& y) {
  if (!loops || !is_plain_float(x) || !is_plain_float(w) || !is_plain_float(b) || x.dim() != 2 ||
      w.dim() != 2 || b.dim() != 1 || b.size(0) != w.size(0) || x.size(1) != w.size(1)) {
    at::addmm_out(y, b, x, w.t());
    if (relu) y.relu_();
    return;
  }
  const std::int64_t m = x.size(0), n = w.size(0);
  float* yd = y.data_ptr<float>();
  const float* bd = b.data_ptr<float>();
  for (std::int64_t i = 0; i < m; ++i) std::memcpy(yd + i * n, bd, n * sizeof(float));
  // W^T as a view built without dispatch (transposed_view, plain_loops.h): the same
  // operand as w.t() for the same GEMM, 3 ATen calls less per layer.
  at::addmm_out(y, y, x, transposed_view(w, loops));
  if (relu) relu_in_place(yd, m * n);
}

// engine.precision bf16: y = x_bf16 W_bf16^T + b in float32 (bf16_gemm.h) into y [M, out],
// the bias rows copied first and the GEMM accumulating onto them.
void linear_forward_bf16(const at::Tensor& xb, const at::Tensor& wb, const at::Tensor& b,
                         at::Tensor& y) {
  const std::int64_t m = xb.size(0), n = wb.size(0);
  const at::Tensor bias = b.contiguous();
  float* yd = y.data_ptr<float>();
  const float* bd = bias.data_ptr<float>();
  for (std::int64_t i = 0; i < m; ++i) std::memcpy(yd + i * n, bd, n * sizeof(float));
  gemm_bf16(xb, /*transpose_a=*/false, wb, /*transpose_b=*/true, y, /*accumulate=*/true);
}

// The bf16 copies of the nets' weights (every Linear layer's W, in parameter order: the
// copy of params[w] is at w / 2), made once per recorder or forward.
std::vector<at::Tensor> bf16_weights(const std::vector<Net>& nets) {
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> out;
  for (const Net& net : nets) {
    for (std::size_t i = 0; i < net.params.size(); i += 2) {
      out.push_back(to_bf16(net.params[i].detach().contiguous()));
    }
  }
  return out;
}

// The buffers of a forward of the nets on x's M rows: per net its layer inputs (x, then each
// trunk layer's output [M, width]) and its head outputs [M, out], float32; with bf16 the layer
// inputs are bf16 copies (what the backward's grad-weight GEMMs read, and the ReLU mask).
NetsForward allocate_forward(const std::vector<Net>& nets, const at::Tensor& x, bool bf16) {
  const std::int64_t m = x.size(0);
  const at::Tensor input = bf16 ? to_bf16(x.contiguous()) : x;
  const auto act_type = bf16 ? at::kBFloat16 : at::kFloat;
  NetsForward out;
  for (const Net& net : nets) {
    out.acts.push_back(input);
    for (std::int64_t i = 0; i < net.n_trunk; ++i) {
      out.acts.push_back(at::empty({m, net.params[2 * i].size(0)}, act_type));
    }
    for (std::size_t k = 0; k < net.heads.size(); ++k) {
      out.heads.push_back(at::empty({m, net.params[2 * net.n_trunk + 2 * k].size(0)}, at::kFloat));
    }
  }
  return out;
}

// The forward of the nets on rows r of out's buffers (allocate_forward), in the kernels'
// precision (bf16: with the weights' bf16 copies wb). Writes only rows r.
void run_nets_rows(const std::vector<Net>& nets, const std::vector<at::Tensor>& wb, bool loops,
                   NetsForward& out, RowRange r) {
  auto rows = [r](const at::Tensor& t) { return t.narrow(0, r.begin, r.size()); };
  const bool bf16 = !wb.empty();
  std::size_t a = 0, k = 0, first = 0;  // the net's first layer input, head output, bf16 weight
  for (const Net& net : nets) {
    at::Tensor h = rows(out.acts[a]);
    for (std::int64_t i = 0; i < net.n_trunk; ++i) {
      const auto w = static_cast<std::size_t>(2 * i);
      at::Tensor y = rows(out.acts[a + 1 + static_cast<std::size_t>(i)]);
      if (bf16) {
        at::Tensor z = at::empty({r.size(), y.size(1)}, at::kFloat);
        linear_forward_bf16(h, wb[first + w / 2], net.params[w + 1], z);
        relu_in_place(z.data_ptr<float>(), z.numel());
        to_bf16_out(z, y);
      } else {
        linear_forward(h, net.params[w], net.params[w + 1], /*relu=*/true, loops, y);
      }
      h = y;
    }
    for (std::size_t j = 0; j < net.heads.size(); ++j, ++k) {
      const auto w = static_cast<std::size_t>(2 * net.n_trunk) + 2 * j;
      at::Tensor y = rows(out.heads[k]);
      if (bf16) {
        linear_forward_bf16(h, wb[first + w / 2], net.params[w + 1], y);
      } else {
        linear_forward(h, net.params[w], net.params[w + 1], /*relu=*/false, loops, y);
      }
    }
    a += static_cast<std::size_t>(net.n_trunk) + 1;
    first += net.params.size() / 2;
  }
}

// One autograd node for MLP forwards done earlier without autograd (run_nets). params:
// the parameters of every net, concatenated in net order (Net::params; NoisyLinear:
// effective weights with their own graph); the layer inputs, head outputs and the layout
// (n_trunk, n_heads per net) come as non-differentiable arguments. Its outputs are the
// head outputs. backward() is the nets' backward on all rows at once with the minimal
// GEMMs per Linear layer: grad-weight mm(dy^T, x), grad-input mm(dy, W) except for the
// first layer (the inputs need no gradient), bias gradients as sums.
//
// Gradients go either back to autograd (the node's differentiable inputs `vars`) or, for
// the leaf parameters when write_leaf_grads (see forward_manual_backward), straight into
// the parameter's .grad: accumulated in place (addmm_ / add_; created as zeros if
// undefined; with FlatAdamW a view of the flat gradient buffer). Such a parameter is NOT
// an input of the node, so autograd has no edge to its AccumulateGrad (13 engine calls
// saved at 2-D h8); a constant `anchor` leaf keeps the node in the graph when no other
// input needs a gradient (it never receives one). Their versions are checked instead of
// autograd's saved-variable check (std::logic_error if modified in place before backward).
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
      return std::move(b.grads);
    }
    // Each range accumulates its parameters' gradients into its own tensors, summed after.
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
    return std::move(b.grads);
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
          gemm_bf16(dy_op, /*transpose_a=*/true, x, false, *g, /*accumulate=*/true);
        } else {
          at::Tensor gw = at::empty({dy.size(1), x.size(1)}, at::kFloat);
          gemm_bf16(dy_op, /*transpose_a=*/true, x, false, gw, /*accumulate=*/false);
          give(w, std::move(gw));
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
      if (!bf16()) {
        dh = dh.defined() ? dh.addmm_(dy_op, params[w]) : dy_op.mm(params[w]);
        return;
      }
      const at::Tensor& wb = weights_bf16[w / 2];
      const bool accumulate = dh.defined();
      if (!accumulate) dh = at::empty({dy_op.size(0), wb.size(1)}, at::kFloat);
      gemm_bf16(dy_op, false, wb, false, dh, accumulate);
    }
  };

  // The saved layer inputs, in blocks of rows (see forward), and the nets' layout.
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
  static void backward_rows(Backward& b, const Rows& rows,
                            const torch::autograd::variable_list& grad_out, RowRange r) {
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

  // ReLU's backward, in place on dh (a tensor of this backward): at::threshold_backward's
  // values (0 where the ReLU output is <= 0) without allocating (one loop, vectorized);
  // out may be the bf16 copy of the output (engine.precision bf16).
  static at::Tensor relu_backward_(at::Tensor& dh, const at::Tensor& out) {
    if (dh.is_contiguous() && out.is_contiguous() && dh.scalar_type() == at::kFloat &&
        out.scalar_type() == at::kBFloat16) {
      relu_backward_bf16_in_place(
          dh.data_ptr<float>(), reinterpret_cast<const std::int16_t*>(out.data_ptr()), dh.numel());
      return dh;
    }
    if (!dh.is_contiguous() || !out.is_contiguous() || dh.scalar_type() != at::kFloat ||
        out.scalar_type() != at::kFloat) {
      return at::threshold_backward(dh, out.to(at::kFloat), 0);
    }
    relu_backward_in_place(dh.data_ptr<float>(), out.data_ptr<float>(), dh.numel());
    return dh;
  }
};

}  // namespace

// The nets of a model (friend of GFlowNetModel), parameters in the current grad mode.
struct ModelLayout {
  // pf_only: PF's trunk with every head it serves (tied: PB and logF too); else every
  // net: PF, then (untied) PB's and logF's own trunks. A uniform PB has no net.
  static std::vector<Net> nets(GFlowNetModel& m, bool pf_only) {
    std::vector<Net> nets = pf_net(m);
    const bool learned_pb = !m.uniform_pb_;
    if (m.tied_ || !pf_only) {
      if (learned_pb) {
        if (!m.tied_) add_net(nets, m.pb_trunk_);
        add_head(nets, kPbHead, m.pb_head_->weight, m.pb_head_->bias);
      }
      if (m.has_log_flow()) {
        if (!m.tied_) add_net(nets, m.log_flow_trunk_);
        add_head(nets, kLogFlowHead, m.log_flow_head_->weight, m.log_flow_head_->bias);
      }
    }
    return nets;
  }

  // Untied model: PB's net (if learned) and logF's (if any), without PF's.
  static std::vector<Net> pb_and_flow_nets(GFlowNetModel& m) {
    std::vector<Net> nets;
    if (!m.uniform_pb_) {
      add_net(nets, m.pb_trunk_);
      add_head(nets, kPbHead, m.pb_head_->weight, m.pb_head_->bias);
    }
    if (m.has_log_flow()) {
      add_net(nets, m.log_flow_trunk_);
      add_head(nets, kLogFlowHead, m.log_flow_head_->weight, m.log_flow_head_->bias);
    }
    return nets;
  }

  static void add_net(std::vector<Net>& nets, const torch::nn::Sequential& trunk) {
    Net net;
    append_trunk(trunk, net.params);
    net.n_trunk = static_cast<std::int64_t>(net.params.size() / 2);
    nets.push_back(std::move(net));
  }

  static void add_head(std::vector<Net>& nets, Head head, const at::Tensor& w,
                       const at::Tensor& b) {
    nets.back().params.push_back(w);
    nets.back().params.push_back(b);
    nets.back().heads.push_back(head);
  }

  // PF's trunk and head.
  static std::vector<Net> pf_net(GFlowNetModel& m) {
    std::vector<Net> nets;
    add_net(nets, m.pf_trunk_);
    if (m.pf_noisy_head_) {
      add_head(nets, kPfHead, m.pf_noisy_head_->weight(), m.pf_noisy_head_->bias());
    } else {
      add_head(nets, kPfHead, m.pf_head_->weight, m.pf_head_->bias);
    }
    return nets;
  }

  // RecordedMlp over `nets` (parameters with autograd) with the forward of blocks of rows
  // (acts: per block, the layer inputs; heads: every row's head outputs), run with
  // weights_bf16 if not empty.
  static PolicyOutputs apply(const std::vector<Net>& nets, std::vector<at::Tensor> acts,
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

  static PolicyOutputs outputs_of(const std::vector<Head>& heads,
                                  const std::vector<at::Tensor>& values) {
    PolicyOutputs out;
    for (std::size_t k = 0; k < heads.size(); ++k) {
      switch (heads[k]) {
        case kPfHead:
          out.pf_logits = values[k];
          break;
        case kPbHead:
          out.pb_logits = values[k];
          break;
        case kLogFlowHead:
          out.log_flow = values[k].squeeze(1);
          break;
      }
    }
    return out;
  }
};

namespace {

// The forward of the nets on x without autograd, in the kernels' precision (bf16: with the
// weights' bf16 copies, made here if weights_bf16 is empty), its rows split over
// kernels.row_parts threads (row_split.h); after(r), if set, once each range r is done, on its
// thread.
// out: allocated here (allocate_forward) if it has no layer inputs yet, else the caller's
// buffers for x's rows (ForwardRecorder's).
void run_nets_in(const std::vector<Net>& nets, const at::Tensor& x, MlpKernels kernels,
                 std::vector<at::Tensor>& weights_bf16, NetsForward& out,
                 const std::function<void(RowRange)>& after = {}) {
  at::NoGradGuard no_grad;
  if (kernels.bf16 && weights_bf16.empty()) weights_bf16 = bf16_weights(nets);
  const std::vector<at::Tensor> none;
  const std::vector<at::Tensor>& wb = kernels.bf16 ? weights_bf16 : none;
  if (out.acts.empty()) out = allocate_forward(nets, x, kernels.bf16);
  run_row_parts(row_ranges(x.size(0), kernels.row_parts), [&](std::size_t, RowRange r) {
    run_nets_rows(nets, wb, kernels.plain_loops, out, r);
    if (after) after(r);
  });
}

// The hand-written forward of the nets select(model) on x, and their RecordedMlp node.
template <class Select>
PolicyOutputs manual_forward(GFlowNetModel& model, Select select, const at::Tensor& x,
                             bool write_leaf_grads, MlpKernels kernels) {
  std::vector<Net> nets;
  {
    at::NoGradGuard no_grad;
    nets = select(model);
  }
  if (nets.empty()) return PolicyOutputs{};
  NetsForward fwd;
  std::vector<at::Tensor> weights_bf16;
  run_nets_in(nets, x, kernels, weights_bf16, fwd);
  // The parameters with autograd (NoisyLinear: mu + sigma * eps builds its graph here).
  return ModelLayout::apply(select(model), std::move(fwd.acts), {x.size(0)}, std::move(fwd.heads),
                            write_leaf_grads, kernels, std::move(weights_bf16));
}

}  // namespace

PolicyOutputs forward_manual_backward(GFlowNetModel& model, const at::Tensor& x,
                                      bool write_leaf_grads, MlpKernels kernels) {
  PolicyOutputs out = manual_forward(
      model, [](GFlowNetModel& m) { return ModelLayout::nets(m, /*pf_only=*/false); }, x,
      write_leaf_grads, kernels);
  if (model.uniform_pb()) out.pb_logits = at::zeros({x.size(0), model.n_actions() - 1}, at::kFloat);
  return out;
}

PolicyOutputs pb_and_flow_manual_backward(GFlowNetModel& model, const at::Tensor& x,
                                          MlpKernels kernels) {
  if (model.tied()) {
    throw std::logic_error(
        "pb_and_flow_manual_backward: the model is tied (PB and logF share PF's trunk: use "
        "forward_manual_backward or a ForwardRecorder)");
  }
  return manual_forward(model, ModelLayout::pb_and_flow_nets, x, /*write_leaf_grads=*/false,
                        kernels);
}

ForwardRecorder::ForwardRecorder(GFlowNetModel& model, MlpKernels kernels,
                                 std::int64_t capacity_hint)
    : model_(model), kernels_(kernels), capacity_hint_(capacity_hint) {}

namespace {

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
    after = [&](RowRange r) { computed(r, ModelLayout::outputs_of(nets[0].heads, fwd.heads)); };
  }
  run_nets_in(nets, x, kernels_, weights_bf16_, fwd, after);
  PolicyOutputs out = ModelLayout::outputs_of(nets[0].heads, fwd.heads);
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
  return ModelLayout::apply(ModelLayout::nets(model_, /*pf_only=*/true), std::move(acts),
                            block_rows, std::move(heads), /*write_leaf_grads=*/false, kernels_,
                            std::move(weights_bf16_));
}

}  // namespace gfn::core
