#!/usr/bin/env bash
# Tests of tools/check_function_length.sh (docs/testing.md "Function length") on planted
# sources in a temporary directory: a function of exactly the limit passes, one line more
# fails naming it as "file:line name lines"; every function over the limit is named; each
# construct the checker rewrites for pmccabe, followed by (or declaring) a long function,
# still has that function caught; a file pmccabe cannot parse fails.
# Usage: check_function_length_test.sh SOURCE_DIR
set -uo pipefail
check="$1/tools/check_function_length.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0

# body NAME LINES [SIGNATURE_SUFFIX]: a function of LINES lines in all, pmccabe's count
# (its first line through its closing brace).
body() {
  local name="$1" lines="$2" suffix="${3:-}"
  echo "int $name(int x)$suffix {"
  for ((i = 0; i < lines - 3; ++i)); do echo "  x += $i;"; done
  echo "  return x;"
  echo "}"
}
next_line() { echo $(($(wc -l <"$1") + 1)); }

# expect CASE RC [LINE...]: runs the checker on directory CASE; exit code RC and, for each
# LINE, that exact line in its output.
expect() {
  local case_dir="$1" want_rc="$2"
  shift 2
  local out rc
  out="$(bash "$check" "$case_dir" 2>&1)"
  rc=$?
  local ok=1
  [ "$rc" -eq "$want_rc" ] || ok=0
  for line in "$@"; do
    grep -xF -- "$line" <<<"$out" >/dev/null || ok=0  # not grep -q: pipefail
  done
  if ((ok)); then
    echo "OK   $case_dir (exit $rc)"
  else
    echo "FAIL $case_dir: expected exit $want_rc and lines:"
    printf '       %s\n' "$@"
    echo "     got exit $rc and:"
    printf '%s\n' "$out" | sed 's/^/       /'
    failures=$((failures + 1))
  fi
}

# The limit itself: 120 lines pass, 121 fail.
mkdir at_limit over_limit
body at_limit 120 >at_limit/a.cc
body over_limit 121 >over_limit/a.cc
expect at_limit 0
expect over_limit 1 "over_limit/a.cc:1 over_limit 121"

# Every function over the limit is named, in every file; short ones are not.
mkdir several
{
  body short_one 10
  body first_long 131
  body short_two 3
} >several/a.cc
{
  echo "namespace outer {"
  body second_long 151
  echo "}  // namespace outer"
} >several/b.h
expect several 1 "several/b.h:2 outer::second_long 151" "several/a.cc:11 first_long 131" \
  "check_function_length: 2 function(s) longer than 120 lines (file:line name lines; pmccabe counts from the function's first line through its closing brace):"

# plant CASE PRELUDE [EPILOGUE]: CASE/a.cc is PRELUDE, then a function of 121 lines
# (long_after), then EPILOGUE; the line where long_after starts goes to $line.
plant() {
  mkdir "$1"
  printf '%b' "$2" >"$1/a.cc"
  line="$(next_line "$1/a.cc")"
  body long_after 121 >>"$1/a.cc"
  printf '%b' "${3:-}" >>"$1/a.cc"
}
plant nested_namespace 'namespace gfn::fixture {\n' '}  // namespace gfn::fixture\n'
expect nested_namespace 1 "nested_namespace/a.cc:$line gfn::fixture::long_after 121"
plant extern_c 'extern "C" {\nint c_function(int x) {\n  return x;\n}\n}\n'
expect extern_c 1 "extern_c/a.cc:$line long_after 121"
plant macro_call '#define LIST(X) X(a) X(b)\nnamespace n {\nLIST(DECLARE)\n' '}  // namespace n\n'
expect macro_call 1 "macro_call/a.cc:$line n::long_after 121"
plant noexcept 'namespace n {\nint f() noexcept {\n  return 1;\n}\nint g() noexcept(true) {\n  return 1;\n}\n' '}\n'
expect noexcept 1 "noexcept/a.cc:$line n::long_after 121"
plant override 'namespace n {\nstruct S final : B {\n  int f() const override {\n    return 1;\n  }\n  int g() final {\n    return 1;\n  }\n};\n' '}\n'
expect override 1 "override/a.cc:$line n::long_after 121"
plant attribute 'namespace n {\ninline __attribute__((always_inline)) int f(int x) {\n  return x;\n}\nstruct alignas(64) P {\n  int x;\n};\n' '}\n'
expect attribute 1 "attribute/a.cc:$line n::long_after 121"
plant ref_qualifier 'namespace n {\nstruct F {\n  F&& renamed() && {\n    return static_cast<F&&>(*this);\n  }\n  F& add() & {\n    return *this;\n  }\n};\n' '}\n'
expect ref_qualifier 1 "ref_qualifier/a.cc:$line n::long_after 121"
plant trailing_return 'namespace n {\nauto twice(int x) -> int {\n  return 2 * x;\n}\n' '}\n'
expect trailing_return 1 "trailing_return/a.cc:$line n::long_after 121"
plant braced_initialiser 'namespace n {\nS::S(int x)\n    : x_{x},\n      y_{x, T{2}} {\n  x_ += 1;\n}\n' '}\n'
expect braced_initialiser 1 "braced_initialiser/a.cc:$line n::long_after 121"
plant digit_separator 'namespace n {\nint big() {\n  return 1'"'"'000;\n}\n' '}\n'
expect digit_separator 1 "digit_separator/a.cc:$line n::long_after 121"

# The long function declared with the construct itself.
mkdir declared_with
{
  echo "namespace gfn::fixture {"
  body with_noexcept 121 " noexcept"
  echo "struct S : B {"
  body with_override 121 " const override"
  echo "};"
  echo "auto with_trailing_return(int x) -> int {"
  for ((i = 0; i < 119; ++i)); do echo "  x += $i;"; done
  echo "}"
  echo "}  // namespace gfn::fixture"
} >declared_with/a.cc
expect declared_with 1 "declared_with/a.cc:2 gfn::fixture::with_noexcept 121" \
  "declared_with/a.cc:124 gfn::fixture::S::with_override 121" \
  "declared_with/a.cc:246 gfn::fixture::with_trailing_return 121"

# A file pmccabe cannot parse (a closing brace too many) fails, naming it.
mkdir unparsable
printf 'int f() {\n  return 1;\n}\n}\n' >unparsable/a.cc
expect unparsable 1 '"unparsable/a.cc", line 4: too many }'"'"'s'

if ((failures)); then
  echo "$failures case(s) failed"
  exit 1
fi
echo "every case passed"
