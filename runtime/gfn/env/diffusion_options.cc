// The env: keys of env.name diffusion (diffusion_options.h).
#include "runtime/gfn/env/diffusion_options.h"

#include "runtime/config/fields.h"

namespace gfn::core {

const config::Fields<DiffusionEnvOptions>& diffusion_fields() {
  using D = DiffusionEnvOptions;
  static const auto fields =
      config::Fields<D>()
          .add("target", &D::target,
               "the unnormalised density to sample: a registered target (gmm2, grid25, funnel, "
               "many_well, or a plugin's; runtime/gfn/targets/target.h).",
               config::non_empty())
          .add("target_dim", &D::target_dim,
               "the target's dimension d (gmm2, grid25: 2; funnel >= 2; many_well even); 0: "
               "the target's default (funnel 10, many_well 32).",
               config::at_least(0))
          .add("n_steps", &D::n_steps,
               "T, the discretisation steps of [0, 1] (dt = 1 / T); every trajectory makes T "
               "Gaussian steps, then exits (torchgfn's num_discretization_steps; default 32).",
               config::at_least(1))
          .add("sigma", &D::sigma,
               "the diffusion coefficient of the pinned Brownian motion: PF's step noise is "
               "sigma sqrt(dt), PB is the Brownian bridge of that motion pinned at 0 "
               "(runtime/gfn/env/diffusion_policies.h).",
               config::positive_finite())
          .add("harmonics_dim", &D::harmonics_dim,
               "Fourier features of the PISGradNet time encoding (torchgfn's harmonics_dim).",
               config::at_least(1))
          .add("emb_dim", &D::emb_dim,
               "width of the PISGradNet state and time embeddings (torchgfn's s_emb_dim = "
               "t_emb_dim); model.hidden_dim and model.n_hidden are its hidden_dim and "
               "joint_layers.",
               config::at_least(1))
          .add("zero_init", &D::zero_init,
               "start the drift head's last layer at weights 1e-8 and bias 0 (torchgfn's "
               "zero_init).")
          .add("langevin", &D::langevin,
               "the Langevin-gradient input: drift + s(t) * grad log R(x), s a learned "
               "per-dimension scale of t (gfn-diffusion's PISGradNet with langevin).")
          .add("lgv_layers", &D::lgv_layers,
               "layers of the Langevin scaling network s(t) (gfn-diffusion's lgv_layers).",
               config::at_least(1))
          .add("lgv_clip", &D::lgv_clip,
               "each coordinate of grad log R is clipped to [-lgv_clip, lgv_clip] (NaN to 0) "
               "before the Langevin term.",
               config::positive_finite());
  return fields;
}

}  // namespace gfn::core
