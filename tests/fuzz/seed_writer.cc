// Writes the seed corpora of the fuzz targets (tools/run_fuzz.sh runs it): valid inputs
// the fuzzer mutates from, so it starts past the envelope and size checks.
//   <dir>/protocol/<NAME>           row byte + the payload of a default NAME message
//   <dir>/protocol_<NAME>/default   the payload alone (for protocol_fuzz --message=NAME)
//   <dir>/submission/valid          n_actions byte, flags byte, a DATA payload with
//                                   three trajectories that pass the checks
//   <dir>/envelope/<NAME>           cap byte + a whole default NAME message
// Usage: seed_writer <dir>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "roles/protocol/codec.h"

namespace {

namespace protocol = gfn::protocol;
using gfn::transport::Bytes;

void write(const std::filesystem::path& path, const std::uint8_t* prefix, std::size_t np,
           const Bytes& bytes, std::size_t skip) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(prefix), static_cast<std::streamsize>(np));
  out.write(reinterpret_cast<const char*>(bytes.data() + skip),
            static_cast<std::streamsize>(bytes.size() - skip));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: seed_writer <dir>\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const std::size_t header = gfn::transport::kEnvelopeHeaderBytes;
  std::uint8_t row = 0;
#define GFN_SEED(e, value, text, Payload, ...)                                               \
  {                                                                                          \
    const Bytes message = protocol::encode(protocol::Payload{});                             \
    write(dir / "protocol" / text, &row, 1, message, header);                                \
    write(dir / (std::string("protocol_") + text) / "default", nullptr, 0, message, header); \
    const std::uint8_t cap = 0x83; /* 4096 bytes, names on */                                \
    write(dir / "envelope" / text, &cap, 1, message, 0);                                     \
    ++row;                                                                                   \
  }
  GFN_PROTOCOL_MESSAGES(GFN_SEED)
#undef GFN_SEED
  protocol::Submission sub;
  sub.iteration = 7;
  sub.ndim = 2;
  sub.states = {1, 2, 3, 4, 0, 0};
  sub.log_rewards = {-1.0f, -2.0f, -0.5f};
  sub.trajectories = gfn::buffer::PackedTrajectories({2, 3, 1}, {0, 4, 1, 1, 4, 4});
  const std::uint8_t prefix[2] = {5, 0};  // n_actions 5 (exit 4), no missing trajectories
  write(dir / "submission" / "valid", prefix, 2, protocol::encode(sub), header);
  // A continuous environment's DATA: float32 rows, no trajectories.
  protocol::Submission box;
  box.iteration = 3;
  box.ndim = 2;
  box.state_dtype = gfn::buffer::StateDtype::kFloat32;
  box.float_states = {0.25f, 0.5f, 0.75f, 0.125f};
  box.log_rewards = {-1.0f, -0.25f};
  write(dir / "submission" / "valid_float32", prefix, 2, protocol::encode(box), header);
  return 0;
}
