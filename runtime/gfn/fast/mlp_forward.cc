#include "runtime/gfn/fast/mlp_forward.h"

#include <ATen/ATen.h>

#include <cstring>

#include "runtime/gfn/fast/bf16_gemm.h"
#include "runtime/gfn/fast/loop_clones.h"
#include "runtime/gfn/fast/mlp_bf16.h"
#include "runtime/gfn/fast/plain_loops.h"

namespace gfn::core::mlp {

GFN_LOOP_CLONES void relu_in_place(float* __restrict y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = y[i] < 0.0f ? 0.0f : y[i];
}

namespace {

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
// precision (bf16: with the weights' bf16 copies wb, mlp_bf16.h). Writes only rows r.
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
        linear_relu_forward_bf16(h, wb[first + w / 2], net.params[w + 1], y);
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

}  // namespace

void run_nets_in(const std::vector<Net>& nets, const at::Tensor& x, MlpKernels kernels,
                 std::vector<at::Tensor>& weights_bf16, NetsForward& out,
                 const std::function<void(RowRange)>& after) {
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

}  // namespace gfn::core::mlp
