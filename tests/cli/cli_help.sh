#!/usr/bin/env bash
# The command line never leaves a new user guessing (issue 21, item 3):
# - a mistyped command names the nearest one and exits 2 (before: `strata evl` tried to
#   open a plan file "evl" and said "No such file or directory");
# - every command's --help lists all its options with their defaults (before: `strata
#   search --help` printed one usage line and no option), printed from the table the
#   parser reads; every option a --help lists is taken by its command (no "unknown
#   option"), so help and parser cannot drift apart;
# - an unknown key in --pin or a plan override names the nearest known key.
. "$(dirname "$0")/_lib.sh"

st evl
expect_rc "strata evl: exit 2" 2
err_has "strata evl: suggests eval" "unknown command 'evl'; did you mean 'eval'?"
st serach
err_has "strata serach: suggests search" "did you mean 'search'?"
st frobnicate
expect_rc "strata frobnicate: exit 2" 2
err_has "strata frobnicate: unknown command, lists the commands" "unknown command 'frobnicate' (commands: eval"

st search --help
expect_rc "search --help: exit 0" 0
for o in --top --framework --json --csv --no-ilp --threads --time-limit --compare --pin --tp --budget; do
    out_has "search --help lists $o" "  $o"
done
out_has "search --help: the default of --top" "candidates listed [10]"
out_has "search --help: the default of --time-limit" "[500]"

for cmd in eval search ilp export validate; do
    st "$cmd" --help
    expect_rc "$cmd --help: exit 0" 0
    out_has "$cmd --help: its usage" "usage: strata $cmd"
    # every option listed (each form of "-m, --model") goes through the parser
    opts=$(sed -n 's/^  \(-[^ ]*\( -[^ ]*\)\?\)\( [A-Z0-9|.a-z-]*\)\? .*/\1/p' "$OUT" | tr -d ',' | tr ' ' '\n' | grep '^-' | grep -v -- '--help\|^-h$')
    bad=""
    n=0
    for o in $opts; do
        n=$((n + 1))
        arg=$(grep -E "^  ([^ ]+, )?$o( |,)" "$OUT" | head -n 1 | awk -v o="$o" '{for (i = 1; i <= NF; i++) if ($i == o || $i == o ",") { a = $(i + 1); if (o ~ /,$/) a = $(i + 2); print a; exit } }')
        case "$arg" in [A-Z]*|*"|"*|0..3) val=1 ;; *) val="" ;; esac
        # in $T: an option that takes a file (search --write 1) writes it there, not in the tree
        (cd "$T" && "$STRATA" "$cmd" "$o" ${val:+"$val"} >/dev/null 2>"$T/e" </dev/null)
        grep -q "unknown option" "$T/e" && bad="$bad $o"
    done
    check "$cmd --help: all $n listed options are taken by the parser${bad:+ (refused:$bad)}" [ -z "$bad" ] && [ "$n" -ge 2 ]
done
st export --help
for o in --to --output --approximate --tp --pp --zero --framework --first-stage-layers --optimizer-offload; do
    out_has "export --help lists $o (the plan options too, with their defaults)" "$o"
done
out_has "export --help: a default in brackets" "[devices/(tp*pp*cp)]"
st presets --help
expect_rc "presets --help: exit 0" 0
out_has "presets --help: its usage" "usage: strata presets"

st search --pin tpp=3 --no-ilp
expect_rc "--pin with an unknown key: exit 2|1" "1|2"
err_has "--pin with an unknown key: the nearest" "did you mean 'tp'?"
st eval --pin tp=8 --sched 1f1b
err_has "an unknown option points to the command's --help" "strata eval --help lists them"
