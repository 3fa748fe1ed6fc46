// The scorer's fast novelty (the buffer's nearest-neighbour index) returns the same
// ScoreBreakdown as the brute-force reference, over random buffer histories: ndim 1-8,
// p = 1, 2, 3, small grids (many exact duplicates and distance ties), tied and non-finite
// log rewards, and capacities small enough that batches evict earlier ones. The same for
// float32 rows (continuous environments): random points of [0, 1)^ndim snapped to a coarse
// grid part of the time (exact duplicates, -0 next to +0) and evicted as above.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "runtime/buffer/scorer.h"
#include "runtime/buffer/table.h"

namespace gfn::buffer {
namespace {

struct Batch {
  std::vector<std::int64_t> states;
  std::vector<float> log_rewards;
};

Batch random_batch(int ndim, int height) {
  const int n = *rc::gen::inRange(0, 48);
  Batch b;
  for (int i = 0; i < n * ndim; ++i) b.states.push_back(*rc::gen::inRange(0, height));
  for (int i = 0; i < n; ++i) {
    // Few distinct values (ties at the eviction threshold), sometimes -inf (refused).
    const int level = *rc::gen::inRange(-1, 6);
    b.log_rewards.push_back(level < 0 ? -std::numeric_limits<float>::infinity()
                                      : 0.5f * static_cast<float>(level));
  }
  return b;
}

void expect_same(const ScoreBreakdown& fast, const ScoreBreakdown& ref) {
  RC_ASSERT(fast.retained == ref.retained);
  RC_ASSERT(fast.new_modes == ref.new_modes);
  RC_ASSERT(fast.reward_sum == ref.reward_sum);
  const double tol = 1e-6 * std::max(1.0, std::abs(ref.novelty_sum));
  RC_ASSERT(std::abs(fast.novelty_sum - ref.novelty_sum) <= tol);
  RC_ASSERT(std::abs(fast.score - ref.score) <= 1e-6 * std::max(1.0, std::abs(ref.score)));
}

/// The index scorer and the brute-force reference, of a random p in {1, 2, 3} (the
/// reference with a random chunk size, 1 byte to 1 MiB: chunking too).
std::pair<ModesScorer, ModesScorer> scorer_pair() {
  ModesScorerOptions options;
  options.p_norm = *rc::gen::element(1.0, 2.0, 3.0);
  options.novelty = NoveltyMethod::kIndex;
  ModesScorer fast(options);
  options.novelty = NoveltyMethod::kBruteForce;
  options.cdist_max_bytes = *rc::gen::element<std::size_t>(1, 64, 1 << 20);
  return {fast, ModesScorer(options)};
}

RC_GTEST_PROP(ScorerProperty, IndexNoveltyEqualsBruteForceReference, ()) {
  const int ndim = *rc::gen::inRange(1, 9);
  const int height = *rc::gen::inRange(1, 9);
  const auto capacity = *rc::gen::inRange<std::int64_t>(1, 200);
  const int n_batches = *rc::gen::inRange(1, 25);
  auto [fast, reference] = scorer_pair();
  ReplayTable buffer(manager_table_options(capacity, 0));
  for (int b = 0; b < n_batches; ++b) {
    const auto batch = random_batch(ndim, height);
    const BatchView view{batch.states, batch.log_rewards, ndim};
    const auto new_modes = *rc::gen::inRange<std::int64_t>(0, 3);
    expect_same(fast.score(view, buffer, new_modes), reference.score(view, buffer, new_modes));
    buffer.add(batch.states, batch.log_rewards, ndim);
    RC_ASSERT(buffer.index().size() == buffer.size());
  }
}

struct FloatBatch {
  std::vector<float> states;
  std::vector<float> log_rewards;
};

FloatBatch random_float_batch(int ndim, bool snapped) {
  const int n = *rc::gen::inRange(0, 48);
  FloatBatch b;
  for (int i = 0; i < n * ndim; ++i) {
    const int v = *rc::gen::inRange(0, 1 << 20);
    // Snapped: 4 values per dimension (many duplicates; 0 sometimes as -0).
    const float x = snapped ? 0.25f * static_cast<float>(v % 4) : static_cast<float>(v) / (1 << 20);
    b.states.push_back(snapped && v % 8 == 0 ? -0.0f : x);
  }
  for (int i = 0; i < n; ++i) {
    b.log_rewards.push_back(0.5f * static_cast<float>(*rc::gen::inRange(0, 6)));
  }
  return b;
}

RC_GTEST_PROP(ScorerProperty, FloatRowsIndexNoveltyEqualsBruteForceReference, ()) {
  const int ndim = *rc::gen::inRange(1, 6);
  const bool snapped = *rc::gen::arbitrary<bool>();
  const auto capacity = *rc::gen::inRange<std::int64_t>(1, 200);
  const int n_batches = *rc::gen::inRange(1, 20);
  auto [fast, reference] = scorer_pair();
  ReplayTable buffer(manager_table_options(capacity, 0));
  const std::vector<std::int64_t> no_int_rows;
  for (int b = 0; b < n_batches; ++b) {
    const auto batch = random_float_batch(ndim, snapped);
    const BatchView view{no_int_rows, batch.log_rewards, ndim, &batch.states};
    expect_same(fast.score(view, buffer, 0), reference.score(view, buffer, 0));
    buffer.add_float(batch.states, batch.log_rewards, ndim);
    RC_ASSERT(buffer.index().size() == buffer.size());
    RC_ASSERT(buffer.empty() || buffer.state_dtype() == StateDtype::kFloat32);
  }
}

}  // namespace
}  // namespace gfn::buffer
