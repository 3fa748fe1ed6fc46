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

template <int kLanes>
struct Lanes {
  typedef float F __attribute__((vector_size(4 * kLanes)));
  typedef std::int32_t I __attribute__((vector_size(4 * kLanes)));
};

constexpr float kP = 0.3275911f;  // Abramowitz & Stegun 7.1.26
constexpr float kA1 = 0.254829592f, kA2 = -0.284496736f, kA3 = 1.421413741f;
constexpr float kA4 = -1.453152027f, kA5 = 1.061405429f;
constexpr float kSqrtHalf = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;

#define GFN_INLINE static inline __attribute__((always_inline))

template <typename V>
GFN_INLINE V splat(float v) {
  return V{} + v;
}

// exp(a) for a <= 0 (Cephes expf: a = n log 2 + r, |r| <= log(2) / 2, a degree-6 polynomial
// in r, times 2^n from the exponent bits); a below -87 is clamped (exp < 1.7e-38).
template <typename V, typename I>
GFN_INLINE V exp_nonpositive(V a) {
  a = a < -87.0f ? splat<V>(-87.0f) : a;
  const V n = (a * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round to nearest
  const V r = a - n * 0.693359375f + n * 2.12194440e-4f;
  V p = splat<V>(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const I bits = (__builtin_convertvector(n, I) + 127) << 23;
  return (p * r * r + r + 1.0f) * __builtin_bit_cast(V, bits);
}

// Phi(x) and exp(-x^2 / 2), lane by lane.
template <typename V, typename I>
GFN_INLINE void phi(V x, V& cdf, V& density) {
  const I sign = I{} + static_cast<std::int32_t>(0x80000000u);
  const I xi = __builtin_bit_cast(I, x);
  const I abs_bits = xi & ~sign;
  const V z = __builtin_bit_cast(V, abs_bits) * kSqrtHalf;  // |x| / sqrt 2
  const V t = 1.0f / (1.0f + kP * z);
  density = exp_nonpositive<V, I>(-z * z);
  const V poly = ((((kA5 * t + kA4) * t + kA3) * t + kA2) * t + kA1) * t;
  const V erf_abs = 1.0f - poly * density;
  const I erf_bits = __builtin_bit_cast(I, erf_abs) | (xi & sign);
  cdf = 0.5f + 0.5f * __builtin_bit_cast(V, erf_bits);
}

// One vector of lanes from value i, bytes / 4 of them (the tail: zero-padded): GELU(x) into
// out and, with kSlope, GELU'(x) into slope.
template <typename V, typename I, bool kSlope>
GFN_INLINE void gelu_lanes(const float* x, float* out, float* slope, std::int64_t i,
                           std::size_t bytes) {
  V v{}, cdf, density;
  std::memcpy(&v, x + i, bytes);
  phi<V, I>(v, cdf, density);
  const V o = v * cdf;
  std::memcpy(out + i, &o, bytes);
  if (kSlope) {
    const V s = cdf + v * density * kInvSqrt2Pi;
    std::memcpy(slope + i, &s, bytes);
  }
}

// n floats, kLanes at a time; slope null: GELU only.
template <int kLanes, bool kSlope>
GFN_INLINE void gelu_loop(const float* x, float* out, float* slope, std::int64_t n) {
  using V = typename Lanes<kLanes>::F;
  using I = typename Lanes<kLanes>::I;
  for (std::int64_t i = 0; i < n; i += kLanes) {
    if (n - i >= kLanes) {
      gelu_lanes<V, I, kSlope>(x, out, slope, i, sizeof(V));  // constant size: vector moves
    } else {
      gelu_lanes<V, I, kSlope>(x, out, slope, i, (n - i) * sizeof(float));
    }
  }
}

template <int kLanes>
GFN_INLINE void gelu_pass(const float* x, float* out, float* slope, std::int64_t n) {
  slope ? gelu_loop<kLanes, true>(x, out, slope, n) : gelu_loop<kLanes, false>(x, out, slope, n);
}

__attribute__((target("avx512f"))) void gelu_avx512(const float* x, float* out, float* slope,
                                                    std::int64_t n) {
  gelu_pass<16>(x, out, slope, n);
}

__attribute__((target("avx2,fma"))) void gelu_avx2(const float* x, float* out, float* slope,
                                                   std::int64_t n) {
  gelu_pass<8>(x, out, slope, n);
}

void gelu_baseline(const float* x, float* out, float* slope, std::int64_t n) {
  gelu_pass<8>(x, out, slope, n);
}

// Asked on first use, after __builtin_cpu_init (a namespace-scope initializer may run before
// libgcc has read the CPU's features, and would then always choose the baseline loop).
bool cpu_has(GeluLoop loop) {
  static const bool avx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  static const bool avx512 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
  }();
  switch (loop) {
    case GeluLoop::kAvx512:
      return avx512;
    case GeluLoop::kAvx2:
      return avx2;
    default:
      return true;
  }
}

void run(const float* x, float* out, float* slope, std::int64_t n, GeluLoop loop) {
  if (loop == GeluLoop::kBest) {
    loop = cpu_has(GeluLoop::kAvx512) ? GeluLoop::kAvx512
           : cpu_has(GeluLoop::kAvx2) ? GeluLoop::kAvx2
                                      : GeluLoop::kBaseline;
  }
  if (!cpu_has(loop)) throw std::invalid_argument("exact_gelu: this CPU lacks the asked loop");
  switch (loop) {
    case GeluLoop::kAvx512:
      return gelu_avx512(x, out, slope, n);
    case GeluLoop::kAvx2:
      return gelu_avx2(x, out, slope, n);
    default:
      return gelu_baseline(x, out, slope, n);
  }
}

void check(const at::Tensor& t, const at::Tensor& like, const char* who) {
  if (!t.defined() || t.scalar_type() != at::kFloat || !t.device().is_cpu() || !t.is_contiguous() ||
      t.numel() != like.numel()) {
    throw std::invalid_argument(std::string(who) +
                                ": need contiguous float32 CPU tensors of the same size");
  }
}

}  // namespace

bool exact_gelu_loop_available(GeluLoop loop) { return cpu_has(loop); }

void exact_gelu_out(const at::Tensor& x, at::Tensor& out, GeluLoop loop) {
  check(x, x, "exact_gelu_out");
  check(out, x, "exact_gelu_out");
  run(x.data_ptr<float>(), out.data_ptr<float>(), nullptr, x.numel(), loop);
}

void exact_gelu_slope_out(const at::Tensor& x, at::Tensor& out, at::Tensor& slope, GeluLoop loop) {
  check(x, x, "exact_gelu_slope_out");
  check(out, x, "exact_gelu_slope_out");
  check(slope, x, "exact_gelu_slope_out");
  run(x.data_ptr<float>(), out.data_ptr<float>(), slope.data_ptr<float>(), x.numel(), loop);
}

void exact_gelu_slope(const float* x, float* out, float* slope, std::int64_t n, GeluLoop loop) {
  if (n > 0) run(x, out, slope, n, loop);
}

}  // namespace gfn::core
