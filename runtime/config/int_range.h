#pragma once
// An inclusive integer range, the value type of options written as a list of two integers
// (YAML `[min, max]`, e.g. spawn.age_range). Header-only, no dependency.

#include <cstdint>

namespace gfn::config {

struct IntRange {
  std::int64_t min = 0;
  std::int64_t max = 0;
  bool operator==(const IntRange& o) const { return min == o.min && max == o.max; }
};

}  // namespace gfn::config
