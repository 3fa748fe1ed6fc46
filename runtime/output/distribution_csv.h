#pragma once
// distribution.csv: the learned and the true terminating-state distribution of an
// enumerable environment, one row per terminating state (terminating-index order,
// runtime/gfn/env/environment.h), read by tools/gfn-plot for its distribution plot.
// Columns: x0 .. x{d-1} (the state), p_learned (the exact distribution of PF,
// runtime/gfn/validation.h terminating_distribution), p_true (R(x) / Z).
// Not thread-safe; written once, at the end, by trainer rank 0 of the trainer group.

#include <ATen/core/Tensor.h>

#include <string>

namespace gfn::output {

/// Writes `states` int64 [T, d], `p_learned` and `p_true` (float64 or float32 [T]) to
/// `path` (overwrites). Cost O(T d). Throws std::invalid_argument on inconsistent shapes,
/// std::runtime_error naming the path if it cannot be written.
void write_distribution_csv(const std::string& path, const at::Tensor& states,
                            const at::Tensor& p_learned, const at::Tensor& p_true);

}  // namespace gfn::output
