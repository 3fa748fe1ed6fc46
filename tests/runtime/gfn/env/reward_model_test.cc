// TorchScript reward models (runtime/gfn/env/reward_model.h), with modules written by
// Debian's python3-torch (make_reward_models.py, a ctest fixture): a module computing an
// environment's own reward gives the same log R, true distribution and log Z as the
// environment (HyperGrid, BitSequence, the coins plugin), the rest of the environment is
// untouched, and each module that cannot serve is refused naming the file.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>

#include <optional>
#include <string>
#include <vector>

#include "runtime/config/schema.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/env/reward_model.h"
#include "runtime/gfn/learner.h"
#include "tests/support/environment_contract.h"

namespace gfn::core {
namespace {

std::string model(const std::string& name) {
  return std::string(GFN_REWARD_MODELS_DIR) + "/" + name + ".pt";
}

EnvOptions hypergrid() {
  EnvOptions o;
  auto& h = o.get<HyperGridOptions>();
  h.ndim = 3;
  h.height = 5;
  h.R0 = 0.1;
  h.R1 = 0.5;
  h.R2 = 2.0;
  return o;
}

EnvOptions bit_sequence() {
  EnvOptions o;
  o.name = "bit_sequence";
  auto& b = o.get<BitSequenceOptions>();
  b.seq_size = 16;
  b.word_size = 4;
  b.n_modes = 4;
  b.modes_seed = 0;
  b.beta = 0.5;
  b.mode_threshold = 2;
  return o;
}

EnvOptions coins() {
  EnvOptions o;
  o.name = "coins";
  o.plugin = GFN_COINS_PLUGIN;
  o.options = {{"capacity", "8"}};
  return o;
}

/// The module of `name` on `options` gives the environment's own rewards.
void expect_same_rewards(EnvOptions options, const std::string& name, double tolerance) {
  SCOPED_TRACE(name);
  const auto own = make_environment(options);
  options.reward_model = model(name);
  const auto env = make_environment(options);
  const at::Tensor& term = own->terminating_states();
  const at::Tensor expected = own->log_reward(term);
  const at::Tensor got = env->log_reward(term);
  ASSERT_EQ(got.scalar_type(), at::kFloat);
  EXPECT_LE((got - expected).abs().max().item<double>(), tolerance);
  EXPECT_NEAR(env->log_partition(), own->log_partition(), 1e-5);
  EXPECT_LE((env->true_distribution() - own->true_distribution()).abs().max().item<double>(), 1e-6);
  // Everything else is the environment's.
  EXPECT_EQ(env->name(), own->name());
  EXPECT_EQ(env->n_states(), own->n_states());
  EXPECT_EQ(env->n_modes(), own->n_modes());
  EXPECT_TRUE(at::equal(env->is_mode(term), own->is_mode(term)));
  EXPECT_FALSE(env->mode_probability().has_value());
  // The wrapped environment's description and test set (forwarded capabilities).
  EXPECT_EQ(env->describe().name, own->describe().name);
  EXPECT_EQ(env->describe().options, own->describe().options);
  EXPECT_FALSE(env->describe().options.empty());
  const std::optional<at::Tensor> own_test = own->test_set(2, 0);
  const std::optional<at::Tensor> test = env->test_set(2, 0);
  ASSERT_EQ(test.has_value(), own_test.has_value());
  EXPECT_EQ(test.has_value(), name == "bit_sequence");
  if (test) EXPECT_TRUE(at::equal(*test, *own_test));
  test::check_generic(*env);
}

TEST(RewardModel, AModuleOfTheEnvironmentsRewardGivesItsRewards) {
  expect_same_rewards(hypergrid(), "hypergrid", 1e-6);
  expect_same_rewards(bit_sequence(), "bit_sequence", 0.0);  // integers times 0.5: exact
  expect_same_rewards(coins(), "coins", 1e-6);
}

TEST(RewardModel, BitSequenceValidationStillFindsItsTestSet) {
  EnvOptions o = bit_sequence();
  o.reward_model = model("bit_sequence");
  ModelOptions m;
  m.hidden_dim = 32;
  Learner learner(o, m, TrainOptions{}, 1);
  for (int i = 0; i < 3; ++i) learner.train_iteration(16);
  ValidationOptions v;
  v.n_samples = 500;
  v.logp_samples = 1;
  const ValidationResult r = learner.validate(v);
  EXPECT_TRUE(r.exact);
  EXPECT_GT(r.n_test, 0);  // test_set() forwarded: BitSequence's own test set
}

std::string error_of(EnvOptions options, const std::string& name) {
  options.reward_model = name.front() == '/' ? name : model(name);
  try {
    make_environment(options);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(RewardModel, ModulesThatCannotServeAreRefusedNamingTheFile) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/nonexistent/proxy.pt", "no such file"},
      {"garbage", "not a TorchScript module saved with torch.jit.save"},
      {"column", "must return log R, a floating tensor [4], got Float [4, 1]"},
      {"integer", "must return log R, a floating tensor [4], got Long [4]"},
      {"nan", "finite or -inf, got NaN or +inf"},
      {"posinf", "finite or -inf, got NaN or +inf"},
      {"pair", "forward must return a tensor, got Tuple"},
      {"needs_floats", "forward failed on a batch of states int64 [4, 3]"},
  };
  for (const auto& [name, reason] : cases) {
    const std::string message = error_of(hypergrid(), name);
    const std::string file = name.front() == '/' ? name : model(name);
    EXPECT_NE(message.find("env.reward_model '" + file + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(reason), std::string::npos) << name << ": " << message;
  }
}

// A relative path is printed absolute, as the plugin loader prints its file.
TEST(RewardModel, ErrorsPrintThePathAbsolute) {
  EnvOptions o = hypergrid();
  o.reward_model = "no/such/dir/../proxy.pt";
  const std::string absolute =
      (std::filesystem::current_path() / "no/such/proxy.pt").lexically_normal().string();
  try {
    make_environment(o);
    ADD_FAILURE() << "a missing reward model was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("env.reward_model '" + absolute + "': no such file"),
              std::string::npos)
        << e.what();
  }
}

TEST(RewardModel, RewardsThatAreZeroEverywhereAreRefusedAtFirstUse) {
  EnvOptions o = hypergrid();
  o.reward_model = model("neginf");
  const auto env = make_environment(o);  // -inf is a valid log R
  try {
    env->log_partition();
    FAIL() << "log Z = -inf accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(model("neginf")), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("log Z is -inf"), std::string::npos) << e.what();
  }
}

TEST(RewardModel, BadValuesDuringTrainingNameTheFile) {
  // A non-enumerable environment cannot be probed on terminating states: the values are
  // checked on every batch instead.
  EnvOptions o = bit_sequence();
  o.get<BitSequenceOptions>().seq_size = 120;
  o.get<BitSequenceOptions>().n_modes = 60;
  o.get<BitSequenceOptions>().mode_threshold = -1;
  o.reward_model = model("nan");
  const auto env = make_environment(o);
  try {
    env->log_reward(at::zeros({2, 30}, at::kLong));
    FAIL() << "NaN accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(model("nan")), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gfn::core
