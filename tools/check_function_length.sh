#!/usr/bin/env bash
# Function length check: no function of the C++ sources longer than 120 lines
# (docs/testing.md "Function length"). Counts with Debian's pmccabe (column 5 of its
# output: the lines from the function's first line, template and return type included,
# through its closing brace; `pmccabe -v` explains the columns) and fails naming every
# function over the limit as "file:line name lines".
#
#   bash tools/check_function_length.sh                    # roles runtime transport tools
#   bash tools/check_function_length.sh --max-lines 100 tools/quality-matrix
#
# Paths are directories (their *.cc and *.h files, recursively) or files, relative to the
# current directory; without any, the project's roles/ runtime/ transport/ tools/ (from the
# repository root). Exit codes: 0 every function within the limit; 1 a function over it, or
# a file pmccabe cannot parse (it then cannot vouch for the file's functions); 2 bad command
# line or pmccabe missing (bash tools/setup.sh --install-only installs it).
#
# pmccabe (2.8) predates C++11 and misreads some of our constructs: it silently skips
# every function after them, or counts one function's lines in the next one. The files are
# rewritten for it first (in a temporary copy, line numbers unchanged), one rule per
# construct; tests/tools/function_length plants a long function after each.
set -euo pipefail

max_lines=120
paths=()
while (($#)); do
  case "$1" in
    --max-lines)
      [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || {
        echo "check_function_length: --max-lines needs a positive number" >&2
        exit 2
      }
      max_lines="$2"
      shift 2
      ;;
    -h | --help)
      sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    -*)
      echo "check_function_length: unknown option $1" >&2
      exit 2
      ;;
    *)
      paths+=("$1")
      shift
      ;;
  esac
done
if ((${#paths[@]} == 0)); then
  cd "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  paths=(roles runtime transport tools)
fi
if ! command -v pmccabe >/dev/null; then
  echo "check_function_length: pmccabe not found (bash tools/setup.sh --install-only installs it)" >&2
  exit 2
fi
for p in "${paths[@]}"; do
  [ -e "$p" ] || {
    echo "check_function_length: $p does not exist" >&2
    exit 2
  }
done

mapfile -t files < <(find "${paths[@]}" -type f \( -name '*.cc' -o -name '*.h' \) | sort -u)
if ((${#files[@]} == 0)); then
  echo "check_function_length: no *.cc or *.h file under ${paths[*]}" >&2
  exit 2
fi

copy="$(mktemp -d "${TMPDIR:-/tmp}/check_function_length.XXXXXX")"
trap 'rm -rf "$copy"' EXIT
# The copy is named c/<path>: pmccabe's output names it, and "c/" is stripped below.
mkdir "$copy/c"
printf '%s\0' "${files[@]}" | xargs -0 cp --parents -t "$copy/c"

# The rewrites, each keeping every line where it is:
rules=(
  # C++17 nested namespaces: pmccabe skips `namespace a::b {` and everything in it.
  # Renamed a___b (reported as a::b again below).
  -e '/^[[:space:]]*(inline[[:space:]]+)?namespace[[:space:]]/ s/::/___/g'
  # `extern "C" {` blocks: their functions are merged into the next one.
  -e 's/^extern "C"[[:space:]]*\{/namespace extern_C {/'
  # A file-scope macro call without a semicolon (GFN_PROTOCOL_MESSAGES(X),
  # CEREAL_REGISTER_ARCHIVE(T)): pmccabe reads the rest of the file as its declaration.
  -e 's/^([A-Z][A-Z0-9_]*\(.*\))[[:space:]]*$/\1;/'
  # Specifiers after the parameter list and attributes: the function is skipped.
  -e 's/\<noexcept(\([^()]*\))?//g'
  -e 's/\)([[:space:]]*const)?[[:space:]]+(override|final)\>/)\1/g'
  -e 's/__attribute__[[:space:]]*\(\([^()]*(\([^()]*\))?[^()]*\)\)//g'
  -e 's/\<alignas\([^()]*\)//g'
  # Ref-qualified member functions (`f() & {`, `f() && {`): merged into the next one.
  -e 's/\)([[:space:]]*const)?[[:space:]]*&&?[[:space:]]*\{[[:space:]]*$/)\1 {/'
  # A trailing return type (`auto f() -> T {`): merged into the next function.
  -e 's/\)([[:space:]]*const)?[[:space:]]*->[^{};]*\{[[:space:]]*$/)\1 {/'
  # Braced initialisers on one line (`x_{a, b}`, `T{1}`; clang-format writes no space
  # before them, and one before a block's brace): in a constructor's initialiser list
  # pmccabe takes the first for the body. Written with parentheses.
  -e ':b' -e 's/([A-Za-z0-9_>])\{([^{}]*)\}/\1(\2)/' -e 'tb'
  # Digit separators (1'000): read as the start of a character literal.
  -e "s/([0-9])'([0-9])/\\1\\2/g"
)
printf '%s\0' "${files[@]/#/$copy/c/}" | xargs -0 sed -E -i "${rules[@]}"

status=0
report="$(cd "$copy" && pmccabe "${files[@]/#/c/}" 2>"$copy/errors")" || status=$?
if [ -s "$copy/errors" ] || ((status != 0)); then
  echo "check_function_length: pmccabe could not parse these files, so it cannot count their" \
    "functions (add a rewrite to tools/check_function_length.sh, or write the construct" \
    "another way):" >&2
  sed -e 's|"c/|"|' "$copy/errors" >&2
  exit 1
fi

# Columns: complexity, complexity, statements, first line, lines, file(line): name.
long="$(printf '%s\n' "$report" | awk -F'\t' -v max="$max_lines" '
  $5 > max {
    where = $6
    sub(/^c\//, "", where)
    name = where
    sub(/^[^)]*\): /, "", name)
    gsub(/___/, "::", name)
    file = where
    sub(/\(.*$/, "", file)
    line = where
    sub(/^[^(]*\(/, "", line)
    sub(/\).*$/, "", line)
    printf "%s:%s %s %d\n", file, line, name, $5
  }' | sort -t' ' -k3,3nr)"
if [ -n "$long" ]; then
  n="$(printf '%s\n' "$long" | wc -l)"
  echo "check_function_length: $n function(s) longer than $max_lines lines (file:line name lines;" \
    "pmccabe counts from the function's first line through its closing brace):"
  printf '%s\n' "$long"
  echo "Split each into functions with one purpose each (docs/testing.md \"Function length\")."
  exit 1
fi
echo "check_function_length: ${#files[@]} files, every function within $max_lines lines"
