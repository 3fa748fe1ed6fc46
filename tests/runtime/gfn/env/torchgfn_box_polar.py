#!/usr/bin/python3
"""Writes box_polar_torchgfn.txt, the fixture of box_polar_policies_test.cc, with torchgfn.

The polar Box policies (runtime/gfn/env/box_polar_policies.h) must give the log-densities of
torchgfn's BoxPFEstimator / BoxPBEstimator (src/gfn/gym/helpers/box_polar_utils.py) and draw
from the same distributions. This script builds, with torchgfn itself, fixed raw network
outputs, states and actions, and records:

  * pf_*: states [B, 2], raw outputs [B, 1 + 3 K + 5 K0] in the C++ policy's layout (the
    network head's [exit logit, mixture logits K, alpha_theta K, beta_theta K], then the s0
    parameters PFs0 [5 K0]), actions drawn by torchgfn's DistributionWrapper (exit rows flagged)
    and torchgfn's log_prob of them. The raw outputs go through torchgfn's own BoxPFMLP.forward
    (its MLP body replaced by the fixed outputs), so the sigmoid and the slot layout are
    torchgfn's.
  * pb_*: the same for BoxPBMLP / BoxPBEstimator (QuarterCircle, southwestern), and
    pbu_*: torchgfn's BoxPBUniform backward policy (alpha = beta = 1, one component).
  * mom_*: per state, the mean and standard deviation of 20000 actions torchgfn draws, and its
    exit frequency, for the statistical comparison of the samplers.

Settings: train_box.py's (delta 0.25, epsilon 1e-10, K = 2, K0 = 4, concentrations in
[0.1, 5.1]). Regenerate (Debian's python3-torch, a torchgfn source tree):

    /usr/bin/python3 tests/runtime/gfn/env/torchgfn_box_polar.py --torchgfn /tmp/torchgfn \
        --output tests/runtime/gfn/env/box_polar_torchgfn.txt

The torchgfn package is loaded as tools/versus-torchgfn.py loads it (the same copy and import
stand-ins, imported from that script). Format: one block per line, "name rows cols v0 v1 ...",
row-major, float32 values printed with 9 significant digits.
"""
import argparse
import importlib.util
import sys
import tempfile
from pathlib import Path

DELTA, EPSILON, K, K0 = 0.25, 1e-10, 2, 4
MIN_C, MAX_C = 0.1, 5.1
N_MOMENT_DRAWS = 20000


def load_torchgfn(source: Path, work: Path):
    """Imports gfn from a prepared copy of `source` with versus-torchgfn.py's stand-ins."""
    tools = Path(__file__).resolve().parents[4] / "tools" / "versus-torchgfn.py"
    spec = importlib.util.spec_from_file_location("versus_torchgfn", tools)
    versus = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(versus)
    root = versus.prepare_torchgfn(source, work / "torchgfn")
    stubs = versus.write_standins(work / "standins")
    sys.path[:0] = [str(root), str(stubs)]
    exec(versus.STUB_FINDER, {})  # installs the import finder of the stand-ins


def pf_states(torch):
    return torch.tensor([[0.0, 0.0], [0.0, 0.0], [0.1, 0.05], [0.3, 0.6], [0.05, 0.8],
                         [0.8, 0.2], [0.9, 0.9], [0.7, 0.85], [0.85, 0.55], [0.2, 0.0],
                         [0.5, 0.5], [0.6, 0.1], [1.0, 0.3], [0.76, 0.76]])


def pb_states(torch):
    return torch.tensor([[0.1, 0.05], [0.2, 0.1], [0.3, 0.6], [0.05, 0.8], [0.8, 0.2],
                         [0.9, 0.9], [0.2, 0.3], [0.6, 0.1], [0.24, 0.1], [0.5, 0.0],
                         [0.5, 0.5], [0.15, 0.4]])


def forward_with_body(module, states, body_output):
    """module(states) with its MLP body's output replaced by `body_output`."""
    from gfn.utils import modules
    saved = modules.MLP.forward
    modules.MLP.forward = lambda self, x: body_output.clone()
    try:
        return module(states)
    finally:
        modules.MLP.forward = saved


def pf_case(torch, utils, env, seed):
    """States, raw outputs in the C++ layout, torchgfn's draws and their log-probs."""
    g = torch.Generator().manual_seed(seed)
    states = pf_states(torch)
    net_out = torch.randn(states.shape[0], 1 + 3 * K, generator=g)
    pfs0 = torch.randn(1, 5 * K0, generator=g)
    module = utils.BoxPFMLP(hidden_dim=8, n_hidden_layers=1, n_components_s0=K0, n_components=K)
    module.PFs0.data.copy_(pfs0)
    module_output = forward_with_body(module, states, net_out)
    est = utils.BoxPFEstimator(env, module, n_components_s0=K0, n_components=K,
                               min_concentration=MIN_C, max_concentration=MAX_C)
    wrapped = env.States(states)
    dist = est.to_probability_distribution(wrapped, module_output)
    torch.manual_seed(seed)
    actions = dist.sample()
    exit_rows = torch.all(actions == -float("inf"), 1)
    # Two more exits on rows that may exit but drew a move (their log-prob differs).
    for row in (3, 10):
        actions[row] = -float("inf")
        exit_rows[row] = True
    log_prob = dist.log_prob(actions)
    raw = torch.cat([net_out, pfs0.expand(states.shape[0], -1)], 1)
    moves = torch.where(exit_rows.unsqueeze(1), torch.zeros_like(actions), actions)
    return states, raw, moves, exit_rows.float().unsqueeze(1), log_prob.unsqueeze(1), dist


def pb_case(torch, utils, env, seed, uniform):
    g = torch.Generator().manual_seed(seed)
    states = pb_states(torch)
    k = 1 if uniform else K
    if uniform:
        module = utils.BoxPBUniform()
        raw = torch.ones(states.shape[0], 3)
        module_output = raw.clone()
    else:
        raw = torch.randn(states.shape[0], 3 * K, generator=g)
        module = utils.BoxPBMLP(hidden_dim=8, n_hidden_layers=1, n_components=K)
        module_output = forward_with_body(module, states, raw)
    est = utils.BoxPBEstimator(env, module, n_components=k, min_concentration=MIN_C,
                               max_concentration=MAX_C)
    dist = est.to_probability_distribution(env.States(states), module_output)
    torch.manual_seed(seed)
    actions = dist.sample()
    return states, raw, actions, dist.log_prob(actions).unsqueeze(1), dist


def moments(torch, dist, exit_possible):
    """Per state: mean and std of the moves' coordinates, exit frequency (20000 draws)."""
    draws = torch.stack([dist.sample() for _ in range(N_MOMENT_DRAWS)])  # [n, B, 2]
    is_exit = torch.all(draws == -float("inf"), -1) if exit_possible else \
        torch.zeros(draws.shape[:2], dtype=torch.bool)
    moves = torch.where(is_exit.unsqueeze(-1), torch.full_like(draws, float("nan")), draws)
    mean = torch.nanmean(moves, 0)
    var = torch.nanmean((moves - mean) ** 2, 0)
    return mean, var.sqrt(), is_exit.float().mean(0).unsqueeze(1)


def write_block(out, name, tensor):
    t = tensor.detach().to(dtype=__import__("torch").float32).reshape(tensor.shape[0], -1)
    values = " ".join(f"{v:.9g}" for v in t.flatten().tolist())
    out.write(f"{name} {t.shape[0]} {t.shape[1]} {values}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--torchgfn", type=Path, required=True, help="torchgfn source tree")
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        load_torchgfn(args.torchgfn, Path(work))
        import torch
        from gfn.gym.box import BoxPolar
        from gfn.gym.helpers import box_polar_utils as utils
        env = BoxPolar(delta=DELTA, epsilon=EPSILON)
        blocks = []
        states, raw, moves, exits, log_prob, dist = pf_case(torch, utils, env, 1)
        blocks += [("pf_states", states), ("pf_outputs", raw), ("pf_actions", moves),
                   ("pf_is_exit", exits), ("pf_log_prob", log_prob)]
        mean, std, exit_freq = moments(torch, dist, True)
        blocks += [("mom_pf_mean", mean), ("mom_pf_std", std), ("mom_pf_exit", exit_freq)]
        for prefix, uniform in (("pb", False), ("pbu", True)):
            states, raw, actions, log_prob, dist = pb_case(torch, utils, env, 2, uniform)
            blocks += [(prefix + "_states", states), (prefix + "_outputs", raw),
                       (prefix + "_actions", actions), (prefix + "_log_prob", log_prob)]
            if not uniform:
                mean, std, _ = moments(torch, dist, False)
                blocks += [("mom_pb_mean", mean), ("mom_pb_std", std)]
        with open(args.output, "w") as out:
            out.write(f"# torchgfn box_polar_utils fixture (torchgfn_box_polar.py): delta {DELTA}"
                      f" epsilon {EPSILON} K {K} K0 {K0} concentrations [{MIN_C}, {MAX_C}]\n")
            for name, tensor in blocks:
                write_block(out, name, tensor)


if __name__ == "__main__":
    main()
