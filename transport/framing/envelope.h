#pragma once
// The message envelope (DESIGN.md section 2, "Messages"): a fixed 16-byte header
// followed by the payload.
//
//   offset 0  magic           4 bytes  "GFNM"
//   offset 4  wire version    u16 LE   kWireVersion
//   offset 6  message type    u16 LE   MessageType
//   offset 8  payload length  u64 LE   bytes following the header
//   offset 16 payload
//
// All functions are pure and thread-safe.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "transport/bytes.h"
#include "transport/errors.h"
#include "transport/framing/message_type.h"

namespace gfn::transport {

constexpr std::uint8_t kEnvelopeMagic[4] = {'G', 'F', 'N', 'M'};
constexpr std::uint16_t kWireVersion = 1;
constexpr std::size_t kEnvelopeHeaderBytes = 16;

/// A decoded envelope: its type and a copy of its payload bytes.
struct Message {
  MessageType type = MessageType::kError;
  Bytes payload;
};

/// A decoded envelope that borrows its payload from the received bytes instead of
/// copying it (decode_envelope_view): valid only while those bytes are alive and
/// unchanged, e.g. until the next receive into the same buffer.
struct MessageView {
  MessageType type = MessageType::kError;
  const std::uint8_t* payload = nullptr;  ///< first payload byte (null when empty)
  std::size_t payload_size = 0;
};

/// A view of an owned message's payload (valid while `message` lives).
inline MessageView view_of(const Message& message) {
  return MessageView{message.type, message.payload.empty() ? nullptr : message.payload.data(),
                     message.payload.size()};
}

/// Writes the 16-byte header for `type` and `payload_bytes` into `out[0..16)`.
void write_envelope_header(std::uint8_t* out, MessageType type, std::uint64_t payload_bytes);

/// Header followed by the `n` payload bytes at `payload` (may be null when n == 0).
Bytes encode_envelope(MessageType type, const std::uint8_t* payload, std::size_t n);

/// Parses `bytes` (one whole received message). Throws MessageError, naming what
/// is wrong, if `bytes` is shorter than the header, the magic is wrong, the
/// version is not kWireVersion, the type is unknown, the length field is above
/// `max_payload_bytes`, or the length field differs from the bytes actually
/// present (truncated message or trailing garbage). Allocates only the payload
/// bytes actually present.
Message decode_envelope(const Bytes& bytes, std::size_t max_payload_bytes);

/// As decode_envelope on the `size` bytes at `data` (null only when size == 0), without
/// copying the payload: the view points into `data`. Same checks, same MessageError
/// texts; allocates nothing.
MessageView decode_envelope_view(const std::uint8_t* data, std::size_t size,
                                 std::size_t max_payload_bytes);
inline MessageView decode_envelope_view(const Bytes& bytes, std::size_t max_payload_bytes) {
  return decode_envelope_view(bytes.data(), bytes.size(), max_payload_bytes);
}

}  // namespace gfn::transport
