#pragma once
// The Box environment's options (box.h) and the env: keys of env.name box (BoxEnvOptions:
// the environment's and its policies', box_policies.h) and box_polar (BoxPolarEnvOptions). Plain
// value types, no LibTorch. The defaults are those of the field's box benchmarks (torchgfn
// benchmark/lib_runners/torchgfn_runner.py: Box(delta=0.1, epsilon=1e-10) with the reward's
// R0 = 0.1, R1 = 0.5, R2 = 2.0, and 5 Beta components with concentrations in [0.1, 100]);
// torchgfn's own default epsilon is 1e-4.

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::core {

struct BoxOptions {
  int dim = 2;             ///< d: states in [0, 1]^d (torchgfn's Box is 2-D)
  double delta = 0.1;      ///< smallest increment per coordinate after the first step, (0, 1]
  double epsilon = 1e-10;  ///< tolerance of the validity checks (>= 0)
  double R0 = 0.1;         ///< reward everywhere (> 0)
  double R1 = 0.5;         ///< added where every |x_i - 0.5| > 0.25 (>= 0)
  double R2 = 2.0;         ///< added where every 0.3 < |x_i - 0.5| < 0.4 (>= 0)
};

/// The env: keys of env.name box (docs/configuration.md): the environment's options (keys
/// env.ndim, env.delta, env.epsilon, env.R0, env.R1, env.R2) and its policies' (env.n_components,
/// env.min_concentration, env.max_concentration; box_policies.h BoxPolicyOptions).
struct BoxEnvOptions {
  int ndim = 2;
  double delta = 0.1;
  double epsilon = 1e-10;
  double R0 = 0.1;
  double R1 = 0.5;
  double R2 = 2.0;
  int n_components = 5;            ///< Beta components per coordinate of PF and PB
  double min_concentration = 0.1;  ///< > 0
  double max_concentration = 100;  ///< >= min_concentration

  /// The environment's part.
  BoxOptions box() const { return {ndim, delta, epsilon, R0, R1, R2}; }
};

const config::Fields<BoxEnvOptions>& box_fields();

/// The env: keys of env.name box_polar (box_polar.h, box_polar_policies.h): the polar Box of
/// torchgfn's tutorials/examples/train_box.py, with its defaults (delta 0.25, K = 2 angle
/// components, K0 = 4 components of the s0 distribution, concentrations in [0.1, 5.1]). The
/// state space is [0, 1]^2 (no ndim key).
struct BoxPolarEnvOptions {
  double delta = 0.25;
  double epsilon = 1e-10;
  double R0 = 0.1;
  double R1 = 0.5;
  double R2 = 2.0;
  int n_components = 2;            ///< K: Beta components of the angle (PF and PB)
  int n_components_s0 = 4;         ///< K0: components of PF's s0 distribution
  double min_concentration = 0.1;  ///< > 0
  double max_concentration = 5.1;  ///< >= min_concentration

  /// The environment's part.
  BoxOptions box() const { return {2, delta, epsilon, R0, R1, R2}; }
};

const config::Fields<BoxPolarEnvOptions>& box_polar_fields();

}  // namespace gfn::core
