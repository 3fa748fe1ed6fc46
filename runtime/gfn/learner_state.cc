// Learner::save_state / load_state (runtime/gfn/learner.h): the Learner's part of a
// checkpoint (docs/checkpoints.md "Checkpoint and resume"), as entries of a LibTorch archive
// (torch::serialize, the format of torch::save): the model ("model"), the optimizer
// ("optimizer", optimizer.h), the generators, the counters, the exploration and the modes
// found; the batch assembly writes its own entries into the same archive
// (batch_assembly_state.cc). Parameters are copied into the existing tensors, so FlatAdamW's
// views (fast/flat_adam.h) stay valid.
#include <ATen/ATen.h>
#include <torch/serialize/archive.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/gfn/archive_io.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/optimizer.h"

namespace gfn::core {
using torch::serialize::InputArchive;
using torch::serialize::OutputArchive;

void Learner::save_state(OutputArchive& archive) const {
  write_learner_core(archive, *model_, *optimizer_, sample_gen_, validation_gen_);
  archive.write("iterations", c10::IValue(counts_.iterations));
  archive.write("reused_iterations", c10::IValue(counts_.reused_logprobs));
  archive.write("epsilon", c10::IValue(train_.epsilon));
  archive.write("temperature", c10::IValue(train_.temperature));
  archive.write("noisy_std_init", c10::IValue(model_options_.noisy_std_init));
  write_modes_found(archive, modes_.get());
  batches_->save_state(archive);
}

void Learner::load_state(InputArchive& archive) {
  read_learner_core(archive, *model_, *optimizer_, sample_gen_, validation_gen_);
  counts_.iterations = read_int(archive, "iterations");
  counts_.reused_logprobs = read_int(archive, "reused_iterations");
  set_exploration({read_double(archive, "epsilon"), read_double(archive, "temperature"),
                   read_double(archive, "noisy_std_init")});
  read_modes_found(archive, modes_.get());
  batches_->load_state(archive);
}

}  // namespace gfn::core
