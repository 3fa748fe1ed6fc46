#pragma once
// The choice of the Learner's optimizer (runtime/gfn/optimizer.h), made by the engine plan
// (runtime/gfn/engine_plan.h; engine.optimizer):
//   flat   FlatAdamW (flat_adam.h), its fused loop when plan.fused_adam;
//   torch  TorchAdamW (optimizer.h), the reference.
// Both apply the same AdamW update to the same two groups. FlatAdamW re-homes the
// parameters into its buffers (views stay valid). Throws what their constructors throw.

#include <memory>

#include "runtime/gfn/engine_plan.h"
#include "runtime/gfn/optimizer.h"

namespace gfn::core {

std::unique_ptr<Optimizer> make_optimizer(const EnginePlan& plan, const AdamWGroups& groups);

}  // namespace gfn::core
