#!/usr/bin/env bash
# tests/golden/export/update.sh [STRATA]  - regenerate the expected export outputs
#
# Each tests/golden/export/NAME.yaml is a plan; `strata export NAME.yaml --to TARGET` is
# kept in NAME.megatron.sh, NAME.deepspeed.json and NAME.torchtitan.toml (with --approximate:
# what a target cannot run as priced becomes "not expressible" comments) and compared byte
# for byte by tests/cli/export.sh.
#
# When to run it: ONLY after an intended change of an exporter (a flag renamed upstream, a
# new note, a corrected mapping). Never to make a failing test pass without reading the
# diff first: check that every changed line changed for the reason of your change, then
# regenerate, review `git diff tests/golden/export/` and say why in the commit message.
# The plans carry their own model and cluster, so preset changes cannot move these files.
#
# Uses $STRATA, else the first argument, else build/strata (run `make` first).
set -eu
cd "$(dirname "$0")/../../.."
BIN=${1:-${STRATA:-build/strata}}
[ -x "$BIN" ] || { echo "update.sh: $BIN not found (run make first)" >&2; exit 2; }
for plan in tests/golden/export/*.yaml; do
    for pair in megatron:sh deepspeed:json torchtitan:toml; do
        target=${pair%%:*}
        out=${plan%.yaml}.$target.${pair#*:}
        rc=0
        "$BIN" export "$plan" --to "$target" --approximate >"$out.tmp" || rc=$?
        if [ "$rc" -ne 0 ]; then
            echo "update.sh: $plan --to $target: strata export exited $rc; $out left unchanged" >&2
            rm -f "$out.tmp"
            exit 1
        fi
        mv "$out.tmp" "$out"
        echo "wrote $out"
    done
done
