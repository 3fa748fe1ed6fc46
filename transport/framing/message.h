#pragma once
// Typed messages: an envelope (transport/framing/envelope.h) around a cereal
// binary payload (docs/architecture.md, "One submission").
//
//   Bytes b = encode_message(EnvelopeType{1}, point);        // sender
//   Message m = decode_envelope(received.bytes, cap);         // receiver
//   auto p = decode_payload<Point>(m);
//
// Without copying the payload out of the received bytes first (a view into them):
//   MessageView v = decode_envelope_view(buffer, cap);
//   decode_payload_into(v, point);   // reuses point's vectors' capacity
//
// The type is opaque here (transport/framing/envelope.h); the protocol's typed
// encode / decode, which pick the type from the payload and name it in errors, are in
// roles/protocol/codec.h. The decoders take an optional EnvelopeTypeNames so that error
// texts name the type ("bad DATA payload: ..."; without one: "bad type 1 payload").
//
// Payload types are cereal-serializable structs (a `template <class A> void
// serialize(A&)` member); std::vector, std::string, std::array, std::pair and
// nested structs are supported (their cereal headers are included here).
// Decoding is bounded (transport/framing/bounded_archive.h): hostile size fields
// fail with MessageError without allocating beyond the bytes present.
// All functions are thread-safe (no shared state).

#include <cereal/archives/binary.hpp>
#include <cereal/types/array.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/utility.hpp>
#include <cereal/types/vector.hpp>
#include <exception>
#include <new>
#include <ostream>
#include <stdexcept>
#include <streambuf>
#include <string>

#include "transport/errors.h"
#include "transport/framing/bounded_archive.h"
#include "transport/framing/envelope.h"

namespace gfn::transport {

namespace framing_detail {
/// A streambuf appending to a Bytes it is pointed at (retargetable, so that one stream per
/// thread serves every message: constructing a std::ostream per message cost ~0.3 us, a
/// quarter of a 128-state submission's framing; tools/gfn-transport-bench).
class AppendBuf : public std::streambuf {
 public:
  void target(Bytes* out) { out_ = out; }

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    out_->insert(out_->end(), reinterpret_cast<const std::uint8_t*>(s),
                 reinterpret_cast<const std::uint8_t*>(s) + n);
    return n;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      out_->push_back(static_cast<std::uint8_t>(traits_type::to_char_type(c)));
    }
    return traits_type::not_eof(c);
  }

 private:
  Bytes* out_ = nullptr;
};

/// This thread's encoding stream and the size of its last message (a reserve hint).
struct EncodeStream {
  AppendBuf buf;
  std::ostream os{&buf};
  std::size_t size_hint = 256;
};
inline EncodeStream& encode_stream() {
  thread_local EncodeStream stream;
  return stream;
}
}  // namespace framing_detail

/// Serializes `payload` with cereal's binary archive into an envelope of `type`.
/// Throws whatever the payload's serialize throws (nothing for plain structs).
/// Thread-safe: each thread encodes through its own reusable stream.
template <class T>
Bytes encode_message(EnvelopeType type, const T& payload) {
  auto& stream = framing_detail::encode_stream();
  Bytes out;
  out.reserve(stream.size_hint);
  out.resize(kEnvelopeHeaderBytes);
  stream.buf.target(&out);
  stream.os.clear();
  try {
    cereal::BinaryOutputArchive ar(stream.os);
    ar(payload);
  } catch (...) {
    stream.buf.target(nullptr);
    throw;
  }
  stream.buf.target(nullptr);
  stream.size_hint = out.size();
  write_envelope_header(out.data(), type, out.size() - kEnvelopeHeaderBytes);
  return out;
}

/// Decodes the payload of `message` into `value`, overwriting every serialized field;
/// vectors of arithmetic elements keep their capacity (a reused `value` allocates only
/// when a message needs more than every earlier one). Throws MessageError naming the
/// message type (through `names`, else "type N") if the payload is truncated, a size
/// field exceeds the bytes present, or bytes are left over after T; `value` is then
/// partly overwritten (decode into it again before use).
template <class T>
void decode_payload_into(const MessageView& message, T& value, EnvelopeTypeNames names = nullptr) {
  BoundedBinaryInputArchive ar(message.payload, message.payload_size);
  const auto bad = [&](const std::string& why) {
    return MessageError("bad " + describe(message.type, names) + " payload: " + why);
  };
  try {
    ar(value);
  } catch (const MessageError& e) {
    throw bad(e.what());
  } catch (const cereal::Exception& e) {
    throw bad(e.what());
  } catch (const std::length_error& e) {
    throw bad(e.what());
  } catch (const std::bad_alloc&) {
    throw bad("allocation failed");
  }
  if (ar.remaining() != 0) {
    throw bad(std::to_string(ar.remaining()) + " trailing bytes after the " +
              std::to_string(message.payload_size - ar.remaining()) + " bytes of the payload");
  }
}

/// Decodes the payload of `message` (a view into received bytes) as a T
/// (default-constructible). Throws as decode_payload_into.
template <class T>
T decode_payload(const MessageView& message, EnvelopeTypeNames names = nullptr) {
  T value{};
  decode_payload_into(message, value, names);
  return value;
}

/// Decodes the payload of `message` as a T (default-constructible). Throws as
/// decode_payload_into.
template <class T>
T decode_payload(const Message& message, EnvelopeTypeNames names = nullptr) {
  return decode_payload<T>(view_of(message), names);
}

}  // namespace gfn::transport
