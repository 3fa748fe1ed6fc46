#pragma once
// density.csv: the learned and the true density of a continuous run (runtime/gfn/continuous/
// validation.h DensityGrid), one row per point of the grid of the first min(d, 2)
// coordinates, read by tools/gfn-plot for distribution.png (the two densities side by side).
// Columns: x0 [, x1] (the grid point), p_learned (KDE of the learned sampler's samples),
// p_target (the same KDE of exact samples of R / Z), p_true (R(x) / Z at the point; "nan" for
// d > 2, where the columns are the marginal of the first two coordinates); each density
// column sums to 1 over the grid. Not thread-safe; written once, at the end, by trainer rank 0
// of the trainer group.

#include <ATen/core/Tensor.h>

#include <string>

namespace gfn::output {

/// Writes `points` float64 [G, k] (k = 1 or 2) and the three densities (float64 [G]) to
/// `path` (overwrites). Cost O(G). Throws std::invalid_argument on inconsistent shapes,
/// std::runtime_error naming the path if it cannot be written.
void write_density_csv(const std::string& path, const at::Tensor& points,
                       const at::Tensor& p_learned, const at::Tensor& p_target,
                       const at::Tensor& p_true);

}  // namespace gfn::output
