#include "runtime/gfn/fast/mlp_bf16.h"

#include <ATen/ATen.h>

#include <cstring>

#include "runtime/gfn/fast/bf16_gemm.h"
#include "runtime/gfn/fast/loop_clones.h"
#include "runtime/gfn/fast/mlp_forward.h"

namespace gfn::core::mlp {

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

void linear_forward_bf16(const at::Tensor& xb, const at::Tensor& wb, const at::Tensor& b,
                         at::Tensor& y) {
  const std::int64_t m = xb.size(0), n = wb.size(0);
  const at::Tensor bias = b.contiguous();
  float* yd = y.data_ptr<float>();
  const float* bd = bias.data_ptr<float>();
  for (std::int64_t i = 0; i < m; ++i) std::memcpy(yd + i * n, bd, n * sizeof(float));
  gemm_bf16(xb, /*transpose_a=*/false, wb, /*transpose_b=*/true, y, /*accumulate=*/true);
}

void linear_relu_forward_bf16(const at::Tensor& xb, const at::Tensor& wb, const at::Tensor& b,
                              at::Tensor& y) {
  at::Tensor z = at::empty({xb.size(0), y.size(1)}, at::kFloat);
  linear_forward_bf16(xb, wb, b, z);
  relu_in_place(z.data_ptr<float>(), z.numel());
  to_bf16_out(z, y);
}

GFN_LOOP_CLONES void relu_backward_bf16_in_place(float* __restrict d,
                                                 const std::int16_t* __restrict out,
                                                 std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) d[i] = out[i] <= 0 ? 0.0f : d[i];
}

at::Tensor weight_grad_bf16(const at::Tensor& dy_op, const at::Tensor& x) {
  at::Tensor gw = at::empty({dy_op.size(1), x.size(1)}, at::kFloat);
  gemm_bf16(dy_op, /*transpose_a=*/true, x, false, gw, /*accumulate=*/false);
  return gw;
}

void add_weight_grad_bf16(const at::Tensor& dy_op, const at::Tensor& x, at::Tensor& g) {
  gemm_bf16(dy_op, /*transpose_a=*/true, x, false, g, /*accumulate=*/true);
}

void add_grad_input_bf16(at::Tensor& dh, const at::Tensor& dy_op, const at::Tensor& wb) {
  const bool accumulate = dh.defined();
  if (!accumulate) dh = at::empty({dy_op.size(0), wb.size(1)}, at::kFloat);
  gemm_bf16(dy_op, false, wb, false, dh, accumulate);
}

}  // namespace gfn::core::mlp
