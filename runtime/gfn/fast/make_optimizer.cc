#include "runtime/gfn/fast/make_optimizer.h"

#include "runtime/gfn/fast/flat_adam.h"

namespace gfn::core {

std::unique_ptr<Optimizer> make_optimizer(const EnginePlan& plan, const AdamWGroups& groups) {
  if (plan.optimizer == OptimizerKind::kFlat) {
    return std::make_unique<FlatAdamW>(groups, FlatAdamPaths{plan.fused_adam, plan.plain_loops});
  }
  return std::make_unique<TorchAdamW>(groups);
}

}  // namespace gfn::core
