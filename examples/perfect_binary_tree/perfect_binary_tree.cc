// An environment plugin (runtime/gfn/env/plugin.h): torchgfn's PerfectBinaryTree
// (GFNOrg/torchgfn src/gfn/gym/perfect_tree.py, class PerfectBinaryTree), a tree, so one
// trajectory leads to each terminating state. Followed member by member;
// tests/examples/perfect_binary_tree/ compares it with a transcription of that file.
//
// States: the node, int64 [B, 1], numbered breadth-first from the root s0 = 0 (torchgfn's
// _build_tree), so node n's children are 2n + 1 (forward action 0, left) and 2n + 2 (action 1,
// right); the tree of depth D has 2^(D+1) - 1 nodes, and its leaves are the 2^D nodes from
// 2^D - 1 on. Action 2 exits. An inner node allows left and right, never exit; a leaf allows
// exit only. Backward action 0 goes up from a left child (an odd node), 1 from a right child
// (an even node other than the root).
//
// Enumeration, as torchgfn: all_states are the nodes in index order (topological: a child's
// index exceeds its parent's), the terminating states are the leaves in index order
// (terminating index = node - (2^D - 1)). D is at most 20 (2,097,151 nodes), so it is always
// enumerated.
//
// Reward: torchgfn takes a callable and has no default; the choices are the functions its tests
// use: R(x) = x + 1, the node index plus one ("index", testing/test_environments.py
// test_perfect_binary_tree_fwd_step), or 1 ("ones", testing/gym/test_compile.py). R is float32
// like torchgfn's; log Z = log sum_x R(x) over the leaves (summed in float64). No modes: torchgfn
// defines none.
//
// Preprocessors: "onehot" (torchgfn's recommendation: one-hot of the node), "khot" (the same
// vector, 2^(D+1) - 1 wide), "identity" (the node index as a float).
// Thread-safety: immutable after construction (environment.h). Cost: construction O(2^D);
// every batched member O(B).
#include <ATen/ATen.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "runtime/gfn/env/plugin.h"

namespace {

using gfn::core::Environment;

/// The reward function: the node index plus one, or one.
enum class TreeReward { kIndex, kOnes };
constexpr gfn::config::EnumName<TreeReward> kTreeRewardNames[] = {{TreeReward::kIndex, "index"},
                                                                  {TreeReward::kOnes, "ones"}};
constexpr const auto& enum_names(TreeReward) { return kTreeRewardNames; }

/// env.options of the plugin, with their defaults (torchgfn's where it has one).
struct PerfectBinaryTreeOptions {
  int depth = 4;  ///< D, torchgfn's default
  TreeReward reward = TreeReward::kIndex;
};

const gfn::config::Fields<PerfectBinaryTreeOptions>& perfect_binary_tree_fields() {
  using O = PerfectBinaryTreeOptions;
  static const auto fields =
      gfn::config::Fields<O>()
          .add("depth", &O::depth, "Depth D of the tree: 2^D leaves, 2^(D+1) - 1 nodes.",
               gfn::config::in_range(1, 20))
          .add("reward", &O::reward, "R(x) = x + 1 (index: the leaf's node index) or 1 (ones).",
               gfn::config::AsInvalid{});
  return fields;
}

class PerfectBinaryTree final : public Environment {
 public:
  explicit PerfectBinaryTree(const PerfectBinaryTreeOptions& o)
      : depth_(o.depth), reward_(o.reward) {
    if (depth_ < 1 || depth_ > 20) {
      throw std::invalid_argument("env.options.depth must be in [1, 20], got " +
                                  std::to_string(depth_));
    }
    first_leaf_ = (std::int64_t{1} << depth_) - 1;
    n_nodes_ = (std::int64_t{1} << (depth_ + 1)) - 1;
    all_ = at::arange(n_nodes_, at::kLong).view({-1, 1});
    leaves_ = all_.narrow(0, first_leaf_, n_nodes_ - first_leaf_);
    const at::Tensor r = reward(leaves_).to(at::kDouble);
    const double z = r.sum().item<double>();
    log_z_ = std::log(z);
    true_dist_ = r / z;
  }

  // Description.
  std::string name() const override { return "perfect_binary_tree"; }
  std::int64_t state_dim() const override { return 1; }
  std::int64_t n_actions() const override { return 3; }  // left, right, exit
  bool every_state_terminates() const override { return false; }

  // Dynamics (torchgfn PerfectBinaryTreeStates._compute_forward_masks /
  // _compute_backward_masks, and the transition tables of _build_tree).
  at::Tensor initial_states(std::int64_t n) const override { return at::zeros({n, 1}, at::kLong); }
  at::Tensor forward_masks(const at::Tensor& s) const override {
    const at::Tensor leaf = s.ge(first_leaf_);  // [B, 1]
    const at::Tensor inner = leaf.logical_not();
    return at::cat({inner, inner, leaf}, 1);
  }
  at::Tensor backward_masks(const at::Tensor& s) const override {
    const at::Tensor below_root = s.ne(0);
    const at::Tensor right = s.remainder(2).eq(0);  // even nodes are right children
    return at::cat({below_root & right.logical_not(), below_root & right}, 1);
  }
  at::Tensor step_unchecked(const at::Tensor& s, const at::Tensor& a) const override {
    return s * 2 + 1 + a.view({-1, 1});
  }
  at::Tensor backward_step_unchecked(const at::Tensor& s, const at::Tensor& a) const override {
    return (s - 1 - a.view({-1, 1})).div(2, "floor");
  }
  void check_states(const at::Tensor& s, const char* who) const override {
    Environment::check_states(s, who);  // int64 [B, 1]
    if (s.numel() > 0 &&
        (s.min().item<std::int64_t>() < 0 || s.max().item<std::int64_t>() >= n_nodes_)) {
      throw std::invalid_argument(std::string("perfect_binary_tree::") + who +
                                  ": node outside [0, " + std::to_string(n_nodes_) + ")");
    }
  }
  /// R(x) float32 [B] (torchgfn PerfectBinaryTree.reward with the chosen reward_fn).
  at::Tensor reward(const at::Tensor& s) const override {
    check_states(s, "reward");
    if (reward_ == TreeReward::kOnes) return at::ones({s.size(0)}, at::kFloat);
    return (s.reshape({-1}) + 1).to(at::kFloat);
  }
  at::Tensor log_reward(const at::Tensor& s) const override { return reward(s).log(); }

  // Network input.
  std::unique_ptr<gfn::core::Preprocessor> make_preprocessor(
      gfn::core::PreprocessorKind kind) const override {
    switch (kind) {
      case gfn::core::PreprocessorKind::kOneHot:
        return std::make_unique<gfn::core::OneHotPreprocessor>(*this);
      case gfn::core::PreprocessorKind::kKHot:
        return std::make_unique<gfn::core::KHotPreprocessor>(1, n_nodes_);
      case gfn::core::PreprocessorKind::kIdentity:
        return std::make_unique<gfn::core::IdentityPreprocessor>(1);
    }
    throw std::invalid_argument("env.preprocessor: perfect_binary_tree has no such preprocessor");
  }
  /// Distinct rows through a 1-D unique of the node column.
  gfn::core::UniqueStates unique(const at::Tensor& s) const override {
    const auto [values, inverse, counts] =
        at::_unique2(s.reshape({-1}), /*sorted=*/true, /*return_inverse=*/true);
    return {values.view({-1, 1}), inverse};
  }

  // Enumeration (torchgfn all_states, get_states_indices, terminating_states,
  // get_terminating_states_indices, n_states, n_terminating_states).
  bool enumerable() const override { return true; }
  std::int64_t n_states() const override { return n_nodes_; }
  const at::Tensor& all_states() const override { return all_; }
  at::Tensor state_indices(const at::Tensor& s) const override { return s.reshape({-1}); }
  std::int64_t n_terminating_states() const override { return n_nodes_ - first_leaf_; }
  const at::Tensor& terminating_states() const override { return leaves_; }
  at::Tensor terminating_state_indices(const at::Tensor& s) const override {
    return s.reshape({-1}) - first_leaf_;
  }
  const at::Tensor& true_distribution() const override { return true_dist_; }
  double log_partition() const override { return log_z_; }

 private:
  std::int64_t depth_;
  TreeReward reward_;
  std::int64_t first_leaf_ = 0, n_nodes_ = 0;
  at::Tensor all_, leaves_, true_dist_;
  double log_z_ = 0.0;
};

}  // namespace

// env.name: perfect_binary_tree; its options come from env.options, checked by
// perfect_binary_tree_fields().
GFN_ENVIRONMENT_PLUGIN(perfect_binary_tree, PerfectBinaryTreeOptions,
                       perfect_binary_tree_fields()) {
  return std::make_unique<PerfectBinaryTree>(options);
}
