#pragma once
// env.reward: the HyperGrid rewards (runtime/gfn/env/hypergrid.h documents each; torchgfn
// src/gfn/gym/hypergrid.py), with their YAML names written once here.
// hypergrid.cc maps each enumerator to its reward function. Adding a reward: one enumerator and
// name here, one function and one case in hypergrid.cc. Header-only, LibTorch-free.

#include "runtime/config/enum_names.h"

namespace gfn::core {

enum class HyperGridReward {
  kOriginal,               ///< "original": torchgfn OriginalReward (R0, R1, R2)
  kCosine,                 ///< "cosine": torchgfn CosineReward (R0, R1)
  kDeceptive,              ///< "deceptive": torchgfn DeceptiveReward (R0, R1, R2)
  kSparse,                 ///< "sparse": torchgfn SparseReward (no parameter)
  kBitwiseXor,             ///< "bitwise_xor": torchgfn BitwiseXORReward (R0)
  kMultiplicativeCoprime,  ///< "multiplicative_coprime": torchgfn MultiplicativeCoprimeReward (R0)
};
inline constexpr config::EnumName<HyperGridReward> kHyperGridRewardNames[] = {
    {HyperGridReward::kOriginal, "original"},
    {HyperGridReward::kCosine, "cosine"},
    {HyperGridReward::kDeceptive, "deceptive"},
    {HyperGridReward::kSparse, "sparse"},
    {HyperGridReward::kBitwiseXor, "bitwise_xor"},
    {HyperGridReward::kMultiplicativeCoprime, "multiplicative_coprime"}};

/// The table of HyperGridReward (found by argument-dependent lookup).
inline constexpr const auto& enum_names(HyperGridReward) { return kHyperGridRewardNames; }

}  // namespace gfn::core
