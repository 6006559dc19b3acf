#!/usr/bin/env bash
# The README's walkthrough ("A minute of keys"), typed as written: the table after the line
# "<!-- walkthrough: WxH -->" gives, row by row, the keys (each `...` in the first cell: the
# strata command line, a tmux key name, or a `:command` typed as text) and what the screen
# shows after them (each `...` in the second cell must appear on the screen, in order of
# the rows). A README row that no longer matches the explorer fails here, naming the text.
. "$(dirname "$0")/_lib.sh"
. "$(dirname "$0")/_tui.sh"

# the table as lines: SIZE WxH | START args | KEY name | TYPED text | SEE text | ROW n
python3 - "$ROOT/README.md" >"$T/steps" <<'PY' || { fail "walkthrough: README parsed" "python3 failed"; exit 1; }
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
at = [i for i, l in enumerate(lines) if re.match(r"^<!--\s*walkthrough:\s*\d+x\d+\s*-->$", l)]
if not at:
    sys.exit("no walkthrough marker")
i = at[0]
print("SIZE\t" + re.search(r"(\d+x\d+)", lines[i]).group(1))
n = 0
for l in lines[i + 1:]:
    if not l.startswith("|"):
        break
    cells = [c.strip() for c in l.strip().strip("|").split("|")]
    if len(cells) < 2 or set(cells[0]) <= set("-: ") or cells[0] == "keys":
        continue
    n += 1
    print("ROW\t%d" % n)
    for k in re.findall(r"`([^`]+)`", cells[0]):
        if k.startswith("strata "):
            print("START\t" + k[len("strata "):])
        elif k.startswith(":"):
            print("TYPED\t" + k)
        else:
            print("KEY\t" + k)
    for s in re.findall(r"`([^`]+)`", cells[1]):
        print("SEE\t" + s)
PY
check "walkthrough: the README has the table (rows: $(grep -c '^ROW' "$T/steps"))" eval '[ "$(grep -c "^ROW" "$T/steps")" -ge 5 ]'

mkdir -p "$T/work"
cd "$T/work" || exit 2
size=$(sed -n 's/^SIZE\t//p' "$T/steps")
row=0
while IFS=$'\t' read -r kind val; do
    case $kind in
    ROW) row=$val ;;
    START)
        # shellcheck disable=SC2086 # the command line's words, as a shell splits them
        tui_start "${size%x*}" "${size#*x}" STRATA_DATA="$ROOT" -- $val
        tcheck "walkthrough row $row: strata $val starts" wait_for "Timeline" ;;
    KEY) keys "$val" ;;
    TYPED) typed "$val" ;;
    SEE) tcheck "walkthrough row $row: the screen shows '$val'" wait_for "$val" ;;
    esac
done <"$T/steps"
check "walkthrough: the export is in the working directory and executable" eval '[ -x "$T/work/plan-llama3-70b.megatron.sh" ]'
keys q q
wait_exit
