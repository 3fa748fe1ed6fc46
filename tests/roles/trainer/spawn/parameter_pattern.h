#pragma once
// Recognisable parameter values for the spawn-policy tests (selective_async_test.cc,
// donor_pull_test.cc, spawn_policy_test.cc): member g writes pattern(g, t, i) into element i of its
// flat parameters after its iteration t, so a received or pulled value tells whose parameters of
// which iteration it is. Header-only test code; float32 tensors on the CPU, contiguous.

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

namespace gfn::roles::spawn_test {

/// Element i of member g's parameters after its iteration t: exactly representable in
/// float32 for g < 2^10, t < 1024 and i < 2^12.
inline float pattern(int g, std::int64_t t, int i) {
  return static_cast<float>(g * 1024 + t) + 0.25f * static_cast<float>(i);
}

/// Writes pattern(g, t, ·) over the parameters in order (the flat layout spans them all).
inline void write_pattern(const std::vector<at::Tensor>& params, int g, std::int64_t t) {
  int i = 0;
  for (const auto& p : params) {
    float* d = p.data_ptr<float>();
    for (std::int64_t k = 0; k < p.numel(); ++k) d[k] = pattern(g, t, i++);
  }
}

/// The parameters' values in flat order.
inline std::vector<float> read_flat(const std::vector<at::Tensor>& params) {
  std::vector<float> out;
  for (const auto& p : params) {
    const float* d = p.data_ptr<float>();
    out.insert(out.end(), d, d + p.numel());
  }
  return out;
}

}  // namespace gfn::roles::spawn_test
