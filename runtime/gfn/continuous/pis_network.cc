#include "runtime/gfn/continuous/pis_network.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>
#include <torch/nn/modules/activation.h>

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/gfn/continuous/exact_gelu.h"
#include "runtime/gfn/fast/loop_clones.h"

namespace gfn::core {

PisNetwork::PisNetwork(const PisNetworkOptions& o) : options_(o) {
  if (o.x_dim < 1 || o.harmonics_dim < 1 || o.emb_dim < 1 || o.hidden_dim < 1 ||
      o.joint_layers < 1 || o.lgv_layers < 1) {
    throw std::invalid_argument(
        "PisNetwork: every width and layer count (d, harmonics_dim, emb_dim, hidden_dim, "
        "joint_layers, lgv_layers) must be >= 1");
  }
  using torch::nn::GELU;
  using torch::nn::Linear;
  // Registration order fixes parameters(): the time encoding, the state encoding, the joint
  // network, the head, then the Langevin scaling.
  t_phase_ = register_parameter("t_phase", torch::randn({1, o.harmonics_dim}));
  t_pe_ = register_buffer("t_pe", torch::linspace(0.1, 100.0, o.harmonics_dim).unsqueeze(0));
  t_model_ =
      register_module("t_model", torch::nn::Sequential(Linear(2 * o.harmonics_dim, o.hidden_dim),
                                                       GELU(), Linear(o.hidden_dim, o.emb_dim)));
  s_model_ = register_module("s_model", Linear(o.x_dim, o.emb_dim));
  joint_linears_.push_back(Linear(o.emb_dim, o.hidden_dim));
  torch::nn::Sequential joint(GELU(), joint_linears_.back(), GELU());
  for (int i = 1; i < o.joint_layers; ++i) {
    joint_linears_.push_back(Linear(o.hidden_dim, o.hidden_dim));
    joint->push_back(joint_linears_.back());
    joint->push_back(GELU());
  }
  joint_model_ = register_module("joint_model", joint);
  drift_head_ = register_module("drift_head", Linear(o.hidden_dim, o.x_dim));
  torch::NoGradGuard no_grad;
  if (o.zero_init) {
    drift_head_->weight.fill_(1e-8);
    drift_head_->bias.fill_(0.0);
  }
  if (!o.langevin) return;
  lgv_phase_ = register_parameter("lgv_phase", torch::randn({1, o.emb_dim}));
  lgv_pe_ = register_buffer("lgv_pe", torch::linspace(0.1, 100.0, o.emb_dim).unsqueeze(0));
  torch::nn::Sequential lgv(Linear(2 * o.emb_dim, o.hidden_dim));
  for (int i = 1; i < o.lgv_layers; ++i) {
    lgv->push_back(GELU());
    lgv->push_back(Linear(o.hidden_dim, o.hidden_dim));
  }
  lgv->push_back(GELU());
  Linear head(o.hidden_dim, o.x_dim);
  if (o.zero_init) {
    head->weight.fill_(0.0);
    head->bias.fill_(0.01);
  }
  lgv->push_back(head);
  lgv_model_ = register_module("lgv_model", lgv);
}

at::Tensor PisNetwork::harmonics(const at::Tensor& tau, const at::Tensor& pe,
                                 const at::Tensor& phase) {
  const at::Tensor angle = tau * pe + phase;  // [N, 1] * [1, H] -> [N, H]
  return at::cat({angle.sin(), angle.cos()}, 1);
}

at::Tensor PisNetwork::time_network(const at::Tensor& tau, torch::nn::Sequential& model,
                                    const at::Tensor& pe, const at::Tensor& phase) {
  if (!options_.shared_time_embedding) return model->forward(harmonics(tau, pe, phase));
  // The distinct times (the step counter's T + 1 values) and each row's index among them.
  const auto [times, row_time, counts] =
      at::_unique2(tau.reshape({-1}), /*sorted=*/true, /*return_inverse=*/true,
                   /*return_counts=*/false);
  const at::Tensor per_time = model->forward(harmonics(times.unsqueeze(1), pe, phase));
  return per_time.index_select(0, row_time);
}

at::Tensor PisNetwork::step_biases(const at::Tensor& tau) {
  if (options_.langevin) throw std::logic_error("PisNetwork::step_biases: not with langevin");
  return t_model_->forward(harmonics(tau, t_pe_, t_phase_)) + s_model_->bias;
}

at::Tensor PisNetwork::step_drift(const at::Tensor& x, const at::Tensor& bias_row) {
  if (options_.langevin) throw std::logic_error("PisNetwork::step_drift: not with langevin");
  return drift_head_->forward(joint_model_->forward(at::addmm(bias_row, x, s_model_->weight.t())));
}

at::Tensor PisNetwork::step_major_forward(const at::Tensor& x, const at::Tensor& tau) {
  if (options_.langevin) {
    throw std::logic_error("PisNetwork::step_major_forward: not with langevin");
  }
  const std::int64_t k = tau.size(0);
  if (x.dim() != 2 || x.size(1) != options_.x_dim || k < 1 || x.size(0) % k != 0) {
    throw std::invalid_argument("PisNetwork::step_major_forward: need x [K B, " +
                                std::to_string(options_.x_dim) + "] and tau [K, 1]");
  }
  const std::int64_t b = x.size(0) / k;
  const std::int64_t emb = options_.emb_dim;
  const at::Tensor s_emb = at::mm(x, s_model_->weight.t()).view({k, b, emb});
  const at::Tensor joint_in = (s_emb + step_biases(tau).unsqueeze(1)).view({k * b, emb});
  return drift_head_->forward(joint_model_->forward(joint_in));
}

PisActivations PisNetwork::allocate_activations(const at::Tensor& x, std::int64_t steps,
                                                std::int64_t rows_per_step) const {
  PisActivations a;
  a.x = x;
  a.steps = steps;
  a.rows_per_step = rows_per_step;
  const std::int64_t rows = steps * rows_per_step;
  for (int j = 0; j <= options_.joint_layers; ++j) {
    const std::int64_t width = j == 0 ? options_.emb_dim : options_.hidden_dim;
    a.pre.push_back(at::empty({rows, width}, at::kFloat));
    a.post.push_back(at::empty({rows, width}, at::kFloat));
    a.slope.push_back(at::empty({rows, width}, at::kFloat));
  }
  a.drift = at::empty({rows, options_.x_dim}, at::kFloat);
  return a;
}

namespace {

/// c = op(a) op(b) (beta 0) for row-major float32 arrays, op(m) = m^T where the flag is 'T':
/// op(a) [m, k], op(b) [k, n], c [m, n], at the given row strides. oneDNN's sgemm (dnnl_sgemm;
/// on this machine faster than OpenBLAS on the network's skinny shapes, docs/performance.md), no
/// ATen call. Throws std::runtime_error if oneDNN refuses.
void sgemm(char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
           std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc) {
  if (dnnl_sgemm(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc) != dnnl_success) {
    throw std::runtime_error("PisNetwork: oneDNN's sgemm refused [" + std::to_string(m) + " x " +
                             std::to_string(k) + "] x [" + std::to_string(k) + " x " +
                             std::to_string(n) + "]");
  }
}

const float* contiguous_data(const at::Tensor& t) {
  if (!t.is_contiguous()) throw std::logic_error("PisNetwork: a non-contiguous parameter");
  return t.data_ptr<float>();
}

// The elementwise loops below are compiled for AVX-512, AVX2 and the baseline, the widest the
// CPU has chosen at load time (GFN_WIDEST_LOOPS, fast/loop_clones.h).
/// c[r] += bias for the rows r < rows of c (n floats each, row stride ldc).
GFN_WIDEST_LOOPS void add_bias_rows(float* c, std::int64_t ldc, std::int64_t rows, std::int64_t n,
                                    const float* bias) {
  for (std::int64_t r = 0; r < rows; ++r) {
    float* row = c + r * ldc;
    for (std::int64_t j = 0; j < n; ++j) row[j] += bias[j];
  }
}

/// c[r] = a[r] W^T + bias for the rows r < rows: a float32 [rows, k] (row stride lda), W the
/// float32 [n, k] weight of an nn::Linear, bias n floats, c float32 [rows, n] (row stride ldc).
void affine_rows(const float* a, std::int64_t lda, std::int64_t rows, const at::Tensor& weight,
                 const float* bias, float* c, std::int64_t ldc) {
  const std::int64_t n = weight.size(0), k = weight.size(1);
  sgemm('N', 'T', rows, n, k, a, lda, contiguous_data(weight), k, c, ldc);
  add_bias_rows(c, ldc, rows, n, bias);
}

/// rows [r0, r1) of g (n floats each) *= slope's, in place, their column sums added to part.
GFN_WIDEST_LOOPS void scale_rows(float* g, const float* slope, std::int64_t r0, std::int64_t r1,
                                 std::int64_t n, float* part) {
  for (std::int64_t r = r0; r < r1; ++r) {
    float* row = g + r * n;
    const float* s = slope + r * n;
    for (std::int64_t j = 0; j < n; ++j) {
      row[j] *= s[j];
      part[j] += row[j];
    }
  }
}

/// The backward's elementwise pass of a GELU layer: g [rows, n] *= slope (GELU'(pre), saved),
/// in place, and the column sums of the result over each group of `group` rows into sums
/// [rows / group, n] (the bias gradient: group = rows; the step biases': group = B). Float sums
/// over blocks of 64 rows, added up in double (ATen's sum: float32 in pairwise blocks; both are
/// within float32 rounding).
void scale_and_sum(float* g, const float* slope, std::int64_t rows, std::int64_t n,
                   std::int64_t group, float* sums) {
  constexpr std::int64_t kBlock = 64;
  std::vector<float> part(n);
  std::vector<double> acc(n);
  for (std::int64_t r0 = 0; r0 < rows; r0 += group) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (std::int64_t b0 = r0; b0 < r0 + group; b0 += kBlock) {
      std::fill(part.begin(), part.end(), 0.0f);
      scale_rows(g, slope, b0, std::min(b0 + kBlock, r0 + group), n, part.data());
      for (std::int64_t j = 0; j < n; ++j) acc[j] += part[j];
    }
    for (std::int64_t j = 0; j < n; ++j) sums[(r0 / group) * n + j] = static_cast<float>(acc[j]);
  }
}

}  // namespace

const float* PisNetwork::step_drift_saved(const float* bias_row, PisActivations& saved,
                                          std::int64_t k) {
  if (options_.langevin) throw std::logic_error("PisNetwork::step_drift_saved: not with langevin");
  if (saved.x.stride(1) != 1) {
    throw std::invalid_argument("PisNetwork::step_drift_saved: saved.x needs unit column stride");
  }
  const std::int64_t b = saved.rows_per_step;
  const auto rows = [k, b](const at::Tensor& t) { return t.data_ptr<float>() + k * b * t.size(1); };
  affine_rows(saved.x.data_ptr<float>() + k * b * saved.x.stride(0), saved.x.stride(0), b,
              s_model_->weight, bias_row, rows(saved.pre[0]), options_.emb_dim);
  for (std::size_t j = 0; j < saved.pre.size(); ++j) {
    const std::int64_t width = saved.pre[j].size(1);
    float* post = rows(saved.post[j]);
    exact_gelu_slope(rows(saved.pre[j]), post, rows(saved.slope[j]), b * width);
    const torch::nn::Linear& layer = j + 1 < saved.pre.size() ? joint_linears_[j] : drift_head_;
    float* out = j + 1 < saved.pre.size() ? rows(saved.pre[j + 1]) : rows(saved.drift);
    affine_rows(post, width, b, layer->weight, layer->bias.data_ptr<float>(), out,
                layer->weight.size(0));
  }
  return rows(saved.drift);
}

namespace {

// The state path's backward from saved activations (PisNetwork::saved_forward). Inputs:
// params = [step biases [K, emb], s_model weight, (joint weight, bias) per layer, head weight,
// head bias]; activations = [x, post..., slope...] in ctx->saved_data.
struct PisSavedForward : torch::autograd::Function<PisSavedForward> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, at::TensorList params,
                            const PisActivations* saved) {
    ctx->saved_data["x"] = saved->x;
    ctx->saved_data["post"] = saved->post;
    ctx->saved_data["slope"] = saved->slope;
    ctx->saved_data["steps"] = saved->steps;
    std::vector<at::Tensor> weights;
    for (std::size_t i = 1; i < params.size(); ++i) weights.push_back(params[i]);
    ctx->saved_data["weights"] = weights;
    return saved->drift.detach();  // a tensor of its own for the node's history
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto post = ctx->saved_data["post"].toTensorVector();
    const auto slope = ctx->saved_data["slope"].toTensorVector();
    const auto w = ctx->saved_data["weights"].toTensorVector();  // Ws, (W_j, b_j)..., Wh, bh
    const at::Tensor x = ctx->saved_data["x"].toTensor();
    const std::int64_t steps = ctx->saved_data["steps"].toInt();
    const std::size_t layers = post.size() - 1;
    torch::autograd::variable_list out(w.size() + 2);  // the last: the pointer's (undefined)
    const at::Tensor grad = grads[0].contiguous();
    const std::int64_t rows = grad.size(0), d = grad.size(1);
    const auto width = [&post](std::size_t j) { return post[j].size(1); };
    const auto f32 = [](std::int64_t a, std::int64_t b) { return at::empty({a, b}, at::kFloat); };
    // The drift head: dW = grad^T post[L], db = column sums, d_post = grad W.
    out[w.size() - 1] = f32(d, width(layers));
    sgemm('T', 'N', d, width(layers), rows, grad.data_ptr<float>(), d,
          post[layers].data_ptr<float>(), width(layers), out[w.size() - 1].data_ptr<float>(),
          width(layers));
    out[w.size()] = grad.sum(0);
    at::Tensor d_post = f32(rows, width(layers));
    sgemm('N', 'N', rows, width(layers), d, grad.data_ptr<float>(), d,
          contiguous_data(w[w.size() - 2]), width(layers), d_post.data_ptr<float>(), width(layers));
    for (std::size_t j = layers; j >= 1; --j) {  // joint layer j: post[j - 1] -> pre[j]
      const std::int64_t n = width(j), n_in = width(j - 1);
      out[2 * j + 1] = at::empty({n}, at::kFloat);
      scale_and_sum(d_post.data_ptr<float>(), slope[j].data_ptr<float>(), rows, n, rows,
                    out[2 * j + 1].data_ptr<float>());
      out[2 * j] = f32(n, n_in);
      sgemm('T', 'N', n, n_in, rows, d_post.data_ptr<float>(), n, post[j - 1].data_ptr<float>(),
            n_in, out[2 * j].data_ptr<float>(), n_in);
      at::Tensor d_in = f32(rows, n_in);
      sgemm('N', 'N', rows, n_in, n, d_post.data_ptr<float>(), n, contiguous_data(w[2 * j - 1]),
            n_in, d_in.data_ptr<float>(), n_in);
      d_post = d_in;
    }
    // s_model (x -> pre[0]) and the step biases (each step's B rows share one).
    const std::int64_t emb = width(0);
    out[0] = f32(steps, emb);
    scale_and_sum(d_post.data_ptr<float>(), slope[0].data_ptr<float>(), rows, emb, rows / steps,
                  out[0].data_ptr<float>());
    out[1] = f32(emb, x.size(1));
    sgemm('T', 'N', emb, x.size(1), rows, d_post.data_ptr<float>(), emb, x.data_ptr<float>(),
          x.stride(0), out[1].data_ptr<float>(), x.size(1));
    return out;
  }
};

}  // namespace

at::Tensor PisNetwork::saved_forward(const PisActivations& saved, const at::Tensor& tau) {
  if (options_.langevin) throw std::logic_error("PisNetwork::saved_forward: not with langevin");
  if (tau.size(0) != saved.steps || saved.pre.size() != joint_linears_.size() + 1) {
    throw std::invalid_argument("PisNetwork::saved_forward: activations of another batch");
  }
  std::vector<at::Tensor> params{step_biases(tau), s_model_->weight};
  for (const auto& layer : joint_linears_) {
    params.push_back(layer->weight);
    params.push_back(layer->bias);
  }
  params.push_back(drift_head_->weight);
  params.push_back(drift_head_->bias);
  return PisSavedForward::apply(at::TensorList(params), &saved);
}

at::Tensor PisNetwork::forward(const at::Tensor& input) {
  const std::int64_t d = options_.x_dim;
  if (input.dim() != 2 || input.size(1) != input_dim()) {
    throw std::invalid_argument("PisNetwork::forward: need inputs [N, " +
                                std::to_string(input_dim()) + "]");
  }
  const at::Tensor x = input.narrow(1, 0, d);
  const at::Tensor tau = input.narrow(1, d, 1);
  const at::Tensor t_emb = time_network(tau, t_model_, t_pe_, t_phase_);
  const at::Tensor s_emb = s_model_->forward(x);
  at::Tensor drift = drift_head_->forward(joint_model_->forward(s_emb + t_emb));
  if (options_.langevin) {
    const at::Tensor g = input.narrow(1, d + 1, d);
    drift = drift + time_network(tau, lgv_model_, lgv_pe_, lgv_phase_) * g;
  }
  return drift;
}

}  // namespace gfn::core
