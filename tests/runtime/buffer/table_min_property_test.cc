// ReplayTable::min_log_reward (answered by the lowest-reward remover's order in the manager's
// table and the prioritized local one, by a scan otherwise) equals the minimum over every
// stored row, over random insert histories: tied rewards, -inf and NaN where the table
// refuses them, capacities small enough that inserts evict and are refused.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/buffer/packed_trajectories.h"
#include "runtime/buffer/table.h"

namespace gfn::buffer {
namespace {

/// min over the live rows, read one by one (the reference).
float scanned_min(const ReplayTable& t) {
  float m = std::numeric_limits<float>::infinity();
  for (Slot s = 0; s < t.size(); ++s) m = std::min(m, t.log_reward(s));
  return m;
}

void check_history(ReplayTable table, bool non_finite) {
  const int n_batches = *rc::gen::inRange(1, 30);
  for (int b = 0; b < n_batches; ++b) {
    const int n = *rc::gen::inRange(0, 20);
    std::vector<std::int64_t> states;
    std::vector<float> log_rewards;
    PackedTrajectories trajectories;  // one action each (local tables require them)
    const std::int64_t action = 0;
    for (int i = 0; i < n; ++i) {
      trajectories.append(&action, 1);
      states.push_back(*rc::gen::inRange(0, 50));
      const int level = *rc::gen::inRange(non_finite ? -1 : 0, 8);
      log_rewards.push_back(level < 0 ? -std::numeric_limits<float>::infinity()
                                      : 0.25f * static_cast<float>(level) - 1.f);
    }
    table.add(states, log_rewards, 1, trajectories);
    if (table.empty()) continue;
    RC_ASSERT(table.min_log_reward() == scanned_min(table));
  }
}

RC_GTEST_PROP(TableMinimum, ManagerTableEqualsTheScan, ()) {
  const auto capacity = *rc::gen::inRange<std::int64_t>(1, 40);
  check_history(ReplayTable(manager_table_options(capacity, 1)), /*non_finite=*/true);
}

RC_GTEST_PROP(TableMinimum, LocalTablesEqualTheScan, ()) {
  const auto kind = *rc::gen::element(
      buffer::ReplayKind::kUniform, buffer::ReplayKind::kPrioritized, buffer::ReplayKind::kDiverse);
  const auto capacity = *rc::gen::inRange<std::int64_t>(1, 40);
  check_history(ReplayTable(local_table_options(kind, capacity, 1.0, 2.0, 1)),
                /*non_finite=*/false);
}

}  // namespace
}  // namespace gfn::buffer
