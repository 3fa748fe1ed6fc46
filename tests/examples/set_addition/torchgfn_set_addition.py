"""torchgfn's SetAddition, transcribed from its source for the comparison test
(tests/examples/compare_env.py).

Source: GFNOrg/torchgfn, src/gfn/gym/set_addition.py (class SetAddition), as of commit f39bfc96
(2026-08-20). Each function below names the member it transcribes. torchgfn's states are float
tensors of 0/1 (s0 = torch.zeros(n_items)); here they are int64, which changes no value.

torchgfn's reward is a callable without a default; the reward functions below are the ones its
tests use (testing/test_environments.py test_set_addition_fwd_step and testing/gym/test_compile.py:
`s.sum(-1)`, the number of items; _discrete_envs_for_enumeration: ones), plus the plugin's R0
offset, which is 0 in those tests. torchgfn defines no log_partition or true_dist for SetAddition:
log Z is computed here the way DiscreteEnv.validate would need it, log sum_x R(x) over
`terminating_states`.
"""

import math

import torch

# Option settings compared (plugin option names; see examples/set_addition/README.md).
CASES = [
    # testing/test_environments.py test_set_addition_fwd_step: n_items 4, max_items 3, s.sum(-1).
    {"n_items": 4, "max_items": 3, "fixed_length": False, "reward": "size", "R0": 0.0},
    # testing/gym/test_compile.py _set_addition_setup: n_items 3, max_items 2, x.sum(-1).
    {"n_items": 3, "max_items": 2, "fixed_length": False, "reward": "size", "R0": 0.0},
    # _discrete_envs_for_enumeration: n_items 5, max_items 3, ones, with and without fixed_length.
    {"n_items": 5, "max_items": 3, "fixed_length": False, "reward": "ones", "R0": 0.0},
    {"n_items": 5, "max_items": 3, "fixed_length": True, "reward": "ones", "R0": 0.0},
    # The example's experiment (examples/set_addition/set_addition.yaml) and a fixed-length one.
    {"n_items": 6, "max_items": 4, "fixed_length": False, "reward": "size", "R0": 1.0},
    {"n_items": 7, "max_items": 2, "fixed_length": True, "reward": "size", "R0": 0.5},
]

# Settings the plugin refuses, and the option its message names.
REFUSED = [
    ({"n_items": 3, "max_items": 4}, "max_items"),
    ({"n_items": 0}, "n_items"),
    ({"reward": "cubic"}, "reward"),
    ({"R0": -1.0}, "R0"),
    ({"n_item": 4}, "n_item"),
]


class SetAddition:
    def __init__(self, n_items, max_items, fixed_length, reward, R0):
        # __init__: n_actions = n_items + 1, s0 = zeros(n_items), max_traj_len = max_items.
        self.n_items = n_items
        self.max_traj_len = max_items
        self.fixed_length = fixed_length
        self.n_actions = n_items + 1
        self.reward_name = reward
        self.R0 = R0

    def reward_fn(self, x):
        # The tests' callables, plus R0.
        if self.reward_name == "size":
            return x.sum(dim=-1).float() + self.R0
        if self.reward_name == "ones":
            return torch.ones(x.shape[0]) + self.R0
        raise ValueError(self.reward_name)

    def forward_masks(self, tensor):
        # SetAdditionStates._compute_forward_masks.
        n_items_per_state = tensor.sum(dim=-1)
        states_that_must_end = n_items_per_state >= self.max_traj_len
        states_that_may_continue = (n_items_per_state < self.max_traj_len) & (
            n_items_per_state >= 0
        )
        forward_masks = torch.zeros((tensor.shape[0], self.n_actions), dtype=torch.bool)
        forward_masks[states_that_may_continue, : self.n_items] = (
            tensor[states_that_may_continue] == 0
        )
        forward_masks[states_that_must_end, -1] = True
        if not self.fixed_length:
            forward_masks[..., -1] = True
        return forward_masks

    def backward_masks(self, tensor):
        # SetAdditionStates._compute_backward_masks.
        backward_masks = torch.zeros((tensor.shape[0], self.n_actions - 1), dtype=torch.bool)
        backward_masks[..., : self.n_items] = tensor != 0
        return backward_masks

    def get_states_indices(self, tensor):
        canonical_base = 2 ** torch.arange(self.n_items - 1, -1, -1)
        return (canonical_base * tensor).sum(-1).long()

    def step(self, tensor, actions):
        return tensor.scatter(-1, actions.view(-1, 1), 1, reduce="add")

    def backward_step(self, tensor, actions):
        return tensor.scatter(-1, actions.view(-1, 1), -1, reduce="add")

    def all_states(self):
        digits = torch.arange(0, 2)
        return torch.cartesian_prod(*[digits] * self.n_items).view(-1, self.n_items)

    def terminating_mask(self):
        # _terminating_mask.
        sizes = self.all_states().sum(dim=1)
        if self.fixed_length:
            return sizes == self.max_traj_len
        return sizes <= self.max_traj_len

    def terminating_states(self):
        return self.all_states()[self.terminating_mask()]

    def n_states(self):
        return 2**self.n_items

    def n_terminating_states(self):
        if self.fixed_length:
            return math.comb(self.n_items, self.max_traj_len)
        return sum(math.comb(self.n_items, k) for k in range(self.max_traj_len + 1))

    def get_terminating_states_indices(self, tensor):
        positions = torch.full((self.n_states(),), -1, dtype=torch.long)
        mask = self.terminating_mask()
        positions[mask] = torch.arange(int(mask.sum()))
        return positions[self.get_states_indices(tensor)]


def make(options):
    return SetAddition(**options)
