// The Environment interface and its registry, checked on every registered
// environment (masks, step / backward step round trips, enumeration, exact DP), and the
// DiscreteEBM and BitSequence specifics (rewards against hand-computed values, modes).
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "runtime/gfn/env/bit_sequence.h"
#include "runtime/gfn/env/catalog.h"
#include "runtime/gfn/env/discrete_ebm.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/hypergrid.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/validation.h"
#include "tests/support/environment_contract.h"

namespace gfn::core {
namespace {

using test::check_enumeration;
using test::check_generic;

at::Tensor rows(std::vector<std::vector<int64_t>> r) {
  std::vector<int64_t> flat;
  for (const auto& x : r) flat.insert(flat.end(), x.begin(), x.end());
  return at::tensor(flat, at::kLong).view({static_cast<int64_t>(r.size()), -1});
}

core::EnvOptions hypergrid_options() {
  core::EnvOptions o;
  o.get<core::HyperGridOptions>().ndim = 3;
  o.get<core::HyperGridOptions>().height = 4;
  return o;
}

core::EnvOptions ebm_options(int ndim, double alpha) {
  core::EnvOptions o;
  o.name = "discrete_ebm";
  o.get<core::DiscreteEbmOptions>().ndim = ndim;
  o.get<core::DiscreteEbmOptions>().alpha = alpha;
  return o;
}

core::EnvOptions bitseq_options(int seq_size, int word_size, int n_modes) {
  core::EnvOptions o;
  o.name = "bit_sequence";
  o.get<core::BitSequenceOptions>().seq_size = seq_size;
  o.get<core::BitSequenceOptions>().word_size = word_size;
  o.get<core::BitSequenceOptions>().n_modes = n_modes;
  o.get<core::BitSequenceOptions>().beta = 0.5;
  o.get<core::BitSequenceOptions>().mode_threshold = 1;
  return o;
}

TEST(EnvironmentRegistry, NamesAndFactories) {
  const auto names = environment_names();
  for (const char* n : {"hypergrid", "discrete_ebm", "bit_sequence"}) {
    EXPECT_TRUE(has_environment(n)) << n;
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  }
  EXPECT_EQ(make_environment(hypergrid_options())->name(), "hypergrid");
  EXPECT_EQ(make_environment(ebm_options(3, 1.0))->name(), "discrete_ebm");
  EXPECT_EQ(make_environment(bitseq_options(8, 2, 3))->name(), "bit_sequence");
  core::EnvOptions o;
  o.name = "tetris";
  try {
    make_environment(o);
    FAIL() << "unknown name accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("env.name"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("discrete_ebm"), std::string::npos) << e.what();
  }
}

// Every built-in environment is described by its name and its own options (those of its
// `env:` keys, through its registered fields), whatever the other environments' options say.
TEST(EnvironmentRegistry, EveryEnvironmentDescribesItsOptions) {
  for (const auto& entry : environment_catalog()) {
    SCOPED_TRACE(entry.name);
    EnvOptions o;
    o.name = entry.name;
    o.get<HyperGridOptions>().height = 5;  // HyperGrid's only
    const EnvironmentDescription d = make_environment(o)->describe();
    EXPECT_EQ(d.name, entry.name);
    std::set<std::string> keys, expected;
    for (const auto& [key, value] : d.options) keys.insert(key);
    for (const auto& field : entry.fields) expected.insert(field.name);
    EXPECT_EQ(keys, expected);
    EXPECT_EQ(d.options, o.option_values(entry.name));
    // HyperGrid's struct holds 5; walk reads a height of its own (its default, 8).
    if (entry.name == "hypergrid") EXPECT_EQ(d.options.at("height"), "5");
    if (entry.name == "walk") EXPECT_EQ(d.options.at("height"), "8");
    if (entry.name == "bit_sequence") EXPECT_EQ(d.options.count("height"), 0u);
  }
  EXPECT_EQ(make_environment(hypergrid_options())->describe().options.at("height"), "4");
  EXPECT_EQ(make_environment(bitseq_options(8, 2, 3))->describe().options.at("beta"), "0.5");
  // Built without the registry: no options recorded.
  EXPECT_TRUE(HyperGrid(HyperGridOptions{}).describe().options.empty());
}

TEST(EnvironmentGeneric, RoundTripsOnEveryEnvironment) {
  check_generic(*make_environment(hypergrid_options()));
  check_generic(*make_environment(ebm_options(4, 1.0)));
  check_generic(*make_environment(bitseq_options(16, 4, 4)));
  check_generic(*make_environment(bitseq_options(120, 4, 60)));  // not enumerable
  core::EnvOptions walk;
  walk.name = "walk";  // the README example (runtime/gfn/env/walk.cc)
  walk.get<core::HyperGridOptions>().height = 5;
  check_generic(*make_environment(walk));
}

TEST(EnvironmentGeneric, EnumerationAndExactDp) {
  // HyperGrid: uniform PF does not give a uniform terminating distribution.
  check_enumeration(*make_environment(hypergrid_options()), 0);
  // DiscreteEBM: uniform PF reaches each of the 2^ndim states with ndim! / prod 2m =
  // 2^-ndim.
  check_enumeration(*make_environment(ebm_options(4, 0.7)), 1.0 / 16);
  // BitSequence (a tree): (2^-k)^L = 2^-n.
  check_enumeration(*make_environment(bitseq_options(8, 2, 3)), 1.0 / 256);
  core::EnvOptions walk;
  walk.name = "walk";
  walk.get<core::HyperGridOptions>().height = 5;
  check_enumeration(*make_environment(walk), 0);
}

TEST(DiscreteEBM, MasksStepsAndRewards) {
  DiscreteEBM env(ebm_options(3, 0.5).get<core::DiscreteEbmOptions>());
  EXPECT_EQ(env.n_actions(), 7);
  EXPECT_FALSE(env.every_state_terminates());
  const at::Tensor s = rows({{-1, 0, 1}, {0, 1, 1}});
  EXPECT_TRUE(at::equal(env.forward_masks(s),
                        rows({{1, 0, 0, 1, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 1}}).to(at::kBool)));
  EXPECT_TRUE(at::equal(env.backward_masks(s),
                        rows({{0, 1, 0, 0, 0, 1}, {1, 0, 0, 0, 1, 1}}).to(at::kBool)));
  // Action 0 sets entry 0 to 0, action 3 sets entry 0 to 1.
  EXPECT_TRUE(
      at::equal(env.step(s.narrow(0, 0, 1), at::tensor({3}, at::kLong)), rows({{1, 0, 1}})));
  EXPECT_TRUE(
      at::equal(env.step(s.narrow(0, 0, 1), at::tensor({0}, at::kLong)), rows({{0, 0, 1}})));
  EXPECT_TRUE(at::equal(env.backward_step(s.narrow(0, 1, 1), at::tensor({5}, at::kLong)),
                        rows({{0, 1, -1}})));
  EXPECT_THROW(env.step(s.narrow(0, 0, 1), at::tensor({1}, at::kLong)), std::invalid_argument);
  // log R = alpha (sum (2s - 1))^2: (0,0,0) -> 0.5*9, (1,0,1) -> 0.5*1, (1,1,1) -> 4.5.
  const at::Tensor lr = env.log_reward(rows({{0, 0, 0}, {1, 0, 1}, {1, 1, 1}, {0, 1, 0}}));
  ASSERT_EQ(lr.scalar_type(), at::kFloat);
  const std::vector<float> expected = {4.5f, 0.5f, 4.5f, 0.5f};
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(lr[i].item<float>(), expected[i]) << i;
  EXPECT_THROW(env.log_reward(rows({{-1, 0, 1}})), std::invalid_argument);
  EXPECT_THROW(env.log_reward(rows({{2, 0, 1}})), std::invalid_argument);
  // log Z by hand: 2 states with sum^2 = 9, 6 with 1 -> log(2 e^4.5 + 6 e^0.5).
  EXPECT_NEAR(env.log_partition(), std::log(2 * std::exp(4.5) + 6 * std::exp(0.5)), 1e-9);
  // Modes: all-0 (index 0) and all-1 (index 7).
  EXPECT_EQ(env.n_modes(), 2);
  EXPECT_TRUE(at::equal(env.mode_hits(rows({{1, 1, 1}, {0, 1, 1}, {0, 0, 0}})),
                        at::tensor({7, 0}, at::kLong)));
  EXPECT_EQ(env.n_states(), 27);
  EXPECT_EQ(env.terminating_state_indices(rows({{1, 0, 1}}))[0].item<int64_t>(), 5);
  EXPECT_EQ(env.state_indices(rows({{-1, 0, 1}}))[0].item<int64_t>(), 0 * 9 + 1 * 3 + 2);
  // Preprocessors: identity, khot over {-1, 0, 1}, onehot of the state index.
  EXPECT_EQ(env.make_preprocessor(PreprocessorKind::kIdentity)->output_dim(), 3);
  const auto khot = env.make_preprocessor(PreprocessorKind::kKHot);
  EXPECT_TRUE(at::equal((*khot)(rows({{-1, 0, 1}})),
                        at::tensor({1, 0, 0, 0, 1, 0, 0, 0, 1}, at::kFloat).view({1, 9})));
  EXPECT_EQ(env.make_preprocessor(PreprocessorKind::kOneHot)->output_dim(), 27);
  EXPECT_THROW(env.make_preprocessor(static_cast<PreprocessorKind>(99)), std::invalid_argument);
  // Larger instances: not enumerable past ndim 12, modes still defined up to 22.
  DiscreteEBM big(ebm_options(14, 1.0).get<core::DiscreteEbmOptions>());
  EXPECT_FALSE(big.enumerable());
  EXPECT_THROW(big.all_states(), std::domain_error);
  EXPECT_EQ(big.n_modes(), 2);
  EXPECT_THROW(DiscreteEBM(ebm_options(0, 1.0).get<core::DiscreteEbmOptions>()),
               std::invalid_argument);
}

TEST(BitSequence, ModesMasksStepsAndRewards) {
  BitSequence env(bitseq_options(16, 4, 5).get<core::BitSequenceOptions>());
  EXPECT_EQ(env.words(), 4);
  EXPECT_EQ(env.n_actions(), 17);
  // Modes: distinct, made of the paper's 8-bit blocks, reproducible from the seed.
  const at::Tensor& m = env.modes();
  ASSERT_EQ(m.sizes(), (std::vector<int64_t>{5, 16}));
  std::set<std::vector<int64_t>> distinct;
  const std::set<std::vector<int64_t>> blocks = {{0, 0, 0, 0, 0, 0, 0, 0},
                                                 {1, 1, 1, 1, 1, 1, 1, 1},
                                                 {1, 1, 1, 1, 0, 0, 0, 0},
                                                 {0, 0, 0, 0, 1, 1, 1, 1},
                                                 {0, 0, 1, 1, 1, 1, 0, 0}};
  for (int64_t i = 0; i < 5; ++i) {
    const at::Tensor r = m[i].contiguous();
    std::vector<int64_t> v(r.data_ptr<int64_t>(), r.data_ptr<int64_t>() + 16);
    distinct.insert(v);
    for (int b = 0; b < 2; ++b) {
      EXPECT_TRUE(blocks.count(std::vector<int64_t>(v.begin() + 8 * b, v.begin() + 8 * b + 8)));
    }
  }
  EXPECT_EQ(distinct.size(), 5u);
  EXPECT_TRUE(
      at::equal(BitSequence(bitseq_options(16, 4, 5).get<core::BitSequenceOptions>()).modes(), m));
  core::EnvOptions other = bitseq_options(16, 4, 5);
  other.get<core::BitSequenceOptions>().modes_seed = 1;
  EXPECT_FALSE(at::equal(BitSequence(other.get<core::BitSequenceOptions>()).modes(), m));

  // Masks: words until full, exit only when full; backward only the last word.
  const at::Tensor s = rows({{3, 10, -1, -1}, {1, 2, 3, 4}});
  const at::Tensor fm = env.forward_masks(s);
  EXPECT_EQ(fm[0].sum().item<int64_t>(), 16);
  EXPECT_FALSE(fm[0][16].item<bool>());
  EXPECT_EQ(fm[1].sum().item<int64_t>(), 1);
  EXPECT_TRUE(fm[1][16].item<bool>());
  const at::Tensor bm = env.backward_masks(s);
  EXPECT_EQ(bm.sum(1)[0].item<int64_t>(), 1);
  EXPECT_TRUE(bm[0][10].item<bool>());
  EXPECT_TRUE(bm[1][4].item<bool>());
  EXPECT_TRUE(
      at::equal(env.step(s.narrow(0, 0, 1), at::tensor({7}, at::kLong)), rows({{3, 10, 7, -1}})));
  EXPECT_TRUE(at::equal(env.backward_step(s.narrow(0, 1, 1), at::tensor({4}, at::kLong)),
                        rows({{1, 2, 3, -1}})));
  EXPECT_THROW(env.backward_step(s.narrow(0, 1, 1), at::tensor({3}, at::kLong)),
               std::invalid_argument);
  EXPECT_THROW(env.check_states(rows({{3, -1, 2, -1}}), "test"), std::invalid_argument);

  // Reward: the words of mode 0 have distance 0; flipping two bits gives -beta * 2.
  const at::Tensor bits = m[0].view({4, 4});
  const at::Tensor words = (bits * at::tensor({8, 4, 2, 1}, at::kLong)).sum(1).view({1, 4});
  EXPECT_TRUE(at::equal(env.to_bits(words), m[0].view({1, 16})));
  EXPECT_FLOAT_EQ(env.log_reward(words)[0].item<float>(), 0.0f);
  at::Tensor flipped = words.clone();
  flipped[0][0] = flipped[0][0].item<int64_t>() ^ 0b1001;
  const at::Tensor d = env.mode_distances(flipped);
  EXPECT_EQ(d[0][0].item<int64_t>(), 2);
  const float expected = -0.5f * static_cast<float>(d.min().item<int64_t>());
  EXPECT_FLOAT_EQ(env.log_reward(flipped)[0].item<float>(), expected);
  // Mode discovery with threshold 1 bit: the mode itself hits mode 0, two flips do not.
  EXPECT_TRUE(env.is_mode(words)[0].item<bool>());
  const at::Tensor hits = env.mode_hits(words);
  EXPECT_EQ(hits.numel(), 1);
  EXPECT_EQ(hits[0].item<int64_t>(), 0);
  EXPECT_EQ(env.mode_hits(flipped).numel(), (d.le(1).sum()).item<int64_t>());
  EXPECT_THROW(env.log_reward(s.narrow(0, 0, 1)), std::invalid_argument);  // incomplete

  // Enumerated indices: s0 = 0, length-1 states 1..16, ...
  EXPECT_EQ(env.state_indices(rows({{-1, -1, -1, -1},
                                    {0, -1, -1, -1},
                                    {15, -1, -1, -1},
                                    {0, 0, -1, -1},
                                    {1, 2, -1, -1}}))
                .equal(at::tensor({0, 1, 16, 17, 17 + 18}, at::kLong)),
            true);

  // Bad options.
  EXPECT_THROW(BitSequence(bitseq_options(12, 4, 1).get<core::BitSequenceOptions>()),
               std::invalid_argument);  // not x8
  EXPECT_THROW(BitSequence(bitseq_options(16, 3, 1).get<core::BitSequenceOptions>()),
               std::invalid_argument);  // not x3
  EXPECT_THROW(BitSequence(bitseq_options(16, 4, 26).get<core::BitSequenceOptions>()),
               std::invalid_argument);  // > 5^2
  // The paper's size: not enumerable, 60 modes, default threshold n / 4.
  core::EnvOptions paper = bitseq_options(120, 4, 60);
  paper.get<core::BitSequenceOptions>().mode_threshold = -1;
  BitSequence big(paper.get<core::BitSequenceOptions>());
  EXPECT_FALSE(big.enumerable());
  EXPECT_EQ(big.n_modes(), 60);
  EXPECT_EQ(big.mode_threshold(), 30);
  EXPECT_THROW(big.true_distribution(), std::domain_error);
}

}  // namespace
}  // namespace gfn::core
