#pragma once
// Manager-store tables for the tests of runtime/buffer/ (table_test.cc,
// buffer_protocol_parts_test.cc): a ReplayTable with the manager's selectors
// (manager_table_options), empty or holding one-dimensional states 0, 1, 2, ...

#include <cstdint>
#include <vector>

#include "runtime/buffer/table.h"

namespace gfn::buffer::testing {

/// An empty manager table of `capacity` items; `seed` seeds its samplers.
inline ReplayTable manager_table(std::int64_t capacity, std::uint64_t seed) {
  return ReplayTable(manager_table_options(capacity, seed));
}

/// A manager table after one insert of item i = (state {i}, log_rewards[i]) for every i.
inline ReplayTable filled_table(std::int64_t capacity, const std::vector<float>& log_rewards,
                                std::uint64_t seed) {
  ReplayTable t = manager_table(capacity, seed);
  std::vector<std::int64_t> states;
  for (std::size_t i = 0; i < log_rewards.size(); ++i) {
    states.push_back(static_cast<std::int64_t>(i));
  }
  t.add(states, log_rewards, 1);
  return t;
}

}  // namespace gfn::buffer::testing
