#pragma once
// Optional per-row dynamics of an Environment (environment.h, row_dynamics()): the batched
// forward_masks, step_unchecked and unique of one state row as plain C++ on int64 values, for
// the fused sampler (runtime/gfn/fast/fused_sampler.h), whose per-step bookkeeping is then a
// loop over the running rows instead of ~25 ATen calls per step (each ~5-30 us whatever the
// row count). An environment offers them when a state row and its moves are cheap scalar
// code (HyperGrid); the fused sampler is tested against the batched members
// (tests/runtime/gfn/fast/fused_sampler_test.cc), so both must describe the same DAG.
// Implementations are immutable: every member may be called concurrently. No LibTorch.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace gfn::core {

class RowDynamics {
 public:
  virtual ~RowDynamics() = default;

  /// mask[0, n_actions): the row of forward_masks(state) (exit in the last entry) for one state
  /// (state_dim int64 values). Cost O(state_dim).
  virtual void forward_mask(const std::int64_t* state, bool* mask) const = 0;
  /// Applies the allowed, non-exit forward action to `state` in place: the row of
  /// step_unchecked. No validation (the caller drew the action from forward_mask).
  virtual void step(std::int64_t* state, std::int64_t action) const = 0;
  /// A key of the state: equal keys iff equal states, and Environment::unique lists its
  /// distinct rows in increasing key order (HyperGrid: the state index). The fused sampler
  /// evaluates the network on the distinct rows in that order, so its GEMMs see the same rows
  /// in the same order as the reference sampler's.
  virtual std::int64_t key(const std::int64_t* state) const = 0;
};

/// The distinct states among m rows (state_dim = d int64 values each, row-major at `rows`) by
/// their keys: fills first[u] with the lowest row holding the u-th distinct key in increasing
/// key order (the order Environment::unique lists rows in) and inverse[i] = u for row i (m
/// values). `keyed` is scratch, kept by the caller so its capacity survives. Used by the fused
/// sampler and Environment::unique. Cost: m keys and one sort, O(m log m).
inline void group_rows(const RowDynamics& dynamics, const std::int64_t* rows, std::int64_t m,
                       std::int64_t d, std::vector<std::pair<std::int64_t, std::int64_t>>& keyed,
                       std::vector<std::int64_t>& first, std::int64_t* inverse) {
  keyed.resize(static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i) keyed[i] = {dynamics.key(rows + i * d), i};
  std::sort(keyed.begin(), keyed.end());
  first.clear();
  for (std::size_t j = 0; j < keyed.size(); ++j) {
    if (j == 0 || keyed[j].first != keyed[j - 1].first) first.push_back(keyed[j].second);
    inverse[keyed[j].second] = static_cast<std::int64_t>(first.size()) - 1;
  }
}

}  // namespace gfn::core
