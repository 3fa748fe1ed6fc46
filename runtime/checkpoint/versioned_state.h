#pragma once
// A state kept in a checkpoint's rank file (docs/checkpoints.md "Checkpoint and resume"): a format
// version, then the state, in cereal's portable binary archive (fixed-width, little-endian), read
// back strictly. Used by every owner of such a state: the replay table
// (runtime/buffer/table_state.h), the buffer manager, the coordinator and the trainer's
// submitter (roles/). Header-only; the caller includes the cereal/types headers its state's
// members need. Thread-compatible (no shared state). Cost: O(size of the state).

#include <cereal/archives/portable_binary.hpp>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace gfn::checkpoint {

/// `version` then `state` as bytes.
template <class State>
std::string encode_versioned(std::uint32_t version, const State& state) {
  std::ostringstream os(std::ios::binary);
  {
    cereal::PortableBinaryOutputArchive ar(os);
    ar(version, state);
  }
  return std::move(os).str();
}

/// Reads what encode_versioned wrote into `state`, accepting any format version in
/// [`oldest`, `newest`]: `state.format_version` (a member the state does not serialize) is set
/// to the version found before the state is read, so its serialize() can read the layouts of
/// older versions. Returns the version found. Throws std::runtime_error starting with `what`
/// (e.g. "buffer manager rank 2 state") for a version outside the range, bytes cereal cannot
/// decode (truncated, corrupted), or bytes left over after the state.
template <class State>
std::uint32_t decode_versioned_between(const std::string& bytes, std::uint32_t oldest,
                                       std::uint32_t newest, const std::string& what,
                                       State& state) {
  std::istringstream is(bytes, std::ios::binary);
  std::uint32_t found = 0;
  try {
    cereal::PortableBinaryInputArchive ar(is);
    ar(found);
    if (found < oldest || found > newest) {
      const std::string reads =
          oldest == newest ? "version " + std::to_string(newest)
                           : "versions " + std::to_string(oldest) + " to " + std::to_string(newest);
      throw std::runtime_error(what + ": format version " + std::to_string(found) +
                               " (this build reads " + reads + ")");
    }
    state.format_version = found;
    ar(state);
  } catch (const cereal::Exception& e) {
    throw std::runtime_error(what + ": cannot decode " + std::to_string(bytes.size()) +
                             " bytes: " + e.what());
  }
  if (is.peek() != std::char_traits<char>::eof()) {
    throw std::runtime_error(what + ": bytes left over after the state (" +
                             std::to_string(bytes.size()) + " bytes)");
  }
  return found;
}

namespace detail {
/// A state without a format_version member, for decode_versioned_between.
template <class State>
struct SingleVersion {
  State& state;
  std::uint32_t format_version = 0;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(state);
  }
};
}  // namespace detail

/// decode_versioned_between for a state with one format version (no format_version member).
template <class State>
void decode_versioned(const std::string& bytes, std::uint32_t version, const std::string& what,
                      State& state) {
  detail::SingleVersion<State> holder{state};
  decode_versioned_between(bytes, version, version, what, holder);
}

}  // namespace gfn::checkpoint
