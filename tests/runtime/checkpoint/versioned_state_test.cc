// runtime/checkpoint/versioned_state.h: a state read back strictly, and an older format
// version read by a state that knows its layout.
#include "runtime/checkpoint/versioned_state.h"

#include <gtest/gtest.h>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gfn::checkpoint {
namespace {

/// Version 1 held `name` and `values`; version 2 added `elapsed_s` at the end.
struct Toy {
  std::string name;
  std::vector<std::int64_t> values;
  double elapsed_s = 0;
  std::uint32_t format_version = 2;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(name, values);
    if (format_version >= 2) ar(elapsed_s);
  }
};

/// The version-1 layout, as an older build wrote it.
struct ToyV1 {
  std::string name;
  std::vector<std::int64_t> values;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(name, values);
  }
};

TEST(VersionedState, RoundTripsTheCurrentVersion) {
  const Toy saved{"table", {3, -1, 7}, 12.5, 2};
  Toy read;
  EXPECT_EQ(decode_versioned_between(encode_versioned(2, saved), 1, 2, "toy", read), 2u);
  EXPECT_EQ(read.name, saved.name);
  EXPECT_EQ(read.values, saved.values);
  EXPECT_EQ(read.elapsed_s, 12.5);
}

TEST(VersionedState, ReadsAnOlderVersionWithItsLayout) {
  Toy read;
  read.elapsed_s = -1;
  const auto bytes = encode_versioned(1, ToyV1{"old", {4, 5}});
  EXPECT_EQ(decode_versioned_between(bytes, 1, 2, "toy", read), 1u);
  EXPECT_EQ(read.name, "old");
  EXPECT_EQ(read.values, (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(read.elapsed_s, -1);  // not in version 1: left as it was
}

TEST(VersionedState, RefusesVersionsOutsideTheRangeNamingThem) {
  Toy read;
  try {
    decode_versioned_between(encode_versioned(3, ToyV1{"new", {}}), 1, 2, "toy state", read);
    FAIL() << "version 3 was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "toy state: format version 3 (this build reads versions 1 to 2)");
  }
  std::vector<std::int64_t> single;
  try {
    decode_versioned(encode_versioned(1, single), 2, "rows", single);
    FAIL() << "version 1 was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "rows: format version 1 (this build reads version 2)");
  }
}

TEST(VersionedState, RefusesTruncatedBytesAndBytesLeftOver) {
  const auto bytes = encode_versioned(2, Toy{"table", {1, 2, 3}, 1.0, 2});
  Toy read;
  EXPECT_THROW(decode_versioned_between(bytes.substr(0, bytes.size() - 3), 1, 2, "toy", read),
               std::runtime_error);
  // A version-2 state labelled version 1: its elapsed_s is left over.
  auto relabelled = bytes;
  relabelled[1] = 1;  // after the archive's endianness byte
  EXPECT_THROW(decode_versioned_between(relabelled, 1, 2, "toy", read), std::runtime_error);
}

TEST(VersionedState, DecodesASingleVersionStateAsBefore) {
  const std::vector<std::int64_t> rows{9, 8, 7};
  std::vector<std::int64_t> read;
  decode_versioned(encode_versioned(5, rows), 5, "rows", read);
  EXPECT_EQ(read, rows);
}

}  // namespace
}  // namespace gfn::checkpoint
