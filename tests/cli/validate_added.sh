#!/usr/bin/env bash
# tests/validation/added: the second part of the validation set (published runs from sources
# the shared public/ set does not have). Every case loads and evaluates with a step time, is
# described as tests/validation/README.md asks (id = file name, source, quality, notes), its
# source key (the id's prefix before '_') is not one of public/'s, and scripts/calibrate.py
# reads both parts.
. "$(dirname "$0")/_lib.sh"

ADD=tests/validation/added
PUB=tests/validation/public
if [ ! -d "$ADD" ]; then
    skip "validate added" "$ADD does not exist"
    exit 0
fi
nadd=$(ls "$ADD"/*.yaml | wc -l)
npub=$(ls "$PUB"/*.yaml | wc -l)

st validate "$ADD"
expect_rc "validate added: exit 0" 0
check "validate added: every case evaluated ($nadd)" grep -q "^validated $nadd cases" "$OUT"
check "validate added: no case fails to load" [ ! -s "$ERR" ]
check "validate added: a step-time line over all $nadd cases" grep -Eq "^step time: $nadd cases, median" "$OUT"

st validate "$ADD" --csv
nstep=$(awk -F, 'NR > 1 && $3 == 1 && $4 > 0 && $5 > 0' "$OUT" | wc -l)
check "validate added --csv: every case has a measured and a predicted step time ($nstep of $nadd)" [ "$nstep" -eq "$nadd" ]
pub_src=$(for f in "$PUB"/*.yaml; do sed -n 's/^id: \([^_]*\)_.*/\1/p' "$f"; done | sort -u)
add_src=$(awk -F, 'NR > 1 { print $2 }' "$OUT" | sort -u)
clash=$(comm -12 <(echo "$pub_src") <(echo "$add_src"))
check "validate added: source keys ($(echo $add_src)) are not public/'s" [ -z "$clash" ]
check "validate added: at least five sources" [ "$(echo "$add_src" | wc -l)" -ge 5 ]

# each file: id equal to the file name, a source, a quality A/B/C, notes
bad=
for f in "$ADD"/*.yaml; do
    id=$(sed -n 's/^id: //p' "$f")
    [ "$id" = "$(basename "$f" .yaml)" ] || bad="$bad $f(id)"
    grep -q "^source: ..........." "$f" || bad="$bad $f(source)"
    grep -Eq "^quality: [ABC]$" "$f" || bad="$bad $f(quality)"
    grep -q "^notes: " "$f" || bad="$bad $f(notes)"
done
check "added cases: id = file name, source, quality, notes${bad:+ (bad:$bad)}" [ -z "$bad" ]

# both parts validate together
st validate "$PUB" "$ADD"
check "validate public + added: $((npub + nadd)) cases" grep -q "^validated $((npub + nadd)) cases" "$OUT"

# scripts/calibrate.py fits and holds out over both parts
n=$(python3 -c 'import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("cal", "scripts/calibrate.py")
cal = importlib.util.module_from_spec(spec); spec.loader.exec_module(cal)
print(len(cal.load_cases(os.path.join(cal.ROOT, "tests/validation/public"), cal.ADDED)))' 2>"$ERR")
check "calibrate.py: load_cases reads public + added ($n cases, want $((npub + nadd)))" [ "$n" = "$((npub + nadd))" ]
