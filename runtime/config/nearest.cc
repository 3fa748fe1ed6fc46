#include "runtime/config/nearest.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace gfn::config {
namespace {

/// What follows the last dot of `name` (all of it without a dot).
std::string last_part(const std::string& name) {
  const std::size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

}  // namespace

std::size_t edit_distance(const std::string& a, const std::string& b) {
  // One row of the dynamic programme: row[j] = distance(a[0, i), b[0, j)).
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];  // distance(a[0, i-1), b[0, j-1))
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
    }
  }
  return row[b.size()];
}

std::vector<std::string> nearest_names(const std::string& name,
                                       const std::vector<std::string>& candidates,
                                       std::size_t at_most) {
  const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
  const bool dotted = name.find('.') != std::string::npos;
  std::vector<std::pair<std::size_t, std::size_t>> close;  // (distance, index)
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    std::size_t d = edit_distance(name, candidates[i]);
    if (dotted && last_part(name) == last_part(candidates[i])) d = std::min<std::size_t>(d, 1);
    if (d <= limit) close.emplace_back(d, i);
  }
  std::sort(close.begin(), close.end());  // by distance, then candidate order
  std::vector<std::string> out;
  for (std::size_t k = 0; k < close.size() && k < at_most; ++k) {
    if (close[k].first > close[0].first + 1) break;  // far behind the nearest
    out.push_back(candidates[close[k].second]);
  }
  return out;
}

}  // namespace gfn::config
