// roles/protocol/state_payload.h and the state dtype of DATA / SAMPLE (messages.h): float32
// rows round trip through the codec next to int64 ones, and check_states refuses an unknown
// dtype, sizes that do not match, rows of both dtypes and non-finite float values, with a
// MessageError naming the rule.
#include "roles/protocol/state_payload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "roles/protocol/codec.h"
#include "tests/support/error_text.h"
#include "transport/errors.h"

namespace gfn::protocol {
namespace {

using buffer::StateDtype;
using gfn::testing::what_of;

Submission float_submission() {
  Submission sub;
  sub.iteration = 4;
  sub.ndim = 2;
  sub.state_dtype = StateDtype::kFloat32;
  sub.float_states = {0.1f, 0.2f, -0.0f, 0.75f, 1e-30f, 0.5f};
  sub.log_rewards = {-1.f, -2.f, -3.f};
  sub.scoring_only = true;
  return sub;
}

TEST(StatePayload, FloatRowsRoundTripInDataAndSample) {
  const Submission sub = float_submission();
  const auto back = decode<Submission>(decode_message(encode(sub), 1 << 20));
  EXPECT_EQ(back.state_dtype, StateDtype::kFloat32);
  EXPECT_EQ(back.float_states, sub.float_states);  // bit-exact values, -0 included
  EXPECT_TRUE(std::signbit(back.float_states[2]));
  EXPECT_TRUE(back.states.empty());
  EXPECT_EQ(back.log_rewards, sub.log_rewards);
  EXPECT_TRUE(back.scoring_only);
  EXPECT_NO_THROW(check_states(back.ndim, back.state_dtype, back.states, back.float_states,
                               back.size(), "DATA"));

  SampleBatch batch;
  batch.request = 9;
  batch.granted = true;
  batch.ndim = 3;
  batch.state_dtype = StateDtype::kFloat32;
  batch.float_states = {1.f, 2.f, 3.f};
  batch.log_rewards = {-0.5f};
  const auto sample = decode<SampleBatch>(decode_message(encode(batch), 1 << 20));
  EXPECT_EQ(sample.state_dtype, StateDtype::kFloat32);
  EXPECT_EQ(sample.float_states, batch.float_states);
  EXPECT_EQ(sample.request, 9);
}

TEST(StatePayload, Int64RowsStayAsTheyWere) {
  Submission sub;
  sub.ndim = 2;
  sub.states = {1, 2, 3, 4};
  sub.log_rewards = {0.f, -1.f};
  const auto back = decode<Submission>(decode_message(encode(sub), 1 << 20));
  EXPECT_EQ(back.state_dtype, StateDtype::kInt64);
  EXPECT_EQ(back.states, sub.states);
  EXPECT_TRUE(back.float_states.empty());
  EXPECT_NO_THROW(check_states(back.ndim, back.state_dtype, back.states, back.float_states,
                               back.size(), "DATA"));
}

TEST(StatePayload, RefusesWhatDoesNotMatchItsDtype) {
  const Submission ok = float_submission();
  const auto refusal = [](const Submission& s) {
    return what_of([&] {
      check_states(s.ndim, s.state_dtype, s.states, s.float_states, s.size(), "DATA of test");
    });
  };
  EXPECT_EQ(refusal(ok), "");
  Submission bad = ok;
  bad.state_dtype = static_cast<StateDtype>(7);
  EXPECT_NE(refusal(bad).find("DATA of test: unknown state dtype 7"), std::string::npos);
  bad = ok;
  bad.float_states.pop_back();
  EXPECT_NE(refusal(bad).find("5 float32 state entries"), std::string::npos) << refusal(bad);
  bad = ok;
  bad.states = {1};  // rows of both dtypes
  EXPECT_NE(refusal(bad).find("1 of the other dtype"), std::string::npos) << refusal(bad);
  bad = ok;
  bad.state_dtype = StateDtype::kInt64;  // float rows under the int64 dtype
  EXPECT_NE(refusal(bad).find("0 int64 state entries"), std::string::npos) << refusal(bad);
  bad = ok;
  bad.ndim = 0;
  EXPECT_NE(refusal(bad).find("ndim 0 for 3 items"), std::string::npos) << refusal(bad);
  for (const float v :
       {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    bad = ok;
    bad.float_states[3] = v;
    EXPECT_NE(refusal(bad).find("item 1 has a non-finite float32 state value"), std::string::npos)
        << refusal(bad);
  }
  // The refusal is a MessageError (a receiver answers it with ERROR and goes on).
  bad.ndim = -1;
  EXPECT_THROW(
      check_states(bad.ndim, bad.state_dtype, bad.states, bad.float_states, bad.size(), "DATA"),
      transport::MessageError);
}

}  // namespace
}  // namespace gfn::protocol
