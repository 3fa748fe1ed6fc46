// The one trajectory layout (runtime/buffer/packed_trajectories.h): building, offsets,
// sequences, and the layout's checks.
#include "runtime/buffer/packed_trajectories.h"

#include <gtest/gtest.h>
#include <cereal/archives/binary.hpp>
#include <cereal/types/vector.hpp>

#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace gfn::buffer {
namespace {

std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(PackedTrajectories, BuildsAndReadsBack) {
  const auto t = PackedTrajectories::from_sequences({{0, 1, 2}, {2}, {}, {1, 2}});
  EXPECT_EQ(t.lengths, (std::vector<std::int32_t>{3, 1, 0, 2}));
  EXPECT_EQ(t.actions, (std::vector<std::int64_t>{0, 1, 2, 2, 1, 2}));
  EXPECT_EQ(t.offsets(), (std::vector<std::size_t>{0, 3, 4, 4, 6}));
  EXPECT_EQ(t.sequence(3), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(t.sequence(2), (std::vector<std::int64_t>{}));
  EXPECT_EQ(t.size(), 4);
  PackedTrajectories u;
  EXPECT_TRUE(u.empty());
  const std::int64_t a[] = {0, 1, 2};
  u.append(a, 3);
  EXPECT_EQ(u, PackedTrajectories({3}, {0, 1, 2}));
  u.clear();
  EXPECT_TRUE(u.empty() && u.actions.empty());
}

// A payload holding a PackedTrajectories member is byte-identical to one that held the two
// vectors (lengths, then actions): the nested struct adds nothing on the wire.
TEST(PackedTrajectories, SerializesAsItsTwoVectors) {
  const auto t = PackedTrajectories::from_sequences({{0, 1, 2}, {2}});
  std::ostringstream packed, flat;
  {
    cereal::BinaryOutputArchive ar(packed);
    std::int64_t before = 7;
    bool after = true;
    ar(before, t, after);
  }
  {
    cereal::BinaryOutputArchive ar(flat);
    std::int64_t before = 7;
    bool after = true;
    ar(before, t.lengths, t.actions, after);
  }
  EXPECT_EQ(packed.str(), flat.str());
  PackedTrajectories back;
  std::istringstream in(packed.str());
  cereal::BinaryInputArchive ar(in);
  std::int64_t before = 0;
  bool after = false;
  ar(before, back, after);
  EXPECT_EQ(back, t);
  EXPECT_TRUE(after);
}

TEST(PackedTrajectories, ChecksTheLayout) {
  const auto ok = PackedTrajectories::from_sequences({{0, 1, 2}, {2}});
  EXPECT_NO_THROW(check_packed_trajectories(ok, 2, 3, false, "x"));
  EXPECT_NO_THROW(check_packed_trajectories({}, 5, 3, false, "x"));  // no trajectories
  const auto missing = PackedTrajectories::from_sequences({{0, 2}, {}});
  EXPECT_NO_THROW(check_packed_trajectories(missing, 2, 3, true, "x"));
  EXPECT_NE(what_of([&] {
              check_packed_trajectories(missing, 2, 3, false, "DATA");
            }).find("DATA: trajectory 1 has length 0"),
            std::string::npos);
  EXPECT_NE(what_of([&] {
              check_packed_trajectories(ok, 3, 3, false, "x");
            }).find("2 trajectory lengths for 3 items"),
            std::string::npos);
  EXPECT_NE(what_of([&] {
              check_packed_trajectories(PackedTrajectories({}, {1}), 0, 3, false, "x");
            }).find("1 actions but no trajectory lengths"),
            std::string::npos);
  EXPECT_NE(what_of([&] {
              check_packed_trajectories(PackedTrajectories({1}, {2, 2}), 1, 3, false, "x");
            }).find("add up to 1, but 2 actions"),
            std::string::npos);
  EXPECT_NE(what_of([&] {
              check_packed_trajectories(PackedTrajectories({3}, {2}), 1, 3, false, "x");
            }).find("more than the 1 actions"),
            std::string::npos);
  const auto early_exit = PackedTrajectories::from_sequences({{2, 2}});
  EXPECT_NE(what_of([&] {
              check_packed_trajectories(early_exit, 1, 3, false, "x");
            }).find("exit before the end"),
            std::string::npos);
  const auto no_exit = PackedTrajectories::from_sequences({{0, 1}});
  EXPECT_NE(what_of([&] {
              check_packed_trajectories(no_exit, 1, 3, false, "x");
            }).find("no exit at the end"),
            std::string::npos);
  EXPECT_NO_THROW(check_packed_trajectories(no_exit, 1, 0, false, "x"));  // values unchecked
  const auto out_of_range = PackedTrajectories::from_sequences({{5, 2}});
  EXPECT_NE(what_of([&] {
              check_packed_trajectories(out_of_range, 1, 3, false, "x");
            }).find("action 5 outside [0, 3)"),
            std::string::npos);
}

}  // namespace
}  // namespace gfn::buffer
