#pragma once
// The DiscreteEBM environment's options (discrete_ebm.h; keys env.ndim and env.alpha of
// docs/configuration.md). Plain value type, no LibTorch.

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::core {

struct DiscreteEbmOptions {
  int ndim = 2;        ///< binary variables
  double alpha = 1.0;  ///< Ising interaction strength: log R(x) = alpha (sum_i (2 x_i - 1))^2
};

const config::Fields<DiscreteEbmOptions>& discrete_ebm_fields();

}  // namespace gfn::core
