#include "runtime/gfn/fast/flat_adam.h"

#include <ATen/ATen.h>
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/gfn/fast/plain_loops.h"

namespace gfn::core {
namespace {

// Why a hand-written loop: the ATen op sequence of AdamW::step is 9 ops per group, each a
// full pass over the flat buffers (~140 k floats at 2-D h8) with its own dispatch and
// temporaries (sqrt, div and add_ allocate `denom`); one pass that reads p, g, m, v once
// and writes p, m, v once does the same arithmetic in a fraction of the time (0.29 ms ->
// see docs/performance.md "Trainer throughput").
//
// Bit-identity with torch::optim::AdamW: each line below is one ATen op of
// AdamW::step, with the same float32 roundings, in the same order. The only freedom in
// ATen's kernels is FMA: add_(g, alpha) is vec::fmadd(g, alpha, m) and addcmul_ is
// v + (value * g) * g, which ATen's AVX2/AVX-512 kernels compute with ONE rounding (fmadd
// is _mm256_fmadd_ps; GCC contracts addcmul's multiply-add) and its DEFAULT kernels with
// two. detect_rounding() asks ATen which, and the matching loop runs; everything else is
// compiled without contraction (fp-contract=off) so no other multiply-add is fused.
struct Coeffs {
  float decay;         // 1 - lr * weight_decay           (p.mul_)
  float beta1;         //                                  (exp_avg.mul_)
  float one_m_b1;      // 1 - beta1                        (exp_avg.add_ alpha)
  float beta2;         //                                  (exp_avg_sq.mul_)
  float one_m_b2;      // 1 - beta2                        (exp_avg_sq.addcmul_ value)
  float sqrt_bc2;      // sqrt(1 - beta2^t)                (sqrt() / sqrt(bias_correction2))
  float inv_sqrt_bc2;  // RN(1 / sqrt_bc2) (divide_exact)
  float eps;           //                                  (add_(eps))
  float neg_step;      // -lr / (1 - beta1^t)              (p.addcdiv_ value)
};

// This file is compiled with -ffp-contract=off (no multiply-add is fused unless written
// as std::fma) and -fno-math-errno (std::sqrt vectorizes): runtime/gfn/CMakeLists.txt.
// GCC's optimize attribute / pragma cannot replace those flags (the loop then does not
// vectorize). The unit test checks the bits, so a build without them fails loudly.
#if defined(__GNUC__) && defined(__x86_64__)
#define GFN_ADAM_FMA_TARGET __attribute__((target("avx2,fma")))
#else
#define GFN_ADAM_FMA_TARGET
#endif

// RN(x / d), the correctly rounded quotient, for float x >= 0 (or NaN / +inf) and a
// divisor d in (0, 1] with r = RN(1 / d), without a division. Why: the AdamW loop is bound by
// the divider (two divisions and a square root per element; ~0.1 ms per step at 2-D h8),
// and one of the divisions is by the constant sqrt(1 - beta2^t). Two Newton corrections
// with exact FMA residuals: q0 = RN(x r) is within ~1.5 ulp of x / d, q1 = RN(q0 + e0 r)
// within 1 ulp (faithful), and by Markstein's theorem (r within half an ulp of 1 / d, q1
// faithful, e1 = x - d q1 exact by FMA) q2 = RN(q1 + e1 r) = RN(x / d). No underflow: the
// loop runs with FTZ/DAZ, so x = sqrt(v) is 0 or >= 1e-19 and the residuals stay normal;
// x r overflows only where x / d does (x <= sqrt(FLT_MAX) and 1 / d <= 32 at beta2 =
// 0.999). x = +inf (or an overflowing x r): q0 = +inf is returned (the residuals would be
// NaN), as the division would give. Checked against the
// hardware division by tests/runtime/gfn/fast/flat_adam_test.cc (bit-identity with AdamW on
// ~10^7 values of widely spread magnitudes). FMA kernel only (std::fma is an instruction).
inline __attribute__((always_inline)) float divide_exact(float x, float d, float r) {
  const float q0 = x * r;
  const float q1 = std::fma(std::fma(-q0, d, x), r, q0);
  const float q2 = std::fma(std::fma(-q1, d, x), r, q1);
  return q0 > std::numeric_limits<float>::max() ? q0 : q2;
}

// kExactDivide (FMA kernel only): the division by sqrt_bc2 as divide_exact.
template <bool kFma, bool kExactDivide>
inline __attribute__((always_inline)) void adamw_loop(float* __restrict p,
                                                      const float* __restrict g,
                                                      float* __restrict m, float* __restrict v,
                                                      std::int64_t n, const Coeffs c) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float gi = g[i];
    const float pi = p[i] * c.decay;                                  // p.mul_(decay)
    float mi = m[i] * c.beta1;                                        // exp_avg.mul_(b1)
    mi = kFma ? std::fma(gi, c.one_m_b1, mi) : mi + c.one_m_b1 * gi;  // .add_(g, 1 - b1)
    float vi = v[i] * c.beta2;                                        // exp_avg_sq.mul_(b2)
    const float sg = c.one_m_b2 * gi;                                 // .addcmul_(g, g,
    vi = kFma ? std::fma(sg, gi, vi) : vi + sg * gi;                  //          1 - b2)
    const float root = std::sqrt(vi);                                 // sqrt() /
    const float scaled = kFma && kExactDivide                         //   sqrt_bc2
                             ? divide_exact(root, c.sqrt_bc2, c.inv_sqrt_bc2)
                             : root / c.sqrt_bc2;
    const float denom = scaled + c.eps;   // + eps
    p[i] = pi + c.neg_step * mi / denom;  // p.addcdiv_(m, d, s)
    m[i] = mi;
    v[i] = vi;
  }
}

GFN_ADAM_FMA_TARGET void adamw_fused_fma(float* p, const float* g, float* m, float* v,
                                         std::int64_t n, const Coeffs& c, bool exact_divide) {
  if (exact_divide) {
    adamw_loop<true, true>(p, g, m, v, n, c);
  } else {
    adamw_loop<true, false>(p, g, m, v, n, c);
  }
}

void adamw_fused_separate(float* p, const float* g, float* m, float* v, std::int64_t n,
                          const Coeffs& c) {
  adamw_loop<false, false>(p, g, m, v, n, c);
}

// Flush-to-zero and denormals-are-zero for the fused loop only (restored afterwards).
// Why: the moments of parameters whose gradient stays 0 (e.g. dead ReLU units) decay
// geometrically (m *= 0.9 per step) and become subnormal after ~800 steps; every multiply
// on a subnormal then takes a microcode assist, and at 2-D h8 the step went from 0.10 to
// 0.78 ms after 1,500 iterations (ATen's ops: 0.28 -> 0.97 ms). Flushing changes only
// values below 1.2e-38: such an m or v moves p by < lr * 1e-38 / eps ~ 1e-33, far below
// the last bit of any parameter, so the parameters stay bit-identical to AdamW's
// (tests/runtime/gfn/fast/flat_adam_test.cc, SubnormalMomentsAreFlushed...).
class FlushDenormals {
 public:
#if defined(__SSE__) || defined(__x86_64__)
  FlushDenormals() : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | kFtz | kDaz); }
  ~FlushDenormals() { _mm_setcsr(saved_); }

 private:
  static constexpr unsigned kFtz = 0x8000, kDaz = 0x0040;  // MXCSR bits
  unsigned saved_;
#endif
};

bool cpu_has_fma() {
#if defined(__GNUC__) && defined(__x86_64__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return true;  // std::fma is a native instruction on the other 64-bit targets we build for
#endif
}

// Which roundings ATen's kernels use for the moment updates, by running them on a few
// values (67: the vectorized body and a scalar tail) and comparing with both candidates.
// Uses its own std::mt19937, not LibTorch's generator: the training stream is untouched.
FlatAdamW::Kernel detect_rounding(double beta1, double beta2) {
  at::NoGradGuard no_grad;
  constexpr std::int64_t n = 67;
  std::mt19937 rng(12345);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> g(n), m(n), v(n);
  for (std::int64_t i = 0; i < n; ++i) {
    g[i] = normal(rng);
    m[i] = normal(rng);
    v[i] = std::abs(normal(rng));
  }
  at::Tensor tm = at::empty({n}, at::kFloat), tv = at::empty({n}, at::kFloat),
             tg = at::empty({n}, at::kFloat);
  std::memcpy(tg.data_ptr<float>(), g.data(), n * sizeof(float));
  std::memcpy(tm.data_ptr<float>(), m.data(), n * sizeof(float));
  std::memcpy(tv.data_ptr<float>(), v.data(), n * sizeof(float));
  tm.mul_(beta1).add_(tg, 1 - beta1);
  tv.mul_(beta2).addcmul_(tg, tg, 1 - beta2);
  const float b1 = static_cast<float>(beta1), c1 = static_cast<float>(1 - beta1);
  const float b2 = static_cast<float>(beta2), c2 = static_cast<float>(1 - beta2);
  bool fma_ok = true, separate_ok = true;
  const float* am = tm.data_ptr<float>();
  const float* av = tv.data_ptr<float>();
  for (std::int64_t i = 0; i < n; ++i) {
    const float m0 = m[i] * b1, v0 = v[i] * b2, sg = c2 * g[i];
    volatile float prod_m = c1 * g[i], prod_v = sg * g[i];  // rounded: no contraction here
    const float fm = std::fma(g[i], c1, m0), fv = std::fma(sg, g[i], v0);
    const float sm = m0 + prod_m, sv = v0 + prod_v;
    fma_ok = fma_ok && std::memcmp(&fm, &am[i], 4) == 0 && std::memcmp(&fv, &av[i], 4) == 0;
    separate_ok =
        separate_ok && std::memcmp(&sm, &am[i], 4) == 0 && std::memcmp(&sv, &av[i], 4) == 0;
  }
  if (fma_ok && !separate_ok && cpu_has_fma()) return FlatAdamW::Kernel::kFusedFma;
  if (separate_ok && !fma_ok) return FlatAdamW::Kernel::kFusedSeparate;
  return FlatAdamW::Kernel::kAtenOps;  // undecided (or no difference seen): ATen's own ops
}

}  // namespace

const char* FlatAdamW::kernel_name(Kernel k) {
  switch (k) {
    case Kernel::kFusedFma:
      return "fused (FMA moments, as ATen's AVX2/AVX-512 kernels)";
    case Kernel::kFusedSeparate:
      return "fused (separate multiply and add, as ATen's default kernels)";
    case Kernel::kAtenOps:
      return "ATen ops";
  }
  return "?";
}

FlatAdamW::Kernel FlatAdamW::detect_kernel(FlatAdamPaths paths, double beta1, double beta2) {
  return paths.fused ? detect_rounding(beta1, beta2) : Kernel::kAtenOps;
}

namespace {
std::vector<FlatAdamW::Group> flat_groups(const AdamWGroups& g) {
  std::vector<FlatAdamW::Group> groups{{g.network, g.lr, g.weight_decay}};
  if (!g.log_flow.empty()) groups.push_back({g.log_flow, g.lr_log_flow, g.weight_decay});
  groups.push_back({{g.log_z}, g.lr_log_z, 0.0});
  return groups;
}
}  // namespace

FlatAdamW::FlatAdamW(const AdamWGroups& g, FlatAdamPaths paths)
    : FlatAdamW(flat_groups(g), paths) {}

FlatAdamW::FlatAdamW(std::vector<Group> groups, FlatAdamPaths paths, double beta1, double beta2,
                     double eps)
    : beta1_(beta1), beta2_(beta2), eps_(eps), plain_loops_(paths.plain_loops) {
  std::set<const void*> seen;
  std::vector<std::int64_t> totals;
  for (const auto& g : groups) {
    if (g.params.empty()) throw std::invalid_argument("FlatAdamW: empty parameter group");
    if (!(g.lr >= 0) || !(g.weight_decay >= 0)) {
      throw std::invalid_argument("FlatAdamW: lr and weight_decay must be >= 0, got " +
                                  std::to_string(g.lr) + " and " + std::to_string(g.weight_decay));
    }
    std::int64_t total = 0;
    for (const auto& p : g.params) {
      if (!p.defined() || !p.is_leaf() || !p.requires_grad() || p.scalar_type() != at::kFloat ||
          !p.device().is_cpu()) {
        throw std::invalid_argument(
            "FlatAdamW: parameters must be float32 CPU leaf tensors with requires_grad");
      }
      if (!seen.insert(p.unsafeGetTensorImpl()).second) {
        throw std::invalid_argument("FlatAdamW: a parameter is listed twice");
      }
      total += p.numel();
    }
    totals.push_back(total);
  }
  // One buffer for the parameters of every group and one for their gradients, in group
  // order: model averaging all-reduces them in place (all_parameters(), all_gradients()).
  const std::int64_t all = std::accumulate(totals.begin(), totals.end(), std::int64_t{0});
  all_params_ = at::empty({all}, at::kFloat);
  all_grads_ = at::zeros({all}, at::kFloat);
  std::int64_t group_offset = 0;
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    auto& g = groups[gi];
    const std::int64_t total = totals[gi];
    Flat f;
    f.params = all_params_.narrow(0, group_offset, total);
    f.grads = all_grads_.narrow(0, group_offset, total);
    f.exp_avg = at::zeros({total}, at::kFloat);
    f.exp_avg_sq = at::zeros({total}, at::kFloat);
    group_offset += total;
    std::int64_t offset = 0;
    for (auto& p : g.params) {
      const std::int64_t k = p.numel();
      at::Tensor slice = f.params.narrow(0, offset, k);
      slice.copy_(p.detach().reshape({-1}));
      p.set_data(slice.view(p.sizes()));
      p.mutable_grad() = f.grads.narrow(0, offset, k).view(p.sizes());
      f.param_ptrs.push_back(p.data_ptr());
      f.grad_ptrs.push_back(p.grad().data_ptr());
      offset += k;
    }
    f.group = std::move(g);
    f.base_lr = f.group.lr;
    flat_.push_back(std::move(f));
  }
  kernel_ = detect_kernel(paths, beta1_, beta2_);
}

void FlatAdamW::set_learning_rate_scale(double scale) {
  for (Flat& f : flat_) f.group.lr = f.base_lr * scale;
}

void FlatAdamW::zero_grad() { all_grads_.zero_(); }

void FlatAdamW::step() {
  at::NoGradGuard no_grad;
  ++step_;
  const double bias1 = 1 - std::pow(beta1_, static_cast<double>(step_));
  const double bias2 = 1 - std::pow(beta2_, static_cast<double>(step_));
  for (auto& f : flat_) {
    for (std::size_t i = 0; i < f.group.params.size(); ++i) {
      const at::Tensor& p = f.group.params[i];
      if (p.data_ptr() != f.param_ptrs[i] || !p.grad().defined() ||
          p.grad().data_ptr() != f.grad_ptrs[i]) {
        throw std::logic_error(
            "FlatAdamW::step: a parameter or its gradient no longer views the flat buffer "
            "(replaced by set_data, or grad reset to none?)");
      }
    }
    const double lr = f.group.lr, wd = f.group.weight_decay;
    if (kernel_ == Kernel::kAtenOps) {
      // Same ops, same order as torch::optim::AdamW::step (LibTorch 1.13, amsgrad off).
      if (wd != 0) f.params.mul_(1 - lr * wd);
      f.exp_avg.mul_(beta1_).add_(f.grads, 1 - beta1_);
      f.exp_avg_sq.mul_(beta2_).addcmul_(f.grads, f.grads, 1 - beta2_);
      const at::Tensor denom = (f.exp_avg_sq.sqrt() / std::sqrt(bias2)).add_(eps_);
      f.params.addcdiv_(f.exp_avg, denom, -lr / bias1);
      continue;
    }
    // The same scalars as ATen converts them: double arithmetic, then one cast to float
    // (p.mul_ is skipped when weight_decay == 0; multiplying by 1.0f is exact).
    const Coeffs c{static_cast<float>(wd != 0 ? 1 - lr * wd : 1.0),
                   static_cast<float>(beta1_),
                   static_cast<float>(1 - beta1_),
                   static_cast<float>(beta2_),
                   static_cast<float>(1 - beta2_),
                   static_cast<float>(std::sqrt(bias2)),
                   1.0f / static_cast<float>(std::sqrt(bias2)),
                   static_cast<float>(eps_),
                   static_cast<float>(-lr / bias1)};
    float* p = f.params.data_ptr<float>();
    const float* g = f.grads.data_ptr<float>();
    float* m = f.exp_avg.data_ptr<float>();
    float* v = f.exp_avg_sq.data_ptr<float>();
    const std::int64_t n = f.params.numel();
    const FlushDenormals flush;
    if (kernel_ == Kernel::kFusedFma) {
      adamw_fused_fma(p, g, m, v, n, c, plain_loops_);
    } else {
      adamw_fused_separate(p, g, m, v, n, c);
    }
  }
}

void FlatAdamW::reset_state() {
  for (auto& f : flat_) {
    f.exp_avg.zero_();
    f.exp_avg_sq.zero_();
  }
  step_ = 0;
}

void FlatAdamW::load_state(std::int64_t step, const std::vector<at::Tensor>& exp_avg,
                           const std::vector<at::Tensor>& exp_avg_sq) {
  if (exp_avg.size() != flat_.size() || exp_avg_sq.size() != flat_.size()) {
    throw std::invalid_argument("FlatAdamW::load_state: " + std::to_string(exp_avg.size()) +
                                " groups given, the optimizer has " + std::to_string(flat_.size()));
  }
  for (std::size_t i = 0; i < flat_.size(); ++i) {
    if (!exp_avg[i].sizes().equals(flat_[i].exp_avg.sizes()) ||
        !exp_avg_sq[i].sizes().equals(flat_[i].exp_avg_sq.sizes())) {
      throw std::invalid_argument("FlatAdamW::load_state: group " + std::to_string(i) + " has " +
                                  std::to_string(flat_[i].exp_avg.numel()) +
                                  " values, the state given another shape");
    }
  }
  for (std::size_t i = 0; i < flat_.size(); ++i) {
    flat_[i].exp_avg.copy_(exp_avg[i]);
    flat_[i].exp_avg_sq.copy_(exp_avg_sq[i]);
  }
  step_ = step;
}

}  // namespace gfn::core
