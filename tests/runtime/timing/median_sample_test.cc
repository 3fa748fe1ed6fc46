#include "runtime/timing/median_sample.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

namespace gfn::timing {
namespace {

double exact_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

TEST(MedianSample, ExactWhileTheStreamFits) {
  MedianSample s(8);
  EXPECT_EQ(s.median(), 0.0);
  std::vector<double> seen;
  for (double v : {5.0, 1.0, 4.0, 2.0, 3.0, 9.0, 7.0}) {
    s.add(v);
    seen.push_back(v);
    EXPECT_DOUBLE_EQ(s.median(), exact_median(seen)) << "after " << seen.size() << " values";
  }
  EXPECT_THROW(MedianSample(0), std::invalid_argument);
}

// A long stream keeps `capacity` values, and their median estimates the stream's: for
// 200,000 uniform values in [0, 1) and 4,096 kept, the sample median's standard deviation
// is about 0.008; 0.04 is five of them.
TEST(MedianSample, BoundedAndUnbiasedOnALongStream) {
  MedianSample s(4096, 7);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> all;
  for (int i = 0; i < 200000; ++i) {
    const double v = u(rng);
    s.add(v);
    all.push_back(v);
  }
  EXPECT_EQ(s.count(), 200000);
  EXPECT_EQ(s.kept(), 4096u);
  EXPECT_NEAR(s.median(), exact_median(all), 0.04);
  // A stream that turns slow after 30 % of it: a uniform sample is ~70 % slow values
  // (standard deviation ~1.4 % at 1,024 kept), so its median is a slow one; keeping only the
  // start of the stream would give 1.
  MedianSample shifted(1024, 7);
  for (int i = 0; i < 100000; ++i) shifted.add(i < 30000 ? 1.0 : 3.0);
  EXPECT_EQ(shifted.median(), 3.0);
}

}  // namespace
}  // namespace gfn::timing
