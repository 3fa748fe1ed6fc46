// libFuzzer target: the envelope framing (transport/framing/envelope.h) on arbitrary bytes.
// Input: byte 0 picks the size cap and whether a names function is passed; the rest is one
// "received" message. Properties: decode_envelope and decode_envelope_view agree (both
// accept with the same type and payload, or both throw MessageError), an accepted payload
// is within the cap and re-encodes to the input byte for byte, and nothing but
// MessageError is thrown.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tests/fuzz/fuzz_check.h"
#include "transport/framing/envelope.h"

namespace {

using gfn::transport::Bytes;
using gfn::transport::EnvelopeType;

const char* names(EnvelopeType type) noexcept {
  return static_cast<std::uint16_t>(type) < 20 ? "KNOWN" : nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t caps[] = {0, 1, 16, 4096, std::size_t{256} << 20};
  const std::size_t cap = caps[data[0] % 5];
  const auto names_fn = (data[0] & 0x80) ? &names : nullptr;
  const Bytes bytes(data + 1, data + size);
  bool owned_ok = false;
  gfn::transport::Message message;
  try {
    message = gfn::transport::decode_envelope(bytes, cap, names_fn);
    owned_ok = true;
  } catch (const gfn::transport::MessageError&) {
  }
  bool view_ok = false;
  gfn::transport::MessageView view;
  try {
    view = gfn::transport::decode_envelope_view(bytes.data(), bytes.size(), cap, names_fn);
    view_ok = true;
  } catch (const gfn::transport::MessageError&) {
  }
  FUZZ_CHECK(owned_ok == view_ok);
  if (!owned_ok) return 0;
  FUZZ_CHECK(message.type == view.type);
  FUZZ_CHECK(message.payload.size() == view.payload_size);
  FUZZ_CHECK(view.payload_size <= cap);
  FUZZ_CHECK(bytes.size() == gfn::transport::kEnvelopeHeaderBytes + view.payload_size);
  FUZZ_CHECK(view.payload_size == 0 ||
             std::memcmp(view.payload, message.payload.data(), view.payload_size) == 0);
  FUZZ_CHECK(view.payload_size == 0 ||
             view.payload == bytes.data() + gfn::transport::kEnvelopeHeaderBytes);
  const Bytes again = gfn::transport::encode_envelope(
      message.type, message.payload.empty() ? nullptr : message.payload.data(),
      message.payload.size());
  FUZZ_CHECK(again == bytes);
  return 0;
}
