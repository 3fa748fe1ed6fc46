#!/usr/bin/python3
"""tools/gfn-plot on malformed run directories (metrics.csv, modes_timeline.csv,
buffer_manager_<rank>.json modes_timeline): it exits
2 and its message names the file and the line, and writes no picture. Usage: malformed_test.py GFN_PLOT WORK_DIR."""

import os
import shutil
import subprocess
import sys

CONFIG = "env:\n  name: hypergrid\n  ndim: 2\n  height: 8\n"
HEADER = ("iteration,trajectories,loss,logz,l1_exact,jsd,logz_error,l1_sampled,modes_found,"
          "elapsed_s,l1_visited,spearman_logp_logr,n_visited\n")
GOOD_ROW = "5,640,1.5,0.2,0.5,0.1,0.3,0.6,2,0.5,0.01,nan,640\n"
CASES = {  # name -> (metrics.csv text, what the message must contain besides the path)
    "not_a_number": (HEADER + GOOD_ROW + GOOD_ROW.replace("0.5,0.1", "abc,0.1"),
                     ["line 3", "'l1_exact'", "'abc'"]),
    "short_row": (HEADER + GOOD_ROW + "10,1280,1.2\n", ["line 3", "3 values", "header has 13"]),
    "no_header_column": ("iteration,loss\n1,2\n", ["line 1", "trajectories"]),
    "empty": ("", ["empty"]),
}


# modes_timeline.csv beside a good metrics.csv: name -> (text, needles)
TIMELINE_HEADER = "agent,modes_found,iteration,trajectories,wall_s\n"
TIMELINE_CASES = {
    "timeline_bad_agent": (TIMELINE_HEADER + "0,1,1,128,0.1\nmanager,2,3,384,0.2\n",
                           ["line 3", "agent 'manager'"]),
    "timeline_not_a_number": (TIMELINE_HEADER + "total,x,1,128,0.1\n",
                              ["line 2", "'modes_found'", "'x'"]),
    "timeline_header": ("rank,modes\n0,1\n", ["line 1", "agent,modes_found"]),
}

# buffer_manager_2.json with a malformed modes_timeline: name -> (text, needles)
MANAGER_CASES = {
    "manager_timeline_short_row": ('{"modes_found": 2, "modes_timeline": [[0.5, 128, 1], [1.0, 256]]}',
                                   ["modes_timeline row 1", "[1.0, 256]"]),
    "manager_timeline_not_a_list": ('{"modes_found": 2, "modes_timeline": 3}',
                                    ["modes_timeline: expected a list"]),
}


def run_case(plot, work, name, text, needles, file_name="metrics.csv"):
    run_dir = os.path.join(work, name)
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(run_dir)
    with open(os.path.join(run_dir, "config.yaml"), "w") as f:
        f.write(CONFIG)
    if file_name != "metrics.csv":
        with open(os.path.join(run_dir, "metrics.csv"), "w") as f:
            f.write(HEADER + GOOD_ROW)
    metrics = os.path.join(run_dir, file_name)
    with open(metrics, "w") as f:
        f.write(text)
    proc = subprocess.run(["/usr/bin/python3", plot, run_dir], capture_output=True, text=True)
    problems = []
    if proc.returncode != 2:
        problems.append(f"exit code {proc.returncode}, expected 2")
    for needle in [metrics] + needles:
        if needle not in proc.stderr:
            problems.append(f"message lacks {needle!r}")
    pngs = [p for p in os.listdir(run_dir) if p.endswith(".png")]
    if pngs:
        problems.append(f"wrote {pngs}")
    for p in problems:
        print(f"{name}: {p}\n  stderr: {proc.stderr.strip()}", file=sys.stderr)
    return not problems


def main(plot, work):
    results = [run_case(plot, work, n, t, k) for n, (t, k) in CASES.items()]
    results += [run_case(plot, work, n, t, k, "modes_timeline.csv")
                for n, (t, k) in TIMELINE_CASES.items()]
    results += [run_case(plot, work, n, t, k, "buffer_manager_2.json")
                for n, (t, k) in MANAGER_CASES.items()]
    print(f"malformed_test: {sum(results)}/{len(results)} cases refused as expected")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
