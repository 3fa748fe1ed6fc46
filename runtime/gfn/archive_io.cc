#include "runtime/gfn/archive_io.h"

#include <torch/serialize/archive.h>

#include <mutex>
#include <stdexcept>

namespace gfn::core {

using torch::serialize::InputArchive;

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

}  // namespace gfn::core
