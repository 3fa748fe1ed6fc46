#pragma once
// Checksums of checkpoint files (runtime/checkpoint/manifest.h): CRC-32 (zlib's crc32, the
// polynomial of zip / PNG). Detects truncation and accidental corruption, not tampering.
// Thread-safe (pure functions). Cost: O(bytes), about 1 GB/s.

#include <cstdint>
#include <string>
#include <string_view>

namespace gfn::checkpoint {

/// CRC-32 of `bytes` (zlib crc32 from 0).
std::uint32_t crc32_of(std::string_view bytes);
/// Eight lowercase hexadecimal digits, e.g. "0a1b2c3d".
std::string hex32(std::uint32_t value);

}  // namespace gfn::checkpoint
