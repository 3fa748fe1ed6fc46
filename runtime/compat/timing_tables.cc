#include "runtime/compat/timing_tables.h"

#include <stdexcept>
#include <unordered_set>

namespace gfn::compat {

timing::TimingTable timing_table_from_steps(
    const std::vector<std::pair<std::string, std::vector<double>>>& steps) {
  std::size_t iterations = 0;
  const std::string* first = nullptr;
  std::unordered_set<std::string> names;
  for (const auto& [name, durations] : steps) {
    if (!names.insert(name).second) {
      throw std::invalid_argument("timing_table_from_steps: step '" + name + "' given twice");
    }
    if (durations.empty()) continue;
    if (first == nullptr) {
      first = &name;
      iterations = durations.size();
    } else if (durations.size() != iterations) {
      throw std::invalid_argument("timing_table_from_steps: step '" + name + "' has " +
                                  std::to_string(durations.size()) + " iterations, step '" +
                                  *first + "' has " + std::to_string(iterations));
    }
  }
  timing::TimingTable table;
  for (std::size_t it = 0; it < iterations; ++it) {
    table.begin_iteration();
    for (const auto& [name, durations] : steps) {
      if (durations.empty()) continue;
      try {
        table.add(name, durations[it]);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("timing_table_from_steps: step '" + name + "' iteration " +
                                    std::to_string(it) + ": " + e.what());
      }
    }
  }
  return table;
}

}  // namespace gfn::compat
