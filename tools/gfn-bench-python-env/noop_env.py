"""HyperGrid whose step returns its input: one call of it is the cost of calling Python from
gfn-train (GIL, call, tensor objects, result checks) with no work (gfn-bench-python-env)."""
from hypergrid import HyperGrid  # examples/python_env


class NoOpStep(HyperGrid):
    def step(self, states, actions):
        return states
