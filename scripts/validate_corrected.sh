#!/bin/sh
# Validate the published cases as they are and with tests/validation/corrections.txt
# applied to a temporary copy, so the effect of each proposed correction can be judged.
# Usage: scripts/validate_corrected.sh [--keep DIR] [STRATA_BINARY]   (default build/strata)
#   --keep DIR  also leave the corrected copy in DIR (e.g. for calibrate.py --cases=DIR)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
keep=
if [ "${1:-}" = --keep ]; then
	[ $# -ge 2 ] || { echo "validate_corrected: --keep needs a directory" >&2; exit 2; }
	keep=$2
	shift 2
fi
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
if [ -n "$keep" ]; then
	mkdir -p "$keep" && cp "$tmp"/*.yaml "$keep"/
fi
echo "== as published ($cases)"
"$strata" validate "$cases" | sed -n '/^step time/,/^  source/p;/^peak memory/,/^  source/p' | grep -v '^  source'
echo "== with $(grep -cv '^[[:space:]]*\(#\|$\)' "$fixes") corrections from tests/validation/corrections.txt"
"$strata" validate "$tmp" | sed -n '/^step time/,/^  source/p;/^peak memory/,/^  source/p' | grep -v '^  source'
