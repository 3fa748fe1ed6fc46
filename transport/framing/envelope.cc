#include "transport/framing/envelope.h"

#include <fmt/format.h>

#include <cstring>

namespace gfn::transport {

namespace {

void put_u16(std::uint8_t* out, std::uint16_t v) {
  out[0] = static_cast<std::uint8_t>(v & 0xFF);
  out[1] = static_cast<std::uint8_t>(v >> 8);
}

void put_u64(std::uint8_t* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

std::uint16_t get_u16(const std::uint8_t* in) {
  return static_cast<std::uint16_t>(in[0] | (static_cast<std::uint16_t>(in[1]) << 8));
}

std::uint64_t get_u64(const std::uint8_t* in) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | in[i];
  return v;
}

}  // namespace

std::string describe(EnvelopeType type, EnvelopeTypeNames names) {
  const char* name = names ? names(type) : nullptr;
  return name ? std::string(name) : fmt::format("type {}", static_cast<std::uint16_t>(type));
}

void write_envelope_header(std::uint8_t* out, EnvelopeType type, std::uint64_t payload_bytes) {
  std::memcpy(out, kEnvelopeMagic, 4);
  put_u16(out + 4, kWireVersion);
  put_u16(out + 6, static_cast<std::uint16_t>(type));
  put_u64(out + 8, payload_bytes);
}

Bytes encode_envelope(EnvelopeType type, const std::uint8_t* payload, std::size_t n) {
  Bytes out(kEnvelopeHeaderBytes + n);
  write_envelope_header(out.data(), type, n);
  if (n > 0) std::memcpy(out.data() + kEnvelopeHeaderBytes, payload, n);
  return out;
}

MessageView decode_envelope_view(const std::uint8_t* data, std::size_t size,
                                 std::size_t max_payload_bytes, EnvelopeTypeNames names) {
  if (size < kEnvelopeHeaderBytes) {
    throw MessageError(
        fmt::format("message of {} bytes is shorter than the {}-byte envelope header", size,
                    kEnvelopeHeaderBytes));
  }
  const std::uint8_t* h = data;
  if (std::memcmp(h, kEnvelopeMagic, 4) != 0) {
    throw MessageError(fmt::format(
        "message has wrong magic {:02x} {:02x} {:02x} {:02x} (expected \"GFNM\"): not a "
        "gfn-runtime message",
        h[0], h[1], h[2], h[3]));
  }
  const std::uint16_t version = get_u16(h + 4);
  if (version != kWireVersion) {
    throw MessageError(
        fmt::format("message has unknown wire version {} (this build speaks version {})", version,
                    kWireVersion));
  }
  const EnvelopeType type{get_u16(h + 6)};
  if (names && names(type) == nullptr) {
    throw MessageError(
        fmt::format("message has unknown message type {}", static_cast<std::uint16_t>(type)));
  }
  const std::uint64_t length = get_u64(h + 8);
  if (length > max_payload_bytes) {
    throw MessageError(
        fmt::format("{} message declares a payload of {} bytes, above the cap of {} bytes",
                    describe(type, names), length, max_payload_bytes));
  }
  const std::size_t present = size - kEnvelopeHeaderBytes;
  if (length != present) {
    throw MessageError(
        fmt::format("{} message declares a payload of {} bytes but {} bytes are present ({})",
                    describe(type, names), length, present,
                    length > present ? "truncated" : "trailing garbage"));
  }
  return MessageView{type, present == 0 ? nullptr : data + kEnvelopeHeaderBytes, present};
}

Message decode_envelope(const Bytes& bytes, std::size_t max_payload_bytes,
                        EnvelopeTypeNames names) {
  const MessageView view = decode_envelope_view(bytes, max_payload_bytes, names);
  Message m;
  m.type = view.type;
  m.payload.assign(view.payload, view.payload + view.payload_size);
  return m;
}

}  // namespace gfn::transport
