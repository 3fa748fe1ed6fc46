#pragma once
// Fast path (runtime/gfn/fast/): the per-transition rows of the saved sampling outputs
// (saving_sampler.h), values.index_select(0, rows), with a backward split over threads.
//
// Why: index_select's backward is index_add_ into the distinct rows, one serial loop in ATen
// over every transition (HyperGrid 8-D batch 1024: ~14,000 rows of 17 logits, ~0.4 ms per
// head per iteration on one thread, whatever train.num_threads is). Here the distinct rows are
// split into ranges (row_split.h); each thread scans every transition and adds those that land
// in its range, in increasing transition order: per distinct row the same additions in the
// same order as index_add_, so the same gradient bit for bit
// (tests/runtime/gfn/fast/gather_rows_test.cc).

#include <ATen/core/Tensor.h>

namespace gfn::core {

/// values.index_select(0, rows), differentiable w.r.t. values like index_select: values
/// float32 [M] or [M, C] (CPU), rows int64 [N] with entries in [0, M). The backward adds
/// each row's gradient into its source row with the source rows split over `threads`
/// threads (run_row_parts, row_split.h; one thread below ~32,768 gradient values), the
/// same values as index_select's backward. Forward cost: one index_select; backward: one
/// [M, C] zero fill, N index reads per thread and N * C additions in all. Throws
/// std::invalid_argument for threads < 1, and what index_select throws for bad rows.
at::Tensor gather_rows(const at::Tensor& values, const at::Tensor& rows, int threads);

}  // namespace gfn::core
