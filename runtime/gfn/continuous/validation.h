#pragma once
// Validation of a GFlowNet on a continuous environment: the Jensen-Shannon divergence between
// two distributions known by samples (torchgfn tutorials/examples/train_box.py, estimate_jsd:
// the learned sampler's terminating states against exact samples of R / Z,
// ContinuousEnvironment::sample_target). Each sample set becomes a kernel density estimate
// with the exponential kernel exp(-|x - x_i| / bandwidth) (Euclidean norm; scikit-learn's
// KernelDensity(kernel="exponential", bandwidth=0.1)), evaluated on a grid and normalised over
// the grid's points into a distribution p (resp. q); then
//   JSD = (KL(p || m) + KL(q || m)) / 2, m = (p + q) / 2   (natural log, in [0, log 2]).
// The grid is train_box.py's: grid_points values per coordinate from grid_low to grid_high
// (numpy linspace), all their combinations (100 x 100 points on [0.001, 1]^2).
//
// Cost: O(grid_points^d * (n_a + n_b) * d) in float64, in chunks of 256 grid points
// (10,000 grid points against 10,000 samples: ~1e8 kernel terms, about a second on one
// core). Pure functions; thread-safe. Errors: std::invalid_argument for empty or
// mismatched sample sets, bandwidth <= 0, grid_points < 2 or grid_low >= grid_high.

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace gfn::core {

class ContinuousEnvironment;

struct KdeJsdOptions {
  double bandwidth = 0.1;          ///< > 0
  std::int64_t grid_points = 100;  ///< per coordinate, >= 2
  double grid_low = 0.001;
  double grid_high = 1.0;
};

/// The grid: float64 [grid_points^d, d], the first coordinate varying fastest.
at::Tensor kde_grid(std::int64_t dim, const KdeJsdOptions& options);

/// log sum_i exp(-|p - x_i| / bandwidth) of every point p: float64 [G] for points [G, d] and
/// samples [n, d] (any floating dtype): the KDE's log-density up to an additive constant.
at::Tensor kde_log_density(const at::Tensor& samples, const at::Tensor& points, double bandwidth);

/// The Wasserstein-1 distance between the empirical distributions of two 1-D sample sets
/// [n_a, 1] and [n_b, 1] (any floating dtype), the integral of |F_a(x) - F_b(x)| over x
/// (scipy.stats.wasserstein_distance), exact on the merged sorted samples in float64.
/// Cost: O((n_a + n_b) log(n_a + n_b)). Throws std::invalid_argument for empty sets or
/// another shape.
double wasserstein_1d(const at::Tensor& samples_a, const at::Tensor& samples_b);

/// The grid validation uses for `env`: train_box.py's options on env.target_range() (Box:
/// [0.001, 1]), with 1000 points per coordinate for a 1-D target (Line's x: spacing 0.0135 on
/// torchgfn's default range, below its KDE bandwidth 0.1).
KdeJsdOptions target_grid(const ContinuousEnvironment& env);

/// The Jensen-Shannon divergence of the two sample sets' KDEs on the grid (above); samples
/// [n_a, d] and [n_b, d].
double kde_jensen_shannon(const at::Tensor& samples_a, const at::Tensor& samples_b,
                          const KdeJsdOptions& options = {});

/// The densities tools/gfn-plot draws for a continuous run (density.csv,
/// runtime/output/density_csv.h), on the grid of the first k = min(d, 2) target coordinates
/// (ContinuousEnvironment::target_coordinates, d of them; kde_grid(k, options):
/// train_box.py's 100 x 100 grid for d >= 2), each normalised to sum
/// 1 over the grid (a probability per grid point, so the three share one colour scale).
struct DensityGrid {
  at::Tensor points;        ///< float64 [G, k]
  at::Tensor learned;       ///< float64 [G]: KDE of the learned sampler's samples (their first k
                            ///< coordinates: the marginal for d > 2)
  at::Tensor target;        ///< float64 [G]: the same KDE of exact samples of R / Z (the pair the
                            ///< JSD compares when d <= 2)
  at::Tensor true_density;  ///< float64 [G]: R(x) / Z at the points for d <= 2; NaN for d > 2
                            ///< (no marginal in closed form)
};

/// DensityGrid of `learned` and `target` terminating states float32 [n, dim] of `env` (which
/// must have a target: ContinuousEnvironment::has_target), on target_grid(env) unless
/// `options` are given. Cost: two kde_log_density calls on
/// grid_points^k points, plus env.log_density on them. Throws std::invalid_argument for
/// empty or mismatched sample sets (width != env.dim()), and what kde_grid throws;
/// std::domain_error from an environment without a target.
DensityGrid density_grid(const ContinuousEnvironment& env, const at::Tensor& learned,
                         const at::Tensor& target);
DensityGrid density_grid(const ContinuousEnvironment& env, const at::Tensor& learned,
                         const at::Tensor& target, const KdeJsdOptions& options);

}  // namespace gfn::core
