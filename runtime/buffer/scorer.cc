#include "runtime/buffer/scorer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace gfn::buffer {

NoveltyMethod parse_novelty_method(const std::string& name) {
  NoveltyMethod method{};
  if (config::parse_enum(name, method)) return method;
  throw std::invalid_argument(fmt::format("buffer.score_novelty: unknown method '{}' (known: {})",
                                          name, config::enum_choices<NoveltyMethod>()));
}

std::string to_string(NoveltyMethod method) { return config::enum_name(method); }

double novelty_sum(const BatchView& batch, const ReplayTable& buffer, double p) {
  if (batch.float_states) {
    return buffer.index().novelty_sum(batch.float_states->data(), batch.size(), batch.ndim, p);
  }
  return buffer.index().novelty_sum(batch.states.data(), batch.size(), batch.ndim, p);
}

namespace {

/// Row `slot` of the buffer as T (the caller checked the buffer's dtype is T's).
template <class T>
const T* buffer_row(const ReplayTable& buffer, Slot slot) {
  if constexpr (std::is_same_v<T, float>) {
    return buffer.float_state(slot);
  } else {
    return buffer.state(slot);
  }
}

/// novelty_sum_reference over rows of type T (`rows` = the batch's, [m, d]).
// Not inlined: GCC 12 inlined into novelty_sum_reference warns a false -Wfree-nonheap-object.
template <class T>
[[gnu::noinline]] double reference_sum(const T* rows, std::int64_t m, int d,
                                       const ReplayTable& buffer, double p, std::size_t max_bytes) {
  const std::int64_t n = buffer.size();
  const std::int64_t chunk = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(max_bytes / std::max<std::size_t>(1, m * sizeof(float))));
  std::vector<float> block;  // [m, chunk] distances, bounded by max_bytes
  std::vector<float> min_dist(static_cast<std::size_t>(m), std::numeric_limits<float>::max());
  const bool euclid = p == 2.0, manhattan = p == 1.0;
  for (std::int64_t start = 0; start < n; start += chunk) {
    const std::int64_t end = std::min(n, start + chunk);
    const std::int64_t c = end - start;
    block.assign(static_cast<std::size_t>(m * c), 0.f);
    for (std::int64_t i = 0; i < m; ++i) {
      const T* a = rows + i * d;
      for (std::int64_t j = 0; j < c; ++j) {
        const T* b = buffer_row<T>(buffer, start + j);
        double acc = 0.0;
        for (int k = 0; k < d; ++k) {
          // int64: the exact difference, then double; float32: both exact in double.
          const double diff = std::is_same_v<T, float>
                                  ? std::abs(static_cast<double>(a[k]) - static_cast<double>(b[k]))
                                  : std::abs(static_cast<double>(a[k] - b[k]));
          acc += euclid ? diff * diff : manhattan ? diff : std::pow(diff, p);
        }
        block[i * c + j] = static_cast<float>(euclid      ? std::sqrt(acc)
                                              : manhattan ? acc
                                                          : std::pow(acc, 1.0 / p));
      }
    }
    for (std::int64_t i = 0; i < m; ++i) {
      const auto row = block.begin() + i * c;
      min_dist[i] = std::min(min_dist[i], *std::min_element(row, row + c));
    }
  }
  double sum = 0.0;
  for (float v : min_dist) sum += v;
  return sum;
}

}  // namespace

double novelty_sum_reference(const BatchView& batch, const ReplayTable& buffer, double p,
                             std::size_t max_bytes) {
  if (!(p > 0.0)) throw std::invalid_argument(fmt::format("novelty p-norm must be > 0, got {}", p));
  const std::int64_t m = batch.size();
  if (buffer.size() == 0) return static_cast<double>(m);
  if (m == 0) return 0.0;
  const int d = batch.ndim;
  if (buffer.ndim() != d) {
    throw std::invalid_argument(
        fmt::format("novelty: batch ndim {} differs from the buffer's {}", d, buffer.ndim()));
  }
  const StateDtype dtype = batch.float_states ? StateDtype::kFloat32 : StateDtype::kInt64;
  if (buffer.state_dtype() != dtype) {
    throw std::invalid_argument(fmt::format("novelty: a batch of {} states, a buffer of {} states",
                                            config::enum_name(dtype),
                                            config::enum_name(buffer.state_dtype())));
  }
  if (batch.float_states) {
    return reference_sum(batch.float_states->data(), m, d, buffer, p, max_bytes);
  }
  return reference_sum(batch.states.data(), m, d, buffer, p, max_bytes);
}

ModesScorer::ModesScorer(const ModesScorerOptions& options) : options_(options) {
  if (!(options.p_norm > 0.0)) {
    throw std::invalid_argument(fmt::format("scorer p_norm must be > 0, got {}", options.p_norm));
  }
  if (!(options.ema_decay >= 0.0 && options.ema_decay < 1.0)) {
    throw std::invalid_argument(
        fmt::format("scorer ema_decay must be in [0, 1), got {}", options.ema_decay));
  }
}

ScoreBreakdown ModesScorer::score(const BatchView& batch, const ReplayTable& buffer_before,
                                  std::int64_t new_modes) {
  ScoreBreakdown s;
  s.retained = buffer_before.would_retain(batch.log_rewards);
  s.novelty_sum =
      options_.novelty == NoveltyMethod::kIndex
          ? novelty_sum(batch, buffer_before, options_.p_norm)
          : novelty_sum_reference(batch, buffer_before, options_.p_norm, options_.cdist_max_bytes);
  for (float lr : batch.log_rewards) {
    if (std::isfinite(lr)) s.reward_sum += std::exp(static_cast<double>(lr));
  }
  s.new_modes = new_modes;
  s.score_before_ema = options_.w_retained * static_cast<double>(s.retained) +
                       options_.w_novelty * s.novelty_sum + options_.w_reward * s.reward_sum +
                       options_.w_mode_bonus * static_cast<double>(new_modes);
  ema_ = ema_ ? options_.ema_decay * *ema_ + (1.0 - options_.ema_decay) * s.score_before_ema
              : s.score_before_ema;
  s.score = *ema_;
  return s;
}

std::string ModesScorer::save_state() const {
  if (!ema_) return {};
  std::string out(sizeof(double), '\0');
  std::memcpy(out.data(), &*ema_, sizeof(double));
  return out;
}

void ModesScorer::restore_state(const std::string& bytes) {
  if (bytes.empty()) {
    ema_.reset();
    return;
  }
  if (bytes.size() != sizeof(double)) {
    throw std::invalid_argument(fmt::format("scorer: a state of {} bytes (expected 0 or {})",
                                            bytes.size(), sizeof(double)));
  }
  double ema = 0;
  std::memcpy(&ema, bytes.data(), sizeof(double));
  ema_ = ema;
}

}  // namespace gfn::buffer
