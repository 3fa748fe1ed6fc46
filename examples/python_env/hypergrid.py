"""HyperGrid in Python, for gfn-train's env.python (docs/environments.md "Python environments").

torchgfn's HyperGrid (src/gfn/gym/hypergrid.py, reward "original") written against gfn-train's
Python environment contract: torchgfn's DiscreteEnv vocabulary on plain tensors. States are
int64 [B, ndim] (coordinates in 0..height-1), actions int64 [B]: action j < ndim adds 1 to
coordinate j, action ndim is exit (gfn-train never passes exit to step or backward_step).
Every method works on a whole batch with tensor operations, no loop over rows: gfn-train calls
each once per sampling step of a batch.

It computes what gfn-train's built-in HyperGrid (runtime/gfn/env/hypergrid.cc) computes, with
the same float32 operations in the same order, so that under the same seed both give the same
trajectories and the same l1_exact (tests/examples/python_env/).

    env:
      name: py_hypergrid
      python: "hypergrid:HyperGrid"            # module:Class, found on env.python_path
      options: {ndim: 2, height: 8}            # keyword arguments of __init__
"""

import math

import torch

# torchgfn compares with 0.25 + EPS etc. against float32 tensors.
EPS = 1e-12


class HyperGrid:
    def __init__(self, ndim=2, height=8, R0=0.1, R1=0.5, R2=2.0):
        if ndim < 1 or height < 2:
            raise ValueError(f"HyperGrid needs ndim >= 1 and height >= 2, got {ndim}, {height}")
        self.ndim, self.height = ndim, height
        self.R0, self.R1, self.R2 = R0, R1, R2
        # The description gfn-train reads once.
        self.n_actions = ndim + 1                       # exit included, last
        self.state_shape = (ndim,)
        self.s0 = torch.zeros(ndim, dtype=torch.long)
        self.every_state_terminates = True              # exit is allowed everywhere
        self.khot_height = height                       # env.preprocessor: khot
        # State index: the coordinates in base `height`, the last one fastest.
        self._strides = height ** torch.arange(ndim - 1, -1, -1, dtype=torch.long)
        self._n_states = height**ndim
        self.n_modes, self._max_reward = 0, math.inf     # known after enumerating
        if self._n_states <= 2**22:
            all_states = self.all_states
            rewards = self.reward(all_states)
            r64 = rewards.double()
            z = r64.sum().item()
            self._log_z = math.log(z)
            self._true_dist = r64 / z
            self._max_reward = rewards.max().item()
            self.n_modes = int((rewards >= self._max_reward).sum())

    # ---- dynamics (batched) -------------------------------------------------------------
    def forward_masks(self, states):
        """bool [B, n_actions]: a coordinate may grow below height - 1; exit always."""
        masks = torch.ones(states.shape[0], self.n_actions, dtype=torch.bool)
        masks[:, : self.ndim] = states < self.height - 1
        return masks

    def backward_masks(self, states):
        """bool [B, n_actions - 1]: a coordinate may shrink above 0."""
        return states > 0

    def step(self, states, actions):
        """int64 [B, ndim]: the children (a new tensor: the inputs are gfn-train's)."""
        ones = torch.ones(states.shape[0], 1, dtype=torch.long)
        return states.scatter_add(1, actions.view(-1, 1), ones)

    def backward_step(self, states, actions):
        """int64 [B, ndim]: the parents under backward action a (undoes forward action a)."""
        minus = torch.full((states.shape[0], 1), -1, dtype=torch.long)
        return states.scatter_add(1, actions.view(-1, 1), minus)

    # ---- reward ---------------------------------------------------------------------------
    def reward(self, states):
        """float32 [B]: torchgfn's OriginalReward, R0 + R1 [outer] + R2 [band]."""
        ax = (states.float() / (self.height - 1) - 0.5).abs()
        outer = (ax > 0.25 + EPS).all(-1).float()
        band = ((ax > 0.3 + EPS) & (ax < 0.4 - EPS)).all(-1).float()
        return self.R0 + outer * self.R1 + band * self.R2

    def log_reward(self, states):
        """float32 [B]: log R."""
        return self.reward(states).log()

    # ---- enumeration (exact validation: l1_exact) -------------------------------------
    @property
    def is_enumerable(self):
        return self._n_states <= 2**22

    @property
    def all_states(self):
        """int64 [height^ndim, ndim], in state-index order (parents before children)."""
        indices = torch.arange(self._n_states, dtype=torch.long)
        return indices.view(-1, 1).div(self._strides, rounding_mode="floor").remainder(self.height)

    @property
    def terminating_states(self):
        return self.all_states

    def get_states_indices(self, states):
        return (states * self._strides).sum(1)

    def get_terminating_states_indices(self, states):
        return self.get_states_indices(states)

    def true_dist(self):
        """float64 [height^ndim]: R(x) / Z."""
        return self._true_dist

    def log_partition(self):
        return self._log_z

    # ---- modes: the states of the largest reward -------------------------------------------
    def is_mode(self, states):
        return self.reward(states) >= self._max_reward

    def mode_hits(self, states):
        """int64 [K]: the state index of each mode hit."""
        return self.get_states_indices(states).masked_select(self.is_mode(states))

    def mode_probability(self):
        """R(mode) / Z, or None when unknown (too large to enumerate)."""
        if self.n_modes == 0:
            return None
        return math.exp(math.log(self._max_reward) - self._log_z)
