#include "runtime/buffer/table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "runtime/buffer/diversity_filter.h"
#include "runtime/buffer/selectors/fifo.h"
#include "runtime/buffer/selectors/lowest_reward.h"
#include "runtime/buffer/selectors/prioritized.h"
#include "runtime/buffer/selectors/rank.h"
#include "runtime/buffer/selectors/uniform.h"

namespace gfn::buffer {
namespace {

// Garbage actions tolerated in the pool before a compaction (besides "more than live").
constexpr std::int64_t kMinGarbageForCompaction = 4096;

std::unique_ptr<ItemSelector> make_sampler(SamplerKind kind, const TableOptions& options) {
  if (kind == SamplerKind::kUniform) return std::make_unique<UniformSampler>(options.replacement);
  if (kind == SamplerKind::kRank) {
    return std::make_unique<RankSampler>(options.replacement, options.rank_weight);
  }
  return std::make_unique<PrioritizedSampler>(options.replacement, options.priority_exponent);
}

std::unique_ptr<ItemSelector> make_remover(const std::string& name, bool ties_keep_newer) {
  if (name == "fifo") return std::make_unique<FifoRemover>();
  if (name == "lowest_reward") {
    return std::make_unique<LowestRewardRemover>(ties_keep_newer
                                                     ? LowestRewardRemover::Ties::kKeepNewer
                                                     : LowestRewardRemover::Ties::kKeepOlder);
  }
  throw std::invalid_argument(
      fmt::format("replay table: unknown remover '{}' (known: fifo, lowest_reward)", name));
}

template <class T>
constexpr StateDtype dtype_of() {
  return std::is_same_v<T, float> ? StateDtype::kFloat32 : StateDtype::kInt64;
}

}  // namespace

template <>
std::vector<std::int64_t>& ReplayTable::rows<std::int64_t>() {
  return states_;
}
template <>
std::vector<float>& ReplayTable::rows<float>() {
  return float_states_;
}

TableOptions manager_table_options(std::int64_t capacity, std::uint64_t seed,
                                   double priority_exponent, std::optional<double> rank_weight) {
  TableOptions o;
  o.capacity = capacity;
  o.priority_exponent = priority_exponent;
  o.samplers = {SamplerKind::kPrioritized, SamplerKind::kUniform};
  if (rank_weight) {
    o.rank_weight = *rank_weight;
    o.samplers.push_back(SamplerKind::kRank);
  }
  o.replacement = Replacement::kAlways;
  o.remover = "lowest_reward";
  o.ties_keep_newer = false;
  o.skip_non_finite = true;
  o.require_trajectories = false;
  o.keep_index = true;
  o.seed = seed;
  return o;
}

TableOptions local_table_options(ReplayKind kind, std::int64_t capacity, double cutoff,
                                 double p_norm, std::uint64_t seed) {
  if (capacity < 1) {
    throw std::invalid_argument(fmt::format("replay.capacity must be >= 1, got {}", capacity));
  }
  TableOptions o;
  o.capacity = capacity;
  o.replacement = Replacement::kOnlyWhenNeeded;
  o.ties_keep_newer = true;
  o.skip_non_finite = false;
  o.require_trajectories = true;
  o.keep_index = false;
  o.seed = seed;
  switch (kind) {
    case ReplayKind::kUniform:
      o.samplers = {SamplerKind::kUniform};
      o.remover = "fifo";
      break;
    case ReplayKind::kPrioritized:
      o.samplers = {SamplerKind::kPrioritized};
      o.remover = "lowest_reward";
      break;
    case ReplayKind::kDiverse:
      o.samplers = {SamplerKind::kUniform};
      o.remover = "lowest_reward";
      o.keep_index = true;
      o.filter = std::make_shared<DiversityFilter>(DiversityFilterOptions{cutoff, p_norm});
      break;
    case ReplayKind::kNone:
      throw std::invalid_argument("replay.kind none: no local buffer, nothing to build");
  }
  return o;
}

struct ReplayTable::Selectors {
  std::vector<std::pair<SamplerKind, std::unique_ptr<ItemSelector>>> samplers;
  std::unique_ptr<ItemSelector> remover;
  std::vector<Slot> scratch;

  void insert(Slot slot, const ItemKey& key) {
    for (auto& s : samplers) s.second->insert(slot, key);
    remover->insert(slot, key);
  }
  void erase(Slot slot) {
    for (auto& s : samplers) s.second->erase(slot);
    remover->erase(slot);
  }
  ItemSelector* sampler(std::optional<SamplerKind> kind) {
    if (!kind) return samplers.front().second.get();
    for (auto& s : samplers) {
      if (s.first == *kind) return s.second.get();
    }
    return nullptr;
  }
};

/// Cached statistics of the log rewards, reset by every change.
struct ReplayTable::Stats {
  std::optional<float> min, max;
  std::optional<std::pair<double, float>> percentile;  ///< (q, value)
  std::vector<float> scratch;
  void reset() {
    min.reset();
    max.reset();
    percentile.reset();
  }
};

ReplayTable::ReplayTable(const TableOptions& options)
    : options_(options),
      selectors_(std::make_unique<Selectors>()),
      stats_(std::make_unique<Stats>()),
      rng_(options.seed) {
  dtype_ = options.state_dtype;
  if (options.capacity < 1) {
    throw std::invalid_argument(
        fmt::format("replay table capacity must be >= 1, got {}", options.capacity));
  }
  if (options.samplers.empty()) throw std::invalid_argument("replay table: no sampler");
  if (options.filter && !options.keep_index) {
    throw std::invalid_argument(
        fmt::format("replay table: the {} filter needs keep_index", options.filter->name()));
  }
  for (const auto kind : options.samplers) {
    if (selectors_->sampler(kind) != nullptr) {
      throw std::invalid_argument(
          fmt::format("replay table: sampler '{}' given twice", config::enum_name(kind)));
    }
    selectors_->samplers.emplace_back(kind, make_sampler(kind, options));
  }
  selectors_->remover = make_remover(options.remover, options.ties_keep_newer);
}

ReplayTable::~ReplayTable() = default;
ReplayTable::ReplayTable(ReplayTable&&) noexcept = default;
ReplayTable& ReplayTable::operator=(ReplayTable&&) noexcept = default;

template <class T>
void ReplayTable::check_batch(const std::vector<T>& states, const std::vector<float>& log_rewards,
                              int ndim, const PackedTrajectories& trajectories) const {
  const auto n = log_rewards.size();
  if (ndim < 1 || states.size() != n * static_cast<std::size_t>(ndim)) {
    throw std::invalid_argument(
        fmt::format("replay table add: {} state entries do not match {} log rewards of ndim {}",
                    states.size(), n, ndim));
  }
  if (n > 0 && ndim_ != 0 && ndim != ndim_) {
    throw std::invalid_argument(fmt::format(
        "replay table add: ndim {} differs from the stored items' ndim {}", ndim, ndim_));
  }
  if (n > 0 && dtype_ && *dtype_ != dtype_of<T>()) {
    throw std::invalid_argument(
        fmt::format("replay table add: {} states into a table of {} states (the dtypes do not mix)",
                    config::enum_name(dtype_of<T>()), config::enum_name(*dtype_)));
  }
  if constexpr (std::is_same_v<T, float>) {
    if (options_.filter) {
      throw std::invalid_argument(
          fmt::format("replay table add: the {} filter takes int64 states, not float32",
                      options_.filter->name()));
    }
    for (std::size_t i = 0; i < states.size(); ++i) {
      if (!std::isfinite(states[i])) {
        throw std::invalid_argument(
            fmt::format("replay table add: item {} has a non-finite state value",
                        i / static_cast<std::size_t>(ndim)));
      }
    }
  }
  if (!trajectories.empty() || !trajectories.actions.empty()) {
    if (trajectories.lengths.size() != n) {
      throw std::invalid_argument(fmt::format(
          "replay table add: {} trajectory lengths for {} items", trajectories.lengths.size(), n));
    }
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int32_t len = trajectories.lengths[i];
      if (len < 0 || (len == 0 && options_.require_trajectories)) {
        throw std::invalid_argument(
            fmt::format("replay table add: trajectory {} has length {} (must be >= {})", i, len,
                        options_.require_trajectories ? 1 : 0));
      }
      total += static_cast<std::size_t>(len);
    }
    if (total != trajectories.actions.size()) {
      throw std::invalid_argument(fmt::format(
          "replay table add: trajectory lengths add up to {}, but {} actions were given", total,
          trajectories.actions.size()));
    }
  } else if (options_.require_trajectories && n > 0) {
    throw std::invalid_argument("replay table add: the items have no trajectory (required)");
  }
  if (!options_.skip_non_finite) {
    for (std::size_t i = 0; i < n; ++i) {
      if (std::isnan(log_rewards[i])) {
        throw std::invalid_argument(
            fmt::format("replay table add: item {} has a NaN log reward", i));
      }
    }
  }
}

AddResult ReplayTable::add(const std::vector<std::int64_t>& states,
                           const std::vector<float>& log_rewards, int ndim,
                           const PackedTrajectories& trajectories) {
  return add_rows(states, log_rewards, ndim, trajectories);
}

AddResult ReplayTable::add_float(const std::vector<float>& states,
                                 const std::vector<float>& log_rewards, int ndim,
                                 const PackedTrajectories& trajectories) {
  return add_rows(states, log_rewards, ndim, trajectories);
}

template <class T>
AddResult ReplayTable::add_rows(const std::vector<T>& states, const std::vector<float>& log_rewards,
                                int ndim, const PackedTrajectories& trajectories) {
  check_batch(states, log_rewards, ndim, trajectories);
  AddResult result;
  const auto n = static_cast<std::int64_t>(log_rewards.size());
  if (n == 0) return result;
  std::vector<std::int64_t> keep;
  keep.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    if (!options_.skip_non_finite || std::isfinite(log_rewards[i])) keep.push_back(i);
  }
  if constexpr (std::is_same_v<T, std::int64_t>) {
    if (options_.filter) {
      options_.filter->filter(IncomingBatch{states.data(), log_rewards.data(), n, ndim}, *this,
                              keep);
    }
  }
  result.accepted = static_cast<std::int64_t>(keep.size());
  if (keep.empty()) return result;
  ndim_ = ndim;
  dtype_ = dtype_of<T>();
  const std::vector<std::size_t> offsets =
      trajectories.empty() ? std::vector<std::size_t>{} : trajectories.offsets();
  const std::uint64_t first_serial = next_serial_;
  auto& remover = *selectors_->remover;
  bool stored_any = false;
  for (const std::int64_t i : keep) {
    const float lr = log_rewards[static_cast<std::size_t>(i)];
    Slot slot = size_;
    if (full()) {
      selectors_->scratch.clear();
      remover.select(1, rng_, selectors_->scratch);
      slot = selectors_->scratch.front();
      if (!remover.admits({next_serial_, lr}, {serial(slot), log_reward(slot)})) continue;
      if (serial(slot) >= first_serial) --result.retained;  // evicted one of this batch
      unindex(slot);
      selectors_->erase(slot);
      live_actions_ -= lengths_[static_cast<std::size_t>(slot)];
    } else {
      ++size_;
    }
    const std::int64_t* actions = nullptr;
    std::int32_t length = 0;
    if (!offsets.empty()) {
      actions = trajectories.actions.data() + offsets[static_cast<std::size_t>(i)];
      length = trajectories.lengths[static_cast<std::size_t>(i)];
    }
    store(slot, states.data() + i * ndim, lr, actions, length);
    ++result.retained;
    stored_any = true;
  }
  if (stored_any) changed();
  return result;
}

void ReplayTable::unindex(Slot slot) {
  if (!options_.keep_index) return;
  if (state_dtype() == StateDtype::kFloat32) {
    index_.erase(float_state(slot));
  } else {
    index_.erase(state(slot));
  }
}

template <class T>
void ReplayTable::store(Slot slot, const T* state_row, float lr, const std::int64_t* actions,
                        std::int32_t length) {
  const auto s = static_cast<std::size_t>(slot);
  auto& states = rows<T>();
  if (s == log_rewards_.size()) {  // a new row
    states.insert(states.end(), state_row, state_row + ndim_);
    log_rewards_.push_back(lr);
    serials_.push_back(next_serial_);
    lengths_.push_back(0);
    offsets_.push_back(0);
  } else {
    std::copy(state_row, state_row + ndim_, states.begin() + slot * ndim_);
    log_rewards_[s] = lr;
    serials_[s] = next_serial_;
  }
  lengths_[s] = length;
  offsets_[s] = static_cast<std::int64_t>(pool_.size());
  if (length > 0) {
    pool_.insert(pool_.end(), actions, actions + length);
    live_actions_ += length;
  }
  if (options_.keep_index) index_.insert(state_row, ndim_);
  selectors_->insert(slot, {next_serial_, lr});
  ++next_serial_;
}

void ReplayTable::changed() {
  stats_->reset();
  const auto garbage = static_cast<std::int64_t>(pool_.size()) - live_actions_;
  if (garbage > live_actions_ && garbage >= kMinGarbageForCompaction) {
    std::vector<std::int64_t> pool;
    pool.reserve(static_cast<std::size_t>(live_actions_));
    for (std::size_t s = 0; s < lengths_.size(); ++s) {
      const auto first = pool_.begin() + offsets_[s];
      offsets_[s] = static_cast<std::int64_t>(pool.size());
      pool.insert(pool.end(), first, first + lengths_[s]);
    }
    pool_ = std::move(pool);
  }
}

std::int64_t ReplayTable::would_retain(const std::vector<float>& log_rewards) const {
  std::int64_t finite = 0;
  for (float lr : log_rewards) finite += std::isfinite(lr) ? 1 : 0;
  if (size_ + finite <= options_.capacity) return finite;
  const float threshold = empty() ? -std::numeric_limits<float>::infinity() : min_log_reward();
  std::int64_t kept = 0;
  for (float lr : log_rewards) kept += (std::isfinite(lr) && lr >= threshold) ? 1 : 0;
  return kept;
}

bool ReplayTable::has_sampler(SamplerKind sampler) const {
  return selectors_->sampler(sampler) != nullptr;
}

std::vector<std::string> ReplayTable::sampler_names() const {
  std::vector<std::string> out;
  for (const auto& s : selectors_->samplers) out.push_back(config::enum_name(s.first));
  return out;
}

void ReplayTable::select_into(std::optional<SamplerKind> kind, std::int64_t n,
                              std::vector<Slot>& out) {
  ItemSelector* sampler = selectors_->sampler(kind);
  if (sampler == nullptr) {
    throw std::invalid_argument(fmt::format("replay table: no sampler '{}' (this table has: {})",
                                            config::enum_name(*kind),
                                            fmt::join(sampler_names(), ", ")));
  }
  if (n < 0) throw std::invalid_argument(fmt::format("replay table: sample of n = {} items", n));
  if (n == 0) return;
  if (empty()) throw std::logic_error("replay table: sample from an empty table");
  sampler->select(n, rng_, out);
}

std::vector<Slot> ReplayTable::sample_slots(std::int64_t n, std::optional<SamplerKind> sampler) {
  std::vector<Slot> out;
  select_into(sampler, n, out);
  return out;
}

TableBatch ReplayTable::sample(std::int64_t n, std::optional<SamplerKind> sampler) {
  const std::vector<Slot> slots = sample_slots(n, sampler);
  TableBatch out;
  out.ndim = ndim_;
  out.dtype = state_dtype();
  const bool floats = out.dtype == StateDtype::kFloat32;
  const auto entries = slots.size() * static_cast<std::size_t>(ndim_);
  if (floats) {
    out.float_states.reserve(entries);
  } else {
    out.states.reserve(entries);
  }
  out.log_rewards.reserve(slots.size());
  bool any_trajectory = false;
  for (const Slot s : slots) {
    if (floats) {
      out.float_states.insert(out.float_states.end(), float_state(s), float_state(s) + ndim_);
    } else {
      out.states.insert(out.states.end(), state(s), state(s) + ndim_);
    }
    out.log_rewards.push_back(log_reward(s));
    any_trajectory = any_trajectory || trajectory_length(s) > 0;
  }
  if (any_trajectory) {
    for (const Slot s : slots) out.trajectories.append(trajectory(s), trajectory_length(s));
  }
  return out;
}

float ReplayTable::min_log_reward() const {
  if (empty()) return 0.f;
  if (!stats_->min) {
    // The lowest-reward remover keeps the order (O(1)); else a scan of the live rows.
    const auto held = selectors_->remover->lowest_log_reward();
    stats_->min =
        held ? *held : *std::min_element(log_rewards_.begin(), log_rewards_.begin() + size_);
  }
  return *stats_->min;
}

float ReplayTable::max_log_reward() const {
  if (empty()) return 0.f;
  if (!stats_->max) {
    stats_->max = *std::max_element(log_rewards_.begin(), log_rewards_.begin() + size_);
  }
  return *stats_->max;
}

float ReplayTable::percentile_log_reward(double q) const {
  if (!(q >= 0.0 && q <= 100.0)) {
    throw std::invalid_argument(
        fmt::format("replay table percentile must be in [0, 100], got {}", q));
  }
  if (empty()) throw std::logic_error("replay table percentile of an empty table");
  if (stats_->percentile && stats_->percentile->first == q) return stats_->percentile->second;
  // Nearest rank on the ascending order: rank ceil(q/100 * n), at least 1, at most n.
  const auto n = static_cast<double>(size_);
  auto rank = static_cast<std::int64_t>(std::max(1.0, std::ceil(q / 100.0 * n)));
  rank = std::min(rank, size_);
  auto& v = stats_->scratch;
  v.assign(log_rewards_.begin(), log_rewards_.begin() + size_);
  std::nth_element(v.begin(), v.begin() + (rank - 1), v.end());
  stats_->percentile = std::make_pair(q, v[static_cast<std::size_t>(rank - 1)]);
  return stats_->percentile->second;
}

std::vector<Slot> ReplayTable::slots_by_reward() const {
  std::vector<Slot> out(static_cast<std::size_t>(size_));
  std::iota(out.begin(), out.end(), Slot{0});
  std::sort(out.begin(), out.end(), [this](Slot a, Slot b) {
    if (log_reward(a) != log_reward(b)) return log_reward(a) > log_reward(b);
    return serial(a) > serial(b);
  });
  return out;
}

std::vector<Slot> ReplayTable::slots_by_age() const {
  std::vector<Slot> out(static_cast<std::size_t>(size_));
  std::iota(out.begin(), out.end(), Slot{0});
  std::sort(out.begin(), out.end(), [this](Slot a, Slot b) { return serial(a) < serial(b); });
  return out;
}

TableState ReplayTable::save_state() const {
  TableState out;
  out.capacity = options_.capacity;
  out.samplers = sampler_names();
  out.remover = selectors_->remover->name();
  out.ndim = ndim_;
  out.next_serial = next_serial_;
  out.state_dtype = state_dtype();
  if (out.state_dtype == StateDtype::kFloat32) {
    out.float_states.assign(float_states_.begin(), float_states_.begin() + size_ * ndim_);
  } else {
    out.states.assign(states_.begin(), states_.begin() + size_ * ndim_);
  }
  out.log_rewards.assign(log_rewards_.begin(), log_rewards_.begin() + size_);
  out.serials.assign(serials_.begin(), serials_.begin() + size_);
  for (Slot s = 0; s < size_; ++s) {
    const std::int32_t length = trajectory_length(s);
    out.trajectories.lengths.push_back(length);
    if (length > 0) {
      out.trajectories.actions.insert(out.trajectories.actions.end(), trajectory(s),
                                      trajectory(s) + length);
    }
  }
  for (const auto& sampler : selectors_->samplers) {
    out.sampler_orders.push_back(sampler.second->order());
  }
  std::ostringstream rng;
  rng << rng_;
  out.rng = rng.str();
  return out;
}

namespace {

/// The checks of restore_state that need no table.
void check_state(const TableState& s, const TableOptions& options,
                 const std::vector<std::string>& samplers, const std::string& remover) {
  const auto fail = [](const std::string& why) {
    throw std::invalid_argument("replay table restore: " + why);
  };
  if (s.capacity != options.capacity) {
    fail(fmt::format("the state is of a table of capacity {}, this one has {}", s.capacity,
                     options.capacity));
  }
  if (s.samplers != samplers || s.remover != remover) {
    fail(fmt::format("the state's selectors ({} / {}) differ from this table's ({} / {})",
                     fmt::join(s.samplers, ", "), s.remover, fmt::join(samplers, ", "), remover));
  }
  const auto n = static_cast<std::size_t>(s.size());
  const bool floats = s.state_dtype == StateDtype::kFloat32;
  const std::size_t rows = floats ? s.float_states.size() : s.states.size();
  const std::size_t other = floats ? s.states.size() : s.float_states.size();
  if (s.size() > s.capacity || (n > 0 && s.ndim < 1) || s.ndim < 0 ||
      rows != n * static_cast<std::size_t>(s.ndim) || other != 0 || s.serials.size() != n ||
      s.trajectories.lengths.size() != n || s.sampler_orders.size() != samplers.size()) {
    fail(
        fmt::format("inconsistent sizes ({} items, ndim {}, {} {} state entries, {} of the other "
                    "dtype, {} serials, {} trajectory lengths, {} sampler orders)",
                    n, s.ndim, rows, config::enum_name(s.state_dtype), other, s.serials.size(),
                    s.trajectories.lengths.size(), s.sampler_orders.size()));
  }
  if (options.state_dtype && s.ndim > 0 && *options.state_dtype != s.state_dtype) {
    fail(fmt::format("the state holds {} rows, this table takes {} rows",
                     config::enum_name(s.state_dtype), config::enum_name(*options.state_dtype)));
  }
  if (floats && options.filter) fail("a table with an insert filter takes int64 rows only");
  for (const float v : s.float_states) {
    if (!std::isfinite(v)) fail("a stored float32 state value is not finite");
  }
  std::size_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t length = s.trajectories.lengths[i];
    if (length < 0 || (length == 0 && options.require_trajectories)) {
      fail(fmt::format("item {} has a trajectory of length {}", i, length));
    }
    if (s.serials[i] >= s.next_serial) {
      fail(fmt::format("item {} has serial {}, not below the next serial {}", i, s.serials[i],
                       s.next_serial));
    }
    total += static_cast<std::size_t>(length);
  }
  if (total != s.trajectories.actions.size()) {
    fail(fmt::format("trajectory lengths add up to {}, but {} actions are stored", total,
                     s.trajectories.actions.size()));
  }
}

}  // namespace

void ReplayTable::restore_state(const TableState& s) {
  check_state(s, options_, sampler_names(), selectors_->remover->name());
  ReplayTable fresh(options_);  // built whole, then swapped in: nothing changes on error
  fresh.ndim_ = s.ndim;
  if (s.ndim > 0) fresh.dtype_ = s.state_dtype;
  const bool floats = s.state_dtype == StateDtype::kFloat32;
  const std::vector<std::size_t> offsets = s.trajectories.offsets();
  std::set<std::uint64_t> serials;
  for (Slot slot = 0; slot < s.size(); ++slot) {
    const auto i = static_cast<std::size_t>(slot);
    if (!serials.insert(s.serials[i]).second) {
      throw std::invalid_argument(
          fmt::format("replay table restore: serial {} is held twice", s.serials[i]));
    }
    fresh.size_ = slot + 1;
    fresh.next_serial_ = s.serials[i];
    const std::size_t row = i * static_cast<std::size_t>(s.ndim);
    const std::int64_t* actions = s.trajectories.actions.data() + offsets[i];
    if (floats) {
      fresh.store(slot, s.float_states.data() + row, s.log_rewards[i], actions,
                  s.trajectories.lengths[i]);
    } else {
      fresh.store(slot, s.states.data() + row, s.log_rewards[i], actions,
                  s.trajectories.lengths[i]);
    }
  }
  fresh.next_serial_ = s.next_serial;
  for (std::size_t k = 0; k < s.sampler_orders.size(); ++k) {
    fresh.selectors_->samplers[k].second->restore_order(s.sampler_orders[k]);
  }
  std::istringstream rng(s.rng);
  rng >> fresh.rng_;
  if (!rng) {
    throw std::invalid_argument("replay table restore: the sampling generator's state is invalid");
  }
  fresh.changed();
  *this = std::move(fresh);
}

}  // namespace gfn::buffer
