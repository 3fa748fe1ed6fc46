#include "runtime/output/torchgfn_export.h"

#include <ATen/core/Dict.h>
#include <torch/serialize.h>

#include <array>
#include <fstream>
#include <stdexcept>

namespace gfn::output {
namespace {

// Our module prefix -> torchgfn's (estimators.h names -> TBGFlowNet / DBGFlowNet).
constexpr std::array<std::pair<const char*, const char*>, 6> kPrefixes{{
    {"pf_trunk.", "pf.module.trunk."},
    {"pf_head.", "pf.module.last_layer."},
    {"pb_trunk.", "pb.module.trunk."},
    {"pb_head.", "pb.module.last_layer."},
    {"logF_trunk.", "logF.module.trunk."},
    {"logF_head.", "logF.module.last_layer."},
}};

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool has_prefix(const NamedTensors& entries, const std::string& prefix) {
  for (const auto& e : entries) {
    if (starts_with(e.first, prefix)) return true;
  }
  return false;
}

}  // namespace

std::string torchgfn_name(const std::string& ours) {
  if (ours == "logZ") return "logZ";
  for (const auto& [mine, theirs] : kPrefixes) {
    if (starts_with(ours, mine)) return theirs + ours.substr(std::string(mine).size());
  }
  return "";
}

NamedTensors torchgfn_state_dict(const NamedTensors& ours) {
  NamedTensors out;
  for (const auto& [name, tensor] : ours) {
    const auto theirs = torchgfn_name(name);
    if (theirs.empty()) {
      throw std::invalid_argument("export: parameter '" + name +
                                  "' has no torchgfn name (NoisyNet layers are not exported)");
    }
    out.emplace_back(theirs, tensor.detach().contiguous().clone());
  }
  // A tied trunk (PF's, shared by PB and logF): torchgfn lists it under each module.
  NamedTensors shared;
  for (const char* module : {"pb", "logF"}) {
    const std::string m = module;
    if (!has_prefix(out, m + ".module.last_layer.") || has_prefix(out, m + ".module.trunk.")) {
      continue;
    }
    for (const auto& [name, tensor] : out) {
      if (starts_with(name, "pf.module.trunk.")) {
        shared.emplace_back(m + name.substr(2), tensor);
      }
    }
  }
  out.insert(out.end(), shared.begin(), shared.end());
  return out;
}

void write_torch_dict(const std::string& path, const NamedTensors& entries) {
  c10::Dict<std::string, at::Tensor> dict;
  for (const auto& [name, tensor] : entries) dict.insert(name, tensor);
  const std::vector<char> bytes = torch::pickle_save(dict);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("error while writing '" + path + "'");
}

}  // namespace gfn::output
