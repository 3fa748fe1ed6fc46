#pragma once
// The HyperGrid environment's options (hypergrid.h; keys env.ndim, env.height, env.reward,
// env.R0, env.R1, env.R2 of docs/configuration.md). Plain value type, no LibTorch.

#include "runtime/gfn/env/hypergrid_reward.h"

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::core {

struct HyperGridOptions {
  int ndim = 2;    ///< dimensions of the grid
  int height = 8;  ///< coordinates in {0..height-1}
  HyperGridReward reward = HyperGridReward::kOriginal;
  double R0 = 0.1;  ///< reward terms (hypergrid.h documents each reward)
  double R1 = 0.5;
  double R2 = 2.0;
};

const config::Fields<HyperGridOptions>& hypergrid_fields();

}  // namespace gfn::core
