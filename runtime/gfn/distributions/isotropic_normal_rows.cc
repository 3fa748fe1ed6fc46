#include "runtime/gfn/distributions/isotropic_normal_rows.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace gfn::distributions {
namespace {

constexpr double kHalfLog2Pi = 0.91893853320467274178;  // log(2 pi) / 2

double log_normaliser(std::int64_t d, double scale) {
  return static_cast<double>(d) * (std::log(scale) + kHalfLog2Pi);
}

struct FusedRows : torch::autograd::Function<FusedRows> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& drift,
                            const at::Tensor& a, double dt, double scale) {
    const std::int64_t rows = a.size(0), d = a.size(1), as = a.stride(0);
    at::Tensor diff = at::empty({rows, d}, at::kFloat);
    at::Tensor lp = at::empty({rows}, at::kFloat);
    const float* ap = a.data_ptr<float>();
    const float* fp = drift.data_ptr<float>();
    float* dp = diff.data_ptr<float>();
    float* lpp = lp.data_ptr<float>();
    const float step = static_cast<float>(dt);
    const float factor = static_cast<float>(-0.5 / (scale * scale));
    const float constant = static_cast<float>(log_normaliser(d, scale));
    for (std::int64_t r = 0; r < rows; ++r) {
      float sum = 0.0f;
      for (std::int64_t c = 0; c < d; ++c) {
        const float v = ap[r * as + c] - fp[r * d + c] * step;
        dp[r * d + c] = v;
        sum += v * v;
      }
      lpp[r] = sum * factor - constant;
    }
    ctx->save_for_backward({diff});
    ctx->saved_data["coefficient"] = dt / (scale * scale);
    return lp;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const at::Tensor diff = ctx->get_saved_variables()[0];
    const at::Tensor g = grads[0].contiguous().to(at::kFloat);
    const float coefficient = static_cast<float>(ctx->saved_data["coefficient"].toDouble());
    const std::int64_t rows = diff.size(0), d = diff.size(1);
    at::Tensor out = at::empty({rows, d}, at::kFloat);
    const float* dp = diff.data_ptr<float>();
    const float* gp = g.data_ptr<float>();
    float* op = out.data_ptr<float>();
    for (std::int64_t r = 0; r < rows; ++r) {
      const float w = gp[r] * coefficient;
      for (std::int64_t c = 0; c < d; ++c) op[r * d + c] = dp[r * d + c] * w;
    }
    return {out, at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

void check(const at::Tensor& a, const at::Tensor& drift) {
  if (!a.defined() || !drift.defined() || a.dim() != 2 || a.sizes() != drift.sizes()) {
    throw std::invalid_argument("isotropic_normal_rows: need a and drift [R, d] alike");
  }
}

}  // namespace

at::Tensor isotropic_normal_rows_plain(const at::Tensor& a, const at::Tensor& drift, double dt,
                                       double scale) {
  check(a, drift);
  return at::sub(a, drift, dt)
      .square()
      .sum(1)
      .mul(-0.5 / (scale * scale))
      .sub(log_normaliser(a.size(1), scale));
}

at::Tensor isotropic_normal_rows(const at::Tensor& a, const at::Tensor& drift, double dt,
                                 double scale) {
  check(a, drift);
  const bool fused = a.scalar_type() == at::kFloat && drift.scalar_type() == at::kFloat &&
                     a.device().is_cpu() && drift.device().is_cpu() && drift.is_contiguous() &&
                     a.stride(1) == 1 && !a.requires_grad();
  if (!fused) return isotropic_normal_rows_plain(a, drift, dt, scale);
  return FusedRows::apply(drift, a, dt, scale);
}

}  // namespace gfn::distributions
