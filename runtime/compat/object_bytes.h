#pragma once
// Byte form of arbitrary cereal-serializable values, and a byte broadcast, for the
// value collectives of runtime/compat/value_collectives.h (utils.distributed seed).
//
// Values are written with cereal::BinaryOutputArchive. The type T must be
// default-constructible and serializable by cereal: arithmetic types, and with the
// matching cereal header included by the caller (<cereal/types/map.hpp>, ...) standard
// containers, or structs with a `template <class A> void serialize(A&)` member.
// std::string, std::vector, std::pair and std::optional are supported out of the box.
// Bytes are trusted (they come from ranks of the same job): sizes are not bounded.

#include <cereal/archives/binary.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/utility.hpp>
#include <cereal/types/vector.hpp>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "transport/transport.h"

namespace gfn::compat {

/// cereal binary bytes of `value`. Thread-safe.
template <class T>
transport::Bytes to_bytes(const T& value) {
  std::ostringstream os(std::ios::binary);
  {
    cereal::BinaryOutputArchive ar(os);
    ar(value);
  }
  const std::string s = os.str();
  return transport::Bytes(s.begin(), s.end());
}

/// Inverse of to_bytes. Throws std::runtime_error ("<what>: cannot decode ...") for
/// truncated bytes or bytes left over. Thread-safe.
template <class T>
T from_bytes(const transport::Bytes& bytes, const char* what = "from_bytes") {
  std::istringstream is(std::string(bytes.begin(), bytes.end()), std::ios::binary);
  T value{};
  try {
    cereal::BinaryInputArchive ar(is);
    ar(value);
  } catch (const cereal::Exception& e) {
    throw std::runtime_error(std::string(what) + ": cannot decode a value of " +
                             std::to_string(bytes.size()) + " bytes: " + e.what());
  }
  if (is.peek() != std::char_traits<char>::eof()) {
    throw std::runtime_error(std::string(what) + ": bytes left over after the value (" +
                             std::to_string(bytes.size()) +
                             " bytes; sender and receiver "
                             "must use the same type)");
  }
  return value;
}

/// Copies `bytes` of group rank `root` to every member (`bytes` is replaced on the
/// others; any length, including 0). Collective over `group`, blocking: two broadcasts
/// (the int64 length, then the payload). Throws transport::TransportError if this rank
/// is not a member or `root` is not a group rank (before any communication).
void broadcast_bytes(transport::Group& group, transport::Bytes& bytes, int root,
                     const char* caller = "broadcast_bytes");

}  // namespace gfn::compat
