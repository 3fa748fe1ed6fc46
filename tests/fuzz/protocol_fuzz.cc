// libFuzzer target: every message payload's decoder (roles/protocol/codec.h), one per row
// of the X-macro table roles/protocol/message_table.h, as a receiver runs them: the input
// is framed in an envelope of the chosen type, decoded with protocol::decode_message_view,
// then with protocol::decode_into the row's payload struct.
//
// Which decoder: `--message=NAME` (e.g. --message=DATA; libFuzzer ignores flags that
// start with "--") fixes it; without it, input byte 0 picks the row (modulo the table).
// Properties: a decoder throws nothing but transport::MessageError; a payload it accepts
// re-encodes to bytes that decode to the same re-encoding (encode(decode(x)) is a fixed
// point); allocation stays within the -malloc_limit_mb cap (the bounded archive).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "roles/protocol/codec.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

namespace protocol = gfn::protocol;
using gfn::transport::Bytes;

constexpr std::size_t kRows = sizeof(protocol::kMessages) / sizeof(protocol::kMessages[0]);
constexpr std::size_t kCap = std::size_t{256} << 20;
int g_row = -1;  // fixed by --message=NAME

template <class Payload>
void fuzz_payload(const std::uint8_t* payload, std::size_t n) {
  const Bytes framed = gfn::transport::encode_envelope(
      protocol::envelope_type(protocol::MessageSpec<Payload>::type), n == 0 ? nullptr : payload, n);
  Payload decoded{};
  try {
    protocol::decode_into(protocol::decode_message_view(framed, kCap), decoded);
  } catch (const gfn::transport::MessageError&) {
    return;  // refused: the only allowed failure
  }
  const Bytes once = protocol::encode(decoded);
  const Payload again = protocol::decode<Payload>(protocol::decode_message_view(once, kCap));
  FUZZ_CHECK(protocol::encode(again) == once);
}

void fuzz_row(std::size_t row, const std::uint8_t* payload, std::size_t n) {
  switch (protocol::kMessages[row].type) {
#define GFN_FUZZ_CASE(e, value, text, Payload, ...) \
  case protocol::MessageType::e:                    \
    fuzz_payload<protocol::Payload>(payload, n);    \
    return;
    GFN_PROTOCOL_MESSAGES(GFN_FUZZ_CASE)
#undef GFN_FUZZ_CASE
    case protocol::MessageType::kNone:
      break;
  }
  FUZZ_CHECK(!"a row of the table has no payload");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  const std::string flag = "--message=";
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = (*argv)[i];
    if (arg.rfind(flag, 0) != 0) continue;
    const std::string wanted = arg.substr(flag.size());
    for (std::size_t r = 0; r < kRows; ++r) {
      if (wanted == protocol::kMessages[r].name) g_row = static_cast<int>(r);
    }
    if (g_row < 0) {
      std::fprintf(stderr, "protocol_fuzz: unknown message '%s'\n", wanted.c_str());
      std::exit(2);
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (g_row >= 0) {
    fuzz_row(static_cast<std::size_t>(g_row), data, size);
  } else if (size > 0) {
    fuzz_row(data[0] % kRows, data + 1, size - 1);
  }
  return 0;
}
