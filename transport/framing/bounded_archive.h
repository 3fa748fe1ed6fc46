#pragma once
// A cereal input archive for untrusted bytes: reads the format of
// cereal::BinaryOutputArchive from a memory span, but never allocates more than
// the bytes actually present because a size field says so (plain
// cereal::BinaryInputArchive resizes a vector to whatever its size field claims).
//
// Bounds, checked before any allocation:
//  - every container size tag must not exceed the bytes left (each element takes
//    at least one byte);
//  - std::vector of arithmetic T: size * sizeof(T) must not exceed the bytes left
//    (so the allocation equals bytes consumed);
//  - std::vector of other T (structs, strings, nested vectors): elements are
//    decoded one at a time and appended, so memory grows only with bytes consumed.
// Reading past the end throws MessageError ("truncated"). Any violation throws
// MessageError; the archive is then unusable, the caller discards it.
// Limitation: a container whose elements serialize to zero bytes (empty structs)
// cannot hold more elements than there are bytes left after its size field.
//
// Not thread-safe (one archive per decode); the bytes must outlive the archive.

#include <cereal/archives/binary.hpp>
#include <cereal/cereal.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "transport/errors.h"

namespace gfn::transport {

class BoundedBinaryInputArchive
    : public cereal::InputArchive<BoundedBinaryInputArchive, cereal::AllowEmptyClassElision> {
 public:
  BoundedBinaryInputArchive(const std::uint8_t* data, std::size_t size)
      : cereal::InputArchive<BoundedBinaryInputArchive, cereal::AllowEmptyClassElision>(this),
        data_(data),
        left_(size) {}

  /// Copies the next `n` bytes to `out`; throws MessageError if fewer are left.
  void loadBinary(void* out, std::size_t n) {
    if (n > left_) {
      throw MessageError("payload truncated: needed " + std::to_string(n) + " more bytes, " +
                         std::to_string(left_) + " left");
    }
    if (n > 0) std::memcpy(out, data_, n);
    data_ += n;
    left_ -= n;
  }

  /// Bytes not yet consumed.
  std::size_t remaining() const { return left_; }

  /// Throws MessageError unless `count` elements of at least `min_bytes_each`
  /// bytes fit in the bytes left.
  void require_elements(std::uint64_t count, std::size_t min_bytes_each) const {
    const std::size_t each = min_bytes_each == 0 ? 1 : min_bytes_each;
    if (count > left_ / each) {
      throw MessageError("payload size field claims " + std::to_string(count) +
                         " elements of at least " + std::to_string(each) + " bytes, but only " +
                         std::to_string(left_) + " bytes are left");
    }
  }

 private:
  const std::uint8_t* data_;
  std::size_t left_;
};

template <class T>
typename std::enable_if<std::is_arithmetic<T>::value, void>::type CEREAL_LOAD_FUNCTION_NAME(
    BoundedBinaryInputArchive& ar, T& t) {
  ar.loadBinary(std::addressof(t), sizeof(t));
}

template <class T>
void CEREAL_SERIALIZE_FUNCTION_NAME(BoundedBinaryInputArchive& ar, cereal::NameValuePair<T>& t) {
  ar(t.value);
}

/// Every container size goes through here: bounded by the bytes left.
template <class T>
void CEREAL_SERIALIZE_FUNCTION_NAME(BoundedBinaryInputArchive& ar, cereal::SizeTag<T>& t) {
  ar(t.size);
  ar.require_elements(static_cast<std::uint64_t>(t.size), 1);
}

template <class T>
void CEREAL_LOAD_FUNCTION_NAME(BoundedBinaryInputArchive& ar, cereal::BinaryData<T>& bd) {
  ar.loadBinary(bd.data, static_cast<std::size_t>(bd.size));
}

/// std::vector of arithmetic (not bool): exact bound, then one copy.
template <class T, class A>
typename std::enable_if<std::is_arithmetic<T>::value && !std::is_same<T, bool>::value, void>::type
CEREAL_LOAD_FUNCTION_NAME(BoundedBinaryInputArchive& ar, std::vector<T, A>& vec) {
  cereal::size_type size = 0;
  ar(cereal::make_size_tag(size));
  ar.require_elements(size, sizeof(T));
  vec.resize(static_cast<std::size_t>(size));
  ar.loadBinary(vec.data(), static_cast<std::size_t>(size) * sizeof(T));
}

/// std::vector of anything else: decode element by element, growing with the
/// bytes actually consumed.
template <class T, class A>
typename std::enable_if<!std::is_arithmetic<T>::value, void>::type CEREAL_LOAD_FUNCTION_NAME(
    BoundedBinaryInputArchive& ar, std::vector<T, A>& vec) {
  cereal::size_type size = 0;
  ar(cereal::make_size_tag(size));
  vec.clear();
  for (cereal::size_type i = 0; i < size; ++i) {
    vec.emplace_back();
    ar(vec.back());
  }
}

}  // namespace gfn::transport

CEREAL_REGISTER_ARCHIVE(gfn::transport::BoundedBinaryInputArchive)

// Pairs the archive with cereal's binary output archive (needed by load_minimal,
// which cereal uses for enums).
namespace cereal::traits::detail {
template <>
struct get_output_from_input<gfn::transport::BoundedBinaryInputArchive> {
  using type = cereal::BinaryOutputArchive;
};
}  // namespace cereal::traits::detail
