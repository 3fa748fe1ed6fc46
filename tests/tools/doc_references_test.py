#!/usr/bin/python3
"""Checks that the documentation's references lead somewhere (docs/testing.md
"Documentation references").

  doc_references_test.py --repo DIR [--allow-missing PATH ...] [--binary PATH ...]

Checked, in README.md and every docs/**/*.md (fenced code blocks and inline code left out):
  - every relative Markdown link [text](path#anchor): the file exists, and the anchor is one of
    the file's headings as GitHub renders it;
  - every textual reference README "Section" or docs/<file>.md "Section" (also <file>.md
    "Section" relative to the document): the file exists and has a heading with that text.
Checked in the --help output of every tool (the --binary programs, and the scripts tools/gfn-plot,
tools/gfn-sample-metrics, tools/load_in_torchgfn.py, tools/soak.sh, tools/run_fuzz.sh): the same
textual references, and that each help names at least one.

--allow-missing names a file that may not exist yet (a generated one); links to it are not
checked further. Before the real check, the checker runs on a small synthetic tree with broken
references of each kind and must report exactly those: a checker that cannot fail fails.
Exit code 0 when every reference resolves, 1 otherwise (each broken one is printed).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)\)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
# README "Section", README.md "Section", docs/x/y.md "Section", x.md "Section"
TEXT_REF = re.compile(r'(?<![\w/.-])((?:README(?:\.md)?)|(?:[\w.-]+/)*[\w.-]+\.md)\s+"([^"\n]+)"')
SCRIPT_TOOLS = [["/usr/bin/python3", "tools/gfn-plot"],
                ["/usr/bin/python3", "tools/gfn-sample-metrics"],
                ["/usr/bin/python3", "tools/load_in_torchgfn.py"],
                ["bash", "tools/soak.sh"],
                ["bash", "tools/run_fuzz.sh"]]


def plain(text):
    """A heading's or a reference's text without inline-code marks and extra spaces."""
    return " ".join(text.replace("`", "").split())


def github_anchor(heading):
    """The id GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", plain(heading).lower())
    return text.replace(" ", "-")


def prose_lines(path):
    """(line number, line) outside fenced code blocks."""
    inside = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                inside = not inside
                continue
            if not inside:
                yield number, line.rstrip("\n")


class Document:
    def __init__(self, path):
        self.path = path
        self.headings = set()
        self.anchors = set()
        counts = {}
        for _, line in prose_lines(path):
            m = HEADING.match(line)
            if not m:
                continue
            self.headings.add(plain(m.group(2)))
            anchor = github_anchor(m.group(2))
            n = counts.get(anchor, 0)
            counts[anchor] = n + 1
            self.anchors.add(anchor if n == 0 else f"{anchor}-{n}")


class Checker:
    def __init__(self, repo, allow_missing):
        self.repo = os.path.abspath(repo)
        self.allow_missing = {os.path.normpath(os.path.join(self.repo, p)) for p in allow_missing}
        self.documents = {}
        self.errors = []
        self.references = 0

    def document(self, path):
        path = os.path.normpath(path)
        if path not in self.documents:
            self.documents[path] = Document(path) if os.path.isfile(path) else None
        return self.documents[path]

    def markdown_files(self):
        files = [os.path.join(self.repo, "README.md")]
        for root, _, names in os.walk(os.path.join(self.repo, "docs")):
            files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".md")]
        return [f for f in files if os.path.isfile(f)]

    def rel(self, path):
        return os.path.relpath(path, self.repo)

    def check_section(self, where, target, section):
        """target: an absolute path to a Markdown file; section: a heading's text."""
        self.references += 1
        if target in self.allow_missing and not os.path.exists(target):
            return
        doc = self.document(target)
        if doc is None:
            self.errors.append(f"{where}: {self.rel(target)} does not exist")
        elif plain(section) not in doc.headings:
            self.errors.append(f"{where}: {self.rel(target)} has no heading \"{section}\"")

    def text_target(self, name, base_dir):
        if name in ("README", "README.md"):
            return os.path.join(self.repo, "README.md")
        if name.startswith("docs/"):
            return os.path.normpath(os.path.join(self.repo, name))
        return os.path.normpath(os.path.join(base_dir, name))

    def check_text(self, where, text, base_dir):
        """Textual references in text (whitespace normalised); returns how many there were."""
        found = 0
        for m in TEXT_REF.finditer(" ".join(text.split())):
            found += 1
            self.check_section(where, self.text_target(m.group(1), base_dir), m.group(2))
        return found

    def check_link(self, where, source, target):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            return
        self.references += 1
        path, _, anchor = target.partition("#")
        full = source if not path else os.path.normpath(
            os.path.join(os.path.dirname(source), path))
        if full in self.allow_missing and not os.path.exists(full):
            return
        if not os.path.exists(full):
            self.errors.append(f"{where}: link to {target}: {self.rel(full)} does not exist")
            return
        if anchor:
            doc = self.document(full) if full.endswith(".md") else None
            if doc is None or anchor not in doc.anchors:
                self.errors.append(f"{where}: link to {target}: no heading with the anchor #{anchor}")

    def check_markdown(self, path):
        for number, line in prose_lines(path):
            where = f"{self.rel(path)}:{number}"
            for m in LINK.finditer(INLINE_CODE.sub("", line)):
                self.check_link(where, path, m.group(1))
        text = "\n".join(INLINE_CODE.sub("", line) for _, line in prose_lines(path))
        for m in TEXT_REF.finditer(" ".join(LINK_TARGETS.sub("", text).split())):
            self.check_section(self.rel(path), self.text_target(m.group(1), os.path.dirname(path)),
                               m.group(2))

    def check_help(self, command):
        name = os.path.basename(command[-1])
        try:
            run = subprocess.run(command + ["--help"], cwd=self.repo, capture_output=True,
                                 text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            self.errors.append(f"{name} --help: cannot run: {e}")
            return
        output = run.stdout + run.stderr
        if not output.strip():
            self.errors.append(f"{name} --help printed nothing (exit code {run.returncode})")
            return
        if self.check_text(f"{name} --help", output, self.repo) == 0:
            self.errors.append(f"{name} --help names no documentation section "
                               "(docs/<file>.md \"Section\" or README \"Section\")")


# Link targets are checked as links; their text is checked as a textual reference.
LINK_TARGETS = re.compile(r"\]\([^()\s]+\)")


def self_test():
    """The checker on a synthetic tree: it must report exactly the planted broken references."""
    with tempfile.TemporaryDirectory() as repo:
        os.makedirs(os.path.join(repo, "docs"))
        with open(os.path.join(repo, "README.md"), "w") as f:
            f.write("# Project\n\n## Run it\n\n"
                    "[ok](docs/a.md#the-section) [ok](#run-it) README \"Run it\"\n"
                    "[missing file](docs/missing.md) [bad anchor](docs/a.md#no-such-heading)\n"
                    "docs/a.md \"Another section\" docs/gone.md \"The section\"\n"
                    "```\n[in code](docs/nowhere.md)\n```\n")
        with open(os.path.join(repo, "docs", "a.md"), "w") as f:
            f.write("# A\n\n## The section\n\n[up](../README.md#run-it) [generated](generated.md)\n")
        checker = Checker(repo, ["docs/generated.md"])
        for path in checker.markdown_files():
            checker.check_markdown(path)
        checker.check_help(["bash", "-c", 'echo "see docs/a.md \\"The section\\""', "good-tool"])
        checker.check_help(["bash", "-c", 'echo "see README \\"Plots\\""', "bad-tool"])
        checker.check_help(["bash", "-c", 'echo "no reference"', "silent-tool"])
        expected = [
            "README.md:6: link to docs/missing.md: docs/missing.md does not exist",
            "README.md:6: link to docs/a.md#no-such-heading: no heading with the anchor #no-such-heading",
            "README.md: docs/a.md has no heading \"Another section\"",
            "README.md: docs/gone.md does not exist",
            "bad-tool --help: README.md has no heading \"Plots\"",
            "silent-tool --help names no documentation section (docs/<file>.md \"Section\" or "
            "README \"Section\")",
        ]
        if sorted(checker.errors) != sorted(expected):
            print("self-test FAILED: the checker reported", file=sys.stderr)
            for e in checker.errors:
                print("  " + e, file=sys.stderr)
            print("instead of", file=sys.stderr)
            for e in expected:
                print("  " + e, file=sys.stderr)
            return False
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", required=True, help="repository root")
    parser.add_argument("--allow-missing", action="append", default=[], metavar="PATH",
                        help="a file (relative to the root) that may not exist yet")
    parser.add_argument("--binary", action="append", default=[], metavar="PATH",
                        help="a program whose --help is checked (repeatable)")
    args = parser.parse_args()
    if not self_test():
        return 1
    checker = Checker(args.repo, args.allow_missing)
    files = checker.markdown_files()
    for path in files:
        checker.check_markdown(path)
    for binary in args.binary:
        checker.check_help([binary])
    for command in SCRIPT_TOOLS:
        checker.check_help([command[0], os.path.join(checker.repo, command[1])])
    for e in checker.errors:
        print(e, file=sys.stderr)
    print(f"{checker.references} references in {len(files)} Markdown files and "
          f"{len(args.binary) + len(SCRIPT_TOOLS)} --help outputs; {len(checker.errors)} broken")
    return 1 if checker.errors else 0


if __name__ == "__main__":
    sys.exit(main())
