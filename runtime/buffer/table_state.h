#pragma once
// A replay table's state in a checkpoint (docs/checkpoints.md "Checkpoint and resume"): what
// ReplayTable::save_state (table.h) returns and restore_state takes back, so that a table
// restored into a fresh one built with the same TableOptions samples, evicts and refuses
// exactly as the saved one would have (the same results for the same calls):
//   - the stored items in slot order: states int64 [size, ndim] (or, in a table of float32
//     rows, float_states float32 [size, ndim] and state_dtype kFloat32), log rewards float32
//     [size], serials uint64 [size] (insertion order), trajectories (packed, lengths [size],
//     0 = none; the action pool is compacted);
//   - the next serial, and the sampling generator (std::mt19937_64, its text form);
//   - each sampler's own order of the held slots (selectors/selector.h: order()), in
//     TableOptions::samplers order; the removers' order follows from the serials and log
//     rewards, and the StateIndex is rebuilt from the states (its queries are exact).
//   - for the checks of restore_state: capacity, sampler names, remover name.
// Byte form: cereal portable binary (encode_table_state), the format version first: 1 for a
// table of int64 rows (the fields of serialize(), as every checkpoint before float rows),
// 2 for a table of float32 rows (those fields, then state_dtype and float_states). Both
// versions decode.
// Plain value type; thread-compatible.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/buffer/options.h"
#include "runtime/buffer/packed_trajectories.h"

namespace gfn::buffer {

struct TableState {
  std::int64_t capacity = 0;
  std::vector<std::string> samplers;  ///< names, in TableOptions order
  std::string remover;
  int ndim = 0;  ///< 0: nothing was ever stored
  std::uint64_t next_serial = 0;
  std::vector<std::int64_t> states;                       ///< [size, ndim], slot order
  std::vector<float> log_rewards;                         ///< [size]
  std::vector<std::uint64_t> serials;                     ///< [size]
  PackedTrajectories trajectories;                        ///< lengths [size] (0 = none)
  std::vector<std::vector<std::int64_t>> sampler_orders;  ///< per sampler: slots, or empty
  std::string rng;                                        ///< std::mt19937_64 in its text form
  StateDtype state_dtype = StateDtype::kInt64;            ///< of the rows (format version 2 only)
  std::vector<float> float_states;  ///< [size, ndim] for kFloat32 rows, else empty

  std::int64_t size() const { return static_cast<std::int64_t>(log_rewards.size()); }
  bool operator==(const TableState& o) const;
  bool operator!=(const TableState& o) const { return !(*this == o); }

  /// The fields of format version 1 (encode_table_state adds version 2's).
  template <class Archive>
  void serialize(Archive& ar) {
    ar(capacity, samplers, remover, ndim, next_serial, states, log_rewards, serials, trajectories,
       sampler_orders, rng);
  }
};

/// Bytes of `state` (a format version, 1 for int64 rows and 2 for float32 rows, then the
/// fields). O(size).
std::string encode_table_state(const TableState& state);
/// Inverse of encode_table_state (either version). Throws std::runtime_error starting with
/// `what` for another format version, truncated bytes, bytes left over or a state dtype
/// outside StateDtype. O(size).
TableState decode_table_state(const std::string& bytes, const std::string& what);

}  // namespace gfn::buffer
