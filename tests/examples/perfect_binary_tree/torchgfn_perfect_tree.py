"""torchgfn's PerfectBinaryTree, transcribed from its source for the comparison test
(tests/examples/compare_env.py).

Source: GFNOrg/torchgfn, src/gfn/gym/perfect_tree.py (class PerfectBinaryTree), as of commit
f39bfc96 (2026-08-20). Each function below names the member it transcribes. The transitions come
from torchgfn's breadth-first construction (_build_tree), not from a formula, so that the plugin's
closed form (child = 2 n + 1 + a) is checked against it.

torchgfn's reward is a callable without a default; the reward functions below are the ones its
tests use (testing/test_environments.py test_perfect_binary_tree_fwd_step: s + 1, the node index
plus one; testing/gym/test_compile.py and _discrete_envs_for_enumeration: ones). torchgfn defines
no log_partition or true_dist for PerfectBinaryTree: log Z is computed here the way
DiscreteEnv.validate would need it, log sum_x R(x) over `terminating_states`.
"""

import torch

# Option settings compared (plugin option names; see examples/perfect_binary_tree/README.md).
CASES = [
    # testing/test_environments.py test_perfect_binary_tree_fwd_step: depth 3, s + 1.
    {"depth": 3, "reward": "index"},
    # torchgfn's default depth 4, with the ones of _discrete_envs_for_enumeration.
    {"depth": 4, "reward": "ones"},
    {"depth": 4, "reward": "index"},
    {"depth": 1, "reward": "index"},
    # The example's experiment (examples/perfect_binary_tree/perfect_binary_tree.yaml).
    {"depth": 6, "reward": "index"},
]

# Settings the plugin refuses, and the option its message names.
REFUSED = [
    ({"depth": 0}, "depth"),
    ({"depth": 21}, "depth"),
    ({"reward": "square"}, "reward"),
    ({"branching_factor": 3}, "branching_factor"),
]


class PerfectBinaryTree:
    def __init__(self, depth, reward):
        # __init__: branching_factor 2, n_actions 3 (left, right, exit), n_nodes 2^(depth+1) - 1.
        self.depth = depth
        self.branching_factor = 2
        self.n_actions = self.branching_factor + 1
        self.n_nodes = 2 ** (self.depth + 1) - 1
        self.reward_name = reward
        self.transition_table, self.inverse_transition_table, self.term_states = self._build_tree()

    def reward_fn(self, x):
        # The tests' callables (x is [B, 1]; flattened to [B]).
        if self.reward_name == "index":
            return x.view(-1).float() + 1
        if self.reward_name == "ones":
            return torch.ones(x.shape[0])
        raise ValueError(self.reward_name)

    def _build_tree(self):
        # _build_tree, verbatim in logic: breadth-first numbering, leaves at depth `depth`.
        transition_table = {}
        inverse_transition_table = {}
        node_index = 0
        queue = [(node_index, 0)]
        terminating_states_id = set()
        while queue:
            node, d = queue.pop(0)
            if d < self.depth:
                for a in range(self.branching_factor):
                    node_index += 1
                    transition_table[(node, a)] = node_index
                    inverse_transition_table[(node_index, a)] = node
                    queue.append((node_index, d + 1))
            else:
                terminating_states_id.add(node)
        term = torch.tensor(list(terminating_states_id)).reshape(-1, 1)
        return transition_table, inverse_transition_table, term

    def forward_masks(self, tensor):
        # PerfectBinaryTreeStates._compute_forward_masks.
        forward_masks = torch.ones((tensor.shape[0], self.n_actions), dtype=torch.bool)
        states_flat = tensor.view(-1, 1)
        term_tensor = self.term_states.view(1, -1)
        terminating_states_mask = (states_flat == term_tensor).any(dim=1)
        forward_masks[~terminating_states_mask, -1] = False
        forward_masks[terminating_states_mask, :] = False
        forward_masks[terminating_states_mask, -1] = True
        return forward_masks

    def backward_masks(self, tensor):
        # PerfectBinaryTreeStates._compute_backward_masks (s0 is node 0).
        backward_masks = torch.zeros((tensor.shape[0], self.n_actions - 1), dtype=torch.bool)
        initial_state_mask = (tensor == 0).view(-1)
        even_states = (tensor % 2 == 0).view(-1)
        backward_masks[even_states & ~initial_state_mask, 1] = True
        backward_masks[~even_states & ~initial_state_mask, 0] = True
        return backward_masks

    def get_states_indices(self, tensor):
        return torch.flatten(tensor)

    def step(self, tensor, actions):
        rows = torch.hstack((tensor, actions.view(-1, 1))).tolist()
        return torch.tensor([self.transition_table.get(tuple(r)) for r in rows]).reshape(-1, 1)

    def backward_step(self, tensor, actions):
        rows = torch.hstack((tensor, actions.view(-1, 1))).tolist()
        return torch.tensor(
            [self.inverse_transition_table.get(tuple(r)) for r in rows]
        ).reshape(-1, 1)

    def all_states(self):
        return torch.arange(self.n_nodes).reshape(-1, 1)

    def _leaf_bounds(self):
        return 2**self.depth - 1, 2 ** (self.depth + 1) - 1

    def terminating_states(self):
        lb, ub = self._leaf_bounds()
        return torch.arange(lb, ub).reshape(-1, 1)

    def n_states(self):
        return self.n_nodes

    def n_terminating_states(self):
        return 2**self.depth

    def get_terminating_states_indices(self, tensor):
        lb, _ = self._leaf_bounds()
        return torch.flatten(tensor) - lb


def make(options):
    return PerfectBinaryTree(**options)
