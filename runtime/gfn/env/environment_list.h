#pragma once
// The built-in environments: X(name, OptionsType) for each, in the order config.yaml and
// docs/configuration.md list their keys. The name is env.name's value and the identifier
// of the environment's factory (GFN_DEFINE_ENVIRONMENT in registry.h); OptionsType is its
// options struct, whose fields <name>_fields() returns (<name>_options.h). Expanded twice:
// by env_options.cc (the options, no LibTorch) and by registry.cc (the factories).
// A list rather than self-registration: registry.h says why.
//
// GFN_CONTINUOUS_ENVIRONMENT_LIST: the continuous environments (continuous_environment.h),
// X(name, OptionsType) likewise; their options are the continuous catalog (catalog.h), and
// make_continuous_environment (continuous_registry.h) builds them.

#define GFN_ENVIRONMENT_LIST(X)                                           \
  X(hypergrid, HyperGridOptions)                                          \
  X(discrete_ebm, DiscreteEbmOptions)                                     \
  X(bit_sequence, BitSequenceOptions)                                     \
  X(non_autoregressive_bit_sequence, NonAutoregressiveBitSequenceOptions) \
  X(walk, WalkOptions)

#define GFN_CONTINUOUS_ENVIRONMENT_LIST(X) \
  X(box, BoxEnvOptions)                    \
  X(box_polar, BoxPolarEnvOptions)         \
  X(line, LineEnvOptions)                  \
  X(diffusion, DiffusionEnvOptions)
