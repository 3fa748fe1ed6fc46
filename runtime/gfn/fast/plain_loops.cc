#include "runtime/gfn/fast/plain_loops.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/ops/as_strided_native.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/gfn/fast/loop_clones.h"

namespace gfn::core {
namespace {

// How ATen 1.13 sums a contiguous float32 [M, n] tensor over dim 0 (SumKernel.cpp,
// cascade_sum with one thread or fewer than GRAIN_SIZE elements): with V = the active CPU
// kernel's Vectorized<float>::size() (8: default and AVX2, 16: AVX-512),
//  - n >= V (vectorized_outer_sum): columns in blocks of 4V by multi_row_sum, then blocks
//    of V and the last columns by row_sum;
//  - n < V (scalar_outer_sum): blocks of 4 columns by multi_row_sum, the rest by row_sum.
// multi_row_sum: float accumulators on 4 levels; blocks of 2^max(4, ceil(log2 M) / 4) rows
// summed in order into level 0, then carried up. row_sum: the rows as M / 4 groups of 4
// (4 partial sums by multi_row_sum), leftover rows into partial 0, then p0 + p1 + p2 + p3.
// Every column sees the same float additions whether ATen runs them in vector lanes or not,
// so the loops below (vectorized across the columns of a block) give the same bits.

// ATen's utils::CeilLog2 (ATen/native/cpu/utils.h): ceil(log2(x)), 1 for x <= 2.
std::int64_t ceil_log2(std::int64_t x) {
  if (x <= 2) return 1;
  std::int64_t bits = 0;
  for (auto v = static_cast<std::uint64_t>(x - 1); v != 0; v >>= 1) ++bits;
  return bits;
}

// The loops below marked GFN_LOOP_CLONES (loop_clones.h) get an AVX2 clone chosen at load
// time where supported; both compute the same float additions in the same order (no FMA).

constexpr std::int64_t kLevels = 4;

// multi_row_sum over `size` rows for `width` lanes: row r of lane c is x[r * row_stride + c]
// (lanes contiguous). acc: kLevels * width scratch; the result is left in acc[0 .. width).
GFN_LOOP_CLONES void multi_row_sum(const float* __restrict x, std::int64_t row_stride,
                                   std::int64_t size, std::int64_t width, float* __restrict acc) {
  const std::int64_t level_power = std::max<std::int64_t>(4, ceil_log2(size) / kLevels);
  const std::int64_t level_step = std::int64_t{1} << level_power;
  const std::int64_t level_mask = level_step - 1;
  std::fill(acc, acc + kLevels * width, 0.0f);
  std::int64_t i = 0;
  while (i + level_step <= size) {
    for (std::int64_t r = 0; r < level_step; ++r, ++i) {
      const float* row = x + i * row_stride;
      for (std::int64_t c = 0; c < width; ++c) acc[c] += row[c];
    }
    for (std::int64_t k = 1; k < kLevels; ++k) {
      float* hi = acc + k * width;
      float* lo = acc + (k - 1) * width;
      for (std::int64_t c = 0; c < width; ++c) {
        hi[c] += lo[c];
        lo[c] = 0.0f;
      }
      if ((i & (level_mask << (k * level_power))) != 0) break;
    }
  }
  for (; i < size; ++i) {
    const float* row = x + i * row_stride;
    for (std::int64_t c = 0; c < width; ++c) acc[c] += row[c];
  }
  for (std::int64_t k = 1; k < kLevels; ++k) {
    const float* hi = acc + k * width;
    for (std::int64_t c = 0; c < width; ++c) acc[c] += hi[c];
  }
}

// out[c] += column sum of x [m rows, stride n] over columns [0, width) (x points at the
// first column of the block), by multi_row_sum (ilp = false) or row_sum (ilp = true).
void block_sums(const float* x, std::int64_t m, std::int64_t n, std::int64_t width, bool ilp,
                std::vector<float>& scratch, float* out) {
  if (!ilp) {
    scratch.resize(static_cast<std::size_t>(kLevels * width));
    multi_row_sum(x, n, m, width, scratch.data());
    for (std::int64_t c = 0; c < width; ++c) out[c] += scratch[c];
    return;
  }
  // row_sum: 4 partial sums per column, the lanes of multi_row_sum being (partial, column).
  const std::int64_t groups = m / 4, lanes = 4 * width;
  std::vector<float> interleaved(static_cast<std::size_t>(groups * lanes));
  for (std::int64_t g = 0; g < groups; ++g) {
    for (std::int64_t k = 0; k < 4; ++k) {
      std::memcpy(&interleaved[static_cast<std::size_t>(g * lanes + k * width)],
                  x + (4 * g + k) * n, width * sizeof(float));
    }
  }
  scratch.resize(static_cast<std::size_t>(kLevels * lanes));
  multi_row_sum(interleaved.data(), lanes, groups, lanes, scratch.data());
  for (std::int64_t c = 0; c < width; ++c) {
    float p0 = scratch[c];
    for (std::int64_t i = 4 * groups; i < m; ++i) p0 += x[i * n + c];
    for (std::int64_t k = 1; k < 4; ++k) p0 += scratch[k * width + c];
    out[c] += p0;
  }
}

// out += ATen's dim-0 sum of x float32 [m, n] (m >= 1, n >= 2) for vector width v.
void aten_order_column_sums(const float* x, std::int64_t m, std::int64_t n, std::int64_t v,
                            float* out) {
  std::vector<float> scratch;
  std::int64_t j = 0;
  if (n >= v) {
    for (; j + 4 * v <= n; j += 4 * v) block_sums(x + j, m, n, 4 * v, false, scratch, out + j);
    for (; j + v <= n; j += v) block_sums(x + j, m, n, v, true, scratch, out + j);
  } else {
    for (; j + 4 <= n; j += 4) block_sums(x + j, m, n, 4, false, scratch, out + j);
  }
  if (j < n) block_sums(x + j, m, n, n - j, true, scratch, out + j);
}

// The Vectorized<float> width of ATen's active CPU kernels (not exported by LibTorch), by
// asking ATen: its dim-0 sum of a probe table whose first 32 columns are summed by
// multi_row_sum for v = 8 and by row_sum for v = 16. 0 if neither (or both) match: then
// add_column_sums leaves the sums to ATen. Uses its own std::mt19937, not LibTorch's
// generator.
std::int64_t detect_vector_width() {
  at::NoGradGuard no_grad;
  constexpr std::int64_t m = 200, n = 43;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  at::Tensor x = at::empty({m, n}, at::kFloat);
  float* xd = x.data_ptr<float>();
  for (std::int64_t i = 0; i < m * n; ++i) xd[i] = normal(rng) * std::exp(4.0f * normal(rng));
  const at::Tensor ref = x.sum(0);
  std::int64_t found = 0;
  int matches = 0;
  for (const std::int64_t v : {8, 16}) {
    std::vector<float> out(n, 0.0f);
    aten_order_column_sums(xd, m, n, v, out.data());
    if (std::memcmp(out.data(), ref.data_ptr<float>(), n * sizeof(float)) == 0) {
      found = v;
      ++matches;
    }
  }
  return matches == 1 ? found : 0;
}

bool plain_float(const at::Tensor& t) {
  return t.defined() && t.scalar_type() == at::kFloat && t.is_contiguous() && t.device().is_cpu();
}

}  // namespace

bool add_column_sums(at::Tensor& acc, const at::Tensor& dy) {
  static const std::int64_t vector_width = detect_vector_width();  // thread-safe init
  if (vector_width == 0 || !plain_float(acc) || !plain_float(dy) || dy.dim() != 2 ||
      acc.dim() != 1 || acc.size(0) != dy.size(1) || dy.size(0) < 1 || dy.size(1) < 2) {
    return false;
  }
  // ATen splits larger sums across threads (TensorIteratorBase::parallel_reduce).
  constexpr std::int64_t kGrainSize = 32768;  // at::internal::GRAIN_SIZE
  if (dy.numel() >= kGrainSize && at::get_num_threads() > 1) return false;
  aten_order_column_sums(dy.data_ptr<float>(), dy.size(0), dy.size(1), vector_width,
                         acc.data_ptr<float>());
  acc.unsafeGetTensorImpl()->bump_version();  // as add_ would
  return true;
}

at::Tensor transposed_view(const at::Tensor& m, bool loops) {
  if (!loops || !m.defined() || m.dim() != 2 || m.layout() != at::kStrided ||
      !m.device().is_cpu()) {
    return m.t();
  }
  return at::native::as_strided_tensorimpl(m, {m.size(1), m.size(0)}, {m.stride(1), m.stride(0)},
                                           m.storage_offset());
}

at::Tensor masked_fill_copy(const at::Tensor& x, const at::Tensor& mask, float value, bool loops) {
  if (!loops || !x.defined() || !mask.defined() || x.scalar_type() != at::kFloat ||
      mask.scalar_type() != at::kBool || !x.is_contiguous() || !mask.is_contiguous() ||
      !x.device().is_cpu() || !mask.device().is_cpu() || x.sizes() != mask.sizes()) {
    return x.detach().masked_fill(mask, value);
  }
  at::Tensor out = at::empty(x.sizes(), at::kFloat);
  const float* src = x.data_ptr<float>();
  const bool* m = mask.data_ptr<bool>();
  float* dst = out.data_ptr<float>();
  const std::int64_t n = x.numel();
  for (std::int64_t i = 0; i < n; ++i) dst[i] = m[i] ? value : src[i];
  return out;
}

at::Tensor zeros_float(std::int64_t rows, std::int64_t cols, bool loops) {
  if (!loops) return at::zeros({rows, cols}, at::kFloat);
  at::Tensor out = at::empty({rows, cols}, at::kFloat);
  if (rows * cols > 0) std::memset(out.data_ptr<float>(), 0, sizeof(float) * rows * cols);
  return out;
}

double scalar_value(const at::Tensor& t, bool loops) {
  if (loops && t.defined() && t.numel() == 1 && t.device().is_cpu() && t.layout() == at::kStrided) {
    if (t.scalar_type() == at::kFloat) return static_cast<double>(*t.data_ptr<float>());
    if (t.scalar_type() == at::kDouble) return *t.data_ptr<double>();
  }
  return t.item<double>();
}

at::Tensor long_tensor(const std::vector<std::int64_t>& values, std::int64_t cols) {
  const auto n = static_cast<std::int64_t>(values.size());
  at::Tensor t = cols == 0 ? at::empty({n}, at::kLong) : at::empty({n / cols, cols}, at::kLong);
  if (n > 0) std::memcpy(t.data_ptr<std::int64_t>(), values.data(), sizeof(std::int64_t) * n);
  return t;
}

}  // namespace gfn::core
