#pragma once
// Fast path (runtime/gfn/fast/): the MLPs of a GFlowNetModel (estimators.h) as the
// hand-written forward and backward see them (mlp_forward.h, mlp_backward.h): which Linear
// layers form each net, their weight and bias tensors in order, and which PolicyOutputs
// field each head gives. Internal to the MLP fast path, whose public headers are
// manual_backward.h and forward_recorder.h.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "runtime/gfn/estimators.h"

namespace gfn::core {
namespace mlp {

/// Which PolicyOutputs field a head produces.
enum Head : std::int64_t { kPfHead = 0, kPbHead = 1, kLogFlowHead = 2 };

/// One MLP of a model: a trunk of Linear + ReLU layers and the Linear heads that read its
/// last hidden layer.
struct Net {
  std::vector<at::Tensor> params;  ///< W_0, b_0, ..., W_{L-1}, b_{L-1}, then W, b per head
  std::int64_t n_trunk = 0;        ///< L
  std::vector<Head> heads;
};

/// The head outputs `values` (values[k] [M, out] of heads[k]) as PolicyOutputs: pf_logits,
/// pb_logits, and log_flow [M] (the logF head's [M, 1] squeezed); fields of absent heads stay
/// undefined. Pure; thread-safe.
PolicyOutputs outputs_of(const std::vector<Head>& heads, const std::vector<at::Tensor>& values);

}  // namespace mlp

/// The nets of a model (friend of GFlowNetModel), their parameters in the current grad mode
/// (NoisyLinear: the effective weights mu + sigma * eps, with their graph if grad mode is on).
/// Reads the model's layers; not thread-safe against changes of the model.
struct ModelLayout {
  /// pf_only: PF's trunk with every head it serves (tied: PB and logF too); else every net:
  /// PF, then (untied) PB's and logF's own trunks. A uniform PB has no net.
  static std::vector<mlp::Net> nets(GFlowNetModel& m, bool pf_only);

  /// Untied model: PB's net (if learned) and logF's (if any), without PF's.
  static std::vector<mlp::Net> pb_and_flow_nets(GFlowNetModel& m);

 private:
  /// PF's trunk and head.
  static std::vector<mlp::Net> pf_net(GFlowNetModel& m);
};

}  // namespace gfn::core
