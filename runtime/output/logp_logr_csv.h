#pragma once
// logp_logr.csv: the BitSequence test set's learned log p_theta(x) and log R(x), the pairs
// behind summary.json's spearman_logp_logr (runtime/gfn/validation.h, TB paper metric),
// read by tools/gfn-plot for its Spearman scatter. One row per test sequence, in test-set
// order; columns log_p, log_r (natural log). Not thread-safe; written once, at the last
// validation, by trainer rank 0 of the trainer group.

#include <ATen/core/Tensor.h>

#include <string>

namespace gfn::output {

/// Writes `log_p` and `log_r` (float64 or float32 [n]) to `path` (overwrites). Cost O(n).
/// Throws std::invalid_argument when they are not two 1-D tensors of one length,
/// std::runtime_error naming the path if it cannot be written.
void write_logp_logr_csv(const std::string& path, const at::Tensor& log_p, const at::Tensor& log_r);

}  // namespace gfn::output
