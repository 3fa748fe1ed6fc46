#pragma once
// Reading and writing the entries of a LibTorch archive (torch::serialize, the format of
// torch::save) for the Learner's part of a checkpoint (docs/checkpoints.md): the Learner
// (learner_state.cc), its batch assembly (batch_assembly_state.cc) and its optimizer
// (optimizer.h) each write their entries into one archive. Every reader throws
// std::runtime_error "checkpoint: the learner's state has no <kind> '<key>'" when the entry
// is missing or of another kind, so a checkpoint of another model or format is refused
// with the entry's name. Not thread-safe (the archive is not).

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

namespace torch::serialize {
class InputArchive;
}

namespace gfn::core {

/// The tensor stored under `key` (as stored: never copied into another tensor).
at::Tensor read_tensor(torch::serialize::InputArchive& archive, const std::string& key);
/// The integer stored under `key`.
std::int64_t read_int(torch::serialize::InputArchive& archive, const std::string& key);
/// The number stored under `key`.
double read_double(torch::serialize::InputArchive& archive, const std::string& key);
/// The integer stored under `key`, or `absent` when the archive has no such entry (an entry
/// newer than the checkpoint).
std::int64_t read_int_or(torch::serialize::InputArchive& archive, const std::string& key,
                         std::int64_t absent);

/// The state of `generator` (uint8 tensor; at::Generator::get_state under its mutex).
at::Tensor generator_state(at::Generator generator);
/// Restores a state generator_state returned.
void set_generator_state(at::Generator& generator, const at::Tensor& state);

}  // namespace gfn::core
