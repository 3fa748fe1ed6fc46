"""The estimators gfn-train exports (docs/export.md) as PyTorch modules with torchgfn's names.

A run directory with output.export: true (or gfn-export's --out) holds model_state_dict.pt
(torchgfn's TBGFlowNet / DBGFlowNet state-dict names), model.json (the architecture) and
model_check.pt (states and the logits gfn-runtime computed for them). With torchgfn
installed, the PF / PB / logF estimators are torchgfn's gfn.utils.modules.MLP; without it, a
module with the same structure and parameter names (trunk = Sequential of Linear/ReLU,
last_layer), so load_state_dict(strict=True) checks every name and shape either way. A
continuous run (Box) names torchgfn's Box estimators in model.json (BoxCartesianPFMLP,
BoxCartesianPBMLP: ELU trunks on 2 s - 1; BoxStateFlowModule: a ReLU MLP whose value at s0 is
its logZ_value), a polar Box run its polar ones (box_polar_utils.py BoxPFMLP with PFs0,
BoxPBMLP: ELU trunks on the states); without torchgfn, modules of the same names and forward
(PlainBoxMLP, PlainBoxPolarMLP, PlainStateFlow). tools/load_in_torchgfn.py is the command
line over this module. Needs torch (Debian's python3-torch).
"""

import json
import os

import torch
from torch import nn

class PlainMLP(nn.Module):
    """torchgfn's MLP without torchgfn: same submodule names and Sequential indices."""

    def __init__(self, input_dim, output_dim, hidden_dim, n_hidden_layers, **_):
        super().__init__()
        layers = [nn.Linear(input_dim, hidden_dim), nn.ReLU()]
        for _ in range(n_hidden_layers):
            layers += [nn.Linear(hidden_dim, hidden_dim), nn.ReLU()]
        self.trunk = nn.Sequential(*layers)
        self.last_layer = nn.Linear(hidden_dim, output_dim)

    def forward(self, x):
        return self.last_layer(self.trunk(x))


class PlainBoxMLP(nn.Module):
    """torchgfn's BoxCartesianPFMLP / BoxCartesianPBMLP without torchgfn: its MLP (trunk =
    Sequential of trunk_linear_layers Linear layers with ELU, last_layer) on 2 s - 1."""

    def __init__(self, input_dim, output_dim, hidden_dim, trunk_linear_layers,
                 activation=nn.ELU):
        super().__init__()
        layers = [nn.Linear(input_dim, hidden_dim), activation()]
        for _ in range(trunk_linear_layers - 1):
            layers += [nn.Linear(hidden_dim, hidden_dim), activation()]
        self.trunk = nn.Sequential(*layers)
        self.last_layer = nn.Linear(hidden_dim, output_dim)

    def forward(self, states):
        return self.last_layer(self.trunk(2.0 * states - 1.0))


class PlainBoxPolarMLP(nn.Module):
    """torchgfn's polar BoxPFMLP / BoxPBMLP (box_polar_utils.py) without torchgfn: an ELU MLP
    on the states themselves; PF also holds PFs0, the s0 distribution's 5 K0 parameters. Its
    forward gives the raw outputs: last_layer's, then PFs0 on every row (PF)."""

    def __init__(self, input_dim, output_dim, hidden_dim, trunk_linear_layers, n_s0=0):
        super().__init__()
        mlp = PlainBoxMLP(input_dim, output_dim, hidden_dim, trunk_linear_layers)
        self.trunk, self.last_layer = mlp.trunk, mlp.last_layer
        if n_s0:
            self.PFs0 = nn.Parameter(torch.zeros(1, 5 * n_s0))

    def forward(self, states):
        return raw_polar_outputs(self, states)


def raw_polar_outputs(module, states):
    """The raw outputs gfn-runtime checks of a polar Box module (torchgfn's or its twin): its
    MLP on the states, then PFs0 on every row if it has one (torchgfn's own forward applies
    the sigmoids and pads to 1 + 5 max(K, K0) columns)."""
    out = module.last_layer(module.trunk(states))
    if hasattr(module, "PFs0"):
        out = torch.cat([out, module.PFs0.expand(states.shape[0], -1)], dim=1)
    return out


class PlainStateFlow(nn.Module):
    """torchgfn's BoxStateFlowModule without torchgfn: a ReLU MLP on the states, logZ_value
    at s0 (the rows of zeros)."""

    def __init__(self, input_dim, output_dim, hidden_dim, trunk_linear_layers):
        super().__init__()
        mlp = PlainBoxMLP(input_dim, output_dim, hidden_dim, trunk_linear_layers, nn.ReLU)
        self.trunk, self.last_layer = mlp.trunk, mlp.last_layer
        self.logZ_value = nn.Parameter(torch.zeros(()))

    def forward(self, states):
        out = self.last_layer(self.trunk(states))
        out[torch.all(states == 0.0, 1)] = self.logZ_value
        return out


def make_box_module(spec):
    """A continuous model's estimator: torchgfn's class when installed, else its plain twin."""
    cls = spec["class"].rsplit(".", 1)[-1]
    dims = {k: spec[k] for k in ("input_dim", "output_dim", "hidden_dim")}
    try:
        if cls == "BoxStateFlowModule":
            from gfn.gym.helpers.box_polar_utils import BoxStateFlowModule
            return BoxStateFlowModule(logZ_value=torch.zeros(()), activation_fn="relu",
                                      n_hidden_layers=spec["n_hidden_layers"], **dims)
        if cls == "BoxPFMLP":
            from gfn.gym.helpers.box_polar_utils import BoxPFMLP
            return BoxPFMLP(hidden_dim=spec["hidden_dim"], n_hidden_layers=spec["n_hidden_layers"],
                            n_components_s0=spec["n_components_s0"],
                            n_components=spec["n_components"])
        if cls == "BoxPBMLP":
            from gfn.gym.helpers.box_polar_utils import BoxPBMLP
            return BoxPBMLP(hidden_dim=spec["hidden_dim"], n_hidden_layers=spec["n_hidden_layers"],
                            n_components=spec["n_components"])
        from gfn.gym.helpers import box_cartesian_utils
        return getattr(box_cartesian_utils, cls)(
            hidden_dim=spec["hidden_dim"], n_hidden_layers=spec["n_hidden_layers"],
            n_components=spec["n_components"], n_dim=spec["n_dim"])
    except ImportError:
        layers = spec["trunk_linear_layers"]
        if cls == "BoxStateFlowModule":
            return PlainStateFlow(trunk_linear_layers=layers, **dims)
        if cls in ("BoxPFMLP", "BoxPBMLP"):
            return PlainBoxPolarMLP(trunk_linear_layers=layers,
                                    n_s0=spec.get("n_components_s0", 0), **dims)
        return PlainBoxMLP(trunk_linear_layers=layers, **dims)


def make_mlp(spec):
    """The module of one model.json estimator spec: torchgfn's (MLP, or its Box class) when
    installed, else its plain twin with the same parameter names."""
    if spec.get("class", "").startswith("gfn.gym."):
        return make_box_module(spec)
    args = {k: spec[k] for k in ("input_dim", "output_dim", "hidden_dim", "n_hidden_layers")}
    try:
        from gfn.utils.modules import MLP  # torchgfn, when installed
        return MLP(**args)
    except ImportError:
        return PlainMLP(**args)


def load(run_dir):
    """{'pf': module, 'pb': module or None, 'logF': module or None, 'logZ': tensor}, sidecar."""
    with open(os.path.join(run_dir, "model.json")) as f:
        sidecar = json.load(f)
    state = torch.load(os.path.join(run_dir, sidecar["state_dict"]))
    # DB / SubTB on a continuous environment: logZ is BoxStateFlowModule's logZ_value.
    out = {"logZ": state.get("logZ", state.get("logF.module.logZ_value"))}
    for name in ("pf", "pb", "logF"):
        spec = sidecar.get(name)
        if spec is None:
            out[name] = None
            continue
        module = make_mlp(spec)
        prefix = f"{name}.module."
        sub = {k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)}
        module.load_state_dict(sub, strict=True)  # every name and shape must match
        module.eval()
        out[name] = module
    return out, sidecar


def check(run_dir, estimators, sidecar, tol=1e-5, report=print):
    """True when the PF / PB logits (continuous: raw outputs; and log F) the modules compute for
    model_check.pt's inputs match gfn-runtime's within tol; report(line) gets one line per
    estimator (its shape and largest difference)."""
    ref = torch.load(os.path.join(run_dir, sidecar["check"]))
    worst = 0.0
    with torch.no_grad():
        for name, key in (("pf", "pf_logits"), ("pb", "pb_logits"), ("logF", "log_flow")):
            if key not in ref:
                continue
            module = estimators[name]
            polar = sidecar[name]["class"].rsplit(".", 1)[-1] in ("BoxPFMLP", "BoxPBMLP")
            mine = raw_polar_outputs(module, ref["inputs"]) if polar else module(ref["inputs"])
            if mine.shape != ref[key].shape:
                report(f"{key}: shape {tuple(mine.shape)} != {tuple(ref[key].shape)}")
                return False
            diff = (mine - ref[key]).abs().max().item()
            report(f"{key}: {tuple(mine.shape)}, max |PyTorch - gfn-runtime| = {diff:.3g}")
            worst = max(worst, diff)
    return worst <= tol
