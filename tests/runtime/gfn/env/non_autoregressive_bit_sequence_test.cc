// NonAutoregressiveBitSequence (runtime/gfn/env/non_autoregressive_bit_sequence.h): the
// Environment contract on instances with and without enumeration and row dynamics; its rewards
// against a recomputation from the definition (bits, Hamming distance, exponent); the masks of
// hand-made states; backward steps undoing forward steps on every state; the state counts
// against their closed forms; the modes against the sets torchgfn's draws give (computed by
// torchgfn_bitseq_modes.py with python3-torch, a ctest fixture), the mode hits and 1 / Z; the
// options it refuses.
#include "runtime/gfn/env/non_autoregressive_bit_sequence.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/preprocessors.h"
#include "tests/support/environment_contract.h"

namespace gfn::core {
namespace {

using Options = NonAutoregressiveBitSequenceOptions;

Options options(int seq_size, int word_size, int n_modes) {
  Options o;
  o.seq_size = seq_size;
  o.word_size = word_size;
  o.n_modes = n_modes;
  return o;
}

// Through the registry, as gfn-train builds it.
std::unique_ptr<Environment> registered(int seq_size, int word_size, int n_modes) {
  EnvOptions o;
  o.name = "non_autoregressive_bit_sequence";
  o.get<Options>() = options(seq_size, word_size, n_modes);
  return make_environment(o);
}

at::Tensor rows(const std::vector<std::vector<std::int64_t>>& r) {
  std::vector<std::int64_t> flat;
  for (const auto& x : r) flat.insert(flat.end(), x.begin(), x.end());
  return at::tensor(flat, at::kLong).view({static_cast<std::int64_t>(r.size()), -1});
}

std::int64_t ipow(std::int64_t base, std::int64_t e) {
  std::int64_t r = 1;
  while (e-- > 0) r *= base;
  return r;
}

std::int64_t binomial(std::int64_t n, std::int64_t k) {
  std::int64_t r = 1;
  for (std::int64_t i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

TEST(NonAutoregressiveBitSequence, EnvironmentContract) {
  // The benchmark's two instances (enumerable, row dynamics), a short sequence with random
  // modes, one with row dynamics but too many states to enumerate, one with neither.
  test::check_generic(*registered(8, 1, 2));
  test::check_generic(*registered(8, 2, 4));
  test::check_generic(*registered(6, 2, 3));
  const auto keyed = registered(32, 2, 4);  // 5^16 states
  EXPECT_FALSE(keyed->enumerable());
  EXPECT_NE(keyed->row_dynamics(), nullptr);
  test::check_generic(*keyed);
  const auto large = registered(64, 4, 10);  // 17^16 > 2^62
  EXPECT_FALSE(large->enumerable());
  EXPECT_EQ(large->row_dynamics(), nullptr);
  test::check_generic(*large);
  // A uniform PF reaches each sequence by L! orders of probability prod_t 1 / (t V) each:
  // 1 / V^L = 2^-n.
  test::check_enumeration(*registered(8, 1, 2), 1.0 / 256);
  test::check_enumeration(*registered(8, 2, 4), 1.0 / 256);
  test::check_enumeration(*registered(6, 2, 3), 1.0 / 64);
}

// log R(x) = -b d(x) / n recomputed with plain loops on every terminating state, and log Z.
TEST(NonAutoregressiveBitSequence, RewardFromTheDefinition) {
  for (const int k : {1, 2}) {
    Options o = options(8, k, 4);
    o.reward_exponent = 3.0;
    const NonAutoregressiveBitSequence env(o);
    const at::Tensor x = env.terminating_states().contiguous();
    const at::Tensor modes = env.modes().contiguous();
    const at::Tensor lr = env.log_reward(x);
    ASSERT_EQ(lr.scalar_type(), at::kFloat);
    double z = 0;
    for (std::int64_t i = 0; i < x.size(0); ++i) {
      std::vector<std::int64_t> bits;
      for (std::int64_t p = 0; p < env.words(); ++p) {
        const std::int64_t w = x[i][p].item<std::int64_t>();
        for (int j = k - 1; j >= 0; --j) bits.push_back((w >> j) & 1);
      }
      std::int64_t d = 8;
      for (std::int64_t m = 0; m < modes.size(0); ++m) {
        std::int64_t h = 0;
        for (int b = 0; b < 8; ++b) h += bits[b] != modes[m][b].item<std::int64_t>();
        d = std::min(d, h);
      }
      const float expected = -3.0f * static_cast<float>(d) / 8.0f;
      EXPECT_FLOAT_EQ(lr[i].item<float>(), expected) << "k " << k << " state " << i;
      z += std::exp(static_cast<double>(expected));
    }
    EXPECT_NEAR(env.log_partition(), std::log(z), 1e-9);
    EXPECT_NEAR(env.true_distribution().sum().item<double>(), 1.0, 1e-12);
  }
  const NonAutoregressiveBitSequence env(options(8, 2, 4));
  EXPECT_THROW(env.log_reward(rows({{0, -1, 1, 2}})), std::invalid_argument);  // incomplete
  EXPECT_THROW(env.log_reward(rows({{0, 4, 1, 2}})), std::invalid_argument);   // not a word
}

TEST(NonAutoregressiveBitSequence, MasksStepsOfAHandMadeState) {
  const NonAutoregressiveBitSequence env(options(8, 2, 4));  // L = 4 positions, V = 4 words
  EXPECT_EQ(env.n_actions(), 17);
  EXPECT_EQ(env.state_dim(), 4);
  const at::Tensor s = rows({{-1, 2, -1, 0}, {3, 2, 1, 0}});
  // Forward: positions 0 and 2 unfilled (actions 0-3 and 8-11), no exit; the full row: exit.
  EXPECT_TRUE(
      at::equal(env.forward_masks(s), rows({{1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0},
                                            {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}})
                                          .to(at::kBool)));
  // Backward: action p V + w where position p holds w.
  EXPECT_TRUE(
      at::equal(env.backward_masks(s), rows({{0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0},
                                             {0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0}})
                                           .to(at::kBool)));
  const at::Tensor first = s.narrow(0, 0, 1);
  // Action 9 = position 2, word 1; action 3 = position 0, word 3.
  EXPECT_TRUE(at::equal(env.step(first, at::tensor({9}, at::kLong)), rows({{-1, 2, 1, 0}})));
  EXPECT_TRUE(at::equal(env.step(first, at::tensor({3}, at::kLong)), rows({{3, 2, -1, 0}})));
  EXPECT_TRUE(
      at::equal(env.backward_step(first, at::tensor({6}, at::kLong)), rows({{-1, -1, -1, 0}})));
  EXPECT_THROW(env.step(first, at::tensor({5}, at::kLong)), std::invalid_argument);   // filled
  EXPECT_THROW(env.step(first, at::tensor({16}, at::kLong)), std::invalid_argument);  // exit
  EXPECT_THROW(env.backward_step(first, at::tensor({7}, at::kLong)), std::invalid_argument);
  EXPECT_THROW(env.check_states(rows({{-2, 0, 0, 0}}), "test"), std::invalid_argument);
  // Preprocessors: identity (torchgfn's), khot over {-1, .., 3}, onehot of the state index.
  EXPECT_TRUE(at::equal((*env.make_preprocessor(PreprocessorKind::kIdentity))(first),
                        first.to(at::kFloat)));
  const auto khot = env.make_preprocessor(PreprocessorKind::kKHot);
  EXPECT_EQ(khot->output_dim(), 20);
  EXPECT_TRUE(
      at::equal((*khot)(first),
                at::tensor({1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0}, at::kFloat)
                    .view({1, 20})));
  EXPECT_EQ(env.make_preprocessor(PreprocessorKind::kOneHot)->output_dim(), 625);
}

// Every allowed action of every state: backward_step(step(s, a), a) = s, and every allowed
// backward action leads to a parent whose step by the same action gives s back.
TEST(NonAutoregressiveBitSequence, BackwardUndoesForwardOnEveryState) {
  for (const int k : {1, 2}) {
    const NonAutoregressiveBitSequence env(options(8, k, 2));
    const at::Tensor s = env.all_states();
    const at::Tensor fwd = at::nonzero(env.forward_masks(s).narrow(1, 0, env.exit_action()));
    const at::Tensor from = s.index_select(0, fwd.select(1, 0));
    const at::Tensor a = fwd.select(1, 1).contiguous();
    const at::Tensor child = env.step(from, a);
    EXPECT_TRUE(at::equal(env.backward_step(child, a), from)) << "k " << k;
    EXPECT_TRUE(env.backward_masks(child).gather(1, a.view({-1, 1})).all().item<bool>());
    const at::Tensor bwd = at::nonzero(env.backward_masks(s));
    const at::Tensor to = s.index_select(0, bwd.select(1, 0));
    const at::Tensor b = bwd.select(1, 1).contiguous();
    EXPECT_TRUE(at::equal(env.step(env.backward_step(to, b), b), to)) << "k " << k;
    // Children fill one more position; each state of j filled positions has j parents.
    EXPECT_TRUE(at::equal(child.ge(0).sum(1), from.ge(0).sum(1) + 1));
    EXPECT_TRUE(at::equal(env.backward_masks(s).sum(1), s.ge(0).sum(1)));
  }
}

// (V + 1)^L states, of which C(L, j) V^j with j positions filled, and V^L = 2^n terminating.
TEST(NonAutoregressiveBitSequence, EnumerationCountsAgainstTheClosedForm) {
  for (const auto& [n, k] : std::vector<std::pair<int, int>>{{8, 1}, {8, 2}, {6, 2}, {4, 1}}) {
    SCOPED_TRACE("n " + std::to_string(n) + " k " + std::to_string(k));
    const NonAutoregressiveBitSequence env(options(n, k, 1));
    const std::int64_t l = n / k, v = std::int64_t{1} << k;
    ASSERT_TRUE(env.enumerable());
    EXPECT_EQ(env.n_states(), ipow(v + 1, l));
    EXPECT_EQ(env.n_terminating_states(), std::int64_t{1} << n);
    const at::Tensor filled = env.all_states().ge(0).sum(1);
    for (std::int64_t j = 0; j <= l; ++j) {
      EXPECT_EQ(filled.eq(j).sum().item<std::int64_t>(), binomial(l, j) * ipow(v, j)) << j;
    }
    EXPECT_EQ(std::get<0>(at::unique_dim(env.all_states(), 0)).size(0), env.n_states());
    EXPECT_TRUE(at::equal(env.state_indices(env.all_states()), at::arange(env.n_states())));
    EXPECT_TRUE(at::equal(env.terminating_state_indices(env.terminating_states()),
                          at::arange(env.n_terminating_states())));
  }
  // Edges: sum_j C(L, j) V^j (L - j) V = L V (V + 1)^(L-1).
  EXPECT_EQ(registered(8, 1, 2)->state_graph().edge_child.size(), std::size_t{8 * 2 * 2187});
}

// The mode sets torchgfn draws (the fixture's file), for block modes and random short ones.
TEST(NonAutoregressiveBitSequence, ModesAreTorchgfns) {
  std::ifstream in(GFN_BITSEQ_MODES_FILE);
  ASSERT_TRUE(in) << GFN_BITSEQ_MODES_FILE;
  std::string line;
  int cases = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    int seq_size = 0, n_modes = 0;
    std::uint64_t seed = 0;
    fields >> seq_size >> n_modes >> seed;
    std::vector<std::int64_t> bits;
    for (std::int64_t b; fields >> b;) bits.push_back(b);
    SCOPED_TRACE(line.substr(0, 12));
    ASSERT_EQ(bits.size(), static_cast<std::size_t>(seq_size * n_modes));
    for (const int k : {1, 2}) {
      if (seq_size % k != 0) continue;
      Options o = options(seq_size, k, n_modes);
      o.modes_seed = seed;
      EXPECT_TRUE(at::equal(NonAutoregressiveBitSequence(o).modes(),
                            at::tensor(bits, at::kLong).view({n_modes, seq_size})))
          << "k " << k;
    }
    ++cases;
  }
  EXPECT_EQ(cases, 7);
}

TEST(NonAutoregressiveBitSequence, ModeHitsAndProbability) {
  const NonAutoregressiveBitSequence env(options(8, 2, 4));
  EXPECT_EQ(env.n_modes(), 4);
  EXPECT_EQ(env.mode_threshold(), 0);
  // Words of mode 2 and of mode 0, and mode 0 with its last bit flipped.
  const at::Tensor m = env.modes();
  const auto words = [](const at::Tensor& bits) {
    return bits.view({1, 4, 2}).select(2, 0) * 2 + bits.view({1, 4, 2}).select(2, 1);
  };
  at::Tensor off = m[0].clone();
  off[7] = 1 - off[7];
  const at::Tensor x = at::cat({words(m[2]), words(m[0]), words(off)});
  EXPECT_TRUE(at::equal(env.mode_hits(x), at::tensor({2, 0}, at::kLong)));
  EXPECT_TRUE(at::equal(env.is_mode(x), at::tensor({1, 1, 0}, at::kLong).to(at::kBool)));
  EXPECT_FLOAT_EQ(env.log_reward(x)[2].item<float>(), -2.0f / 8.0f);
  // Threshold 0: every mode has R = 1, so an exact sampler gives each with probability 1 / Z.
  ASSERT_TRUE(env.mode_probability().has_value());
  EXPECT_NEAR(*env.mode_probability(),
              env.true_distribution()[env.terminating_state_indices(words(m[1]))[0]].item<double>(),
              1e-12);
  Options one_bit = options(8, 2, 4);
  one_bit.mode_threshold = 1;
  const NonAutoregressiveBitSequence near(one_bit);
  EXPECT_TRUE(near.is_mode(x).all().item<bool>());
  EXPECT_FALSE(near.mode_probability().has_value());
  one_bit.mode_threshold = -1;  // n / 4
  EXPECT_EQ(NonAutoregressiveBitSequence(one_bit).mode_threshold(), 2);
  // The Spearman test set: complete states, per_mode rows per mode.
  const at::Tensor t = *env.test_set(5, 0);
  EXPECT_EQ(t.sizes(), (std::vector<std::int64_t>{20, 4}));
  EXPECT_NO_THROW(env.log_reward(t));
  EXPECT_TRUE(at::equal(t, *env.test_set(5, 0)));
  EXPECT_THROW(env.test_set(0, 0), std::invalid_argument);
}

TEST(NonAutoregressiveBitSequence, RefusesBadOptions) {
  const auto refused = [](Options o, const std::string& key) {
    try {
      NonAutoregressiveBitSequence env(o);
      ADD_FAILURE() << key << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  refused(options(12, 1, 2), "env.seq_size");  // not below 8 nor a multiple of 8
  refused(options(8, 3, 2), "env.seq_size");   // not a multiple of word_size
  refused(options(8, 0, 2), "env.word_size");
  refused(options(8, 1, 6), "env.n_modes");  // 5 one-block modes exist
  refused(options(8, 1, 0), "env.n_modes");
  Options inf = options(8, 1, 2);
  inf.reward_exponent = INFINITY;
  refused(inf, "env.reward_exponent");
}

}  // namespace
}  // namespace gfn::core
