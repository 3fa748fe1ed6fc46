"""The figures of tools/gfn-plot (docs/outputs.md "Plots"), drawn with matplotlib's Agg backend.

Every figure has a fixed size in pixels (SIZES, at DPI), so a test can check it; curves of
several run directories are overlaid, labelled by the directory name. Each function takes
RunDir objects (plotting/run_dir.py) and an output path, and returns that path.
"""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from plotting.run_dir import read_samples  # noqa: E402

DPI = 100
# name -> (width, height) in pixels
SIZES = {
    "distribution.png": (1200, 500),
    "quality.png": (1200, 1000),
    "loss.png": (1200, 500),
    "modes.png": (1200, 500),
    "timing.png": (1200, 500),
    "modes_agents.png": (1200, 500),
    "discovery.png": (1200, 500),
    "samples.png": (1200, 500),
    "sample_distance.png": (1200, 500),
}


def _figure(name, nrows=1, ncols=2):
    width, height = SIZES[name]
    return plt.subplots(nrows, ncols, figsize=(width / DPI, height / DPI), dpi=DPI,
                        squeeze=False)


def _save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)  # no bbox_inches="tight": the size stays SIZES[name]
    plt.close(fig)
    return path


def _finite(xs, ys):
    pairs = [(x, y) for x, y in zip(xs, ys) if math.isfinite(x) and math.isfinite(y)]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _no_data(ax, text):
    """A panel without data says why, in one line."""
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


class NotDrawn(Exception):
    """A figure with no data in any panel is not drawn; str(e) says why, in one line."""


def _not_drawn(fig, reason):
    plt.close(fig)
    raise NotDrawn(reason)


def validation_off(run):
    """True when the run's config.yaml has validation.enabled false."""
    return (run.config.get("validation") or {}).get("enabled") is False


VALIDATION_OFF = "validation off (validation.enabled: false)"


def _no_validation_reason(runs, what):
    """Why `what` (metrics.csv's columns) has no value in any of `runs`."""
    if all(validation_off(run) for run in runs):
        return VALIDATION_OFF
    names = sorted({str(run.env.get("name")) for run in runs})
    if all(not run.metrics.get("iteration") for run in runs):
        return "no validation recorded (metrics.csv has no rows)"
    if all(run.continuous for run in runs):
        return f"{what}: not defined for a continuous environment ({', '.join(names)})"
    return f"{what}: not computed, {', '.join(names)} not enumerable at this size"


# ---- learned vs true terminating-state distribution -----------------------------------------

def _ranks(values):
    """Ranks 1..n, ties given the average of the ranks they span (runtime/gfn/
    rank_correlation.h, scipy.stats.rankdata's default)."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(x, y):
    """Spearman's rho of two equally long sequences (NaN when either is constant)."""
    rx, ry = _ranks(x), _ranks(y)
    if len(rx) < 2 or rx.std() == 0 or ry.std() == 0:
        return math.nan
    return float(np.corrcoef(rx, ry)[0, 1])


def _spearman_scatter(run, fig, left, right, path):
    """BitSequence (TB paper metric): log p_theta(x) vs log R(x) on the test set, and the
    same pairs as ranks (what Spearman's rho correlates)."""
    log_p, log_r = np.array(run.logp_logr["log_p"]), np.array(run.logp_logr["log_r"])
    rho = spearman(log_p, log_r)
    left.scatter(log_r, log_p, s=8)
    left.set_xlabel("log R(x)")
    left.set_ylabel("learned log p_θ(x)")
    left.set_title(f"test set ({len(log_p)} sequences): Spearman ρ = {rho:.3f}")
    right.scatter(_ranks(log_r), _ranks(log_p), s=8)
    right.set_xlabel("rank of log R(x)")
    right.set_ylabel("rank of log p_θ(x)")
    right.set_title("ranks")
    fig.suptitle(f"{run.label}: {run.env.get('name')} learned vs true (log scale)")
    return _save(fig, path)


def _density_title(run):
    """"<name> d = <ndim>", and for d > 2 that the panels are the first two coordinates'
    marginal."""
    ndim = run.env.get("ndim")
    text = f"{run.env.get('name')}"
    if isinstance(ndim, int):
        text += f", d = {ndim}"
        if ndim > 2:
            text += ": marginal of the first two coordinates (x0, x1)"
    return text


def _continuous_density(run, fig, left, right, path):
    """Continuous environments (density.csv): the learned sampler's density beside the true
    one on the validation grid, one colour scale. Left: KDE of the learned samples; right:
    the same KDE of exact samples of R/Z (what the JSD compares), with the contours of R/Z
    itself where it is known (d <= 2). d = 1: curves instead of heat maps."""
    d = run.density
    learned, target, true = (np.array(d[k]) for k in ("p_learned", "p_target", "p_true"))
    n = (run.config.get("validation") or {}).get("n_samples")
    samples = f"{min(int(n), 10000)} " if isinstance(n, int) else ""
    if "x1" not in d:  # d = 1
        xs = np.array(d["x0"])
        top = 1.05 * max(learned.max(), target.max(), np.nanmax(true) if np.isfinite(true).any()
                         else 0.0)
        left.plot(xs, learned, label="learned (KDE)")
        right.plot(xs, target, label="exact samples of R/Z (KDE)")
        if np.isfinite(true).all():
            right.plot(xs, true, "k--", linewidth=0.8, label="R(x)/Z")
        for ax in (left, right):
            ax.set_ylim(0, top)
            ax.set_xlabel("x0")
            ax.set_ylabel("probability per grid point")
            ax.legend(fontsize="small")
    else:
        x0, x1 = np.array(d["x0"]), np.array(d["x1"])
        g0, g1 = np.unique(x0), np.unique(x1)
        i0, i1 = np.searchsorted(g0, x0), np.searchsorted(g1, x1)
        top = max(learned.max(), target.max())
        for ax, p in ((left, learned), (right, target)):
            grid = np.full((len(g1), len(g0)), np.nan)
            grid[i1, i0] = p
            im = ax.imshow(grid, origin="lower", cmap="viridis", vmin=0, vmax=top,
                           extent=(g0[0], g0[-1], g1[0], g1[-1]), aspect="equal")
            ax.set_xlabel("x0")
            ax.set_ylabel("x1")
            fig.colorbar(im, ax=ax, label="probability per grid point")
        if np.isfinite(true).all():
            grid = np.zeros((len(g1), len(g0)))
            grid[i1, i0] = true
            levels = np.unique(grid)
            if len(levels) > 1:
                right.contour(g0, g1, grid, levels=(levels[:-1] + levels[1:]) / 2, colors="white",
                              linewidths=0.6)
    left.set_title(f"learned: KDE of {samples}sampled states")
    note = (" (dashed: R/Z)" if "x1" not in d else " (lines: R/Z levels)") \
        if np.isfinite(true).all() else ""
    right.set_title(f"true: KDE of {samples}exact samples{note}")
    fig.suptitle(f"{run.label}: {_density_title(run)}")
    return _save(fig, path)


def distribution(run, path):
    """BitSequence with logp_logr.csv: Spearman scatter of log p vs log R; continuous
    environments (density.csv): learned and true density side by side; 2-D HyperGrid: two
    heat maps; other HyperGrids: per-coordinate marginals; other environments (DiscreteEBM,
    small BitSequence without the test-set metric): states sorted by P_true, bars of both.
    Raises NotDrawn (why) when the run has none of these files."""
    fig, axes = _figure("distribution.png")
    left, right = axes[0]
    if run.logp_logr is not None and run.logp_logr["log_p"]:
        return _spearman_scatter(run, fig, left, right, path)
    if run.density is not None and run.density["p_learned"]:
        return _continuous_density(run, fig, left, right, path)
    d = run.distribution
    name = run.env.get("name")
    if d is None and validation_off(run):
        _not_drawn(fig, VALIDATION_OFF)
    if d is None and run.continuous:
        _not_drawn(fig, f"{name}: no density.csv (the environment has no target density)")
    if d is None:
        _not_drawn(fig, f"{name}: no distribution.csv (not enumerable at this size)")
    coords = sorted((k for k in d if k.startswith("x") and k[1:].isdigit()),
                    key=lambda k: int(k[1:]))
    learned, true = np.array(d["p_learned"]), np.array(d["p_true"])
    states = np.array([d[k] for k in coords], dtype=np.int64).T  # [T, ndim]
    if name == "hypergrid" and len(coords) == 2:
        h = int(states.max()) + 1
        for ax, p, title in ((left, learned, "learned P_θ(x)"), (right, true, "true R(x)/Z")):
            grid = np.zeros((h, h))
            grid[states[:, 0], states[:, 1]] = p
            im = ax.imshow(grid.T, origin="lower", cmap="viridis")
            ax.set_title(title)
            ax.set_xlabel("x0")
            ax.set_ylabel("x1")
            fig.colorbar(im, ax=ax)
    elif name == "hypergrid":
        h = int(states.max()) + 1
        for j in range(len(coords)):
            m_l = np.bincount(states[:, j], weights=learned, minlength=h)
            m_t = np.bincount(states[:, j], weights=true, minlength=h)
            left.plot(range(h), m_l, marker="o", label=f"x{j}")
            right.plot(range(h), m_t, marker="o", label=f"x{j}")
        for ax, title in ((left, "learned marginals"), (right, "true marginals")):
            ax.set_title(title)
            ax.set_xlabel("coordinate value")
            ax.set_ylabel("probability")
            ax.legend()
    else:
        order = np.argsort(-true, kind="stable")
        xs = np.arange(len(order))
        left.bar(xs, true[order], color="lightgray", label="true R(x)/Z")
        left.plot(xs, learned[order], "r.", label="learned P_θ(x)")
        left.set_title(f"{name}: states sorted by true probability")
        left.set_xlabel("terminating state (rank)")
        left.set_ylabel("probability")
        left.legend()
        right.scatter(true, learned, s=8)
        top = max(true.max(), learned.max())
        right.plot([0, top], [0, top], "k--", linewidth=0.8)
        right.set_xlabel("true R(x)/Z")
        right.set_ylabel("learned P_θ(x)")
        right.set_title("learned vs true")
    fig.suptitle(f"{run.label}: terminating-state distribution")
    return _save(fig, path)


# ---- samples of the learned sampler against the target's exact samples ----------------------

MARGINAL_COORDINATES = 3  # d > 2: histograms of x0, x1, x2


def _why_no_samples(run):
    if validation_off(run):
        return VALIDATION_OFF
    if not run.continuous:
        return f"{run.env.get('name')}: no samples/ (not a continuous environment)"
    return (f"{run.env.get('name')}: no samples/validation_*.npy (the target has no exact "
            "samples, or no validation with validation.n_samples > 0)")


def _log_density_grid(run):
    """(g0, g1, log R/Z on the grid) from density.csv for a 2-D target; None without it."""
    d = run.density
    if d is None or "x1" not in d or not d["p_true"] or \
            not np.isfinite(np.array(d["p_true"])).all():
        return None
    x0, x1, p = np.array(d["x0"]), np.array(d["x1"]), np.array(d["p_true"])
    g0, g1 = np.unique(x0), np.unique(x1)
    grid = np.zeros((len(g1), len(g0)))
    grid[np.searchsorted(g1, x1), np.searchsorted(g0, x0)] = p
    with np.errstate(divide="ignore"):
        log_p = np.log(grid)
    return g0, g1, np.maximum(log_p, log_p.max() - 30)  # gfn-diffusion clamps log p too


def _samples_2d(run, axes, learned, exact):
    """d = 2: the target's log-density contours (density.csv) with each sample set over them
    (gfn-diffusion plot_utils.py: plot_contours, plot_samples)."""
    contours = _log_density_grid(run)
    for ax, points, title, colour in ((axes[0], learned, "learned sampler", "tab:red"),
                                      (axes[1], exact, "exact samples of R/Z", "tab:blue")):
        if contours is not None:
            g0, g1, log_p = contours
            ax.contour(g0, g1, log_p, levels=20, cmap="Greys", linewidths=0.6)
            ax.set_xlim(g0[0], g0[-1])
            ax.set_ylim(g1[0], g1[-1])
        ax.scatter(points[:, 0], points[:, 1], s=3, alpha=0.5, color=colour)
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlabel("x0")
        ax.set_ylabel("x1")
        ax.set_title(f"{title} ({len(points)})")
    return "lines: log R/Z levels" if contours is not None else "no density.csv: no contours"


def _histogram_range(learned, exact, j):
    both = np.concatenate([learned[:, j], exact[:, j]])
    low, high = np.percentile(exact[:, j], [0.5, 99.5])
    low, high = min(low, np.percentile(both, 0.5)), max(high, np.percentile(both, 99.5))
    return (low - 0.5, high + 0.5) if low == high else (low, high)


def _marginals(axes, learned, exact):
    """d = 1 or d > 2: histograms of the first coordinates (learned filled, exact as a line),
    and for d > 2 the (x0, x2) projection of both sets (gfn-diffusion viz_many_well's x13)."""
    dims = min(learned.shape[1], MARGINAL_COORDINATES)
    for j in range(dims):
        ax = axes[j]
        bins = np.linspace(*_histogram_range(learned, exact, j), 41)
        ax.hist(learned[:, j], bins=bins, density=True, alpha=0.5, color="tab:red",
                label="learned")
        ax.hist(exact[:, j], bins=bins, density=True, histtype="step", color="tab:blue",
                linewidth=1.2, label="exact")
        ax.set_xlabel(f"x{j}")
        ax.set_title(f"marginal of x{j}")
        ax.legend(fontsize="small")
    axes[0].set_ylabel("density")
    if learned.shape[1] > 2:
        ax = axes[dims]
        ax.scatter(exact[:, 0], exact[:, 2], s=2, alpha=0.4, color="tab:blue", label="exact")
        ax.scatter(learned[:, 0], learned[:, 2], s=2, alpha=0.4, color="tab:red",
                   label="learned")
        ax.set_xlabel("x0")
        ax.set_ylabel("x2")
        ax.set_title("(x0, x2)")
        ax.legend(fontsize="small", markerscale=4)
    for ax in axes[dims + (learned.shape[1] > 2):]:
        ax.set_visible(False)


def samples(run, path):
    """The last validation's samples (samples/validation_<iteration>.npy): d = 2 the
    target's density contours with the learned samples over them beside the exact samples;
    d = 1 and d > 2 histograms of the first coordinates, learned against exact, and for d > 2
    the (x0, x2) projection. Raises NotDrawn without sample files."""
    if not run.sample_files:
        fig, _ = _figure("samples.png")
        _not_drawn(fig, _why_no_samples(run))
    iteration, file = run.sample_files[-1]
    learned, exact = read_samples(file)
    d = learned.shape[1]
    fig, axes = _figure("samples.png", ncols=2 if d == 2 else MARGINAL_COORDINATES + 1)
    axes = list(axes[0])
    note = _samples_2d(run, axes, learned, exact) if d == 2 else _marginals(axes, learned, exact)
    title = f"{run.label}: {run.env.get('target', run.env.get('name'))}, d = {d}, samples " \
            f"at iteration {iteration}"
    fig.suptitle(title + (f" ({note})" if note else ""))
    return _save(fig, path)


def sample_distance(runs, path):
    """w2 and mmd of sample_metrics.csv vs iterations, the runs overlaid (log scale). Raises
    NotDrawn when no run has that file."""
    fig, axes = _figure("sample_distance.png")
    if not any(run.sample_metrics and run.sample_metrics["iteration"] for run in runs):
        reasons = {_why_no_samples(run) if not run.sample_files else
                   "no sample_metrics.csv (tools/gfn-sample-metrics)" for run in runs}
        _not_drawn(fig, reasons.pop() if len(reasons) == 1 else "no sample_metrics.csv")
    for ax, key, title in ((axes[0][0], "w2", "2-Wasserstein distance to exact samples"),
                           (axes[0][1], "mmd", "RBF MMD² to exact samples")):
        drawn = _curves(ax, runs, "sample_metrics", "iteration", key)
        if drawn:
            ax.set_yscale("log")
            ax.legend(fontsize="small")
        else:
            _no_data(ax, f"no finite {key}")
        ax.set_title(title)
        ax.set_xlabel("iteration")
    return _save(fig, path)


# ---- curves over iterations and wall time ----------------------------------------------------

QUALITY_ROWS = (
    ("L1 (sum over states)", ("l1_exact", "l1_sampled")),
    ("L1 visited (mean, torchgfn l1_dist) and JSD", ("l1_visited", "jsd")),
    ("|logZ error|", ("logz_error",)),
)


def _curves(ax, runs, table, x_key, y_key, label_suffix=""):
    drawn = False
    for run in runs:
        data = getattr(run, table)
        if data is None or y_key not in data or x_key not in data:
            continue
        xs, ys = _finite(data[x_key], data[y_key])
        if xs:
            ax.plot(xs, ys, marker=".", label=f"{run.label} {y_key}{label_suffix}".strip())
            drawn = True
    return drawn


def quality(runs, path):
    """L1 exact / sampled / visited, JSD and |logZ error| vs iterations and vs wall time; a
    panel without values says why (validation off, the environment not enumerable, ...).
    Raises NotDrawn when no panel has a value."""
    fig, axes = _figure("quality.png", nrows=len(QUALITY_ROWS))
    any_drawn = False
    reasons = []
    for row, (title, keys) in enumerate(QUALITY_ROWS):
        for col, (x_key, x_label) in enumerate((("iteration", "iteration"),
                                                ("elapsed_s", "wall time (s)"))):
            ax = axes[row][col]
            drawn = False
            for key in keys:
                drawn |= _curves(ax, runs, "metrics", x_key, key)
            if drawn:
                ax.set_yscale("log")
                ax.legend(fontsize="small")
            else:
                reasons.append(_no_validation_reason(runs, ", ".join(keys)))
                _no_data(ax, reasons[-1])
            any_drawn |= drawn
            ax.set_title(title)
            ax.set_xlabel(x_label)
    if not any_drawn:
        _not_drawn(fig, reasons[0] if len(set(reasons)) == 1 else
                   _no_validation_reason(runs, "L1, JSD, |logZ error|"))
    return _save(fig, path)


def _training_or_metrics(run):
    return "training" if run.training is not None else "metrics"


def _column_vs_iteration_and_time(runs, path, name, first_x, column, title, empty_note):
    """One figure, two axes: `column` of each run's training.csv (else metrics.csv) vs
    `first_x` = (key, label) on the left and vs wall time on the right. Raises NotDrawn
    (`empty_note`) when no run has the column."""
    fig, axes = _figure(name)
    any_drawn = False
    for col, (x_key, x_label) in enumerate((first_x, ("elapsed_s", "wall time (s)"))):
        ax = axes[0][col]
        drawn = False
        for run in runs:
            drawn |= _curves(ax, [run], _training_or_metrics(run), x_key, column)
        if drawn:
            ax.legend(fontsize="small")
        else:
            _no_data(ax, empty_note)
        any_drawn |= drawn
        ax.set_title(title)
        ax.set_xlabel(x_label)
    if not any_drawn:
        _not_drawn(fig, empty_note)
    return _save(fig, path)


def loss(runs, path):
    """The training loss vs iterations and vs wall time (training.csv, else metrics.csv)."""
    return _column_vs_iteration_and_time(runs, path, "loss.png", ("iteration", "iteration"), "loss",
                                         "loss", "no loss recorded")


def population_title(run):
    """summary.json "population" in a line: "modes found 255/256 by the population (agents:
    239, 241, 236, 240)"; beyond 8 agents their range; None without it."""
    p = (run.summary or {}).get("population")
    if not isinstance(p, dict) or not isinstance(p.get("n_modes"), int):
        return None
    counts = [a.get("modes_found") for a in p.get("agents") or []]
    if len(counts) <= 1:
        split = "a single agent"
    elif len(counts) <= 8:
        split = "agents: " + ", ".join(str(c) for c in counts)
    else:
        split = f"{len(counts)} agents: {min(counts)} to {max(counts)} each"
    return f"modes found {p.get('modes_found')}/{p['n_modes']} by the population ({split})"


def _modes_panel(ax, runs, x_key, fallback_x):
    """The population's curve of each run (modes_timeline.csv "total"; a lone run also each
    agent's, thin), else trainer rank 0's (training.csv). True when something was drawn."""
    drawn = False
    for run in runs:
        timeline = run.modes_timeline or {}
        prefix = "" if len(runs) == 1 else f"{run.label} "
        if "total" not in timeline:
            drawn |= _curves(ax, [run], _training_or_metrics(run), fallback_x, "modes_found",
                             " (trainer rank 0)")
            continue
        agents = sorted(a for a in timeline if a != "total") if len(runs) == 1 else []
        for i, agent in enumerate(agents if len(agents) > 1 else []):
            rows = timeline[agent]
            ax.step([0.0] + rows[x_key], [0.0] + rows["modes_found"], where="post",
                    color="tab:gray", linewidth=0.8, label="each agent" if i == 0 else None)
        rows = timeline["total"]
        ax.step([0.0] + rows[x_key], [0.0] + rows["modes_found"], where="post", linewidth=2.5,
                label=f"{prefix}population", **({"color": "black"} if len(runs) == 1 else {}))
        drawn = True
    return drawn


def modes(runs, path):
    """Modes found by the population (all agents together, modes_timeline.csv "total") vs
    trajectories and vs wall time, each agent's curve thin beside it, the population's result
    (summary.json "population") in the title; trainer rank 0's curve (training.csv) for a run
    without modes_timeline.csv. Raises NotDrawn when the environment defines no modes or
    nothing was recorded."""
    fig, axes = _figure("modes.png")
    if runs and all((run.summary or {}).get("n_modes") == 0 for run in runs):
        _not_drawn(fig, "the environment defines no modes (summary.json n_modes 0)")
    any_drawn = False
    for ax, (x_key, fallback_x, x_label) in zip(axes[0], (
            ("trajectories", "trajectories", "trajectories sampled (all agents)"),
            ("wall_s", "elapsed_s", "wall time (s)"))):
        drawn = _modes_panel(ax, runs, x_key, fallback_x)
        if drawn:
            ax.legend(fontsize="small")
        ax.set_xlabel(x_label)
        ax.set_ylabel("modes found")
        any_drawn |= drawn
    if not any_drawn:
        _not_drawn(fig, "no modes recorded (no modes_timeline.csv rows, no training.csv)")
    title = population_title(runs[0]) if len(runs) == 1 else None
    fig.suptitle(f"{runs[0].label}: {title}" if title else "modes found by the population")
    return _save(fig, path)


def modes_agents(run, path):
    """modes_timeline.csv: modes found vs trajectories per agent (trainer rank) and for the
    population, and per buffer manager vs the terminating states it received
    (buffer_manager_<rank>.json modes_timeline); final modes per agent and per manager.
    Raises NotDrawn when neither recorded a mode."""
    fig, axes = _figure("modes_agents.png")
    left, right = axes[0]
    timeline = run.modes_timeline or {}
    for rank, rows in sorted(run.manager_timelines.items()):
        left.step([0.0] + rows["items_received"], [0.0] + rows["modes_found"], where="post",
                  label=f"manager {rank} (items received)", linestyle=":", linewidth=2)
    if timeline:
        agents = sorted((a for a in timeline if a != "total"))
        for agent in agents + (["total"] if "total" in timeline else []):
            rows = timeline[agent]
            xs = [0.0] + rows["trajectories"]
            ys = [0.0] + rows["modes_found"]
            label = "population" if agent == "total" else f"agent {agent}"
            style = {"linewidth": 2.5, "linestyle": "--", "color": "black"} \
                if agent == "total" else {"linewidth": 1.5}
            left.step(xs, ys, where="post", label=label, **style)
        left.set_title("modes found per agent")
        left.set_xlabel("trajectories (iteration × train.batch_size)")
        left.set_ylabel("modes found")
        left.legend(fontsize="small")
    elif run.manager_timelines:
        left.set_title("modes found per buffer manager")
        left.set_xlabel("terminating states received")
        left.set_ylabel("modes found")
        left.legend(fontsize="small")
    else:
        _not_drawn(fig, "no agent or buffer manager recorded a mode (no modes_timeline.csv "
                   "rows, no buffer_manager_<rank>.json)")
    names, counts, colors = [], [], []
    for agent in sorted(a for a in timeline if a != "total"):
        names.append(f"agent {agent}")
        counts.append(max(timeline[agent]["modes_found"]))
        colors.append("tab:blue")
    for rank, found in sorted(run.managers.items()):
        names.append(f"manager {rank}")
        counts.append(found)
        colors.append("tab:orange")
    if names:
        right.bar(names, counts, color=colors)
        right.set_title("modes found: per agent (blue), per buffer manager (orange)")
        right.set_ylabel("modes found")
        right.tick_params(axis="x", labelrotation=45)
    else:
        _no_data(right, "no agent or buffer manager reported its final count")
    fig.suptitle(f"{run.label}: modes per agent and manager")
    return _save(fig, path)


# ---- time per step and rank ------------------------------------------------------------------

def timing_figure(run):
    """timing.png's figure (not saved): per trainer rank the stacked seconds of each step
    (legend beside the bars), and per step the load-imbalance report as horizontal bars, one
    step name per row so that no two names share a line. Raises NotDrawn without timing.json."""
    fig, axes = _figure("timing.png")
    left, right = axes[0]
    trainers = (run.timing or {}).get("trainers")
    if not trainers:
        _not_drawn(fig, "no timing.json (trainers' time report)")
    ranks = trainers["ranks"]
    labels = [str(r["rank"]) for r in ranks]
    bottom = np.zeros(len(ranks))
    for step in trainers["step_order"]:
        heights = np.array([r["steps"].get(step, 0.0) for r in ranks])
        left.bar(labels, heights, bottom=bottom, label=step)
        bottom += heights
    left.set_title("time per step and trainer rank")
    left.set_xlabel("rank")
    left.set_ylabel("seconds (sum over iterations)")
    handles, names = left.get_legend_handles_labels()  # top to bottom, as stacked
    left.legend(handles[::-1], names[::-1], fontsize="small", loc="upper left",
                bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    imbalance = trainers.get("load_imbalance", [])
    steps = [s["step"] for s in imbalance]
    useful = np.array([s["useful_s"] for s in imbalance])
    waiting = np.array([s["waiting_s"] for s in imbalance])
    rows = np.arange(len(steps))
    right.barh(rows, useful, label="useful (mean over ranks)")
    right.barh(rows, waiting, left=useful, label="waiting (max − mean)")
    right.set_yticks(rows, steps)
    right.invert_yaxis()  # the first step on top, as in the time report
    right.set_title("load imbalance per step")
    right.set_xlabel("seconds (sum over iterations)")
    right.legend(fontsize="small", loc="best")
    fig.suptitle(f"{run.label}: trainers' time report")
    fig.tight_layout()
    return fig


def timing(run, path):
    """timing.json as stacked bars (timing_figure) in `path`."""
    return _save(timing_figure(run), path)


# ---- gfn-bench-discovery's curves -----------------------------------------------------------

def read_discovery_curves(path):
    """curves.csv of gfn-bench-discovery (cell,seed,trajectories,wall_s,modes) as
    {cell: {seed: [(trajectories, wall_s, modes), ...]}}; wall_s is NaN when empty (the exact
    sampler). Raises ValueError naming the file and line for a malformed row."""
    cells = {}
    with open(path) as f:
        header = f.readline().strip()
        if header != "cell,seed,trajectories,wall_s,modes":
            raise ValueError(f"{path}:1: expected the header cell,seed,trajectories,wall_s,modes")
        for number, line in enumerate(f, start=2):
            parts = line.strip().split(",")
            if len(parts) != 5:
                raise ValueError(f"{path}:{number}: expected 5 columns, got {len(parts)}")
            try:
                point = (float(parts[2]), float(parts[3]) if parts[3] else math.nan,
                         float(parts[4]))
            except ValueError as e:
                raise ValueError(f"{path}:{number}: {e}") from None
            cells.setdefault(parts[0], {}).setdefault(parts[1], []).append(point)
    return cells


def discovery(curves_path, path):
    """Modes found vs trajectories sampled and vs wall seconds: one colour per cell, one line per
    seed, the exact sampler's expected curve dashed (docs/spawn.md "Mode discovery")."""
    cells = read_discovery_curves(curves_path)
    fig, axes = _figure("discovery.png")
    by_traj, by_time = axes[0]
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    runs = [c for c in cells if c != "exact sampler"]
    for i, cell in enumerate(runs):
        for j, points in enumerate(cells[cell].values()):
            label = cell if j == 0 else None
            colour = colours[i % len(colours)]
            by_traj.step([p[0] for p in points], [p[2] for p in points], where="post",
                         color=colour, label=label)
            by_time.step([p[1] for p in points], [p[2] for p in points], where="post",
                         color=colour, label=label)
    for points in cells.get("exact sampler", {}).values():
        by_traj.plot([p[0] for p in points], [p[2] for p in points], "k--",
                     label="exact sampler (expected)")
    for ax, x in ((by_traj, "trajectories sampled"), (by_time, "wall seconds")):
        ax.set_xlabel(x)
        ax.set_ylabel("modes found")
        if ax.lines:
            ax.legend(fontsize=8)
        else:
            _no_data(ax, "no curves")
    return _save(fig, path)
