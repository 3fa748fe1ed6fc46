// roles/trainer/spawn/spawn_state.h: a spawn policy's state survives its bytes exactly (every
// field of every decision point), and bytes of another format or cut short are refused with
// a message naming the spawn state.

#include "roles/trainer/spawn/spawn_state.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace gfn::roles {
namespace {

SpawnState example() {
  SpawnState s;
  s.times_replaced = 2;
  s.last_replacement = 40;
  SpawnEvent skipped;
  skipped.iteration = 10;
  skipped.metrics = {0.5, -1.25};
  skipped.skipped = "cooldown";
  SpawnEvent replaced;
  replaced.iteration = 40;
  replaced.metrics = {2.0, 0.125};
  replaced.replaced_any = true;
  replaced.replaced = {3};
  replaced.donors = {2, 5};
  replaced.weights = {0.75, 0.25};
  replaced.applied_at = 42;
  replaced.donor_iterations = {41, 43};
  s.events = {skipped, replaced};
  return s;
}

void expect_equal(const SpawnEvent& a, const SpawnEvent& b) {
  EXPECT_EQ(a.iteration, b.iteration);
  EXPECT_EQ(a.metrics, b.metrics);
  EXPECT_EQ(a.replaced_any, b.replaced_any);
  EXPECT_EQ(a.replaced, b.replaced);
  EXPECT_EQ(a.donors, b.donors);
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_EQ(a.skipped, b.skipped);
  EXPECT_EQ(a.applied_at, b.applied_at);
  EXPECT_EQ(a.donor_iterations, b.donor_iterations);
}

TEST(SpawnState, RoundTripsEveryField) {
  const SpawnState s = example();
  const SpawnState back = decode_spawn_state(encode_spawn_state(s));
  EXPECT_EQ(back.times_replaced, 2);
  EXPECT_EQ(back.last_replacement, 40);
  ASSERT_EQ(back.events.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) expect_equal(back.events[i], s.events[i]);
  EXPECT_EQ(decode_spawn_state(encode_spawn_state(SpawnState{})).last_replacement, -1);
}

TEST(SpawnState, RefusesTruncatedAndForeignBytes) {
  const std::string bytes = encode_spawn_state(example());
  for (const std::string& bad :
       {bytes.substr(0, bytes.size() - 3), std::string("\x07\0\0\0", 4), bytes + "x"}) {
    try {
      decode_spawn_state(bad);
      FAIL() << "accepted " << bad.size() << " bytes";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("spawn policy's state"), std::string::npos) << e.what();
    }
  }
}

// A checkpoint whose trainer file has no spawn entry, resumed with a policy that has state.
TEST(SpawnState, RefusesNoBytes) {
  try {
    decode_spawn_state("");
    FAIL() << "accepted no bytes";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("the trainer's state has no spawn policy state"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gfn::roles
