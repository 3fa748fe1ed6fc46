#pragma once
// env.preprocessor: how states become the network's input (runtime/gfn/preprocessors.h),
// with the YAML names written once here. Each environment builds the kinds it supports
// (Environment::make_preprocessor). Header-only, LibTorch-free.

#include "runtime/config/enum_names.h"

namespace gfn::core {

enum class PreprocessorKind {
  kKHot,      ///< "khot": one-hot of each coordinate (KHotPreprocessor)
  kOneHot,    ///< "onehot": one-hot of the state index; enumerable environments only
  kIdentity,  ///< "identity": the coordinates as float32 (IdentityPreprocessor)
};
inline constexpr config::EnumName<PreprocessorKind> kPreprocessorKindNames[] = {
    {PreprocessorKind::kKHot, "khot"},
    {PreprocessorKind::kOneHot, "onehot"},
    {PreprocessorKind::kIdentity, "identity"}};

/// The table of PreprocessorKind (found by argument-dependent lookup).
inline constexpr const auto& enum_names(PreprocessorKind) { return kPreprocessorKindNames; }

}  // namespace gfn::core
