#pragma once
// The DiscreteEBM environment's options (discrete_ebm.h; keys env.ndim, env.alpha,
// env.energy and env.coupling of docs/configuration.md). Plain value type, no LibTorch.

#include "runtime/config/enum_names.h"

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::core {

/// env.energy: the interaction matrix J of the Ising energy E(x) = -x^T J x (torchgfn
/// gfn.gym.discrete_ebm.IsingModel), x in {-1, 1}^ndim. discrete_ebm.h documents both.
enum class EbmEnergy {
  kOnes,          ///< "ones": J = coupling * ones(ndim, ndim), torchgfn's default energy
  kIsingLattice,  ///< "ising_lattice": J = coupling * the adjacency of the L x L periodic
                  ///< square lattice, ndim = L * L (torchgfn's train_ising.py make_J)
};
inline constexpr config::EnumName<EbmEnergy> kEbmEnergyNames[] = {
    {EbmEnergy::kOnes, "ones"}, {EbmEnergy::kIsingLattice, "ising_lattice"}};

/// The table of EbmEnergy (found by argument-dependent lookup).
inline constexpr const auto& enum_names(EbmEnergy) { return kEbmEnergyNames; }

struct DiscreteEbmOptions {
  int ndim = 2;                         ///< binary variables (ising_lattice: L * L)
  double alpha = 1.0;                   ///< log R(x) = -alpha E(x) = alpha x^T J x
  EbmEnergy energy = EbmEnergy::kOnes;  ///< which J
  double coupling = 1.0;                ///< the scale of J (torchgfn's J of train_ising.py)
};

const config::Fields<DiscreteEbmOptions>& discrete_ebm_fields();

}  // namespace gfn::core
