#!/bin/sh
# Validate the published cases as they are and with tests/validation/corrections.txt
# applied to a temporary copy, so the effect of each proposed correction can be judged.
# Usage: scripts/validate_corrected.sh [STRATA_BINARY]   (default build/strata)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
strata=${1:-$root/build/strata}
cases=$root/tests/validation/public
fixes=$root/tests/validation/corrections.txt
[ -x "$strata" ] || { echo "validate_corrected: no $strata (run make first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cp "$cases"/*.yaml "$tmp"/
# each line inserts "  KEY: VALUE" right under the top-level SECTION: line of every
# matching file (the files use block style; a key already present is replaced)
grep -v '^[[:space:]]*#' "$fixes" | grep -v '^[[:space:]]*$' | while read -r glob section key value; do
	for f in "$tmp"/$glob.yaml; do
		[ -f "$f" ] || continue
		awk -v sec="$section:" -v key="$key" -v val="$value" '
			$0 == sec { print; print "  " key ": " val; insec = 1; next }
			/^[^ ]/ { insec = 0 }
			insec && $1 == key ":" { next }
			{ print }' "$f" > "$f.new" && mv "$f.new" "$f"
	done
done
echo "== as published ($cases)"
"$strata" validate "$cases" | sed -n '/^step time/,/^  source/p;/^peak memory/,/^  source/p' | grep -v '^  source'
echo "== with $(grep -cv '^[[:space:]]*\(#\|$\)' "$fixes") corrections from tests/validation/corrections.txt"
"$strata" validate "$tmp" | sed -n '/^step time/,/^  source/p;/^peak memory/,/^  source/p' | grep -v '^  source'
