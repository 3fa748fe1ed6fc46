// Units of tools/gfn-transport-bench: the payload pattern (pattern.h) catches every kind
// of corruption the benchmark must report, and the size sweep and bandwidth (sizes.h). The
// round-trip statistics are the harness's (tests/tools/common/stats_test.cc).
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "tools/gfn-transport-bench/pattern.h"
#include "tools/gfn-transport-bench/sizes.h"

namespace gfn::tbench {
namespace {

std::vector<std::uint8_t> filled(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint8_t> v(n);
  fill_pattern(v.data(), n, seed);
  return v;
}

TEST(TransportBenchPattern, RoundTripsForEverySizeIncludingTails) {
  for (std::size_t n : {1, 2, 7, 8, 9, 15, 16, 17, 4095, 4096, 65537}) {
    const auto seed = pattern_seed(n, 3, Direction::kPing, 1);
    const auto v = filled(n, seed);
    EXPECT_TRUE(check_pattern(v.data(), n, seed)) << n << " bytes";
  }
}

TEST(TransportBenchPattern, DetectsAFlippedBitAnywhere) {
  const std::size_t n = 1027;  // 128 words and a 3-byte tail
  const auto seed = pattern_seed(n, 0, Direction::kPong, 0);
  for (std::size_t at : {std::size_t{0}, std::size_t{511}, std::size_t{1023}, n - 1}) {
    auto v = filled(n, seed);
    v[at] ^= 0x10;
    EXPECT_FALSE(check_pattern(v.data(), n, seed)) << "flip at " << at;
  }
}

TEST(TransportBenchPattern, DependsOnSizeIterationDirectionAndMethod) {
  const std::size_t n = 64;
  const auto base = pattern_seed(n, 5, Direction::kPing, 1);
  const auto v = filled(n, base);
  EXPECT_FALSE(check_pattern(v.data(), n, pattern_seed(n + 1, 5, Direction::kPing, 1)));
  EXPECT_FALSE(check_pattern(v.data(), n, pattern_seed(n, 4, Direction::kPing, 1)));
  EXPECT_FALSE(check_pattern(v.data(), n, pattern_seed(n, 5, Direction::kPong, 1)));
  EXPECT_FALSE(check_pattern(v.data(), n, pattern_seed(n, 5, Direction::kPing, 2)));
  EXPECT_FALSE(check_pattern(v.data(), n, pattern_seed(n, -5, Direction::kPing, 1)));
}

TEST(TransportBenchPattern, DetectsAShiftedPayload) {
  // Words repeat nowhere, so a payload moved by 8 bytes (one word) is caught.
  const std::size_t n = 4096;
  const auto seed = pattern_seed(n, 1, Direction::kPing, 0);
  const auto v = filled(n + 8, seed);
  EXPECT_FALSE(check_pattern(v.data() + 8, n, seed));
}

TEST(TransportBenchSizes, OneWayBandwidthUsesHalfTheRoundTrip) {
  // 1 MB in a 2000 us round trip: 1e6 bytes / 1e-3 s = 1 GB/s.
  EXPECT_DOUBLE_EQ(one_way_gbps(1000000, 2000.0), 1.0);
  EXPECT_DOUBLE_EQ(one_way_gbps(10, 0.0), 0.0);
}

TEST(TransportBenchSizes, SweepSizesLikeNcclTests) {
  EXPECT_EQ(sweep_sizes(1, 64, 2), (std::vector<std::size_t>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(sweep_sizes(1, 100, 8), (std::vector<std::size_t>{1, 8, 64}));
  EXPECT_EQ(sweep_sizes(5, 5, 2), (std::vector<std::size_t>{5}));
  EXPECT_THROW(sweep_sizes(0, 8, 2), std::invalid_argument);
  EXPECT_THROW(sweep_sizes(8, 4, 2), std::invalid_argument);
  EXPECT_THROW(sweep_sizes(1, 8, 1), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::tbench
