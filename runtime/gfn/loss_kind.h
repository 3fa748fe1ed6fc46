#pragma once
// train.loss and train.subtb_weighting: the losses of runtime/gfn/losses.h and the
// sub-trajectory weightings of "subtb", each with its YAML name (and each loss with its
// description) written once here.
// options.h (TrainOptions) includes this header; make_loss
// (runtime/gfn/losses.h) switches on the enumerators. Header-only, LibTorch-free.

#include <cstddef>
#include <iterator>

#include "runtime/config/enum_names.h"

namespace gfn::core {

/// train.loss: the losses of losses.h (torchgfn src/gfn/gflownet/*.py). Their YAML names
/// and one-line descriptions are kLossKindNames and kLossKindDescriptions below, the one
/// list the configuration, its reference (docs/configuration.md) and the tools read. A new
/// loss goes last (loss_kind_tables_consistent() counts up to the last enumerator, kFM).
enum class LossKind { kTB, kZVar, kDB, kModifiedDB, kSubTB, kFM };
inline constexpr config::EnumName<LossKind> kLossKindNames[] = {
    {LossKind::kTB, "tb"},       {LossKind::kZVar, "zvar"},
    {LossKind::kDB, "db"},       {LossKind::kModifiedDB, "modified_db"},
    {LossKind::kSubTB, "subtb"}, {LossKind::kFM, "fm"}};

/// A loss and what it is, in one line (the train.loss reference, options.cc).
struct LossKindDescription {
  LossKind value;
  const char* description;
};
/// One entry per loss, in kLossKindNames' order (checked below).
inline constexpr LossKindDescription kLossKindDescriptions[] = {
    {LossKind::kTB, "Trajectory Balance (torchgfn TBGFlowNet)"},
    {LossKind::kZVar, "log-partition variance (torchgfn TBGFlowNet log_partition_variance)"},
    {LossKind::kDB, "Detailed Balance (torchgfn DBGFlowNet)"},
    {LossKind::kModifiedDB,
     "Modified Detailed Balance, for environments where every state can terminate (torchgfn "
     "ModifiedDBGFlowNet)"},
    {LossKind::kSubTB,
     "Sub-Trajectory Balance (torchgfn SubTBGFlowNet; train.subtb_weighting, train.subtb_lambda)"},
    {LossKind::kFM, "Flow Matching (torchgfn FMGFlowNet; train.fm_alpha)"}};

/// True if the tables have an entry per enumerator, in enumerator order, the same in both.
constexpr bool loss_kind_tables_consistent() {
  constexpr std::size_t n = static_cast<std::size_t>(LossKind::kFM) + 1;  // kFM is the last
  if (std::size(kLossKindNames) != n || std::size(kLossKindDescriptions) != n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    if (kLossKindNames[i].value != static_cast<LossKind>(i)) return false;
    if (kLossKindDescriptions[i].value != static_cast<LossKind>(i)) return false;
  }
  return true;
}
static_assert(loss_kind_tables_consistent(),
              "loss_kind.h: kLossKindNames and kLossKindDescriptions need one entry per "
              "LossKind, in enumerator order (and kFM the last enumerator, or update the check)");

/// The description of `kind` ("" for a value outside the table). O(table size).
constexpr const char* loss_description(LossKind kind) {
  for (const auto& entry : kLossKindDescriptions) {
    if (entry.value == kind) return entry.description;
  }
  return "";
}

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
