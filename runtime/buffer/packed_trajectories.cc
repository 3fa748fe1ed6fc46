#include "runtime/buffer/packed_trajectories.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gfn::buffer {

PackedTrajectories PackedTrajectories::from_sequences(
    const std::vector<std::vector<std::int64_t>>& seqs) {
  PackedTrajectories t;
  t.lengths.reserve(seqs.size());
  for (const auto& s : seqs) t.append(s.data(), static_cast<std::int32_t>(s.size()));
  return t;
}

std::vector<std::size_t> PackedTrajectories::offsets() const {
  std::vector<std::size_t> out(lengths.size() + 1, 0);
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    out[i + 1] = out[i] + static_cast<std::size_t>(lengths[i]);
  }
  return out;
}

std::vector<std::int64_t> PackedTrajectories::sequence(std::int64_t i) const {
  std::size_t start = 0;
  for (std::int64_t k = 0; k < i; ++k) start += static_cast<std::size_t>(lengths[k]);
  const auto first = actions.begin() + static_cast<std::ptrdiff_t>(start);
  return {first, first + lengths[static_cast<std::size_t>(i)]};
}

void check_packed_trajectories(const PackedTrajectories& t, std::int64_t n, std::int64_t n_actions,
                               bool allow_missing, const std::string& what) {
  const auto& lengths = t.lengths;
  const auto& actions = t.actions;
  if (lengths.empty()) {
    if (!actions.empty()) {
      throw std::invalid_argument(
          fmt::format("{}: {} actions but no trajectory lengths", what, actions.size()));
    }
    return;
  }
  if (static_cast<std::int64_t>(lengths.size()) != n) {
    throw std::invalid_argument(
        fmt::format("{}: {} trajectory lengths for {} items", what, lengths.size(), n));
  }
  std::size_t offset = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t len = lengths[static_cast<std::size_t>(i)];
    if (len < 0 || (len == 0 && !allow_missing)) {
      throw std::invalid_argument(
          fmt::format("{}: trajectory {} has length {} (must be >= 1)", what, i, len));
    }
    if (offset + static_cast<std::size_t>(len) > actions.size()) {
      throw std::invalid_argument(fmt::format(
          "{}: trajectory lengths add up to more than the {} actions sent", what, actions.size()));
    }
    if (n_actions > 0) {
      for (std::int32_t k = 0; k < len; ++k) {
        const std::int64_t a = actions[offset + static_cast<std::size_t>(k)];
        if (a < 0 || a >= n_actions) {
          throw std::invalid_argument(fmt::format(
              "{}: trajectory {} step {}: action {} outside [0, {})", what, i, k, a, n_actions));
        }
        const bool exit = a == n_actions - 1;
        if (exit != (k == len - 1)) {
          throw std::invalid_argument(fmt::format(
              "{}: trajectory {} step {}: {} (the exit action {} must come last, exactly once)",
              what, i, k, exit ? "exit before the end" : "no exit at the end", n_actions - 1));
        }
      }
    }
    offset += static_cast<std::size_t>(len);
  }
  if (offset != actions.size()) {
    throw std::invalid_argument(
        fmt::format("{}: trajectory lengths add up to {}, but {} actions were sent", what, offset,
                    actions.size()));
  }
}

}  // namespace gfn::buffer
