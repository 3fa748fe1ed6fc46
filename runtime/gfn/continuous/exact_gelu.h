#pragma once
// The exact (erf) GELU of torch.nn.GELU() (approximate "none"; the PISGradNet's activation,
// pis_network.h) and its derivative as plain vectorized loops, for the reuse of diffusion's
// sampling forward (PisNetwork::step_drift_saved, saved_forward): GELU(x) = x Phi(x),
// Phi(x) = (1 + erf(x / sqrt 2)) / 2, GELU'(x) = Phi(x) + x exp(-x^2 / 2) / sqrt(2 pi).
// erf is Abramowitz & Stegun 7.1.26 (the formula of ATen's own vectorized erf; absolute error
// <= 1.5e-7) with a Cephes-style exp, so the values equal at::gelu / at::gelu_backward to
// float32 rounding (|difference| <= 1e-6 (1 + |value|), tested,
// tests/runtime/gfn/env/diffusion_test.cc). Why: LibTorch 1.13's CPU GELU goes
// through oneDNN, which costs ~50 us of set-up per call on the sampler's [200, 64] steps
// (docs/performance.md "Against torchgfn's diffusion sampler"). 16 floats per step with AVX-512,
// else 8 with AVX2 and FMA, where the CPU has them (chosen on first use), else the same code
// in SSE2 halves. exact_gelu_slope_out also stores GELU'(x) for the saved forward's backward,
// which then costs one multiplication per value instead of a second erf.
//
// Cost: ~0.5-1.2 ns per value and pass on this machine (AVX-512 / AVX2).
// Shapes: float32 CPU tensors, contiguous, of any shape; no autograd. Thread-safe (pure).
// Errors: std::invalid_argument for another dtype, a non-contiguous tensor or sizes that differ.

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace gfn::core {

/// Which loop runs: kBest is the widest the CPU has; the others are for the tests, which run
/// every loop the CPU has (std::invalid_argument for one it lacks).
enum class GeluLoop { kBest, kBaseline, kAvx2, kAvx512 };
bool exact_gelu_loop_available(GeluLoop loop);

/// out = GELU(x) (out may be a contiguous slice of a larger buffer; x and out may alias).
void exact_gelu_out(const at::Tensor& x, at::Tensor& out, GeluLoop loop = GeluLoop::kBest);
/// out = GELU(x) and slope = GELU'(x) in one pass (either may alias x, not each other).
void exact_gelu_slope_out(const at::Tensor& x, at::Tensor& out, at::Tensor& slope,
                          GeluLoop loop = GeluLoop::kBest);
/// exact_gelu_slope_out on raw float32 arrays of n values (the fused sampler's step,
/// PisNetwork::step_drift_saved, without a tensor view per call): out[i] = GELU(x[i]),
/// slope[i] = GELU'(x[i]); out or slope may alias x, not each other. No checks beyond n >= 0.
void exact_gelu_slope(const float* x, float* out, float* slope, std::int64_t n,
                      GeluLoop loop = GeluLoop::kBest);

}  // namespace gfn::core
