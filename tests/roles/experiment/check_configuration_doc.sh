#!/usr/bin/env bash
# docs/configuration.md is the output of `gfn-train --print-schema` (roles/experiment/
# experiment.h configuration_reference): fails, showing the difference, when it is stale.
# Usage: check_configuration_doc.sh GFN_TRAIN DOC
set -uo pipefail
gfn_train="$1"
doc="$2"
current="$(mktemp)"
trap 'rm -f "$current"' EXIT
"$gfn_train" --print-schema >"$current" || { echo "FAIL: $gfn_train --print-schema failed"; exit 1; }
if ! diff -u "$doc" "$current" >"$current.diff"; then
  head -40 "$current.diff"
  rm -f "$current.diff"
  echo "FAIL: $doc is stale; regenerate it: build/bin/gfn-train --print-schema > docs/configuration.md"
  exit 1
fi
rm -f "$current.diff"
echo "OK: $doc matches the schema ($(grep -c '^| `' "$doc") keys)"
