#pragma once
// Reading and writing the entries of a LibTorch archive (torch::serialize, the format of
// torch::save) for the Learner's part of a checkpoint (docs/checkpoints.md): the Learners
// (learner_state.cc, continuous/learner_state.cc), its batch assembly (batch_assembly_state.cc) and
// its optimizer (optimizer.h) each write their entries into one archive. Every reader throws
// std::runtime_error "checkpoint: the learner's state has no <kind> '<key>'" when the entry
// is missing or of another kind, so a checkpoint of another model or format is refused
// with the entry's name. Not thread-safe (the archive is not).

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

namespace torch::nn {
class Module;
}
namespace torch::serialize {
class InputArchive;
class OutputArchive;
}  // namespace torch::serialize

namespace gfn::core {

class ModeTracker;
class Optimizer;

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

/// A module's parameters and buffers in named order: entry "names" lists them (one per
/// line), "t<i>" holds a copy of the i-th.
void write_module(torch::serialize::OutputArchive& out, torch::nn::Module& module);
/// Copies what write_module wrote into `module`'s tensors in place (views stay valid).
/// Throws std::runtime_error when the names differ or a shape differs (another model).
void read_module(torch::serialize::InputArchive& in, torch::nn::Module& module);

/// The entries every learner's state starts with (learner.h, continuous/learner.h): "model"
/// (write_module), "optimizer" (Optimizer::save_state), then the sampling, validation and
/// LibTorch default CPU generators ("sample_generator", "validation_generator",
/// "default_generator").
void write_learner_core(torch::serialize::OutputArchive& archive, torch::nn::Module& model,
                        const Optimizer& optimizer, const at::Generator& sample,
                        const at::Generator& validation);
/// Restores what write_learner_core wrote (the errors of read_module, Optimizer::load_state
/// and read_tensor).
void read_learner_core(torch::serialize::InputArchive& archive, torch::nn::Module& model,
                       Optimizer& optimizer, at::Generator& sample, at::Generator& validation);

/// The modes found (ModeTracker::found, int64 [K]) as entry "modes_found"; empty for a null
/// tracker (an environment without modes).
void write_modes_found(torch::serialize::OutputArchive& archive, const ModeTracker* modes);
/// The ids of entry "modes_found" become the modes found of `modes` (nothing for a null tracker;
/// the entry is read either way, so a checkpoint without it is refused).
void read_modes_found(torch::serialize::InputArchive& archive, ModeTracker* modes);

}  // namespace gfn::core
