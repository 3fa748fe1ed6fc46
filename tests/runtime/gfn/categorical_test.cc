// sample_categorical (runtime/gfn/categorical.h) against its reference, at::multinomial(p, 1):
// the same draws from generators with the same seed, the generators left in the same state,
// the same refusals.

#include "runtime/gfn/categorical.h"

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>
#include <stdexcept>

namespace gfn::core {
namespace {

// Rows of probabilities with zeros (masked actions), unnormalized rows, one-hot rows and a
// single column; several seeds.
TEST(Categorical, DrawsEqualMultinomialDrawForDraw) {
  torch::manual_seed(1);
  int compared = 0;
  for (const std::int64_t k : {1, 3, 9, 17}) {
    for (const std::int64_t m : {0, 1, 7, 300}) {
      at::Tensor p = torch::rand({m, k});
      p.masked_fill_(torch::rand({m, k}) < 0.3, 0.0f);
      if (m > 0) p.select(1, 0).fill_(0.25f);       // every row has an allowed action
      if (m > 1) p[1].zero_(), p[1][k - 1] = 5.0f;  // one-hot, unnormalized
      for (const std::uint64_t seed : {3ULL, 11ULL}) {
        at::Generator a = at::detail::createCPUGenerator(seed);
        at::Generator b = at::detail::createCPUGenerator(seed);
        const at::Tensor ours = sample_categorical(p, a);
        const at::Tensor ref = at::multinomial(p, 1, /*replacement=*/false, b).squeeze(1);
        ASSERT_EQ(ours.sizes(), ref.sizes());
        EXPECT_TRUE(torch::equal(ours, ref)) << "k " << k << " m " << m << " seed " << seed;
        // The generators are in the same state afterwards.
        EXPECT_TRUE(torch::equal(torch::rand({4}, a), torch::rand({4}, b)));
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 32);
}

// The draws follow the distribution: 20,000 rows of (0.1, 0, 0.6, 0.3).
// ExponentialDraws' two phases (the generator's words, then one draw per word) give
// exponential_'s numbers, bit for bit, and leave the generator where next() leaves it.
TEST(Categorical, DrawsFromWordsEqualExponential) {
  for (const std::int64_t n : {1, 17, 5000}) {
    at::Generator a = at::detail::createCPUGenerator(7);
    at::Generator b = at::detail::createCPUGenerator(7);
    ExponentialDraws by_words(a);
    ASSERT_FALSE(by_words.uses_aten());
    const std::uint64_t* words = by_words.next_words(n);
    at::Tensor reference = at::empty({n}, at::kFloat);
    reference.exponential_(1.0, b);
    const float* expected = reference.data_ptr<float>();
    for (std::int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(ExponentialDraws::draw(words[i]), expected[i]) << "draw " << i << " of " << n;
    }
    EXPECT_EQ(at::check_generator<at::CPUGeneratorImpl>(a)->random64(),
              at::check_generator<at::CPUGeneratorImpl>(b)->random64());
  }
}

TEST(Categorical, FrequenciesFollowTheProbabilities) {
  const at::Tensor p = torch::tensor({0.1f, 0.0f, 0.6f, 0.3f}).repeat({20000, 1});
  at::Generator g = at::detail::createCPUGenerator(5);
  const at::Tensor counts = torch::bincount(sample_categorical(p, g), {}, 4).to(torch::kDouble);
  const at::Tensor freq = counts / 20000.0;
  EXPECT_EQ(counts[1].item<double>(), 0.0);
  EXPECT_NEAR(freq[0].item<double>(), 0.1, 0.01);
  EXPECT_NEAR(freq[2].item<double>(), 0.6, 0.015);
  EXPECT_NEAR(freq[3].item<double>(), 0.3, 0.015);
}

TEST(Categorical, RefusesWhatMultinomialRefuses) {
  at::Generator g = at::detail::createCPUGenerator(1);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(sample_categorical(torch::tensor({{0.5f, -0.1f}}), g), std::invalid_argument);
  EXPECT_THROW(sample_categorical(torch::tensor({{0.5f, nan}}), g), std::invalid_argument);
  EXPECT_THROW(sample_categorical(torch::tensor({{inf, 0.5f}}), g), std::invalid_argument);
  EXPECT_THROW(sample_categorical(torch::tensor({{0.5f, 0.5f}, {0.0f, 0.0f}}), g),
               std::invalid_argument);
  // Other dtypes go to at::multinomial itself.
  at::Generator a = at::detail::createCPUGenerator(2);
  at::Generator b = at::detail::createCPUGenerator(2);
  const at::Tensor d = torch::rand({5, 4}, torch::kDouble);
  EXPECT_TRUE(torch::equal(sample_categorical(d, a), at::multinomial(d, 1, false, b).squeeze(1)));
}

}  // namespace
}  // namespace gfn::core
