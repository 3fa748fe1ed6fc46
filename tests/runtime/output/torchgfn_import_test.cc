#include "runtime/output/torchgfn_import.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

namespace gfn::output {
namespace {

// What the message of `f`'s std::invalid_argument says ("" when nothing is thrown).
template <class F>
std::string refusal(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// A small model: PF trunk and head, PB head on PF's trunk (tied), logZ (our names), filled
// with `value`.
NamedTensors model(float value) {
  return {{"pf_trunk.0.weight", at::full({3, 2}, value)},
          {"pf_head.weight", at::full({4, 3}, value)},
          {"pb_head.weight", at::full({3, 3}, value)},
          {"logZ", at::full({}, value)}};
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

TEST(TorchgfnImport, ExportedTensorsComeBackIntoAnotherModel) {
  const auto source = model(0.0f);
  for (auto& [name, t] : source) t.normal_();
  const auto path = temp_path("gfn_import_roundtrip.pt");
  write_torch_dict(path, torchgfn_state_dict(source));
  const auto target = model(9.0f);
  const auto kept = load_state_dict(target, read_torch_dict(path), path, Naming::kTorchgfn);
  EXPECT_TRUE(kept.empty());
  for (std::size_t i = 0; i < source.size(); ++i) {
    EXPECT_TRUE(target[i].second.equal(source[i].second)) << target[i].first;
  }
}

TEST(TorchgfnImport, OurNamesLoadWithNamingOurs) {
  const auto source = model(2.0f);
  const auto target = model(0.0f);
  load_state_dict(target, source, "ours.pt", Naming::kOurs);
  EXPECT_TRUE(target[1].second.equal(source[1].second));
  // The same file under torchgfn naming has none of the expected names.
  EXPECT_NE(refusal([&] { load_state_dict(model(0.0f), source, "ours.pt", Naming::kTorchgfn); }),
            "");
}

TEST(TorchgfnImport, AMissingTensorIsRefusedNamingItAndTheFileAndNothingIsWritten) {
  auto file = torchgfn_state_dict(model(1.0f));
  file.erase(file.begin() + 1);  // pf.module.last_layer.weight
  const auto target = model(0.0f);
  const auto message =
      refusal([&] { load_state_dict(target, file, "/runs/x/sd.pt", Naming::kTorchgfn); });
  EXPECT_NE(message.find("'/runs/x/sd.pt'"), std::string::npos) << message;
  EXPECT_NE(message.find("'pf.module.last_layer.weight' is missing"), std::string::npos) << message;
  EXPECT_EQ(target[0].second.sum().item<float>(), 0.0f);  // pf trunk untouched
}

TEST(TorchgfnImport, AShapeMismatchIsRefusedWithBothShapes) {
  auto file = torchgfn_state_dict(model(1.0f));
  file[0].second = at::ones({5, 2});  // a wider hidden layer than the model's 3
  const auto message =
      refusal([&] { load_state_dict(model(0.0f), file, "w.pt", Naming::kTorchgfn); });
  EXPECT_NE(message.find("'pf.module.trunk.0.weight' has shape [5, 2], the model expects [3, 2]"),
            std::string::npos)
      << message;
}

TEST(TorchgfnImport, AnUnexpectedTensorIsRefused) {
  auto file = torchgfn_state_dict(model(1.0f));
  file.emplace_back("logF.module.last_layer.bias", at::ones({1}));
  const auto message =
      refusal([&] { load_state_dict(model(0.0f), file, "u.pt", Naming::kTorchgfn); });
  EXPECT_NE(message.find("unexpected tensor 'logF.module.last_layer.bias'"), std::string::npos)
      << message;
}

TEST(TorchgfnImport, AnAbsentLogZKeepsItsValueAndIsReported) {
  auto file = torchgfn_state_dict(model(1.0f));
  // logZ: torchgfn's DBGFlowNet has none.
  file.erase(
      std::find_if(file.begin(), file.end(), [](const auto& e) { return e.first == "logZ"; }));
  const auto target = model(0.5f);
  EXPECT_EQ(load_state_dict(target, file, "db.pt", Naming::kTorchgfn),
            std::vector<std::string>{"logZ"});
  EXPECT_EQ(target[3].second.item<float>(), 0.5f);
  EXPECT_EQ(target[1].second.sum().item<float>(), 12.0f);
}

TEST(TorchgfnImport, ATiedTrunkListedTwiceIsAcceptedOnlyWhenEqual) {
  const NamedTensors tied{{"pf_trunk.0.weight", at::full({3, 2}, 1.0f)},
                          {"pf_head.weight", at::full({4, 3}, 1.0f)},
                          {"pb_head.weight", at::full({3, 3}, 1.0f)}};
  auto file = torchgfn_state_dict(tied);  // pb.module.trunk.0.weight duplicated
  ASSERT_EQ(file.size(), 4u);
  const NamedTensors target{{"pf_trunk.0.weight", at::zeros({3, 2})},
                            {"pf_head.weight", at::zeros({4, 3})},
                            {"pb_head.weight", at::zeros({3, 3})}};
  load_state_dict(target, file, "tied.pt", Naming::kTorchgfn);
  EXPECT_EQ(target[0].second.sum().item<float>(), 6.0f);
  file[3].second = at::full({3, 2}, 2.0f);  // an untied model's PB trunk
  const auto message =
      refusal([&] { load_state_dict(target, file, "tied.pt", Naming::kTorchgfn); });
  EXPECT_NE(message.find("'pb.module.trunk.0.weight' differs from 'pf.module.trunk.0.weight'"),
            std::string::npos)
      << message;
}

TEST(TorchgfnImport, NoisyLayersHaveNoTorchgfnName) {
  const NamedTensors noisy{{"pf_noisy_head.weight_mu", at::zeros({2})}};
  EXPECT_NE(refusal([&] {
              load_state_dict(noisy, {}, "n.pt", Naming::kTorchgfn);
            }).find("'pf_noisy_head.weight_mu' has no torchgfn name"),
            std::string::npos);
}

TEST(TorchgfnImport, UnreadableFilesAreRefusedNamingThePath) {
  try {
    read_torch_dict("/no/such/file.pt");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/file.pt"), std::string::npos);
  }
  const auto garbage = temp_path("gfn_import_garbage.pt");
  std::ofstream(garbage) << "not a torch file";
  try {
    read_torch_dict(garbage);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(garbage), std::string::npos);
  }
}

}  // namespace
}  // namespace gfn::output
