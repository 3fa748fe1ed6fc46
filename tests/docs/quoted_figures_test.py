#!/usr/bin/python3
"""Reruns the quality figures that README.md and docs/results/ quote, and compares them with
the digits printed there (docs/results/quality.md "How the figures are checked").

  quoted_figures_test.py --repo DIR --gfn-train BIN [--spec FILE] [--jobs N] [--keep DIR]
                         [--only REGEX] [--verbose]
  quoted_figures_test.py --repo DIR --gfn-train BIN --matrix BIN [--jobs N] [--keep DIR]

The spec (tests/docs/figures.yaml) says, for every checked figure, where it is printed (a
document, a heading, a table's row and column, or a pattern in a table cell, or the demo's
log excerpt), which run gives it (a config and its --set overrides, or the demo under
tools/mpirun.sh) and which summary.json key (or the mean or standard deviation of a key over
several runs). The OpenBLAS kernel set comes from the row's "OpenBLAS kernels" cell or from the
spec: each run is made with OPENBLAS_CORETYPE set to it and every other OPENBLAS_ variable
removed, and summary.json's engine.openblas_coretype must name it. A figure passes when the
measured value, rounded to the printed number's last digit, equals it (the runs are
deterministic). A table row that the spec does not know, a row the spec expects but the table
lacks, a cell without a figure, a kernel set this CPU cannot run (SkylakeX needs AVX-512) and
a failed run are failures too.

--matrix BIN: instead, reruns the table of docs/results/quality-matrix.md with
gfn-quality-matrix (the command printed above the table, split into the spec's --only
partitions run side by side) and compares every cell except ms/iteration as text: the tool
prints every figure of the table.

Before the real check the comparator and the table reader run on a synthetic document with
known values and must find exactly its planted wrong digits: a checker that cannot fail fails.
Exit code 0 when every figure matches, 1 otherwise (each mismatch names the document, the
row, the column, the printed and the measured value).
"""

import argparse
import concurrent.futures
import decimal
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

import yaml

KERNEL_FLAGS = {
    # runtime/process/blas_kernels.h choose_openblas_coretype(): the flags each set needs.
    "SkylakeX": ["avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"],
    "Haswell": ["avx2", "fma"],
}
NUMBER = re.compile(r"[-−]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+−]?\d+)?")
MODES = re.compile(r"(\d+)/(\d+)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
RUN_TIMEOUT_S = 300


def plain(text):
    """A cell's or heading's text without emphasis, inline-code marks and extra spaces."""
    return " ".join(text.replace("**", "").replace("`", "").split())


def section_lines(path, heading):
    """The lines under the first heading whose text is `heading`, to the next heading of the
    same or a higher level (fenced code blocks are not searched for headings)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    start, level, fenced = None, 0, False
    for i, line in enumerate(lines):
        if FENCE.match(line):
            fenced = not fenced
        m = None if fenced else HEADING.match(line)
        if not m:
            continue
        if start is None and plain(m.group(2)) == plain(heading):
            start, level = i + 1, len(m.group(1))
        elif start is not None and len(m.group(1)) <= level:
            return lines[start:i]
    if start is None:
        raise LookupError(f'{path}: no heading "{heading}"')
    return lines[start:]


def split_row(line):
    """The cells of a Markdown table row (an escaped \\| stays in its cell)."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]


def tables(lines):
    """Every table in `lines`: (header cells, data rows), header cells as plain text."""
    found, block = [], []
    for line in lines + [""]:
        if line.strip().startswith("|"):
            block.append(line)
            continue
        if len(block) >= 2 and re.fullmatch(r"[\s|:-]+", block[1]):
            found.append(([plain(c) for c in split_row(block[0])],
                          [split_row(b) for b in block[2:]]))
        block = []
    return found


def find_table(path, heading, columns):
    """The first table under `heading` whose header has every one of `columns`."""
    wanted = [plain(c) for c in columns]
    for header, rows in tables(section_lines(path, heading)):
        if all(c in header for c in wanted):
            return header, rows
    raise LookupError(f'{path} "{heading}": no table with the columns {wanted}')


def printed_matches(printed, measured):
    """(equal, measured at the printed precision): `measured` rounded half-even to the last
    digit of the printed number, compared with it."""
    text = printed.replace("−", "-")
    want = decimal.Decimal(text)
    exponent = want.as_tuple().exponent
    got = decimal.Decimal(measured).quantize(decimal.Decimal(1).scaleb(exponent),
                                             rounding=decimal.ROUND_HALF_EVEN)
    return got == want, str(got)


def kernel_of(text):
    """The kernel set a cell names (exactly one of KERNEL_FLAGS), or None."""
    named = [k for k in KERNEL_FLAGS if re.search(rf"\b{k}\b", text)]
    return named[0] if len(named) == 1 else None


def missing_flags(kernel, cpu_flags):
    return [f for f in KERNEL_FLAGS[kernel] if f not in cpu_flags]


class Expectation:
    """One printed figure: where it is, what it should equal (a run's key under a kernel set,
    or the mean / standard deviation of the key over several runs)."""

    def __init__(self, where, printed, source, kernel, key):
        self.where, self.printed, self.source = where, printed, source
        self.kernel, self.key = kernel, key

    def runs(self):
        if isinstance(self.source, dict):
            return [(r, self.kernel) for r in next(iter(self.source.values()))]
        return [(self.source, self.kernel)]


def table_expectations(doc_root, spec):
    """The figures of one `tables` entry of the spec; (expectations, errors)."""
    doc = os.path.join(doc_root, spec["doc"])
    key_col, kernel_col = plain(spec["key"]), spec.get("kernel")
    columns = {plain(c): v for c, v in spec["columns"].items()}
    needed = [key_col] + ([plain(kernel_col)] if kernel_col else []) + list(columns)
    header, rows = find_table(doc, spec["heading"], needed)
    index = {h: i for i, h in enumerate(header)}
    expected_rows = {plain(str(k)) for k in spec["rows"]}
    spec_rows = {plain(str(k)): v for k, v in spec["rows"].items()}
    out, errors, seen = [], [], set()
    for row in rows:
        cells = row + [""] * (len(header) - len(row))
        name = plain(cells[index[key_col]])
        kernel = kernel_of(plain(cells[index[plain(kernel_col)]])) if kernel_col else None
        label = f'{spec["doc"]} "{spec["heading"]}", row {name!r}' + (
            f" ({kernel})" if kernel else "")
        if name not in spec_rows:
            errors.append(f"{label}: the spec (tests/docs/figures.yaml) does not check this row")
            continue
        seen.add((name, kernel))
        for column, target in columns.items():
            key = target["key"] if isinstance(target, dict) else target
            k = target.get("kernel") if isinstance(target, dict) else kernel
            if k is None:
                errors.append(f"{label}, column {column!r}: no OpenBLAS kernel set named")
                continue
            cell = plain(cells[index[column]])
            found = (MODES if key == "modes" else NUMBER).search(cell)
            if not found:
                errors.append(f"{label}, column {column!r}: no figure in {cell!r}")
                continue
            out.append(Expectation(f"{label}, column {column!r}", found.group(0),
                                   spec_rows[name], k, key))
    for name in expected_rows:
        if not any(s[0] == name for s in seen):
            errors.append(f'{spec["doc"]} "{spec["heading"]}": no row {name!r}')
    return out, errors


def cell_expectations(doc_root, spec):
    """The figures of one `cells` entry: patterns in one table cell; (expectations, errors)."""
    doc = os.path.join(doc_root, spec["doc"])
    header, rows = find_table(doc, spec["heading"], [spec["key"], spec["column"]])
    key_i, col_i = header.index(plain(spec["key"])), header.index(plain(spec["column"]))
    match = [r for r in rows if plain(r[key_i]) == plain(spec["row"])]
    label = f'{spec["doc"]} "{spec["heading"]}", row {spec["row"]!r}, column {spec["column"]!r}'
    if len(match) != 1:
        return [], [f"{label}: {len(match)} rows with that name, expected 1"]
    cell = plain(match[0][col_i])
    out, errors = [], []
    for p in spec["patterns"]:
        m = re.search(p["regex"], cell)
        if m and m.re.groups != len(p["groups"]):
            errors.append(f"{label}: {p['regex']!r} has {m.re.groups} groups, the spec "
                          f"{len(p['groups'])}")
            continue
        if not m:
            errors.append(f"{label}: no {p['regex']!r} in {cell!r}")
            continue
        for group, g in enumerate(p["groups"], start=1):
            src = g.get("run") or {g["aggregate"]: g["runs"]}
            out.append(Expectation(f"{label} ({m.group(0)!r})", m.group(group), src,
                                   g["kernel"], g["key"]))
    return out, errors


# What the demo's log lines show: rank 0's progress lines and validations, the
# coordinator's summary and the population's result, the last line (times left out).
LOG_PATTERNS = [
    re.compile(r"\] iteration (?P<id>\d+)/\d+: loss (?P<loss>\S+?), logZ (?P<logZ>\S+?), "
               r"modes found \(this trainer\) (?P<modes>\d+/\d+)"),
    re.compile(r"\] validation at iteration (?P<id>\d+): L1 exact (?P<l1_exact>\S+?), L1 "
               r"sampled \(\d+ samples\) (?P<l1_sampled>\S+?), JSD (?P<jsd>\S+?), \|logZ error\| "
               r"(?P<logz_error>\S+?), modes found (?P<modes>\d+/\d+), L1 visited \(mean, last "
               r"\d+\) (?P<l1_visited>[0-9.e-]+)"),
    re.compile(r"coordinator done .*: (?P<id>\d+) modes found over \d+ MODE_REPORTs; global "
               r"baseline (?P<baseline>[0-9.e-]+)"),
    re.compile(r"\] modes found (?P<id>\d+/\d+) by the population \((?P<split>[^)]*)\)"),
]


def log_expectations(doc_root, spec):
    """The figures of the demo's printed log excerpt (the first fenced block under the
    heading that shows a validation): one expectation per figure, key "log:<pattern>:<id>:
    <name>"; (expectations, errors)."""
    lines = section_lines(os.path.join(doc_root, spec["doc"]), spec["heading"])
    blocks, block, fenced = [], [], False
    for line in lines:
        if FENCE.match(line):
            if fenced:
                blocks.append(block)
            fenced, block = not fenced, []
        elif fenced:
            block.append(line)
    block = next((b for b in blocks if any("validation at iteration" in x for x in b)), None)
    label = f'{spec["doc"]} "{spec["heading"]}", the printed log'
    if block is None:
        return [], [f"{label}: no fenced block with a validation line"]
    out = []
    for line in block:
        for pi, pattern in enumerate(LOG_PATTERNS):
            m = pattern.search(line)
            if not m:
                continue
            for name, value in m.groupdict().items():
                if name != "id":
                    out.append(Expectation(f"{label}, {line.split(']', 1)[-1].strip()[:40]!r}"
                                           f" {name}", value, spec["run"], spec["kernel"],
                                           f"log:{pi}:{m.group('id')}:{name}"))
    return out, ([] if out else [f"{label}: no line the checker reads"])


def measured_value(exp, results):
    """(value, error): what `exp` should equal, from the finished runs."""
    def one(run, key):
        r = results[(run, exp.kernel)]
        if r.get("error"):
            raise RuntimeError(r["error"])
        if key.startswith("log:"):
            _, pi, ident, name = key.split(":")
            for line in r["log"]:
                m = LOG_PATTERNS[int(pi)].search(line)
                if m and m.group("id") == ident:
                    return m.group(name)
            raise RuntimeError(f"the run printed no such line (pattern {pi}, {ident})")
        if key == "modes":
            return f'{r["summary"]["modes_found"]}/{r["summary"]["n_modes"]}'
        return r["summary"][key]
    if isinstance(exp.source, dict):
        kind, runs = next(iter(exp.source.items()))
        values = [one(r, exp.key) for r in runs]
        return {"mean": statistics.mean, "std": statistics.stdev}[kind](values)
    return one(exp.source, exp.key)


def compare(exp, results):
    """An error message, or None when the printed figure equals the measured one."""
    try:
        value = measured_value(exp, results)
    except (RuntimeError, KeyError, TypeError) as e:
        return f"{exp.where} [{exp.kernel}]: cannot measure: {e}"
    if isinstance(value, str) and not NUMBER.fullmatch(value):
        if value == exp.printed:
            return None
        return (f"{exp.where} [{exp.kernel}]: printed {exp.printed}, measured {value}")
    if value is None:
        return f"{exp.where} [{exp.kernel}]: printed {exp.printed}, measured null"
    ok, rounded = printed_matches(exp.printed, float(value))
    if ok:
        return None
    return (f"{exp.where} [{exp.kernel}]: printed {exp.printed}, measured {value!r} "
            f"({rounded} at the printed precision)")


def run_command(args, spec, out_dir):
    """The command line of a run spec with its output directory."""
    sets = [x for s in spec.get("sets", []) for x in ("--set", s)]
    sets += ["--set", f"output.dir={out_dir}"]
    if spec.get("demo"):
        return ["bash", "tools/mpirun.sh", "-np", "4", args.gfn_train, "--config",
                "configs/hypergrid_demo.yaml"] + sets
    return [args.gfn_train, "--config", spec["config"]] + sets


def library_env(kernel):
    """This process's environment with OPENBLAS_CORETYPE=kernel and no other OPENBLAS_ one."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENBLAS_")}
    env["OPENBLAS_CORETYPE"] = kernel
    return env


def run_one(args, run_specs, tmp, run, kernel):
    """Runs `run` under `kernel`: {"summary", "log"} or {"error"}."""
    out_dir = os.path.join(tmp, kernel, run)
    cmd = run_command(args, run_specs[run], out_dir)
    shown = f"OPENBLAS_CORETYPE={kernel} {shlex.join(cmd)}"
    try:
        p = subprocess.run(cmd, cwd=args.repo, env=library_env(kernel), capture_output=True,
                           text=True, timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"error": f"{shown}: no exit after {RUN_TIMEOUT_S} s"}
    log = (p.stdout + p.stderr).split("\n")
    if p.returncode != 0:
        return {"error": f"{shown}: exit {p.returncode}: " + " | ".join(log[-6:])}
    with open(os.path.join(out_dir, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    used = summary.get("engine", {}).get("openblas_coretype")
    if used != kernel:
        return {"error": f"{shown}: summary.json engine.openblas_coretype is {used!r}"}
    return {"summary": summary, "log": log, "command": shown}


def cpu_flags():
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def gather(doc_root, spec):
    """Every expectation of the spec, and the errors of reading the documents."""
    exps, errors = [], []
    readers = [("tables", table_expectations), ("cells", cell_expectations),
               ("logs", log_expectations)]
    for section, reader in readers:
        for entry in spec.get(section, []):
            try:
                e, err = reader(doc_root, entry)
            except (LookupError, OSError, ValueError) as x:
                e, err = [], [str(x)]
            exps += e
            errors += err
    return exps, errors


def self_test():
    """The reader and comparator on a synthetic document with planted errors: two wrong
    figures and a row the spec does not know. Exactly those three must be reported."""
    doc = ("# T\n\n## Figures\n\n| case | OpenBLAS kernels | `l1` | modes |\n"
           "| --- | --- | --- | --- |\n| a | SkylakeX | **0.0123** | 4/4 |\n"
           "| a | Haswell | 0.0124 (note) | 3/4 |\n| c | Haswell | 7 | 4/4 |\n\n"
           "## Means\n\n| seeds | Haswell `l1` |\n| --- | --- |\n| mean | 1.6e-6 |\n"
           "| std | 7.07e-7 |\n")
    entries = [{"doc": "t.md", "heading": "Figures", "key": "case", "kernel": "OpenBLAS kernels",
                "rows": {"a": "ra"}, "columns": {"l1": "l1", "modes": "modes"}},
               {"doc": "t.md", "heading": "Means", "key": "seeds",
                "rows": {"mean": {"mean": ["rb", "rc"]}, "std": {"std": ["rb", "rc"]}},
                "columns": {"Haswell l1": {"key": "l1", "kernel": "Haswell"}}}]
    def summary(l1, modes):
        return {"summary": {"l1": l1, "modes_found": modes, "n_modes": 4}}
    results = {("ra", "SkylakeX"): summary(0.012349, 4), ("ra", "Haswell"): summary(0.012351, 4),
               ("rb", "Haswell"): summary(1.0e-6, 4), ("rc", "Haswell"): summary(2.0e-6, 4)}
    errors = []
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "t.md"), "w", encoding="utf-8") as f:
            f.write(doc)
        for entry in entries:
            exps, errs = table_expectations(d, entry)
            errors += errs + [m for m in (compare(e, results) for e in exps) if m]
    want = ["row 'a' (Haswell), column 'modes'", "row 'c'", "row 'mean', column 'Haswell l1'"]
    if len(errors) == len(want) and all(any(w in e for e in errors) for w in want):
        return True
    print("self-test FAILED: the checker reported\n  " + "\n  ".join(errors) +
          f"\ninstead of exactly {want}")
    return False


def check_figures(args):
    with open(args.spec, encoding="utf-8") as f:
        spec = yaml.safe_load(f)
    exps, errors = gather(args.repo, spec)
    if args.only:
        exps = [e for e in exps if re.search(args.only, e.where)]
    flags = cpu_flags()
    wanted = sorted({rk for e in exps for rk in e.runs()})
    unknown = sorted({r for r, _ in wanted if r not in spec["runs"]})
    errors += [f"run {r!r} is not in the spec's runs" for r in unknown]
    results = {}
    runnable = []
    for run, kernel in wanted:
        miss = missing_flags(kernel, flags)
        if miss:
            results[(run, kernel)] = {"error": f"this CPU cannot run OpenBLAS's {kernel} kernels "
                                               f"(no {', '.join(miss)} in /proc/cpuinfo)"}
        elif run not in unknown:
            runnable.append((run, kernel))
    tmp = args.keep or tempfile.mkdtemp(prefix="gfn-docs-figures-")
    print(f"{len(exps)} figures, {len(runnable)} runs ({args.jobs} at a time) under {tmp}",
          flush=True)
    # Longest first (the spec's `seconds`, 3 when not given), so the pool ends together.
    runnable.sort(key=lambda rk: -spec["runs"][rk[0]].get("seconds", 3))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_one, args, spec["runs"], tmp, r, k): (r, k)
                   for r, k in runnable}
        for fut in concurrent.futures.as_completed(futures):
            results[futures[fut]] = fut.result()
            r = results[futures[fut]]
            print(f"  ran {futures[fut][0]} [{futures[fut][1]}]" +
                  (f": {r['error']}" if r.get("error") else ""), flush=True)
    for e in exps:
        if (e.source if isinstance(e.source, str) else "") in unknown:
            continue
        msg = compare(e, results)
        if msg:
            errors.append(msg)
        elif args.verbose:
            print(f"  ok {e.where} [{e.kernel}]: {e.printed}")
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return len(exps), errors


def matrix_options(args, spec):
    """The options of the doc's gfn-quality-matrix command (the line under the table's begin
    marker), without its paths."""
    with open(os.path.join(args.repo, spec["doc"]), encoding="utf-8") as f:
        lines = f.read().split("\n")
    begin = lines.index("<!-- quality-matrix:begin -->")
    command = shlex.split(lines[begin + 1].strip("`"))
    options, skip = [], False
    for token in command[1:]:
        if skip:
            skip = False
        elif token in ("--gfn-train", "--out-dir", "--table", "--repo"):
            skip = True
        else:
            options.append(token)
    return options


def partition_options(options, cells):
    """`options` for a partition whose cells are `cells`: a --seeds-for that matches none of
    them is left out with its --seeds (the tool refuses a --seeds-for that matches no cell)."""
    seeds_for = options[options.index("--seeds-for") + 1] if "--seeds-for" in options else None
    if seeds_for is None or any(re.search(seeds_for, c) for c in cells):
        return options
    out, skip = [], False
    for token in options:
        if skip:
            skip = False
        elif token in ("--seeds-for", "--seeds"):
            skip = True
        else:
            out.append(token)
    return out


def run_matrix_part(args, options, regex, out_dir, kernel):
    table = os.path.join(out_dir, "table.md")
    cmd = [args.matrix, "--gfn-train", args.gfn_train, "--repo", args.repo, "--out-dir", out_dir,
           "--table", table, "--only", regex] + options
    p = subprocess.run(cmd, cwd=args.repo, env=library_env(kernel), capture_output=True,
                       text=True, timeout=1800)
    if p.returncode != 0 or not os.path.exists(table):
        return None, (f"OPENBLAS_CORETYPE={kernel} {shlex.join(cmd)}: exit {p.returncode}: "
                      f"{(p.stdout + p.stderr)[-600:]}")
    with open(table, encoding="utf-8") as f:
        return next(iter(tables(f.read().split("\n")))), None


def compare_matrix(spec, doc_table, measured, kernel):
    """(cells compared, errors): the doc's table against the tool's rows, cell by cell."""
    doc_header, doc_rows = doc_table
    header, rows = measured
    errors = []
    if header != doc_header:
        errors.append(f"{spec['doc']}: the table's columns differ from the tool's: {header}")
    got_rows = {r[0]: r for r in rows}
    ignored = {plain(c) for c in spec["ignore_columns"]}
    count = 0
    for row in doc_rows:
        got = got_rows.pop(row[0], None)
        if got is None:
            errors.append(f"{spec['doc']}: row {row[0]!r}: gfn-quality-matrix has no such cell")
            continue
        for i, column in enumerate(doc_header):
            if column in ignored or i >= len(row):
                continue
            count += 1
            if row[i] != got[i]:
                errors.append(f"{spec['doc']} \"{spec['heading']}\", row {row[0]!r}, column "
                              f"{column!r} [{kernel}]: printed {row[i]!r}, measured {got[i]!r}")
    errors += [f"{spec['doc']}: no row for the tool's cell {c!r}" for c in got_rows]
    return count, errors


def check_matrix(args):
    with open(args.spec, encoding="utf-8") as f:
        spec = yaml.safe_load(f)["matrix"]
    kernel = spec["kernel"]
    miss = missing_flags(kernel, cpu_flags())
    if miss:
        return 0, [f"{spec['doc']}: this CPU cannot run OpenBLAS's {kernel} kernels, which the "
                   f"table names (no {', '.join(miss)} in /proc/cpuinfo)"]
    options = matrix_options(args, spec)
    doc_table = find_table(os.path.join(args.repo, spec["doc"]), spec["heading"], ["cell"])
    ids = [r[0] for r in doc_table[1]]
    parts = spec["partitions"]
    errors = [f"{spec['doc']}: row {c!r} is in {n} of the spec's partitions, not 1"
              for c in ids for n in [sum(bool(re.search(p, c)) for p in parts)] if n != 1]
    tmp = args.keep or tempfile.mkdtemp(prefix="gfn-docs-matrix-")
    print(f"gfn-quality-matrix {shlex.join(options)}, {len(parts)} partitions side by side, "
          f"OPENBLAS_CORETYPE={kernel}, under {tmp}", flush=True)

    def run(i):
        part_options = partition_options(options, [c for c in ids if re.search(parts[i], c)])
        return run_matrix_part(args, part_options, parts[i], os.path.join(tmp, f"part{i}"),
                               kernel)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        done = list(pool.map(run, range(len(parts))))
    errors += [e for _, e in done if e]
    count = 0
    if not errors:
        merged = (done[0][0][0], [r for table, _ in done for r in table[1]])
        count, errors = compare_matrix(spec, doc_table, merged, kernel)
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return count, errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", required=True)
    ap.add_argument("--gfn-train", required=True)
    ap.add_argument("--spec", default=os.path.join(os.path.dirname(__file__), "figures.yaml"))
    ap.add_argument("--matrix", help="gfn-quality-matrix: check the quality matrix's table")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", help="run directory to keep (default: a removed temporary one)")
    ap.add_argument("--verbose", action="store_true", help="print every matching figure")
    ap.add_argument("--only", help="check only the figures whose place (document, heading, "
                    "row, column) matches this regex (not with --matrix)")
    args = ap.parse_args()
    args.repo = os.path.abspath(args.repo)
    args.gfn_train = os.path.abspath(args.gfn_train)
    if not self_test():
        return 1
    count, errors = check_matrix(args) if args.matrix else check_figures(args)
    for e in errors:
        print("FAIL " + e)
    print(f"{count} figures checked, {len(errors)} failures")
    return 1 if errors or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
