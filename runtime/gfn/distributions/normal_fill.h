#pragma once
// N(0, 1) draws into a float32 tensor, the same values and the same generator state afterwards
// as ATen's `t.normal_(0, 1, generator)` (LibTorch 1.13, CPU), at about 2.5x its speed: the
// noise of every diffusion step (runtime/gfn/env/diffusion_policies.cc, DiffusionForwardPolicy::
// draw_step) is 6,400 draws at ManyWell's batch 200 x d 32, 32 times per iteration.
//
// What ATen does for a contiguous float32 tensor of n >= 16 values (its normal_fill_AVX2 in
// ATen/native/cpu/DistributionTemplates.h, the kernel of the AVX2 capability): n uniforms
// u = (y & (2^24 - 1)) 2^-24, one 32-bit output y of the generator's MT19937 each, each through
// a virtual CPUGeneratorImpl::random() call (~3.5 ns per draw here), then Box-Muller on each block
// of 16 (u[j], u[j + 8]), with the vectorized log and sincos of avx_mathfun.h; if 16 does not
// divide n, 16 fresh uniforms and Box-Muller once more overwrite the last 16 values. Here the same
// MT19937 (at::mt19937's state, copied out of the generator and written back) is advanced in bulk:
// the twist of all 624 words without a branch, the tempering of a run of words in one loop; the
// Box-Muller blocks are ATen's, with avx_mathfun.h's functions (normal_fill_avx2.cc).
//
// ATen's result depends on the kernel its dispatcher picked (AVX2; the DEFAULT and AVX-512
// kernels use scalar libm). The first call checks, once per process, that this loop gives ATen's
// bits on a few thousand draws of a generator of its own; if not (another capability, e.g.
// ATEN_CPU_CAPABILITY=default, a CPU without AVX2 and FMA, or another LibTorch), every call
// runs `t.normal_(0, 1, generator)` itself. Other tensors (not float32, not contiguous, not CPU,
// fewer than 16 values, requiring grad) and an undefined generator take ATen's op too.
//
// Thread-safety: holds the generator's mutex while drawing, like ATen. Cost: O(n), ~1.5 ns per
// value on the 2-vCPU Xeon (ATen's: ~3.6-6 ns); no allocation. Errors: ATen's.
// Tests: tests/runtime/gfn/distributions/normal_fill_test.cc (bit-identical to ATen's normal_,
// also under ATEN_CPU_CAPABILITY=default).

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

namespace gfn::distributions {

/// t = N(0, 1) draws from generator, in place; t.normal_(0.0, 1.0, generator)'s result.
void normal_fill(const at::Tensor& t, at::Generator& generator);

/// Whether normal_fill draws with its own loop in this process (false: ATen's normal_).
/// Decided at the first call (of either function) and fixed afterwards.
bool normal_fill_is_inline();

}  // namespace gfn::distributions
