#pragma once
// log N(a; mean dt, scale^2 I) of each row, the per-move log-density of diffusion's forward
// policy (runtime/gfn/env/diffusion_policies.h, DiffusionForwardPolicy::move_log_prob; torchgfn's
// gfn/gym/diffusion_sampling.py PF): sum_i log N(a_i; f_i dt, scale^2)
//   = -|a - f dt|^2 / (2 scale^2) - d (log scale + log(2 pi) / 2),
// with one autograd node whose forward and backward are one pass each over the R d values
// (d lp / d f = grad (a - f dt) dt / scale^2), in place of the five tensor operations of the
// plain formula and their five backward functions. The plain formula is
// isotropic_normal_rows_plain (the reference the fused node is tested on,
// tests/runtime/gfn/distributions/isotropic_normal_rows_test.cc).
//
// Shapes: a float32 [R, d] (unit column stride; no gradient flows to it), drift f float32
// [R, d] contiguous (differentiable); returns float32 [R]. Other dtypes or layouts, or an a
// that requires grad, take the plain formula. dt and scale > 0 (not checked).
// Cost: O(R d), two passes (forward, backward); stores a - f dt for the backward.
// Thread-safety: pure. Errors: std::invalid_argument unless a and f are [R, d] alike.

#include <ATen/core/Tensor.h>

namespace gfn::distributions {

at::Tensor isotropic_normal_rows(const at::Tensor& a, const at::Tensor& drift, double dt,
                                 double scale);
/// The same by ATen operations (the reference).
at::Tensor isotropic_normal_rows_plain(const at::Tensor& a, const at::Tensor& drift, double dt,
                                       double scale);

}  // namespace gfn::distributions
