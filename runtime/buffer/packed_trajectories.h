#pragma once
// The one layout of a batch of trajectories outside LibTorch: the DATA and SAMPLE payloads
// (roles/protocol/messages.h), the replay table (table.h) and the Learner's replay queue
// (runtime/gfn/learner.h) all hold trajectories as PackedTrajectories.
//
// Layout, n trajectories:
//   lengths  int32 [n]           forward actions of trajectory i, exit included (>= 1), or
//                                0 = "no trajectory" where a caller allows it (SAMPLE items
//                                stored from scoring-only submissions);
//   actions  int64 [Σ lengths]   the forward action sequences concatenated in item order,
//                                each ending with the exit action (n_actions - 1).
// Both vectors empty = a batch without trajectories (not "n empty trajectories").
// The environments are deterministic, so the actions rebuild every state from s0
// (runtime/gfn/trajectory_ops.h: pack_trajectories packs a core::Trajectories batch,
// trajectories_from_actions unpacks it); a trajectory costs `length` int64 instead of
// length * state_dim, and no log-probability is stored (the losses recompute them).
//
// Serialization (cereal, member template): `lengths` then `actions`, so a payload that holds
// a PackedTrajectories member is byte-identical to one that held the two vectors.
// No LibTorch, no cereal include. Plain value type; thread-compatible.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gfn::buffer {

struct PackedTrajectories {
  std::vector<std::int32_t> lengths;  ///< [n]: actions per trajectory (exit included)
  std::vector<std::int64_t> actions;  ///< [Σ lengths]: forward actions, exit last

  PackedTrajectories() = default;
  /// Takes both vectors as they are (unchecked; see check_packed_trajectories).
  explicit PackedTrajectories(std::vector<std::int32_t> lengths_,
                              std::vector<std::int64_t> actions_)
      : lengths(std::move(lengths_)), actions(std::move(actions_)) {}
  /// Packs nested sequences (tests, hand-written batches). O(Σ lengths).
  static PackedTrajectories from_sequences(const std::vector<std::vector<std::int64_t>>& seqs);

  /// Trajectories held (n), 0 for a batch without trajectories.
  std::int64_t size() const { return static_cast<std::int64_t>(lengths.size()); }
  bool empty() const { return lengths.empty(); }
  void clear() {
    lengths.clear();
    actions.clear();
  }
  /// Appends one trajectory of `length` >= 0 actions starting at `first`.
  void append(const std::int64_t* first, std::int32_t length) {
    lengths.push_back(length);
    actions.insert(actions.end(), first, first + length);
  }
  /// Start of each trajectory's actions in `actions`: [n + 1] prefix sums (the last is
  /// Σ lengths). O(n); assumes non-negative lengths.
  std::vector<std::size_t> offsets() const;
  /// Trajectory i's actions as a vector (a copy; tests and messages). O(i + length).
  std::vector<std::int64_t> sequence(std::int64_t i) const;

  bool operator==(const PackedTrajectories& o) const {
    return lengths == o.lengths && actions == o.actions;
  }
  bool operator!=(const PackedTrajectories& o) const { return !(*this == o); }

  template <class Archive>
  void serialize(Archive& ar) {
    ar(lengths, actions);
  }
};

/// The checks of the layout, in one place (the protocol's check_trajectories wraps them).
/// `t` must be empty (no trajectories) or hold n lengths; each length is >= 1, or 0 when
/// `allow_missing`; Σ lengths == actions.size(). If n_actions > 0, every action is in
/// [0, n_actions), the last action of each non-empty trajectory is the exit action
/// n_actions - 1 and no exit comes before it. Throws std::invalid_argument whose message
/// starts with `what` and names the offending trajectory. O(Σ lengths).
void check_packed_trajectories(const PackedTrajectories& t, std::int64_t n, std::int64_t n_actions,
                               bool allow_missing, const std::string& what);

}  // namespace gfn::buffer
