#pragma once
// Scoring of a submission by a buffer manager, behind an interface a
// user can replace (BufferManagerOptions::scorer). The default, ModesScorer,
// follows torchgfn's ModesReplayBufferManager.scoring_function
// (tutorials/examples/train_hypergrid.py):
//   A) retained   items of the batch the buffer keeps (ReplayTable::would_retain,
//                 scored against the buffer before the insert);
//   B) novelty    sum over the batch of the minimum p-norm distance from each batch
//                 state to the buffer's states (before the insert), each minimum rounded
//                 to float32; the batch size (a placeholder) when the buffer is empty.
//                 Two methods give the same result: kIndex (default) asks the buffer's
//                 nearest-neighbour index (state_index.h: exact duplicates by hash, the
//                 rest by a k-d tree; O(batch log distinct)); kBruteForce is the plain
//                 reference, the batch x buffer distance block computed in chunks of at
//                 most cdist_max_bytes (O(batch capacity ndim); the tests' oracle);
//   C) reward     sum of exp(log_reward) over the batch (non-finite values skipped);
//   D) mode bonus number of modes never seen by this manager before.
// score_before_ema = w_retained*A + w_novelty*B + w_reward*C + w_mode_bonus*D, and
// score = EMA over submissions (first: the raw score; then
// decay*ema + (1-decay)*score_before_ema).
// Scorers are called from the manager's single thread (thread-compatible).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/buffer/options.h"
#include "runtime/buffer/table.h"

namespace gfn::buffer {

/// One submission: row-major int64 states [n, ndim] and float32 log rewards [n]; or, for a
/// continuous environment, float32 states [n, ndim] in *float_states (`states` then empty).
/// The novelty of float rows is the same p-norm distance (Euclidean for p = 2) against a
/// buffer of float rows; a batch of the other dtype than the buffer's is refused.
struct BatchView {
  const std::vector<std::int64_t>& states;
  const std::vector<float>& log_rewards;
  int ndim;
  const std::vector<float>* float_states = nullptr;  ///< float32 rows instead of `states`
  std::int64_t size() const { return static_cast<std::int64_t>(log_rewards.size()); }
};

struct ScoreBreakdown {
  std::int64_t retained = 0;
  double novelty_sum = 0.0;
  double reward_sum = 0.0;
  std::int64_t new_modes = 0;
  double score_before_ema = 0.0;
  double score = 0.0;  ///< what the SCORE message reports
};

class Scorer {
 public:
  virtual ~Scorer() = default;
  /// Scores `batch` against `buffer_before` (the buffer before the batch is
  /// inserted, possibly empty when the manager does not store), knowing that the
  /// batch holds `new_modes` modes this manager had not seen. Must not throw for a
  /// well-formed batch (states.size() == n * ndim, checked by the caller).
  virtual ScoreBreakdown score(const BatchView& batch, const ReplayTable& buffer_before,
                               std::int64_t new_modes) = 0;
  /// Checkpoints (roles/buffer_manager/manager.h save_state): the scorer's internal state
  /// as bytes, "" for a stateless scorer (the default).
  virtual std::string save_state() const { return {}; }
  /// Restores what save_state returned. Throws std::invalid_argument for bytes it cannot
  /// read (the default: any non-empty bytes).
  virtual void restore_state(const std::string& bytes) {
    if (!bytes.empty()) throw std::invalid_argument("scorer: a stateless scorer got a state");
  }
};

/// How the novelty term is computed (YAML buffer.score_novelty: index | brute_force).
// NoveltyMethod: options.h (buffer.score_novelty)
/// "index" | "brute_force"; throws std::invalid_argument naming buffer.score_novelty.
NoveltyMethod parse_novelty_method(const std::string& name);
std::string to_string(NoveltyMethod method);

struct ModesScorerOptions {
  double w_retained = 1.0;
  double w_novelty = 1.0;
  double w_reward = 0.0;
  double w_mode_bonus = 10.0;
  double p_norm = 2.0;  ///< > 0 (Minkowski p of torch.cdist)
  /// kBruteForce: bytes of one float32 distance block.
  std::size_t cdist_max_bytes = std::size_t{256} << 20;
  double ema_decay = 0.9;  ///< in [0, 1)
  NoveltyMethod novelty = NoveltyMethod::kIndex;
};

/// Σ_i min_j ||batch_i - buffer_j||_p over the batch through the buffer's index
/// (ReplayTable::index(), StateIndex::novelty_sum). Returns batch.size() when the buffer
/// is empty. Throws std::invalid_argument if p <= 0 or the buffer's ndim or state dtype
/// differs from the batch's.
double novelty_sum(const BatchView& batch, const ReplayTable& buffer, double p);
/// The same sum by brute force (the reference): every batch row against every stored
/// row, buffer rows processed in chunks so that one float32 distance block [n, chunk]
/// stays within max_bytes (chunk >= 1). Same errors.
double novelty_sum_reference(const BatchView& batch, const ReplayTable& buffer, double p,
                             std::size_t max_bytes);

class ModesScorer : public Scorer {
 public:
  /// Throws std::invalid_argument for p_norm <= 0 or ema_decay outside [0, 1).
  explicit ModesScorer(const ModesScorerOptions& options = {});
  ScoreBreakdown score(const BatchView& batch, const ReplayTable& buffer_before,
                       std::int64_t new_modes) override;
  /// The EMA of the scores: "" before the first score, else its 8 bytes (double).
  std::string save_state() const override;
  void restore_state(const std::string& bytes) override;

 private:
  ModesScorerOptions options_;
  std::optional<double> ema_;
};

}  // namespace gfn::buffer
