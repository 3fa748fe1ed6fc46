#include "tools/gfn-transport-bench/sizes.h"

#include <stdexcept>
#include <string>

namespace gfn::tbench {

double one_way_gbps(std::size_t bytes, double round_trip_us) {
  if (round_trip_us <= 0) return 0;
  return static_cast<double>(bytes) / (round_trip_us * 1e-6 / 2.0) / 1e9;
}

std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes,
                                     std::size_t factor) {
  if (min_bytes < 1) throw std::invalid_argument("sweep: minimum size must be >= 1 byte");
  if (max_bytes < min_bytes) {
    throw std::invalid_argument("sweep: maximum size " + std::to_string(max_bytes) +
                                " is below the minimum " + std::to_string(min_bytes));
  }
  if (factor < 2) throw std::invalid_argument("sweep: step factor must be >= 2");
  std::vector<std::size_t> sizes;
  for (std::size_t s = min_bytes; s <= max_bytes; s *= factor) {
    sizes.push_back(s);
    if (s > max_bytes / factor) break;  // the next step would overflow or pass max
  }
  return sizes;
}

}  // namespace gfn::tbench
