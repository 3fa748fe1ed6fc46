#!/usr/bin/python3
"""Compares an environment plugin with torchgfn's definition of the same environment
(docs/environments.md "torchgfn's SetAddition and PerfectBinaryTree (plugins)").

  compare_env.py --dump ENV_DUMP --plugin LIB.so --name ENV --reference MODULE.py

MODULE.py transcribes torchgfn's environment (tests/examples/<example>/torchgfn_*.py): it has
CASES (option settings), REFUSED (settings the plugin must refuse, with the option the message
names) and make(options), an object with torchgfn's members (all_states, forward_masks,
backward_masks, step, backward_step, get_states_indices, terminating_states,
get_terminating_states_indices, n_states, n_terminating_states, reward_fn). For every case the
plugin is loaded by ENV_DUMP (tests/examples/env_dump.cc, through gfn-runtime's plugin loader) and
these must agree exactly: the number of actions and of states, s0, all states in order, their
indices, forward and backward masks, the child under every allowed forward action and the parent
under every allowed backward action, the terminating states in order and their indices; and to a
relative 1e-6: the rewards of the terminating states, the true distribution R/Z, log Z, and the
terminating distribution of PF(a | s) proportional to a + 1 over the allowed actions (gfn-runtime's
exact validation against torchgfn's DiscreteEnv.exact_terminating_distribution, src/gfn/env.py,
transcribed below).

Before that, the comparison runs on planted differences (each compared key of one case changed
in turn) and must report every one: a comparison that cannot fail fails. Exit code 0 when all
agree, 1 otherwise (each difference printed).
"""

import argparse
import importlib.util
import json
import math
import subprocess
import sys

import torch

EXACT = [
    "name", "n_actions", "state_dim", "every_state_terminates", "s0", "n_states", "all_states",
    "state_indices", "forward_masks", "backward_masks", "children", "parents",
    "n_terminating_states", "terminating_states", "terminating_state_indices", "state_graph_edges",
]
CLOSE = ["rewards", "true_distribution", "log_partition", "pf_distribution"]


def describe(env, name):
    """The dump's keys computed from the transcription of torchgfn."""
    all_states = env.all_states()
    fm, bm = env.forward_masks(all_states), env.backward_masks(all_states)
    exit_action = env.n_actions - 1
    out = {"name": name, "n_actions": env.n_actions, "state_dim": all_states.shape[1]}
    out["every_state_terminates"] = bool(fm[:, exit_action].all())
    out["s0"] = [0] * all_states.shape[1]  # torchgfn: s0 = zeros for both environments
    out["n_states"] = env.n_states()
    out["all_states"] = all_states.tolist()
    out["state_indices"] = env.get_states_indices(all_states).tolist()
    out["forward_masks"] = fm.long().tolist()
    out["backward_masks"] = bm.long().tolist()
    out["children"] = transitions(env.step, all_states, fm[:, :exit_action])
    out["parents"] = transitions(env.backward_step, all_states, bm)
    out["state_graph_edges"] = len(out["children"])
    term = env.terminating_states()
    out["n_terminating_states"] = env.n_terminating_states()
    out["terminating_states"] = term.tolist()
    out["terminating_state_indices"] = env.get_terminating_states_indices(term).tolist()
    rewards = env.reward_fn(term).double()
    z = float(rewards.sum())
    out["rewards"] = rewards.tolist()
    out["true_distribution"] = (rewards / z).tolist()
    out["log_partition"] = math.log(z)
    graded = fm.double() * torch.arange(1, env.n_actions + 1, dtype=torch.double)
    out["pf_distribution"] = exact_terminating_distribution(env, graded / graded.sum(1, True))
    return out


def exact_terminating_distribution(env, action_probs):
    """torchgfn's DiscreteEnv.exact_terminating_distribution and _build_transition_edges
    (src/gfn/env.py) for a table of action probabilities [n_states, n_actions]."""
    states = env.all_states()
    n_states, exit_index = env.n_states(), env.n_actions - 1
    fm = env.forward_masks(states)
    positions = torch.arange(n_states)
    sources, destinations, actions = [], [], []
    for action_index in range(exit_index):
        allowed = fm[:, action_index]
        if not bool(allowed.any()):
            continue
        n_allowed = int(allowed.sum())
        children = env.step(states[allowed], torch.full((n_allowed,), action_index))
        sources.append(positions[allowed])
        destinations.append(env.get_states_indices(children))
        actions.append(torch.full((n_allowed,), action_index))
    source, destination, action = torch.cat(sources), torch.cat(destinations), torch.cat(actions)
    in_degree = torch.zeros(n_states, dtype=torch.long)
    in_degree.index_add_(0, destination, torch.ones_like(destination))
    visits = torch.zeros(n_states, dtype=torch.double)
    visits[env.get_states_indices(torch.zeros(1, states.shape[1], dtype=torch.long))] = 1.0
    processed = torch.zeros(n_states, dtype=torch.bool)
    frontier = in_degree == 0
    while bool(frontier.any()):
        processed |= frontier
        outgoing = frontier[source]
        src, dst, act = source[outgoing], destination[outgoing], action[outgoing]
        visits.index_add_(0, dst, visits[src] * action_probs[src, act])
        in_degree.index_add_(0, dst, -torch.ones_like(dst))
        frontier = (in_degree == 0) & ~processed
    term = env.terminating_states()
    pmf = torch.zeros(env.n_terminating_states(), dtype=torch.double)
    pmf[env.get_terminating_states_indices(term)] = (visits * action_probs[:, exit_index])[
        env.get_states_indices(term)
    ]
    return pmf.tolist()


def transitions(step, states, masks):
    pairs = masks.nonzero()
    if pairs.shape[0] == 0:
        return []
    to = step(states[pairs[:, 0]], pairs[:, 1])
    return [[int(p), int(a), row] for (p, a), row in zip(pairs.tolist(), to.long().tolist())]


def close(a, b):
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return isinstance(b, (int, float)) and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)


def differences(ours, ref):
    found = []
    for key in EXACT + CLOSE:
        if key not in ours:
            found.append(f"{key}: missing from the plugin's dump")
        elif key in EXACT and ours[key] != ref[key]:
            found.append(f"{key}: plugin {short(ours[key])} != torchgfn {short(ref[key])}")
        elif key in CLOSE and not close(ours[key], ref[key]):
            found.append(f"{key}: plugin {short(ours[key])} !~ torchgfn {short(ref[key])}")
    return found


def short(value):
    text = json.dumps(value)
    return text if len(text) < 160 else text[:160] + "..."


def planted(value):
    """`value` with one entry changed."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list) and value:
        return value[:-1] + [planted(value[-1])]
    return [0]


def self_check(ref):
    missed = [k for k in EXACT + CLOSE if not differences(dict(ref, **{k: planted(ref[k])}), ref)]
    for key in missed:
        print(f"FAILED: the comparison misses a planted difference in {key}")
    return not missed


def run_dump(args, options):
    cmd = [args.dump, "--plugin", args.plugin, "--name", args.name]
    for key, value in options.items():
        text = str(value).lower() if isinstance(value, bool) else str(value)
        cmd += ["--option", f"{key}={text}"]
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for flag in ["--dump", "--plugin", "--name", "--reference"]:
        parser.add_argument(flag, required=True)
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("reference", args.reference)
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)

    ok = self_check(describe(reference.make(reference.CASES[0]), args.name))
    for options in reference.CASES:
        done = run_dump(args, options)
        if done.returncode != 0:
            print(f"FAILED {options}: env_dump exited {done.returncode}: {done.stderr.strip()}")
            ok = False
            continue
        found = differences(json.loads(done.stdout), describe(reference.make(options), args.name))
        for d in found:
            print(f"FAILED {options}: {d}")
        ok = ok and not found
        print(f"{'ok' if not found else 'DIFFERENT'}: {options}")
    for options, key in reference.REFUSED:
        done = run_dump(args, options)
        refused = done.returncode != 0 and key in done.stderr
        print(f"{'ok' if refused else 'FAILED'}: {options} refused naming {key}: {done.stderr.strip()}")
        ok = ok and refused
    return 0 if ok else 1


if __name__ == "__main__":
    torch.set_num_threads(1)
    sys.exit(main())
