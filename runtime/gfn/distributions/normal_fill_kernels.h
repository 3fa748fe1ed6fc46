#pragma once
// The loop of normal_fill (normal_fill.h), compiled for AVX2 and FMA (normal_fill_avx2.cc): call
// it only where the CPU has both. Not thread-safe: the caller holds the generator's mutex.

#include <ATen/core/MT19937RNGEngine.h>

#include <cstdint>

namespace gfn::distributions::detail {

/// data[0, n) = N(0, 1) draws as ATen's AVX2 normal_fill does them, advancing state (n >= 16).
void normal_fill_avx2(at::mt19937_data_pod& state, float* data, std::int64_t n);

}  // namespace gfn::distributions::detail
