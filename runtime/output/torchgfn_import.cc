#include "runtime/output/torchgfn_import.h"

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>
#include <torch/serialize.h>

#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace gfn::output {
namespace {

std::string shape_of(const at::Tensor& t) {
  std::ostringstream s;
  s << t.sizes();
  return s.str();
}

std::string prefix(const std::string& path) { return "init_from '" + path + "': "; }

// A tied trunk torchgfn lists under "pb.module.trunk." / "logF.module.trunk." while our model
// has only PF's: its PF counterpart name, "" otherwise.
std::string tied_counterpart(const std::string& name) {
  for (const std::string m : {"pb.module.trunk.", "logF.module.trunk."}) {
    if (name.compare(0, m.size(), m) == 0) return "pf.module.trunk." + name.substr(m.size());
  }
  return "";
}

}  // namespace

NamedTensors read_torch_dict(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open '" + path + "'");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  c10::IValue value;
  try {
    value = torch::pickle_load(bytes);
  } catch (const std::exception& e) {
    // LibTorch's unpickler reads a pickled collections.OrderedDict as None (it only expects
    // one as a tensor's backward hooks), so a saved state_dict() fails here.
    const std::string what = e.what();
    const auto line = what.find('\n');
    throw std::runtime_error("'" + path + "' cannot be read by torch::pickle_load (" +
                             what.substr(0, line) +
                             "); a dict of tensors is expected: from Python save "
                             "torch.save(dict(model.state_dict()), path), not the OrderedDict "
                             "state_dict() returns");
  }
  if (!value.isGenericDict()) {
    throw std::runtime_error("'" + path + "' does not hold a dict of tensors (found " +
                             value.tagKind() + ")");
  }
  NamedTensors out;
  for (const auto& entry : value.toGenericDict()) {
    if (!entry.key().isString() || !entry.value().isTensor()) {
      throw std::runtime_error("'" + path + "' holds a non-tensor entry (" + entry.key().tagKind() +
                               " -> " + entry.value().tagKind() + ")");
    }
    out.emplace_back(entry.key().toStringRef(), entry.value().toTensor());
  }
  return out;
}

std::vector<std::string> load_state_dict(const NamedTensors& params, const NamedTensors& file,
                                         const std::string& path, Naming naming) {
  std::map<std::string, at::Tensor> by_name(file.begin(), file.end());
  std::set<std::string> used;
  std::vector<std::pair<at::Tensor, at::Tensor>> copies;  // (parameter, value)
  std::vector<std::string> kept;
  for (const auto& [ours, param] : params) {
    const std::string name = naming == Naming::kOurs ? ours : torchgfn_name(ours);
    if (name.empty()) {
      throw std::invalid_argument(prefix(path) + "parameter '" + ours +
                                  "' has no torchgfn name (NoisyNet layers cannot be loaded)");
    }
    const auto it = by_name.find(name);
    if (it == by_name.end()) {
      if (ours == "logZ") {
        kept.push_back(ours);
        continue;
      }
      throw std::invalid_argument(prefix(path) + "tensor '" + name +
                                  "' is missing (the model has it: check model.hidden_dim, "
                                  "model.n_hidden, model.tied, model.uniform_pb, train.loss)");
    }
    if (!it->second.sizes().equals(param.sizes())) {
      throw std::invalid_argument(prefix(path) + "tensor '" + name + "' has shape " +
                                  shape_of(it->second) + ", the model expects " + shape_of(param) +
                                  " (check model.hidden_dim, model.n_hidden, env)");
    }
    used.insert(name);
    copies.emplace_back(param, it->second);
  }
  for (const auto& [name, tensor] : file) {
    if (used.count(name)) continue;
    const auto pf = naming == Naming::kTorchgfn ? tied_counterpart(name) : "";
    if (!pf.empty() && used.count(pf)) {
      if (by_name[pf].sizes().equals(tensor.sizes()) && by_name[pf].equal(tensor)) continue;
      throw std::invalid_argument(prefix(path) + "tensor '" + name + "' differs from '" + pf +
                                  "', but this model ties the trunks (model.tied: true)");
    }
    throw std::invalid_argument(prefix(path) + "unexpected tensor '" + name +
                                "' (not a parameter of this model: check model.tied, "
                                "model.uniform_pb, train.loss)");
  }
  at::NoGradGuard no_grad;
  for (auto& [param, value] : copies) {
    auto target = param;
    target.copy_(value.to(param.dtype()));
  }
  return kept;
}

}  // namespace gfn::output
