#pragma once
// The Box environment's options (box.h). Plain value type, no LibTorch. The defaults are
// those of the field's box benchmarks (torchgfn benchmark/lib_runners/torchgfn_runner.py:
// Box(delta=0.1, epsilon=1e-10) with the reward's R0 = 0.1, R1 = 0.5, R2 = 2.0); torchgfn's
// own default epsilon is 1e-4.

namespace gfn::core {

struct BoxOptions {
  int dim = 2;             ///< d: states in [0, 1]^d (torchgfn's Box is 2-D)
  double delta = 0.1;      ///< smallest increment per coordinate after the first step, (0, 1]
  double epsilon = 1e-10;  ///< tolerance of the validity checks (>= 0)
  double R0 = 0.1;         ///< reward everywhere (> 0)
  double R1 = 0.5;         ///< added where every |x_i - 0.5| > 0.25 (>= 0)
  double R2 = 2.0;         ///< added where every 0.3 < |x_i - 0.5| < 0.4 (>= 0)
};

}  // namespace gfn::core
