"""A Python environment whose step raises on world rank 1 only (run_rank_failure.sh)."""
import os

from hypergrid import HyperGrid  # examples/python_env, on env.python_path


class FailsOnRank1(HyperGrid):
    def step(self, states, actions):
        if os.environ.get("OMPI_COMM_WORLD_RANK") == "1":
            raise RuntimeError("rank 1 refuses to step")
        return super().step(states, actions)
