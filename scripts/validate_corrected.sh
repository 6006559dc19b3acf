#!/bin/sh
# Validate the published cases as they are and with tests/validation/corrections.txt
# applied to a temporary copy, so the effect of each proposed correction can be judged.
# Usage: scripts/validate_corrected.sh [--keep DIR] [--fixes FILE] [STRATA_BINARY]
#   --keep DIR    also leave the corrected copy in DIR (e.g. for calibrate.py --cases=DIR)
#   --fixes FILE  apply FILE instead of tests/validation/corrections.txt (same format; e.g.
#                 a subset of its lines, to judge one correction at a time)
#   STRATA_BINARY defaults to build/strata
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
keep=
fixes=$root/tests/validation/corrections.txt
while [ $# -gt 0 ]; do
	case $1 in
	--keep|--fixes)
		[ $# -ge 2 ] || { echo "validate_corrected: $1 needs an argument" >&2; exit 2; }
		if [ "$1" = --keep ]; then keep=$2; else fixes=$2; fi
		shift 2 ;;
	*) break ;;
	esac
done
[ -f "$fixes" ] || { echo "validate_corrected: no corrections file $fixes" >&2; exit 2; }
strata=${1:-$root/build/strata}
cases=$root/tests/validation/public
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
echo "== with $(grep -cv '^[[:space:]]*\(#\|$\)' "$fixes") corrections from ${fixes#"$root"/}"
"$strata" validate "$tmp" | sed -n '/^step time/,/^  source/p;/^peak memory/,/^  source/p' | grep -v '^  source'
