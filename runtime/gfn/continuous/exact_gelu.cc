#include "runtime/gfn/continuous/exact_gelu.h"

#include <ATen/ATen.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

// GCC vector extensions: 32-byte vectors are passed in registers only inside the AVX2 clone;
// the ABI note is about functions that take them across translation units, which none does.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace gfn::core {
namespace {

typedef float v8f __attribute__((vector_size(32)));
typedef std::int32_t v8i __attribute__((vector_size(32)));

constexpr float kP = 0.3275911f;  // Abramowitz & Stegun 7.1.26
constexpr float kA1 = 0.254829592f, kA2 = -0.284496736f, kA3 = 1.421413741f;
constexpr float kA4 = -1.453152027f, kA5 = 1.061405429f;
constexpr float kSqrtHalf = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;

#define GFN_INLINE static inline __attribute__((always_inline))

GFN_INLINE v8f splat(float v) { return v8f{} + v; }

// exp(a) for a <= 0 (Cephes expf: a = n log 2 + r, |r| <= log(2) / 2, a degree-6 polynomial
// in r, times 2^n from the exponent bits); a below -87 is clamped (exp < 1.7e-38).
GFN_INLINE v8f exp_nonpositive(v8f a) {
  a = a < -87.0f ? splat(-87.0f) : a;
  const v8f n = (a * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round to nearest
  const v8f r = a - n * 0.693359375f + n * 2.12194440e-4f;
  v8f p = splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const v8i bits = (__builtin_convertvector(n, v8i) + 127) << 23;
  return (p * r * r + r + 1.0f) * __builtin_bit_cast(v8f, bits);
}

// Phi(x) and exp(-x^2 / 2) of 8 lanes.
GFN_INLINE void phi(v8f x, v8f& cdf, v8f& density) {
  const v8i sign = v8i{} + static_cast<std::int32_t>(0x80000000u);
  const v8i xi = __builtin_bit_cast(v8i, x);
  const v8i abs_bits = xi & ~sign;
  const v8f z = __builtin_bit_cast(v8f, abs_bits) * kSqrtHalf;  // |x| / sqrt 2
  const v8f t = 1.0f / (1.0f + kP * z);
  density = exp_nonpositive(-z * z);
  const v8f poly = ((((kA5 * t + kA4) * t + kA3) * t + kA2) * t + kA1) * t;
  const v8f erf_abs = 1.0f - poly * density;
  const v8i erf_bits = __builtin_bit_cast(v8i, erf_abs) | (xi & sign);
  cdf = 0.5f + 0.5f * __builtin_bit_cast(v8f, erf_bits);
}

// n floats, 8 at a time; the tail through a zero-padded vector.
template <bool kBackward>
GFN_INLINE void gelu_loop(const float* grad, const float* x, float* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; i += 8) {
    const std::int64_t m = n - i < 8 ? n - i : 8;
    v8f v{}, g{}, cdf, density, o;
    if (m == 8) {
      std::memcpy(&v, x + i, 32);
      if (kBackward) std::memcpy(&g, grad + i, 32);
    } else {
      std::memcpy(&v, x + i, m * sizeof(float));
      if (kBackward) std::memcpy(&g, grad + i, m * sizeof(float));
    }
    phi(v, cdf, density);
    o = kBackward ? g * (cdf + v * density * kInvSqrt2Pi) : v * cdf;
    if (m == 8) {
      std::memcpy(out + i, &o, 32);
    } else {
      std::memcpy(out + i, &o, m * sizeof(float));
    }
  }
}

__attribute__((target("avx2,fma"))) void gelu_avx2(const float* g, const float* x, float* out,
                                                   std::int64_t n, bool backward) {
  backward ? gelu_loop<true>(g, x, out, n) : gelu_loop<false>(g, x, out, n);
}

void gelu_baseline(const float* g, const float* x, float* out, std::int64_t n, bool backward) {
  backward ? gelu_loop<true>(g, x, out, n) : gelu_loop<false>(g, x, out, n);
}

// Asked on first use, after __builtin_cpu_init (a namespace-scope initializer may run before
// libgcc has read the CPU's features, and would then always choose the baseline loop).
bool has_avx2_fma() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return yes;
}

void run(const float* g, const float* x, float* out, std::int64_t n, bool backward) {
  has_avx2_fma() ? gelu_avx2(g, x, out, n, backward) : gelu_baseline(g, x, out, n, backward);
}

void check(const at::Tensor& t, const at::Tensor& like, const char* who) {
  if (!t.defined() || t.scalar_type() != at::kFloat || !t.device().is_cpu() || !t.is_contiguous() ||
      t.numel() != like.numel()) {
    throw std::invalid_argument(std::string(who) +
                                ": need contiguous float32 CPU tensors of the same size");
  }
}

}  // namespace

void exact_gelu_out(const at::Tensor& x, at::Tensor& out) {
  check(x, x, "exact_gelu_out");
  check(out, x, "exact_gelu_out");
  run(nullptr, x.data_ptr<float>(), out.data_ptr<float>(), x.numel(), false);
}

at::Tensor exact_gelu_backward(const at::Tensor& grad, const at::Tensor& x) {
  check(x, x, "exact_gelu_backward");
  const at::Tensor g = grad.contiguous();
  check(g, x, "exact_gelu_backward");
  at::Tensor out = at::empty_like(x);
  run(g.data_ptr<float>(), x.data_ptr<float>(), out.data_ptr<float>(), x.numel(), true);
  return out;
}

}  // namespace gfn::core
