// The scorer's fast novelty (the buffer's nearest-neighbour index) returns the same
// ScoreBreakdown as the brute-force reference, over random buffer histories: ndim 1-8,
// p = 1, 2, 3, small grids (many exact duplicates and distance ties), tied and non-finite
// log rewards, and capacities small enough that batches evict earlier ones.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>
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

RC_GTEST_PROP(ScorerProperty, IndexNoveltyEqualsBruteForceReference, ()) {
  const int ndim = *rc::gen::inRange(1, 9);
  const int height = *rc::gen::inRange(1, 9);
  const double p = *rc::gen::element(1.0, 2.0, 3.0);
  const auto capacity = *rc::gen::inRange<std::int64_t>(1, 200);
  const int n_batches = *rc::gen::inRange(1, 25);
  ModesScorerOptions options;
  options.p_norm = p;
  options.novelty = NoveltyMethod::kIndex;
  ModesScorer fast(options);
  options.novelty = NoveltyMethod::kBruteForce;
  options.cdist_max_bytes = *rc::gen::element<std::size_t>(1, 64, 1 << 20);  // chunking too
  ModesScorer reference(options);
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

}  // namespace
}  // namespace gfn::buffer
