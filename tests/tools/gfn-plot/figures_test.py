#!/usr/bin/python3
"""tools/plotting/figures.py without gfn-train: Spearman's rho (ties averaged, as
runtime/gfn/rank_correlation.h), and synthetic run directories drawn into PNGs of the
documented size: a BitSequence run with logp_logr.csv (the Spearman scatter), a spawn run
with modes_timeline.csv and two buffer managers (modes.png: the population's curve and
result), and a run with neither (not drawn, the reason given); continuous runs with
density.csv (d = 3: the first two coordinates' marginal, said in the title; d = 1: curves)
and without it (not drawn); a run with validation off (quality.png and distribution.png not
drawn, "validation off (validation.enabled: false)" said by gfn-plot, a stale PNG removed);
a continuous run's quality.png (the panels without values say why). Every figure drawn is
checked for text labels whose bounding boxes intersect, timing.png with every step name the
trainers record (roles/**/*.cc add_time).
Usage: figures_test.py TOOLS_DIR WORK_DIR. Exit code 1 on a failure."""

import glob
import math
import os
import re
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, sys.argv[1])
import matplotlib.text  # noqa: E402
import numpy as np  # noqa: E402
from plotting import figures  # noqa: E402
from plotting.run_dir import RunDir  # noqa: E402

METRICS = ("iteration,trajectories,loss,logz,l1_exact,jsd,logz_error,l1_sampled,modes_found,"
           "elapsed_s\n5,80,1.5,0.2,nan,nan,nan,nan,0,0.5\n")
FAILURES = []


def expect(condition, what):
    if not condition:
        FAILURES.append(what)


def drawn_texts(fig):
    """(text, window extent) of every non-empty text the figure draws (tick labels of ticks
    in view, titles, axis labels, legend entries, notes), recorded while fig.canvas.draw()."""
    drawn = []
    original = matplotlib.text.Text.draw

    def record(self, renderer):
        original(self, renderer)
        if self.get_visible() and self.get_text().strip():
            drawn.append((self.get_text(), self.get_window_extent(renderer)))

    matplotlib.text.Text.draw = record
    try:
        fig.canvas.draw()
    finally:
        matplotlib.text.Text.draw = original
    return drawn


def text_overlaps(fig):
    """Pairs of drawn texts whose bounding boxes intersect (by more than half a pixel)."""
    texts = drawn_texts(fig)
    pairs = []
    for i, (a, box_a) in enumerate(texts):
        for b, box_b in texts[i + 1:]:
            width = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            height = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            if width > 0.5 and height > 0.5:
                pairs.append((a, b))
    return pairs


SAVED = {}  # PNG name -> the texts of the last figure saved under it
_save = figures._save


def _checked_save(fig, path):
    """figures._save, after checking the figure's labels and keeping its texts."""
    fig.tight_layout()
    overlaps = text_overlaps(fig)
    expect(not overlaps, f"{path}: labels overlap: {overlaps}")
    SAVED[os.path.basename(path)] = [t for t, _ in drawn_texts(fig)]
    return _save(fig, path)


figures._save = _checked_save


def not_drawn(draw, data, path):
    """The NotDrawn reason of draw(data, path), or None when it drew."""
    try:
        draw(data, path)
    except figures.NotDrawn as e:
        return str(e)
    return None


def trainer_step_names(repo):
    """Every step name the trainers time (add_time(timing, "<name>", ...) in roles/)."""
    names = []
    for path in sorted(glob.glob(os.path.join(repo, "roles", "**", "*.cc"), recursive=True)):
        with open(path) as f:
            for name in re.findall(r'add_time\(\s*[\w.>-]+,\s*"(\w+)"', f.read()):
                if name not in names:
                    names.append(name)
    return names


def check_timing_labels(work, repo):
    """timing.png with every trainer step name, on 4 ranks: no two labels intersect."""
    steps = trainer_step_names(repo)
    expect({"submit", "remote_sample", "sample", "average"} <= set(steps),
           f"step names found in roles/: {steps}")
    ranks = ",".join('{"rank": %d, "steps": {%s}}' % (
        r, ",".join(f'"{s}": {1.0 + i + r}' for i, s in enumerate(steps))) for r in range(4))
    imbalance = ",".join(f'{{"step": "{s}", "useful_s": {1.0 + i}, "waiting_s": 0.5}}'
                         for i, s in enumerate(steps))
    timing_json = ('{"trainers": {"ranks": [%s], "step_order": [%s], "load_imbalance": [%s]}}'
                   % (ranks, ",".join(f'"{s}"' for s in steps), imbalance))
    run = run_dir(work, "timing_steps", "hypergrid", {"timing.json": timing_json})
    fig = figures.timing_figure(run)
    overlaps = text_overlaps(fig)
    expect(not overlaps, f"timing.png with steps {steps}: labels overlap: {overlaps}")
    texts = [t for t, _ in drawn_texts(fig)]
    expect(all(texts.count(s) == 2 for s in steps),
           f"timing.png: every step named in the legend and on the imbalance axis: {texts}")
    check_png(figures.timing(run, os.path.join(run.path, "timing.png")), "timing.png")
    expect(not_drawn(figures.timing, run_dir(work, "no_timing", "hypergrid", {}),
                     os.path.join(work, "no_timing", "timing.png")) == "no timing.json "
           "(trainers' time report)", "timing.png drawn without timing.json")


def check_validation_off(work, tools):
    """validation.enabled false: quality.png and distribution.png are not drawn and gfn-plot
    says why (removing an earlier run's PNG); loss.png, modes.png are drawn."""
    header = METRICS.splitlines()[0] + "\n"
    training = ("iteration,trajectories,elapsed_s,loss,logz,modes_found\n"
                "5,80,0.5,1.5,0.2,1\n10,160,1.0,1.2,0.3,2\n")
    run = run_dir(work, "validation_off", "hypergrid",
                  {"config.yaml": "env:\n  name: hypergrid\nvalidation:\n  enabled: false\n",
                   "metrics.csv": header, "training.csv": training})
    off = "validation off (validation.enabled: false)"
    expect(not_drawn(figures.quality, [run], os.path.join(run.path, "quality.png")) == off,
           "quality.png drawn, or another reason, with validation off")
    expect(not_drawn(figures.distribution, run, os.path.join(run.path, "distribution.png"))
           == off, "distribution.png drawn, or another reason, with validation off")
    stale = os.path.join(run.path, "distribution.png")
    with open(stale, "wb") as f:
        f.write(b"an earlier run's picture")
    out = subprocess.run(["/usr/bin/python3", os.path.join(tools, "gfn-plot"), run.path],
                         capture_output=True, text=True)
    expect(out.returncode == 0, f"gfn-plot exit {out.returncode}: {out.stderr}")
    for name in ("quality.png", "distribution.png"):
        expect(f"gfn-plot: skipped {name}: {off}" in out.stdout.splitlines(),
               f"gfn-plot does not say why {name} is skipped: {out.stdout}")
        expect(not os.path.exists(os.path.join(run.path, name)), f"{name} written or left")
    for name in ("loss.png", "modes.png"):
        expect(os.path.exists(os.path.join(run.path, name)), f"{name} not drawn")
    box = run_dir(work, "box_quality", "box", {
        "summary.json": '{"engine": {"evaluator": "continuous"}}',
        "metrics.csv": METRICS.splitlines()[0] + "\n5,80,1.5,0.2,nan,0.3,0.1,nan,0,0.5\n"})
    check_png(figures.quality([box], os.path.join(box.path, "quality.png")), "quality.png")
    note = "l1_exact, l1_sampled: not defined for a continuous environment (box)"
    expect(note in SAVED["quality.png"], f"quality.png: no '{note}' in {SAVED['quality.png']}")


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24]) if head[:8] == b"\x89PNG\r\n\x1a\n" else None


def run_dir(work, name, env, files):
    path = os.path.join(work, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    files = {"config.yaml": f"env:\n  name: {env}\n", "metrics.csv": METRICS, **files}
    for file_name, text in files.items():
        with open(os.path.join(path, file_name), "w") as f:
            f.write(text)
    return RunDir(path)


def check_png(path, name):
    expect(os.path.getsize(path) > 5000, f"{path}: only {os.path.getsize(path)} bytes")
    expect(png_size(path) == figures.SIZES[name], f"{path}: size {png_size(path)}")


def density_csv(coords, n=20):
    """A synthetic density.csv on an n^len(coords) grid: a bump, its twin and R/Z (NaN when
    `nan_true`, as for d > 2)."""
    axis = [(i + 0.5) / n for i in range(n)]
    points = [[x] for x in axis] if coords == 1 else [[x, y] for y in axis for x in axis]
    bump = [math.exp(-sum((c - 0.3) ** 2 for c in p) / 0.02) for p in points]
    total = sum(bump)
    header = ["x0", "x1"][:coords] + ["p_learned", "p_target", "p_true"]
    lines = [",".join(header)]
    for p, b in zip(points, bump):
        true = "nan" if coords == 2 else f"{1.0 / len(points)}"
        lines.append(",".join([f"{c}" for c in p] + [f"{b / total}", f"{b / total}", true]))
    return "\n".join(lines) + "\n"


def continuous_runs(work):
    summary = '{"engine": {"evaluator": "continuous"}}'
    box3 = run_dir(work, "box3", "box\n  ndim: 3", {"density.csv": density_csv(2),
                                                     "summary.json": summary})
    expect(box3.continuous and box3.density is not None, "box3: density.csv not read")
    expect("marginal of the first two coordinates" in figures._density_title(box3),
           f"d = 3 title: {figures._density_title(box3)}")
    check_png(figures.distribution(box3, os.path.join(box3.path, "distribution.png")),
              "distribution.png")
    box1 = run_dir(work, "box1", "box\n  ndim: 1", {"density.csv": density_csv(1),
                                                     "summary.json": summary})
    expect("marginal" not in figures._density_title(box1), "d = 1 title says marginal")
    check_png(figures.distribution(box1, os.path.join(box1.path, "distribution.png")),
              "distribution.png")
    # Validation off: no density.csv, and no distribution.csv looked for.
    bare = run_dir(work, "box_bare", "box", {"summary.json": summary})
    expect(bare.continuous and bare.density is None and bare.distribution is None,
           "box_bare: data read")
    expect(not_drawn(figures.distribution, bare, os.path.join(bare.path, "distribution.png"))
           == "box: no density.csv (the environment has no target density)",
           "box_bare distribution.png drawn, or another reason")


def write_sample_file(run, iteration, learned, exact):
    os.makedirs(os.path.join(run.path, "samples"), exist_ok=True)
    np.save(os.path.join(run.path, "samples", f"validation_{iteration:08d}.npy"),
            np.stack([learned, exact]).astype(np.float32))


def diffusion_samples(work):
    """samples.png of diffusion runs (d = 2 with density.csv's contours, d = 32 marginals,
    d = 1), sample_distance.png from sample_metrics.csv, both not drawn without data."""
    rng = np.random.default_rng(0)
    summary = '{"engine": {"evaluator": "continuous"}}'
    axis = np.linspace(-5, 5, 30)
    lines = ["x0,x1,p_learned,p_target,p_true"]
    bumps = [math.exp(-((x - 2) ** 2 + y ** 2) / 2) + math.exp(-((x + 2) ** 2 + y ** 2) / 2)
             for y in axis for x in axis]
    points = [(x, y) for y in axis for x in axis]
    lines += [f"{x},{y},{b / sum(bumps)},{b / sum(bumps)},{b / sum(bumps)}"
              for (x, y), b in zip(points, bumps)]
    gmm = run_dir(work, "gmm2", "diffusion\n  target: gmm2",
                  {"density.csv": "\n".join(lines) + "\n", "summary.json": summary,
                   "sample_metrics.csv": "iteration,n_samples,dim,w2,mmd\n10,300,2,2.5,0.3\n"
                                         "20,300,2,0.8,0.05\n"})
    exact = np.concatenate([rng.normal(size=(150, 2)) + [2, 0], rng.normal(size=(150, 2)) - [2, 0]])
    write_sample_file(gmm, 10, rng.normal(size=(300, 2)), exact)
    write_sample_file(gmm, 20, rng.normal(size=(300, 2)) + [2, 0], exact)
    gmm = RunDir(gmm.path)
    expect([i for i, _ in gmm.sample_files] == [10, 20], f"sample files {gmm.sample_files}")
    check_png(figures.samples(gmm, os.path.join(gmm.path, "samples.png")), "samples.png")
    texts = " | ".join(SAVED["samples.png"])
    expect("gmm2, d = 2, samples at iteration 20 (lines: log R/Z levels)" in texts,
           f"d = 2 samples.png title: {texts}")
    expect("learned sampler (300)" in texts and "exact samples of R/Z (300)" in texts, texts)
    check_png(figures.sample_distance([gmm], os.path.join(gmm.path, "sample_distance.png")),
              "sample_distance.png")
    texts = " | ".join(SAVED["sample_distance.png"])
    expect("gmm2 w2" in texts and "gmm2 mmd" in texts, f"sample_distance.png legend: {texts}")
    wells = run_dir(work, "many_well", "diffusion\n  target: many_well", {"summary.json": summary})
    write_sample_file(wells, 5, rng.normal(size=(200, 32)), rng.normal(size=(200, 32)) * 2)
    wells = RunDir(wells.path)
    check_png(figures.samples(wells, os.path.join(wells.path, "samples.png")), "samples.png")
    texts = " | ".join(SAVED["samples.png"])
    expect(all(t in texts for t in ("marginal of x0", "marginal of x1", "marginal of x2",
                                    "(x0, x2)", "many_well, d = 32, samples at iteration 5")),
           f"d = 32 samples.png: {texts}")
    expect(not_drawn(figures.sample_distance, [wells],
                     os.path.join(wells.path, "sample_distance.png")) ==
           "no sample_metrics.csv (tools/gfn-sample-metrics)", "sample_distance.png without csv")
    line = run_dir(work, "line_samples", "line", {"summary.json": summary})
    write_sample_file(line, 5, rng.normal(size=(100, 1)), rng.normal(size=(100, 1)))
    check_png(figures.samples(RunDir(line.path), os.path.join(line.path, "samples.png")),
              "samples.png")
    none = run_dir(work, "no_samples", "diffusion\n  target: gmm2", {"summary.json": summary})
    reason = not_drawn(figures.samples, none, os.path.join(none.path, "samples.png"))
    expect(reason is not None and "no samples/validation_*.npy" in reason,
           f"samples.png without samples: {reason}")


def main(work):
    # Spearman: monotone, reversed, ties (ranks [1, 2.5, 2.5, 4] vs [1, 2, 3, 4]:
    # 4.5 / sqrt(4.5 * 5)), constant.
    expect(abs(figures.spearman([1, 5, 9], [0.1, 0.2, 7]) - 1) < 1e-12, "monotone rho != 1")
    expect(abs(figures.spearman([1, 2, 3], [3, 2, 1]) + 1) < 1e-12, "reversed rho != -1")
    expect(abs(figures.spearman([1, 2, 2, 3], [1, 2, 3, 4]) - 4.5 / math.sqrt(22.5)) < 1e-12,
           "ties: rho != 0.9487")
    expect(math.isnan(figures.spearman([1, 1, 1], [1, 2, 3])), "constant: rho not NaN")

    rows = "".join(f"{-0.5 * i + (i % 3)},{-0.4 * i}\n" for i in range(60))
    bits = run_dir(work, "bits", "bit_sequence", {"logp_logr.csv": "log_p,log_r\n" + rows})
    expect(len(bits.logp_logr["log_p"]) == 60, "logp_logr.csv not read")
    check_png(figures.distribution(bits, os.path.join(bits.path, "distribution.png")),
              "distribution.png")

    timeline = ("agent,modes_found,iteration,trajectories,wall_s\n0,1,1,128,0.1\n"
                "0,2,4,512,0.3\n1,1,2,256,0.2\ntotal,1,1,128,0.1\ntotal,2,2,256,0.2\n"
                "total,3,4,512,0.3\n")
    spawn = run_dir(work, "spawn", "hypergrid", {
        "modes_timeline.csv": timeline,
        "buffer_manager_3.json":
            '{"rank": 3, "modes_found": 2, "modes_timeline": [[0.1, 128, 1], [0.4, 640, 2]]}',
        "buffer_manager_4.json": '{"rank": 4, "modes_found": 3}'})
    expect(set(spawn.modes_timeline) == {0, 1, "total"}, "timeline agents")
    expect(spawn.modes_timeline["total"]["modes_found"] == [1.0, 2.0, 3.0], "timeline total")
    expect(spawn.managers == {3: 2, 4: 3}, f"managers {spawn.managers}")
    expect(spawn.manager_timelines == {3: {"elapsed_s": [0.1, 0.4],
                                           "items_received": [128.0, 640.0],
                                           "modes_found": [1.0, 2.0]}},
           f"manager timelines {spawn.manager_timelines}")
    check_png(figures.modes_agents(spawn, os.path.join(spawn.path, "modes_agents.png")),
              "modes_agents.png")
    with open(os.path.join(spawn.path, "summary.json"), "w") as f:
        f.write('{"result": "modes found 3/4 by the population (agents: 2, 1)", "population": '
                '{"modes_found": 3, "n_modes": 4, "agents": [{"rank": 0, "modes_found": 2}, '
                '{"rank": 1, "modes_found": 1}]}, "n_modes": 4}')
    spawn = RunDir(spawn.path)
    check_png(figures.modes([spawn], os.path.join(spawn.path, "modes.png")), "modes.png")
    texts = SAVED["modes.png"]
    expect("spawn: modes found 3/4 by the population (agents: 2, 1)" in texts,
           f"modes.png title: {texts}")
    expect("population" in texts and "each agent" in texts, f"modes.png legend: {texts}")

    bare = run_dir(work, "bare", "hypergrid", {})
    expect(bare.modes_timeline is None and bare.managers == {} and
           bare.manager_timelines == {}, "bare run has data")
    expect(not_drawn(figures.modes_agents, bare, os.path.join(bare.path, "modes_agents.png"))
           is not None, "bare modes_agents.png drawn")
    check_png(figures.modes([bare], os.path.join(bare.path, "modes.png")), "modes.png")
    expect("trainer rank 0" in " ".join(SAVED["modes.png"]),
           f"modes.png without modes_timeline.csv: trainer rank 0's curve: {SAVED['modes.png']}")
    nomodes = run_dir(work, "no_modes", "hypergrid", {"summary.json": '{"n_modes": 0}'})
    expect(not_drawn(figures.modes, [nomodes], os.path.join(nomodes.path, "modes.png")) ==
           "the environment defines no modes (summary.json n_modes 0)", "modes.png, no modes")
    check_timing_labels(work, os.path.dirname(os.path.abspath(sys.argv[1])))
    check_validation_off(work, sys.argv[1])

    continuous_runs(work)
    diffusion_samples(work)

    # gfn-bench-discovery's curves.csv: two cells, two seeds, the exact sampler.
    os.makedirs(work, exist_ok=True)
    curves = os.path.join(work, "curves.csv")
    with open(curves, "w") as f:
        f.write("cell,seed,trajectories,wall_s,modes\n"
                "a1/average_all,1,0,0.000,0\na1/average_all,1,64,0.5,2\n"
                "a1/average_all,2,0,0.000,0\na1/average_all,2,128,0.9,3\n"
                "a2/selective,1,0,0.000,0\na2/selective,1,64,0.7,1\n"
                "exact sampler,0,0,,0.00\nexact sampler,0,128,,3.50\n")
    cells = figures.read_discovery_curves(curves)
    expect(sorted(cells) == ["a1/average_all", "a2/selective", "exact sampler"], f"cells {cells}")
    expect(cells["a1/average_all"]["2"][1] == (128.0, 0.9, 3.0), "a1 seed 2 point")
    expect(math.isnan(cells["exact sampler"]["0"][1][1]), "exact sampler has no wall time")
    check_png(figures.discovery(curves, os.path.join(work, "discovery.png")), "discovery.png")
    bad = os.path.join(work, "bad_curves.csv")
    with open(bad, "w") as f:
        f.write("cell,seed,trajectories,wall_s,modes\na1,1,x,0,0\n")
    try:
        figures.read_discovery_curves(bad)
        expect(False, "a malformed curves.csv was accepted")
    except ValueError as e:
        expect(f"{bad}:2:" in str(e), f"error names file and line: {e}")

    for f in FAILURES:
        print(f"figures_test: {f}", file=sys.stderr)
    print(f"figures_test: {'FAILED' if FAILURES else 'ok'}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[2]))
