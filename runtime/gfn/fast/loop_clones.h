#pragma once
// Fast path (runtime/gfn/fast/): GFN_LOOP_CLONES, the attribute that compiles a plain loop
// for AVX2 as well as the baseline (GCC function multiversioning: the loader picks the clone
// the CPU supports). Why: the project is built for baseline x86-64 (SSE2), where the
// compiler vectorizes these loops 4 floats wide (and spilled a register inside the MLP's
// ReLU-backward loop); the AVX2 clone halves the instructions. A loop marked with it must
// compute the same values in every clone: selects, copies and float additions in the same
// order, no FMA (the avx2 target has none). Users: plain_loops.cc (column sums), the MLP's
// ReLU loops (mlp_forward.cc, mlp_backward.cc, mlp_bf16.cc). Other compilers and targets:
// one plain function.
//
// GFN_WIDEST_LOOPS adds an AVX-512 clone, for loops whose result needs only to agree with
// their reference to float32 rounding, not bit for bit (the AVX-512 clone may contract
// multiply-adds into FMA): the diffusion sampler's bias and GELU-backward passes
// (continuous/pis_network.cc) and PB's step-major log-density (env/diffusion_policies.cc).

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define GFN_LOOP_CLONES __attribute__((target_clones("avx2", "default")))
#define GFN_WIDEST_LOOPS __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define GFN_LOOP_CLONES
#define GFN_WIDEST_LOOPS
#endif
