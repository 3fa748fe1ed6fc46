#include "runtime/gfn/archive_io.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/module.h>
#include <torch/serialize/archive.h>

#include <mutex>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "runtime/gfn/optimizer.h"
#include "runtime/gfn/validation.h"

namespace gfn::core {

using torch::serialize::InputArchive;
using torch::serialize::OutputArchive;

at::Tensor read_tensor(InputArchive& archive, const std::string& key) {
  at::Tensor t;  // undefined: read() hands over the stored tensor (never set_ on ours)
  if (!archive.try_read(key, t)) {
    throw std::runtime_error("checkpoint: the learner's state has no entry '" + key + "'");
  }
  return t;
}

std::int64_t read_int(InputArchive& archive, const std::string& key) {
  c10::IValue v;
  if (!archive.try_read(key, v) || !v.isInt()) {
    throw std::runtime_error("checkpoint: the learner's state has no integer '" + key + "'");
  }
  return v.toInt();
}

double read_double(InputArchive& archive, const std::string& key) {
  c10::IValue v;
  if (!archive.try_read(key, v) || !v.isDouble()) {
    throw std::runtime_error("checkpoint: the learner's state has no number '" + key + "'");
  }
  return v.toDouble();
}

std::int64_t read_int_or(InputArchive& archive, const std::string& key, std::int64_t absent) {
  c10::IValue v;
  if (!archive.try_read(key, v)) return absent;
  if (!v.isInt()) {
    throw std::runtime_error("checkpoint: the learner's state has no integer '" + key + "'");
  }
  return v.toInt();
}

at::Tensor generator_state(at::Generator generator) {  // a handle: copies share the state
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void set_generator_state(at::Generator& generator, const at::Tensor& state) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

namespace {

/// Copies `stored` into `dst` in place, refusing another shape (another model).
void copy_checked(const at::Tensor& dst, const at::Tensor& stored, const std::string& name) {
  if (!dst.sizes().equals(stored.sizes())) {
    throw std::runtime_error("checkpoint: '" + name + "' has shape " + c10::str(stored.sizes()) +
                             " in the checkpoint, " + c10::str(dst.sizes()) +
                             " in this model (another model?)");
  }
  at::NoGradGuard no_grad;
  dst.copy_(stored);
}

}  // namespace

void write_module(OutputArchive& out, torch::nn::Module& module) {
  std::string names;
  std::int64_t i = 0;
  for (const auto& kv : module.named_parameters()) {
    names += kv.key() + "\n";
    out.write("t" + std::to_string(i++), kv.value().detach().clone());
  }
  for (const auto& kv : module.named_buffers()) {
    names += kv.key() + "\n";
    out.write("t" + std::to_string(i++), kv.value().detach().clone());
  }
  out.write("names", c10::IValue(names));
}

void read_module(InputArchive& in, torch::nn::Module& module) {
  c10::IValue stored_names;
  in.read("names", stored_names);
  std::string names;
  std::vector<at::Tensor> tensors;
  for (const auto& kv : module.named_parameters()) {
    names += kv.key() + "\n";
    tensors.push_back(kv.value());
  }
  for (const auto& kv : module.named_buffers()) {
    names += kv.key() + "\n";
    tensors.push_back(kv.value());
  }
  if (stored_names.toStringRef() != names) {
    throw std::runtime_error("checkpoint: the model's parameters differ (checkpoint: [" +
                             stored_names.toStringRef() + "], this model: [" + names + "])");
  }
  std::istringstream list(names);
  std::string name;
  for (std::size_t i = 0; i < tensors.size() && std::getline(list, name); ++i) {
    copy_checked(tensors[i], read_tensor(in, "t" + std::to_string(i)), name);
  }
}

void write_learner_core(OutputArchive& archive, torch::nn::Module& model,
                        const Optimizer& optimizer, const at::Generator& sample,
                        const at::Generator& validation) {
  OutputArchive module(archive.compilation_unit());
  write_module(module, model);
  archive.write("model", module);
  OutputArchive optim(archive.compilation_unit());
  optimizer.save_state(optim);
  archive.write("optimizer", optim);

  archive.write("sample_generator", generator_state(sample));
  archive.write("validation_generator", generator_state(validation));
  archive.write("default_generator", generator_state(at::detail::getDefaultCPUGenerator()));
}

void read_learner_core(InputArchive& archive, torch::nn::Module& model, Optimizer& optimizer,
                       at::Generator& sample, at::Generator& validation) {
  InputArchive module;
  archive.read("model", module);
  read_module(module, model);
  InputArchive optim;
  archive.read("optimizer", optim);
  optimizer.load_state(optim);

  set_generator_state(sample, read_tensor(archive, "sample_generator"));
  set_generator_state(validation, read_tensor(archive, "validation_generator"));
  auto default_gen = at::detail::getDefaultCPUGenerator();
  set_generator_state(default_gen, read_tensor(archive, "default_generator"));
}

void write_modes_found(OutputArchive& archive, const ModeTracker* modes) {
  const auto found = modes ? modes->found() : std::vector<std::int64_t>{};
  archive.write("modes_found", at::tensor(found, at::kLong));
}

void read_modes_found(InputArchive& archive, ModeTracker* modes) {
  const at::Tensor found = read_tensor(archive, "modes_found").contiguous();
  if (!modes) return;
  const auto* p = found.data_ptr<std::int64_t>();
  modes->restore(std::vector<std::int64_t>(p, p + found.numel()));
}

}  // namespace gfn::core
