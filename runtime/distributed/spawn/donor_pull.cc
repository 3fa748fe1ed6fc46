#include "runtime/distributed/spawn/donor_pull.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

#include "runtime/distributed/spawn/decision.h"

namespace gfn::dist::spawn {
namespace {

/// One generator per (seed, draw, purpose), so that draws do not depend on each other.
std::mt19937_64 generator(std::uint64_t seed, std::int64_t draw, std::uint64_t purpose) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(draw), static_cast<std::uint32_t>(purpose)};
  return std::mt19937_64(seq);
}

double ordered(double m) { return std::isnan(m) ? -std::numeric_limits<double>::infinity() : m; }

}  // namespace

std::int64_t draw_max_age(const SpawnOptions& options, std::uint64_t seed, std::int64_t draw) {
  const auto& r = options.age_range;
  if (r.min < 1 || r.max < r.min) {
    throw std::invalid_argument("spawn.age_range must be [min, max] with 1 <= min <= max, got [" +
                                std::to_string(r.min) + ", " + std::to_string(r.max) + "]");
  }
  auto gen = generator(seed, draw, 0xa6e);
  return std::uniform_int_distribution<std::int64_t>(r.min, r.max)(gen);
}

bool is_dying(const DyingInput& in, int group_size, const SpawnOptions& options) {
  if (group_size <= 1) return false;
  const std::int64_t age = in.iteration - in.last_respawn;
  switch (options.replacement_mode) {
    case SpawnReplacementMode::kAge:
      return age >= in.max_age;
    case SpawnReplacementMode::kThreshold:
      if (in.last_respawn > 0 && age < options.cooldown) return false;
      return !(in.metric >= options.threshold);
    case SpawnReplacementMode::kWorstRatio: {
      if (in.group_rank < 0 || static_cast<std::size_t>(in.group_rank) >= in.group_metrics.size()) {
        throw std::invalid_argument("donor_pull worst_ratio: no metric for group rank " +
                                    std::to_string(in.group_rank));
      }
      if (in.last_respawn > 0 && age < options.cooldown) return false;
      const auto& m = in.group_metrics;
      const int n = static_cast<int>(m.size());
      // Members ordered worse than this one: (metric, rank) below (mine, my rank).
      const double mine = ordered(m[static_cast<std::size_t>(in.group_rank)]);
      int worse = 0;
      for (int r = 0; r < n; ++r) {
        const double o = ordered(m[static_cast<std::size_t>(r)]);
        if (o < mine || (o == mine && r < in.group_rank)) ++worse;
      }
      return worse < replacement_count(n, options.replacement_ratio);
    }
  }
  return false;
}

std::vector<int> draw_donors(int n, int self, std::int64_t k, std::uint64_t seed,
                             std::int64_t draw) {
  if (n <= 1) return {};
  std::vector<int> candidates;
  for (int r = 0; r < n; ++r) {
    if (r != self) candidates.push_back(r);
  }
  auto gen = generator(seed, draw, 0xd0);
  std::shuffle(candidates.begin(), candidates.end(), gen);
  const auto take = static_cast<std::size_t>(
      std::clamp<std::int64_t>(k, 1, static_cast<std::int64_t>(candidates.size())));
  candidates.resize(take);
  std::sort(candidates.begin(), candidates.end());
  return candidates;
}

}  // namespace gfn::dist::spawn
