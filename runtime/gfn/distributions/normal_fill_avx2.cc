// normal_fill's loop (normal_fill.h). This file is compiled with -mavx2 -mfma and ATen's AVX2
// capability macros (CMakeLists.txt), which avx_mathfun.h needs; it is called only where the
// CPU has both extensions and the first call's check found ATen's bits.
#include "runtime/gfn/distributions/normal_fill_kernels.h"

#include <ATen/native/cpu/avx_mathfun.h>
#include <c10/util/MathConstants.h>

#include <algorithm>

namespace gfn::distributions::detail {
namespace {

// MT19937 (Matsumoto & Nishimura 1998) as at::mt19937 (ATen/core/MT19937RNGEngine.h) keeps it.
constexpr int kN = 624, kM = 397;
constexpr std::uint32_t kMatrixA = 0x9908b0dfu, kUpper = 0x80000000u, kLower = 0x7fffffffu;

inline std::uint32_t twist(std::uint32_t u, std::uint32_t v) {
  return (((u & kUpper) | (v & kLower)) >> 1) ^ ((0u - (v & 1u)) & kMatrixA);
}

/// at::mt19937's next_state: all 624 words in place, in its order.
void regenerate(std::uint32_t* p) {
  for (int k = 0; k < kN - kM; ++k) p[k] = p[k + kM] ^ twist(p[k], p[k + 1]);
  for (int k = kN - kM; k < kN - 1; ++k) p[k] = p[k + kM - kN] ^ twist(p[k], p[k + 1]);
  p[kN - 1] = p[kM - 1] ^ twist(p[kN - 1], p[0]);
}

/// out[0, n) = the next n uniforms of at::uniform_real_distribution<float>(0, 1): the low 24
/// bits of each tempered output times 2^-24. at::mt19937::operator() regenerates when its
/// decremented left_ reaches 0, so left_ - 1 words are ready before the next regeneration.
void uniforms(at::mt19937_data_pod& s, float* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n;) {
    if (s.left_ == 1) {
      regenerate(s.state_.data());
      s.left_ = kN + 1;
      s.next_ = 0;
    }
    const std::int64_t take = std::min<std::int64_t>(s.left_ - 1, n - i);
    const std::uint32_t* words = s.state_.data() + s.next_;
    for (std::int64_t j = 0; j < take; ++j) {
      std::uint32_t y = words[j];
      y ^= y >> 11;
      y ^= (y << 7) & 0x9d2c5680u;
      y ^= (y << 15) & 0xefc60000u;
      y ^= y >> 18;
      out[i + j] = static_cast<float>(y & 0xffffffu) * (1.0f / 16777216.0f);
    }
    s.next_ += static_cast<std::uint32_t>(take);
    s.left_ -= static_cast<int>(take);
    i += take;
  }
}

/// Box-Muller on (data[j], data[j + 8]), j < 8, as ATen's normal_fill_16_AVX2 (mean 0, std 1).
void box_muller_16(float* data) {
  const __m256 two_pi = _mm256_set1_ps(2.0f * c10::pi<double>);
  const __m256 u1 = _mm256_sub_ps(_mm256_set1_ps(1.0f), _mm256_loadu_ps(data));
  const __m256 u2 = _mm256_loadu_ps(data + 8);
  const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(_mm256_set1_ps(-2.0f), log256_ps(u1)));
  const __m256 theta = _mm256_mul_ps(two_pi, u2);
  __m256 sin_theta, cos_theta;
  sincos256_ps(theta, &sin_theta, &cos_theta);
  // ATen's n * std + mean with std 1, mean 0, kept as its FMA: it turns -0 into +0.
  const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
  _mm256_storeu_ps(data, _mm256_fmadd_ps(_mm256_mul_ps(radius, cos_theta), one, zero));
  _mm256_storeu_ps(data + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, sin_theta), one, zero));
}

}  // namespace

void normal_fill_avx2(at::mt19937_data_pod& state, float* data, std::int64_t n) {
  uniforms(state, data, n);
  for (std::int64_t i = 0; i + 16 <= n; i += 16) box_muller_16(data + i);
  if (n % 16 != 0) {  // ATen draws the last 16 again
    uniforms(state, data + n - 16, 16);
    box_muller_16(data + n - 16);
  }
}

}  // namespace gfn::distributions::detail
