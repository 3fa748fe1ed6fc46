#include "runtime/gfn/fast/bf16_gemm.h"

#include <ATen/ATen.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

namespace gfn::core {

namespace {

// The rounding loop compiled for AVX-512 and AVX2 as well as the baseline (GCC function
// multiversioning, as the plain loops of loop_clones.h): the same values in every clone (integer
// operations only).
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define GFN_BF16_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define GFN_BF16_CLONES
#endif

// y[i] = x[i] rounded to the nearest bfloat16, ties to even (the upper 16 bits of the
// float32 after adding 0x7fff plus the lowest kept bit); a NaN keeps its sign and becomes
// quiet (adding could carry a NaN with a small payload into infinity).
GFN_BF16_CLONES void round_to_bf16(const float* __restrict x, std::uint16_t* __restrict y,
                                   std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint32_t u;
    std::memcpy(&u, x + i, sizeof(u));
    const std::uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const std::uint32_t nan = (u >> 16) | 0x40u;
    y[i] = static_cast<std::uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
  }
}

using dnnl::memory;

// The matmul primitives of one thread, one per (transpose_a, transpose_b, accumulate),
// created on first use with runtime M, N, K (oneDNN picks its kernel per call).
struct Primitives {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::array<std::optional<dnnl::matmul>, 8> matmuls;
};

memory::format_tag tag(bool transposed) {
  return transposed ? memory::format_tag::ba : memory::format_tag::ab;
}

dnnl::matmul& matmul_for(Primitives& p, bool ta, bool tb, bool accumulate) {
  auto& slot = p.matmuls[(ta ? 4 : 0) + (tb ? 2 : 0) + (accumulate ? 1 : 0)];
  if (!slot) {
    constexpr memory::dim kAny = DNNL_RUNTIME_DIM_VAL;
    const memory::desc a({kAny, kAny}, memory::data_type::bf16, tag(ta));
    const memory::desc b({kAny, kAny}, memory::data_type::bf16, tag(tb));
    const memory::desc c({kAny, kAny}, memory::data_type::f32, memory::format_tag::ab);
    dnnl::primitive_attr attr;
    if (accumulate) {
      dnnl::post_ops ops;
      ops.append_sum(1.0f);
      attr.set_post_ops(ops);
    }
    slot.emplace(dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, c), attr, p.engine));
  }
  return *slot;
}

void check_operand(const at::Tensor& t, at::ScalarType dtype, const char* what) {
  if (!t.defined() || t.dim() != 2 || t.scalar_type() != dtype || !t.is_contiguous() ||
      !t.device().is_cpu()) {
    throw std::invalid_argument(std::string("gemm_bf16: ") + what + " must be a contiguous 2-D " +
                                (dtype == at::kBFloat16 ? "bfloat16" : "float32") + " CPU tensor");
  }
}

}  // namespace

bool bf16_gemm_supported() {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  return isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx;
}

std::string bf16_gemm_isa() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::avx512_core_amx:
      return "avx512_core_amx";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_vnni:
      return "avx512_core_vnni (no bf16)";
    case dnnl::cpu_isa::avx512_core:
      return "avx512_core (no bf16)";
    case dnnl::cpu_isa::avx2:
      return "avx2 (no bf16)";
    default:
      return "an instruction set without bf16";
  }
}

at::Tensor to_bf16(const at::Tensor& x) {
  at::Tensor y;
  if (x.defined()) y = at::empty(x.sizes(), at::TensorOptions().dtype(at::kBFloat16));
  to_bf16_out(x, y);
  return y;
}

void to_bf16_out(const at::Tensor& x, at::Tensor& out) {
  if (!x.defined() || x.scalar_type() != at::kFloat || !x.is_contiguous() || !x.device().is_cpu()) {
    throw std::invalid_argument("to_bf16: x must be a contiguous float32 CPU tensor");
  }
  if (!out.defined() || out.scalar_type() != at::kBFloat16 || !out.is_contiguous() ||
      !out.device().is_cpu() || out.sizes() != x.sizes()) {
    throw std::invalid_argument(
        "to_bf16_out: out must be a contiguous bfloat16 CPU tensor of x's shape");
  }
  round_to_bf16(x.data_ptr<float>(), reinterpret_cast<std::uint16_t*>(out.data_ptr()), x.numel());
}

void gemm_bf16(const at::Tensor& a, bool transpose_a, const at::Tensor& b, bool transpose_b,
               at::Tensor& c, bool accumulate) {
  check_operand(a, at::kBFloat16, "a");
  check_operand(b, at::kBFloat16, "b");
  check_operand(c, at::kFloat, "c");
  const memory::dim m = transpose_a ? a.size(1) : a.size(0);
  const memory::dim k = transpose_a ? a.size(0) : a.size(1);
  const memory::dim kb = transpose_b ? b.size(1) : b.size(0);
  const memory::dim n = transpose_b ? b.size(0) : b.size(1);
  if (k != kb || c.size(0) != m || c.size(1) != n) {
    throw std::invalid_argument("gemm_bf16: shapes do not match: op(a) [" + std::to_string(m) +
                                ", " + std::to_string(k) + "], op(b) [" + std::to_string(kb) +
                                ", " + std::to_string(n) + "], c [" + std::to_string(c.size(0)) +
                                ", " + std::to_string(c.size(1)) + "]");
  }
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (!accumulate) c.zero_();
    return;
  }
  thread_local Primitives p;
  try {
    dnnl::matmul& mm = matmul_for(p, transpose_a, transpose_b, accumulate);
    const memory am({{m, k}, memory::data_type::bf16, tag(transpose_a)}, p.engine, a.data_ptr());
    const memory bm({{k, n}, memory::data_type::bf16, tag(transpose_b)}, p.engine, b.data_ptr());
    const memory cm({{m, n}, memory::data_type::f32, memory::format_tag::ab}, p.engine,
                    c.data_ptr());
    mm.execute(p.stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    p.stream.wait();
  } catch (const dnnl::error& e) {
    throw std::runtime_error("gemm_bf16: oneDNN refused [" + std::to_string(m) + " x " +
                             std::to_string(k) + "] x [" + std::to_string(k) + " x " +
                             std::to_string(n) + "]: " + e.what());
  }
  c.unsafeGetTensorImpl()->bump_version();
}

}  // namespace gfn::core
