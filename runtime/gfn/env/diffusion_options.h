#pragma once
// The env: keys of env.name diffusion (diffusion.h, diffusion_policies.h): torchgfn's
// DiffusionSampling (src/gfn/gym/diffusion_sampling.py) with the pinned-Brownian-motion
// estimators and the PISGradNet forward network of its tutorials/examples/
// train_diffusion_sampler.py, with that script's defaults (target gmm2, 32 steps, sigma 5,
// 64 harmonics, 64-wide embeddings). The Langevin input of the drift (langevin) follows
// gfn-diffusion's PISGradNet (energy_sampling/models/gfn.py, LangevinScalingModelPIS); torchgfn
// has it as a TODO. Plain value types, no LibTorch.

#include <string>

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::core {

struct DiffusionEnvOptions {
  std::string target = "gmm2";  ///< a registered target (runtime/gfn/targets/target.h)
  int target_dim = 0;           ///< the target's dimension d; 0: its default
  int n_steps = 32;             ///< T, torchgfn's num_discretization_steps
  double sigma = 5.0;           ///< the pinned Brownian motion's diffusion coefficient
  int harmonics_dim = 64;       ///< Fourier features of the time encoding
  int emb_dim = 64;             ///< torchgfn's t_emb_dim = s_emb_dim
  bool zero_init = false;       ///< the drift head's last layer starts at (1e-8, 0)
  bool langevin = false;        ///< add scale(t) * grad log R(x) to the drift
  int lgv_layers = 3;           ///< layers of the Langevin scaling network
  double lgv_clip = 100.0;      ///< |grad log R| clipped to this (gfn-diffusion's lgv_clip)
};

const config::Fields<DiffusionEnvOptions>& diffusion_fields();

}  // namespace gfn::core
