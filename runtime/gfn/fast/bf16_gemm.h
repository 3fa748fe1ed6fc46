#pragma once
// Fast path (runtime/gfn/fast/): bfloat16 GEMMs with float32 accumulation and output, for
// the hand-written MLPs (mlp_bf16.h) under `engine.precision: bf16` (engine_options.h). The
// operands are rounded to bfloat16 (8 significant bits), the products are summed in
// float32 and written as float32: the weights, their gradients, the optimizer and the loss
// stay float32 (mixed precision with float32 master weights, as in Kalamkar et al. 2019,
// "A Study of BFLOAT16 for Deep Learning Training"). The GEMMs are oneDNN's matmul
// primitive (Debian's libdnnl, the library LibTorch itself uses for its bf16 matmul):
// AVX512_BF16 instructions; the iterations it speeds up are measured in docs/performance.md
// "bf16 GEMMs (engine.precision: bf16)". The reference is the float32 path (engine.precision:
// fp32); tests/runtime/gfn/fast/bf16_gemm_test.cc compares the two.

#include <ATen/core/Tensor.h>

#include <string>

namespace gfn::core {

/// True if oneDNN runs bf16 matmuls natively on this CPU (AVX512_BF16 or AMX); without it
/// oneDNN would emulate them more slowly than float32. Thread-safe; cost: one query.
bool bf16_gemm_supported();

/// The instruction set oneDNN uses on this CPU, e.g. "avx512_core_bf16" (error messages).
std::string bf16_gemm_isa();

/// x float32 [rows, cols], contiguous CPU -> bfloat16 [rows, cols], each value rounded to
/// the nearest bfloat16 (ties to even; NaN stays NaN, +-inf stays +-inf). Throws
/// std::invalid_argument for another dtype or layout. Cost: one pass over x. Thread-safe.
at::Tensor to_bf16(const at::Tensor& x);

/// to_bf16 into `out`, bfloat16 contiguous CPU of x's shape (e.g. a row range of a larger
/// buffer: row_split.h). Throws std::invalid_argument like to_bf16, or if out does not fit.
/// Thread-safe for distinct outs.
void to_bf16_out(const at::Tensor& x, at::Tensor& out);

/// c = op(a) op(b) (+ c if accumulate), op(m) = m^T if its transpose flag is set:
/// a bfloat16 [M, K] (transpose_a: [K, M]), b bfloat16 [K, N] (transpose_b: [N, K]),
/// both contiguous; c float32 [M, N] contiguous, written in place (read first if
/// accumulate). Products are summed in float32 (oneDNN; the summation order is the
/// library's, not OpenBLAS's). Throws std::invalid_argument on a dtype, shape or layout
/// mismatch and std::runtime_error if oneDNN refuses (message names the shapes).
/// Blocking; runs on the calling thread and oneDNN's OpenMP threads (at::set_num_threads).
/// Thread-safe (a primitive cache per thread). Cost: 2 M N K FLOPs; the first call per
/// (transposes, accumulate) on a thread creates a oneDNN primitive (~1 ms).
void gemm_bf16(const at::Tensor& a, bool transpose_a, const at::Tensor& b, bool transpose_b,
               at::Tensor& c, bool accumulate);

}  // namespace gfn::core
