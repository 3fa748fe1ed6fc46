// roles::export_model's sidecar (roles/trainer/model_export.h): the environment part of
// model.json is the environment's own description (Environment::describe), its name and every
// option of its configuration section, whichever environment it is, with nothing of another
// environment's options (HyperGrid's ndim / height for a BitSequence run).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "roles/experiment/experiment_config.h"
#include "roles/trainer/model_export.h"
#include "runtime/gfn/learner.h"

namespace gfn::roles {
namespace {

roles::ExperimentConfig small_config(const std::string& env_name, const std::string& dir) {
  roles::ExperimentConfig c;
  c.env.name = env_name;
  c.model.hidden_dim = 16;
  c.train.batch_size = 16;
  c.output.dir = (std::filesystem::temp_directory_path() / dir).string();
  std::filesystem::remove_all(c.output.dir);
  std::filesystem::create_directories(c.output.dir);
  return c;
}

// Exports a fresh Learner of `c` and returns model.json's "env".
nlohmann::json exported_env(const roles::ExperimentConfig& c) {
  core::Learner learner(c.env, c.model, c.train, c.train.seed, c.replay, c.engine);
  export_model(learner, c);
  std::ifstream in(c.output.dir + "/model.json");
  EXPECT_TRUE(in.good()) << c.output.dir << "/model.json";
  return nlohmann::json::parse(in).at("env");
}

TEST(ModelExportSidecar, NamesABitSequenceAndItsOptions) {
  auto c = small_config("bit_sequence", "gfn_export_sidecar_bits");
  auto& bits = c.env.get<core::BitSequenceOptions>();
  bits.word_size = 4;
  bits.seq_size = 8;
  bits.n_modes = 3;
  bits.beta = 2.5;
  bits.modes_seed = 11;
  const nlohmann::json env = exported_env(c);
  EXPECT_EQ(env.at("name"), "bit_sequence");
  const nlohmann::json& options = env.at("options");
  EXPECT_EQ(options.at("word_size"), 4);
  EXPECT_EQ(options.at("seq_size"), 8);
  EXPECT_EQ(options.at("n_modes"), 3);
  EXPECT_DOUBLE_EQ(options.at("beta").get<double>(), 2.5);
  EXPECT_EQ(options.at("mode_threshold"), bits.mode_threshold);
  EXPECT_EQ(options.at("modes_seed"), 11);
  EXPECT_EQ(options.size(), 6u) << options.dump();  // its own keys only
  EXPECT_EQ(env.at("state_dim"), 2);                // two words of 4 bits
  // Nothing of HyperGrid's, anywhere in the environment's part.
  for (const char* hypergrid_key : {"ndim", "height", "R0", "reward"}) {
    EXPECT_FALSE(env.contains(hypergrid_key)) << hypergrid_key;
    EXPECT_FALSE(options.contains(hypergrid_key)) << hypergrid_key;
  }
}

TEST(ModelExportSidecar, NamesADiscreteEbmWithItsOwnNdim) {
  auto c = small_config("discrete_ebm", "gfn_export_sidecar_ebm");
  c.env.get<core::DiscreteEbmOptions>().ndim = 3;
  c.env.get<core::DiscreteEbmOptions>().alpha = 0.5;
  c.env.get<core::HyperGridOptions>().ndim = 5;  // another environment's: not described
  const nlohmann::json env = exported_env(c);
  EXPECT_EQ(env.at("name"), "discrete_ebm");
  EXPECT_EQ(env.at("options"),
            (nlohmann::json{{"ndim", 3}, {"alpha", 0.5}, {"energy", "ones"}, {"coupling", 1}}));
  EXPECT_FALSE(env.contains("height"));
}

TEST(ModelExportSidecar, HyperGridKeepsItsShapeAndReward) {
  auto c = small_config("hypergrid", "gfn_export_sidecar_grid");
  c.env.get<core::HyperGridOptions>().ndim = 3;
  c.env.get<core::HyperGridOptions>().height = 5;
  const nlohmann::json env = exported_env(c);
  EXPECT_EQ(env.at("name"), "hypergrid");
  const nlohmann::json& options = env.at("options");
  EXPECT_EQ(options.at("ndim"), 3);
  EXPECT_EQ(options.at("height"), 5);
  EXPECT_EQ(options.at("reward"), "original");  // an enumeration: its YAML name
  EXPECT_EQ(env.at("state_dim"), 3);
  EXPECT_EQ(env.at("n_actions"), 4);
}

}  // namespace
}  // namespace gfn::roles
