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
// (docs/performance.md "Against torchgfn's diffusion sampler"). 8 floats per step with AVX2 and
// FMA where the CPU has them (chosen at load), else the same code 4 floats wide.
//
// Shapes: float32 CPU tensors, contiguous, of any shape; no autograd. Thread-safe (pure).
// Errors: std::invalid_argument for another dtype, a non-contiguous tensor or sizes that differ.

#include <ATen/core/Tensor.h>

namespace gfn::core {

/// out = GELU(x) (out may be a contiguous slice of a larger buffer; x and out may alias).
void exact_gelu_out(const at::Tensor& x, at::Tensor& out);
/// grad * GELU'(x), a new tensor of x's shape.
at::Tensor exact_gelu_backward(const at::Tensor& grad, const at::Tensor& x);

}  // namespace gfn::core
