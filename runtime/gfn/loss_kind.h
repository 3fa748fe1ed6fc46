#pragma once
// train.loss and train.subtb_weighting: the losses of runtime/gfn/losses.h and the
// sub-trajectory weightings of "subtb", each with its YAML name written once here.
// options.h (TrainOptions) includes this header; make_loss
// (runtime/gfn/losses.h) switches on the enumerators. Header-only, LibTorch-free.

#include "runtime/config/enum_names.h"

namespace gfn::core {

/// train.loss (losses.h documents each; torchgfn src/gfn/gflownet/*.py).
enum class LossKind {
  kTB,          ///< "tb": Trajectory Balance (torchgfn TBGFlowNet)
  kZVar,        ///< "zvar": log-partition variance (torchgfn TBGFlowNet log_partition_variance)
  kDB,          ///< "db": Detailed Balance (torchgfn DBGFlowNet)
  kModifiedDB,  ///< "modified_db": torchgfn ModifiedDBGFlowNet
  kSubTB,       ///< "subtb": Sub-Trajectory Balance (torchgfn SubTBGFlowNet)
  kFM,          ///< "fm": Flow Matching (torchgfn FMGFlowNet)
};
inline constexpr config::EnumName<LossKind> kLossKindNames[] = {
    {LossKind::kTB, "tb"},       {LossKind::kZVar, "zvar"},
    {LossKind::kDB, "db"},       {LossKind::kModifiedDB, "modified_db"},
    {LossKind::kSubTB, "subtb"}, {LossKind::kFM, "fm"}};

/// train.subtb_weighting: torchgfn SubTBGFlowNet weightings of the sub-trajectories
/// (n = trajectory length, i = sub-trajectory length, B = trajectories); each sums to 1
/// over the batch:
///  geometric_within: lambda^(i-1), normalised within each trajectory, then 1/B (the
///                    paper's weighting; torchgfn's default);
///  geometric:        mean over the sub-trajectories of each length i, weighted by
///                    lambda^(i-1) / sum_{i'=1}^{max n} lambda^(i'-1);
///  equal:            every sub-trajectory of the batch equally;
///  equal_within:     equally within each trajectory, then 1/B;
///  TB:               only the full trajectories, 1/B each (TB with log F(s0) as logZ);
///  DB:               only length-1 sub-trajectories, all equally (= "db");
///  ModifiedDB:       only length-1 sub-trajectories, 1/(n B) each.
enum class SubTrajectoryWeighting {
  kGeometricWithin,
  kGeometric,
  kEqual,
  kEqualWithin,
  kTB,
  kDB,
  kModifiedDB
};
inline constexpr config::EnumName<SubTrajectoryWeighting> kSubTrajectoryWeightingNames[] = {
    {SubTrajectoryWeighting::kGeometricWithin, "geometric_within"},
    {SubTrajectoryWeighting::kGeometric, "geometric"},
    {SubTrajectoryWeighting::kEqual, "equal"},
    {SubTrajectoryWeighting::kEqualWithin, "equal_within"},
    {SubTrajectoryWeighting::kTB, "TB"},
    {SubTrajectoryWeighting::kDB, "DB"},
    {SubTrajectoryWeighting::kModifiedDB, "ModifiedDB"}};

// enum_names(E{}): the table of an enumeration (found by argument-dependent lookup).
inline constexpr const auto& enum_names(LossKind) { return kLossKindNames; }
inline constexpr const auto& enum_names(SubTrajectoryWeighting) {
  return kSubTrajectoryWeightingNames;
}

}  // namespace gfn::core
