#include "runtime/config/resume.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

#include "runtime/config/config.h"

namespace gfn::config {
namespace {

/// "section.key" -> the value as YAML text, from to_yaml (every key of the registry).
std::map<std::string, std::string> flatten(const ExperimentConfig& c) {
  std::map<std::string, std::string> out;
  const YAML::Node root = YAML::Load(to_yaml(c));
  for (const auto& section : root) {
    for (const auto& kv : section.second) {
      out[section.first.as<std::string>() + "." + kv.first.as<std::string>()] =
          YAML::Dump(kv.second);
    }
  }
  return out;
}

}  // namespace

const std::vector<std::string>& resumable_keys() {
  static const std::vector<std::string> keys = {
      "train.n_trajectories", "output.log_every", "output.progress",      "output.progress_every_s",
      "validation.interval",  "checkpoint.every", "checkpoint.on_signal", "checkpoint.keep"};
  return keys;
}

std::vector<std::string> differing_keys(const ExperimentConfig& a, const ExperimentConfig& b) {
  const auto fa = flatten(a);
  const auto fb = flatten(b);
  std::vector<std::string> out;
  for (const auto& key : config_keys()) {
    const auto ia = fa.find(key);
    const auto ib = fb.find(key);
    const std::string va = ia == fa.end() ? "" : ia->second;
    const std::string vb = ib == fb.end() ? "" : ib->second;
    if (va != vb) out.push_back(key);
  }
  return out;
}

ExperimentConfig resume_config(const std::string& checkpoint_config_path,
                               const std::vector<std::string>& overrides) {
  const ExperimentConfig saved = load_config(checkpoint_config_path);
  ExperimentConfig resumed = load_config(checkpoint_config_path, overrides);
  std::string refused;
  for (const auto& key : differing_keys(saved, resumed)) {
    const auto& ok = resumable_keys();
    if (std::find(ok.begin(), ok.end(), key) == ok.end()) {
      refused += (refused.empty() ? "" : ", ") + key;
    }
  }
  if (!refused.empty()) {
    throw ConfigError("--resume: the checkpoint's config '" + checkpoint_config_path +
                      "' differs in " + refused +
                      "; a resumed run may change only train.n_trajectories, output.log_every, "
                      "output.progress, output.progress_every_s, validation.interval and "
                      "checkpoint.*");
  }
  return resumed;
}

}  // namespace gfn::config
