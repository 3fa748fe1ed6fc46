#!/usr/bin/env bash
# Formatting check of the sources: runs `clang-format --dry-run --Werror` (style in
# .clang-format) on every tracked *.cc / *.h file and fails, naming the files and the
# command that fixes them, if any is not formatted. run_tests.sh (the README's test
# command, which .ci/run calls) runs it before the build; tools/setup.sh --install-only
# installs clang-format.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

if ! command -v clang-format >/dev/null; then
  echo "check_format: clang-format not found (bash tools/setup.sh --install-only installs it)" >&2
  exit 1
fi
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check_format: not a git checkout, formatting check skipped" >&2
  exit 0
fi

mapfile -t files < <(git ls-files -- '*.cc' '*.h')
present=()
for f in "${files[@]}"; do
  [ -f "$f" ] && present+=("$f")  # skip files deleted in the work tree, not yet committed
done
# One clang-format per batch of files; a file that is not formatted gives lines
# "<file>:<line>:<col>: error: code should be clang-formatted [-Wclang-format-violations]".
status=0
report="$(printf '%s\0' "${present[@]}" | xargs -0 clang-format --dry-run --Werror 2>&1)" ||
  status=$?
mapfile -t bad < <(printf '%s\n' "$report" |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if ((status != 0)) && ((${#bad[@]} == 0)); then
  echo "check_format: clang-format failed:" >&2
  printf '%s\n' "$report" >&2
  exit 1
fi

if ((${#bad[@]})); then
  {
    echo "check_format: FAILED: ${#bad[@]} of ${#present[@]} source files are not clang-formatted:"
    printf '  %s\n' "${bad[@]}"
    echo "Fix them with:"
    echo "  clang-format -i ${bad[*]}"
    echo "(or every source: git ls-files '*.cc' '*.h' | xargs clang-format -i)"
    echo "See the differences with: clang-format --dry-run --Werror <file>"
  } >&2
  exit 1
fi
echo "check_format: ${#present[@]} source files formatted ($(clang-format --version | head -1))"
