#pragma once
// The message envelope (docs/architecture.md, "One submission"): a fixed 16-byte header
// followed by the payload.
//
//   offset 0  magic           4 bytes  "GFNM"
//   offset 4  wire version    u16 LE   kWireVersion
//   offset 6  envelope type   u16 LE   EnvelopeType (opaque here)
//   offset 8  payload length  u64 LE   bytes following the header
//   offset 16 payload
//
// Framing knows envelopes only: the type is an opaque 16-bit value. Which types exist,
// their names, payloads and tags are the protocol's (roles/protocol/message_table.h). A
// receiver that wants unknown types refused and types named in error texts passes an
// EnvelopeTypeNames function to the decoders; without one every type is accepted and
// error texts say "type N".
//
// All functions are pure and thread-safe (a names function must be too).

#include <cstddef>
#include <cstdint>
#include <vector>

#include <string>
#include "transport/bytes.h"

#include "transport/errors.h"

namespace gfn::transport {

constexpr std::uint8_t kEnvelopeMagic[4] = {'G', 'F', 'N', 'M'};
/// Version of the wire format, envelope AND the protocol inside it: a receiver refuses
/// any other. History: 1 = the first protocol; 2 = one message type per meaning (EXIT and
/// BASELINE_SYNC split, roles/protocol/message_table.h).
constexpr std::uint16_t kWireVersion = 2;
constexpr std::size_t kEnvelopeHeaderBytes = 16;

/// The type field of an envelope: an opaque 16-bit value (its meaning is the protocol's).
/// Construct with EnvelopeType{v}; read with static_cast<std::uint16_t>(type).
enum class EnvelopeType : std::uint16_t {};

/// Names the envelope types a receiver knows: returns a static, non-null name for a
/// known type and nullptr for an unknown one. Must be thread-safe and must not throw.
using EnvelopeTypeNames = const char* (*)(EnvelopeType) noexcept;

/// "DATA" when `names` knows `type`, else "type N" (for error texts). Never throws
/// anything but std::bad_alloc.
std::string describe(EnvelopeType type, EnvelopeTypeNames names = nullptr);

/// A decoded envelope: its type and a copy of its payload bytes.
struct Message {
  EnvelopeType type{};
  Bytes payload;
};

/// A decoded envelope that borrows its payload from the received bytes instead of
/// copying it (decode_envelope_view): valid only while those bytes are alive and
/// unchanged, e.g. until the next receive into the same buffer.
struct MessageView {
  EnvelopeType type{};
  const std::uint8_t* payload = nullptr;  ///< first payload byte (null when empty)
  std::size_t payload_size = 0;
};

/// A view of an owned message's payload (valid while `message` lives).
inline MessageView view_of(const Message& message) {
  return MessageView{message.type, message.payload.empty() ? nullptr : message.payload.data(),
                     message.payload.size()};
}

/// Writes the 16-byte header for `type` and `payload_bytes` into `out[0..16)`.
void write_envelope_header(std::uint8_t* out, EnvelopeType type, std::uint64_t payload_bytes);

/// Header followed by the `n` payload bytes at `payload` (may be null when n == 0).
Bytes encode_envelope(EnvelopeType type, const std::uint8_t* payload, std::size_t n);

/// Parses `bytes` (one whole received message). Throws MessageError, naming what
/// is wrong, if `bytes` is shorter than the header, the magic is wrong, the
/// version is not kWireVersion, `names` is given and does not know the type
/// ("unknown message type N"), the length field is above `max_payload_bytes`, or the
/// length field differs from the bytes actually present (truncated message or
/// trailing garbage); texts name the type through `names` when it knows it. Allocates
/// only the payload bytes actually present.
Message decode_envelope(const Bytes& bytes, std::size_t max_payload_bytes,
                        EnvelopeTypeNames names = nullptr);

/// As decode_envelope on the `size` bytes at `data` (null only when size == 0), without
/// copying the payload: the view points into `data`. Same checks, same MessageError
/// texts; allocates nothing but an error text.
MessageView decode_envelope_view(const std::uint8_t* data, std::size_t size,
                                 std::size_t max_payload_bytes, EnvelopeTypeNames names = nullptr);
inline MessageView decode_envelope_view(const Bytes& bytes, std::size_t max_payload_bytes,
                                        EnvelopeTypeNames names = nullptr) {
  return decode_envelope_view(bytes.data(), bytes.size(), max_payload_bytes, names);
}

}  // namespace gfn::transport
