#!/usr/bin/env bash
# Devices is a knob of the explorer (issue 20): the first row of the strategy list; l/h step
# it through whole replicas of tp*pp*cp (dp follows), :set devices=N, p pins it (then
# neither devices nor a dp step may change the device count), the search keeps the job's
# devices pinned or not, undo/redo and [+] see it, w saves `devices:` and the pin, the A/B
# slots compare plans on different device counts, the sweep view's Enter respects the pin,
# and at 80x24 the list of 17 knobs scrolls with a marker.
. "$(dirname "$0")/_lib.sh"
. "$(dirname "$0")/_tui.sh"

knob() { screen | sed -n "s/.*[ *●]$1  *\([^ |│]*\)[|│].*/\1/p" | head -n 1; }
header() { screen | head -n 1; }

tui_start 80 24 --
tcheck "devices: started" wait_for "Timeline"
check "devices: the first row shows 512, dp 16 below it" eval '[ "$(knob devices)" = 512 ] && [ "$(knob dp)" = 16 ] &&
    screen | sed -n 3p | grep -q "devices" && screen | sed -n 4p | grep -q " dp "'
check "80x24: 17 knobs in 16 rows, the title says one more below" eval 'screen | sed -n 2p | grep -Fq "↓1"'
keys G
tcheck "80x24: G scrolls to the budget, the title says one above" wait_until eval 'screen | grep -Eq "▸  budget GiB" && screen | sed -n 2p | grep -Fq "↑1"'
keys g
tcheck "g: back to the top, devices selected" wait_until eval 'screen | grep -Eq "▸  devices +512"'

# stepping devices: dp follows, tp and pp stay; undo, redo and [+]
keys l
tcheck "l on devices: 512 -> 1024, dp 16 -> 32" wait_for "devices 512 → 1024, dp 16 → 32"
check "l on devices: the knobs and the header say 1024" eval '[ "$(knob devices)" = 1024 ] && [ "$(knob dp)" = 32 ] &&
    [ "$(knob tp)" = 8 ] && header | grep -Fq "1024×" && header | grep -Fq "[+]"'
keys u
tcheck "u: back to 512 devices" wait_until eval '[ "$(knob devices)" = 512 ] && [ "$(knob dp)" = 16 ]'
check "u: the plan is unchanged again, no [+]" eval '! header | grep -Fq "[+]"'
keys C-r
tcheck "Ctrl-R: 1024 devices again" wait_until eval '[ "$(knob devices)" = 1024 ]'
keys u
wait_until eval '[ "$(knob devices)" = 512 ]'
keys h
tcheck "h on devices: 512 -> 256" wait_for "devices 512 → 256, dp 16 → 8"
keys u
wait_until eval '[ "$(knob devices)" = 512 ]'
# a dp step adds whole replicas: devices moves along, and the message says so
keys j l
tcheck "l on dp: devices follows" wait_for "devices 512 → 1024, dp 16 → 32"
keys u k
wait_until eval '[ "$(knob devices)" = 512 ]'

# pinned: devices stays, and so does dp's share of it
keys p
tcheck "p: pins devices" wait_for "pinned devices=512"
check "p: the pin marker on the devices row" eval 'screen | grep -Eq "▸● devices +512"'
keys l
tcheck "l on pinned devices: refused" wait_for "devices is pinned (p unpins it)"
keys j l
tcheck "l on dp with devices pinned: refused, names devices" wait_for "devices would change, and it is pinned"
keys j l
tcheck "l on tp with devices pinned: dp follows" wait_for "dp 16 → 8, tp 8 → 16"
check "l on tp: still 512 devices" eval '[ "$(knob devices)" = 512 ]'
keys u
wait_until eval '[ "$(knob tp)" = 8 ]'
typed ":set devices=256"
keys Enter
tcheck ":set devices=256 with devices pinned: refused" wait_for "devices is pinned"

# the search keeps the job's devices (pinned here) and the pin
keys s
tcheck "s: the search table names the devices pin" wait_for "pins kept: devices=512"
keys Enter
tcheck "s, Enter: applied" wait_for "applied candidate #1"
check "s, Enter: still 512 devices, still pinned" eval '[ "$(knob devices)" = 512 ] && screen | grep -Eq "● devices +512" &&
    header | grep -Fq "512×"'

# w: the file has devices: and the pin; eval agrees
typed ":w $T/dev.yaml"
keys Enter
tcheck ":w: saved" wait_for "saved $T/dev.yaml"
check ":w: devices: 512 and the pin in the file" eval 'grep -Eq "^devices: 512$" "$T/dev.yaml" && grep -Fq "\"devices=512\"" "$T/dev.yaml"'
st search "$T/dev.yaml" --top 1
expect_rc "search of the saved plan with its devices pin: exit 0" 0
st search "$T/dev.yaml" -n 256 --top 1
expect_rc "search with -n 256 against the pin devices=512: exit 1" 1
check "search with -n 256: the message names the pin and the job's devices" grep -Fq "pin 'devices=512': the job has 256 devices" "$ERR"

# unpinned: :set devices=N re-derives dp; A/B slots across device counts
keys g p
tcheck "p again: unpinned" wait_for "unpinned devices=512"
keys a
tcheck "a: kept in A with its devices" wait_for "kept in A: 512 devices"
typed ":set devices=256"
keys Enter
tcheck ":set devices=256: dp follows" wait_until eval '[ "$(knob devices)" = 256 ] && screen | grep -Fq "devices 512 → 256, dp"'
keys C
tcheck "C: A against the current plan" wait_for "A against the current plan"
check "C: A on 512 devices, B (current) on 256" eval 'screen | grep -Eq "A = kept A on 512 x" && screen | grep -Eq "B = current on 256 x"'
keys q
wait_for "Timeline"
# the search with devices unpinned still keeps the job's devices
keys s
tcheck "s unpinned: table" wait_for "Enter applies"
keys Enter
tcheck "s unpinned, Enter: applied" wait_for "applied candidate #1"
check "s unpinned: the job's 256 devices stay" eval '[ "$(knob devices)" = 256 ] && header | grep -Fq "256×"'

# the sweep view's Enter respects a devices pin
keys g p
wait_for "pinned devices=256"
keys S
tcheck "S: the sweep view" wait_for "Sweep"
keys Tab Tab
tcheck "Tab Tab: the devices sweep" wait_for "strata sweep devices="
keys l Enter
tcheck "sweep Enter on another device count with devices pinned: refused" wait_for "which is pinned (p unpins it)"
wait_for "Timeline"
typed ":q!"
keys Enter
wait_exit
check "quit: exit 0" [ "$EXIT_RC" = 0 ]
