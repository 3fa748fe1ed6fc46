// model.init_from (runtime/gfn/learner.h, runtime/output/torchgfn_import.h) and the run's
// final model (roles/trainer/final_model.h) on real Learners: exported parameters come
// back before any training, and files of another architecture are refused naming the file
// and the tensor.

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/nn/module.h>

#include <filesystem>
#include <string>

#include "roles/experiment/experiment_config.h"
#include "roles/trainer/final_model.h"
#include "roles/trainer/model_export.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/learner.h"
#include "runtime/output/torchgfn_export.h"
#include "runtime/output/torchgfn_import.h"

namespace gfn::roles {
namespace {

roles::ExperimentConfig small_config(const std::string& dir) {
  roles::ExperimentConfig c;
  c.env.get<core::HyperGridOptions>().ndim = 2;
  c.env.get<core::HyperGridOptions>().height = 6;
  c.model.hidden_dim = 16;
  c.train.batch_size = 16;
  c.output.dir = dir;
  std::filesystem::create_directories(dir);
  return c;
}

core::Learner make_learner(const roles::ExperimentConfig& c, std::uint64_t seed) {
  return core::Learner(c.env, c.model, c.train, seed, c.replay, c.engine);
}

// Every named parameter of `a` equals `b`'s (same names, same order).
void expect_same_parameters(core::Learner& a, core::Learner& b) {
  const auto pa = a.model().named_parameters();
  const auto pb = b.model().named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i) {
    EXPECT_EQ(pa[i].key(), pb[i].key());
    EXPECT_TRUE(pa[i].value().equal(pb[i].value())) << pa[i].key();
  }
}

std::string refusal(const roles::ExperimentConfig& c) {
  try {
    make_learner(c, 1);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::string temp_dir(const std::string& name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

TEST(InitFrom, AnExportedModelStartsTheLearnerWithItsParameters) {
  for (const bool db_tied : {false, true}) {
    auto c = small_config(temp_dir(db_tied ? "gfn_init_from_db" : "gfn_init_from_tb"));
    if (db_tied) {
      c.train.loss = core::LossKind::kDB;
      c.model.tied = true;
    }
    auto trained = make_learner(c, 3);
    for (int i = 0; i < 3; ++i) trained.train_iteration(c.train.batch_size);
    export_model(trained, c);
    auto fresh = make_learner(c, 4);  // another seed: other initial parameters
    c.model.init_from = c.output.dir + "/model_state_dict.pt";
    auto started = make_learner(c, 4);
    expect_same_parameters(started, trained);
    EXPECT_FALSE(fresh.model().named_parameters()[0].value().equal(
        trained.model().named_parameters()[0].value()));
    EXPECT_DOUBLE_EQ(started.model().log_z().item<double>(),
                     trained.model().log_z().item<double>());
  }
}

TEST(InitFrom, AnotherHiddenDimIsRefusedNamingTheTensorAndTheFile) {
  auto c = small_config(temp_dir("gfn_init_from_hidden"));
  auto trained = make_learner(c, 3);
  export_model(trained, c);
  c.model.hidden_dim = 32;
  c.model.init_from = c.output.dir + "/model_state_dict.pt";
  const auto message = refusal(c);
  EXPECT_NE(message.find("init_from '" + c.model.init_from + "'"), std::string::npos) << message;
  EXPECT_NE(message.find("'pf.module.trunk.0.weight' has shape [16, "), std::string::npos)
      << message;
  EXPECT_NE(message.find("the model expects [32, "), std::string::npos) << message;
}

TEST(InitFrom, AMissingTensorIsRefusedNamingIt) {
  auto c = small_config(temp_dir("gfn_init_from_missing"));
  auto trained = make_learner(c, 3);
  output::NamedTensors ours;
  for (const auto& p : trained.model().named_parameters()) {
    if (p.key() != "pb_head.bias") ours.emplace_back(p.key(), p.value());
  }
  c.model.init_from = c.output.dir + "/no_pb_bias.pt";
  output::write_torch_dict(c.model.init_from, output::torchgfn_state_dict(ours));
  const auto message = refusal(c);
  EXPECT_NE(message.find("tensor 'pb.module.last_layer.bias' is missing"), std::string::npos)
      << message;
  EXPECT_NE(message.find(c.model.init_from), std::string::npos) << message;
  c.model.init_from = c.output.dir + "/absent.pt";
  EXPECT_NE(refusal(c).find("cannot open '" + c.model.init_from + "'"), std::string::npos);
}

TEST(FinalModel, WrittenAndReadBackIntoARebuiltLearner) {
  auto c = small_config(temp_dir("gfn_final_model"));
  auto trained = make_learner(c, 3);
  for (int i = 0; i < 2; ++i) trained.train_iteration(c.train.batch_size);
  const auto path = c.output.dir + "/" + kFinalModelFile;
  write_final_model(trained, path);
  auto rebuilt = make_learner(c, 9);
  read_final_model(rebuilt, path);
  expect_same_parameters(rebuilt, trained);
  c.model.n_hidden = 3;  // a config that does not describe that model
  auto other = make_learner(c, 9);
  EXPECT_THROW(read_final_model(other, path), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::roles
