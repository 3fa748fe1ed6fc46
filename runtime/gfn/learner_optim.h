#pragma once
// The Learner's optimizer (runtime/gfn/learner.h "Optimizer"), shared by learner.cc and the
// checkpoint code learner_state.cc. Private to the Learner: include only from those files.
// Not thread-safe.

#include <torch/optim/adamw.h>

#include <memory>

#include "runtime/gfn/fast/flat_adam.h"
#include "runtime/gfn/learner.h"

namespace gfn::core {

// Exactly one of the two optimizers is set; both apply the same AdamW update.
struct Learner::Optim {
  std::unique_ptr<torch::optim::AdamW> adam;
  std::unique_ptr<FlatAdamW> flat;  ///< speed: ~20 ops per step instead of ~200 (flat_adam.h)
  void zero_grad() {
    if (flat) {
      flat->zero_grad();
    } else {
      adam->zero_grad();
    }
  }
  void step() {
    if (flat) {
      flat->step();
    } else {
      adam->step();  // returns the (unused) closure loss
    }
  }
  void reset_state() {
    if (flat) {
      flat->reset_state();
    } else {
      adam->state().clear();  // rebuilt lazily, with step 0, at the next step
    }
  }
};

}  // namespace gfn::core
